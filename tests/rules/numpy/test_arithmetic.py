"""Rules for numpy's elementwise functions of two arguments and clip."""

import functools
import warnings

import numpy as np
import pytest

from chainrules.checks.numpy.arithmetic import BINARY_CHECKS
from chainrules.rules.numpy.arithmetic import BINARY
from chainrules_core import NoTangent, Thunk, ZeroTangent, frule, rrule, unthunk
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.arithmetic"))
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


@pytest.mark.parametrize("f, point, partials", LIMITS, ids=[f"{f.__name__}{p}" for f, p, _ in LIMITS])
def test_limit_points_with_plain_zeros(f, point, partials):
    """Engines may pass zeros as numbers, not ZeroTangent(): where a declared partial is finite, both modes still
    give it, though the other argument's partial is infinite or undefined (0 * inf would be NaN)."""
    args = tuple(np.full(2, v) for v in point)
    with np.errstate(all="ignore"):
        bars = [unthunk(b) for b in rrule(f, *args)[1](np.array([1.0, 0.0]))[1:]]
        for i, (bar, expected) in enumerate(zip(bars, partials)):
            if not np.isfinite(expected):
                continue
            tangents = [np.zeros(2), np.zeros(2)]
            tangents[i] = np.array([1.0, 0.0])
            dot = frule((NoTangent(), *tangents), f, *args)[1]
            np.testing.assert_allclose(dot, [expected, 0.0], rtol=1e-6)
            np.testing.assert_allclose(bar, [expected, 0.0], rtol=1e-6)


def test_power_at_base_zero_moves_with_the_exponent_alone():
    """d/dp 0**p = 0 for p > 0: the frule along (0, 1) gives 0 with a plain zero tangent for the base, as the
    rrule does; a zero seed entry gives zero cotangents, though d/dx 0**0.5 is infinite."""
    with np.errstate(all="ignore"):
        assert frule((NoTangent(), 0.0, 1.0), np.power, 0.0, 0.5)[1] == 0.0
        assert unthunk(rrule(np.power, 0.0, 0.5)[1](1.0)[2]) == 0.0
        x, p = np.array([0.0, 4.0]), np.array([0.5, 0.5])
        np.testing.assert_array_equal(
            frule((NoTangent(), np.zeros(2), np.ones(2)), np.power, x, p)[1], [0.0, 2 * np.log(4)]
        )
        _, x_bar, p_bar = rrule(np.power, x, p)[1](np.array([0.0, 1.0]))
    np.testing.assert_array_equal(x_bar, [0.0, 0.25])
    np.testing.assert_array_equal(unthunk(p_bar), [0.0, 2 * np.log(4)])


@pytest.mark.parametrize("f", [np.logaddexp, np.logaddexp2])
@pytest.mark.parametrize("x", [1.0, 1e16, -1e16, 1e300, -1e300])
def test_logaddexp_of_equal_arguments_splits_evenly(f, x):
    """At x == y each weighs 1/2 at any magnitude: out = x + log 2 rounds to x at |x| >= 1e16, so the weights
    come from x - y, not from exp(x - out)."""
    for args in ((x, x), (np.full(3, x), np.full(3, x))):
        one = np.ones_like(args[0])
        _, x_bar, y_bar = rrule(f, *args)[1](one)
        np.testing.assert_array_equal((x_bar, y_bar), (0.5 * one, 0.5 * one))
        np.testing.assert_array_equal(frule((NoTangent(), one, 0 * one), f, *args)[1], 0.5 * one)


def test_logaddexp_weights_far_apart_and_at_infinities():
    """The weights are 1 and 0 when the arguments are far apart, and the limits at the infinities."""
    x = np.array([1e300, -1e300, np.inf, -np.inf, np.inf, 3.0])
    y = np.array([-1e300, 1e300, np.inf, -np.inf, -np.inf, -np.inf])
    _, x_bar, y_bar = rrule(np.logaddexp, x, y)[1](np.ones(6))
    np.testing.assert_array_equal(x_bar, [1.0, 0.0, 0.5, 0.5, 1.0, 1.0])
    np.testing.assert_array_equal(y_bar, [0.0, 1.0, 0.5, 0.5, 0.0, 0.0])


def _softplus_points():
    rng = np.random.default_rng(5)
    special = [0.0, -0.0, 5e-324, 1e-300, -1e-300, 36.0, 37.0, 709.0, -709.0, 745.0, -745.0, 1e308, -1e308]
    return np.concatenate([rng.standard_normal(2000) * 3, rng.uniform(-700, 40, 1000), special, [np.inf, -np.inf]])


@pytest.mark.parametrize("order", ["0.0 first", "0.0 second"])
def test_softplus_primal_is_numpy_logaddexp_to_an_ulp(order):
    """softplus of a float64 array, the rules' own primal (``_logaddexp_of``), is within 2 ulp of numpy's
    ``logaddexp`` (each is within 1 of the exact value) and exact at the infinities, in both modes and in either
    argument order."""
    z = _softplus_points()
    args = (0.0, z) if order == "0.0 first" else (z, 0.0)
    want = np.logaddexp(*args)
    tangents = (NoTangent(), *(np.ones_like(a) if type(a) is np.ndarray else 0.0 for a in args))
    for got in (rrule(np.logaddexp, *args)[0], frule(tangents, np.logaddexp, *args)[0]):
        assert got.dtype == np.float64 and got.shape == want.shape
        np.testing.assert_array_equal(got[-2:], want[-2:])
        assert np.all(np.abs(got - want)[:-2] <= 2 * np.spacing(want[:-2]))


def test_softplus_primal_is_within_an_ulp_of_the_exact_value():
    """The same accuracy as numpy's: the exact value from mpmath at 3,000 points."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.prec = 200
    z = _softplus_points()[:-2]
    got = rrule(np.logaddexp, 0.0, z)[0]
    exact = np.array([float(mpmath.log1p(mpmath.exp(mpmath.mpf(float(v))))) for v in z])
    normal = exact >= np.finfo(np.float64).tiny
    assert np.all(np.abs(got - exact)[normal] <= np.spacing(exact[normal]))


def test_softplus_with_a_nan_is_numpys_with_its_warning():
    """A NaN in z: numpy's own logaddexp gives the values and its warning; float32 and small arrays are numpy's."""
    z = np.linspace(-3.0, 3.0, 300)
    z[7] = np.nan
    with pytest.warns(RuntimeWarning, match="invalid value"):
        got = rrule(np.logaddexp, 0.0, z)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(got, np.logaddexp(0.0, z))
    for other in (np.linspace(-3.0, 3.0, 300, dtype=np.float32), np.linspace(-3.0, 3.0, 10)):
        np.testing.assert_array_equal(rrule(np.logaddexp, 0.0, other)[0], np.logaddexp(0.0, other))


def _logaddexp_weights(f, x, y):
    """The reference: each side's weight from e = base^-|x - y| (no overflow), in float64."""
    t = np.subtract(np.float64(x), np.float64(y)) * (1.0 if f is np.logaddexp2 else 1 / np.log(2.0))
    e = np.exp2(-np.abs(t))
    ahead, behind = 1 / (1 + e), e / (1 + e)
    return np.where(t >= 0, ahead, behind), np.where(t >= 0, behind, ahead)


@pytest.mark.parametrize("f", [np.logaddexp, np.logaddexp2])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(
    "shapes",
    [("float", (4, 50)), ((4, 50), "float"), ((4, 50), (4, 50)), ((4, 1), (4, 50)), ((), (7,)), ((50,), (4, 50))],
)
@pytest.mark.parametrize("far", [False, True], ids=["moderate", "far apart and infinite"])
def test_logaddexp_of_arrays_weighs_each_side_as_the_reference(f, dtype, shapes, far):
    """Real arrays (and a float with an array) take a shorter path, weights 1 / (1 + base^(other - self)), a
    float's cotangent a thunk: to a few ulp of the reference, with no warning. Far apart (where base^t could
    overflow) and at infinities the general rule answers, the same to the last digit."""
    rng = np.random.default_rng(3)

    def make(shape, specials):
        if shape == "float":
            return 0.0
        v = rng.normal(0.0, 4.0, shape).astype(dtype)
        flat = v.reshape(-1)
        n = min(len(specials), flat.size)
        flat[:n] = specials[:n]
        return v

    specials = [800.0, -800.0, 60.0, np.inf, -np.inf, 1e30] if far else []
    x = make(shapes[0], specials)
    y = make(shapes[1], specials if shapes[0] == "float" else [])
    seed = rng.standard_normal(np.broadcast_shapes(np.shape(x), np.shape(y))).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, pullback = rrule(f, x, y)
        _, x_bar, y_bar = pullback(seed)
        assert isinstance(x_bar, Thunk) == (type(x) is float and not far)
        x_bar, y_bar = unthunk(x_bar), unthunk(y_bar)
    wx, wy = _logaddexp_weights(f, x, y)
    for arg, bar, weight in ((x, x_bar, wx), (y, y_bar, wy)):
        want = seed.astype(np.float64) * weight
        summed = tuple(range(want.ndim - np.ndim(arg))) + tuple(
            i + want.ndim - np.ndim(arg) for i, n in enumerate(np.shape(arg)) if n == 1 and want.shape[i] != 1
        )
        scale = np.abs(seed).astype(np.float64).sum(axis=summed, keepdims=True).reshape(np.shape(arg))
        want = want.sum(axis=summed, keepdims=True).reshape(np.shape(arg))
        assert type(bar) is (float if type(arg) is float else np.ndarray)
        if type(arg) is not float:
            assert bar.dtype == dtype and bar.shape == arg.shape
        tol = (4e-16 if dtype == np.float64 else 3e-7) * scale
        np.testing.assert_array_less(np.abs(np.asarray(bar, np.float64) - want), tol + 1e-300)


@pytest.mark.parametrize("args", [(1.0, 2.0), (1.0, 1.0), (0.0, -1.0), (np.array([1.0, -2.0]), np.array([0.0, -2.0]))])
def test_nextafter_moves_with_x(args):
    """nextafter(x, y) is within an ulp of x: 1 in x, 0 in y, at x == y too."""
    _, x_bar, y_bar = rrule(np.nextafter, *args)[1](np.ones_like(args[0]))
    np.testing.assert_array_equal((x_bar, y_bar), (np.ones_like(args[0]), np.zeros_like(args[1])))
    tangents = (NoTangent(), np.full_like(args[0], 2.0), np.full_like(args[1], 3.0))
    np.testing.assert_array_equal(frule(tangents, np.nextafter, *args)[1], np.full_like(args[0], 2.0))


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


@pytest.mark.parametrize("p", [1, 2, 3, 7])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_integer_power_of_a_real_array_matches_numpy_and_the_general_pullback(p, dtype):
    """x ** p of a real array takes a shorter path (p == 2 squares, as numpy's ``**`` does): numpy's values
    bit for bit, and the cotangent p x^(p-1) g of x's dtype, also at zeros and infinities; other seeds agree."""
    x = np.random.default_rng(p).normal(0.0, 1.5 if dtype == np.float16 else 3.0, 40).astype(dtype)
    x[:5] = [0.0, -0.0, np.inf, -np.inf, 1.5]
    g = np.random.default_rng(9).standard_normal(40).astype(dtype)
    g[2] = 0.0  # zero seed where the partial is infinite: 0, not nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, pullback = rrule(np.power, x, p)
        _, x_bar, p_bar = pullback(g)
    np.testing.assert_array_equal(out, np.power(x, p))
    assert x_bar.dtype == dtype and p_bar == NoTangent()
    with np.errstate(all="ignore"):
        want = np.where(g == 0, 0, p * x.astype(np.float64) ** (p - 1) * g)
    tol = {"rtol": 2e-3, "atol": 1e-5} if dtype == np.float16 else {"rtol": 1e-6}  # float16 arithmetic underflows
    np.testing.assert_allclose(x_bar, want.astype(dtype), **tol)
    for seed in (Thunk(lambda: g), g.astype(np.float64)):
        with np.errstate(all="ignore"):
            np.testing.assert_allclose(pullback(seed)[1], x_bar, **tol)


def test_power_at_opposite_infinities_warns_of_nothing():
    """The partial 2x at x = +-inf is +-inf; the pullback checks it is finite without summing the two."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, x_bar, _ = rrule(np.power, np.array([np.inf, -np.inf, 1.5]), 2)[1](np.array([0.0, 1.0, 1.0]))
    np.testing.assert_array_equal(x_bar, [0.0, -np.inf, 3.0])


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


def _summed_back(g, x):
    """``g`` summed over the axes broadcasting ``x`` to it added or stretched, in ``x``'s shape."""
    lead = g.ndim - x.ndim
    stretched = tuple(lead + i for i, d in enumerate(x.shape) if d == 1 and g.shape[lead + i] != 1)
    return g.sum(axis=tuple(range(lead)) + stretched, keepdims=True).reshape(x.shape)


@pytest.mark.parametrize("f, sign", [(np.add, 1), (np.subtract, -1)])
def test_add_and_subtract_of_two_arrays_for_every_broadcast_and_dtype(f, sign):
    """The pullback kept per signature of two arrays: each cotangent summed back to its own shape, of its own
    dtype, for seeds of another kind too, and past the number of signatures the rule keeps at once (1024)."""
    shapes = [((3, 4), (3, 4)), ((3, 4), (3, 1)), ((3, 1), (1, 4)), ((4,), (3, 4)), ((), (3,)), ((2, 1, 4), (3, 1))]
    dtypes = [(np.float64, np.float64), (np.float32, np.float32), (np.float32, np.float64), (np.complex128, np.float64)]
    cases = [(s, d) for s in shapes for d in dtypes] + [(((k,), (1,)), dtypes[0]) for k in range(1, 1100)]
    rng = np.random.default_rng(0)
    for n, ((shape_a, shape_b), (dtype_a, dtype_b)) in enumerate(cases):
        a, b = np.full(shape_a, n, dtype_a), np.zeros(shape_b, dtype_b)
        out, pullback = rrule(f, a, b)
        g = rng.standard_normal(out.shape).astype(out.dtype)
        _, a_bar, b_bar = pullback(g if n % 3 else Thunk(functools.partial(np.copy, g)))
        for x, bar, c in ((a, a_bar, 1), (b, b_bar, sign)):
            want = _summed_back(c * g, x)
            assert bar.shape == x.shape and bar.dtype == x.dtype, (n, f, x.shape, x.dtype)
            np.testing.assert_allclose(bar, (want.real if x.dtype.kind == "f" else want).astype(x.dtype), rtol=1e-6)


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


@pytest.mark.parametrize("f", [f for f in BINARY if f not in (np.ldexp,)], ids=lambda f: f.__name__)
def test_boolean_arguments_get_no_tangent_and_leave_the_other_its_own(f):
    """numpy has no negative of a boolean: the partials see booleans as floats (arctan2's pullback raised)."""
    x, y = np.array([True, False, True]), np.array([False, True, True])
    with np.errstate(all="ignore"):
        out, pullback = rrule(f, x, y)
        assert pullback(np.ones(np.shape(out)))[1:] == (NoTangent(), NoTangent())
        z = np.array([0.5, 2.0, -1.5])
        out, pullback = rrule(f, x, z)
        bars = pullback(np.ones(np.shape(out)))
        _, want = rrule(f, x.astype(np.float64), z)[1](np.ones(np.shape(out)))[1:]
    assert bars[1] == NoTangent()
    np.testing.assert_allclose(bars[2], want, rtol=1e-14)  # the float path may round otherwise
    assert frule((NoTangent(), NoTangent(), np.ones(3)), f, x, z)[1].dtype == out.dtype
