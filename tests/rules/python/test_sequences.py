"""Rules for Python functions of sequences: sum, math.fsum, math.prod, math.dist, max, min, sorted."""

import builtins
import math

import numpy as np
import pytest

from chainrules_core import NoTangent, Tangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("python.sequences"))
def test_rule(case, dtype, mode):
    """Every declared case of the sequence family passes the harness."""
    case.run(dtype, mode)


def test_prod_is_exact_with_zeros():
    _, pullback = rrule(math.prod, [0.0, 1.5, 0.0])
    assert pullback(1.0)[1] == Tangent(list, 0.0, 0.0, 0.0)
    _, pullback = rrule(math.prod, [0.0, 1.5, -2.0], start=2.0)
    assert pullback(1.0)[1] == Tangent(list, -6.0, 0.0, 0.0)


def test_prod_over_no_rows():
    """The rows of an empty array multiply to ``start``: the cotangent is an empty array of their shape."""
    out, pullback = rrule(math.prod, np.zeros((0, 3)), start=2.5)
    assert out == 2.5
    xs_bar = pullback(1.0)[1]
    assert xs_bar.shape == (0, 3)


def test_generators_get_no_rule():
    """A generator is used up by the call: there is nothing to hand its cotangent to."""
    assert rrule(math.fsum, (x for x in [1.0, 2.0])) is None
    assert rrule(math.prod, iter([1.0, 2.0])) is None


def test_max_with_key_and_default():
    _, pullback = rrule(builtins.max, [1.0, -3.0, 2.0], key=abs)
    assert pullback(1.0)[1] == Tangent(list, ZeroTangent(), 1.0, ZeroTangent())
    out, pullback = rrule(builtins.max, [], default=0.0)
    assert out == 0.0 and pullback(1.0) == (NoTangent(), NoTangent())


def test_max_ties_split_evenly():
    _, pullback = rrule(builtins.max, 1.0, 2.0, 2.0)
    assert pullback(1.0) == (NoTangent(), ZeroTangent(), 0.5, 0.5)


def test_max_with_a_0d_array_among_floats():
    """Python compares a 0-d array as a number: the largest item, a 0-d array here, takes the seed."""
    out, pullback = rrule(builtins.max, 0.5, np.array(2.0), 1.5)
    assert out == 2.0
    bars = pullback(1.0)
    assert bars[2] == 1.0 and np.ndim(bars[2]) == 0
    assert bars[1] == 0.0 or isinstance(bars[1], ZeroTangent)


def test_dist_moves_the_points_apart_along_their_difference():
    _, pullback = rrule(math.dist, (1.0, 2.0), [4.0, 6.0])
    assert pullback(2.0) == (NoTangent(), Tangent(tuple, -1.2, -1.6), Tangent(list, 1.2, 1.6))
    tangents = (NoTangent(), Tangent(tuple, 1.0, ZeroTangent()), ZeroTangent())
    assert frule(tangents, math.dist, (1.0, 2.0), [4.0, 6.0]) == (5.0, -0.6)


def test_dist_between_coincident_points_is_zero():
    """The norm of the difference at zero: 0 in every direction (the central difference), never nan."""
    _, pullback = rrule(math.dist, [1.5, -2.0], [1.5, -2.0])
    assert pullback(1.0) == (NoTangent(), Tangent(list, 0.0, 0.0), Tangent(list, 0.0, 0.0))
    tangents = (NoTangent(), Tangent(list, 1.0, 2.0), Tangent(list, -1.0, 0.5))
    assert frule(tangents, math.dist, [1.5, -2.0], [1.5, -2.0])[1] == 0.0


def test_dist_raises_as_math_does_and_refuses_iterators():
    with pytest.raises(ValueError):
        rrule(math.dist, [1.0], [1.0, 2.0])
    with pytest.raises(TypeError):
        rrule(math.dist, [1.0, "a"], [1.0, 2.0])
    assert rrule(math.dist, iter([1.0]), [1.0]) is None


def test_sorted_at_ties_keeps_the_stable_order():
    """Equal items keep their order (Python's sort is stable, reverse=True too): each seed goes back to the item
    that is there, as numpy's sort rule does; a one-sided derivative, since the central difference would split it."""
    _, pullback = rrule(builtins.sorted, [1.0, 2.0, 1.0])
    assert pullback([10.0, 20.0, 30.0])[1] == Tangent(list, 10.0, 30.0, 20.0)
    _, pullback = rrule(builtins.sorted, (1.0, 2.0, 1.0), reverse=True)
    assert pullback([10.0, 20.0, 30.0])[1] == Tangent(tuple, 20.0, 10.0, 30.0)
    _, out_dot = frule((NoTangent(), [1.0, 2.0, 3.0]), builtins.sorted, [1.0, 2.0, 1.0])
    assert out_dot == Tangent(list, 1.0, 3.0, 2.0)


def test_sorted_by_key_moves_items_of_any_kind():
    """With key=, the items are moved as the keys order them: rows of an array, here."""
    rows = [np.array([2.0, 1.0]), np.array([-1.0, 0.5])]
    out, pullback = rrule(builtins.sorted, rows, key=np.sum)
    assert out[0] is rows[1]
    _, xs_bar = pullback([np.ones(2), 2 * np.ones(2)])
    assert np.array_equal(xs_bar[0], 2 * np.ones(2)) and np.array_equal(xs_bar[1], np.ones(2))


def test_sorted_of_other_iterables_gets_no_rule():
    assert rrule(builtins.sorted, {2.0, 1.0}) is None
    assert rrule(builtins.sorted, (x for x in [2.0, 1.0])) is None
    assert rrule(builtins.sorted, [np.ones(2), np.zeros(2)]) is None  # arrays compare elementwise: no order
