"""Rules for numpy's elementwise functions of two arguments and clip."""

import warnings

import numpy as np
import pytest

from chainrules.checks.arithmetic import BINARY_CHECKS
from chainrules_core import NoTangent, Thunk, ZeroTangent, frule, rrule, unthunk
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("arithmetic"))
def test_rule(case, dtype, mode):
    """Every declared case of the arithmetic family passes the harness."""
    case.run(dtype, mode)


# ----- points the harness cannot reach, conventions, keywords -----


LIMITS = [(f, point, partials) for f, check in BINARY_CHECKS.items() for point, partials in check.limits.items()]


@pytest.mark.parametrize("dtype", ["float64", "float32", "python"])
@pytest.mark.parametrize("f, point, partials", LIMITS, ids=[f"{f.__name__}{p}" for f, p, _ in LIMITS])
def test_limit_points(f, point, partials, dtype):
    """At jumps, poles and 0**p, both rules return the partials the table declares, in both arguments."""
    args = tuple(v if dtype == "python" else np.asarray(v, dtype=dtype) for v in point)
    one = 1.0 if dtype == "python" else np.ones((), dtype=dtype)
    with np.errstate(all="ignore"):
        _, pullback = rrule(f, *args)
        bars = [unthunk(b) for b in pullback(one)[1:]]
        dots = [
            frule((NoTangent(), *(one if j == i else ZeroTangent() for j in range(2))), f, *args)[1] for i in range(2)
        ]
    for bar, dot, expected in zip(bars, dots, partials):
        assert type(bar) is float if dtype == "python" else bar.dtype == np.dtype(dtype)
        np.testing.assert_allclose(float(bar), expected, rtol=1e-6)
        np.testing.assert_allclose(float(dot), expected, rtol=1e-6)


def test_ties_split_evenly():
    for f in (np.maximum, np.minimum, np.fmax, np.fmin):
        _, pullback = rrule(f, np.array([1.0, 2.0]), np.array([1.0, 3.0]))
        _, x_bar, y_bar = pullback(np.ones(2))
        np.testing.assert_equal(x_bar + y_bar, [1.0, 1.0])
        assert x_bar[0] == y_bar[0] == 0.5


def test_a_nan_argument_takes_the_cotangent():
    """maximum propagates nan, so the nan argument takes the cotangent; fmax ignores it, so the other does."""
    x, y = np.array([np.nan, 1.0]), np.array([1.0, np.nan])
    _, x_bar, y_bar = rrule(np.maximum, x, y)[1](np.ones(2))
    np.testing.assert_equal((x_bar, y_bar), ([1.0, 0.0], [0.0, 1.0]))
    _, x_bar, y_bar = rrule(np.fmax, x, y)[1](np.ones(2))
    np.testing.assert_equal((x_bar, y_bar), ([0.0, 1.0], [1.0, 0.0]))


def test_negative_base_with_an_integer_valued_float_exponent():
    """The base's cotangent is exact; the exponent's, a thunk, is nan: x**p has no real derivative in p there."""
    x, p = np.array([-2.0, -0.5]), 3.0
    _, pullback = rrule(np.power, x, p)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the base's cotangent computes no logarithm
        _, x_bar, p_bar = pullback(np.ones(2))
    np.testing.assert_allclose(x_bar, 3 * x**2)
    assert isinstance(p_bar, Thunk)
    with pytest.warns(RuntimeWarning, match="invalid value"):
        assert np.isnan(unthunk(p_bar))


def test_integer_exponents_get_no_tangent():
    for p in (2, np.array([2, 3]), True):
        _, pullback = rrule(np.power, np.array([-1.5, 2.0]), p)
        assert pullback(np.ones(2))[2] == NoTangent()


def test_complex_power_of_a_real_base():
    """A real base raised to a complex power: the exponent's partial takes the complex logarithm."""
    x, p = np.array([-2.0, 3.0]), np.array([0.5 + 1j, 2.0 - 0.5j])
    _, pullback = rrule(np.power, x, p)
    _, x_bar, p_bar = pullback(np.ones(2, dtype=complex))
    np.testing.assert_allclose(unthunk(p_bar), np.conj(x.astype(complex) ** p * np.log(x.astype(complex))))
    assert x_bar.dtype == np.float64


def test_clip_at_the_bounds_passes_the_cotangent_to_x():
    x = np.array([-1.0, 0.0, 1.0, 2.0])
    _, x_bar, lo_bar, hi_bar = rrule(np.clip, x, -1.0, 1.0)[1](np.ones(4))
    np.testing.assert_equal(x_bar, [1.0, 1.0, 1.0, 0.0])
    assert (lo_bar, hi_bar) == (0.0, 1.0)


def test_clip_with_lo_above_hi_follows_hi():
    _, x_bar, lo_bar, hi_bar = rrule(np.clip, np.array([0.0, 5.0]), 2.0, 1.0)[1](np.ones(2))
    np.testing.assert_equal(x_bar, [0.0, 0.0])
    assert (lo_bar, hi_bar) == (0.0, 2.0)


def test_clip_keyword_bounds_get_no_cotangent():
    """Keyword arguments never get tangents; the bounds still decide where x's cotangent goes."""
    result = rrule(np.clip, np.array([-2.0, 0.0, 2.0]), a_min=-1.0, a_max=1.0)[1](np.ones(3))
    assert len(result) == 2
    np.testing.assert_equal(result[1], [0.0, 1.0, 0.0])


def test_broadcast_cotangents_are_summed():
    x, y = np.ones((2, 1), dtype=np.float32), np.full((1, 3), 2.0)
    _, pullback = rrule(np.multiply, x, y)
    _, x_bar, y_bar = pullback(np.ones((2, 3)))
    assert x_bar.shape == (2, 1) and x_bar.dtype == np.float32 and np.all(x_bar == 6.0)
    assert y_bar.shape == (1, 3) and np.all(y_bar == 2.0)
    _, a_bar, b_bar = rrule(np.add, 1.5, np.ones(3))[1](np.ones(3))
    assert type(a_bar) is float and a_bar == 3.0


def test_add_passes_the_seed_on_read_only():
    seed = np.ones(3)
    _, x_bar, y_bar = rrule(np.add, np.zeros(3), np.zeros(3))[1](seed)
    assert not x_bar.flags.writeable and not y_bar.flags.writeable
    x_bar2 = rrule(np.subtract, np.zeros(3), np.zeros(3))[1](seed)[2]
    np.testing.assert_equal(x_bar2, -seed)


@pytest.mark.parametrize("f", [np.add, np.multiply, np.power, np.maximum])
def test_out_and_where_get_no_rule(f):
    x, buffer = np.ones(3), np.empty(3)
    assert rrule(f, x, x, out=buffer) is None
    assert rrule(f, x, x, buffer) is None
    assert rrule(f, x, x, where=x > 0) is None
    assert frule((NoTangent(), x, x), f, x, x, out=buffer) is None
    assert rrule(np.clip, x, 0.0, 1.0, buffer) is None
    assert rrule(np.clip, x, 0.0, 1.0, out=buffer) is None


def test_divmod_quotient_has_zero_derivative_and_remainder_follows_numpy():
    """divmod(x, y) = (q, x - q y): zeros for q, (1, -q) for the remainder, at exact multiples too."""
    x, y = np.array([7.0, -7.0, 6.0]), np.array([2.0, 2.0, 3.0])
    (q, r), pullback = rrule(np.divmod, x, y)
    _, x_bar, y_bar = pullback((np.ones(3), np.ones(3)))
    assert np.array_equal(x_bar, np.ones(3)) and np.array_equal(y_bar, -q)
    assert pullback((np.ones(3), ZeroTangent()))[1] == ZeroTangent()
    _, (q_dot, r_dot) = frule((NoTangent(), np.ones(3), np.ones(3)), np.divmod, x, y)
    assert np.array_equal(q_dot, np.zeros(3)) and np.array_equal(r_dot, 1.0 - q)


def test_ldexp_exponent_has_no_tangent():
    out, pullback = rrule(np.ldexp, np.array([1.5, -2.0]), np.array([2, -1]))
    _, x_bar, n_bar = pullback(np.ones(2))
    assert np.array_equal(x_bar, [4.0, 0.5]) and n_bar == NoTangent()
