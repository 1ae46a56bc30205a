"""Finite differences: exact stencils, steps relative to the input's scale, honest error estimates, domains."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chainrules_core.testing import FiniteDifferences
from chainrules_core.testing.checks import SAFETY
from chainrules_core.testing.finite_differences import ROUND_OFF, backward_fdm, central_fdm, forward_fdm

EPS = float(np.finfo(np.float64).eps)

Phi = Callable[[float], Any]


def along(f: Callable[[float], float], x: float, dx: float = 1.0) -> Phi:
    return lambda t: np.array([f(x + t * dx)])


@pytest.mark.parametrize(
    "fdm", [central_fdm(3), central_fdm(5), central_fdm(7), forward_fdm(3), forward_fdm(5), backward_fdm(5)]
)
def test_every_stencil_is_exact_on_a_quadratic(fdm: FiniteDifferences) -> None:
    result = fdm.derivative(along(lambda x: 3 * x * x - x + 2, 0.5))
    assert abs(result.value[0] - 2.0) < 1e-9
    assert result.error < 1e-8


def test_an_unknown_stencil_is_refused() -> None:
    with pytest.raises(ValueError, match="no 4-point central stencil"):
        FiniteDifferences("central", 4)


@pytest.mark.parametrize("x", [1e-300, 1e-8, 1.0, 1e8, 1e300])
def test_steps_are_relative_to_the_scale(x: float) -> None:
    """With ``scale=|x|`` the derivative of log at any magnitude is accurate to 1e-9."""
    result = FiniteDifferences().derivative(along(np.log, x), scale=x)
    assert abs(result.value[0] * x - 1.0) < 1e-9


def test_larger_steps_are_tried_when_round_off_decides() -> None:
    """exp near 0 along a direction of size 1e-8: the function's scale is 1, not 1e-8."""
    result = FiniteDifferences().derivative(along(np.exp, 1e-8), scale=1e-8)
    assert abs(result.value[0] - np.exp(1e-8)) < 1e-12
    assert result.step > 1e-6


def test_step_functions_differentiate_to_zero() -> None:
    """Between its steps a step function is constant: exactly 0, though the large steps cross a jump."""
    result = FiniteDifferences().derivative(lambda t: np.array([np.floor(0.3 + t), np.ceil(2.9 - 3 * t)]))
    assert result.value.tolist() == [0.0, 0.0] and result.error < 1e-10
    assert result.evaluations < 30


def test_a_step_too_small_to_change_the_value_is_not_chosen() -> None:
    """exp near 0 with steps relative to 4e-8: the smallest steps leave the value unchanged (exact zeros)."""
    x = 4.4e-8
    result = FiniteDifferences().derivative(lambda t: np.array([np.exp(x + t * x)]))
    assert abs(result.value[0] - x * np.exp(x)) < 1e-12 * x


def test_vector_valued_functions() -> None:
    x = np.array([0.3, -1.2, 2.0])
    result = FiniteDifferences().derivative(lambda t: np.sin(x + t * np.array([1.0, 2.0, -1.0])))
    assert np.allclose(result.value, np.cos(x) * [1.0, 2.0, -1.0], rtol=1e-10)


@pytest.mark.parametrize(
    ("f", "x", "fprime"),
    [
        (np.sin, 1.0, np.cos),
        (np.exp, 3.0, np.exp),
        (lambda x: 1 / (x - 1.0), 1.001, lambda x: -1 / (x - 1.0) ** 2),
        (lambda x: x**7, 0.9, lambda x: 7 * x**6),
        (lambda x: np.sin(40 * x), 0.2, lambda x: 40 * np.cos(40 * x)),
        (np.sqrt, 1e-6, lambda x: 0.5 / np.sqrt(x)),
    ],
)
def test_the_error_estimate_bounds_the_error(
    f: Callable[[float], float], x: float, fprime: Callable[[float], float]
) -> None:
    """Near a pole, for fast oscillations, at high order: the error is within what the harness allows."""
    result = FiniteDifferences().derivative(along(f, x), scale=abs(x))
    actual = abs(result.value[0] - fprime(x))
    assert actual <= SAFETY * result.error
    assert result.error < 1e-6 * abs(fprime(x))


@settings(max_examples=60, deadline=None)
@given(
    a=st.floats(0.1, 10.0),
    b=st.floats(0.1, 30.0),
    c=st.floats(-3.0, 3.0),
    x=st.floats(-2.0, 2.0),
)
@example(a=1.125, b=21.663028476062486, c=1.125, x=-1.511484333591686)  # near a zero: the terms cancel
def test_the_error_estimate_is_honest_for_smooth_functions(a: float, b: float, c: float, x: float) -> None:
    """For ``a * sin(b x + c) + exp(x)`` the error is within what the harness allows, ``SAFETY`` estimates.

    Near a zero of the function its value is a difference of larger terms, whose round-off the model from
    the values alone underestimates; the steps below the best one show it, and the estimate includes it.
    """
    result = FiniteDifferences().derivative(along(lambda u: a * np.sin(b * u + c) + np.exp(u), x))
    exact = a * b * np.cos(b * x + c) + np.exp(x)
    assert abs(result.value[0] - exact) <= SAFETY * result.error
    assert result.error <= 1e-7 * (a * b + np.exp(x))


def test_the_error_includes_round_off() -> None:
    """A large constant plus a slope: the estimate is never below the round-off of the values."""
    result = FiniteDifferences().derivative(along(lambda x: 1e12 + x, 1.0))
    assert result.error >= ROUND_OFF * EPS * 1e12 / result.step
    assert abs(result.value[0] - 1.0) <= result.error
    assert result.evaluations <= 4 * (FiniteDifferences().steps + 12) + 1


def test_single_precision_round_off() -> None:
    """``eps`` of float32 for a function computing in float32."""
    eps = float(np.finfo(np.float32).eps)
    phi = lambda t: np.array([np.sin(np.float32(0.3) + np.float32(t))])  # noqa: E731
    result = FiniteDifferences().derivative(phi, eps=eps)
    assert abs(result.value[0] - np.cos(0.3)) <= result.error < 1e-3
    assert result.evaluations < 40


def test_steps_outside_the_domain_are_skipped() -> None:
    """sqrt near 0: the large steps cross into negative numbers (nan), the small ones do not."""
    result = FiniteDifferences().derivative(along(np.sqrt, 1e-3))
    assert abs(result.value[0] - 0.5 / np.sqrt(1e-3)) < 1e-6 * result.value[0]


def test_arithmetic_errors_count_as_outside_the_domain() -> None:
    def f(x: float) -> float:
        if x > 1.0:
            raise ValueError("outside")
        return x * x

    result = FiniteDifferences().derivative(along(f, 0.99))
    assert abs(result.value[0] - 1.98) < 1e-8


def test_one_sided_differences_at_a_boundary() -> None:
    """At 0 of ``sqrt(x) + x``'s right side only, a forward stencil stays in the domain."""
    f = lambda x: np.sqrt(x - 1.0) if x >= 1.0 else np.nan  # noqa: E731
    with pytest.raises(FloatingPointError):
        central_fdm().derivative(along(f, 1.0))
    result = forward_fdm().derivative(along(lambda x: x * x if x >= 0 else np.nan, 0.0))
    assert abs(result.value[0]) < 1e-8


def test_nothing_finite_raises() -> None:
    with pytest.raises(FloatingPointError, match="not finite, or raised, at every step tried"):
        FiniteDifferences().derivative(lambda t: np.array([np.nan]))


def test_an_error_at_the_point_itself_propagates() -> None:
    def f(t: float) -> Any:
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        FiniteDifferences().derivative(f)


def test_other_exceptions_propagate() -> None:
    def f(t: float) -> Any:
        if t:
            raise TypeError("a bug in f")
        return np.zeros(1)

    with pytest.raises(TypeError, match="a bug in f"):
        FiniteDifferences().derivative(f)


@pytest.mark.parametrize("n", [1, 1000])
def test_the_cost_does_not_depend_on_the_size(n: int) -> None:
    x = np.linspace(0.1, 2.0, n)
    result = FiniteDifferences().derivative(lambda t: np.sin(x + t * x))
    assert result.evaluations <= 45


def test_the_natural_size_is_the_value_over_the_scale() -> None:
    result = FiniteDifferences().derivative(along(lambda x: 4.0 + 0 * x, 1.0), scale=2.0)
    assert result.natural == 2.0
    assert abs(result.value[0]) <= result.error


def test_one_step_costs_the_stencil_and_falls_back_to_the_search() -> None:
    """``one_step=True``: 5 evaluations where one step settles the derivative; the search, reusing them, elsewhere."""
    quick = central_fdm(5).derivative(along(np.sin, 1.0), one_step=True)
    assert quick.evaluations == 5 and abs(quick.value[0] - np.cos(1.0)) < 1e-10
    rough = central_fdm(5).derivative(along(lambda x: np.sin(1000 * x), 1.0), one_step=True)
    searched = central_fdm(5).derivative(along(lambda x: np.sin(1000 * x), 1.0))
    assert rough.evaluations > 5 and abs(rough.value[0] - 1000 * np.cos(1000.0)) <= 10 * rough.error
    assert rough.evaluations <= searched.evaluations + 4
    assert central_fdm(3).derivative(along(np.sin, 1.0), one_step=True).evaluations > 5  # no lower-order stencil
