import numpy as np
import pytest

from chainrules_core import NoTangent, Tangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.creation"))
def test_rule(case, dtype, mode):
    """Every declared case of the creation family passes the harness."""
    case.run(dtype, mode)


def test_array_of_python_floats():
    """np.array of a list of floats: the cotangent is Tangent(list, ...) of Python floats."""
    out, pullback = rrule(np.array, [1.0, 2.0])
    bar = pullback(np.array([3.0, 4.0]))[1]
    assert bar == Tangent(list, 3.0, 4.0) and all(type(v) is float for v in bar)
    assert isinstance(rrule(np.array, (1.0, 2.0))[1](np.ones(2))[1], Tangent)


def test_array_pushforward_with_zero_entries():
    """A list tangent may hold ZeroTangent for some entries."""
    out, out_dot = frule((NoTangent(), [ZeroTangent(), 2.0]), np.asarray, [1.0, 5.0])
    assert np.array_equal(out_dot, [0.0, 2.0])


def test_integer_results_are_non_differentiable():
    """Arrays of integers, made from floats by ``dtype=int``, have no tangent."""
    assert rrule(np.array, [1.5, 2.5], dtype=int)[1](np.ones(2))[1] == NoTangent()
    assert rrule(np.full, (2,), 3)[1](np.ones(2)) == (NoTangent(), NoTangent(), NoTangent())


def test_full_fill_value_gets_the_sum():
    """full's fill value collects the whole seed; full_like's prototype gets a zero."""
    out, pullback = rrule(np.full, (2, 3), 1.5)
    assert pullback(np.ones((2, 3))) == (NoTangent(), NoTangent(), 6.0)
    out, pullback = rrule(np.full_like, np.ones(3), 2.0)
    assert pullback(np.ones(3)) == (NoTangent(), ZeroTangent(), 3.0)


def test_constructors_without_inputs_are_non_differentiable():
    """zeros, ones, eye, arange ... have NoTangent outputs."""
    for f, args in ((np.zeros, (3,)), (np.ones_like, (np.ones(2),)), (np.eye, (2,)), (np.arange, (0.5, 3.0))):
        out, out_dot = frule((NoTangent(),) * (len(args) + 1), f, *args)
        assert out_dot == NoTangent()


def test_linspace_step_of_one_sample_is_a_constant():
    """num=1 with the endpoint: numpy's step is NaN, a constant, with a zero tangent and no cotangent."""
    tangents = (NoTangent(), 1.0, 2.0, NoTangent(), NoTangent(), NoTangent())
    out, out_dot = frule(tangents, np.linspace, 0.0, 1.0, 1, True, True)
    assert np.isnan(out[1]) and out_dot[1] == ZeroTangent() and np.array_equal(out_dot[0], [1.0])
    _, pullback = rrule(np.linspace, 0.0, 1.0, 1, True, True)
    assert pullback((np.array([1.0]), 5.0))[1:3] == (1.0, 0.0)


def test_linspace_partials_are_the_fractions():
    """Sample k is start (1 - t_k) + stop t_k; the step (stop - start) / div adds to both."""
    _, pullback = rrule(np.linspace, 0.0, 1.0, 5, retstep=True)
    _, start_bar, stop_bar, _ = pullback((np.ones(5), 4.0))
    assert start_bar == 2.5 - 1.0 and stop_bar == 2.5 + 1.0


def test_integer_spacing_is_not_differentiable():
    """A spacing of an integer dtype rounds: no tangent."""
    _, pullback = rrule(np.linspace, 0.0, 10.0, 4, dtype=int)
    assert pullback(np.ones(4))[1:3] == (NoTangent(), NoTangent())


def test_meshgrid_sums_each_output_over_the_other_axes():
    """Input i's cotangent is output i's seed summed over every axis but its own ('xy' swaps the first two)."""
    x, y = np.arange(3.0), np.arange(2.0)
    out, pullback = rrule(np.meshgrid, x, y)
    assert out[0].shape == (2, 3)
    _, x_bar, y_bar = pullback((np.ones((2, 3)), ZeroTangent()))
    assert np.array_equal(x_bar, [2.0, 2.0, 2.0]) and y_bar == ZeroTangent()


def test_vander_is_exact_at_zero():
    """d x**p / dx at 0 is 1 for p = 1 and 0 otherwise: no division by x."""
    _, pullback = rrule(np.vander, np.array([0.0]), 4)
    assert np.array_equal(pullback(np.ones((1, 4)))[1], [1.0])


def test_logspace_partials_at_an_infinite_base():
    """Samples inf ** 1, inf ** -0.5, inf ** -2: only the first moves with start (infinitely), none with stop;
    in base, y base ** (y - 1) is 1 at y = 1 and tends to 0 below."""
    out, pullback = rrule(np.logspace, 1.0, -2.0, 3, True, np.inf)
    np.testing.assert_array_equal(out, [np.inf, 0.0, 0.0])
    _, start_bar, stop_bar, _, _, base_bar = pullback(np.ones(3))
    assert start_bar == np.inf and stop_bar == 0.0 and base_bar == 1.0
