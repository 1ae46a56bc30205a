"""Shapes and views: reshape, ravel, flatten, transpose, swapaxes, moveaxis, rollaxis,
matrix_transpose, expand_dims, squeeze, broadcast_to, broadcast_arrays, atleast_1d/2d/3d,
astype, flip, fliplr, flipud, rot90 and roll, and their ``ndarray`` methods.

All are linear, so each pushforward applies the function to the tangent and
each pullback is the adjoint reshaping: a reshape, a transpose by the
inverse permutation, a flip, rotation or roll back, a sum over broadcast
axes. None builds a Jacobian or copies more than the seed's layout forces.
``reshape``, ``ravel`` and ``flatten`` with order 'A' or 'K' read ``x`` in
an order numpy picks from ``x``'s memory layout: the pushforward reads the
tangent in that same order, whatever the tangent's own layout, and the
pullback writes the seed back in it.
``atleast_*d`` and ``broadcast_arrays`` of several arrays return a tuple:
their tangent is ``Tangent(tuple, ...)`` and their pullback takes a tuple
seed whose entries may be ``ZeroTangent()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    ZeroTangent,
    checked_seed,
    checked_tangent,
    follow,
    frule,
    is_followed,
    named_after,
    rrule,
    sum_to_shape,
    value_shape,
)
from chainrules_core.rule_definition import non_differentiable

from .._arrays import bind_options, cast_to, instantiate_zeros, tuple_entries
from .._makers import linear_in_first_rule

# ----- reshape, ravel, flatten -----


def _resolved_order(order: Any, x: Any) -> str | None:
    """'C' or 'F' as numpy reads ``x`` for ``order``; ``None`` for 'K' on a non-contiguous array.

    numpy takes ``order`` in either case and ``None`` as 'C'. With 'A' it
    reads a Fortran-contiguous (and not C-contiguous) array in 'F' order and
    every other in 'C' order; with 'K' it reads memory order.
    """
    order = "C" if order is None else str(order).upper()
    if order in ("C", "F"):
        return order
    flags = getattr(x, "flags", None)
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


_RESHAPE_NAMES = ("shape", "order")
_RAVEL_NAMES = ("order",)


def _reshape_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return _unravel_adjoint(out_bar, x, bind_options(_RESHAPE_NAMES, args, kwargs, order="C")["order"])


def _method_reshape_adjoint(out_bar: Any, x: Any, *shape: Any, order: str = "C", **kwargs: Any) -> Any:
    return _unravel_adjoint(out_bar, x, order)


def _ravel_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return _unravel_adjoint(out_bar, x, bind_options(_RAVEL_NAMES, args, kwargs, order="C")["order"])


def _with_order(names: tuple[str, ...], args: tuple[Any, ...], kwargs: dict[str, Any], order: str) -> Any:
    """The other arguments of a call (named ``names`` when positional) with its order set to ``order``."""
    if "order" in names and names.index("order") < len(args):
        i = names.index("order")
        return (*args[:i], order, *args[i + 1 :]), kwargs
    return args, {**kwargs, "order": order}


def _unravel_frule(names: tuple[str, ...]) -> Any:
    """The frule of a reshape, ravel or flatten whose other arguments are ``names`` when positional.

    The tangent is read in the order the primal reads ``x``. With 'A' or 'K'
    numpy picks that order from the array's own layout, so the tangent's
    layout (a Fortran-ordered tangent of a C-ordered ``x``) must not pick it:
    the call on the tangent gets ``x``'s order explicitly, and for 'K' on an
    ``x`` neither C- nor F-contiguous, the tangent is read in ``x``'s memory
    order (``_memory_order``).
    """

    def _frule_unravel(tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        out = f(x, *args, **kwargs)
        project_out = ProjectTo(out)
        x_dot = checked_tangent(f, tangents[1], x)
        if project_out.is_no_tangent:
            return out, NoTangent()
        if isinstance(x_dot, AbstractZero) or ProjectTo(x).is_no_tangent:
            return out, ZeroTangent()
        if isinstance(x, (list, tuple)):
            x_dot = instantiate_zeros(x_dot, x)
        order = bind_options(names, args, kwargs, order="C")["order"]
        resolved = _resolved_order(order, x)
        if resolved is None:  # 'K' of a non-contiguous x: x's memory order
            return out, project_out(follow(np.take, follow(np.ravel, x_dot), _memory_order(x)))
        if resolved != order:
            args, kwargs = _with_order(names, args, kwargs, resolved)
        if is_followed(x_dot):  # np.ndarray.reshape refuses an engine's value
            return out, project_out(follow(f, x_dot, *args, **kwargs))
        return out, project_out(f(x_dot, *args, **kwargs))

    return _frule_unravel


linear_in_first_rule(np.reshape, _reshape_adjoint)
linear_in_first_rule(np.ndarray.reshape, _method_reshape_adjoint)
for _f in (np.ravel, np.ndarray.ravel, np.ndarray.flatten):
    linear_in_first_rule(_f, _ravel_adjoint)
# the frules replace linear_in_first_rule's, whose pushforward lets the tangent's layout pick the order
for _f, _names in (
    (np.reshape, _RESHAPE_NAMES),
    (np.ndarray.reshape, ()),
    (np.ravel, _RAVEL_NAMES),
    (np.ndarray.ravel, _RAVEL_NAMES),
    (np.ndarray.flatten, _RAVEL_NAMES),
):
    frule.register(_f)(named_after(_f, _unravel_frule(_names)))


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


def _rollaxis_adjoint(out_bar: Any, x: Any, axis: int, start: int = 0) -> Any:
    # numpy's rollaxis is a transpose by this permutation (the primal has checked the bounds)
    ndim = np.ndim(x)
    axis, start = int(axis) % ndim, int(start) + (ndim if start < 0 else 0)
    start -= axis < start
    order = [k for k in range(ndim) if k != axis]
    order.insert(start, axis)
    return np.transpose(out_bar, np.argsort(order))


def _matrix_transpose_adjoint(out_bar: Any, x: Any) -> Any:
    return np.swapaxes(out_bar, -1, -2)


linear_in_first_rule(np.transpose, _transpose_adjoint)
linear_in_first_rule(np.ndarray.transpose, _method_transpose_adjoint)
for _f in (np.swapaxes, np.ndarray.swapaxes):
    linear_in_first_rule(_f, _swapaxes_adjoint)
linear_in_first_rule(np.moveaxis, _moveaxis_adjoint)
linear_in_first_rule(np.rollaxis, _rollaxis_adjoint)
for _f in [m.matrix_transpose for m in (np, np.linalg) if hasattr(m, "matrix_transpose")]:
    linear_in_first_rule(_f, _matrix_transpose_adjoint)


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
    linear_in_first_rule(_f, _astype_adjoint, tangent=_astype_pushforward)


# ----- flip and roll -----


def _flip_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return np.flip(out_bar, bind_options(("axis",), args, kwargs).get("axis"))


def _roll_adjoint(out_bar: Any, x: Any, shift: Any, *args: Any, **kwargs: Any) -> Any:
    back = tuple(-int(s) for s in shift) if isinstance(shift, (tuple, list)) else -int(shift)
    return np.roll(out_bar, back, *args, **kwargs)


def _rot90_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    options = bind_options(("k", "axes"), args, kwargs, k=1, axes=(0, 1))
    return np.rot90(out_bar, -int(options["k"]), options["axes"])


linear_in_first_rule(np.flip, _flip_adjoint)
linear_in_first_rule(np.fliplr, lambda out_bar, x: np.fliplr(out_bar))
linear_in_first_rule(np.flipud, lambda out_bar, x: np.flipud(out_bar))
linear_in_first_rule(np.rot90, _rot90_adjoint)
linear_in_first_rule(np.roll, _roll_adjoint)


# ----- several arguments, a tuple of results: atleast_1d/2d/3d, broadcast_arrays -----


def _register_each(f: Any, adjoint: Callable[[Any, Any], Any]) -> None:
    """The rules of ``f(*xs)``, which maps each ``x`` linearly to one result (a tuple of them for several).

    ``adjoint(out_bar, x)`` is one result's adjoint; the pushforward is ``f``
    of the tangents.
    """

    def _rrule_each(f: Any, *xs: Any, **kwargs: Any) -> Any:
        out = f(*xs, **kwargs)
        projects = [ProjectTo(x) for x in xs]
        single = len(xs) == 1 and not isinstance(out, (tuple, list))
        shapes = [value_shape(out)] if single else [value_shape(y) for y in out]

        def each_pullback(out_bar: Any) -> tuple[Any, ...]:
            given = [out_bar] if single else tuple_entries(out_bar, len(xs))
            bars = [checked_seed(f, bar, shape) for bar, shape in zip(given, shapes)]
            return (
                NoTangent(),
                *(
                    project(bar if isinstance(bar, AbstractZero) or project.is_no_tangent else adjoint(bar, x))
                    for project, bar, x in zip(projects, bars, xs)
                ),
            )

        return out, each_pullback

    def _frule_each(tangents: tuple[Any, ...], f: Any, *xs: Any, **kwargs: Any) -> Any:
        out = f(*xs, **kwargs)
        checked = [checked_tangent(f, t, x, k) for k, (t, x) in enumerate(zip(tangents[1:], xs), start=1)]
        dots = [instantiate_zeros(t, x) for t, x in zip(checked, xs)]
        return out, ProjectTo(out)(f(*dots, **kwargs))

    rrule.register(f)(named_after(f, _rrule_each))
    frule.register(f)(named_after(f, _frule_each))


for _f in (np.atleast_1d, np.atleast_2d, np.atleast_3d):  # reshapes that add axes of size 1
    _register_each(_f, _reshape_back)
_register_each(np.broadcast_arrays, _broadcast_to_adjoint)

non_differentiable(np.shape, np.ndim, np.size)
