"""Declared checks of the indexing rules (``chainrules.rules.numpy.indexing``)."""

from __future__ import annotations

import operator

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing.cases import REALS, Arg, Case

_X = Arg(REALS, (4, 3))
_REPEATS = np.array([2, 0, 2, 3, 2])
_MASK = np.array([[True, False, True], [False, False, True], [True, True, False], [False, True, True]])

INDEXES = (
    1,
    -1,
    (2, 1),
    slice(1, 3),
    slice(None, None, -1),
    (slice(None), slice(None, None, -2)),
    (Ellipsis, 1),
    (None, slice(1, None), Ellipsis, None),
    np.array([0, 2, 2, 3, 0]),
    [3, 3, -1],
    (np.array([1, 1, 3]), np.array([0, 2, 0])),
    (slice(None), np.array([[2, 2], [0, 2]])),
    (np.array([0, 0]), slice(None), None),
    _MASK,
    np.array([True, False, True, True]),
    (np.array([True, False, True, True]), 2),
)
"""Basic slices, negative steps, Ellipsis and None, integer arrays with repeats, masks."""

register_shipped_cases(
    "numpy.indexing",
    Case(np.where, (np.array([True, False, True]), Arg(REALS, (3,)), Arg(REALS, (3,)))),
    Case(np.where, (np.array([[True], [False]]), Arg(REALS, (2, 3)), Arg(REALS, (1, 3))), name="broadcast"),
    Case(np.where, (np.array([True, False, True]), Arg(REALS, None), Arg(REALS, (2, 3))), name="python scalar"),
    Case(np.where, (np.array([True, False]), Arg(REALS, (2,)), 0.0), name="constant branch"),
    *(Case(operator.getitem, (_X, index)) for index in INDEXES),
    Case(np.ndarray.__getitem__, (_X, (slice(None), np.array([1, 1]))), name="method"),
    *(Case(np.ndarray.__getitem__, (_X, index), name="method") for index in INDEXES),
    Case(operator.getitem, (Arg(REALS, (5,)), _REPEATS), name="repeats"),
    Case(operator.getitem, (Arg(REALS, (5,)), np.array([-1, 0, -1])), name="negative repeats"),
    Case(np.take, (_X, np.array([[1, 1], [0, 3]]))),
    Case(np.take, (_X, _REPEATS % 3, 1)),
    Case(np.take, (_X, [-1, 4, 4]), kwargs={"axis": 0, "mode": "wrap"}),
    Case(np.take, (_X, [-2, 9, 9, 1]), kwargs={"mode": "clip"}),
    Case(np.ndarray.take, (_X, _REPEATS, 0), kwargs={"mode": "clip"}, name="method"),
    Case(np.take_along_axis, (_X, np.array([[0, 0], [2, 1], [1, 1], [0, 2]]), 1)),
    Case(np.take_along_axis, (_X, np.array([[0, 3, 3]])), kwargs={"axis": 0}),
    Case(np.take_along_axis, (_X, np.array([[2], [2], [0], [1]])), name="broadcast indices"),
    Case(np.take_along_axis, (_X, np.array([11, 0, 0, 5]), None)),
    Case(np.diag, (Arg(REALS, (3,)),)),
    Case(np.diag, (Arg(REALS, (3,)), -2)),
    Case(np.diag, (_X,)),
    Case(np.diag, (_X, 1)),
    Case(np.diag, (_X,), kwargs={"k": -2}),
    Case(np.diagonal, (Arg(REALS, (2, 3, 4)),)),
    Case(np.diagonal, (Arg(REALS, (2, 3, 4)), 1, 1, 2)),
    Case(np.diagonal, (Arg(REALS, (2, 3, 4)),), kwargs={"offset": -1, "axis1": -1, "axis2": 0}),
    Case(np.ndarray.diagonal, (_X, 1), name="method"),
    *(Case(f, (Arg(REALS, (2, 3, 4)), *k)) for f in (np.tril, np.triu) for k in ((), (1,), (-2,))),
    *(Case(f, (Arg(REALS, (3,)),), name="1-d input") for f in (np.tril, np.triu)),
    Case(np.diagflat, (Arg(REALS, (2, 2)),)),
    Case(np.diagflat, (Arg(REALS, (3,)), -2)),
    Case(np.diagflat, (Arg(REALS, None),), kwargs={"k": 1}, name="python scalar"),
)
if hasattr(np.linalg, "diagonal"):  # numpy >= 2.0
    register_shipped_cases(
        "numpy.indexing",
        Case(np.linalg.diagonal, (Arg(REALS, (2, 3, 4)),)),
        Case(np.linalg.diagonal, (Arg(REALS, (3, 2)),), kwargs={"offset": -1}),
    )

_WRAP_HANGS = "numpy's take with mode='wrap' loops forever on an empty axis (a negative index never wraps into range)"
refuse_edges("numpy.indexing", np.take, ("empty",), _WRAP_HANGS, where=("mode='wrap'", "argument 1 axis 0"), run=False)
refuse_edges("numpy.indexing", np.take, ("zero batch",), _WRAP_HANGS, where=("mode='wrap'",), run=False)
