"""Indexing: where, ``x[index]``, take, take_along_axis, diag, diagonal, tril, triu.

Indices, masks and conditions have no tangent. Every gather's pullback
scatters the seed into one zero array: by assignment where no entry can be
read twice (slices, integers, ``None``, ``Ellipsis``, boolean masks), by
accumulation where integer arrays may repeat an index (``np.bincount`` on
flat positions, or ``np.add.at`` for indices mixing arrays and slices).
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, ProjectTo, ZeroTangent, frule, rrule, unbroadcast, unthunk
from chainrules_core.testing import REALS, Arg, Case, register_cases

from ._arrays import (
    bind,
    cast_to,
    dense,
    diagonal_adjoint,
    given,
    linear_rule,
    real_dtype_of,
    scatter_add,
    zero_cotangent,
)

# ----- where -----


@rrule.register(np.where)
def _rrule_where(f: Any, condition: Any, *args: Any) -> Any:
    out = f(condition, *args)
    nothing = (NoTangent(),) * (len(args) + 2)
    if len(args) != 2 or ProjectTo(out).is_no_tangent:  # where(condition) is nonzero(condition)

        def index_pullback(out_bar: Any) -> tuple[Any, ...]:
            return nothing

        return out, index_pullback
    x, y = args
    project_x, project_y = ProjectTo(x), ProjectTo(y)

    def where_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), NoTangent(), zero_cotangent(project_x), zero_cotangent(project_y)
        zero = np.zeros((), dtype=np.result_type(out_bar))
        x_bar = NoTangent() if project_x.is_no_tangent else unbroadcast(x, np.where(condition, out_bar, zero))
        y_bar = NoTangent() if project_y.is_no_tangent else unbroadcast(y, np.where(condition, zero, out_bar))
        return NoTangent(), NoTangent(), x_bar, y_bar

    return out, where_pullback


@frule.register(np.where)
def _frule_where(tangents: tuple[Any, ...], f: Any, condition: Any, *args: Any) -> Any:
    out = f(condition, *args)
    project_out = ProjectTo(out)
    if len(args) != 2 or project_out.is_no_tangent:
        return out, NoTangent()
    x_dot, y_dot = (unthunk(t) for t in tangents[2:])
    if isinstance(x_dot, AbstractZero) and isinstance(y_dot, AbstractZero):
        return out, ZeroTangent()
    out_dot = np.where(condition, dense(x_dot, args[0]), dense(y_dot, args[1]))
    return out, project_out(np.broadcast_to(out_dot, np.shape(out)))


# ----- getitem, take, take_along_axis: gathers -----


def _rows_scatter(shape: tuple[int, ...], rows: Any, out_bar: Any, dtype: np.dtype[Any]) -> Any:
    """The adjoint of ``x[rows]`` for an integer array ``rows``: repeated rows accumulate."""
    n = shape[0]
    width = math.prod(shape[1:])
    rows = np.asarray(rows)
    if rows.size and rows.min() < 0:
        rows = rows % n
    positions = rows if width == 1 else rows.reshape(-1, 1) * width + np.arange(width)
    return scatter_add(math.prod(shape), positions, out_bar, dtype).reshape(shape)


def _is_integer_array(item: Any) -> bool:
    return isinstance(item, (list, np.ndarray)) and np.asarray(item).dtype.kind in "iu"


def _reads_once(index: Any) -> bool:
    """Whether ``x[index]`` reads each entry of ``x`` at most once (no integer arrays)."""
    for item in index if isinstance(index, tuple) else (index,):
        if item is None or item is Ellipsis or isinstance(item, (slice, int, np.integer)):
            continue
        if isinstance(item, np.ndarray) and item.dtype == bool:
            continue
        return False
    return True


def _getitem_adjoint(out_bar: Any, x: Any, index: Any) -> Any:
    dtype = real_dtype_of(x)
    assert dtype is not None
    shape = np.shape(x)
    if _is_integer_array(index) or (isinstance(index, tuple) and len(index) == 1 and _is_integer_array(index[0])):
        return _rows_scatter(shape, index[0] if isinstance(index, tuple) else index, out_bar, dtype)
    x_bar = np.zeros(shape, dtype=dtype)
    if _reads_once(index):
        x_bar[index] = cast_to(out_bar, dtype)
    else:
        np.add.at(x_bar, index, cast_to(out_bar, dtype))
    return x_bar


linear_rule(operator.getitem, _getitem_adjoint, types=(np.ndarray, object))
linear_rule(np.ndarray.__getitem__, _getitem_adjoint)


_TAKE_ARGS = ("indices", "axis", "out", "mode")


def _take_indices(indices: Any, n: int, mode: str) -> Any:
    """The index of the entry each output reads, with ``mode`` applied."""
    indices = np.asarray(indices)
    return np.clip(indices, 0, n - 1) if mode == "clip" else indices % n


def _take_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    options = bind(_TAKE_ARGS, args, kwargs, mode="raise")
    dtype = real_dtype_of(x)
    assert dtype is not None
    shape = np.shape(x)
    axis = options["axis"]
    if axis is None:
        flat = _take_indices(options["indices"], math.prod(shape), options["mode"])
        return scatter_add(math.prod(shape), flat, out_bar, dtype).reshape(shape)
    axis = int(axis) % len(shape)
    indices = _take_indices(options["indices"], shape[axis], options["mode"])
    x_bar = np.zeros(shape, dtype=dtype)
    np.add.at(x_bar, (slice(None),) * axis + (indices,), cast_to(out_bar, dtype))
    return x_bar


def _no_out(x: Any, *args: Any, **kwargs: Any) -> bool:
    return not given(bind(_TAKE_ARGS, args, kwargs).get("out"))


for _f in (np.take, np.ndarray.take):
    linear_rule(_f, _take_adjoint, applies=_no_out)


def _take_along_axis_adjoint(out_bar: Any, x: Any, indices: Any, *args: Any, **kwargs: Any) -> Any:
    axis = bind(("axis",), args, kwargs, axis=-1)["axis"]
    dtype = real_dtype_of(x)
    assert dtype is not None
    shape = np.shape(x)
    size = math.prod(shape)
    if axis is None:
        return scatter_add(size, np.asarray(indices) % size, out_bar, dtype).reshape(shape)
    axis = int(axis) % len(shape)
    grid = [np.arange(n).reshape([n if d == k else 1 for d in range(len(shape))]) for k, n in enumerate(shape)]
    grid[axis] = np.asarray(indices) % shape[axis]
    positions = np.ravel_multi_index(tuple(np.broadcast_arrays(*grid)), shape)
    return scatter_add(size, positions, out_bar, dtype).reshape(shape)


linear_rule(np.take_along_axis, _take_along_axis_adjoint)


# ----- diagonals and triangles -----


def _diag_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    k = bind(("k",), args, kwargs, k=0)["k"]
    if np.ndim(x) == 1:
        return np.diagonal(out_bar, k)
    dtype = real_dtype_of(x)
    assert dtype is not None
    return diagonal_adjoint(out_bar, np.shape(x), dtype, k, 0, 1)


def _diagonal_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    options = bind(("offset", "axis1", "axis2"), args, kwargs, offset=0, axis1=0, axis2=1)
    dtype = real_dtype_of(x)
    assert dtype is not None
    return diagonal_adjoint(out_bar, np.shape(x), dtype, options["offset"], options["axis1"], options["axis2"])


def _triangle_adjoint(triangle: Any) -> Any:
    def adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        k = bind(("k",), args, kwargs, k=0)["k"]
        return unbroadcast(x, triangle(out_bar, k))  # a 1-d input is broadcast to a square

    return adjoint


linear_rule(np.diag, _diag_adjoint)
for _f in (np.diagonal, np.ndarray.diagonal):
    linear_rule(_f, _diagonal_adjoint)
linear_rule(np.tril, _triangle_adjoint(np.tril))
linear_rule(np.triu, _triangle_adjoint(np.triu))


# ----- declared checks -----

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

register_cases(
    "indexing",
    Case(np.where, (np.array([True, False, True]), Arg(REALS, (3,)), Arg(REALS, (3,)))),
    Case(np.where, (np.array([[True], [False]]), Arg(REALS, (2, 3)), Arg(REALS, (1, 3))), name="broadcast"),
    Case(np.where, (np.array([True, False, True]), Arg(REALS, None), Arg(REALS, (2, 3))), name="python scalar"),
    Case(np.where, (np.array([True, False]), Arg(REALS, (2,)), 0.0), name="constant branch"),
    *(Case(operator.getitem, (_X, index)) for index in INDEXES),
    Case(np.ndarray.__getitem__, (_X, (slice(None), np.array([1, 1]))), name="method"),
    Case(operator.getitem, (Arg(REALS, (5,)), _REPEATS), name="repeats"),
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
)
