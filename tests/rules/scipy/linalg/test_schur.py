"""scipy.linalg's schur (with scipy installed): the declared cases, the gauge, and what has no derivative."""

import numpy as np
import pytest

from chainrules_core import NoTangent, frule, rrule
from tests.rules.cases import case_params

scipy_linalg = pytest.importorskip("scipy.linalg", reason="scipy is an optional dependency")

_RNG = np.random.default_rng(5)
_V = _RNG.normal(size=(4, 4)) + 4 * np.eye(4)
_REAL_EIGENVALUES = (_V * np.array([-2.0, -0.5, 1.0, 3.0])) @ np.linalg.inv(_V)
_ROTATION = np.array([[1.0, -3.0, 0.3], [2.0, 1.0, 0.1], [0.0, 0.2, 3.0]])  # eigenvalues near 1 ± 2.4i and 3


@pytest.mark.parametrize("case, dtype, mode", case_params("scipy.linalg.schur"))
def test_rule(case, dtype, mode):
    """Every declared case of schur passes the harness."""
    case.run(dtype, mode)


@pytest.mark.parametrize("a", [_REAL_EIGENVALUES + 0.3j * _RNG.normal(size=(4, 4)), _ROTATION])
def test_the_part_of_a_cotangent_that_only_turns_phases_is_ignored(a):
    """The gauge ``Z -> Z D`` (``D`` diagonal unitary): adding ``Z i diag(theta)`` to ``Z_bar`` leaves ``A_bar`` as it
    was, and the pushforward keeps each column's phase (``diag(Z^H dZ) = 0``) with ``dT`` upper triangular."""
    (t, z), pullback = rrule(scipy_linalg.schur, a, output="complex")
    theta = np.array([0.3, -1.0, 2.0, 0.5])[: t.shape[0]]
    t_bar, z_bar = _RNG.normal(size=t.shape) + 0j, _RNG.normal(size=z.shape) + 1j * _RNG.normal(size=z.shape)
    np.testing.assert_allclose(pullback((t_bar, z_bar + z * (1j * theta)))[1], pullback((t_bar, z_bar))[1], atol=1e-12)
    _, (t_dot, z_dot) = frule((NoTangent(), np.ones_like(a)), scipy_linalg.schur, a, output="complex")
    np.testing.assert_allclose(np.diagonal(z.conj().T @ z_dot), 0.0, atol=1e-12)
    np.testing.assert_allclose(np.tril(t_dot, -1), 0.0, atol=1e-12)


def test_real_form_blocks_stay_standardized():
    """``output='real'`` with a 2 x 2 block: the tangent keeps the block's diagonal entries equal (LAPACK's
    standardized form) and nothing below the blocks; ``Z`` stays orthogonal to first order."""
    (t, z), (t_dot, z_dot) = frule((NoTangent(), np.cos(np.arange(9.0)).reshape(3, 3)), scipy_linalg.schur, _ROTATION)
    assert t[1, 0] != 0
    assert abs(t_dot[0, 0] - t_dot[1, 1]) < 1e-12
    np.testing.assert_allclose(t_dot[2, :2], 0.0, atol=0)
    np.testing.assert_allclose(z.T @ z_dot + z_dot.T @ z, 0.0, atol=1e-12)


def test_overwrite_a_is_never_taken():
    a = _REAL_EIGENVALUES.copy(order="F")
    out, _ = rrule(scipy_linalg.schur, a, overwrite_a=True)
    np.testing.assert_array_equal(a, _REAL_EIGENVALUES)
    np.testing.assert_allclose(out[0], scipy_linalg.schur(_REAL_EIGENVALUES)[0])


def test_integer_input_gets_no_tangent():
    a = np.array([[2, 1], [0, 1]])
    out, pullback = rrule(scipy_linalg.schur, a)
    assert pullback((np.ones((2, 2)), np.ones((2, 2)))) == (NoTangent(), NoTangent())
