"""A neural network is a functional program: an 8-layer network, differentiated by the engines and trained.

    x_{i+1} = layer_i(theta_i, w_i, x_i) = tanh(w_i @ x_i + theta_i)      (softplus for the last layer)
    loss    = mean((x_8 - target) ** 2)

The gradient comes from the reverse engine (``chainrules.engines.gradient``),
which knows nothing of networks: every step is a numpy call whose rule it
finds in the registry. The example checks it against central finite
differences and against the forward engine's Jacobian-vector products, then
trains the network with a few hundred steps of gradient descent. Last, the
Hessian of the loss with respect to one layer's weights, from forward over
reverse (``chainrules.engines.hessian``), against central differences of the
gradient.

Run: python examples/network.py
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import chainrules  # noqa: F401 - registers the rules
import chainrules.engines as ad
from chainrules_core import ZeroTangent

Params = tuple[list[np.ndarray], list[np.ndarray]]


def layer(theta: np.ndarray, w: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.tanh(w @ x + theta)


def output_layer(theta: np.ndarray, w: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, w @ x + theta)  # softplus


def network(thetas: list[np.ndarray], ws: list[np.ndarray], x: np.ndarray) -> np.ndarray:
    for theta, w in zip(thetas[:-1], ws[:-1]):
        x = layer(theta, w, x)
    return output_layer(thetas[-1], ws[-1], x)


def loss(thetas: list[np.ndarray], ws: list[np.ndarray], x: np.ndarray, target: np.ndarray) -> Any:
    return np.mean((network(thetas, ws, x) - target) ** 2)


def make_problem(seed: int = 0, width: int = 16, layers: int = 8, batch: int = 32) -> dict[str, Any]:
    """Weights scaled by 1/sqrt(width) so that the tanh layers stay in their sensitive range."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((width, batch))
    return {
        "thetas": [0.1 * rng.standard_normal((width, 1)) for _ in range(layers)],
        "ws": [rng.standard_normal((width, width)) / math.sqrt(width) for _ in range(layers)],
        "x": x,
        "target": 0.5 + 0.25 * np.sin(x),
    }


def backprop(thetas: list[np.ndarray], ws: list[np.ndarray], x: np.ndarray, target: np.ndarray) -> Any:
    """The same gradient written by hand: the baseline the engines are measured against."""
    xs, zs = [x], []
    for theta, w in zip(thetas, ws):
        zs.append(w @ xs[-1] + theta)
        xs.append(np.tanh(zs[-1]))
    out = np.logaddexp(0.0, zs[-1])
    residual = out - target
    value = np.mean(residual**2)
    x_bar = 2.0 * residual / residual.size
    z_bar = x_bar / (1.0 + np.exp(-zs[-1]))  # softplus' = logistic
    theta_bars, w_bars = [], []
    for i in reversed(range(len(ws))):
        if i < len(ws) - 1:
            z_bar = x_bar * (1.0 - xs[i + 1] ** 2)
        theta_bars.append(np.sum(z_bar, axis=1, keepdims=True))
        w_bars.append(z_bar @ xs[i].T)
        x_bar = ws[i].T @ z_bar
    return value, theta_bars[::-1], w_bars[::-1], x_bar


def check_gradient(problem: dict[str, Any], seed: int = 1) -> tuple[float, float, float]:
    """Relative differences of the reverse engine's gradient from backprop, finite differences and jvp."""
    rng = np.random.default_rng(seed)
    args = (problem["thetas"], problem["ws"], problem["x"], problem["target"])
    theta_bars, w_bars, x_bar, _ = ad.gradient(loss, *args)
    _, theta_ref, w_ref, x_ref = backprop(*args)
    reference = np.concatenate([a.ravel() for a in (*theta_ref, *w_ref, x_ref)])
    ours = np.concatenate([a.ravel() for a in (*theta_bars, *w_bars, x_bar)])
    vs_backprop = float(np.max(np.abs(ours - reference)) / np.max(np.abs(reference)))

    # one random direction in every parameter and the input
    d_thetas = [rng.standard_normal(t.shape) for t in args[0]]
    d_ws = [rng.standard_normal(w.shape) for w in args[1]]
    d_x = rng.standard_normal(args[2].shape)
    along = sum(np.sum(a * d) for a, d in zip((*theta_bars, *w_bars, x_bar), (*d_thetas, *d_ws, d_x)))

    def moved(h: float) -> float:
        thetas = [t + h * d for t, d in zip(args[0], d_thetas)]
        ws = [w + h * d for w, d in zip(args[1], d_ws)]
        return float(loss(thetas, ws, args[2] + h * d_x, args[3]))

    h = 1e-5
    finite_difference = (moved(h) - moved(-h)) / (2 * h)
    _, pushed = ad.jvp(loss, args, (d_thetas, d_ws, d_x, ZeroTangent()))
    vs_fd = abs(along - finite_difference) / abs(finite_difference)
    vs_jvp = abs(along - float(pushed)) / abs(float(pushed))
    return vs_backprop, float(vs_fd), float(vs_jvp)


def train(problem: dict[str, Any], steps: int = 300, rate: float = 0.5, report_every: int = 50) -> list[float]:
    """Gradient descent on every theta and w; the losses along the way."""
    thetas, ws = [t.copy() for t in problem["thetas"]], [w.copy() for w in problem["ws"]]
    x, target = problem["x"], problem["target"]
    losses = []
    for step in range(steps + 1):
        value, (theta_bars, w_bars, _, _) = ad.value_and_gradient(loss, thetas, ws, x, target)
        losses.append(float(value))
        if report_every and step % report_every == 0:
            print(f"step {step:4d}  loss {float(value):.6f}")
        thetas = [t - rate * g for t, g in zip(thetas, theta_bars)]
        ws = [w - rate * g for w, g in zip(ws, w_bars)]
    return losses


def layer_hessian(problem: dict[str, Any], layer: int) -> np.ndarray:
    """The Hessian of the loss with respect to ``ws[layer]``, of shape ``w.shape + w.shape``."""
    thetas, ws, x, target = problem["thetas"], problem["ws"], problem["x"], problem["target"]

    def loss_of_layer(w: Any) -> Any:
        return loss(thetas, [w if i == layer else v for i, v in enumerate(ws)], x, target)

    return ad.hessian(loss_of_layer, ws[layer])  # type: ignore[no-any-return]


def check_layer_hessian(problem: dict[str, Any], layer: int, h: float = 1e-5) -> float:
    """The relative difference of ``layer_hessian`` from central differences of the reverse engine's gradient."""
    thetas, ws, x, target = problem["thetas"], problem["ws"], problem["x"], problem["target"]
    w = ws[layer]

    def gradient_at(v: np.ndarray) -> np.ndarray:
        return ad.gradient(loss, thetas, [v if i == layer else u for i, u in enumerate(ws)], x, target)[1][layer]

    columns = []
    for k in range(w.size):
        e = np.zeros(w.shape)
        e.flat[k] = h
        columns.append(((gradient_at(w + e) - gradient_at(w - e)) / (2 * h)).ravel())
    reference = np.stack(columns, axis=1)
    ours = layer_hessian(problem, layer).reshape(w.size, w.size)
    return float(np.max(np.abs(ours - reference)) / np.max(np.abs(reference)))


def main() -> None:
    problem = make_problem()
    vs_backprop, vs_fd, vs_jvp = check_gradient(problem)
    print("gradient of the loss, relative differences:")
    print(f"  reverse engine vs hand-written backprop:           {vs_backprop:.1e}")
    print(f"  reverse engine vs central finite differences:      {vs_fd:.1e}")
    print(f"  reverse engine vs forward engine (jvp):            {vs_jvp:.1e}")
    losses = train(problem)
    print(f"loss {losses[0]:.6f} -> {losses[-1]:.6f} after {len(losses) - 1} steps")
    small = make_problem(width=6, batch=8)
    error = check_layer_hessian(small, layer=3)
    print(f"Hessian of the loss in layer 3's weights (36 x 36), vs differences of the gradient: {error:.1e}")


if __name__ == "__main__":
    main()
