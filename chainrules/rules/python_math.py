"""Rules for Python's ``math`` module, from the same derivative tables as numpy's functions.

``math`` takes real numbers and returns Python floats; so do these rules,
which evaluate the tables' partials with Python arithmetic (about ten times
faster than numpy on Python floats; ``benchmarks/bench_elementwise.py``).
Where ``math`` raises (``ValueError`` outside a domain, ``OverflowError``)
the rule raises the same, as it calls the function; where ``math`` returns a
value but the derivative is infinite or undefined (``sqrt`` at 0), the
partial is numpy's ``inf`` or ``nan``. ``int`` arguments get
``NoTangent()``. ``floor``, ``ceil`` and ``trunc`` return ints: see
``nondifferentiable``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, frule, rrule, unthunk
from chainrules_core.projection import ProjectTo
from chainrules_core.testing import ABOVE_ONE, POSITIVE_REAL_ONLY, At, Case, Generated, register_cases

from ._cases import away_from_multiples, table_cases
from ._derivatives import BINARY, UNARY, Elementwise, hypot_partial, python_partials
from ._makers import push, python_rule, zero_of
from ._sequences import prod_rules, sum_rules

MATH_UNARY = {
    math.sin: np.sin,
    math.cos: np.cos,
    math.tan: np.tan,
    math.asin: np.arcsin,
    math.acos: np.arccos,
    math.atan: np.arctan,
    math.sinh: np.sinh,
    math.cosh: np.cosh,
    math.tanh: np.tanh,
    math.asinh: np.arcsinh,
    math.acosh: np.arccosh,
    math.atanh: np.arctanh,
    math.exp: np.exp,
    math.expm1: np.expm1,
    math.log2: np.log2,
    math.log10: np.log10,
    math.log1p: np.log1p,
    math.sqrt: np.sqrt,
    math.fabs: np.fabs,
    math.degrees: np.rad2deg,
    math.radians: np.deg2rad,
}
"""Each ``math`` function and the numpy function whose table entry it shares."""
for _name, _ufunc in (("exp2", np.exp2), ("cbrt", np.cbrt)):  # Python 3.11
    if hasattr(math, _name):
        MATH_UNARY[getattr(math, _name)] = _ufunc

MATH_BINARY = {math.atan2: np.arctan2, math.pow: np.power, math.fmod: np.fmod}

for _f, _ufunc in MATH_UNARY.items():
    python_rule(_f, UNARY[_ufunc])
for _f, _ufunc in MATH_BINARY.items():
    python_rule(_f, BINARY[_ufunc])


def _log_base(m: Any, out: Any, x: Any, base: Any) -> Any:
    # log(x, b) = log(x) / log(b)
    ln_base = m.log(base)
    return 1 / (x * ln_base), -out / (base * ln_base)


LOG_BASE = Elementwise(_log_base, (POSITIVE_REAL_ONLY, ABOVE_ONE))
"""``math.log(x, base)``: both arguments differentiable; ``math.log(x)`` is numpy's ``log``."""

python_rule(math.log, UNARY[np.log], object)
python_rule(math.log, LOG_BASE, object, object)


# ----- hypot of any number of coordinates, fsum, prod -----


@rrule.register(math.hypot)
def _rrule_hypot(f: Any, *coordinates: Any) -> Any:
    out = f(*coordinates)
    projects = [ProjectTo(x) for x in coordinates]

    def hypot_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return (NoTangent(), *map(zero_of, projects))
        partials = [python_partials(hypot_partial, out, (x,)) for x in coordinates]
        return (NoTangent(), *(project(p * out_bar) for project, p in zip(projects, partials)))

    return out, hypot_pullback


@frule.register(math.hypot)
def _frule_hypot(tangents: tuple[Any, ...], f: Any, *coordinates: Any) -> Any:
    out = f(*coordinates)
    terms = [
        python_partials(hypot_partial, out, (x,)) * unthunk(x_dot)
        for x, x_dot in zip(coordinates, tangents[1:])
        if not isinstance(x_dot, AbstractZero) and not ProjectTo(x).is_no_tangent
    ]
    return out, push(out, terms)


sum_rules(math.fsum)
prod_rules(math.prod)


# ----- declared checks -----


def _floats(n: int, low: float = -2.0, high: float = 2.0) -> Generated:
    return Generated(lambda rng, dtype: [float(v) for v in rng.uniform(low, high, n)], f"{n} floats")


def _cases() -> list[Case]:
    cases = []
    for f, ufunc in MATH_UNARY.items():
        cases += table_cases(f, UNARY[ufunc], python_floats_only=True)
    for f, ufunc in MATH_BINARY.items():
        if f is not math.fmod:
            cases += table_cases(f, BINARY[ufunc], python_floats_only=True)
    cases += table_cases(math.log, LOG_BASE, python_floats_only=True)
    real = ("float64",)
    cases += [
        Case(math.pow, (At(-1.5), 3), name="negative base", dtypes=real),
        Case(math.hypot, (At(3.0), At(-4.0), At(1.5)), dtypes=real),
        Case(math.hypot, (At(0.0), At(0.0)), name="origin", dtypes=real),
        Case(math.hypot, (At(2.5),), dtypes=real),
        Case(math.fsum, (_floats(5),), dtypes=real),
        Case(math.fsum, ((1.5, 2, -0.25),), name="tuple with an int", dtypes=real),
        Case(math.fsum, (At([0.5, -1.5, 2.0]),), name="array", dtypes=("float64", "float32")),
        Case(math.prod, (_floats(4),), dtypes=real),
        Case(math.prod, ([0.0, 1.5, -2.0],), name="a zero", dtypes=real),
        Case(math.prod, ((1.5, 3, -0.5),), name="tuple with an int", dtypes=real),
        Case(math.prod, (_floats(3),), kwargs={"start": 2.5}, name="start", dtypes=real),
        Case(math.prod, (At([[0.5, 2.0], [-1.0, 0.0], [1.5, 3.0]]),), name="array rows", dtypes=("float64", "float32")),
        Case(math.log, (At(2.5), At(10.0)), name="base 10", dtypes=real),
        Case(math.log, (At(2.5), 2), name="int base", dtypes=real),
        Case(math.sqrt, (4,), name="int", dtypes=real),
        Case(math.atan2, (At(0.5), At(-1.5)), dtypes=real),
        Case(math.fmod, (away_from_multiples(-1.3, None), At(-1.3)), dtypes=real),
    ]
    return cases


register_cases("python_math", *_cases())
