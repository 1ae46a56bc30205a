"""Array rules: pullback time against the hand-written numpy gradient, and the sum pullback's memory.

For each rule the pullback (built once by ``rrule``) is timed on a seed and
compared with the numpy code a person would write for the same gradient,
measured in the same process; for ``concatenate`` also the whole
``rrule`` call with its pullback, against the primal plus that gradient,
since its cost is mostly fixed per call. Peak memory comes from ``tracemalloc``, which
numpy reports its allocations to.

Run: python benchmarks/bench_arrays.py
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

import chainrules  # noqa: F401 - registers the rules
from chainrules_core import rrule

from timing import best_time, format_time, peak_bytes, table

SIZES = (10**3, 10**6)


def _cases(n: int, rng: np.random.Generator) -> list[tuple[str, Callable[[], Any], Callable[[], Any]]]:
    """``(label, pullback call, hand-written gradient)`` for inputs of ``n`` elements."""
    rows = 10 if n <= 10**3 else 1000
    x = rng.standard_normal((rows, n // rows))
    g_cols = rng.standard_normal(n // rows)
    g_all = 1.5

    _, sum_pullback = rrule(np.sum, x, axis=0)
    _, sum_all_pullback = rrule(np.sum, x)
    _, mean_pullback = rrule(np.mean, x, axis=0)
    x_max, max_pullback = rrule(np.max, x, axis=0)

    def max_by_hand() -> Any:
        hit = x == x_max
        return hit / hit.sum(axis=0) * g_cols

    flat = x.reshape(-1)
    index = rng.integers(0, n, n)
    g_index = rng.standard_normal(n)
    _, getitem_pullback = rrule(operator.getitem, flat, index)

    def add_at() -> Any:
        x_bar = np.zeros_like(flat)
        np.add.at(x_bar, index, g_index)
        return x_bar

    halves = [x[: rows // 2], x[rows // 2 :]]
    g_join = rng.standard_normal(x.shape)
    _, concatenate_pullback = rrule(np.concatenate, halves)

    def concatenate_rule() -> Any:
        return rrule(np.concatenate, halves)[1](g_join)

    def concatenate_by_hand() -> Any:
        return np.concatenate(halves), [g_join[: rows // 2], g_join[rows // 2 :]]

    return [
        ("sum(x, axis=0)", lambda: sum_pullback(g_cols), lambda: np.broadcast_to(g_cols, x.shape)),
        ("sum(x)", lambda: sum_all_pullback(g_all), lambda: np.broadcast_to(g_all, x.shape)),
        ("mean(x, axis=0)", lambda: mean_pullback(g_cols), lambda: np.broadcast_to(g_cols / rows, x.shape)),
        ("max(x, axis=0)", lambda: max_pullback(g_cols), max_by_hand),
        ("x[index], n random indices", lambda: getitem_pullback(g_index), add_at),
        (
            "concatenate([a, b])",
            lambda: concatenate_pullback(g_join),
            lambda: [g_join[: rows // 2], g_join[rows // 2 :]],
        ),
        ("rrule and pullback of concatenate([a, b])", concatenate_rule, concatenate_by_hand),
    ]


def timings() -> str:
    rng = np.random.default_rng(0)
    rows = []
    for n in SIZES:
        for label, pullback, baseline in _cases(n, rng):
            t_rule, t_base = best_time(pullback), best_time(baseline)
            rows.append((label, f"{n:.0e}", format_time(t_rule), format_time(t_base), f"{t_rule / t_base:.2f}"))
    headers = ["pullback", "elements", "rule", "hand-written numpy", "ratio"]
    return table(headers, rows)


def memory() -> str:
    x = np.ones((1000, 1000))
    x32 = x.astype(np.float32)
    rows = []
    for label, f, args, kwargs, seed in (
        ("sum(x, axis=0)", np.sum, (x,), {"axis": 0}, np.ones(1000)),
        ("sum(x)", np.sum, (x,), {}, 1.0),
        ("sum(x, axis=1, keepdims=True)", np.sum, (x,), {"axis": 1, "keepdims": True}, np.ones((1000, 1))),
        ("sum(x32, dtype=float64)", np.sum, (x32,), {"dtype": np.float64}, 1.0),
        ("mean(x, axis=0)", np.mean, (x,), {"axis": 0}, np.ones(1000)),
    ):
        _, pullback = rrule(f, *args, **kwargs)
        peak = peak_bytes(lambda pullback=pullback, seed=seed: pullback(seed))
        rows.append((label, f"{args[0].nbytes:,}", f"{peak:,}"))
    materialised = peak_bytes(lambda: np.ones_like(x) * np.ones(1000))
    rows.append(("for contrast: np.ones_like(x) * g", f"{x.nbytes:,}", f"{materialised:,}"))
    return table(["pullback", "input bytes", "peak bytes allocated by the pullback"], rows)


def main() -> None:
    print("Pullback time against the hand-written numpy gradient (ratio = rule / numpy)\n")
    print(timings())
    print("\nPeak memory of the pullback (tracemalloc)\n")
    print(memory())


if __name__ == "__main__":
    main()
