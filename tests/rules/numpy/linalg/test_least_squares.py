"""Pseudo-inverse and least squares: pinv, lstsq."""

import numpy as np
import pytest

from chainrules_core import NoTangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.linalg.least_squares"))
def test_rule(case, dtype, mode):
    """Every declared case of the least_squares family passes the harness."""
    case.run(dtype, mode)


def test_lstsq_full_column_rank_is_the_normal_equations():
    """For full column rank, x = (A^H A)^-1 A^H b: its cotangent of b is A (A^H A)^-1 x_bar."""
    rng = np.random.default_rng(0)
    a, b, x_bar = rng.normal(size=(6, 3)), rng.normal(size=6), rng.normal(size=3)
    (x, resids, rank, s), pullback = rrule(np.linalg.lstsq, a, b)
    assert rank == 3 and resids.shape == (1,)
    f_bar, a_bar, b_bar = pullback((x_bar, ZeroTangent(), NoTangent(), ZeroTangent()))
    np.testing.assert_allclose(b_bar, a @ np.linalg.solve(a.T @ a, x_bar))
    r = b - a @ x  # the residual's seed: d|r|^2 = 2 r^T (db - dA x)
    _, a_bar, b_bar = pullback((ZeroTangent(), np.ones(1), NoTangent(), ZeroTangent()))
    np.testing.assert_allclose(b_bar, 2 * r)
    np.testing.assert_allclose(a_bar, -2 * np.outer(r, x))


def test_lstsq_without_residuals():
    """A wide matrix has no residuals (an empty array): their tangent is zero and the rank gets NoTangent."""
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(2, 4)), rng.normal(size=(2, 3))
    out, out_dot = frule((NoTangent(), rng.normal(size=(2, 4)), rng.normal(size=(2, 3))), np.linalg.lstsq, a, b)
    assert out[1].size == 0
    x_dot, resid_dot, rank_dot, s_dot = out_dot
    assert resid_dot == ZeroTangent() and rank_dot == NoTangent() and x_dot.shape == (4, 3) and s_dot.shape == (2,)


def test_pinv_hermitian_reads_the_lower_triangle():
    """pinv(hermitian=True) sees the Hermitian matrix of the lower triangle; the cotangent lives there."""
    rng = np.random.default_rng(2)
    a = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))
    _, pullback = rrule(np.linalg.pinv, a, hermitian=True)
    a_bar = pullback(rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3)))[1]
    assert np.all(np.triu(a_bar, 1) == 0) and np.all(np.diagonal(a_bar).imag == 0)


def test_pinv_holds_the_rank():
    """At a rank-one matrix, a tangent that would raise the rank does not move the pseudo-inverse."""
    u, v = np.array([1.0, 2.0, 2.0]) / 3, np.array([0.6, 0.8])
    a = 5 * np.outer(u, v)
    raising = np.outer([2.0, -1.0, 0.0], [0.8, -0.6])  # orthogonal to u on the left and to v on the right
    _, out_dot = frule((NoTangent(), raising), np.linalg.pinv, a)
    np.testing.assert_allclose(out_dot, 0, atol=1e-12)


@pytest.mark.parametrize("f, args", [(np.linalg.pinv, ()), (np.linalg.lstsq, (np.ones(3),))])
def test_unknown_keywords_get_no_rule(f, args):
    """Keywords the rules do not know are refused with None."""
    assert rrule(f, np.eye(3), *args, bogus=1) is None
