"""Declared checks of the order-statistics rules (``chainrules.rules.numpy.quantiles``)."""

from __future__ import annotations

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.checks._tables import REAL_DTYPES
from chainrules.checks.numpy.reductions import SHAPE, SMALL_AXIS_GRID, with_nans
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing.cases import REALS, Arg, At, Case, Domain

CONTINUOUS = ("linear", "weibull", "hazen", "median_unbiased", "normal_unbiased", "interpolated_inverted_cdf")
DISCONTINUOUS = (
    "lower",
    "higher",
    "nearest",
    "midpoint",
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
)
METHODS = CONTINUOUS + DISCONTINUOUS
"""Every ``method=`` of numpy's quantile."""

_Q = Arg(Domain(0.05, 0.95, complex=False, name="(0.05, 0.95)"), ())
_QS = Arg(Domain(0.05, 0.95, complex=False, name="(0.05, 0.95)"), (3,))
_NANS = with_nans((3, 5), ((0, 1), (1, 0), (1, 3), (2, 4)))
_TIES = At([[1.0, 3.0, 3.0, 0.5, 2.0], [2.0, 2.0, 1.0, 4.0, 5.0], [0.5, 1.5, 4.0, 4.0, -1.0]])
"""Pairs of ties at the order statistics read: the central difference splits them evenly. (With k > 2 ties it
is not linear; the rules' 1/k each is checked exactly in tests/rules/numpy/test_quantiles.py.)"""

register_shipped_cases(
    "numpy.quantiles",
    *(Case(np.median, (Arg(REALS, SHAPE),), kwargs=kw) for kw in SMALL_AXIS_GRID),
    Case(np.median, (Arg(REALS, (6,)),), name="even count"),
    Case(np.median, (_TIES,), kwargs={"axis": 1}, name="ties", dtypes=REAL_DTYPES, smooth=False),
    Case(np.median, (_TIES,), kwargs={"axis": 0}, name="ties", dtypes=REAL_DTYPES, smooth=False),
    # continuous methods: q random (smooth in x and in q); discontinuous ones: q off the jumps, which for
    # n = 5 sit at multiples of 1/10
    *(
        Case(f, (Arg(REALS, (4, 5)), q), kwargs={"axis": 1, "method": m}, dtypes=REAL_DTYPES)
        for m in CONTINUOUS
        for f, q in ((np.quantile, _Q), (np.percentile, At(37.0)))
    ),
    *(
        Case(f, (Arg(REALS, (4, 5)), At(q)), kwargs={"axis": -1, "method": m}, dtypes=REAL_DTYPES)
        for m in DISCONTINUOUS
        for f, q in ((np.quantile, 0.37), (np.percentile, 63.0))
    ),
    *(Case(np.quantile, (Arg(REALS, SHAPE), _QS), kwargs=kw, dtypes=REAL_DTYPES) for kw in SMALL_AXIS_GRID),
    Case(np.percentile, (Arg(REALS, SHAPE), At([[13.0], [71.0]])), kwargs={"axis": (0, 2)}, dtypes=REAL_DTYPES),
    # q where the virtual index is an integer: a kink in q (the central difference) and the quantile is a sample
    Case(
        np.quantile,
        (Arg(REALS, (4, 5)), At(0.5)),
        kwargs={"axis": 1},
        name="at a sample",
        dtypes=REAL_DTYPES,
        smooth=False,
    ),
    Case(np.percentile, (Arg(REALS, (9,)), At(25.0)), name="at a sample", dtypes=REAL_DTYPES, smooth=False),
    Case(np.quantile, (_TIES, At(0.3)), kwargs={"axis": 1}, name="ties", dtypes=REAL_DTYPES, smooth=False),
    Case(
        np.quantile,
        (_TIES, At(0.65)),
        kwargs={"axis": 1, "method": "nearest"},
        name="ties",
        dtypes=REAL_DTYPES,
        smooth=False,
    ),
    Case(
        np.quantile,
        (Arg(REALS, (2, 5)), At(0.37)),
        kwargs={"axis": 1, "method": "inverted_cdf", "weights": np.array([[1.0, 2.0, 0.5, 1.0, 3.0]] * 2)},
        name="weights",
        dtypes=REAL_DTYPES,
    ),
    # q by keyword: a constant, as every keyword argument is
    Case(
        np.quantile,
        (Arg(REALS, (3, 5)),),
        kwargs={"q": np.array([0.2, 0.7]), "axis": 1},
        name="q by keyword",
        dtypes=REAL_DTYPES,
    ),
    Case(np.percentile, (Arg(REALS, (4, 5)),), kwargs={"q": 37.0}, name="q by keyword", dtypes=REAL_DTYPES),
    Case(
        np.nanquantile, (_NANS,), kwargs={"q": np.array([0.2, 0.7]), "axis": 1}, name="q by keyword", dtypes=REAL_DTYPES
    ),
    Case(np.nanpercentile, (_NANS,), kwargs={"q": 37.0}, name="q by keyword", dtypes=REAL_DTYPES),
    *(Case(np.nanmedian, (_NANS,), kwargs=kw) for kw in ({}, {"axis": 1}, {"axis": 0, "keepdims": True})),
    *(Case(np.nanquantile, (_NANS, _QS), kwargs=kw, dtypes=REAL_DTYPES) for kw in ({}, {"axis": 1})),
    Case(np.nanpercentile, (_NANS, At(37.0)), kwargs={"axis": 1, "method": "lower"}, dtypes=REAL_DTYPES),
    Case(np.nanpercentile, (_NANS, At(70.0)), kwargs={"axis": 0}, dtypes=REAL_DTYPES),
)

refuse_edges(
    "numpy.quantiles",
    np.nanquantile,
    ("empty", "zero batch"),
    "numpy's nanquantile of empty slices returns one NaN per slice whatever q's shape (its shape is not the output's)",
)
