"""The reference engines on whole programs: their own cost per operation, a network, scalar loops.

1. The engines' own cost per operation: a chain of calls of a rule that does nothing.
2. One gradient of the 8-layer network of ``examples/network.py`` (width 16
   and 128, batch 64) against the same gradient written by hand in numpy
   (``backprop``): the reverse engine (``chainrules.engines.gradient``),
   which runs the numpy program and finds every rule in the registry; the
   same ``rrule`` calls and pullbacks made by hand, without an engine, which
   splits the time between the rules and the engine; HIPS autograd and
   PyTorch (eager, CPU, float64, one thread) when they are installed (``pip
   install autograd torch`` to include them).
3. Scalar programs in Python floats, where the cost per operation shows: the
   gradient of a Horner polynomial of degree 500 (1000 operations) and of an
   Euler-integrated pendulum (125 steps of 8 operations, one of them
   ``math.sin``) against their derivatives written by hand.

Every gradient is checked against the hand-written one before it is timed.
The figures of 2 and 3 are ratios measured in one process, the candidates
alternating with the baseline in rounds, on the process's CPU clock; a cell
reads ``median (quartiles)`` of the per-round ratios.

Run: python benchmarks/bench_engines.py [--quick]
"""

from __future__ import annotations

import importlib.util
import math
import operator
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import chainrules.engines as ad
from chainrules_core import NoTangent, frule, rrule, unthunk

from bench_rules import HORNER_DEGREE, horner_by_hand
from timing import Paired, best_time, format_time, table

_EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "network.py"
_spec = importlib.util.spec_from_file_location("network_example", _EXAMPLE)
assert _spec is not None and _spec.loader is not None
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)

QUICK = "--quick" in sys.argv
ROUNDS = 5 if QUICK else 11
SIZES = [(8, 16, 64), (8, 128, 64)]  # (layers, width, batch)


def _flat(arrays: list[Any]) -> np.ndarray:
    return np.concatenate([np.asarray(a, dtype=np.float64).ravel() for a in arrays])


def _check(name: str, got: list[Any], want: list[Any]) -> None:
    got_flat, want_flat = _flat(got), _flat(want)
    error = float(np.max(np.abs(got_flat - want_flat)) / np.max(np.abs(want_flat)))
    if error > 1e-8:
        raise AssertionError(f"{name}: the gradient differs from the hand-written one by {error:.1e}")


def chainrules_step(problem: dict[str, Any]) -> tuple[Callable[[], Any], Callable[[], list[Any]]]:
    """The gradient in every theta and w, as the peers compute it (x and target are constants)."""
    thetas, ws, x, target = problem["thetas"], problem["ws"], problem["x"], problem["target"]

    def step() -> Any:
        return ad.gradient(lambda th, w: example.loss(th, w, x, target), thetas, ws)

    def grads() -> list[Any]:
        thetas_bar, ws_bar = step()
        return [*thetas_bar, *ws_bar]

    return step, grads


def rules_step(problem: dict[str, Any]) -> tuple[Callable[[], Any], Callable[[], list[Any]]]:
    """The engine's program with the engine removed: the same rrule calls, then the pullbacks in reverse order."""
    thetas, ws, x, target = problem["thetas"], problem["ws"], problem["x"], problem["target"]

    def step() -> Any:
        pullbacks = []
        h = x
        for i, (theta, w) in enumerate(zip(thetas, ws)):
            z, matmul_pullback = rrule(np.matmul, w, h)
            z, add_pullback = rrule(np.add, z, theta)
            last = i == len(ws) - 1
            h, activation_pullback = rrule(np.logaddexp, 0.0, z) if last else rrule(np.tanh, z)
            pullbacks.append((matmul_pullback, add_pullback, activation_pullback))
        d, subtract_pullback = rrule(np.subtract, h, target)
        sq, power_pullback = rrule(np.power, d, 2)
        value, mean_pullback = rrule(np.mean, sq)
        g = unthunk(mean_pullback(np.ones(()))[1])
        g = unthunk(subtract_pullback(unthunk(power_pullback(g)[1]))[1])
        theta_bars, w_bars = [], []
        for i in reversed(range(len(ws))):
            matmul_pullback, add_pullback, activation_pullback = pullbacks[i]
            g = unthunk(activation_pullback(g)[-1])
            _, z_bar, theta_bar = add_pullback(g)
            _, w_bar, g = matmul_pullback(z_bar)
            theta_bars.append(unthunk(theta_bar))
            w_bars.append(unthunk(w_bar))
            if i:
                g = unthunk(g)
        return value, theta_bars[::-1], w_bars[::-1]

    def grads() -> list[Any]:
        _, thetas_bar, ws_bar = step()
        return [*thetas_bar, *ws_bar]

    return step, grads


def autograd_step(problem: dict[str, Any]) -> tuple[Callable[[], Any], Callable[[], list[Any]]] | None:
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError:
        return None

    def loss(thetas: list[Any], ws: list[Any], x: Any, target: Any) -> Any:
        for theta, w in zip(thetas[:-1], ws[:-1]):
            x = anp.tanh(anp.dot(w, x) + theta)
        out = anp.logaddexp(0.0, anp.dot(ws[-1], x) + thetas[-1])
        return anp.mean((out - target) ** 2)

    grad = autograd.grad(loss, argnum=(0, 1))
    args = (problem["thetas"], problem["ws"], problem["x"], problem["target"])

    def step() -> Any:
        return grad(*args)

    def grads() -> list[Any]:
        thetas, ws = step()
        return [*thetas, *ws]

    return step, grads


def torch_step(problem: dict[str, Any]) -> tuple[Callable[[], Any], Callable[[], list[Any]]] | None:
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    thetas = [torch.tensor(t, requires_grad=True) for t in problem["thetas"]]
    ws = [torch.tensor(w, requires_grad=True) for w in problem["ws"]]
    x, target = torch.tensor(problem["x"]), torch.tensor(problem["target"])
    params = [*thetas, *ws]

    def step() -> Any:
        h = x
        for theta, w in zip(thetas[:-1], ws[:-1]):
            h = torch.tanh(w @ h + theta)
        out = torch.logaddexp(torch.zeros((), dtype=h.dtype), ws[-1] @ h + thetas[-1])
        value = torch.mean((out - target) ** 2)
        return torch.autograd.grad(value, params)

    def grads() -> list[Any]:
        return [g.numpy() for g in step()]

    return step, grads


# ----- the engines' own cost per operation -----


def _step(x: Any) -> Any:
    return x


@rrule.register(_step)
def _rrule_step(f: Any, x: Any) -> Any:
    return x, _step_pullback


def _step_pullback(out_bar: Any) -> tuple[Any, Any]:
    return NoTangent(), out_bar


@frule.register(_step)
def _frule_step(tangents: tuple[Any, Any], f: Any, x: Any) -> Any:
    return x, tangents[1]


def overhead_table(n: int = 200) -> str:
    """A chain of ``n`` calls of a rule that does nothing: what the engines add to each operation."""
    step = ad.lift(_step)
    x = np.ones(4)

    def by_hand() -> Any:  # the least an engine must do: call each rule, then each pullback in reverse
        pullbacks = []
        y = x
        for _ in range(n):
            y, pullback = rrule(_step, y)
            pullbacks.append(pullback)
        y_bar = np.ones(4)
        for pullback in reversed(pullbacks):
            y_bar = pullback(y_bar)[1]
        return y_bar

    def chain(y: Any) -> Any:
        for _ in range(n):
            y = step(y)
        return y

    def forward_by_hand() -> Any:
        y, y_dot = x, np.ones(4)
        for _ in range(n):
            y, y_dot = frule((NoTangent(), y_dot), _step, y)
        return y_dot

    rows = []
    for name, baseline, engine in [
        ("reverse: forward(f, x) and back(y_bar)", by_hand, lambda: ad.forward(chain, x)[1](np.ones(4))),
        ("forward: jvp(f, (x,), (x_dot,))", forward_by_hand, lambda: ad.jvp(chain, (x,), (np.ones(4),))),
    ]:
        base, t = best_time(baseline), best_time(engine)
        rows.append((name, format_time(base / n), format_time(t / n), format_time((t - base) / n), f"{t / base:.2f}"))
    return table(["engine", "rules alone, per op", "engine, per op", "engine's own cost per op", "ratio"], rows)


def network_table() -> str:
    """One gradient of the network per engine, as ratios to the hand-written backprop."""
    names = [
        ("chainrules.engines.gradient", chainrules_step),
        ("chainrules rules called without an engine", rules_step),
        ("HIPS autograd", autograd_step),
        ("PyTorch eager (CPU, 1 thread)", torch_step),
    ]
    columns: list[dict[str, str]] = []
    baselines = []
    for layers, width, batch in SIZES:
        problem = example.make_problem(width=width, layers=layers, batch=batch)
        args = (problem["thetas"], problem["ws"], problem["x"], problem["target"])

        def baseline_step(args: tuple[Any, ...] = args) -> Any:
            return example.backprop(*args)

        _, theta_ref, w_ref, _ = baseline_step()
        reference = [*theta_ref, *w_ref]
        candidates: dict[str, Callable[[], Any]] = {"hand-written numpy backprop": baseline_step}
        for name, make in names:
            made = make(problem)
            if made is not None:
                step, grads = made
                _check(name, grads(), reference)
                candidates[name] = step
        p = Paired(candidates, "hand-written numpy backprop", rounds=ROUNDS)
        columns.append({name: p.spread(name) for name in candidates})
        baselines.append(format_time(p.median("hand-written numpy backprop")))
    rows = [
        (name, *(column.get(name, "not installed") for column in columns))
        for name in ["hand-written numpy backprop", *(n for n, _ in names)]
    ]
    rows.append(("hand-written numpy backprop, time per gradient", *baselines))
    headers = [f"{layers} layers, width {width}, batch {batch}" for layers, width, batch in SIZES]
    return table(["ratio to the hand-written backprop", *headers], rows)


# ----- scalar programs in Python floats -----

PENDULUM_STEPS = 125  # 8 operations a step, one of them sin


def horner(x: Any, c: list[float]) -> Any:
    p = 0.0
    for ci in c:
        p = p * x + ci
    return p


def pendulum(theta: Any, omega: Any, k: Any, sin: Callable[[Any], Any], dt: float = 0.01) -> Any:
    for _ in range(PENDULUM_STEPS):
        theta, omega = theta + dt * omega, omega - dt * (k * sin(theta) + 0.1 * omega)
    return theta


def pendulum_by_hand(theta: float, omega: float, k: float, dt: float = 0.01) -> tuple[float, tuple[float, ...]]:
    thetas = []
    for _ in range(PENDULUM_STEPS):
        thetas.append(theta)
        theta, omega = theta + dt * omega, omega - dt * (k * math.sin(theta) + 0.1 * omega)
    theta_bar, omega_bar, k_bar = 1.0, 0.0, 0.0
    for t in reversed(thetas):
        k_bar -= dt * math.sin(t) * omega_bar
        theta_bar, omega_bar = theta_bar - dt * k * math.cos(t) * omega_bar, dt * theta_bar + (1 - 0.1 * dt) * omega_bar
    return theta, (theta_bar, omega_bar, k_bar)


def scalar_table() -> str:
    """The gradients of the scalar programs against their derivatives written by hand."""
    c = [float(v) for v in np.random.default_rng(3).uniform(-1, 1, HORNER_DEGREE) / 50]
    sin = ad.lift(math.sin)
    programs = [
        (
            f"Horner polynomial of degree {HORNER_DEGREE}, d/dx",
            2 * HORNER_DEGREE,
            lambda: horner_by_hand(0.9, c),
            lambda: ad.gradient(lambda x: horner(x, c), 0.9),
            lambda got: [got[0]],
            lambda want: [want[1]],
        ),
        (
            f"Euler pendulum, {PENDULUM_STEPS} steps, d/d(theta, omega, k)",
            8 * PENDULUM_STEPS,
            lambda: pendulum_by_hand(0.5, 0.1, 2.0),
            lambda: ad.gradient(lambda a, b, k: pendulum(a, b, k, sin), 0.5, 0.1, 2.0),
            lambda got: list(got),
            lambda want: list(want[1]),
        ),
    ]
    rows = []
    for label, ops, by_hand, engine, got_of, want_of in programs:
        got, want = got_of(engine()), want_of(by_hand())
        if any(abs(g - w) > 1e-12 * max(1.0, abs(w)) for g, w in zip(got, want)):
            raise AssertionError(f"{label}: the engine's gradient {got} differs from the hand-written {want}")
        p = Paired({"by hand": by_hand, "engine": engine}, "by hand", rounds=ROUNDS)
        per_op = (p.median("engine") - p.median("by hand")) / ops
        rows.append((label, p.spread("engine"), format_time(p.median("by hand")), format_time(per_op)))
    return table(["program", "chainrules.engines.gradient / by hand", "by hand", "engine's cost per operation"], rows)


def main() -> None:
    print("the engines' own cost: a chain of 200 operations whose rules do nothing\n")
    print(overhead_table())
    print()
    missing = [
        name
        for name, f, probe in [
            ("np.matmul", np.matmul, (np.ones((2, 2)), np.ones((2, 2)))),
            ("np.add", np.add, (np.ones(2), np.ones(2))),
            ("np.tanh", np.tanh, (np.ones(2),)),
            ("np.logaddexp", np.logaddexp, (0.0, np.ones(2))),
            ("np.subtract", np.subtract, (np.ones(2), np.ones(2))),
            ("np.power", np.power, (np.ones(2), 2)),
            ("np.mean", np.mean, (np.ones(2),)),
            ("operator.mul", operator.mul, (1.0, 2.0)),
            ("operator.add", operator.add, (1.0, 2.0)),
            ("math.sin", math.sin, (1.0,)),
        ]
        if rrule.find(f, *probe) is None
    ]
    if missing:
        print(f"the programs need rules that are not registered: {', '.join(missing)}")
        sys.exit(1)
    print(f"numpy {np.__version__}; the gradient of the network's loss in every theta and w\n")
    print(network_table())
    print()
    print("scalar programs in Python floats\n")
    print(scalar_table())


if __name__ == "__main__":
    main()
