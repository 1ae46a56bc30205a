"""Zeros in the harness: no whole-zero seed or tangents unless asked, zero entries always."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

from chainrules_core import AbstractZero, NoTangent, ZeroTangent, frule, rrule, unthunk
from chainrules_core.testing import test_frule, test_rrule


def fresh(fn: Any) -> Any:
    """A new function computing ``fn``, for rules registered in one test only."""

    @functools.wraps(fn)
    def copy(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return copy


K = np.array([0.25, 0.5, 0.25])
X = np.array([0.3, -1.2, 2.0, 0.7, 1.1])


def smooth(x: Any) -> Any:
    return np.convolve(x, K, "valid")


def polar(z: Any) -> Any:
    return np.abs(z), np.angle(z)


def register_unguarded(f: Any) -> Any:
    """Rules without a guard for a whole zero: ``np.convolve(ZeroTangent(), K)`` builds an object array."""

    @rrule.register(f)
    def _rrule_smooth(g: Any, x: Any) -> Any:
        def smooth_pullback(out_bar: Any) -> Any:
            return NoTangent(), np.convolve(unthunk(out_bar), K[::-1], "full")

        return g(x), smooth_pullback

    @frule.register(f)
    def _frule_smooth(tangents: Any, g: Any, x: Any) -> Any:
        return g(x), np.convolve(tangents[1], K, "valid")

    return f


def test_a_rule_without_a_zero_guard_passes() -> None:
    """Engines never send a whole zero, so the harness does not either, unless asked."""
    f = register_unguarded(fresh(smooth))
    assert "zero seed" not in test_rrule(f, X).checks
    assert "zero tangent" not in test_frule(f, X).checks


def test_the_opt_in_checks_catch_a_rule_that_mishandles_a_whole_zero() -> None:
    f = register_unguarded(fresh(smooth))
    with pytest.raises(AssertionError, match=r"^\[zero seed\] .*dtype object"):
        test_rrule(f, X, check_zero_seed=True)
    with pytest.raises(AssertionError, match=r"^\[zero tangent\] .*given ZeroTangent\(\) tangents: dtype object"):
        test_frule(f, X, check_zero_tangents=True)


def test_the_opt_in_checks_pass_a_rule_that_answers_zeros() -> None:
    f = fresh(smooth)

    @rrule.register(f)
    def _rrule_smooth(g: Any, x: Any) -> Any:
        def smooth_pullback(out_bar: Any) -> Any:
            out_bar = unthunk(out_bar)
            if isinstance(out_bar, AbstractZero):
                return NoTangent(), ZeroTangent()
            return NoTangent(), np.convolve(out_bar, K[::-1], "full")

        return g(x), smooth_pullback

    @frule.register(f)
    def _frule_smooth(tangents: Any, g: Any, x: Any) -> Any:
        x_dot = tangents[1]
        return g(x), x_dot if isinstance(x_dot, AbstractZero) else np.convolve(x_dot, K, "valid")

    assert "zero seed" in test_rrule(f, X, check_zero_seed=True).checks
    assert "zero tangent" in test_frule(f, X, check_zero_tangents=True).checks


def test_a_tuple_output_needs_no_guard_but_handles_zero_entries() -> None:
    """``r_bar, theta_bar = unthunk(out_bar)`` fails only on a whole ``ZeroTangent()``."""
    f = fresh(polar)

    @rrule.register(f)
    def _rrule_polar(g: Any, z: Any) -> Any:
        r, theta = polar(z)

        def polar_pullback(out_bar: Any) -> Any:
            r_bar, theta_bar = unthunk(out_bar)
            return NoTangent(), (r_bar + 1j * theta_bar / r) * z / r

        return (r, theta), polar_pullback

    z = np.array([1.0 + 2.0j, -0.5 + 0.3j])
    assert "zero entry in a tuple seed" in test_rrule(f, z).checks
    with pytest.raises(AssertionError, match=r"^\[zero seed\] .*not iterable"):
        test_rrule(f, z, check_zero_seed=True)


def test_a_zero_tangent_for_one_argument_is_checked_by_default() -> None:
    """An frule reading a field of the object's ``ZeroTangent()`` tangent fails by default."""

    class Shift:
        def __init__(self, b: Any) -> None:
            self.b = b

        def __call__(self, x: Any) -> Any:
            return np.sin(x + self.b)

    @frule.register(Shift)
    def _frule_shift(tangents: Any, s: Any, x: Any) -> Any:
        s_dot, x_dot = tangents
        return s(x), np.cos(x + s.b) * (x_dot + s_dot.b)

    with pytest.raises(
        AssertionError, match=r"^\[zero entry in the tangents\] .*given ZeroTangent\(\) for the function"
    ):
        test_frule(Shift(np.array([0.1, 0.2])), np.array([0.5, -0.5]))

    @frule.register(Shift)
    def _frule_shift_guarded(tangents: Any, s: Any, x: Any) -> Any:
        s_dot, x_dot = tangents
        b_dot = s_dot if isinstance(s_dot, AbstractZero) else s_dot.b
        return s(x), np.cos(x + s.b) * (x_dot + b_dot)

    test_frule(Shift(np.array([0.1, 0.2])), np.array([0.5, -0.5]))
