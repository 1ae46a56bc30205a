"""Declared checks generated from the derivative tables: each domain over shapes, each non-smooth point.

The rules modules hold the formulas (``elementwise.UNARY``,
``arithmetic.BINARY`` ...); the check modules say, for each entry, where
its inputs live with a ``TableCheck``: one ``Domain`` per argument, the
non-smooth points where the rule's value is the central finite difference
(the harness confirms it there), and ``limits``, points where the
derivative is a limit that finite differences cannot reach, with the
partials the rule returns there (tested exactly).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from chainrules_core.testing.cases import DTYPES, Arg, At, Case, Domain, Generated

INF = math.inf
NAN = math.nan

Point = tuple[float, ...]


@dataclass(frozen=True)
class TableCheck:
    """Where the arguments of one table entry live: domains, non-smooth points, limits."""

    domains: tuple[Domain, ...]
    points: tuple[Point, ...] = ()
    limits: Mapping[Point, Point] = field(default_factory=dict)

    @property
    def arity(self) -> int:
        return len(self.domains)


def unary(domain: Domain, *, points: Sequence[float] = (), limits: Mapping[float, float] | None = None) -> TableCheck:
    """The check of a one-argument entry, its points and limits written as numbers: ``limits={0.0: INF}``."""
    return TableCheck((domain,), tuple((p,) for p in points), {(x,): (d,) for x, d in (limits or {}).items()})


def binary(
    x: Domain, y: Domain, *, points: Sequence[Point] = (), limits: Mapping[Point, Point] | None = None
) -> TableCheck:
    """The check of a two-argument entry: ``limits={(1.0, 0.0): (INF, -INF)}``."""
    return TableCheck((x, y), tuple(points), dict(limits or {}))


@dataclass(frozen=True)
class Band(Domain):
    """A domain whose complex samples stay within ``imag`` of the real axis (off cuts along the imaginary axis)."""

    imag: float = 0.2

    def sample_complex(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        return np.asarray(self.sample(rng, shape) + 1j * rng.uniform(-self.imag, self.imag, size=shape))


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


def dtypes_of(entry: TableCheck) -> tuple[str, ...]:
    """The dtypes an entry is checked in: complex only where every domain allows it."""
    return DTYPES if all(d.complex for d in entry.domains) else REAL_DTYPES


def table_cases(
    f: Callable[..., Any],
    entry: TableCheck,
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
                Case(
                    f,
                    tuple(At(np.asarray(v)) for v in point),
                    name="non-smooth point",
                    dtypes=dtypes,
                    smooth=False,
                    **extra,
                )
            )
        python_dtypes = tuple(d for d in dtypes if d != "float32")
        cases.append(
            Case(
                f,
                tuple(At(float(v)) for v in point),
                name="non-smooth point",
                dtypes=python_dtypes,
                smooth=False,
                **extra,
            )
        )
    return cases


def away_from_multiples(divisors: Any, shape: tuple[int, ...] | None) -> Generated:
    """Dividends ``y (k + u)`` with ``u`` in [0.25, 0.75]: remainder is smooth there, a quarter of ``y`` from a jump."""

    def make(rng: np.random.Generator, dtype: str) -> Any:
        y = np.broadcast_to(np.asarray(divisors), shape or ())
        x = y * (rng.integers(-2, 3, size=y.shape) + rng.uniform(0.25, 0.75, size=y.shape))
        return float(x) if shape is None else x.astype(dtype)

    return Generated(make, "away from multiples")
