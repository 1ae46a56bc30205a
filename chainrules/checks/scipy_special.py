"""Declared checks of the scipy.special rules (``chainrules.rules.scipy_special``), when scipy is installed."""

from __future__ import annotations

import numpy as np

from chainrules.checks._tables import INF, table_cases, unary
from chainrules_core.testing.cases import POSITIVE, REAL_ONLY, REALS, Arg, At, Case, Domain, register_cases

try:
    from scipy import special
except ImportError:  # scipy is optional: without it there is nothing to check
    special = None


def _cases() -> list[Case]:
    assert special is not None
    from chainrules.rules.scipy_special import SPECIAL

    checks = {
        special.expit: unary(REAL_ONLY),
        special.logit: unary(Domain(0.0, 1.0, complex=False, name="(0, 1), real only"), limits={0.0: INF, 1.0: INF}),
    }
    assert checks.keys() == SPECIAL.keys()
    cases = []
    for f, check in checks.items():
        cases += table_cases(f, check)
    for f in (special.softmax, special.log_softmax):
        cases += [
            Case(f, (Arg(REALS, (4,)),)),
            Case(f, (Arg(REALS, (2, 3)),), kwargs={"axis": 1}),
            Case(f, (Arg(REALS, (2, 3)), 0), name="positional axis"),
            Case(f, (Arg(REALS, (2, 3, 2)),), kwargs={"axis": (0, -1)}),
            Case(f, (Arg(REALS, (2, 3)),), name="all axes"),
        ]
    lse = special.logsumexp
    cases += [
        Case(lse, (Arg(REALS, None),)),
        Case(lse, (Arg(REALS, (4,)),)),
        Case(lse, (Arg(REALS, (2, 3)),), kwargs={"axis": -1}),
        Case(lse, (Arg(REALS, (2, 3)), 0), kwargs={"keepdims": True}, name="positional axis"),
        Case(lse, (Arg(REALS, (2, 3, 2)),), kwargs={"axis": (0, 2)}),
        Case(lse, (Arg(REALS, (2, 3)), 1, Arg(POSITIVE, (3,))), name="weights", dtypes=("float64", "float32")),
        Case(lse, (Arg(REALS, (2, 3)),), kwargs={"b": np.array([0.5, 1.0, 2.0])}, name="keyword weights"),
        Case(special.logit, (At([0.01, 0.5, 0.99]),), name="near the ends", dtypes=("float64",)),
        Case(special.expit, (At([-30.0, 0.0, 30.0]),), name="saturated", dtypes=("float64", "float32")),
    ]
    return cases


if special is not None:
    register_cases("scipy_special", *_cases())
