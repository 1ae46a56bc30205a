"""Declared checks of the python operators rules (``chainrules.rules.python.operators``)."""

from __future__ import annotations

import builtins
import operator
from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.checks._tables import REAL_DTYPES, away_from_multiples, table_cases
from chainrules.checks.numpy.arithmetic import BINARY_CHECKS
from chainrules.checks.numpy.elementwise import UNARY_CHECKS
from chainrules.rules.python.operators import IN_PLACE, OPERATOR_BINARY, OPERATOR_UNARY
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing.cases import NONZERO, REAL_ONLY, REALS, Arg, At, Case, Generated


def _numpy_scalar(value: float) -> Generated:
    return Generated(lambda rng, dtype: np.dtype(dtype).type(value), "numpy scalar")


Point = namedtuple("Point", "x y")


@dataclass
class Inner:
    """An object with a field, for ``attrgetter`` through two levels."""

    scale: float


@dataclass
class Outer:
    """An object with a number, an array, a label and an object among its fields."""

    offset: float
    weights: np.ndarray
    label: str
    inner: Inner


def _outer(rng: np.random.Generator, dtype: str) -> Outer:
    weights = rng.normal(size=3).astype(dtype)
    return Outer(float(rng.normal()), weights, "label", Inner(float(rng.normal())))


def _kept(spec: object) -> bool:
    """Not a point made as a 0-d array, which the in-place operators would change."""
    return not isinstance(spec, At) or isinstance(spec.value, float)


def _in_place_cases() -> list[Case]:
    """The in-place operators on values they cannot change: Python and numpy numbers, tuples."""
    cases = []
    for f, out_of_place in IN_PLACE.items():
        ufunc = OPERATOR_BINARY.get(out_of_place)
        if ufunc is None or ufunc is np.remainder:  # matmul changes every array it takes; mod's points below
            continue
        cases += [c for c in table_cases(f, BINARY_CHECKS[ufunc], shapes=((None, None),)) if all(map(_kept, c.args))]
        cases.append(Case(f, (_numpy_scalar(1.5), _numpy_scalar(0.75)), name="numpy scalars"))
    return [
        *cases,
        Case(operator.imod, (away_from_multiples(1.3, None), At(1.3)), dtypes=("float64",)),
        Case(operator.imod, (_numpy_scalar(2.0), _numpy_scalar(-0.75)), name="numpy scalars", dtypes=REAL_DTYPES),
        Case(operator.iadd, ((1.5, np.array([1.0, 2.0])), (3.0,)), name="tuples", dtypes=("float64",)),
        Case(operator.imul, ((1.5, -2.0), 2), name="repeated tuple", dtypes=("float64",)),
    ]


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
        Case(operator.concat, ((1.5, 2.0), (3.0, np.array([1.0, 2.0]))), name="tuples", dtypes=("float64",)),
        Case(operator.concat, ([1.5], [2.0, -3.0]), name="lists", dtypes=("float64",)),
        # divmod: the remainder's cases, as %; the quotient's tangent is a zero
        Case(divmod, (away_from_multiples(1.3, None), At(1.3)), dtypes=("float64",)),
        Case(divmod, (away_from_multiples(-0.8, ()), At(-0.8)), name="numpy", dtypes=REAL_DTYPES),
        Case(divmod, (away_from_multiples([1.5, -2.0, 0.7], (2, 3)), At([1.5, -2.0, 0.7])), dtypes=REAL_DTYPES),
        Case(divmod, (At(5.0), 2), name="an int divisor", dtypes=("float64",)),
        # complex(re, im) = re + 1j im; complex(z) the identity
        Case(complex, (Arg(REAL_ONLY, None), Arg(REAL_ONLY, None)), dtypes=("float64",)),
        Case(complex, (_numpy_scalar(1.5), _numpy_scalar(-0.5)), name="numpy scalars", dtypes=REAL_DTYPES),
        Case(complex, (Arg(REALS, None),), dtypes=("float64", "complex128")),
        Case(complex, (Arg(REALS, None), Arg(REALS, None)), name="complex parts", dtypes=("complex128",)),
        Case(complex, (At(np.asarray(0.25)), 2), name="0-d array and an int", dtypes=("float64", "float32")),
        # getters
        Case(operator.itemgetter(1), ([1.5, 2.5, -1.0],), dtypes=("float64",)),
        Case(operator.itemgetter(2, 0, 2), (Arg(REALS, (4,)),), name="repeated item"),
        Case(operator.itemgetter(slice(1, None), 0), ((1.5, 2, np.array([1.0, -1.0])),), dtypes=("float64",)),
        Case(operator.itemgetter("b", "a"), ({"a": 1.5, "b": np.array([2.0, 3.0]), "c": 0.5},), dtypes=("float64",)),
        Case(operator.attrgetter("y"), (Point(1.5, -2.0),), name="named tuple", dtypes=("float64",)),
        Case(
            operator.attrgetter("weights", "inner.scale", "offset"),
            (Generated(_outer, "Outer"),),
            name="dataclass",
            dtypes=REAL_DTYPES,
        ),
        *_in_place_cases(),
    ]
    return cases


register_shipped_cases("python.operators", *_cases())

refuse_edges(
    "python.operators",
    round,
    ("huge",),
    "at |x| >= 2**52 every float64 is an integer, so rounding is the identity on floats there and finite "
    "differences see a slope of 1; the rule keeps the derivative of the mathematical function, 0",
)

for _f in IN_PLACE:
    refuse_edges(
        "python.operators",
        _f,
        ("0-d",),
        "a 0-d array is a numpy array, which the in-place operator changes: the rule refuses it and names the "
        "out-of-place operator",
        where="argument 1",
    )

refuse_edges(
    "python.operators",
    divmod,
    ("huge",),
    "at |x| >= 2**53 every float64 is an even integer, so x % 2 is 0 around it and finite differences see the "
    "quotient move and the remainder stand still; the rules keep the derivatives of the mathematical functions",
    where="an int divisor",
)
