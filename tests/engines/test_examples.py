"""The example programs run and say what they should."""

from __future__ import annotations

import itertools
import runpy
from pathlib import Path

import numpy as np
import pytest

from tests.engines.programs import elementwise_rules_registered

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_higher_order_example(capsys: pytest.CaptureFixture[str]) -> None:
    """Both engines and finite differences agree on reduce and apply_along_axis of rule-less functions."""
    if not elementwise_rules_registered():
        pytest.skip("the elementwise rules are not part of this checkout yet")
    runpy.run_path(str(EXAMPLES / "higher_order.py"), run_name="__main__")
    lines = capsys.readouterr().out.splitlines()
    values = [float(line.split("=")[-1]) for line in lines if "=" in line]
    assert len(values) == 6
    for reverse, forward, finite in zip(values[0::3], values[1::3], values[2::3]):
        assert reverse == pytest.approx(forward, rel=1e-12)
        assert reverse == pytest.approx(finite, rel=1e-6, abs=1e-9)


def test_multiplier_example(capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(EXAMPLES / "multiplier.py"), run_name="__main__")
    assert "gradient with respect to the field x: 3.0" in capsys.readouterr().out


def test_newton_example_converges_quadratically(capsys: pytest.CaptureFixture[str]) -> None:
    """Newton's method on Rosenbrock with Hessians from the engines: the minimum, and the error squared per step."""
    if not elementwise_rules_registered():
        pytest.skip("the elementwise rules are not part of this checkout yet")
    namespace = runpy.run_path(str(EXAMPLES / "newton.py"), run_name="__main__")
    assert "minimum at [1. 1.]" in capsys.readouterr().out
    history = namespace["newton"](namespace["rosenbrock"], np.array([-1.2, 1.0]))
    errors = [float(np.linalg.norm(x - 1.0)) for x, _ in history]
    assert errors[-1] < 1e-12
    close = [e for e in errors if 0 < e < 1e-2]
    assert len(close) >= 2
    for before, after in itertools.pairwise(close):
        assert after <= 50 * before**2  # quadratic convergence
