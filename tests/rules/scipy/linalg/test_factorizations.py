"""scipy.linalg's factorizations: lu, lu_factor, lu_solve, cho_factor, cho_solve, qr (with scipy installed)."""

import numpy as np
import pytest

import chainrules.engines as ad
from chainrules_core import NoTangent, Tangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params

scipy_linalg = pytest.importorskip("scipy.linalg", reason="scipy is an optional dependency")

_RNG = np.random.default_rng(3)
_A = _RNG.normal(size=(3, 3)) + 4 * np.eye(3)
_B = _RNG.normal(size=(3, 2))


@pytest.mark.parametrize("case, dtype, mode", case_params("scipy.linalg.factorizations"))
def test_rule(case, dtype, mode):
    """Every declared case of the factorizations passes the harness."""
    case.run(dtype, mode)


def _loss_through_lu(a, b):
    lu_factor, lu_solve = ad.lift(scipy_linalg.lu_factor), ad.lift(scipy_linalg.lu_solve)
    return np.sum(lu_solve(lu_factor(a), b) ** 2)


def _loss_through_cholesky(a, b):
    cho_factor, cho_solve = ad.lift(scipy_linalg.cho_factor), ad.lift(scipy_linalg.cho_solve)
    return np.sum(cho_solve(cho_factor(a, lower=True), b) ** 2)


def _loss_through_solve(a, b):
    return np.sum(np.linalg.solve(a, b) ** 2)


def test_lu_factor_then_lu_solve_differentiates_as_solve():
    """A program calling lu_factor then lu_solve has solve's gradient and tangent, through both rules."""
    expected = ad.gradient(_loss_through_solve, _A, _B)
    for got, want in zip(ad.gradient(_loss_through_lu, _A, _B), expected):
        np.testing.assert_allclose(got, want, rtol=1e-10)
    tangents = (_RNG.normal(size=(3, 3)), _RNG.normal(size=(3, 2)))
    np.testing.assert_allclose(
        ad.jvp(_loss_through_lu, (_A, _B), tangents)[1], ad.jvp(_loss_through_solve, (_A, _B), tangents)[1]
    )


def test_cho_factor_then_cho_solve_differentiates_as_solve_on_the_triangle():
    """Through cho_factor and cho_solve, a's gradient is solve's folded onto the lower triangle read."""
    spd = _A @ _A.T
    noisy = np.tril(spd) + np.triu(_RNG.normal(size=(3, 3)), 1)  # cho_factor(lower=True) never reads above
    a_bar, b_bar = ad.gradient(_loss_through_cholesky, noisy, _B)
    full, b_expected = ad.gradient(_loss_through_solve, spd, _B)
    np.testing.assert_allclose(a_bar, np.tril(full + full.T, -1) + np.diag(np.diag(full)), rtol=1e-10)
    np.testing.assert_allclose(b_bar, b_expected, rtol=1e-10)


def test_cho_factor_passes_the_untouched_triangle_through():
    """c's other triangle holds a's entries: its tangent is a's, its cotangent goes back to a unchanged."""
    spd = _A @ _A.T
    (c, lower), pullback = rrule(scipy_linalg.cho_factor, spd)  # upper triangle read
    seed = np.tril(np.ones((3, 3)), -1)  # only on the lower strict triangle, which is a copy of a's
    np.testing.assert_array_equal(pullback(Tangent(tuple, seed, NoTangent()))[1], seed)
    a_dot = np.tril(_RNG.normal(size=(3, 3)), -1)
    _, (c_dot, lower_dot) = frule((NoTangent(), a_dot), scipy_linalg.cho_factor, spd)
    np.testing.assert_array_equal(c_dot, a_dot)
    assert lower is False and lower_dot == NoTangent()


def test_lu_permutation_gets_no_tangent_and_its_cotangent_is_ignored():
    """P is locally constant: NoTangent in the frule, and any cotangent for it changes nothing."""
    (p, low, up), pullback = rrule(scipy_linalg.lu, _A)
    _, (p_dot, _, _) = frule((NoTangent(), np.ones((3, 3))), scipy_linalg.lu, _A)
    assert p_dot == NoTangent()
    u_bar = np.triu(np.ones((3, 3)))
    np.testing.assert_array_equal(
        pullback(Tangent(tuple, np.ones((3, 3)), ZeroTangent(), u_bar))[1],
        pullback(Tangent(tuple, ZeroTangent(), ZeroTangent(), u_bar))[1],
    )


def test_lu_forms_agree():
    """permute_l and p_indices give the same cotangent as P, L, U for the same seeds on L and U."""
    a = _RNG.normal(size=(4, 3))
    (p, low, up), pullback = rrule(scipy_linalg.lu, a)
    low_bar, up_bar = _RNG.normal(size=low.shape), _RNG.normal(size=up.shape)
    expected = pullback(Tangent(tuple, ZeroTangent(), low_bar, up_bar))[1]
    _, indices_pullback = rrule(scipy_linalg.lu, a, p_indices=True)
    np.testing.assert_allclose(indices_pullback(Tangent(tuple, NoTangent(), low_bar, up_bar))[1], expected)
    _, permuted_pullback = rrule(scipy_linalg.lu, a, permute_l=True)
    np.testing.assert_allclose(permuted_pullback(Tangent(tuple, p @ low_bar, up_bar))[1], expected)


def test_qr_full_of_a_tall_matrix():
    """mode='full' with m > n: a cotangent on the basis of the complement raises; the frule refuses."""
    a = _RNG.normal(size=(4, 2))
    _, pullback = rrule(scipy_linalg.qr, a)
    with pytest.raises(ValueError, match="mode='economic'"):
        pullback(Tangent(tuple, np.ones((4, 4)), ZeroTangent()))
    assert frule((NoTangent(), np.ones((4, 2))), scipy_linalg.qr, a) is None


@pytest.mark.parametrize(
    "f, args, kwargs",
    [
        ("qr", (_A,), {"mode": "raw"}),
        ("qr", (_A,), {"overwrite_a": True}),
        ("lu", (_A,), {"overwrite_a": True}),
        ("lu_factor", (_A,), {"overwrite_a": True}),
        ("cho_factor", (_A @ _A.T,), {"overwrite_a": True}),
    ],
)
def test_calls_without_a_rule(f, args, kwargs):
    """Options the rules cannot honour get no rule (None), in both modes."""
    f = getattr(scipy_linalg, f)
    assert rrule(f, *args, **kwargs) is None
    assert frule((NoTangent(), np.ones((3, 3))), f, *args, **kwargs) is None


def test_lu_solve_and_cho_solve_refuse_overwrite_b():
    factored, spd_factored = scipy_linalg.lu_factor(_A), scipy_linalg.cho_factor(_A @ _A.T)
    for f, first in ((scipy_linalg.lu_solve, factored), (scipy_linalg.cho_solve, spd_factored)):
        assert rrule(f, first, _B, overwrite_b=True) is None
        assert frule((NoTangent(), ZeroTangent(), _B), f, first, _B, overwrite_b=True) is None


def test_factors_of_a_0d_array():
    """cho_factor and lu_factor take a 0-d array as a 1 x 1 matrix: sqrt(a) and a itself, tangents of scipy's shapes."""
    a = np.array(4.0)
    (c, _), pullback = rrule(scipy_linalg.cho_factor, a)
    assert c.shape == (1, 1)
    np.testing.assert_allclose(pullback((np.array([[1.0]]), NoTangent()))[1], 0.25)
    (lu, _), pullback = rrule(scipy_linalg.lu_factor, a)
    assert lu.shape == ()
    assert pullback((np.array(1.5), NoTangent()))[1] == 1.5
    lu_dot = frule((NoTangent(), np.array(2.0)), scipy_linalg.lu_factor, a)[1][0]
    assert np.shape(lu_dot) == () and lu_dot == 2.0


def test_cho_solve_of_a_0d_factor_raises_as_scipy():
    with pytest.raises(ValueError, match="not square"):
        rrule(scipy_linalg.cho_solve, (np.array(2.0), False), np.array([1.0]))


@pytest.mark.parametrize("shape", [(3, 0), (0, 3), (0, 4, 3)])
@pytest.mark.parametrize("permute_l", [False, True])
def test_lu_of_an_empty_matrix_or_stack(shape, permute_l):
    """Empty factors, empty tangents of their shapes, an empty cotangent of a's."""
    a = np.zeros(shape)
    out, pullback = rrule(scipy_linalg.lu, a, permute_l=permute_l)
    seed = Tangent(tuple, *(np.zeros(x.shape) for x in out))
    assert pullback(seed)[1].shape == shape
    out_dot = frule((NoTangent(), np.zeros(shape)), scipy_linalg.lu, a, permute_l=permute_l)[1]
    for x, x_dot in zip(out[-2:], list(out_dot)[-2:]):
        assert x_dot.shape == x.shape


def test_lu_solve_refuses_pivots_past_its_factors():
    """scipy would read outside its arrays; the rules say what is wrong. Valid pivots of 1 x 1 factors work."""
    lu = np.array([[[2.0]], [[3.0]]])
    x, pullback = rrule(scipy_linalg.lu_solve, scipy_linalg.lu_factor(lu), np.array([1.0]))
    np.testing.assert_allclose(x, [[0.5], [1 / 3]])
    np.testing.assert_allclose(pullback(np.ones((2, 1)))[2], [0.5 + 1 / 3])
    with pytest.raises(ValueError, match="lu_solve: lu_and_piv holds pivots outside the 1 rows"):
        rrule(scipy_linalg.lu_solve, (lu, np.array([[0], [1]], dtype=np.int32)), np.array([1.0]))
