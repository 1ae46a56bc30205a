"""Declared checks of the creation rules (``chainrules.rules.numpy.creation``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules_core.testing.cases import POSITIVE, REALS, Arg, At, Case, Generated


def _nested(rng: np.random.Generator, dtype: str) -> list[Any]:
    """A list mixing arrays and Python scalars, as users write them."""
    scalar = complex(rng.normal(), rng.normal()) if dtype == "complex128" else float(rng.normal())
    return [np.asarray(rng.standard_normal(2), dtype=dtype), [scalar, 1.5]]


def _rows(rng: np.random.Generator, dtype: str) -> tuple[Any, ...]:
    return tuple(np.asarray(rng.standard_normal(3), dtype=dtype) for _ in range(2))


register_shipped_cases(
    "numpy.creation",
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


_A, _B = Arg(REALS, (2, 3)), Arg(REALS, (3,))

register_shipped_cases(
    "numpy.creation",
    Case(np.ascontiguousarray, (Arg(REALS, (2, 3)),)),
    Case(np.asfortranarray, (Arg(REALS, (2, 3)),)),
    Case(np.asanyarray, (Arg(REALS, (2, 3)),)),
    Case(np.require, (Arg(REALS, (2, 3)), None, "F")),
    Case(np.linspace, (Arg(REALS, None), Arg(REALS, None), 5), name="python scalars"),
    Case(np.linspace, (_A, _B, 4), name="broadcast"),
    Case(np.linspace, (_A, _B, 4, False), kwargs={"axis": 1}, name="no endpoint"),
    Case(np.linspace, (_B, 2.0, 3), kwargs={"axis": -1, "retstep": True}, name="retstep: a tuple"),
    Case(np.linspace, (_B, _B, 1), name="one sample"),
    Case(np.linspace, (0, _B, 3), name="integer start"),
    Case(np.logspace, (Arg(REALS, None), Arg(REALS, None), 4), name="python scalars"),
    Case(np.logspace, (_A, _B, 4, True, Arg(POSITIVE, None)), name="base"),
    Case(np.logspace, (_A, _B, 3, False, Arg(POSITIVE, (3,))), kwargs={"axis": -1}, name="base array"),
    Case(np.geomspace, (Arg(POSITIVE, None), Arg(POSITIVE, None), 4), name="python scalars"),
    Case(np.geomspace, (Arg(POSITIVE, (2, 3)), Arg(POSITIVE, (3,)), 5, False), kwargs={"axis": 1}),
    Case(np.geomspace, (At(-1.5), At(-4.0), 4), name="negative"),
    Case(np.meshgrid, (_B, Arg(REALS, (2,)))),
    Case(np.meshgrid, (_B, Arg(REALS, (2,)), Arg(REALS, (2, 2))), kwargs={"indexing": "ij"}, name="flattened input"),
    Case(np.meshgrid, (_B, Arg(REALS, (2,)), Arg(REALS, None)), kwargs={"sparse": True}),
    Case(np.meshgrid, (_B,), kwargs={"copy": False}, name="one input"),
    Case(np.vander, (Arg(REALS, (4,)),)),
    Case(np.vander, (Arg(REALS, (3,)), 5, True)),
    Case(np.vander, (At([0.0, 1.0, -2.0]),), kwargs={"N": 4}, name="at zero"),
    Case(np.vander, (Arg(REALS, (3,)), 1), name="one column"),
)
