"""Declared checks of the cumulative rules (``chainrules.rules.numpy.cumulative``)."""

from __future__ import annotations

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.checks.numpy.reductions import with_nans
from chainrules_core.testing.cases import REALS, Arg, At, Case

_NANS = with_nans((3, 5), ((0, 1), (1, 4), (2, 0), (2, 2)))
_ARRAY_API = (np.cumulative_sum, np.cumulative_prod) if hasattr(np, "cumulative_sum") else ()  # numpy >= 2.1
_ZEROS = At([[2.0, 0.0, 3.0, 0.0, -1.5], [0.0, 1.5, 2.0, 0.5, 3.0], [1.0, 2.0, 0.5, -1.0, 0.0]])

register_shipped_cases(
    "numpy.cumulative",
    *(
        Case(f, (Arg(REALS, (2, 3, 4)),), kwargs=kw)
        for f in (np.cumsum, np.cumprod)
        for kw in ({}, {"axis": 0}, {"axis": 1}, {"axis": -1})
    ),
    Case(np.cumsum, (Arg(REALS, (3, 4)),), kwargs={"axis": 1, "dtype": np.float64}, dtypes=("float32",), name="dtype"),
    Case(np.cumprod, (Arg(REALS, (3, 4)),), kwargs={"axis": 0, "dtype": np.float64}, dtypes=("float32",), name="dtype"),
    Case(np.ndarray.cumsum, (Arg(REALS, (3, 4)), 0), name="method"),
    Case(np.ndarray.cumprod, (Arg(REALS, (3, 4)), 1), name="method"),
    *(Case(np.cumprod, (_ZEROS,), kwargs=kw, name="zeros") for kw in ({"axis": 1}, {"axis": 0}, {})),
    *(
        Case(np.diff, (Arg(REALS, (3, 5)), *args), kwargs=kw)
        for args, kw in (
            ((), {}),
            ((2,), {}),
            ((1, 0), {}),
            ((3, -1), {}),
            ((), {"axis": 0, "n": 2}),
            ((), {"prepend": 0.5, "append": np.array([[1.0], [2.0], [3.0]])}),
        )
    ),
    Case(np.diff, (Arg(REALS, (3, 5)), 1, 1, Arg(REALS, ()), Arg(REALS, (3, 2))), name="differentiable prepend"),
    Case(np.diff, (Arg(REALS, (4, 3)), 2, 0, Arg(REALS, (1, 3))), name="differentiable prepend"),
    *(Case(f, (_NANS,), kwargs=kw) for f in (np.nancumsum, np.nancumprod) for kw in ({}, {"axis": 0}, {"axis": 1})),
    Case(np.nancumprod, (At([[2.0, np.nan, 0.0, 3.0], [np.nan, 0.0, 1.5, 0.0]]),), kwargs={"axis": 1}, name="zeros"),
    *(
        Case(f, (Arg(REALS, shape),), kwargs=kw)
        for f in _ARRAY_API
        for shape, kw in (
            ((5,), {}),
            ((5,), {"include_initial": True}),
            ((3, 4), {"axis": 0}),
            ((3, 4), {"axis": 1, "include_initial": True}),
        )
    ),
    *(Case(f, (_ZEROS,), kwargs={"axis": 1}, name="zeros") for f in _ARRAY_API[1:]),
    *(
        Case(np.ediff1d, (Arg(REALS, (3, 4)), *args), kwargs=kw)
        for args, kw in (
            ((), {}),
            ((Arg(REALS, (2,)),), {}),
            ((Arg(REALS, ()), Arg(REALS, (2, 2))), {}),
            ((None, Arg(REALS, (3,))), {}),
            ((), {"to_begin": 1.0, "to_end": np.array([1.0, 2.0])}),
        )
    ),
    Case(np.ediff1d, (Arg(REALS, (1,)), Arg(REALS, ())), name="one entry"),
)
