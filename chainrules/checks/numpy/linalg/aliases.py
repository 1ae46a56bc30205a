"""Declared checks of the array-API ``numpy.linalg`` rules (``chainrules.rules.numpy.linalg.aliases``)."""

from __future__ import annotations

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules_core.testing.cases import REALS, Arg, Case

if hasattr(np.linalg, "vecdot"):
    register_shipped_cases(
        "numpy.linalg.aliases",
        Case(np.linalg.vecdot, (Arg(REALS, (4, 3)), Arg(REALS, (4, 3)))),
        Case(np.linalg.vecdot, (Arg(REALS, (2, 1, 3)), Arg(REALS, (4, 3))), name="broadcast"),
        Case(np.linalg.vecdot, (Arg(REALS, (3, 4)), Arg(REALS, (3, 1))), kwargs={"axis": 0}),
        Case(np.linalg.vecdot, (Arg(REALS, (5,)), Arg(REALS, (5,))), name="two vectors"),
        Case(np.linalg.cross, (Arg(REALS, (4, 3)), Arg(REALS, (4, 3)))),
        Case(np.linalg.cross, (Arg(REALS, (2, 1, 3)), Arg(REALS, (4, 3))), name="broadcast"),
        Case(np.linalg.cross, (Arg(REALS, (3, 2)), Arg(REALS, (3, 2))), kwargs={"axis": 0}),
        Case(np.linalg.diagonal, (Arg(REALS, (2, 3, 4)),)),
        Case(np.linalg.diagonal, (Arg(REALS, (3, 4)),), kwargs={"offset": 1}),
        Case(np.linalg.diagonal, (Arg(REALS, (2, 4, 3)),), kwargs={"offset": -2}),
        Case(np.linalg.trace, (Arg(REALS, (2, 3, 4)),)),
        Case(np.linalg.trace, (Arg(REALS, (3, 3)),), kwargs={"offset": -1}),
        Case(np.linalg.trace, (Arg(REALS, (2, 3, 3)),), kwargs={"dtype": np.complex128}, name="to complex"),
        Case(np.linalg.matrix_transpose, (Arg(REALS, (2, 3, 4)),)),
        Case(np.linalg.matrix_transpose, (Arg(REALS, (3, 4)),)),
    )
