"""Declared checks of the python math rules (``chainrules.rules.python.math``)."""

from __future__ import annotations

import math

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.checks._tables import away_from_multiples, binary, table_cases
from chainrules.checks.numpy.arithmetic import BINARY_CHECKS
from chainrules.checks.numpy.elementwise import FLOATS_ARE_INTEGERS, UNARY_CHECKS
from chainrules.rules.python.math import MATH_BINARY, MATH_TWO_OUTPUTS, MATH_UNARY, digamma, trigamma
from chainrules.testing.edges import refuse_edges
from chainrules.testing.second_order import refuse_order2
from chainrules_core.testing import with_tangent
from chainrules_core.testing.cases import (
    ABOVE_ONE,
    POSITIVE_REAL_ONLY,
    REAL_ONLY,
    Arg,
    At,
    Case,
    Domain,
    Generated,
)

LOG_BASE = binary(POSITIVE_REAL_ONLY, ABOVE_ONE)
"""``math.log(x, base)``: both arguments differentiable."""

GAMMA_DOMAINS = (Domain(0.0, 30.0, complex=False), Domain(-1.0, 0.0, complex=False), Domain(-3.0, -2.0, complex=False))
"""Where ``math.gamma`` and ``math.lgamma`` are smooth: between their poles at 0, -1, -2 ..."""


def away_from_halves(divisor: float) -> Generated:
    """Dividends ``y (k + u)``, ``u`` within a quarter of 0: ``math.remainder`` jumps where ``u`` is 1/2."""
    near_multiples = away_from_multiples(divisor, None)
    return Generated(lambda rng, dtype: near_multiples.make(rng, dtype) + divisor / 2, "away from halves")


def _cases() -> list[Case]:
    cases = []
    for f, ufunc in MATH_UNARY.items():
        cases += table_cases(f, UNARY_CHECKS[ufunc], python_floats_only=True)
    for f, ufunc in {**MATH_BINARY, math.pow: np.power, math.nextafter: np.nextafter}.items():
        if f not in (math.fmod, math.ldexp):  # off the jumps; an int exponent: below
            cases += table_cases(f, BINARY_CHECKS[ufunc], python_floats_only=True)
    cases += table_cases(math.log, LOG_BASE, python_floats_only=True)
    real = ("float64",)
    cases += [
        Case(math.pow, (At(-1.5), 3), name="negative base", dtypes=real),
        Case(math.hypot, (At(3.0), At(-4.0), At(1.5)), dtypes=real),
        Case(math.hypot, (At(0.0), At(0.0)), name="origin", dtypes=real, smooth=False),
        Case(math.hypot, (At(2.5),), dtypes=real),
        Case(math.log, (At(2.5), At(10.0)), name="base 10", dtypes=real),
        Case(math.log, (At(2.5), 2), name="int base", dtypes=real),
        Case(math.sqrt, (4,), name="int", dtypes=real),
        Case(math.atan2, (At(0.5), At(-1.5)), dtypes=real),
        Case(math.fmod, (away_from_multiples(-1.3, None), At(-1.3)), dtypes=real),
        *(Case(math.ldexp, (Arg(REAL_ONLY, None), n), dtypes=real) for n in (3, 0, -2)),
        *(Case(math.remainder, (away_from_halves(y), At(y)), dtypes=real) for y in (1.3, -0.8)),
        # remainder at a jump (x / y = 1.5, n = 2): one-sided differences along the side where n stays 2
        Case(
            math.remainder,
            (with_tangent(At(3.0), 1.0), with_tangent(At(2.0), -1.0)),
            name="at a jump",
            dtypes=real,
            options={"fdm": "forward"},
        ),
        *(Case(f, (Arg(REAL_ONLY, None),), dtypes=real) for f in MATH_TWO_OUTPUTS),
        *(Case(f, (At(x),), dtypes=real) for f in MATH_TWO_OUTPUTS for x in (-1.7, 0.3, 5.6)),
        *(Case(f, (Arg(REAL_ONLY, None),), dtypes=real) for f in (math.erf, math.erfc)),
        *(Case(f, (At(x),), dtypes=real) for f in (math.erf, math.erfc) for x in (0.0, -2.5, 4.0)),
    ]
    # gamma and lgamma: on (0, 30), between the poles at negative integers, near them, far out (lgamma past
    # gamma's overflow at 171.6)
    gammas = (math.gamma, math.lgamma)
    cases += [Case(f, (Arg(domain, None),), dtypes=real) for f in gammas for domain in GAMMA_DOMAINS]
    cases += [Case(f, (At(x),), dtypes=real) for f in gammas for x in (1e-3, 150.25, -3.999)]
    cases += [Case(math.lgamma, (At(x),), dtypes=real) for x in (1e5, -100.3, 1.4616321449683623)]  # ψ's zero
    # digamma, whose rules (trigamma) make gamma's and lgamma's pullbacks differentiable
    cases += [Case(digamma, (Arg(domain, None),), dtypes=real) for domain in GAMMA_DOMAINS]
    cases += [Case(digamma, (At(x),), dtypes=real) for x in (1e-3, 1e5, -3.999, -100.3)]
    # and trigamma, whose rules (tetragamma) make digamma's pullback differentiable (second order of gamma)
    cases += [Case(trigamma, (Arg(domain, None),), dtypes=real) for domain in GAMMA_DOMAINS]
    cases += [Case(trigamma, (At(x),), dtypes=real) for x in (1e-3, 1e5, -3.999, -100.3)]
    return cases


register_shipped_cases("python.math", *_cases())
refuse_edges("python.math", math.modf, ("huge",), FLOATS_ARE_INTEGERS + " (and 1 for the fractional part, which is 0)")

refuse_order2(
    "python.math",
    trigamma,
    "trigamma's rules give ψ'' (tetragamma), which has no rules of its own: the chain stops at the order that "
    "gamma's, lgamma's and digamma's second derivatives need",
)
