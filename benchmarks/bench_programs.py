"""The engine rows of the performance table: whole programs against their hand-written derivatives.

The programs and their baselines are those of the performance review's
``perf_bench.py`` (section 3), copied here unchanged:

1. the gradient, in every theta and w, of an 8-layer tanh network (softplus
   output, mean squared error, batch 64) at widths 16, 128 and 512, against
   the hand-written numpy backprop ``backprop``;
2. the same loss in forward mode (``jvp`` along random tangents of every theta
   and w) at width 16, against forward mode written by hand;
3. the gradient and the forward-mode derivative of a Horner polynomial of
   degree 500 (1000 float operations) against Python floats by hand;
4. the peak memory (tracemalloc) of one network gradient at width 512 against
   the hand-written backprop's, in the same process after two warm-up calls.

Every engine's result is checked against its baseline before it is timed. The
figures are ratios measured in one process, the engine alternating with its
baseline in rounds on the process's CPU clock; a cell reads ``median
(quartiles)`` of the per-round ratios.

``--bounds`` measures instead what bounds the network rows: the same rules called
by hand in order (no engine), a minimal tape over them (no checks: the least
a tracing engine does), and ``backprop`` with ``w @ x`` kept alive (as a box
keeps it, so numpy cannot add ``theta`` into the product's buffer).

Run: python benchmarks/bench_programs.py [--quick] [--rounds N] [--bounds]
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one thread, as perf_bench measures: before numpy is imported

import gc  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import tracemalloc  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

import chainrules.engines as ad  # noqa: E402
from chainrules_core import rrule, unthunk  # noqa: E402

from timing import Paired, format_time, table  # noqa: E402

QUICK = "--quick" in sys.argv
ROUNDS = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else (7 if QUICK else 21)

LAYERS, BATCH = 8, 64
HORNER_N = 500


# ----- the network (perf_bench.make_mlp, np_loss, backprop) -----


def make_mlp(width: int, seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((width, BATCH))
    return {
        "thetas": [0.1 * rng.standard_normal((width, 1)) for _ in range(LAYERS)],
        "ws": [rng.standard_normal((width, width)) / math.sqrt(width) for _ in range(LAYERS)],
        "x": x,
        "target": 0.5 + 0.25 * np.sin(x),
    }


def np_loss(thetas: list[Any], ws: list[Any], x: Any, target: Any) -> Any:
    for theta, w in zip(thetas[:-1], ws[:-1]):
        x = np.tanh(w @ x + theta)
    out = np.logaddexp(0.0, ws[-1] @ x + thetas[-1])
    return np.mean((out - target) ** 2)


def backprop(thetas: list[Any], ws: list[Any], x: Any, target: Any) -> Any:
    """The gradient in thetas and ws by hand."""
    xs, zs = [x], []
    for theta, w in zip(thetas, ws):
        zs.append(w @ xs[-1] + theta)
        xs.append(np.tanh(zs[-1]))
    out = np.logaddexp(0.0, zs[-1])
    residual = out - target
    value = np.mean(residual**2)
    x_bar = 2.0 * residual / residual.size
    z_bar = x_bar / (1.0 + np.exp(-zs[-1]))
    theta_bars, w_bars = [], []
    for i in reversed(range(len(ws))):
        if i < len(ws) - 1:
            z_bar = x_bar * (1.0 - xs[i + 1] ** 2)
        theta_bars.append(np.sum(z_bar, axis=1, keepdims=True))
        w_bars.append(z_bar @ xs[i].T)
        if i:
            x_bar = ws[i].T @ z_bar
    return value, theta_bars[::-1], w_bars[::-1]


def mlp_gradient(problem: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    thetas, ws, x, target = problem["thetas"], problem["ws"], problem["x"], problem["target"]
    return {
        "numpy backprop by hand": lambda: backprop(thetas, ws, x, target),
        "chainrules.engines.gradient": lambda: ad.gradient(lambda th, w: np_loss(th, w, x, target), thetas, ws),
    }


def mlp_jvp(problem: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    thetas, ws, x, target = problem["thetas"], problem["ws"], problem["x"], problem["target"]
    rng = np.random.default_rng(7)
    d_th = [rng.standard_normal(t.shape) for t in thetas]
    d_w = [rng.standard_normal(w.shape) for w in ws]

    def by_hand() -> Any:
        h, dh = x, None
        n = len(ws)
        for i in range(n):
            z = ws[i] @ h + thetas[i]
            dz = d_w[i] @ h + d_th[i] if dh is None else d_w[i] @ h + ws[i] @ dh + d_th[i]
            if i < n - 1:
                h = np.tanh(z)
                dh = (1.0 - h * h) * dz
        out = np.logaddexp(0.0, z)
        dout = dz / (1.0 + np.exp(-z))
        r = out - target
        return np.mean(r * r), 2.0 * np.mean(r * dout)

    return {
        "numpy forward mode by hand": by_hand,
        "chainrules.engines.jvp": lambda: ad.jvp(lambda th, w: np_loss(th, w, x, target), (thetas, ws), (d_th, d_w)),
    }


# ----- Horner (perf_bench.horner, horner_by_hand, horner_forward_by_hand) -----


def coeffs() -> list[float]:
    return [float(v) for v in np.random.default_rng(3).uniform(-1, 1, HORNER_N) / 50]


def horner(x: Any, c: list[float]) -> Any:
    p = 0.0
    for ci in c:
        p = p * x + ci
    return p


def horner_by_hand(x: float, c: list[float]) -> tuple[float, float]:
    ps = []
    p = 0.0
    for ci in c:
        ps.append(p)
        p = p * x + ci
    p_bar, x_bar = 1.0, 0.0
    for q in reversed(ps):
        x_bar += p_bar * q
        p_bar *= x
    return p, x_bar


def horner_forward_by_hand(x: float, c: list[float]) -> tuple[float, float]:
    p, dp = 0.0, 0.0
    for ci in c:
        p, dp = p * x + ci, dp * x + p
    return p, dp


# ----- checks -----


def _close(got: Any, want: Any, name: str) -> None:
    got_flat = np.concatenate([np.ravel(np.asarray(g, dtype=np.float64)) for g in got])
    want_flat = np.concatenate([np.ravel(np.asarray(w, dtype=np.float64)) for w in want])
    error = float(np.max(np.abs(got_flat - want_flat)) / np.max(np.abs(want_flat)))
    if error > 1e-9:
        raise AssertionError(f"{name}: the engine's result differs from the hand-written one by {error:.1e}")


def _check_gradient(steps: dict[str, Callable[[], Any]], name: str) -> None:
    _, th, w = steps["numpy backprop by hand"]()
    th_e, w_e = steps["chainrules.engines.gradient"]()
    _close([*th_e, *w_e], [*th, *w], name)


# ----- tables -----


def _ratio_row(label: str, steps: dict[str, Callable[[], Any]], base: str, engine: str, goal: str) -> list[str]:
    p = Paired(steps, base, rounds=ROUNDS)
    return [label, p.spread(engine, base), goal, format_time(p.median(base))]


def timing_table() -> str:
    rows = []
    for width, goal in ((16, "≤ 1.7"), (128, "≤ 1.0"), (512, "≤ 0.95")):
        steps = mlp_gradient(make_mlp(width))
        _check_gradient(steps, f"MLP gradient, width {width}")
        rows.append(
            _ratio_row(
                f"8-layer MLP gradient, width {width}",
                steps,
                "numpy backprop by hand",
                "chainrules.engines.gradient",
                goal,
            )
        )
    steps = mlp_jvp(make_mlp(16))
    _close(list(steps["chainrules.engines.jvp"]()), list(steps["numpy forward mode by hand"]()), "MLP jvp")
    rows.append(
        _ratio_row(
            "same, forward mode (jvp), width 16", steps, "numpy forward mode by hand", "chainrules.engines.jvp", "≤ 2.0"
        )
    )
    c, x0 = coeffs(), 0.9
    steps = {
        "by hand": lambda: horner_by_hand(x0, c),
        "engine": lambda: ad.gradient(lambda x: horner(x, c), x0),
    }
    _close([steps["engine"]()[0]], [steps["by hand"]()[1]], "Horner gradient")
    rows.append(_ratio_row(f"Horner, degree {HORNER_N}, scalar gradient", steps, "by hand", "engine", "≤ 45"))
    steps = {
        "by hand": lambda: horner_forward_by_hand(x0, c),
        "engine": lambda: ad.jvp(lambda x: horner(x, c), (x0,), (1.0,)),
    }
    _close(list(steps["engine"]()), list(steps["by hand"]()), "Horner jvp")
    rows.append(_ratio_row(f"Horner, degree {HORNER_N}, forward mode", steps, "by hand", "engine", "≤ 60"))
    return table(["program", "ratio to by hand: median (quartiles)", "goal", "by hand, time"], rows)


def _traced_peak(fn: Callable[[], Any]) -> int:
    """perf_bench's measure: the tracemalloc peak of one call above the level just before it (result kept)."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    result = fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    del result
    return peak


def memory_table(width: int = 512, repeats: int = 3) -> str:
    steps = mlp_gradient(make_mlp(width))
    for fn in steps.values():
        fn()
        fn()  # warm: lazy imports and caches
    peaks: dict[str, list[int]] = {name: [] for name in steps}
    for r in range(repeats):
        names = list(steps)[r % 2 :] + list(steps)[: r % 2]
        for name in names:
            peaks[name].append(_traced_peak(steps[name]))
    base = min(peaks["numpy backprop by hand"])
    rows = [
        [name, f"{min(v) / base:.3f}", f"{min(v) / 2**20:.2f} MiB", "≤ 1.0" if name != "numpy backprop by hand" else ""]
        for name, v in peaks.items()
    ]
    return table([f"MLP gradient, width {width}: tracemalloc peak", "ratio to by hand", "peak", "goal"], rows)


# ----- what bounds the network rows (--bounds) -----


def rules_by_hand(thetas: list[Any], ws: list[Any], x: Any, target: Any) -> Any:
    """The network's gradient from the same ``rrule`` calls and pullbacks an engine makes, in order, called by hand:
    no engine, no tape, no boxes. What the rules cost before any engine does anything."""
    pullbacks = []
    h = x
    for i, (theta, w) in enumerate(zip(thetas, ws)):
        z, pb_matmul = rrule(np.matmul, w, h)
        z, pb_add = rrule(np.add, z, theta)
        pullbacks.append((pb_matmul, pb_add))
        if i < len(ws) - 1:
            h, pb_tanh = rrule(np.tanh, z)
            pullbacks.append(pb_tanh)
    out, pb_softplus = rrule(np.logaddexp, 0.0, z)
    residual, pb_subtract = rrule(np.subtract, out, target)
    square, pb_power = rrule(np.power, residual, 2)
    value, pb_mean = rrule(np.mean, square)
    bar = unthunk(pb_mean(1.0)[1])
    bar = unthunk(pb_power(bar)[1])
    bar = unthunk(pb_subtract(bar)[1])
    bar = unthunk(pb_softplus(bar)[2])
    theta_bars, w_bars = [], []
    for i in reversed(range(len(ws))):
        if i < len(ws) - 1:
            bar = unthunk(pullbacks.pop()(bar)[1])
        pb_matmul, pb_add = pullbacks.pop()
        _, bar, theta_bar = pb_add(bar)
        _, w_bar, bar = pb_matmul(unthunk(bar))
        theta_bars.append(unthunk(theta_bar))
        w_bars.append(unthunk(w_bar))
    return value, theta_bars[::-1], w_bars[::-1]


class _Box:
    """A value on ``_MinimalTape``: numpy's protocols send every operation on it to ``_record``."""

    __slots__ = ("slot", "tape", "value")
    __array_priority__ = 100

    def __init__(self, value: Any, tape: _MinimalTape, slot: int) -> None:
        self.value, self.tape, self.slot = value, tape, slot

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return self.tape.record(ufunc, inputs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        return self.tape.record(func, args)

    def __matmul__(self, other: Any) -> Any:
        return self.tape.record(np.matmul, (self, other))

    def __add__(self, other: Any) -> Any:
        return self.tape.record(np.add, (self, other))

    def __sub__(self, other: Any) -> Any:
        return self.tape.record(np.subtract, (self, other))

    def __pow__(self, other: Any) -> Any:
        return self.tape.record(np.power, (self, other))


class _MinimalTape:
    """The least a tracing engine over numpy's protocols and these rules does: per operation, unbox the operands,
    call the rule cached for the argument types (``rrule.resolve``), append a node, box the output; backward, call
    the pullbacks in reverse and add cotangents. No checks, no structured values, no error messages: a bound, not
    an engine (the network's gradient agrees with ``backprop`` before it is timed)."""

    def __init__(self) -> None:
        self.nodes: list[tuple[Any, tuple[Any, ...], int]] = []
        self.size = 0
        self.rules: dict[Any, Any] = {}

    def box(self, value: Any) -> _Box:
        self.size += 1
        return _Box(value, self, self.size - 1)

    def record(self, f: Any, args: tuple[Any, ...]) -> _Box:
        values = tuple(a.value if type(a) is _Box else a for a in args)
        key = (f, *map(type, values))
        rule = self.rules.get(key)
        if rule is None:
            rule = self.rules[key] = rrule.resolve(f, key[1:])
        y, pullback = rule(f, *values)
        self.nodes.append((pullback, tuple(a.slot if type(a) is _Box else None for a in args), self.size))
        return self.box(y)

    def gradient(self, y: _Box) -> list[Any]:
        bars: list[Any] = [None] * self.size
        bars[y.slot] = 1.0
        for pullback, inputs, out in reversed(self.nodes):
            if bars[out] is not None:
                for slot, c in zip(inputs, pullback(unthunk(bars[out]))[1:]):
                    if slot is not None:
                        bars[slot] = c if bars[slot] is None else unthunk(bars[slot]) + unthunk(c)
        return [unthunk(b) for b in bars]


def minimal_tape_gradient(thetas: list[Any], ws: list[Any], x: Any, target: Any) -> Any:
    tape = _MinimalTape()
    boxed_thetas, boxed_ws = [tape.box(t) for t in thetas], [tape.box(w) for w in ws]
    y = np_loss(boxed_thetas, boxed_ws, x, target)
    bars = tape.gradient(y)
    return y.value, bars[: len(thetas)], bars[len(thetas) : len(thetas) + len(ws)]


class _KeptProduct:
    """A weight matrix whose product ``w @ x`` stays alive until the next one, as an engine's box keeps it until
    the program is done with it: numpy then makes a new array for ``+ theta``, where in ``backprop`` it adds into
    the product's (temporary elision, from 256 KiB on)."""

    def __init__(self, w: Any, last: list[Any]) -> None:
        self.w, self.last, self.T = w, last, w.T

    def __matmul__(self, x: Any) -> Any:
        self.last[:] = [self.w @ x]
        return self.last[0]


def backprop_without_elision(thetas: list[Any], ws: list[Any], x: Any, target: Any) -> Any:
    """``backprop`` itself, with each ``w @ x`` kept alive until ``+ theta`` is done."""
    last: list[Any] = []
    return backprop(thetas, [_KeptProduct(w, last) for w in ws], x, target)


def bounds_table() -> str:
    """The engine's gradient beside what bounds it, each a ratio to ``backprop`` in the same rounds."""
    rows = []
    for width in (16, 128, 512):
        problem = make_mlp(width)
        args = (problem["thetas"], problem["ws"], problem["x"], problem["target"])
        steps = mlp_gradient(problem)
        steps["rules by hand"] = lambda args=args: rules_by_hand(*args)
        steps["minimal tape"] = lambda args=args: minimal_tape_gradient(*args)
        steps["backprop, w @ x kept"] = lambda args=args: backprop_without_elision(*args)
        want = backprop(*args)
        for name in ("rules by hand", "minimal tape", "backprop, w @ x kept"):
            _, th, w = steps[name]()
            _close([*th, *w], [*want[1], *want[2]], f"{name}, width {width}")
        p = Paired(steps, "numpy backprop by hand", rounds=ROUNDS)
        rows.append(
            [f"width {width}"]
            + [p.spread(name) for name in ("chainrules.engines.gradient", "minimal tape", "rules by hand")]
            + [p.spread("backprop, w @ x kept")]
        )
    headers = ["MLP gradient / backprop", "the engine", "a minimal tape, same rules", "the rules by hand, no engine"]
    return table([*headers, "backprop with w @ x kept"], rows)


def main() -> None:
    print(f"numpy {np.__version__}; {ROUNDS} rounds\n")
    if "--bounds" in sys.argv:
        print(bounds_table())
        return
    print(timing_table())
    print()
    print(memory_table())


if __name__ == "__main__":
    main()
