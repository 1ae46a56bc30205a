"""examples/interop.py: the layer's rules pass the harness, and each framework trains the network with them."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
STEPS = 100


@pytest.fixture(scope="module")
def examples() -> tuple[Any, Any]:
    """examples/interop.py, and examples/network.py, which it imports."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(EXAMPLES))
        spec = importlib.util.spec_from_file_location("interop_example", EXAMPLES / "interop.py")
        assert spec is not None and spec.loader is not None
        interop = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(interop)
        network = importlib.import_module("network")
    return interop, network


@pytest.fixture(scope="module")
def problem(examples: tuple[Any, Any]) -> dict[str, Any]:
    return examples[1].make_problem(width=8, batch=6)


@pytest.fixture(scope="module")
def backprop_losses(examples: tuple[Any, Any], problem: dict[str, Any]) -> list[float]:
    """Gradient descent with the hand-written gradient of examples/network.py: the losses to reproduce."""
    network = examples[1]
    thetas, ws, losses = list(problem["thetas"]), list(problem["ws"]), []
    for _ in range(STEPS):
        value, theta_bars, w_bars, _ = network.backprop(thetas, ws, problem["x"], problem["target"])
        thetas = [t - 0.5 * g for t, g in zip(thetas, theta_bars)]
        ws = [w - 0.5 * g for w, g in zip(ws, w_bars)]
        losses.append(float(value))
    return losses


def test_the_layer_rules_pass_the_harness(examples: tuple[Any, Any]) -> None:
    examples[0].check_rules()


@pytest.mark.parametrize("framework", ["torch", "jax", "autograd"])
def test_training_lowers_the_loss(
    examples: tuple[Any, Any], problem: dict[str, Any], backprop_losses: list[float], framework: str
) -> None:
    """A hundred steps of gradient descent lower the loss, step for step as with the hand-written gradient."""
    pytest.importorskip(framework, reason=f"{framework} is optional: pip install 'chainrules[{framework}]'")
    losses = examples[0].TRAIN[framework](problem, steps=STEPS)
    assert losses[-1] < 0.5 * losses[0]
    np.testing.assert_allclose(losses, backprop_losses, rtol=1e-9)
