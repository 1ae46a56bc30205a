"""Declared checks of the products rules (``chainrules.rules.products``)."""

from __future__ import annotations

import operator

import numpy as np

from chainrules_core.testing.cases import REALS, Arg, At, Case, register_cases


def _arrays(*shapes: tuple[int, ...]) -> tuple[Arg, ...]:
    return tuple(Arg(REALS, shape) for shape in shapes)


register_cases(
    "products",
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
