"""Random compositions of primitives: both engines agree with each other and with finite differences."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engines.programs import LOCAL, check_program

_UNARY = ["sin", "tanh", "softplus", "square"]
_BINARY = ["add", "sub", "mul"]


@st.composite
def expressions(draw: Any, depth: int = 4) -> Any:
    """A nested tuple: ("x",) or ("y",) at the leaves, (op, child, ...) above them."""
    if depth == 0 or draw(st.booleans()):
        return (draw(st.sampled_from(["x", "y", "x", "w"])),)
    if draw(st.booleans()):
        return (draw(st.sampled_from(_UNARY)), draw(expressions(depth - 1)))
    return (draw(st.sampled_from(_BINARY)), draw(expressions(depth - 1)), draw(expressions(depth - 1)))


def evaluate(expr: tuple[Any, ...], env: dict[str, Any]) -> Any:
    head, *children = expr
    if not children:
        return env[head]
    return getattr(LOCAL, head)(*(evaluate(c, env) for c in children))


@settings(max_examples=40, deadline=None, database=None)
@given(expressions(), st.integers(0, 2**16))
def test_random_programs(expr: tuple[Any, ...], seed: int) -> None:
    rng = np.random.default_rng(seed)
    x, w, y = rng.uniform(-1.5, 1.5, 3), rng.uniform(-1.5, 1.5, (2, 3)), float(rng.uniform(-1.5, 1.5))

    def program(x: Any, w: Any, y: float) -> Any:
        return LOCAL.add(evaluate(expr, {"x": x, "w": w, "y": y}), LOCAL.mul(0.1, LOCAL.sum(x)))

    check_program(program, (x, w, y), seed=seed)
