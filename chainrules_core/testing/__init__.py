"""chainrules_core.testing: the finite-difference harness for frule and rrule.

Run it in a test suite::

    from chainrules_core.testing import test_frule, test_rrule, with_tangent

    def test_my_rule():
        test_rrule(my_function, np.array([0.5, 1.5]), with_tangent(2.0, 1.0))

The ``test_*`` functions carry ``__test__ = False``, so importing them into a
test module does not make pytest collect them as tests.
"""

from .cases import (
    ABOVE_ONE,
    DTYPES,
    MODES,
    NONZERO,
    NONZERO_REAL_ONLY,
    POSITIVE,
    POSITIVE_REAL_ONLY,
    PROBABILITY,
    REAL_ONLY,
    REALS,
    UNIT_INTERVAL,
    Arg,
    At,
    Case,
    Domain,
    Generated,
    Nonzero,
    families,
    register_cases,
    registered_cases,
)
from .finite_differences import FDResult, FiniteDifferences, backward_fdm, central_fdm, forward_fdm
from .harness import CheckReport, test_frule, test_rrule, test_scalar
from .layout import Layout, layout_of
from .tangents import PrimalAndTangent, no_tangent, rand_tangent, relative_tangent, with_tangent
from .tolerances import PRIMAL_RTOL, RTOL

__all__ = [
    "ABOVE_ONE",
    "DTYPES",
    "MODES",
    "NONZERO",
    "NONZERO_REAL_ONLY",
    "POSITIVE",
    "POSITIVE_REAL_ONLY",
    "PRIMAL_RTOL",
    "PROBABILITY",
    "REALS",
    "REAL_ONLY",
    "RTOL",
    "UNIT_INTERVAL",
    "Arg",
    "At",
    "Case",
    "CheckReport",
    "Domain",
    "FDResult",
    "FiniteDifferences",
    "Generated",
    "Layout",
    "Nonzero",
    "PrimalAndTangent",
    "backward_fdm",
    "central_fdm",
    "families",
    "forward_fdm",
    "layout_of",
    "no_tangent",
    "rand_tangent",
    "register_cases",
    "registered_cases",
    "relative_tangent",
    "test_frule",
    "test_rrule",
    "test_scalar",
    "with_tangent",
]
