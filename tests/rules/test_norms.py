"""Norms: np.linalg.norm, vector_norm, matrix_norm."""

import math

import numpy as np
import pytest

from chainrules_core import NoTangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("norms"))
def test_rule(case, dtype, mode):
    """Every declared case of the norms family passes the harness."""
    case.run(dtype, mode)


@pytest.mark.parametrize("ord", [None, 1, 2, math.inf, -math.inf, 3, 0.5])
def test_zero_vector_gets_a_zero_gradient(ord):
    """At the zero vector every norm's cotangent is 0, never nan."""
    _, pullback = rrule(np.linalg.norm, np.zeros(3), ord)
    f_bar, x_bar, ord_bar = pullback(1.0)
    np.testing.assert_array_equal(x_bar, np.zeros(3))
    assert ord_bar == NoTangent()


def test_inf_norm_ties_split_evenly():
    """Tied largest magnitudes share the cotangent equally."""
    _, pullback = rrule(np.linalg.norm, np.array([3.0, -1.0, -3.0]), ord=math.inf)
    np.testing.assert_allclose(pullback(1.0)[1], [0.5, 0.0, -0.5])


def test_ord_zero_is_a_count_with_a_zero_derivative():
    """ord=0 counts nonzero entries: zero tangent and cotangent."""
    x = np.array([1.0, 0.0, 2.0])
    out, out_dot = frule((NoTangent(), np.ones(3)), np.linalg.norm, x, ord=0)
    assert out == 2.0 and out_dot == ZeroTangent()
    assert rrule(np.linalg.norm, x, ord=0)[1](1.0)[1] == ZeroTangent()


def test_complex_norm_gradient():
    """For complex x the 2-norm's cotangent is out_bar x / |x|."""
    x = np.array([3.0 + 4.0j, 0.0])
    _, pullback = rrule(np.linalg.norm, x)
    np.testing.assert_allclose(pullback(2.0)[1], [2 * (3.0 + 4.0j) / 5.0, 0.0])


def test_float32_stays_float32():
    """float32 input: float32 norm, cotangent and tangent."""
    x = np.ones((2, 3), dtype=np.float32)
    out, pullback = rrule(np.linalg.matrix_norm, x, ord="nuc")
    assert out.dtype == np.float32 and pullback(np.float32(1.0))[1].dtype == np.float32
    assert frule((NoTangent(), x), np.linalg.vector_norm, x)[1].dtype == np.float32
