"""Rules for numpy's elementwise functions of one argument."""

import math
import warnings

import numpy as np
import pytest

import chainrules.engines as ad
from chainrules.checks.numpy.elementwise import UNARY_CHECKS
from chainrules.rules.numpy.elementwise import UNARY
from chainrules_core import AbstractZero, NoTangent, Thunk, ZeroTangent, accumulate, frule, rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.elementwise"))
def test_rule(case, dtype, mode):
    """Every declared case of the elementwise family passes the harness."""
    case.run(dtype, mode)


# ----- points the harness cannot reach, conventions, keywords -----


LIMITS = [(f, point, partials) for f, check in UNARY_CHECKS.items() for point, partials in check.limits.items()]


def _name(f):
    return getattr(f, "__name__", str(f))


@pytest.mark.parametrize("dtype", ["float64", "float32", "python"])
@pytest.mark.parametrize("f, point, partials", LIMITS, ids=[f"{_name(f)}{p}" for f, p, _ in LIMITS])
def test_limit_points(f, point, partials, dtype):
    """Where the derivative is infinite, both rules return the declared limit (numpy's inf, with its warning)."""
    (x,), (expected,) = point, partials
    x = x if dtype == "python" else np.asarray(x, dtype=dtype)
    with np.errstate(all="ignore"):
        _, pullback = rrule(f, x)
        _, x_bar = pullback(1.0 if dtype == "python" else np.ones((), dtype=dtype))
        _, out_dot = frule((NoTangent(), 1.0 if dtype == "python" else np.ones((), dtype=dtype)), f, x)
    assert type(x_bar) is float if dtype == "python" else x_bar.dtype == np.dtype(dtype)
    np.testing.assert_allclose(float(x_bar), expected, rtol=1e-6)
    np.testing.assert_allclose(float(out_dot), expected, rtol=1e-6)


@pytest.mark.parametrize("f", [np.floor, np.ceil, np.trunc, np.rint, np.round, np.sign])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_rounding_has_zero_derivative_of_the_input_dtype(f, dtype):
    """At the jumps too (integers, half-integers, 0): zeros of the input's dtype, not NoTangent."""
    x = np.array([-1.0, 0.0, 0.5, 2.0, 2.5], dtype=dtype)
    out, pullback = rrule(f, x)
    _, x_bar = pullback(np.ones(5, dtype=dtype))
    assert x_bar.dtype == np.dtype(dtype) and not np.any(x_bar)
    _, out_dot = frule((NoTangent(), np.ones(5, dtype=dtype)), f, x)
    assert out_dot.dtype == out.dtype and not np.any(out_dot)
    assert rrule(f, 2.0)[1](1.0) == (NoTangent(), 0.0)


def test_round_decimals_gets_no_tangent():
    _, pullback = rrule(np.round, np.array([1.234, 5.678]), 2)
    assert pullback(np.ones(2))[2] == NoTangent()


@pytest.mark.parametrize("f", [np.sign, np.angle, np.absolute])
def test_complex_zero(f):
    """At 0, where sign and angle jump and abs has a kink, the cotangent is 0 (the central difference for abs)."""
    _, pullback = rrule(f, np.zeros(2, dtype=complex))
    _, z_bar = pullback(np.ones(2, dtype=complex if f is np.sign else float))
    assert z_bar.dtype == np.complex128 and not np.any(z_bar)


def test_sign_of_a_complex_number_moves_on_the_circle():
    """d sign(z) = i sign(z) Im(conj(sign(z)) dz)/|z|: radial directions give 0, a turn i z gives i sign(z)."""
    z = 3.0 + 4.0j
    assert frule((NoTangent(), z), np.sign, z)[1] == pytest.approx(0.0)
    assert frule((NoTangent(), 1j * z), np.sign, z)[1] == pytest.approx(1j * z / 5)


def test_abs_of_a_complex_number_embeds_the_real_cotangent():
    _, pullback = rrule(np.abs, np.array([3.0 + 4.0j]))
    _, z_bar = pullback(np.array([2.0]))
    np.testing.assert_allclose(z_bar, [2.0 * (0.6 + 0.8j)])


def test_python_floats_get_python_floats():
    for f in (np.sin, np.sqrt, np.negative, np.absolute, np.floor, np.deg2rad):
        _, pullback = rrule(f, 0.5)
        assert type(pullback(1.0)[1]) is float, f


_FLOAT_POINTS = [
    -math.inf, -1e300, -710.0, -20.0, -2.5, -1.0, -(1 - 2.0**-30), -0.5, -0.0,
    0.0, 1e-310, 0.5, 1 - 2.0**-30, 1.0, 1.5, 2.0, 20.0, 400.0, 710.0, 1e300, math.inf, math.nan,
]  # fmt: skip


@pytest.mark.parametrize("f", [f for f in UNARY if f is not np.absolute], ids=lambda f: f.__name__)
def test_python_float_path_agrees_with_numpy_scalars(f):
    """A Python float takes the partials in Python arithmetic (``floats``), numpy's where that raises: the same
    cotangents and tangents as a numpy float, to 2 ulp, at special points, domain edges and overflow too."""
    for x in _FLOAT_POINTS:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out, pullback = rrule(f, x)
            x_bar = pullback(1.5)[1]
            y, y_dot = frule((NoTangent(), 1.5), f, x)
            want_bar = rrule(f, np.float64(x))[1](1.5)[1]
            want_dot = frule((NoTangent(), 1.5), f, np.float64(x))[1]
        assert type(x_bar) is float and type(y_dot) is type(want_dot), (f, x)
        for got, want in ((x_bar, want_bar), (y_dot, want_dot)):
            if math.isnan(want) or math.isinf(want):
                assert got == want or (math.isnan(got) and math.isnan(want)), (f, x, got, want)
            else:
                assert got == pytest.approx(want, rel=4.5e-16, abs=0), (f, x, got, want)


def test_integer_and_bool_inputs_get_no_tangent():
    for x in (np.array([1, 4]), np.array([True, False]), 4, True):
        _, pullback = rrule(np.sqrt, x)
        assert pullback(np.ones(np.shape(x)))[1] == NoTangent()
    assert frule((NoTangent(), np.ones(2)), np.reciprocal, np.array([1, 2]))[1] == NoTangent()


def test_dtype_keyword_casts_the_cotangent_back():
    """np.exp(x, dtype=float32) of a float64 x: a float64 cotangent, a float32 tangent."""
    x = np.array([0.5, 1.5])
    out, pullback = rrule(np.exp, x, dtype=np.float32)
    _, x_bar = pullback(np.ones(2, dtype=np.float32))
    assert out.dtype == np.float32 and x_bar.dtype == np.float64
    np.testing.assert_allclose(x_bar, np.exp(x), rtol=1e-6)
    assert frule((NoTangent(), np.ones(2)), np.exp, x, dtype=np.float32)[1].dtype == np.float32


@pytest.mark.parametrize("f", [np.sin, np.positive, np.absolute, np.conjugate, np.floor, np.sign])
def test_out_and_where_get_no_rule(f):
    """Calls writing into a buffer or masking the output are refused with None, so an engine falls back."""
    x, buffer = np.ones(3), np.empty(3)
    assert rrule(f, x, out=buffer) is None
    assert rrule(f, x, buffer) is None
    assert rrule(f, x, where=x > 0) is None
    assert frule((NoTangent(), x), f, x, out=buffer) is None
    assert frule((NoTangent(), x, ZeroTangent()), f, x, buffer) is None


def test_a_seed_passed_through_is_read_only():
    """positive passes its seed on as a read-only view: accumulating into it copies, the seed is untouched."""
    seed = np.ones(3)
    _, pullback = rrule(np.positive, np.zeros(3))
    _, x_bar = pullback(seed)
    assert np.shares_memory(x_bar, seed) and not x_bar.flags.writeable
    total = accumulate(x_bar, np.ones(3))
    assert np.all(seed == 1.0) and np.all(total == 2.0)


def test_zero_and_thunked_seeds():
    _, pullback = rrule(np.absolute, np.array([1.0 + 1.0j]))
    assert isinstance(pullback(ZeroTangent())[1], AbstractZero)
    np.testing.assert_allclose(pullback(Thunk(lambda: np.ones(1)))[1], [(1 + 1j) / math.sqrt(2)])


@pytest.mark.parametrize("f", [np.conjugate, np.real])
def test_real_parts_pass_the_seed_on_read_only(f):
    seed = np.ones(3)
    _, x_bar = rrule(f, np.zeros(3))[1](seed)
    assert not x_bar.flags.writeable
    x_dot = np.ones(3)
    assert not frule((NoTangent(), x_dot), f, np.zeros(3))[1].flags.writeable


@pytest.mark.parametrize(
    "f, x, expected",
    [
        (np.tanh, 20.0, 1 / math.cosh(20.0) ** 2),  # 1 - tanh² would give 0
        (np.tanh, -400.0, 0.0),  # 1/cosh² would overflow
        (np.expm1, -40.0, math.exp(-40.0)),  # out + 1 would give 0
        (np.arcsin, 1 - 2.0**-30, 1 / math.sqrt(2.0**-30 * (2 - 2.0**-30))),  # 1 - x² loses half the digits
        (np.arctanh, -(1 - 2.0**-30), 1 / (2.0**-30 * (2 - 2.0**-30))),
    ],
)
@pytest.mark.parametrize("kind", [float, np.float64])
def test_accuracy_where_the_textbook_formula_cancels(f, x, expected, kind):
    _, pullback = rrule(f, kind(x))
    assert pullback(1.0)[1] == pytest.approx(expected, rel=1e-14, abs=0)
    assert frule((NoTangent(), 1.0), f, kind(x))[1] == pytest.approx(expected, rel=1e-14, abs=0)


@pytest.mark.parametrize(
    "size, far",
    [(64, 0), (64, 3), (1024, 80), (1024, 1024), (4096, 0), (4096, 300), (10_000, 30), (10_000, 6000)],
    ids=[
        "small, none beyond 2",
        "small",
        "small, some beyond 2",
        "small, all beyond 2",
        "medium, none beyond 2",
        "medium, some beyond 2",
        "large, few beyond 2",
        "large, most beyond 2",
    ],
)
def test_tanh_slope_is_sech_squared_on_every_path_of_an_array(size, far):
    """Arrays take 1 - tanh² where |x| <= 2 and 1/cosh² elsewhere, recomputed in place or as a whole buffer."""
    x = np.random.default_rng(size + far).uniform(-1.9, 1.9, size)
    x[:far] = np.linspace(-450.0, 450.0, far)
    x_bar = rrule(np.tanh, x)[1](np.ones(size))[1]
    expected = [(1 / math.cosh(v)) ** 2 if abs(v) < 700 else 0.0 for v in x]
    np.testing.assert_allclose(x_bar, expected, rtol=1e-13, atol=0)


# ----- the long tail: sinc, i0, nan_to_num, real_if_close, modf, frexp -----


@pytest.mark.parametrize("reach", [1.9, 4.0], ids=["every |x| <= 2: the input not kept", "some |x| > 2"])
def test_tanh_seed_of_another_kind_gets_the_same_cotangent(reach):
    """A seed of the array's dtype and shape is multiplied into the slope's buffer; a thunk, a float32 or complex
    seed take the other pullbacks: the same numbers, the input's dtype; a zero seed a zero; a seed that only
    broadcasts to the output is refused."""
    x = np.random.default_rng(5).uniform(-reach, reach, (3, 50))
    g = np.random.default_rng(6).standard_normal((3, 50))
    pullback = rrule(np.tanh, x)[1]
    want = g / np.cosh(x) ** 2
    with pytest.raises(ValueError, match=r"np.tanh: a seed of shape \(1, 50\) for an output of shape \(3, 50\)"):
        pullback(g[:1])
    for seed in (g, Thunk(lambda: g), g.astype(np.float32), g + 0.5j):
        x_bar = pullback(seed)[1]
        assert x_bar.dtype == np.float64 and x_bar.shape == x.shape
        expected = np.real(seed) / np.cosh(x) ** 2 if not isinstance(seed, Thunk) else want
        np.testing.assert_allclose(x_bar, np.broadcast_to(expected, x.shape), rtol=1e-6 if seed is not g else 1e-13)
    assert not np.shares_memory(pullback(g)[1], g)
    assert isinstance(pullback(ZeroTangent())[1], AbstractZero)


def test_sinc_slope_is_zero_at_zero_and_continuous_across_the_series():
    """sinc'(0) = 0, the limit; the Taylor series near 0 and the quotient agree where they meet."""
    assert rrule(np.sinc, 0.0)[1](1.0)[1] == 0.0
    x = np.array([0.0499999, 0.0500001])
    slopes = rrule(np.sinc, x)[1](np.ones(2))[1]
    np.testing.assert_allclose(slopes, (np.pi * x * np.cos(np.pi * x) - np.sin(np.pi * x)) / (np.pi * x**2), rtol=1e-9)


def test_i0_slope_is_scipys_i1():
    special = pytest.importorskip("scipy.special")
    x = np.array([-20.0, -8.0, -0.3, 0.0, 1.0, 7.9, 8.1, 50.0])
    np.testing.assert_allclose(rrule(np.i0, x)[1](np.ones(8))[1], special.i1(x), rtol=1e-14)


def test_nan_to_num_passes_finite_entries_only():
    x = np.array([1.0, np.nan, np.inf, -np.inf])
    _, x_bar, copy_bar, nan_bar, posinf_bar = rrule(np.nan_to_num, x, True, 0.0, 5.0)[1](np.array([1.0, 2.0, 3.0, 4.0]))
    assert np.array_equal(x_bar, [1.0, 0.0, 0.0, 0.0])
    assert (copy_bar, nan_bar, posinf_bar) == (NoTangent(), 2.0, 3.0)
    assert rrule(np.nan_to_num, x, copy=False) is None  # writes into x


def test_nan_to_num_treats_complex_parts_separately():
    z = np.array([complex(np.nan, 2.0)])
    assert rrule(np.nan_to_num, z)[1](np.array([3.0 + 4.0j]))[1] == np.array([4.0j])


def test_real_if_close_embeds_the_real_cotangent():
    z = np.array([1.0 + 1e-20j, 2.0])
    out, pullback = rrule(np.real_if_close, z)
    assert out.dtype == np.float64
    x_bar = pullback(np.array([1.0, 2.0]))[1]
    assert x_bar.dtype == np.complex128 and np.array_equal(x_bar, [1.0, 2.0])


def test_modf_and_frexp_conventions_at_their_jumps():
    """modf's fraction has slope 1 at integers too; frexp's mantissa 2**-e with numpy's exponent (powers of two
    start a binade) and 1 at 0; the integer part and the exponent have zero and no tangent."""
    x = np.array([-2.0, 3.0, 0.0, 8.0, 0.75])
    _, x_bar = rrule(np.modf, x)[1]((np.ones(5), np.ones(5)))
    assert np.array_equal(x_bar, np.ones(5))
    _, (frac_dot, int_dot) = frule((NoTangent(), np.ones(5)), np.modf, x)
    assert np.array_equal(frac_dot, np.ones(5)) and np.array_equal(int_dot, np.zeros(5))
    _, x_bar = rrule(np.frexp, x)[1]((np.ones(5), ZeroTangent()))
    assert np.array_equal(x_bar, [0.25, 0.25, 1.0, 1 / 16, 1.0])
    _, (mantissa_dot, exponent_dot) = frule((NoTangent(), np.ones(5)), np.frexp, x)
    assert np.array_equal(mantissa_dot, x_bar) and exponent_dot == NoTangent()


def _i1_slope(x: float) -> float:
    """I1'(x) from the power series of I1 (DLMF 10.25.2) differentiated term by term."""
    return sum((2 * k + 1) * (x / 2) ** (2 * k) / (2 * math.factorial(k) * math.factorial(k + 1)) for k in range(60))


@pytest.mark.parametrize("mode", ["forward-over-reverse", "reverse-over-reverse"])
def test_hessians_through_nan_to_num_and_i0(mode):
    """sum(sin(nan_to_num(x))) has -sin(x) on the diagonal where x is finite, 0 where numpy replaced it; i0'' = I1'."""
    x = np.array([1.5, np.nan, np.inf, -0.5])
    h = ad.hessian(lambda v: np.sum(np.sin(np.nan_to_num(v))), x, mode=mode)
    np.testing.assert_allclose(h, np.diag([-np.sin(1.5), 0.0, 0.0, np.sin(0.5)]))
    x = np.array([0.0, 0.5, -3.0, 9.0])
    expected = np.diag([_i1_slope(v) for v in x])
    np.testing.assert_allclose(ad.hessian(lambda v: np.sum(np.i0(v)), x, mode=mode), expected, rtol=1e-13)
