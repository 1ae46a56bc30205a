"""Declared checks of the norms rules (``chainrules.rules.numpy.linalg.norms``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from chainrules.checks._matrices import SVD_HANGS, well_conditioned
from chainrules.checks._register import register_shipped_cases
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing import FiniteDifferences, with_tangent
from chainrules_core.testing.cases import REALS, Arg, At, Case
from chainrules_core.testing.tangents import PrimalAndTangent

_ZERO_VECTOR = [0.0, 0.0, 0.0]
_TIED = [3.0, -1.0, -3.0, 2.0]  # |3| == |-3|: ties in the inf-norm, no tie in the -inf-norm
_TIED_ROWS = [[1.0, -2.0], [2.0, 1.0], [0.5, 0.5]]  # row sums 3, 3, 1; column sums 3.5, 3.5
_ZERO_MATRIX = [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
_MATRIX_ORDS = ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf)
_RANK_ONE = [[1.0, 2.0], [2.0, 4.0], [-1.0, -2.0]]  # singular values sqrt(30), 0
# The kink of s_min at 0 is |h| c + O(h^2) with an odd h^2 term along most directions, which a
# central difference resolves only linearly. Along RANK_ONE + t NULL_BLOCK the singular values are
# sqrt(30) (1 + t) and 5 |t|: even in t, so the finite difference is exact at any step, and large
# steps keep the round-off of s_max (eps * sqrt(30)) out of it.
_LARGE_STEPS = {"fdm": FiniteDifferences(max_step=0.1, steps=3)}
_NULL_BLOCK = [[4.0, -2.0], [-2.0, 1.0], [0.0, 0.0]]
_ALONG_BOTH = (np.array(_RANK_ONE) + np.array(_NULL_BLOCK)).tolist()
_TIED_LARGEST = [[0.0, 2.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 1.0]]  # singular values 2, 2, 1
_TIED_SMALLEST = [[3.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]  # singular values 3, 1, 1
_CONDS = (None, 2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc")


def _norm_case(f: Any, shape: tuple[int, ...], name: str = "", **kwargs: Any) -> Case:
    return Case(f, (Arg(REALS, shape),), kwargs=kwargs, name=name)


register_shipped_cases(
    "numpy.linalg.norms",
    _norm_case(np.linalg.norm, (5,)),
    _norm_case(np.linalg.norm, (3, 4), name="2-norm of the flattened matrix"),
    _norm_case(np.linalg.norm, (2, 3, 4)),
    *[_norm_case(np.linalg.norm, (5,), ord=p) for p in (1, 2, math.inf, -math.inf, 3, 0.5, -1.5)],
    _norm_case(np.linalg.norm, (5,), name="counts nonzeros", ord=0),
    _norm_case(np.linalg.norm, (3, 4), axis=1),
    _norm_case(np.linalg.norm, (3, 4), axis=0, keepdims=True),
    _norm_case(np.linalg.norm, (3, 4), axis=-1, ord=1),
    *[_norm_case(np.linalg.norm, (4, 3), ord=p) for p in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf)],
    _norm_case(np.linalg.norm, (2, 3, 4), axis=(2, 0), ord="nuc", name="matrix over axes (2, 0)"),
    _norm_case(np.linalg.norm, (2, 3, 4), axis=(1, 2), ord=2, keepdims=True),
    Case(np.linalg.norm, (Arg(REALS, (3, 4)), 1, 0), name="ord and axis positional"),
    Case(np.linalg.norm, (At(_ZERO_VECTOR),), name="zero vector", smooth=False),
    *[
        Case(np.linalg.norm, (At(_ZERO_VECTOR),), kwargs={"ord": p}, name="zero vector", smooth=False)
        for p in (1, math.inf, 3)
    ],
    Case(np.linalg.norm, (At(_TIED),), kwargs={"ord": math.inf}, name="tie: split evenly", smooth=False),
    Case(np.linalg.norm, (At(_TIED),), kwargs={"ord": -math.inf}, name="tie", smooth=False),
    Case(np.linalg.norm, (At(_TIED_ROWS),), kwargs={"ord": math.inf}, name="tied rows: split evenly", smooth=False),
    Case(np.linalg.norm, (At(_TIED_ROWS),), kwargs={"ord": 1}, name="tied columns: split evenly", smooth=False),
    _norm_case(np.linalg.vector_norm, (3, 4)),
    _norm_case(np.linalg.vector_norm, (2, 3, 4), axis=(0, 2), ord=3),
    _norm_case(np.linalg.vector_norm, (2, 3, 4), axis=(-1,), keepdims=True, ord=math.inf),
    _norm_case(np.linalg.vector_norm, (3, 4), ord=1, axis=0),
    _norm_case(np.linalg.matrix_norm, (2, 3, 4)),
    *[_norm_case(np.linalg.matrix_norm, (2, 4, 3), ord=p) for p in ("nuc", 2, -2, 1, math.inf)],
    _norm_case(np.linalg.matrix_norm, (2, 3, 3), ord=-1, keepdims=True),
    Case(np.linalg.vector_norm, (At(_ZERO_VECTOR),), name="zero vector", smooth=False),
    Case(np.linalg.vector_norm, (At(_TIED),), kwargs={"ord": math.inf}, name="tie: split evenly", smooth=False),
    Case(
        np.linalg.matrix_norm, (At(_TIED_ROWS),), kwargs={"ord": math.inf}, name="tied rows: split evenly", smooth=False
    ),
    Case(
        np.linalg.matrix_norm,
        (At(_TIED_LARGEST),),
        kwargs={"ord": 2},
        name="tied largest singular values",
        smooth=False,
    ),
    *[
        Case(np.linalg.norm, (At(_ZERO_MATRIX),), kwargs={"ord": p}, name="zero matrix", smooth=False)
        for p in _MATRIX_ORDS
    ],
    *[
        Case(np.linalg.norm, (At(_ZERO_VECTOR),), kwargs={"ord": p}, name="zero vector", smooth=False)
        for p in (-math.inf, 0.5, -1.5)
    ],
    Case(np.linalg.norm, (At(_TIED_LARGEST),), kwargs={"ord": 2}, name="tied largest singular values", smooth=False),
    Case(np.linalg.norm, (At(_TIED_SMALLEST),), kwargs={"ord": -2}, name="tied smallest singular values", smooth=False),
    Case(np.linalg.norm, (At(_RANK_ONE),), kwargs={"ord": "nuc"}, name="a zero singular value", smooth=False),
    Case(
        np.linalg.norm,
        (with_tangent(At(_RANK_ONE), np.array(_ALONG_BOTH)),),
        kwargs={"ord": -2},
        options=_LARGE_STEPS,
        name="s_min = 0",
        smooth=False,
    ),
    Case(
        np.linalg.matrix_norm,
        (At([_RANK_ONE, _RANK_ONE]),),
        kwargs={"ord": "nuc"},
        name="a stack, rank one",
        smooth=False,
    ),
    *[Case(np.linalg.cond, (well_conditioned((3, 3)),), kwargs={"p": p}) for p in _CONDS],
    Case(np.linalg.cond, (well_conditioned((2, 3, 3)),)),
    Case(np.linalg.cond, (well_conditioned((2, 4, 4)), 1), name="p positional"),
    Case(np.linalg.cond, (Arg(REALS, (3, 5)),), name="rectangular"),
    Case(np.linalg.cond, (At(_TIED_LARGEST),), name="tied largest singular values", smooth=False),
    Case(
        np.linalg.cond,
        (with_tangent(At(_RANK_ONE[:2]), np.array(_NULL_BLOCK[:2])),),
        kwargs={"p": -2},
        options=_LARGE_STEPS,
        name="singular: s_min / s_max at its kink",
        smooth=False,
    ),
)


def _through_svd(case: Case) -> bool:
    """Whether numpy computes the case from singular values: matrix norms of order 2, -2 and 'nuc', and cond
    of those orders (None is 2)."""
    if case.f is np.linalg.cond:
        return case.kwargs.get("p", case.args[1] if len(case.args) > 1 else None) in (None, 2, -2, "nuc")
    order = case.kwargs.get("ord", case.args[1] if len(case.args) > 1 else None)
    spec = case.args[0].primal if isinstance(case.args[0], PrimalAndTangent) else case.args[0]
    ndim = len(spec.shape or ()) if isinstance(spec, Arg) else np.ndim(spec.value)
    axis = case.kwargs.get("axis")
    matrix = case.f is np.linalg.matrix_norm or (axis is None and ndim == 2) or np.size(axis) == 2
    return order in (2, -2, "nuc") and matrix


for _f in (np.linalg.norm, np.linalg.matrix_norm, np.linalg.cond):
    refuse_edges("numpy.linalg.norms", _f, ("inf",), SVD_HANGS, run=False, cases=_through_svd)

refuse_edges(
    "numpy.linalg.norms",
    np.linalg.cond,
    ("subnormal",),
    "the gradient of cond at entries of 1e-310 is of size 1e310, beyond float64: the cotangent of a seed of size "
    "1 overflows to inf, where the tangent, scaled by the entries, is finite",
    modes=("rrule",),
)
