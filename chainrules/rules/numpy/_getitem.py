"""``x[index]`` and its adjoint on another library's arrays (the rule is in ``indexing.py``).

An index is first written out in full: ``...`` becomes whole slices, every
axis is named (array-api-strict wants that), and a slice with a negative
step becomes a positive one on the flipped axis (torch has no negative
steps; JAX's compiler fails on a flip of the adjoint's update, so the flip
is torch's alone). What is left is read in three parts:

* a basic index (integers, slices, ``None``), by the library's own indexing;
  its adjoint writes the seed into zeros (``.at[...].set`` for JAX's
  immutable arrays);
* one run of consecutive integer arrays and integers, beside slices: the
  arrays broadcast together and are read as one ``take`` along the run's
  axes flattened, whose adjoint is a product with the one-hot matrix of the
  positions read (``_entries.sum_into``, ``O(m * n)`` for ``m`` entries
  read of ``n``);
* a boolean mask as the whole index (the standard allows it alone), by the
  library's indexing; its adjoint gathers the seed back by the running count
  of the mask, ``O(x.size)``, with no scatter. Under ``jax.jit`` a mask is
  refused: the output's length depends on its values.

A mask beside other indices is read as numpy reads it, as the integer
arrays of its true places (not on dask, where their number is not known
yet). Index arrays apart from one another (numpy moves their axes first)
are refused with a ``TypeError``.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from chainrules_core.arrays import array_api_compat, device_of, is_foreign_array, refusal

from ._entries import sum_into

_GETITEM = np.ndarray.__getitem__


def _kind(item: Any) -> str:
    """numpy's dtype kind of an index item that is an array (numpy's, a list, another library's), else ``""``."""
    if is_foreign_array(item):
        xp = array_api_compat().array_namespace(item)
        return "b" if xp.isdtype(item.dtype, "bool") else "i" if xp.isdtype(item.dtype, "integral") else "f"
    if isinstance(item, (list, np.ndarray)):
        return str(np.asarray(item).dtype.kind)
    return ""


def _in_library(xp: Any, item: Any, x: Any) -> Any:
    """An index array (numpy's, a list, the library's) or integer as an array of ``x``'s library on its device."""
    return item if is_foreign_array(item) else xp.asarray(np.asarray(item), device=device_of(x))


@dataclass(frozen=True)
class _Plan:
    """An index of ``x`` written out: the axes to flip, the basic index to apply to the flipped ``x`` (the run's
    axes left whole), the run of integer arrays (its first axis after the basic index, its items), a boolean
    mask, and the output's shape before the axes ``None`` adds (``inner``) and after (``shape``)."""

    flips: tuple[int, ...]
    basic: tuple[Any, ...]
    run_at: int
    run: tuple[Any, ...]
    mask: Any
    shape: tuple[int, ...]


def _expanded(x: Any, index: Any) -> list[Any]:
    items = list(index) if isinstance(index, tuple) else [index]
    named = sum(
        1 if _kind(item) != "b" else np.ndim(item) for item in items if item is not None and item is not Ellipsis
    )
    if named > x.ndim:
        raise IndexError(f"too many indices for an array of {x.ndim} dimensions: {named} were given")
    whole = [slice(None)] * (x.ndim - named)
    if Ellipsis in [item for item in items if not _kind(item)]:
        at = next(i for i, item in enumerate(items) if not _kind(item) and item is Ellipsis)
        return items[:at] + whole + items[at + 1 :]
    return items + whole


def _plan(xp: Any, x: Any, index: Any) -> _Plan:
    items = _expanded(x, index)
    kinds = [_kind(item) for item in items]
    if "b" in kinds:
        if array_api_compat().is_jax_array(x) and isinstance(x, importlib.import_module("jax").core.Tracer):
            raise refusal(_GETITEM, x, "a boolean mask under jax.jit: the output's length depends on its values")
        if kinds[0] == "b" and all(k == "" and item == slice(None) for k, item in zip(kinds[1:], items[1:])):
            mask = _in_library(xp, items[0], x)
            return _Plan((), (), 0, (), mask, (-1, *x.shape[mask.ndim :]))
        # beside other indices a mask is the integer arrays of its true places, as numpy reads it
        items = [part for k, item in zip(kinds, items) for part in _positions(xp, k, item, x)]
        kinds = [_kind(item) for item in items]
    advanced = [i for i, (k, item) in enumerate(zip(kinds, items)) if k == "i" or (any(kinds) and _is_int(item))]
    if advanced and advanced != list(range(advanced[0], advanced[-1] + 1)):
        raise refusal(_GETITEM, x, "index arrays apart from one another (numpy moves their axes first)")
    flips, basic, shape, axis, run_at = [], [], [], 0, 0
    for i, item in enumerate(items):
        if item is None:
            shape.append(1)
            continue
        n = x.shape[axis]
        if i in advanced:
            basic.append(slice(None))
            if i == advanced[0]:
                run_at = len([s for s in basic if isinstance(s, slice)]) - 1
                shape.append(None)  # the run's broadcast shape, filled in by _run
        elif isinstance(item, slice):
            start, stop, step = item.indices(n)
            length = len(range(start, stop, step))
            if step < 0 and not array_api_compat().is_torch_array(x):
                basic.append(item)
                shape.append(length)
                axis += 1
                continue
            if step < 0:
                flips.append(axis)
                start, step = n - 1 - start, -step
            basic.append(slice(start, start + length * step, step) if length else slice(0, 0))
            shape.append(length)
        else:
            basic.append(item)
        axis += 1
    return _Plan(tuple(flips), tuple(basic), run_at, tuple(items[i] for i in advanced), None, tuple(shape))


def _positions(xp: Any, kind: str, item: Any, x: Any) -> tuple[Any, ...]:
    """A mask as the integer arrays of its true places (``nonzero``); any other item as it is."""
    if kind != "b":
        return (item,)
    places = xp.nonzero(item) if is_foreign_array(item) else np.nonzero(np.asarray(item))
    if any(math.isnan(n) for p in places for n in p.shape):
        raise refusal(_GETITEM, x, "a boolean mask beside other indices, whose true places have no count yet")
    return tuple(places)


def _is_int(item: Any) -> bool:
    return isinstance(item, (int, np.integer)) and not isinstance(item, bool)


def _run(xp: Any, y: Any, plan: _Plan) -> tuple[Any, int, tuple[int, ...]]:
    """The run's positions in ``y``'s run axes flattened (non-negative, 1-d), their number and broadcast shape."""
    arrays = [_in_library(xp, item, y) for item in plan.run]
    arrays = xp.broadcast_arrays(*arrays) if len(arrays) > 1 else arrays
    dims = y.shape[plan.run_at : plan.run_at + len(arrays)]
    flat = None
    for a, n in zip(arrays, dims):
        a = xp.reshape(a, (-1,))
        a = xp.where(a < 0, a + n, a)
        flat = a if flat is None else flat * n + a
    return flat, math.prod(dims), tuple(arrays[0].shape)


def _with_run(plan: _Plan, run_shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(d for s in plan.shape for d in ((s,) if s is not None else run_shape))


def _flipped(xp: Any, x: Any, plan: _Plan) -> Any:
    return xp.flip(x, axis=plan.flips) if plan.flips else x


def getitem_in(xp: Any, x: Any, index: Any) -> Any:
    """``x[index]`` of another library's array ``x`` in namespace ``xp``."""
    plan = _plan(xp, x, index)
    if plan.mask is not None:
        return x[plan.mask]
    y = _flipped(xp, x, plan)[plan.basic]
    if not plan.run:
        return xp.reshape(y, plan.shape)
    flat, n, run_shape = _run(xp, y, plan)
    k = plan.run_at
    rows = xp.reshape(y, (*y.shape[:k], n, *y.shape[k + len(plan.run) :]))
    return xp.reshape(xp.take(rows, flat, axis=k), _with_run(plan, run_shape))


def getitem_adjoint_in(xp: Any, out_bar: Any, x: Any, index: Any) -> Any:
    """The adjoint of ``x[index]`` on another library's arrays: ``out_bar`` added back to the entries read."""
    plan = _plan(xp, x, index)
    if plan.mask is not None:
        return _mask_adjoint(xp, out_bar, x, plan.mask)
    zeros = xp.zeros(tuple(x.shape), dtype=out_bar.dtype, device=device_of(out_bar))
    y_shape = tuple(zeros[plan.basic].shape)
    if plan.run:
        flat, n, _ = _run(xp, zeros[plan.basic], plan)
        k, r = plan.run_at, len(plan.run)
        g = xp.reshape(out_bar, (*y_shape[:k], flat.shape[0], *y_shape[k + r :]))
        y_bar = xp.reshape(sum_into(xp, g, flat, n, axis=k), y_shape)
    else:
        y_bar = xp.reshape(out_bar, y_shape)
    if array_api_compat().is_writeable_array(zeros):
        zeros[plan.basic] = y_bar
        x_bar = zeros
    else:
        x_bar = zeros.at[plan.basic].set(y_bar)
    return _flipped(xp, x_bar, plan)


def _mask_adjoint(xp: Any, out_bar: Any, x: Any, mask: Any) -> Any:
    """The seed of ``x[mask]`` put back where ``mask`` holds: the entry at the ``j``-th true place takes the seed's
    ``j``-th row, read by the running count of the mask (a gather, where the standard has no scatter)."""
    k = mask.ndim
    rest = tuple(x.shape[k:])
    held = xp.reshape(mask, (-1,))
    if out_bar.shape[0] == 0:
        return xp.zeros(tuple(x.shape), dtype=out_bar.dtype, device=device_of(out_bar))
    position = xp.cumulative_sum(xp.astype(held, xp.int64)) - 1
    rows = xp.take(out_bar, xp.where(position < 0, 0, position), axis=0)
    where = xp.reshape(held, (-1, *(1 for _ in rest)))
    return xp.reshape(xp.where(where, rows, xp.zeros_like(rows)), tuple(x.shape))
