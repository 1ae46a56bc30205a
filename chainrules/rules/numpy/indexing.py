"""Indexing: where, ``x[index]``, take, take_along_axis, diag, diagflat, diagonal, tril, triu.

Indices, masks and conditions have no tangent. Every gather's pullback
scatters the seed into one zero array: by assignment where no entry can be
read twice (slices, integers, ``None``, ``Ellipsis``, boolean masks), by
accumulation where integer arrays may repeat an index (``np.bincount`` on
flat positions, or ``np.add.at`` for indices mixing arrays and slices).
A float64 vector read at a vector of integers has a fast path (the bottom
section): its pullback is one ``np.bincount`` of the seed.

``where``, ``x[index]`` (``_getitem``), ``take``, ``take_along_axis``,
``tril``, ``triu`` and ``linalg.diagonal`` run on every library that follows
the Python Array API standard (``diagonal`` on dask too). The standard has
no scatter-add: on
another library's arrays the pullback of ``take`` and ``take_along_axis``
is a product with the one-hot matrix of the indices (``_entries.sum_into``,
``scatter_along``), ``O(m * n)`` for ``m`` indices into an axis of ``n``,
where numpy's ``np.add.at`` and ``np.bincount`` take ``O(m + n)``; a
diagonal's pullback is a ``where`` over the matrix, ``O(rows * cols)``.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    ZeroTangent,
    checked_seed,
    checked_tangent,
    frule,
    non_differentiable,
    rrule,
    unbroadcast,
    value_shape,
)
from chainrules_core.array_api import call_in
from chainrules_core.arrays import (
    device_of,
    first_foreign_array,
    is_foreign_array,
    namespace_of,
)
from chainrules_core.projection import output_tangent, sum_to_shape

from .._arrays import bind_options, cast_to, diagonal_adjoint, instantiate_zeros, is_given, real_dtype_of, scatter_add
from .._makers import linear_in_first_rule
from ._entries import gather_along, scatter_along, sum_into
from ._getitem import getitem_adjoint_in, getitem_in

# ----- where -----


@rrule.register(np.where, generic=True)
def _rrule_where(f: Any, condition: Any, *args: Any) -> Any:
    foreign = first_foreign_array((condition, *args))
    out = f(condition, *args) if foreign is None else _where_in(namespace_of(foreign), condition, args, foreign)
    nothing = (NoTangent(),) * (len(args) + 2)
    if len(args) != 2 or ProjectTo(out).is_no_tangent:  # where(condition) is nonzero(condition)

        def index_pullback(out_bar: Any) -> tuple[Any, ...]:
            return nothing

        return out, index_pullback
    x, y = args
    project_x, project_y = ProjectTo(x), ProjectTo(y)
    shape = value_shape(out)

    def where_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, shape)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), NoTangent(), project_x(ZeroTangent()), project_y(ZeroTangent())
        if is_foreign_array(out_bar):
            xp = namespace_of(out_bar)
            zero: Any = 0.0
            cond = _condition_in(xp, condition, out_bar)
            x_bar = NoTangent() if project_x.is_no_tangent else unbroadcast(x, xp.where(cond, out_bar, zero))
            y_bar = NoTangent() if project_y.is_no_tangent else unbroadcast(y, xp.where(cond, zero, out_bar))
            return NoTangent(), NoTangent(), x_bar, y_bar
        zero = np.zeros((), dtype=np.result_type(out_bar))
        x_bar = NoTangent() if project_x.is_no_tangent else unbroadcast(x, np.where(condition, out_bar, zero))
        y_bar = NoTangent() if project_y.is_no_tangent else unbroadcast(y, np.where(condition, zero, out_bar))
        return NoTangent(), NoTangent(), x_bar, y_bar

    return out, where_pullback


def _condition_in(xp: Any, condition: Any, like: Any) -> Any:
    """The condition as an array of ``like``'s library (a numpy mask or a list crosses over once)."""
    return condition if is_foreign_array(condition) else xp.asarray(condition, device=device_of(like))


def _where_in(xp: Any, condition: Any, args: tuple[Any, ...], like: Any) -> Any:
    """``np.where`` with another library's arrays: the standard's ``where`` (``nonzero`` without branches)."""
    cond = _condition_in(xp, condition, like)
    if not args:
        return xp.nonzero(cond)
    x, y = args
    if not is_foreign_array(x) and not is_foreign_array(y):  # two numbers: the standard wants one array
        x = xp.asarray(x, dtype=getattr(xp, np.result_type(x, y).name), device=device_of(like))
    return call_in(xp, np.where, cond, x, y)


@frule.register(np.where, generic=True)
def _frule_where(tangents: tuple[Any, ...], f: Any, condition: Any, *args: Any) -> Any:
    foreign = first_foreign_array((condition, *args))
    out = f(condition, *args) if foreign is None else _where_in(namespace_of(foreign), condition, args, foreign)
    project_out = ProjectTo(out)
    if len(args) != 2 or project_out.is_no_tangent:
        return out, NoTangent()
    x_dot, y_dot = (checked_tangent(f, t, v, k) for k, (t, v) in enumerate(zip(tangents[2:], args), start=2))
    if isinstance(x_dot, AbstractZero) and isinstance(y_dot, AbstractZero):
        return out, ZeroTangent()
    if is_foreign_array(out):
        xp = namespace_of(out)
        dots = [0.0 if isinstance(d, AbstractZero) else d for d in (x_dot, y_dot)]
        if not any(is_foreign_array(d) for d in dots):
            dots[0] = xp.asarray(dots[0], dtype=out.dtype, device=device_of(out))
        return out, output_tangent(out, xp.where(_condition_in(xp, condition, out), *dots))
    out_dot = np.where(condition, instantiate_zeros(x_dot, args[0]), instantiate_zeros(y_dot, args[1]))
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
    if first_foreign_array((out_bar,)) is not None:
        return getitem_adjoint_in(namespace_of(out_bar), out_bar, x, index)
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


linear_in_first_rule(operator.getitem, _getitem_adjoint, types=(np.ndarray, object))
linear_in_first_rule(np.ndarray.__getitem__, _getitem_adjoint, generic=True, foreign=getitem_in)


_TAKE_ARGS = ("indices", "axis", "out", "mode")


def _take_indices(indices: Any, n: int, mode: str) -> Any:
    """The index of the entry each output reads, with ``mode`` applied."""
    indices = np.asarray(indices)
    return np.clip(indices, 0, n - 1) if mode == "clip" else indices % n


def _take_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    if is_foreign_array(out_bar):
        return _take_adjoint_in(out_bar, x, args, kwargs)
    options = bind_options(_TAKE_ARGS, args, kwargs, mode="raise")
    dtype = real_dtype_of(x)
    assert dtype is not None
    shape = np.shape(x)
    axis = options["axis"]
    if not math.prod(shape):  # numpy takes nothing from an empty array when the output is empty too
        return np.zeros(shape, dtype=dtype)
    if axis is None or not shape:  # numpy takes from a 0-d array as from a 1-d one
        flat = _take_indices(options["indices"], math.prod(shape), options["mode"])
        return scatter_add(math.prod(shape), flat, out_bar, dtype).reshape(shape)
    axis = int(axis) % len(shape)
    indices = _take_indices(options["indices"], shape[axis], options["mode"])
    x_bar = np.zeros(shape, dtype=dtype)
    np.add.at(x_bar, (slice(None),) * axis + (indices,), cast_to(out_bar, dtype))
    return x_bar


def _no_out(x: Any, *args: Any, **kwargs: Any) -> bool:
    return not is_given(bind_options(_TAKE_ARGS, args, kwargs).get("out"))


def _take_call(xp: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, int, Any]:
    """``np.take``'s call on another library's array as the standard's: ``x`` (flat for no axis), the flat index
    in bounds (``mode`` applied, negatives counted from the end), the axis, and the indices' shape."""
    options = bind_options(_TAKE_ARGS, args, kwargs, mode="raise")
    axis = options["axis"]
    if axis is None or not x.shape:  # numpy takes from a 0-d array as from a 1-d one
        x, axis = xp.reshape(x, (-1,)), 0
    axis = int(axis) % len(x.shape)
    n = x.shape[axis]
    indices = options["indices"]
    if not is_foreign_array(indices):
        indices = xp.asarray(np.asarray(indices, dtype=np.intp), device=device_of(x))
    index = xp.reshape(indices, (-1,))
    if options["mode"] == "clip":
        index = xp.clip(index, 0, n - 1)
    elif options["mode"] == "wrap":
        index = index % n
    else:
        index = xp.where(index < 0, index + n, index)
    return x, index, axis, tuple(indices.shape)


def _take_in(xp: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    x, index, axis, shape = _take_call(xp, x, args, kwargs)
    out = xp.take(x, index, axis=axis)
    return xp.reshape(out, (*x.shape[:axis], *shape, *x.shape[axis + 1 :]))


def _take_adjoint_in(out_bar: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The adjoint of ``take`` on another library's arrays: the seed summed into the entries read (one-hot)."""
    xp = namespace_of(out_bar)
    flat, index, axis, _ = _take_call(xp, x, args, kwargs)
    g = xp.reshape(out_bar, (*flat.shape[:axis], index.shape[0], *flat.shape[axis + 1 :]))
    return xp.reshape(sum_into(xp, g, index, flat.shape[axis], axis), tuple(x.shape))


linear_in_first_rule(np.take, _take_adjoint, applies=_no_out, generic=True, foreign=_take_in)
linear_in_first_rule(np.ndarray.take, _take_adjoint, applies=_no_out)


def _along_call(xp: Any, x: Any, indices: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``np.take_along_axis``'s call on another library's array: ``x`` and the indices (flat for no axis, in
    bounds: negatives counted from the end) and the axis."""
    axis = bind_options(("axis",), args, kwargs, axis=-1)["axis"]
    if not is_foreign_array(indices):
        indices = xp.asarray(np.asarray(indices, dtype=np.intp), device=device_of(x))
    if axis is None:
        x, indices, axis = xp.reshape(x, (-1,)), xp.reshape(indices, (-1,)), 0
    axis = int(axis) % len(x.shape)
    n = x.shape[axis]
    return x, xp.where(indices < 0, indices + n, indices), axis


def _take_along_axis_in(xp: Any, x: Any, indices: Any, *args: Any, **kwargs: Any) -> Any:
    x, indices, axis = _along_call(xp, x, indices, args, kwargs)
    return gather_along(xp, x, indices, axis)


def _take_along_axis_adjoint(out_bar: Any, x: Any, indices: Any, *args: Any, **kwargs: Any) -> Any:
    if is_foreign_array(out_bar):  # one-hot: the standard has no scatter-add
        xp = namespace_of(out_bar)
        flat, index, axis = _along_call(xp, x, indices, args, kwargs)
        x_bar = scatter_along(xp, out_bar, index, flat.shape[axis], axis)
        return xp.reshape(sum_to_shape(x_bar, tuple(flat.shape)), tuple(x.shape))
    axis = bind_options(("axis",), args, kwargs, axis=-1)["axis"]
    dtype = real_dtype_of(x)
    assert dtype is not None
    shape = np.shape(x)
    size = math.prod(shape)
    if not size:
        return np.zeros(shape, dtype=dtype)
    if axis is None:
        return scatter_add(size, np.asarray(indices) % size, out_bar, dtype).reshape(shape)
    axis = int(axis) % len(shape)
    grid = [np.arange(n).reshape([n if d == k else 1 for d in range(len(shape))]) for k, n in enumerate(shape)]
    grid[axis] = np.asarray(indices) % shape[axis]
    positions = np.ravel_multi_index(tuple(np.broadcast_arrays(*grid)), shape)
    return scatter_add(size, positions, out_bar, dtype).reshape(shape)


linear_in_first_rule(np.take_along_axis, _take_along_axis_adjoint, generic=True, foreign=_take_along_axis_in)


# ----- diagonals and triangles -----


def _diag_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    k = bind_options(("k",), args, kwargs, k=0)["k"]
    if np.ndim(x) == 1:
        return np.diagonal(out_bar, k)
    dtype = real_dtype_of(x)
    assert dtype is not None
    return diagonal_adjoint(out_bar, np.shape(x), dtype, k, 0, 1)


def _on_diagonal(xp: Any, d_bar: Any, rows: int, cols: int, offset: int) -> Any:
    """Matrices of ``rows`` by ``cols`` holding ``d_bar`` (diagonals along its last axis) on the diagonal
    ``offset`` and zeros elsewhere: a ``where`` over the matrix, as the standard has no scatter."""
    device = device_of(d_bar)
    length = d_bar.shape[-1]
    shape = (*d_bar.shape[:-1], rows, cols)
    if length == 0:
        return xp.zeros(shape, dtype=d_bar.dtype, device=device)
    i = xp.arange(rows, device=device)[:, None]
    j = xp.arange(cols, device=device)[None, :]
    along = xp.clip(xp.arange(rows, device=device) + min(offset, 0), 0, length - 1)  # row i holds entry i - r0
    by_row = xp.take(d_bar, along, axis=-1)[..., :, None]
    return xp.where(j - i == offset, by_row, xp.zeros(shape, dtype=d_bar.dtype, device=device))


def _diagonal_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    options = bind_options(("offset", "axis1", "axis2"), args, kwargs, offset=0, axis1=0, axis2=1)
    if is_foreign_array(out_bar):
        xp = namespace_of(out_bar)  # dask's np.diagonal: the standard has none
        axes = (int(options["axis1"]) % len(x.shape), int(options["axis2"]) % len(x.shape))
        x_bar = _on_diagonal(xp, out_bar, x.shape[axes[0]], x.shape[axes[1]], int(options["offset"]))
        return xp.moveaxis(x_bar, (-2, -1), axes)
    dtype = real_dtype_of(x)
    assert dtype is not None
    return diagonal_adjoint(out_bar, np.shape(x), dtype, options["offset"], options["axis1"], options["axis2"])


def _diagflat_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    k = bind_options(("k",), args, kwargs, k=0)["k"]
    return np.diagonal(out_bar, k).reshape(np.shape(x))


def _linalg_diagonal_adjoint(out_bar: Any, x: Any, *, offset: int = 0) -> Any:
    if is_foreign_array(out_bar):
        return _on_diagonal(namespace_of(out_bar), out_bar, x.shape[-2], x.shape[-1], int(offset))
    dtype = real_dtype_of(x)
    assert dtype is not None
    return diagonal_adjoint(out_bar, np.shape(x), dtype, offset, -2, -1)


def _triangle_adjoint(triangle: Any) -> Any:
    def adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        k = bind_options(("k",), args, kwargs, k=0)["k"]
        if is_foreign_array(out_bar):
            return unbroadcast(x, getattr(namespace_of(out_bar), triangle.__name__)(out_bar, k=int(k)))
        return unbroadcast(x, triangle(out_bar, k))  # a 1-d input is broadcast to a square

    return adjoint


def _triangle_in(triangle: Any) -> Any:
    """``np.tril`` or ``np.triu`` of another library's array: the standard's, a 1-d input broadcast to a square."""

    def primal(xp: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        k = bind_options(("k",), args, kwargs, k=0)["k"]
        if len(x.shape) < 2:
            x = xp.broadcast_to(x, (x.shape[-1], x.shape[-1]))
        return getattr(xp, triangle.__name__)(x, k=int(k))

    return primal


linear_in_first_rule(np.diag, _diag_adjoint)
linear_in_first_rule(np.diagflat, _diagflat_adjoint)
if hasattr(np.linalg, "diagonal"):  # numpy >= 2.0: the diagonals of a stack of matrices
    linear_in_first_rule(np.linalg.diagonal, _linalg_diagonal_adjoint, generic=True)
linear_in_first_rule(np.diagonal, _diagonal_adjoint, generic=True)
linear_in_first_rule(np.ndarray.diagonal, _diagonal_adjoint)
linear_in_first_rule(np.tril, _triangle_adjoint(np.tril), generic=True, foreign=_triangle_in(np.tril))
linear_in_first_rule(np.triu, _triangle_adjoint(np.triu), generic=True, foreign=_triangle_in(np.triu))


# The indices of a diagonal or triangle of an array of ``arr``'s shape: its values do not matter.
non_differentiable(np.tril_indices_from, np.triu_indices_from, np.diag_indices_from)


# ----- fast paths: a float vector read at an integer vector, seeded with a float vector -----

_NO_TANGENT = NoTangent()


def _rrule_getitem_fast(rule: Any, f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    """``x[index]`` of a float64 vector at a vector of integers: the pullback is one ``np.bincount``.

    Every other call, and every other seed (another dtype or layout than
    the output's, a negative index, which bincount refuses), takes the
    general rule.
    """
    index = args[0] if len(args) == 1 and not kwargs else None
    if (
        type(index) is not np.ndarray
        or type(x) is not np.ndarray
        or index.ndim != 1
        or not index.size  # bincount of nothing is an int64 array
        or x.ndim != 1
        or index.dtype.kind != "i"
        or x.dtype != np.float64
    ):
        return rule(f, x, *args, **kwargs)
    out = f(x, index)
    n, shape = x.shape[0], out.shape

    def getitem_pullback(out_bar: Any) -> tuple[Any, ...]:
        if type(out_bar) is np.ndarray and out_bar.shape == shape and out_bar.dtype == np.float64:
            try:
                return (_NO_TANGENT, np.bincount(index, out_bar, n), _NO_TANGENT)
            except ValueError:  # a negative index: the general rule
                pass
        return rule(f, x, index)[1](out_bar)  # type: ignore[index]

    return out, getitem_pullback


rrule.fast_path(operator.getitem, np.ndarray, object)(_rrule_getitem_fast)
rrule.fast_path(np.ndarray.__getitem__)(_rrule_getitem_fast)
