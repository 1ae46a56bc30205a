"""chainrules_core.testing: the finite-difference harness for frule and rrule.

Run it in a test suite::

    from chainrules_core.testing import test_frule, test_rrule, with_tangent

    def test_my_rule():
        test_rrule(my_function, np.array([0.5, 1.5]), with_tangent(2.0, 1.0))

The ``test_*`` functions carry ``__test__ = False``, so importing them into a
test module does not make pytest collect them as tests.

A failure is an ``AssertionError`` raised from the check itself (pytest
shows the caller's line and the message, nothing of the harness), whose
``check`` attribute names the check that failed. ``evaluations="few"``
checks large inputs with about 6 evaluations of the function.

The submodules hold the rest: ``cases`` the vocabulary of declared checks
(``Case``, ``Arg``, ``At``, ``Generated``, ``Domain``, ``REALS`` ...),
``finite_differences`` the finite-difference methods, ``layout`` how values
are read as vectors, ``tolerances`` the default tolerances, ``diagnosis``
what a failure says beyond the mismatch.
"""

from __future__ import annotations

from .._lazy import lazy_getattr
from .cases import register_cases, registered_cases
from .checks import CheckOptions
from .finite_differences import FiniteDifferences
from .harness import CheckReport, test_frule, test_rrule, test_scalar
from .tangents import no_tangent, rand_tangent, with_tangent

__all__ = [
    "CheckOptions",
    "CheckReport",
    "FiniteDifferences",
    "no_tangent",
    "rand_tangent",
    "register_cases",
    "registered_cases",
    "test_frule",
    "test_rrule",
    "test_scalar",
    "with_tangent",
]

# Names of the submodules, importable from here as well: name -> submodule.
_SUBMODULE_NAMES = {
    **dict.fromkeys(
        [
            "ABOVE_ONE",
            "DTYPES",
            "MODES",
            "NONZERO",
            "NONZERO_REAL_ONLY",
            "POSITIVE",
            "POSITIVE_REAL_ONLY",
            "PROBABILITY",
            "REAL_ONLY",
            "REALS",
            "UNIT_INTERVAL",
            "Arg",
            "At",
            "Case",
            "Domain",
            "Generated",
            "Nonzero",
            "families",
        ],
        "cases",
    ),
    **dict.fromkeys(["FDResult", "backward_fdm", "central_fdm", "forward_fdm"], "finite_differences"),
    **dict.fromkeys(["Layout", "layout_of"], "layout"),
    **dict.fromkeys(["PrimalAndTangent", "relative_tangent"], "tangents"),
    **dict.fromkeys(["PRIMAL_RTOL", "RTOL"], "tolerances"),
}

__getattr__ = lazy_getattr(__name__, _SUBMODULE_NAMES)


def __dir__() -> list[str]:
    return sorted(__all__ + [name for name in globals() if name.startswith("__")])
