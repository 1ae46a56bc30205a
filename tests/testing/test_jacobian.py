"""The full-Jacobian mode: right rules pass, and a wrong rule's failure lists the entries that differ."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from chainrules_core import AbstractZero, NoTangent, ProjectTo, frule, rrule, scalar_rule, unthunk
from chainrules_core.testing import test_frule, test_rrule


def matvec(A: Any, x: Any) -> Any:
    return A @ x


@rrule.register(matvec)
def _rrule_matvec(f: Any, A: Any, x: Any) -> Any:
    project_A, project_x = ProjectTo(A), ProjectTo(x)

    def matvec_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), out_bar, out_bar
        return NoTangent(), project_A(np.outer(out_bar, x.conj())), project_x(A.conj().T @ out_bar)

    return A @ x, matvec_pullback


@frule.register(matvec)
def _frule_matvec(tangents: Any, f: Any, A: Any, x: Any) -> Any:
    _, A_dot, x_dot = tangents
    return A @ x, A_dot @ x + A @ x_dot


def failure(check: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    with pytest.raises(AssertionError) as info:
        check(*args, **kwargs)
    return str(info.value)


A = np.array([[1.0, 2.0, 0.5], [-1.0, 0.3, 2.0]])
X = np.array([0.5, -1.0, 2.0])


@pytest.mark.parametrize("check", [test_rrule, test_frule], ids=["rrule", "frule"])
def test_right_rules_pass(check: Callable[..., Any]) -> None:
    report = check(matvec, A, X, jacobian=True)
    assert "full Jacobian" in report.checks
    check(matvec, A + 1j * A[::-1], X - 2j, jacobian=True)


def test_a_wrong_entry_is_listed() -> None:
    """Only d(out[1])/d(x[2]) is wrong; the failure names it with both values."""

    def shifted(x: Any) -> Any:
        return np.array([x[0] * x[1], x[2] ** 2])

    @frule.register(shifted)
    def _(tangents: Any, f: Any, x: Any) -> Any:
        x_dot = tangents[1]
        if isinstance(x_dot, AbstractZero):
            return shifted(x), x_dot
        return shifted(x), np.array([x_dot[0] * x[1] + x[0] * x_dot[1], 2.5 * x[2] * x_dot[2]])

    assert failure(test_frule, shifted, X).startswith("[pushforward]")
    message = failure(test_frule, shifted, X, jacobian=True)
    assert message.startswith("[full Jacobian]") and "1 entries differ" in message
    assert "d(output[1])/d(x[2]): rule 5, finite differences 4" in message


def test_the_pullback_is_read_by_rows() -> None:
    def wrong(x: Any) -> Any:
        return np.cumsum(x)

    @rrule.register(wrong)
    def _(f: Any, x: Any) -> Any:
        return np.cumsum(x), lambda out_bar: (NoTangent(), np.cumsum(unthunk(out_bar)))

    message = failure(test_rrule, wrong, X, jacobian=True)
    assert message.startswith("[full Jacobian]") and "6 entries differ" in message
    assert "d(output[2])/d(x[0]): rule 0, finite differences 1" in message


def test_complex_entries_are_named_by_part() -> None:
    def conj_wrong(z: Any) -> Any:
        return z * 2

    scalar_rule(conj_wrong, lambda out, z: 2.0)
    frule.register(conj_wrong)(lambda t, f, z: (2 * z, 2 * t[1].conj()))
    message = failure(test_frule, conj_wrong, np.array([1.0 + 1j]), jacobian=True)
    assert "d(output[0].imag)/d(z[0].imag): rule -2, finite differences 2" in message


def test_the_cost_grows_with_the_input() -> None:
    f = functools.partial(matvec, np.ones((2, 40)))
    cheap = test_rrule(f, np.linspace(0.0, 1.0, 40)).evaluations
    full = test_rrule(f, np.linspace(0.0, 1.0, 40), jacobian=True).evaluations
    assert full > 10 * cheap
