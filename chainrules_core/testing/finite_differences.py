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
error estimate of the result; where the steps below that one change by more
than the round-off model says (a small value computed from large terms), the
model is scaled up to match. Where round-off decides even at the first
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

import dataclasses
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
    refine: Callable[[], FDResult] | None = field(default=None, compare=False, repr=False)
    """Set on a provisional one-step estimate (``derivative(..., provisional=True)``): the step search, continued
    from the evaluations made, for a check the estimate does not settle."""


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

    def derivative(
        self,
        phi: Callable[[float], Vector],
        scale: float = 1.0,
        eps: float = _EPS,
        one_step: bool = False,
        provisional: bool = False,
    ) -> FDResult:
        """Estimate ``phi'(0)`` for ``phi`` mapping a real step to a real vector.

        ``scale`` multiplies every step: the distance over which ``phi`` is
        expected to change by its own size. ``eps`` is the relative round-off
        of ``phi``'s values (that of float64 unless ``phi`` computes in a
        lower precision).

        ``one_step=True`` first tries a single step, ``(ROUND_OFF * eps) **
        (1/3)`` relative to ``scale`` and at least 1e-4, with the difference
        from the lower-order stencil whose points this one contains (the
        3-point stencil inside the 5-point one) as its error estimate, an
        overestimate: ``points`` evaluations in all, against 20 to 45 for
        the search. Where ``phi`` is not finite at a point, or where that
        estimate exceeds ``ONE_STEP_ACCURACY`` of the derivative, the search
        runs as usual, reusing the evaluations made.

        >>> result = FiniteDifferences().derivative(lambda t: np.array([np.sin(1.0 + t)]), one_step=True)
        >>> result.evaluations, bool(abs(result.value[0] - np.cos(1.0)) < 1e-10)
        (5, True)

        ``provisional=True`` (central stencils of 3 or 5 points) returns an
        estimate at one step of the search's ladder, the one below the step
        that balances truncation and round-off, ``(ROUND_OFF * eps) ** (1 /
        points)``, with the difference from the stencil of two more points
        at that step as its error estimate (of the truncation error, with
        the round-off floor): ``points + 2`` evaluations. Its ``refine()``
        is the search continued from those evaluations, for a check that
        the estimate, within its error, does not settle. Where ``phi`` is
        not finite at a point, the search runs at once.

        >>> quick = FiniteDifferences().derivative(lambda t: np.array([np.sin(1.0 + t)]), provisional=True)
        >>> searched = quick.refine()
        >>> quick.evaluations, bool(abs(quick.value[0] - np.cos(1.0)) < 1e-12), searched.evaluations > 7
        (7, True, True)
        """
        search = _StepSearch(self, phi, scale, eps)
        if provisional:
            quick = search.provisional()
            return search.run() if quick is None else dataclasses.replace(quick, refine=search.run)
        quick = search.one_step() if one_step else None
        return quick if quick is not None else search.run()


ONE_STEP_ACCURACY = 1e-5
"""The largest error, relative to the derivative, ``derivative(..., one_step=True)`` accepts from one step."""

RESOLUTION = 1e-4
"""Derivatives below this fraction of ``FDResult.natural`` count as zero when judging whether a check is conclusive."""


class _StepSearch:
    """One search for the step: ``phi``'s values met so far, and the estimates down the ladder of steps."""

    def __init__(self, fdm: FiniteDifferences, phi: Callable[[float], Vector], scale: float, eps: float) -> None:
        self.fdm, self.phi, self.scale, self.eps = fdm, phi, scale, eps
        self.calls = 0
        self.largest = 0.0  # the largest |phi| seen: the size of the function's values
        self.cache: dict[float, Vector | None] = {}
        self.y0 = self.evaluate(0.0)
        self.size = _max_abs(self.y0) if self.y0 is not None else 0.0
        self.ladder: list[_Estimate] = []  # steps from the largest down
        self.target = (ROUND_OFF * eps) ** 0.75  # a relative error no larger step is worth trying to beat

    def evaluate(self, t: float) -> Vector | None:
        """``phi(t)``, once per ``t``; ``None`` where it is not finite or raises an arithmetic error."""
        if t not in self.cache:
            self.calls += 1
            try:
                with np.errstate(all="ignore"):
                    value = np.asarray(self.phi(t), dtype=np.float64)
            except _DOMAIN_ERRORS:
                if t == 0.0:
                    raise
                value = None
            finite = value is not None and bool(np.all(np.isfinite(value)))
            self.cache[t] = value if finite else None
            if finite:
                self.largest = max(self.largest, _max_abs(value))
        return self.cache[t]

    def stencil(self, h: float) -> _Estimate | None:
        """The stencil's estimate at step ``h``, with its round-off; ``None`` where ``phi`` is not finite."""
        values = [self.evaluate(o * h) for o in self.fdm.offsets]
        if any(v is None for v in values):
            return None
        y0 = self.y0
        total = np.zeros_like(values[0])
        for w, v in zip(self.fdm.weights, values):
            # differences from phi(0): a constant phi gives exactly 0, whatever the weights' rounding
            total = total + w * (v - y0 if y0 is not None else v)  # type: ignore[operator]
        noise = ROUND_OFF * self.eps * max([self.size] + [_max_abs(v) for v in values]) / h
        return _Estimate(h, total / h, noise)

    def one_step(self) -> FDResult | None:
        """The estimate at one step, if its error is below ``ONE_STEP_ACCURACY``; see ``derivative``."""
        fdm = self.fdm
        lower = _STENCILS.get(("forward" if fdm.kind == "backward" else fdm.kind, fdm.points - 2))
        y0 = self.y0
        if lower is None or y0 is None:
            return None
        h = self.scale * max(1e-4, (ROUND_OFF * self.eps) ** (1 / 3))
        estimate = self.stencil(h)
        if estimate is None:
            return None
        sign = -1 if fdm.kind == "backward" else 1
        rough = np.zeros_like(estimate.value)
        for offset, weight in zip(*lower):
            rough = rough + weight * (self.evaluate(sign * offset * h) - y0)  # type: ignore[operator]
        error = max(_max_abs(rough / (sign * h) - estimate.value), estimate.noise)
        natural = self.largest / self.scale
        if error > ONE_STEP_ACCURACY * max(_max_abs(estimate.value), RESOLUTION * natural):
            return None
        return FDResult(estimate.value, error, h, self.calls, natural)

    def provisional(self) -> FDResult | None:
        """The estimate at the balancing step of the ladder, its error from the next central stencil; see
        ``derivative``. ``None`` for a one-sided method, or where ``phi`` is not finite at a point."""
        fdm = self.fdm
        finer = _STENCILS.get((fdm.kind, fdm.points + 2))
        if fdm.kind != "central" or finer is None or self.y0 is None:
            return None
        # one rung below the balance for a function of unit scale: directions reach a few times an entry's size
        balance = (ROUND_OFF * self.eps) ** (1 / fdm.points)
        rung = min(max(round(2 * math.log10(fdm.max_step / balance)) + 1, 0), fdm.steps - 1)
        h = self.scale * fdm.max_step * 10 ** (-rung / 2)  # a step of the ladder: the search reuses its values
        estimate = self.stencil(h)
        if estimate is None:
            return None
        y0 = self.y0
        check = np.zeros_like(estimate.value)
        for offset, weight in zip(*finer):
            value = self.evaluate(offset * h)
            if value is None:
                return None
            check = check + weight * (value - y0)
        error = max(_max_abs(check / h - estimate.value), estimate.noise)
        return FDResult(estimate.value, error, h, self.calls, self.largest / self.scale)

    def judge(self, larger: _Estimate, smaller: _Estimate) -> tuple[float, float]:
        """The error of ``smaller``'s estimate (its change from ``larger``'s, or its round-off), and relative.

        Relative to the estimates. Where both are exactly zero (a step function between its steps,
        or a step too small to change the function's value) relative to the largest estimate at
        larger steps, so that only round-off far below those counts as agreement.
        """
        error = max(_max_abs(larger.value - smaller.value), smaller.noise)
        reference = max(_max_abs(larger.value), _max_abs(smaller.value))
        if not reference:
            reference = max((_max_abs(e.value) for e in self.ladder), default=0.0) or self.largest / self.scale
        return error, error / reference if reference else 0.0

    def run(self) -> FDResult:
        """Down the ladder to the step whose estimate changes least; then up, if round-off decides there."""
        pairs = self.descend()
        ladder = self.ladder
        if not ladder:
            fdm = self.fdm
            low = self.scale * fdm.max_step * 10 ** (-(fdm.steps - 1) / 2)
            raise FloatingPointError(
                "finite differences: the function was not finite, or raised, at every step tried "
                f"({self.scale * fdm.max_step:g} down to {low:g} along the direction)"
            )
        if len(ladder) == 1:
            return self.result(ladder[0], math.inf)
        best = min(range(len(pairs)), key=lambda i: pairs[i][1])
        pairs = self.calibrated(pairs, best)
        best = min(range(len(pairs)), key=lambda i: pairs[i][1])
        error, relative, estimate = pairs[best]
        if best == 0 and error == ladder[1].noise and relative > self.target:
            error, estimate = self.climb(error, relative, estimate)
        return self.result(estimate, error)

    def calibrated(
        self, pairs: list[tuple[float, float, _Estimate]], best: int
    ) -> list[tuple[float, float, _Estimate]]:
        """``pairs`` with the round-off scaled to what the steps below the best one show, where that is more.

        Below the best step the estimates change by round-off alone. The model
        of it, ``ROUND_OFF * eps * |phi| / h``, is too low where ``phi`` is a
        small difference of large terms (``a sin(b t) + exp(t)`` near a zero):
        there the changes exceed it, and the median of their ratios to it
        scales the round-off of every step, so that a change that is small by
        coincidence is not taken for the error.
        """
        below = [error / estimate.noise for error, _, estimate in pairs[best + 1 :] if estimate.noise > 0]
        factor = float(np.median(below)) if len(below) >= 2 else 1.0
        if factor <= 1.0:
            return pairs
        scaled = []
        for error, relative, estimate in pairs:
            larger = max(error, factor * estimate.noise)
            scaled.append((larger, relative * larger / error if error else relative, estimate))
        return scaled

    def descend(self) -> list[tuple[float, float, _Estimate]]:
        """Fill the ladder; ``(error, relative error, estimate)`` of each estimate but the first."""
        fdm, ladder = self.fdm, self.ladder
        pairs: list[tuple[float, float, _Estimate]] = []
        for k in range(fdm.steps):
            estimate = self.stencil(self.scale * fdm.max_step * 10 ** (-k / 2))
            if estimate is None:
                continue
            if ladder:
                pairs.append((*self.judge(ladder[-1], estimate), estimate))
            ladder.append(estimate)
            scores = [relative for _, relative, _ in pairs]
            if len(scores) >= 4 and min(scores) <= math.sqrt(ROUND_OFF * self.eps):
                if scores[-1] > scores[-2] > scores[-3] > min(scores) or scores[-1] == scores[-2] == 0:
                    break  # past the best step, deep in the round-off regime, or exact
        return pairs

    def climb(self, error: float, relative: float, estimate: _Estimate) -> tuple[float, _Estimate]:
        """Round-off decides even at the largest step: the input is small next to the scale over which
        the function changes (exp near 0), so try larger steps while they help."""
        smaller = self.ladder[0]
        for j in range(1, _MAX_LARGER + 1):
            larger = self.stencil(self.ladder[0].step * 10 ** (j / 2))
            if larger is None:
                break
            larger_error, larger_relative = self.judge(larger, smaller)
            if larger_relative >= relative:
                break
            error, relative, estimate, smaller = larger_error, larger_relative, smaller, larger
            if relative <= self.target:
                break
        return error, estimate

    def result(self, estimate: _Estimate, error: float) -> FDResult:
        return FDResult(estimate.value, error, estimate.step, self.calls, self.largest / self.scale)


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
