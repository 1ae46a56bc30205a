"""Timing helpers shared by the benchmarks: best-of-N wall time and ratio tables.

Every benchmark reports ratios against a baseline measured in the same
process, so the numbers mean the same on a fast or a slow machine.
"""

from __future__ import annotations

import math
import statistics
import time
import tracemalloc
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


def _batch_size(fn: Callable[[], Any], batch_time: float) -> int:
    """How many calls of ``fn`` take about ``batch_time`` seconds."""
    fn()
    number = 1
    while True:
        start = time.process_time()
        for _ in range(number):
            fn()
        elapsed = time.process_time() - start
        if elapsed >= batch_time / 8 or number >= 1 << 24:
            return max(1, int(number * batch_time / max(elapsed, 1e-9)))
        number *= 2


class Paired:
    """Per-round times of candidates measured in alternation with a baseline; ratios are medians of per-round ratios.

    On a shared machine a busy spell slows the candidates of one round
    alike, so the ratio within a round is steadier than either time. The
    clock is the process's CPU time (``time.process_time``), which does not
    count the time other processes hold the cores.
    """

    def __init__(
        self, candidates: dict[str, Callable[[], Any]], base: str, *, rounds: int = 9, batch_time: float = 0.02
    ) -> None:
        names = list(candidates)
        sizes = {name: _batch_size(fn, batch_time) for name, fn in candidates.items()}
        self.base = base
        self.times: dict[str, list[float]] = {name: [] for name in names}
        for r in range(rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                fn, k = candidates[name], sizes[name]
                start = time.process_time()
                for _ in range(k):
                    fn()
                self.times[name].append((time.process_time() - start) / k)

    def median(self, name: str) -> float:
        return statistics.median(self.times[name])

    def ratios(self, name: str, base: str | None = None) -> list[float]:
        return sorted(a / b for a, b in zip(self.times[name], self.times[base or self.base]))

    def ratio(self, name: str, base: str | None = None) -> float:
        return statistics.median(self.ratios(name, base))

    def spread(self, name: str, base: str | None = None) -> str:
        """The median ratio and the range of the middle rounds (quartiles), as text."""
        values = self.ratios(name, base)
        low, high = (values[0], values[-1]) if len(values) < 4 else statistics.quantiles(values, n=4)[::2]
        return f"{statistics.median(values):.2f} ({low:.2f}–{high:.2f})"


def geometric_mean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def peak_bytes(fn: Callable[[], Any]) -> int:
    """Bytes allocated at the peak of ``fn()``, beyond what was allocated before it (result kept)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    result = fn()
    peak = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    del result
    return peak


def mode_arguments(argv: list[str], flag: str, rounds: int = 15) -> tuple[bool, int, list[int]]:
    """A benchmark's command line: whether ``flag`` is given, ``--rounds R`` (or ``rounds``), and the sizes."""
    argv = list(argv)
    given = flag in argv
    if given:
        argv.remove(flag)
    if "--rounds" in argv:
        k = argv.index("--rounds")
        rounds = int(argv[k + 1])
        del argv[k : k + 2]
    return given, rounds, [int(a) for a in argv]
