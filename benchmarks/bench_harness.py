"""The harness's cost against the input size: ``test_rrule`` and ``test_frule`` by directional differences, and
``test_rrule`` by a full Jacobian.

``test_rrule`` compares the pullback with finite differences through the
identity ``<y_bar, J dx> == <x_bar, dx>``, so it evaluates the function a
fixed number of times whatever the input size; ``evaluations="few"`` makes
that number about 6, with one step instead of a step search; the full-Jacobian mode
(``jacobian=True``) needs a finite difference per input entry and a pullback
per output entry, and holds two n x n matrices, so it stops at a size where
that is still quick. ``test_frule`` compares the pushforward with one
directional difference along every argument at once. Times are also given
in units of one call of the function, measured in the same process.

Run: python benchmarks/bench_harness.py

``--jax`` compares instead, at n = 1,000 (or the sizes given), ``test_rrule``
in its default mode with JAX's ``check_grads(f, args, order=1,
modes=["rev"])``, and ``test_frule`` with ``modes=["fwd"]``, on perf_bench.py's
f(x) = sin(x) * x (hand-written rules for chainrules, JAX's own derivatives
for JAX), float64, each in alternation with JAX's in one process
(``timing.Paired``), with the evaluations of f each makes:

    python benchmarks/bench_harness.py --jax [--rounds R] [n ...]

``--before DIR`` compares instead ``test_frule`` and ``test_rrule`` with
those of another checkout at DIR (its ``chainrules_core/testing`` loaded
beside this one, sharing the registry), at n = 10 to 100,000 (or the sizes
given), in alternation in one process:

    python benchmarks/bench_harness.py --before DIR [--rounds R] [n ...]
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import sys  # noqa: E402 - after the thread settings, which numpy and JAX read when imported
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from chainrules_core import AbstractZero, NoTangent, ProjectTo, ZeroTangent, frule, rrule, unthunk  # noqa: E402
from chainrules_core.testing import test_frule, test_rrule  # noqa: E402

from timing import best_time, format_time, mode_arguments, table  # noqa: E402

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


@frule.register(x_sin)
def _frule_x_sin(tangents: Any, f: Any, x: Any) -> Any:
    s = np.sin(x)
    return x * s, (s + x * np.cos(x)) * unthunk(tangents[1])


def once(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# ----- against JAX's check_grads: perf_bench.py's f and its rule -----

_CALLS = {"n": 0}


def sin_x(x: Any) -> Any:
    _CALLS["n"] += 1
    return np.sin(x) * x


@rrule.register(sin_x)
def _rrule_sin_x(f: Any, x: Any) -> Any:
    project_x = ProjectTo(x)
    s = np.sin(x)

    def sin_x_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        return NoTangent(), project_x(out_bar * (s + x * np.cos(x)))

    return s * x, sin_x_pullback


@frule.register(sin_x)
def _frule_sin_x(tangents: Any, f: Any, x: Any) -> Any:
    s = np.sin(x)
    return s * x, (s + x * np.cos(x)) * unthunk(tangents[1])


def against_jax(sizes: list[int], rounds: int) -> None:
    import jax

    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")
    import jax.numpy as jnp
    from jax.test_util import check_grads

    from timing import Paired

    def jax_f(x: Any) -> Any:
        _CALLS["n"] += 1
        return jnp.sin(x) * x

    rows = []
    rng = np.random.default_rng(0)
    for n in sizes:
        x = rng.uniform(-2.0, 2.0, n)
        xj = jnp.asarray(x)
        for check, jax_mode in ((test_rrule, "rev"), (test_frule, "fwd")):
            ours = check.__name__
            cands: dict[str, Callable[[], Any]] = {
                ours: lambda: check(sin_x, x),  # noqa: B023
                "jax": lambda: check_grads(jax_f, (xj,), order=1, modes=[jax_mode]),  # noqa: B023
            }
            evals = {}
            for name, fn in cands.items():
                _CALLS["n"] = 0
                fn()
                evals[name] = _CALLS["n"]
            paired = Paired(cands, "jax", rounds=rounds, batch_time=0.1)
            rows.append(
                [
                    f"{ours} / modes=['{jax_mode}']",
                    n,
                    evals[ours],
                    format_time(paired.median(ours)),
                    evals["jax"],
                    format_time(paired.median("jax")),
                    paired.spread(ours),
                ]
            )
    headers = ["check", "n", "evaluations", "time", "jax check_grads: evaluations", "time", "ours / jax"]
    print(table(headers, rows))


# ----- against another checkout's harness -----


def against_before(directory: str, sizes: list[int], rounds: int) -> None:
    import importlib.util

    from timing import Paired

    package = os.path.join(directory, "chainrules_core", "testing")
    name = "chainrules_core._testing_before"
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(package, "__init__.py"), submodule_search_locations=[package]
    )
    assert spec is not None and spec.loader is not None
    before = importlib.util.module_from_spec(spec)
    sys.modules[name] = before
    spec.loader.exec_module(before)
    rows = []
    for check in ("test_frule", "test_rrule"):
        new, old = globals()[check], getattr(before, check)
        for n in sizes:
            x = np.linspace(-3.0, 3.0, n)
            cands = {"after": lambda: new(x_sin, x), "before": lambda: old(x_sin, x)}  # noqa: B023
            paired = Paired(cands, "before", rounds=rounds, batch_time=0.1)
            evaluations = [old(x_sin, x).evaluations, new(x_sin, x).evaluations]
            times = [format_time(paired.median("before")), format_time(paired.median("after"))]
            rows.append([check, n, *evaluations, *times, paired.spread("after")])
    headers = ["check", "n", "evaluations before", "after", "time before", "after", "after / before"]
    print(f"x_sin(x) for x of n entries, this checkout against {directory}")
    print(table(headers, rows))


def main() -> None:
    rows, forward_rows = [], []
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
        forward = test_frule(x_sin, x)
        t_forward = best_time(lambda: test_frule(x_sin, x), min_time=0.5, repeat=3)  # noqa: B023
        forward_rows.append([n, forward.evaluations, format_time(t_forward), f"{t_forward / f_time:,.0f}"])
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
    print("\ntest_frule(x_sin, x), the same f and sizes")
    print(table(["n", "evaluations of f", "time", "in f-call units"], forward_rows))


if __name__ == "__main__":
    argv = sys.argv[1:]
    directory = None
    if "--before" in argv:
        k = argv.index("--before")
        directory = argv[k + 1]
        del argv[k : k + 2]
    given, rounds, sizes = mode_arguments(argv, "--jax")
    if directory is not None:
        against_before(directory, sizes or list(SIZES), rounds)
    elif given:
        against_jax(sizes or [1_000], rounds)
    else:
        main()
