"""functools.reduce, np.apply_along_axis and np.piecewise: config-aware rules checked with the engines' config."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

from chainrules.engines import EngineConfig, Tracker
from chainrules_core import NoTangent, Tangent, rrule, scalar_rule
from chainrules_core.testing import test_frule, test_rrule
from tests.rules.cases import case_params


def _product_step(acc: Any, x: Any) -> Any:
    return acc * x


scalar_rule(_product_step, lambda out, acc, x: (x, acc))


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.higher_order"))
def test_rule(case: Any, dtype: str, mode: str) -> None:
    """Every declared case of higher_order passes the harness."""
    case.run(dtype, mode)


def test_no_rule_without_a_config() -> None:
    """Without an engine to differentiate the user's function there is no rule."""
    assert rrule(functools.reduce, _product_step, [1.0, 2.0]) is None
    assert rrule(Tracker(), functools.reduce, _product_step, [1.0, 2.0]) is not None


def test_unsupported_arguments_get_no_rule() -> None:
    """Generators, empty sequences without an initial value, bad axes: no rule, so an engine falls back."""
    config = EngineConfig()
    assert rrule(config, functools.reduce, max, iter([1.0, 2.0])) is None
    assert rrule(config, functools.reduce, max, []) is None
    assert rrule(config, np.apply_along_axis, np.sum, 2, np.ones((2, 2))) is None


def test_lists_and_tuples_get_cotangents_of_their_kind() -> None:
    """A list reduces to a list cotangent, a tuple to Tangent(tuple, ...), with or without an initial value."""
    config = EngineConfig()
    test_rrule(functools.reduce, _product_step, [0.5, 2.0, -1.5], config=config)
    test_rrule(functools.reduce, _product_step, (0.5, 2.0, -1.5), 3.0, config=config)
    test_frule(functools.reduce, _product_step, [0.5, 2.0, -1.5], config=config)
    test_frule(functools.reduce, _product_step, (0.5, 2.0, -1.5), 3.0, config=config)


def test_piecewise_gives_each_entry_s_seed_to_the_piece_that_wrote_it_last() -> None:
    """Overlapping conditions: numpy keeps the later piece; the earlier one gets zero seed there, and a number
    in funclist gets the seed of the entries it kept."""
    config = EngineConfig()
    x = np.array([-1.0, 0.5, 2.0])
    conditions = [x < 1, x > 0]
    out, pullback = rrule(config, np.piecewise, x, conditions, [np.sin, np.exp, 3.0])
    np.testing.assert_allclose(out, np.piecewise(x, conditions, [np.sin, np.exp, 3.0]))
    _, x_bar, conditions_bar, funclist_bar = pullback(np.array([1.0, 2.0, 4.0]))
    np.testing.assert_allclose(x_bar, [np.cos(-1.0), 2.0 * np.exp(0.5), 4.0 * np.exp(2.0)])
    assert conditions_bar == NoTangent() and funclist_bar == Tangent(list, NoTangent(), NoTangent(), 0.0)
    assert rrule(np.piecewise, x, conditions, [np.sin, np.exp]) is None, "without a config: no rule"
    with pytest.raises(ValueError, match=r"np\.piecewise"):
        rrule(config, np.piecewise, x, conditions, [np.sin])
