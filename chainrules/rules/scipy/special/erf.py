"""Rules for the error functions of ``scipy.special``: ``erf``, ``erfc``, ``erfinv``, ``erfcinv``, ``erfcx``, ``erfi``,
``dawsn``, ``ndtr``, ``ndtri``, ``log_ndtr``.

One table, ``ERROR_FUNCTIONS``, registered with ``scalar_rule``; every entry
is holomorphic where scipy accepts complex input (all but the inverses).
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

TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
SQRT_PI_OVER_2 = math.sqrt(math.pi) / 2
SQRT_2PI = math.sqrt(2 * math.pi)
SQRT_2_OVER_PI = math.sqrt(2 / math.pi)

_ASYMPTOTIC = 20.0
"""Beyond this, 2 x erfcx(x) and 2 x dawsn(x) agree with 1 to ~1/x²: their derivatives come from a series."""


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


def _far_out(x: Any, positive_only: bool) -> Any:
    """Where a real ``x`` is beyond ``_ASYMPTOTIC`` (and positive, for erfcx): ``False`` for complex input."""
    if np.iscomplexobj(x):
        return np.zeros(np.shape(x), dtype=bool)
    return x >= _ASYMPTOTIC if positive_only else np.abs(x) >= _ASYMPTOTIC


def _erfcx_partial(m: Any, out: Any, x: Any) -> Any:
    # erfcx = exp(x²) erfc(x) (DLMF 7.2.3), so erfcx' = 2 x erfcx(x) - 2/sqrt(pi) (DLMF 7.10.1), which cancels for
    # large x (both terms near 2/sqrt(pi)): there the asymptotic series.
    far = _far_out(x, positive_only=True)
    direct = 2 * x * out - TWO_OVER_SQRT_PI
    if not np.any(far):
        return direct
    return np.where(far, _series(np.where(far, x, _ASYMPTOTIC), _ERFCX_SERIES) / math.sqrt(math.pi), direct)


def _dawsn_partial(m: Any, out: Any, x: Any) -> Any:
    # F(x) = exp(-x²) int_0^x exp(t²) dt (DLMF 7.2.5), so F' = 1 - 2 x F, which cancels for large |x|: a series there.
    far = _far_out(x, positive_only=False)
    direct = 1 - 2 * x * out
    if not np.any(far):
        return direct
    return np.where(far, _series(np.where(far, x, _ASYMPTOTIC), _DAWSN_SERIES), direct)


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
    # pdf(x) / ndtr(x) = sqrt(2/pi) / erfcx(-x / sqrt 2): no underflow of ndtr for x << 0 (pdf and ndtr as above)
    special.log_ndtr: lambda m, out, x: SQRT_2_OVER_PI / special.erfcx(-x / math.sqrt(2)),
}

for _f, _partials in ERROR_FUNCTIONS.items():
    scalar_rule(_f, functools.partial(_partials, np))
