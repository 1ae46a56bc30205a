"""The engine's gradient of a dask-glm loss against dask-glm's hand-written gradient, on a dask cluster.

For the logistic, normal and Poisson losses of ``examples/distributed_glm.py``
(numpy calls on dask arrays, as a user writes them) the reference engine's
gradient, built and computed on a ``LocalCluster`` of two single-threaded
workers, is timed against dask-glm's ``pointwise_gradient`` of the same
family on the same persisted ``X`` and ``y``. Each round times both, in
alternating order, from graph building to the numbers back on the client;
the ratio is the median of the per-round ratios (wall time: the work runs in
the worker processes). The goal is a ratio of at most 1.3.

Run: python benchmarks/bench_distributed.py [--rows 1000000] [--features 5] [--rounds 9]
(needs ``pip install 'chainrules[dask]'``)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dask
from dask.distributed import Client, LocalCluster

from timing import table

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
from distributed_glm import FAMILIES, gradient_of, make_data


def _seconds(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    dask.compute(fn())
    return time.perf_counter() - start


def _rounds(ours: Callable[[Any], Any], family: Any, X: Any, y: Any, beta: Any, rounds: int) -> dict[str, list[float]]:
    """Per-round seconds of the engine's gradient and dask-glm's, in alternating order."""
    candidates = {
        "engine": lambda: ours(beta),
        "dask-glm": lambda: family.pointwise_gradient(beta, X, y),
    }
    for fn in candidates.values():  # warm the workers and the rules' caches
        _seconds(fn)
    times: dict[str, list[float]] = {key: [] for key in candidates}
    for i in range(rounds):
        for key in list(candidates) if i % 2 == 0 else list(reversed(candidates)):
            times[key].append(_seconds(candidates[key]))
    return times


def main(rows: int, features: int, chunk: int, rounds: int) -> list[list[object]]:
    results = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster):
            for name, (loss, family) in FAMILIES.items():
                X, y, beta_true = make_data(rows, features, name, chunk)
                beta = beta_true * 0.5
                times = _rounds(gradient_of(loss, X, y), family, X, y, beta, rounds)
                ratio = statistics.median(a / b for a, b in zip(times["engine"], times["dask-glm"]))
                results.append(
                    [
                        name,
                        f"{statistics.median(times['dask-glm']) * 1e3:.0f} ms",
                        f"{statistics.median(times['engine']) * 1e3:.0f} ms",
                        f"{ratio:.2f}",
                    ]
                )
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=5)
    parser.add_argument("--chunk", type=int, default=125_000)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    rows = main(args.rows, args.features, args.chunk, args.rounds)
    print(f"{args.rows:,} rows x {args.features} features, chunks of {args.chunk:,} rows, 2 workers\n")
    print(table(["loss", "dask-glm pointwise_gradient", "engine gradient", "ratio (median of rounds)"], rows))
