"""Declared checks of the python math rules (``chainrules.rules.python_math``)."""

from __future__ import annotations

import math

import numpy as np

from chainrules.checks._tables import away_from_multiples, binary, table_cases
from chainrules.checks.arithmetic import BINARY_CHECKS
from chainrules.checks.elementwise import UNARY_CHECKS
from chainrules.rules.python_math import MATH_BINARY, MATH_UNARY
from chainrules_core.testing.cases import ABOVE_ONE, POSITIVE_REAL_ONLY, At, Case, register_cases

LOG_BASE = binary(POSITIVE_REAL_ONLY, ABOVE_ONE)
"""``math.log(x, base)``: both arguments differentiable."""


def _cases() -> list[Case]:
    cases = []
    for f, ufunc in MATH_UNARY.items():
        cases += table_cases(f, UNARY_CHECKS[ufunc], python_floats_only=True)
    for f, ufunc in {**MATH_BINARY, math.pow: np.power, math.nextafter: np.nextafter}.items():
        if f is not math.fmod:
            cases += table_cases(f, BINARY_CHECKS[ufunc], python_floats_only=True)
    cases += table_cases(math.log, LOG_BASE, python_floats_only=True)
    real = ("float64",)
    cases += [
        Case(math.pow, (At(-1.5), 3), name="negative base", dtypes=real),
        Case(math.hypot, (At(3.0), At(-4.0), At(1.5)), dtypes=real),
        Case(math.hypot, (At(0.0), At(0.0)), name="origin", dtypes=real),
        Case(math.hypot, (At(2.5),), dtypes=real),
        Case(math.log, (At(2.5), At(10.0)), name="base 10", dtypes=real),
        Case(math.log, (At(2.5), 2), name="int base", dtypes=real),
        Case(math.sqrt, (4,), name="int", dtypes=real),
        Case(math.atan2, (At(0.5), At(-1.5)), dtypes=real),
        Case(math.fmod, (away_from_multiples(-1.3, None), At(-1.3)), dtypes=real),
    ]
    return cases


register_cases("python_math", *_cases())
