"""Declared checks generated from the derivative tables: each domain over shapes, each non-smooth point."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from chainrules_core.testing import DTYPES, Arg, At, Case, Generated

from ._derivatives import Elementwise

Shapes = tuple[tuple[int, ...] | None, ...]

UNARY_SHAPES: tuple[Shapes, ...] = ((None,), ((),), ((3,),), ((2, 3),))
"""A Python scalar, a 0-d array, a vector, a matrix."""

BINARY_SHAPES: tuple[Shapes, ...] = (
    (None, None),
    (None, (3,)),
    ((), (3,)),
    ((3,), (2, 3)),
    ((2, 3), ()),
    ((2, 1), (1, 3)),
)
"""Python scalars, and the broadcasting pairs: a scalar with an array, leading axes, size-1 axes on both sides."""

REAL_DTYPES = ("float64", "float32")


def dtypes_of(entry: Elementwise) -> tuple[str, ...]:
    """The dtypes an entry is checked in: complex only where every domain allows it."""
    return DTYPES if all(d.complex for d in entry.domains) else REAL_DTYPES


def table_cases(
    f: Callable[..., Any],
    entry: Elementwise,
    *,
    shapes: Sequence[Shapes] | None = None,
    kwargs: Mapping[str, Any] | None = None,
    options: Mapping[str, Any] | None = None,
    python_floats_only: bool = False,
) -> list[Case]:
    """One case per shape (or broadcasting pair) drawn from the entry's domains, and one per declared point.

    Points run on 0-d arrays and on Python floats, in every dtype the
    domains allow; ``python_floats_only`` (for ``math``) runs Python floats
    alone.
    """
    if python_floats_only:
        shapes = ((None,) * entry.arity,)
    shapes = shapes or (UNARY_SHAPES if entry.arity == 1 else BINARY_SHAPES)
    dtypes = ("float64",) if python_floats_only else dtypes_of(entry)
    extra = {"kwargs": dict(kwargs or {}), "options": dict(options or {})}
    cases = [
        Case(f, tuple(Arg(d, s) for d, s in zip(entry.domains, shape)), dtypes=dtypes, **extra) for shape in shapes
    ]
    for point in entry.points:
        if not python_floats_only:
            cases.append(
                Case(f, tuple(At(np.asarray(v)) for v in point), name="non-smooth point", dtypes=dtypes, **extra)
            )
        python_dtypes = tuple(d for d in dtypes if d != "float32")
        cases.append(
            Case(f, tuple(At(float(v)) for v in point), name="non-smooth point", dtypes=python_dtypes, **extra)
        )
    return cases


def away_from_multiples(divisors: Any, shape: tuple[int, ...] | None) -> Generated:
    """Dividends ``y (k + u)`` with ``u`` in [0.25, 0.75]: remainder is smooth there, a quarter of ``y`` from a jump."""

    def make(rng: np.random.Generator, dtype: str) -> Any:
        y = np.broadcast_to(np.asarray(divisors), shape or ())
        x = y * (rng.integers(-2, 3, size=y.shape) + rng.uniform(0.25, 0.75, size=y.shape))
        return float(x) if shape is None else x.astype(dtype)

    return Generated(make, "away from multiples")
