"""The array-API functions of numpy.linalg: vecdot, cross, diagonal, trace, matrix_transpose."""

import numpy as np
import pytest

from chainrules_core import NoTangent, frule, rrule, unthunk
from tests.rules.cases import case_params

pytestmark = pytest.mark.skipif(not hasattr(np.linalg, "vecdot"), reason="numpy < 2 has no array-API linalg")


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.linalg.aliases"))
def test_rule(case, dtype, mode):
    """Every declared case of the linalg_aliases family passes the harness."""
    case.run(dtype, mode)


def test_vecdot_conjugates_its_first_operand():
    """vecdot(x1, x2) = sum(conj(x1) x2): x1_bar = conj(g) x2 and x2_bar = g x1, as for np.vdot."""
    x1, x2 = np.array([1.0 + 2.0j, 3.0j]), np.array([2.0 - 1.0j, 1.0])
    out, pullback = rrule(np.linalg.vecdot, x1, x2)
    assert out == np.vdot(x1, x2)
    g = 0.5 + 1.0j
    _, x1_bar, x2_bar = pullback(g)
    np.testing.assert_allclose(unthunk(x1_bar), np.conj(g) * x2)
    np.testing.assert_allclose(unthunk(x2_bar), g * x1)


def test_an_integer_operand_has_no_tangent():
    """An integer operand gets NoTangent(), the other its cotangent."""
    x1, x2 = np.array([1, 2, 3]), np.array([0.5, 1.0, 2.0])
    _, pullback = rrule(np.linalg.cross, x1, x2)
    _, x1_bar, x2_bar = pullback(np.ones(3))
    assert x1_bar == NoTangent()
    np.testing.assert_allclose(unthunk(x2_bar), np.cross(np.ones(3), x1))
    assert frule((NoTangent(), NoTangent(), np.ones(3)), np.linalg.cross, x1, x2)[1].shape == (3,)
