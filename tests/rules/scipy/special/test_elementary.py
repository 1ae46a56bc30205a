"""Rules for the elementary functions of scipy.special (optional: run when scipy is installed)."""

import math

import numpy as np
import pytest

from chainrules_core import NoTangent, frule, rrule
from tests.rules.cases import case_params

special = pytest.importorskip("scipy.special", reason="scipy is an optional dependency")


@pytest.mark.parametrize("case, dtype, mode", case_params("scipy.special.elementary"))
def test_rule(case, dtype, mode):
    """Every declared case of the elementary family passes the harness."""
    case.run(dtype, mode)


def test_xlogy_at_x_zero():
    """0 log y = 0 for every y: d/dy is 0; d/dx is log y where that is finite (complex y < 0 too), else 0."""
    x, y = np.zeros(4), np.array([2.0, 0.0, -1.0, 0.5])
    _, x_bar, y_bar = rrule(special.xlogy, x, y)[1](np.ones(4))
    np.testing.assert_array_equal(x_bar, [math.log(2.0), 0.0, 0.0, math.log(0.5)])
    np.testing.assert_array_equal(y_bar, np.zeros(4))
    _, x_bar, _ = rrule(special.xlogy, 0j, -1.0 + 0j)[1](1.0)
    assert x_bar == pytest.approx(-1j * math.pi)  # conj(log(-1)) = conj(i pi)


def test_boxcox_at_lambda_zero():
    """boxcox(x, 0) = log x: d/dx = 1/x and d/dlambda = log(x)²/2, the limit of the direct formula."""
    _, x_bar, lmbda_bar = rrule(special.boxcox, 2.0, 0.0)[1](1.0)
    assert x_bar == 0.5 and lmbda_bar == pytest.approx(math.log(2.0) ** 2 / 2, rel=1e-15)
    _, x_bar, lmbda_bar = rrule(special.boxcox1p, 1.0, 0.0)[1](1.0)
    assert x_bar == 0.5 and lmbda_bar == pytest.approx(math.log(2.0) ** 2 / 2, rel=1e-15)


def test_lambertw():
    """W'(0) = 1 on the principal branch; a real input gets the real part of the complex cotangent; k and tol,
    by position or keyword, get no tangent."""
    _, pullback = rrule(special.lambertw, 0.0)
    assert pullback(1.0 + 0j) == (NoTangent(), 1.0)
    w = special.lambertw(1.0 + 1.0j, k=-1)
    _, z_bar = rrule(special.lambertw, 1.0 + 1.0j, k=-1)[1](1.0)
    assert z_bar == pytest.approx(np.conj(w / ((1.0 + 1.0j) * (1 + w))))
    assert rrule(special.lambertw, 1.0, -1, 1e-10)[1](1.0)[2:] == (NoTangent(), NoTangent())
    _, w_dot = frule((NoTangent(), 1.0), special.lambertw, 1.0)
    assert w_dot == pytest.approx(special.lambertw(1.0) / (1 + special.lambertw(1.0)))


@pytest.mark.parametrize("f", [special.boxcox, special.boxcox1p])
def test_boxcox_lambda_partial_at_an_infinite_x(f):
    """x^lmbda -> 0 for lmbda < 0: the function tends to -1/lmbda, its lmbda partial to 1/lmbda²; inf for lmbda >= 0."""
    lmbda = np.array([-2.0, -0.5, 0.0, 0.5])
    _, pullback = rrule(f, np.full(4, np.inf), lmbda)
    np.testing.assert_allclose(pullback(np.ones(4))[2], [0.25, 4.0, np.inf, np.inf])
    _, pullback = rrule(f, np.full(2, 3.0), np.array([-np.inf, np.inf]))
    np.testing.assert_array_equal(pullback(np.ones(2))[2], [0.0, np.inf])


@pytest.mark.parametrize(("f", "y", "edge"), [(special.xlogy, 2.0, 0.0), (special.xlog1py, 1.0, -1.0)])
def test_x_log_mixed_second_derivative_at_x_zero(f, y, edge):
    """d²/dx dy x log(y - edge) = 1 / (y - edge), at x == 0 too: the engines differentiate x / (y - edge)."""
    import chainrules.engines as ad

    def dy(x, y):
        return rrule(f, x, y)[1](1.0)[2]

    assert ad.gradient(dy, 0.0, y) == pytest.approx((1 / (y - edge), -0.0 / (y - edge) ** 2))


def test_boxcox_second_derivative_in_lmbda_at_zero():
    """(x^l - 1) / l = L + l L²/2 + l² L³/6 + ...: the engines' derivative of its l-partial at l = 0 is L³/3."""
    import chainrules.engines as ad

    def slope(x, lmbda):
        return rrule(special.boxcox, x, lmbda)[1](1.0)[2]

    log_x = math.log(2.0)
    assert ad.gradient(slope, 2.0, 0.0)[1] == pytest.approx(log_x**3 / 3, rel=1e-10)
