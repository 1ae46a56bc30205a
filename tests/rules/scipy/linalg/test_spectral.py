"""scipy.linalg's eigh (standard and generalized) and polar (with scipy installed)."""

import numpy as np
import pytest

from chainrules_core import NoTangent, Tangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params

scipy_linalg = pytest.importorskip("scipy.linalg", reason="scipy is an optional dependency")

_RNG = np.random.default_rng(4)
_H = np.diag([-1.0, 0.5, 2.0]) + 0.1 * _RNG.normal(size=(3, 3))
_SPD = np.eye(3) + 0.1 * np.ones((3, 3))


@pytest.mark.parametrize("case, dtype, mode", case_params("scipy.linalg.spectral"))
def test_rule(case, dtype, mode):
    """Every declared case of eigh and polar passes the harness."""
    case.run(dtype, mode)


def test_eigh_matches_numpys_rule():
    """The standard problem is numpy's eigh: the same cotangent, on the lower triangle by default."""
    w_bar, v_bar = _RNG.normal(size=3), _RNG.normal(size=(3, 3))
    (w, v), pullback = rrule(scipy_linalg.eigh, _H, driver="evd")
    (w_np, v_np), np_pullback = rrule(np.linalg.eigh, _H)
    signs = np.sign(np.sum(v * v_np, axis=0))  # the two may pick opposite signs; the seed follows its vector
    np.testing.assert_allclose(pullback((w_bar, v_bar))[1], np_pullback((w_bar, v_bar * signs))[1], atol=1e-12)


def test_generalized_eigenvalues_only_use_the_eigenvalues():
    """dw = Re diag(V^H dA V) - w Re diag(V^H dB V) with V^H B V = I (Fox and Kapoor 1968)."""
    w, v = scipy_linalg.eigh(_H, _SPD)
    a_dot, b_dot = _RNG.normal(size=(3, 3)), _RNG.normal(size=(3, 3))
    a_dot, b_dot = a_dot + a_dot.T, b_dot + b_dot.T
    _, w_dot = frule((NoTangent(), a_dot, b_dot), scipy_linalg.eigh, _H, _SPD, eigvals_only=True)
    expected = np.diag(v.T @ a_dot @ v) - w * np.diag(v.T @ b_dot @ v)
    np.testing.assert_allclose(w_dot, expected, rtol=1e-10)


def test_eigh_b_by_keyword_is_a_constant():
    """b passed by keyword gets no cotangent (keywords never do); a's is the generalized one."""
    (w, v), pullback = rrule(scipy_linalg.eigh, _H, b=_SPD)
    assert len(pullback((np.ones(3), ZeroTangent()))) == 2
    _, positional = rrule(scipy_linalg.eigh, _H, _SPD)
    np.testing.assert_allclose(pullback((np.ones(3), ZeroTangent()))[1], positional((np.ones(3), ZeroTangent()))[1])


def test_evd_keeps_signs_locally_constant():
    """The raw-output checks run with driver='evd', whose eigenvector signs do not jump under a small change.

    scipy's default driver (evr) may flip them; a loss that depends on an
    eigenvector's sign has no derivative, and the rules give the derivative
    in the gauge where the sign (the phase) does not move.
    """
    _, v = scipy_linalg.eigh(_H, driver="evd")
    for t in (1e-7, -1e-7, 1e-5):
        _, v_t = scipy_linalg.eigh(_H + t * _RNG.normal(size=(3, 3)), driver="evd")
        assert np.all(np.sum(v * v_t, axis=0) > 0)


def test_polar_derivative_at_repeated_singular_values():
    """The polar factor of 2 Q (all singular values equal) moves by Q X with X = (Q^H dA - dA^H Q) / 4."""
    q, _ = np.linalg.qr(_RNG.normal(size=(3, 3)))
    a_dot = _RNG.normal(size=(3, 3))
    (u, p), (u_dot, p_dot) = frule((NoTangent(), a_dot), scipy_linalg.polar, 2 * q)
    x = (q.T @ a_dot - a_dot.T @ q) / 4  # H X + X H = 4 X
    np.testing.assert_allclose(u_dot, q @ x, atol=1e-12)
    np.testing.assert_allclose(p_dot, q.T @ a_dot - 2 * x, atol=1e-12)


@pytest.mark.parametrize(
    "f, args, kwargs",
    [
        ("eigh", (_H, _SPD), {"type": 2}),
        ("eigh", (_H, _SPD), {"type": 3}),
        ("eigh", (_H,), {"overwrite_a": True}),
        ("polar", (np.ones((2, 3)),), {}),
        ("polar", (np.ones((3, 2)),), {"side": "left"}),
        ("polar", (np.eye(2),), {"side": "up"}),
    ],
)
def test_calls_without_a_rule(f, args, kwargs):
    """Types 2 and 3, overwriting, and polar factorizations with a singular P get no rule (None)."""
    f = getattr(scipy_linalg, f)
    assert rrule(f, *args, **kwargs) is None
    tangents = (NoTangent(), *(np.ones_like(x) for x in args))
    assert frule(tangents, f, *args, **kwargs) is None


def test_polar_left_is_the_right_factorization_of_the_adjoint():
    """A = P U (left) and A^H = U^H P (right) have adjoint cotangents."""
    a = _RNG.normal(size=(2, 3)) + 1j * _RNG.normal(size=(2, 3))
    u_bar, p_bar = _RNG.normal(size=(2, 3)), _RNG.normal(size=(2, 2))
    _, left = rrule(scipy_linalg.polar, a, "left")
    _, right = rrule(scipy_linalg.polar, a.conj().T)
    np.testing.assert_allclose(
        left(Tangent(tuple, u_bar, p_bar))[1], right(Tangent(tuple, u_bar.conj().T, p_bar))[1].conj().T, atol=1e-12
    )


def test_eigh_with_no_eigenvalue_in_the_interval():
    """subset_by_value may select no pair: empty outputs, and a zero cotangent for a."""
    a = np.diag([-3.0, -1.0, 1.0, 3.0])
    (w, v), pullback = rrule(scipy_linalg.eigh, a, subset_by_value=(5.0, 6.0))
    assert w.shape == (0,) and v.shape == (4, 0)
    np.testing.assert_array_equal(pullback((np.zeros(0), np.zeros((4, 0))))[1], np.zeros((4, 4)))
    _, (w_dot, v_dot) = frule((NoTangent(), np.ones((4, 4))), scipy_linalg.eigh, a, subset_by_value=(5.0, 6.0))
    assert w_dot.shape == (0,) and v_dot.shape == (4, 0)
