"""Norms: np.linalg.norm, vector_norm, matrix_norm."""

import math

import numpy as np
import pytest

from chainrules_core import NoTangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.linalg.norms"))
def test_rule(case, dtype, mode):
    """Every declared case of the norms family passes the harness."""
    case.run(dtype, mode)


@pytest.mark.parametrize("ord", [None, 1, 2, math.inf, -math.inf, 3, 0.5])
def test_zero_vector_gets_a_zero_gradient(ord):
    """At the zero vector every norm's cotangent is 0, never nan."""
    _, pullback = rrule(np.linalg.norm, np.zeros(3), ord)
    f_bar, x_bar, ord_bar = pullback(1.0)
    np.testing.assert_array_equal(x_bar, np.zeros(3))
    assert ord_bar == NoTangent()


def test_inf_norm_ties_split_evenly():
    """Tied largest magnitudes share the cotangent equally."""
    _, pullback = rrule(np.linalg.norm, np.array([3.0, -1.0, -3.0]), ord=math.inf)
    np.testing.assert_allclose(pullback(1.0)[1], [0.5, 0.0, -0.5])


def test_ord_zero_is_a_count_with_a_zero_derivative():
    """ord=0 counts nonzero entries: zero tangent and cotangent."""
    x = np.array([1.0, 0.0, 2.0])
    out, out_dot = frule((NoTangent(), np.ones(3)), np.linalg.norm, x, ord=0)
    assert out == 2.0 and out_dot == ZeroTangent()
    assert rrule(np.linalg.norm, x, ord=0)[1](1.0)[1] == ZeroTangent()


def test_complex_norm_gradient():
    """For complex x the 2-norm's cotangent is out_bar x / |x|."""
    x = np.array([3.0 + 4.0j, 0.0])
    _, pullback = rrule(np.linalg.norm, x)
    np.testing.assert_allclose(pullback(2.0)[1], [2 * (3.0 + 4.0j) / 5.0, 0.0])


def test_float32_stays_float32():
    """float32 input: float32 norm, cotangent and tangent."""
    x = np.ones((2, 3), dtype=np.float32)
    out, pullback = rrule(np.linalg.matrix_norm, x, ord="nuc")
    assert out.dtype == np.float32 and pullback(np.float32(1.0))[1].dtype == np.float32
    assert frule((NoTangent(), x), np.linalg.vector_norm, x)[1].dtype == np.float32


@pytest.mark.parametrize("ord", ["fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf])
def test_zero_matrix_gets_a_zero_gradient(ord):
    """At the zero matrix every matrix norm has a zero gradient: the central difference of an even function."""
    x = np.zeros((3, 2))
    _, pullback = rrule(np.linalg.norm, x, ord)
    np.testing.assert_array_equal(pullback(1.0)[1], np.zeros((3, 2)))
    _, out_dot = frule((NoTangent(), np.ones((3, 2)), NoTangent()), np.linalg.norm, x, ord)
    assert out_dot == 0.0


def test_spectral_norm_ties_split_evenly():
    """A repeated largest singular value shares the cotangent among its singular pairs: I / 3 at the identity."""
    _, pullback = rrule(np.linalg.matrix_norm, np.eye(3), ord=2)
    np.testing.assert_allclose(pullback(1.0)[1], np.eye(3) / 3, atol=1e-15)
    _, pullback = rrule(np.linalg.matrix_norm, np.diag([3.0, 1.0, -1.0]), ord=-2)
    np.testing.assert_allclose(pullback(1.0)[1], np.diag([0.0, 0.5, -0.5]), atol=1e-15)


def test_nuclear_norm_ignores_zero_singular_values():
    """At a rank-one matrix the nuclear norm's gradient is u1 v1^T, not U Vh over arbitrary null vectors."""
    u, v = np.array([1.0, 2.0, -1.0]) / np.sqrt(6), np.array([1.0, 2.0]) / np.sqrt(5)
    x = np.sqrt(30) * np.outer(u, v)
    _, pullback = rrule(np.linalg.norm, x, "nuc")
    np.testing.assert_allclose(pullback(1.0)[1], np.outer(u, v), atol=1e-12)


def test_smallest_singular_value_at_zero_is_the_central_difference_limit():
    """matrix_norm(-2) at a singular matrix: 0, the limit of central differences along any direction."""
    x = np.array([[1.0, 2.0], [2.0, 4.0], [-1.0, -2.0]])
    _, pullback = rrule(np.linalg.matrix_norm, x, ord=-2)
    np.testing.assert_array_equal(pullback(1.0)[1], np.zeros((3, 2)))
    d = np.random.default_rng(0).normal(size=(3, 2))
    steps = [1e-2, 1e-3, 1e-4]
    central = [
        abs(np.linalg.matrix_norm(x + h * d, ord=-2) - np.linalg.matrix_norm(x - h * d, ord=-2)) / (2 * h)
        for h in steps
    ]
    assert central[0] > central[1] > central[2] and central[2] < 1e-4  # shrinks with the step, towards 0


def test_cond_at_a_singular_matrix_is_not_finite():
    """cond has a pole at singular matrices: numpy's inf, and a non-finite cotangent with numpy's warnings."""
    x = np.array([[1.0, 2.0], [2.0, 4.0]])
    out, pullback = rrule(np.linalg.cond, x, 1)
    assert out == np.inf
    with pytest.warns(RuntimeWarning):
        x_bar = pullback(1.0)[1]
    assert not np.all(np.isfinite(x_bar))
    out, pullback = rrule(np.linalg.cond, x)  # s_min is rounding noise: cond ~ 1 / eps, its derivative larger
    assert out > 1e15 and np.max(np.abs(pullback(1.0)[1])) > 1e15


def test_cond_is_the_product_of_the_norms_derivatives():
    """cond(x, 'fro') = ||x|| ||inv(x)||: its cotangent composes the norm's and inv's."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(3, 3)) + 3 * np.eye(3)
    inv = np.linalg.inv(x)
    expected = (
        np.linalg.norm(inv) * x / np.linalg.norm(x) - np.linalg.norm(x) * inv.T @ (inv / np.linalg.norm(inv)) @ inv.T
    )
    np.testing.assert_allclose(rrule(np.linalg.cond, x, "fro")[1](1.0)[1], expected)


@pytest.mark.parametrize("p", [None, -2, 1, "nuc", math.inf])
def test_cond_is_scale_invariant_at_extreme_magnitudes(p):
    """cond(s x) = cond(x), so its gradient at s x is the gradient at x over s: no s² to overflow or underflow.

    ('fro' is left out: numpy's Frobenius norm squares the entries, and its cond is inf there.)"""
    x = np.array([[2.0, 1.0], [-0.5, 3.0]])
    gradient = rrule(np.linalg.cond, x, p)[1](1.0)[1]
    subnormal = (1e-308,) if p in (None, -2) else ()  # LAPACK's SVD does not converge there; numpy's inverse overflows
    for s in (1e160, 1e-160, *subnormal):
        scaled = rrule(np.linalg.cond, s * x, p)[1](1.0)[1]
        np.testing.assert_allclose(scaled * s, gradient, rtol=1e-12)


def test_cond_gradient_at_subnormal_entries():
    """At entries of 1e-310 the gradient (about 1e310) exceeds float64, but a small seed's cotangent does not."""
    x = np.array([[2.0, 1.0], [-0.5, 3.0]])
    expected = rrule(np.linalg.cond, x)[1](1.0)[1] * 1e-12 / 1e-310
    np.testing.assert_allclose(rrule(np.linalg.cond, 1e-310 * x)[1](1e-12)[1], expected, rtol=1e-9)
