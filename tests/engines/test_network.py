"""The lecture's network: gradients that match finite differences and jvp, and a training loop that learns."""

from __future__ import annotations

import functools
import importlib.util
import itertools
from pathlib import Path
from typing import Any

import numpy as np

import chainrules.engines as ad
from tests.engines.programs import LOCAL, make_network, network_loss, require_rules


def _sgd(loss: Any, net: dict[str, Any], steps: int, rate: float) -> list[float]:
    thetas, ws = net["thetas"], net["ws"]
    losses = []
    for _ in range(steps):
        value, (theta_bars, w_bars, _, _) = ad.value_and_gradient(loss, thetas, ws, net["x"], net["target"])
        losses.append(float(value))
        thetas = [t - rate * g for t, g in zip(thetas, theta_bars)]
        ws = [w - rate * g for w, g in zip(ws, w_bars)]
    return losses


def test_training_lowers_the_loss() -> None:
    """A few hundred steps of gradient descent on the 8-layer network, gradients from the tracker."""
    net = make_network(np.random.default_rng(0))
    losses = _sgd(functools.partial(network_loss, ops=LOCAL), net, steps=300, rate=0.5)
    assert losses[-1] < 0.2 * losses[0]
    assert all(b <= a * (1 + 1e-9) for a, b in itertools.pairwise(losses[50:]))  # settled into steady descent


def test_parameters_get_the_same_gradients() -> None:
    """param() and .grad give the same gradients as passing the weights as arguments."""
    net = make_network(np.random.default_rng(1))
    thetas = [ad.param(t) for t in net["thetas"]]
    ws = [ad.param(w) for w in net["ws"]]
    (x_bar,) = ad.gradient(lambda x: network_loss(thetas, ws, x, net["target"]), net["x"])
    theta_bars, w_bars, x_ref, _ = ad.gradient(network_loss, net["thetas"], net["ws"], net["x"], net["target"])
    np.testing.assert_allclose(x_bar, x_ref, rtol=1e-12)
    for p, g in zip([*thetas, *ws], [*theta_bars, *w_bars]):
        np.testing.assert_allclose(p.grad, g, rtol=1e-12)
    for p in [*thetas, *ws]:
        p.zero_grad()
    assert ad.gradient(lambda: network_loss(thetas, ws, net["x"], net["target"])) == ()  # parameters only
    for p, g in zip([*thetas, *ws], [*theta_bars, *w_bars]):
        np.testing.assert_allclose(p.grad, g, rtol=1e-12)


def _example() -> Any:
    path = Path(__file__).resolve().parents[2] / "examples" / "network.py"
    spec = importlib.util.spec_from_file_location("network_example", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_numpy_example() -> None:
    """examples/network.py with numpy's rules: gradients against backprop, finite differences and jvp; training."""
    require_rules("network")
    example = _example()
    problem = example.make_problem(width=8, batch=6)
    vs_backprop, vs_fd, vs_jvp = example.check_gradient(problem)
    assert vs_backprop < 1e-12 and vs_fd < 1e-6 and vs_jvp < 1e-12
    losses = example.train(problem, steps=200, report_every=0)
    assert losses[-1] < 0.5 * losses[0]


def test_layer_hessian_of_the_example() -> None:
    """The Hessian of the loss in one layer's weights: symmetric, and the derivative of the gradient."""
    require_rules("network")
    example = _example()
    problem = example.make_problem(width=4, batch=5)
    assert example.check_layer_hessian(problem, layer=5) < 1e-6
    h = example.layer_hessian(problem, layer=2).reshape(16, 16)
    np.testing.assert_allclose(h, h.T, rtol=1e-10, atol=1e-14 * np.max(np.abs(h)))
