"""Declared checks of the sorting rules (``chainrules.rules.numpy.sorting``)."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.rules.numpy.sorting import _UNIQUE
from chainrules_core.testing import with_tangent
from chainrules_core.testing.cases import DTYPES, REALS, Arg, At, Case, Generated


def _numbers(rng: np.random.Generator, dtype: str) -> list[Any]:
    """A Python list of numbers, as users write them."""
    values = rng.standard_normal(4) + (1j * rng.standard_normal(4) if np.dtype(dtype).kind == "c" else 0)
    return values.tolist()


# Ties (in sort) and duplicates (in unique) are points without a derivative that a finite
# difference could confirm; tests/rules/numpy/test_sorting.py checks the conventions there exactly.
register_shipped_cases(
    "numpy.sorting",
    *(
        Case(np.sort, (Arg(REALS, (3, 4)), *args), kwargs=kw)
        for args, kw in (((), {}), ((0,), {}), ((), {"axis": None}))
    ),
    Case(np.sort, (Arg(REALS, (2, 3, 4)),), kwargs={"axis": 1, "kind": "mergesort"}),
    Case(np.sort, (Arg(REALS, (5,)),), kwargs={"stable": True}),
    Case(np.unique, (Arg(REALS, (3, 4)),)),
    Case(np.unique, (Arg(REALS, (3, 4)), True, True, True), name="every output"),
    # unique_values (and unique with sorted=False) may return complex values in hash order, which
    # jumps as the values move: the rule follows whatever order comes back, finite differences cannot.
    *(
        Case(f, (Arg(REALS, (3, 4)),), dtypes=("float64", "float32") if f.__name__ == "unique_values" else DTYPES)
        for f in _UNIQUE[1:]
    ),
)


def _shared(values: list[float], tangent: list[float]) -> Any:
    """An argument holding a value the other argument holds too, with a tangent that keeps the output's
    structure: zero on a value both hold (the checks move one argument at a time), equal on copies in one
    argument (which stay one value of union1d's)."""
    return with_tangent(At(values), np.array(tangent))


_SHARED = "1.0 in both arguments"
register_shipped_cases(
    "numpy.sorting",
    # set operations, at distinct values (random draws) and at a value both arguments hold (not smooth)
    Case(np.union1d, (Arg(REALS, (4,)), Arg(REALS, (2, 3)))),
    Case(
        np.union1d,
        (_shared([0.3, 1.0, 2.0, 0.3], [1.0, 0.0, -1.0, 1.0]), _shared([1.0, 5.0], [0.0, 0.5])),
        name=f"{_SHARED}, 0.3 twice",
        smooth=False,
    ),
    Case(np.setdiff1d, (Arg(REALS, (2, 3)), Arg(REALS, (3,)))),
    Case(np.setdiff1d, (Arg(REALS, (5,)), Arg(REALS, (3,)), True), name="assume_unique"),
    Case(
        np.setdiff1d,
        (_shared([0.3, 1.0, 2.0], [1.0, 0.0, -1.0]), _shared([1.0, 5.0], [0.0, 0.5])),
        name=_SHARED,
        smooth=False,
    ),
    Case(np.setxor1d, (Arg(REALS, (4,)), Arg(REALS, (3,)))),
    Case(
        np.setxor1d,
        (_shared([0.3, 1.0, 2.0], [1.0, 0.0, -1.0]), _shared([1.0, 5.0], [0.0, 0.5])),
        name=_SHARED,
        smooth=False,
    ),
    Case(np.intersect1d, (Arg(REALS, (4,)), Arg(REALS, (3,))), name="empty"),
    Case(
        np.intersect1d,
        (_shared([0.3, 1.0, 2.0], [1.0, 0.0, 0.0]), _shared([2.0, 1.0, 5.0], [0.0, 0.0, 0.5])),
        kwargs={"return_indices": True},
        name="1.0 and 2.0 in both arguments",
        smooth=False,
    ),
)
register_shipped_cases(
    "numpy.sorting",
    Case(np.partition, (Arg(REALS, (3, 5)), 2)),
    Case(np.partition, (Arg(REALS, (4, 3)), [0, 2], 0), name="several kth"),
    Case(np.partition, (Arg(REALS, (2, 3)), -1), kwargs={"axis": None}),
    Case(np.sort_complex, (Arg(REALS, (5,)),)),
    Case(np.sort_complex, (Generated(_numbers, "list"),), name="a list"),
    Case(np.sort_complex, (Arg(REALS, (2, 4)),)),
)
if "sorted" in inspect.signature(np.unique).parameters:
    register_shipped_cases(
        "numpy.sorting",
        Case(
            np.unique, (Arg(REALS, (3, 4)),), kwargs={"sorted": False}, dtypes=("float64", "float32"), name="unsorted"
        ),
    )
