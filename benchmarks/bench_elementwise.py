"""Elementwise pullbacks against the hand-written numpy gradient of the same function, and the math fast path.

Run: python benchmarks/bench_elementwise.py

The first table times ``pullback(g)`` (the rule's cotangents, thunks forced)
against numpy code written by hand for that one gradient, at 1e3 and 1e6
elements; the ratio is rule / hand-written. The second times a whole
``rrule`` call plus its pullback on Python floats: the ``math`` rules' fast
path against ``scalar_rule`` evaluating the same table with numpy, and
against the bare arithmetic ``math.cos(x) * g``.
"""

from __future__ import annotations

import functools
import math
import operator

import numpy as np

import chainrules  # noqa: F401 - registers the rules
from chainrules.rules.numpy.elementwise import UNARY
from chainrules_core import rrule, scalar_rule, unthunk

from timing import best_time, format_time, table


def _forced(pullback, g):
    return [unthunk(c) for c in pullback(g)]


def _paired(a, b, rounds: int = 3) -> tuple[float, float]:
    """Best times of ``a`` and ``b`` measured in alternation, so that a busy machine slows both alike."""
    times_a, times_b = [], []
    for _ in range(rounds):
        times_a.append(best_time(a, min_time=0.1))
        times_b.append(best_time(b, min_time=0.1))
    return min(times_a), min(times_b)


def _cases(n: int, rng: np.random.Generator) -> list[tuple[str, object, tuple, object]]:
    """(label, f, args, hand-written gradient of g) for arrays of n elements."""
    x = rng.uniform(0.5, 2.0, n)
    p = rng.uniform(-1.0, 2.0, n)
    y = rng.normal(size=n)
    rows = math.isqrt(n) if n >= 10_000 else n // 10
    a, b = rng.normal(size=(rows, n // rows)), rng.normal(size=n // rows)
    out_power = x**p

    def sin_grad(g):
        return np.cos(x) * g

    def multiply_grad(g):
        return g * b, np.sum(g * a, axis=0)

    def power_grad(g):
        return g * p * x ** (p - 1), g * out_power * np.log(x)

    def maximum_grad(g):
        w = (x > y) + 0.5 * (x == y)
        return g * w, g * (1 - w)

    return [
        ("sin(x)", np.sin, (x,), sin_grad),
        (f"multiply({rows}×{n // rows}, {n // rows})", np.multiply, (a, b), multiply_grad),
        ("power(x, p), both arrays", np.power, (x, p), power_grad),
        ("maximum(x, y)", np.maximum, (x, y), maximum_grad),
    ]


def pullback_table() -> str:
    rng = np.random.default_rng(0)
    rows = []
    for n in (1_000, 1_000_000):
        for label, f, args, grad in _cases(n, rng):
            out, pullback = rrule(f, *args)
            g = np.ones(np.shape(out))
            rule, hand = _paired(lambda pullback=pullback, g=g: _forced(pullback, g), lambda grad=grad, g=g: grad(g))
            rows.append((label, f"{n:.0e}", format_time(rule), format_time(hand), f"{rule / hand:.2f}"))
    return table(["pullback", "elements", "rule", "hand-written numpy", "ratio"], rows)


def _numpy_sin(x: float) -> float:
    return math.sin(x)


scalar_rule(_numpy_sin, functools.partial(UNARY[np.sin], np))


def python_float_table() -> str:
    x, g = 0.7, 1.0
    rows = []
    for label, call in (
        ("rrule(math.sin, x), pullback(g): the Python path", lambda: rrule(math.sin, x)[1](g)),
        ("the same table through scalar_rule (numpy)", lambda: rrule(_numpy_sin, x)[1](g)),
        ("rrule(np.sin, x), pullback(g)", lambda: rrule(np.sin, x)[1](g)),
        ("rrule(operator.mul, x, 1.5), pullback(g)", lambda: rrule(operator.mul, x, 1.5)[1](g)),
    ):
        t, bare = _paired(call, lambda: (math.sin(x), math.cos(x) * g))
        rows.append((label, format_time(t), format_time(bare), f"{t / bare:.1f}"))
    return table(["Python floats", "time", "math.sin(x), math.cos(x) * g by hand", "ratio"], rows)


def main() -> None:
    print(pullback_table())
    print()
    print(python_float_table())


if __name__ == "__main__":
    main()
