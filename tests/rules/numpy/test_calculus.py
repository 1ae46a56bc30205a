import numpy as np
import pytest

from chainrules_core import NoTangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.calculus"))
def test_rule(case, dtype, mode):
    """Every declared case of the calculus family passes the harness."""
    case.run(dtype, mode)


def _matrix(f, n):
    """The matrix of a linear map of vectors of length n, column by column."""
    return np.stack([f(np.eye(n)[k]) for k in range(n)], axis=1)


@pytest.mark.parametrize("edge_order", [1, 2])
@pytest.mark.parametrize("spacing", [(), (0.7,), (np.array([0.0, 0.4, 1.5, 2.0, 3.2, 3.3]),)])
def test_gradient_pullback_is_the_transpose_of_numpys_matrix(edge_order, spacing):
    """The pullback of gradient in f is the transpose of the matrix numpy's gradient applies to f."""
    G = _matrix(lambda e: np.gradient(e, *spacing, edge_order=edge_order), 6)
    g = np.random.default_rng(0).standard_normal(6)
    f_bar = rrule(np.gradient, np.zeros(6), *spacing, edge_order=edge_order)[1](g)[1]
    np.testing.assert_allclose(f_bar, G.T @ g, rtol=1e-12, atol=1e-12)


def test_gradient_of_several_axes_is_a_tuple():
    """One gradient per axis: a tuple output, a tuple tangent, and seeds with zero entries."""
    f = np.arange(12.0).reshape(3, 4) ** 2
    out, pullback = rrule(np.gradient, f)
    assert isinstance(out, tuple) and len(out) == 2
    _, f_bar = pullback((ZeroTangent(), np.ones((3, 4))))
    np.testing.assert_allclose(f_bar, rrule(np.gradient, f, axis=1)[1](np.ones((3, 4)))[1])
    _, out_dot = frule((NoTangent(), f), np.gradient, f)
    np.testing.assert_allclose(out_dot[0], out[0])  # linear in f


def test_trapezoid_step_cotangent():
    """trapezoid(y, None, dx) is linear in dx: its cotangent is the integral for unit step."""
    y = np.array([1.0, 2.0, 4.0])
    _, y_bar, x_bar, dx_bar = rrule(np.trapezoid, y, None, 0.5)[1](1.0)
    assert dx_bar == pytest.approx(np.trapezoid(y))
    np.testing.assert_allclose(y_bar, [0.25, 0.5, 0.25])
    assert x_bar == NoTangent()
