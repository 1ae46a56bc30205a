import warnings

import numpy as np
import pytest

from chainrules_core import NoTangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.covariance"))
def test_rule(case, dtype, mode):
    """Every declared case of the covariance family passes the harness."""
    case.run(dtype, mode)


def test_cov_pullback_is_the_adjoint_formula():
    """The pullback of cov is (C_bar + C_bar^H) Xc / (N - 1), with Xc the centred rows."""
    rng = np.random.default_rng(0)
    m = rng.standard_normal((3, 5))
    c_bar = rng.standard_normal((3, 3))
    xc = m - m.mean(axis=1, keepdims=True)
    m_bar = rrule(np.cov, m)[1](c_bar)[1]
    np.testing.assert_allclose(m_bar, (c_bar + c_bar.T) @ xc / 4, rtol=1e-13)


def test_corrcoef_of_one_variable_is_constant():
    """corrcoef of a single variable is 1 whatever the data: a zero derivative, in both modes."""
    x = np.array([1.0, 3.0, -2.0, 0.5])
    out, pullback = rrule(np.corrcoef, x)
    assert out == 1.0
    assert pullback(1.0)[1] == ZeroTangent()
    assert frule((NoTangent(), np.ones(4)), np.corrcoef, x)[1] == 0.0


def test_corrcoef_of_a_constant_variable_is_nan_as_numpy():
    """A constant row has no correlation: numpy warns and returns nan, and the derivatives are nan too."""
    x = np.array([[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out, pullback = rrule(np.corrcoef, x)
        x_bar = pullback(np.ones((2, 2)))[1]
    assert np.isnan(out[0, 1]) and np.isnan(x_bar[0]).all()


def test_keyword_weights_have_no_tangent():
    """aweights by keyword are constants; positional aweights get a cotangent."""
    m, w = np.arange(6.0).reshape(2, 3) ** 2, np.array([1.0, 2.0, 0.5])
    assert len(rrule(np.cov, m, aweights=w)[1](np.ones((2, 2)))) == 2
    bars = rrule(np.cov, m, None, True, False, None, None, w)[1](np.ones((2, 2)))
    assert bars[-1].shape == (3,) and all(b == NoTangent() for b in bars[2:-1])
