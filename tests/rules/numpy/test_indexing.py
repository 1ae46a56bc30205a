import operator

import numpy as np
import pytest

from chainrules_core import NoTangent, Thunk, ZeroTangent, frule, rrule
from chainrules_core.testing import test_frule, test_rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.indexing"))
def test_rule(case, dtype, mode):
    """Every declared case of the indexing family passes the harness."""
    case.run(dtype, mode)


def getitem_bar(x, index, seed=None):
    out, pullback = rrule(operator.getitem, x, index)
    return pullback(np.ones(np.shape(out)) if seed is None else seed)[1]


def test_repeated_indices_accumulate():
    """An index read k times gets k times the seed, for every way of repeating it."""
    x = np.zeros(4)
    assert np.array_equal(getitem_bar(x, np.array([0, 0, 1, 0, -1])), [3.0, 1.0, 0.0, 1.0])
    assert np.array_equal(getitem_bar(x, [2, 2]), [0.0, 0.0, 2.0, 0.0])
    m = np.zeros((3, 2))
    assert np.array_equal(getitem_bar(m, np.array([[1, 1], [1, 2]])), [[0, 0], [3, 3], [1, 1]])
    assert np.array_equal(getitem_bar(m, (slice(None), np.array([0, 0, 0]))), [[3, 0], [3, 0], [3, 0]])
    assert np.array_equal(getitem_bar(m, (np.array([2, 2]), np.array([1, 1]))), [[0, 0], [0, 0], [0, 2]])


def test_masks_and_basic_indices_write_once():
    """Boolean masks, slices with negative steps, Ellipsis and None place the seed where it was read."""
    x = np.arange(6.0).reshape(2, 3)
    mask = x > 2
    assert np.array_equal(getitem_bar(x, mask, np.array([1.0, 2.0, 3.0])), [[0, 0, 0], [1, 2, 3]])
    assert np.array_equal(getitem_bar(x, (Ellipsis, slice(None, None, -2))), [[1, 0, 1], [1, 0, 1]])
    assert np.array_equal(getitem_bar(x, (None, 1)), [[0, 0, 0], [1, 1, 1]])
    assert getitem_bar(x, (1, 2), 5.0)[1, 2] == 5.0


def test_getitem_on_flipped_input():
    """Gathers from negative-stride views check out in both modes."""
    x = np.random.default_rng(0).standard_normal((5, 3))[::-1]
    for index in (np.array([0, 0, 4]), (slice(None, None, -1), 1), x > 0):
        test_rrule(operator.getitem, x, index)
        test_frule(operator.getitem, x, index)


def test_method_forms_of_getitem():
    """``x[i]`` through ``x.__getitem__`` and ``np.ndarray.__getitem__`` use the same rule."""
    x = np.arange(4.0)
    out, pullback = rrule(x.__getitem__, np.array([1, 1]))
    assert np.array_equal(out, [1.0, 1.0])
    assert np.array_equal(pullback(np.ones(2))[0].__self__, [0.0, 2.0, 0.0, 0.0])
    assert rrule.find(operator.getitem, x, 0) is not None


def test_getitem_rule_is_for_arrays_only():
    """operator.getitem's array rule is typed, so it does not claim Python containers."""
    array_rule = rrule.find(operator.getitem, np.ones(2), 0)
    assert rrule.find(operator.getitem, [1.0, 2.0], 0) is not array_rule
    assert rrule.find(operator.getitem, (1.0, 2.0), 0) is not array_rule


def test_take_modes_accumulate():
    """take with repeated, wrapped and clipped indices accumulates where they land."""
    x = np.zeros(3)
    for mode, indices, expected in (
        ("raise", [0, 0, -1], [2, 0, 1]),
        ("wrap", [3, 4, -1], [1, 1, 1]),
        ("clip", [-5, 7, 7], [1, 0, 2]),
    ):
        out, pullback = rrule(np.take, x, indices, mode=mode)
        assert np.array_equal(pullback(np.ones(3))[1], expected)


def test_take_along_axis_accumulates():
    """take_along_axis reading one entry twice gives it twice the seed."""
    x = np.zeros((2, 3))
    out, pullback = rrule(np.take_along_axis, x, np.array([[2, 2], [0, 1]]), 1)
    assert np.array_equal(pullback(np.ones((2, 2)))[1], [[0, 0, 2], [1, 1, 0]])


def test_where_condition_has_no_tangent():
    """where's condition gets NoTangent; one-argument where is nonzero, non-differentiable."""
    out, pullback = rrule(np.where, np.array([True, False]), np.ones(2), np.zeros(2))
    assert pullback(np.array([1.0, 2.0]))[1] == NoTangent()
    assert np.array_equal(pullback(np.array([1.0, 2.0]))[2], [1.0, 0.0])
    out, pullback = rrule(np.where, np.array([1.0, 0.0, 3.0]))
    assert pullback(ZeroTangent()) == (NoTangent(), NoTangent())
    assert frule((NoTangent(), NoTangent()), np.where, np.array([1.0, 0.0]))[1] == NoTangent()


def test_thunked_and_zero_seeds():
    """Gathers accept thunks and zeros as seeds."""
    x = np.ones(3)
    out, pullback = rrule(operator.getitem, x, [0, 0])
    assert np.array_equal(pullback(Thunk(lambda: np.ones(2)))[1], [2.0, 0.0, 0.0])
    assert pullback(ZeroTangent())[1] == ZeroTangent()


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_reads_at_integer_arrays_agree_with_np_add_at(dtype):
    """``x[index]`` for an integer array scatters the seed back, repeats and negative indices included, on every
    path: a float64 vector with a float64 seed takes one ``bincount``."""
    rng = np.random.default_rng(2)
    for shape, index in (
        ((6,), np.array([0, 5, 5, 2, 0, 0])),
        ((6,), np.array([-1, 5, 0, -6])),
        ((6,), np.array([[1, 2], [2, 3]])),
        ((6,), np.array([1, 1, 4], dtype=np.int32)),
        ((4, 3), np.array([3, 0, 3])),
    ):
        x = rng.standard_normal(shape).astype(dtype)
        out = x[index]
        for seed in (rng.standard_normal(out.shape), rng.standard_normal(out.shape).astype(np.float32)):
            want = np.zeros(shape, dtype=dtype)
            np.add.at(want, index, seed.astype(dtype))
            got = getitem_bar(x, index, seed)
            assert got.dtype == x.dtype and got.shape == x.shape
            assert np.allclose(got, want, rtol=1e-6 if dtype == "float32" or seed.dtype == np.float32 else 1e-14)
