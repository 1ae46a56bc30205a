"""Debug mode: the checks that are off by default."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from chainrules_core import NoTangent, RuleConfig, debug, debug_mode, frule, rrule, set_debug_mode


def bad(x: object, y: object) -> object:
    return x


@rrule.register(bad)
def _rrule_bad(f: object, x: object, y: object) -> object:
    return x, lambda out_bar: (NoTangent(), out_bar)  # one cotangent short


@frule.register(bad)
def _frule_bad(tangents: tuple[object, ...], f: object, x: object, y: object) -> object:
    return x, np.ones(5)


def wrong_shape(x: object) -> object:
    return x


@rrule.register(wrong_shape)
def _rrule_wrong_shape(f: object, x: object) -> object:
    return x, lambda out_bar: (NoTangent(), np.ones(4))


def test_off_by_default_and_restored_by_the_context() -> None:
    assert not debug_mode()
    with set_debug_mode(True):
        assert debug_mode()
    assert not debug_mode()


def test_wrong_cotangent_count_names_the_function() -> None:
    with set_debug_mode(True):
        _, pullback = rrule(bad, np.ones(2), 1.0)
        with pytest.raises(ValueError, match=r"pullback of .*bad returned 2 cotangents; expected 3"):
            pullback(np.ones(2))
    _, pullback = rrule(bad, np.ones(2), 1.0)
    assert len(pullback(np.ones(2))) == 2  # unchecked outside debug mode


def test_wrong_cotangent_shape_names_the_argument() -> None:
    with set_debug_mode(True):
        _, pullback = rrule(wrong_shape, np.ones(2))
        with pytest.raises(ValueError, match=r"argument 1, a cotangent of shape \(4,\) for a primal of shape \(2,\)"):
            pullback(np.ones(2))


def test_wrong_tangent_shape() -> None:
    with set_debug_mode(True):
        with pytest.raises(ValueError, match=r"pushforward of .*bad returned a tangent of shape \(5,\)"):
            frule((NoTangent(), np.ones(2), 1.0), bad, np.ones(2), 1.0)


def test_seed_of_the_wrong_shape_names_the_function() -> None:
    with set_debug_mode(True):
        _, pullback = rrule(wrong_shape, np.ones(2))
        with pytest.raises(
            ValueError, match=r"pullback of .*wrong_shape was given a seed of shape \(3,\) for an output"
        ):
            pullback(np.ones(3))


def test_an_array_seed_for_a_scalar_output() -> None:
    with set_debug_mode(True):
        _, pullback = rrule(wrong_shape, 2.0)
        with pytest.raises(ValueError, match=r"was given a seed of shape \(3,\) for a scalar output"):
            pullback(np.ones(3))


def test_an_argument_tangent_of_the_wrong_shape() -> None:
    with set_debug_mode(True):
        with pytest.raises(ValueError, match=r"bad was given, for argument 2, a tangent of shape \(2,\) for a scalar"):
            frule((NoTangent(), np.ones(2), np.ones(2)), bad, np.ones(2), 1.0)
        with pytest.raises(ValueError, match=r"for argument 1, a tangent of shape \(3,\) for a primal of shape \(2,"):
            frule((NoTangent(), np.ones(3), 1.0), bad, np.ones(2), 1.0)


def test_the_count_names_the_arguments_passed_by_keyword() -> None:
    def power_sum(x: object, p: object) -> object:
        return x

    @rrule.register(power_sum)
    def _(f: object, x: object, p: object) -> object:
        return x, lambda out_bar: (NoTangent(), out_bar, NoTangent())

    with set_debug_mode(True):
        _, pullback = rrule(power_sum, np.ones(2), p=3)
        with pytest.raises(ValueError, match=r"returned 3 cotangents; expected 2: .* \(p was passed by keyword"):
            pullback(np.ones(2))


def test_calls_with_a_config_are_checked_too() -> None:
    with set_debug_mode(True):
        _, pullback = rrule(RuleConfig(), bad, np.ones(2), 1.0)
        with pytest.raises(ValueError, match=r"pullback of .*bad returned 2 cotangents; expected 3"):
            pullback(np.ones(2))


def test_debug_mode_does_not_import_the_registries() -> None:
    """The registries follow debug mode; debug mode knows nothing of them (no import cycle)."""
    tree = ast.parse(Path(debug.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not imported & {"rules", "_registry"}
