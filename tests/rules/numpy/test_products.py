"""The products: matmul, ``@``, dot, vdot, inner, outer, tensordot, kron, cross, vecdot, matvec, vecmat, multi_dot."""

import operator

import numpy as np
import pytest

from chainrules_core import NoTangent, Tangent, Thunk, ZeroTangent, frule, rrule, unthunk
from chainrules_core.testing import test_frule, test_rrule
from tests.rules.cases import case_params


@pytest.mark.filterwarnings("ignore:Arrays of 2-dimensional vectors are deprecated:DeprecationWarning")
@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.products"))
def test_rule(case, dtype, mode):
    """Every declared case of the products family passes the harness."""
    case.run(dtype, mode)


def test_matmul_cotangents_are_lazy_and_exact():
    """Each operand's cotangent is a thunk holding out_bar @ b^H and a^H @ out_bar."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))
    b = rng.normal(size=(4, 2))
    out, pullback = rrule(np.matmul, a, b)
    g = rng.normal(size=(3, 2)) + 1j * rng.normal(size=(3, 2))
    _, a_bar, b_bar = pullback(g)
    assert isinstance(a_bar, Thunk) and isinstance(b_bar, Thunk)
    np.testing.assert_allclose(unthunk(a_bar), g @ b.T)
    np.testing.assert_allclose(unthunk(b_bar), (a.conj().T @ g).real)
    assert unthunk(b_bar).dtype == np.float64


def test_matmul_operator_is_typed_on_arrays():
    """``@`` has a rule for arrays (and lists beside arrays) but claims no Python numbers."""
    a, b = np.ones((2, 3)), np.ones((3, 2))
    assert rrule(operator.matmul, a, b) is not None
    assert frule((NoTangent(), a, b), operator.matmul, a, b) is not None
    assert rrule(operator.matmul, 2.0, 3.0) is None
    assert frule((NoTangent(), 1.0, 1.0), operator.matmul, 2.0, 3.0) is None


def test_matmul_operator_with_a_list_operand():
    """A list operand of ``@`` gets a ``Tangent(list, ...)`` cotangent."""
    x = [1.0, 2.0, 3.0]
    test_rrule(operator.matmul, np.arange(6.0).reshape(2, 3), x)
    test_frule(operator.matmul, x, np.arange(6.0).reshape(3, 2))
    _, pullback = rrule(operator.matmul, np.ones((2, 3)), x)
    assert unthunk(pullback(np.ones(2))[2]) == Tangent(list, 2.0, 2.0, 2.0)


def test_matmul_batch_broadcasting_sums_the_cotangent():
    """An operand broadcast over batch dimensions gets the sum over the batch."""
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(5, 3, 4)), rng.normal(size=(4, 2))
    g = rng.normal(size=(5, 3, 2))
    _, pullback = rrule(np.matmul, a, b)
    expected = sum(a[i].T @ g[i] for i in range(5))
    np.testing.assert_allclose(unthunk(pullback(g)[2]), expected)


def test_float32_stays_float32():
    """float32 operands get float32 cotangents and tangents."""
    a = np.ones((2, 3), dtype=np.float32)
    b = np.ones((3, 2), dtype=np.float32)
    _, pullback = rrule(np.matmul, a, b)
    assert unthunk(pullback(np.ones((2, 2), dtype=np.float32))[1]).dtype == np.float32
    assert frule((NoTangent(), a, b), np.matmul, a, b)[1].dtype == np.float32


def test_vdot_conjugates_its_first_argument():
    """vdot(a, b) = sum(conj(a) b): a's cotangent is conj(out_bar) b, b's is out_bar a."""
    a = np.array([1 + 2j, 3 - 1j])
    b = np.array([2 - 1j, 1j])
    _, pullback = rrule(np.vdot, a, b)
    _, a_bar, b_bar = pullback(1j)
    np.testing.assert_allclose(unthunk(a_bar), -1j * b)
    np.testing.assert_allclose(unthunk(b_bar), 1j * a)


def test_zero_seed():
    """A zero seed gives zero cotangents without computing a product."""
    _, pullback = rrule(np.tensordot, np.ones((2, 3)), np.ones((3, 4)), 1)
    assert pullback(ZeroTangent()) == (NoTangent(), ZeroTangent(), ZeroTangent(), NoTangent())


@pytest.mark.parametrize(
    "f, kwargs",
    [(np.matmul, {"out": np.empty((2, 2))}), (np.matmul, {"dtype": np.float32}), (np.dot, {"out": np.empty((2, 2))})],
)
def test_unsupported_keywords_get_no_rule(f, kwargs):
    """``out=``, ``dtype=`` and the like are refused: the rule is None and the engine decides."""
    a, b = np.ones((2, 3)), np.ones((3, 2))
    assert rrule(f, a, b, **kwargs) is None
    assert frule((NoTangent(), a, b), f, a, b, **kwargs) is None


@pytest.mark.parametrize(
    "f, args",
    [
        (np.dot, (np.ones(3), np.ones(3))),
        (np.matmul, (np.ones((2, 3)), np.ones((3, 2)))),
        (np.vdot, (np.ones(3), np.ones(3))),
        (np.tensordot, (np.ones((2, 3)), np.ones((3, 2)), 1)),
        (np.einsum, ("ij,jk", np.ones((2, 3)), np.ones((3, 2)))),
        (np.kron, (np.ones(2), np.ones(3))),
        (np.cross, (np.ones(3), np.ones(3))),
        (np.linalg.multi_dot, ([np.ones((2, 3)), np.ones((3, 2))],)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_a_seed_that_is_not_numeric_fails_when_the_pullback_is_called(f, args):
    """A string seed raises a TypeError naming the function at once, not later inside a thunk."""
    _, pullback = rrule(f, *args)
    with pytest.raises(TypeError, match=r"np\.(linalg\.)?" + f.__name__ + ": the cotangent of the output"):
        pullback("abc")


def test_a_seed_of_the_wrong_shape_fails_when_the_pullback_is_called():
    """A seed that does not have the output's shape raises a ValueError naming the function and both shapes, one
    that differs by axes of size 1 too (it would broadcast into other numbers); the output's own shape is fine."""
    _, pullback = rrule(np.dot, np.ones((2, 3)), np.ones(3))
    with pytest.raises(ValueError, match=r"np\.dot: a seed of shape \(3,\) for an output of shape \(2,\)"):
        pullback(np.ones(3))
    with pytest.raises(ValueError, match=r"np\.dot: a seed of shape \(2, 1\) for an output of shape \(2,\)"):
        pullback(np.ones((2, 1)))
    assert np.array_equal(unthunk(pullback(np.ones(2))[2]), [2.0, 2.0, 2.0])


def test_cross_of_2_vectors_is_the_z_component():
    """Two 2-vectors give a scalar; the cotangents are the 2-d parts of the 3-d formula."""
    a, b = np.array([1.0, 2.0]), np.array([3.0, 5.0])
    with pytest.warns(DeprecationWarning):
        out, pullback = rrule(np.cross, a, b)
    assert out == 1.0 * 5.0 - 2.0 * 3.0
    _, a_bar, b_bar = pullback(1.0)
    assert np.array_equal(unthunk(a_bar), [5.0, -3.0]) and np.array_equal(unthunk(b_bar), [-2.0, 1.0])
