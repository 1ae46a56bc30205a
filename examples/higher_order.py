"""Higher-order functions: rules that differentiate the user's function by calling back into the engine.

``functools.reduce`` and ``np.apply_along_axis`` have config-aware rules
(chainrules/rules/numpy/higher_order.py). The engines pass their ``RuleConfig``,
and the rules call ``rrule_via_ad`` / ``frule_via_ad`` on the user's
function, which has no rule of its own: the engine runs it once more, on its
own tape. Both engines agree, and agree with finite differences.

Run: python examples/higher_order.py
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

import chainrules  # noqa: F401 - registers the rules
import chainrules.engines as ad

reduce = ad.lift(functools.reduce)  # a builtin: lifted so that the engines see the call


def damped_step(acc: Any, x: Any) -> Any:
    """One step of a damped recurrence; no rule of its own."""
    return 0.5 * acc + np.sin(x)


def recurrence(xs: np.ndarray) -> Any:
    return reduce(damped_step, xs, 0.0)


def softmax_entropy(row: np.ndarray) -> Any:
    """The entropy of softmax(row); no rule of its own."""
    p = np.exp(row - np.max(row))
    p = p / np.sum(p)
    return -np.sum(p * np.log(p))


def row_entropies(a: np.ndarray) -> Any:
    return np.sum(np.apply_along_axis(softmax_entropy, 1, a))


def central_difference(f: Any, x: np.ndarray, direction: np.ndarray, h: float = 1e-6) -> float:
    return float((f(x + h * direction) - f(x - h * direction)) / (2 * h))


def main() -> None:
    rng = np.random.default_rng(0)
    for name, f, x in [
        ("functools.reduce(damped_step, xs, 0.0)", recurrence, rng.standard_normal(6)),
        ("sum(np.apply_along_axis(softmax_entropy, 1, a))", row_entropies, rng.standard_normal((4, 5))),
    ]:
        direction = rng.standard_normal(x.shape)
        (x_bar,) = ad.gradient(f, x)
        _, y_dot = ad.jvp(f, (x,), (direction,))
        print(name)
        print(f"  reverse engine  <x_bar, d> = {float(np.sum(x_bar * direction)):+.12f}")
        print(f"  forward engine  J d        = {float(y_dot):+.12f}")
        print(f"  finite differences         = {central_difference(f, x, direction):+.12f}")


if __name__ == "__main__":
    main()
