"""Rules for the math module."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chainrules.checks.numpy.arithmetic import BINARY_CHECKS
from chainrules.checks.numpy.elementwise import UNARY_CHECKS
from chainrules.rules._makers import PY
from chainrules.rules.numpy.arithmetic import BINARY
from chainrules.rules.numpy.elementwise import UNARY
from chainrules.rules.python.math import MATH_BINARY, MATH_UNARY, digamma, trigamma
from chainrules_core import NoTangent, Thunk, ZeroTangent, frule, rrule, unthunk
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("python.math"))
def test_rule(case, dtype, mode):
    """Every declared case of the math family passes the harness."""
    case.run(dtype, mode)


# ----- the Python path against the table, types, errors -----


TABLED = {**{f: (UNARY[u], UNARY_CHECKS[u]) for f, u in MATH_UNARY.items() if u in UNARY}}
TABLED.update({f: (BINARY[u], BINARY_CHECKS[u]) for f, u in MATH_BINARY.items()})
ENTRIES = [(f, *TABLED[f]) for f in TABLED]
"""Each math function whose partials come from a table: the entry, and where its inputs live."""


def _point(f, check, rng):
    point = tuple(float(d.sample(rng, ())) for d in check.domains)
    return (point[0], round(4 * point[1])) if f is math.ldexp else point  # ldexp's exponent is an int


@pytest.mark.parametrize("f, partials, check", ENTRIES, ids=[f.__name__ for f, _, _ in ENTRIES])
def test_python_arithmetic_agrees_with_numpy(f, partials, check):
    """The tables hold one formula for both namespaces: math on floats and numpy on arrays agree."""
    rng = np.random.default_rng(1)
    for _ in range(5):
        args = _point(f, check, rng)
        out = f(*args)
        in_python = partials(PY, out, *args)
        in_numpy = partials(np, np.float64(out), *(a if type(a) is int else np.float64(a) for a in args))
        np.testing.assert_allclose(in_python, in_numpy, rtol=1e-13)


@pytest.mark.parametrize("f, partials, check", ENTRIES, ids=[f.__name__ for f, _, _ in ENTRIES])
def test_python_floats_in_python_floats_out(f, partials, check):
    args = _point(f, check, np.random.default_rng(2))
    out, pullback = rrule(f, *args)
    assert type(out) is float and out == f(*args)
    bars = [unthunk(b) for b in pullback(1.0)[1:]]
    assert all(type(b) is float if type(a) is float else b == NoTangent() for a, b in zip(args, bars)), bars
    _, out_dot = frule((NoTangent(), *[1.0] * len(args)), f, *args)
    assert type(out_dot) is float


@pytest.mark.parametrize(
    "f, args, error",
    [
        (math.sqrt, (-1.0,), ValueError),
        (math.log, (0.0,), ValueError),
        (math.acos, (1.5,), ValueError),
        (math.exp, (1000.0,), OverflowError),
        (math.pow, (0.0, -1.0), ValueError),
        (math.sin, (1j,), TypeError),
        (math.remainder, (1.0, 0.0), ValueError),
        (math.remainder, (math.inf, 1.0), ValueError),
        (math.ldexp, (1.0, 2000), OverflowError),
        (math.ldexp, (1.0, 1.5), TypeError),
    ],
)
def test_rules_raise_as_math_does(f, args, error):
    """Outside a domain math raises rather than returning nan, and so do its rules."""
    with pytest.raises(error):
        rrule(f, *args)
    with pytest.raises(error):
        frule((NoTangent(), *[1.0] * len(args)), f, *args)


@pytest.mark.parametrize("f, x, expected", [(math.sqrt, 0.0, math.inf), (math.asin, 1.0, math.inf)])
def test_infinite_derivatives_follow_numpy(f, x, expected):
    """Where math returns a value but the derivative is infinite: numpy's inf, with its warning."""
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        _, pullback = rrule(f, x)
        x_bar = pullback(1.0)[1]
    assert type(x_bar) is float and x_bar == expected


def test_ints_get_no_tangent_and_numpy_scalars_keep_their_type():
    assert rrule(math.sqrt, 4)[1](1.0) == (NoTangent(), NoTangent())
    _, x_bar = rrule(math.sin, np.float32(0.5))[1](1.0)
    assert type(x_bar) is np.float32 and x_bar == pytest.approx(math.cos(0.5))
    _, x_bar, n_bar = rrule(math.pow, 2.0, 3)[1](1.0)
    assert (x_bar, n_bar) == (12.0, NoTangent())


def test_pow_exponent_cotangent_is_lazy():
    """x ** p at a negative x: the exponent's cotangent (nan) is computed only if someone asks for it."""
    _, x_bar, p_bar = rrule(math.pow, -2.0, 2.0)[1](1.0)
    assert x_bar == -4.0 and isinstance(p_bar, Thunk)
    with pytest.warns(RuntimeWarning):
        assert math.isnan(unthunk(p_bar))


def test_log_with_a_base():
    _, x_bar, b_bar = rrule(math.log, 8.0, 2.0)[1](1.0)
    assert x_bar == pytest.approx(1 / (8 * math.log(2)))
    assert b_bar == pytest.approx(-3.0 / (2 * math.log(2)))


UNARY_ENTRIES = [(f, u) for f, u in MATH_UNARY.items()]


def _floats_in(domain):
    low = domain.low + 1e-3 if math.isfinite(domain.low) else -20.0
    high = domain.high - 1e-3 if math.isfinite(domain.high) else 20.0
    return st.floats(low, high, allow_nan=False)


@pytest.mark.parametrize("f, ufunc", UNARY_ENTRIES, ids=[f.__name__ for f, _ in UNARY_ENTRIES])
def test_math_and_numpy_entry_points_agree(f, ufunc):
    """math.f on a float and np.f on a float64 give the same cotangent and tangent, anywhere in the domain."""

    @settings(max_examples=25, deadline=None)
    @given(_floats_in(UNARY_CHECKS[ufunc].domains[0]))
    def check(x):
        with np.errstate(all="ignore"):
            python = rrule(f, x)[1](1.0)[1], frule((NoTangent(), 1.0), f, x)[1]
            numpy = rrule(ufunc, np.float64(x))[1](1.0)[1], frule((NoTangent(), 1.0), ufunc, np.float64(x))[1]
        np.testing.assert_allclose(python, numpy, rtol=1e-12)

    check()


def test_nextafter_moves_with_x():
    """math.nextafter(x, y) is within an ulp of x: 1 in x, 0 in y."""
    assert rrule(math.nextafter, 1.0, 2.0)[1](1.0) == (NoTangent(), 1.0, 0.0)
    assert frule((NoTangent(), 2.0, 3.0), math.nextafter, 1.0, 1.0)[1] == 2.0


@pytest.mark.parametrize("x", [np.array(-2.5), np.array(0.0), np.float32(3.0)], ids=["0-d", "0-d zero", "float32"])
def test_fabs_of_a_numpy_real(x):
    """math.fabs takes any real: its derivative is sign(x) for a 0-d array or numpy scalar too."""
    out, pullback = rrule(math.fabs, x)
    assert out == math.fabs(x)
    assert float(pullback(1.0)[1]) == np.sign(x)
    assert frule((NoTangent(), 2.0), math.fabs, x)[1] == 2.0 * np.sign(x)


@pytest.mark.parametrize("x, y", [(np.float32(-2.5), 1.0), (np.array(0.0), -1.0), (2.0, np.float64(-0.0))])
def test_copysign_of_numpy_reals(x, y):
    """math.copysign takes any reals: sign(x) sign(y) in x (0 at x == 0), 0 in y."""
    expected = float(np.sign(x)) * math.copysign(1.0, y)
    _, x_bar, y_bar = rrule(math.copysign, x, y)[1](1.0)
    assert float(x_bar) == expected and float(y_bar) == 0.0
    assert frule((NoTangent(), 2.0, 3.0), math.copysign, x, y)[1] == 2.0 * expected


@pytest.mark.parametrize(
    "x, y, n",
    [(3.0, 2.0, 2), (5.0, 2.0, 2), (-3.0, 2.0, -2), (1.5, -1.0, -2), (2.5, 1.0, 2), (7.3, -2.0, -4)],
)
def test_remainder_partials_are_one_and_minus_the_nearest_quotient(x, y, n):
    """x - n y with n nearest x / y; at a tie (all but the last) the even n IEEE 754 picks, one-sided values."""
    out = math.remainder(x, y)
    assert out == x - n * y
    assert rrule(math.remainder, x, y)[1](1.0) == (NoTangent(), 1.0, -n)
    assert frule((NoTangent(), 1.0, 1.0), math.remainder, x, y)[1] == 1.0 - n


def test_ldexp_and_frexp_scale_by_powers_of_two():
    assert rrule(math.ldexp, 1.5, -3)[1](1.0) == (NoTangent(), 0.125, NoTangent())
    with pytest.warns(RuntimeWarning, match="overflow"):  # 2**1100 is beyond the floats, x 2**1100 is not
        assert rrule(math.ldexp, 1e-300, 1100)[1](1.0) == (NoTangent(), math.inf, NoTangent())
    (m, e), pullback = rrule(math.frexp, 12.0)
    assert (m, e) == (0.75, 4) and pullback((1.0, ZeroTangent())) == (NoTangent(), 1 / 16)
    _, (m_dot, e_dot) = frule((NoTangent(), 2.0), math.frexp, 12.0)
    assert m_dot == 2 / 16 and e_dot == NoTangent()


@pytest.mark.parametrize("x", [2.0, -3.0, 0.0])
def test_modf_at_integers_keeps_slope_one_in_the_fraction(x):
    _, pullback = rrule(math.modf, x)
    assert pullback((1.0, 1.0)) == (NoTangent(), 1.0)
    assert pullback((ZeroTangent(), 5.0)) == (NoTangent(), 0.0)
    _, (frac_dot, int_dot) = frule((NoTangent(), 2.0), math.modf, x)
    assert (frac_dot, int_dot) == (2.0, 0.0)


# ----- erf, erfc, gamma, lgamma -----


DIGAMMA_POINTS = [1e-300, 1e-8, 0.1, 0.5, 1.0, 1.4616321449683623, 2.0, 9.99, 10.0, 33.3, 1e5, 1e300]
DIGAMMA_POINTS += [-1e-3, -0.5, -1.5, -2.999, -123.456, -999999.7]


@pytest.mark.parametrize("x", DIGAMMA_POINTS)
def test_digamma_agrees_with_scipy(x):
    """ψ from its recurrence, asymptotic series and reflection, against scipy's (the harness checks it against
    finite differences through gamma and lgamma)."""
    special = pytest.importorskip("scipy.special")
    assert digamma(x) == pytest.approx(special.digamma(x), rel=1e-13, abs=1e-15)


@pytest.mark.parametrize("x", DIGAMMA_POINTS)
def test_trigamma_agrees_with_scipy(x):
    special = pytest.importorskip("scipy.special")
    assert trigamma(x) == pytest.approx(special.polygamma(1, x), rel=1e-13)


def test_digamma_and_trigamma_at_the_ends_of_the_line():
    assert digamma(math.inf) == math.inf and trigamma(math.inf) == 0.0
    for f in (digamma, trigamma):
        assert math.isnan(f(-math.inf)) and math.isnan(f(math.nan))


@pytest.mark.parametrize("f", [math.gamma, math.lgamma])
@pytest.mark.parametrize("x", [0.0, -2.0, -1e300])
def test_gamma_poles_raise_as_math_does(f, x):
    for rule in (lambda: rrule(f, x), lambda: frule((NoTangent(), 1.0), f, x)):
        with pytest.raises(ValueError):
            rule()


def test_gamma_overflow_raises_as_math_does():
    with pytest.raises(OverflowError):
        rrule(math.gamma, 172.0)
    assert rrule(math.lgamma, 172.0)[1](1.0)[1] == pytest.approx(digamma(172.0))


@pytest.mark.parametrize("x", [-2.5, -0.5, 0.5, 3.5])
def test_lgamma_has_the_digamma_for_derivative_on_both_signs_of_gamma(x):
    """log|Γ| where Γ < 0 too (on (-1, 0), (-3, -2)): ψ(x), and Γ' = Γ ψ."""
    assert rrule(math.lgamma, x)[1](1.0)[1] == digamma(x)
    assert frule((NoTangent(), 2.0), math.gamma, x)[1] == pytest.approx(2.0 * math.gamma(x) * digamma(x))


@pytest.mark.parametrize("x", [0.0, 1.5, -30.0])
def test_erf_and_erfc_slopes(x):
    slope = 2 / math.sqrt(math.pi) * math.exp(-x * x)
    assert rrule(math.erf, x)[1](1.0)[1] == pytest.approx(slope, abs=0)
    assert frule((NoTangent(), 1.0), math.erfc, x)[1] == pytest.approx(-slope, abs=0)
    _, x_bar = rrule(math.erf, np.float32(x))[1](1.0)
    assert type(x_bar) is np.float32
