"""Comparisons, predicates and integer-valued functions: NoTangent in and out."""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np
import pytest

from chainrules.rules.numpy.nondifferentiable import INDICES, MATH, NUMPY, OPERATOR, OPERATOR_ON_NUMBERS
from chainrules_core import NoTangent, frule, rrule

X = np.array([0.5, -1.5, 2.0])
Y = np.array([0.5, 1.0, -2.0])
I = np.array([6, 4, 9])  # noqa: E741 - integers for bitwise functions
J = np.array([4, 1, 3])

_INTEGER = {np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.left_shift, np.right_shift, np.gcd, np.lcm}
_SPECIAL = {
    np.isnat: (np.array(["2020-01-01", "NaT"], dtype="datetime64[D]"),),
    np.invert: (I,),
    np.isin: (X, Y),
    np.isscalar: (1.5,),
    math.floor: (2.5,),
    math.ceil: (2.5,),
    math.trunc: (-2.5,),
    math.isclose: (1.0, 1.0 + 1e-12),
    math.factorial: (5,),
    math.comb: (5, 2),
    math.perm: (5, 2),
    math.gcd: (12, 18),
    math.lcm: (4, 6),
    math.isqrt: (17,),
    operator.not_: (0.0,),
    operator.truth: (1.5,),
    operator.contains: ([1.5, 2.5], 1.5),
    operator.countOf: ([1.5, 2.5, 1.5], 1.5),
    operator.indexOf: ([1.5, 2.5], 2.5),
    operator.length_hint: ([1.5, 2.5],),
    operator.index: (3,),
    np.linalg.matrix_rank: (np.outer(X, Y),),
    np.tril_indices: (3,),
    np.triu_indices: (3,),
    np.diag_indices: (3,),
    np.ravel_multi_index: ((np.array([0, 2]), np.array([1, 0])), (3, 3)),
    np.unravel_index: (np.array([5, 7]), (3, 3)),
    np.ix_: (np.array([0, 1]), np.array([1, 2])),
    np.broadcast_shapes: ((2, 1), (1, 3)),
}
if hasattr(np, "bitwise_count"):
    _SPECIAL[np.bitwise_count] = (I,)


def _example(f: object) -> tuple[object, ...]:
    """Arguments ``f`` accepts: floats unless it needs integers or something else."""
    if f in _SPECIAL:
        return _SPECIAL[f]
    if f in _INTEGER or (f in OPERATOR_ON_NUMBERS and f not in (operator.floordiv, operator.ifloordiv)):
        return (I, J)
    if f in MATH:
        return (1.5,)
    binary = {np.isclose, np.allclose, np.array_equal, np.array_equiv, np.result_type, *OPERATOR, *OPERATOR_ON_NUMBERS}
    nin = getattr(f, "nin", 2 if f in binary else 1)
    return (X.copy(), Y.copy())[:nin]


def _functions() -> list[object]:
    return [
        *NUMPY,
        *INDICES,
        *MATH,
        *OPERATOR,
        *OPERATOR_ON_NUMBERS,
        operator.invert,
        operator.inv,
        builtins.len,
        int,
        bool,
    ]


@pytest.mark.parametrize("f", _functions(), ids=lambda f: getattr(f, "__name__", repr(f)))
def test_no_tangents(f):
    """The output tangent and every argument's cotangent are NoTangent, and the primal is f's."""
    args = {operator.invert: (I,), operator.inv: (I,), builtins.len: ([1.0, 2.0],), int: (2.7,), bool: (0.5,)}.get(
        f
    ) or _example(f)
    expected = f(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])  # ifloordiv writes into x
    out, pullback = rrule(f, *args)
    np.testing.assert_equal(out, expected)
    assert pullback(1.0) == (NoTangent(),) * (len(args) + 1)
    out, out_dot = frule((NoTangent(), *[np.ones_like(a, dtype=float) for a in args]), f, *args)
    assert out_dot == NoTangent()


def test_operators_on_numbers_only():
    """`|` on dicts and sets merges containers that have tangents: no rule is claimed there."""
    assert rrule(operator.or_, {"a": 1.0}, {"b": 2.0}) is None
    assert rrule(operator.or_, np.array([True]), np.array([False])) is not None
