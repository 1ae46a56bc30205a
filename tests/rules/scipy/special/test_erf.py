"""Rules for the error functions of scipy.special (optional: run when scipy is installed)."""

import math

import numpy as np
import pytest

from chainrules_core import NoTangent, frule, rrule
from tests.rules.cases import case_params

special = pytest.importorskip("scipy.special", reason="scipy is an optional dependency")


@pytest.mark.parametrize("case, dtype, mode", case_params("scipy.special.erf"))
def test_rule(case, dtype, mode):
    """Every declared case of the error-function family passes the harness."""
    case.run(dtype, mode)


def test_log_ndtr_slope_where_ndtr_underflows():
    """pdf/cdf -> -x (1 + 1/x² + ...) as x -> -inf, where ndtr(x) is 0 and exp(-x²/2 - out) loses every digit."""
    x = -1e3
    assert special.ndtr(x) == 0.0
    _, x_bar = rrule(special.log_ndtr, x)[1](1.0)
    assert x_bar == pytest.approx(-x * (1 + 1 / x**2 - 2 / x**4), rel=1e-14)


@pytest.mark.parametrize("f", [special.erfcx, special.dawsn])
def test_series_and_direct_formula_agree_where_they_meet(f):
    """At |x| = 20 both the asymptotic series and the direct formula are accurate to ~1e-13."""
    x = np.array([19.999999, 20.0])
    _, x_dot = frule((NoTangent(), np.ones(2)), f, x)
    np.testing.assert_allclose(x_dot[0], x_dot[1], rtol=1e-5)
    direct = 2 * 20.0 * f(20.0) - 2 / math.sqrt(math.pi) if f is special.erfcx else 1 - 2 * 20.0 * f(20.0)
    assert x_dot[1] == pytest.approx(direct, rel=1e-10)


def test_complex_inputs_get_the_conjugated_derivative():
    z = 0.5 + 0.25j
    _, z_bar = rrule(special.erf, z)[1](1.0)
    assert z_bar == pytest.approx(np.conj(2 / math.sqrt(math.pi) * np.exp(-z * z)))
