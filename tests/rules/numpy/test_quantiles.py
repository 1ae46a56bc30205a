import warnings

import numpy as np
import pytest

import chainrules.engines as ad
from chainrules.checks.numpy.quantiles import DISCONTINUOUS, METHODS
from chainrules_core import NoTangent, frule, rrule, unthunk
from chainrules_core.keywords import keywords_as_positional
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.quantiles"))
def test_rule(case, dtype, mode):
    """Every declared case of the order statistics passes the harness."""
    case.run(dtype, mode)


def pull(f, *args, seed=1.0, **kwargs):
    return rrule(f, *args, **kwargs)[1](seed)


def push(f, x, *args, x_dot, q_dot=None, **kwargs):
    tangents = (NoTangent(), x_dot) + (() if q_dot is None else (q_dot,))
    return frule(tangents, f, x, *args, **kwargs)[1]


def test_every_method_is_declared():
    """The checks cover every method numpy's quantile accepts."""
    for method in METHODS:
        np.quantile(np.arange(4.0), 0.3, method=method)
    with pytest.raises(ValueError):
        np.quantile(np.arange(4.0), 0.3, method="no such method")


def test_median_of_an_even_count_averages_the_middle_pair():
    x = np.array([4.0, 1.0, 3.0, 2.0])
    assert np.array_equal(pull(np.median, x)[1], [0.0, 0.0, 0.5, 0.5])


def test_ties_share_the_order_statistic():
    """The median of [1, 2, 2, 3, 9] is x_(2), tied with x_(1): each 2 gets half (the central difference)."""
    x = np.array([2.0, 9.0, 1.0, 2.0, 3.0])
    assert np.array_equal(pull(np.median, x)[1], [0.5, 0.0, 0.0, 0.5, 0.0])
    assert push(np.median, x, x_dot=np.array([1.0, 0.0, 0.0, 3.0, 0.0])) == 2.0


def test_linear_quantile_weights_and_slope_in_q():
    """quantile(x, q) = (1 - g) x_(j) + g x_(j+1), v = q (n - 1): d/dq = (n - 1) (x_(j+1) - x_(j))."""
    x = np.array([0.0, 10.0, 20.0, 40.0])
    _, x_bar, q_bar = pull(np.quantile, x, 0.75)  # v = 2.25
    np.testing.assert_allclose(x_bar, [0.0, 0.0, 0.75, 0.25])
    np.testing.assert_allclose(q_bar, 3 * 20.0)
    assert push(np.quantile, x, 0.75, x_dot=np.zeros(4), q_dot=1.0) == pytest.approx(60.0)
    np.testing.assert_allclose(pull(np.percentile, x, 75.0)[2], 0.6)  # percent: a hundredth of the slope


def test_slope_in_q_at_a_kink_is_the_central_difference():
    """At v = 2 the slopes on either side are 10 and 20 per unit of v: the rule gives their mean."""
    x = np.array([0.0, 10.0, 20.0, 40.0])
    np.testing.assert_allclose(pull(np.quantile, x, 2 / 3)[2], 3 * 15.0)
    np.testing.assert_allclose(pull(np.quantile, x, 1.0)[2], 3 * 20.0)  # one-sided at the ends
    np.testing.assert_allclose(pull(np.quantile, x, 0.0)[2], 3 * 10.0)


@pytest.mark.parametrize("method", DISCONTINUOUS)
def test_discontinuous_methods_are_constant_in_q(method):
    """lower, nearest, inverted_cdf ... are step functions of q: a zero derivative, at a jump too."""
    x = np.array([3.0, 1.0, 4.0, 1.5, 5.0])
    for q in (0.37, 0.4, 0.5):
        assert pull(np.quantile, x, q, method=method)[2] == 0.0


def test_a_slice_with_a_nan_sends_its_seed_to_the_nans():
    """numpy's median of a slice with a NaN is nan; as for max, the NaNs take the cotangent."""
    x = np.array([[1.0, np.nan, 3.0, np.nan], [1.0, 2.0, 3.0, 4.0]])
    out, pullback = rrule(np.median, x, axis=1)
    assert np.isnan(out[0])
    np.testing.assert_array_equal(pullback(np.ones(2))[1], [[0.0, 0.5, 0.0, 0.5], [0.0, 0.5, 0.5, 0.0]])


@pytest.mark.parametrize("f, args", [(np.nanmedian, ()), (np.nanquantile, (0.3,)), (np.nanpercentile, (30.0,))])
def test_nan_forms_skip_nans_and_zero_all_nan_slices(f, args):
    """NaN entries get zero; a slice of NaNs only gives numpy's warning, nan, and a zero cotangent."""
    x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out, pullback = rrule(f, x, *args, axis=1)
        out_dot = push(f, x, *args, x_dot=np.ones_like(x), q_dot=0.0 if args else None, axis=1)
    assert caught and np.isnan(out[1]) and not np.isnan(out[0])
    x_bar = pullback(np.ones(2))[1]
    assert np.all(x_bar[:, 1] == 0) and np.all(x_bar[1] == 0) and x_bar[0].sum() == pytest.approx(1.0)
    assert out_dot[1] == 0.0 and out_dot[0] == pytest.approx(1.0)


def test_weights_give_the_seed_to_the_selected_entry():
    x, w = np.array([3.0, 1.0, 2.0]), np.array([1.0, 1.0, 4.0])
    out, pullback = rrule(np.quantile, x, 0.5, method="inverted_cdf", weights=w)
    assert out == 2.0
    assert np.array_equal(pullback(1.0)[1], [0.0, 0.0, 1.0])


def test_buffers_and_overwritten_inputs_get_no_rule():
    """out= writes a buffer and overwrite_input=True reorders the input: no rule, so an engine falls back."""
    x = np.array([3.0, 1.0, 2.0])
    assert rrule(np.median, x, overwrite_input=True) is None
    assert rrule(np.quantile, x, 0.5, out=np.zeros(())) is None
    tangents = (NoTangent(), x, 0.0, NoTangent(), NoTangent(), NoTangent())
    assert frule(tangents, np.percentile, x, 50.0, None, None, True) is None


@pytest.mark.parametrize("f", [np.median, np.nanmedian, np.quantile, np.nanquantile, np.percentile, np.nanpercentile])
def test_data_by_keyword_is_the_positional_call(f):
    """numpy takes the data as ``a=``: a call with every argument by keyword is the call with its leading ones in
    position (``chainrules_core.keywords``), so the data gets its cotangent and tangent there."""
    x = np.array([[3.0, 1.0, 2.0], [0.5, 4.0, 1.5]])
    q = {np.median: {}, np.nanmedian: {}, np.percentile: {"q": 30.0}, np.nanpercentile: {"q": 30.0}}.get(f, {"q": 0.3})
    args, kwargs = keywords_as_positional(f, {"a": x, "axis": 1, **q})
    assert args[0] is x and not kwargs
    out, pullback = rrule(f, a=x, axis=1, **q)
    want, want_pullback = rrule(f, *args)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(unthunk(pullback(np.ones(2))[1]), unthunk(want_pullback(np.ones(2))[1]))
    x_dot = np.arange(6.0).reshape(2, 3)
    tangents = (NoTangent(), x_dot, *(0.0 if isinstance(a, float) else NoTangent() for a in args[1:]))
    np.testing.assert_array_equal(frule(tangents, f, a=x, axis=1, **q)[1], frule(tangents, f, *args)[1])
    assert rrule(f, a=x, out=np.zeros(()), **q) is None


def test_complex_median_follows_numpy_and_percentile_refuses():
    """numpy's median orders complex numbers lexicographically; its percentile raises, and so does the rule."""
    z = np.array([1 + 1j, 3j, 2.0 + 0j])
    out, pullback = rrule(np.median, z)
    assert out == 1 + 1j and np.array_equal(pullback(1.0 + 0j)[1], [1.0, 0.0, 0.0])
    with pytest.raises(TypeError):
        rrule(np.percentile, z, 50.0)


def test_more_than_two_ties_split_evenly():
    """k tied entries at the order statistic share it, 1/k each (the symmetric subgradient, as for max)."""
    x = np.array([4.0, 4.0, 4.0, 1.0, 9.0])
    np.testing.assert_allclose(pull(np.median, x)[1], [1 / 3, 1 / 3, 1 / 3, 0.0, 0.0])


def test_q_of_integer_data_is_still_differentiable():
    """Integer samples have no tangent, but q does: the slope of the interpolation between them."""
    x = np.array([0, 10, 20, 40])
    _, x_bar, q_bar = pull(np.quantile, x, 0.75)
    assert x_bar == NoTangent() and q_bar == pytest.approx(60.0)
    assert push(np.quantile, x, 0.75, x_dot=NoTangent(), q_dot=1.0) == pytest.approx(60.0)


@pytest.mark.parametrize("mode", ["forward-over-reverse", "reverse-over-reverse"])
def test_hessian_through_nanmedian_is_the_median_entry_s(mode):
    """d²/dx² nanmedian(x³) is 6 x_m at the median entry m and 0 elsewhere: the NaNs and order are the primal's."""
    x = np.array([3.0, np.nan, 1.0, 2.0, np.nan])
    expected = np.zeros((5, 5))
    expected[3, 3] = 6 * 2.0
    np.testing.assert_allclose(ad.hessian(lambda v: np.nanmedian(v**3), x, mode=mode), expected)


@pytest.mark.parametrize("mode", ["forward-over-reverse", "reverse-over-reverse"])
def test_hessian_through_quantile_in_x_and_q(mode):
    """quantile(x, q) = (1 - g) x_j + g x_(j+1) with g = (n - 1) q - j: its only second derivative is d²/dq dx."""
    x, q = np.array([0.5, 4.0, 2.0, 1.0]), 0.5  # linear method: v = 3 q = 1.5 between x_(1) = 1 and x_(2) = 2
    h = ad.hessian(lambda x, q: np.quantile(x, q), x, q, mode=mode)
    np.testing.assert_allclose(h[0][0], np.zeros((4, 4)), atol=1e-12)
    np.testing.assert_allclose(h[0][1], [0.0, 0.0, 3.0, -3.0])  # dg/dq = 3 moves the weight from x_(1) to x_(2)
    np.testing.assert_allclose(h[1][1], 0.0, atol=1e-12)
