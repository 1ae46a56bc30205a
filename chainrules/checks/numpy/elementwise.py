"""Declared checks of the elementwise rules (``chainrules.rules.numpy.elementwise``)."""

from __future__ import annotations

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.checks._tables import INF, REAL_DTYPES, UNARY_SHAPES, Band, TableCheck, table_cases, unary
from chainrules.rules.numpy._special import bessel_i1
from chainrules.rules.numpy.elementwise import LINEAR_UNARY, UNARY
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing import with_tangent
from chainrules_core.testing.cases import (
    ABOVE_ONE,
    NONZERO,
    NONZERO_REAL_ONLY,
    POSITIVE,
    REAL_ONLY,
    REALS,
    UNIT_INTERVAL,
    Arg,
    At,
    Case,
    Domain,
)

NEAR_REAL_AXIS = Band(name="reals, near the real axis")
"""For arctan and arcsinh, whose branch points are ±i."""

UNARY_CHECKS: dict[object, TableCheck] = {
    np.negative: unary(REALS),
    np.positive: unary(REALS),
    np.deg2rad: unary(REAL_ONLY),
    np.radians: unary(REAL_ONLY),
    np.rad2deg: unary(REAL_ONLY),
    np.degrees: unary(REAL_ONLY),
    np.sqrt: unary(POSITIVE, limits={0.0: INF}),
    np.cbrt: unary(NONZERO_REAL_ONLY, limits={0.0: INF}),
    np.square: unary(REALS),
    np.reciprocal: unary(NONZERO, limits={0.0: -INF}),
    np.exp: unary(REALS),
    np.exp2: unary(REALS),
    np.expm1: unary(REALS),
    np.log: unary(POSITIVE, limits={0.0: INF}),
    np.log2: unary(POSITIVE, limits={0.0: INF}),
    np.log10: unary(POSITIVE, limits={0.0: INF}),
    np.log1p: unary(Domain(-1.0, INF, name="(-1, inf)"), limits={-1.0: INF}),
    np.sin: unary(REALS),
    np.cos: unary(REALS),
    np.tan: unary(Domain(-1.2, 1.2, name="(-1.2, 1.2)")),  # poles at pi/2 + k pi
    np.arcsin: unary(UNIT_INTERVAL, limits={1.0: INF, -1.0: INF}),
    np.arccos: unary(UNIT_INTERVAL, limits={1.0: -INF, -1.0: -INF}),
    np.arctan: unary(NEAR_REAL_AXIS),
    np.sinh: unary(REALS),
    np.cosh: unary(REALS),
    np.tanh: unary(REALS),
    np.arcsinh: unary(NEAR_REAL_AXIS),
    np.arccosh: unary(ABOVE_ONE, limits={1.0: INF}),
    np.arctanh: unary(UNIT_INTERVAL, limits={1.0: INF, -1.0: INF}),
    np.absolute: unary(REAL_ONLY, points=(0.0,)),
    np.fabs: unary(REAL_ONLY, points=(0.0,)),
    np.sinc: unary(REALS, points=(0.0, 0.01, -1.0)),  # 0: the limit 0 (smooth there); 0.01: the series
    np.i0: unary(REAL_ONLY, points=(0.0, 8.0, -9.5)),  # 8: where I1's two expansions meet
    bessel_i1: unary(REAL_ONLY, points=(0.0, 8.0, -9.5)),  # i0's derivative, a step of its pullback
}
"""Where the inputs of each entry of ``UNARY`` and ``LINEAR_UNARY`` live."""
assert UNARY_CHECKS.keys() == UNARY.keys() | LINEAR_UNARY.keys()

_ROUNDING_POINTS = (At([0.3, -1.7, 2.2]), At(1.25))
"""Away from the jumps at integers (and half-integers for rint/round), where finite differences cannot settle."""


def _cases() -> list[Case]:
    cases = []
    for f, check in UNARY_CHECKS.items():
        cases += table_cases(f, check)
    for shape in UNARY_SHAPES:
        cases.append(Case(np.absolute, (Arg(NONZERO, shape[0]),), name="complex", dtypes=("complex128",)))
        cases.append(Case(np.conjugate, (Arg(REALS, shape[0]),)))
        cases.append(Case(np.real, (Arg(REALS, shape[0]),)))
        cases.append(Case(np.imag, (Arg(REALS, shape[0]),)))
        cases.append(Case(np.angle, (Arg(NONZERO, shape[0]),)))
        cases.append(Case(np.sign, (Arg(NONZERO, shape[0]),)))
    cases.append(Case(np.absolute, (At(0.0),), name="non-smooth point", dtypes=("complex128",), smooth=False))
    cases.append(Case(np.angle, (Arg(NONZERO, (2, 3)), True), name="degrees"))
    for f in (np.floor, np.ceil, np.trunc, np.fix):
        cases += [Case(f, (point,), dtypes=("float64", "float32")) for point in _ROUNDING_POINTS]
        cases.append(Case(f, (Arg(REAL_ONLY, None),)))
    for f in (np.rint, np.round, np.around):
        cases += [Case(f, (point,)) for point in _ROUNDING_POINTS]
    cases.append(Case(np.round, (At([0.312, -1.777, 2.2]), 2), name="decimals"))
    # nan_to_num: 1 where finite, 0 where replaced; positional fills get what they replaced
    special = At([1.5, np.nan, np.inf, -np.inf, -0.5])
    cases += [
        Case(np.nan_to_num, (special,), dtypes=REAL_DTYPES),
        Case(np.nan_to_num, (special, True, Arg(REALS, None), Arg(REALS, None), Arg(REALS, None)), dtypes=REAL_DTYPES),
        Case(
            np.nan_to_num,
            (At([complex(1.0, np.nan), complex(np.inf, -2.0), 3 + 4j]), True, 0.5),
            dtypes=("complex128",),
        ),
        Case(np.nan_to_num, (Arg(REALS, (2, 3)),), name="finite"),
        Case(np.nan_to_num, (special,), kwargs={"nan": 2.0, "posinf": 9.0}, name="keyword fills", dtypes=REAL_DTYPES),
    ]
    # real_if_close: the real part when numpy drops a negligible imaginary part (along a real direction: a
    # complex one would keep it), the input itself otherwise
    cases += [
        Case(np.real_if_close, (Arg(REALS, (2, 3)),)),
        Case(np.real_if_close, (with_tangent(At([[1.0, -2.0], [0.5, 3.0]]), np.ones((2, 2))),), dtypes=("complex128",)),
    ]
    # modf and frexp: two outputs; off the jumps (integers; powers of two)
    cases += [Case(f, (At([[0.3, -1.7, 2.2], [5.6, -0.45, 3.3]]),), dtypes=REAL_DTYPES) for f in (np.modf, np.frexp)]
    cases += [Case(f, (Arg(REAL_ONLY, None),), dtypes=REAL_DTYPES) for f in (np.modf, np.frexp)]
    return cases


register_shipped_cases("numpy.elementwise", *_cases())

FLOATS_ARE_INTEGERS = (
    "at |x| >= 2**52 every float64 is an integer, so rounding is the identity on floats there and finite "
    "differences see a slope of 1; the rule keeps the derivative of the mathematical function, 0"
)
for _f in (np.floor, np.ceil, np.trunc, np.fix, np.rint, np.round, np.around):
    refuse_edges("numpy.elementwise", _f, ("huge",), FLOATS_ARE_INTEGERS)
refuse_edges(
    "numpy.elementwise", np.modf, ("huge",), FLOATS_ARE_INTEGERS + " (and 1 for the fractional part, which is 0)"
)
