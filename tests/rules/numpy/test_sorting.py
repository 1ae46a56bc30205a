import numpy as np
import pytest

from chainrules_core import NoTangent, Tangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.sorting"))
def test_rule(case, dtype, mode):
    """Every declared case of the sorting family passes the harness."""
    case.run(dtype, mode)


def test_sort_ties_follow_the_stable_permutation():
    """Tied entries keep their order: the first tied input goes to the first tied output."""
    x = np.array([3.0, 1.0, 3.0, 1.0])
    out, pullback = rrule(np.sort, x)
    assert np.array_equal(pullback(np.array([10.0, 20.0, 30.0, 40.0]))[1], [30.0, 10.0, 40.0, 20.0])
    out, out_dot = frule((NoTangent(), np.array([1.0, 2.0, 3.0, 4.0])), np.sort, x)
    assert np.array_equal(out_dot, [2.0, 4.0, 1.0, 3.0])


def test_sort_along_axes_and_flattened():
    """sort's pullback inverts the permutation along any axis, or of the flattened input."""
    x = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, -1.0]])
    for axis in (0, 1, -1, None):
        out, pullback = rrule(np.sort, x, axis)
        assert np.array_equal(out, np.sort(x, axis))
        assert np.array_equal(pullback(out)[1], x)  # sorting is a permutation: pulling back out gives x


def test_unique_values_take_their_first_occurrence():
    """Duplicates: the unique value's cotangent goes to its first occurrence; counts have none."""
    x = np.array([3.0, 1.0, 3.0, 2.0, 1.0])
    out, pullback = rrule(np.unique, x, return_counts=True)
    assert np.array_equal(out[1], [2, 1, 2])
    seed = Tangent(tuple, np.array([10.0, 20.0, 30.0]), NoTangent())
    assert np.array_equal(pullback(seed)[1], [30.0, 10.0, 0.0, 20.0, 0.0])
    assert pullback(Tangent(tuple, ZeroTangent(), NoTangent()))[1] == ZeroTangent()
    out, out_dot = frule((NoTangent(), np.arange(5.0)), np.unique_counts, x)
    assert np.array_equal(out_dot.values, [1.0, 3.0, 0.0])


@pytest.mark.parametrize(
    "f, args",
    [
        (np.argsort, (np.array([2.0, 1.0]),)),
        (np.argpartition, (np.array([2.0, 1.0, 3.0]), 1)),
        (np.searchsorted, (np.array([1.0, 2.0]), 1.5)),
        (np.nonzero, (np.array([1.0, 0.0]),)),
        (np.flatnonzero, (np.array([1.0, 0.0]),)),
        (np.argwhere, (np.array([1.0, 0.0]),)),
        (np.digitize, (np.array([0.5, 1.5]), np.array([1.0, 2.0]))),
    ],
)
def test_index_valued_functions_are_non_differentiable(f, args):
    """Index-valued functions have NoTangent outputs and give NoTangent to every input."""
    out, pullback = rrule(f, *args)
    assert pullback(ZeroTangent()) == (NoTangent(),) * (len(args) + 1)
    assert frule((NoTangent(),) * (len(args) + 1), f, *args)[1] == NoTangent()


def test_partition_follows_numpys_output_whatever_its_order():
    """The rule returns numpy's partition, and each output entry's cotangent goes to the entry it holds."""
    x = np.array([5.0, 1.0, 4.0, 2.0, 3.0, 2.0])
    out, pullback = rrule(np.partition, x, 2)
    assert np.array_equal(out, np.partition(x, 2))
    x_bar = pullback(out)[1]
    assert np.array_equal(np.sort(x_bar), np.sort(x)) and np.array_equal(x_bar[[0, 2, 4]], x[[0, 2, 4]])
    assert rrule(np.partition, x, 1, order="f") is None


def test_sort_complex_of_real_input_gets_a_real_cotangent():
    """sort_complex returns complex numbers; a real input's cotangent keeps the real part."""
    out, pullback = rrule(np.sort_complex, np.array([3.0, 1.0, 2.0]))
    assert out.dtype == np.complex128
    x_bar = pullback(np.array([1.0 + 5j, 2.0, 3.0]))[1]
    assert x_bar.dtype == np.float64 and np.array_equal(x_bar, [3.0, 1.0, 2.0])


@pytest.mark.parametrize("mode", ["forward-over-reverse", "reverse-over-reverse"])
def test_hessian_through_sort_and_unique_is_diagonal_in_the_sorted_weights(mode):
    """d²/dx² sum(w * sort(x)³) is diag(6 x_i w_rank(i)): the order is the primal's, the seed gathered back."""
    import chainrules.engines as ad

    x = np.array([[0.5, -1.0, 2.0], [1.5, 3.0, -2.0]])
    w = np.array([1.0, 2.0, 3.0])
    ranks = np.argsort(np.argsort(x, axis=-1, kind="stable"), axis=-1)
    expected = np.diag((6 * x * w[ranks]).ravel()).reshape(2, 3, 2, 3)
    np.testing.assert_allclose(ad.hessian(lambda v: np.sum(w * np.sort(v, axis=-1) ** 3), x, mode=mode), expected)
    flat = np.array([2.0, -1.0, 2.0, 0.5])  # unique reads each value from its first occurrence
    expected_unique = np.diag(6 * flat * np.array([1.0, 1.0, 0.0, 1.0]))
    np.testing.assert_allclose(ad.hessian(lambda v: np.sum(np.unique(v) ** 3), flat, mode=mode), expected_unique)


@pytest.mark.parametrize("name", ["unique_values", "unique_counts", "unique_inverse", "unique_all"])
def test_unique_under_jit_is_refused_before_jax_concretizes(name):
    """The number of unique values depends on the values, which jax.jit does not know: a TypeError naming the
    function and the traced type, not JAX's ConcretizationTypeError from inside the library."""
    jax = pytest.importorskip("jax")
    f = getattr(np, name)
    with pytest.raises(TypeError, match=rf"np\.{name} has no rule for arrays of type jax") as raised:
        jax.jit(lambda x: rrule(f, x)[0])(jax.numpy.ones(3))
    assert not isinstance(raised.value, jax.errors.ConcretizationTypeError)


def test_set_operations_send_each_value_s_seed_to_its_first_copy_and_zero_to_shared_values():
    """union1d reads a shared value from ar1 (and a repeated one from its first copy), as unique does;
    setdiff1d and setxor1d leave a shared value out, and it gets zero; intersect1d's derivative is zero."""
    a, b = np.array([0.3, 1.0, 2.0, 0.3]), np.array([1.0, 5.0])
    out, pullback = rrule(np.union1d, a, b)
    assert np.array_equal(out, [0.3, 1.0, 2.0, 5.0])
    _, a_bar, b_bar = pullback(np.array([1.0, 2.0, 3.0, 4.0]))
    assert np.array_equal(a_bar, [1.0, 2.0, 3.0, 0.0]) and np.array_equal(b_bar, [0.0, 4.0])
    out, pullback = rrule(np.setxor1d, a, b)
    assert np.array_equal(out, [0.3, 2.0, 5.0])
    _, a_bar, b_bar = pullback(np.array([1.0, 2.0, 3.0]))
    assert np.array_equal(a_bar, [1.0, 0.0, 2.0, 0.0]) and np.array_equal(b_bar, [0.0, 3.0])
    _, a_bar, b_bar = rrule(np.setdiff1d, a, b)[1](np.array([1.0, 2.0]))
    assert np.array_equal(a_bar, [1.0, 0.0, 2.0, 0.0]) and np.array_equal(b_bar, [0.0, 0.0])
    out, pullback = rrule(np.intersect1d, a, b)
    _, a_bar, b_bar = pullback(np.ones(1))
    assert np.array_equal(out, [1.0]) and not a_bar.any() and not b_bar.any()
    out, out_dot = frule((NoTangent(), np.ones(4), np.ones(2)), np.intersect1d, a, b, return_indices=True)
    assert out_dot == Tangent(tuple, np.zeros(1), NoTangent(), NoTangent())
    with pytest.raises(ValueError, match=r"np\.intersect1d"):
        rrule(np.intersect1d, a, b, return_indices=True)[1]((np.ones(3), NoTangent(), NoTangent()))
