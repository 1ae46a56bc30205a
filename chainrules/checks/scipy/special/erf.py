"""Declared checks of the error-function rules (``chainrules.rules.scipy.special.erf``), when scipy is installed."""

from __future__ import annotations

from chainrules.checks._tables import INF, TableCheck, unary
from chainrules.checks.scipy.special.logistic import point_cases, register_family
from chainrules.testing.edges import refuse_edges
from chainrules.testing.second_order import refuse_order2
from chainrules_core.testing.cases import REAL_ONLY, REALS, Arg, Case, Domain

try:
    from scipy import special
except ImportError:  # scipy is optional: without it there is nothing to check
    special = None


def _real(low: float, high: float) -> Domain:
    return Domain(low, high, complex=False, name=f"({low:g}, {high:g}), real only")


def _table_checks() -> dict[object, TableCheck]:
    """Where the inputs of each entry of ``ERROR_FUNCTIONS`` live."""
    assert special is not None
    return {
        special.erf: unary(REALS),
        special.erfc: unary(REALS),
        special.erfinv: unary(_real(-1.0, 1.0), limits={-1.0: INF, 1.0: INF}),
        special.erfcinv: unary(_real(0.0, 2.0), limits={0.0: -INF, 2.0: -INF}),
        special.erfcx: unary(REALS),
        special.erfi: unary(REALS),
        special.dawsn: unary(REALS),
        special.ndtr: unary(REALS),
        special.ndtri: unary(_real(0.0, 1.0), limits={0.0: INF, 1.0: INF}),
        special.log_ndtr: unary(REALS),
    }


TABLE_CHECKS: dict[object, TableCheck] = {} if special is None else _table_checks()


def _cases() -> list[Case]:
    assert special is not None
    cases: list[Case] = []
    # One point per case, as an error at one point hides behind a larger derivative at another. erfcx and dawsn
    # switch to their asymptotic series at |x| = 20; log_ndtr stays finite where ndtr underflows.
    far = {
        special.erfcx: (-3.0, 19.5, 20.0, 1e3, 1e6),
        special.dawsn: (-1e4, -20.0, 19.5, 1e6),
        special.log_ndtr: (-1e3, -40.0, 10.0),
        special.erfinv: (-0.999999, 1e-12),
        special.ndtri: (1e-30, 1e-10, 0.999999),
    }
    for f, points in far.items():
        cases += point_cases(f, points, name="far out")
    # Owen's T: scipy's is real; h of either sign, a on either side of 1 (where scipy switches methods)
    real = REAL_ONLY
    cases += [
        Case(special.owens_t, (Arg(real, None), Arg(real, None))),
        Case(special.owens_t, (Arg(real, (2, 1)), Arg(_real(-3.0, 3.0), (3,)))),
    ]
    return cases


if special is not None:
    from chainrules.rules.scipy.special.erf import ERROR_FUNCTIONS

    register_family("scipy.special.erf", ERROR_FUNCTIONS, TABLE_CHECKS, _cases())

    refuse_edges(
        "scipy.special.erf",
        special.erfinv,
        ("subnormal",),
        "erfinv near 0 at 1e-310: the argument's subnormal spacing leaves finite differences a few digits",
    )

    refuse_order2(
        "scipy.special.erf",
        special.ndtri,
        "ndtri's second derivative at 1e-30 is ndtri'² · ndtri ≈ -8.6e58, beyond float32's largest value "
        "(3.4e38): reverse over reverse gives inf in float32 whatever the rule does",
        where="far out",
        modes=("rrule",),
        dtypes=("float32",),
    )
