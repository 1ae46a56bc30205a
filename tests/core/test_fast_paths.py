"""The fast-path layer: a shortcut declared beside its rule, one switch for all of them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from chainrules_core import (
    HasReverseMode,
    NoTangent,
    RuleConfig,
    fast_paths,
    fast_paths_enabled,
    frule,
    rrule,
    set_debug_mode,
)


def _registered_square() -> tuple[Any, list[str]]:
    """A fresh primal with a general rule and a fast path that logs which ran."""

    def square(x: Any) -> Any:
        return x * x

    ran: list[str] = []

    @rrule.register(square)
    def _rrule_square(f: Any, x: Any) -> Any:
        ran.append("general")
        return f(x), lambda y_bar: (NoTangent(), 2 * x * y_bar)

    @rrule.fast_path(square)
    def _rrule_square_of_float(general: Any, f: Any, x: Any) -> Any:
        if type(x) is not float:
            return general(f, x)
        ran.append("fast")
        return x * x, lambda y_bar: (NoTangent(), 2.0 * x * y_bar)

    @frule.register(square)
    def _frule_square(tangents: Any, f: Any, x: Any) -> Any:
        ran.append("general frule")
        return f(x), 2 * x * tangents[1]

    @frule.fast_path(square)
    def _frule_square_of_float(general: Any, tangents: Any, f: Any, x: Any) -> Any:
        ran.append("fast frule")
        return general(tangents, f, x)

    return square, ran


def test_the_fast_path_runs_first_and_hands_other_calls_to_the_rule() -> None:
    square, ran = _registered_square()
    assert rrule(square, 3.0)[1](1.0) == (NoTangent(), 6.0)
    assert rrule(square, np.array(3.0))[1](1.0)[1] == 6.0
    assert ran == ["fast", "general"]


def test_the_switch_turns_every_fast_path_off_and_restores_it() -> None:
    square, ran = _registered_square()
    assert fast_paths_enabled()
    with fast_paths(False):
        assert not fast_paths_enabled()
        rrule(square, 3.0)
        frule((NoTangent(), 1.0), square, 3.0)
    assert fast_paths_enabled()
    rrule(square, 3.0)
    frule((NoTangent(), 1.0), square, 3.0)
    assert ran == ["general", "general frule", "fast", "fast frule", "general frule"]


def test_the_switch_is_a_call_too() -> None:
    square, ran = _registered_square()
    try:
        fast_paths(False)
        rrule(square, 3.0)
    finally:
        fast_paths(True)
    rrule(square, 3.0)
    assert ran == ["general", "fast"]


def test_resolve_and_find_follow_the_switch() -> None:
    square, _ = _registered_square()
    (record,) = rrule.records_for(square)
    assert rrule.resolve(square, (float,)).__func__ is record.fast_path
    assert rrule.find(square, 3.0).__self__ is record.rule
    with fast_paths(False):
        assert rrule.resolve(square, (float,)) is record.rule
        assert rrule.find(square, 3.0) is record.rule


def test_engines_hear_of_the_switch() -> None:
    heard: list[bool] = []
    rrule.on_change(lambda: heard.append(fast_paths_enabled()))
    with fast_paths(False):
        pass
    assert heard[-2:] == [False, True]


def test_registering_the_rule_again_drops_its_fast_path() -> None:
    """A user's own rule replaces the shipped one whole: the old shortcut must not keep answering."""
    square, ran = _registered_square()

    @rrule.register(square)
    def _own(f: Any, x: Any) -> Any:
        ran.append("own")
        return f(x), lambda y_bar: (NoTangent(), 2 * x * y_bar)

    rrule(square, 3.0)
    assert ran == ["own"]
    assert [r.fast_path for r in rrule.records_for(square)] == [None]


def test_a_fast_path_needs_its_rule_registered_first() -> None:
    def cube(x: Any) -> Any:
        return x**3

    with pytest.raises(TypeError, match=r"rrule.fast_path\(.*cube\): no rule is registered for this signature"):
        rrule.fast_path(cube)(lambda general, f, x: general(f, x))

    @rrule.register(cube, float)
    def _rrule_cube(f: Any, x: Any) -> Any:
        return f(x), lambda y_bar: (NoTangent(), 3 * x * x * y_bar)

    with pytest.raises(TypeError, match="register the general rule first"):
        rrule.fast_path(cube, int)(lambda general, f, x: general(f, x))
    with pytest.raises(TypeError, match="must be callable"):
        rrule.fast_path(cube, float)(42)


def test_a_typed_fast_path_serves_its_signature_only() -> None:
    def double(x: Any) -> Any:
        return 2 * x

    ran: list[str] = []
    for t in (float, np.ndarray):

        @rrule.register(double, t)
        def _rrule_double(f: Any, x: Any, t: type = t) -> Any:
            ran.append(t.__name__)
            return f(x), lambda y_bar: (NoTangent(), 2 * y_bar)

    @rrule.fast_path(double, float)
    def _fast(general: Any, f: Any, x: Any) -> Any:
        ran.append("fast")
        return general(f, x)

    rrule(double, 1.0)
    rrule(double, np.ones(2))
    assert ran == ["fast", "float", "ndarray"]


def test_a_config_aware_rule_takes_a_fast_path_too() -> None:
    class Config(RuleConfig, HasReverseMode):
        pass

    def halve(x: Any) -> Any:
        return x / 2

    ran: list[str] = []

    @rrule.register(halve, config=True, requires=(HasReverseMode,))
    def _rrule_halve(config: Any, f: Any, x: Any) -> Any:
        ran.append("general")
        return f(x), lambda y_bar: (NoTangent(), y_bar / 2)

    @rrule.fast_path(halve, config=True, requires=(HasReverseMode,))
    def _fast(general: Any, config: Any, f: Any, x: Any) -> Any:
        ran.append("fast")
        return general(config, f, x)

    rrule(Config(), halve, 1.0)
    with fast_paths(False):
        rrule(Config(), halve, 1.0)
    assert ran == ["fast", "general", "general"]


def test_debug_mode_checks_what_the_fast_path_returns() -> None:
    square, ran = _registered_square()
    with set_debug_mode(True):
        _, pullback = rrule(square, 3.0)
        with pytest.raises(ValueError, match="shape"):
            pullback(np.ones(2))
    assert ran == ["fast"]


def test_the_switch_takes_a_bool_only() -> None:
    with pytest.raises(TypeError, match="True or False"):
        fast_paths(0)  # type: ignore[arg-type]
    assert fast_paths_enabled()


def _registered_scale() -> tuple[Any, list[str]]:
    """A primal typed on numbers, with a fast path for its signature and one for two floats exactly."""

    def scale(x: Any, a: Any) -> Any:
        return a * x

    ran: list[str] = []

    @rrule.register(scale, (float, int, np.ndarray), (float, int))
    def _rrule_scale(f: Any, x: Any, a: Any) -> Any:
        ran.append("general")
        return f(x, a), lambda y_bar: (NoTangent(), a * y_bar, NoTangent())

    @rrule.fast_path(scale, (float, int, np.ndarray), (float, int))
    def _rrule_scale_fast(rule: Any, f: Any, x: Any, a: Any) -> Any:
        ran.append("fast")
        return rule(f, x, a)

    @rrule.fast_path(scale, (float, int, np.ndarray), (float, int), exact=(float, float))
    def _rrule_scale_of_floats(rule: Any, f: Any, x: float, a: float) -> Any:
        ran.append("exact")
        return a * x, lambda y_bar: (NoTangent(), a * y_bar, NoTangent())

    return scale, ran


def test_an_exact_fast_path_serves_its_exact_types_only() -> None:
    scale, ran = _registered_scale()

    class Real(float):
        pass

    assert rrule(scale, 2.0, 3.0)[1](1.0) == (NoTangent(), 3.0, NoTangent())
    rrule(scale, 2.0, 3)  # the signature's fast path
    rrule(scale, Real(2.0), 3.0)  # a subclass is not the exact type
    rrule(scale, np.ones(2), 3.0)
    assert ran == ["exact", "fast", "general", "fast", "general", "fast", "general"]
    assert rrule.resolve(scale, (float, float)).__func__.__name__ == "_rrule_scale_of_floats"
    assert rrule.resolve(scale, (float, int)).__func__.__name__ == "_rrule_scale_fast"


def test_the_switch_turns_exact_fast_paths_off_too() -> None:
    scale, ran = _registered_scale()
    with fast_paths(False):
        rrule(scale, 2.0, 3.0)
        assert rrule.resolve(scale, (float, float)).__name__ == "_rrule_scale"
    rrule(scale, 2.0, 3.0)
    assert ran == ["general", "exact"]


def test_registering_the_rule_again_drops_its_exact_fast_path() -> None:
    scale, ran = _registered_scale()
    rrule.register(scale, (float, int, np.ndarray), (float, int))(lambda f, x, a: (f(x, a), None))
    assert [r.exact_paths for r in rrule.records_for(scale)] == [()]
    assert rrule(scale, 2.0, 3.0)[0] == 6.0
    assert ran == []


def test_an_exact_fast_path_declares_one_class_per_argument_under_the_signature() -> None:
    scale, _ = _registered_scale()
    with pytest.raises(TypeError, match="exact= takes a tuple of classes"):
        rrule.fast_path(scale, (float, int, np.ndarray), (float, int), exact=[float, float])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="do not fall under the signature"):
        rrule.fast_path(scale, (float, int, np.ndarray), (float, int), exact=(float, complex))
    with pytest.raises(TypeError, match="do not fall under the signature"):
        rrule.fast_path(scale, (float, int, np.ndarray), (float, int), exact=(float,))
    with pytest.raises(TypeError, match="cannot be called as"):
        rrule.fast_path(scale, (float, int, np.ndarray), (float, int), exact=(float, float))(lambda rule, f, x: None)
