"""Rules for the hypergeometric functions of scipy.special (optional: run when scipy is installed)."""

import numpy as np
import pytest

from chainrules_core import NoTangent, rrule
from tests.rules.cases import case_params

special = pytest.importorskip("scipy.special", reason="scipy is an optional dependency")

# points of JAX's test ranges, hyp1f1 on (0.5, 30) and hyp2f1 on (0.1, 0.9), and a polynomial and a negative x each
HYP1F1_POINTS = [(0.7, 1.3, 2.0), (25.0, 0.6, 29.0), (3.0, 20.0, 12.0), (0.7, 1.3, -12.0), (-2.0, 1.5, 3.0)]
HYP2F1_POINTS = [(0.7, 1.3, 2.1, 0.5), (0.3, 0.8, 0.5, 0.9), (0.5, 0.5, 0.7, -0.8), (-3.0, 1.5, 2.5, 0.7)]


@pytest.mark.parametrize("case, dtype, mode", case_params("scipy.special.hypergeometric"))
def test_rule(case, dtype, mode):
    """Every declared case of the hypergeometric family passes the harness."""
    case.run(dtype, mode)


def _mpmath():
    mp = pytest.importorskip("mpmath", reason="mpmath checks the derivatives in the parameters")
    mp.mp.dps = 30
    return mp


@pytest.mark.parametrize("point", HYP1F1_POINTS)
def test_hyp1f1_against_mpmath(point):
    """d/da, d/db, d/dx, and the second derivatives in the parameters (the rules of hyp1f1_dparam)."""
    mp = _mpmath()
    _, *grad = rrule(special.hyp1f1, *point)[1](1.0)
    from chainrules.rules.scipy.special._parameters import hyp1f1_dparam

    second = [rrule(hyp1f1_dparam, k, *point)[1](1.0)[2:] for k in (0, 1)]
    orders = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (2, 0, 0), (1, 1, 0), (1, 0, 1), (1, 1, 0), (0, 2, 0), (0, 1, 1)]
    expected = [float(mp.diff(mp.hyp1f1, point, n)) for n in orders]
    np.testing.assert_allclose([*grad, *second[0], *second[1]], expected, rtol=1e-11)


@pytest.mark.parametrize("point", HYP2F1_POINTS)
def test_hyp2f1_against_mpmath(point):
    """d/da, d/db, d/dc, d/dx, and d/dc's own derivatives (the rules of hyp2f1_dparam)."""
    mp = _mpmath()
    _, *grad = rrule(special.hyp2f1, *point)[1](1.0)
    from chainrules.rules.scipy.special._parameters import hyp2f1_dparam

    second = rrule(hyp2f1_dparam, 2, *point)[1](1.0)[2:]
    orders = [(1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1)]
    orders += [(1, 0, 1, 0), (0, 1, 1, 0), (0, 0, 2, 0), (0, 0, 1, 1)]
    expected = [float(mp.diff(mp.hyp2f1, point, n)) for n in orders]
    np.testing.assert_allclose([*grad, *second], expected, rtol=1e-10)


def test_parameters_beyond_the_series_reach_are_nan():
    """hyp2f1 beyond |x| = 0.95, hyp1f1 where its largest term comes after the 800th: NaN, not a truncated sum; an
    infinite lower parameter makes the function 1 and its derivatives 0."""
    with np.errstate(all="ignore"):
        assert np.all(np.isnan(rrule(special.hyp2f1, 0.5, 0.5, 1.5, 0.99)[1](1.0)[1:4]))
        assert np.all(np.isnan(rrule(special.hyp1f1, 0.5, 1.5, 1000.0)[1](1.0)[1:3]))
        assert rrule(special.hyp1f1, 0.5, np.inf, 3.0)[1](1.0)[1:3] == (0.0, 0.0)


def test_integer_parameters_get_no_tangent():
    _, a_bar, b_bar, x_bar = rrule(special.hyp1f1, -2, 3, 1.5)[1](1.0)
    assert a_bar == NoTangent() and b_bar == NoTangent()
    assert x_bar == pytest.approx(-2 / 3 * special.hyp1f1(-1, 4, 1.5))
