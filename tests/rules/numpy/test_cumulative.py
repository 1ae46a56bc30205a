import itertools

import numpy as np
import pytest

from chainrules_core import NoTangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params
from tests.rules.numpy.test_reductions import compare, run_lazily


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.cumulative"))
def test_rule(case, dtype, mode):
    """Every declared case of the cumulative family passes the harness."""
    case.run(dtype, mode)


def cumprod_jacobian(x):
    """d cumprod(x)_i / d x_k = prod_{j <= i, j != k} x_j, entry by entry."""
    n = len(x)
    return np.array(
        [[np.prod([x[j] for j in range(i + 1) if j != k]) if k <= i else 0 for k in range(n)] for i in range(n)]
    )


@pytest.mark.parametrize("zeros", [(), (0,), (2,), (4,), (1, 3), (0, 1), (1, 2, 4)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_cumprod_is_exact_with_zeros(zeros, dtype):
    """cumprod's pullback and pushforward equal the exact Jacobian, with no, one or several zeros."""
    rng = np.random.default_rng(len(zeros))
    x = rng.uniform(0.5, 2.0, 5).astype(dtype)
    if dtype == "complex128":
        x = x + 0.5j
    x[list(zeros)] = 0
    J = cumprod_jacobian(x)
    g = rng.standard_normal(5)
    x_bar = rrule(np.cumprod, x)[1](g)[1]
    assert np.allclose(x_bar, np.conj(J).T @ g, rtol=1e-13, atol=0)
    assert np.all(np.isfinite(x_bar))
    x_dot = rng.standard_normal(5)
    assert np.allclose(frule((NoTangent(), x_dot), np.cumprod, x)[1], J @ x_dot, rtol=1e-13, atol=0)


def test_cumprod_rows_with_zeros_in_different_places():
    """Each row of a 2-d cumprod is split at its own first zero."""
    x = np.array([[1.0, 0.0, 2.0, 0.0], [3.0, 2.0, 1.0, 0.5], [0.0, 0.0, 4.0, 2.0]])
    g = np.ones_like(x)
    x_bar = rrule(np.cumprod, x, axis=1)[1](g)[1]
    for row, expected in zip(x_bar, (cumprod_jacobian(r).T @ np.ones(4) for r in x)):
        assert np.allclose(row, expected)


def test_cumsum_pullback_is_a_reversed_cumsum():
    """The adjoint of cumsum sums the seed from each entry to the end."""
    x_bar = rrule(np.cumsum, np.ones((2, 3)), axis=None)[1](np.arange(6.0))[1]
    assert np.array_equal(x_bar, [[15.0, 15.0, 14.0], [12.0, 9.0, 5.0]])


@pytest.mark.parametrize("n, axis", list(itertools.product([1, 2, 3], [0, -1])))
def test_diff_pullback_is_the_adjoint(n, axis):
    """<g, diff(x_dot)> == <diff's pullback of g, x_dot> exactly, for every order."""
    rng = np.random.default_rng(n)
    x, x_dot = rng.standard_normal((2, 5, 6))
    out, pullback = rrule(np.diff, x, n, axis)
    g = rng.standard_normal(out.shape)
    assert np.isclose(np.sum(g * np.diff(x_dot, n, axis)), np.sum(pullback(g)[1] * x_dot))


def test_diff_prepend_by_keyword_has_no_tangent():
    """Keyword arguments never get tangents: a keyword prepend is a constant."""
    out, pullback = rrule(np.diff, np.arange(4.0), prepend=1.0)
    assert len(pullback(np.ones(4))) == 2


@pytest.mark.parametrize("f", [np.cumsum, np.cumprod, np.sum, np.prod, np.mean])
def test_integer_dtype_makes_the_call_non_differentiable(f):
    """``dtype=int`` gives an integer output, which has no tangent: NoTangent in both modes, as ``astype(int)``."""
    x = np.array([1.5, 2.5, -0.5])
    out, pullback = rrule(f, x, dtype=np.int64)
    assert pullback(np.ones(np.shape(out)))[1] == NoTangent()
    assert frule((NoTangent(), np.ones(3)), f, x, dtype=np.int64)[1] == NoTangent()


def test_nancumprod_counts_nans_as_one():
    """NaN entries are skipped (counted as 1) and get a zero cotangent."""
    x = np.array([2.0, np.nan, 3.0])
    np.testing.assert_allclose(rrule(np.nancumprod, x)[1](np.ones(3))[1], [1.0 + 1.0 + 3.0, 0.0, 2.0])


@pytest.mark.skipif(not hasattr(np, "cumulative_sum"), reason="numpy < 2.1 has no cumulative_sum")
def test_include_initial_is_a_constant():
    """The leading 0 of cumulative_sum(include_initial=True) gets no share of the seed."""
    x_bar = rrule(np.cumulative_sum, np.ones(3), include_initial=True)[1](np.array([100.0, 1.0, 2.0, 3.0]))[1]
    assert np.array_equal(x_bar, [6.0, 5.0, 3.0])


# ----- edges -----

_PREPEND = np.ones((3, 5))


@pytest.mark.parametrize(
    "args, kwargs",
    [((0, 0, _PREPEND), {}), ((0, 0), {"prepend": _PREPEND, "append": 2.0}), ((0,), {"axis": 0, "prepend": _PREPEND})],
    ids=["positional", "keyword", "mixed"],
)
def test_diff_of_order_zero_is_the_input(args, kwargs):
    """diff(x, 0, ...) is x itself, whatever prepend and append: x gets the seed, a positional prepend zero."""
    rng = np.random.default_rng(0)
    x, g = rng.standard_normal((2, 5, 5))
    out, pullback = rrule(np.diff, x, *args, **kwargs)
    assert np.array_equal(out, x)
    bars = pullback(g)
    assert np.array_equal(bars[1], g)
    if len(args) == 3:
        assert bars[4].shape == _PREPEND.shape and not np.any(bars[4])
    x_dot = rng.standard_normal((5, 5))
    assert np.array_equal(
        frule((NoTangent(), x_dot, *(NoTangent(),) * len(args)), np.diff, x, *args, **kwargs)[1], x_dot
    )


@pytest.mark.parametrize("positional", [True, False])
def test_diff_past_the_joined_length_is_empty(positional):
    """diff(x, 17, 2, x, x) of a (3, 3, 3) array is empty: zero cotangents of the inputs' shapes, by keyword too."""
    x = np.random.default_rng(1).standard_normal((3, 3, 3))
    args, kwargs = ((17, 2, x, x), {}) if positional else ((17,), {"axis": 2, "prepend": x, "append": x})
    out, pullback = rrule(np.diff, x, *args, **kwargs)
    assert out.shape == (3, 3, 0)
    bars = pullback(np.zeros(out.shape))
    assert bars[1].shape == x.shape and not np.any(bars[1])
    if positional:
        assert all(b.shape == x.shape and not np.any(b) for b in bars[4:])
    tangents = (NoTangent(), x, NoTangent(), NoTangent(), x, x) if positional else (NoTangent(), x, NoTangent())
    assert frule(tangents, np.diff, x, *args, **kwargs)[1].shape == (3, 3, 0)


_PRODUCTS = [np.cumprod, np.nancumprod, *([np.cumulative_prod] if hasattr(np, "cumulative_prod") else [])]


@pytest.mark.parametrize("f", _PRODUCTS)
@pytest.mark.parametrize("shape, axis", [((0,), None), ((0, 4), 0), ((3, 0), 1), ((3, 0), 0)])
def test_cumprod_of_an_empty_array(f, shape, axis):
    """An empty scan has an empty output and empty tangents and cotangents, in the input's dtype."""
    x = np.zeros(shape, dtype=np.float32)
    kwargs = {} if axis is None and f is not np.cumulative_prod else {"axis": axis or 0}
    out, pullback = rrule(f, x, **kwargs)
    x_bar = pullback(np.zeros(out.shape, dtype=np.float32))[1]
    assert x_bar.shape == shape and x_bar.dtype == np.float32
    y_dot = frule((NoTangent(), x), f, x, **kwargs)[1]
    assert y_dot.shape == out.shape and y_dot.dtype == np.float32


@pytest.mark.parametrize("shape, axis", [((5,), None), ((5,), 0), ((5,), -1), ((3, 4), None), ((3, 4), 0), ((3, 4), 1)])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_plain_cumsum_agrees_with_the_general_path(shape, axis, dtype):
    """``cumsum(x)`` and ``cumsum(x, axis)`` of a float array take a shorter path: the same cotangents and dtypes.

    Passing ``dtype=None`` as well takes the general path; a seed of another dtype takes it from the short one,
    a strided seed does not.
    """
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(dtype)
    args = () if axis is None else (axis,)
    out, pullback = rrule(np.cumsum, x, *args)
    general_out, general_pullback = rrule(np.cumsum, x, *args, dtype=None)
    assert np.array_equal(out, general_out)
    seed = rng.standard_normal(out.shape).astype(dtype)
    for s in (
        seed,
        seed.astype(np.complex64 if dtype == "complex128" else np.float16),
        np.repeat(seed, 2, axis=-1)[..., ::2],
    ):
        got, want = pullback(s), general_pullback(s)
        assert got[1].dtype == want[1].dtype == x.dtype and got[1].shape == want[1].shape == x.shape
        assert np.array_equal(got[1], want[1])


def test_cumprod_second_derivative_at_a_zero():
    """Past a zero the pullback's cases are constants whose derivatives move with the zero: a followed input holding
    a zero takes the products themselves, and the second derivatives match the closed form of d²/dx1 dx2 of x1 x2 x3
    summed, at a zero as elsewhere."""
    import chainrules.engines as ad

    def total_slope(x):
        return np.sum(rrule(np.cumprod, x)[1](np.ones(3))[1])

    for x in (np.array([2.0, 5.0, 3.0]), np.array([2.0, 0.0, 3.0]), np.array([0.0, 0.0, 3.0])):
        # sum of cumprod = x1 + x1 x2 + x1 x2 x3; its gradient summed: 1 + x2 + x2 x3 + x1 + x1 x3 + x1 x2
        want = [1 + x[2] + x[1], 1 + x[2] + x[0], x[1] + x[0]]
        np.testing.assert_allclose(ad.gradient(total_slope, x)[0], want)
        np.testing.assert_allclose(ad.jacobian(total_slope, x)[0], want)


def test_diff_of_a_zero_seed():
    """A zero seed (an integer output's, or a ZeroTangent) gives zeros, not numpy's error for a 0-d array."""
    x = np.arange(6).reshape(2, 3)
    assert rrule(np.diff, x)[1](NoTangent()) == (NoTangent(), NoTangent())
    bars = rrule(np.diff, x * 1.0, 1, 1, 0.5)[1](ZeroTangent())
    assert bars == (NoTangent(), ZeroTangent(), NoTangent(), NoTangent(), ZeroTangent())


# ----- other array libraries: the declared cases run on each in tests/arrays; these are the calls they do not make


@pytest.mark.parametrize("f", [np.nancumsum, np.nancumprod])
def test_rows_of_nans_on_dask(f):
    """dask's NaN-skipping scans, flattened or along an axis, with a row of NaNs only."""
    x = np.array([[np.nan, np.nan, np.nan], [1.0, np.nan, 2.0], [0.5, 0.0, np.nan]])
    compare("dask", f, x)
    compare("dask", f, x, axis=1)


@pytest.mark.parametrize("name", ["array_api_strict", "torch", "jax", "jax.jit", "dask"])
def test_diff_and_cumulative_scans_on_other_libraries(name):
    """diff with numpy's prepend and append (a number, a lower-dimensional array) broadcast as numpy does, and
    cumulative_prod through zeros, on every library."""
    x = np.array([[2.0, 0.0, 3.0, 0.0], [1.5, 2.0, 0.0, -1.0]])
    compare(name, np.diff, x, prepend=0.5, append=np.array([[1.0], [2.0]]))
    compare(name, np.diff, x, n=3, axis=1)
    compare(name, np.diff, x, n=0)
    compare(name, np.cumulative_prod, x, axis=1, include_initial=True)


@pytest.mark.parametrize(
    ("f", "kwargs"),
    [
        (np.cumsum, {"axis": 0}),
        (np.cumprod, {"axis": 1}),
        (np.cumulative_sum, {"axis": 1}),
        (np.cumulative_prod, {"axis": 0, "include_initial": True}),
        (np.nancumsum, {}),
        (np.nancumprod, {"axis": 1}),
        (np.diff, {"n": 2}),
        (np.ediff1d, {}),
    ],
)
def test_scans_leave_dask_lazy(f, kwargs):
    """No scan's rule computes a dask array, zeros and NaNs in the input or not."""
    x = np.array([[1.0, np.nan, 3.0], [2.0, 0.0, 5.0], [0.0, -1.0, 0.5], [4.0, 4.0, 1.0]])
    out, bars, out_dot = run_lazily(f, x, **kwargs)
    assert all(hasattr(v, "dask") for v in (out, bars[1], out_dot))
