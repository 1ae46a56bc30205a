"""Derivatives of numpy's special functions that numpy does not provide: sinc' and I1 (for i0' = I1).

Both are evaluated without scipy, which ``import chainrules`` never needs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core import follow, is_followed

_SMALL = 0.05
"""Below this |x|, sinc' comes from its Taylor series: the quotient (cos(pi x) - sinc(x)) / x cancels."""


def sinc_slope(x: Any) -> Any:
    """d/dx sin(pi x) / (pi x) = (cos(pi x) - sinc(x)) / x, and 0 at 0 (the limit).

    Near 0 the Taylor series
    ``-pi^2 x / 3 (1 - z / 10 + z^2 / 280 - z^3 / 15120 + z^4 / 1330560)``,
    ``z = (pi x)^2``, as ChainRules.jl's ``cosc`` does; truncating it at
    ``|x| < 0.05`` errs by less than 1e-16 relative.
    """
    small = np.abs(x) < _SMALL
    safe = np.where(small, 1, x)
    quotient = (np.cos(np.pi * safe) - np.sinc(safe)) / safe
    z = (np.pi * x) ** 2
    series = np.pi**2 / 3 * (0 - x) * (1 - z / 10 * (1 - z / 28 * (1 - z / 54 * (1 - z / 88))))  # 0 - x: +0 at 0
    return np.where(small, series, quotient)


# Chebyshev coefficients of exp(-x) I1(x) / x on [0, 8] and of exp(-x) sqrt(x) I1(x) on [8, inf), from the
# Cephes Math Library (S. L. Moshier, i1.c), the expansion numpy's own i0 uses for I0.
_I1_A = (
    2.77791411276104639959e-18,
    -2.11142121435816608115e-17,
    1.55363195773620046921e-16,
    -1.10559694773538630805e-15,
    7.60068429473540693410e-15,
    -5.04218550472791168711e-14,
    3.22379336594557470981e-13,
    -1.98397439776494371520e-12,
    1.17361862988909016308e-11,
    -6.66348972350202774223e-11,
    3.62559028155211703701e-10,
    -1.88724975172282928790e-9,
    9.38153738649577178388e-9,
    -4.44505912879632808065e-8,
    2.00329475355213526229e-7,
    -8.56872026469545474066e-7,
    3.47025130813767847674e-6,
    -1.32731636560394358279e-5,
    4.78156510755005422638e-5,
    -1.61760815825896745588e-4,
    5.12285956168575772895e-4,
    -1.51357245063125314899e-3,
    4.15642294431288815669e-3,
    -1.05640848946261981558e-2,
    2.47264490306265168283e-2,
    -5.29459812080949914269e-2,
    1.02643658689847095384e-1,
    -1.76416518357834055153e-1,
    2.52587186443633654823e-1,
)
_I1_B = (
    7.51729631084210481353e-18,
    4.41434832307170791151e-18,
    -4.65030536848935832153e-17,
    -3.20952592199342395980e-17,
    2.96262899764595013876e-16,
    3.30820231092092828324e-16,
    -1.88035477551078244854e-15,
    -3.81440307243700780478e-15,
    1.04202769841288027642e-14,
    4.27244001671195135429e-14,
    -2.10154184277266431302e-14,
    -4.08355111109219731823e-13,
    -7.19855177624590851209e-13,
    2.03562854414708950722e-12,
    1.41258074366137813316e-11,
    3.25260358301548823856e-11,
    -1.89749581235054123450e-11,
    -5.58974346219658380687e-10,
    -3.83538038596423702205e-9,
    -2.63146884688951950684e-8,
    -2.51223623787020892529e-7,
    -3.88256480887769039346e-6,
    -1.10588938762623716291e-4,
    -9.76109749136146840777e-3,
    7.78576235018280120474e-1,
)


def _chebyshev(y: Any, coefficients: tuple[float, ...]) -> Any:
    """Cephes' ``chbevl``: the Chebyshev series with these coefficients at ``y`` (Clenshaw's recurrence)."""
    b0, b1, b2 = np.zeros_like(y), np.zeros_like(y), np.zeros_like(y)
    for c in coefficients:
        b2, b1 = b1, b0
        b0 = y * b1 - b2 + c
    return 0.5 * (b0 - b2)


def bessel_i1(x: Any) -> Any:
    """The modified Bessel function of the first kind of order 1, odd in ``x``: the derivative of ``np.i0``.

    A value an AD engine follows goes through as one step, with the rules
    ``chainrules.rules.numpy.elementwise`` registers for this function.
    """
    if is_followed(x):
        return follow(bessel_i1, x)
    z = np.abs(np.asarray(x, dtype=np.result_type(x, np.float64)))
    near = _chebyshev(z / 2 - 2, _I1_A) * z
    far = _chebyshev(32 / np.maximum(z, 8) - 2, _I1_B) / np.sqrt(np.maximum(z, 8))
    with np.errstate(over="ignore"):  # exp(z) overflows where I1 does: inf, as numpy's i0 gives
        return np.sign(x) * np.exp(z) * np.where(z <= 8, near, far)
