"""Helpers shared by the reducing families (reductions, statistics, cumulative, quantiles): dtypes, seeds, NaN masks.

Each takes numpy's values as before and another library's arrays (``namespace_of``) with the standard's functions:
a foreign array's mask of NaNs is computed whether or not it holds one (a check of its values would compute a dask
array and cannot run under ``jax.jit``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import NoTangent, is_followed
from chainrules_core.arrays import device_of, is_complex_dtype, is_foreign_array, is_inexact_dtype, namespace_of

from .._arrays import cast_to, dtype_of_value


def cotangent_dtype(x: Any) -> Any:
    """The dtype of ``x``'s cotangent, or ``None`` where ``x`` has no tangent space (ints, bools, strings).

    A float or complex ``x`` gets its own dtype in native byte order (a
    big-endian ``>f8`` array gets ``float64``: numpy's ufuncs refuse a
    byte-swapped ``dtype=``). An object array gets ``object``: its cotangent
    is computed with numpy's object arithmetic, entry by entry, as numpy
    computes the primal. Another library's array: its own dtype if floating.
    """
    if is_foreign_array(x):
        return x.dtype if is_inexact_dtype(namespace_of(x), x.dtype) else None
    dtype = x.dtype if isinstance(x, (np.ndarray, np.generic)) else dtype_of_value(x)
    if dtype.kind in "fc":
        return dtype.newbyteorder("=")
    return dtype if dtype.kind == "O" else None


def seed_as(out_bar: Any, dtype: Any, like: Any = None) -> Any:
    """The seed as an array of the cotangent ``dtype``: the real part for a real dtype, as it is for objects.

    ``like``, another library's array, makes it an array of that library and device (a Python number seed too).
    """
    if like is not None and is_foreign_array(like):
        xp = namespace_of(like)
        if isinstance(out_bar, (int, float, complex)):
            return xp.asarray(out_bar, dtype=dtype, device=device_of(like))
        if is_complex_dtype(xp, out_bar.dtype) and not is_complex_dtype(xp, dtype):
            out_bar = xp.real(out_bar)
        return out_bar if out_bar.dtype == dtype else xp.astype(out_bar, dtype)
    if dtype.kind == "O":
        return np.asarray(out_bar).astype(object, copy=False)
    return cast_to(out_bar, dtype)


def nan_mask(x: Any) -> Any:
    """Where ``x`` is not NaN, or ``None`` when it holds no NaN (nothing to skip); for another library's floating
    array, the mask whatever it holds."""
    if is_foreign_array(x):
        xp = namespace_of(x)
        return xp.logical_not(xp.isnan(x)) if is_inexact_dtype(xp, x.dtype) else None
    followed = is_followed(x)  # it answers np.isnan itself, keeping its dtype
    values = x if followed else np.asarray(x)
    if (dtype_of_value(x) if followed else values.dtype).kind not in "fc":
        return None
    is_nan = np.isnan(values)
    return ~is_nan if is_nan.any() else None


def joined_mask(where: Any, valid: Any) -> Any:
    """``where`` (``True`` or a boolean array) and ``valid`` (``None`` for everywhere) combined."""
    if valid is None:
        return where
    return valid if where is True else valid & np.asarray(where, dtype=bool)


def has_integer_dtype(value: Any) -> bool:
    """Whether ``value`` (numpy's or another library's) is an integer or boolean array: no tangent space."""
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        return False
    if is_foreign_array(value):
        return not is_inexact_dtype(namespace_of(value), dtype)
    return dtype.kind in "biu"


def unless_integer_output(pullback: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``pullback(state, out_bar)``, or ``NoTangent()`` where ``dtype=`` made the output an integer.

    An integer output has no tangent space (the frule gives it ``NoTangent()``),
    so the call is non-differentiable, as for ``astype(int)``. ``state.out``
    is the primal output.
    """

    def cotangent_of_numbers(state: Any, out_bar: Any) -> Any:
        if has_integer_dtype(state.out):
            return NoTangent()
        return pullback(state, out_bar)

    return cotangent_of_numbers


def slice_along(axis: int, piece: slice) -> tuple[Any, ...]:
    """The index taking ``piece`` along ``axis`` (non-negative), everything along the other axes."""
    return (*(slice(None),) * axis, piece, ...)  # the standard wants every axis indexed, or an ellipsis


def diff_adjoint(d_bar: Any, axis: int = -1) -> Any:
    """The adjoint of ``np.diff`` along ``axis``: minus the differences of the cotangent padded with zeros."""
    if not is_foreign_array(d_bar):
        return -np.diff(d_bar, axis=axis, prepend=0, append=0)
    xp = namespace_of(d_bar)
    axis %= d_bar.ndim
    pad = xp.zeros((*d_bar.shape[:axis], 1, *d_bar.shape[axis + 1 :]), dtype=d_bar.dtype, device=device_of(d_bar))
    padded = xp.concat([pad, d_bar, pad], axis=axis)
    return padded[slice_along(axis, slice(None, -1))] - padded[slice_along(axis, slice(1, None))]
