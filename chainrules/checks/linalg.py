"""Declared checks of the linalg rules (``chainrules.rules.linalg``)."""

from __future__ import annotations

import numpy as np

from chainrules.checks._matrices import well_conditioned
from chainrules_core.testing.cases import REALS, Arg, At, Case, register_cases

_RANK_ONE = [[1.0, 2.0], [2.0, 4.0]]
_RANK_TWO = [[2.0, 1.0, 3.0], [1.0, 0.5, 1.5], [0.0, 1.0, 1.0]]  # rows 1 and 2 are parallel

register_cases(
    "linalg",
    Case(np.linalg.inv, (well_conditioned((3, 3)),)),
    Case(np.linalg.inv, (well_conditioned((2, 3, 3)),)),
    Case(np.linalg.solve, (well_conditioned((3, 3)), Arg(REALS, (3,)))),
    Case(np.linalg.solve, (well_conditioned((3, 3)), Arg(REALS, (3, 2)))),
    Case(np.linalg.solve, (well_conditioned((2, 3, 3)), Arg(REALS, (3,))), name="one vector for a stack"),
    Case(np.linalg.solve, (well_conditioned((2, 3, 3)), Arg(REALS, (2, 3, 2)))),
    Case(np.linalg.solve, (well_conditioned((3, 3)), Arg(REALS, (2, 3, 1))), name="one matrix for a stack"),
    Case(np.linalg.solve, (well_conditioned((2, 1, 3, 3)), Arg(REALS, (4, 3, 2))), name="batch broadcasting"),
    Case(np.linalg.det, (well_conditioned((3, 3)),)),
    Case(np.linalg.det, (Arg(REALS, (4, 4)),)),
    Case(np.linalg.det, (well_conditioned((2, 3, 3)),)),
    Case(np.linalg.det, (At(_RANK_ONE),), name="singular"),
    Case(np.linalg.det, (At(_RANK_TWO),), name="singular, rank n - 1"),
    Case(np.linalg.det, (At([_RANK_TWO, np.eye(3).tolist()]),), name="a stack with one singular matrix"),
    Case(np.linalg.slogdet, (well_conditioned((3, 3)),)),
    Case(np.linalg.slogdet, (Arg(REALS, (2, 3, 3)),), name="signs of both kinds"),
)
