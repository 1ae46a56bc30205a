"""Declared checks of the cumulative rules (``chainrules.rules.cumulative``)."""

from __future__ import annotations

import numpy as np

from chainrules_core.testing.cases import REALS, Arg, At, Case, register_cases

_ZEROS = At([[2.0, 0.0, 3.0, 0.0, -1.5], [0.0, 1.5, 2.0, 0.5, 3.0], [1.0, 2.0, 0.5, -1.0, 0.0]])

register_cases(
    "cumulative",
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
)
