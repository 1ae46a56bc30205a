"""The rule makers: each registers the ``frule`` and ``rrule`` of one function from a small definition.

* ``elementwise_linear_rule(f, constants)``: constant partials (``add``,
  ``negative``, ``deg2rad``).
* ``zero_derivative_rule(f)``: piecewise-constant functions with real
  outputs (``floor``, ``round``).
* ``python_rule(f, partials)``: a Python entry point (``math.sin``,
  ``operator.mul``) from the derivative tables that the numpy rules use
  (in ``_python_numbers``, with ``PY`` and ``python_partials``).
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
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    LinearAdjoint,
    NoTangent,
    NotImplementedTangent,
    ProjectTo,
    ZeroTangent,
    cotangent_from_partial,
    follow,
    frule,
    is_followed,
    named_after,
    rrule,
    shape_of,
    sum_to_shape,
    unthunk,
)
from chainrules_core.projection import fits, no_tangent_space, project_onto

from ._arrays import instantiate_zeros
from .python._numbers import PY as PY
from .python._numbers import python_partials as python_partials
from .python._numbers import python_rule as python_rule

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
        x.setflags(write=False)  # a third faster than setting x.flags.writeable
    return x


def readonly_if_given(t: Any, *given: Any) -> Any:
    """``t``, read-only if it is one of the tangents ``given`` to the rule rather than a new array."""
    for g in given:
        if t is g:
            return readonly(t)
    return t


def output_tangent(out: Any, terms: list[Any]) -> Any:
    """The sum of ``partial * x_dot`` terms, broadcast to the output's shape and projected onto it."""
    if not terms:
        return ProjectTo(out)(ZeroTangent())
    out_dot = sum(terms[1:], terms[0])
    if fits(out, out_dot):
        return out_dot
    if shape_of(out_dot) != shape_of(out):
        out_dot = np.broadcast_to(out_dot, shape_of(out))
    return ProjectTo(out)(out_dot)


_NO_TANGENT = NoTangent()
_PLAIN = frozenset({float, np.float64, np.ndarray})
"""Seeds and tangents of these types are neither thunks nor zeros."""


# ----- elementwise functions with constant partials: add, subtract, negative, deg2rad ... -----


def constant_partials(constants: tuple[float, ...]) -> Callable[..., Any]:
    """A table entry for constant partials, as ``python_rule`` takes it: ``(m, out, *args) -> constants``.

    Its ``constants`` attribute lets the rules on Python floats scale the seed without calling it.
    """
    value: Any = constants[0] if len(constants) == 1 else constants

    def partials(m: Any, out: Any, *args: Any) -> Any:
        return value

    partials.constants = constants  # type: ignore[attr-defined]
    return partials


def _scaled(c: Any, t: Any) -> Any:
    """``c * t`` for a constant ``c``, without arithmetic for ``c = ±1``."""
    if c == 1:
        return t
    return -t if c == -1 else c * t


def _linear_bar(x: Any, bar: Any) -> Any:
    """``bar`` summed back to ``x``'s shape and projected onto ``x``."""
    if fits(x, bar):
        return bar
    if type(x) is float and type(bar) is np.ndarray and bar.dtype.kind == "f":
        return float(np.add.reduce(bar, axis=None))  # a float broadcast into an array: the sum
    return ProjectTo(x)(sum_to_shape(bar, shape_of(x)))


def _linear_cotangents(
    constants: tuple[float, ...], projects: list[Any], held: list[Any], out_bar: Any
) -> tuple[Any, ...]:
    """The cotangents of an elementwise linear function: ``out_bar`` scaled by each constant, summed back to each
    argument's shape and projected (by its projector, or onto the argument ``held`` when it has none)."""
    if type(out_bar) not in _PLAIN:
        out_bar = unthunk(out_bar)
    bars: list[Any] = [_NO_TANGENT]
    for c, project, x in zip(constants, projects, held):
        if project is None:
            bar = _linear_bar(x, _scaled(c, out_bar))
            bars.append(readonly(bar) if bar is out_bar else bar)
        else:
            bars.append(_scaled_onto(c, out_bar, project))
    return tuple(bars)


def _scaled_onto(c: float, out_bar: Any, project: Any) -> Any:
    """``c * out_bar`` summed back to the shape of an array argument and projected by its projector; the seed
    itself, read-only, for ``c = 1`` and a seed that already fits."""
    bar = out_bar if c == 1 else _scaled(c, out_bar)
    if type(bar) is not np.ndarray or bar.shape != project.shape or bar.dtype != project.dtype:
        bar = project(sum_to_shape(bar, project.shape))
    return readonly(bar) if bar is out_bar else bar


Shape = tuple[int, ...]


def _pair_pullback(
    constants: tuple[float, float], shape_a: Shape, dtype_a: Any, shape_b: Shape, dtype_b: Any, shape: Shape, dtype: Any
) -> Callable[[Any], tuple[Any, ...]]:
    """The pullback of a linear function of two float or complex arrays (``a + b``, ``a - b``) of these shapes and
    dtypes, and of its output's (``dtype`` None for a numpy scalar).

    It depends on nothing else, so a rule keeps one per signature. When both arguments have the output's dtype
    and each cotangent is one step from a seed of the output's shape and dtype (``_make_plan``), such a seed
    takes those steps; any other seed, and any other call, goes through the projectors (``_scaled_onto``,
    ``_linear_cotangents``).
    """
    ca, cb = constants
    project_a, project_b = projector_of(shape_a, dtype_a), projector_of(shape_b, dtype_b)
    plan_a = _make_plan(ca, shape, shape_a) if dtype_a == dtype else None
    plan_b = _make_plan(cb, shape, shape_b) if dtype_b == dtype else None
    if plan_a is None or plan_b is None:

        def linear_pullback(out_bar: Any) -> tuple[Any, ...]:
            if type(out_bar) is not np.ndarray:
                return _linear_cotangents(constants, [project_a, project_b], [None, None], out_bar)
            return _NO_TANGENT, _scaled_onto(ca, out_bar, project_a), _scaled_onto(cb, out_bar, project_b)

        return linear_pullback

    def planned_linear_pullback(out_bar: Any) -> tuple[Any, ...]:
        if type(out_bar) is np.ndarray and out_bar.shape == shape and out_bar.dtype == dtype:
            return _NO_TANGENT, plan_a(out_bar), plan_b(out_bar)
        return _linear_cotangents(constants, [project_a, project_b], [None, None], out_bar)

    return planned_linear_pullback


def projector_of(shape: Shape, dtype: Any) -> Any:
    """``ProjectTo`` of an array of this shape and dtype, without the array."""
    return ProjectTo(np.broadcast_to(np.zeros((), dtype), shape))


def _make_plan(c: float, out_shape: Shape, shape: Shape) -> Any:
    """For ``c = ±1``: the read-only seed, its negation, or one ``np.add.reduce`` (negated after summing); ``None``
    for another constant, a 0-d argument, leading and stretched axes both, shapes that do not broadcast."""
    if c not in (1, -1) or not shape:
        return None
    if shape == out_shape:
        return readonly if c == 1 else np.negative
    lead = len(out_shape) - len(shape)
    if lead < 0 or any(n not in (1, out_shape[lead + i]) for i, n in enumerate(shape)):
        return None
    stretched = tuple(lead + i for i, n in enumerate(shape) if n == 1 and out_shape[lead + i] != 1)
    if lead and stretched:
        return None
    summed = functools.partial(np.add.reduce, axis=stretched or tuple(range(lead)), keepdims=not lead)
    return summed if c == 1 else functools.partial(_negated, summed)


def _negated(step: Callable[[np.ndarray], np.ndarray], g: np.ndarray) -> np.ndarray:
    bar = step(g)
    return np.negative(bar, out=bar)


def elementwise_linear_rule(f: Callable[..., Any], constants: tuple[float, ...], *, nin: int | None = None) -> None:
    """Register the rules of an elementwise function whose partials are ``constants``, one per argument.

    The pullback scales the cotangent by each constant, unbroadcasts and
    projects it; a constant 1 passes the seed on as a read-only view rather
    than a copy.
    """
    most = len(constants) if nin is None else nin
    pair = constants[:2] if len(constants) >= 2 else None
    pair_pullback = named_after(f, _pair_pullback)
    pullbacks: dict[tuple[Any, ...], Callable[[Any], tuple[Any, ...]]] = {}
    """The pullback of two arrays per signature (``_pair_pullback``); cleared when it grows past 1024."""

    def _rrule_linear(f: Any, *args: Any, **kwargs: Any) -> Any:
        if (kwargs or len(args) > most) and refused(nin, args, kwargs):
            return None
        out = f(*args, **kwargs) if kwargs else f(*args)
        # A float or complex array is kept by its projector (its dtype and shape), so that the array can be freed.
        if pair is not None and len(args) == 2:
            a, b = args
            if type(a) is np.ndarray is type(b) and a.dtype.kind in "fc" and b.dtype.kind in "fc":
                shape, dtype = (out.shape, out.dtype) if type(out) is np.ndarray else ((), None)  # None: a scalar
                key = (a.shape, a.dtype, b.shape, b.dtype, shape, dtype)
                pullback = pullbacks.get(key)
                if pullback is None:
                    if len(pullbacks) >= 1024:
                        pullbacks.clear()
                    pullback = pullbacks[key] = pair_pullback(pair, *key)
                return out, pullback
        projects = [ProjectTo(x) if type(x) is np.ndarray and x.dtype.kind in "fc" else None for x in args]
        held = [None if p is not None else x for p, x in zip(projects, args)]

        def linear_pullback(out_bar: Any) -> tuple[Any, ...]:
            return _linear_cotangents(constants, projects, held, out_bar)

        return out, linear_pullback

    def _frule_linear(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        if refused(nin, args, kwargs):
            return None
        out = f(*args, **kwargs)
        terms = [
            _scaled(c, unthunk(x_dot))
            for c, x, x_dot in zip(constants, args, tangents[1:])
            if not isinstance(x_dot, AbstractZero) and not no_tangent_space(x)
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


# ----- functions linear in their first argument: reshape, transpose, cumsum, take ... -----


def _float_arrays(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are both float or complex arrays (so both have a tangent space)."""
    return type(a) is np.ndarray and type(b) is np.ndarray and a.dtype.kind in "fc" and b.dtype.kind in "fc"


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
        out = f(x, *args, **kwargs) if type(x) is np.ndarray or not is_followed(x) else follow(f, x, *args, **kwargs)
        constant = not _float_arrays(out, x) and (no_tangent_space(out) or no_tangent_space(x))
        others = (_NO_TANGENT,) * len(args)

        def linear_pullback(out_bar: Any) -> tuple[Any, ...]:
            if type(out_bar) is np.ndarray and not constant and not out_bar.dtype.hasobject:  # the common seed
                return (_NO_TANGENT, project_onto(x, adjoint(out_bar, x, *args, **kwargs)), *others)
            if type(out_bar) not in _PLAIN:
                out_bar = unthunk(out_bar)
            if constant or isinstance(out_bar, AbstractZero):
                return (_NO_TANGENT, _NO_TANGENT if constant else ProjectTo(x)(ZeroTangent()), *others)
            if (type(out_bar) is np.ndarray and not out_bar.dtype.hasobject) or not is_followed(out_bar):
                return (_NO_TANGENT, project_onto(x, adjoint(out_bar, x, *args, **kwargs)), *others)
            x_bar = follow(LinearAdjoint(adjoint, push, x, args, kwargs), out_bar)  # an engine follows out_bar
            return (_NO_TANGENT, project_onto(x, x_bar), *others)

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
        if type(x_dot) is not np.ndarray and is_followed(x_dot):  # np.ndarray.reshape refuses an engine's value
            return out, project_out(follow(push, x_dot, *args, **kwargs))
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
    fast: Callable[..., Any] | None = None,
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

    ``fast(f, x, args, kwargs, general)`` is tried first by the ``rrule``: it
    answers the common calls (a plain float array, few options) with less
    bookkeeping, as ``(out, pullback)``, and ``None`` for every other call,
    which then takes the general path. Its pullback hands a seed it does not
    expect to ``general(x, args, kwargs, out)``, the general pullback of the
    same call. Its closures are named after ``f`` as the others are.
    """

    def _rrule_prepared(x: Any, args: tuple[Any, ...], state: Any) -> Any:
        constant = no_tangent_space(x)

        def in_first_pullback(out_bar: Any) -> tuple[Any, ...]:
            if type(out_bar) not in _PLAIN:
                out_bar = unthunk(out_bar)
            others = (_NO_TANGENT,) * len(args)
            if constant or isinstance(out_bar, AbstractZero):
                return (_NO_TANGENT, ProjectTo(x)(ZeroTangent()), *others)
            x_bar = project_onto(x, pullback(state, out_bar))
            return (_NO_TANGENT, readonly(x_bar) if x_bar is out_bar else x_bar, *others)

        return in_first_pullback

    pullback_of = named_after(f, _rrule_prepared)

    def general(x: Any, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> Any:
        return pullback_of(x, args, prepare(x, parse(args, kwargs), out))

    quick = None if fast is None else named_after(f, fast)

    def _rrule_in_first(f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        if quick is not None and (result := quick(f, x, args, kwargs, general)) is not None:
            return result
        options = parse(args, kwargs)
        if options is None:
            return None
        out = _in_first_primal(f, x, args, kwargs, options, primal)
        return out, pullback_of(x, args, prepare(x, options, out))

    def _frule_in_first(tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        options = parse(args, kwargs)
        if options is None:
            return None
        out = _in_first_primal(f, x, args, kwargs, options, primal)
        x_dot = unthunk(tangents[1])
        if isinstance(x_dot, AbstractZero) or no_tangent_space(x):
            return out, ProjectTo(out)(ZeroTangent())
        out_dot = project_onto(out, pushforward(prepare(x, options, out), x_dot))
        return out, readonly(out_dot) if out_dot is x_dot else out_dot

    rrule.register(f)(named_after(f, _rrule_in_first))
    frule.register(f)(named_after(f, _frule_in_first))


def _in_first_primal(f: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any], options: Any, primal: Any) -> Any:
    """The output of ``rule_in_first``'s ``f``: by ``primal`` if given; of a value an engine follows, as one call."""
    if primal is not None:
        return primal(f, x, args, kwargs, options)
    return follow(f, x, *args, **kwargs) if is_followed(x) else f(x, *args, **kwargs)


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
        out = follow(f, *args, **kwargs)
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
        out = follow(f, *args, **kwargs)
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
