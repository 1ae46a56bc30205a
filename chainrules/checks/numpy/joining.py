"""Declared checks of the joining rules (``chainrules.rules.numpy.joining``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.checks._matrices import random_matrix
from chainrules.checks._register import register_shipped_cases
from chainrules.rules.numpy.joining import _GATHER_MODES
from chainrules_core.testing.cases import REALS, Arg, Case, Generated


def _arrays(*shapes: tuple[int, ...], container: type = list) -> Generated:
    def make(rng: np.random.Generator, dtype: str) -> Any:
        return container(REALS.sample(rng, s).astype(dtype) for s in shapes)

    kind = container.__name__
    return Generated(make, f"{kind} of {', '.join(str(s).replace(' ', '') for s in shapes)}")


register_shipped_cases(
    "numpy.joining",
    Case(np.concatenate, (_arrays((2, 3), (4, 3)),)),
    Case(np.concatenate, (_arrays((2, 3), (2, 1), (2, 2), container=tuple), 1)),
    Case(np.concatenate, (_arrays((2, 3), (2, 2)),), kwargs={"axis": -1}),
    Case(np.concatenate, (_arrays((2, 3), (4,)),), kwargs={"axis": None}),
    Case(np.concatenate, (_arrays((2,), (3,)),), kwargs={"dtype": np.complex128}, name="to complex"),
    Case(np.stack, (_arrays((2, 3), (2, 3), (2, 3)),)),
    Case(np.stack, (_arrays((2, 3), (2, 3), container=tuple), -1)),
    Case(np.stack, (_arrays((2, 3), (2, 3)),), kwargs={"axis": 1}),
    Case(np.vstack, (_arrays((3,), (2, 3)),)),
    Case(np.vstack, (_arrays((1, 2, 2), (3, 2, 2), container=tuple),)),
    Case(np.hstack, (_arrays((3,), (2,), ()),)),
    Case(np.hstack, (_arrays((2, 3), (2, 1)),)),
    Case(np.split, (Arg(REALS, (6, 2)), 3)),
    Case(np.split, (Arg(REALS, (2, 6)), [1, 4], 1)),
    Case(np.split, (Arg(REALS, (2, 6)), [2, 2, 5]), kwargs={"axis": -1}, name="an empty piece"),
    Case(np.array_split, (Arg(REALS, (7, 2)), 3)),
    Case(np.hsplit, (Arg(REALS, (2, 4)), 2)),
    Case(np.vsplit, (Arg(REALS, (4, 2)), [1])),
    Case(np.dsplit, (Arg(REALS, (2, 2, 4)), 2)),
    Case(np.tile, (Arg(REALS, (2, 3)), 2)),
    Case(np.tile, (Arg(REALS, (2, 3)), (3, 1, 2))),
    Case(np.tile, (Arg(REALS, (3,)), (2, 2))),
    Case(np.tile, (Arg(REALS, None), 3), name="python scalar"),
    Case(np.repeat, (Arg(REALS, (2, 3)), 2)),
    Case(np.repeat, (Arg(REALS, (2, 3)), 3, 1)),
    Case(np.repeat, (Arg(REALS, (2, 3)), [2, 0, 3]), kwargs={"axis": -1}, name="uneven"),
    Case(np.repeat, (Arg(REALS, (2, 3)), [1, 0, 2, 0, 0, 3]), name="uneven, flat"),
    Case(np.ndarray.repeat, (Arg(REALS, (2, 3)), 2, 0), name="method"),
    Case(np.pad, (Arg(REALS, (2, 3)), 1)),
    Case(np.pad, (Arg(REALS, (2, 3)), ((1, 0), (2, 3))), kwargs={"constant_values": 4.0}),
    *(Case(np.pad, (Arg(REALS, (3, 4)), ((2, 1), (3, 2)), mode)) for mode in _GATHER_MODES),
    Case(np.pad, (Arg(REALS, (4,)), (3, 5)), kwargs={"mode": "wrap"}),
)


def _stacked(*shape: int) -> Generated:
    """One array whose first-axis slices numpy joins, passed where a sequence is expected."""
    return Generated(
        lambda rng, dtype: random_matrix(rng, shape, dtype).astype(dtype), f"array{shape}".replace(" ", "")
    )


register_shipped_cases(
    "numpy.joining",
    Case(np.concatenate, (_stacked(2, 3, 4),), name="an array as the sequence"),
    Case(np.concatenate, (_stacked(3, 2),), kwargs={"axis": None}, name="an array as the sequence"),
    Case(np.stack, (_stacked(2, 3), 1), name="an array as the sequence"),
    Case(np.vstack, (_stacked(2, 3),), name="an array as the sequence"),
    Case(np.hstack, (_stacked(2, 3, 2),), name="an array as the sequence"),
    Case(np.dstack, (_arrays((2, 3), (2, 3, 2)),)),
    Case(np.dstack, (_arrays((3,), (3,), container=tuple),)),
    Case(np.column_stack, (_arrays((3,), (3, 2)),)),
    Case(np.column_stack, (_arrays((), ()),), name="0-d"),
    Case(np.append, (Arg(REALS, (2, 3)), Arg(REALS, (1, 3))), kwargs={"axis": 0}),
    Case(np.append, (Arg(REALS, (2, 3)), Arg(REALS, (2, 2)), -1)),
    Case(np.append, (Arg(REALS, (2,)), Arg(REALS, None)), name="flattened, python scalar"),
    Case(np.block, (Generated(lambda rng, dtype: _block(rng, dtype), "nested lists"),)),
    Case(np.block, (_arrays((2,), (3,), ()),), name="one level"),
    Case(np.resize, (Arg(REALS, (2, 3)), (4, 5))),
    Case(np.resize, (Arg(REALS, (5,)), 3), name="shorter"),
    Case(np.resize, (Arg(REALS, None), (2, 2)), name="python scalar"),
)
if hasattr(np, "unstack"):  # numpy >= 2.1
    register_shipped_cases(
        "numpy.joining",
        Case(np.unstack, (Arg(REALS, (3, 2)),)),
        Case(np.unstack, (Arg(REALS, (2, 3, 4)),), kwargs={"axis": -1}),
    )
if hasattr(np, "row_stack"):  # deprecated in numpy 2.0
    register_shipped_cases("numpy.joining", Case(np.row_stack, (_arrays((3,), (2, 3)),)))


def _block(rng: np.random.Generator, dtype: str) -> list[Any]:
    """``[[A, B], [C]]`` with A 2x2, B 2x1, C 1x3."""

    def sample(*shape: int) -> Any:
        return random_matrix(rng, shape, dtype).astype(dtype)

    return [[sample(2, 2), sample(2, 1)], [sample(1, 3)]]
