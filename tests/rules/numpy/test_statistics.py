import numpy as np
import pytest

from chainrules_core import NoTangent, frule, rrule
from tests.rules.cases import case_params
from tests.rules.numpy.test_reductions import compare, run_lazily


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.statistics"))
def test_rule(case, dtype, mode):
    """Every declared case of the statistics passes the harness."""
    case.run(dtype, mode)


def test_std_of_constant_input_has_zero_gradient():
    """Where std is 0 its derivative does not exist; the rules give 0 rather than nan."""
    x = np.array([[2.0, 2.0, 2.0], [1.0, 2.0, 3.0]])
    out, pullback = rrule(np.std, x, axis=1)
    x_bar = pullback(np.ones(2))[1]
    assert np.array_equal(x_bar[0], np.zeros(3)) and np.all(np.isfinite(x_bar))
    assert frule((NoTangent(), np.ones_like(x)), np.std, x, axis=1)[1][0] == 0.0


def test_var_of_complex_input_is_real():
    """var of a complex array is real, and its cotangent is complex: 2 (x - mean) var_bar / N."""
    x = np.array([1 + 1j, 2 - 1j, -1j])
    out, pullback = rrule(np.var, x)
    assert out.dtype == np.float64
    assert np.allclose(pullback(1.0)[1], 2 * (x - x.mean()) / 3)


def test_too_few_entries_give_inf_as_numpy_does():
    """N <= ddof: numpy warns and returns inf or nan; the pullback follows."""
    with pytest.warns(RuntimeWarning):
        out, pullback = rrule(np.var, np.array([1.0, 2.0]), ddof=2)
    assert np.isinf(out) or np.isnan(out)
    with pytest.warns(RuntimeWarning):
        assert not np.all(np.isfinite(pullback(1.0)[1]))


def test_where_and_mean_are_refused():
    """Calls with ``where=`` or a precomputed ``mean=`` get no rule."""
    x = np.ones((2, 3))
    assert rrule(np.var, x, where=np.array([True, False, True])) is None
    assert rrule(np.std, x, axis=1, mean=np.ones((2, 1))) is None


def test_nanvar_skips_nans_and_zeroes_empty_slices():
    """nanvar's cotangent is var's over the numbers; a slice with no more than ddof numbers is nan (numpy warns)
    and gets a zero cotangent."""
    x = np.array([[1.0, np.nan, 3.0, 5.0], [np.nan, 2.0, np.nan, np.nan]])
    with pytest.warns(RuntimeWarning):
        out, pullback = rrule(np.nanvar, x, axis=1, ddof=1)
    assert np.isnan(out[1])
    x_bar = pullback(np.ones(2))[1]
    np.testing.assert_allclose(x_bar[0], [-2.0, 0.0, 0.0, 2.0])
    assert np.array_equal(x_bar[1], np.zeros(4))
    with pytest.warns(RuntimeWarning):
        out_dot = frule((NoTangent(), np.ones_like(x)), np.nanstd, x, axis=1, ddof=1)[1]
    assert out_dot[1] == 0.0


def test_average_with_returned_weights():
    """average(a, axis, w, True): the weights' cotangent gets (a - avg)/sum(w) from the average and 1 from the sum."""
    a, w = np.array([[1.0, 2.0, 6.0]]), np.array([1.0, 1.0, 2.0])
    (avg, total), pullback = rrule(np.average, a, 1, w, True)
    assert avg == 3.75 and total == 4.0
    _, a_bar, _, w_bar, _ = pullback((np.array([1.0]), np.array([10.0])))
    np.testing.assert_allclose(a_bar, [[0.25, 0.25, 0.5]])
    np.testing.assert_allclose(w_bar, (a[0] - 3.75) / 4 + 10.0)


@pytest.mark.parametrize(
    "args, kwargs",
    [((), {}), ((1,), {}), ((0,), {"weights": np.array([0.5, 2.0, 1.0])}), ((None, "w"), {}), ((1, "w", True), {})],
)
def test_average_pushforward_of_a_fortran_ordered_tangent(args, kwargs):
    """The tangent of average is the same for a tangent in C order, in Fortran order and strided (a user report)."""
    rng = np.random.default_rng(3)
    a, a_dot = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    w, w_dot = rng.uniform(0.5, 2.0, (3, 4)), rng.standard_normal((3, 4))
    args = tuple(w if v == "w" else v for v in args)
    weighted = len(args) > 1

    def pushed(a_t, w_t):
        tangents = (NoTangent(), a_t, *(NoTangent(),) * len(args))
        if weighted:
            tangents = (*tangents[:3], w_t, *tangents[4:])
        out_dot = frule(tangents, np.average, a, *args, **kwargs)[1]
        return np.concatenate([np.ravel(t) for t in out_dot]) if isinstance(out_dot, tuple) else np.ravel(out_dot)

    want = pushed(a_dot, w_dot)
    expected = np.average(
        a + 1e-7 * a_dot, *args[:1], *((w + 1e-7 * w_dot,) if weighted else ()), **kwargs
    ) - np.average(a - 1e-7 * a_dot, *args[:1], *((w - 1e-7 * w_dot,) if weighted else ()), **kwargs)
    assert np.allclose(np.ravel(expected) / 2e-7, want[: np.size(expected)], atol=1e-6)
    for form in (np.asfortranarray, lambda t: np.repeat(t, 2, axis=1)[:, ::2]):
        assert np.allclose(pushed(form(a_dot), w_dot), want, rtol=1e-13, atol=0)
        assert np.allclose(pushed(a_dot, form(w_dot)), want, rtol=1e-13, atol=0)


# ----- other array libraries: the declared cases run on each in tests/arrays; these are the calls they do not make


@pytest.mark.parametrize("name", ["array_api_strict", "torch", "jax", "jax.jit", "dask"])
def test_std_of_a_constant_slice_on_other_libraries(name):
    """Every library gives a constant slice of std the zero cotangent and tangent numpy's rule gives."""
    x = np.array([[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]])
    compare(name, np.std, x, axis=1)
    compare(name, np.var, x, axis=1, ddof=1)


@pytest.mark.parametrize("f", [np.nanvar, np.nanstd])
def test_slices_with_too_few_numbers_on_dask(f):
    """dask's nanvar and nanstd give a slice with no more numbers than ddof numpy's nan and a zero cotangent."""
    x = np.array([[np.nan, 1.0, np.nan], [1.0, np.nan, 2.0], [0.5, -3.0, 4.0]])
    compare("dask", f, x, axis=1, ddof=1)


@pytest.mark.parametrize(
    ("f", "args", "kwargs"),
    [
        (np.var, (), {"axis": 0}),
        (np.std, (), {"axis": 1, "ddof": 1}),
        (np.nanvar, (), {"axis": 1}),
        (np.nanstd, (), {}),
        (np.average, (1, np.array([0.5, 1.0, 2.0])), {}),
        (np.average, (None, np.arange(1.0, 13.0).reshape(4, 3), True), {}),
    ],
)
def test_statistics_leave_dask_lazy(f, args, kwargs):
    """No statistic's rule computes a dask array."""
    x = np.array([[1.0, np.nan, 3.0], [2.0, 5.0, 5.0], [0.0, -1.0, 0.5], [4.0, 4.0, 1.0]])
    if f in (np.var, np.std, np.average):
        x = np.nan_to_num(x)
    out, bars, out_dot = run_lazily(f, x, *args, **kwargs)
    assert all(hasattr(v, "dask") for v in (out[0] if isinstance(out, tuple) else out, bars[1]))


def test_bincount_is_linear_in_the_weights():
    """Each weight gets the seed of its bin; the counts without weights, and weights by keyword, are constants."""
    x, w = np.array([0, 2, 2, 4]), np.array([0.5, 1.0, -2.0, 3.0], dtype=np.float32)
    out, pullback = rrule(np.bincount, x, w, 6)
    assert np.array_equal(out, [0.5, 0.0, -1.0, 0.0, 3.0, 0.0])
    _, x_bar, w_bar, minlength_bar = pullback(np.arange(6.0))
    assert x_bar == NoTangent() == minlength_bar
    assert w_bar.dtype == np.float32 and np.array_equal(w_bar, [0.0, 2.0, 2.0, 4.0])
    assert np.array_equal(frule((NoTangent(), NoTangent(), np.ones(4)), np.bincount, x, w)[1], [1, 0, 2, 0, 1])
    assert rrule(np.bincount, x)[1](np.ones(5)) == (NoTangent(), NoTangent())
    assert rrule(np.bincount, x, weights=w)[1](np.ones(5)) == (NoTangent(), NoTangent())
