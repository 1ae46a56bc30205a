"""Declared checks of the signal rules (``chainrules.rules.numpy.signal``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.checks._tables import REAL_DTYPES
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing.cases import REAL_ONLY, REALS, Arg, Case, Generated

MODES = ("full", "same", "valid")
LENGTHS = ((6, 3), (3, 6), (5, 4), (4, 5), (5, 1))
"""Both orders of a long and a short input (numpy's ``same`` centres on the longer), even and odd."""


def _knots(n: int, start: float = 0.0) -> Generated:
    """Increasing sample points, at least 0.5 apart."""

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        return start + np.cumsum(rng.uniform(0.5, 1.5, n))

    return Generated(make, f"{n} increasing knots")


def _between(n: int) -> Generated:
    """Points inside and outside [1, 6], none within 0.05 of the knots of ``_XP``, nor (wrapped by a period of 6)
    within 0.2 of the unsorted knots of the period cases."""

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        return np.array([-0.9, 1.25, 2.6, 3.3, 4.55, 5.2, 7.4, 2.05][:n])

    return Generated(make, "between the knots")


def _real(values: Any, label: str) -> Generated:
    """Fixed real points (x and xp stay real when fp is complex)."""
    return Generated(lambda rng, dtype: np.array(values), label)


_XP = _real([1.0, 2.0, 3.5, 4.0, 6.0], "knots")
_PHASES = Generated(
    lambda rng, dtype: (np.cumsum(rng.uniform(-1.0, 1.0, 12)) + 2 * np.pi * rng.integers(-2, 3, 12)).astype(dtype),
    "wrapped phases",
)
"""Steps of at most 1 plus jumps of whole turns: every difference is more than 0.1 from the threshold pi."""

register_shipped_cases(
    "numpy.signal",
    *(
        Case(f, (Arg(REALS, (n,)), Arg(REALS, (m,)), mode))
        for f in (np.convolve, np.correlate)
        for n, m in LENGTHS
        for mode in MODES
    ),
    Case(np.convolve, (Arg(REALS, (4,)), Arg(REALS, (3,))), name="default mode"),
    Case(np.correlate, (Arg(REALS, (4,)), Arg(REALS, (3,))), kwargs={"mode": "same"}, name="keyword mode"),
    Case(np.convolve, (Arg(REALS, None), Arg(REALS, (3,))), name="scalar"),
    Case(np.interp, (_between(8), _XP, Arg(REALS, (5,)))),
    Case(np.interp, (_between(8), _XP, Arg(REALS, (5,)), Arg(REALS, None), Arg(REALS, None)), name="left and right"),
    Case(np.interp, (_between(8), _XP, Arg(REALS, (5,))), kwargs={"left": 0.0, "right": 2.0}, name="keyword ends"),
    Case(np.interp, (3.3, _XP, Arg(REALS, (5,))), name="scalar"),
    Case(np.interp, (Arg(REAL_ONLY, (6,)), _knots(5), Arg(REALS, (5,))), name="random points"),
    # at the knots the slope in x and xp jumps: the central difference, the mean of the slopes on either side
    Case(
        np.interp,
        (_real([1.0, 2.0, 3.5, 6.0], "at the knots"), _XP, Arg(REALS, (5,))),
        name="at the knots",
        smooth=False,
    ),
    Case(
        np.interp,
        (
            _between(8),
            _real([4.0, 0.5, 2.5, 1.0, 5.3], "unsorted knots"),
            Arg(REALS, (5,)),
            None,
            None,
            _real(6.0, "6"),
        ),
        name="period",
    ),
    Case(
        np.interp,
        (_between(8), _real([4.0, 0.5, 2.5, 1.0, 5.3], "unsorted knots"), Arg(REALS, (5,))),
        kwargs={"period": 6.0},
    ),
    Case(np.unwrap, (_PHASES,), dtypes=REAL_DTYPES),
    Case(
        np.unwrap,
        (Generated(lambda rng, dtype: np.stack([_PHASES.make(rng, dtype)] * 2, axis=1), "phases"), None, 0),
        dtypes=REAL_DTYPES,
    ),
)

_DECREASING = "numpy's interp needs increasing knots (its results are undefined otherwise): "
refuse_edges(
    "numpy.signal", np.interp, ("inf",), _DECREASING + "a first knot of +inf", where="argument 2 entry 0 = inf"
)
refuse_edges(
    "numpy.signal",
    np.interp,
    ("huge",),
    _DECREASING + "knots scaled by -1e300",
    where="x -1e+300",
    cases=lambda case: case.name != "period" and "period" not in case.kwargs,
)
refuse_edges(
    "numpy.signal",
    np.interp,
    ("huge",),
    "at 1e300 a period of 6 is far below the spacing of floats: the knots wrap onto one another (steps of 0)",
    cases=lambda case: case.kwargs.get("period") is not None,
)
refuse_edges(
    "numpy.signal",
    np.unwrap,
    ("huge",),
    "at 1e300 a period 2 pi is far below the spacing of floats: numpy's unwrap does not wrap anything there",
)
