"""Coverage: every scipy.linalg function with rules here is accounted for, with its status and its limits.

A rule that goes missing, or a call documented as refused that gains or
loses a rule, fails here.
"""

import numpy as np
import pytest

import chainrules  # noqa: F401 - registers the rules
from chainrules_core import NoTangent, frule, rrule
from chainrules_core.testing import rand_tangent

scipy_linalg = pytest.importorskip("scipy.linalg", reason="scipy is an optional dependency")

_A = np.array([[3.0, 1.0, 0.5], [0.2, 2.0, 0.3], [0.1, 0.4, 4.0]])
_SPD = _A @ _A.T
_B = np.array([[1.0, 0.5], [0.0, 1.0], [2.0, 1.0]])
_AB = np.array([[0.0, 1.0, 1.0], [3.0, 2.0, 4.0], [0.2, 0.4, 0.0]])  # band storage, l = u = 1

STATUS = {
    "expm": "rule",
    "expm_frechet": "rule (A and E: the second-order Frechet derivative)",
    "sqrtm": "rule (no rule with the deprecated disp or blocksize)",
    "logm": "rule (no rule with the deprecated disp)",
    "solve_sylvester": "rule (a, b, q)",
    "solve_continuous_lyapunov": "rule (a, q)",
    "lu": "rule (P, and p with p_indices, get NoTangent; permute_l)",
    "lu_factor": "rule (piv gets NoTangent)",
    "lu_solve": "rule (lu, b; trans 0, 1, 2)",
    "cho_factor": "rule (the triangle not written passes a's entries through)",
    "cho_solve": "rule (c on its triangle, b)",
    "solve_banded": "rule (ab on its band, b; (l, u) gets NoTangent)",
    "qr": "rule (modes full, economic, r; pivoting; no rule for raw)",
    "eigh": "rule (standard and generalized type=1; subsets; no rule for type=2, 3)",
    "inv": "rule (assume_a as read; no rule for assume_a='diagonal')",
    "solve": "rule (every assume_a; transposed)",
    "det": "rule",
    "polar": "rule (right with m >= n, left with m <= n; no rule for the other shapes)",
    "block_diag": "rule",
    "solve_triangular": "rule (trans, lower, unit_diagonal)",
    "schur": "rule (output 'complex' and 'real', 2 x 2 blocks included; no rule for sort)",
}
"""Each scipy.linalg function ruled here: "rule", with its limits in brackets."""

EXAMPLES = {
    "expm": (_A,),
    "expm_frechet": (_A, _A.T),
    "sqrtm": (_A,),
    "logm": (_A,),
    "solve_sylvester": (_A, _A.T, _B @ _B.T),
    "solve_continuous_lyapunov": (_A, _SPD),
    "lu": (_A,),
    "lu_factor": (_A,),
    "lu_solve": (scipy_linalg.lu_factor(_A), _B),
    "cho_factor": (_SPD,),
    "cho_solve": (scipy_linalg.cho_factor(_SPD), _B),
    "solve_banded": ((1, 1), _AB, _B),
    "qr": (_A,),
    "eigh": (_SPD,),
    "inv": (_A,),
    "solve": (_A, _B),
    "det": (_A,),
    "polar": (_A,),
    "block_diag": (_A, _B),
    "solve_triangular": (_A, _B),
    "schur": (_A,),
}

REFUSED = [
    ("sqrtm", (_A,), {"disp": False}, "deprecated: changes the output to a tuple"),
    ("logm", (_A,), {"disp": False}, "deprecated: changes the output to a tuple"),
    ("lu", (_A,), {"overwrite_a": True}, "would destroy a"),
    ("qr", (_A,), {"mode": "raw"}, "Householder reflectors"),
    ("eigh", (_SPD, _SPD), {"type": 2}, "not derived"),
    ("eigh", (_SPD, _SPD), {"type": 3}, "not derived"),
    ("inv", (_A,), {"assume_a": "diagonal"}, "scipy keeps the off-diagonal entries: not an inverse"),
    ("solve", (_A, _B), {"overwrite_b": True}, "would destroy b"),
    ("polar", (_B.T,), {}, "P = sqrt(A^H A) is singular: no derivative"),
    ("polar", (_B,), {"side": "left"}, "P = sqrt(A A^H) is singular: no derivative"),
    ("solve_banded", ((1, 1), _AB, _B), {"overwrite_ab": True}, "would destroy ab"),
    ("schur", (_A,), {"sort": "lhp"}, "the order and sdim jump where an eigenvalue crosses the boundary"),
    ("schur", (np.stack([_A, _A]),), {}, "one matrix at a time"),
]
"""Calls that get no rule (None), with the reason the documentation gives."""


def test_every_listed_function_exists_and_has_an_example():
    assert set(STATUS) == set(EXAMPLES)
    missing = [name for name in STATUS if not callable(getattr(scipy_linalg, name, None))]
    assert not missing, f"not in scipy.linalg: {missing}"


@pytest.mark.parametrize("name", sorted(STATUS))
def test_has_both_rules(name):
    """A plain call has an rrule and an frule, registered as rules (not as non-differentiable)."""
    assert STATUS[name].startswith("rule")
    f, args = getattr(scipy_linalg, name), EXAMPLES[name]
    rule = rrule.find(f, *args)
    assert rule is not None, f"scipy.linalg.{name} has no rrule"
    answering = getattr(rule, "__self__", rule)  # a fast path is bound to the rule it belongs to
    assert {r.kind for r in rrule.records() if r.primal is f and r.rule is answering} == {"rule"}
    assert rrule(f, *args) is not None
    tangents = (NoTangent(), *(rand_tangent(x, 0) for x in args))
    assert frule(tangents, f, *args) is not None, f"scipy.linalg.{name} has no frule"


@pytest.mark.parametrize("name, args, kwargs, why", REFUSED, ids=[f"{r[0]}-{r[3]}" for r in REFUSED])
def test_refused_calls_get_no_rule(name, args, kwargs, why):
    """The calls the documentation lists as refused return None in both modes."""
    f = getattr(scipy_linalg, name)
    assert rrule(f, *args, **kwargs) is None
    tangents = (NoTangent(), *(rand_tangent(x, 0) for x in args))
    assert frule(tangents, f, *args, **kwargs) is None
