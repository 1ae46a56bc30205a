"""Declared checks of the finite-difference and quadrature rules (``chainrules.rules.numpy.calculus``)."""

from __future__ import annotations

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing.cases import REALS, Arg, Case, Domain, Generated

STEP = Arg(Domain(0.5, 2.0, complex=False, name="(0.5, 2)"), ())


def coordinates(n: int) -> Generated:
    """Increasing sample coordinates, unevenly spaced (steps in [0.5, 1.5])."""
    return Generated(lambda rng, dtype: np.cumsum(rng.uniform(0.5, 1.5, n)), f"{n} coordinates")


register_shipped_cases(
    "numpy.calculus",
    *(
        Case(np.gradient, (Arg(REALS, shape), *spacing), kwargs=kw)
        for shape, spacing in (
            ((7,), ()),
            ((7,), (STEP,)),
            ((7,), (coordinates(7),)),
            ((4, 6), ()),
            ((4, 6), (STEP,)),
            ((4, 6), (coordinates(4), coordinates(6))),
            ((4, 6), (STEP, coordinates(6))),
        )
        for kw in ({}, {"edge_order": 2})
    ),
    Case(np.gradient, (Arg(REALS, (3, 4, 5)),), kwargs={"axis": (2, 0)}, name="axes"),
    Case(np.gradient, (Arg(REALS, (4, 6)), coordinates(6)), kwargs={"axis": -1, "edge_order": 2}, name="one axis"),
    Case(np.gradient, (Arg(REALS, (2, 3)),), name="two samples"),
    *(
        Case(np.trapezoid, (Arg(REALS, (3, 5)), *args), kwargs=kw)
        for args, kw in (
            ((), {}),
            ((coordinates(5),), {}),
            ((Generated(lambda rng, dtype: np.cumsum(rng.uniform(0.5, 1.5, (3, 5)), axis=1), "coordinates"),), {}),
            ((None, STEP), {}),
            ((None, 0.5, 0), {}),
            ((), {"x": np.linspace(0.0, 2.0, 5)}),
            ((), {"dx": 0.25, "axis": 0}),
        )
    ),
    Case(np.trapezoid, (Arg(REALS, (6,)), coordinates(6)), name="1-d"),
)

refuse_edges(
    "numpy.calculus",
    np.gradient,
    ("huge",),
    "numpy's gradient over coordinates multiplies spacings, which overflows from 1e154: its values there are 0 or "
    "NaN, while the rules differentiate the formula",
    where="coordinates",
)
