"""Derivatives of scipy.special's functions in their parameters, by series and continued fractions.

``gammainc_da(a, x)`` is dP(a, x)/da, ``betainc_da(a, b, x)`` and
``betainc_db(a, b, x)`` are dI_x(a, b)/da and /db, ``hyp1f1_dparam(k, a, b,
x)`` and ``hyp2f1_dparam(k, a, b, c, x)`` the derivatives of 1F1 and 2F1 in
their k-th parameter: series and continued fractions differentiated term by
term. ``gamma.py`` and ``hypergeometric.py`` take the partials of
``gammainc``, ``gammaincc``, ``betainc``, ``hyp1f1`` and ``hyp2f1`` from
them, and register rules for each (``bound_rule``): an engine
differentiating a pullback (second order) follows one call, whose partials
are the same sums carried to second derivatives and closed forms in ``x``,
not thousands of steps of a loop. The second-order checks of those
functions differentiate their pullbacks, and so check these rules; the
tests hold them to mpmath.

The sums run in float64 (complex128), whatever the input's precision, and
stop where every entry's last change is below ``EPS`` of it; where
``MAX_TERMS`` do not reach that, the derivative is NaN (near ``x = a``
from ``a ~ 5e4`` on; near ``x = a / (a + b)`` from ``a + b ~ 1e6``; the
hypergeometric series beyond ``HYP_REACH``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

from chainrules_core.followed import follow, is_followed

EPS = 1e-15
MAX_TERMS = 2000
_PAIRS = {1: ((0, 0),), 2: ((0, 0), (0, 1), (1, 1))}
"""The entries (i, j), i <= j, of a symmetric matrix of second derivatives in one or two parameters."""

# A value, its derivatives in k parameters stacked along a first axis, and its second derivatives (the pairs
# _PAIRS[k]) likewise, or None where they are not wanted.
Jet = tuple[Any, Any, Any]


def _remember_last(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` answering a call with the same arguments as the last one from memory: the partials of one
    parameter's derivative and of the next ask for the same sums (an engine's second derivatives)."""
    last: list[Any] = [None, None]

    def remembering(*args: Any, **options: Any) -> Any:
        key = (
            tuple((a.dtype.str, a.shape, a.tobytes()) if isinstance(a, np.ndarray) else (type(a), a) for a in args),
            tuple(sorted(options.items())),
        )
        if last[0] != key:
            last[:] = [key, method(*args, **options)]
        return last[1]

    remembering.__name__ = remembering.__qualname__ = method.__name__
    remembering.__doc__ = method.__doc__
    return remembering


def _floats(*values: Any) -> tuple[Any, ...]:
    return tuple(np.asarray(v, dtype=np.result_type(v, np.float64)) for v in values)


def _settled(change: Any, size: Any, eps: float) -> Any:
    """Where ``|change| <= eps size``; NaN counts as settled (it stays NaN).

    A derivative enters the result divided by (or beside) the value it is a derivative of: its size is the larger
    of its own and that value's, so that it settles where it is near 0.
    """
    return ~(np.abs(change) > eps * size)


def _continued_fraction(
    b0: Any, db0: Any, term: Callable[[int], tuple[Jet, Jet]], k: int, second: bool, eps: float
) -> tuple[Jet, Any]:
    """``f = b0 + a1/(b1 + a2/(b2 + ...))`` with its derivatives in k parameters (and second derivatives), and where
    it settled.

    A jet is a value, its derivatives stacked along a first axis of length k
    and its second derivatives (the pairs ``_PAIRS[k]``) along one of length
    1 or 3. ``term(n)`` gives the jets of ``a_n`` and ``b_n``. The
    convergents ``A_n / B_n`` follow ``A_n = b_n A_(n-1) + a_n A_(n-2)``,
    likewise ``B_n`` (DLMF 1.12.5), and their derivatives the same
    recurrence differentiated (the product rule); with ``A = f B``,
    ``f_i = (A_i - f B_i) / B`` and ``f_ij = (A_ij - f_i B_j - f_j B_i - f B_ij) / B``.
    ``A`` and ``B`` are stacked too, and every step divides both by ``|B_n|``,
    which none of the quotients sees.
    """
    i, j = (np.array(side) for side in zip(*_PAIRS[k]))
    shape = np.shape(b0)
    # [A, B] two deep: (value, derivatives, second derivatives) of the convergents n - 2 and n - 1
    old = (np.stack([np.ones(shape), np.zeros(shape)]), np.zeros((2, k, *shape)), np.zeros((2, len(i), *shape)))
    new = (np.stack([b0, np.ones(shape)]), np.stack([db0, np.zeros((k, *shape))]), np.zeros((2, len(i), *shape)))
    f, df, hf = b0, db0, np.zeros((len(i), *shape))
    settled = np.zeros(shape, dtype=bool)
    for n in range(1, MAX_TERMS + 1):
        (av, ad, ah), (bv, bd, bh) = term(n)
        (c0, d0, h0), (c1, d1, h1) = old, new
        value = bv * c1 + av * c0
        d = bd * c1[:, None] + bv * d1 + ad * c0[:, None] + av * d0
        h = h1
        if second:
            h = (
                bh * c1[:, None] + bd[i] * d1[:, j] + bd[j] * d1[:, i] + bv * h1
                + ah * c0[:, None] + ad[i] * d0[:, j] + ad[j] * d0[:, i] + av * h0
            )  # fmt: skip
        scale = np.abs(value[1])
        scale = 1 / np.where((scale == 0) | ~np.isfinite(scale), 1.0, scale)
        old, new = (c1 * scale, d1 * scale, h1 * scale), (value * scale, d * scale, h * scale)
        (av, bv), (ad, bd), (ah, bh) = new
        new_f = av / bv
        new_df = (ad - new_f * bd) / bv
        size = np.abs(new_f)
        done = _settled(new_f - f, size, eps) & np.all(_settled(new_df - df, np.maximum(np.abs(new_df), size), eps), 0)
        if second:
            new_hf = (ah - new_df[i] * bd[j] - new_df[j] * bd[i] - new_f * bh) / bv
            done &= np.all(_settled(new_hf - hf, np.maximum(np.abs(new_hf), size), eps), 0)
            hf = new_hf
        f, df, settled = new_f, new_df, done
        if np.all(settled):
            break
    return (f, df, hf if second else None), settled


def _either(where: Any, method: Callable[..., Any], *args: tuple[Any, float], second: bool, eps: float) -> Any:
    """``method`` at each ``(argument, placeholder)``'s argument where ``where`` holds and at the placeholder elsewhere
    (a point where it settles in a few terms); where it holds nowhere, at the placeholders alone, one entry."""
    if not np.any(where):
        return method(*(np.asarray(placeholder) for _, placeholder in args), second=second, eps=eps)
    return method(*(np.where(where, value, placeholder) for value, placeholder in args), second=second, eps=eps)


def _gamma_series(a: Any, x: Any, second: bool, eps: float) -> tuple[Any, Any, Any]:
    """dP/da and d²P/da² by the series P = x^a e^-x / Gamma(a + 1) sum(c_n), c_n = x^n / ((a+1)...(a+n))
    (DLMF 8.7.1, 8.2.4), differentiated term by term: c_n = c_(n-1) r_n, r_n = x / (a + n), r_n' = -r_n / (a + n),
    r_n'' = 2 r_n / (a + n)². Meant for x < a + 1, where it converges fast."""
    c, dc, hc = 1.0 + 0 * a, 0 * a, 0 * a
    s, ds, hs = c, dc, hc
    settled = np.zeros(np.shape(a), dtype=bool)
    for n in range(1, MAX_TERMS + 1):
        r = x / (a + n)
        dr = -r / (a + n)
        c, dc, hc = c * r, dc * r + c * dr, hc * r + 2 * dc * dr - 2 * c * dr / (a + n)
        s, ds, hs = s + c, ds + dc, hs + hc
        size = np.abs(s)
        settled = _settled(c, size, eps) & _settled(dc, np.maximum(np.abs(ds), size), eps)
        if second:
            settled &= _settled(hc, np.maximum(np.abs(hs), size), eps)
        if np.all(settled):
            break
    # the prefactor x^a e^-x / Gamma(a + 1) = e^G: G' = log x - psi(a + 1) = L, G'' = -psi'(a + 1)
    log_x = np.log(x)
    prefactor = np.exp(a * log_x - x - special.gammaln(a + 1))
    slope = log_x - special.psi(a + 1)
    d1 = prefactor * (slope * s + ds)
    d2 = prefactor * ((slope * slope - special.polygamma(1, a + 1)) * s + 2 * slope * ds + hs) if second else None
    return d1, d2, settled


def _gamma_fraction(a: Any, x: Any, second: bool, eps: float) -> tuple[Any, Any, Any]:
    """dP/da = -dQ/da and its derivative in a by Legendre's continued fraction
    Q = x^a e^-x / (Gamma(a) f), f = x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...) (DLMF 8.9.2, Numerical
    Recipes 6.2.7), for x >= a + 1. With 1/Gamma(a) = a / Gamma(a + 1) (DLMF 5.5.1), finite down to a = 0:
    Q = a e^(G - log f), G = a log x - x - log Gamma(a + 1), so Q' = e^(G - log f) (1 + a L) and
    Q'' = e^(G - log f) (2 L + a L² + a L'), L = log x - psi(a + 1) - f'/f, L' = -psi'(a + 1) - f''/f + (f'/f)²."""
    ones, zeros = np.ones((1, *np.shape(a))), np.zeros((1, *np.shape(a)))

    def legendre(n: int) -> tuple[Jet, Jet]:
        return (n * (a - n), n * ones, zeros), (x + (2 * n + 1) - a, -ones, zeros)

    (f, (df,), hf), settled = _continued_fraction(x + 1 - a, -ones, legendre, 1, second, eps)
    log_x = np.log(x)
    base = np.exp(a * log_x - x - special.gammaln(a + 1)) / f
    slope = log_x - special.psi(a + 1) - df / f
    d1 = -base * (1 + a * slope)
    d2 = None
    if second:
        assert hf is not None
        slope_a = -special.polygamma(1, a + 1) - hf[0] / f + (df / f) ** 2
        d2 = -base * (slope * (1 + a * slope) + slope + a * slope_a)
    return d1, d2, settled


@_remember_last
def _gamma_shape(a: Any, x: Any, second: bool) -> tuple[Any, Any]:
    """dP(a, x)/da (and d²P/da²), a >= 0, x >= 0: where x < a + 1 the series, elsewhere the continued fraction, as
    Numerical Recipes 6.2 divides the plane for P itself (JAX's ``igamma_grad_a``, jax/_src/lax/special.py, after
    TensorFlow, splits nearly alike: the series where x <= 1 or x <= a). 0 where P is constant: x = 0, x = inf,
    a = inf, and where the prefactor x^a e^-x / Gamma(a + 1), times a polynomial in a and log x, is below float64's
    range."""
    a, x = _floats(a, x)
    eps = EPS
    with np.errstate(all="ignore"):
        log_prefactor = a * np.log(x) - x - special.gammaln(a + 1)
        invalid = ~((a >= 0) & (x >= 0))  # NaN too
        constant = ((x == 0) | (x == np.inf) | (a == np.inf) | _vanishes(log_prefactor, a, x)) & ~invalid
        series = (x < a + 1) & ~constant & ~invalid
        fraction = ~series & ~constant & ~invalid
        # each side where it is meant, elsewhere a point where it settles in a few terms
        s1, s2, s_ok = _either(series, _gamma_series, (a, 1.0), (x, 0.01), second=second, eps=eps)
        f1, f2, f_ok = _either(fraction, _gamma_fraction, (a, 1.0), (x, 50.0), second=second, eps=eps)

    def pick(s: Any, f: Any) -> Any:
        chosen = np.where(series, np.where(s_ok, s, np.nan), np.where(f_ok, f, np.nan))
        return np.where(invalid, np.nan, np.where(constant, 0.0, chosen))

    return pick(s1, f1), (pick(s2, f2) if second else None)


def gammainc_da(a: Any, x: Any) -> Any:
    """dP(a, x)/da, the derivative of ``scipy.special.gammainc`` in ``a``; -d/da of ``gammaincc``.

    An engine's values go through as one step, with this function's rules.
    """
    if is_followed(a) or is_followed(x):
        return follow(gammainc_da, a, x)
    return _gamma_shape(a, x, second=False)[0]


def gammainc_da_partials(out: Any, a: Any, x: Any) -> tuple[Any, Any]:
    """d²P/da² by the sums of ``_gamma_shape``, and d²P/da dx = d/da [x^(a-1) e^-x / Gamma(a)]
    = x^(a-1) e^-x / Gamma(a + 1) (1 + a (log x - psi(a + 1))) (DLMF 8.8.13 differentiated; 5.5.1-2)."""
    second = _gamma_shape(a, x, second=True)[1]
    a, x = _floats(a, x)
    with np.errstate(all="ignore"):
        log_x = np.log(x)
        mixed = np.exp((a - 1) * log_x - x - special.gammaln(a + 1)) * (1 + a * (log_x - special.psi(a + 1)))
    return second, np.where((x == np.inf) | (a == np.inf), 0.0, mixed)


def _log_beta(p: Any, q: Any) -> Any:
    """log B(p, q) for p >= 1, q > 0: scipy's betaln, which overflows for a subnormal q (as its gammaln does);
    there log Gamma(p) + log Gamma(q + 1) - log q - log Gamma(p + q) (DLMF 5.12.1, 5.5.1)."""
    with np.errstate(divide="ignore"):
        small = special.gammaln(p) + special.gammaln(q + 1) - np.log(q) - special.gammaln(p + q)
    return np.where(q < 1e-300, small, special.betaln(p, q))


def _vanishes(log_prefactor: Any, size: Any, x: Any) -> Any:
    """Where ``prefactor * (a polynomial in the parameters and log x)`` is below float64's range: the derivative is
    0, and the sums are not evaluated (at 1e300 they would overflow)."""
    with np.errstate(all="ignore"):
        return log_prefactor + 3 * np.log1p(size) + np.log1p(np.abs(np.log(x))) < -760


def _beta_fraction(a: Any, b: Any, x: Any, second: bool, eps: float) -> tuple[Any, Any, Any]:
    """The derivatives of I_x(a, b) in (a, b), and the second ones (aa, ab, bb), by the continued fraction
    I = x^a (1-x)^b / (a B(a, b) f), f = 1 + d1/(1 + d2/(1 + ...)) (DLMF 8.17.22), for x < (a+1)/(a+b+2), where it
    converges fast (Numerical Recipes 6.4): d_2m = m (b - m) x / ((a + 2m - 1)(a + 2m)),
    d_2m+1 = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)).

    log I = G - log f, G = a log x + b log(1-x) - log(a B(a, b)), with a B(a, b) = (a + b) B(a + 1, b) (DLMF
    5.12.1) finite for subnormal a: G_a = log x - psi(a + 1) + psi(a + b), G_b = log(1-x) - psi(b) + psi(a + b),
    where psi(a + b) - psi(b) = psi(a + b + 1) - psi(b + 1) + a / (b (a + b)) (DLMF 5.5.2), no inf - inf as
    a, b -> 0; G_aa = psi'(a + b) - psi'(a + 1), G_ab = psi'(a + b), G_bb = psi'(a + b) - psi'(b).
    I_i = I l_i and I_ij = I (l_i l_j + l_ij), l = log I.
    """
    zero = np.zeros(np.shape(a))
    one = (1.0, np.zeros((2, *zero.shape)), np.zeros((3, *zero.shape)))

    def term(n: int) -> tuple[Jet, Jet]:
        m = n // 2
        if n % 2 == 0:
            p, q = a + 2 * m - 1, a + 2 * m
            u, w = 1 / p + 1 / q, 1 / (p * p) + 1 / (q * q)
            d = m * ((b - m) / q) * (x / p)
            d_b = m * (x / p) / q
            second_d = np.stack([d * (u * u + w), -d_b * u, zero]) if second else None
            return (d, np.stack([-d * u, d_b]), second_d), one
        p, q = a + 2 * m, a + 2 * m + 1
        u, w = 1 / p + 1 / q, 1 / (p * p) + 1 / (q * q)
        # d = N / (p q), N = -(a + m)(a + b + m) x
        d = -((a + m) / p) * ((a + b + m) / q) * x
        n_a, n_b = -((2 * a + b + 2 * m) / p) * (x / q), -((a + m) / p) * (x / q)
        second_d = None
        if second:
            d_aa = -2 * (x / p) / q - 2 * n_a * u + d * (u * u + w)
            second_d = np.stack([d_aa, -(x / p) / q - n_b * u, zero])
        return (d, np.stack([n_a - d * u, n_b]), second_d), one

    (f, (fa, fb), hf), settled = _continued_fraction(1.0 + zero, np.zeros((2, *zero.shape)), term, 2, second, eps)
    log_x, log_1mx = np.log(x), np.log1p(-x)
    value = np.exp(a * log_x + b * log_1mx - _log_beta(a + 1, b) - np.log(a + b)) / f
    la = log_x - special.psi(a + 1) + special.psi(a + b) - fa / f
    lb = log_1mx + special.psi(a + b + 1) - special.psi(b + 1) + a / (a + b) / b - fb / f
    first = (value * la, value * lb)
    if not second:
        return first, None, settled
    assert hf is not None
    t_ab = special.polygamma(1, a + b)
    laa = t_ab - special.polygamma(1, a + 1) - hf[0] / f + (fa / f) ** 2
    lab = t_ab - hf[1] / f + fa * fb / f**2
    lbb = t_ab - special.polygamma(1, b) - hf[2] / f + (fb / f) ** 2
    return first, (value * (la * la + laa), value * (la * lb + lab), value * (lb * lb + lbb)), settled


@_remember_last
def _beta_shapes(a: Any, b: Any, x: Any, second: bool) -> tuple[tuple[Any, Any], Any]:
    """dI_x(a, b)/da and /db (and the second derivatives aa, ab, bb), a, b > 0, 0 <= x <= 1: the continued fraction
    where x < (a + 1)/(a + b + 2), elsewhere I_x(a, b) = 1 - I_(1-x)(b, a) (DLMF 8.17.4). 0 where I is constant:
    x = 0, x = 1, an infinite a or b, and where the prefactor is below float64's range."""
    a, b, x = _floats(a, b, x)
    eps = EPS
    with np.errstate(all="ignore"):
        direct = x < (a + 1) / (a + b + 2)
        p, q = np.where(direct, a, b), np.where(direct, b, a)
        log_prefactor = special.xlogy(a, x) + special.xlog1py(b, -x) - _log_beta(p + 1, q) - np.log(p + q)
        invalid = ~((a >= 0) & (b >= 0) & (x >= 0) & (x <= 1))  # NaN too
        constant = (x == 0) | (x == 1) | (a == np.inf) | (b == np.inf) | _vanishes(log_prefactor, a + b, x)
        constant &= ~invalid
        direct = direct & ~constant & ~invalid
        swapped = ~direct & ~constant & ~invalid
        (da, db), h, ok = _either(direct, _beta_fraction, (a, 1.0), (b, 1.0), (x, 0.01), second=second, eps=eps)
        # the swapped fraction's parameters are (b, a): its first derivative is in b, its aa entry is bb
        (sdb, sda), sh, sok = _either(
            swapped, _beta_fraction, (b, 1.0), (a, 1.0), (1 - x, 0.01), second=second, eps=eps
        )

    def pick(direct_value: Any, swapped_value: Any) -> Any:
        chosen = np.where(direct, np.where(ok, direct_value, np.nan), np.where(sok, -swapped_value, np.nan))
        return np.where(invalid, np.nan, np.where(constant, 0.0, chosen))

    first = (pick(da, sda), pick(db, sdb))
    if not second:
        return first, None
    assert h is not None and sh is not None
    return first, (pick(h[0], sh[2]), pick(h[1], sh[1]), pick(h[2], sh[0]))


def betainc_da(a: Any, b: Any, x: Any) -> Any:
    """dI_x(a, b)/da, the derivative of ``scipy.special.betainc`` in ``a``; an engine's values go through as one
    step, with this function's rules."""
    if is_followed(a) or is_followed(b) or is_followed(x):
        return follow(betainc_da, a, b, x)
    return _beta_shapes(a, b, x, second=False)[0][0]


def betainc_db(a: Any, b: Any, x: Any) -> Any:
    """dI_x(a, b)/db, the derivative of ``scipy.special.betainc`` in ``b``, as ``betainc_da``."""
    if is_followed(a) or is_followed(b) or is_followed(x):
        return follow(betainc_db, a, b, x)
    return _beta_shapes(a, b, x, second=False)[0][1]


def betainc_dab(a: Any, b: Any, x: Any) -> tuple[Any, Any]:
    """Both of them, by one evaluation of the sums where no engine follows the arguments."""
    if is_followed(a) or is_followed(b) or is_followed(x):
        return betainc_da(a, b, x), betainc_db(a, b, x)
    return _beta_shapes(a, b, x, second=False)[0]


def _beta_mixed(a: Any, b: Any, x: Any) -> tuple[Any, Any]:
    """d/da and d/db of the density x^(a-1) (1-x)^(b-1) / B(a, b) = d²I/dx da and d²I/dx db: the density times
    log x - psi(a) + psi(a + b) and log(1-x) - psi(b) + psi(a + b) (DLMF 8.17.2, 5.12.1); 0 at an infinite a or b."""
    a, b, x = _floats(a, b, x)
    with np.errstate(all="ignore"):
        density = np.exp(special.xlogy(a - 1, x) + special.xlog1py(b - 1, -x) - special.betaln(a, b))
        psi_ab = special.psi(a + b)
        constant = (a == np.inf) | (b == np.inf)  # I is 0 or 1 inside (0, 1)
        mixed_a = np.where(constant, 0.0, density * (np.log(x) - special.psi(a) + psi_ab))
        return mixed_a, np.where(constant, 0.0, density * (np.log1p(-x) - special.psi(b) + psi_ab))


def betainc_da_partials(out: Any, a: Any, b: Any, x: Any) -> tuple[Any, Any, Any]:
    (_, second) = _beta_shapes(a, b, x, second=True)
    return second[0], second[1], _beta_mixed(a, b, x)[0]


def betainc_db_partials(out: Any, a: Any, b: Any, x: Any) -> tuple[Any, Any, Any]:
    (_, second) = _beta_shapes(a, b, x, second=True)
    return second[1], second[2], _beta_mixed(a, b, x)[1]


# ----- hypergeometric series in their parameters -----


def _pairs(k: int) -> tuple[Any, Any]:
    pairs = [(i, j) for i in range(k) for j in range(i, k)]
    return np.array([i for i, _ in pairs]), np.array([j for _, j in pairs])


def _jet_product(left: Jet, right: Jet, pairs: tuple[Any, Any] | None) -> Jet:
    """The product of two jets: (f g)' = f' g + f g', (f g)'' = f'' g + f'_i g'_j + f'_j g'_i + f g''."""
    (v1, d1, h1), (v2, d2, h2) = left, right
    h = None
    if pairs is not None:
        i, j = pairs
        h = v1 * h2 + v2 * h1 + d1[i] * d2[j] + d1[j] * d2[i]
    return v1 * v2, v1 * d2 + v2 * d1, h


def hypergeometric_series(
    upper: tuple[Any, ...], lower: tuple[Any, ...], x: Any, second: bool, eps: float
) -> tuple[Jet, Any]:
    """``pFq(upper; lower; x) = sum (u_1)_n ... (u_p)_n / ((l_1)_n ... (l_q)_n) x^n / n!`` (DLMF 16.2.1) with its
    derivatives in the parameters (upper, then lower) and, with ``second``, its second derivatives (pairs i <= j),
    and where the sum settled.

    Each term is the last times ``r_n = prod(u + n - 1) / prod(l + n - 1) x / n``, differentiated by the product
    rule: the factor ``u + n - 1`` has derivative 1 in its own parameter, ``1 / (l + n - 1)`` has ``-1/(l + n - 1)²``
    and ``2/(l + n - 1)³``. No division by ``u + n - 1``, so a nonpositive integer upper parameter (a polynomial)
    keeps its derivatives. Meant for ``|x| < 1`` (2F1) or x >= 0 (1F1): the sum stops where its terms, and their
    derivatives, are below ``eps`` of the sums.
    """
    params = (*upper, *lower)
    k = len(params)
    shape = np.broadcast(*params, x).shape
    pairs = _pairs(k) if second else None
    n_pairs = len(pairs[0]) if pairs is not None else 0
    unit = np.eye(k).reshape((k, k, *(1,) * len(shape)))
    zero_d, zero_h = np.zeros((k, *shape)), (np.zeros((n_pairs, *shape)) if second else None)
    term: Jet = (np.ones(shape, dtype=np.result_type(x, float)), zero_d, zero_h)
    total = term
    settled = np.zeros(shape, dtype=bool)
    for n in range(1, MAX_TERMS + 1):
        ratio: Jet = (x / n + np.zeros(shape), zero_d, zero_h)
        for i, u in enumerate(upper):
            ratio = _jet_product(ratio, (u + (n - 1), unit[i], zero_h), pairs)
        for i, low in enumerate(lower, start=len(upper)):
            g = 1 / (low + (n - 1))
            h = None
            if second:
                assert pairs is not None
                h = np.where((pairs[0] == i) & (pairs[1] == i), 2.0, 0.0).reshape((n_pairs, *(1,) * len(shape)))
                h = h * g**3
            ratio = _jet_product(ratio, (g, -unit[i] * g * g, h), pairs)
        term = _jet_product(term, ratio, pairs)
        total = (total[0] + term[0], total[1] + term[1], None if not second else total[2] + term[2])
        size = np.abs(total[0])
        done = _settled(term[0], size, eps) & np.all(_settled(term[1], np.maximum(np.abs(total[1]), size), eps), 0)
        if second:
            done &= np.all(_settled(term[2], np.maximum(np.abs(total[2]), size), eps), 0)
        settled = done
        if np.all(settled):
            break
    return total, settled


HYP_REACH = 800.0
"""How far the hypergeometric series go: 1F1 while its largest term comes before this many (at
n ~ (|x| + sqrt(x² + 4 |a x|)) / 2), 2F1 while |a| + |b| + |c| is below it. Beyond, the derivatives in the parameters
are NaN: they would need the asymptotic expansions (DLMF 13.7, 15.12)."""


@_remember_last
def _hyp1f1_jet(a: Any, b: Any, x: Any, second: bool) -> tuple[Jet, Any]:
    """M(a, b, x) = 1F1(a; b; x) with its derivatives in (a, b): the series for Re(x) >= 0, and for Re(x) < 0
    Kummer's transformation M(a, b, x) = e^x M(b - a, b, -x) (DLMF 13.2.39), whose terms do not cancel:
    with N(alpha, beta) = M(alpha, beta, -x), alpha = b - a, M_a = -e^x N_alpha, M_b = e^x (N_alpha + N_beta),
    M_aa = e^x N_aa, M_ab = -e^x (N_aa + N_ab), M_bb = e^x (N_aa + 2 N_ab + N_bb) (alpha, beta written a, b).
    NaN beyond ``HYP_REACH``."""
    a, b, x = _floats(a, b, x)
    eps = EPS
    left = np.real(x) < 0
    # within reach of 2000 terms: the terms grow while |(a + n) x| > |(b + n) n|, up to n ~ (|x| + sqrt(x² + 4 |a x|))
    # / 2, and fall from there at least as fast as they grew
    with np.errstate(all="ignore"):
        size = np.abs(x)
        reach = (size + np.sqrt(size * size + 4 * size * np.abs(np.where(left, b - a, a)))) / 2 < HYP_REACH
        # M(a, b, x) -> 1 as b -> inf, its derivatives -> 0 (each term but the first has (b)_n below)
        far = (np.abs(b) == np.inf) & np.isfinite(a) & np.isfinite(x)
    x = np.where(reach, x, 0.0)
    if np.any(far):
        (v, d, h), settled = _hyp1f1_jet(np.where(far, 1.0, a), np.where(far, 1.0, b), x, second)
        jet = (v, np.where(far, 0.0, d), None if h is None else np.where(far, 0.0, h))
        return jet, (settled & reach) | far
    if not np.any(left):
        jet, settled = hypergeometric_series((a,), (b,), x, second, eps)
        return jet, settled & reach
    (v, d, h), settled = hypergeometric_series((np.where(left, b - a, a),), (b,), np.where(left, -x, x), second, eps)
    settled &= reach
    e = np.where(left, np.exp(x), 1.0)
    d = np.stack([np.where(left, -e * d[0], d[0]), np.where(left, e * (d[0] + d[1]), d[1])])
    if second:
        assert h is not None
        aa, ab, bb = h
        h = np.stack(
            [np.where(left, e * aa, aa), np.where(left, -e * (aa + ab), ab), np.where(left, e * (aa + 2 * ab + bb), bb)]
        )
    return (e * v, d, h), settled


def _settled_or_nan(values: Any, settled: Any) -> Any:
    return np.where(settled, values, np.nan)


def hyp1f1_dparam(k: int, a: Any, b: Any, x: Any) -> Any:
    """d/da (k = 0) or d/db (k = 1) of ``scipy.special.hyp1f1(a, b, x)``, by ``_hyp1f1_jet``; NaN where 2000 terms
    do not settle. An engine's values go through as one step, with this function's rules."""
    if is_followed(a) or is_followed(b) or is_followed(x):
        return follow(hyp1f1_dparam, k, a, b, x)
    (_, d, _), settled = _hyp1f1_jet(a, b, x, second=False)
    return _settled_or_nan(d[k], settled)


def hyp1f1_dparam_partials(out: Any, k: Any, a: Any, b: Any, x: Any) -> tuple[Any, ...]:
    """The second derivatives in (a, b) by the same series, and in x: d/dx M = (a/b) M(a + 1, b + 1, x) (DLMF
    13.3.15) differentiated in the parameter, (d/dk (a/b)) M(a + 1, b + 1, x) + (a/b) M_k(a + 1, b + 1, x)."""
    k = int(k)
    (_, _, h), settled = _hyp1f1_jet(a, b, x, second=True)
    assert h is not None
    a, b, x = _floats(a, b, x)
    (_, shifted, _), shifted_settled = _hyp1f1_jet(a + 1, b + 1, x, second=False)
    ratio_slope = 1 / b if k == 0 else -a / (b * b)
    in_x = ratio_slope * special.hyp1f1(a + 1, b + 1, x) + a / b * shifted[k]
    in_a, in_b = (h[0], h[1]) if k == 0 else (h[1], h[2])
    return 0.0, _settled_or_nan(in_a, settled), _settled_or_nan(in_b, settled), _settled_or_nan(in_x, shifted_settled)


@_remember_last
def _hyp2f1_jet(a: Any, b: Any, c: Any, x: Any, second: bool) -> tuple[Jet, Any]:
    """2F1(a, b; c; x) with its derivatives in (a, b, c) by the series (DLMF 15.2.1), for |x| <= 0.95 and
    |a| + |b| + |c| < ``HYP_REACH``, where 2000 terms settle it; NaN elsewhere."""
    a, b, c, x = _floats(a, b, c, x)
    eps = EPS
    with np.errstate(all="ignore"):
        inside = (np.abs(x) <= 0.95) & (np.abs(a) + np.abs(b) + np.abs(c) < HYP_REACH)
        # F(a, b; c; x) -> 1 as c -> inf, its derivatives -> 0 (each term but the first has (c)_n below)
        far = (np.abs(c) == np.inf) & np.isfinite(a) & np.isfinite(b) & (np.abs(x) <= 0.95)
    (v, d, h), settled = hypergeometric_series((a, b), (c,), np.where(inside, x, 0.0), second, eps)
    jet = (v, np.where(far, 0.0, d), None if h is None else np.where(far, 0.0, h))
    return jet, (settled & inside) | far


def hyp2f1_dparam(k: int, a: Any, b: Any, c: Any, x: Any) -> Any:
    """d/da, d/db or d/dc (k = 0, 1, 2) of ``scipy.special.hyp2f1(a, b, c, x)``, by ``_hyp2f1_jet``. An engine's
    values go through as one step, with this function's rules."""
    if is_followed(a) or is_followed(b) or is_followed(c) or is_followed(x):
        return follow(hyp2f1_dparam, k, a, b, c, x)
    (_, d, _), settled = _hyp2f1_jet(a, b, c, x, second=False)
    return _settled_or_nan(d[k], settled)


def hyp2f1_dparam_partials(out: Any, k: Any, a: Any, b: Any, c: Any, x: Any) -> tuple[Any, ...]:
    """The second derivatives in (a, b, c) by the same series, and in x: d/dx F = (a b / c) F(a+1, b+1; c+1; x)
    (DLMF 15.5.1) differentiated in the parameter, as for ``hyp1f1_dparam_partials``."""
    k = int(k)
    (_, _, h), settled = _hyp2f1_jet(a, b, c, x, second=True)
    assert h is not None
    a, b, c, x = _floats(a, b, c, x)
    (_, shifted, _), shifted_settled = _hyp2f1_jet(a + 1, b + 1, c + 1, x, second=False)
    ratio_slope = (b / c, a / c, -a * b / (c * c))[k]
    in_x = ratio_slope * special.hyp2f1(a + 1, b + 1, c + 1, x) + a * b / c * shifted[k]
    row = {0: (0, 1, 2), 1: (1, 3, 4), 2: (2, 4, 5)}[k]  # the pairs (k, 0), (k, 1), (k, 2) among (i <= j)
    return (0.0, *(_settled_or_nan(h[p], settled) for p in row), _settled_or_nan(in_x, shifted_settled))
