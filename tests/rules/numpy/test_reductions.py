import ast
import importlib
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from chainrules.checks.numpy.reductions import NAN_REDUCTIONS, REDUCTIONS
from chainrules_core import NoTangent, Tangent, ZeroTangent, fast_paths, frule, rrule
from chainrules_core.testing.cases import REALS, Arg, Case, Domain
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.reductions"))
def test_rule(case, dtype, mode):
    """Every declared case of the reductions passes the harness."""
    case.run(dtype, mode)


@st.composite
def reduction_calls(draw):
    shape = draw(array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=4))
    ndim = len(shape)
    axis = draw(
        st.one_of(
            st.none(),
            st.integers(-ndim, ndim - 1) if ndim else st.none(),
            st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(tuple) if ndim else st.none(),
        )
    )
    return shape, {"axis": axis, "keepdims": draw(st.booleans())}


class _NearOne(Domain):
    """Magnitudes in [0.8, 1.25] with either sign: a product of up to 256 of them stays far from float32's limits."""

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return rng.choice([-1.0, 1.0], size=shape) * np.exp(rng.uniform(np.log(0.8), np.log(1.25), size=shape))


NEAR_ONE = _NearOne(name="magnitudes near 1")


@settings(max_examples=40, deadline=None, database=None)
@given(reduction_calls(), st.sampled_from(REDUCTIONS), st.sampled_from(["float64", "float32", "complex128"]))
def test_reductions_on_generated_shapes(call, f, dtype):
    """Every reduction passes the harness in both modes on shapes and axes hypothesis draws.

    A product draws its entries near 1 in magnitude: up to 256 standard normal entries can underflow float32,
    where the product is exactly 0 and finite differences in float64 are not.
    """
    shape, kwargs = call
    case = Case(f, (Arg(NEAR_ONE if f is np.prod else REALS, shape),), kwargs=kwargs, wrong_shape=True)
    case.run(dtype, "rrule")
    case.run(dtype, "frule")


def pull(f, *args, seed=1.0, **kwargs):
    return rrule(f, *args, **kwargs)[1](seed)[1]


def push(f, x, x_dot, **kwargs):
    return frule((NoTangent(), x_dot), f, x, **kwargs)[1]


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_prod_is_exact_with_zeros(dtype):
    """The gradient of prod is the product of the other entries, with one zero or several."""
    cases = {
        (0.0, 2.0, 3.0): [6.0, 0.0, 0.0],
        (0.0, 0.0, 3.0): [0.0, 0.0, 0.0],
        (0.0, 0.0, 0.0): [0.0, 0.0, 0.0],
        (2.0, 0.0, -4.0): [0.0, -8.0, 0.0],
    }
    for x, expected in cases.items():
        x = np.array(x, dtype=dtype)
        assert np.array_equal(pull(np.prod, x), np.array(expected, dtype=dtype))
        assert push(np.prod, x, np.ones(3, dtype=dtype)) == sum(expected)
    x = np.array([[0.0, 0.0, 2.0], [0.0, 3.0, 4.0], [5.0, 6.0, 7.0]], dtype=dtype)
    expected = np.array([[0.0, 0.0, 0.0], [12.0, 0.0, 0.0], [42.0, 35.0, 30.0]], dtype=dtype)
    assert np.array_equal(pull(np.prod, x, seed=np.ones(3), axis=1), expected)


def test_prod_gradient_conjugates_for_complex():
    """For complex input the pullback multiplies by the conjugate of the other entries."""
    x = np.array([1 + 2j, 3 - 1j, 0.5j])
    x_bar = pull(np.prod, x, seed=1.0 + 0j)
    expected = np.conj([x[1] * x[2], x[0] * x[2], x[0] * x[1]])
    assert np.allclose(x_bar, expected)


def test_ties_split_evenly():
    """Tied maxima and minima share the cotangent evenly, two, three or all of them."""
    assert np.array_equal(pull(np.max, np.array([1.0, 3.0, 3.0])), [0.0, 0.5, 0.5])
    assert np.allclose(pull(np.min, np.array([2.0, 2.0, 2.0])), [1 / 3, 1 / 3, 1 / 3])
    x = np.array([[1.0, 3.0, 3.0], [4.0, 0.0, 4.0]])
    assert np.array_equal(pull(np.amax, x, seed=np.array([2.0, 4.0]), axis=1), [[0, 1, 1], [2, 0, 2]])
    assert push(np.max, np.array([5.0, 5.0, 1.0]), np.array([1.0, 3.0, 7.0])) == 2.0


def test_max_gives_nan_extremum_to_the_nans():
    """A NaN maximum propagates, and its cotangent goes to the NaN entries."""
    x = np.array([1.0, np.nan, 2.0])
    assert np.array_equal(pull(np.max, x), [0.0, 1.0, 0.0])


def test_max_with_initial():
    """An initial value that wins takes the cotangent; a tie with it splits."""
    assert np.array_equal(pull(np.max, np.array([1.0, 2.0]), initial=5.0), [0.0, 0.0])
    assert np.array_equal(pull(np.max, np.array([1.0, 5.0]), initial=5.0), [0.0, 0.5])


def test_empty_reductions_behave_as_numpy():
    """Reductions over an empty axis: sum is 0, mean is nan with numpy's warning, max needs initial."""
    x = np.zeros((0, 3))
    out, pullback = rrule(np.sum, x, axis=0)
    assert np.array_equal(out, np.zeros(3))
    assert pullback(np.ones(3))[1].shape == (0, 3)
    with pytest.warns(RuntimeWarning):
        out, pullback = rrule(np.mean, x, axis=0)
    assert np.all(np.isnan(out))
    assert pullback(np.ones(3))[1].shape == (0, 3)
    out, pullback = rrule(np.max, x, axis=0, initial=-1.0)
    assert np.array_equal(out, [-1.0, -1.0, -1.0])
    assert pullback(np.ones(3))[1].shape == (0, 3)
    assert np.array_equal(pull(np.prod, np.zeros((2, 0)), seed=np.ones(2), axis=1), np.zeros((2, 0)))


def test_sum_and_mean_cotangents_are_broadcast_views():
    """The cotangent of sum and mean is a read-only broadcast of the seed, not a full-size array."""
    x = np.ones((100, 200))
    for f in (np.sum, np.mean):
        x_bar = pull(f, x, seed=np.ones(200), axis=0)
        assert x_bar.shape == x.shape
        assert x_bar.strides[0] == 0 and not x_bar.flags.writeable
        assert x_bar.base is not None and x_bar.base.size == 200


def test_dtype_casts_the_cotangent_back():
    """``dtype=`` changes the output's dtype, not the cotangent's."""
    x = np.ones(3, dtype=np.float32)
    out, pullback = rrule(np.sum, x, dtype=np.float64)
    assert out.dtype == np.float64
    assert pullback(1.0)[1].dtype == np.float32
    assert pull(np.sum, x, seed=1.0 + 2j, dtype=np.complex128).dtype == np.float32


def test_out_is_refused():
    """A call writing into ``out=`` gets no rule, so an engine can fall back."""
    x, buffer = np.ones((3, 3)), np.zeros(3)
    for f in (np.sum, np.prod, np.mean, np.max, np.min, np.var, np.std):
        assert rrule(f, x, axis=0, out=buffer) is None
        assert frule((NoTangent(), x, NoTangent(), NoTangent(), NoTangent()), f, x, 0, None, buffer) is None
    assert rrule(np.trace, x, out=np.zeros(())) is None
    assert rrule(np.cumsum, x, out=np.zeros(9)) is None


def test_methods_resolve_to_the_numpy_rules():
    """``x.sum(axis)`` uses the rule of ``np.ndarray.sum``; the method's cotangent holds ``x``'s."""
    x = np.arange(6.0).reshape(2, 3)
    out, pullback = rrule(x.sum, 0)
    assert np.array_equal(out, [3.0, 5.0, 7.0])
    method_bar, axis_bar = pullback(np.ones(3))
    assert isinstance(method_bar, Tangent) and axis_bar == NoTangent()
    assert np.array_equal(method_bar.__self__, np.ones((2, 3)))


def test_integer_inputs_have_no_tangent():
    """Sums of integer arrays are non-differentiable; zero seeds give zeros."""
    assert pull(np.sum, np.arange(3)) == NoTangent()
    assert rrule(np.prod, np.ones(3))[1](ZeroTangent())[1] == ZeroTangent()
    assert push(np.max, np.arange(3), NoTangent()) == NoTangent()


EXTREMA = [np.max, np.min, np.amax, np.amin, np.ndarray.max, np.ndarray.min]


@pytest.mark.parametrize("f", EXTREMA + [np.sum, np.mean, np.prod, np.ptp, np.nanmax], ids=lambda f: f.__name__)
def test_big_endian_input(f):
    """A byte-swapped array (``x.astype('>f8')``) gets the cotangent and tangent of its native twin."""
    native = np.array([[1.0, 5.0, 5.0], [4.0, 2.0, -1.0]])
    swapped = native.astype(">f8")
    seed, x_dot = np.array([1.0, 2.0, 3.0]), np.arange(6.0).reshape(2, 3)
    x_bar = rrule(f, swapped, axis=0)[1](seed)[1]
    assert x_bar.shape == native.shape
    np.testing.assert_array_equal(x_bar, rrule(f, native, axis=0)[1](seed)[1])
    np.testing.assert_array_equal(push(f, swapped, x_dot, axis=0), push(f, native, x_dot, axis=0))


@pytest.mark.parametrize("f", [np.sum, np.mean, np.prod, np.max, np.min, np.ptp, np.cumsum, np.cumprod, np.var])
def test_object_arrays_follow_numpy(f):
    """Object arrays are differentiated with numpy's object arithmetic: the float64 answer, as objects."""
    x = np.array([[1.5, 2.0, -3.0], [0.5, 4.0, 2.0]])
    objects = x.astype(object)
    out, pullback = rrule(f, objects, axis=1)
    seed = np.array([1.0, -2.0]) if np.ndim(out) == 1 else np.ones(np.shape(out))
    x_bar = pullback(seed)[1]
    assert x_bar.dtype == object
    np.testing.assert_allclose(x_bar.astype(float), rrule(f, x, axis=1)[1](seed)[1], rtol=1e-14)
    np.testing.assert_allclose(
        np.asarray(push(f, objects, np.ones_like(x), axis=1), dtype=float), push(f, x, np.ones_like(x), axis=1)
    )


def test_reducing_modules_do_not_assert():
    """Input checks raise named errors: no ``assert`` (which ``python -O`` strips) in the reducing families."""
    for name in ("reductions", "statistics", "cumulative", "_reducing"):
        module = importlib.import_module(f"chainrules.rules.numpy.{name}")
        with open(module.__file__, encoding="utf-8") as source:
            tree = ast.parse(source.read())
        asserts = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assert)]
        assert not asserts, f"chainrules.rules.numpy.{name}.py asserts at lines {asserts}"


def test_nan_maximum_is_routed_per_slice():
    """A slice whose maximum is NaN sends its cotangent to its NaNs; the other slices split their ties."""
    x = np.array([[1.0, np.nan, 2.0], [3.0, 0.5, 3.0]])
    assert np.array_equal(pull(np.max, x, seed=np.ones(2), axis=1), [[0.0, 1.0, 0.0], [0.5, 0.0, 0.5]])
    assert np.array_equal(pull(np.max, x[1:], seed=np.ones(1), axis=1), [[0.5, 0.0, 0.5]])


ALL_NAN = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])


@pytest.mark.parametrize("f", [np.nansum, np.nanprod, np.nanmean, np.nanmax, np.nanmin])
def test_nan_entries_and_all_nan_slices_get_zeros(f):
    """NaN entries get a zero cotangent; a slice of NaNs only follows numpy (its warning, a nan or empty-slice
    result) and gets zeros in both modes."""
    warns = f in (np.nanmean, np.nanmax, np.nanmin)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out, pullback = rrule(f, ALL_NAN, axis=1)
        x_bar = pullback(np.array([1.0, 1.0]))[1]
        out_dot = push(f, ALL_NAN, np.ones((2, 3)), axis=1)
        expected = f(ALL_NAN, axis=1)
    assert bool(caught) == warns
    np.testing.assert_array_equal(out, expected)
    assert np.array_equal(x_bar[:, 1], [0.0, 0.0]) and np.array_equal(x_bar[1], [0.0, 0.0, 0.0])
    assert x_bar[0, 0] != 0 or f is np.nanmax
    assert out_dot[1] == 0.0


def test_nanmean_divides_by_the_count_of_numbers():
    x = np.array([2.0, np.nan, 4.0, 6.0])
    assert np.array_equal(pull(np.nanmean, x), [1 / 3, 0.0, 1 / 3, 1 / 3])


def test_ptp_ties_follow_max_and_min():
    """ptp = max - min: ties at either end split as they do for max and min; a constant slice gets zeros."""
    x = np.array([[1.0, 3.0, 3.0, 1.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0]])
    x_bar = pull(np.ptp, x, seed=np.ones(2), axis=1)
    assert np.array_equal(x_bar, [[-0.5, 0.5, 0.5, -0.5, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]])


def _seeds(out):
    """Seeds of every kind for an output: its own layout, another dtype, not contiguous, a float for a number."""
    shape = np.shape(out)
    dtype = np.result_type(out)
    own = np.linspace(-1.0, 2.0, max(1, int(np.prod(shape)))).reshape(shape).astype(dtype)
    other = {np.float64: np.float32, np.float32: np.float64, np.complex128: np.complex64}[dtype.type]
    seeds = [own, own.astype(other), np.asfortranarray(own)]
    seeds.append(np.repeat(own, 2, axis=-1)[..., ::2] if shape else 0.7)
    seeds += [1.3, np.float64(-0.3), np.float32(0.25), 0.5 + 1j, np.array(0.2)] if not shape else [own[..., None]]
    return seeds


_PLAIN_CALLS = [
    (f, dtype)
    for f in (np.sum, np.ndarray.sum, np.mean, np.max, np.min, np.ndarray.max)
    for dtype in ("float64", "float32", "complex128")
    if dtype != "complex128" or f in (np.sum, np.ndarray.sum, np.mean)  # numpy orders complex numbers by parts
]


@pytest.mark.parametrize("f, dtype", _PLAIN_CALLS)
@pytest.mark.parametrize("axis", [None, 0, -1, 1])
def test_plain_calls_agree_with_the_general_path(f, dtype, axis):
    """``f(x)`` and ``f(x, axis=...)`` on a float array take a shorter path: the same cotangents, dtypes and views.

    Passing ``keepdims=False`` as well takes the general path. The input holds ties, so max and min split them.
    Complex max and min are left out: numpy orders complex numbers lexicographically.
    """
    x = np.array([[0.5, -1.0, 2.0, 2.0], [0.5, 3.0, -1.0, 0.25], [0.1, 3.0, 2.0, -4.0]], dtype=dtype)
    kwargs = {} if axis is None else {"axis": axis}
    out, fast_pullback = rrule(f, x, **kwargs)
    general_out, general_pullback = rrule(f, x, keepdims=False, **kwargs)
    assert type(out) is type(general_out) and np.array_equal(out, general_out)
    for seed in _seeds(out):
        try:
            want = general_pullback(seed)
        except (TypeError, ValueError) as error:
            with pytest.raises(type(error)):
                fast_pullback(seed)
            continue
        got = fast_pullback(seed)
        assert len(got) == len(want) and got[0] == want[0]
        assert got[1].dtype == want[1].dtype and got[1].shape == want[1].shape
        assert np.array_equal(got[1], want[1]), (seed, got[1], want[1])
        assert got[1].flags.writeable == want[1].flags.writeable


def test_plain_max_of_nans_takes_the_general_path():
    """A slice whose maximum is NaN gives its seed to the NaNs, as the general path does."""
    x = np.array([[1.0, np.nan], [2.0, 0.5], [2.0, np.nan]])
    for kwargs in ({"axis": 0}, {}):
        out, pullback = rrule(np.max, x, **kwargs)
        seed = np.ones(np.shape(out))
        assert np.array_equal(pullback(seed)[1], rrule(np.max, x, keepdims=False, **kwargs)[1](seed)[1])


_ZERO_D = [
    (f, dtype)
    for f in (*REDUCTIONS, *NAN_REDUCTIONS, np.ndarray.sum, np.ndarray.max)
    for dtype in ("float64", "float32", "complex128")
]


@pytest.mark.parametrize("f, dtype", _ZERO_D)
@pytest.mark.parametrize("fast", [True, False])
def test_a_0d_input_gets_a_0d_cotangent_whatever_the_seed(f, dtype, fast):
    """The cotangent of a 0-d array is a 0-d array of its dtype, for a seed given as a 0-d array, a numpy scalar or
    a Python number alike (the fast path of max and min gave a numpy scalar), with fast paths on or off."""
    x = np.array(1.5 - 0.5j if dtype == "complex128" else 1.5, dtype=dtype)
    with fast_paths(fast):
        out, pullback = rrule(f, x)
        kind = np.result_type(out)
        python = complex if kind.kind == "c" else float
        for seed in (np.array(0.75, dtype=kind), kind.type(0.75), python(0.75)):
            x_bar = pullback(seed)[1]
            assert type(x_bar) is np.ndarray and x_bar.shape == () and x_bar.dtype == x.dtype, (seed, x_bar)
            assert x_bar == pullback(np.array(0.75, dtype=kind))[1]


# ----- other array libraries: the declared cases run on each in tests/arrays; these are the calls they do not make


def library(name):
    """The library ``name`` of ``chainrules.testing.libraries``, or the test skipped when it is not installed."""
    from chainrules.testing.libraries import LIBRARIES

    found = LIBRARIES[name]
    if not found.available():
        pytest.skip(found.why_not())
    return found


def compare(name, f, *args, **kwargs):
    """``f``'s rrule and frule on ``name``'s arrays give numpy's numbers, in that library's arrays."""
    from chainrules.testing.libraries import compare_on

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's for slices of NaNs only
        for mode in ("rrule", "frule"):
            compare_on(library(name), f, *args, mode=mode, fkwargs=kwargs)


def run_lazily(f, *args, **kwargs):
    """``f``'s rrule, its pullback and its frule on dask arrays of ``args``, while any compute raises: a rule must
    leave a dask array lazy (a check of its values would compute it)."""
    library("dask")
    import dask
    import dask.array as da

    def refuse(*_args, **_kwargs):
        raise AssertionError(f"a rule of {f.__name__} computed a dask array")

    arrays = [da.from_array(a, chunks=2) if isinstance(a, np.ndarray) else a for a in args]
    with dask.config.set(scheduler=refuse):
        out, pullback = rrule(f, *arrays, **kwargs)
        seed = da.ones_like(out[0] if isinstance(out, tuple) else out)
        bars = pullback((seed, seed) if isinstance(out, tuple) else seed)
        tangents = [da.ones_like(a) if isinstance(a, da.Array) else NoTangent() for a in arrays]
        _, out_dot = frule((NoTangent(), *tangents), f, *arrays, **kwargs)
    return out, bars, out_dot


STANDARD = ("array_api_strict", "torch", "jax", "jax.jit", "dask")


@pytest.mark.parametrize("name", STANDARD)
@pytest.mark.parametrize("f", [np.max, np.min])
def test_nan_extrema_and_ties_on_other_libraries(name, f):
    """On every library a NaN extremum's cotangent goes to the NaN entries and ties share theirs, as on numpy: the
    mask compares every entry with its slice's extremum, NaN or not, without looking at the values first."""
    x = np.array([[1.0, np.nan, 3.0], [2.0, 5.0, 5.0], [-1.0, -1.0, 0.5]])
    compare(name, f, x, axis=1)
    compare(name, f, x, axis=0, keepdims=True)
    compare(name, f, x)


@pytest.mark.parametrize("f", [np.nanmax, np.nanmin, np.nansum, np.nanmean, np.nanprod])
def test_slices_of_nans_only_on_dask(f):
    """dask's NaN-skipping reductions give a slice of NaNs only numpy's nan (or 0) and a zero cotangent."""
    x = np.array([[np.nan, np.nan, np.nan], [1.0, np.nan, 2.0], [0.5, -3.0, np.nan]])
    compare("dask", f, x, axis=1)
    compare("dask", f, x, axis=(0, 1))


@pytest.mark.parametrize(
    ("f", "kwargs"),
    [
        (np.sum, {"axis": 1}),
        (np.mean, {}),
        (np.prod, {"axis": 0}),
        (np.max, {"axis": 1}),
        (np.min, {"axis": (0, 1), "keepdims": True}),
        (np.ptp, {"axis": 0, "keepdims": True}),
        (np.nanmax, {"axis": 1}),
        (np.nanmean, {"axis": 0}),
        (np.nanprod, {}),
        (np.trace, {}),
    ],
)
def test_reductions_leave_dask_lazy(f, kwargs):
    """No reduction's rule computes a dask array: the output, the cotangent and the tangent stay lazy."""
    x = np.array([[1.0, np.nan, 3.0], [2.0, 5.0, 5.0], [0.0, -1.0, 0.5], [4.0, 4.0, 1.0]])
    out, bars, out_dot = run_lazily(f, x, **kwargs)
    assert all(hasattr(v, "dask") for v in (out, bars[1], out_dot))


def test_unknown_lengths_of_dask_are_refused():
    """A dask array of unknown length (after boolean masking) has no shape for the rule: a TypeError names it."""
    library("dask")
    import dask.array as da

    x = da.from_array(np.array([1.0, -2.0, 3.0, 4.0]), chunks=2)
    masked = x[x > 0]
    for f in (np.sum, np.max, np.prod):
        with pytest.raises(TypeError, match=rf"np\.{f.__name__}.*dask.*shape"):
            rrule(f, masked)


@pytest.mark.parametrize("name", ["torch", "jax", "array_api_strict"])
def test_options_the_standard_lacks_are_refused_by_name(name):
    """where= and initial= have no counterpart in the standard's reductions: the TypeError names the function and the
    array type rather than converting to numpy."""
    x = library(name).convert(np.array([[1.0, 2.0], [3.0, 4.0]]))
    with pytest.raises(TypeError, match=r"np\.sum has no rule for arrays of type"):
        rrule(np.sum, x, where=np.array([True, False]))
    with pytest.raises(TypeError, match=r"np\.max has no rule for arrays of type"):
        rrule(np.max, x, axis=1, initial=0.0)


@pytest.mark.parametrize("name", STANDARD)
def test_integer_inputs_have_no_tangent_on_other_libraries(name):
    """An integer array of another library has no tangent space there either."""
    for f in (np.sum, np.max, np.prod):
        compare(name, f, np.arange(6).reshape(2, 3), axis=0)


@pytest.mark.parametrize("name", STANDARD)
def test_dtype_casts_on_other_libraries(name):
    """sum and prod with dtype= give an output of that dtype on every library, and cotangents of the input's."""
    x = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)
    compare(name, np.sum, x, axis=1, dtype=np.float64)
    compare(name, np.prod, x, axis=0, dtype=np.float64)
