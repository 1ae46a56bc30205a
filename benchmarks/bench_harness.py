"""The harness's cost against the input size: ``test_rrule`` by directional differences, and by a full Jacobian.

``test_rrule`` compares the pullback with finite differences through the
identity ``<y_bar, J dx> == <x_bar, dx>``, so it evaluates the function a
fixed number of times whatever the input size; ``evaluations="few"`` makes
that number about 6, with one step instead of a step search; the full-Jacobian mode
(``jacobian=True``) needs a finite difference per input entry and a pullback
per output entry, and holds two n x n matrices, so it stops at a size where
that is still quick. Times are also given in units of one call of the
function, measured in the same process.

Run: python benchmarks/bench_harness.py
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, ProjectTo, ZeroTangent, rrule, unthunk
from chainrules_core.testing import test_rrule

from timing import best_time, format_time, table

SIZES = (10, 100, 1_000, 10_000, 100_000)
JACOBIAN_UP_TO = 1_000


def x_sin(x: Any) -> Any:
    return x * np.sin(x)


@rrule.register(x_sin)
def _rrule_x_sin(f: Any, x: Any) -> Any:
    project_x = ProjectTo(x)

    def x_sin_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), ZeroTangent()
        return NoTangent(), project_x(out_bar * (np.sin(x) + x * np.cos(x)))

    return x * np.sin(x), x_sin_pullback


def once(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    rows = []
    for n in SIZES:
        x = np.linspace(-3.0, 3.0, n)
        f_time = best_time(lambda: x_sin(x))  # noqa: B023 - timed at once, inside the loop
        report = test_rrule(x_sin, x)
        t = best_time(lambda: test_rrule(x_sin, x), min_time=0.5, repeat=3)  # noqa: B023
        few = test_rrule(x_sin, x, evaluations="few")
        t_few = best_time(lambda: test_rrule(x_sin, x, evaluations="few"), min_time=0.5, repeat=3)  # noqa: B023
        row: list[object] = [n, report.evaluations, format_time(t), f"{t / f_time:,.0f}"]
        row += [few.evaluations, format_time(t_few), f"{t_few / f_time:,.0f}"]
        if n <= JACOBIAN_UP_TO:
            full = test_rrule(x_sin, x, jacobian=True)
            tj = once(lambda: test_rrule(x_sin, x, jacobian=True))  # noqa: B023
            row += [full.evaluations, format_time(tj), f"{tj / t:,.0f}"]
        else:
            row += ["(n x n: not run)", "", ""]
        rows.append(row)
    print("test_rrule(x_sin, x) for x of n entries; f-call units: time / time of one call of x_sin(x)")
    print(
        table(
            [
                "n",
                "evaluations of f",
                "time",
                "in f-call units",
                "few: evaluations",
                "few: time",
                "few: in f-call units",
                "full Jacobian: evaluations",
                "full Jacobian: time",
                "full / directional",
            ],
            rows,
        )
    )


if __name__ == "__main__":
    main()
