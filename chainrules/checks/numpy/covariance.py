"""Declared checks of the covariance rules (``chainrules.rules.numpy.covariance``)."""

from __future__ import annotations

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing.cases import POSITIVE_REAL_ONLY, REALS, Arg, Case

_M = Arg(REALS, (3, 6))
_Y = Arg(REALS, (2, 6))
_AWEIGHTS = Arg(POSITIVE_REAL_ONLY, (6,))
_FWEIGHTS = np.array([1, 2, 1, 3, 1, 2])

register_shipped_cases(
    "numpy.covariance",
    Case(np.cov, (Arg(REALS, (6,)),), name="one variable"),
    # corrcoef of one variable is the constant 1 (tests/rules/numpy/test_covariance.py checks its zero derivative)
    *(
        Case(f, args)
        for f in (np.cov, np.corrcoef)
        for args in (
            (_M,),
            (_M, _Y),
            (Arg(REALS, (6,)), Arg(REALS, (6,))),
            (Arg(REALS, (6, 3)), None, False),
            (Arg(REALS, (6, 3)), Arg(REALS, (6, 2)), False),
        )
    ),
    Case(np.cov, (_M, None, True, True), name="bias"),
    Case(np.cov, (_M,), kwargs={"ddof": 3}, name="ddof"),
    Case(np.cov, (_M,), kwargs={"fweights": _FWEIGHTS}, name="fweights"),
    Case(np.cov, (_M,), kwargs={"aweights": np.linspace(0.5, 2.0, 6)}, name="keyword aweights"),
    *(
        Case(np.cov, (_M, None, True, False, ddof, fweights, _AWEIGHTS), name="positional aweights")
        for ddof in (None, 0, 2)
        for fweights in (None, _FWEIGHTS)
    ),
)

for _f in (np.cov, np.corrcoef):
    refuse_edges(
        "numpy.covariance",
        _f,
        ("empty",),
        "numpy returns an empty (0, 0) result when m has no variables, whatever y holds; the rules join m and y",
    )
