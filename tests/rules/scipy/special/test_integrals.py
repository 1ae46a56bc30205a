"""Rules for the integrals of scipy.special (optional: run when scipy is installed)."""

import math

import numpy as np
import pytest

from chainrules_core import NoTangent, Tangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params

special = pytest.importorskip("scipy.special", reason="scipy is an optional dependency")


@pytest.mark.parametrize("case, dtype, mode", case_params("scipy.special.integrals"))
def test_rule(case, dtype, mode):
    """Every declared case of the integrals family passes the harness."""
    case.run(dtype, mode)


def test_sici_at_zero():
    """Si'(0) = 1, the limit of sin(x)/x; Ci'(0) = +inf, where Ci has its logarithmic singularity."""
    with np.errstate(divide="ignore"):
        _, (si_dot, ci_dot) = frule((NoTangent(), 1.0), special.sici, 0.0)
        _, pullback = rrule(special.sici, 0.0)
        assert pullback(Tangent(tuple, 1.0, ZeroTangent())) == (NoTangent(), 1.0)
        assert pullback(Tangent(tuple, ZeroTangent(), 1.0)) == (NoTangent(), math.inf)
    assert (si_dot, ci_dot) == (1.0, math.inf)


def test_sici_accepts_plain_tuple_seeds():
    x = np.array([0.5, -2.0])
    _, pullback = rrule(special.sici, x)
    _, x_bar = pullback((np.ones(2), np.zeros(2)))
    np.testing.assert_allclose(x_bar, np.sin(x) / x)


def test_expn_order_gets_no_tangent():
    _, n_bar, x_bar = rrule(special.expn, 3, 1.5)[1](1.0)
    assert n_bar == NoTangent() and x_bar == pytest.approx(-special.expn(2, 1.5))


@pytest.mark.parametrize("f, expected", [(special.ellipk, math.pi / 8), (special.ellipe, -math.pi / 8)])
def test_elliptic_integrals_at_zero(f, expected):
    """dK/dm and dE/dm at m = 0, where (E - (1 - m) K) / (2 m (1 - m)) and (E - K) / (2m) are 0/0."""
    assert rrule(f, 0.0)[1](1.0)[1] == pytest.approx(expected, rel=1e-15)


def test_ellipk_partial_vanishes_at_minus_infinity():
    """K(m) ~ log(4 sqrt(1 - m)) / sqrt(1 - m) as m -> -inf: K and dK/dm tend to 0, the latter like |m|^(-3/2)."""
    m = np.array([-np.inf, -1e8])
    m_bar = rrule(special.ellipk, m)[1](np.ones(2))[1]
    assert m_bar[0] == 0.0
    np.testing.assert_allclose(m_bar[1], (special.ellipk(-1e8 + 1e2) - special.ellipk(-1e8 - 1e2)) / 2e2, rtol=1e-5)


def test_sici_derivatives_vanish_at_infinity():
    """Si -> pi/2 and Ci -> 0 as x -> +-inf: Si' = sin(x)/x and Ci' = cos(x)/x tend to 0, not sin(inf) = nan."""
    _, pullback = rrule(special.sici, np.array([np.inf, -np.inf]))
    np.testing.assert_array_equal(pullback(Tangent(tuple, np.ones(2), np.ones(2)))[1], [0.0, 0.0])


def test_spence_second_derivative_at_one():
    """spence'(z) = log(z) / (1 - z) = -1 + (z - 1)/2 - ...: the engines' second derivative at z = 1 is 1/2."""
    import chainrules.engines as ad

    def slope(z):
        return rrule(special.spence, z)[1](1.0)[1]

    assert ad.gradient(slope, np.float64(1.0))[0] == pytest.approx(0.5, rel=1e-12)
