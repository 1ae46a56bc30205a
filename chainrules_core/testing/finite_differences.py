"""Finite differences along one direction, with the step chosen by an error estimate.

A directional derivative ``phi'(0)`` of ``phi(t) = f(x + t * dx)`` is estimated
with a finite-difference stencil at a sequence of steps ``h_k = max_step *
10**(-k/2)``. Consecutive estimates differ by about the error of the larger
step: truncation error shrinks with the step and round-off error grows, so
the step whose difference to the next is smallest balances the two. This is
the idea of the step selection in FiniteDifferences.jl (Wesselink) and of
Richardson-style error control, made adaptive by trying steps rather than
bounding derivatives. The stencil weights are the standard ones (Fornberg,
"Generation of finite difference formulas on arbitrarily spaced grids",
Math. Comp. 1988). Steps at which ``phi`` is not finite or raises (a domain
boundary crossed) are skipped.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from .layout import Vector

# offsets and weights of the first-derivative stencils, by kind and number of points
_STENCILS: dict[tuple[str, int], tuple[tuple[int, ...], tuple[float, ...]]] = {
    ("central", 3): ((-1, 1), (-1 / 2, 1 / 2)),
    ("central", 5): ((-2, -1, 1, 2), (1 / 12, -8 / 12, 8 / 12, -1 / 12)),
    ("central", 7): ((-3, -2, -1, 1, 2, 3), (-1 / 60, 9 / 60, -45 / 60, 45 / 60, -9 / 60, 1 / 60)),
    ("forward", 3): ((0, 1, 2), (-3 / 2, 2, -1 / 2)),
    ("forward", 5): ((0, 1, 2, 3, 4), (-25 / 12, 48 / 12, -36 / 12, 16 / 12, -3 / 12)),
}


@dataclass(frozen=True)
class FDResult:
    """A finite-difference estimate with its estimated error (max-norm) and cost."""

    value: Vector
    error: float
    step: float
    evaluations: int


@dataclass(frozen=True)
class FiniteDifferences:
    """A finite-difference method for directional derivatives.

    ``kind`` is ``"central"`` (the default), or ``"forward"`` / ``"backward"``
    for one-sided derivatives at a kink or a domain boundary; ``points`` is
    the stencil size (3, 5 or 7 for central, 3 or 5 one-sided).

    >>> fd = FiniteDifferences()
    >>> result = fd.derivative(lambda t: np.array([np.sin(1.0 + t)]))
    >>> bool(abs(result.value[0] - np.cos(1.0)) < 1e-10), result.error < 1e-9
    (True, True)
    """

    kind: Literal["central", "forward", "backward"] = "central"
    points: int = 5
    max_step: float = 0.1
    steps: int = 23
    offsets: tuple[int, ...] = field(init=False, repr=False)
    weights: tuple[float, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        key = ("forward" if self.kind == "backward" else self.kind, self.points)
        if key not in _STENCILS:
            raise ValueError(f"FiniteDifferences: no {self.points}-point {self.kind} stencil")
        offsets, weights = _STENCILS[key]
        if self.kind == "backward":
            offsets = tuple(-o for o in offsets)
            weights = tuple(-w for w in weights)
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "weights", weights)

    def derivative(self, phi: Callable[[float], Vector]) -> FDResult:
        """Estimate ``phi'(0)`` for ``phi`` mapping a real step to a real vector."""
        calls = 0
        cache: dict[float, Vector | None] = {}

        def evaluate(t: float) -> Vector | None:
            nonlocal calls
            if t not in cache:
                calls += 1
                try:
                    with np.errstate(all="ignore"):
                        value = np.asarray(phi(t), dtype=np.float64)
                except (ArithmeticError, ValueError, np.linalg.LinAlgError):
                    value = None
                cache[t] = value if value is not None and np.all(np.isfinite(value)) else None
            return cache[t]

        y0 = evaluate(0.0)
        size = _max_abs(y0) if y0 is not None else 0.0
        estimates: list[tuple[float, Vector]] = []
        errors: list[float] = []
        scores: list[float] = []  # errors relative to the estimates, or to round-off when they vanish
        for k in range(self.steps):
            h = self.max_step * 10 ** (-k / 2)
            values = [evaluate(o * h) for o in self.offsets]
            if any(v is None for v in values):
                continue
            estimate = np.zeros_like(values[0])
            for w, v in zip(self.weights, values):
                estimate = estimate + w * v  # type: ignore[operator]
            estimates.append((h, estimate / h))
            if len(estimates) >= 2:
                previous, current = estimates[-2][1], estimates[-1][1]
                error = _max_abs(previous - current)
                floor = max(_max_abs(previous), _max_abs(current), 64 * _EPS * size / h)
                errors.append(error)
                scores.append(error / floor if floor else 0.0)
                settled = min(scores) <= 1e-8
                if settled and len(scores) >= 4 and scores[-1] > scores[-2] > scores[-3] > min(scores):
                    break  # past the best step, deep in the round-off regime
        if not estimates:
            raise FloatingPointError(
                "finite differences: the function was not finite, or raised, at every step tried "
                f"({self.max_step:g} down to {self.max_step * 10 ** (-(self.steps - 1) / 2):g})"
            )
        if not errors:
            h, value = estimates[0]
            return FDResult(value, math.inf, h, calls)
        best = min(range(len(scores)), key=scores.__getitem__)
        h, value = estimates[best + 1]
        return FDResult(value, errors[best], h, calls)


_EPS = float(np.finfo(np.float64).eps)


def _max_abs(v: Any) -> float:
    return float(np.max(np.abs(v))) if np.size(v) else 0.0


def central_fdm(points: int = 5) -> FiniteDifferences:
    """A central method of ``points`` points (FiniteDifferences.jl's name for it)."""
    return FiniteDifferences("central", points)


def forward_fdm(points: int = 5) -> FiniteDifferences:
    """A one-sided method looking at ``t >= 0`` only."""
    return FiniteDifferences("forward", points)


def backward_fdm(points: int = 5) -> FiniteDifferences:
    """A one-sided method looking at ``t <= 0`` only."""
    return FiniteDifferences("backward", points)
