"""Declared checks of the rules for functions of a sequence (``chainrules.rules.python.sequences``)."""

from __future__ import annotations

import builtins
import math

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules_core.testing.cases import At, Case, Generated


def _floats(n: int, low: float = -2.0, high: float = 2.0) -> Generated:
    return Generated(lambda rng, dtype: [float(v) for v in rng.uniform(low, high, n)], f"{n} floats")


real = ("float64",)
register_shipped_cases(
    "python.sequences",
    Case(math.fsum, (_floats(5),), dtypes=real),
    Case(math.fsum, ((1.5, 2, -0.25),), name="tuple with an int", dtypes=real),
    Case(math.fsum, (At([0.5, -1.5, 2.0]),), name="array", dtypes=("float64", "float32")),
    Case(math.prod, (_floats(4),), dtypes=real),
    Case(math.prod, ([0.0, 1.5, -2.0],), name="a zero", dtypes=real),
    Case(math.prod, ((1.5, 3, -0.5),), name="tuple with an int", dtypes=real),
    Case(math.prod, (_floats(3),), kwargs={"start": 2.5}, name="start", dtypes=real),
    Case(math.prod, (At([[0.5, 2.0], [-1.0, 0.0], [1.5, 3.0]]),), name="array rows", dtypes=("float64", "float32")),
    Case(builtins.sum, (_floats(4),), dtypes=real),
    Case(builtins.sum, (_floats(3), At(0.5)), name="start", dtypes=real),
    Case(builtins.sum, ((1.5, 2, -0.5),), name="tuple with an int", dtypes=real),
    Case(builtins.sum, (At([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]),), name="array rows"),
    Case(builtins.sum, ([np.array([1.0, 2.0, 3.0]), np.array([[0.5], [1.5]]), 2.5],), name="broadcasting"),
    Case(builtins.max, (_floats(4),), dtypes=real),
    Case(builtins.min, (_floats(4),), dtypes=real),
    Case(builtins.max, (At(0.5), At(-1.5), At(2.0)), name="arguments", dtypes=real),
    Case(builtins.min, (At(0.5), 3, At(2.0)), name="an int argument", dtypes=real),
    Case(builtins.max, ([1.0, 2.0, 2.0, -3.0],), name="ties", dtypes=real, smooth=False),
    Case(builtins.min, ((0.5, -1.5, -1.5),), name="ties", dtypes=real, smooth=False),
    Case(builtins.max, ([1.0, -2.5, 2.0],), kwargs={"key": abs}, name="key", dtypes=real),
    Case(builtins.max, (At([0.5, 2.0, -1.0]),), name="array", dtypes=("float64", "float32")),
    Case(math.dist, (_floats(3), _floats(3)), dtypes=real),
    Case(math.dist, ((1.5, 2, -0.5), [0.5, -1.0, 3]), name="a tuple and a list with ints", dtypes=real),
    Case(math.dist, (At([0.5, 2.0, -1.0]), At([1.5, -0.5, 0.25])), name="arrays", dtypes=("float64", "float32")),
    # coincident points: 0, the central difference, at the origin where finite differences move the points exactly
    Case(math.dist, ([0.0, 0.0], [0.0, 0.0]), name="coincident points", dtypes=real, smooth=False),
    Case(math.dist, ((2.5,), (-1.0,)), name="one coordinate", dtypes=real),
    Case(math.dist, ([1e200, -3e200], [-2e200, 1e200]), name="beyond squares", dtypes=real),
    # sorted: a permutation, at distinct values (at ties, the stable one, a one-sided derivative that finite
    # differences do not see: tests/rules/python/test_sequences.py)
    Case(builtins.sorted, (_floats(5),), dtypes=real),
    Case(builtins.sorted, ((1.5, 3, -0.5, 0.25),), kwargs={"reverse": True}, name="tuple with an int", dtypes=real),
    Case(builtins.sorted, ([1.0, -2.5, 2.0, -0.5],), kwargs={"key": abs}, name="key", dtypes=real),
    Case(builtins.sorted, (At([0.5, 2.0, -1.0, 0.75]),), name="array", dtypes=("float64", "float32")),
)
