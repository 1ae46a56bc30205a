"""Selection and editing: insert, delete, compress, extract, choose, select, trim_zeros, and ``setitem``."""

import numpy as np
import pytest

import chainrules.engines as ad
from chainrules import functional
from chainrules.functional import setitem
from chainrules_core import NoTangent, Tangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.selection"))
def test_rule(case, dtype, mode):
    """Every declared case of the selection family passes the harness."""
    case.run(dtype, mode)


def test_setitem_leaves_x_alone_and_routes_the_seed():
    """``setitem`` copies: the overwritten entries of x get nothing, v gets their seed summed."""
    x = np.arange(6.0).reshape(2, 3)
    y, pullback = rrule(setitem, x, (slice(None), 0), 10.0)
    assert np.array_equal(x, np.arange(6.0).reshape(2, 3))
    assert np.array_equal(y, [[10.0, 1.0, 2.0], [10.0, 4.0, 5.0]])
    _, x_bar, index_bar, v_bar = pullback(np.arange(1.0, 7.0).reshape(2, 3))
    assert np.array_equal(x_bar, [[0.0, 2.0, 3.0], [0.0, 5.0, 6.0]])
    assert index_bar == NoTangent() and v_bar == 5.0


def test_setitem_repeated_index_gives_the_last_value_the_seed():
    """``x[[0, 0]] = [a, b]`` keeps b: a's cotangent is zero."""
    _, pullback = rrule(setitem, np.zeros(3), [0, 0], np.array([1.0, 2.0]))
    assert np.array_equal(pullback(np.array([5.0, 0.0, 0.0]))[3], [0.0, 5.0])


def test_setitem_through_the_reverse_engine():
    """An engine records ``x[index] = v`` as ``y = setitem(x, index, v)``; the tracker does it with ``lift``."""
    functional_set = ad.lift(setitem)

    def loss(x, v):
        y = functional_set(x, slice(1, 3), v)
        return np.sum(y * y)

    x, v = np.array([1.0, 2.0, 3.0, 4.0]), np.array([5.0, 6.0])
    x_bar, v_bar = ad.gradient(loss, x, v)
    assert np.array_equal(x_bar, [2.0, 0.0, 0.0, 8.0]) and np.array_equal(v_bar, [10.0, 12.0])
    _, y_dot = ad.jvp(lambda x: functional_set(x, 0, 0.0), (x,), (np.ones(4),))
    assert np.array_equal(y_dot, [0.0, 1.0, 1.0, 1.0])


def test_put_keeps_the_last_write_and_repeats_short_values():
    """``np.put`` writes in order: a value overwritten by a later one at the same entry gets a zero cotangent;
    ``v`` shorter than ``ind`` is repeated, and a value written at several entries gets their seeds summed."""
    x = np.zeros(5)
    y, pullback = rrule(functional.put, x, [1, 3, 1, 4], np.array([10.0, 20.0]))
    reference = x.copy()
    np.put(reference, [1, 3, 1, 4], np.array([10.0, 20.0]))
    assert np.array_equal(y, reference) and not x.any()
    _, x_bar, _, v_bar = pullback(np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    assert np.array_equal(x_bar, [1.0, 0.0, 3.0, 0.0, 0.0])
    assert np.array_equal(v_bar, [2.0, 4.0 + 5.0])  # 10.0 lands at 1 (overwritten) and at 1 again (kept)
    _, pullback = rrule(functional.put, x, [0, 0], np.array([1.0, 2.0]))
    assert np.array_equal(pullback(np.array([7.0, 0.0, 0.0, 0.0, 0.0]))[3], [0.0, 7.0])


_EVEN = np.arange(6).reshape(2, 3) % 2 == 0
IN_PLACE_CALLS = {
    "put": (np.put, functional.put, lambda x, v: (x, [5, 0], v), np.array([1.0, 2.0])),
    "place": (np.place, functional.place, lambda x, v: (x, _EVEN, v), np.array([1.0, 2.0])),
    "putmask": (np.putmask, functional.putmask, lambda x, v: (x, ~_EVEN, v), np.array([1.0, 2.0])),
    "copyto": (np.copyto, functional.copyto, lambda x, v: (x, v), np.array([1.0, 2.0, 3.0])),
    "fill_diagonal": (np.fill_diagonal, functional.fill_diagonal, lambda x, v: (x, v), np.array([1.0, 2.0])),
    "put_along_axis": (
        np.put_along_axis,
        functional.put_along_axis,
        lambda x, v: (x, np.array([[2], [0]]), v, 1),
        np.array([[1.0], [2.0]]),
    ),
}
"""numpy's in-place update, its functional form, the arguments made of ``x`` and the values ``v``, and ``v``."""


@pytest.mark.parametrize("name", sorted(IN_PLACE_CALLS))
def test_functional_forms_return_what_numpy_writes(name):
    """Each form returns the array numpy's in-place function leaves, and leaves its argument alone. An engine
    rebinds the variable to it (``x = functional.put(x, ind, v)``) and differentiates both x and v; y is linear
    in them, so <y_bar, y> = <x_bar, x> + <v_bar, v> for the gradient of sum(y * y) / 2."""
    update, form, arguments, v = IN_PLACE_CALLS[name]
    x = np.arange(6.0).reshape(2, 3)
    expected = x.copy()
    update(*arguments(expected, v))
    y = form(*arguments(x, v))
    assert np.array_equal(y, expected) and np.array_equal(x, np.arange(6.0).reshape(2, 3))
    lifted = ad.lift(form)

    def loss(x, v):
        x = lifted(*arguments(x, v))  # the variable rebound to the new array
        return np.sum(x * x) / 2

    x_bar, v_bar = ad.gradient(loss, x, v)
    assert np.sum(x_bar * x) + np.sum(v_bar * v) == pytest.approx(np.sum(y * y))


def test_choose_adds_where_a_choice_is_read_twice():
    """A choice broadcast over several outputs gets their seeds summed."""
    a = np.array([[0, 1], [0, 1]])
    choices = [np.array([1.0, 2.0]), np.array([[3.0, 4.0], [5.0, 6.0]])]
    out, pullback = rrule(np.choose, a, choices)
    bar = pullback(np.ones((2, 2)))[2]
    assert isinstance(bar, Tangent)
    assert np.array_equal(bar[0], [2.0, 0.0]) and np.array_equal(bar[1], [[0.0, 1.0], [0.0, 1.0]])


def test_select_constants_get_no_tangent():
    """select's numpy default 0, a keyword default and integer choices are constants."""
    cond = [np.array([True, False, False])]
    out, pullback = rrule(np.select, cond, [np.array([1.0, 2.0, 3.0])])
    assert pullback(np.ones(3))[2] == Tangent(list, np.array([1.0, 0.0, 0.0]))
    out, pullback = rrule(np.select, cond, [np.array([1, 2, 3])], 0.5)
    assert pullback(np.ones(3))[2:] == (NoTangent(), 2.0)


def test_trim_zeros_gives_trimmed_entries_a_zero_cotangent():
    """The kept slice gets the seed; the trimmed zeros get zero; a list input keeps its structure."""
    out, pullback = rrule(np.trim_zeros, np.array([0.0, 1.0, 0.0, 2.0, 0.0]))
    assert np.array_equal(out, [1.0, 0.0, 2.0])
    assert np.array_equal(pullback(np.array([1.0, 2.0, 3.0]))[1], [0.0, 1.0, 2.0, 3.0, 0.0])
    out, pullback = rrule(np.trim_zeros, [0.0, 4.0, 0.0])
    assert out == [4.0]
    assert pullback(Tangent(list, 2.0))[1] == Tangent(list, 0.0, 2.0, 0.0)
    assert pullback([ZeroTangent()])[1] == Tangent(list, 0.0, 0.0, 0.0)
    out, pullback = rrule(np.trim_zeros, np.zeros(3))
    assert out.size == 0 and np.array_equal(pullback(np.zeros(0))[1], np.zeros(3))


def test_integer_output_is_not_differentiable():
    """An integer result (an int array edited) has no tangent."""
    out, pullback = rrule(np.delete, np.arange(4), 1)
    assert pullback(np.ones(3)) == (NoTangent(), NoTangent(), NoTangent())
    assert frule((NoTangent(),) * 4, np.insert, np.arange(3), 1, 5)[1] == NoTangent()


def test_out_is_refused():
    """compress and choose into ``out=`` get no rule."""
    assert rrule(np.compress, [True], np.ones(2), 0, np.zeros(1)) is None
    assert rrule(np.choose, np.array([0, 0]), [np.ones(2)], out=np.zeros(2)) is None
