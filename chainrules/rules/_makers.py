"""The rule makers: each registers the ``frule`` and ``rrule`` of one function from a small definition.

* ``elementwise_linear_rule(f, constants)``: constant partials (``add``,
  ``negative``, ``deg2rad``).
* ``zero_derivative_rule(f)``: piecewise-constant functions with real
  outputs (``floor``, ``round``).
* ``python_rule(f, partials)``: a Python entry point (``math.sin``,
  ``operator.mul``) from the derivative tables that the numpy rules use.
* ``linear_in_first_rule(f, adjoint)``: linear in the first argument, the
  others options (``reshape``, ``cumsum``, ``take``).
* ``rule_in_first(f, parse=..., prepare=..., pullback=..., pushforward=...)``:
  differentiable in the first argument only, with options (``sum``,
  ``sort``, ``abs``, ``softmax``).
* ``bound_rule(f, partials, parameters)``: elementwise with a partial per
  argument, like ``scalar_rule``, for Python functions whose parameters may
  come by keyword (``scipy.special.zeta(x, q=...)``).

Every closure a maker defines is named after its primal (``named_after``):
a traceback through ``np.sum``'s pullback reads ``sum_pullback``.
"""

from __future__ import annotations

import functools
import math
import numbers
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    NotImplementedTangent,
    Projector,
    ProjectTo,
    Thunk,
    ZeroTangent,
    cotangent_from_partial,
    frule,
    named_after,
    rrule,
    shape_of,
    sum_to_shape,
    unthunk,
)

from ._arrays import instantiate_zeros

NUMERIC = (numbers.Number, np.ndarray, np.generic)
"""The argument types of the arithmetic rules of ``operator`` and builtins: numbers and numpy arrays."""

_REFUSED_KWARGS = ("out", "where")


def refused(nin: int | None, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether a call writes into a buffer or masks its output: such calls get no rule (``None``).

    ``out=`` and ``where=`` are refused rather than handled, so that an engine
    falls back to differentiating the call another way; so are output
    buffers passed positionally to a ufunc (more arguments than ``nin``).
    """
    return (bool(kwargs) and any(k in kwargs for k in _REFUSED_KWARGS)) or (nin is not None and len(args) > nin)


def readonly(x: Any) -> Any:
    """A read-only view of an array this rule does not own (a seed passed through unchanged).

    An engine that accumulates cotangents in place then copies it instead of
    writing into the caller's seed (``chainrules_core.accumulate``).
    """
    if type(x) is np.ndarray and x.flags.writeable:
        x = x.view()
        x.flags.writeable = False
    return x


def readonly_if_given(t: Any, *given: Any) -> Any:
    """``t``, read-only if it is one of the tangents ``given`` to the rule rather than a new array."""
    return readonly(t) if any(t is g for g in given) else t


def output_tangent(out: Any, terms: list[Any]) -> Any:
    """The sum of ``partial * x_dot`` terms, broadcast to the output's shape and projected onto it."""
    project_out = ProjectTo(out)
    if not terms:
        return project_out(ZeroTangent())
    out_dot = sum(terms[1:], terms[0])
    if shape_of(out_dot) != shape_of(out):
        out_dot = np.broadcast_to(out_dot, shape_of(out))
    return project_out(out_dot)


# ----- Python numbers: the tables' partials in math arithmetic -----


class PY:
    """numpy's names for the ``math`` kernels: the namespace the tables use for Python floats.

    Python arithmetic raises where numpy returns ``inf`` or ``nan`` (``0.5 / 0.0``,
    ``math.log(-1.0)``); ``python_partials`` then evaluates the entry with numpy.
    """

    sqrt = staticmethod(math.sqrt)
    exp = staticmethod(math.exp)
    log = staticmethod(math.log)
    sin = staticmethod(math.sin)
    cos = staticmethod(math.cos)
    sinh = staticmethod(math.sinh)
    cosh = staticmethod(math.cosh)
    floor = staticmethod(math.floor)
    isnan = staticmethod(math.isnan)
    trunc = staticmethod(math.trunc)
    greater = staticmethod(operator.gt)
    less = staticmethod(operator.lt)
    equal = staticmethod(operator.eq)

    @staticmethod
    def where(condition: Any, a: Any, b: Any) -> Any:
        return a if condition else b

    @staticmethod
    def sign(x: Any) -> Any:
        return x if x != x else float((x > 0) - (x < 0))

    @staticmethod
    def real(x: Any) -> Any:
        return x.real

    @staticmethod
    def iscomplexobj(x: Any) -> bool:
        return isinstance(x, complex)


def python_partials(partials: Callable[..., Any], out: Any, args: tuple[Any, ...]) -> Any:
    """``partials(m, out, *args)`` at Python numbers: ``math`` arithmetic, numpy's ``inf``/``nan`` where that raises."""
    try:
        return partials(PY, out, *args)
    except (ArithmeticError, ValueError):
        return partials(np, np.float64(out), *(np.float64(a) for a in args))


# ----- elementwise functions with constant partials: add, subtract, negative, deg2rad ... -----


def constant_partials(constants: tuple[float, ...]) -> Callable[..., Any]:
    """A table entry for constant partials, as ``python_rule`` takes it: ``(m, out, *args) -> constants``."""
    value: Any = constants[0] if len(constants) == 1 else constants

    def partials(m: Any, out: Any, *args: Any) -> Any:
        return value

    return partials


def _scaled(c: Any, t: Any) -> Any:
    """``c * t`` for a constant ``c``, without arithmetic for ``c = ±1``."""
    if c == 1:
        return t
    return -t if c == -1 else c * t


def elementwise_linear_rule(f: Callable[..., Any], constants: tuple[float, ...], *, nin: int | None = None) -> None:
    """Register the rules of an elementwise function whose partials are ``constants``, one per argument.

    The pullback scales the cotangent by each constant, unbroadcasts and
    projects it; a constant 1 passes the seed on as a read-only view rather
    than a copy.
    """

    def _rrule_linear(f: Any, *args: Any, **kwargs: Any) -> Any:
        if refused(nin, args, kwargs):
            return None
        out = f(*args, **kwargs)
        projects = [ProjectTo(x) for x in args]
        shapes = [shape_of(x) for x in args]

        def linear_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = unthunk(out_bar)
            bars = [
                project(sum_to_shape(_scaled(c, out_bar), shape))
                for c, project, shape in zip(constants, projects, shapes)
            ]
            return (NoTangent(), *(readonly_if_given(b, out_bar) for b in bars))

        return out, linear_pullback

    def _frule_linear(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        if refused(nin, args, kwargs):
            return None
        out = f(*args, **kwargs)
        terms = [
            _scaled(c, unthunk(x_dot))
            for c, x, x_dot in zip(constants, args, tangents[1:])
            if not isinstance(x_dot, AbstractZero) and not ProjectTo(x).is_no_tangent
        ]
        return out, readonly_if_given(output_tangent(out, terms), *tangents)

    rrule.register(f)(named_after(f, _rrule_linear))
    frule.register(f)(named_after(f, _frule_linear))


# ----- zero derivatives: floor, ceil, trunc, rint, round, sign of a real -----


def zero_derivative_rule(
    f: Callable[..., Any], *, nin: int | None = None, register: bool = True
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """Register rules with a zero derivative: zeros of each input's type and dtype (not ``NoTangent()``).

    For piecewise-constant functions with real outputs (rounding), as
    ChainRules.jl does, so that numeric code downstream keeps numeric
    cotangents. Integer arguments (``decimals``) get ``NoTangent()``.
    Returns the rrule and the frule; ``register=False`` only makes them, for
    a rule that is zero on some inputs only (``sign`` of a real number).
    """

    def _rrule_zero(f: Any, *args: Any, **kwargs: Any) -> Any:
        if refused(nin, args, kwargs):
            return None
        out = f(*args, **kwargs)
        projects = [ProjectTo(x) for x in args]

        def zero_pullback(out_bar: Any) -> tuple[Any, ...]:
            return (NoTangent(), *(p(np.zeros(shape_of(x))) for p, x in zip(projects, args)))

        return out, zero_pullback

    def _frule_zero(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        if refused(nin, args, kwargs):
            return None
        out = f(*args, **kwargs)
        return out, ProjectTo(out)(np.zeros(shape_of(out)))

    rules = named_after(f, _rrule_zero), named_after(f, _frule_zero)
    if register:
        rrule.register(f)(rules[0])
        frule.register(f)(rules[1])
    return rules


# ----- Python numbers: math, operator and builtins entry points -----

_PYTHON_REALS = frozenset({float, int, bool})
_TO_FLOAT = ProjectTo(1.0)
_NO_TANGENT = NoTangent()


def python_rule(
    f: Callable[..., Any],
    partials: Callable[..., Any] | tuple[Callable[..., Any], ...],
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
    single = callable(partials)

    def numpy_wanted(args: tuple[Any, ...]) -> bool:
        if numpy_rrule is None:
            return False
        return any(type(a) not in _PYTHON_REALS for a in args)

    def _rrule_python(f: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs or numpy_wanted(args):
            return None if numpy_rrule is None else numpy_rrule(f, *args, **kwargs)
        out = f(*args)
        if numpy_rrule is not None and type(out) is complex:  # (-8.0) ** 0.5: complex, numpy's rule knows
            return numpy_rrule(f, *args)
        projects = [_TO_FLOAT if type(a) is float else ProjectTo(a) for a in args]

        def python_pullback(out_bar: Any) -> tuple[Any, ...]:
            if type(out_bar) is not float:
                out_bar = unthunk(out_bar)
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
        out = f(*args)
        if numpy_frule is not None and type(out) is complex:
            return numpy_frule(tangents, f, *args)
        ps: Any = None
        out_dot: Any = None
        for i, (x, x_dot) in enumerate(zip(args, tangents[1:])):
            if isinstance(x_dot, AbstractZero) or (type(x) is not float and ProjectTo(x).is_no_tangent):
                continue
            if single:
                ps = ps if ps is not None else python_partials(partials, out, args)
                p = ps if len(args) == 1 else ps[i]
            else:
                p = python_partials(partials[i], out, args)
            term = p * unthunk(x_dot)
            out_dot = term if out_dot is None else out_dot + term
        if out_dot is None:
            return out, ProjectTo(out)(ZeroTangent())
        return out, out_dot if type(out_dot) is float and type(out) is float else ProjectTo(out)(out_dot)

    rrule.register(f, *arg_types)(named_after(f, _rrule_python))
    frule.register(f, *arg_types)(named_after(f, _frule_python))


def _bar(project: Projector, partial: Any, out_bar: Any) -> Any:
    """``conj(partial) * out_bar`` projected onto the argument."""
    c = (partial.conjugate() if type(partial) is complex else partial) * out_bar
    if project is _TO_FLOAT:
        return c if type(c) is float else _TO_FLOAT(c)
    return project(c)


def _pull_one(project: Projector, partial: Callable[..., Any], out: Any, args: tuple[Any, ...], out_bar: Any) -> Any:
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


# ----- functions linear in their first argument: reshape, transpose, cumsum, take ... -----

_NO_TANGENT_PROJECTOR = ProjectTo(None)


def linear_in_first_rule(
    f: Callable[..., Any],
    adjoint: Callable[..., Any],
    *,
    pushforward: Callable[..., Any] | None = None,
    applies: Callable[..., bool] | None = None,
    types: tuple[type, ...] = (),
) -> None:
    """Register ``frule`` and ``rrule`` for ``f(x, *args, **kwargs)``, linear in ``x``.

    Every other argument is non-differentiable. The pushforward is
    ``f(x_dot, *args, **kwargs)`` unless ``pushforward`` says otherwise; the
    pullback projects ``adjoint(out_bar, x, *args, **kwargs)`` onto ``x``.
    ``applies(x, *args, **kwargs)`` returning false makes both rules answer
    ``None`` (refused keywords such as ``out=``). An output without a tangent
    space (a cast to an integer dtype) makes the call non-differentiable:
    ``NoTangent()`` for the output and every argument. ``types`` registers
    the rules for those argument types only.
    """
    push = pushforward or f

    def _rrule_linear(f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        if applies is not None and not applies(x, *args, **kwargs):
            return None
        out = f(x, *args, **kwargs)
        project_x = _NO_TANGENT_PROJECTOR if ProjectTo(out).is_no_tangent else ProjectTo(x)
        others = (NoTangent(),) * len(args)

        def linear_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = unthunk(out_bar)
            if project_x.is_no_tangent or isinstance(out_bar, AbstractZero):
                return (NoTangent(), project_x(ZeroTangent()), *others)
            return (NoTangent(), project_x(adjoint(out_bar, x, *args, **kwargs)), *others)

        return out, linear_pullback

    def _frule_linear(tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        if applies is not None and not applies(x, *args, **kwargs):
            return None
        out = f(x, *args, **kwargs)
        project_out = ProjectTo(out)
        x_dot = unthunk(tangents[1])
        if project_out.is_no_tangent:
            return out, NoTangent()
        if isinstance(x_dot, AbstractZero) or ProjectTo(x).is_no_tangent:
            return out, ZeroTangent()
        if isinstance(x, (list, tuple)):
            x_dot = instantiate_zeros(x_dot, x)
        return out, project_out(push(x_dot, *args, **kwargs))

    rrule.register(f, *types)(named_after(f, _rrule_linear))
    frule.register(f, *types)(named_after(f, _frule_linear))


# ----- functions of one argument with options: sum, prod, sort, abs, angle, softmax ... -----


class Call:
    """What ``rule_in_first``'s callbacks get by default: the argument, the output and the options."""

    __slots__ = ("options", "out", "x")

    def __init__(self, x: Any, options: Any, out: Any) -> None:
        self.x = x
        self.options = options
        self.out = out


def positional_options(nin: int | None = None) -> Callable[[tuple[Any, ...], dict[str, Any]], Any]:
    """A ``parse`` that keeps the other arguments as they came, ``(args, kwargs)``, and refuses ``out=``/``where=``."""

    def parse(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return None if refused(None if nin is None else nin - 1, args, kwargs) else (args, kwargs)

    return parse


def rule_in_first(
    f: Callable[..., Any],
    *,
    parse: Callable[[tuple[Any, ...], dict[str, Any]], Any],
    pullback: Callable[[Any, Any], Any],
    pushforward: Callable[[Any, Any], Any],
    prepare: Callable[[Any, Any, Any], Any] = Call,
    primal: Callable[..., Any] | None = None,
) -> None:
    """Register ``frule`` and ``rrule`` for ``f(x, *args, **kwargs)``, differentiable in ``x`` only.

    ``parse(args, kwargs)`` reads the other arguments into options (``None``
    refuses the call: both rules answer ``None``); ``prepare(x, options,
    out)`` keeps what the derivative needs (by default a ``Call``);
    ``pullback(state, out_bar)`` is ``x``'s cotangent before projection (or
    a zero) and ``pushforward(state, x_dot)`` the output's tangent.
    ``primal(f, x, args, kwargs, options)`` computes the output when the rule
    has a better way than calling ``f`` (a sort that keeps its permutation).
    The other arguments get ``NoTangent()``.
    """

    def evaluate(f: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any], options: Any) -> Any:
        return f(x, *args, **kwargs) if primal is None else primal(f, x, args, kwargs, options)

    def _rrule_in_first(f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        options = parse(args, kwargs)
        if options is None:
            return None
        out = evaluate(f, x, args, kwargs, options)
        state = prepare(x, options, out)
        project_x = ProjectTo(x)
        others = (NoTangent(),) * len(args)

        def in_first_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = unthunk(out_bar)
            if project_x.is_no_tangent or isinstance(out_bar, AbstractZero):
                return (NoTangent(), project_x(ZeroTangent()), *others)
            x_bar = pullback(state, out_bar)
            return (NoTangent(), readonly_if_given(project_x(x_bar), out_bar), *others)

        return out, in_first_pullback

    def _frule_in_first(tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        options = parse(args, kwargs)
        if options is None:
            return None
        out = evaluate(f, x, args, kwargs, options)
        x_dot = unthunk(tangents[1])
        if isinstance(x_dot, AbstractZero) or ProjectTo(x).is_no_tangent:
            return out, ProjectTo(out)(ZeroTangent())
        out_dot = ProjectTo(out)(pushforward(prepare(x, options, out), x_dot))
        return out, readonly_if_given(out_dot, x_dot)

    rrule.register(f)(named_after(f, _rrule_in_first))
    frule.register(f)(named_after(f, _frule_in_first))


# ----- functions whose parameters may come by keyword: scipy.special.polygamma, zeta, lambertw ... -----


def bound_rule(f: Callable[..., Any], partials: Callable[..., Any], parameters: tuple[str, ...]) -> None:
    """Register ``frule`` and ``rrule`` for an elementwise ``f`` from its partials, its parameters given either way.

    ``partials(out, *values)`` gets the values of ``parameters`` in order, up
    to the last one the call gives, positionally or by keyword, and returns
    one partial per value (``NoTangent()`` for an integer parameter,
    ``not_implemented(...)`` for a missing derivative). As with every rule,
    only the positional arguments get cotangents; the pullback conjugates the
    partials and sums them back to each argument's shape, as ``scalar_rule``
    does. A call with ``out=`` gets no rule.
    """

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        values = list(args)
        for name in parameters[len(args) :]:
            if name not in kwargs:
                break
            values.append(kwargs[name])
        return values

    def _rrule_bound(f: Any, *args: Any, **kwargs: Any) -> Any:
        if "out" in kwargs:
            return None
        out = f(*args, **kwargs)
        projects = [ProjectTo(x) for x in args]

        def bound_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = unthunk(out_bar)
            ps = partials(out, *bind(args, kwargs))
            bars = [
                cotangent_from_partial(pr, shape_of(x), ps[i], out_bar) for i, (pr, x) in enumerate(zip(projects, args))
            ]
            return (NoTangent(), *bars)

        return out, bound_pullback

    def _frule_bound(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        if "out" in kwargs:
            return None
        out = f(*args, **kwargs)
        moving = [
            i
            for i, (x, x_dot) in enumerate(zip(args, tangents[1:]))
            if not isinstance(x_dot, AbstractZero) and not ProjectTo(x).is_no_tangent
        ]
        ps = partials(out, *bind(args, kwargs)) if moving else ()
        terms = [ps[i] * unthunk(tangents[i + 1]) for i in moving if not isinstance(ps[i], AbstractZero)]
        missing = [t for t in terms if isinstance(t, NotImplementedTangent)]
        return out, missing[0] if missing else output_tangent(out, terms)

    rrule.register(f)(named_after(f, _rrule_bound))
    frule.register(f)(named_after(f, _frule_bound))
