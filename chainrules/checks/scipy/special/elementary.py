"""Declared checks of the elementary functions' rules (``chainrules.rules.scipy.special.elementary``), when scipy is
installed."""

from __future__ import annotations

import math

import numpy as np

from chainrules.checks._tables import INF, UNARY_SHAPES, TableCheck, binary, unary
from chainrules.checks.scipy.special.logistic import point_cases, register_family
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing import no_tangent
from chainrules_core.testing.cases import (
    NONZERO_REAL_ONLY,
    POSITIVE,
    POSITIVE_REAL_ONLY,
    REAL_ONLY,
    REALS,
    Arg,
    At,
    Case,
    Domain,
)

try:
    from scipy import special
except ImportError:  # scipy is optional: without it there is nothing to check
    special = None

COMPLEX = ("complex128",)
ABOVE_MINUS_ONE = Domain(-1.0, math.inf, name="(-1, inf)")
ABOVE_BRANCH_POINT = Domain(-1 / math.e, math.inf, name="(-1/e, inf)")
"""Lambert W's principal branch is real there; complex samples stay off its cut (-inf, -1/e]."""


def _table_checks() -> dict[object, TableCheck]:
    """Where the inputs of each entry of ``ELEMENTARY`` live, and the conventions at x == 0."""
    assert special is not None
    no_log = {(0.0, 0.0): (0.0, 0.0), (0.0, -1.0): (0.0, 0.0)}  # 0 log y with y <= 0: 0 for both
    return {
        special.xlogy: binary(REALS, POSITIVE, points=[(0.0, 2.0)], limits=no_log),
        special.xlog1py: binary(
            REALS, ABOVE_MINUS_ONE, points=[(0.0, 1.0)], limits={(0.0, y - 1): d for (_, y), d in no_log.items()}
        ),
        special.entr: unary(POSITIVE_REAL_ONLY, limits={0.0: INF}),
        special.rel_entr: binary(POSITIVE_REAL_ONLY, POSITIVE_REAL_ONLY, limits={(0.0, 1.0): (-INF, 0.0)}),
        special.kl_div: binary(POSITIVE_REAL_ONLY, POSITIVE_REAL_ONLY, limits={(0.0, 1.0): (-INF, 1.0)}),
        # at lmbda == 0 (log x) the derivative in lmbda is log(x)²/2
        special.boxcox: binary(POSITIVE_REAL_ONLY, REAL_ONLY, points=[(2.0, 0.0), (0.5, 0.0)]),
        special.boxcox1p: binary(Domain(-1.0, math.inf, complex=False), REAL_ONLY, points=[(1.0, 0.0), (-0.5, 0.0)]),
        special.exp10: unary(REAL_ONLY),
        special.cbrt: unary(NONZERO_REAL_ONLY, limits={0.0: INF}),
    }


TABLE_CHECKS: dict[object, TableCheck] = {} if special is None else _table_checks()


def _cases() -> list[Case]:
    assert special is not None
    cases: list[Case] = []
    # the series of the derivative in lmbda for |lmbda log x| < 0.1, the direct formula beyond (log 2.5 = 0.92)
    for f in (special.boxcox, special.boxcox1p):
        cases += point_cases(f, (-0.12, 1e-12, 0.1), before=(At(np.array(2.5)),), name="small lmbda")
    lambertw = special.lambertw
    return [
        *cases,
        *[Case(lambertw, (Arg(ABOVE_BRANCH_POINT, s),)) for (s,) in UNARY_SHAPES],
        *point_cases(lambertw, (-0.3, 0.0, 1e-8, 50.0), name="real"),
        *point_cases(lambertw, (1.0 + 1.0j, -0.2 + 0.5j, 3.0 - 2.0j), after=(-1,), name="branch -1", dtypes=COMPLEX),
        Case(lambertw, (Arg(POSITIVE, (3,)), 1, no_tangent(1e-10)), name="branch 1, tol", dtypes=COMPLEX),
    ]


if special is not None:
    from chainrules.rules.scipy.special.elementary import ELEMENTARY

    register_family("scipy.special.elementary", ELEMENTARY, TABLE_CHECKS, _cases())

    refuse_edges(
        "scipy.special.elementary",
        special.lambertw,
        ("inf",),
        "at an infinite z scipy returns inf + i (Im z + 2 pi k) (pi more at -inf): its imaginary part moves with "
        "Im z one to one, where W's derivative exp(-W) / (1 + W) tends to 0",
        where="argument 1 entry 0 = ",
        cases=lambda case: case.args[1:2] != () and case.args[1] in (-1, 1),
    )
    refuse_edges(
        "scipy.special.elementary",
        special.lambertw,
        ("inf",),
        "a tolerance of inf stops scipy after its first Halley step: the value is not W, whose derivative the "
        "rule gives",
        where="argument 3 entry 0 = inf",
    )
    refuse_edges(
        "scipy.special.elementary",
        special.lambertw,
        ("subnormal",),
        "W(z) = z to the last bit at z = 1e-318 (scipy's values show it), so W' = 1 and the rule's tangent is dz; "
        "the complex difference quotients of subnormal values read 0",
    )
