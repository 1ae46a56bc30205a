"""Helpers shared by the array rule families: options, axes, dtypes, tuple tangents, scatters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    LinearAdjoint,
    Tangent,
    ZeroTangent,
    backing,
    follow,
    is_followed,
    primal_of,
    unthunk,
)

NOVALUE: Any = getattr(np, "_NoValue", None)
"""numpy's marker for an argument that was not given (``initial``, ``prepend`` ...)."""


def bind_options(
    names: Sequence[str], args: tuple[Any, ...], kwargs: dict[str, Any], **defaults: Any
) -> dict[str, Any]:
    """The options of a call given positionally as ``args`` and by name as ``kwargs``; ``None`` if not given."""
    options = dict.fromkeys(names)
    options.update(defaults)
    options.update(zip(names, args))
    options.update(kwargs)
    return options


def is_ndarray_value(x: Any) -> bool:
    """An ndarray, or an engine's followed value standing for one (second-order passes run rules on those)."""
    return isinstance(x, np.ndarray) or (is_followed(x) and isinstance(primal_of(x), np.ndarray))


def items_of(xs: Any) -> list[Any]:
    """The items of a list, tuple or array along its first axis; a followed array's by indexing, as it iterates."""
    return [xs[i] for i in range(len(xs))] if is_followed(xs) else list(xs)


def is_given(value: Any) -> bool:
    """Whether an optional argument was passed: not ``None`` nor numpy's "no value"."""
    return value is not None and value is not NOVALUE


def reduced_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """``axis`` of a reduction as a sorted tuple of non-negative axes (``None``: all of them)."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(sorted(int(a) % ndim for a in axis))
    return (int(axis) % ndim,) if ndim else ()


def kept_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` with the reduced ``axes`` kept as size 1 (the ``keepdims=True`` shape)."""
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def real_dtype_of(x: Any) -> np.dtype[Any] | None:
    """The float or complex dtype of a differentiable ``x``, or ``None`` for ints, bools and the like."""
    dtype = x.dtype if isinstance(x, (np.ndarray, np.generic)) else dtype_of_value(x)
    return dtype if dtype.kind in "fc" else None


def dtype_of_value(x: Any) -> np.dtype[Any]:
    """``np.asarray(x).dtype``, for a value an AD engine follows too (``np.result_type`` answers for its primal)."""
    if is_followed(x):
        return np.result_type(x)
    return np.asarray(x).dtype


def cast_to(dx: Any, dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
    """``dx`` as an array of ``dtype``, keeping the real part for a real dtype.

    A value an AD engine follows (nested differentiation runs pullbacks on
    them) goes through numpy functions that dispatch to it, not ``np.asarray``.
    """
    if isinstance(dx, (np.ndarray, np.generic, int, float, complex, list, tuple)):
        dx = np.asarray(dx)
    else:
        dx = np.reshape(dx, np.shape(dx))
    if np.iscomplexobj(dx) and dtype.kind in "biuf":
        dx = np.real(dx)
    return dx.astype(dtype, copy=False)


def broadcast_view(seed: Any, shape: tuple[int, ...]) -> Any:
    """``np.broadcast_to(seed, shape)``: a read-only view, without the wrapper's cost for a one-entry float array."""
    if isinstance(seed, np.ndarray) and seed.size == 1 and seed.ndim <= len(shape) and seed.dtype.kind in "fc":
        view = np.ndarray(shape, seed.dtype, seed, 0, (0,) * len(shape))  # every entry is seed's one entry
        view.setflags(write=False)
        return view
    return np.broadcast_to(seed, shape)


def instantiate_zeros(t: Any, x: Any) -> Any:
    """The tangent ``t`` of ``x`` with its zeros made explicit arrays, for rules that combine tangents."""
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        if isinstance(x, (list, tuple)):
            return [instantiate_zeros(t, v) for v in x]
        return np.zeros(np.shape(x), dtype=real_dtype_of(x) or np.float64)
    if isinstance(x, (list, tuple)):
        items = backing(t) if isinstance(t, Tangent) else t
        return [instantiate_zeros(ti, v) for ti, v in zip(items, x)]
    return t


def tuple_entries(t: Any, names: Sequence[str] | int) -> list[Any]:
    """The entries of a (co)tangent of a tuple, list or namedtuple value, unthunked; zeros where absent.

    Accepts ``Tangent(P, field=...)`` for a namedtuple ``P`` (missing fields
    are zeros), ``Tangent(tuple, ...)``, a plain tuple or list, or a zero for
    the whole value. ``names`` are the value's field names, or its length.
    """
    n = names if isinstance(names, int) else len(names)
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return [ZeroTangent()] * n
    if isinstance(t, Tangent):
        data = backing(t)
        if isinstance(data, dict):
            if isinstance(names, int):
                raise ValueError(f"a Tangent with named fields for a value of {n} unnamed entries")
            values = [data.get(name, ZeroTangent()) for name in names]
        else:
            values = list(data)
    else:
        values = list(t)
    if len(values) != n:
        what = n if isinstance(names, int) else f"{n} ({', '.join(names)})"
        raise ValueError(f"a tangent of {len(values)} entries for a value of {what}")
    return [unthunk(v) for v in values]


def scatter_add(size: int, index: Any, values: Any, dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
    """``x_bar`` of ``size`` entries with ``x_bar[index[k]] += values[k]``: repeated indices accumulate.

    ``np.bincount`` does it in one pass (several times faster than
    ``np.add.at``); a complex ``values`` takes one pass per part. ``values``
    that an AD engine follows (nested differentiation) go through as one
    linear step, whose adjoint gathers ``x_bar_bar[index]``.
    """
    if is_followed(values):
        if np.dtype(dtype).kind == "O":  # an output numpy computed as objects from followed values: theirs
            dtype = np.result_type(values)
        options = {"size": size, "index": index, "dtype": dtype, "shape": np.shape(values)}
        return follow(LinearAdjoint(_scattered, _gathered, None, (), options), values)  # type: ignore[no-any-return]
    return _scattered(values, size=size, index=index, dtype=dtype)


def _scattered(values: Any, _unused: Any = None, *, size: int, index: Any, dtype: Any, shape: Any = None) -> Any:
    index = np.ravel(index)
    values = np.ravel(values)
    if values.dtype.kind == "c":
        summed = np.bincount(index, values.real, size) + 1j * np.bincount(index, values.imag, size)
    else:
        summed = np.bincount(index, values, size)
    return cast_to(summed, dtype)


def _gathered(x_bar: Any, _unused: Any = None, *, size: int, index: Any, dtype: Any, shape: Any) -> Any:
    """The adjoint of ``_scattered``: the entries ``index`` of ``x_bar``, in the layout of the values."""
    return np.reshape(np.ravel(x_bar)[np.ravel(index)], shape)


def diagonal_adjoint(
    d_bar: Any, shape: tuple[int, ...], dtype: np.dtype[Any], offset: int, axis1: int, axis2: int
) -> np.ndarray[Any, Any]:
    """Zeros of ``shape`` with ``d_bar`` written on the diagonal that ``np.diagonal`` would read.

    ``d_bar`` has the diagonal along its last axis (``np.diagonal``'s layout) or broadcasts to it.
    """
    x_bar = np.zeros(shape, dtype=dtype)
    moved = np.moveaxis(x_bar, (axis1, axis2), (-2, -1))
    rows, cols = moved.shape[-2:]
    n = max(0, min(rows + min(offset, 0), cols - max(offset, 0)))
    i = np.arange(n) - min(offset, 0)
    moved[..., i, i + offset] = cast_to(d_bar, dtype)
    return x_bar


# ----- fast paths: what they ask of a call -----


OTHER_OPTIONS: Any = object()
"""What ``plain_axis`` answers for a call that gives more than an axis."""


def plain_axis(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The ``axis`` of ``f(x)``, ``f(x, axis)`` or ``f(x, axis=axis)`` (``None`` or an int); else ``OTHER_OPTIONS``.

    For the fast paths of the common calls, which take nothing but an axis.
    """
    if kwargs:
        axis = kwargs.get("axis", OTHER_OPTIONS) if len(kwargs) == 1 and not args else OTHER_OPTIONS
    elif args:
        axis = args[0] if len(args) == 1 else OTHER_OPTIONS
    else:
        return None
    return axis if axis is None or type(axis) is int else OTHER_OPTIONS


def is_plain_float_array(x: Any) -> bool:
    """Whether ``x`` is a non-empty float or complex ``np.ndarray`` (not a subclass) in native byte order."""
    return type(x) is np.ndarray and x.dtype.kind in "fc" and x.dtype.isnative and x.size > 0
