"""The reference engines on the network of examples/network.py: one gradient per step, against peers.

The baseline is the same gradient written by hand in numpy (``backprop``).
The reverse engine (``chainrules.engines.gradient``) runs the numpy program
and finds every rule in the registry. HIPS autograd and PyTorch (eager, CPU,
float64) run the same network when they are installed; a peer that is not
installed is skipped (``pip install autograd torch`` to include them). Every
engine's gradient is checked against the baseline before it is timed.

Run: python benchmarks/bench_engines.py
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import chainrules.engines as ad
from chainrules_core import NoTangent, frule, rrule

from timing import best_time, format_time, table

_EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "network.py"
_spec = importlib.util.spec_from_file_location("network_example", _EXAMPLE)
assert _spec is not None and _spec.loader is not None
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)

SIZES = [(8, 16, 32), (8, 128, 128)]  # (layers, width, batch)


def _flat(arrays: list[Any]) -> np.ndarray:
    return np.concatenate([np.asarray(a, dtype=np.float64).ravel() for a in arrays])


def _check(name: str, got: list[Any], want: list[Any]) -> None:
    got_flat, want_flat = _flat(got), _flat(want)
    error = float(np.max(np.abs(got_flat - want_flat)) / np.max(np.abs(want_flat)))
    if error > 1e-8:
        raise AssertionError(f"{name}: the gradient differs from the hand-written one by {error:.1e}")


def chainrules_step(problem: dict[str, Any]) -> tuple[Callable[[], Any], Callable[[], list[Any]]]:
    args = (problem["thetas"], problem["ws"], problem["x"], problem["target"])

    def step() -> Any:
        return ad.gradient(example.loss, *args)

    def grads() -> list[Any]:
        thetas, ws, _, _ = step()
        return [*thetas, *ws]

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
        ]
        if rrule.find(f, *probe) is None
    ]
    if missing:
        print(f"the network needs rules that are not registered: {', '.join(missing)}")
        sys.exit(1)
    print(f"numpy {np.__version__}; gradient of the loss with respect to every theta and w, per step\n")
    for layers, width, batch in SIZES:
        problem = example.make_problem(width=width, layers=layers, batch=batch)
        args = (problem["thetas"], problem["ws"], problem["x"], problem["target"])

        def baseline_step(args: tuple[Any, ...] = args) -> Any:
            return example.backprop(*args)

        _, theta_ref, w_ref, _ = baseline_step()
        reference = [*theta_ref, *w_ref]
        base = best_time(baseline_step)
        rows = [("hand-written numpy backprop", format_time(base), "1.00")]
        for name, make in [
            ("chainrules.engines (reverse, tape)", chainrules_step),
            ("HIPS autograd", autograd_step),
            ("PyTorch eager (CPU, 1 thread)", torch_step),
        ]:
            made = make(problem)
            if made is None:
                rows.append((name, "not installed", ""))
                continue
            step, grads = made
            _check(name, grads(), reference)
            t = best_time(step)
            rows.append((name, format_time(t), f"{t / base:.2f}"))
        flops = 2 * layers * width * width * batch * 3
        print(f"{layers} layers, width {width}, batch {batch} (~{flops / 1e6:.1f} Mflop per gradient)")
        print(table(["engine", "time per gradient", "ratio to backprop"], rows))
        print()


if __name__ == "__main__":
    main()
