"""scipy.linalg's matrix functions and matrix equations (with scipy installed)."""

import numpy as np
import pytest

from chainrules_core import NoTangent, Tangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params

scipy_linalg = pytest.importorskip("scipy.linalg", reason="scipy is an optional dependency")

pytestmark = pytest.mark.filterwarnings("ignore:logm result may be inaccurate:RuntimeWarning")

_RNG = np.random.default_rng(7)
_A = 2 * np.eye(3) + _RNG.normal(size=(3, 3)) / 4 + 1j * _RNG.normal(size=(3, 3)) / 4
_E = _RNG.normal(size=(3, 3)) + 1j * _RNG.normal(size=(3, 3))


@pytest.mark.parametrize("case, dtype, mode", case_params("scipy.linalg.matfuncs"))
def test_rule(case, dtype, mode):
    """Every declared case of the matrix functions passes the harness."""
    case.run(dtype, mode)


def test_expm_agrees_with_scipys_frechet_derivative():
    """The block-triangular derivative equals Al-Mohy and Higham's expm_frechet; the pullback is L(A^H, .)."""
    _, out_dot = frule((NoTangent(), _E), scipy_linalg.expm, _A)
    np.testing.assert_allclose(out_dot, scipy_linalg.expm_frechet(_A, _E, compute_expm=False), rtol=1e-10)
    _, pullback = rrule(scipy_linalg.expm, _A)
    np.testing.assert_allclose(pullback(_E)[1], scipy_linalg.expm_frechet(_A.conj().T, _E, compute_expm=False))


def test_logm_inverts_the_derivative_of_expm():
    """exp(log(A)) = A, so L_exp(log A, L_log(A, E)) = E."""
    x, x_dot = frule((NoTangent(), _E), scipy_linalg.logm, _A)
    np.testing.assert_allclose(scipy_linalg.expm_frechet(x, x_dot, compute_expm=False), _E, rtol=1e-8)


def test_sqrtm_solves_its_sylvester_equation():
    """X = sqrtm(A): X dX + dX X = dA."""
    x, x_dot = frule((NoTangent(), _E), scipy_linalg.sqrtm, _A)
    np.testing.assert_allclose(x @ x_dot + x_dot @ x, _E, rtol=1e-10)


def test_expm_frechet_second_derivative_is_symmetric():
    """L2(A, E, F) = L2(A, F, E): the frule along F at direction E equals the frule along E at direction F."""
    f = _RNG.normal(size=(3, 3))
    _, (_, along_f) = frule((NoTangent(), f, ZeroTangent()), scipy_linalg.expm_frechet, _A, _E)
    _, (_, along_e) = frule((NoTangent(), _E, ZeroTangent()), scipy_linalg.expm_frechet, _A, f)
    np.testing.assert_allclose(along_f, along_e, rtol=1e-9)


def test_expm_frechet_pullback_reads_a_tuple_seed():
    """A seed on L alone (ZeroTangent for expm(A)) is read entry by entry."""
    _, pullback = rrule(scipy_linalg.expm_frechet, _A, _E)
    _, a_bar, e_bar = pullback(Tangent(tuple, ZeroTangent(), np.ones((3, 3))))
    _, l_pullback = rrule(scipy_linalg.expm_frechet, _A, _E, compute_expm=False)
    _, a_bar_l, e_bar_l = l_pullback(np.ones((3, 3)))
    np.testing.assert_allclose(a_bar, a_bar_l)
    np.testing.assert_allclose(e_bar, e_bar_l)


@pytest.mark.parametrize(
    "f, kwargs", [("sqrtm", {"disp": False}), ("sqrtm", {"blocksize": 8}), ("logm", {"disp": False})]
)
def test_deprecated_options_get_no_rule(f, kwargs):
    """sqrtm's and logm's deprecated options change the output: no rule (None)."""
    f = getattr(scipy_linalg, f)
    assert rrule(f, np.eye(2), **kwargs) is None
    assert frule((NoTangent(), np.eye(2)), f, np.eye(2), **kwargs) is None


@pytest.mark.parametrize("f", ["logm", "sqrtm", "expm"])
def test_a_stack_is_differentiated_matrix_by_matrix(f):
    """A stack's tangent and cotangent are those of its matrices, each on its own."""
    f = getattr(scipy_linalg, f)
    a, e = np.stack([_A, _A.conj().T]), np.stack([_E, 2 * _E])
    _, out_dot = frule((NoTangent(), e), f, a)
    _, pullback = rrule(f, a)
    a_bar = pullback(e)[1]
    for i in range(2):
        np.testing.assert_allclose(out_dot[i], frule((NoTangent(), e[i]), f, a[i])[1], rtol=1e-10)
        np.testing.assert_allclose(a_bar[i], rrule(f, a[i])[1](e[i])[1], rtol=1e-10)


def test_expm_of_a_0d_array_is_of_a_1x1_matrix():
    """scipy's expm takes a 0-d array as a 1 x 1 matrix: the derivative is exp(a), the cotangent 0-d."""
    out, pullback = rrule(scipy_linalg.expm, np.array(0.5))
    assert out.shape == (1, 1)
    a_bar = pullback(np.array([[2.0]]))[1]
    assert a_bar.shape == ()
    np.testing.assert_allclose(a_bar, 2 * np.exp(0.5))
    np.testing.assert_allclose(
        frule((NoTangent(), np.array(3.0)), scipy_linalg.expm, np.array(0.5))[1], [[3 * np.exp(0.5)]]
    )


def test_sqrtm_of_a_zero_size_stack_and_of_a_0d_array():
    """An empty stack has empty derivatives; a 0-d array gets no rule (scipy 1.17 returns exp(a) for it)."""
    a = np.zeros((0, 3, 3))
    out, pullback = rrule(scipy_linalg.sqrtm, a)
    assert pullback(np.zeros(out.shape))[1].shape == a.shape
    assert frule((NoTangent(), np.zeros(a.shape)), scipy_linalg.sqrtm, a)[1].shape == out.shape
    assert rrule(scipy_linalg.sqrtm, np.array(4.0)) is None


def test_solve_sylvester_checks_the_shapes_scipy_does_not():
    """scipy returns uninitialized memory for an empty a that is not square; the rules say what is wrong."""
    with pytest.raises(ValueError, match="solve_sylvester: a of shape \\(0, 3\\) is not square"):
        rrule(scipy_linalg.solve_sylvester, np.zeros((0, 3)), np.eye(2), np.ones((3, 2)))
    with pytest.raises(ValueError, match="solve_sylvester: q of shape"):
        frule((NoTangent(),) * 4, scipy_linalg.solve_sylvester, np.eye(3), np.eye(2), np.ones((2, 2)))


def test_sqrtm_with_an_infinite_entry_in_a_stack():
    """scipy's square root of a matrix with an infinite entry is NaN: its derivative too, the stack's others intact."""
    a = np.array([[[4.0, 1.0], [0.5, 9.0]], [[4.0, 1.0], [0.5, 9.0]]])
    a[0, 0, 1] = np.inf
    out, out_dot = frule((NoTangent(), np.ones(a.shape)), scipy_linalg.sqrtm, a)
    assert np.all(np.isnan(out[0]))
    assert np.all(np.isnan(out_dot[0]))
    expected = frule((NoTangent(), np.ones((2, 2))), scipy_linalg.sqrtm, a[1])[1]
    np.testing.assert_allclose(out_dot[1], expected)
