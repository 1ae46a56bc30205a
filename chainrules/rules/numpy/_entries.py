"""The rule maker for functions that move entries: every entry of the output is one entry of an argument.

``insert``, ``delete``, ``compress``, ``extract``, ``choose``, ``select``,
``block``, ``trim_zeros``, ``partition``, ``sort_complex`` and the functional
``setitem`` copy, drop, repeat or reorder the entries of their value
arguments without doing arithmetic on them. Their derivative is the same
map applied to the tangents, and its adjoint adds each output's cotangent
back to the entry it came from.

The maker finds that map once per call by running the function on
*labels*: each value argument replaced by integer arrays of the same
structure numbering its entries (a constant one, such as an integer array or
an argument passed by keyword, by ``-1``). The result says, for every output
entry, where it came from. The pushforward gathers the tangents through it;
the pullback scatters the seed back with ``np.bincount``, so an entry read
several times (a broadcast ``values``, a ``choose`` that picks one choice
twice) gets the sum. Nothing is differentiated by hand; the cost is one
call of the function on integers, and one integer array of the output's size.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    Tangent,
    backing,
    checked_tangent,
    frule,
    is_followed,
    named_after,
    primal_of,
    rrule,
    unthunk,
)
from chainrules_core.arrays import device_of, is_foreign_array

from .._arrays import bind_options, cast_to, dtype_of_value, scatter_add
from ._bilinear import numeric_seed

Labels = Any
"""An argument with each differentiable leaf replaced by an integer array numbering its entries."""

Source = Callable[[Any, tuple[Any, ...], dict[str, Any], tuple[Any, ...], dict[str, Any], Any], Any]
"""``(f, label_args, label_kwargs, args, kwargs, out) -> labels of the output``: where each output entry comes from."""


def _is_container(x: Any) -> bool:
    return isinstance(x, (list, tuple))


class _Leaves:
    """The differentiable leaves of the value arguments, numbered one after another."""

    def __init__(self) -> None:
        self.size = 0
        self.starts: list[int] = []
        self.shapes: list[tuple[int, ...]] = []

    def label(self, x: Any, differentiable: bool) -> Labels:
        """``x`` with each leaf replaced by the numbers of its entries (``-1`` for a constant)."""
        if _is_container(x):
            return type(x)(self.label(v, differentiable) for v in x)
        shape = np.shape(x)
        if not differentiable or ProjectTo(x).is_no_tangent:
            return np.full(shape, -1, dtype=np.intp)
        start = self.size
        self.size += math.prod(shape)
        self.starts.append(start)
        self.shapes.append(shape)
        return np.arange(start, self.size, dtype=np.intp).reshape(shape)

    def rebuild(self, x: Any, flat: np.ndarray[Any, Any], cursor: list[int]) -> Any:
        """The cotangent of ``x`` laid out as ``x``, read from ``flat`` in label order."""
        if _is_container(x):
            return [self.rebuild(v, flat, cursor) for v in x]
        if ProjectTo(x).is_no_tangent:
            return NoTangent()
        k = cursor[0]
        cursor[0] += 1
        start, shape = self.starts[k], self.shapes[k]
        return flat[start : start + math.prod(shape)].reshape(shape)


def _tangent_leaves(f: Any, t: Any, x: Any, position: int, dtype: np.dtype[Any]) -> list[np.ndarray[Any, Any]]:
    """The raveled tangents of ``x``'s differentiable leaves, zeros made explicit, in label order.

    Each leaf's tangent must have the leaf's shape (``checked_tangent``:
    ``ValueError`` naming ``f``, argument ``position`` and both shapes).
    """
    t = checked_tangent(f, t, x, position)
    if _is_container(x):
        if isinstance(t, AbstractZero):
            items: Sequence[Any] = [t] * len(x)
        else:
            items = backing(t) if isinstance(t, Tangent) else t
        return [leaf for ti, xi in zip(items, x) for leaf in _tangent_leaves(f, ti, xi, position, dtype)]
    if ProjectTo(x).is_no_tangent:
        return []
    if isinstance(t, AbstractZero):
        return [np.zeros(np.size(x), dtype=dtype)]
    return [cast_to(t, dtype).reshape(-1)]


def dense_seed(out_bar: Any, out: Any) -> Any:
    """A seed for a list output (``trim_zeros`` of a list) as an array; others as they are."""
    if isinstance(out, list) and not isinstance(out_bar, np.ndarray):
        items = backing(out_bar) if isinstance(out_bar, Tangent) else out_bar
        return np.array([0.0 if isinstance(unthunk(v), AbstractZero) else unthunk(v) for v in items])
    return out_bar


def _holds_followed(x: Any) -> bool:
    """Whether ``x`` is a list or tuple holding a value an engine follows (nested differentiation)."""
    return _is_container(x) and any(is_followed(v) or _holds_followed(v) for v in x)


def _plain(x: Any) -> Any:
    """``x`` with each followed leaf replaced by its plain value."""
    return type(x)(_plain(v) for v in x) if _is_container(x) else primal_of(x)


def _leaves_in_order(x: Any) -> list[Any]:
    """The differentiable leaves of ``x``, in ``_Leaves.label``'s order."""
    if _is_container(x):
        return [leaf for v in x for leaf in _leaves_in_order(v)]
    return [] if ProjectTo(x).is_no_tangent else [x]


def _gathered(args: tuple[Any, ...], positions: list[int], labels: Any, size: int, out: Any) -> Any:
    """The output gathered from the arguments' leaves through its labels, as an engine follows them; the entries
    of constants from ``out`` (numpy converts a list of followed values itself, losing them)."""
    leaves = [np.reshape(leaf, -1) for p in positions for leaf in _leaves_in_order(args[p])]
    flat = np.concatenate([*leaves, np.zeros(1, dtype=out.dtype)])
    return np.where(labels == size, out, flat[labels].astype(out.dtype))


def _default_source(
    f: Any, label_args: tuple[Any, ...], label_kwargs: dict[str, Any], args: Any, kwargs: Any, out: Any
) -> Any:
    return f(*label_args, **label_kwargs)


def entries_rule(
    f: Callable[..., Any],
    values: Sequence[tuple[int, str]],
    *,
    defaults: dict[str, Any] | None = None,
    source: Source = _default_source,
    applies: Callable[..., bool] | None = None,
) -> None:
    """Register ``frule`` and ``rrule`` for ``f``, whose output entries are entries of its value arguments.

    ``values`` lists the ``(position, name)`` of each value argument (a list
    or tuple of arrays counts as one, leaf by leaf). One passed positionally
    is differentiable; one passed by keyword, or a default in ``defaults``,
    is a constant. ``source`` computes the output's labels when running ``f``
    on labels is not the way (a value-dependent selection); ``applies(*args,
    **kwargs)`` false refuses the call (``None``). Every other argument gets
    ``NoTangent()``.
    """
    defaults = defaults or {}

    def labelled(
        args: tuple[Any, ...], kwargs: dict[str, Any], out: Any
    ) -> tuple[_Leaves, list[int], np.ndarray[Any, Any]]:
        leaves = _Leaves()
        label_args = list(args)
        label_kwargs = dict(kwargs)
        positions = []
        for position, name in values:
            if position < len(args):
                label_args[position] = leaves.label(args[position], True)
                positions.append(position)
            elif name in kwargs:
                label_kwargs[name] = leaves.label(kwargs[name], False)
            elif name in defaults:
                label_kwargs[name] = leaves.label(defaults[name], False)
        labels = np.asarray(source(f, tuple(label_args), label_kwargs, args, kwargs, out), dtype=np.intp)
        return leaves, positions, np.where(labels < 0, leaves.size, labels)  # constants read one extra zero

    def output(f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, tuple[Any, ...] | None]:
        """``f``'s output; the plain arguments if a value list holds followed values (numpy would convert them:
        the output and the labels come from the plain values, and the output is then gathered from the leaves)."""
        if not any(_holds_followed(args[p]) for p, _ in values if p < len(args)):
            return f(*args, **kwargs), None
        plain = tuple(_plain(a) for a in args)
        return f(*plain, **kwargs), plain

    def _rrule_entries(f: Any, *args: Any, **kwargs: Any) -> Any:
        if applies is not None and not applies(*args, **kwargs):
            return None
        out, plain = output(f, args, kwargs)
        if ProjectTo(out).is_no_tangent:

            def constant_pullback(out_bar: Any) -> tuple[Any, ...]:
                return (NoTangent(),) * (len(args) + 1)

            return out, constant_pullback
        leaves, positions, labels = labelled(args if plain is None else plain, kwargs, out)
        if plain is not None:
            out = _gathered(args, positions, labels, leaves.size, out)
        projects = {p: ProjectTo(args[p]) for p in positions}
        dtype = dtype_of_value(out)

        def entries_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = dense_seed(unthunk(out_bar), out)
            if isinstance(out_bar, AbstractZero):
                return (
                    NoTangent(),
                    *(projects[p](out_bar) if p in projects else NoTangent() for p in range(len(args))),
                )
            flat = scatter_add(leaves.size + 1, labels, numeric_seed(f, out_bar, np.shape(labels)), dtype)
            cursor = [0]
            bars = {p: projects[p](leaves.rebuild(args[p], flat, cursor)) for p in positions}
            return (NoTangent(), *(bars.get(p, NoTangent()) for p in range(len(args))))

        return out, entries_pullback

    def _frule_entries(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        if applies is not None and not applies(*args, **kwargs):
            return None
        out, plain = output(f, args, kwargs)
        project_out = ProjectTo(out)
        if project_out.is_no_tangent:
            return out, NoTangent()
        leaves, positions, labels = labelled(args if plain is None else plain, kwargs, out)
        if plain is not None:
            out = _gathered(args, positions, labels, leaves.size, out)
        dtype = dtype_of_value(out)
        parts = [leaf for p in positions for leaf in _tangent_leaves(f, tangents[p + 1], args[p], p + 1, dtype)]
        flat_dot = np.concatenate([*parts, np.zeros(1, dtype=dtype)])
        return out, project_out(flat_dot[labels])

    rrule.register(f)(named_after(f, _rrule_entries))
    frule.register(f)(named_after(f, _frule_entries))


# ----- gathers and scatters along an axis, in any Array API namespace -----
# The standard has gathers (take, take_along_axis) but no scatter-add. The adjoint of a gather adds each seed
# entry back to the entry it read: written here as a product with the one-hot matrix of the indices,
# ``O(m * n)`` work and memory for ``m`` indices into an axis of ``n`` (numpy's rules keep ``np.bincount`` and
# ``np.add.at``, ``O(m + n)``).


def one_hot(xp: Any, index: Any, n: int, dtype: Any) -> Any:
    """``index[..., None] == arange(n)`` as an array of ``dtype``: the rows pick the entries the index reads."""
    device = device_of(index)
    return xp.astype(index[..., None] == xp.arange(n, dtype=index.dtype, device=device), dtype)


def sum_into(xp: Any, g: Any, index: Any, n: int, axis: int) -> Any:
    """The adjoint of ``take(x, index, axis=axis)`` for a 1-d ``index`` into an axis of ``n``: ``g``'s entries
    added to the entries they were read from (repeated indices accumulate)."""
    summed = xp.matmul(xp.moveaxis(g, axis, -1), one_hot(xp, index, n, g.dtype))
    return xp.moveaxis(summed, -1, axis)


def gather_along(xp: Any, x: Any, index: Any, axis: int) -> Any:
    """``take_along_axis(x, index, axis=axis)``; for a library without it (dask), the product with the one-hot
    matrix of ``index`` along the axis."""
    if hasattr(xp, "take_along_axis"):
        return xp.take_along_axis(x, index, axis=axis)
    n = x.shape[axis]
    lines = xp.moveaxis(x, axis, -1)[..., None]  # (..., n, 1)
    picked = xp.matmul(one_hot(xp, xp.moveaxis(index, axis, -1), n, x.dtype), lines)  # (..., k, 1)
    return xp.moveaxis(picked[..., 0], -1, axis)


def scatter_along(xp: Any, g: Any, index: Any, n: int, axis: int) -> Any:
    """The adjoint of ``take_along_axis(x, index, axis=axis)`` along an axis of ``n``: each line of ``g`` added to
    the entries of its line that ``index`` read (of the broadcast shape of ``g`` and ``index`` but that axis)."""
    lines = xp.moveaxis(g, axis, -1)[..., None, :]  # (..., 1, k)
    summed = xp.matmul(lines, one_hot(xp, xp.moveaxis(index, axis, -1), n, g.dtype))  # (..., 1, n)
    return xp.moveaxis(summed[..., 0, :], -1, axis)


# ----- repeat on another library's arrays (joining.py) -----


def repeat_in(xp: Any, x: Any, repeats: Any, *args: Any, **kwargs: Any) -> Any:
    """``np.repeat`` of another library's array: the standard's ``repeat`` for one count (or an array of counts);
    a gather of each entry's copies for a list of counts (dask's ``repeat`` takes one count alone)."""
    axis = bind_options(("axis",), args, kwargs).get("axis")
    if axis is None or not x.shape:
        x, axis = xp.reshape(x, (-1,)), 0
    if is_foreign_array(repeats) or np.size(repeats) == 1:
        return xp.repeat(x, repeats if is_foreign_array(repeats) else int(np.reshape(repeats, ())), axis=axis)
    return xp.take(x, _copied(xp, repeats, x.shape[int(axis)], 0, device_of(x)), axis=axis)


def _copied(xp: Any, repeats: Any, n: int, total: int, device: Any) -> Any:
    """The entry each of the ``total`` copies along the axis reads: ``k`` repeated ``repeats[k]`` times."""
    if is_foreign_array(repeats):  # how many runs end at or before each copy
        ends = xp.cumulative_sum(xp.broadcast_to(repeats, (n,)))
        return xp.searchsorted(ends, xp.arange(total, dtype=ends.dtype, device=device), side="right")
    return xp.asarray(np.repeat(np.arange(n), np.broadcast_to(np.asarray(repeats), (n,))), device=device)


def repeat_adjoint_in(xp: Any, out_bar: Any, x: Any, repeats: Any, axis: Any) -> Any:
    """The adjoint of ``repeat`` on another library's arrays: each entry's run of the seed summed, by a reshape
    for one count, as the adjoint of the gather of the copies (a one-hot product) for several."""
    shape = tuple(x.shape)
    if axis is None or not shape:
        out_bar, axis, n = xp.reshape(out_bar, (-1,)), 0, math.prod(shape)
    else:
        axis = int(axis) % len(shape)
        n = shape[axis]
    if not is_foreign_array(repeats) and np.size(repeats) == 1:
        runs = xp.reshape(out_bar, (*out_bar.shape[:axis], n, int(np.reshape(repeats, ())), *out_bar.shape[axis + 1 :]))
        return xp.reshape(xp.sum(runs, axis=axis + 1), shape)
    copied = _copied(xp, repeats, n, out_bar.shape[axis], device_of(out_bar))
    return xp.reshape(sum_into(xp, out_bar, copied, n, axis), shape)
