"""Shapes and views: reshape, ravel, flatten, transpose, swapaxes, moveaxis, expand_dims,
squeeze, broadcast_to, astype, flip and roll, and their ``ndarray`` methods.

All are linear, so each pushforward applies the function to the tangent and
each pullback is the adjoint reshaping: a reshape, a transpose by the
inverse permutation, a flip or roll back, a sum over broadcast axes. None
builds a Jacobian or copies more than the seed's layout forces.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core import sum_to_shape
from chainrules_core.rule_definition import non_differentiable

from ._arrays import bind_options, cast_to
from ._makers import linear_in_first_rule

# ----- reshape, ravel, flatten -----


def _resolved_order(order: str, x: Any) -> str | None:
    """'C' or 'F' as numpy reads ``x`` for ``order``; ``None`` for 'K' on a non-contiguous array."""
    flags = getattr(x, "flags", None)
    if order in ("C", "F"):
        return order
    if flags is None or flags.c_contiguous:
        return "C"
    if flags.f_contiguous:
        return "F"
    return "C" if order == "A" else None


def _memory_order(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The permutation ``p`` with ``np.ravel(x, order='K') == np.ravel(x)[p]``.

    An index array laid out in memory as ``x`` is (``np.empty_like`` keeps
    the layout), read back in memory order.
    """
    index = np.empty_like(x, dtype=np.intp)
    index[...] = np.arange(x.size).reshape(x.shape)
    return np.ravel(index, order="K")


def _unravel_adjoint(out_bar: Any, x: Any, order: str) -> Any:
    """The adjoint of reading ``x`` into a new shape in ``order``."""
    resolved = _resolved_order(order, x)
    if resolved is not None:
        return np.reshape(out_bar, np.shape(x), order=resolved)
    x_bar = np.empty(x.size, dtype=np.result_type(out_bar))
    x_bar[_memory_order(x)] = np.ravel(out_bar)
    return x_bar.reshape(x.shape)


def _reshape_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return _unravel_adjoint(out_bar, x, bind_options(("shape", "order"), args, kwargs, order="C")["order"])


def _method_reshape_adjoint(out_bar: Any, x: Any, *shape: Any, order: str = "C", **kwargs: Any) -> Any:
    return _unravel_adjoint(out_bar, x, order)


def _ravel_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return _unravel_adjoint(out_bar, x, bind_options(("order",), args, kwargs, order="C")["order"])


linear_in_first_rule(np.reshape, _reshape_adjoint)
linear_in_first_rule(np.ndarray.reshape, _method_reshape_adjoint)
for _f in (np.ravel, np.ndarray.ravel, np.ndarray.flatten):
    linear_in_first_rule(_f, _ravel_adjoint)


# ----- permutations of axes -----


def _inverse_transpose(out_bar: Any, ndim: int, axes: Any) -> Any:
    if axes is None:
        return np.transpose(out_bar)
    return np.transpose(out_bar, np.argsort([int(a) % ndim for a in axes]))


def _transpose_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return _inverse_transpose(out_bar, np.ndim(x), bind_options(("axes",), args, kwargs).get("axes"))


def _method_transpose_adjoint(out_bar: Any, x: Any, *axes: Any) -> Any:
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return _inverse_transpose(out_bar, np.ndim(x), axes or None)


def _swapaxes_adjoint(out_bar: Any, x: Any, axis1: int, axis2: int) -> Any:
    return np.swapaxes(out_bar, axis1, axis2)


def _moveaxis_adjoint(out_bar: Any, x: Any, source: Any, destination: Any) -> Any:
    return np.moveaxis(out_bar, destination, source)


linear_in_first_rule(np.transpose, _transpose_adjoint)
linear_in_first_rule(np.ndarray.transpose, _method_transpose_adjoint)
for _f in (np.swapaxes, np.ndarray.swapaxes):
    linear_in_first_rule(_f, _swapaxes_adjoint)
linear_in_first_rule(np.moveaxis, _moveaxis_adjoint)


# ----- size-1 and broadcast axes -----


def _reshape_back(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return np.reshape(out_bar, np.shape(x))


def _broadcast_to_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return sum_to_shape(np.asarray(out_bar), np.shape(x))


for _f in (np.expand_dims, np.squeeze, np.ndarray.squeeze):
    linear_in_first_rule(_f, _reshape_back)
linear_in_first_rule(np.broadcast_to, _broadcast_to_adjoint)


# ----- astype: a cast to a float or complex dtype is linear; to anything else, non-differentiable -----


def _astype_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return out_bar  # the projection casts back, and keeps the real part for a real input


def _astype_pushforward(x_dot: Any, dtype: Any, *args: Any, **kwargs: Any) -> Any:
    return cast_to(x_dot, np.dtype(dtype))  # a complex-to-real cast keeps the real part, as the primal


for _f in [np.ndarray.astype] + ([np.astype] if hasattr(np, "astype") else []):
    linear_in_first_rule(_f, _astype_adjoint, pushforward=_astype_pushforward)


# ----- flip and roll -----


def _flip_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return np.flip(out_bar, bind_options(("axis",), args, kwargs).get("axis"))


def _roll_adjoint(out_bar: Any, x: Any, shift: Any, *args: Any, **kwargs: Any) -> Any:
    back = tuple(-int(s) for s in shift) if isinstance(shift, (tuple, list)) else -int(shift)
    return np.roll(out_bar, back, *args, **kwargs)


linear_in_first_rule(np.flip, _flip_adjoint)
linear_in_first_rule(np.roll, _roll_adjoint)

non_differentiable(np.shape, np.ndim, np.size)
