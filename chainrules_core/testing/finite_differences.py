"""Finite differences along one direction, with the step chosen by an error estimate.

A directional derivative ``phi'(0)`` of ``phi(t) = f(x + t * dx)`` is
estimated with a finite-difference stencil at a ladder of steps
``h_k = scale * max_step * 10**(-k/2)``. ``scale`` is the size of the input
relative to the direction (about 1 for the harness's relative directions),
so a step means the same at inputs of magnitude 1e-8 and 1e8. Consecutive
estimates differ by about the error of the larger step: truncation error
shrinks with the step and round-off error grows as ``eps * |phi| / h``, so
the step whose estimate differs least, relatively, from the one before
balances the two; that difference, or the round-off floor if larger, is the
error estimate of the result. Where round-off decides even at the first
step (``exp`` near 0, whose scale is 1, not the input's), larger steps are
tried while they help.

FiniteDifferences.jl chooses the step from a model instead: it bounds the
stencil's truncation error with a finite-difference estimate of a higher
derivative and its round-off error with ``eps * |f|``, and minimises the sum
(``estimate_step``). A ladder costs more evaluations (about 20 to 45 for a
smooth function with the 5-point stencil, against about 12) but needs no
derivative bound, which is wrong exactly where a higher derivative vanishes
or blows up (near a singularity or a kink within reach of the step), and it
measures the error it reports. The stencil weights are the standard ones
(Fornberg, "Generation of finite difference formulas on arbitrarily spaced
grids", Math. Comp. 1988). Steps at which ``phi`` is not finite or raises an
arithmetic error (a domain boundary crossed) are skipped.
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

_EPS = float(np.finfo(np.float64).eps)

ROUND_OFF = 64.0
"""Round-off of one evaluation, in units of ``eps * max|phi|``: the noise floor of a difference."""

_MAX_LARGER = 12
"""How many steps, each sqrt(10) times larger, to try above ``max_step`` (up to 1e6 times it)."""

# Exceptions that mean "outside the domain at this step", not "the function is broken".
_DOMAIN_ERRORS = (ArithmeticError, ValueError, np.linalg.LinAlgError)


@dataclass(frozen=True)
class FDResult:
    """A finite-difference estimate with its estimated error (max-norm) and cost.

    ``error`` is at least the round-off floor at the chosen step.
    ``natural`` is the size of ``phi``'s values over the step scale: the
    derivative of a function that changes by its own size over that
    distance, a yardstick for derivatives too small to matter.
    """

    value: Vector
    error: float
    step: float
    evaluations: int
    natural: float = 0.0


@dataclass(frozen=True)
class FiniteDifferences:
    """A finite-difference method for directional derivatives.

    ``kind`` is ``"central"`` (the default), or ``"forward"`` / ``"backward"``
    for one-sided derivatives at a kink or a domain boundary; ``points`` is
    the stencil size (3, 5 or 7 for central, 3 or 5 one-sided); the ladder
    of steps starts at ``max_step`` (relative to the input) and tries
    ``steps`` steps, each ``sqrt(10)`` times smaller.

    >>> fd = FiniteDifferences()
    >>> result = fd.derivative(lambda t: np.array([np.sin(1.0 + t)]))
    >>> bool(abs(result.value[0] - np.cos(1.0)) < 1e-10), result.error < 1e-9
    (True, True)

    At an input of magnitude 1e8, pass its scale so that the steps are relative to it:

    >>> result = fd.derivative(lambda t: np.array([np.log(1e8 + t)]), scale=1e8)
    >>> bool(abs(result.value[0] * 1e8 - 1) < 1e-9)
    True
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

    def derivative(self, phi: Callable[[float], Vector], scale: float = 1.0, eps: float = _EPS) -> FDResult:
        """Estimate ``phi'(0)`` for ``phi`` mapping a real step to a real vector.

        ``scale`` multiplies every step: the distance over which ``phi`` is
        expected to change by its own size. ``eps`` is the relative round-off
        of ``phi``'s values (that of float64 unless ``phi`` computes in a
        lower precision).
        """
        calls = 0
        largest = 0.0  # the largest |phi| seen: the size of the function's values
        cache: dict[float, Vector | None] = {}

        def evaluate(t: float) -> Vector | None:
            nonlocal calls, largest
            if t not in cache:
                calls += 1
                try:
                    with np.errstate(all="ignore"):
                        value = np.asarray(phi(t), dtype=np.float64)
                except _DOMAIN_ERRORS:
                    if t == 0.0:
                        raise
                    value = None
                finite = value is not None and bool(np.all(np.isfinite(value)))
                cache[t] = value if finite else None
                if finite:
                    largest = max(largest, _max_abs(value))
            return cache[t]

        y0 = evaluate(0.0)
        size = _max_abs(y0) if y0 is not None else 0.0

        def stencil(h: float) -> _Estimate | None:
            values = [evaluate(o * h) for o in self.offsets]
            if any(v is None for v in values):
                return None
            total = np.zeros_like(values[0])
            for w, v in zip(self.weights, values):
                # differences from phi(0): a constant phi gives exactly 0, whatever the weights' rounding
                total = total + w * (v - y0 if y0 is not None else v)  # type: ignore[operator]
            noise = ROUND_OFF * eps * max([size] + [_max_abs(v) for v in values]) / h
            return _Estimate(h, total / h, noise)

        def judge(larger: _Estimate, smaller: _Estimate) -> tuple[float, float]:
            """The error of ``smaller``'s estimate (its change from ``larger``'s, or its round-off), and relative.

            Relative to the estimates. Where both are exactly zero (a step function between its steps,
            or a step too small to change the function's value) relative to the largest estimate at
            larger steps, so that only round-off far below those counts as agreement.
            """
            error = max(_max_abs(larger.value - smaller.value), smaller.noise)
            reference = max(_max_abs(larger.value), _max_abs(smaller.value))
            if not reference:
                reference = max((_max_abs(e.value) for e in ladder), default=0.0) or largest / scale
            return error, error / reference if reference else 0.0

        ladder: list[_Estimate] = []  # steps from the largest down
        pairs: list[tuple[float, float, _Estimate]] = []  # (error, relative error, estimate) of each but the first
        for k in range(self.steps):
            estimate = stencil(scale * self.max_step * 10 ** (-k / 2))
            if estimate is None:
                continue
            if ladder:
                pairs.append((*judge(ladder[-1], estimate), estimate))
            ladder.append(estimate)
            scores = [relative for _, relative, _ in pairs]
            if len(scores) >= 4 and min(scores) <= math.sqrt(ROUND_OFF * eps):
                if scores[-1] > scores[-2] > scores[-3] > min(scores) or scores[-1] == scores[-2] == 0:
                    break  # past the best step, deep in the round-off regime, or exact
        if not ladder:
            low = scale * self.max_step * 10 ** (-(self.steps - 1) / 2)
            raise FloatingPointError(
                "finite differences: the function was not finite, or raised, at every step tried "
                f"({scale * self.max_step:g} down to {low:g} along the direction)"
            )
        if len(ladder) == 1:
            return FDResult(ladder[0].value, math.inf, ladder[0].step, calls, largest / scale)
        best = min(range(len(pairs)), key=lambda i: pairs[i][1])
        error, relative, result = pairs[best]
        target = (ROUND_OFF * eps) ** 0.75
        if best == 0 and error == ladder[1].noise and relative > target:
            # Round-off decides even at the largest step: the input is small next to the scale
            # over which the function changes (exp near 0), so try larger steps while they help.
            smaller = ladder[0]
            for j in range(1, _MAX_LARGER + 1):
                larger = stencil(ladder[0].step * 10 ** (j / 2))
                if larger is None:
                    break
                larger_error, larger_relative = judge(larger, smaller)
                if larger_relative >= relative:
                    break
                error, relative, result, smaller = larger_error, larger_relative, smaller, larger
                if relative <= target:
                    break
        return FDResult(result.value, error, result.step, calls, largest / scale)


@dataclass(frozen=True)
class _Estimate:
    step: float
    value: Vector
    noise: float


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
