"""Rules for Python's ``math`` module, from the same derivative tables as numpy's functions.

``math`` takes real numbers and returns Python floats; so do these rules,
which evaluate the tables' partials with Python arithmetic (about ten times
faster than numpy on Python floats; ``benchmarks/bench_elementwise.py``).
Where ``math`` raises (``ValueError`` outside a domain, ``OverflowError``)
the rule raises the same, as it calls the function; where ``math`` returns a
value but the derivative is infinite or undefined (``sqrt`` at 0), the
partial is numpy's ``inf`` or ``nan``. ``int`` arguments get
``NoTangent()`` (``ldexp``'s exponent, ``frexp``'s). ``modf`` and ``frexp``
return pairs and share numpy's two-output rules. ``erf``, ``erfc``,
``gamma`` and ``lgamma``, which numpy lacks, have their own entries, the last
two from ``digamma`` (computed here, without scipy, and with rules of its own
from ``trigamma``). ``floor``, ``ceil`` and ``trunc`` return ints: see
``nondifferentiable``; ``fsum``, ``prod`` and ``dist``: see
``python_sequences``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, ProjectTo, checked_seed, follow, frule, rrule

from .._makers import checked_tangents, constant_partials, python_partials, python_rule, tangent_from_terms
from ..numpy.arithmetic import BINARY, LINEAR_BINARY, POWER, hypot_partial
from ..numpy.elementwise import LINEAR_UNARY, TWO_OUTPUTS, UNARY, two_outputs_rule

MATH_UNARY = {
    math.sin: np.sin,
    math.cos: np.cos,
    math.tan: np.tan,
    math.asin: np.arcsin,
    math.acos: np.arccos,
    math.atan: np.arctan,
    math.sinh: np.sinh,
    math.cosh: np.cosh,
    math.tanh: np.tanh,
    math.asinh: np.arcsinh,
    math.acosh: np.arccosh,
    math.atanh: np.arctanh,
    math.exp: np.exp,
    math.expm1: np.expm1,
    math.log2: np.log2,
    math.log10: np.log10,
    math.log1p: np.log1p,
    math.sqrt: np.sqrt,
    math.fabs: np.fabs,
    math.degrees: np.rad2deg,
    math.radians: np.deg2rad,
}
"""Each ``math`` function and the numpy function whose table entry it shares."""
for _name, _ufunc in (("exp2", np.exp2), ("cbrt", np.cbrt)):  # Python 3.11
    if hasattr(math, _name):
        MATH_UNARY[getattr(math, _name)] = _ufunc

MATH_BINARY = {math.atan2: np.arctan2, math.fmod: np.fmod, math.copysign: np.copysign, math.ldexp: np.ldexp}
"""Each ``math`` function of two arguments and the numpy function whose table entry it shares."""


def numpy_for_numpy_values(partials: Any) -> Any:
    """The table entry ``partials`` evaluated with numpy when an argument is a 0-d array or a numpy scalar.

    ``math.fabs`` and ``math.copysign`` take any real; the comparisons in
    ``PY.sign`` give numpy bools for numpy values, which do not subtract.
    """

    def on_reals(m: Any, out: Any, *args: Any) -> Any:
        numpy_values = any(isinstance(a, (np.ndarray, np.generic)) for a in args)
        return partials(np if numpy_values else m, out, *args)

    return on_reals


fabs_partial = numpy_for_numpy_values(UNARY[np.fabs])
"""``sign(x)`` for ``math.fabs``: numpy's sign for a 0-d array or a numpy scalar."""


def unary_partials(f: Any, ufunc: Any) -> Any:
    """The partials of the ``math`` function ``f``, from the table entry of ``ufunc`` (``fabs``: its own)."""
    if ufunc in LINEAR_UNARY:
        return constant_partials((LINEAR_UNARY[ufunc],))
    return fabs_partial if f is math.fabs else UNARY[ufunc]


for _f, _ufunc in MATH_UNARY.items():
    python_rule(_f, unary_partials(_f, _ufunc))


def ldexp_partials(m: Any, out: Any, x: Any, n: Any) -> Any:
    """``ldexp``'s table entry with the exponent an int, as numpy's ``ldexp`` needs where ``math.ldexp(1.0, n)``
    overflows (``x`` tiny) and the partials are numpy's: ``inf``."""
    return BINARY[np.ldexp](m, out, x, int(n))


MATH_BINARY_PARTIALS = {
    **{f: BINARY[ufunc] for f, ufunc in MATH_BINARY.items()},
    math.copysign: numpy_for_numpy_values(BINARY[np.copysign]),
    math.ldexp: ldexp_partials,
}
for _f, _partials in MATH_BINARY_PARTIALS.items():
    python_rule(_f, _partials)
python_rule(math.pow, POWER, lazy=(1,))
python_rule(math.nextafter, constant_partials(LINEAR_BINARY[np.nextafter]))


def remainder_partials(m: Any, out: Any, x: Any, y: Any) -> Any:
    """The partials of ``math.remainder(x, y) = x - n y``, ``n`` the integer nearest ``x / y`` (ties to even).

    ``n`` is read back from the exact output, ``(x - out) / y``, an integer
    up to rounding, rather than from ``x / y``, whose rounding can move a
    tie. The remainder jumps where ``x / y`` is halfway between integers;
    there the rule keeps the one-sided values 1 and ``-n`` of the ``n``
    chosen (IEEE 754's even one), as numpy's ``remainder`` does at its jumps.
    """
    return 1.0, -m.floor((x - out) / y + 0.5)


python_rule(math.remainder, remainder_partials)

MATH_TWO_OUTPUTS = {math.modf: np.modf, math.frexp: np.frexp}
"""The ``math`` functions of two outputs and the numpy function whose rule they share (``frexp``'s exponent is an
int, without a tangent)."""
for _f, _ufunc in MATH_TWO_OUTPUTS.items():
    two_outputs_rule(_f, *TWO_OUTPUTS[_ufunc])


# ----- erf, erfc, gamma, lgamma: derivatives without scipy -----

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)

_ASYMPTOTIC = 10.0
"""From here the asymptotic series of ψ and ψ', to B_14, are within 1e-16 of them (the next term's size)."""

_DIGAMMA_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)
"""``B_2k / (2k)`` for k = 1..7, the coefficients of ``x**(-2k)`` in ψ's asymptotic series (DLMF 5.11.2, 24.2.1)."""

_TRIGAMMA_SERIES = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)
"""``B_2k`` for k = 1..7, the coefficients of ``x**(-2k - 1)`` in the asymptotic series of ψ' (DLMF 5.15.8)."""


_TETRAGAMMA_SERIES = tuple((2 * k + 1) * b for k, b in enumerate(_TRIGAMMA_SERIES, start=1))
"""``(2k + 1) B_2k``, the coefficients of ``-x**(-2k - 2)`` in the asymptotic series of ψ''."""


def _reduced(x: float) -> float:
    """``x`` less its nearest integer, exactly: sin(πx)² and tan(πx) from it keep their precision far from 0."""
    return x - round(x)


def _even_series(x: float, coefficients: tuple[float, ...]) -> float:
    """``sum(c_k / x**(2k))``, k = 1, 2 ..., by Horner's rule in 1/x²."""
    u = 1.0 / (x * x)
    total = 0.0
    for c in reversed(coefficients):
        total = (total + c) * u
    return total


def digamma(x: float) -> float:
    """ψ(x) = Γ'(x) / Γ(x) of a real ``x``, not a pole (0, -1, -2 ...: ``ZeroDivisionError``).

    >>> round(digamma(1.0), 12)  # -γ, the Euler-Mascheroni constant
    -0.577215664902
    >>> round(digamma(-0.5), 12)  # ψ(1/2) + 2 = 2 - γ - 2 ln 2 (DLMF 5.4.13, 5.5.2)
    0.036489973979
    """
    if not math.isfinite(x):
        return x if x > 0 else math.nan  # ψ(x) ~ log x at +inf; no limit at -inf
    if x < 0.5:  # reflection: ψ(1 - x) - ψ(x) = π cot(πx) (DLMF 5.5.4)
        return digamma(1.0 - x) - math.pi / math.tan(math.pi * _reduced(x))
    shift = 0.0
    while x < _ASYMPTOTIC:  # ψ(x) = ψ(x + 1) - 1/x (DLMF 5.5.2)
        shift -= 1.0 / x
        x += 1.0
    # ψ(x) ~ ln x - 1/(2x) - Σ B_2k / (2k x^2k) (DLMF 5.11.2)
    return shift + math.log(x) - 0.5 / x - _even_series(x, _DIGAMMA_SERIES)


def trigamma(x: float) -> float:
    """ψ'(x) of a real ``x``, not a pole: the derivative of ``digamma``, for its rules.

    >>> round(trigamma(1.0), 12)  # π²/6 (DLMF 5.15.2)
    1.644934066848
    """
    if not math.isfinite(x):
        return 0.0 if x > 0 else math.nan
    if x < 0.5:  # reflection: ψ'(1 - x) + ψ'(x) = π² / sin²(πx) (DLMF 5.15.6)
        cosecant = math.pi / math.sin(math.pi * _reduced(x))
        return cosecant * cosecant - trigamma(1.0 - x)  # inf near a pole, where ** would raise
    shift = 0.0
    while x < _ASYMPTOTIC:  # ψ'(x) = ψ'(x + 1) + 1/x² (DLMF 5.15.5)
        shift += 1.0 / (x * x)
        x += 1.0
    # ψ'(x) ~ 1/x + 1/(2x²) + Σ B_2k / x^(2k+1) (DLMF 5.15.8)
    return shift + (1.0 + 0.5 / x + _even_series(x, _TRIGAMMA_SERIES)) / x


def tetragamma(x: float) -> float:
    """ψ''(x) of a real ``x``, not a pole: the derivative of ``trigamma``, for its rules (second derivatives).

    >>> round(tetragamma(1.0), 12)  # -2 ζ(3) (DLMF 5.15.2, 25.11.12)
    -2.404113806319
    """
    if not math.isfinite(x):
        return 0.0 if x > 0 else math.nan
    if x < 0.5:  # the reflection of trigamma differentiated: ψ''(x) - ψ''(1 - x) = -2π³ cos(πx) / sin³(πx)
        r = math.pi * _reduced(x)
        cosecant = 1.0 / math.sin(r)  # inf near a pole, where a cube of the sine would underflow to 0 first
        return tetragamma(1.0 - x) - 2 * math.pi**3 * math.cos(r) * cosecant * cosecant * cosecant
    shift = 0.0
    while x < _ASYMPTOTIC:  # ψ''(x) = ψ''(x + 1) - 2/x³ (DLMF 5.15.5)
        shift -= 2.0 / (x * x * x)
        x += 1.0
    # ψ''(x) ~ -1/x² - 1/x³ - Σ (2k + 1) B_2k / x^(2k+2): DLMF 5.15.8 differentiated
    return shift - (1.0 + 1.0 / x + _even_series(x, _TETRAGAMMA_SERIES)) / (x * x)


python_rule(digamma, lambda m, out, x: follow(trigamma, x))
python_rule(trigamma, lambda m, out, x: tetragamma(x))


MATH_SPECIAL: dict[Any, Any] = {
    math.erf: lambda m, out, x: _TWO_OVER_SQRT_PI * m.exp(-x * x),  # DLMF 7.2.1
    math.erfc: lambda m, out, x: -_TWO_OVER_SQRT_PI * m.exp(-x * x),  # erfc = 1 - erf (DLMF 7.2.2)
    math.gamma: lambda m, out, x: out * follow(digamma, x),  # Γ' = Γ ψ (DLMF 5.2.2)
    math.lgamma: lambda m, out, x: follow(digamma, x),  # log|Γ| has ψ for derivative on either sign of Γ
}
"""The ``math`` functions numpy has no ufunc for, and their derivatives: Python arithmetic on reals."""
for _f, _partials in MATH_SPECIAL.items():
    python_rule(_f, _partials)


def log_base(m: Any, out: Any, x: Any, base: Any) -> Any:
    """The partials of ``math.log(x, base) = log(x) / log(base)``."""
    ln_base = m.log(base)
    return 1 / (x * ln_base), -out / (base * ln_base)


python_rule(math.log, UNARY[np.log], object)
python_rule(math.log, log_base, object, object)


# ----- hypot of any number of coordinates -----


@rrule.register(math.hypot)
def _rrule_hypot(f: Any, *coordinates: Any) -> Any:
    out = follow(f, *coordinates)
    projects = [ProjectTo(x) for x in coordinates]

    def hypot_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, ())
        partials = [python_partials(hypot_partial, out, (x,)) for x in coordinates]
        return (NoTangent(), *(project(p * out_bar) for project, p in zip(projects, partials)))

    return out, hypot_pullback


@frule.register(math.hypot)
def _frule_hypot(tangents: tuple[Any, ...], f: Any, *coordinates: Any) -> Any:
    out = follow(f, *coordinates)
    terms = [
        python_partials(hypot_partial, out, (x,)) * x_dot
        for x, x_dot in zip(coordinates, checked_tangents(f, tangents, coordinates))
        if not isinstance(x_dot, AbstractZero) and not ProjectTo(x).is_no_tangent
    ]
    return out, tangent_from_terms(out, terms)
