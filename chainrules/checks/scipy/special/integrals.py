"""Declared checks of the integrals' rules (``chainrules.rules.scipy.special.integrals``), when scipy is installed."""

from __future__ import annotations

import math

from chainrules.checks._tables import INF, UNARY_SHAPES, TableCheck, unary
from chainrules.checks.scipy.special.logistic import order_cases, point_cases, register_family
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing.cases import (
    NONZERO_REAL_ONLY,
    POSITIVE,
    POSITIVE_REAL_ONLY,
    REALS,
    Arg,
    Case,
    Domain,
)

try:
    from scipy import special
except ImportError:  # scipy is optional: without it there is nothing to check
    special = None

BELOW_ONE = Domain(-math.inf, 1.0, complex=False, name="(-inf, 1), real only")


def _table_checks() -> dict[object, TableCheck]:
    """Where the inputs of each entry of ``INTEGRALS`` live (``expn``'s integer order: ``_cases``)."""
    assert special is not None
    return {
        # complex arguments off the cut along the negative real axis
        special.expi: unary(POSITIVE, limits={0.0: INF}),
        special.exp1: unary(POSITIVE, limits={0.0: -INF}),
        special.spence: unary(POSITIVE, points=(1.0,), limits={0.0: -INF}),
        special.ellipk: unary(BELOW_ONE, points=(0.0,), limits={1.0: INF}),
        special.ellipe: unary(BELOW_ONE, points=(0.0,), limits={1.0: -INF}),
    }


TABLE_CHECKS: dict[object, TableCheck] = {} if special is None else _table_checks()


def _cases() -> list[Case]:
    assert special is not None
    cases: list[Case] = []
    cases += order_cases(special.expn, POSITIVE_REAL_ONLY)
    # the series of the elliptic integrals' derivatives below |m| = 0.01, and the direct formula just above
    for f in (special.ellipk, special.ellipe):
        cases += point_cases(f, (-0.0099, 1e-12, 0.0101), name="near 0")
    cases.append(Case(special.expi, (Arg(NONZERO_REAL_ONLY, (2, 3)),), name="negative too"))
    cases += [Case(special.sici, (Arg(NONZERO_REAL_ONLY, s),)) for (s,) in UNARY_SHAPES]
    cases.append(Case(special.sici, (Arg(POSITIVE, (2, 3)),), name="complex", dtypes=("complex128",)))
    cases += [Case(special.fresnel, (Arg(REALS, s),)) for (s,) in ((None,), ((2, 3),))]
    return cases


if special is not None:
    from chainrules.rules.scipy.special.integrals import INTEGRALS

    register_family("scipy.special.integrals", INTEGRALS, TABLE_CHECKS, _cases(), elsewhere=(special.expn,))

    refuse_edges(
        "scipy.special.integrals",
        special.sici,
        ("huge",),
        "Si' = sin(x)/x and Ci' = cos(x)/x turn far below the finite-difference steps at 1e300",
    )
