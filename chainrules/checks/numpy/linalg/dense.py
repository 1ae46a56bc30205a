"""Declared checks of the linalg rules (``chainrules.rules.numpy.linalg.dense``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from chainrules.checks._matrices import random_matrix, well_conditioned
from chainrules.checks._register import register_shipped_cases
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing.cases import REALS, Arg, At, Case, Generated

_RANK_ONE = [[1.0, 2.0], [2.0, 4.0]]
_RANK_TWO = [[2.0, 1.0, 3.0], [1.0, 0.5, 1.5], [0.0, 1.0, 1.0]]  # rows 1 and 2 are parallel


def _chain(*shapes: tuple[int, ...]) -> Generated:
    """A list of arrays of ``shapes`` for ``multi_dot``, entries of size about 1."""

    def make(rng: np.random.Generator, dtype: str) -> Any:
        return [random_matrix(rng, shape, dtype).astype(dtype) for shape in shapes]

    return Generated(make, "list of " + ", ".join(str(s).replace(" ", "") for s in shapes))


def _tensor(shape: tuple[int, ...], ind: int) -> Generated:
    """An array whose ``(prod(shape[:ind]), prod(shape[ind:]))`` reshape is a well-conditioned matrix."""
    n = math.prod(shape[:ind])
    matrix = well_conditioned((n, n))
    return Generated(lambda rng, dtype: matrix.make(rng, dtype).reshape(shape), f"tensor{shape}".replace(" ", ""))


def _scaled(shape: tuple[int, ...]) -> Generated:
    """Well-conditioned matrices scaled to a norm of about 1, so that their powers stay of that size."""
    matrix = well_conditioned(shape)
    return Generated(lambda rng, dtype: matrix.make(rng, dtype) / (3 * shape[-1]), f"{matrix.label}/3n")


register_shipped_cases(
    "numpy.linalg.dense",
    Case(np.linalg.inv, (well_conditioned((3, 3)),)),
    Case(np.linalg.inv, (well_conditioned((2, 3, 3)),)),
    Case(np.linalg.solve, (well_conditioned((3, 3)), Arg(REALS, (3,)))),
    Case(np.linalg.solve, (well_conditioned((3, 3)), Arg(REALS, (3, 2)))),
    Case(np.linalg.solve, (well_conditioned((2, 3, 3)), Arg(REALS, (3,))), name="one vector for a stack"),
    Case(np.linalg.solve, (well_conditioned((2, 3, 3)), Arg(REALS, (2, 3, 2)))),
    Case(np.linalg.solve, (well_conditioned((3, 3)), Arg(REALS, (2, 3, 1))), name="one matrix for a stack"),
    Case(np.linalg.solve, (well_conditioned((2, 1, 3, 3)), Arg(REALS, (4, 3, 2))), name="batch broadcasting"),
    Case(np.linalg.det, (well_conditioned((3, 3)),)),
    Case(np.linalg.det, (Arg(REALS, (4, 4)),)),
    Case(np.linalg.det, (well_conditioned((2, 3, 3)),)),
    Case(np.linalg.det, (At(_RANK_ONE),), name="singular"),
    Case(np.linalg.det, (At(_RANK_TWO),), name="singular, rank n - 1"),
    Case(np.linalg.det, (At([_RANK_TWO, np.eye(3).tolist()]),), name="a stack with one singular matrix"),
    Case(np.linalg.slogdet, (well_conditioned((3, 3)),)),
    Case(np.linalg.slogdet, (Arg(REALS, (2, 3, 3)),), name="signs of both kinds"),
    *[Case(np.linalg.matrix_power, (_scaled((3, 3)), n)) for n in (0, 1, 2, 3, 5, 11, -1, -2, -5)],
    Case(np.linalg.matrix_power, (_scaled((2, 3, 3)), 6)),
    Case(np.linalg.matrix_power, (_scaled((2, 3, 3)), -3)),
    Case(np.linalg.multi_dot, (_chain((2, 3), (3, 4)),)),
    Case(np.linalg.multi_dot, (_chain((2, 3), (3, 4), (4, 5)),)),
    Case(np.linalg.multi_dot, (_chain((5, 3), (3, 4), (4, 2), (2, 6)),), name="wider than tall"),
    Case(np.linalg.multi_dot, (_chain((6, 3), (3, 4), (4, 2), (2, 1)),), name="taller than wide"),
    Case(np.linalg.multi_dot, (_chain((4,), (4, 3), (3, 5), (5,)),), name="1-d ends: a scalar"),
    Case(np.linalg.multi_dot, (_chain((4,), (4, 3), (3, 2)),), name="1-d first"),
    Case(np.linalg.multi_dot, (_chain((2, 3), (3,)),), name="1-d last"),
    Case(np.linalg.tensorinv, (_tensor((4, 6, 8, 3), 2),)),
    Case(np.linalg.tensorinv, (_tensor((6, 2, 3), 1),), kwargs={"ind": 1}),
    Case(np.linalg.tensorsolve, (_tensor((2, 3, 6), 2), Arg(REALS, (2, 3)))),
    Case(np.linalg.tensorsolve, (_tensor((6, 2, 3), 1), Arg(REALS, (6,)))),
    Case(np.linalg.tensorsolve, (_tensor((2, 3, 6), 2), Arg(REALS, (6,)), (0, 1)), name="axes moved to the end"),
)

refuse_edges(
    "numpy.linalg.dense",
    np.linalg.det,
    ("huge",),
    "the adjugate of a singular matrix of entries 1e300 comes from products of singular values that overflow",
    where="singular",
)
refuse_edges(
    "numpy.linalg.dense",
    np.linalg.multi_dot,
    ("0-d", "zero batch"),
    "the rules decline (None) arrays that are not 1-d or 2-d, where numpy's dot semantics apply",
)
for _f in (np.linalg.solve, np.linalg.tensorsolve):
    refuse_edges(
        "numpy.linalg.dense",
        _f,
        ("subnormal",),
        "at subnormal magnitudes LAPACK's solve loses digits: the solution itself is inaccurate",
    )
