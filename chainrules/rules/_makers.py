"""Rule makers shared by the elementwise families: linear rules, zero-derivative rules, the Python-number path.

Each maker registers an ``frule`` and an ``rrule`` for one function from an
entry of ``_derivatives`` (or from nothing, for zero derivatives), so the
numpy, ``math``, ``operator`` and builtins entry points share one definition.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, Thunk, ZeroTangent, frule, rrule, unthunk
from chainrules_core.projection import Projector, ProjectTo, shape_of, sum_to_shape
from chainrules_core.rule_definition import _zero_cotangent as zero_of

# scalar_rule's own steps: conj(partial) * out_bar unbroadcast and projected; the zero cotangent of an argument
from chainrules_core.rule_definition import cotangent_from_partial as pull

from ._derivatives import Elementwise, python_partials

__all__ = [
    "NUMERIC",
    "linear_rule",
    "passed_on",
    "pull",
    "push",
    "python_rule",
    "readonly",
    "refused",
    "unary_rules",
    "zero_frule",
    "zero_of",
    "zero_rrule",
    "zero_rule",
]

REFUSED_KWARGS = ("out", "where")

NUMERIC = (numbers.Number, np.ndarray, np.generic)
"""The argument types of the arithmetic rules of ``operator`` and builtins: numbers and numpy arrays."""


def refused(nin: int | None, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether a call writes into a buffer or masks its output: such calls get no rule (``None``).

    ``out=`` and ``where=`` are refused rather than handled, so that an engine
    falls back to differentiating the call another way; so are output
    buffers passed positionally to a ufunc (more arguments than ``nin``).
    """
    return (bool(kwargs) and any(k in kwargs for k in REFUSED_KWARGS)) or (nin is not None and len(args) > nin)


def readonly(x: Any) -> Any:
    """A read-only view of an array this rule does not own (a seed passed through unchanged).

    An engine that accumulates cotangents in place then copies it instead of
    writing into the caller's seed (``chainrules_core.accumulate``).
    """
    if type(x) is np.ndarray and x.flags.writeable:
        x = x.view()
        x.flags.writeable = False
    return x


def passed_on(t: Any, *given: Any) -> Any:
    """``t``, read-only if it is one of the tangents ``given`` to the rule rather than a new array."""
    return readonly(t) if any(t is g for g in given) else t


def _scaled(c: Any, t: Any) -> Any:
    """``c * t`` for a constant ``c``, without arithmetic for ``c = ±1``."""
    if c == 1:
        return t
    return -t if c == -1 else c * t


# ----- linear functions: add, subtract, negative, positive, deg2rad ... -----


def linear_rule(f: Callable[..., Any], entry: Elementwise, nin: int | None = None) -> None:
    """Register the rules of a function whose partials are constants (``entry.constant``).

    The pullback scales the cotangent by each constant, unbroadcasts and
    projects it; a constant 1 passes the seed on as a read-only view rather
    than a copy.
    """
    constants = entry.evaluate(np, None, *([None] * entry.arity))
    constants = constants if entry.arity > 1 else (constants,)

    @rrule.register(f)
    def _rrule_linear(f: Any, *args: Any, **kwargs: Any) -> Any:
        if refused(nin, args, kwargs):
            return None
        out = f(*args, **kwargs)
        projects = [ProjectTo(x) for x in args]
        shapes = [shape_of(x) for x in args]

        def linear_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = unthunk(out_bar)
            if isinstance(out_bar, AbstractZero):
                return (NoTangent(), *map(zero_of, projects))
            bars = [
                NoTangent() if project.is_no_tangent else project(sum_to_shape(_scaled(c, out_bar), shape))
                for c, project, shape in zip(constants, projects, shapes)
            ]
            return (NoTangent(), *(passed_on(b, out_bar) for b in bars))

        return out, linear_pullback

    @frule.register(f)
    def _frule_linear(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        if refused(nin, args, kwargs):
            return None
        out = f(*args, **kwargs)
        project_out = ProjectTo(out)
        out_dot: Any = ZeroTangent()
        for c, x, x_dot in zip(constants, args, tangents[1:]):
            if not isinstance(x_dot, AbstractZero) and not ProjectTo(x).is_no_tangent:
                term = _scaled(c, unthunk(x_dot))
                out_dot = term if isinstance(out_dot, AbstractZero) else out_dot + term
        if isinstance(out_dot, AbstractZero):
            return out, zero_of(project_out)
        if shape_of(out_dot) != shape_of(out):
            out_dot = np.broadcast_to(out_dot, shape_of(out))
        projected = project_out(out_dot)
        return out, passed_on(projected, *tangents)


# ----- functions of one array with options: abs, angle, softmax ... -----

Map = Callable[[Any, Any, Any, tuple[Any, ...], dict[str, Any]], Any]


def unary_rules(f: Callable[..., Any], pushforward: Map, pullback: Map, nin: int | None = None) -> None:
    """Register the rules of ``f(x, *options, **kwargs)``, differentiable in ``x`` alone.

    ``pushforward(x, out, x_dot, options, kwargs)`` returns the output's
    tangent and ``pullback(x, out, out_bar, options, kwargs)`` the cotangent
    of ``x``, which is projected onto ``x``; positional options (``deg``,
    ``axis``) get ``NoTangent()``. ``nin`` bounds the positional arguments,
    as for ``refused``.
    """

    @rrule.register(f)
    def _rrule_unary(f: Any, x: Any, *options: Any, **kwargs: Any) -> Any:
        if refused(nin, (x, *options), kwargs):
            return None
        out = f(x, *options, **kwargs)
        project_x = ProjectTo(x)
        no_tangents = [NoTangent()] * len(options)

        def unary_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = unthunk(out_bar)
            if isinstance(out_bar, AbstractZero) or project_x.is_no_tangent:
                return NoTangent(), zero_of(project_x), *no_tangents
            x_bar = project_x(pullback(x, out, out_bar, options, kwargs))
            return NoTangent(), passed_on(x_bar, out_bar), *no_tangents

        return out, unary_pullback

    @frule.register(f)
    def _frule_unary(tangents: tuple[Any, ...], f: Any, x: Any, *options: Any, **kwargs: Any) -> Any:
        if refused(nin, (x, *options), kwargs):
            return None
        out = f(x, *options, **kwargs)
        x_dot = tangents[1]
        if isinstance(x_dot, AbstractZero) or ProjectTo(x).is_no_tangent:
            return out, zero_of(ProjectTo(out))
        x_dot = unthunk(x_dot)
        return out, passed_on(ProjectTo(out)(pushforward(x, out, x_dot, options, kwargs)), x_dot)


# ----- zero derivatives: floor, ceil, trunc, rint, round, sign of a real -----


def zero_rule(f: Callable[..., Any], nin: int | None = None) -> None:
    """Register rules with a zero derivative: zeros of each input's type and dtype (not ``NoTangent()``).

    For piecewise-constant functions with real outputs (rounding), as
    ChainRules.jl does, so that numeric code downstream keeps numeric
    cotangents. Integer arguments (``decimals``) get ``NoTangent()``.
    """

    @rrule.register(f)
    def _rrule_zero(f: Any, *args: Any, **kwargs: Any) -> Any:
        return None if refused(nin, args, kwargs) else zero_rrule(f, args, kwargs)

    @frule.register(f)
    def _frule_zero(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        return None if refused(nin, args, kwargs) else zero_frule(tangents, f, args, kwargs)


def zero_rrule(f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The rrule of a function with a zero derivative."""
    out = f(*args, **kwargs)
    projects = [ProjectTo(x) for x in args]

    def zero_pullback(out_bar: Any) -> tuple[Any, ...]:
        if isinstance(unthunk(out_bar), AbstractZero):
            return (NoTangent(), *map(zero_of, projects))
        return (
            NoTangent(),
            *(zero_of(p) if p.is_no_tangent else p(np.zeros(shape_of(x))) for p, x in zip(projects, args)),
        )

    return out, zero_pullback


def zero_frule(tangents: tuple[Any, ...], f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The frule of a function with a zero derivative: a zero tangent of the output's type and dtype."""
    out = f(*args, **kwargs)
    project_out = ProjectTo(out)
    return out, zero_of(project_out) if project_out.is_no_tangent else project_out(np.zeros(shape_of(out)))


# ----- Python numbers: math, operator and builtins entry points -----

_PYTHON_REALS = frozenset({float, int, bool})
_TO_FLOAT = ProjectTo(1.0)
_NO_TANGENT = NoTangent()


def python_rule(
    f: Callable[..., Any],
    entry: Elementwise,
    *arg_types: Any,
    numpy_rrule: Callable[..., Any] | None = None,
    numpy_frule: Callable[..., Any] | None = None,
) -> None:
    """Register rules for a Python entry point (``math.sin``, ``operator.mul``) from ``entry``'s partials.

    Python floats and ints take a fast path: the partials are evaluated with
    ``math`` arithmetic (numpy's where that raises, for ``inf``/``nan``
    derivatives) and cotangents are Python floats; ints get ``NoTangent()``.
    Other arguments go to ``numpy_rrule``/``numpy_frule`` (the rule of the
    numpy function, called with ``f`` so the primal keeps Python's
    semantics), or, for ``math`` functions, which take only reals, through
    the same partials with each cotangent projected onto its argument.
    ``arg_types`` restrict the rules to those argument types.
    """
    partials, lazy = entry.partials, entry.lazy
    single, unary = callable(partials), entry.arity == 1

    def numpy_wanted(args: tuple[Any, ...]) -> bool:
        if numpy_rrule is None:
            return False
        for a in args:
            if type(a) not in _PYTHON_REALS:
                return True
        return False

    @rrule.register(f, *arg_types)
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
                if isinstance(out_bar, AbstractZero):
                    return (_NO_TANGENT, *map(zero_of, projects))
            if not single:
                return (_NO_TANGENT, *_per_argument(partials, lazy, projects, out, args, out_bar))
            ps = python_partials(partials, out, args)
            if unary:
                return _NO_TANGENT, _bar(projects[0], ps, out_bar)
            return (
                _NO_TANGENT,
                *[_NO_TANGENT if pr.is_no_tangent else _bar(pr, p, out_bar) for pr, p in zip(projects, ps)],
            )

        return out, python_pullback

    @frule.register(f, *arg_types)
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
                p = ps if unary else ps[i]
            else:
                p = python_partials(partials[i], out, args)
            term = p * unthunk(x_dot)
            out_dot = term if out_dot is None else out_dot + term
        if out_dot is None:
            return out, zero_of(ProjectTo(out))
        return out, out_dot if type(out_dot) is float and type(out) is float else ProjectTo(out)(out_dot)


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


# ----- one argument's cotangent and tangent from a partial -----


def push(out: Any, terms: list[Any]) -> Any:
    """The sum of ``partial * x_dot`` terms, broadcast to the output's shape and projected onto it."""
    project_out = ProjectTo(out)
    if not terms:
        return zero_of(project_out)
    out_dot = sum(terms[1:], terms[0])
    if shape_of(out_dot) != shape_of(out):
        out_dot = np.broadcast_to(out_dot, shape_of(out))
    return project_out(out_dot)
