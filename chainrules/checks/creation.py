"""Declared checks of the creation rules (``chainrules.rules.creation``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core.testing.cases import REALS, Arg, Case, Generated, register_cases


def _nested(rng: np.random.Generator, dtype: str) -> list[Any]:
    """A list mixing arrays and Python scalars, as users write them."""
    scalar = complex(rng.normal(), rng.normal()) if dtype == "complex128" else float(rng.normal())
    return [np.asarray(rng.standard_normal(2), dtype=dtype), [scalar, 1.5]]


def _rows(rng: np.random.Generator, dtype: str) -> tuple[Any, ...]:
    return tuple(np.asarray(rng.standard_normal(3), dtype=dtype) for _ in range(2))


register_cases(
    "creation",
    Case(np.array, (Arg(REALS, (2, 3)),)),
    Case(np.array, (Arg(REALS, (2, 3)),), kwargs={"ndmin": 4}),
    Case(np.array, (Arg(REALS, (2, 3)), np.complex128), name="to complex"),
    Case(np.array, (Arg(REALS, (2, 3)),), kwargs={"dtype": np.float64}, dtypes=("float32",), name="to float64"),
    Case(np.array, (Generated(_nested, "nested list"),)),
    Case(np.array, (Generated(_rows, "tuple of rows"),)),
    Case(np.asarray, (Arg(REALS, (3,)),)),
    Case(np.asarray, (Generated(_rows, "tuple of rows"),)),
    Case(np.asarray, (Arg(REALS, None),), name="python scalar"),
    Case(np.copy, (Arg(REALS, (2, 3)),)),
    Case(np.ndarray.copy, (Arg(REALS, (2, 3)), "F"), name="method"),
    Case(np.full, ((2, 3), Arg(REALS, None)), name="python scalar"),
    Case(np.full, ((2, 3), Arg(REALS, ()))),
    Case(np.full, ((2, 3), Arg(REALS, (3,)))),
    Case(np.full, ((2, 3), Arg(REALS, (2, 1)), np.complex128), name="to complex"),
    Case(np.full_like, (Arg(REALS, (2, 3)), Arg(REALS, ()))),
    Case(np.full_like, (Arg(REALS, (2, 3)), Arg(REALS, (3,)))),
)
