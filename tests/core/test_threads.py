"""Registration and lookup from several threads at once: no error, and no stale rule afterwards."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from chainrules_core import HasForwardMode, HasReverseMode, NoTangent, RuleConfig, frule, rrule


class Engine(RuleConfig, HasReverseMode, HasForwardMode):
    pass


@pytest.fixture
def frequent_switches() -> Iterator[None]:
    """Switch threads every microsecond, so that a lookup is interrupted mid-way as often as possible."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


def answer(value: Any) -> Callable[..., Any]:
    def rule(*args: Any) -> Any:
        return value, lambda y_bar: (NoTangent(), y_bar)

    return rule


@pytest.mark.parametrize("round_", range(6))
def test_lookups_while_rules_are_registered(frequent_switches: None, round_: int) -> None:
    """8 threads call rrule and frule while another registers typed and config-aware rules for the same primals."""

    def f(x: Any) -> Any:
        return x

    class Layer:
        def __call__(self, x: Any) -> Any:
            return x

    rrule.register(f, config=True, requires=(HasReverseMode,))(lambda config, g, x: answer("config")(g, x))
    frule.register(f, config=True, requires=(HasForwardMode,))(lambda config, t, g, x: ("config", t[1]))
    rrule.register(Layer)(answer("layer"))
    config = Engine()
    kinds: list[type] = [type(f"T{i}", (), {}) for i in range(100)]
    stop = threading.Event()
    errors: list[BaseException] = []

    def call() -> None:
        try:
            while not stop.is_set():
                for kind in kinds[::7]:
                    rrule(config, f, kind())
                    rrule(f, kind())
                    frule(config, (NoTangent(), 1.0), f, kind())
                    rrule(Layer(), kind())
        except BaseException as err:  # reported below, whatever it is
            errors.append(err)
            stop.set()

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    try:
        for kind in kinds:
            rrule.register(f, kind, config=True, requires=(HasReverseMode,))(
                lambda config, g, x, k=kind: answer(k.__name__)(g, x)
            )
            frule.register(f, kind)(lambda t, g, x, k=kind: (k.__name__, t[1]))
            rrule.register(Layer, kind)(lambda g, x, k=kind: answer(k.__name__)(g, x))
            if errors:
                break
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert not errors, repr(errors[0])
    for kind in kinds:  # every registration is seen, whatever the lookups cached meanwhile
        assert rrule(config, f, kind())[0] == kind.__name__
        assert frule((NoTangent(), 1.0), f, kind())[0] == kind.__name__
        assert rrule(Layer(), kind())[0] == kind.__name__
