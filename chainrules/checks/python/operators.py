"""Declared checks of the python operators rules (``chainrules.rules.python.operators``)."""

from __future__ import annotations

import builtins
import operator

import numpy as np

from chainrules.checks._tables import REAL_DTYPES, away_from_multiples, table_cases
from chainrules.checks.numpy.arithmetic import BINARY_CHECKS
from chainrules.checks.numpy.elementwise import UNARY_CHECKS
from chainrules.rules.python.operators import OPERATOR_BINARY, OPERATOR_UNARY
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing.cases import NONZERO, REALS, Arg, At, Case, Generated, register_cases


def _numpy_scalar(value: float) -> Generated:
    return Generated(lambda rng, dtype: np.dtype(dtype).type(value), "numpy scalar")


def _cases() -> list[Case]:
    cases = []
    for f, ufunc in OPERATOR_BINARY.items():
        if ufunc is not np.remainder:
            cases += table_cases(f, BINARY_CHECKS[ufunc])
    for f, ufunc in OPERATOR_UNARY.items():
        cases += table_cases(f, UNARY_CHECKS[ufunc])
    for f in (operator.abs, builtins.abs):
        cases += [Case(f, (Arg(NONZERO, shape),), name="complex", dtypes=("complex128",)) for shape in (None, (3,))]
    cases += [
        Case(operator.mod, (away_from_multiples(1.3, None), At(1.3)), dtypes=("float64",)),
        Case(operator.mod, (away_from_multiples([1.5, -2.0, 0.7], (2, 3)), At([1.5, -2.0, 0.7])), dtypes=REAL_DTYPES),
        Case(operator.pow, (At(-1.5), 3), name="negative base"),
        Case(builtins.pow, (At(-1.5), 2), name="negative base", dtypes=("float64",)),
        Case(operator.pow, (At(-4.0), At(0.5)), name="complex result", dtypes=("float64",)),
        Case(builtins.round, (At(1.2345), 2), name="digits", dtypes=("float64",)),
        Case(builtins.round, (_numpy_scalar(1.2345), 2), name="numpy scalar", dtypes=("float64", "float32")),
        Case(float, (Arg(REALS, None),), dtypes=("float64",)),
        Case(float, (At(np.asarray(0.25)),), name="0-d array", dtypes=("float64", "float32")),
        Case(operator.getitem, ((1.5, 2.5, -1.0), 1), dtypes=("float64",)),
        Case(operator.getitem, ((1.5, 2, np.array([1.0, -1.0])), slice(0, 3, 2)), name="slice", dtypes=("float64",)),
        Case(operator.getitem, ([1.5, 2.5, -1.0], -1), name="list", dtypes=("float64",)),
        Case(operator.getitem, ({"a": 1.5, "b": np.array([2.0, 3.0])}, "b"), name="dict", dtypes=("float64",)),
        Case(operator.add, ((1.5, 2.0), (3.0, np.array([1.0, 2.0]))), name="tuples", dtypes=("float64",)),
        Case(operator.add, ([1.5], [2.0, -3.0]), name="lists", dtypes=("float64",)),
        Case(operator.mul, ((1.5, -2.0), 3), name="repeated", dtypes=("float64",)),
        Case(operator.mul, (2, [1.5, 0.5]), name="repeated", dtypes=("float64",)),
    ]
    return cases


register_cases("python.operators", *_cases())

refuse_edges(
    "python.operators",
    round,
    ("huge",),
    "at |x| >= 2**52 every float64 is an integer, so rounding is the identity on floats there and finite "
    "differences see a slope of 1; the rule keeps the derivative of the mathematical function, 0",
)
