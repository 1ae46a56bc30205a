"""Helpers shared by the reducing families (reductions, statistics, cumulative, quantiles): dtypes and NaN masks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import NoTangent, is_followed

from .._arrays import cast_to, dtype_of_value


def cotangent_dtype(x: Any) -> np.dtype[Any] | None:
    """The dtype of ``x``'s cotangent, or ``None`` where ``x`` has no tangent space (ints, bools, strings).

    A float or complex ``x`` gets its own dtype in native byte order (a
    big-endian ``>f8`` array gets ``float64``: numpy's ufuncs refuse a
    byte-swapped ``dtype=``). An object array gets ``object``: its cotangent
    is computed with numpy's object arithmetic, entry by entry, as numpy
    computes the primal.
    """
    dtype = x.dtype if isinstance(x, (np.ndarray, np.generic)) else dtype_of_value(x)
    if dtype.kind in "fc":
        return dtype.newbyteorder("=")
    return dtype if dtype.kind == "O" else None


def seed_as(out_bar: Any, dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
    """The seed as an array of the cotangent ``dtype``: the real part for a real dtype, as it is for objects."""
    if dtype.kind == "O":
        return np.asarray(out_bar).astype(object, copy=False)
    return cast_to(out_bar, dtype)


def nan_mask(x: Any) -> np.ndarray[Any, Any] | None:
    """Where ``x`` is not NaN, or ``None`` when it holds no NaN (nothing to skip)."""
    followed = is_followed(x)  # it answers np.isnan itself, keeping its dtype
    values = x if followed else np.asarray(x)
    if (dtype_of_value(x) if followed else values.dtype).kind not in "fc":
        return None
    is_nan = np.isnan(values)
    return ~is_nan if is_nan.any() else None


def joined_mask(where: Any, valid: np.ndarray[Any, Any] | None) -> Any:
    """``where`` (``True`` or a boolean array) and ``valid`` (``None`` for everywhere) combined."""
    if valid is None:
        return where
    return valid if where is True else valid & np.asarray(where, dtype=bool)


def unless_integer_output(pullback: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``pullback(state, out_bar)``, or ``NoTangent()`` where ``dtype=`` made the output an integer.

    An integer output has no tangent space (the frule gives it ``NoTangent()``),
    so the call is non-differentiable, as for ``astype(int)``. ``state.out``
    is the primal output.
    """

    def cotangent_of_numbers(state: Any, out_bar: Any) -> Any:
        dtype = getattr(state.out, "dtype", None)
        if dtype is not None and dtype.kind in "biu":
            return NoTangent()
        return pullback(state, out_bar)

    return cotangent_of_numbers


def diff_adjoint(d_bar: Any, axis: int = -1) -> np.ndarray[Any, Any]:
    """The adjoint of ``np.diff`` along ``axis``: minus the differences of the cotangent padded with zeros."""
    return -np.diff(d_bar, axis=axis, prepend=0, append=0)
