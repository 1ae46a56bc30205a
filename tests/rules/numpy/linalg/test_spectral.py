"""Spectral decompositions: eigh, eigvalsh, svd, svdvals."""

import numpy as np
import pytest

from chainrules_core import NoTangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.linalg.spectral"))
def test_rule(case, dtype, mode):
    """Every declared case of the spectral family passes the harness."""
    case.run(dtype, mode)


def adjoint(x):
    return np.swapaxes(x, -1, -2).conj()


def _fd_gradient(f, a, h=1e-6):
    """Central differences of a scalar function, entry by entry (real matrices)."""
    g = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[idx] = h
        g[idx] = (f(a + e) - f(a - e)) / (2 * h)
    return g


def test_eigh_degenerate_eigenvalues_with_a_seed_on_the_eigenvalues_only():
    """With a repeated eigenvalue and no eigenvector cotangent the pullback is finite and correct."""
    q, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(3, 3)))
    a = (q * [1.0, 1.0, 3.0]) @ q.T
    w_bar = np.array([0.7, 0.7, -1.3])  # equal on the repeated pair: a smooth function of a
    (w, v), pullback = rrule(np.linalg.eigh, a)
    with np.errstate(all="raise"):  # no division by the zero gap happens
        a_bar = pullback((w_bar, ZeroTangent()))[1]
    expected = _fd_gradient(lambda x: w_bar @ np.linalg.eigvalsh(x), a)
    np.testing.assert_allclose(a_bar, expected, atol=1e-7)
    assert np.allclose(np.triu(a_bar, 1), 0)  # the cotangent lives on the lower triangle read


def test_eigh_degenerate_eigenvectors_are_not_differentiable():
    """A cotangent on the eigenvectors at a repeated eigenvalue gives a non-finite result, with a warning."""
    a = np.diag([1.0, 1.0, 2.0])
    _, pullback = rrule(np.linalg.eigh, a)
    with pytest.warns(RuntimeWarning):
        a_bar = pullback((ZeroTangent(), np.ones((3, 3))))[1]
    assert not np.all(np.isfinite(a_bar))


def test_eigh_reads_one_triangle():
    """The upper triangle of the input is never read: its cotangent is zero and the diagonal is real."""
    rng = np.random.default_rng(1)
    a = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))
    (w, v), pullback = rrule(np.linalg.eigh, a, UPLO="L")
    a_bar = pullback((rng.normal(size=3), rng.normal(size=(3, 3)) + 0j))[1]
    assert np.all(np.triu(a_bar, 1) == 0)
    assert np.all(np.diagonal(a_bar).imag == 0)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 2)])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_svd_full_matrices_gauge(shape, dtype):
    """full_matrices=True: U and Vh stay unitary to first order, and the extra vectors do not turn among themselves."""
    rng = np.random.default_rng(2)
    a = rng.normal(size=shape).astype(dtype)
    a_dot = rng.normal(size=shape).astype(dtype)
    if dtype == np.complex128:
        a, a_dot = a + 1j * rng.normal(size=shape), a_dot + 1j * rng.normal(size=shape)
    (u, s, vh), out_dot = frule((NoTangent(), a_dot), np.linalg.svd, a)
    k = s.shape[-1]
    for q, q_dot in [(u, out_dot.U), (adjoint(vh), adjoint(out_dot.Vh))]:
        skew = adjoint(q) @ q_dot
        np.testing.assert_allclose(skew, -adjoint(skew), atol=1e-12)  # d(Q^H Q) = 0
        np.testing.assert_allclose(skew[..., k:, k:], 0, atol=1e-12)  # Q2^H Q2_dot = 0


def test_svd_full_matrices_agrees_with_reduced_on_the_first_vectors():
    """A cotangent on the first min(m, n) vectors alone gives the reduced SVD's cotangent."""
    rng = np.random.default_rng(2)
    a = rng.normal(size=(4, 2))
    (u, s, vh), pullback = rrule(np.linalg.svd, a)
    assert u.shape == (4, 4)
    u_bar = np.zeros((4, 4))
    u_bar[:, :2] = rng.normal(size=(4, 2))
    _, reduced_pullback = rrule(np.linalg.svd, a, full_matrices=False)
    np.testing.assert_allclose(
        pullback((u_bar, ZeroTangent(), ZeroTangent()))[1],
        reduced_pullback((u_bar[:, :2], ZeroTangent(), ZeroTangent()))[1],
    )


def test_svd_full_matrices_projector_onto_the_complement():
    """The derivative of U2 U2^H = I - U1 U1^H through the extra vectors matches the one through U1."""
    rng = np.random.default_rng(4)
    a, a_dot = rng.normal(size=(5, 2)), rng.normal(size=(5, 2))
    (u, _, _), out_dot = frule((NoTangent(), a_dot), np.linalg.svd, a)
    u1, u2, u1_dot, u2_dot = u[:, :2], u[:, 2:], out_dot.U[:, :2], out_dot.U[:, 2:]
    through_u2 = u2_dot @ u2.T + u2 @ u2_dot.T
    through_u1 = -(u1_dot @ u1.T + u1 @ u1_dot.T)
    np.testing.assert_allclose(through_u2, through_u1, atol=1e-12)


@pytest.mark.parametrize(
    "f, kwargs", [(np.linalg.eigvalsh, {}), (np.linalg.svdvals, {}), (np.linalg.svd, {"compute_uv": False})]
)
def test_values_only_primals_are_numpys_own(f, kwargs):
    """The primal of eigvalsh, svdvals and svd(compute_uv=False) is exactly numpy's, not the vectors' path."""
    rng = np.random.default_rng(5)
    a = rng.normal(size=(3, 6, 6))
    a = a + np.swapaxes(a, -1, -2)
    expected = f(a, **kwargs)
    np.testing.assert_array_equal(rrule(f, a, **kwargs)[0], expected)
    np.testing.assert_array_equal(frule((NoTangent(), a), f, a, **kwargs)[0], expected)


def test_eigh_zero_eigenvector_cotangent_at_repeated_eigenvalues():
    """An all-zero eigenvector cotangent contributes nothing, even where eigenvalues repeat (no 0 * inf)."""
    a = np.diag([1.0, 1.0, 2.0])
    _, pullback = rrule(np.linalg.eigh, a)
    w_bar = np.array([0.5, 0.5, 1.0])
    with np.errstate(all="raise"):
        a_bar = pullback((w_bar, np.zeros((3, 3))))[1]
    np.testing.assert_array_equal(a_bar, pullback((w_bar, ZeroTangent()))[1])
    with np.errstate(all="raise"):
        _, out_dot = frule((NoTangent(), np.diag([1.0, 2.0, 3.0])), np.linalg.eigh, a)
    np.testing.assert_allclose(out_dot.eigenvectors, 0)  # a diagonal tangent does not mix the eigenvectors


def test_svd_zero_vector_cotangents_at_repeated_singular_values():
    """Zero cotangents on U and Vh contribute nothing where singular values repeat."""
    a = np.diag([2.0, 2.0, 1.0])
    _, pullback = rrule(np.linalg.svd, a)
    with np.errstate(all="raise"):
        a_bar = pullback((np.zeros((3, 3)), np.ones(3), np.zeros((3, 3))))[1]
    np.testing.assert_allclose(a_bar, np.eye(3))


def test_svd_singular_values_only_at_a_repeated_singular_value():
    """svdvals and a seed on s alone stay finite where singular values repeat."""
    a = np.diag([2.0, 2.0, 1.0])
    _, pullback = rrule(np.linalg.svd, a)
    with np.errstate(all="raise"):
        a_bar = pullback((ZeroTangent(), np.array([1.0, 1.0, 1.0]), ZeroTangent()))[1]
    np.testing.assert_allclose(a_bar, np.eye(3))
    np.testing.assert_allclose(rrule(np.linalg.svdvals, a)[1](np.ones(3))[1], np.eye(3))


def test_svd_hermitian_reads_the_lower_triangle():
    """svd(hermitian=True) goes through eigh(a), so only the lower triangle gets a cotangent."""
    rng = np.random.default_rng(3)
    h = rng.normal(size=(3, 3))
    h = h + h.T
    _, pullback = rrule(np.linalg.svd, h, hermitian=True)
    a_bar = pullback((ZeroTangent(), np.ones(3), ZeroTangent()))[1]
    assert np.all(np.triu(a_bar, 1) == 0)


def test_float32_stays_float32():
    """float32 input gives float32 outputs, tangents and cotangents."""
    a = np.diag([3.0, 2.0, 1.0]).astype(np.float32)
    out, out_dot = frule((NoTangent(), np.ones((3, 3), np.float32)), np.linalg.svd, a, full_matrices=False)
    assert out_dot.U.dtype == np.float32 and out_dot.S.dtype == np.float32
    _, pullback = rrule(np.linalg.eigh, a)
    assert pullback((np.ones(3, np.float32), ZeroTangent()))[1].dtype == np.float32


@pytest.mark.parametrize("f", [np.linalg.eigh, np.linalg.svd])
def test_unsupported_keywords_get_no_rule(f):
    """Unknown keywords are refused with None."""
    assert rrule(f, np.eye(2), bogus=True) is None
