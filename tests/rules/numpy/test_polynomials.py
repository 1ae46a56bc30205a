"""Polynomials: polyval, polyder, polyint, polyadd, polysub, polymul, polydiv, polyfit, roots, poly."""

import numpy as np
import pytest

import chainrules.engines as ad
from chainrules_core import NoTangent, Tangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.polynomials"))
def test_rule(case, dtype, mode):
    """Every declared case of the polynomial family passes the harness."""
    case.run(dtype, mode)


def test_polyval_derivative_is_the_derivative_polynomial():
    """d polyval(p, x) / dx = polyval(polyder(p), x), and the coefficients get the powers of x."""
    p, x = np.array([2.0, -1.0, 3.0, 0.5]), np.array([0.0, 1.5])
    _, pullback = rrule(np.polyval, p, x)
    _, p_bar, x_bar = pullback(np.ones(2))
    np.testing.assert_allclose(x_bar, np.polyval(np.polyder(p), x))
    np.testing.assert_allclose(p_bar, [0.0 + 1.5**3, 0.0 + 1.5**2, 1.5, 2.0])


def test_roots_move_by_the_implicit_function_theorem():
    """d r = -dp(r) / p'(r): perturbing the constant term of (x - 1)(x - 2) moves 1 by +1 and 2 by -1."""
    p = np.poly([1.0, 2.0])
    out, out_dot = frule((NoTangent(), np.array([0.0, 0.0, 1.0])), np.roots, p)
    order = np.argsort(out)
    np.testing.assert_allclose(out_dot[order], [1.0, -1.0])


def test_repeated_root_has_no_derivative():
    """A double root: p'(r) = 0, the tangent is infinite or nan, with numpy's warnings."""
    with np.errstate(divide="ignore", invalid="ignore"):
        _, out_dot = frule((NoTangent(), np.array([0.0, 0.0, 1.0])), np.roots, np.array([1.0, -2.0, 1.0]))
    assert not np.all(np.isfinite(out_dot))


def test_roots_ignore_leading_zeros():
    """A leading zero coefficient is stripped by numpy: its cotangent is zero."""
    _, pullback = rrule(np.roots, np.array([0.0, 1.0, -3.0]))
    assert np.array_equal(pullback(np.array([1.0]))[1], [0.0, -3.0, -1.0])


def test_polydiv_outputs_are_a_tuple():
    """polydiv's tangent is Tangent(tuple, dq, dr); a seed on the quotient alone is accepted."""
    u, v = np.array([1.0, 0.0, -3.0, 2.0]), np.array([1.0, -1.0])
    (q, r), out_dot = frule((NoTangent(), np.array([0.0, 0.0, 0.0, 1.0]), np.zeros(2)), np.polydiv, u, v)
    assert isinstance(out_dot, Tangent)
    np.testing.assert_allclose(out_dot[0], np.zeros(3), atol=1e-15)
    np.testing.assert_allclose(out_dot[1], [1.0])
    _, pullback = rrule(np.polydiv, u, v)
    _, u_bar, v_bar = pullback(Tangent(tuple, np.array([1.0, 0.0, 0.0]), ZeroTangent()))
    np.testing.assert_allclose(u_bar, [1.0, 0.0, 0.0, 0.0])


def test_polyfit_of_data_on_the_curve_moves_with_y():
    """y exactly quadratic, fitted with degree 2: dp/dy is the pseudo-inverse of the Vandermonde matrix."""
    x = np.linspace(-1.0, 1.0, 5)
    y = 2 * x**2 - x + 0.5
    _, pullback = rrule(np.polyfit, x, y, 2)
    _, x_bar, y_bar, _ = pullback(np.array([0.0, 0.0, 1.0]))
    np.testing.assert_allclose(y_bar, np.linalg.pinv(np.vander(x, 3))[2], atol=1e-12)
    # with a zero residual x enters only through d A p: moving x_i along the curve is moving y_i by p'(x_i)
    np.testing.assert_allclose(x_bar, -y_bar * np.polyval([4.0, -1.0], x), atol=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda: rrule(np.polyfit, np.arange(3.0), np.ones(3), 1, full=True),
        lambda: rrule(np.polyfit, np.arange(3.0), np.ones(3), 1, cov=True),
        lambda: rrule(np.polyfit, np.ones(3), np.ones(3), 1),  # rank-deficient
        lambda: rrule(np.poly, np.eye(2)),
        lambda: rrule(np.polyval, np.poly1d([1.0, 2.0]), 1.5),
        lambda: rrule(np.polymul, np.ones((2, 2)), np.ones(2)),
    ],
)
def test_refused_calls_have_no_rule(call):
    """full=, cov=, rank-deficient fits, poly of a matrix, poly1d and 2-d coefficients give None."""
    assert call() is None


@pytest.mark.parametrize("mode", ["forward-over-reverse", "reverse-over-reverse"])
def test_hessian_through_polyval(mode):
    """sum_i p(x_i) for p = x³ + 2x² + 3x + 4: d²/dx_i² = p''(x_i) = 6 x_i + 4, d²/dp_k dx_i = (3 - k) x_i^(2 - k)."""
    p, x = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.5, -1.0, 2.0])
    h = ad.hessian(lambda p, x: np.sum(np.polyval(p, x)), p, x, mode=mode)
    np.testing.assert_allclose(h[0][0], np.zeros((4, 4)))
    np.testing.assert_allclose(h[1][1], np.diag(6 * x + 4))
    np.testing.assert_allclose(h[0][1], [3 * x**2, 2 * x, np.ones(3), np.zeros(3)])
