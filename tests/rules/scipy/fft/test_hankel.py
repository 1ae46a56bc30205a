"""scipy.fft's fast Hankel transforms (with scipy installed): the declared cases, self-adjointness, and the
parameters whose derivatives are not implemented."""

import numpy as np
import pytest

from chainrules_core import NoTangent, NotImplementedTangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params

fft = pytest.importorskip("scipy.fft", reason="scipy is an optional dependency")


@pytest.mark.parametrize("case, dtype, mode", case_params("scipy.fft.hankel"))
def test_rule(case, dtype, mode):
    """Every declared case of fht and ifht passes the harness."""
    case.run(dtype, mode)


@pytest.mark.parametrize("f", [fft.fht, fft.ifht], ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [6, 7])
def test_the_matrix_is_symmetric(f, n):
    """The derivation's claim: with any bias and offset the transform's matrix is symmetric, so the pullback is
    the transform itself."""
    params, options = (0.05, -0.3), {"offset": 0.2, "bias": 0.4}
    m = np.stack([f(e, *params, **options) for e in np.eye(n)], axis=1)
    np.testing.assert_allclose(m, m.T, atol=1e-14)


def test_parameters_have_no_derivative_yet():
    """dln, mu, offset and bias, positional, get NotImplementedTangent naming them; an integer one NoTangent;
    a moving parameter makes the output's tangent not implemented."""
    a = np.linspace(0.1, 1.0, 6)
    _, pullback = rrule(fft.fht, a, 0.1, 1, 0.2, 0.3)
    a_bar, *others = pullback(np.ones(6))[1:]
    np.testing.assert_allclose(a_bar, fft.fht(np.ones(6), 0.1, 1, 0.2, 0.3))
    assert isinstance(others[0], NotImplementedTangent) and "dln" in others[0].info
    assert others[1] == NoTangent()
    assert [("offset" in others[2].info), ("bias" in others[3].info)] == [True, True]
    _, moving = frule((NoTangent(), ZeroTangent(), 1.0, NoTangent()), fft.ifht, a, 0.1, 0.5)
    assert isinstance(moving, NotImplementedTangent) and "dln" in moving.info
