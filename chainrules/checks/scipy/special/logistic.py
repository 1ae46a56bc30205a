"""Declared checks of the scipy.special rules (``chainrules.rules.scipy.special.logistic``), when scipy is installed."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.checks._tables import INF, REAL_DTYPES, TableCheck, table_cases, unary
from chainrules_core.testing import no_tangent
from chainrules_core.testing.cases import POSITIVE, REAL_ONLY, REALS, Arg, At, Case, Domain

try:
    from scipy import special
except ImportError:  # scipy is optional: without it there is nothing to check
    special = None


def _table_checks() -> dict[object, TableCheck]:
    """Where the inputs of each entry of ``SPECIAL`` live."""
    assert special is not None
    return {
        special.expit: unary(REAL_ONLY),
        special.logit: unary(Domain(0.0, 1.0, complex=False, name="(0, 1), real only"), limits={0.0: INF, 1.0: INF}),
        special.log_expit: unary(REAL_ONLY),
        special.softplus: unary(REAL_ONLY),
    }


TABLE_CHECKS: dict[object, TableCheck] = {} if special is None else _table_checks()


def _cases() -> list[Case]:
    assert special is not None
    cases: list[Case] = []
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
        *point_cases(special.log_expit, (-800.0, 40.0), name="saturated"),
        *point_cases(special.softplus, (-40.0, 800.0), name="saturated"),
    ]
    return cases


def point_cases(
    f: Callable[..., Any],
    points: Sequence[Any],
    *,
    name: str,
    before: tuple[Any, ...] = (),
    after: tuple[Any, ...] = (),
    dtypes: tuple[str, ...] = REAL_DTYPES,
) -> list[Case]:
    """One case per point, between the arguments ``before`` and ``after``: in one array, an error at one point
    would hide behind a much larger derivative at another."""
    return [Case(f, (*before, At(np.array(p)), *after), name=name, dtypes=dtypes) for p in points]


def order_cases(f: Callable[..., Any], domain: Domain, *, real_order: bool = False) -> list[Case]:
    """Cases of ``f(order, x)`` with ``x`` in ``domain``: integer orders (``NoTangent()``) over the usual shapes and
    broadcast against ``x``; with ``real_order``, real orders too, whose cotangent is not implemented, so they get
    no tangent (and ``x`` stays positive, where every real order is defined)."""
    cases = [
        Case(f, (1, Arg(domain, None))),
        Case(f, (0, Arg(domain, ()))),
        Case(f, (2, Arg(domain, (3,)))),
        Case(f, (np.array([[0], [1], [3]]), Arg(domain, (3,))), name="integer orders"),
    ]
    if real_order:
        cases.append(Case(f, (no_tangent(2.5), Arg(POSITIVE, ())), name="real order"))
        cases.append(Case(f, (no_tangent(np.array([0.5, 1.5, 2.25])), Arg(POSITIVE, (2, 3))), name="real orders"))
    return cases


def register_family(
    family: str,
    table: Mapping[Any, Any],
    checks: Mapping[Any, TableCheck],
    cases: list[Case],
    *,
    elsewhere: tuple[Any, ...] = (),
) -> None:
    """File under ``family`` the cases of every entry of a derivative ``table`` (its shapes, points and limits, from
    ``checks``) and ``cases``; each entry needs a check, but those ``elsewhere``, which ``cases`` check."""
    unchecked = table.keys() - checks.keys() - set(elsewhere)
    assert not unchecked and checks.keys() <= table.keys(), f"{family}: entries without checks: {unchecked}"
    register_shipped_cases(family, *[c for f, check in checks.items() for c in table_cases(f, check)], *cases)


if special is not None:
    from chainrules.rules.scipy.special.logistic import SPECIAL

    register_family("scipy.special.logistic", SPECIAL, TABLE_CHECKS, _cases())
