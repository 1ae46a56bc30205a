"""Rule makers shared by the elementwise families: linear rules, zero-derivative rules, the Python-number path.

Each maker registers an ``frule`` and an ``rrule`` for one function from an
entry of ``_derivatives`` (or from nothing, for zero derivatives), so the
numpy, ``math``, ``operator`` and builtins entry points share one definition.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, Thunk, ZeroTangent, frule, rrule, unthunk
from chainrules_core.projection import Projector, ProjectTo, shape_of, sum_to_shape

# scalar_rule's own steps: conj(partial) * out_bar unbroadcast and projected; the zero cotangent of an argument
from chainrules_core.rule_definition import _pull as pull
from chainrules_core.rule_definition import _zero_cotangent as zero_of

from ._derivatives import Elementwise, python_partials

__all__ = [
    "NUMERIC",
    "linear_rule",
    "pull",
    "push",
    "python_rule",
    "readonly",
    "refused",
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
            return (NoTangent(), *(readonly(b) if b is out_bar else b for b in bars))

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
        return out, readonly(projected) if any(projected is t for t in tangents) else projected


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

    def python_numbers(args: tuple[Any, ...]) -> bool:
        return numpy_rrule is None or all(type(a) in _PYTHON_REALS for a in args)

    @rrule.register(f, *arg_types)
    def _rrule_python(f: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs or not python_numbers(args):
            return None if numpy_rrule is None else numpy_rrule(f, *args, **kwargs)
        out = f(*args)
        if type(out) is complex and numpy_rrule is not None:  # (-8.0) ** 0.5: complex, numpy's rule knows
            return numpy_rrule(f, *args)
        projects = [_TO_FLOAT if type(a) is float else ProjectTo(a) for a in args]
        wanted = [i for i, project in enumerate(projects) if not project.is_no_tangent]

        def python_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = unthunk(out_bar)
            if isinstance(out_bar, AbstractZero):
                return (NoTangent(), *map(zero_of, projects))
            ps = _partials(entry, out, args, wanted)
            bars: list[Any] = [NoTangent()] * len(args)
            for i in wanted:
                if i in entry.lazy:
                    bars[i] = Thunk(lambda p=ps[i], project=projects[i]: _bar(project, p(), out_bar))
                else:
                    bars[i] = _bar(projects[i], ps[i], out_bar)
            return (NoTangent(), *bars)

        return out, python_pullback

    @frule.register(f, *arg_types)
    def _frule_python(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs or not python_numbers(args):
            return None if numpy_frule is None else numpy_frule(tangents, f, *args, **kwargs)
        out = f(*args)
        if type(out) is complex and numpy_frule is not None:
            return numpy_frule(tangents, f, *args)
        project_out = ProjectTo(out)
        active = [
            i
            for i, (x, x_dot) in enumerate(zip(args, tangents[1:]))
            if not isinstance(x_dot, AbstractZero) and not ProjectTo(x).is_no_tangent
        ]
        if not active:
            return out, zero_of(project_out)
        ps = _partials(entry, out, args, active, lazy=False)
        return out, project_out(sum(ps[i] * unthunk(tangents[i + 1]) for i in active))


def _bar(project: Projector, partial: Any, out_bar: Any) -> Any:
    """``conj(partial) * out_bar`` projected onto the argument."""
    c = (partial.conjugate() if type(partial) is complex else partial) * out_bar
    if project is _TO_FLOAT:
        return c if type(c) is float else _TO_FLOAT(c)
    return project(c)


def _partials(entry: Elementwise, out: Any, args: tuple[Any, ...], wanted: list[int], lazy: bool = True) -> list[Any]:
    """The partials at Python numbers (of the ``wanted`` arguments at least); lazy ones as functions."""
    if callable(entry.partials):
        ps = python_partials(entry.partials, out, args)
        return list(ps) if entry.arity > 1 else [ps]
    found: list[Any] = [None] * entry.arity
    for i in wanted:
        p = entry.partials[i]
        found[i] = (
            (lambda p=p: python_partials(p, out, args)) if lazy and i in entry.lazy else python_partials(p, out, args)
        )
    return found


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
