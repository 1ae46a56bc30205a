"""Declared checks of the statistics rules (``chainrules.rules.numpy.statistics``)."""

from __future__ import annotations

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.checks.numpy.reductions import AXIS_GRID, NANS, SHAPE, SMALL_AXIS_GRID
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing.cases import POSITIVE, REALS, Arg, At, Case

register_shipped_cases(
    "numpy.statistics",
    *(Case(f, (Arg(REALS, SHAPE),), kwargs=kw) for f in (np.var, np.std) for kw in AXIS_GRID),
    *(Case(f, (Arg(REALS, (3, 4)),), kwargs={"axis": 1, "ddof": 1}, name="ddof") for f in (np.var, np.std)),
    *(Case(f, (Arg(REALS, (3, 4)), 0, None, None, 2), name="positional ddof") for f in (np.var, np.std)),
    *(Case(f, (Arg(REALS, (3, 4)),), kwargs={"correction": 1}, name="correction") for f in (np.var, np.std)),
    Case(np.var, (Arg(REALS, (3, 4)),), kwargs={"axis": 0, "dtype": np.float64}, dtypes=("float32",), name="dtype"),
    Case(np.ndarray.var, (Arg(REALS, SHAPE), (0, 2)), name="method"),
    Case(np.ndarray.std, (Arg(REALS, SHAPE), -1), name="method"),
    Case(np.std, (At([[1.0, 2.0, 4.0], [3.0, -1.0, 0.5]]),), kwargs={"axis": 1}, name="fixed point"),
    *(Case(f, (NANS,), kwargs=kw) for f in (np.nanvar, np.nanstd) for kw in SMALL_AXIS_GRID),
    *(Case(f, (NANS,), kwargs={"axis": 2, "ddof": 1}, name="ddof") for f in (np.nanvar, np.nanstd)),
    # average: unweighted; weights of a's shape, along one axis and along a tuple of axes (positional, so
    # differentiable); by keyword (constants); returned=True (the sum of the weights is the second output)
    *(Case(np.average, (Arg(REALS, SHAPE), *args)) for args in ((), (1,), ((0, 2),), (None, None, True))),
    Case(np.average, (Arg(REALS, SHAPE), None, Arg(POSITIVE, SHAPE))),
    Case(np.average, (Arg(REALS, SHAPE), 1, Arg(POSITIVE, (3,)))),
    Case(np.average, (Arg(REALS, SHAPE), (2, 0), Arg(POSITIVE, (4, 2))), name="weights in axis order"),
    Case(np.average, (Arg(REALS, SHAPE), -1, Arg(POSITIVE, (4,)), True), name="returned"),
    Case(np.average, (Arg(REALS, (3, 4)), 0), kwargs={"weights": np.array([0.5, 2.0, 1.0])}, name="keyword weights"),
    Case(np.average, (Arg(REALS, (3, 4)), 1, Arg(POSITIVE, (4,))), kwargs={"keepdims": True}, name="keepdims"),
    # 2-d inputs (tangents and arguments Fortran-ordered among the variants), with and without weights and axis
    *(
        Case(np.average, (Arg(REALS, (3, 4)), *args), name="2-d")
        for args in (
            (),
            (1,),
            (None, Arg(POSITIVE, (3, 4))),
            (0, Arg(POSITIVE, (3,))),
        )
    ),
    Case(np.average, (Arg(REALS, (3, 4)), 1, Arg(POSITIVE, (3, 4)), True), name="2-d, returned"),
    Case(np.bincount, (np.array([0, 3, 3, 1, 5]), Arg(REALS, (5,))), dtypes=("float64", "float32")),
    Case(np.bincount, (np.array([2, 0, 2]), Arg(REALS, (3,)), 6), name="minlength", dtypes=("float64", "float32")),
    Case(
        np.bincount,
        (np.array([1, 1]), Arg(REALS, (2,))),
        kwargs={"minlength": 4},
        name="minlength by keyword",
        dtypes=("float64", "float32"),
    ),
)

refuse_edges(
    "numpy.statistics",
    np.average,
    ("size 1",),
    "a single weight: the average does not depend on it, and finite differences see only its rounding",
)
refuse_edges(
    "numpy.statistics",
    np.average,
    ("tiny", "subnormal"),
    "numpy computes a weighted average as sum(w a) / sum(w): w a underflows at 1e-300, so its average is 0 there",
    where="returned",
)
