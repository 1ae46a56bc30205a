"""Rules for the gamma and zeta functions of scipy.special (optional: run when scipy is installed)."""

import math

import numpy as np
import pytest

from chainrules_core import NoTangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params

special = pytest.importorskip("scipy.special", reason="scipy is an optional dependency")

CATALAN = 0.915965594177219015054603514932


@pytest.mark.parametrize("case, dtype, mode", case_params("scipy.special.gamma"))
def test_rule(case, dtype, mode):
    """Every declared case of the gamma and zeta family passes the harness."""
    case.run(dtype, mode)


def test_shape_parameters_by_both_rules():
    """d/da of gammainc and gammaincc (Q = 1 - P), and d/da, d/db of betainc, by the pullback and the pushforward."""
    from chainrules.rules.scipy.special._parameters import betainc_da, betainc_db, gammainc_da

    _, a_bar, _ = rrule(special.gammainc, 1.5, 0.7)[1](1.0)
    assert a_bar == pytest.approx(gammainc_da(1.5, 0.7), rel=1e-15)
    assert rrule(special.gammaincc, 1.5, 0.7)[1](1.0)[1] == pytest.approx(-a_bar, rel=1e-15)
    assert frule((NoTangent(), 1.0, ZeroTangent()), special.gammainc, 1.5, 0.7)[1] == pytest.approx(a_bar, rel=1e-15)
    _, a_bar, b_bar, _ = rrule(special.betainc, 1.5, 2.5, 0.3)[1](1.0)
    expected = (float(betainc_da(1.5, 2.5, 0.3)), float(betainc_db(1.5, 2.5, 0.3)))
    assert (a_bar, b_bar) == pytest.approx(expected, rel=1e-15)


def test_integer_shape_parameters_get_no_tangent():
    assert rrule(special.gammainc, 2, 0.7)[1](1.0)[1] == NoTangent()
    assert rrule(special.betainc, np.array([1, 2]), 3, 0.5)[1](np.ones(2))[1:3] == (NoTangent(), NoTangent())


@pytest.mark.parametrize(
    "f, args, expected",
    [
        (special.gammainc, (2.0, 0.0), 0.0),  # x^(a-1) e^-x / Gamma(a) at x = 0
        (special.gammainc, (1.0, 0.0), 1.0),
        (special.gammainc, (0.5, 0.0), math.inf),
        (special.gammaincc, (1.0, 0.0), -1.0),
        (special.betainc, (1.0, 3.0, 0.0), 3.0),  # 1 / B(1, 3)
        (special.betainc, (2.0, 3.0, 1.0), 0.0),
        (special.betainc, (2.0, 0.5, 1.0), math.inf),
    ],
)
def test_incomplete_functions_at_the_ends(f, args, expected):
    """The one-sided derivatives in x at 0 (and at 1 for betainc): the limits of the density there."""
    with np.errstate(divide="ignore"):
        assert rrule(f, *args)[1](1.0)[-1] == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4])
def test_rgamma_at_the_poles_of_gamma(n):
    """1/Gamma is 0 at -n, with derivative (-1)^n n! (the residue's inverse), not -psi * 0 = nan."""
    assert rrule(special.rgamma, -float(n))[1](1.0)[1] == (-1) ** n * math.factorial(n)


def test_zeta_derivative_at_known_values():
    """zeta'(0) = -log(2 pi)/2 and zeta'(-2) = -zeta(3)/(4 pi²) (the functional equation's side); zeta'(2) by summation
    equals -sum(log(n)/n²) (its partial sums and tail)."""
    _, pullback = rrule(special.zeta, np.array([0.0, -2.0]))
    expected = [-math.log(2 * math.pi) / 2, -special.zeta(3.0) / (4 * math.pi**2)]
    np.testing.assert_allclose(pullback(np.ones(2))[1], expected, rtol=1e-13)
    n = np.arange(1.0, 100001.0)
    tail = math.log(1e5) / 1e5 + 1 / 1e5  # integral of log(t)/t² from 1e5 on
    assert rrule(special.zeta, 2.0)[1](1.0)[1] == pytest.approx(-np.sum(np.log(n) / n**2) - tail, rel=1e-9)


def test_hurwitz_zeta_in_q_and_keyword_q():
    """d/dq zeta(x, q) = -x zeta(x + 1, q); q by keyword has no cotangent but still sets the x derivative."""
    _, x_bar, q_bar = rrule(special.zeta, 3.0, 2.0)[1](1.0)
    assert q_bar == pytest.approx(-3.0 * special.zeta(4.0, 2.0))
    assert rrule(special.zeta, 3.0, q=2.0)[1](1.0) == (NoTangent(), x_bar)
    assert rrule(special.zeta, np.ones(2), out=np.empty(2)) is None
    _, pullback = rrule(special.zeta, 3.0, None)  # q = None given: Riemann's
    assert pullback(1.0) == (NoTangent(), rrule(special.zeta, 3.0)[1](1.0)[1], NoTangent())


def test_trigamma_of_complex_arguments():
    """psi'(1/4) = pi² + 8 G (Catalan's constant) and psi'(1) = pi²/6, on the summation's and reflection's sides."""
    _, pullback = rrule(special.digamma, np.array([0.25 + 0.0j, 1.0 + 0.0j]))
    expected = [math.pi**2 + 8 * CATALAN, math.pi**2 / 6]
    np.testing.assert_allclose(pullback(np.ones(2, dtype=complex))[1], expected, rtol=1e-13)


def test_integer_parameters_get_no_tangent_by_position_or_keyword():
    assert rrule(special.polygamma, 1, 2.0)[1](1.0)[1] == NoTangent()
    assert rrule(special.polygamma, 1.0, 2.0)[1](1.0)[1] == NoTangent()  # an integer order given as a float
    _, a_bar, d_bar = rrule(special.multigammaln, 3.0, 2)[1](1.0)
    assert d_bar == NoTangent() and a_bar == pytest.approx(special.psi(3.0) + special.psi(2.5))
    assert rrule(special.multigammaln, 3.0, d=2)[1](1.0) == (NoTangent(), a_bar)


def test_partials_tend_to_their_limits_at_infinite_arguments():
    """Where the function vanishes at an infinite argument, so do its partials (not 0 * inf = nan)."""
    _, pullback = rrule(special.rgamma, np.array([np.inf, 2.0]))
    np.testing.assert_allclose(pullback(np.ones(2))[1], [0.0, -special.psi(2.0)])
    _, pullback = rrule(special.beta, np.array([np.inf, 2.0]), np.array([2.0, np.inf]))
    _, a_bar, b_bar = pullback(np.ones(2))
    np.testing.assert_array_equal(a_bar, 0.0)
    np.testing.assert_array_equal(b_bar, 0.0)
    for f, sign in ((special.gammainc, 1), (special.gammaincc, -1)):
        x_bar = rrule(f, 2.5, np.array([np.inf, 1.0]))[1](np.ones(2))[2]
        np.testing.assert_allclose(x_bar, [0.0, sign * np.exp(-1.0) / special.gamma(2.5)])
    x_bar = rrule(special.zeta, np.array([2.0, 3.0]), np.array([np.inf, np.inf]))[1](np.ones(2))[1]
    np.testing.assert_array_equal(x_bar, 0.0)


def test_gamma_density_at_a_subnormal_shape():
    """scipy's gammaln(1e-310) overflows; log Gamma(a) = log Gamma(1 + a) - log a keeps the density finite."""
    a, x = 1e-310, 1e-310
    x_bar = rrule(special.gammaincc, a, x)[1](1.0)[2]
    np.testing.assert_allclose(x_bar, -a / x, rtol=1e-6)  # x^(a-1) e^-x / Gamma(a) ~ a / x for tiny a, x


@pytest.mark.parametrize(("x", "expected"), [(0.0, 2 * 0.5772156649015329), (-1.0, 2 * (1 - 0.5772156649015329))])
def test_rgamma_second_derivative_at_a_pole_of_gamma(x, expected):
    """1/Gamma(-n + e) = (-1)^n n! (e - psi(n + 1) e² + ...): its second derivative -2 (-1)^n n! psi(n + 1)."""
    import chainrules.engines as ad

    def slope(v):
        return rrule(special.rgamma, v)[1](1.0)[1]

    assert ad.gradient(slope, np.float64(x))[0] == pytest.approx(expected, rel=1e-12)
    assert ad.jvp(slope, (np.float64(x),), (1.0,))[1] == pytest.approx(expected, rel=1e-12)


# mpmath at 40 digits, where P or I is small (near 1, 1 - Q, 1 - I lose digits) and either side of the switches
GAMMA_SHAPES = [0.05, 1.0, 2.5, 30.0]
GAMMA_XS = [0.02, 1.9, 3.1, 30.0]
BETA_POINTS = [(a, b, x) for a in (0.3, 4.0, 20.0) for b in (0.5, 15.0) for x in (0.05, 0.4, 0.95)]


def _mpmath():
    return pytest.importorskip("mpmath", reason="mpmath checks the derivatives in the shape parameters")


def test_gammainc_in_a_against_mpmath():
    """dP/da, d²P/da² and d²P/da dx over positive a and x (JAX's test ranges), either side of x = a + 1."""
    mp = _mpmath()
    from chainrules.rules.scipy.special._parameters import _gamma_shape, gammainc_da_partials

    mp.mp.dps = 40

    def p(a, x):
        if x < a + 1:
            return mp.gammainc(a, 0, x, regularized=True)
        return 1 - mp.gammainc(a, x, mp.inf, regularized=True)

    a, x = (v.ravel() for v in np.meshgrid(GAMMA_SHAPES, GAMMA_XS))
    first, second = _gamma_shape(a, x, second=True)
    mixed = gammainc_da_partials(None, a, x)[1]
    for i in range(a.size):
        ai, xi = mp.mpf(a[i]), mp.mpf(x[i])
        expected = [mp.diff(p, (ai, xi), (n, 0)) for n in (1, 2)] + [mp.diff(p, (ai, xi), (1, 1))]
        np.testing.assert_allclose([first[i], second[i], mixed[i]], [float(e) for e in expected], rtol=1e-10)


def test_betainc_in_a_and_b_against_mpmath():
    """dI/da, dI/db and the second derivatives (aa, ab, bb, and with x) either side of x = (a + 1)/(a + b + 2)."""
    mp = _mpmath()
    from chainrules.rules.scipy.special._parameters import _beta_mixed, _beta_shapes

    mp.mp.dps = 40
    a, b, x = (np.array(v) for v in zip(*BETA_POINTS))
    (da, db), (haa, hab, hbb) = _beta_shapes(a, b, x, second=True)
    ma, mb = _beta_mixed(a, b, x)
    orders = ((1, 0, 0), (0, 1, 0), (2, 0, 0), (1, 1, 0), (0, 2, 0), (1, 0, 1), (0, 1, 1))
    for i, point in enumerate(BETA_POINTS):
        expected = [mp.diff(lambda *v: mp.betainc(v[0], v[1], 0, v[2], regularized=True), point, n) for n in orders]
        actual = [v[i] for v in (da, db, haa, hab, hbb, ma, mb)]
        np.testing.assert_allclose(actual, [float(e) for e in expected], rtol=1e-9)


def test_shape_derivatives_at_the_ends():
    """0 where the function is constant in its shape parameter (x = 0, x = inf, an infinite shape), NaN outside the
    domain."""
    from chainrules.rules.scipy.special._parameters import betainc_dab, gammainc_da

    np.testing.assert_array_equal(gammainc_da(np.array([2.0, 2.0, np.inf]), np.array([0.0, np.inf, 3.0])), 0.0)
    assert np.isnan(gammainc_da(-1.0, 2.0)) and np.isnan(gammainc_da(2.0, np.nan))
    for d in betainc_dab(np.array([2.0, 2.0, np.inf]), np.array([3.0, 3.0, 1.0]), np.array([0.0, 1.0, 0.5])):
        np.testing.assert_array_equal(d, 0.0)
    assert np.all(np.isnan(betainc_dab(2.0, 3.0, 1.5)))
