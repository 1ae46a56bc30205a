"""Declared checks of the products rules (``chainrules.rules.numpy.products``)."""

from __future__ import annotations

import itertools
import operator

import numpy as np

from chainrules.checks._matrices import random_matrix
from chainrules.checks._register import register_shipped_cases
from chainrules_core.testing.cases import REALS, Arg, At, Case


def _arrays(*shapes: tuple[int, ...]) -> tuple[Arg, ...]:
    return tuple(Arg(REALS, shape) for shape in shapes)


register_shipped_cases(
    "numpy.products",
    *[
        Case(np.matmul, _arrays(a, b))
        for a, b in [
            ((3, 4), (4, 2)),
            ((4,), (4, 3)),
            ((3, 4), (4,)),
            ((4,), (4,)),
            ((2, 3, 4), (4, 5)),  # a batch against one matrix: b's cotangent folds the batch
            ((3, 4), (2, 4, 5)),
            ((2, 3, 4), (2, 4, 2)),
            ((2, 1, 3, 4), (3, 4, 2)),  # batch dimensions broadcast both ways
            ((5,), (2, 5, 3)),
            ((2, 3, 5), (5,)),
        ]
    ],
    Case(operator.matmul, _arrays((3, 4), (4, 2))),
    Case(operator.matmul, _arrays((2, 3, 4), (4,))),
    Case(np.linalg.matmul, _arrays((2, 3, 4), (1, 4, 2))),
    *[
        Case(np.dot, _arrays(a, b))
        for a, b in [((3, 4), (4, 2)), ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 3)), ((2, 3, 4), (5, 4, 2))]
    ],
    Case(np.dot, _arrays((), (3, 2)), name="0-d operand"),
    Case(np.dot, (Arg(REALS, (2, 3)), At(2.5)), name="Python float operand"),
    Case(np.vdot, _arrays((3, 4), (12,))),
    Case(np.vdot, _arrays((5,), (5,))),
    *[Case(np.inner, _arrays(a, b)) for a, b in [((3, 4), (5, 4)), ((4,), (4,)), ((2, 3, 4), (4,)), ((), (3,))]],
    Case(np.outer, _arrays((3,), (4,))),
    Case(np.outer, _arrays((2, 3), (4,)), name="flattens its operands"),
    Case(np.linalg.outer, _arrays((3,), (2,))),
    Case(np.tensordot, _arrays((2, 3, 4), (3, 4, 5))),
    Case(np.tensordot, (*_arrays((2, 3, 4), (4, 5)), 1), name="axes as a positional int"),
    Case(np.tensordot, _arrays((2, 3), (4,)), kwargs={"axes": 0}),
    Case(np.tensordot, _arrays((2, 3, 4), (4, 5, 2)), kwargs={"axes": ([0, 2], [2, 0])}),
    Case(np.tensordot, _arrays((2, 3, 4), (3, 5)), kwargs={"axes": (1, 0)}, name="pair of ints"),
    Case(np.tensordot, _arrays((2, 3, 4), (4, 3, 2)), kwargs={"axes": ([-1, 1], [0, -2])}, name="negative axes"),
    Case(np.linalg.tensordot, _arrays((2, 3), (3, 4)), kwargs={"axes": 1}),
)


register_shipped_cases(
    "numpy.products",
    Case(np.kron, _arrays((2, 3), (3, 2))),
    Case(np.kron, _arrays((3,), (2, 2)), name="different ndim"),
    Case(np.kron, _arrays((), (2,)), name="0-d operand"),
    Case(np.kron, _arrays((2, 1, 2), (2,))),
    Case(np.cross, _arrays((4, 3), (3,)), name="broadcast"),
    Case(np.cross, _arrays((3, 4), (4, 3)), kwargs={"axisa": 0}),
    Case(np.cross, _arrays((3, 2), (2, 3)), kwargs={"axisa": 0, "axisb": 1, "axisc": 0}),
    Case(np.cross, (*_arrays((3, 4), (3, 4)), -1, -1, -1, 0), name="axis, positional"),
    Case(np.cross, _arrays((4, 2), (4, 2)), name="2-vectors: the z component"),
    Case(np.cross, _arrays((4, 2), (3,)), name="a 2-vector and a 3-vector"),
    Case(np.cross, _arrays((3,), (2,)), name="a 3-vector and a 2-vector"),
)
if hasattr(np, "vecdot"):  # numpy >= 2.0
    register_shipped_cases(
        "numpy.products",
        Case(np.vecdot, _arrays((2, 3), (3,))),
        Case(np.vecdot, _arrays((3, 2), (3, 1)), kwargs={"axis": 0}),
        Case(np.linalg.vecdot, _arrays((2, 3), (2, 3))),
        Case(np.linalg.cross, _arrays((2, 3), (2, 3))),
        Case(np.linalg.cross, _arrays((3, 2), (3, 1)), kwargs={"axis": 0}),
    )
if hasattr(np, "matvec"):  # numpy >= 2.2
    register_shipped_cases(
        "numpy.products",
        Case(np.matvec, _arrays((2, 3, 4), (4,))),
        Case(np.matvec, _arrays((3, 4), (2, 4)), name="broadcast matrix"),
        Case(np.vecmat, _arrays((3,), (2, 3, 4))),
        Case(np.vecmat, _arrays((2, 3), (3, 4)), name="broadcast matrix"),
    )


def _chain(rng: np.random.Generator, dtype: str, sizes: tuple[int, ...]) -> list[np.ndarray]:
    """Matrices of ``sizes[k] x sizes[k + 1]``; with a 5-size chain the ends are a vector each."""
    mats = [random_matrix(rng, (m, n), dtype).astype(dtype) for m, n in itertools.pairwise(sizes)]
    if len(sizes) > 4:
        mats[0], mats[-1] = mats[0][0], mats[-1][:, 0]
    return mats
