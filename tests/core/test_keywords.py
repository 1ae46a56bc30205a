"""Calls whose leading arguments come by keyword: the registries take them as the positional call."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import pytest

from chainrules_core import HasForwardMode, HasReverseMode, NoTangent, RuleConfig, frule, rrule
from chainrules_core.keywords import keywords_as_positional, keywords_to_positions


class Engine(RuleConfig, HasReverseMode, HasForwardMode):
    """A config as an engine passes it."""


def weighted(x: float, w: float, p: float = 2.0) -> float:
    return w * x**p


@rrule.register(weighted)
def _rrule_weighted(f: Any, x: float, w: float, *options: Any, **kwargs: Any) -> Any:
    p = options[0] if options else kwargs.get("p", 2.0)

    def weighted_pullback(y_bar: float) -> tuple[Any, ...]:
        return (NoTangent(), y_bar * w * p * x ** (p - 1), y_bar * x**p, *(NoTangent() for _ in options))

    return f(x, w, *options, **kwargs), weighted_pullback


@frule.register(weighted)
def _frule_weighted(tangents: Any, f: Any, x: float, w: float, *options: Any, **kwargs: Any) -> Any:
    p = options[0] if options else kwargs.get("p", 2.0)
    _, x_dot, w_dot, *_ = tangents
    return f(x, w, *options, **kwargs), w * p * x ** (p - 1) * x_dot + x**p * w_dot


def test_keywords_naming_the_leading_parameters_become_positions_in_order() -> None:
    assert keywords_as_positional(weighted, {"w": 3.0, "x": 2.0}) == ((2.0, 3.0), {})
    assert keywords_as_positional(weighted, {"p": 1.0, "w": 3.0, "x": 2.0}) == ((2.0, 3.0, 1.0), {})
    assert keywords_as_positional(weighted, {"x": 2.0, "p": 1.0}) == ((2.0,), {"p": 1.0})  # stops at w


def test_what_has_no_leading_parameters_is_left_as_it_is() -> None:
    def options_only(*args: Any, scale: float = 1.0) -> Any:
        return args

    kwargs = {"scale": 2.0}
    assert keywords_as_positional(options_only, kwargs) == ((), kwargs)
    assert keywords_as_positional(max, {"key": abs}) == ((), {"key": abs})  # no signature
    assert keywords_as_positional(np.ndarray.sum, {"axis": 0}) == ((), {"axis": 0})  # self is positional-only


def test_rrule_and_frule_of_a_keyword_call_equal_the_positional_call() -> None:
    y, pullback = rrule(weighted, x=2.0, w=3.0)
    y_pos, pullback_pos = rrule(weighted, 2.0, 3.0)
    assert y == y_pos
    assert pullback(1.0) == pullback_pos(1.0) == (NoTangent(), 12.0, 4.0)
    _, pullback = rrule(weighted, w=3.0, x=2.0, p=3.0)
    assert pullback(1.0) == (NoTangent(), 36.0, 8.0, NoTangent())  # p moved too: it has a cotangent
    assert frule((NoTangent(), 1.0, 0.0), weighted, x=2.0, w=3.0) == frule((NoTangent(), 1.0, 0.0), weighted, 2.0, 3.0)


def test_a_config_and_a_keyword_call() -> None:
    config = Engine()
    _, pullback = rrule(config, weighted, x=2.0, w=3.0)
    assert pullback(1.0) == (NoTangent(), 12.0, 4.0)
    assert frule(config, (NoTangent(), 1.0, 0.0), weighted, x=2.0, w=3.0) == (12.0, 12.0)
    with pytest.raises(ValueError, match="weighted: got 1 tangents for 2 arguments"):
        frule(config, (NoTangent(),), weighted, x=2.0, w=3.0)


def test_a_call_with_a_positional_argument_is_not_changed() -> None:
    seen: list[tuple[Any, ...]] = []

    def scaled(x: float, w: float = 1.0) -> float:
        return w * x

    @rrule.register(scaled)
    def _rrule_scaled(f: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append((args, kwargs))
        return f(*args, **kwargs), lambda y_bar: (NoTangent(), *(y_bar for _ in args))

    assert rrule(scaled, 2.0, w=3.0)[1](1.0) == (NoTangent(), 1.0)  # w by keyword: no cotangent
    assert rrule(scaled, w=3.0, x=2.0)[1](1.0) == (NoTangent(), 1.0, 1.0)
    assert rrule(scaled, x=2.0)[1](1.0) == (NoTangent(), 1.0)
    assert seen == [((2.0,), {"w": 3.0}), ((2.0, 3.0), {}), ((2.0,), {})]


def test_a_missing_leading_argument_is_named() -> None:
    with pytest.raises(TypeError, match=r"rrule for .*weighted: the argument x is missing \(got only w=\)"):
        rrule(weighted, w=3.0)
    with pytest.raises(TypeError, match=r"frule for .*weighted: the argument x is missing"):
        frule((NoTangent(),), weighted, w=3.0)


def test_a_keyword_for_a_positional_only_argument_is_refused_naming_it() -> None:
    def halve(x: float, /) -> float:
        return x / 2

    @rrule.register(halve)
    def _rrule_halve(f: Any, x: float) -> Any:
        return f(x), lambda y_bar: (NoTangent(), y_bar / 2)

    with pytest.raises(TypeError, match=r"rrule for .*halve: x= names a positional-only argument of .*halve"):
        rrule(halve, x=1.0)
    with pytest.raises(TypeError, match=r"math.sin: x= names a positional-only argument of math.sin"):
        keywords_as_positional(math.sin, {"x": 1.0})


def test_a_ufunc_takes_no_keyword_inputs() -> None:
    with pytest.raises(TypeError, match=r"rrule for np.tanh: x= names an input of the ufunc np.tanh"):
        rrule(np.tanh, x=np.ones(2))
    with pytest.raises(TypeError, match=r"frule for np.add: x1=, x2= names an input of the ufunc np.add"):
        frule((NoTangent(), 1.0, 1.0), np.add, x1=1.0, x2=2.0)


def test_a_partial_and_a_bound_method_by_keyword() -> None:
    _, pullback = rrule(functools.partial(weighted, p=1.0), x=2.0, w=3.0)
    assert pullback(1.0)[1:] == (3.0, 2.0)

    class Model:
        def apply(self, x: float, w: float) -> float:
            return weighted(x, w)

    @rrule.register(Model.apply)
    def _rrule_apply(f: Any, model: Any, x: float, w: float) -> Any:
        y, pullback = rrule(weighted, x, w)
        return y, lambda y_bar: (NoTangent(), NoTangent(), *pullback(y_bar)[1:])

    _, pullback = rrule(Model().apply, w=3.0, x=2.0)
    assert pullback(1.0)[1:] == (12.0, 4.0)


# ----- keywords_to_positions: a followed value by keyword, moved to its position in the rule -----


def power_of(x: float, *options: Any) -> float:
    """A function whose options only its rule names."""
    return x ** (options[0] if options else 2.0)


@rrule.register(power_of)
def _rrule_power_of(f: Any, x: float, p: float = 2.0) -> Any:
    return f(x, p), lambda y_bar: (NoTangent(), y_bar * p * x ** (p - 1), y_bar * x**p * math.log(x))


@rrule.fast_path(power_of)
def _rrule_power_of_fast(rule: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
    return rule(f, *args, **kwargs)


def test_the_rule_s_own_parameters_give_the_positions() -> None:
    """``p`` is named by the rule alone (not by its fast path, nor by the function, which takes ``*options``)."""
    assert keywords_to_positions(rrule, power_of, (2.0,), {"p": 3.0}, ["p"]) == ((2.0, 3.0), {})


def test_the_positions_between_take_the_arguments_by_keyword_then_the_defaults() -> None:
    """weighted's rule names x and w and takes ``*options``: p is weighted's third parameter, w before it."""
    assert keywords_to_positions(rrule, weighted, (2.0,), {"w": 3.0, "p": 1.0}, ["p"]) == ((2.0, 3.0, 1.0), {})
    with pytest.raises(TypeError, match=r"weighted: p= holds a followed value.*argument w before it has no default"):
        keywords_to_positions(rrule, weighted, (2.0,), {"p": 1.0}, ["p"])
    assert keywords_to_positions(rrule, weighted, (2.0,), {"w": 3.0, "p": 1.0}, ["w"]) == ((2.0, 3.0), {"p": 1.0})


def test_a_rule_taking_args_is_continued_by_the_function_s_parameters() -> None:
    def clipped(x: float, lo: float | None = None, hi: float | None = None, *, strict: bool = False) -> float:
        return x if lo is None else max(x, lo) if hi is None else min(max(x, lo), hi)

    @rrule.register(clipped)
    def _rrule_clipped(f: Any, x: float, *bounds: Any, **kwargs: Any) -> Any:
        raise AssertionError("not called")

    assert keywords_to_positions(rrule, clipped, (2.0,), {"hi": 1.5}, ["hi"]) == ((2.0, None, 1.5), {})
    assert keywords_to_positions(rrule, clipped, (2.0,), {"hi": 1.5, "strict": True}, ["hi"]) == (
        (2.0, None, 1.5),
        {"strict": True},
    )
    with pytest.raises(TypeError, match=r"clipped\(\.\.\., strict=\.\.\.\) passes a followed value by keyword.*"):
        keywords_to_positions(rrule, clipped, (2.0,), {"strict": 1.0}, ["strict"])
    with pytest.raises(TypeError, match=r"takes strict by keyword only"):
        keywords_to_positions(rrule, clipped, (2.0,), {"strict": 1.0}, ["strict"])


def test_an_frule_and_a_config_aware_rule_skip_what_comes_before_the_arguments() -> None:
    config = Engine()
    assert keywords_to_positions(frule, weighted, (2.0,), {"w": 3.0}, ["w"]) == ((2.0, 3.0), {})

    def damped(x: float, rate: float = 0.5) -> float:
        return x * math.exp(-rate)

    @rrule.register(damped, config=True, requires=(HasReverseMode,))
    def _rrule_damped(config: Any, f: Any, x: float, gain: float = 0.5) -> Any:
        raise AssertionError("not called")

    # with the config, the config-aware rule's parameter names the position; without, damped's own
    assert keywords_to_positions(rrule, damped, (2.0,), {"gain": 1.0}, ["gain"], config=config) == ((2.0, 1.0), {})
    with pytest.raises(TypeError, match=r"damped\(\.\.\., rate=\.\.\.\) passes a followed value"):
        keywords_to_positions(rrule, damped, (2.0,), {"rate": 1.0}, ["rate"], config=config)
    assert keywords_to_positions(rrule, damped, (2.0,), {"rate": 1.0}, ["rate"]) == ((2.0, 1.0), {})


def test_without_a_rule_the_function_s_signature_places_what_it_can() -> None:
    def plain(x: float, w: float = 1.0, *, scale: float = 1.0) -> float:
        return scale * w * x

    assert keywords_to_positions(rrule, plain, (2.0,), {"w": 3.0}, ["w"]) == ((2.0, 3.0), {})
    assert keywords_to_positions(rrule, plain, (2.0,), {"scale": 3.0}, ["scale"]) == ((2.0,), {"scale": 3.0})
    with pytest.raises(TypeError, match=r"plain: got multiple values for the argument x"):
        keywords_to_positions(rrule, plain, (2.0,), {"x": 3.0}, ["x"])


def test_a_positional_only_parameter_and_a_ufunc_input_are_refused_by_keyword() -> None:
    def halve(x: float, w: float = 1.0, /) -> float:
        return w * x / 2

    def halve_or_log(x: float, w: float = 1.0, /, **options: Any) -> float:
        return w * x / 2

    with pytest.raises(TypeError, match=r"w= names a positional-only argument of .*halve"):
        keywords_to_positions(rrule, halve, (2.0,), {"w": 3.0}, ["w"])
    # with **options to take it, w= is one of the options, not the positional w
    assert keywords_to_positions(rrule, halve_or_log, (2.0,), {"w": 3.0}, ["w"]) == ((2.0,), {"w": 3.0})
    with pytest.raises(TypeError, match=r"rrule for np.power: x2= names an input of the ufunc np.power"):
        keywords_to_positions(rrule, np.power, (2.0,), {"x2": 3.0}, ["x2"], caller="rrule")


def test_a_partial_and_a_bound_method_move_to_the_positions_after_theirs() -> None:
    assert keywords_to_positions(rrule, functools.partial(weighted, 2.0), (), {"w": 3.0}, ["w"]) == ((3.0,), {})

    class Model:
        def apply(self, x: float, w: float = 1.0) -> float:
            return weighted(x, w)

    @rrule.register(Model.apply)
    def _rrule_apply(f: Any, model: Any, x: float, w: float = 1.0) -> Any:
        raise AssertionError("not called")

    assert keywords_to_positions(rrule, Model().apply, (2.0,), {"w": 3.0}, ["w"]) == ((2.0, 3.0), {})
