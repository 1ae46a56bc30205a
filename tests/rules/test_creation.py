import numpy as np
import pytest

from chainrules_core import NoTangent, Tangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("creation"))
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
