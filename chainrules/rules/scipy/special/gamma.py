"""Rules for the gamma and zeta functions of ``scipy.special``.

* ``GAMMA``, through ``scalar_rule``: ``gamma``, ``gammaln``, ``loggamma``,
  ``rgamma``, ``digamma`` (``psi``), ``beta``, ``betaln``, and the
  regularized incomplete functions ``gammainc``, ``gammaincc``, ``betainc``
  in every argument: in ``x`` by their densities, in the shape parameters
  ``a``, ``b`` by series and continued fractions differentiated term by
  term (``_parameters``).
* ``poch(z, m)``, in the table: both arguments, by digamma.
* ``factorial(n, exact=False)`` and ``comb(N, k, exact=False)`` (also
  ``repetition=True``), through ``bound_rule``, by digamma; ``exact=True``
  computes integers, which get ``NoTangent()``. ``gammasgn`` is registered
  as non-differentiable.
* ``polygamma(n, x)``, ``multigammaln(a, d)`` and ``zeta(x, q)``, Python
  functions that take keywords too, through ``bound_rule``: the order ``n``
  and the dimension ``d`` are integers (``NoTangent()``); ``zeta`` is
  differentiated in both ``x`` (by Euler–Maclaurin summation) and ``q``.

Imported when ``scipy.special`` is.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

from chainrules_core import NoTangent, non_differentiable, scalar_rule
from chainrules_core.followed import follow, is_followed, primal_of

from ..._makers import bound_rule
from . import _parameters
from ._parameters import betainc_dab, gammainc_da

# B_2, B_4, ..., B_16
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)
_DIRECT_TERMS = 10


def hurwitz_zeta(s: Any, q: Any) -> tuple[Any, Any]:
    """``zeta(s, q)`` and its derivative in ``s``, for ``Re(s) > 0`` and ``Re(q) > 0``, complex or real.

    Euler–Maclaurin summation of ``sum((n + q)**-s)`` (DLMF 2.10.1, as in
    F. Johansson, "Rigorous high-precision computation of the Hurwitz zeta
    function and its derivatives", Numer. Algorithms 69, 2015): ten terms
    directly, the integral of the tail and eight Bernoulli corrections,
    differentiated term by term in ``s``. Relative error ~1e-15 for
    ``|Im(s)| < 30``.

    Every step is one an engine follows: an engine's ``s`` or ``q`` gets the
    derivatives of the sum (a second derivative in ``s`` for ``zeta``'s rule).
    """
    if not is_followed(s):
        s = np.asarray(s, dtype=np.result_type(s, np.float64))
    if not is_followed(q):
        q = np.asarray(q, dtype=np.result_type(q, np.float64))
    n = np.arange(_DIRECT_TERMS).reshape((_DIRECT_TERMS,) + (1,) * np.ndim(primal_of(s) + primal_of(q)))
    a = n + q
    power = a**-s
    value, derivative = np.sum(power, axis=0), -np.sum(np.log(a) * power, axis=0)
    a = _DIRECT_TERMS + q
    log_a, power = np.log(a), a**-s
    tail = a * power / (s - 1)
    value = value + tail + power / 2
    derivative = derivative - log_a * tail - tail / (s - 1) - log_a * power / 2
    p, p_dot = s, np.ones_like(primal_of(s))  # s (s + 1) ... (s + 2k - 2) and its derivative in s
    for k, b in enumerate(_BERNOULLI, start=1):
        c = b / math.factorial(2 * k) * a ** (1 - s - 2 * k)
        value = value + c * p
        derivative = derivative + c * (p_dot - p * log_a)
        for j in (2 * k - 1, 2 * k):
            p, p_dot = p * (s + j), p_dot * (s + j) + p
    return value, derivative


def _riemann_zeta_derivative(s: Any) -> Any:
    """zeta'(s) for every s but 1: Euler–Maclaurin for Re(s) >= 0; below, the functional equation differentiated."""
    left = np.real(primal_of(s)) < 0
    t = np.where(left, 1 - s, s)  # Euler–Maclaurin cancels for Re(s) < 0: evaluate it at 1 - s there
    d = hurwitz_zeta(t, 1.0)[1]
    if not np.any(left):
        return d
    # zeta(s) = 2^s pi^(s-1) sin(pi s/2) Gamma(1-s) zeta(1-s) (DLMF 25.4.1-2), so with c = 2^s pi^(s-1) Gamma(1-s):
    # zeta'(s) = c [(sin(pi s/2) (log 2 pi - psi(1-s)) + pi/2 cos(pi s/2)) zeta(1-s) - sin(pi s/2) zeta'(1-s)].
    s = np.where(left, s, -1.0)
    c = 2**s * np.pi ** (s - 1) * special.gamma(1 - s)
    sin, cos = np.sin(np.pi * s / 2), np.cos(np.pi * s / 2)
    log_factor = sin * (math.log(2 * np.pi) - special.psi(1 - s)) + np.pi / 2 * cos
    reflected = c * (log_factor * follow(special.zeta, 1 - s) - sin * d)
    return np.where(left, reflected, d)


def _zeta_partials(out: Any, x: Any, *q: Any) -> tuple[Any, ...]:
    # d/dq zeta(x, q) = -x zeta(x + 1, q) (DLMF 25.11.17); d/dx by summation. nan where zeta is (q given, x < 1).
    # an engine's x and q: the masks read off their plain values, the partials computed from them (zeta through
    # follow, with this rule: scipy's zeta converts its arguments)
    undefined = np.isnan(primal_of(out))
    if not q or q[0] is None:  # Riemann's
        return np.where(undefined, np.nan, _riemann_zeta_derivative(x)), *(NoTangent(),) * len(q)
    # at q = inf, zeta(x, q) ~ q^(1-x) / (x - 1) (DLMF 25.11.43) is 0 for every x > 1, and so is d/dx
    far = primal_of(q[0]) == np.inf
    dx = hurwitz_zeta(np.where(np.real(primal_of(x)) > 1, x, 2.0), np.where(far, 1.0, q[0]))[1]
    dx = np.where(undefined, np.nan, np.where(far, 0.0, dx))
    return dx, -x * follow(special.zeta, x + 1, q[0])


def _trigamma(x: Any) -> Any:
    """psi'(x) = polygamma(1, x); for complex x (which scipy's polygamma refuses) zeta(2, x) (DLMF 25.11.12) by
    summation, reflected for Re(x) < 1/2: psi'(x) = pi² / sin²(pi x) - psi'(1 - x) (DLMF 5.15.6)."""
    if not np.iscomplexobj(primal_of(x)):
        return follow(special.polygamma, 1, x)  # scipy's polygamma converts x: one call an engine follows
    left = np.real(primal_of(x)) < 0.5
    value = hurwitz_zeta(2.0, np.where(left, 1 - x, x))[0]
    return np.where(left, (np.pi / np.sin(np.pi * x)) ** 2 - value, value)


def _rgamma_partial(m: Any, out: Any, x: Any) -> Any:
    # (1/Gamma)' = -psi / Gamma (DLMF 5.2.2). At x = -n, a pole of Gamma, 1/Gamma(-n + e) =
    # (-1)^n n! (e - psi(n + 1) e² + O(e³)) (reflection, DLMF 5.5.3): 1/Gamma is 0 and its derivative
    # (-1)^n n!, where -psi * 0 would be nan. The partial there is written (-1)^n n! (1 - 2 psi(n + 1) e) with
    # e = x + n = 0, so that an engine differentiating it gets the second derivative.
    # At x = +inf, 1/Gamma vanishes faster than psi grows: the derivative tends to 0, not inf * 0.
    pole = (np.real(x) <= 0) & (x == np.round(np.real(x)))
    if not np.any(pole):
        with np.errstate(invalid="ignore"):
            return np.where(x == np.inf, 0.0, -special.psi(x) * out)
    n = np.where(pole, -np.round(np.real(x)), 0.0)  # constant for an engine: round's derivative is 0
    sign = np.where(n % 2 == 1, -1.0, 1.0)
    at_pole = sign * special.gamma(n + 1) * (1 - 2 * special.psi(n + 1) * (x + n))
    return np.where(pole, at_pole, -special.psi(np.where(pole, 0.5, x)) * out)


def _beta_partials(m: Any, out: Any, a: Any, b: Any) -> tuple[Any, Any]:
    psi_ab = special.psi(a + b)  # B = Gamma(a) Gamma(b) / Gamma(a + b) (DLMF 5.12.1)
    # B(a, b) ~ Gamma(b) a^-b as a -> inf (DLMF 5.11.12): B and both partials tend to 0 where scipy's B is 0
    # at an infinite argument, not 0 * (inf - inf)
    vanished = (out == 0) & (np.isinf(a) | np.isinf(b))
    with np.errstate(invalid="ignore"):
        return np.where(vanished, 0.0, out * (special.psi(a) - psi_ab)), np.where(
            vanished, 0.0, out * (special.psi(b) - psi_ab)
        )


def _betaln_partials(m: Any, out: Any, a: Any, b: Any) -> tuple[Any, Any]:
    psi_ab = special.psi(a + b)
    return special.psi(a) - psi_ab, special.psi(b) - psi_ab


def _gamma_density(a: Any, x: Any) -> Any:
    """x^(a-1) e^(-x) / Gamma(a): d/dx of gammainc (DLMF 8.2.1, 8.2.4); at x = 0: 0, 1 or inf as a >, ==, < 1.

    0 at x = inf (e^-x wins over the power, not inf - inf) and at a = inf, where P is 0 for every finite x.
    Where scipy's gammaln overflows (a below about 1e-308), log Gamma(a) = log Gamma(1 + a) - log a (DLMF 5.5.1).
    """
    log_gamma = special.gammaln(a)
    with np.errstate(divide="ignore"):
        log_gamma = np.where(np.isinf(log_gamma) & (a > 0), special.gammaln(1 + a) - np.log(a), log_gamma)
    with np.errstate(invalid="ignore"):
        return np.where((x == np.inf) | (a == np.inf), 0.0, np.exp(special.xlogy(a - 1, x) - x - log_gamma))


def _beta_density(a: Any, b: Any, x: Any) -> Any:
    """x^(a-1) (1-x)^(b-1) / B(a, b): d/dx of betainc (DLMF 8.17.1-2); 0 where a or b is infinite, where I is
    constant (0 or 1) inside (0, 1)."""
    with np.errstate(invalid="ignore"):
        density = np.exp(special.xlogy(a - 1, x) + special.xlog1py(b - 1, -x) - special.betaln(a, b))
    return np.where((a == np.inf) | (b == np.inf), 0.0, density)


def _poch_partials(m: Any, out: Any, z: Any, n: Any) -> tuple[Any, Any]:
    # (z)_n = Gamma(z + n) / Gamma(z) (DLMF 5.2.5): d/dz = (z)_n (psi(z + n) - psi(z)), d/dn = (z)_n psi(z + n)
    psi_zn = special.psi(z + n)
    return out * (psi_zn - special.psi(z)), out * psi_zn


# ----- partial derivatives given the output and the inputs; `m` is numpy -----
GAMMA: dict[Any, Callable[..., Any]] = {
    special.gamma: lambda m, out, x: out * special.psi(x),  # psi = Gamma'/Gamma (DLMF 5.2.2); nan at the poles
    special.gammaln: lambda m, out, x: special.psi(x),  # log|Gamma|, for negative x too
    special.loggamma: lambda m, out, x: m.where(m.isnan(out), out, special.psi(x)),  # principal branch; nan for x < 0
    special.rgamma: _rgamma_partial,
    special.digamma: lambda m, out, x: _trigamma(x),  # DLMF 5.15.1
    special.beta: _beta_partials,
    special.betaln: _betaln_partials,
    # in the shape parameters: series and continued fractions differentiated (``_parameters``); Q = 1 - P
    special.gammainc: lambda m, out, a, x: (gammainc_da(a, x), _gamma_density(a, x)),
    special.gammaincc: lambda m, out, a, x: (-gammainc_da(a, x), -_gamma_density(a, x)),
    special.betainc: lambda m, out, a, b, x: (*betainc_dab(a, b, x), _beta_density(a, b, x)),
    special.poch: _poch_partials,
}

for _f, _partials in GAMMA.items():
    scalar_rule(_f, functools.partial(_partials, np))

# The derivatives of the incomplete functions in their shape parameters: steps of the pullbacks above, with rules of
# their own (second derivatives by the same sums), so that an engine differentiating a pullback follows one call.
# bound_rule: rules without fast paths, for steps of pullbacks that no user calls; the second-order checks of the
# functions above differentiate them, and tests hold them to mpmath
bound_rule(_parameters.gammainc_da, _parameters.gammainc_da_partials, ("a", "x"))
bound_rule(_parameters.betainc_da, _parameters.betainc_da_partials, ("a", "b", "x"))
bound_rule(_parameters.betainc_db, _parameters.betainc_db_partials, ("a", "b", "x"))


def _polygamma_partials(out: Any, n: Any, x: Any) -> tuple[Any, Any]:
    # DLMF 5.15.1; the order n is an integer. scipy's polygamma converts x: one call an engine follows
    return NoTangent(), follow(special.polygamma, primal_of(n) + 1, x)


def _multigammaln_partials(out: Any, a: Any, d: Any) -> tuple[Any, Any]:
    # log Gamma_d(a) = d(d-1)/4 log(pi) + sum_j log Gamma(a - j/2), j < d (DLMF 35.3.4); d is an integer
    return sum(special.psi(a - j / 2) for j in range(int(d))), NoTangent()


bound_rule(special.polygamma, _polygamma_partials, ("n", "x"))
bound_rule(special.multigammaln, _multigammaln_partials, ("a", "d"))
bound_rule(special.zeta, _zeta_partials, ("x", "q"))


def _factorial_partials(out: Any, n: Any, exact: Any = False, extend: Any = "zero") -> tuple[Any, ...]:
    """n! = Gamma(n + 1), so d/dn = Gamma(n + 1) psi(n + 1) (DLMF 5.4.1, 5.2.2). scipy's factorial is 0 for n < 0
    (``extend="zero"``): there the derivative is 0, and n = 0 is a jump (from 0 to 1). ``exact=True`` computes
    integers: no tangent. The options get none either."""
    if exact:
        return NoTangent(), NoTangent(), NoTangent()
    derivative = out * special.psi(n + 1)
    if extend != "complex":
        derivative = np.where(primal_of(n) < 0, 0.0, derivative)
    return derivative, NoTangent(), NoTangent()


def _comb_partials(out: Any, N: Any, k: Any, exact: Any = False, repetition: Any = False) -> tuple[Any, ...]:
    """C(N, k) = Gamma(N + 1) / (Gamma(k + 1) Gamma(N - k + 1)) (DLMF 26.3.1, 5.2.2): d/dN = C (psi(N + 1) -
    psi(N - k + 1)), d/dk = C (psi(N - k + 1) - psi(k + 1)). With ``repetition``, C(N + k - 1, k): the chain rule.
    scipy's comb is 0 outside 0 <= k <= N: there the derivatives are 0 (the edges are jumps). ``exact=True``
    computes integers: no tangent."""
    if exact:
        return NoTangent(), NoTangent(), NoTangent(), NoTangent()
    top = N + k - 1 if repetition else N
    psi_rest = special.psi(top - k + 1)
    in_top, in_k = out * (special.psi(top + 1) - psi_rest), out * (psi_rest - special.psi(k + 1))
    if repetition:
        in_k = in_k + in_top
    outside = primal_of(out) == 0
    return np.where(outside, 0.0, in_top), np.where(outside, 0.0, in_k), NoTangent(), NoTangent()


bound_rule(special.factorial, _factorial_partials, ("n", "exact", "extend"))
bound_rule(special.comb, _comb_partials, ("N", "k", "exact", "repetition"))
non_differentiable(special.gammasgn)  # the sign of Gamma: piecewise constant, its derivative 0 where it has one
