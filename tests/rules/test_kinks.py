"""Every non-smooth point docs/conventions.md lists gets the value it states, in both modes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules  # noqa: F401 - registers the rules
from chainrules_core import NoTangent, ZeroTangent, frule, rrule, unthunk


def both_modes(f: Any, x: Any, x_dot: Any, seed: Any, **kwargs: Any) -> tuple[Any, Any]:
    """The frule's tangent along ``x_dot`` and the pullback of ``seed``, for a function of one argument."""
    with np.errstate(all="ignore"):
        tangent = unthunk(frule((NoTangent(), x_dot), f, x, **kwargs)[1])
        cotangent = unthunk(rrule(f, x, **kwargs)[1](seed)[1])
    return tangent, cotangent


def partials_at(f: Any, x: Any, y: Any) -> list[tuple[Any, Any]]:
    """``(frule, rrule)`` partials of ``f(x, y)`` in each argument, the other's tangent ZeroTangent()."""
    found = []
    with np.errstate(all="ignore"):
        bars = [unthunk(b) for b in rrule(f, x, y)[1](1.0)[1:]]
        for i in range(2):
            tangents = (NoTangent(), *(1.0 if j == i else ZeroTangent() for j in range(2)))
            found.append((frule(tangents, f, x, y)[1], bars[i]))
    return found


# ----- one argument -----


@pytest.mark.parametrize("x", [0.0, -0.0, np.zeros(3), np.zeros(2, dtype=np.float32)])
def test_abs_at_zero_is_zero(x: Any) -> None:
    tangent, cotangent = both_modes(np.abs, x, np.ones_like(x), np.ones_like(x))
    assert np.all(tangent == 0) and np.all(cotangent == 0)
    assert np.asarray(cotangent).dtype == np.asarray(x).dtype


def test_abs_of_a_complex_zero_is_zero() -> None:
    tangent, cotangent = both_modes(np.abs, np.zeros(2, complex), np.array([1.0 + 1j, 2j]), np.ones(2))
    assert np.all(tangent == 0) and np.all(cotangent == 0)


@pytest.mark.parametrize("f", [np.floor, np.ceil, np.trunc, np.rint, np.round, np.fix, np.sign])
@pytest.mark.parametrize("x", [np.array([0.0, 1.0, -2.5]), np.array([0.5, 1.0], dtype=np.float32)])
def test_integer_valued_functions_have_a_zero_derivative_of_the_input_dtype(f: Any, x: Any) -> None:
    """Also at their jumps (an integer; 0 for sign): zeros of x's dtype, not NoTangent()."""
    tangent, cotangent = both_modes(f, x, np.ones_like(x), np.ones_like(x))
    for t in (tangent, cotangent):
        assert isinstance(t, np.ndarray) and t.dtype == x.dtype and not np.any(t)


@pytest.mark.parametrize("f", [np.sqrt, np.cbrt])
def test_roots_at_zero_are_infinite(f: Any) -> None:
    tangent, cotangent = both_modes(f, np.zeros(2), np.ones(2), np.ones(2))
    assert np.all(tangent == np.inf) and np.all(cotangent == np.inf)


def test_clip_at_its_bounds_follows_x_in_both_modes() -> None:
    x = np.array([-1.0, 1.0, 0.0, 3.0])
    with np.errstate(all="ignore"):
        tangent = frule((NoTangent(), np.ones(4), ZeroTangent(), ZeroTangent()), np.clip, x, -1.0, 1.0)[1]
    _, cotangent = both_modes(np.clip, x, np.ones(4), np.ones(4), a_min=-1.0, a_max=1.0)
    np.testing.assert_array_equal(tangent, [1.0, 1.0, 1.0, 0.0])
    np.testing.assert_array_equal(cotangent, [1.0, 1.0, 1.0, 0.0])


# ----- two arguments -----


@pytest.mark.parametrize("f", [np.maximum, np.minimum, np.fmax, np.fmin])
def test_elementwise_ties_split_evenly_in_both_modes(f: Any) -> None:
    for tangent, cotangent in partials_at(f, 1.5, 1.5):
        assert tangent == cotangent == 0.5


def test_a_nan_takes_the_whole_derivative_or_none() -> None:
    """maximum propagates NaN, so the NaN argument takes it; fmax ignores NaN, so the other one does."""
    assert [t for t, _ in partials_at(np.maximum, np.nan, 1.0)] == [1.0, 0.0]
    assert [t for t, _ in partials_at(np.fmax, np.nan, 1.0)] == [0.0, 1.0]


@pytest.mark.parametrize("f", [np.hypot, np.arctan2])
def test_the_origin_gets_zero_in_both_modes(f: Any) -> None:
    for tangent, cotangent in partials_at(f, 0.0, 0.0):
        assert tangent == cotangent == 0.0


def test_nextafter_moves_with_x_even_at_equal_arguments() -> None:
    assert partials_at(np.nextafter, 1.0, 1.0) == [(1.0, 1.0), (0.0, 0.0)]


# ----- reductions, sorting, norms -----


@pytest.mark.parametrize("f", [np.max, np.min, np.amax, np.nanmax])
def test_reduction_ties_share_the_derivative_evenly(f: Any) -> None:
    x = np.array([3.0, -1.0, 3.0, -1.0, 3.0]) * (1 if f is not np.min else -1)
    tangent, cotangent = both_modes(f, x, np.array([3.0, 0.0, 6.0, 0.0, 0.0]), 1.0)
    assert tangent == pytest.approx(3.0)  # the mean of the tied entries' tangents
    np.testing.assert_allclose(cotangent, np.where(np.abs(x) == 3, 1 / 3, 0.0))


def test_sort_ties_keep_their_stable_order() -> None:
    x = np.array([2.0, 1.0, 2.0])
    tangent, cotangent = both_modes(np.sort, x, np.array([10.0, 20.0, 30.0]), np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(tangent, [20.0, 10.0, 30.0])
    np.testing.assert_array_equal(cotangent, [2.0, 1.0, 3.0])


@pytest.mark.parametrize("order", [None, 1, 2, np.inf, -np.inf, 3, 0.5])
def test_vector_norms_at_zero_are_zero(order: Any) -> None:
    tangent, cotangent = both_modes(np.linalg.norm, np.zeros(3), np.ones(3), 1.0, ord=order)
    assert tangent == 0 and not np.any(cotangent)


@pytest.mark.parametrize("order", ["fro", "nuc", 2, -2, 1, -1, np.inf, -np.inf])
def test_matrix_norms_at_the_zero_matrix_are_zero(order: Any) -> None:
    tangent, cotangent = both_modes(np.linalg.norm, np.zeros((3, 2)), np.ones((3, 2)), 1.0, ord=order)
    assert tangent == 0 and not np.any(cotangent) and np.all(np.isfinite(cotangent))


def test_the_inf_norm_splits_ties() -> None:
    x = np.array([3.0, -1.0, -3.0])
    tangent, cotangent = both_modes(np.linalg.norm, x, np.array([1.0, 0.0, 0.0]), 1.0, ord=np.inf)
    assert tangent == pytest.approx(0.5)
    np.testing.assert_allclose(cotangent, [0.5, 0.0, -0.5])


def test_the_two_norm_of_a_matrix_splits_tied_singular_values() -> None:
    a = np.array([[0.0, 2.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # singular values 2, 2, 1
    _, cotangent = both_modes(np.linalg.norm, a, np.ones((3, 3)), 1.0, ord=2)
    np.testing.assert_allclose(cotangent, [[0.0, 0.5, 0.0], [0.5, 0.0, 0.0], [0.0, 0.0, 0.0]], atol=1e-15)


def test_svd_full_matrices_frule_keeps_the_complement_from_turning() -> None:
    """U2^H U2_dot = 0 and U stays unitary to first order; the pullback is the frule's adjoint."""
    rng = np.random.default_rng(0)
    a, a_dot = rng.standard_normal((2, 4, 2))
    (u, s, vh), out_dot = frule((NoTangent(), a_dot), np.linalg.svd, a)
    np.testing.assert_allclose(u[:, 2:].T @ out_dot.U[:, 2:], 0.0, atol=1e-14)
    np.testing.assert_allclose(u.T @ out_dot.U + out_dot.U.T @ u, 0.0, atol=1e-13)


# ----- order statistics and interpolation -----


def test_the_median_of_an_even_count_averages_the_middle_two() -> None:
    x = np.array([4.0, 1.0, 3.0, 2.0])
    tangent, cotangent = both_modes(np.median, x, np.array([0.0, 0.0, 2.0, 4.0]), 1.0)
    assert tangent == pytest.approx(3.0)
    np.testing.assert_allclose(cotangent, [0.0, 0.0, 0.5, 0.5])


def test_a_quantile_of_tied_entries_splits_its_weight() -> None:
    x = np.array([1.0, 2.0, 2.0, 5.0])
    _, cotangent = both_modes(np.median, x, np.ones(4), 1.0)
    np.testing.assert_allclose(cotangent, [0.0, 0.5, 0.5, 0.0])


def test_the_slope_in_q_at_a_sample_is_the_mean_of_both_sides() -> None:
    """quantile(x, q) is piecewise linear in q with kinks at the samples: the central difference there."""
    x = np.array([0.0, 1.0, 3.0])  # linear method: q = 0.5 lands on x_(1) = 1; slopes 2 and 4 on either side
    with np.errstate(all="ignore"):
        tangent = frule((NoTangent(), ZeroTangent(), 1.0), np.quantile, x, 0.5)[1]
        cotangent = unthunk(rrule(np.quantile, x, 0.5)[1](1.0)[2])
    assert tangent == pytest.approx(3.0) and cotangent == pytest.approx(3.0)


def test_interp_at_a_knot_takes_the_mean_of_the_slopes_and_zero_beyond_the_ends() -> None:
    xp, fp = np.array([0.0, 1.0, 3.0]), np.array([0.0, 2.0, 3.0])  # slopes 2 and 0.5
    x = np.array([1.0, 0.0, 3.0, -1.0])
    with np.errstate(all="ignore"):
        tangent = frule((NoTangent(), np.ones(4), ZeroTangent(), ZeroTangent()), np.interp, x, xp, fp)[1]
        cotangent = unthunk(rrule(np.interp, x, xp, fp)[1](np.ones(4))[1])
    np.testing.assert_allclose(tangent, [1.25, 1.0, 0.25, 0.0])
    np.testing.assert_allclose(cotangent, [1.25, 1.0, 0.25, 0.0])
