"""One layer written once in numpy, with its rrule and frule, trained in PyTorch, JAX and autograd.

    layer(theta, w, x) = tanh(w @ x + theta)

is the hidden layer of the 8-layer network of examples/network.py. Its rules
are checked once by the harness (``test_rrule``, ``test_frule``); then
``chainrules.interop`` makes it a function of each framework's arrays, and
the network (seven such layers and a softplus output written in the
framework's own ops) trains with each framework's tools: ``torch.optim``,
``jax.jit(jax.value_and_grad(...))``, ``autograd.value_and_grad``. The same
data, initial weights and learning rate give the same losses in all three.

Run: python examples/interop.py [torch] [jax] [autograd]
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

import numpy as np
from network import make_problem

from chainrules_core import NoTangent, frule, rrule, unthunk
from chainrules_core.testing import test_frule, test_rrule

FRAMEWORKS = ("torch", "jax", "autograd")


def layer(theta: np.ndarray, w: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.tanh(w @ x + theta)


@rrule.register(layer)
def _rrule_layer(f: Any, theta: np.ndarray, w: np.ndarray, x: np.ndarray) -> Any:
    out = np.tanh(w @ x + theta)

    def layer_pullback(out_bar: Any) -> Any:
        z_bar = unthunk(out_bar) * (1 - out**2)
        return NoTangent(), np.sum(z_bar, axis=1, keepdims=True), z_bar @ x.T, w.T @ z_bar

    return out, layer_pullback


@frule.register(layer)
def _frule_layer(tangents: Any, f: Any, theta: np.ndarray, w: np.ndarray, x: np.ndarray) -> Any:
    _, theta_dot, w_dot, x_dot = tangents
    out = np.tanh(w @ x + theta)
    return out, (1 - out**2) * (theta_dot + w_dot @ x + w @ x_dot)


def check_rules() -> None:
    """The harness checks both rules against finite differences; it raises if either is wrong."""
    problem = make_problem(width=4, batch=3)
    args = (problem["thetas"][0], problem["ws"][0], problem["x"])
    test_rrule(layer, *args)
    test_frule(layer, *args)


# ----- PyTorch -----


def train_torch(problem: dict[str, Any], steps: int = 300, rate: float = 0.5) -> list[float]:
    import torch

    from chainrules.interop.torch import wrap

    torch_layer = wrap(layer)
    thetas = [torch.tensor(t, requires_grad=True) for t in problem["thetas"]]
    ws = [torch.tensor(w, requires_grad=True) for w in problem["ws"]]
    x, target = torch.from_numpy(problem["x"]), torch.from_numpy(problem["target"])

    def loss() -> Any:
        h = x
        for theta, w in zip(thetas[:-1], ws[:-1]):
            h = torch_layer(theta, w, h)
        out = torch.nn.functional.softplus(ws[-1] @ h + thetas[-1])
        return torch.mean((out - target) ** 2)

    optimizer = torch.optim.SGD([*thetas, *ws], lr=rate)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        value = loss()
        value.backward()
        optimizer.step()
        losses.append(value.item())
    return losses


# ----- JAX -----


def train_jax(problem: dict[str, Any], steps: int = 300, rate: float = 0.5) -> list[float]:
    import jax
    import jax.numpy as jnp

    from chainrules.interop.jax import wrap

    jax_layer = wrap(layer)

    def loss(params: Any, x: Any, target: Any) -> Any:
        thetas, ws = params
        h = x
        for theta, w in zip(thetas[:-1], ws[:-1]):
            h = jax_layer(theta, w, h)
        out = jax.nn.softplus(ws[-1] @ h + thetas[-1])
        return jnp.mean((out - target) ** 2)

    with jax.enable_x64(True):  # float64, as in the other two
        step = jax.jit(jax.value_and_grad(loss))
        params = ([jnp.asarray(t) for t in problem["thetas"]], [jnp.asarray(w) for w in problem["ws"]])
        x, target = jnp.asarray(problem["x"]), jnp.asarray(problem["target"])
        losses = []
        for _ in range(steps):
            value, grads = step(params, x, target)
            params = jax.tree.map(lambda p, g: p - rate * g, params, grads)
            losses.append(float(value))
    return losses


# ----- autograd -----


def train_autograd(problem: dict[str, Any], steps: int = 300, rate: float = 0.5) -> list[float]:
    import autograd
    import autograd.numpy as anp

    from chainrules.interop.autograd import wrap

    autograd_layer = wrap(layer)
    x, target = problem["x"], problem["target"]

    def loss(params: Any) -> Any:
        thetas, ws = params
        h = x
        for theta, w in zip(thetas[:-1], ws[:-1]):
            h = autograd_layer(theta, w, h)
        out = anp.logaddexp(0.0, anp.dot(ws[-1], h) + thetas[-1])
        return anp.mean((out - target) ** 2)

    step = autograd.value_and_grad(loss)
    params = (list(problem["thetas"]), list(problem["ws"]))
    losses = []
    for _ in range(steps):
        value, (theta_bars, w_bars) = step(params)
        params = (
            [t - rate * g for t, g in zip(params[0], theta_bars)],
            [w - rate * g for w, g in zip(params[1], w_bars)],
        )
        losses.append(float(value))
    return losses


TRAIN = {"torch": train_torch, "jax": train_jax, "autograd": train_autograd}


def main(frameworks: list[str]) -> None:
    check_rules()
    print("the layer's rrule and frule pass test_rrule and test_frule")
    problem = make_problem()
    for name in frameworks:
        if importlib.util.find_spec(name) is None:
            print(f"{name}: not installed (pip install 'chainrules[{name}]')")
            continue
        losses = TRAIN[name](problem)
        print(f"{name:8s} loss {losses[0]:.6f} -> {losses[-1]:.6f} after {len(losses)} steps")


if __name__ == "__main__":
    main(sys.argv[1:] or list(FRAMEWORKS))
