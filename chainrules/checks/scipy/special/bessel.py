"""Declared checks of the Bessel-function rules (``chainrules.rules.scipy.special.bessel``), when scipy is installed."""

from __future__ import annotations

from chainrules.checks._tables import TableCheck, unary
from chainrules.checks.scipy.special.logistic import order_cases, point_cases, register_family
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing.cases import POSITIVE, POSITIVE_REAL_ONLY, REAL_ONLY, REALS, Arg, Case

try:
    from scipy import special
except ImportError:  # scipy is optional: without it there is nothing to check
    special = None


def _table_checks() -> dict[object, TableCheck]:
    """Where the inputs of each entry of ``BESSEL`` live (scipy takes real arguments only)."""
    assert special is not None
    return {
        special.j0: unary(REAL_ONLY),
        special.j1: unary(REAL_ONLY, points=(0.0,)),
        special.y0: unary(POSITIVE_REAL_ONLY),
        special.y1: unary(POSITIVE_REAL_ONLY),
        special.i0: unary(REAL_ONLY),
        special.i1: unary(REAL_ONLY, points=(0.0,)),
        special.i0e: unary(REAL_ONLY, points=(0.0,)),  # the kink of exp(-|x|): the central difference, 0
        special.i1e: unary(REAL_ONLY, points=(0.0,)),
    }


TABLE_CHECKS: dict[object, TableCheck] = {} if special is None else _table_checks()


def _cases() -> list[Case]:
    assert special is not None
    cases: list[Case] = []
    # integer orders on the whole real line where the function is real there; real orders on x > 0
    for f in (special.jv, special.iv, special.ive):
        cases += order_cases(f, REALS, real_order=True)
    for f in (special.yv, special.kv, special.kve):
        cases += order_cases(f, POSITIVE, real_order=True)
    cases += order_cases(special.yn, POSITIVE_REAL_ONLY)
    cases += point_cases(special.ive, (-2.0, 0.0, 3.0), before=(1,), name="through 0")
    cases.append(Case(special.ive, (1, Arg(REALS, (3,))), kwargs={"dtype": "float64"}, dtypes=("float32",)))
    return cases


if special is not None:
    from chainrules.rules.scipy.special.bessel import BESSEL

    register_family("scipy.special.bessel", BESSEL, TABLE_CHECKS, _cases())

    refuse_edges(
        "scipy.special.bessel",
        special.ive,
        ("tiny",),
        "scipy's ive(1, x) is 0 below x of about 7e-305, where it is x / 2 (ive(1, 1e-300) = 5e-301): finite "
        "differences of steps that small from 0 read 0, where the rule's (ive(0, x) + ive(2, x)) / 2 is 1/2",
        where="through 0",
    )
