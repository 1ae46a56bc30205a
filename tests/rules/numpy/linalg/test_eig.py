"""Eigendecomposition of general matrices: eig, eigvals."""

import numpy as np
import pytest

from chainrules_core import NoTangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.linalg.eig"))
def test_rule(case, dtype, mode):
    """Every declared case of the eig family passes the harness."""
    case.run(dtype, mode)


def test_eigvals_primal_is_numpys_own():
    """eigvals returns exactly numpy's eigenvalues; its pullback agrees with eig's for a seed on the eigenvalues."""
    a = np.random.default_rng(0).normal(size=(2, 4, 4))
    w, pullback = rrule(np.linalg.eigvals, a)
    np.testing.assert_array_equal(w, np.linalg.eigvals(a))
    w_bar = np.random.default_rng(1).normal(size=w.shape) + 0j
    _, eig_pullback = rrule(np.linalg.eig, a)
    np.testing.assert_allclose(pullback(w_bar)[1], eig_pullback((w_bar, ZeroTangent()))[1], atol=1e-12)


def test_real_input_with_complex_eigenvalues_gets_a_real_cotangent():
    """A real matrix with complex eigenvalues: complex outputs, a real float32 cotangent for a float32 input."""
    a = np.array([[0.0, -2.0], [1.0, 0.5]], dtype=np.float32)
    (w, v), pullback = rrule(np.linalg.eig, a)
    assert w.dtype == np.complex64
    a_bar = pullback((np.ones(2, np.complex64), np.ones((2, 2), np.complex64)))[1]
    assert a_bar.dtype == np.float32


def test_pullback_ignores_phase_and_length_changes_of_the_eigenvectors():
    """A cotangent that only rescales or rotates each eigenvector (V diag(c)) contributes nothing."""
    rng = np.random.default_rng(2)
    a = rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4))
    (w, v), pullback = rrule(np.linalg.eig, a)
    v_bar = rng.normal(size=(4, 4)) + 1j * rng.normal(size=(4, 4))
    c = rng.normal(size=4) + 1j * rng.normal(size=4)
    base = pullback((ZeroTangent(), v_bar))[1]
    np.testing.assert_allclose(pullback((ZeroTangent(), v_bar + v * c))[1], base, atol=1e-12)
    np.testing.assert_allclose(pullback((ZeroTangent(), v * c))[1], 0, atol=1e-12)


def test_pushforward_keeps_the_eigenvectors_unit_and_their_phases_fixed():
    """The gauge: diag(V^H V_dot) = 0."""
    rng = np.random.default_rng(3)
    a, a_dot = rng.normal(size=(2, 4, 4)), rng.normal(size=(2, 4, 4))
    (w, v), out_dot = frule((NoTangent(), a_dot), np.linalg.eig, a)
    np.testing.assert_allclose(np.einsum("...ki,...ki->...i", v.conj(), out_dot.eigenvectors), 0, atol=1e-12)


def test_repeated_eigenvalues():
    """A seed on the eigenvalues alone stays finite; one on the eigenvectors gives inf/nan with numpy's warning."""
    a = np.diag([1.0, 1.0, 2.0]) + np.triu(np.ones((3, 3)), 2)  # diagonalizable, eigenvalue 1 twice
    (w, v), pullback = rrule(np.linalg.eig, a)
    with np.errstate(all="raise"):
        a_bar = pullback((np.array([0.5, 0.5, 1.0]), np.zeros((3, 3))))[1]
    # 0.5 tr(A) + 0.5 w_3, and w_3 = 2 has the right eigenvector (1, 0, 1), the left one (0, 0, 1)
    np.testing.assert_allclose(a_bar, [[0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.5, 0.0, 1.0]], atol=1e-12)
    with pytest.warns(RuntimeWarning):
        a_bar = pullback((ZeroTangent(), np.ones((3, 3))))[1]
    assert not np.all(np.isfinite(a_bar))


def test_defective_matrix():
    """A Jordan block has no eigenvalue derivative: huge cotangents, except for their sum (the trace)."""
    a = np.array([[1.0, 1.0], [0.0, 1.0]])
    _, pullback = rrule(np.linalg.eigvals, a)
    np.testing.assert_allclose(pullback(np.ones(2))[1], np.eye(2), atol=1e-6)
    assert np.max(np.abs(pullback(np.array([1.0, 0.0]))[1])) > 1e10
