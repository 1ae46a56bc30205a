"""Factorizations: cholesky and qr."""

import numpy as np
import pytest

from chainrules_core import NoTangent, ZeroTangent, frule, rrule
from chainrules_core.testing import registered_cases
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.linalg.factorizations"))
def test_rule(case, dtype, mode):
    """Every declared case of the factorizations family passes the harness."""
    case.run(dtype, mode)


def test_cholesky_cotangent_lives_on_the_lower_triangle():
    """cholesky reads the lower triangle: the cotangent is zero above it and real on the diagonal."""
    rng = np.random.default_rng(0)
    b = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))
    a = b @ b.conj().T + 3 * np.eye(3)
    _, pullback = rrule(np.linalg.cholesky, a)
    a_bar = pullback(rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3)))[1]
    assert np.all(np.triu(a_bar, 1) == 0) and np.all(np.diagonal(a_bar).imag == 0)
    _, pullback = rrule(np.linalg.cholesky, a, upper=True)
    a_bar = pullback(rng.normal(size=(3, 3)) + 0j)[1]
    assert np.all(np.tril(a_bar, -1) == 0)


def test_cholesky_of_identity():
    """At A = I, L = I and the cotangent is Phi(L_bar + L_bar^T) on the lower triangle."""
    l_bar = np.array([[1.0, 0.0], [2.0, 3.0]])
    _, pullback = rrule(np.linalg.cholesky, np.eye(2))
    np.testing.assert_allclose(pullback(l_bar)[1], [[0.5, 0.0], [2.0, 1.5]])


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_qr_complete_of_a_tall_matrix(dtype):
    """mode='complete' with m > n: Q stays unitary to first order and its extra columns do not turn among themselves."""
    rng = np.random.default_rng(1)
    a, a_dot = rng.normal(size=(5, 2)).astype(dtype), rng.normal(size=(5, 2)).astype(dtype)
    if dtype == np.complex128:
        a, a_dot = a + 1j * rng.normal(size=(5, 2)), a_dot + 1j * rng.normal(size=(5, 2))
    (q, r), out_dot = frule((NoTangent(), a_dot), np.linalg.qr, a, mode="complete")
    skew = q.conj().T @ out_dot.Q
    np.testing.assert_allclose(skew, -skew.conj().T, atol=1e-12)
    np.testing.assert_allclose(skew[2:, 2:], 0, atol=1e-12)
    np.testing.assert_array_equal(out_dot.R[2:], 0)
    (_, _), pullback = rrule(np.linalg.qr, a, mode="complete")
    q_bar = np.zeros((5, 5), dtype)
    q_bar[:, :2] = 1.0
    _, reduced = rrule(np.linalg.qr, a)
    np.testing.assert_allclose(pullback((q_bar, ZeroTangent()))[1], reduced((q_bar[:, :2], ZeroTangent()))[1])


def test_qr_raw_mode_has_no_rule():
    """mode='raw' returns Householder reflectors: no rule (None)."""
    assert rrule(np.linalg.qr, np.eye(2), mode="raw") is None


@pytest.mark.parametrize("mode", ["frule", "rrule"])
def test_cholesky_without_scipy(monkeypatch, mode):
    """Without scipy the triangular solves fall back to numpy's general solve, with the same results."""
    from chainrules.rules.numpy.linalg import _common as _linalg_common

    monkeypatch.setattr(_linalg_common, "_scipy_solve_triangular", lambda: None)
    for _, case in registered_cases("numpy.linalg.factorizations"):
        if case.f is np.linalg.cholesky:
            for dtype in ("float64", "complex128"):
                case.run(dtype, mode)


@pytest.mark.parametrize("scipy", [True, False])
@pytest.mark.parametrize("shape", [(0, 5, 5), (0, 0, 0), (0, 0), (2, 0, 0)])
def test_cholesky_of_zero_size_stacks(monkeypatch, scipy, shape):
    """numpy returns an empty factor; so do both rules, with scipy's triangular solves and without."""
    from chainrules.rules.numpy.linalg import _common as _linalg_common

    if scipy:
        pytest.importorskip("scipy.linalg")
    else:
        monkeypatch.setattr(_linalg_common, "_scipy_solve_triangular", lambda: None)
    a = np.zeros(shape)
    out, pullback = rrule(np.linalg.cholesky, a)
    assert out.shape == shape and pullback(np.zeros(shape))[1].shape == shape
    assert frule((NoTangent(), np.zeros(shape)), np.linalg.cholesky, a)[1].shape == shape
