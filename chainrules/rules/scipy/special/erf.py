"""Rules for the error functions of ``scipy.special``: ``erf``, ``erfc``, ``erfinv``, ``erfcinv``, ``erfcx``, ``erfi``,
``dawsn``, ``ndtr``, ``ndtri``, ``log_ndtr``, and Owen's T function ``owens_t(h, a)``.

One table, ``ERROR_FUNCTIONS``, registered with ``scalar_rule``; every entry
is holomorphic where scipy accepts complex input (all but the inverses).
``owens_t`` (real arguments only) differentiates its integral.
Imported when ``scipy.special`` is.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

from chainrules_core import scalar_rule
from chainrules_core.followed import is_followed, primal_of

TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
SQRT_PI_OVER_2 = math.sqrt(math.pi) / 2
SQRT_2PI = math.sqrt(2 * math.pi)
SQRT_2_OVER_PI = math.sqrt(2 / math.pi)

_ASYMPTOTIC = 20.0
"""Beyond this, 2 x erfcx(x) and 2 x dawsn(x) agree with 1 to ~1/x²: their derivatives come from a series.

The direct formulas lose ~x² units in the last place to that cancellation
(and ~2 x⁴ in their own derivative, an engine's second derivative); the ten
terms of the series below are within a unit in the last place of float64
from 20 on (the first term left out, 21!!/(2x²)^10, is 1e-19 there)."""
_ASYMPTOTIC_SINGLE = 5.0
"""The same for float32, whose precision the ten terms reach from 5 on (21!!/(2x²)^10 is 1.4e-7 of the first term
at 5, about 1e-7 of erfcx' and 3e-7 of dawsn'): the direct formulas lose at most ~25 units in the last place below
it, and their derivatives ~2 x⁴ of float32's 6e-8, 8e-5, not 20² and 2·20⁴ of them."""


def _series(x: Any, coefficients: tuple[float, ...]) -> Any:
    """``sum(c_n / x**(2n + 2))``, the asymptotic series below, by Horner's rule in 1/x²."""
    u = 1 / (x * x)
    total = 0 * u
    for c in reversed(coefficients):
        total = (total + c) * u
    return total


# -(2n + 1)!! / 2**n, n = 0..9: erfcx'(x) ~ sum(c_n x**(-2n - 2)) / sqrt(pi), from DLMF 7.12.1 differentiated.
_ERFCX_SERIES = tuple(-math.prod(range(1, 2 * n + 2, 2)) * (-0.5) ** n for n in range(10))
# -(2n + 1)!! / 2**(n + 1), n = 0..9: dawsn'(x) ~ sum(c_n x**(-2n - 2)), from DLMF 7.12.1 and 7.5.1 (F = sqrt(pi)/2
# exp(-x²) erfi(x)) differentiated.
_DAWSN_SERIES = tuple(-math.prod(range(1, 2 * n + 2, 2)) / 2 ** (n + 1) for n in range(10))


def _far_out(x: Any, positive_only: bool) -> tuple[Any, float]:
    """Where a real ``x`` is beyond the switch to the series (and positive, for erfcx), and the switch.

    ``False`` for complex input. The switch is ``_ASYMPTOTIC_SINGLE`` for
    float32, ``_ASYMPTOTIC`` otherwise; an engine's ``x`` is read off its
    plain value.
    """
    x = primal_of(x)
    if np.iscomplexobj(x):
        return np.zeros(np.shape(x), dtype=bool), _ASYMPTOTIC
    switch = _ASYMPTOTIC_SINGLE if getattr(x, "dtype", None) == np.float32 else _ASYMPTOTIC
    return (x >= switch if positive_only else np.abs(x) >= switch), switch


def _erfcx_partial(m: Any, out: Any, x: Any) -> Any:
    # erfcx = exp(x²) erfc(x) (DLMF 7.2.3), so erfcx' = 2 x erfcx(x) - 2/sqrt(pi) (DLMF 7.10.1), which cancels for
    # large x (both terms near 2/sqrt(pi)): there the asymptotic series.
    far, switch = _far_out(x, positive_only=True)
    direct = 2 * x * out - TWO_OVER_SQRT_PI
    if not np.any(far):
        return direct
    return np.where(far, _series(np.where(far, x, switch), _ERFCX_SERIES) / math.sqrt(math.pi), direct)


def _dawsn_partial(m: Any, out: Any, x: Any) -> Any:
    # F(x) = exp(-x²) int_0^x exp(t²) dt (DLMF 7.2.5), so F' = 1 - 2 x F, which cancels for large |x|: a series there.
    far, switch = _far_out(x, positive_only=False)
    direct = 1 - 2 * x * out
    if not np.any(far):
        return direct
    return np.where(far, _series(np.where(far, x, switch), _DAWSN_SERIES), direct)


def _log_ndtr_partial(x: Any) -> Any:
    """pdf(x) / ndtr(x) = sqrt(2/pi) / erfcx(-x / sqrt 2) (pdf and ndtr as below): no underflow of ndtr for x << 0.

    An engine differentiating that quotient at x > 0 meets pdf(x) / erfcx(-x / sqrt 2)², below float32's normal
    range from x ~ 9 on (1e-44 at 10) although pdf(x) / ndtr(x) is not: there an engine's real ``x`` gets the quotient
    as pdf(x) / ndtr(x), ndtr near 1, whose derivative -pdf/ndtr (x + pdf/ndtr) has no such intermediate.
    """
    if not is_followed(x) or np.iscomplexobj(primal_of(x)):
        return SQRT_2_OVER_PI / special.erfcx(-x / math.sqrt(2))
    right = primal_of(x) > 0
    left_x, right_x = np.where(right, 0.0, x), np.where(right, x, 0.0)  # each formula where it is meant
    on_the_left = SQRT_2_OVER_PI / special.erfcx(-left_x / math.sqrt(2))
    return np.where(right, np.exp(-right_x * right_x / 2) / SQRT_2PI / special.ndtr(right_x), on_the_left)


# ----- d(out)/dx given the output and the input; `m` is numpy -----
ERROR_FUNCTIONS: dict[Any, Callable[..., Any]] = {
    special.erf: lambda m, out, x: TWO_OVER_SQRT_PI * np.exp(-x * x),  # DLMF 7.10.1
    special.erfc: lambda m, out, x: -TWO_OVER_SQRT_PI * np.exp(-x * x),
    special.erfinv: lambda m, out, x: SQRT_PI_OVER_2 * np.exp(out * out),  # the inverse's: +inf at ±1
    special.erfcinv: lambda m, out, x: -SQRT_PI_OVER_2 * np.exp(out * out),  # -inf at 0 and 2
    special.erfcx: _erfcx_partial,
    special.erfi: lambda m, out, x: TWO_OVER_SQRT_PI * np.exp(x * x),  # erfi(z) = -i erf(iz) (DLMF 7.2.1)
    special.dawsn: _dawsn_partial,
    special.ndtr: lambda m, out, x: np.exp(-x * x / 2) / SQRT_2PI,  # ndtr(x) = erfc(-x / sqrt 2) / 2 (DLMF 7.2.2)
    special.ndtri: lambda m, out, x: SQRT_2PI * np.exp(out * out / 2),  # the inverse's: +inf at 0 and 1
    special.log_ndtr: lambda m, out, x: _log_ndtr_partial(x),
}

for _f, _partials in ERROR_FUNCTIONS.items():
    scalar_rule(_f, functools.partial(_partials, np))


def _owens_t_partials(out: Any, h: Any, a: Any) -> tuple[Any, Any]:
    """Owen's T(h, a) = 1/(2 pi) int_0^a exp(-h² (1 + t²)/2) / (1 + t²) dt (Owen 1956, "Tables for computing
    bivariate normal probabilities", eq. 2.1), differentiated under the integral: dT/da is the integrand at a,
    dT/dh = -h/(2 pi) int_0^a exp(-h² (1 + t²)/2) dt = -exp(-h²/2) erf(a h / sqrt 2) / (2 sqrt(2 pi)) (DLMF 7.2.1).
    Both tend to 0 at an infinite h; at an infinite a, dT/da is 0 and dT/dh = -exp(-h²/2) sign(h) / (2 sqrt(2 pi))."""
    with np.errstate(over="ignore", invalid="ignore"):
        h_dot = -np.exp(-h * h / 2) * special.erf(a * h / math.sqrt(2)) / (2 * SQRT_2PI)
        a_dot = np.exp(-h * h * (1 + a * a) / 2) / (2 * np.pi * (1 + a * a))
    h_dot = np.where(np.isinf(h), 0.0, h_dot)  # exp(-inf) erf(...) with erf(0 * inf) = nan at a = 0
    return h_dot, np.where(np.isinf(a) & ~np.isnan(h), 0.0, a_dot)


scalar_rule(special.owens_t, _owens_t_partials)
