"""Declared checks of the joining rules (``chainrules.rules.joining``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.rules.joining import _GATHER_MODES
from chainrules_core.testing.cases import REALS, Arg, Case, Generated, register_cases


def _arrays(*shapes: tuple[int, ...], container: type = list) -> Generated:
    def make(rng: np.random.Generator, dtype: str) -> Any:
        return container(REALS.sample(rng, s).astype(dtype) for s in shapes)

    kind = container.__name__
    return Generated(make, f"{kind} of {', '.join(str(s).replace(' ', '') for s in shapes)}")


register_cases(
    "joining",
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
