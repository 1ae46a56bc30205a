"""Dispatch cost: ``rrule(f, x)`` through the registry against calling the registered rule directly.

An engine passes its ``RuleConfig`` with every call (``rrule(config, f, x)``);
for a primal without config-aware rules that costs about what a call without
one does.

Run: python benchmarks/bench_dispatch.py
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

from chainrules_core import HasForwardMode, HasReverseMode, NoTangent, RuleConfig, frule, rrule

from timing import best_time, format_time, table


def direct_rule(f: object, x: float) -> tuple[float, object]:
    return x, None


def plain(x: float) -> float:
    return x


def typed(x: float) -> float:
    return x


class Scale:
    def __init__(self, a: float) -> None:
        self.a = a

    def __call__(self, x: float) -> float:
        return self.a * x


class Engine(RuleConfig, HasReverseMode, HasForwardMode):
    """An engine's configuration, as it passes one with every call."""


rrule.register(plain)(direct_rule)
rrule.register(typed, numbers.Real)(direct_rule)
rrule.register(typed, np.ndarray)(direct_rule)
rrule.register(Scale)(direct_rule)


@frule.register(plain)
def direct_frule(tangents: tuple[object, ...], f: object, x: float) -> tuple[float, object]:
    return x, NoTangent()


def main() -> None:
    x = 0.5
    config = Engine()
    base = best_time(lambda: direct_rule(plain, x))
    rows = []
    for label, call in [
        ("rrule(f, x), one rule for f", lambda: rrule(plain, x)),
        ("rrule(f, x), rules typed on the argument", lambda: rrule(typed, x)),
        ("rrule(obj, x), a callable object's class", lambda: rrule(Scale(2.0), x)),
        ("rrule(partial(f), x)", lambda: rrule(functools.partial(plain), x)),
        ("rrule(config, f, x), one rule for f", lambda: rrule(config, plain, x)),
        ("rrule(config, f, x), rules typed on the argument", lambda: rrule(config, typed, x)),
    ]:
        t = best_time(call)
        rows.append((label, format_time(t), format_time(t - base), f"{t / base:.2f}"))
    import chainrules  # noqa: F401 - registers the shipped rules

    sin_rule = rrule.find(np.sin, x)
    sin_base = best_time(lambda: sin_rule(np.sin, x))
    t = best_time(lambda: rrule(np.sin, x))
    rows.append(
        ("rrule(np.sin, 0.5), the shipped rule", format_time(t), format_time(t - sin_base), f"{t / sin_base:.2f}")
    )
    fbase = best_time(lambda: direct_frule((None, 1.0), plain, x))
    t = best_time(lambda: frule((None, 1.0), plain, x))
    rows.append(("frule((df, dx), f, x), one rule for f", format_time(t), format_time(t - fbase), f"{t / fbase:.2f}"))
    t = best_time(lambda: frule(config, (None, 1.0), plain, x))
    rows.append(
        ("frule(config, (df, dx), f, x), one rule for f", format_time(t), format_time(t - fbase), f"{t / fbase:.2f}")
    )
    print(f"calling the rule directly: {format_time(base)}")
    print(table(["call", "time", "extra over direct call", "ratio"], rows))


if __name__ == "__main__":
    main()
