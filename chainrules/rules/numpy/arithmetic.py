"""Rules for numpy's elementwise functions of two arguments, with broadcasting, and ``clip``.

* ``BINARY``, the table of derivatives below: ``multiply``, ``divide``,
  ``maximum``, ``minimum``, ``arctan2``, ``hypot``, ``logaddexp``,
  ``remainder`` ... through ``scalar_rule``; ``LINEAR_BINARY``: ``add`` and
  ``subtract`` pass the cotangent on (read-only) or negate it, ``nextafter``
  passes it to ``x``.
* ``power`` and ``float_power``: both arguments; the exponent's cotangent is
  a thunk, as it needs a logarithm and the exponent is usually a constant.
* ``clip(x, lo, hi)``, bounds scalars, arrays or None.
* ``divmod(x, y)``: two outputs, the quotient (a zero derivative, as
  ``floor``) and the remainder (as ``remainder``).

Each cotangent is summed back to its argument's shape and projected onto
it. Calls with ``out=`` or ``where=`` (or positional output buffers) get no
rule: ``frule`` and ``rrule`` return ``None``. ``operator`` and builtins
share these tables (``python_operators``).
"""

from __future__ import annotations

import contextlib
import functools
import math
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    Tangent,
    Thunk,
    ZeroTangent,
    checked_seed,
    cotangent_from_partial,
    frule,
    is_followed,
    named_after,
    primal_of,
    rrule,
    scalar_rule,
    shape_of,
    sum_to_shape,
    unthunk,
    value_shape,
)
from chainrules_core.array_api import call_in
from chainrules_core.arrays import as_arrays_like, is_complex_dtype, namespace_of, real_part
from chainrules_core.keywords import keyword_positions

from .._makers import checked_entries, checked_tangents, elementwise_linear_rule, refused, tangent_from_terms

_NO_TANGENT = NoTangent()

NAN = math.nan


def _divide(m: Any, out: Any, x: Any, y: Any) -> Any:
    inv = 1 / y
    return inv, -out * inv


def _arctan2(m: Any, out: Any, y: Any, x: Any) -> Any:
    # numpy's argument order: arctan2(y, x). The partials x / r² and -y / r², as (x / r) / r with r = hypot(y, x):
    # r² overflows from |r| = 1e154 and underflows below 1e-154, r does neither. At the origin, where the angle
    # jumps, 0 (ChainRules.jl); where r is infinite, 0, the limit.
    r = m.hypot(x, y)
    finite = (r != 0) & (r != math.inf)
    r = m.where(finite, r, 1)
    return m.where(finite, (x / r) / r, 0), m.where(finite, (-y / r) / r, 0)


def hypot_partial(m: Any, out: Any, x: Any) -> Any:
    """d hypot(..., x, ...)/dx = x / out; 0 at the origin, where it is the central difference."""
    return x / m.where(out == 0, 1, out)


def _hypot(m: Any, out: Any, x: Any, y: Any) -> Any:
    return hypot_partial(m, out, x), hypot_partial(m, out, y)


def _shares(m: Any, t: Any, x: Any, y: Any) -> Any:
    """The weights of x and y in logaddexp: the logistic function of ``t``, x - y in units of the log's base.

    Not ``exp(x - out)``, which is 1 for both where ``out = x + log 2`` rounds
    to ``x`` (``|x| >= 1e16``). One ``exp`` of ``-|t|``, written as a
    ``where`` of ``-t`` and ``t`` so that each side is smooth, never
    overflows, and both sides are smooth through ``t = 0`` (an engine differentiating the weights
    gets their slope 1/4 there). Where x and y are the same infinity the
    weights are the limit along x == y, 1/2 each; a NaN gives NaN.
    """
    t = m.where(m.isnan(t) & m.equal(x, y), 0.0, t)
    if m is not np and not is_followed(t):
        # another library's arrays that no engine follows: each weight in one exp, which may overflow to inf
        # (the weight's limit, 0), in a third of the two-sided form's time; that form is numpy's and the nested
        # passes', whose derivatives of the weights it keeps finite
        return 1 / (1 + m.exp(-t)), 1 / (1 + m.exp(t))
    ahead = t >= 0
    e = m.exp(m.where(ahead, -t, t))  # exp(-|t|) in one exp, never overflowing, its slope -sign(t) on each side
    s = 1 / (1 + e)
    es = e * s
    return m.where(ahead, s, es), m.where(ahead, es, s)


def _quiet_invalid(m: Any) -> Any:
    """numpy's errstate ignoring invalid values, for numpy's computation (and an engine's over it); nothing for
    another library's namespace (a module), whose arrays numpy's flags do not govern (and ``torch.compile`` would
    not trace it)."""
    if m is not np and isinstance(m, types.ModuleType):
        return contextlib.nullcontext()
    return np.errstate(invalid="ignore")


def _logaddexp(m: Any, out: Any, x: Any, y: Any) -> Any:
    with _quiet_invalid(m):  # inf - inf, in _shares
        return _shares(m, x - y, x, y)


def _logaddexp2(m: Any, out: Any, x: Any, y: Any) -> Any:
    with _quiet_invalid(m):
        return _shares(m, (x - y) * math.log(2.0), x, y)


def _remainder(m: Any, out: Any, x: Any, y: Any) -> Any:
    # numpy's floored remainder x - y floor(x / y). It jumps where x / y is an integer; there the rule keeps
    # the one-sided values 1 and -floor(x / y) (autograd and PyTorch do too; ChainRules.jl returns nan).
    return 1, -m.floor(x / y)


def _fmod(m: Any, out: Any, x: Any, y: Any) -> Any:
    # C's truncated remainder x - y trunc(x / y); jumps where x / y is an integer, as remainder.
    return 1, -m.trunc(x / y)


def _copysign(m: Any, out: Any, x: Any, y: Any) -> Any:
    # |x| with the sign of y: sign(x) sign(y) in x (0 at x == 0, the central difference of |x|, as abs); y only
    # picks the sign, a jump at y == 0: zero (ChainRules.jl gives y no tangent; a zero keeps its dtype)
    return m.sign(x) * m.copysign(1.0, y), m.zeros_like(y)


def _heaviside(m: Any, out: Any, x: Any, y: Any) -> Any:
    # 0 below 0, y at 0, 1 above: zero in x (the jump at 0 too, as sign and floor); 1 in y where x == 0
    return m.zeros_like(x), m.where(x == 0, 1.0, 0.0)


def _ldexp(m: Any, out: Any, x: Any, n: Any) -> Any:
    # x 2**n: 2**n in x; the exponent is an integer, without a tangent
    return m.ldexp(1.0, n), m.zeros_like(x)


def _selection(wins: str, nan_taker: int) -> Callable[..., Any]:
    """Partials of maximum, minimum, fmax, fmin: 1 for the argument the output is, 0 for the other.

    ``wins`` names the comparison under which x is selected (``greater`` for
    a maximum; complex numbers compare lexicographically, as numpy orders
    them). Ties split evenly: the central difference (autograd and PyTorch;
    ChainRules.jl gives all to one). Where an argument is nan, argument
    ``nan_taker`` takes the whole cotangent: maximum and minimum return the
    nan (``nan_taker`` 0: a nan x), fmax and fmin the other argument (1: a nan y).
    """

    def partials(m: Any, out: Any, x: Any, y: Any) -> Any:
        selected = getattr(m, wins)(x, y) | m.isnan((x, y)[nan_taker])
        px = m.where(m.equal(x, y), 0.5, m.where(selected, 1.0, m.zeros_like(out)))
        return px, 1 - px

    return partials


def power_dx(m: Any, out: Any, x: Any, p: Any) -> Any:
    """d x**p / dx = p x**(p-1).

    At x == 0 this is the limit: 0 for p > 1, 1 for p == 1, +-inf for
    p < 1 (ChainRules.jl); for p == 0, where x**0 is constant, 0 (also at an
    infinite x); for an infinite p where x**(p - 1) is 0, 0, the limit, where
    ``p * 0`` would be NaN (``2**-inf``). Negative x with an integer-valued
    p is exact.

    A Python number ``p`` with a numpy ``x`` stays one: numpy's ``where``
    would make it an int64 or float64 array, whose power of a float32 ``x``
    is float64, and the partial would round differently from ``x ** p``'s own
    float32 arithmetic. (A Python float ``x`` keeps numpy's exponent: its
    power overflows to ``inf`` there, where Python's raises.)
    """
    if isinstance(p, int | float | complex) and isinstance(x, np.ndarray | np.generic):
        e = 1 if p == 0 else p - 1
    else:
        e = m.where(p == 0, 1, p - 1)
    t = m.where(e == 0, 1, x**e)  # x**0 is 1, at a complex 0 too (torch gives nan there)
    return m.where(((t == 0) & m.isinf(p)) | (p == 0), 0, p * t)


_EXACT_POWERS = 1024
"""Integer exponents whose partial ``power_dx`` computes directly, below this in magnitude."""


def power_dp(m: Any, out: Any, x: Any, p: Any) -> Any:
    """d x**p / dp = x**p log(x).

    At x == 0: 0 when Re(p) > 0 (0**p is 0 nearby), nan otherwise (0**p
    jumps from 0 to inf at p == 0), as ChainRules.jl. For real x < 0 the
    real power has no derivative in p: nan with numpy's warning for the log
    of a negative number (as numpy, JAX and PyTorch; ChainRules.jl takes the
    real part of the complex derivative). At an infinite x where x**p is 0
    (Re(p) < 0), 0: the limit of x**p log(x), where ``0 * inf`` would be nan
    (the log of -inf is nan already, by the rule for x < 0).
    """
    log = m.log(m.where(x == 0, 1, x))
    value = m.where((out == 0) & m.isinf(log), 0, out * log)
    at_zero = m.where(real_part(m, p) > 0, 0.0, value + NAN)  # value + NAN: the standard takes one scalar in where
    return m.where(x == 0, at_zero, value)


def _moved_by(xp: Any, partial: Any, t: Any) -> Any:
    """``partial`` where the tangent or seed ``t`` is nonzero, 0 where it is 0.

    A zero entry of ``t`` moves nothing, even where the partial is infinite
    (``0**0.5`` in x) or undefined (``0**0`` in p): without this, ``0 * inf``
    makes a NaN where the directional derivative is a limit that exists, and
    the frule along ``(0, 1)`` at ``(0, 0.5)`` would disagree with the
    rrule's 0. Only where the partial is not finite, so the common case pays
    one check; another library's arrays always take the ``where`` (a check of their values would compute a dask
    array and cannot run under ``jax.jit``).
    """
    if xp is np:
        if _all_finite(partial):
            return partial
        return np.where(np.asarray(t) == 0, np.zeros((), dtype=np.result_type(partial)), partial)
    if isinstance(t, (int, float, complex)):  # a Python number's tangent
        return partial if t != 0 else xp.zeros_like(partial)
    return xp.where(t == 0, xp.zeros_like(partial), partial)


def _all_finite(a: Any) -> bool:
    """Whether every entry of ``a`` is finite; for a real array, first by its sum of squares, finite if they all are
    (``vdot``, with no warning where its sum meets opposite infinities, as ``np.sum`` gives)."""
    if isinstance(a, np.ndarray) and a.dtype.kind == "f" and math.isfinite(np.vdot(a, a)):
        return True
    return bool(np.all(np.isfinite(a)))


# ----- d(out)/dx and d(out)/dy given the output and both inputs; `m` is numpy, or math kernels for floats -----
# scalar_rule unbroadcasts each partial to its argument's shape.
BINARY: dict[Any, Callable[..., Any]] = {
    np.multiply: lambda m, out, x, y: (y, x),
    np.divide: _divide,
    np.maximum: _selection("greater", 0),
    np.minimum: _selection("less", 0),
    np.fmax: _selection("greater", 1),
    np.fmin: _selection("less", 1),
    np.arctan2: _arctan2,
    np.hypot: _hypot,
    np.logaddexp: _logaddexp,
    np.logaddexp2: _logaddexp2,
    np.remainder: _remainder,
    np.fmod: _fmod,
    np.copysign: _copysign,
    np.heaviside: _heaviside,
    np.ldexp: _ldexp,
}

# d(out)/dx and d(out)/dy of the linear functions: constants. nextafter(x, y) is x moved by one ulp towards y:
# within an ulp of x everywhere, so 1 in x and 0 in y, the central difference even at x == y (where it is y);
# PyTorch gives 0 to x there.
LINEAR_BINARY: dict[Any, tuple[float, float]] = {
    np.add: (1.0, 1.0),
    np.subtract: (1.0, -1.0),
    np.nextafter: (1.0, 0.0),
}

POWER = (power_dx, power_dp)
"""The partials of ``power`` and ``float_power``, one function per argument: the exponent's needs a log."""

for _f, _partials in BINARY.items():
    scalar_rule(_f, functools.partial(_partials, np), array_api=_partials)
for _f, _constants in LINEAR_BINARY.items():
    elementwise_linear_rule(_f, _constants, nin=2)


# ----- power -----


def _power_args(xp: Any, x: Any, p: Any, out: Any) -> tuple[Any, Any]:
    """``x`` and ``p`` as the power saw them: a real base of a complex power is complex, so its log is too; on
    another library's arrays a Python number as an array of the output's dtype, which its functions take."""
    if xp is np:
        if np.iscomplexobj(out) and not np.iscomplexobj(x):
            dtype = np.result_type(primal_of(out))
            x = x + 0j if is_followed(x) else np.asarray(x, dtype=dtype)  # an engine follows the sum
        return x, p
    x, p = as_arrays_like(out, x, p)
    if is_complex_dtype(xp, out.dtype) and not is_complex_dtype(xp, x.dtype):
        x = xp.astype(x, out.dtype)
    return x, p


@rrule.register(np.power, generic=True)
@rrule.register(np.float_power, generic=True)
def _rrule_power(f: Any, *args: Any, **kwargs: Any) -> Any:
    if refused(2, args, kwargs):
        return None
    x, p = args
    xp = namespace_of(x, p)
    out = call_in(xp, f, x, p, **kwargs)
    return out, _power_pullback_of(f, x, p, out, xp)


def _power_pullback_of(f: Any, x: Any, p: Any, out: Any, xp: Any = np) -> Callable[[Any], tuple[Any, Any, Any]]:
    """The pullback of ``f(x, p) == out``, ``f`` ``power`` or ``float_power``; the exponent's cotangent a thunk."""
    project_x, project_p = ProjectTo(x), ProjectTo(p)
    shape_x, shape_p, shape = shape_of(x), shape_of(p), shape_of(out)

    def power_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
        out_bar = checked_seed(f, out_bar, shape)
        xc, pc = _power_args(xp, x, p, out)
        x_partial = _moved_by(xp, power_dx(xp, out, xc, pc), out_bar)
        x_bar = cotangent_from_partial(project_x, shape_x, x_partial, out_bar)
        if project_p.is_no_tangent:
            return NoTangent(), x_bar, NoTangent()

        def p_bar() -> Any:
            p_partial = _moved_by(xp, power_dp(xp, out, xc, pc), out_bar)
            return cotangent_from_partial(project_p, shape_p, p_partial, out_bar)

        return NoTangent(), x_bar, Thunk(p_bar)

    return power_pullback


@frule.register(np.power, generic=True)
@frule.register(np.float_power, generic=True)
def _frule_power(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
    if refused(2, args, kwargs):
        return None
    x, p = args
    x_dot, p_dot = checked_tangents(f, tangents, args)
    xp = namespace_of(x, p)
    out = call_in(xp, f, x, p, **kwargs)
    xc, pc = _power_args(xp, x, p, out)
    terms = []
    for partial, arg, dot in ((power_dx, x, x_dot), (power_dp, p, p_dot)):
        if not isinstance(dot, AbstractZero) and not ProjectTo(arg).is_no_tangent:
            terms.append(_moved_by(xp, partial(xp, out, xc, pc), dot) * dot)
    return out, tangent_from_terms(out, terms)


# ----- clip -----


def _clip_bounds(bounds: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """``(lo, hi)`` given positionally or as ``a_min``/``a_max`` (or numpy 2.1's ``min``/``max``); None if absent."""
    values = list(bounds) + [None] * (2 - len(bounds))
    for i, names in enumerate((("a_min", "min"), ("a_max", "max"))):
        for name in names:
            if values[i] is None and kwargs.get(name, np._NoValue) is not np._NoValue:
                values[i] = kwargs[name]
    return values[0], values[1]


def _clip_masks(xp: Any, x: Any, lo: Any, hi: Any, out: Any) -> tuple[Any, Any, Any]:
    """Where the output follows x, lo and hi: ``clip`` is ``minimum(maximum(x, lo), hi)``.

    At a bound the output follows x (the subgradient 1, as ChainRules.jl and
    PyTorch; autograd gives 0). Where lo > hi numpy returns hi, so hi takes
    the cotangent there. numpy multiplies its boolean masks into the seed as
    they are; another library's are cast to the output's dtype first (the
    standard has no arithmetic on booleans).
    """
    raised = x if lo is None else xp.maximum(x, lo)
    below_hi = None if hi is None else raised <= hi
    x_mask = below_hi if lo is None else (x >= lo if below_hi is None else (x >= lo) & below_hi)
    lo_mask = None if lo is None else (x < lo if below_hi is None else (x < lo) & below_hi)
    hi_mask = None if hi is None else raised > hi
    masks = (xp.ones_like(out) if x_mask is None else x_mask, lo_mask, hi_mask)
    if xp is np:
        return masks
    return tuple(None if m is None else xp.astype(m, out.dtype) for m in masks)  # type: ignore[return-value]


def _clip_call(f: Any, x: Any, bounds: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
    """The output of ``clip(x, *bounds, **kwargs)``, the bounds (``None`` where absent) and the namespace.

    On another library's arrays the output is numpy's ``minimum(maximum(x, lo), hi)``, which the standard's
    ``clip`` leaves undefined where ``lo > hi`` (array-api-strict raises there)."""
    xp = namespace_of(x, *bounds, *kwargs.values())
    lo, hi = _clip_bounds(bounds, kwargs)
    if xp is np:
        return f(x, *bounds, **kwargs), lo, hi, xp
    out = x if lo is None else xp.maximum(x, lo)
    return (out if hi is None else xp.minimum(out, hi)), lo, hi, xp


_CLIP_KEYWORDS = keyword_positions({"min": "a_min", "max": "a_max"}, {"a_min": None, "a_max": None})
"""numpy 2.1's ``clip(x, min=lo)`` is ``clip(x, lo, None)``: a followed ``min=``/``max=`` goes to its position."""


@rrule.register(np.clip, generic=True)
@_CLIP_KEYWORDS
def _rrule_clip(f: Any, x: Any, *bounds: Any, **kwargs: Any) -> Any:
    if refused(3, (x, *bounds), kwargs):
        return None
    out, lo, hi, xp = _clip_call(f, x, bounds, kwargs)
    args = (x, *bounds)
    projects = [ProjectTo(a) for a in args]
    shapes, shape = [shape_of(a) for a in args], shape_of(out)

    def clip_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, shape)
        masks = _clip_masks(xp, x, lo, hi, out)
        bars = [cotangent_from_partial(pr, sh, m, out_bar) for pr, sh, m in zip(projects, shapes, masks)]
        return (NoTangent(), *bars)

    return out, clip_pullback


@frule.register(np.clip, generic=True)
@_CLIP_KEYWORDS
def _frule_clip(tangents: tuple[Any, ...], f: Any, x: Any, *bounds: Any, **kwargs: Any) -> Any:
    if refused(3, (x, *bounds), kwargs):
        return None
    out, lo, hi, xp = _clip_call(f, x, bounds, kwargs)
    masks = _clip_masks(xp, x, lo, hi, out)
    terms = [
        m * t
        for a, t, m in zip((x, *bounds), checked_tangents(f, tangents, (x, *bounds)), masks)
        if not isinstance(t, AbstractZero) and not ProjectTo(a).is_no_tangent
    ]
    return out, tangent_from_terms(out, terms)


# ----- divmod: two outputs -----


def _divmod_partials(out: Any) -> tuple[Any, Any]:
    # (floor(x / y), x - y floor(x / y)): the quotient is piecewise constant, a zero derivative of its dtype
    # (as floor; the integer-valued floor_divide alone is non-differentiable); the remainder's partials are 1
    # and minus numpy's quotient, the one-sided values at the jumps, as remainder
    return 1.0, -out[0]


@rrule.register(np.divmod)
def _rrule_divmod(f: Any, *args: Any, **kwargs: Any) -> Any:
    if refused(2, args, kwargs):
        return None
    out = f(*args, **kwargs)
    projects = [ProjectTo(a) for a in args]
    shapes = [shape_of(a) for a in args]
    out_shapes = [value_shape(o) for o in out]

    def divmod_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
        _, remainder_bar = checked_entries(f, out_bar, 2, out_shapes)
        if isinstance(remainder_bar, AbstractZero):
            return NoTangent(), projects[0](ZeroTangent()), projects[1](ZeroTangent())
        partials = _divmod_partials(out)
        bars = [cotangent_from_partial(pr, sh, p, remainder_bar) for pr, sh, p in zip(projects, shapes, partials)]
        return NoTangent(), bars[0], bars[1]

    return out, divmod_pullback


@frule.register(np.divmod)
def _frule_divmod(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
    if refused(2, args, kwargs):
        return None
    out = f(*args, **kwargs)
    partials = _divmod_partials(out)
    terms = [
        p * t
        for a, t, p in zip(args, checked_tangents(f, tangents, args), partials)
        if not isinstance(t, AbstractZero) and not ProjectTo(a).is_no_tangent
    ]
    quotient_dot = ProjectTo(out[0])(np.zeros(shape_of(out[0])))
    return out, Tangent(tuple, quotient_dot, tangent_from_terms(out[1], terms))


# ----- fast paths -----
# logaddexp of real arrays: each argument's weight a logistic function, computed only if needed


def _weighted_seed(g: np.ndarray, t: np.ndarray, exp: Any, limit: float, v: Any) -> Any:
    """``g / (1 + exp(t))`` (the seed times the share of ``v`` in logaddexp, ``t`` the other argument minus ``v``,
    in the log's base) summed and projected onto ``v``; ``None`` where ``exp(t)`` could overflow or ``t`` has a NaN."""
    largest = t.item(t.argmax()) if t.size < 4096 else np.maximum.reduce(t, axis=None)  # NaN if any: see below
    if not largest <= limit:  # NaN compares false
        return None
    e = exp(t)
    e += 1
    bar = np.divide(g, e, out=e)
    if type(v) is float:
        return float(np.add.reduce(bar, axis=None))
    if bar.shape == v.shape and bar.dtype == v.dtype:
        return bar
    return ProjectTo(v)(sum_to_shape(bar, v.shape))


def _logaddexp_of(f: Any, x: Any, y: Any) -> Any:
    """``f(x, y)``; softplus, ``logaddexp(0.0, z)`` or ``logaddexp(z, 0.0)`` of a float64 array ``z``, by numpy's
    vectorised exponential and ``log1p``.

    The formula is the one numpy's ``logaddexp`` evaluates entry by entry with the C library's ``exp`` and ``log1p``,
    ``max(z, 0) + log1p(exp(-|z|))``, so its accuracy is the same: within 1 ulp of the exact value at 7,000 points
    from -700 to 40 (mpmath), where numpy's is too. About 5 % of the entries differ from numpy's, by at most 3 ulps
    of it at 3 million points from -745 to 40 (where they differ most, each is about 1.5 ulps from the exact value,
    on opposite sides; ``chainrules/checks/primals.py`` lists the exception). It takes
    0.4 of ``np.logaddexp``'s time from a thousand entries on (one matrix product's time at 512 x 64). Where
    ``z`` has a NaN, numpy's own call gives its value and its warning. Float32 keeps numpy's: its vectorised
    ``log1p`` is off by up to 2.5 ulp there, numpy's logaddexp by 1.4.
    """
    if f is np.logaddexp:
        z = y if type(x) is float and x == 0.0 else x if type(y) is float and y == 0.0 else None
        if type(z) is np.ndarray and z.dtype == _FLOAT64 and z.size >= _SOFTPLUS_FROM:
            e = np.abs(z)
            np.negative(e, out=e)
            np.exp(e, out=e)  # exp(-|z|) <= 1: no overflow
            np.log1p(e, out=e)
            out = np.maximum(z, 0.0)
            out += e
            largest = out.item(out.argmax())  # NaN if z has one
            if largest == largest:
                return out
    return f(x, y)


_FLOAT64 = np.dtype(np.float64)
_SOFTPLUS_FROM = 256
"""Arrays from this many entries on take ``_logaddexp_of``'s softplus (below, its six calls cost more than numpy's
one loop saves)."""


def _overflow_limits(exp: Any) -> dict[np.dtype[Any], float]:
    """Per real dtype, a bound below which ``exp`` (``np.exp`` or ``np.exp2``) does not overflow, with a margin."""
    log = np.log if exp is np.exp else np.log2
    return {np.dtype(t): float(log(np.finfo(t).max)) - 1 for t in (np.float16, np.float32, np.float64)}


def logaddexp_fast_path(f: Any, exp: Any) -> None:
    """Register the fast path of ``logaddexp``/``logaddexp2`` (``exp`` its base's exponential) for real arrays.

    With ``t = x - y``, x weighs ``1 / (1 + exp(-t))`` and y ``1 / (1 + exp(t))``: each cotangent is three
    array operations on the seed, and a Python float's is a thunk (softplus, ``logaddexp(0.0, z)``, has a
    constant there). The rule ``scalar_rule`` made from ``BINARY`` (weights from ``exp(-|t|)``) answers every
    other call, and the pullback where ``x - y`` has a NaN (the same infinity on both sides, a NaN argument),
    where ``exp(±t)`` could overflow (that argument's cotangent), and for a seed that is not an array of the
    output's shape and dtype; the pushforward is its own. Every other call goes on to the fast path
    ``scalar_rule`` made (``scalar_fast``).
    """
    scalar_fast = next(r.fast_path for r in rrule.records_for(f) if r.arg_types is None)
    limits = _overflow_limits(exp)

    def _rrule_logaddexp(rule: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != 2:
            return scalar_fast(rule, f, *args, **kwargs)
        x, y = args
        tx, ty = type(x), type(y)
        arrays = (tx is np.ndarray and x.dtype.kind == "f") + (ty is np.ndarray and y.dtype.kind == "f")
        if arrays == 0 or arrays + (tx is float) + (ty is float) != 2:
            return scalar_fast(rule, f, x, y)
        out = _logaddexp_of(f, x, y)
        if type(out) is not np.ndarray or not out.size:  # 0-d arrays give a numpy scalar, which out= cannot take
            return scalar_fast(rule, f, x, y)
        dtype, shape = out.dtype, out.shape
        limit = limits.get(dtype)
        if limit is None:
            return scalar_fast(rule, f, x, y)
        general = rule
        clean = (tx is float and math.isfinite(x)) or (ty is float and math.isfinite(y))

        def pullback_of_rule() -> Any:
            with np.errstate(all="ignore"):  # the primal again: its warnings were given when it ran
                return general(f, x, y)[1]  # type: ignore[index]

        def general_bar(out_bar: Any, position: int) -> Any:
            return unthunk(pullback_of_rule()(out_bar)[position])

        def logaddexp_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
            if type(out_bar) is not np.ndarray:
                out_bar = unthunk(out_bar)
            if type(out_bar) is np.ndarray and out_bar.dtype == dtype and out_bar.shape == shape:
                if clean or np.isfinite(out).all():  # no argument infinite where the other is: x - y is clean
                    x_bar = _share(x, y, out_bar, exp, limit, general_bar, 1)
                    y_bar = _share(y, x, out_bar, exp, limit, general_bar, 2)
                    if x_bar is not None and y_bar is not None:
                        return _NO_TANGENT, x_bar, y_bar
            return pullback_of_rule()(out_bar)  # type: ignore[no-any-return]

        return out, logaddexp_pullback

    rrule.fast_path(f)(named_after(f, _rrule_logaddexp))
    scalar_frule_fast: Any = next(r.fast_path for r in frule.records_for(f) if r.arg_types is None)

    def _frule_logaddexp(rule: Any, tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        """Real arrays (or an array and a float) whose moving arguments have the output's shape and dtype, with
        tangents of it or zeros: each moving tangent times its weight (``_weighted_seed``, into one new
        buffer), where no ``exp`` can overflow; every other call goes on to ``scalar_frule_fast``."""
        if kwargs or len(args) != 2 or len(tangents) != 3:
            return scalar_frule_fast(rule, tangents, f, *args, **kwargs)
        (x, y), (_, x_dot, y_dot) = args, tangents
        tx, ty = type(x), type(y)
        arrays = (tx is np.ndarray and x.dtype.kind == "f") + (ty is np.ndarray and y.dtype.kind == "f")
        if arrays == 0 or arrays + (tx is float) + (ty is float) != 2:
            return scalar_frule_fast(rule, tangents, f, x, y)
        out = _logaddexp_of(f, x, y)
        limit = limits.get(out.dtype) if type(out) is np.ndarray and out.size else None
        if limit is None:
            return scalar_frule_fast(rule, tangents, f, x, y)
        dtype, shape = out.dtype, out.shape
        x_moves = tx is np.ndarray and x.shape == shape and x.dtype == dtype and _tangent_of(x_dot, x)
        y_moves = ty is np.ndarray and y.shape == shape and y.dtype == dtype and _tangent_of(y_dot, y)
        if (x_moves or isinstance(x_dot, AbstractZero)) and (y_moves or isinstance(y_dot, AbstractZero)):
            x_term = _weighted_seed(x_dot, y - x, exp, limit, x) if x_moves else None
            y_term = _weighted_seed(y_dot, x - y, exp, limit, y) if y_moves else None
            if x_moves and y_moves and x_term is not None and y_term is not None:
                return out, np.add(x_term, y_term, out=x_term)
            if x_term is not None and not y_moves:
                return out, x_term
            if y_term is not None and not x_moves:
                return out, y_term
        return scalar_frule_fast(rule, tangents, f, x, y)

    frule.fast_path(f)(named_after(f, _frule_logaddexp))


def _tangent_of(t: Any, x: np.ndarray) -> bool:
    """Whether ``t`` is an array of ``x``'s shape and dtype."""
    return type(t) is np.ndarray and t.shape == x.shape and t.dtype == x.dtype


def _share(v: Any, other: Any, g: np.ndarray, exp: Any, limit: float, general_bar: Any, position: int) -> Any:
    """The cotangent of the argument ``v`` of logaddexp at ``position`` (1 or 2), ``other`` the other argument; a
    thunk for a Python float, which the general rule (``general_bar``) answers where ``exp`` could overflow."""
    if type(v) is float:

        def float_share() -> Any:
            bar = _weighted_seed(g, other - v, exp, limit, v)
            return general_bar(g, position) if bar is None else bar

        return Thunk(float_share)
    return _weighted_seed(g, other - v, exp, limit, v)


logaddexp_fast_path(np.logaddexp, np.exp)
logaddexp_fast_path(np.logaddexp2, np.exp2)


@rrule.fast_path(np.power)
def _rrule_power_of_real_array(rule: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
    """``x ** p`` for a real array and an integer ``0 < p < 1024``, with its pullback; other calls the rule's.

    ``p == 2`` squares (numpy's own ``x ** 2`` does, twice as fast as ``np.power``; the same numbers); the partial
    ``p x^(p-1)`` needs no limit at 0 for such a ``p``, and a seed of ``x``'s dtype and shape is multiplied into its
    own buffer. The exponent is an int: no tangent.
    """
    if kwargs or len(args) != 2:
        return rule(f, *args, **kwargs)
    x, p = args
    if not _real_array_to_small_power(x, p):
        return rule(f, x, p)
    out = np.square(x) if p == 2 else np.power(x, p)

    def power_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
        if type(out_bar) is np.ndarray and out_bar.dtype == x.dtype and out_bar.shape == x.shape:
            return _NO_TANGENT, _power_slope_times(x, p, out_bar), _NO_TANGENT
        return _power_pullback_of(f, x, p, out)(out_bar)

    return out, power_pullback


@frule.fast_path(np.power)
def _frule_power_of_real_array(rule: Any, tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
    """``x ** p`` for a real array with a tangent of its shape and dtype and an integer ``0 < p < 1024`` (as the
    rrule's fast path): the partial times the tangent, in the partial's buffer; other calls the rule's."""
    if kwargs or len(args) != 2 or len(tangents) != 3:
        return rule(tangents, f, *args, **kwargs)
    x, p = args
    array_moves = _real_array_to_small_power(x, p) and _tangent_of(tangents[1], x)
    if not array_moves or not isinstance(tangents[2], AbstractZero):
        return rule(tangents, f, x, p)
    out = np.square(x) if p == 2 else np.power(x, p)
    return out, _power_slope_times(x, p, tangents[1])


def _real_array_to_small_power(x: Any, p: Any) -> bool:
    """Whether ``x ** p`` is a real array (not 0-d: its power is a numpy scalar, which out= cannot take) to an
    integer power ``0 < p < 1024``."""
    return type(x) is np.ndarray and x.ndim > 0 and x.dtype.kind == "f" and type(p) is int and 0 < p < _EXACT_POWERS


def _power_slope_times(x: np.ndarray, p: int, t: np.ndarray) -> np.ndarray:
    """``p x^(p-1) * t`` for a seed or tangent ``t`` of ``x``'s shape and dtype, in the slope's new buffer."""
    partial: np.ndarray = _moved_by(np, 2 * x if p == 2 else p * x ** (p - 1), t)  # a new array
    return np.multiply(partial, t, out=partial)  # type: ignore[no-any-return]
