"""einsum: every form of subscripts numpy accepts."""

import numpy as np
import pytest

from chainrules_core import NoTangent, frule, rrule, unthunk
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.einsum"))
def test_rule(case, dtype, mode):
    """Every declared case of einsum passes the harness."""
    case.run(dtype, mode)


def test_trace_cotangent_is_the_identity():
    """The cotangent of a trace is the seed on the diagonal, zero elsewhere."""
    _, pullback = rrule(np.einsum, "ii", np.ones((3, 3)))
    f_bar, subscripts_bar, a_bar = pullback(2.0)
    assert f_bar == NoTangent() and subscripts_bar == NoTangent()
    np.testing.assert_array_equal(unthunk(a_bar), 2.0 * np.eye(3))


def test_ellipsis_broadcasting_sums_over_broadcast_dimensions():
    """An operand broadcast along the ellipsis gets the cotangent summed over it."""
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(1, 3, 4)), rng.normal(size=(5, 4, 2))
    g = rng.normal(size=(5, 3, 2))
    _, pullback = rrule(np.einsum, "...ij,...jk->...ik", a, b)
    _, _, a_bar, b_bar = pullback(g)
    np.testing.assert_allclose(unthunk(a_bar), np.sum(g @ b.transpose(0, 2, 1), axis=0, keepdims=True))
    np.testing.assert_allclose(unthunk(b_bar), a.transpose(0, 2, 1) @ g)


def test_label_summed_within_one_operand_is_a_broadcast():
    """A label only one operand has gets a cotangent constant along it."""
    _, pullback = rrule(np.einsum, "ij->i", np.ones((2, 3)))
    np.testing.assert_array_equal(unthunk(pullback(np.array([1.0, 2.0]))[2]), [[1.0] * 3, [2.0] * 3])


def test_complex_operands_are_conjugated():
    """The cotangent of an operand contracts the seed with the conjugates of the others."""
    a = np.array([1 + 1j, 2 - 1j])
    b = np.array([3j, 1.0 + 0j])
    _, pullback = rrule(np.einsum, "i,i", a, b)
    np.testing.assert_allclose(unthunk(pullback(1.0)[2]), b.conj())


def test_unsupported_keywords_get_no_rule():
    """``out=`` and ``dtype=`` are refused; ``optimize=`` is honoured."""
    a = np.ones((2, 2))
    assert rrule(np.einsum, "ij->i", a, out=np.empty(2)) is None
    assert frule((NoTangent(), NoTangent(), a), np.einsum, "ij->i", a, dtype=np.float32) is None
    assert rrule(np.einsum, "ij->i", a, optimize=True) is not None


@pytest.mark.parametrize(
    "subscripts, shapes",
    [
        ("ij,ij->i", [(3, 4), (3, 4)]),
        ("ij,ji->j", [(3, 4), (4, 3)]),
        ("ij,ij->ij", [(3, 4), (3, 4)]),
        ("...i,...i->...", [(2, 5, 3), (2, 5, 3)]),
        ("ijk,kji->ki", [(2, 3, 4), (4, 3, 2)]),
    ],
)
@pytest.mark.parametrize("dtypes", [("float64", "float64"), ("float32", "float64"), ("float32", "float32")])
def test_products_without_sums_match_einsum(subscripts, shapes, dtypes):
    """Where nothing is summed, a cotangent is the product of the seed and the other operand, broadcast: the same
    numbers, dtypes and shapes as einsum gives."""
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s).astype(d) for s, d in zip(shapes, dtypes))
    out, pullback = rrule(np.einsum, subscripts, a, b)
    g = rng.standard_normal(out.shape).astype(out.dtype)
    _, _, a_bar, b_bar = (unthunk(t) for t in pullback(g))
    inputs, output = subscripts.split("->")
    ta, tb = inputs.split(",")
    for x, x_bar, want in (
        (a, a_bar, np.einsum(f"{output},{tb}->{ta}", g, b)),
        (b, b_bar, np.einsum(f"{output},{ta}->{tb}", g, a)),
    ):
        assert x_bar.dtype == x.dtype and x_bar.shape == x.shape
        assert np.array_equal(x_bar, want.astype(x.dtype))
