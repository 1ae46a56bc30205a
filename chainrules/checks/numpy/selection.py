"""Declared checks of the selection rules (``chainrules.rules.numpy.selection``) and the functional forms of
numpy's in-place updates (``chainrules.functional``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules import functional
from chainrules.checks._matrices import random_matrix
from chainrules.checks._register import register_shipped_cases
from chainrules.functional import setitem
from chainrules_core.testing import with_tangent
from chainrules_core.testing.cases import REALS, Arg, At, Case, Generated

_X = Arg(REALS, (3, 4))
_MASK = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])


def _arrays(*shapes: tuple[int, ...]) -> Generated:
    def make(rng: np.random.Generator, dtype: str) -> list[Any]:
        return [random_matrix(rng, s, dtype).astype(dtype) for s in shapes]

    return Generated(make, f"list of {', '.join(str(s).replace(' ', '') for s in shapes)}")


def _trimmable(front: int, back: int, ndim: int = 1) -> Any:
    """Zeros, then nonzero entries (one zero among them), then zeros; the tangent is zero on the trimmed zeros.

    Moving a trimmed zero off zero changes the output's length: the checks
    perturb only the entries that ``trim_zeros`` keeps.
    """
    values = np.array([0.0] * front + [1.5, -0.5, 0.0, 2.0] + [0.0] * back)
    tangent = np.array([0.0] * front + [1.0, 2.0, -1.0, 0.5] + [0.0] * back)
    if ndim == 2:
        values, tangent = np.outer([0.0, 1.0, 0.0], values), np.outer([0.0, 1.0, 0.0], tangent)
    return with_tangent(At(values), tangent)


register_shipped_cases(
    "numpy.selection",
    Case(np.insert, (_X, 1, Arg(REALS, (4,))), kwargs={"axis": 0}),
    Case(np.insert, (_X, [0, 2, 2], Arg(REALS, ())), name="flattened, broadcast value"),
    Case(np.insert, (_X, slice(1, 3), Arg(REALS, (3, 1)), 1)),
    Case(np.insert, (_X, 2, 0.5), kwargs={"axis": 1}, name="constant value"),
    Case(np.insert, (Arg(REALS, (4,)), 1), kwargs={"values": 7.0}, name="values by keyword: a constant"),
    Case(np.delete, (_X, 1, 1)),
    Case(np.delete, (_X, [0, 5, 11])),
    Case(np.delete, (_X, slice(None, None, 2)), kwargs={"axis": 0}),
    Case(np.compress, ([True, False, True], _X), kwargs={"axis": 0}),
    Case(np.compress, ([False, True], _X, 1), name="shorter condition"),
    Case(np.compress, ([True, False, True, True, False], _X), name="flattened"),
    Case(np.ndarray.compress, (_X, [True, False, True, True], 1), name="method"),
    Case(np.extract, (_MASK, _X)),
    Case(np.choose, (np.array([[0, 1, 1, 0], [1, 0, 2, 2], [2, 2, 0, 1]]), _arrays((3, 4), (4,), (3, 1)))),
    Case(np.choose, (np.array([0, 3, -1, 4]), _arrays((4,), (4,))), kwargs={"mode": "wrap"}),
    Case(np.choose, (np.array([0, 3, 1, -4]), _arrays((4,), (4,))), kwargs={"mode": "clip"}),
    Case(np.select, ([_MASK, ~_MASK[:1]], _arrays((3, 4), (4,)), Arg(REALS, ())), name="default positional"),
    Case(np.select, ([_MASK[0], _MASK[1]], _arrays((4,), (3, 4))), name="default 0: a constant"),
    Case(np.select, ([_MASK], _arrays((3, 4))), kwargs={"default": 1.5}, name="default by keyword: a constant"),
    Case(np.trim_zeros, (_trimmable(2, 3),)),
    Case(np.trim_zeros, (_trimmable(1, 2), "b"), name="back only"),
    Case(np.trim_zeros, (_trimmable(0, 2, ndim=2),), name="2-d bounding box"),
    Case(np.trim_zeros, (_trimmable(1, 1, ndim=2),), kwargs={"axis": -1}, name="2-d, one axis"),
    Case(setitem, (_X, (slice(None), 1), Arg(REALS, (3,)))),
    Case(setitem, (_X, _MASK, Arg(REALS, ())), name="mask, broadcast value"),
    Case(setitem, (_X, ([0, 0, 2], [1, 1, 3]), Arg(REALS, (3,))), name="a repeated index keeps the last"),
    Case(setitem, (_X, 1, 2.0), name="constant value"),
    Case(functional.put, (_X, [0, 5, 11], Arg(REALS, (3,)))),
    Case(functional.put, (_X, [1, 7, 1, 2], Arg(REALS, (2,))), name="values repeated, a repeated index keeps the last"),
    Case(functional.put, (_X, [-1, 13], Arg(REALS, (2,)), "wrap"), name="wrap"),
    Case(functional.put, (_X, [2, 20], Arg(REALS, (2,))), kwargs={"mode": "clip"}, name="clip"),
    Case(functional.place, (_X, _MASK, Arg(REALS, (4,))), name="values repeated"),
    Case(functional.putmask, (_X, _MASK, Arg(REALS, (5,))), name="values repeated"),
    Case(functional.putmask, (_X, _MASK, Arg(REALS, (3, 4)))),
    Case(functional.copyto, (_X, Arg(REALS, (4,))), kwargs={"where": _MASK}, name="broadcast source"),
    Case(functional.copyto, (_X, Arg(REALS, (3, 4)))),
    Case(functional.fill_diagonal, (_X, Arg(REALS, ()))),
    Case(functional.fill_diagonal, (Arg(REALS, (7, 3)), Arg(REALS, (2,)), True), name="wrap, values repeated"),
    Case(functional.put_along_axis, (_X, np.array([[3], [0], [1]]), Arg(REALS, (3, 1)), 1)),
    Case(functional.put_along_axis, (_X, np.array([[0, 2, 2, 1]]), Arg(REALS, ()), 0), name="broadcast value"),
    Case(functional.put_along_axis, (_X, np.array([5, 0]), Arg(REALS, (2,)), None), name="flattened"),
)
