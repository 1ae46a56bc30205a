"""``python_rule``: the rules of Python's number functions (``math.sin``, ``operator.mul``) from the derivative tables.

A call on Python floats and ints takes a path made for them: the table's
entry is evaluated with ``math`` arithmetic (``PY``; numpy's where that
raises, for ``inf``/``nan`` derivatives), float arguments get Python float
cotangents and ints ``NoTangent()``, and no projector is built. Any other
call takes the general path (``general_python_rules``): numpy's rule when
one is given, else the same partials with each cotangent projected onto its
argument. Both paths give the same results on floats and ints.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    Projector,
    ProjectTo,
    Thunk,
    ZeroTangent,
    checked_seed,
    checked_tangent,
    follow,
    frule,
    is_followed,
    named_after,
    rrule,
    shape_of,
)
from chainrules_core.projection import no_tangent_space

Partials = Callable[..., Any]
Rules = tuple[Callable[..., Any], Callable[..., Any]]

_PYTHON_REALS = frozenset({float, int, bool})
_TO_FLOAT = ProjectTo(1.0)
_NO_TANGENT = NoTangent()


class PY:
    """numpy's names for the ``math`` kernels: the namespace the tables use for Python floats.

    Python arithmetic raises where numpy returns ``inf`` or ``nan`` (``0.5 / 0.0``,
    ``math.log(-1.0)``); ``python_partials`` then evaluates the entry with numpy.
    """

    sqrt = staticmethod(math.sqrt)
    hypot = staticmethod(math.hypot)
    exp = staticmethod(math.exp)
    log = staticmethod(math.log)
    sin = staticmethod(math.sin)
    cos = staticmethod(math.cos)
    sinh = staticmethod(math.sinh)
    cosh = staticmethod(math.cosh)
    floor = staticmethod(math.floor)
    isnan = staticmethod(math.isnan)
    isinf = staticmethod(math.isinf)
    trunc = staticmethod(math.trunc)
    copysign = staticmethod(math.copysign)
    ldexp = staticmethod(math.ldexp)
    greater = staticmethod(operator.gt)
    less = staticmethod(operator.lt)
    equal = staticmethod(operator.eq)

    @staticmethod
    def where(condition: Any, a: Any, b: Any) -> Any:
        return a if condition else b

    @staticmethod
    def sign(x: Any) -> Any:
        return x if x != x else float(x > 0) - float(x < 0)  # numpy bools do not subtract

    @staticmethod
    def zeros_like(x: Any) -> float:
        return 0.0

    @staticmethod
    def real(x: Any) -> Any:
        return x.real

    @staticmethod
    def iscomplexobj(x: Any) -> bool:
        return isinstance(x, complex)


def python_partials(partials: Partials, out: Any, args: tuple[Any, ...]) -> Any:
    """``partials(m, out, *args)`` at Python numbers: ``math`` arithmetic, numpy's ``inf``/``nan`` where that raises."""
    try:
        return partials(PY, out, *args)
    except (ArithmeticError, ValueError):
        return _numpy_partials(partials, out, args)
    except TypeError:
        if is_followed(out) or any(is_followed(a) for a in args):  # an engine's values answer numpy's functions
            return partials(np, out, *args)
        raise


def _numpy_partials(partials: Partials, out: Any, args: tuple[Any, ...]) -> Any:
    return partials(np, np.float64(out), *(np.float64(a) for a in args))


def python_rule(
    f: Callable[..., Any],
    partials: Partials | tuple[Partials, ...],
    *arg_types: Any,
    lazy: tuple[int, ...] = (),
    numpy_rrule: Callable[..., Any] | None = None,
    numpy_frule: Callable[..., Any] | None = None,
) -> None:
    """Register rules for a Python entry point (``math.sin``, ``operator.mul``) from a table's partials.

    ``partials(m, out, *args)`` is an entry of the derivative tables of
    ``elementwise`` and ``arithmetic`` (or a tuple of one such function per
    argument, so each is computed only when its argument needs it; ``lazy``
    lists the arguments whose cotangents are then thunks). Python floats and
    ints take a fast path: the partials are evaluated with ``math``
    arithmetic (numpy's where that raises, for ``inf``/``nan`` derivatives)
    and cotangents are Python floats; ints get ``NoTangent()``. Other
    arguments go to ``numpy_rrule``/``numpy_frule`` (the rule of the numpy
    function, called with ``f`` so the primal keeps Python's semantics), or,
    for ``math`` functions, which take only reals, through the same partials
    with each cotangent projected onto its argument. ``arg_types`` restrict
    the rules to those argument types.
    """
    general = general_python_rules(partials, lazy=lazy, numpy_rrule=numpy_rrule, numpy_frule=numpy_frule)
    rrule.register(f, *arg_types)(named_after(f, general[0]))
    frule.register(f, *arg_types)(named_after(f, general[1]))
    if callable(partials):
        fast = float_rules(partials)
        rrule.fast_path(f, *arg_types)(named_after(f, fast[0]))
        frule.fast_path(f, *arg_types)(named_after(f, fast[1]))
        if len(arg_types) == 2:  # the operators on two Python floats: resolved once per type pair by the engines
            pair = float_pair_rules(partials)
            rrule.fast_path(f, *arg_types, exact=FLOAT_PAIR)(named_after(f, pair[0]))
            frule.fast_path(f, *arg_types, exact=FLOAT_PAIR)(named_after(f, pair[1]))


# ----- any arguments -----


def general_python_rules(
    partials: Partials | tuple[Partials, ...],
    *,
    lazy: tuple[int, ...] = (),
    numpy_rrule: Callable[..., Any] | None = None,
    numpy_frule: Callable[..., Any] | None = None,
) -> Rules:
    """The rrule and frule of ``python_rule`` for any arguments, each cotangent projected onto its argument."""
    single = callable(partials)

    def numpy_wanted(args: tuple[Any, ...]) -> bool:
        if numpy_rrule is None:
            return False
        return not all(_is_python_real(a) for a in args)

    def _rrule_python(f: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs or numpy_wanted(args):
            return None if numpy_rrule is None else numpy_rrule(f, *args, **kwargs)
        out = _python_primal(f, args)
        if numpy_rrule is not None and isinstance(out, complex):  # (-8.0) ** 0.5: complex, numpy's rule knows
            return numpy_rrule(f, *args)
        projects = [ProjectTo(a) for a in args]
        shape = shape_of(out)

        def python_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = checked_seed(f, out_bar, shape)
            if not single:
                return (_NO_TANGENT, *_per_argument(partials, lazy, projects, out, args, out_bar))
            ps = python_partials(partials, out, args)
            if len(args) == 1:
                return _NO_TANGENT, _bar(projects[0], ps, out_bar)
            return (
                _NO_TANGENT,
                *[_NO_TANGENT if pr.is_no_tangent else _bar(pr, p, out_bar) for pr, p in zip(projects, ps)],
            )

        return out, python_pullback

    def _frule_python(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs or numpy_wanted(args):
            return None if numpy_frule is None else numpy_frule(tangents, f, *args, **kwargs)
        out = _python_primal(f, args)
        if numpy_frule is not None and isinstance(out, complex):
            return numpy_frule(tangents, f, *args)
        ps: Any = None
        out_dot: Any = None
        for i, (x, x_dot) in enumerate(zip(args, tangents[1:]), start=0):
            x_dot = checked_tangent(f, x_dot, x, i + 1)
            if isinstance(x_dot, AbstractZero) or no_tangent_space(x):
                continue
            if single:
                ps = ps if ps is not None else python_partials(partials, out, args)
                p = ps if len(args) == 1 else ps[i]
            else:
                p = python_partials(partials[i], out, args)
            term = p * x_dot
            out_dot = term if out_dot is None else out_dot + term
        if out_dot is None:
            return out, ProjectTo(out)(ZeroTangent())
        return out, ProjectTo(out)(out_dot)

    return _rrule_python, _frule_python


def _bar(project: Projector, partial: Any, out_bar: Any) -> Any:
    """``conj(partial) * out_bar`` projected onto the argument."""
    if project is _TO_FLOAT:
        return _float_bar(partial, out_bar)
    return project((partial.conjugate() if isinstance(partial, complex) else partial) * out_bar)


def _pull_one(project: Projector, partial: Partials, out: Any, args: tuple[Any, ...], out_bar: Any) -> Any:
    return _bar(project, python_partials(partial, out, args), out_bar)


def _per_argument(
    partials: Any, lazy: tuple[int, ...], projects: list[Projector], out: Any, args: tuple[Any, ...], out_bar: Any
) -> list[Any]:
    """Cotangents from one partial function per argument, each computed only for an argument with a tangent."""
    bars: list[Any] = []
    for i, (project, partial) in enumerate(zip(projects, partials)):
        if project.is_no_tangent:
            bars.append(_NO_TANGENT)
        elif i in lazy:
            bars.append(Thunk(functools.partial(_pull_one, project, partial, out, args, out_bar)))
        else:
            bars.append(_pull_one(project, partial, out, args, out_bar))
    return bars


def _is_python_real(a: Any) -> bool:
    """A Python float, int or bool (not a numpy scalar, which numpy's rule answers)."""
    return isinstance(a, (float, int)) and not isinstance(a, np.generic)


def _python_primal(f: Any, args: tuple[Any, ...]) -> Any:
    """``f(*args)``; a ``math`` function converts its arguments, so one an engine follows calls it as one step."""
    try:
        return f(*args)
    except TypeError:
        if any(is_followed(a) for a in args):
            return follow(f, *args)
        raise


# ----- fast paths: floats and ints -----


def _moving(args: tuple[Any, ...]) -> bool:
    """Whether ``args`` are one float, or two floats or a float and an int: the calls with a path of their own."""
    if len(args) == 1:
        return type(args[0]) is float
    if len(args) == 2:
        tx, ty = type(args[0]), type(args[1])
        return (tx is float and (ty is float or ty is int)) or (ty is float and tx is int)
    return False


def _float_bar(partial: Any, out_bar: Any) -> Any:
    """``conj(partial) * out_bar`` projected onto a float."""
    c = (partial.conjugate() if type(partial) is complex else partial) * out_bar
    return c if type(c) is float else _TO_FLOAT(c)


def float_rules(partials: Partials) -> Rules:
    """The fast paths of ``python_rule``'s rrule and frule, for floats and ints (``_moving``); the rule does the rest.

    The table entry is evaluated in place, and the cotangents are those the
    general rule gives: Python floats for floats, ``NoTangent()`` for ints.
    """
    constants = getattr(partials, "constants", None)  # constant_partials: add, subtract
    scales = constants if constants is not None and len(constants) == 2 else None

    def _rrule_python(general_rrule: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 2 and not kwargs:  # _moving(args), inline for the operators' case
            tx, ty = type(args[0]), type(args[1])
            if not ((tx is float and (ty is float or ty is int)) or (ty is float and tx is int)):
                return general_rrule(f, *args)
        elif kwargs or not _moving(args):
            return general_rrule(f, *args, **kwargs)
        out = f(*args)
        if type(out) is not float:
            return general_rrule(f, *args)
        if len(args) == 1:
            (x,) = args

            def python_pullback(out_bar: Any) -> tuple[Any, Any]:
                if type(out_bar) is not float:
                    out_bar = checked_seed(f, out_bar, ())
                try:
                    p = partials(PY, out, x)
                except (ArithmeticError, ValueError):
                    p = _numpy_partials(partials, out, args)
                bar = p * out_bar
                return _NO_TANGENT, bar if type(bar) is float else _float_bar(p, out_bar)

            return out, python_pullback
        x, y = args
        if scales is not None:  # the seed scaled
            cx, cy = scales
            x_moves, y_moves = type(x) is float, type(y) is float

            def scaled_python_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
                if type(out_bar) is not float:
                    out_bar = _TO_FLOAT(checked_seed(f, out_bar, ()))
                return _NO_TANGENT, cx * out_bar if x_moves else _NO_TANGENT, cy * out_bar if y_moves else _NO_TANGENT

            return out, scaled_python_pullback

        def binary_python_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
            if type(out_bar) is not float:
                out_bar = checked_seed(f, out_bar, ())
            try:
                px, py = partials(PY, out, x, y)
            except (ArithmeticError, ValueError):
                px, py = _numpy_partials(partials, out, args)
            x_bar = _NO_TANGENT if type(x) is int else px * out_bar
            if type(x_bar) is not float and x_bar is not _NO_TANGENT:
                x_bar = _float_bar(px, out_bar)
            y_bar = _NO_TANGENT if type(y) is int else py * out_bar
            if type(y_bar) is not float and y_bar is not _NO_TANGENT:
                y_bar = _float_bar(py, out_bar)
            return _NO_TANGENT, x_bar, y_bar

        return out, binary_python_pullback

    def _frule_python(general_frule: Any, tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs or not _moving(args) or len(tangents) != len(args) + 1:
            return general_frule(tangents, f, *args, **kwargs)
        if len(args) == 1:
            (x,), x_dot = args, tangents[1]
            if type(x_dot) is not float:
                return general_frule(tangents, f, *args)
            out = f(x)
            if type(out) is not float:
                return general_frule(tangents, f, *args)
            try:
                p = partials(PY, out, x)
            except (ArithmeticError, ValueError):
                p = _numpy_partials(partials, out, args)
            out_dot = p * x_dot
            return out, out_dot if type(out_dot) is float else _TO_FLOAT(out_dot)
        (x, y), (_, x_dot, y_dot) = args, tangents
        x_moves, y_moves = type(x) is float, type(y) is float
        if (x_moves and type(x_dot) is not float) or (y_moves and type(y_dot) is not float):
            return general_frule(tangents, f, *args)
        out = f(x, y)
        if type(out) is not float:
            return general_frule(tangents, f, *args)
        try:
            px, py = partials(PY, out, x, y)
        except (ArithmeticError, ValueError):
            px, py = _numpy_partials(partials, out, args)
        if x_moves:
            out_dot = px * x_dot + py * y_dot if y_moves else px * x_dot
        else:
            out_dot = py * y_dot
        return out, out_dot if type(out_dot) is float else _TO_FLOAT(out_dot)

    return _rrule_python, _frule_python


FLOAT_PAIR = (float, float)


def _scaled_float_pullback_of(rule: Any, f: Any, cx: float, cy: float) -> Callable[[Any], tuple[Any, Any, Any]]:
    """The pullback of ``f`` with constant partials ``cx``, ``cy`` at any two floats: a float seed scaled, any other
    seed through the rule's own pullback (at 1.0 and 1.0: it depends on the arguments' types alone)."""

    def scaled_float_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
        if type(out_bar) is not float:
            return rule(f, 1.0, 1.0)[1](out_bar)  # type: ignore[no-any-return]
        return _NO_TANGENT, cx * out_bar, cy * out_bar

    return named_after(f, scaled_float_pullback)


def float_pair_rules(partials: Partials) -> Rules:
    """The fast paths of a binary ``python_rule`` for two Python floats exactly (``exact=FLOAT_PAIR``).

    What ``float_rules`` does for these types, without the tests that chose
    them: the registry resolves these for ``(float, float)`` only. A seed
    that is not a float goes to the rule's own pullback, and tangents other
    than floats and ``ZeroTangent()`` to the rule; ``ZeroTangent()`` (what the
    forward engine gives a constant) drops its term, as it does in the rule.
    """
    constants = getattr(partials, "constants", None)  # constant_partials: add, subtract
    scales = constants if constants is not None and len(constants) == 2 else None

    if scales is not None:
        cx, cy = scales

        pullbacks: dict[Any, Callable[[Any], tuple[Any, Any, Any]]] = {}
        """The pullback per primal: with constant partials it is the same at every pair of floats, made once."""

        def _rrule_floats(rule: Any, f: Any, x: float, y: float) -> Any:
            pullback = pullbacks.get(f)
            if pullback is None:
                pullback = pullbacks[f] = _scaled_float_pullback_of(rule, f, cx, cy)
            return f(x, y), pullback

    else:

        def _rrule_floats(rule: Any, f: Any, x: float, y: float) -> Any:
            out = f(x, y)
            if type(out) is not float:  # pow of a negative base: complex
                return rule(f, x, y)

            def float_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
                if type(out_bar) is not float:
                    return rule(f, x, y)[1](out_bar)  # type: ignore[no-any-return]
                try:
                    px, py = partials(PY, out, x, y)
                except (ArithmeticError, ValueError):
                    px, py = _numpy_partials(partials, out, (x, y))
                x_bar, y_bar = px * out_bar, py * out_bar
                if type(x_bar) is not float:
                    x_bar = _float_bar(px, out_bar)
                if type(y_bar) is not float:
                    y_bar = _float_bar(py, out_bar)
                return _NO_TANGENT, x_bar, y_bar

            return out, float_pullback

    def _frule_floats(rule: Any, tangents: tuple[Any, ...], f: Any, x: float, y: float) -> Any:
        if len(tangents) != 3:
            return rule(tangents, f, x, y)
        _, x_dot, y_dot = tangents
        tx, ty = type(x_dot), type(y_dot)
        x_moves = tx is float
        if not (x_moves or tx is ZeroTangent) or not (ty is float or ty is ZeroTangent):
            return rule(tangents, f, x, y)
        y_moves = ty is float
        out = f(x, y)
        if type(out) is not float:
            return rule(tangents, f, x, y)
        if scales is not None:
            px, py = scales
        else:
            try:
                px, py = partials(PY, out, x, y)
            except (ArithmeticError, ValueError):
                px, py = _numpy_partials(partials, out, (x, y))
        if x_moves:
            out_dot = px * x_dot + py * y_dot if y_moves else px * x_dot
        elif y_moves:
            out_dot = py * y_dot
        else:
            return rule(tangents, f, x, y)  # no tangent at all: an engine skips such a call
        return out, out_dot if type(out_dot) is float else _TO_FLOAT(out_dot)

    return _rrule_floats, _frule_floats
