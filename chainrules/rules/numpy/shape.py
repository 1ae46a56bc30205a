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

The rules of the functions the Python Array API standard names (reshape,
permute_dims, matrix_transpose, expand_dims, squeeze, broadcast_to,
broadcast_arrays, flip, roll, moveaxis) run on every library that follows it,
with the standard's functions; ravel, swapaxes, rollaxis, fliplr, flipud,
rot90 and atleast_*d on the libraries that implement numpy's functions
themselves (dask). The standard reads an array in C order alone: an order
other than 'C' on another library's array raises ``TypeError``.
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
from chainrules_core.array_api import call_in, dtype_in
from chainrules_core.arrays import (
    device_of,
    first_foreign_array,
    is_complex_dtype,
    is_foreign_array,
    namespace_of,
    refusal,
)
from chainrules_core.projection import shape_of
from chainrules_core.rule_definition import non_differentiable

from .._arrays import bind_options, cast_to, instantiate_zeros, tuple_entries
from .._makers import linear_in_first_rule


def _shape(x: Any) -> tuple[int, ...]:
    """``x``'s shape as a tuple of ints, whatever its library (``torch.Size`` is one)."""
    return tuple(shape_of(x))


def _reshaped(xp: Any, x: Any, shape: tuple[int, ...]) -> Any:
    """``xp.reshape(x, shape)``, through the flat array for another library's: dask reshapes only by merging or
    splitting axes evenly, which a flat array always is (a view elsewhere, as numpy's own reshape would be)."""
    if xp is not np and len(x.shape) > 1 and len(shape) > 1 and tuple(x.shape) != tuple(shape):
        x = xp.reshape(x, (-1,))
    return xp.reshape(x, shape)


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


def _in_c_order(f: Any, x: Any, order: Any) -> None:
    """Refuse another library's reading of ``x`` in any order but C's: the standard has no other."""
    if order is not None and str(order).upper() != "C":
        raise refusal(f, x, f"order={order!r} has no counterpart in the Python Array API standard (C order alone)")


def _reshape_in(xp: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    """``np.reshape`` of another library's array: the standard's ``reshape``, in C order."""
    options = bind_options(_RESHAPE_NAMES, args, kwargs, order="C")
    _in_c_order(np.reshape, x, options["order"])
    shape = options["shape"] if options["shape"] is not None else options.get("newshape")
    return _reshaped(xp, x, (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape))


def _ravel_in(xp: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    """``np.ravel`` of another library's array, in C order, where the library implements it (dask)."""
    _in_c_order(np.ravel, x, bind_options(_RAVEL_NAMES, args, kwargs, order="C")["order"])
    return call_in(xp, np.ravel, x)


def _reshape_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    if is_foreign_array(out_bar):  # read in C order (``_reshape_in``)
        return _reshaped(namespace_of(out_bar), out_bar, _shape(x))
    return _unravel_adjoint(out_bar, x, bind_options(_RESHAPE_NAMES, args, kwargs, order="C")["order"])


def _method_reshape_adjoint(out_bar: Any, x: Any, *shape: Any, order: str = "C", **kwargs: Any) -> Any:
    return _unravel_adjoint(out_bar, x, order)


def _ravel_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    if is_foreign_array(out_bar):  # read in C order (``_ravel_in``)
        return namespace_of(out_bar).reshape(out_bar, _shape(x))
    return _unravel_adjoint(out_bar, x, bind_options(_RAVEL_NAMES, args, kwargs, order="C")["order"])


def _with_order(names: tuple[str, ...], args: tuple[Any, ...], kwargs: dict[str, Any], order: str) -> Any:
    """The other arguments of a call (named ``names`` when positional) with its order set to ``order``."""
    if "order" in names and names.index("order") < len(args):
        i = names.index("order")
        return (*args[:i], order, *args[i + 1 :]), kwargs
    return args, {**kwargs, "order": order}


def _unravel_frule(names: tuple[str, ...], foreign: Any = None) -> Any:
    """The frule of a reshape, ravel or flatten whose other arguments are ``names`` when positional.

    The tangent is read in the order the primal reads ``x``. With 'A' or 'K'
    numpy picks that order from the array's own layout, so the tangent's
    layout (a Fortran-ordered tangent of a C-ordered ``x``) must not pick it:
    the call on the tangent gets ``x``'s order explicitly, and for 'K' on an
    ``x`` neither C- nor F-contiguous, the tangent is read in ``x``'s memory
    order (``_memory_order``). Another library's array and its tangent are
    read in C order by ``foreign(xp, x, *args, **kwargs)``.
    """

    def _frule_unravel(tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        if foreign is not None and first_foreign_array((x,)) is not None:
            return _foreign_frule(foreign, tangents, f, x, args, kwargs)
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


def _foreign_frule(
    foreign: Any, tangents: tuple[Any, ...], f: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """The frule of a linear ``f`` on another library's array: ``foreign`` of ``x`` and of its tangent."""
    xp = namespace_of(x)
    out = foreign(xp, x, *args, **kwargs)
    project_out = ProjectTo(out)
    x_dot = checked_tangent(f, tangents[1], x)
    if project_out.is_no_tangent:
        return out, NoTangent()
    if isinstance(x_dot, AbstractZero) or ProjectTo(x).is_no_tangent:
        return out, ZeroTangent()
    return out, project_out(foreign(xp, x_dot, *args, **kwargs))


linear_in_first_rule(np.reshape, _reshape_adjoint, generic=True, foreign=_reshape_in)
linear_in_first_rule(np.ndarray.reshape, _method_reshape_adjoint)
linear_in_first_rule(np.ravel, _ravel_adjoint, generic=True, foreign=_ravel_in)
for _f in (np.ndarray.ravel, np.ndarray.flatten):
    linear_in_first_rule(_f, _ravel_adjoint)
# the frules replace linear_in_first_rule's, whose pushforward lets the tangent's layout pick the order
for _f, _names, _foreign in (
    (np.reshape, _RESHAPE_NAMES, _reshape_in),
    (np.ndarray.reshape, (), None),
    (np.ravel, _RAVEL_NAMES, _ravel_in),
    (np.ndarray.ravel, _RAVEL_NAMES, None),
    (np.ndarray.flatten, _RAVEL_NAMES, None),
):
    frule.register(_f, generic=_foreign is not None)(named_after(_f, _unravel_frule(_names, _foreign)))


# ----- permutations of axes -----


def _inverse(order: Any) -> tuple[int, ...]:
    """The permutation undoing ``order`` (a permutation of ``range(len(order))``)."""
    return tuple(sorted(range(len(order)), key=order.__getitem__))


def _inverse_transpose(out_bar: Any, ndim: int, axes: Any) -> Any:
    if axes is None:
        return np.transpose(out_bar) if not is_foreign_array(out_bar) else _reversed(out_bar)
    return namespace_of(out_bar).permute_dims(out_bar, _inverse([int(a) % ndim for a in axes]))


def _reversed(x: Any) -> Any:
    """``x`` with its axes reversed: numpy's ``transpose(x)``, the standard's ``permute_dims``."""
    return namespace_of(x).permute_dims(x, tuple(range(len(x.shape)))[::-1])


def _transpose_in(xp: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    """``np.transpose`` of another library's array: ``permute_dims``, the axes reversed when not given."""
    axes = bind_options(("axes",), args, kwargs).get("axes")
    ndim = len(x.shape)
    return _reversed(x) if axes is None else xp.permute_dims(x, tuple(int(a) % ndim for a in axes))


def _transpose_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return _inverse_transpose(out_bar, np.ndim(x), bind_options(("axes",), args, kwargs).get("axes"))


def _method_transpose_adjoint(out_bar: Any, x: Any, *axes: Any) -> Any:
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return _inverse_transpose(out_bar, np.ndim(x), axes or None)


def _swapaxes_adjoint(out_bar: Any, x: Any, axis1: int, axis2: int) -> Any:
    if not is_foreign_array(out_bar):
        return np.swapaxes(out_bar, axis1, axis2)
    order = list(range(len(out_bar.shape)))
    order[axis1], order[axis2] = order[axis2], order[axis1]
    return namespace_of(out_bar).permute_dims(out_bar, tuple(order))


def _moveaxis_adjoint(out_bar: Any, x: Any, source: Any, destination: Any) -> Any:
    return namespace_of(out_bar).moveaxis(out_bar, destination, source)


def _rollaxis_adjoint(out_bar: Any, x: Any, axis: int, start: int = 0) -> Any:
    # numpy's rollaxis is a transpose by this permutation (the primal has checked the bounds)
    ndim = np.ndim(x)
    axis, start = int(axis) % ndim, int(start) + (ndim if start < 0 else 0)
    start -= axis < start
    order = [k for k in range(ndim) if k != axis]
    order.insert(start, axis)
    return namespace_of(out_bar).permute_dims(out_bar, _inverse(order))


def _matrix_transpose_adjoint(out_bar: Any, x: Any) -> Any:
    if not is_foreign_array(out_bar):
        return np.swapaxes(out_bar, -1, -2)
    return namespace_of(out_bar).matrix_transpose(out_bar)


def _matrix_transpose_in(xp: Any, x: Any) -> Any:
    return xp.matrix_transpose(x)  # the main namespace's: a library's linalg extension may lack it


linear_in_first_rule(np.transpose, _transpose_adjoint, generic=True, foreign=_transpose_in)
linear_in_first_rule(np.ndarray.transpose, _method_transpose_adjoint)
linear_in_first_rule(np.swapaxes, _swapaxes_adjoint, generic=True)
linear_in_first_rule(np.ndarray.swapaxes, _swapaxes_adjoint)
linear_in_first_rule(np.moveaxis, _moveaxis_adjoint, generic=True)
linear_in_first_rule(np.rollaxis, _rollaxis_adjoint, generic=True)
for _f in [m.matrix_transpose for m in (np, np.linalg) if hasattr(m, "matrix_transpose")]:
    linear_in_first_rule(_f, _matrix_transpose_adjoint, generic=True, foreign=_matrix_transpose_in)


# ----- size-1 and broadcast axes -----


def _reshape_back(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return _reshaped(namespace_of(out_bar), out_bar, _shape(x))


def _broadcast_to_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return sum_to_shape(out_bar if is_foreign_array(out_bar) else np.asarray(out_bar), np.shape(x))


def _expand_dims_in(xp: Any, x: Any, axis: Any) -> Any:
    """``np.expand_dims`` of another library's array, with one axis or several: a reshape."""
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    ndim = len(x.shape) + len(axes)
    inserted = {int(a) % ndim for a in axes}
    if len(inserted) != len(axes) or any(not -ndim <= int(a) < ndim for a in axes):
        raise ValueError(f"expand_dims: axes {axis} do not fit an array of {len(x.shape)} dimensions")
    sizes = iter(_shape(x))
    return xp.reshape(x, tuple(1 if k in inserted else next(sizes) for k in range(ndim)))


def _squeeze_in(xp: Any, x: Any, axis: Any = None) -> Any:
    """``np.squeeze`` of another library's array: every axis of length 1 when ``axis`` is not given."""
    if axis is None:
        return xp.reshape(x, tuple(n for n in _shape(x) if n != 1))
    return xp.squeeze(x, axis=tuple(axis) if isinstance(axis, list) else axis)


linear_in_first_rule(np.expand_dims, _reshape_back, generic=True, foreign=_expand_dims_in)
linear_in_first_rule(np.squeeze, _reshape_back, generic=True, foreign=_squeeze_in)
linear_in_first_rule(np.ndarray.squeeze, _reshape_back)
linear_in_first_rule(np.broadcast_to, _broadcast_to_adjoint, generic=True)


# ----- astype: a cast to a float or complex dtype is linear; to anything else, non-differentiable -----


def _astype_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return out_bar  # the projection casts back, and keeps the real part for a real input


def _astype_pushforward(x_dot: Any, dtype: Any, *args: Any, **kwargs: Any) -> Any:
    if is_foreign_array(x_dot):
        return _astype_in(namespace_of(x_dot), x_dot, dtype)
    return cast_to(x_dot, np.dtype(dtype))  # a complex-to-real cast keeps the real part, as the primal


def _astype_in(xp: Any, x: Any, dtype: Any, *args: Any, **kwargs: Any) -> Any:
    """``np.astype`` of another library's array: its ``astype`` to its dtype of numpy's name; a complex array to a
    real dtype by its real part, as numpy casts (the standard leaves that cast undefined)."""
    target = dtype_in(xp, dtype)
    if is_complex_dtype(xp, x.dtype) and not is_complex_dtype(xp, target):
        x = xp.real(x)
    return xp.astype(x, target)


linear_in_first_rule(np.ndarray.astype, _astype_adjoint, tangent=_astype_pushforward)
linear_in_first_rule(np.astype, _astype_adjoint, tangent=_astype_pushforward, generic=True, foreign=_astype_in)


# ----- flip and roll -----


def _flip_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return namespace_of(out_bar).flip(out_bar, axis=bind_options(("axis",), args, kwargs).get("axis"))


def _roll_adjoint(out_bar: Any, x: Any, shift: Any, *args: Any, **kwargs: Any) -> Any:
    back = tuple(-int(s) for s in shift) if isinstance(shift, (tuple, list)) else -int(shift)
    axis = bind_options(("axis",), args, kwargs).get("axis")
    return namespace_of(out_bar).roll(out_bar, back, axis=axis)


def _rot90_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    options = bind_options(("k", "axes"), args, kwargs, k=1, axes=(0, 1))
    return call_in(namespace_of(out_bar), np.rot90, out_bar, -int(options["k"]), options["axes"])


def _flip_along(axis: int) -> Any:
    def adjoint(out_bar: Any, x: Any) -> Any:
        return namespace_of(out_bar).flip(out_bar, axis=axis)

    return adjoint


linear_in_first_rule(np.flip, _flip_adjoint, generic=True)
linear_in_first_rule(np.fliplr, _flip_along(1), generic=True)
linear_in_first_rule(np.flipud, _flip_along(0), generic=True)
linear_in_first_rule(np.rot90, _rot90_adjoint, generic=True)
linear_in_first_rule(np.roll, _roll_adjoint, generic=True)


# ----- several arguments, a tuple of results: atleast_1d/2d/3d, broadcast_arrays -----


def _register_each(f: Any, adjoint: Callable[[Any, Any], Any]) -> None:
    """The rules of ``f(*xs)``, which maps each ``x`` linearly to one result (a tuple of them for several).

    ``adjoint(out_bar, x)`` is one result's adjoint; the pushforward is ``f``
    of the tangents. On another library's arrays ``f`` is the standard's
    function (``_each_in``).
    """

    def _rrule_each(f: Any, *xs: Any, **kwargs: Any) -> Any:
        out = _each_in(f, xs, kwargs)
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
        out = _each_in(f, xs, kwargs)
        checked = [checked_tangent(f, t, x, k) for k, (t, x) in enumerate(zip(tangents[1:], xs), start=1)]
        foreign = first_foreign_array(xs)
        if foreign is None:
            dots = [instantiate_zeros(t, x) for t, x in zip(checked, xs)]
        else:
            dots = [_dense_tangent(t, x, foreign) for t, x in zip(checked, xs)]
        return out, ProjectTo(out)(_each_in(f, tuple(dots), kwargs))

    rrule.register(f, generic=True)(named_after(f, _rrule_each))
    frule.register(f, generic=True)(named_after(f, _frule_each))


def _each_in(f: Any, xs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``f(*xs, **kwargs)``, in the namespace of another library's arrays among ``xs``: Python numbers there become
    0-d arrays of the first one's dtype and device (the standard's ``broadcast_arrays`` takes arrays alone)."""
    foreign = first_foreign_array(xs)
    if foreign is None:
        return f(*xs, **kwargs)
    xp = namespace_of(foreign)
    arrays = [_as_array_like(xp, x, foreign) for x in xs]
    if f is np.broadcast_arrays:  # the standard's takes the arrays alone, no options
        if kwargs:
            raise refusal(f, foreign, f"{', '.join(kwargs)}= has no counterpart in the Python Array API standard")
        return tuple(xp.broadcast_arrays(*arrays))
    out = call_in(xp, f, *arrays, **kwargs)
    return tuple(out) if isinstance(out, list) else out


def _as_array_like(xp: Any, x: Any, like: Any) -> Any:
    if is_foreign_array(x):
        return x
    return xp.asarray(x, dtype=like.dtype, device=device_of(like))


def _dense_tangent(t: Any, x: Any, like: Any) -> Any:
    """The tangent ``t`` of ``x`` as an array of ``like``'s library: zeros of ``x``'s shape for a zero."""
    if isinstance(t, AbstractZero):
        xp = namespace_of(like)
        return xp.zeros(_shape(x), dtype=like.dtype, device=device_of(like))
    return t


for _f in (np.atleast_1d, np.atleast_2d, np.atleast_3d):  # reshapes that add axes of size 1
    _register_each(_f, _reshape_back)
_register_each(np.broadcast_arrays, _broadcast_to_adjoint)

non_differentiable(np.shape, np.ndim, np.size)
