"""Declared checks of the arithmetic rules (``chainrules.rules.numpy.arithmetic``)."""

from __future__ import annotations

import math

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.checks._tables import INF, NAN, REAL_DTYPES, TableCheck, away_from_multiples, binary, table_cases
from chainrules.rules.numpy.arithmetic import BINARY, LINEAR_BINARY
from chainrules_core.testing import with_tangent
from chainrules_core.testing.cases import (
    NONZERO,
    NONZERO_REAL_ONLY,
    POSITIVE,
    REAL_ONLY,
    REALS,
    Arg,
    At,
    Case,
    Domain,
)

NEGATIVE = Domain(-math.inf, 0.0, name="negative")

_REMAINDER_LIMITS = {(3.0, 1.5): (1.0, -2.0), (-3.0, 1.5): (1.0, 2.0)}
"""At the jumps, where x / y is an integer: the one-sided values the rule keeps."""

BINARY_CHECKS: dict[object, TableCheck] = {
    np.add: binary(REALS, REALS),
    np.subtract: binary(REALS, REALS),
    np.multiply: binary(REALS, REALS),
    np.divide: binary(REALS, NONZERO, limits={(1.0, 0.0): (INF, -INF)}),
    np.power: binary(
        POSITIVE,
        REALS,
        limits={
            (0.0, 2.0): (0.0, 0.0),
            (0.0, 1.0): (1.0, 0.0),
            (0.0, 0.0): (0.0, NAN),
            (0.0, 0.5): (INF, 0.0),
            (0.0, -1.0): (-INF, NAN),
            (-2.0, 3.0): (12.0, NAN),
        },
    ),
    np.float_power: binary(POSITIVE, REALS),
    np.maximum: binary(REALS, REALS, points=((1.0, 1.0), (-0.5, -0.5))),
    np.minimum: binary(REALS, REALS, points=((1.0, 1.0), (-0.5, -0.5))),
    np.fmax: binary(REALS, REALS, points=((1.0, 1.0),), limits={(NAN, 1.0): (0.0, 1.0)}),
    np.fmin: binary(REALS, REALS, points=((1.0, 1.0),), limits={(1.0, NAN): (1.0, 0.0)}),
    np.arctan2: binary(REAL_ONLY, REAL_ONLY, limits={(0.0, 0.0): (0.0, 0.0)}),
    np.hypot: binary(REAL_ONLY, REAL_ONLY, points=((0.0, 0.0),)),
    np.logaddexp: binary(
        REAL_ONLY,
        REAL_ONLY,
        limits={(-INF, -INF): (0.5, 0.5), (INF, 1.0): (1.0, 0.0), (INF, INF): (0.5, 0.5)},
    ),
    np.logaddexp2: binary(REAL_ONLY, REAL_ONLY, limits={(-INF, -INF): (0.5, 0.5)}),
    np.remainder: binary(REAL_ONLY, NONZERO_REAL_ONLY, limits=_REMAINDER_LIMITS),
    np.fmod: binary(REAL_ONLY, NONZERO_REAL_ONLY, limits=_REMAINDER_LIMITS),
    np.copysign: binary(
        REAL_ONLY, NONZERO_REAL_ONLY, points=((0.0, 1.5), (0.0, -1.5)), limits={(2.0, 0.0): (1.0, 0.0)}
    ),
    np.heaviside: binary(NONZERO_REAL_ONLY, REAL_ONLY, limits={(0.0, 0.5): (0.0, 1.0), (-0.0, 0.25): (0.0, 1.0)}),
    np.ldexp: binary(REAL_ONLY, REAL_ONLY),  # the exponent is an integer: cases of their own below
    np.nextafter: binary(REAL_ONLY, REAL_ONLY, points=((0.0, -2.0),)),  # x == y: a case of its own below
}
"""Where the inputs of each entry of ``BINARY``, ``LINEAR_BINARY`` and ``power`` live."""
assert BINARY_CHECKS.keys() == BINARY.keys() | LINEAR_BINARY.keys() | {np.power, np.float_power}


def _cases() -> list[Case]:
    cases = []
    for f, check in BINARY_CHECKS.items():
        if f not in (np.remainder, np.fmod, np.ldexp):
            cases += table_cases(f, check)
    for f in (np.maximum, np.minimum):
        cases.append(Case(f, (At([1.0, -0.5, 2.0]), At([1.0, 0.3, -2.0])), name="ties", smooth=False))
    # logaddexp at x == y: each weighs 1/2, also where out = x + log 2 rounds to x (the huge edge variants)
    for f in (np.logaddexp, np.logaddexp2):
        cases.append(
            Case(
                f,
                (At([1.0, -2.0, 0.5]), At([1.0, -2.0, 0.5])),
                name="equal arguments",
                dtypes=REAL_DTYPES,
                smooth=False,
            )
        )
    # softplus, logaddexp(0.0, z), of arrays large enough for the rule's own primal (arithmetic._logaddexp_of); the
    # constant 0.0 held still (a zero tangent), as the edge sweep's huge variants would otherwise step it across
    # every entry of z
    wide, zero = Arg(Domain(-30.0, 30.0, complex=False), (16, 20)), with_tangent(0.0, 0.0)
    cases += [
        Case(np.logaddexp, (zero, wide), name="softplus", dtypes=REAL_DTYPES),
        Case(np.logaddexp, (wide, zero), name="softplus", dtypes=REAL_DTYPES),
    ]
    # nextafter at x == y, where it returns y: still within an ulp of x; in float32 the ulp jump in y is too
    # coarse for double-precision finite differences to settle
    cases.append(
        Case(
            np.nextafter, (At([1.0, -0.5, 2.0]), At([1.0, -0.5, -2.0])), name="ties", dtypes=("float64",), smooth=False
        )
    )
    # remainder: inputs a quarter period from the jumps, where x / y is an integer
    divisors = [1.5, -2.0, 0.7]
    cases += [
        Case(np.remainder, (away_from_multiples(divisors, (2, 3)), At(divisors)), dtypes=REAL_DTYPES),
        Case(np.remainder, (away_from_multiples(1.3, None), At(1.3)), dtypes=("float64",)),
        Case(np.remainder, (away_from_multiples(-0.8, ()), At(-0.8)), dtypes=REAL_DTYPES),
        Case(np.remainder, (At([[0.4, 2.6, -3.3]]), At([[1.5], [-2.0]])), name="broadcast", dtypes=REAL_DTYPES),
        Case(np.fmod, (away_from_multiples(divisors, (2, 3)), At(divisors)), dtypes=REAL_DTYPES),
        Case(np.fmod, (away_from_multiples(1.3, None), At(1.3)), dtypes=("float64",)),
    ]
    # power: negative bases with integer exponents; the base 0 with exponents 0, 1, 2, 3
    for p in (2, 3, -1, np.array([2, 3, -2])):
        cases.append(Case(np.power, (Arg(NEGATIVE, (2, 3)), p), name="negative base"))
    cases.append(Case(np.power, (Arg(NEGATIVE, None), 3), name="negative base"))
    for p in (0, 1, 2, 3):
        cases.append(Case(np.power, (At([0.0, 0.5, -1.5]), p), name="base 0"))
        cases.append(Case(np.power, (At(0.0), p), name="base 0"))
    # clip: inside and outside, array bounds, keyword bounds, and at each bound with one-sided differences
    cases += [
        Case(np.clip, (Arg(REAL_ONLY, shape), At(-0.5), At(0.6)), dtypes=REAL_DTYPES)
        for shape in ((), (3,), (2, 3), None)
    ]
    cases += [
        Case(np.clip, (Arg(REAL_ONLY, (2, 3)), Arg(Domain(-1.5, -0.4, complex=False), (3,)), At(0.7))),
        Case(np.clip, (Arg(REAL_ONLY, (4,)), None, Arg(Domain(-0.2, 0.4, complex=False), (2, 1))), name="one bound"),
        Case(np.clip, (Arg(REAL_ONLY, (3,)), Arg(Domain(0.6, 0.9), ()), Arg(Domain(-0.9, -0.6), ())), name="lo > hi"),
        Case(np.clip, (Arg(REAL_ONLY, (2, 3)),), kwargs={"a_min": -0.5, "a_max": 0.4}, name="keyword bounds"),
    ]
    up, down = np.ones(()), -np.ones(())
    for options, x, lo, hi in (
        ({"fdm": "forward"}, [-0.5, 0.2], -0.5, 1.0),
        ({"fdm": "backward"}, [0.5, 0.2], -1.0, 0.5),
    ):
        at_lo = x[0] == lo
        args = (
            with_tangent(At(x), np.ones(2)),
            with_tangent(At(lo), down if at_lo else up),
            with_tangent(At(hi), up if at_lo else down),
        )
        cases.append(Case(np.clip, args, name="at a bound", dtypes=REAL_DTYPES, options=options))
    # ldexp(x, n): n an integer (scalar or array, broadcast); divmod: off the jumps, as remainder
    cases += [
        Case(np.ldexp, (Arg(REAL_ONLY, (2, 3)), np.array([1, -2, 3])), dtypes=REAL_DTYPES),
        Case(np.ldexp, (Arg(REAL_ONLY, None), 3), dtypes=REAL_DTYPES),
        Case(np.ldexp, (Arg(REAL_ONLY, (3,)), np.array([[0], [4]])), dtypes=REAL_DTYPES),
        Case(np.divmod, (away_from_multiples(divisors, (2, 3)), At(divisors)), dtypes=REAL_DTYPES),
        Case(np.divmod, (away_from_multiples(1.3, None), At(1.3)), dtypes=("float64",)),
    ]
    return [
        *cases,
        Case(np.multiply, (Arg(REALS, (2, 3)), Arg(NONZERO, (3,))), kwargs={"dtype": np.float32}, dtypes=REAL_DTYPES),
    ]


register_shipped_cases("numpy.arithmetic", *_cases())
