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
* ``rule_in_first(f, parse=..., prepare=..., cotangent=..., tangent=...)``:
  differentiable in the first argument only, with options (``sum``,
  ``sort``, ``abs``, ``softmax``).
* ``bound_rule(f, partials, parameters)``: elementwise with a partial per
  argument, like ``scalar_rule``, for Python functions whose parameters may
  come by keyword (``scipy.special.zeta(x, q=...)``).
* ``in_place_refusal(f, instead)``: a function that changes an argument in
  place (``np.put``): its rules raise a ``TypeError`` naming the form that
  returns a new array.

Every closure a maker defines is named after its primal (``named_after``):
a traceback through ``np.sum``'s pullback reads ``sum_pullback``. Each
pullback checks its seed against the output's shape, and each pushforward
its tangents against their arguments' (``checked_seed``,
``checked_tangent``). The makers' fast paths (two arrays of ``add``) sit in
the section at the bottom.
"""

from __future__ import annotations

import functools
import inspect
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
    checked_seed,
    checked_tangent,
    cotangent_from_partial,
    follow,
    frule,
    is_followed,
    named_after,
    rrule,
    shape_of,
    sum_to_shape,
    value_shape,
)
from chainrules_core.array_api import call_in
from chainrules_core.arrays import first_foreign_array, namespace_of, refusal, zeros_like
from chainrules_core.followed import engine_call
from chainrules_core.naming import function_name
from chainrules_core.projection import no_tangent_space, output_tangent, project_onto

from ._arrays import instantiate_zeros, tuple_entries
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
    if isinstance(x, np.ndarray) and x.flags.writeable:
        x = x.view()
        x.setflags(write=False)  # a third faster than setting x.flags.writeable
    return x


def readonly_if_given(t: Any, *given: Any) -> Any:
    """``t``, read-only if it is one of the tangents ``given`` to the rule rather than a new array."""
    for g in given:
        if t is g:
            return readonly(t)
    return t


def tangent_from_terms(out: Any, terms: list[Any]) -> Any:
    """The sum of ``partial * x_dot`` terms, broadcast to the output's shape and projected onto it."""
    if not terms:
        return ProjectTo(out)(ZeroTangent())
    return output_tangent(out, sum(terms[1:], terms[0]))


Shape = tuple[int, ...]


def checked_entries(f: Any, out_bar: Any, names: Any, shapes: Any) -> list[Any]:
    """The entries of the seed of a tuple output (``tuple_entries``: zeros where absent), each unthunked and checked
    against its entry's shape (``checked_seed``).

    ``names`` are the output's field names or its length; ``shapes`` the entries' ``value_shape``s, taken in the
    rrule, so that the pullback need not keep the output.
    """
    return [checked_seed(f, entry, shape) for entry, shape in zip(tuple_entries(out_bar, names), shapes)]


def checked_tangents(f: Any, tangents: tuple[Any, ...], args: tuple[Any, ...]) -> list[Any]:
    """The tangents of ``args`` (``tangents`` without ``f``'s), unthunked and checked against their arguments'
    shapes (``checked_tangent``)."""
    return [checked_tangent(f, t, x, k) for k, (t, x) in enumerate(zip(tangents[1:], args), start=1)]


NO_TANGENT = NoTangent()
"""The one ``NoTangent()`` the rules hand out (it has no state: any instance is every other)."""
_NO_TANGENT = NO_TANGENT


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


def _linear_cotangents(
    f: Any, constants: tuple[float, ...], projects: list[Any], shapes: list[Shape], shape: Shape, out_bar: Any
) -> tuple[Any, ...]:
    """The cotangents of an elementwise linear function: the seed, checked against the output's ``shape``,
    scaled by each constant, summed back to each argument's shape (``shapes``) and projected (``projects``); the
    seed itself, read-only, where a constant 1 leaves it as it is."""
    seed = checked_seed(f, out_bar, shape)
    bars: list[Any] = [NO_TANGENT]
    for c, project, arg_shape in zip(constants, projects, shapes):
        if project.is_no_tangent:
            bars.append(NO_TANGENT)
            continue
        bar = _scaled(c, seed)
        if not isinstance(bar, AbstractZero):
            bar = project(sum_to_shape(bar, arg_shape))
        bars.append(readonly(bar) if bar is seed else bar)
    return tuple(bars)


def projector_of(shape: Shape, dtype: Any) -> Any:
    """``ProjectTo`` of an array of this shape and dtype, without the array."""
    return ProjectTo(np.broadcast_to(np.zeros((), dtype), shape))


def elementwise_linear_rule(f: Callable[..., Any], constants: tuple[float, ...], *, nin: int | None = None) -> None:
    """Register the rules of an elementwise function whose partials are ``constants``, one per argument.

    The pullback scales the cotangent by each constant, unbroadcasts and
    projects it; a constant 1 passes the seed on as a read-only view rather
    than a copy. Arrays of two operands take a fast path (``_pair_of_arrays``).
    """
    most = len(constants) if nin is None else nin

    def _rrule_linear(f: Any, *args: Any, **kwargs: Any) -> Any:
        if (kwargs or len(args) > most) and refused(nin, args, kwargs):
            return None
        out = call_in(namespace_of(*args), f, *args, **kwargs)
        projects = [ProjectTo(x) for x in args]  # each argument kept as its projector and shape, so it can be freed
        shapes, shape = [shape_of(x) for x in args], value_shape(out)

        def linear_pullback(out_bar: Any) -> tuple[Any, ...]:
            return _linear_cotangents(f, constants, projects, shapes, shape, out_bar)

        return out, linear_pullback

    def _frule_linear(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        if refused(nin, args, kwargs):
            return None
        out = call_in(namespace_of(*args), f, *args, **kwargs)
        terms = [
            _scaled(c, x_dot)
            for c, x, x_dot in zip(constants, args, checked_tangents(f, tangents, args))
            if not isinstance(x_dot, AbstractZero) and not no_tangent_space(x)
        ]
        return out, readonly_if_given(tangent_from_terms(out, terms), *tangents)

    rrule.register(f, generic=True)(named_after(f, _rrule_linear))
    frule.register(f, generic=True)(named_after(f, _frule_linear))
    if len(constants) >= 2:
        rrule.fast_path(f)(named_after(f, _pair_of_arrays(constants[:2])))
        if tuple(constants[:2]) in _PAIR_SUMS:
            frule.fast_path(f)(named_after(f, _pushforward_of_pair((constants[0], constants[1]))))


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
        out = call_in(namespace_of(*args), f, *args, **kwargs)
        projects = [ProjectTo(x) for x in args]
        shapes, shape = [shape_of(x) for x in args], value_shape(out)

        def zero_pullback(out_bar: Any) -> tuple[Any, ...]:
            checked_seed(f, out_bar, shape)
            return (NO_TANGENT, *(p(zeros_like(x, s)) for p, x, s in zip(projects, args, shapes)))

        return out, zero_pullback

    def _frule_zero(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        if refused(nin, args, kwargs):
            return None
        out = call_in(namespace_of(*args), f, *args, **kwargs)
        checked_tangents(f, tangents, args)
        return out, ProjectTo(out)(zeros_like(out, shape_of(out)))

    rules = named_after(f, _rrule_zero), named_after(f, _frule_zero)
    if register:
        rrule.register(f, generic=True)(rules[0])
        frule.register(f, generic=True)(rules[1])
    return rules


# ----- functions linear in their first argument: reshape, transpose, cumsum, take ... -----


def linear_in_first_rule(
    f: Callable[..., Any],
    adjoint: Callable[..., Any],
    *,
    tangent: Callable[..., Any] | None = None,
    applies: Callable[..., bool] | None = None,
    types: tuple[type, ...] = (),
    generic: bool = False,
    foreign: Callable[..., Any] | None = None,
    primal: Callable[..., Any] | None = None,
) -> None:
    """Register ``frule`` and ``rrule`` for ``f(x, *args, **kwargs)``, linear in ``x``.

    Every other argument is non-differentiable. The output's tangent is
    ``f(x_dot, *args, **kwargs)`` unless ``tangent`` says otherwise; the
    pullback projects ``adjoint(out_bar, x, *args, **kwargs)`` onto ``x``.
    ``applies(x, *args, **kwargs)`` returning false makes both rules answer
    ``None`` (refused keywords such as ``out=``). An output without a tangent
    space (a cast to an integer dtype) makes the call non-differentiable:
    ``NoTangent()`` for the output and every argument. ``types`` registers
    the rules for those argument types only.

    ``generic=True`` declares an ``adjoint`` (and ``tangent``) written for any
    Array API namespace (``namespace_of(out_bar)``): on another library's
    arrays the output and, without ``tangent``, the output's tangent are
    ``call_in(xp, f, ...)``, the standard's function of numpy's ``f``, or
    ``foreign(xp, x, *args, **kwargs)`` where numpy's arguments need more than
    renaming (``np.transpose(x)`` is ``xp.permute_dims`` with the axes reversed).
    ``primal(x, *args, **kwargs)`` computes the output where calling ``f``
    would not do (scipy's ``overwrite_x=True`` would overwrite ``x``).
    """
    push = tangent or f
    in_primal = None if primal is None else (lambda f, x, args, kwargs, options: primal(x, *args, **kwargs))
    in_library = foreign or (lambda xp, x, *args, **kwargs: call_in(xp, f, x, *args, **kwargs))

    def pushed(x_dot: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if tangent is None and generic and first_foreign_array((x_dot,)) is not None:
            return in_library(namespace_of(x_dot), x_dot, *args, **kwargs)
        return push(x_dot, *args, **kwargs)

    def _rrule_linear(f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        if applies is not None and not applies(x, *args, **kwargs):
            return None
        if foreign is not None and first_foreign_array((x,)) is not None:
            out = foreign(namespace_of(x), x, *args, **kwargs)
        else:
            out = _in_first_primal(f, x, args, kwargs, None, in_primal, generic)
        constant = no_tangent_space(out) or no_tangent_space(x)
        others = (NO_TANGENT,) * len(args)
        shape = value_shape(out)

        def linear_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = checked_seed(f, out_bar, shape)
            if constant or isinstance(out_bar, AbstractZero):
                return (NO_TANGENT, NO_TANGENT if constant else ProjectTo(x)(ZeroTangent()), *others)
            if engine_call(out_bar) is None:
                return (NO_TANGENT, project_onto(x, adjoint(out_bar, x, *args, **kwargs)), *others)
            x_bar = follow(LinearAdjoint(adjoint, push, x, args, kwargs), out_bar)  # an engine follows out_bar
            return (NO_TANGENT, project_onto(x, x_bar), *others)

        return out, linear_pullback

    def _frule_linear(tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        if applies is not None and not applies(x, *args, **kwargs):
            return None
        if first_foreign_array((x,)) is None:  # np.array of a followed value: one call an engine follows
            call = primal or f
            out = follow(call, x, *args, **kwargs) if is_followed(x) else call(x, *args, **kwargs)
        elif foreign is not None and generic:
            out = foreign(namespace_of(x), x, *args, **kwargs)
        else:
            out = _in_first_primal(f, x, args, kwargs, None, None, generic)
        project_out = ProjectTo(out)
        x_dot = checked_tangent(f, tangents[1], x)
        if project_out.is_no_tangent:
            return out, NoTangent()
        if isinstance(x_dot, AbstractZero) or ProjectTo(x).is_no_tangent:
            return out, ZeroTangent()
        if isinstance(x, (list, tuple)):
            x_dot = instantiate_zeros(x_dot, x)
        if is_followed(x_dot):  # np.ndarray.reshape refuses an engine's value
            return out, project_out(follow(push, x_dot, *args, **kwargs))
        return out, project_out(pushed(x_dot, args, kwargs))

    rrule.register(f, *types, generic=generic)(named_after(f, _rrule_linear))
    frule.register(f, *types, generic=generic)(named_after(f, _frule_linear))


# ----- functions of one argument with options: sum, prod, sort, abs, angle, softmax ... -----


class Prepared:
    """What ``rule_in_first``'s formulas get by default: the argument, the output and the options of one call."""

    __slots__ = ("options", "out", "x")

    def __init__(self, x: Any, options: Any, out: Any) -> None:
        self.x = x
        self.options = options
        self.out = out

    @property
    def xp(self) -> Any:
        """The namespace the formulas compute in: numpy for numpy values, the library's for another's arrays."""
        return namespace_of(self.x)


def positional_options(nin: int | None = None) -> Callable[[tuple[Any, ...], dict[str, Any]], Any]:
    """A ``parse`` that keeps the other arguments as they came, ``(args, kwargs)``, and refuses ``out=``/``where=``."""

    def parse(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return None if refused(None if nin is None else nin - 1, args, kwargs) else (args, kwargs)

    return parse


PullbackOf = Callable[[Any, Any, tuple[Any, ...], dict[str, Any], Any], Callable[[Any], tuple[Any, ...]]]
"""``rule_in_first``'s general pullback of one call, ``(f, x, args, kwargs, out) -> pullback``, for a fast path."""


def rule_in_first(
    f: Callable[..., Any],
    *,
    parse: Callable[[tuple[Any, ...], dict[str, Any]], Any],
    cotangent: Callable[[Any, Any], Any],
    tangent: Callable[[Any, Any], Any],
    prepare: Callable[[Any, Any, Any], Any] = Prepared,
    primal: Callable[..., Any] | None = None,
    generic: bool = False,
) -> PullbackOf:
    """Register ``frule`` and ``rrule`` for ``f(x, *args, **kwargs)``, differentiable in ``x`` only.

    ``parse(args, kwargs)`` reads the other arguments into options (``None``
    refuses the call: both rules answer ``None``); ``prepare(x, options,
    out)`` keeps what the derivative needs (by default a ``Prepared``);
    ``cotangent(state, seed)`` is ``x``'s cotangent before projection (or a
    zero), given a seed of the output's shape, and ``tangent(state, x_dot)``
    the output's tangent. ``primal(f, x, args, kwargs, options)`` computes the
    output when the rule has a better way than calling ``f`` (a sort that
    keeps its permutation). The other arguments get ``NoTangent()``.

    ``generic=True`` declares formulas written for any Array API namespace
    (``Prepared.xp``): on another library's arrays the output is then
    ``call_in(xp, f, x, *args, **kwargs)`` (the standard's function, or the
    library's own numpy-compatible one) unless ``primal`` computes it.

    Returns the general pullback of a call, ``(f, x, args, kwargs, out) ->
    pullback``: a fast path registered beside the rule (``rrule.fast_path``)
    hands it the seeds it does not take itself.
    """

    def _rrule_prepared(f: Any, x: Any, args: tuple[Any, ...], state: Any, shape: Shape) -> Any:
        constant = no_tangent_space(x)

        def in_first_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = checked_seed(f, out_bar, shape)
            others = (NO_TANGENT,) * len(args)
            if constant or isinstance(out_bar, AbstractZero):
                return (NO_TANGENT, ProjectTo(x)(ZeroTangent()), *others)
            x_bar = project_onto(x, cotangent(state, out_bar))
            return (NO_TANGENT, readonly(x_bar) if x_bar is out_bar else x_bar, *others)

        return in_first_pullback

    prepared_pullback = named_after(f, _rrule_prepared)

    def pullback_of(f: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> Any:
        return prepared_pullback(f, x, args, prepare(x, parse(args, kwargs), out), value_shape(out))

    def _rrule_in_first(f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        options = parse(args, kwargs)
        if options is None:
            return None
        out = _in_first_primal(f, x, args, kwargs, options, primal, generic)
        return out, prepared_pullback(f, x, args, prepare(x, options, out), value_shape(out))

    def _frule_in_first(tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        options = parse(args, kwargs)
        if options is None:
            return None
        out = _in_first_primal(f, x, args, kwargs, options, primal, generic)
        x_dot = checked_tangent(f, tangents[1], x)
        if isinstance(x_dot, AbstractZero) or no_tangent_space(x):
            return out, ProjectTo(out)(ZeroTangent())
        out_dot = project_onto(out, tangent(prepare(x, options, out), x_dot))
        return out, readonly(out_dot) if out_dot is x_dot else out_dot

    rrule.register(f, generic=generic)(named_after(f, _rrule_in_first))
    frule.register(f, generic=generic)(named_after(f, _frule_in_first))
    return pullback_of


def _in_first_primal(
    f: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any], options: Any, primal: Any, generic: bool
) -> Any:
    """The output of ``rule_in_first``'s ``f``: by ``primal`` if given; of a value an engine follows, as one call;
    of another library's array, in its namespace (a rule that is not ``generic`` refuses it)."""
    foreign = first_foreign_array((x,)) is not None
    if foreign and not generic:
        raise refusal(f, x, "its rule is written for numpy alone")
    if primal is not None:
        return primal(f, x, args, kwargs, options)
    if is_followed(x):
        return follow(f, x, *args, **kwargs)
    return call_in(namespace_of(x), f, x, *args, **kwargs) if foreign else f(x, *args, **kwargs)


# ----- functions whose parameters may come by keyword: scipy.special.polygamma, zeta, lambertw ... -----


def bound_rule(f: Callable[..., Any], partials: Callable[..., Any], parameters: tuple[str, ...]) -> None:
    """Register ``frule`` and ``rrule`` for an elementwise ``f`` from its partials, its parameters given either way.

    ``partials(out, *values)`` gets the values of ``parameters`` in order, up
    to the last one the call gives, positionally or by keyword, and returns
    one partial per value (``NoTangent()`` for an integer parameter,
    ``not_implemented(...)`` for a missing derivative). As with every rule,
    only the positional arguments get cotangents; the pullback conjugates the
    partials and sums them back to each argument's shape, as ``scalar_rule``
    does. A call with ``out=`` gets no rule. A parameter the call skips before
    the last one it gives takes ``f``'s default (``factorial(n, extend=...)``).
    """
    try:
        signature = inspect.signature(f).parameters.values()
        defaults = {p.name: p.default for p in signature if p.default is not inspect.Parameter.empty}
    except (TypeError, ValueError):  # a ufunc: no signature, and no parameter by keyword
        defaults = {}

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        values = list(args)
        rest = parameters[len(args) :]
        last = max((i + 1 for i, name in enumerate(rest) if name in kwargs), default=0)
        for name in rest[:last]:
            if name in kwargs:
                values.append(kwargs[name])
            elif name in defaults:
                values.append(defaults[name])
            else:
                break
        return values

    def _rrule_bound(f: Any, *args: Any, **kwargs: Any) -> Any:
        if "out" in kwargs:
            return None
        out = follow(f, *args, **kwargs)
        projects = [ProjectTo(x) for x in args]

        shape = value_shape(out)

        def bound_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = checked_seed(f, out_bar, shape)
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
        dots = checked_tangents(f, tangents, args)
        moving = [
            i
            for i, (x, x_dot) in enumerate(zip(args, dots))
            if not isinstance(x_dot, AbstractZero) and not ProjectTo(x).is_no_tangent
        ]
        ps = partials(out, *bind(args, kwargs)) if moving else ()
        terms = [ps[i] * dots[i] for i in moving if not isinstance(ps[i], AbstractZero)]
        missing = [t for t in terms if isinstance(t, NotImplementedTangent)]
        return out, missing[0] if missing else tangent_from_terms(out, terms)

    rrule.register(f)(named_after(f, _rrule_bound))
    frule.register(f)(named_after(f, _frule_bound))


# ----- in-place updates: rules that refuse -----


def in_place_refusal(f: Callable[..., Any], instead: str, *arg_types: Any) -> None:
    """Register ``frule`` and ``rrule`` for ``f``, which changes an argument in place, that raise ``TypeError``.

    A pullback cannot undo a mutation of a value an engine has recorded, and
    ``None`` (no rule) would let an engine differentiate through the
    mutation; so the rules refuse, naming ``instead``: the call that returns
    the new array, to which the engine rebinds the variable. ``arg_types``
    restricts the refusal to those argument types (``operator.setitem`` on
    arrays, not on lists). ``rrule.records()`` lists these as ``kind ==
    "refusal"``.
    """
    message = (
        f"{function_name(f)} changes its argument in place and returns None, which no rule can mirror: "
        f"record {instead} in its place, which returns the new array, and use that array from then on"
    )

    def _rrule_in_place(f: Any, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(message)

    def _frule_in_place(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(message)

    rrule.register(f, *arg_types, kind="refusal")(named_after(f, _rrule_in_place))
    frule.register(f, *arg_types, kind="refusal")(named_after(f, _frule_in_place))


# ----- fast paths -----


def _pair_of_arrays(constants: tuple[float, float]) -> Callable[..., Any]:
    """The fast path of ``elementwise_linear_rule`` for two float or complex arrays (``a + b``): the pullback depends
    only on the shapes and dtypes, so the rule keeps one per signature (``_pair_pullback_of``), with no projector or
    closure per call."""
    pullbacks: dict[tuple[Any, ...], Callable[[Any], tuple[Any, ...]]] = {}
    """The pullback per signature; cleared when it grows past 1024."""

    def _rrule_linear(rule: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
        if len(args) != 2 or kwargs:
            return rule(f, *args, **kwargs)
        a, b = args
        if type(a) is not np.ndarray or type(b) is not np.ndarray:
            return rule(f, a, b)
        if a.dtype.kind not in "fc" or b.dtype.kind not in "fc":
            return rule(f, a, b)
        out = f(a, b)
        shape, dtype = (out.shape, out.dtype) if type(out) is np.ndarray else ((), None)  # None: a scalar
        key = (f, a.shape, a.dtype, b.shape, b.dtype, shape, dtype)  # f: operator.add runs np.add's rule too
        pullback = pullbacks.get(key)
        if pullback is None:
            if len(pullbacks) >= 1024:
                pullbacks.clear()
            pullback = pullbacks[key] = _pair_pullback_of(*key, constants)
        return out, pullback

    return _rrule_linear


def _pair_pullback_of(
    f: Any,
    shape_a: Shape,
    dtype_a: Any,
    shape_b: Shape,
    dtype_b: Any,
    shape: Shape,
    dtype: Any,
    constants: tuple[float, float],
) -> Callable[[Any], tuple[Any, ...]]:
    """The pullback of a linear function of two float or complex arrays of these shapes and dtypes, and of its
    output's (``dtype`` None for a numpy scalar).

    When both arguments have the output's dtype and each cotangent is one step from a seed of the output's shape
    and dtype (``_make_plan``), such a seed takes those steps; any other seed goes through the projectors, as the
    general rule's does (``_linear_cotangents``).
    """
    projects = [projector_of(shape_a, dtype_a), projector_of(shape_b, dtype_b)]
    shapes = [shape_a, shape_b]
    plan_a = _make_plan(constants[0], shape, shape_a) if dtype_a == dtype else None
    plan_b = _make_plan(constants[1], shape, shape_b) if dtype_b == dtype else None
    if plan_a is None or plan_b is None:

        def linear_pullback(out_bar: Any) -> tuple[Any, ...]:
            return _linear_cotangents(f, constants, projects, shapes, shape, out_bar)

        return named_after(f, linear_pullback)

    def planned_linear_pullback(out_bar: Any) -> tuple[Any, ...]:
        if type(out_bar) is np.ndarray and out_bar.shape == shape and out_bar.dtype == dtype:
            return NO_TANGENT, plan_a(out_bar), plan_b(out_bar)
        return _linear_cotangents(f, constants, projects, shapes, shape, out_bar)

    return named_after(f, planned_linear_pullback)


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


_PAIR_SUMS = {(1, 1): np.add, (1, -1): np.subtract}
"""``c0 * x_dot + c1 * y_dot`` in one call, for the constants of ``add`` and ``subtract``."""


def _pushforward_of_pair(constants: tuple[float, float]) -> Callable[..., Any]:
    """The fast path of ``elementwise_linear_rule``'s frule for two float or complex arrays of one dtype: tangents
    of their arguments' shapes and dtype, or ``ZeroTangent()``, give ``c0 * x_dot + c1 * y_dot`` in one new array,
    or the one moving tangent (read-only, as the rule gives it, or negated) where it has the output's shape. The
    same sums as the rule (``tangent_from_terms``); the rule answers every other call."""
    combine = _PAIR_SUMS[tuple(constants)]  # type: ignore[index]
    c1 = constants[1]

    def _frule_linear(rule: Any, tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        if len(args) != 2 or kwargs or len(tangents) != 3:
            return rule(tangents, f, *args, **kwargs)
        (x, y), (_, x_dot, y_dot) = args, tangents
        if type(x) is not np.ndarray or type(y) is not np.ndarray:
            return rule(tangents, f, x, y)
        dtype = x.dtype
        if dtype.kind not in "fc" or y.dtype != dtype:
            return rule(tangents, f, x, y)
        x_moves = type(x_dot) is np.ndarray and x_dot.shape == x.shape and x_dot.dtype == dtype
        y_moves = type(y_dot) is np.ndarray and y_dot.shape == y.shape and y_dot.dtype == dtype
        if not (x_moves or type(x_dot) is ZeroTangent) or not (y_moves or type(y_dot) is ZeroTangent):
            return rule(tangents, f, x, y)
        out = f(x, y)
        if type(out) is np.ndarray and out.dtype == dtype:
            if x_moves and y_moves:
                out_dot = combine(x_dot, y_dot)
                if out_dot.shape == out.shape:
                    return out, out_dot
            elif x_moves and x.shape == out.shape:
                return out, readonly(x_dot)
            elif y_moves and y.shape == out.shape:
                return out, readonly(y_dot) if c1 == 1 else np.negative(y_dot)
        return rule(tangents, f, x, y)

    return _frule_linear
