"""Rules for the integrals of ``scipy.special``: ``expi``, ``exp1``, ``expn``, ``sici``, ``fresnel``, ``spence``,
``ellipk``, ``ellipe``.

``INTEGRALS``, through ``scalar_rule`` (the order ``n`` of ``expn`` is an
integer: ``NoTangent()``); ``sici`` and ``fresnel``, which return pairs
(``(Si(x), Ci(x))``, ``(S(x), C(x))``), have hand-written rules with a tuple
tangent. Each derivative is
the integrand at the upper limit (DLMF 6.2, 8.19, 25.12) or, for the
complete elliptic integrals, DLMF 19.4.1. Imported when ``scipy.special``
is.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    Tangent,
    ZeroTangent,
    checked_seed,
    checked_tangent,
    frule,
    rrule,
    scalar_rule,
    value_shape,
)

from ..._arrays import tuple_entries
from ..._makers import refused


def _expn_partials(m: Any, out: Any, n: Any, x: Any) -> tuple[Any, Any]:
    # E_n' = -E_(n-1) (DLMF 8.19.13); E_0(x) = exp(-x)/x, so E_0' = -E_0 (1 + 1/x). n is an integer.
    below = special.expn(np.maximum(n - 1, 0), x)
    return NoTangent(), -np.where(n == 0, out * (1 + 1 / x), below)


def _spence_partial(m: Any, out: Any, z: Any) -> Any:
    # spence(z) = int_1^z log(t) / (1 - t) dt (scipy's definition; Li2(1 - z), DLMF 25.12.1). Near z = 1 the
    # partial is -log1p(u) / u, u = z - 1, by its Taylor series -(1 - u/2 + u²/3 - u³/4 + u⁴/5) (error below
    # |u|^5 / 6 < 2e-16 for |u| < 1e-3): -1 at z = 1, and an engine differentiating it gets the slope 1/2 there.
    u = z - 1
    near = abs(u) < 1e-3
    s = np.where(near, u, 0.0)
    series = -(1 + s * (-1 / 2 + s * (1 / 3 + s * (-1 / 4 + s / 5))))
    return np.where(near, series, np.log(z) / (1 - np.where(near, 2.0, z)))


_SMALL_M = 1e-2
"""Below this |m|, E - (1 - m) K and E - K cancel: the elliptic integrals' derivatives come from their series."""


def _series_derivative(coefficient: Callable[[int], float]) -> tuple[float, ...]:
    """pi/2 n c_n for n = 1..10, the derivative of pi/2 sum(c_n m^n), as ``np.polyval`` takes it (highest first)."""
    return tuple(math.pi / 2 * n * math.prod(coefficient(j) for j in range(n)) for n in range(10, 0, -1))


# K = pi/2 sum(((1/2)_n / n!)² m^n), E = pi/2 sum((-1/2)_n (1/2)_n / n!² m^n) (DLMF 19.5.1-2)
_K_SERIES = _series_derivative(lambda j: ((j + 0.5) / (j + 1)) ** 2)
_E_SERIES = _series_derivative(lambda j: (j - 0.5) * (j + 0.5) / (j + 1) ** 2)


def _elliptic_partial(m: Any, series: tuple[float, ...], direct: Callable[[Any], Any]) -> Any:
    small = np.abs(m) < _SMALL_M
    if not np.any(small):
        return direct(m)
    return np.where(small, np.polyval(series, m), direct(np.where(small, 0.5, m)))


def _ellipk_partial(_: Any, out: Any, m: Any) -> Any:
    # dK/dm = (E - (1 - m) K) / (2 m (1 - m)) (DLMF 19.4.1 with m = k²): pi/8 at 0, +inf at 1.
    # At m = -inf, 0: K(m) = K(m / (m - 1)) / sqrt(1 - m) (DLMF 19.7.5) ~ log(4 sqrt(1 - m)) / sqrt(1 - m)
    # (DLMF 19.12.1), whose derivative is O(log|m| / |m|^(3/2)); the formula there is inf - inf.
    def direct(m: Any) -> Any:
        k = special.ellipk(m)
        with np.errstate(invalid="ignore"):
            partial = (special.ellipe(m) - (1 - m) * k) / (2 * m * (1 - m))
        return np.where(m == 1, np.inf, np.where(m == -np.inf, 0.0, partial))

    return _elliptic_partial(m, _K_SERIES, direct)


def _ellipe_partial(_: Any, out: Any, m: Any) -> Any:
    # dE/dm = (E - K) / (2 m) (DLMF 19.4.1 with m = k²): -pi/8 at 0, -inf at 1
    return _elliptic_partial(m, _E_SERIES, lambda m: (special.ellipe(m) - special.ellipk(m)) / (2 * m))


# ----- partial derivatives given the output and the inputs; `m` is numpy -----
INTEGRALS: dict[Any, Callable[..., Any]] = {
    special.expi: lambda m, out, x: np.exp(x) / x,  # Ei' (DLMF 6.2.5): +inf at 0
    special.exp1: lambda m, out, x: m.where(m.isnan(out), out, -np.exp(-x) / x),  # E1' (DLMF 6.2.1): -inf at 0
    special.expn: _expn_partials,
    special.spence: _spence_partial,
    special.ellipk: _ellipk_partial,
    special.ellipe: _ellipe_partial,
}

for _f, _partials in INTEGRALS.items():
    scalar_rule(_f, functools.partial(_partials, np))


# ----- sici(x) = (Si(x), Ci(x)) and fresnel(x) = (S(x), C(x)): pairs -----


def _sici_partials(x: Any) -> tuple[Any, Any]:
    """Si' = sin(x)/x, 1 at 0; Ci' = cos(x)/x, +inf at 0 (DLMF 6.2.9, 6.2.11): for x < 0 too, where scipy's Ci is
    the real part, Ci(|x|). Both tend to 0 at x = +-inf (Si and Ci tend to pi/2 and 0 there), not sin(inf) = nan."""
    infinite = (x == np.inf) | (x == -np.inf)
    with np.errstate(invalid="ignore"):
        return np.where(infinite, 0.0, np.sinc(x / np.pi)), np.where(infinite, 0.0, np.cos(x) / x)


def _fresnel_partials(x: Any) -> tuple[Any, Any]:
    """S' = sin(pi x²/2), C' = cos(pi x²/2) (DLMF 7.2.7-8, scipy's order (S, C)), holomorphic. At real x = +-inf
    both tend to their limits +-1/2 (DLMF 7.5.3): the derivatives, which oscillate without decaying, are 0 there,
    the derivative of the limit, as for sici."""
    infinite = (x == np.inf) | (x == -np.inf)
    with np.errstate(invalid="ignore"):
        phase = np.pi / 2 * x * x
        return np.where(infinite, 0.0, np.sin(phase)), np.where(infinite, 0.0, np.cos(phase))


def _pair_rules(f: Any, partials: Callable[[Any], tuple[Any, Any]]) -> None:
    """``frule`` and ``rrule`` for an elementwise ``f`` of one argument returning a pair: a tuple tangent, and a
    pullback taking a tuple cotangent whose entries may be zeros (``sici``, ``fresnel``)."""
    name = f.__name__
    pullback_name = f"{name}_pullback"

    def _rrule_pair(f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        if refused(1, (x, *args), kwargs):
            return None
        out = f(x, **kwargs)
        project_x = ProjectTo(x)
        shapes = [value_shape(o) for o in out]

        def pair_pullback(out_bar: Any) -> tuple[Any, Any]:
            bars = [checked_seed(f, b, shape) for b, shape in zip(tuple_entries(out_bar, 2), shapes)]
            if project_x.is_no_tangent:
                return NoTangent(), NoTangent()
            ps = partials(np.asarray(x))
            terms = [np.conjugate(p) * b for p, b in zip(ps, bars) if not isinstance(b, AbstractZero)]
            return NoTangent(), project_x(sum(terms[1:], terms[0]) if terms else ZeroTangent())

        pair_pullback.__name__ = pullback_name
        return out, pair_pullback

    def _frule_pair(tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        if refused(1, (x, *args), kwargs):
            return None
        out = f(x, **kwargs)
        x_dot = checked_tangent(f, tangents[1], x, 1)
        if isinstance(x_dot, AbstractZero) or ProjectTo(x).is_no_tangent:
            return out, ZeroTangent()
        first, second = (ProjectTo(o)(p * x_dot) for o, p in zip(out, partials(np.asarray(x))))
        return out, Tangent(tuple, first, second)

    _rrule_pair.__name__, _frule_pair.__name__ = f"_rrule_{name}", f"_frule_{name}"
    rrule.register(f)(_rrule_pair)
    frule.register(f)(_frule_pair)


_pair_rules(special.sici, _sici_partials)
_pair_rules(special.fresnel, _fresnel_partials)
