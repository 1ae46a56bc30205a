"""The same call in other forms (``variants=True``), and the wrong-shape probe, which a rule opts into."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from chainrules_core import NoTangent, checked_seed, checked_tangent, frule, rrule, unthunk, value_shape
from chainrules_core.testing import test_frule, test_rrule
from chainrules_core.testing.cases import REAL_ONLY, Arg, Case

X = np.array([0.3, -1.2, 2.0])
W = np.array([1.5, 0.5, -2.0])


def wsoftplus(x: Any, w: Any) -> Any:
    """``w * log(1 + exp(x))``: rules written as the README writes them, with no shape code."""
    return w * np.logaddexp(0.0, x)


def _sigmoid(x: Any) -> Any:
    return 0.5 * (1 + np.tanh(0.5 * x))


@rrule.register(wsoftplus)
def _rrule_wsoftplus(f: Any, x: Any, w: Any) -> Any:
    def wsoftplus_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        return NoTangent(), w * _sigmoid(x) * out_bar, np.logaddexp(0.0, x) * out_bar

    return f(x, w), wsoftplus_pullback


@frule.register(wsoftplus)
def _frule_wsoftplus(tangents: Any, f: Any, x: Any, w: Any) -> Any:
    _, x_dot, w_dot = tangents
    return f(x, w), w * _sigmoid(x) * x_dot + np.logaddexp(0.0, x) * w_dot


def checked_wsoftplus(x: Any, w: Any) -> Any:
    """``wsoftplus`` with rules that refuse seeds and tangents of the wrong shape."""
    return w * np.logaddexp(0.0, x)


@rrule.register(checked_wsoftplus)
def _rrule_checked_wsoftplus(f: Any, x: Any, w: Any) -> Any:
    out = f(x, w)
    shape = value_shape(out)

    def checked_wsoftplus_pullback(out_bar: Any) -> Any:
        out_bar = checked_seed(f, out_bar, shape)
        return NoTangent(), w * _sigmoid(x) * out_bar, np.logaddexp(0.0, x) * out_bar

    return out, checked_wsoftplus_pullback


@frule.register(checked_wsoftplus)
def _frule_checked_wsoftplus(tangents: Any, f: Any, x: Any, w: Any) -> Any:
    x_dot, w_dot = checked_tangent(f, tangents[1], x, 1), checked_tangent(f, tangents[2], w, 2)
    return f(x, w), w * _sigmoid(x) * x_dot + np.logaddexp(0.0, x) * w_dot


CHECKS = [test_rrule, test_frule]


def failure(check: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(AssertionError) as info:
        check(*args, **kwargs)
    return str(info.value)


@pytest.mark.parametrize("check", CHECKS, ids=["rrule", "frule"])
def test_a_rule_without_shape_code_passes_the_variants(check: Any) -> None:
    """Refusing a seed or tangent of the wrong shape is not asked of a rule by default."""
    report = check(wsoftplus, X, W, variants=True)
    assert "variants" in report.checks and "wrong shape" not in report.checks


@pytest.mark.parametrize("check", CHECKS, ids=["rrule", "frule"])
def test_wrong_shape_is_an_option_that_a_rule_without_shape_code_fails(check: Any) -> None:
    message = failure(check, wsoftplus, X, W, wrong_shape=True)
    what = "a seed of shape (1,) for an output" if check is test_rrule else "a tangent of shape (1,) for argument 1 (x)"
    assert message.startswith("[wrong shape]") and f"{what} of shape (3,) was accepted" in message


@pytest.mark.parametrize("check", CHECKS, ids=["rrule", "frule"])
def test_a_rule_that_checks_its_seeds_and_tangents_passes_the_probe(check: Any) -> None:
    assert "wrong shape" in check(checked_wsoftplus, X, W, wrong_shape=True, variants=True).checks


def test_a_declared_case_opts_in() -> None:
    args = (Arg(REAL_ONLY, (3,)), Arg(REAL_ONLY, (3,)))
    for mode in ("rrule", "frule"):
        assert "wrong shape" not in Case(wsoftplus, args).run("float64", mode).checks
        with pytest.raises(AssertionError, match=r"^\[wrong shape\]"):
            Case(wsoftplus, args, wrong_shape=True).run("float64", mode)
        assert "wrong shape" in Case(checked_wsoftplus, args, wrong_shape=True).run("float32", mode).checks


def test_the_probe_names_a_python_float_as_one() -> None:
    """A Python float has no shape: the message says what it is."""

    def square(x: float) -> float:
        return x * x

    rrule.register(square)(lambda f, x: (x * x, lambda out_bar: (NoTangent(), 2 * x * unthunk(out_bar))))
    frule.register(square)(lambda tangents, f, x: (x * x, 2 * x * tangents[1]))
    rrule_message = failure(test_rrule, square, 0.5, wrong_shape=True)
    assert "a seed of shape (1,) for an output (a Python float) was accepted" in rrule_message
    frule_message = failure(test_frule, square, 0.5, wrong_shape=True)
    assert "a tangent of shape (1,) for argument 1 (x) (a Python float) was accepted" in frule_message
