import numpy as np
import pytest

from chainrules_core import NoTangent, frule, rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.signal"))
def test_rule(case, dtype, mode):
    """Every declared case of the signal family passes the harness."""
    case.run(dtype, mode)


def _inner(a, b):
    return np.real(np.vdot(a, b))


@pytest.mark.parametrize("f", [np.convolve, np.correlate])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_pullback_is_the_exact_adjoint_for_every_length(f, mode):
    """<g, f(a_dot, v)> = <a_bar, a_dot> and likewise for v, for every pair of lengths (numpy's 'same' centring)."""
    rng = np.random.default_rng(1)
    for n in range(1, 8):
        for m in range(1, 8):
            a, v = rng.standard_normal(n) + 1j * rng.standard_normal(n), rng.standard_normal(m) - 0.5j
            a_dot, v_dot = rng.standard_normal(n), rng.standard_normal(m) + 1j * rng.standard_normal(m)
            out, pullback = rrule(f, a, v, mode)
            g = rng.standard_normal(out.shape) + 1j * rng.standard_normal(out.shape)
            _, a_bar, v_bar, _ = pullback(g)
            assert np.isclose(_inner(g, f(a_dot, v, mode)), _inner(a_bar, a_dot)), (n, m)
            assert np.isclose(_inner(g, f(a, v_dot, mode) - 0), _inner(v_bar, v_dot)), (n, m)


def test_interp_at_knots_takes_the_mean_slope():
    """At an inner knot the slope in x is the mean of the two segments'; at the end knots half the end segment's
    (the function is flat beyond); moving a knot is moving x the other way."""
    xp, fp = np.array([0.0, 1.0, 3.0]), np.array([0.0, 2.0, 1.0])
    _, x_bar, xp_bar, fp_bar = rrule(np.interp, np.array([0.0, 1.0, 3.0]), xp, fp)[1](np.ones(3))
    np.testing.assert_allclose(x_bar, [1.0, (2.0 - 0.5) / 2, -0.25])
    np.testing.assert_allclose(xp_bar, -x_bar)
    np.testing.assert_allclose(fp_bar, [1.0, 1.0, 1.0])


def test_interp_outside_gives_left_and_right_their_seed():
    x, xp, fp = np.array([-1.0, 0.5, 4.0]), np.array([0.0, 1.0]), np.array([1.0, 3.0])
    _, x_bar, xp_bar, fp_bar, left_bar, right_bar = rrule(np.interp, x, xp, fp, 5.0, 7.0)[1](np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(x_bar, [0.0, 4.0, 0.0])
    np.testing.assert_allclose(fp_bar, [1.0, 1.0])
    assert (left_bar, right_bar) == (1.0, 3.0)
    _, x_bar, xp_bar, fp_bar = rrule(np.interp, x, xp, fp)[1](np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(fp_bar, [1.0 + 1.0, 1.0 + 3.0])  # the default ends are fp's end values


def test_unwrap_passes_the_seed_through():
    p = np.array([0.0, 3.0, 6.5, 0.2])
    out, pullback = rrule(np.unwrap, p)
    assert not np.array_equal(out, p)
    assert np.array_equal(pullback(np.arange(4.0))[1], np.arange(4.0))
    assert np.array_equal(frule((NoTangent(), np.arange(4.0)), np.unwrap, p)[1], np.arange(4.0))


def test_interp_with_a_single_knot():
    """One knot: fp_0 everywhere (or left/right on either side), so only fp_0 moves the output."""
    x = np.array([-1.0, 2.0, 3.0])
    out, pullback = rrule(np.interp, x, np.array([2.0]), np.array([5.0]), -1.0, 9.0)
    np.testing.assert_array_equal(out, [-1.0, 5.0, 9.0])
    _, x_bar, xp_bar, fp_bar, left_bar, right_bar = pullback(np.ones(3))
    np.testing.assert_array_equal(x_bar, 0.0)
    np.testing.assert_array_equal(xp_bar, [0.0])
    np.testing.assert_array_equal(fp_bar, [1.0])
    assert (left_bar, right_bar) == (1.0, 1.0)


def test_interp_next_to_an_infinite_end_knot():
    """numpy gives the limit next to an infinite knot (fp of the finite end); the derivatives are its limits."""
    xp, fp = np.array([-np.inf, 1.0, 3.0, np.inf]), np.array([0.0, 1.0, 2.0, 4.0])
    x = np.array([0.0, 2.0, 5.0])
    out, pullback = rrule(np.interp, x, xp, fp)
    np.testing.assert_array_equal(out, [1.0, 1.5, 2.0])
    _, x_bar, xp_bar, fp_bar = pullback(np.ones(3))
    np.testing.assert_allclose(x_bar, [0.0, 0.5, 0.0])
    np.testing.assert_allclose(fp_bar, [0.0, 1.5, 1.5, 0.0])
    np.testing.assert_allclose(xp_bar, [0.0, -0.25, -0.25, 0.0])


@pytest.mark.parametrize("f", [np.convolve, np.correlate])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_pullback_is_differentiated_by_the_engines(f, mode):
    """The pullback joins the seed with zeros (no write into a buffer): the engines differentiate it in v and in the
    seed."""
    import chainrules.engines as ad

    rng = np.random.default_rng(0)
    a, v = rng.standard_normal(5), rng.standard_normal(3)
    g, u = rng.standard_normal(f(a, v, mode).size), rng.standard_normal(5)

    def along(w, seed):
        return np.sum(rrule(f, a, w, mode)[1](seed)[1] * u)  # bilinear in w and the seed

    got = ad.gradient(along, v, g)
    for k, x in enumerate((v, g)):
        expected = np.empty(x.size)
        for i in range(x.size):
            e = np.eye(x.size)[i] * 1e-3
            shifted = [(x + e, g) if k == 0 else (v, x + e), (x - e, g) if k == 0 else (v, x - e)]
            expected[i] = (along(*shifted[0]) - along(*shifted[1])) / 2e-3
        np.testing.assert_allclose(got[k], expected, rtol=1e-9)
