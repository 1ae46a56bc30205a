"""Declared checks of the norms rules (``chainrules.rules.norms``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from chainrules_core.testing.cases import REALS, Arg, At, Case, register_cases

_ZERO_VECTOR = [0.0, 0.0, 0.0]
_TIED = [3.0, -1.0, -3.0, 2.0]  # |3| == |-3|: ties in the inf-norm, no tie in the -inf-norm
_TIED_ROWS = [[1.0, -2.0], [2.0, 1.0], [0.5, 0.5]]  # row sums 3, 3, 1; column sums 3.5, 3.5


def _norm_case(f: Any, shape: tuple[int, ...], name: str = "", **kwargs: Any) -> Case:
    return Case(f, (Arg(REALS, shape),), kwargs=kwargs, name=name)


register_cases(
    "norms",
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
    Case(np.linalg.norm, (At(_ZERO_VECTOR),), name="zero vector"),
    *[Case(np.linalg.norm, (At(_ZERO_VECTOR),), kwargs={"ord": p}, name="zero vector") for p in (1, math.inf, 3)],
    Case(np.linalg.norm, (At(_TIED),), kwargs={"ord": math.inf}, name="tie: split evenly"),
    Case(np.linalg.norm, (At(_TIED),), kwargs={"ord": -math.inf}),
    Case(np.linalg.norm, (At(_TIED_ROWS),), kwargs={"ord": math.inf}, name="tied rows: split evenly"),
    Case(np.linalg.norm, (At(_TIED_ROWS),), kwargs={"ord": 1}, name="tied columns: split evenly"),
    _norm_case(np.linalg.vector_norm, (3, 4)),
    _norm_case(np.linalg.vector_norm, (2, 3, 4), axis=(0, 2), ord=3),
    _norm_case(np.linalg.vector_norm, (2, 3, 4), axis=(-1,), keepdims=True, ord=math.inf),
    _norm_case(np.linalg.vector_norm, (3, 4), ord=1, axis=0),
    _norm_case(np.linalg.matrix_norm, (2, 3, 4)),
    *[_norm_case(np.linalg.matrix_norm, (2, 4, 3), ord=p) for p in ("nuc", 2, -2, 1, math.inf)],
    _norm_case(np.linalg.matrix_norm, (2, 3, 3), ord=-1, keepdims=True),
)
