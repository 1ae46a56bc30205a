"""Declared checks of the hypergeometric rules (``chainrules.rules.scipy.special.hypergeometric``), when scipy is
installed: over JAX's test ranges, hyp1f1 on (0.5, 30) and hyp2f1 on (0.1, 0.9), and beyond them at points."""

from __future__ import annotations

from chainrules.checks._tables import REAL_DTYPES
from chainrules.checks.scipy.special.logistic import register_family
from chainrules_core.testing.cases import Arg, At, Case, Domain

try:
    from scipy import special
except ImportError:  # scipy is optional: without it there is nothing to check
    special = None

JAX_HYP1F1 = Domain(0.5, 30.0, complex=False, name="(0.5, 30), real only")
JAX_HYP2F1 = Domain(0.1, 0.9, complex=False, name="(0.1, 0.9), real only")
SMALL = Domain(0.5, 5.0, complex=False, name="(0.5, 5), real only")
NEGATIVE = Domain(-15.0, -0.5, complex=False, name="(-15, -0.5), real only")
F64 = ("float64",)


def _cases() -> list[Case]:
    assert special is not None
    m, f = JAX_HYP1F1, JAX_HYP2F1
    # x in bounded domains only: scipy's hyp1f1 does not return for x from about 1e150 on (nor at inf), which the
    # edge sweep would reach by scaling a point
    return [
        Case(special.hyp1f1, (Arg(m, None), Arg(m, None), Arg(m, None)), dtypes=REAL_DTYPES),
        Case(special.hyp1f1, (Arg(m, ()), Arg(m, (3,)), Arg(m, (2, 3))), dtypes=F64),
        Case(special.hyp1f1, (Arg(SMALL, (3,)), At(1.3), Arg(NEGATIVE, (3,))), name="Kummer", dtypes=F64),
        Case(special.hyp1f1, (At(-2.0), At(1.3), Arg(SMALL, (2,))), name="polynomial", dtypes=F64),
        Case(special.hyp2f1, (Arg(f, None), Arg(f, None), Arg(f, None), Arg(f, None)), dtypes=REAL_DTYPES),
        Case(special.hyp2f1, (Arg(f, (3,)), Arg(f, ()), Arg(f, (2, 1)), Arg(f, (3,))), dtypes=F64),
        Case(special.hyp2f1, (At(0.5), At(1.5), At(2.5), Arg(Domain(-0.9, -0.1), (2,))), name="negative x", dtypes=F64),
        Case(special.hyp2f1, (At(-3.0), At(1.5), At(2.5), Arg(Domain(0.5, 0.95), (2,))), name="polynomial", dtypes=F64),
    ]


if special is not None:
    from chainrules.rules.scipy.special.hypergeometric import HYPERGEOMETRIC

    register_family("scipy.special.hypergeometric", HYPERGEOMETRIC, {}, _cases(), elsewhere=tuple(HYPERGEOMETRIC))
