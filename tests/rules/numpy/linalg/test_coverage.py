"""Coverage: every public name of ``numpy.linalg`` is accounted for, with a rule or a reason for none.

A function numpy adds to ``numpy.linalg``, or a rule that goes missing, fails here.
"""

import numpy as np
import pytest

import chainrules  # noqa: F401 - registers the rules
from chainrules_core import NoTangent, frule, rrule
from chainrules_core.testing import rand_tangent

_SQUARE = np.array([[3.0, 1.0, 0.5], [0.5, 2.0, 0.2], [0.1, 0.3, 1.5]])
_WIDE = _SQUARE[:2]
_VECTORS = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])

STATUS = {
    "cholesky": "rule",
    "cond": "rule",
    "cross": "rule",
    "det": "rule",
    "diagonal": "rule",
    "eig": "rule",
    "eigh": "rule",
    "eigvals": "rule",
    "eigvalsh": "rule",
    "inv": "rule",
    "lstsq": "rule",
    "matmul": "rule",
    "matrix_norm": "rule",
    "matrix_power": "rule",
    "matrix_transpose": "rule",
    "multi_dot": "rule",
    "norm": "rule",
    "outer": "rule",
    "pinv": "rule",
    "qr": "rule",
    "slogdet": "rule",
    "solve": "rule",
    "svd": "rule",
    "svdvals": "rule",
    "tensordot": "rule",
    "tensorinv": "rule",
    "tensorsolve": "rule",
    "trace": "rule",
    "vecdot": "rule",
    "vector_norm": "rule",
    "matrix_rank": "non-differentiable: an integer, the number of singular values above a tolerance",
    "LinAlgError": "no rule: the exception numpy.linalg raises, not a function",
}
"""Each public name of numpy.linalg: "rule" (frule and rrule), "non-differentiable: <why>" or "no rule: <why>"."""

EXAMPLES = {
    "cholesky": (_SQUARE @ _SQUARE.T,),
    "cross": (_VECTORS, _VECTORS[::-1]),
    "eigh": (_SQUARE + _SQUARE.T,),
    "eigvalsh": (_SQUARE + _SQUARE.T,),
    "lstsq": (_SQUARE, np.ones(3)),
    "matmul": (_SQUARE, _SQUARE),
    "matrix_power": (_SQUARE, 3),
    "multi_dot": ([_SQUARE, _WIDE.T, _WIDE],),
    "outer": (np.ones(3), np.arange(2.0)),
    "solve": (_SQUARE, np.ones(3)),
    "tensordot": (_SQUARE, _SQUARE),
    "tensorinv": (_SQUARE.reshape(3, 3, 1), 1),
    "tensorsolve": (_SQUARE, np.ones(3)),
    "vecdot": (_VECTORS, _VECTORS),
}
"""Arguments of a plain call where the square matrix will not do."""


def _public_names():
    return set(getattr(np.linalg, "__all__", [n for n in dir(np.linalg) if not n.startswith("_")])) - {"test"}


def _arguments(name):
    return EXAMPLES.get(name, (_SQUARE,))


def test_every_public_name_is_accounted_for():
    """``numpy.linalg.__all__`` and the table name the same functions (array-API ones only where numpy has them)."""
    public = _public_names()
    listed = {name for name in STATUS if hasattr(np.linalg, name)}
    assert not public - listed, f"numpy.linalg names neither ruled nor listed: {sorted(public - listed)}"
    assert not listed - public, f"listed but not public in numpy.linalg: {sorted(listed - public)}"


@pytest.mark.parametrize("name", sorted(n for n, s in STATUS.items() if s == "rule" and hasattr(np.linalg, n)))
def test_has_both_rules(name):
    """A plain call has an rrule and an frule, registered as rules (not as non-differentiable)."""
    f = getattr(np.linalg, name)
    args = _arguments(name)
    rule = rrule.find(f, *args)
    assert rule is not None, f"np.linalg.{name} has no rrule"
    answering = getattr(rule, "__self__", rule)  # a fast path is bound to the rule it belongs to
    assert {r.kind for r in rrule.records() if r.primal is f and r.rule is answering} == {"rule"}
    assert rrule(f, *args) is not None
    tangents = [NoTangent() if isinstance(a, int) else rand_tangent(a, 0) for a in args]
    assert frule((NoTangent(), *tangents), f, *args) is not None, f"np.linalg.{name} has no frule"


@pytest.mark.parametrize("name", sorted(n for n, s in STATUS.items() if s.startswith("non-differentiable")))
def test_non_differentiable_functions_are_registered_as_such(name):
    """Non-differentiable functions answer NoTangent() for the output and every argument."""
    f = getattr(np.linalg, name)
    assert {r.kind for r in rrule.records() if r.primal is f} == {"non_differentiable"}
    _, pullback = rrule(f, _SQUARE)
    assert all(c == NoTangent() for c in pullback(1.0))


def test_every_status_says_why():
    """A function without a rule carries its reason."""
    for name, status in STATUS.items():
        assert status == "rule" or status.startswith(("non-differentiable: ", "no rule: ")), name
    assert rrule(np.linalg.LinAlgError, "message") is None
