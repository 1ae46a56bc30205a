"""Rules for numpy's elementwise functions of one argument.

* ``UNARY``, the table of derivatives below: ``sqrt``, ``exp``, ``log``, the
  trigonometric and hyperbolic functions and their inverses ... through
  ``scalar_rule``; ``LINEAR_UNARY``: ``negative``, ``positive``,
  ``deg2rad``, ``rad2deg`` scale the cotangent. ``math`` and ``operator``
  share these tables (``python_math``, ``python_operators``).
* Written from the 2×2 real Jacobian, as they are not holomorphic:
  ``absolute`` (on complex input), ``conjugate``, ``real``, ``imag``,
  ``angle`` and ``sign`` on complex input.
* Zero derivatives of the input's dtype: ``floor``, ``ceil``, ``trunc``,
  ``rint``, ``round``/``around``, ``fix`` and ``sign`` on real input.
* ``nan_to_num`` (1 where finite, 0 where replaced), ``real_if_close``,
  and the two-output ``modf`` and ``frexp``.

Calls with ``out=`` or ``where=`` (or a positional output buffer) get no
rule: ``frule`` and ``rrule`` return ``None``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import (
    NoTangent,
    ProjectTo,
    Tangent,
    ZeroTangent,
    checked_seed,
    checked_tangent,
    cotangent_from_partial,
    follow,
    frule,
    is_followed,
    named_after,
    rrule,
    scalar_rule,
    value_shape,
)
from chainrules_core.array_api import call_in
from chainrules_core.arrays import first_foreign_array, is_complex_dtype, namespace_of, real_part

from .._arrays import bind_options, instantiate_zeros
from .._makers import (
    Prepared,
    checked_entries,
    elementwise_linear_rule,
    positional_options,
    projector_of,
    refused,
    rule_in_first,
    zero_derivative_rule,
)
from ..python._numbers import PY
from ._special import bessel_i1, sinc_slope

DEGREE = math.pi / 180
LN2 = math.log(2.0)
LN10 = math.log(10.0)


def is_complex_in(m: Any, x: Any) -> bool:
    """Whether ``x`` is complex, for a table entry computing in ``m`` (numpy, ``PY`` or another library's
    namespace, which has no ``iscomplexobj``)."""
    if m is np or m is PY or not hasattr(x, "dtype"):
        return isinstance(x, complex) or bool(np.iscomplexobj(x))
    return is_complex_dtype(m, x.dtype)


def _hypot1(m: Any, x: Any) -> Any:
    """``hypot(x, 1)``, which does not overflow where ``x * x + 1`` does; another library's ``hypot`` may want two
    arrays."""
    if m is np or m is PY:
        return m.hypot(x, 1)
    return m.hypot(x, m.ones_like(x))


def _sech2(m: Any, out: Any, x: Any) -> Any:
    """tanh' = sech²(x). 1 - tanh² (ChainRules.jl) loses every digit where tanh rounds to ±1 (|x| > 19) and
    1/cosh² overflows (autograd): 4e/(1 + e)² with e = exp(-2|x|) keeps them all, on a real x; a complex x takes
    1 - tanh² (its modulus does not overflow the same way). Real arrays take a fast path (below)."""
    if is_complex_in(m, x):
        return 1 - out * out
    e = m.exp(-2 * abs(x))
    return 4 * e / ((1 + e) * (1 + e))


# ----- d(out)/dx given the output `out` and the input `x`; `m` is numpy, or the math kernels for Python floats -----
# Holomorphic on complex inputs (scalar_rule conjugates). The formulas in terms of `out` follow ChainRules.jl
# (fastmath_able.jl).
UNARY: dict[Any, Callable[..., Any]] = {
    np.sqrt: lambda m, out, x: 0.5 / out,  # +inf at 0
    np.cbrt: lambda m, out, x: 1 / (3 * out * out),  # +inf at 0
    np.square: lambda m, out, x: 2 * x,
    np.reciprocal: lambda m, out, x: -out * out,
    np.exp: lambda m, out, x: out,
    np.exp2: lambda m, out, x: LN2 * out,
    np.expm1: lambda m, out, x: m.exp(x),  # not out + 1, which cancels for x << 0
    np.log: lambda m, out, x: m.where(m.isnan(out), out, 1 / x),  # nan outside the real domain (conventions.md)
    np.log2: lambda m, out, x: m.where(m.isnan(out), out, 1 / (LN2 * x)),
    np.log10: lambda m, out, x: m.where(m.isnan(out), out, 1 / (LN10 * x)),
    np.log1p: lambda m, out, x: m.where(m.isnan(out), out, 1 / (x + 1)),
    np.sin: lambda m, out, x: m.cos(x),
    np.cos: lambda m, out, x: -m.sin(x),
    np.tan: lambda m, out, x: 1 + out * out,
    np.arcsin: lambda m, out, x: 1 / m.sqrt((1 - x) * (1 + x)),  # (1 - x)(1 + x): 1 - x² cancels near ±1
    np.arccos: lambda m, out, x: -1 / m.sqrt((1 - x) * (1 + x)),
    np.arctan: lambda m, out, x: 1 / (1 + x * x),
    np.sinh: lambda m, out, x: m.cosh(x),
    np.cosh: lambda m, out, x: m.sinh(x),
    np.tanh: _sech2,
    np.arcsinh: lambda m, out, x: 1 / (m.sqrt(x * x + 1) if is_complex_in(m, x) else _hypot1(m, x)),  # x² overflows
    np.arccosh: lambda m, out, x: 1 / (m.sqrt(x - 1) * m.sqrt(x + 1)),  # the principal branch (ChainRules.jl)
    np.arctanh: lambda m, out, x: m.where(m.isnan(out), out, 1 / ((1 - x) * (1 + x))),
    # |x|' = sign(x), 0 at 0 (the central difference; ChainRules.jl, autograd and PyTorch agree). Real
    # inputs: complex ones have their own rule below.
    np.absolute: lambda m, out, x: m.sign(x),
    np.sinc: lambda m, out, x: sinc_slope(x),  # 0 at 0, the limit (ChainRules.jl's cosc)
    np.i0: lambda m, out, x: bessel_i1(x),  # I0' = I1 (DLMF 10.29.3); numpy's i0 takes real inputs only
    # I1' = I0 - I1 / x (DLMF 10.29.2), 1/2 at 0 (the limit); inf where I0 overflows (inf - inf there)
    bessel_i1: lambda m, out, x: m.where(m.isinf(i0 := m.i0(x)), i0, i0 - m.where(x == 0, 0.5, out / _nonzero(x))),
}
UNARY[np.fabs] = UNARY[np.absolute]

# d(out)/dx of the linear functions: constants, so the rule scales the cotangent without evaluating anything.
LINEAR_UNARY: dict[Any, float] = {
    np.negative: -1.0,
    np.positive: 1.0,
    np.deg2rad: DEGREE,
    np.radians: DEGREE,
    np.rad2deg: 1 / DEGREE,
    np.degrees: 1 / DEGREE,
}

_NUMPY_ONLY = (np.sinc, np.i0, bessel_i1)
"""Table entries that call numpy's functions whatever ``m`` is: no Python-float evaluation (``floats``)."""
for _f, _partials in UNARY.items():
    if _f is not np.absolute:  # below: complex inputs need their own rule
        _floats = None if _f in _NUMPY_ONLY else functools.partial(_partials, PY)
        _generic = None if _f in _NUMPY_ONLY else _partials
        scalar_rule(_f, functools.partial(_partials, np), floats=_floats, array_api=_generic)
for _f, _constant in LINEAR_UNARY.items():
    elementwise_linear_rule(_f, (_constant,), nin=1)


_NO_TANGENT = NoTangent()


def _is_complex(x: Any) -> bool:
    return isinstance(x, complex) or np.iscomplexobj(x)


def _nonzero(r: Any, m: Any = np) -> Any:
    """``r`` with its zeros replaced by ones: the denominator of a derivative that is 0 where ``r`` is."""
    return m.where(r == 0, 1, r)


# ----- absolute value: real and complex -----
# The formulas compute in ``c.xp``: numpy, or another library's namespace (generic rules).


def _unit(c: Prepared) -> Any:
    """d|x| as a direction: sign(x) for real x, x/|x| for complex x; 0 at 0."""
    xp = c.xp
    if is_complex_in(xp, c.x):
        return c.x / _nonzero(c.out, xp)
    return xp.sign(c.x)


def _absolute_pushforward(c: Prepared, x_dot: Any) -> Any:
    xp = c.xp
    return real_part(xp, xp.conj(_unit(c)) * x_dot)


def _absolute_cotangent(c: Prepared, out_bar: Any) -> Any:
    return _unit(c) * real_part(c.xp, out_bar)


rule_in_first(
    np.absolute,
    parse=positional_options(1),
    cotangent=_absolute_cotangent,
    tangent=_absolute_pushforward,
    generic=True,
)


# ----- complex parts: conjugate, real, imag, angle, and sign of a complex number -----
# Linear over ℝ (conj, real, imag) or written from the 2×2 real Jacobian (angle, sign); each pullback is the
# adjoint of its pushforward under Re(conj(a) b). Real cotangents of complex inputs are embedded by ProjectTo.
# The standard's conj, real and imag take complex arrays only: a real one is its own conjugate and real part,
# and its imaginary part is zero.


def _conjugate(c: Prepared, t: Any) -> Any:
    xp = c.xp
    return xp.conj(t) if is_complex_in(xp, t) else t


def _real_part(c: Prepared, t: Any) -> Any:
    return real_part(c.xp, t)


def _imag_pushforward(c: Prepared, x_dot: Any) -> Any:
    xp = c.xp
    return xp.imag(x_dot) if is_complex_in(xp, x_dot) else xp.zeros_like(x_dot)


def _imag_cotangent(c: Prepared, out_bar: Any) -> Any:
    return 1j * real_part(c.xp, out_bar)


def _complex_part(part: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    """The primal of ``conj``, ``real`` or ``imag`` on another library's array, which the standard's functions
    take complex only; ``part(xp, x)`` answers for a real one."""

    def primal(f: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any], options: Any) -> Any:
        if first_foreign_array((x,)) is None:
            return follow(f, x, *args, **kwargs) if is_followed(x) else f(x, *args, **kwargs)
        xp = namespace_of(x)
        return call_in(xp, f, x, *args, **kwargs) if is_complex_in(xp, x) else part(xp, x)

    return primal


def _angle_scale(c: Prepared) -> float:
    args, kwargs = c.options
    deg = args[0] if args else kwargs.get("deg", False)
    return 180 / np.pi if deg else 1.0


def _angle_pushforward(c: Prepared, z_dot: Any) -> Any:
    # d angle(z) = Im(conj(z) dz) / |z|²; 0 at z == 0, where the angle jumps (ChainRules.jl)
    r2 = np.real(c.x * np.conjugate(c.x))
    return _angle_scale(c) * np.imag(np.conjugate(c.x) * z_dot) / _nonzero(r2)


def _angle_cotangent(c: Prepared, out_bar: Any) -> Any:
    r2 = np.real(c.x * np.conjugate(c.x))
    return (_angle_scale(c) * np.real(out_bar)) * (1j * c.x / _nonzero(r2))


for _f, _cotangent, _tangent, _part in (
    (np.conjugate, _conjugate, _conjugate, lambda xp, x: x),
    (np.real, _real_part, _real_part, lambda xp, x: x),
    (np.imag, _imag_cotangent, _imag_pushforward, lambda xp, x: xp.zeros_like(x)),
):
    rule_in_first(
        _f,
        parse=positional_options(1),
        cotangent=_cotangent,
        tangent=_tangent,
        primal=_complex_part(_part),
        generic=True,
    )
rule_in_first(np.angle, parse=positional_options(2), cotangent=_angle_cotangent, tangent=_angle_pushforward)


# ----- zero derivatives -----

for _f in (np.floor, np.ceil, np.trunc, np.rint):
    zero_derivative_rule(_f, nin=1)
zero_derivative_rule(np.round, nin=2)  # round(a, decimals): decimals is an int, NoTangent
zero_derivative_rule(np.around, nin=2)

_NUMPY2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"
_rrule_real_sign, _frule_real_sign = zero_derivative_rule(np.sign, nin=1, register=False)


def _sign_tangent(z: Any, out: Any, t: Any) -> Any:
    # sign(z) = z/|z| moves only along the circle: i sign(z) Im(conj(sign(z)) dz) / |z|, 0 at z == 0.
    # The map is self-adjoint under Re(conj(a) b), so the pullback has the same form (ChainRules.jl).
    xp = namespace_of(z)
    return 1j * out * xp.imag(xp.conj(out) * t) / _nonzero(xp.abs(z), xp)


@rrule.register(np.sign, generic=True)
def _rrule_sign(f: Any, *args: Any, **kwargs: Any) -> Any:
    # Real input: piecewise constant, zeros (the jump at 0 too). Complex input since numpy 2: z/|z|.
    if refused(1, args, kwargs):
        return None
    if not (_NUMPY2 and is_complex_in(namespace_of(args[0]), args[0])):
        return _rrule_real_sign(f, *args, **kwargs)
    (z,) = args
    out = call_in(namespace_of(z), f, z, **kwargs)
    project_z = ProjectTo(z)
    shape = value_shape(out)

    def sign_pullback(out_bar: Any) -> tuple[Any, Any]:
        return NoTangent(), project_z(_sign_tangent(z, out, checked_seed(f, out_bar, shape)))

    return out, sign_pullback


@frule.register(np.sign, generic=True)
def _frule_sign(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
    if refused(1, args, kwargs):
        return None
    if not (_NUMPY2 and is_complex_in(namespace_of(args[0]), args[0])):
        return _frule_real_sign(tangents, f, *args, **kwargs)
    (z,), (_, z_dot) = args, tangents
    out = call_in(namespace_of(z), f, z, **kwargs)
    return out, ProjectTo(out)(_sign_tangent(z, out, checked_tangent(f, z_dot, z)))


# ----- the long tail: fix, nan_to_num, real_if_close, modf, frexp -----

zero_derivative_rule(np.fix, nin=1)

_NAN_TO_NUM_ARGS = ("copy", "nan", "posinf", "neginf")


def _nan_to_num_masks(x: Any) -> list[tuple[Any, Any, Any, Any]]:
    """For each part of ``x`` (real; real and imaginary): where it is kept, NaN, +inf and -inf.

    numpy replaces the parts of a complex number separately.
    """
    parts = (np.real(x), np.imag(x)) if _is_complex(x) else (x,)  # a followed x answers np.isfinite itself
    return [(np.isfinite(p), np.isnan(p), np.isposinf(p), np.isneginf(p)) for p in parts]


def _nan_to_num_fills(args: tuple[Any, ...]) -> list[int]:
    """Which of ``nan``, ``posinf``, ``neginf`` came positionally as numbers (differentiable): 1, 2, 3."""
    return [i for i in (1, 2, 3) if i < len(args) and args[i] is not None]


@rrule.register(np.nan_to_num)
def _rrule_nan_to_num(f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    # out = x where finite, else the fill: d out/dx is 1 where x is finite and 0 where numpy replaced it, and
    # each fill's derivative is the count of what it replaced. copy=False writes into x: no rule.
    if not bind_options(_NAN_TO_NUM_ARGS, args, kwargs, copy=True)["copy"]:
        return None
    out = f(x, *args, **kwargs)
    project_x = ProjectTo(x)
    projects = [ProjectTo(a) if i in _nan_to_num_fills(args) else ProjectTo(None) for i, a in enumerate(args)]
    shape = value_shape(out)

    def nan_to_num_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, shape)
        masks = _nan_to_num_masks(x)
        seeds = (np.real(out_bar), np.imag(out_bar))[: len(masks)]
        kept = [np.where(mask[0], seed, 0) for mask, seed in zip(masks, seeds)]
        x_bar = kept[0] if len(kept) == 1 else kept[0] + 1j * kept[1]
        bars = [project(ZeroTangent()) for project in projects]
        for i in _nan_to_num_fills(args):
            bars[i] = projects[i](sum(np.sum(np.where(mask[i], seed, 0)) for mask, seed in zip(masks, seeds)))
        return (NoTangent(), project_x(x_bar), *bars)

    return out, nan_to_num_pullback


@frule.register(np.nan_to_num)
def _frule_nan_to_num(tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    if not bind_options(_NAN_TO_NUM_ARGS, args, kwargs, copy=True)["copy"]:
        return None
    out = f(x, *args, **kwargs)
    masks = _nan_to_num_masks(x)
    x_dot = instantiate_zeros(checked_tangent(f, tangents[1], x), x)
    parts = (np.real(x_dot), np.imag(x_dot))[: len(masks)]
    out_parts = [np.where(mask[0], part, 0) for mask, part in zip(masks, parts)]
    for i in _nan_to_num_fills(args):
        fill_dot = np.real(instantiate_zeros(checked_tangent(f, tangents[2 + i], args[i], 2 + i), args[i]))
        out_parts = [part + np.where(mask[i], fill_dot, 0) for part, mask in zip(out_parts, masks)]
    out_dot = out_parts[0] if len(out_parts) == 1 else out_parts[0] + 1j * out_parts[1]
    return out, ProjectTo(out)(out_dot)


def _real_if_close_tangent(c: Prepared, t: Any) -> Any:
    # The real part when numpy dropped a negligible imaginary part (the output's cotangent space is then real,
    # and ProjectTo embeds a real cotangent back into the complex input), the tangent itself otherwise.
    return np.real(t) if _is_complex(c.x) and not _is_complex(c.out) else t


rule_in_first(
    np.real_if_close, parse=positional_options(), cotangent=_real_if_close_tangent, tangent=_real_if_close_tangent
)


def _modf_cotangent(x: Any, out: Any, seeds: list[Any]) -> Any:
    return seeds[0]  # frac = x - integral part: slope 1 (the one-sided value at the integers), integral part 0


def _modf_tangent(x: Any, out: Any, x_dot: Any) -> tuple[Any, Any]:
    return x_dot, np.zeros(np.shape(out[1]))


def _frexp_cotangent(x: Any, out: Any, seeds: list[Any]) -> Any:
    # mantissa = x / 2**e: slope 2**-e on each binade, numpy's exponent at the powers of two (where the mantissa
    # jumps) and 2**0 at 0 (the mantissa has no derivative there); the integer exponent has no tangent
    return seeds[0] * np.ldexp(1.0, -out[1])


def _frexp_tangent(x: Any, out: Any, x_dot: Any) -> tuple[Any, Any]:
    return x_dot * np.ldexp(1.0, -out[1]), NoTangent()


def two_outputs_rule(f: Any, cotangent: Callable[..., Any], tangent: Callable[..., Any]) -> None:
    """Rules for a ufunc of one argument and two outputs, from ``cotangent(x, out, seeds)`` (the cotangent of ``x``
    given the two seeds, their zeros made explicit) and ``tangent(x, out, x_dot)`` (the two output tangents)."""

    def _rrule_pair(f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        if refused(1, args, kwargs):
            return None
        out = follow(f, x, **kwargs)
        project_x = ProjectTo(x)
        shapes = [value_shape(o) for o in out]

        def pair_pullback(out_bar: Any) -> tuple[Any, Any]:
            seeds = [instantiate_zeros(s, o) for s, o in zip(checked_entries(f, out_bar, 2, shapes), out)]
            return NoTangent(), project_x(cotangent(x, out, seeds))

        return out, pair_pullback

    def _frule_pair(tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        if refused(1, args, kwargs):
            return None
        out = follow(f, x, **kwargs)
        x_dot = instantiate_zeros(checked_tangent(f, tangents[1], x), x)
        return out, ProjectTo(out)(Tangent(tuple, *tangent(x, out, x_dot)))

    rrule.register(f)(named_after(f, _rrule_pair))
    frule.register(f)(named_after(f, _frule_pair))


TWO_OUTPUTS = {np.modf: (_modf_cotangent, _modf_tangent), np.frexp: (_frexp_cotangent, _frexp_tangent)}
"""The cotangent and tangent formulas of each ufunc of one argument and two outputs, for ``two_outputs_rule``."""
for _f, (_cotangent, _tangent) in TWO_OUTPUTS.items():
    two_outputs_rule(_f, _cotangent, _tangent)


# ----- fast paths -----
# tanh of a real array: its slope in one buffer (1 - tanh² where every |x| <= 2, where it is accurate to 14 ulp, and
# 1/cosh² elsewhere); other calls take the fast path scalar_rule made (Python floats) or the general rule.


def _sech2_of_array(out: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``_sech2`` of a real array, in one buffer.

    Fewer than 2048 entries: 1 - tanh² if every |x| ≤ 2 (tanh² ≤ tanh²(2)),
    else (1/cosh(x))² at every entry, which then costs less than finding the
    entries beyond. More: when more than a quarter of a sample of about a
    thousand entries of x are beyond |x| = 2, (1/cosh(x))² at every entry;
    else 1 - tanh², with the entries beyond recomputed where they are, or the
    whole buffer if more than a quarter of them are after all.
    """
    if x.size < 2048:
        s = out * out
        if not s.size or s.item(s.argmax()) <= _TANH2_AT_2:  # the largest entry, NaN if any (compares false)
            return np.subtract(_ONE[s.dtype], s, out=s)
        return _inverse_cosh_squared(x, s)
    if x.flags.c_contiguous:
        sample = x.reshape(-1)[:: x.size // 1024]
        if 4 * np.count_nonzero(np.abs(sample) > 2) > sample.size:
            return _inverse_cosh_squared(x, np.empty_like(out))
    s = out * out
    np.subtract(_ONE[s.dtype], s, out=s)
    if np.minimum.reduce(s, axis=None) >= _SECH2_AT_2:  # NaN compares false
        return s
    if s.flags.c_contiguous and x.flags.c_contiguous:
        flat = s.reshape(-1)  # a view of s
        far = np.flatnonzero(flat < _SECH2_AT_2)  # NaN entries stay NaN
        if 4 * far.size <= s.size:
            flat[far] = _inverse_cosh_squared(x.reshape(-1)[far])
            return s
    return _inverse_cosh_squared(x, s)


def _largest_magnitude(x: np.ndarray) -> float:
    """The largest |x| of a non-empty real array, from its largest and smallest entries read by ``argmax`` and
    ``argmin`` (faster than a reduction on small arrays); NaN if it has a NaN."""
    hi, lo = x.item(x.argmax()), x.item(x.argmin())
    return hi if hi != hi else lo if lo != lo else max(hi, -lo)


def _seed_over_cosh_squared(x: np.ndarray, g: np.ndarray, tame: bool = False) -> np.ndarray:
    """``(g / cosh x) / cosh x``: sech² times the seed in one pass fewer than the slope times ``g``; 0 past
    |x| = 710, where cosh overflows and sech² has underflowed (``tame``: no |x| is beyond 710, and numpy's error
    state need not be set, which costs as much as the cosh of a thousand entries). For small arrays only: from 128
    KiB on, its second buffer costs more than the pass it saves (such an allocation goes to the system and back
    each call)."""
    if tame:
        c = np.cosh(x)
    else:
        with np.errstate(over="ignore"):
            c = np.cosh(x)
    bar = np.divide(g, c)
    return np.divide(bar, c, out=bar)


_COSH_FINITE = 710.0
"""cosh(x) is finite for |x| <= 710 (it overflows past 710.4758)."""


_SMALL = 8192
"""Arrays of at most this many entries: tanh's rule looks at once whether every |x| <= 2 (below)."""


def _inverse_cosh_squared(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """(1/cosh(x))², in ``out`` (a new array if none); 0 where cosh overflows (sech² has underflowed there)."""
    with np.errstate(over="ignore"):
        v = np.cosh(x, out=out)
    np.divide(_ONE[v.dtype], v, out=v)  # numpy's reciprocal of a float64 array takes twice as long
    v *= v
    return v


_SECH2_AT_2 = 1 / math.cosh(2.0) ** 2
_TANH2_AT_2 = 1 - _SECH2_AT_2
_ONE = {np.dtype(t): t(1) for t in (np.float64, np.float32, np.float16)}
"""1 in each real dtype whose arrays ``_sech2_of_array`` takes (numpy converts it faster than a Python int)."""


_scalar_rrule_fast = next(r.fast_path for r in rrule.records_for(np.tanh) if r.arg_types is None)
_scalar_frule_fast = next(r.fast_path for r in frule.records_for(np.tanh) if r.arg_types is None)


@rrule.fast_path(np.tanh)
def _rrule_tanh(rule: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
    """tanh of a real array: an array of at most ``_SMALL`` entries is looked at once, when the rule runs: where
    every |x| <= 2 the pullback needs only the output (1 - tanh², to 14 ulp there), so the input is not kept (at
    width 128 a tanh network's gradient went 1.15 -> 1.02 of the hand-written one without those arrays kept alive);
    elsewhere it divides the seed twice by cosh x. A larger array keeps its input and takes ``_sech2_of_array``. A
    seed of the array's dtype and shape is multiplied into the slope's own buffer; other seeds go through
    ``cotangent_from_partial`` with the slope (the general rule's, when the input is kept)."""
    if kwargs or len(args) != 1:
        return rule(f, *args, **kwargs)
    (x,) = args
    if type(x) is not np.ndarray or not x.ndim or x.dtype not in _ONE:
        return _scalar_rrule_fast(rule, f, x)
    out = f(x)
    dtype, shape = x.dtype, x.shape
    largest = (_largest_magnitude(x) if x.size <= _SMALL else math.nan) if x.size else 0.0
    kept = None if largest <= 2.0 else x  # NaN compares false
    tame = largest <= _COSH_FINITE
    del x, args

    def tanh_pullback(out_bar: Any) -> tuple[Any, Any]:
        if type(out_bar) is np.ndarray and out_bar.dtype == dtype and out_bar.shape == shape:
            if kept is None:  # every |x| <= 2
                s = out * out
                np.subtract(_ONE[dtype], s, out=s)
                return _NO_TANGENT, np.multiply(s, out_bar, out=s)
            if kept.size <= _SMALL:
                return _NO_TANGENT, _seed_over_cosh_squared(kept, out_bar, tame)
            s = _sech2_of_array(out, kept)
            return _NO_TANGENT, np.multiply(s, out_bar, out=s)
        seed = checked_seed(f, out_bar, shape)
        slope = np.subtract(_ONE[dtype], out * out) if kept is None else _sech2_of_array(out, kept)
        return _NO_TANGENT, cotangent_from_partial(projector_of(shape, dtype), shape, slope, seed)

    return out, tanh_pullback


@frule.fast_path(np.tanh)
def _frule_tanh(rule: Any, tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
    """tanh of a real array with a tangent of its shape: the slope in one buffer, times the tangent (into the slope's
    buffer where the tangent has the output's dtype)."""
    if kwargs or len(args) != 1:
        return rule(tangents, f, *args, **kwargs)
    (x,), x_dot = args, tangents[1]
    if type(x) is not np.ndarray or not x.ndim or x.dtype not in _ONE:
        return _scalar_frule_fast(rule, tangents, f, x)
    if type(x_dot) is not np.ndarray or x_dot.shape != x.shape or x_dot.dtype.kind != "f":
        return rule(tangents, f, x)
    out = f(x)
    slope = _sech2_of_array(out, x)  # a new buffer
    if x_dot.dtype == out.dtype:  # the product has the output's type: nothing to project, and it can go in place
        return out, np.multiply(slope, x_dot, out=slope)
    return out, ProjectTo(out)(slope * x_dot)
