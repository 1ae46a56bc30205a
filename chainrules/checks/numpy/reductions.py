"""Declared checks of the reductions rules (``chainrules.rules.numpy.reductions``)."""

from __future__ import annotations

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing.cases import REALS, Arg, At, Case, Generated

SHAPE = (2, 3, 4)
AXES = (None, 0, 1, 2, -1, (0, 2))
AXIS_GRID = tuple({"axis": axis, "keepdims": keepdims} for axis in AXES for keepdims in (False, True))
"""Every axis of a 3-d input (negative and tuple too), with ``keepdims`` both ways."""
SMALL_AXIS_GRID = ({}, {"axis": 1}, {"axis": -1, "keepdims": True}, {"axis": (0, 2)})
"""For the variants of a rule already run over ``AXIS_GRID``: all axes, one, a negative one kept, a tuple."""

REDUCTIONS = (np.sum, np.prod, np.mean, np.max, np.amax, np.min, np.amin, np.ptp)
NAN_REDUCTIONS = (np.nansum, np.nanprod, np.nanmean, np.nanmax, np.nanmin)


def with_nans(shape: tuple[int, ...], at: tuple[tuple[int, ...], ...]) -> Generated:
    """Normal samples of ``shape`` with NaN at the positions ``at`` (no slice of NaNs only: finite differences
    need a finite output; tests check those slices exactly)."""

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        values = REALS.sample_complex(rng, shape) if np.dtype(dtype).kind == "c" else REALS.sample(rng, shape)
        values = values.astype(dtype)
        for index in at:
            values[index] = np.nan
        return values

    return Generated(make, f"{shape} with NaNs")


NANS = with_nans(SHAPE, ((0, 0, 1), (1, 2, 3), (0, 2, 0), (1, 1, 1)))

_ZEROS = At([[0.0, 2.0, 3.0], [0.0, 0.0, 5.0], [4.0, 0.0, 1.5], [1.0, 2.0, -1.0]])
_ONE_ZERO = At([[0.5, 2.0, 3.0], [1.5, 0.0, -5.0]])
_TIES = At([[1.0, 3.0, 3.0], [2.0, 2.0, 1.0], [-1.0, 0.5, -1.0], [0.0, 7.0, 6.0]])

register_shipped_cases(
    "numpy.reductions",
    *(Case(f, (Arg(REALS, SHAPE),), kwargs=kw) for f in REDUCTIONS for kw in AXIS_GRID),
    *(
        Case(method, (Arg(REALS, SHAPE), *args), name="method")
        for method, args in (
            (np.ndarray.sum, (1,)),
            (np.ndarray.prod, ((0, 2),)),
            (np.ndarray.mean, (-1,)),
            (np.ndarray.max, (0,)),
            (np.ndarray.min, (None,)),
            (np.ndarray.trace, (1, 1, 2)),
        )
    ),
    Case(np.sum, (Arg(REALS, (3, 4)), 1), name="positional axis"),
    Case(np.sum, (Arg(REALS, (3, 4)),), kwargs={"axis": 0, "dtype": np.float64}, dtypes=("float32",), name="dtype"),
    Case(np.sum, (Arg(REALS, (3, 4)),), kwargs={"dtype": np.complex128}, dtypes=("float32",), name="to complex"),
    Case(np.mean, (Arg(REALS, (3, 4)),), kwargs={"axis": 1, "dtype": np.float64}, dtypes=("float32",), name="dtype"),
    Case(np.prod, (Arg(REALS, (3, 4)),), kwargs={"axis": 0, "dtype": np.float64}, dtypes=("float32",), name="dtype"),
    Case(np.sum, (Arg(REALS, (3, 4)),), kwargs={"axis": 1, "where": np.array([True, False, True, True])}),
    Case(np.mean, (Arg(REALS, (3, 4)),), kwargs={"axis": 1, "where": np.array([True, False, True, True])}),
    Case(np.prod, (Arg(REALS, (3, 4)),), kwargs={"axis": 0, "where": np.array([True, False, True, True])}),
    Case(np.sum, (Arg(REALS, (3, 4)),), kwargs={"initial": 2.5}, name="initial"),
    Case(np.prod, (Arg(REALS, (3, 4)),), kwargs={"axis": 1, "initial": 2.5}, name="initial"),
    Case(np.max, (Arg(REALS, (3, 4)),), kwargs={"axis": 1, "initial": -10.0}, name="initial"),
    Case(np.sum, (Arg(REALS, None),), name="python scalar"),
    Case(np.prod, (Arg(REALS, ()),), name="0-d"),
    # a 0-d input: its cotangent is a 0-d array of its dtype whatever the seed's form (array, numpy or Python scalar)
    *(Case(f, (Arg(REALS, ()),), name="0-d") for f in (*REDUCTIONS, *NAN_REDUCTIONS) if f is not np.prod),
    *(Case(f, (Arg(REALS, ()), 0), name="0-d, axis 0") for f in (np.sum, np.max, np.nanmean)),
    # A full product with several zeros has a zero gradient that finite differences cannot
    # settle (the product vanishes to high order); tests/rules/numpy/test_reductions.py checks it exactly.
    Case(np.prod, (_ONE_ZERO,), name="a zero"),
    *(Case(np.prod, (_ZEROS,), kwargs=kw, name="zeros") for kw in ({"axis": 0}, {"axis": 1}, {"axis": -1})),
    *(
        Case(f, (_TIES,), kwargs=kw, name="ties", smooth=False)
        for f in (np.max, np.min, np.ptp, np.nanmax, np.nanmin)
        for kw in ({"axis": 1}, {"axis": 0}, {})
    ),
    *(Case(f, (NANS,), kwargs=kw) for f in NAN_REDUCTIONS for kw in SMALL_AXIS_GRID),
    Case(np.nansum, (NANS,), kwargs={"axis": 1, "where": np.array([True, False, True, True])}, name="where"),
    Case(np.nanmax, (NANS,), kwargs={"axis": 2, "initial": -10.0}, name="initial", dtypes=("float64", "float32")),
    Case(np.nanprod, (At([[0.0, np.nan, 2.0], [np.nan, 0.5, -1.5]]),), kwargs={"axis": 1}, name="a zero"),
    Case(np.ptp, (At([[2.0, 2.0, 2.0], [1.0, 3.0, 0.5]]),), kwargs={"axis": 1}, name="constant slice", smooth=False),
    *(
        Case(np.trace, (Arg(REALS, shape), *args))
        for shape, args in (
            ((3, 3), ()),
            ((3, 4), (1,)),
            ((4, 3), (-2,)),
            ((2, 3, 4), (0, 2, 0)),
            ((2, 3, 4), (1, -1, 1)),
        )
    ),
)

refuse_edges(
    "numpy.reductions",
    np.prod,
    ("huge",),
    "the product of the other entries overflows to inf at 1e300, and inf times a zero is NaN where a zero factor "
    "makes the derivative 0 or a product of finite numbers",
    where="zeros",
)
