"""Timing helpers shared by the benchmarks: best-of-N wall time and ratio tables.

Every benchmark reports ratios against a baseline measured in the same
process, so the numbers mean the same on a fast or a slow machine.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any


def best_time(fn: Callable[[], Any], *, min_time: float = 0.2, repeat: int = 5) -> float:
    """The best per-call time of ``fn`` over ``repeat`` rounds of at least ``min_time`` seconds."""
    fn()  # warm up caches and lazy imports
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter() - start
        if elapsed >= min_time / repeat or number >= 1 << 24:
            break
        number *= 2
    best = elapsed / number
    for _ in range(repeat - 1):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def format_time(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
