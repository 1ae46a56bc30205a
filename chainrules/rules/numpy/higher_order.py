"""Rules for higher-order functions: ``functools.reduce``, ``np.apply_along_axis`` and ``np.piecewise``.

Their derivatives need the derivative of the user's function, which only an
AD engine can compute, so the rules are config-aware: they apply when the
caller passes a ``RuleConfig`` with reverse mode (``rrule_via_ad``) or forward
mode (``frule_via_ad``), as the engines in ``chainrules.engines`` do. The
cotangent of the user's function is the sum of its cotangents over the calls
(a ``Tangent`` when it is a callable object with fields).

Only lists, tuples and arrays are reduced (a generator has no cotangent);
other iterables get no rule.

``np.piecewise(x, condlist, funclist, *args, **kw)`` calls each function of
``funclist`` on ``x[cond]`` (with ``*args`` and ``**kw``) and writes the
result where ``cond`` holds; a number in ``funclist`` is written as it is;
a later condition overrides an earlier one, and one extra entry of
``funclist`` covers where no condition holds (numpy's order). The rule runs
each piece through the engine and assembles the output by gathers
(``np.where`` of the pieces, not writes into an array), so an engine follows
it. The seed of an entry goes to the piece that wrote it last: each
function's pullback gets the seed of its entries that no later piece
overwrote (zero for the others), and its cotangent of ``x[cond]`` is put
back in place. A number in ``funclist`` gets the sum of the seed it kept;
the conditions get no tangent. The derivative is the pieces' own: a point
where a condition changes is not smooth (the pieces need not meet there).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from chainrules.rules._arrays import is_ndarray_value, items_of
from chainrules_core import (
    AbstractZero,
    HasForwardMode,
    HasReverseMode,
    NoTangent,
    ProjectTo,
    Tangent,
    ZeroTangent,
    backing,
    checked_seed,
    checked_tangent,
    frule,
    is_followed,
    primal_of,
    rrule,
    unthunk,
    value_shape,
)


def _is_sequence(x: Any) -> bool:
    """A list, a tuple or an array (an engine's followed array included)."""
    return isinstance(x, (list, tuple)) or is_ndarray_value(x)


def _item_tangent(f: Any, t: Any, sequence: Any, k: int) -> Any:
    """The tangent of item ``k`` of a list, tuple or array from the tangent of the whole, of the item's shape."""
    t = unthunk(t)
    return t if isinstance(t, AbstractZero) else checked_tangent(f, t[k], sequence[k], 2)


def _stack_like(items: list[Any], bars: list[Any], sequence: Any) -> Any:
    """The cotangents of the items of ``sequence`` as one cotangent of it."""
    if all(isinstance(b, AbstractZero) for b in bars):
        return ZeroTangent()
    if is_ndarray_value(sequence):
        return np.stack([np.zeros_like(x) if isinstance(b, AbstractZero) else b for x, b in zip(items, bars)])
    if isinstance(sequence, list):
        return bars
    return Tangent(tuple, *bars)


# ----- functools.reduce -----


@rrule.register(functools.reduce, config=True, requires=(HasReverseMode,))
def _rrule_reduce(config: Any, f: Any, function: Any, sequence: Any, *initial: Any) -> Any:
    if not _is_sequence(sequence) or len(initial) > 1 or (len(sequence) == 0 and not initial):
        return None
    items = items_of(sequence)
    acc, start = (initial[0], 0) if initial else (items[0], 1)
    project_sequence = ProjectTo(sequence)
    project_initial = [ProjectTo(x) for x in initial]
    pullbacks = []
    for item in items[start:]:
        acc, step_pullback = config.rrule_via_ad(function, acc, item)
        pullbacks.append(step_pullback)
    shape = value_shape(acc)

    def reduce_pullback(out_bar: Any) -> tuple[Any, ...]:
        acc_bar = checked_seed(f, out_bar, shape)
        function_bar: Any = ZeroTangent()
        bars: list[Any] = [ZeroTangent()] * len(items)
        for k in reversed(range(len(pullbacks))):
            if isinstance(acc_bar, AbstractZero):
                break
            step_function_bar, acc_bar, item_bar = pullbacks[k](acc_bar)
            function_bar = function_bar + step_function_bar
            bars[start + k] = unthunk(item_bar)
            acc_bar = unthunk(acc_bar)
        if isinstance(function_bar, ZeroTangent) and ProjectTo(function).is_no_tangent:
            function_bar = NoTangent()
        if not initial:
            bars[0] = acc_bar
        sequence_bar = project_sequence(_stack_like(items, bars, sequence))
        initial_bar = [project(acc_bar) for project in project_initial]
        return (NoTangent(), function_bar, sequence_bar, *initial_bar)

    return acc, reduce_pullback


@frule.register(functools.reduce, config=True, requires=(HasForwardMode,))
def _frule_reduce(config: Any, tangents: tuple[Any, ...], f: Any, function: Any, sequence: Any, *initial: Any) -> Any:
    if not _is_sequence(sequence) or len(initial) > 1 or (len(sequence) == 0 and not initial):
        return None
    _, function_dot, sequence_dot, *initial_dot = tangents
    sequence_dot = checked_tangent(f, sequence_dot, sequence, 2)
    items = items_of(sequence)
    if initial:
        acc, acc_dot, start = initial[0], checked_tangent(f, initial_dot[0], initial[0], 3), 0
    else:
        acc, acc_dot, start = items[0], _item_tangent(f, sequence_dot, items, 0), 1
    for k in range(start, len(items)):
        step_tangents = (function_dot, acc_dot, _item_tangent(f, sequence_dot, items, k))
        acc, acc_dot = config.frule_via_ad(step_tangents, function, acc, items[k])
    return acc, ProjectTo(acc)(unthunk(acc_dot))


# ----- np.apply_along_axis -----


def _result_permutation(axis: int, ndim: int, result_ndim: int) -> list[int]:
    """Where numpy puts the result's own axes: in place of ``axis`` (numpy's apply_along_axis)."""
    dims = list(range(ndim))
    return dims[:axis] + dims[ndim - result_ndim :] + dims[axis : ndim - result_ndim]


def _normalized_axis(axis: Any, ndim: int) -> int | None:
    if not isinstance(axis, (int, np.integer)) or not -ndim <= axis < ndim:
        return None
    return int(axis) % ndim


@rrule.register(np.apply_along_axis, config=True, requires=(HasReverseMode,))
def _rrule_apply_along_axis(config: Any, f: Any, func1d: Any, axis: Any, arr: Any, *args: Any, **kwargs: Any) -> Any:
    if not is_ndarray_value(arr) or arr.size == 0:
        return None
    axis = _normalized_axis(axis, arr.ndim)
    if axis is None:
        return None
    moved = np.moveaxis(arr, axis, -1)
    outer = moved.shape[:-1]
    results, pullbacks = [], []
    for index in np.ndindex(outer):
        y, slice_pullback = config.rrule_via_ad(func1d, moved[index], *args, **kwargs)
        results.append(y if is_followed(y) else np.asarray(y))
        pullbacks.append(slice_pullback)
    result_ndim = results[0].ndim
    buff = np.stack(results).reshape(outer + results[0].shape)
    permutation = _result_permutation(axis, buff.ndim, result_ndim)
    project_arr = ProjectTo(arr)
    project_args = [ProjectTo(a) for a in args]
    project_func = ProjectTo(func1d)
    out_shape = tuple(buff.shape[i] for i in permutation)

    def apply_along_axis_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, out_shape)
        zeros = (NoTangent(), project_func(ZeroTangent()), NoTangent(), ZeroTangent())
        if isinstance(out_bar, AbstractZero):
            return (*zeros, *[p(ZeroTangent()) for p in project_args])
        buff_bar = np.transpose(np.broadcast_to(out_bar, out_shape), np.argsort(permutation))  # a 0-d seed: a number
        dtype = np.result_type(primal_of(arr), primal_of(buff_bar))
        slice_bars = []
        func_bar: Any = ZeroTangent()
        arg_bars: list[Any] = [ZeroTangent()] * len(args)
        for index, slice_pullback in zip(np.ndindex(outer), pullbacks):
            step_func_bar, slice_bar, *step_arg_bars = slice_pullback(buff_bar[index])
            slice_bar = unthunk(slice_bar)
            zero = isinstance(slice_bar, AbstractZero)
            slice_bars.append(np.zeros(moved.shape[-1:], dtype) if zero else slice_bar)
            func_bar = func_bar + step_func_bar
            arg_bars = [a + unthunk(b) for a, b in zip(arg_bars, step_arg_bars)]
        moved_bar = np.stack(slice_bars).reshape(moved.shape)  # stacked, not written in place: an engine follows it
        arr_bar = project_arr(np.moveaxis(moved_bar, -1, axis))
        extra_bars = [project(b) for project, b in zip(project_args, arg_bars)]
        return (NoTangent(), project_func(func_bar), NoTangent(), arr_bar, *extra_bars)

    return buff.transpose(permutation), apply_along_axis_pullback


@frule.register(np.apply_along_axis, config=True, requires=(HasForwardMode,))
def _frule_apply_along_axis(
    config: Any, tangents: tuple[Any, ...], f: Any, func1d: Any, axis: Any, arr: Any, *args: Any, **kwargs: Any
) -> Any:
    if not is_ndarray_value(arr) or arr.size == 0:
        return None
    axis = _normalized_axis(axis, arr.ndim)
    if axis is None:
        return None
    _, func_dot, _, arr_dot, *arg_dots = tangents
    arr_dot = checked_tangent(f, arr_dot, arr, 3)
    arg_dots = [checked_tangent(f, t, a, k) for k, (t, a) in enumerate(zip(arg_dots, args), start=4)]
    moved = np.moveaxis(arr, axis, -1)
    moved_dot = arr_dot if isinstance(arr_dot, AbstractZero) else np.moveaxis(arr_dot, axis, -1)
    outer = moved.shape[:-1]
    results, result_dots = [], []
    for index in np.ndindex(outer):
        slice_dot = moved_dot if isinstance(moved_dot, AbstractZero) else moved_dot[index]
        y, y_dot = config.frule_via_ad((func_dot, slice_dot, *arg_dots), func1d, moved[index], *args, **kwargs)
        y = y if is_followed(y) else np.asarray(y)
        y_dot = unthunk(y_dot)
        results.append(y)
        zero = isinstance(y_dot, AbstractZero)
        result_dots.append(np.zeros_like(y) if zero else y_dot if is_followed(y_dot) else np.asarray(y_dot))
    shape = outer + results[0].shape
    permutation = _result_permutation(axis, len(shape), results[0].ndim)
    out = np.stack(results).reshape(shape).transpose(permutation)
    out_dot = np.stack(result_dots).reshape(shape).transpose(permutation)
    return out, ProjectTo(out)(out_dot)


# ----- np.piecewise -----


def _piecewise_conditions(x: Any, condlist: Any, funclist: Any) -> Any:
    """numpy's conditions of ``piecewise``, one per entry of ``funclist`` (the last one "otherwise" when
    ``funclist`` has one entry more), as a bool array of shape ``(len(funclist), *x.shape)``; ``ValueError``
    if their number does not fit, ``IndexError`` if their shape does not (as numpy)."""
    ndim = np.ndim(primal_of(x))
    if np.isscalar(condlist) or (not isinstance(condlist[0], (list, np.ndarray)) and ndim != 0):
        condlist = [condlist]
    conditions = np.asarray(condlist, dtype=bool)
    if len(conditions) == len(funclist) - 1:
        conditions = np.concatenate([conditions, ~np.any(conditions, axis=0, keepdims=True)], axis=0)
    if len(conditions) != len(funclist):
        raise ValueError(
            f"np.piecewise: funclist has {len(funclist)} entries for {len(conditions)} conditions (it takes "
            "as many, or one more for where none holds)"
        )
    shape = np.shape(primal_of(x))
    if conditions.ndim == 1:  # numpy's x[True] reads every entry, x[False] none
        return np.broadcast_to(conditions.reshape(-1, *(1 for _ in shape)), (len(conditions), *shape))
    if conditions.size == 0:  # numpy's empty conditions select nothing, "otherwise" included
        return np.zeros((len(conditions), *shape), dtype=bool)
    if conditions.shape[1:] != shape:
        raise IndexError(
            f"np.piecewise: conditions of shape {conditions.shape[1:]} for x of shape {np.shape(primal_of(x))} "
            "(a condition is a boolean array of x's shape)"
        )
    return conditions


def _spread(values: Any, condition: Any) -> Any:
    """``values`` (one per true entry of ``condition``, or one for all) laid where ``condition`` holds, zeros
    elsewhere: numpy's ``y[condition] = values`` as a gather, which an engine follows."""
    count = int(np.count_nonzero(condition))
    flat = np.reshape(values, (-1,))
    if np.size(primal_of(values)) == count:
        position = np.reshape(np.cumsum(np.reshape(condition, (-1,))) - 1, condition.shape)
    else:
        position = np.zeros(condition.shape, int)
    return np.where(condition, np.take(flat, np.maximum(position, 0)), 0)


def _item(t: Any, k: int) -> Any:
    """Entry ``k`` of a list's tangent (a list, a ``Tangent(list, ...)``, or a zero)."""
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return t
    return unthunk(backing(t)[k] if isinstance(t, Tangent) else t[k])


def _piecewise_parts(x: Any, rest: tuple[Any, ...]) -> Any:
    """``(x as 1-d, its shape, conditions as 1-d rows, funclist, the extra args)``, or ``None`` when the call is
    not ``piecewise(x, condlist, funclist, *args)`` of a float or complex ``x`` (an array or a number)."""
    if len(rest) < 2 or np.asarray(primal_of(x)).dtype.kind not in "fc":
        return None
    condlist, funclist, *args = rest
    conditions = _piecewise_conditions(x, condlist, funclist)
    flat_x = x if np.ndim(primal_of(x)) else np.reshape(x, (1,))  # numpy reads a 0-d x as one entry
    return flat_x, conditions.reshape(len(funclist), *np.shape(primal_of(flat_x))), list(funclist), args


def _kept(conditions: Any) -> Any:
    """Where each piece's values stay: its condition, less where a later condition holds (a later write wins)."""
    later = np.flip(np.cumsum(np.flip(conditions, 0), axis=0), 0) - conditions
    return conditions & (later == 0)


@rrule.register(np.piecewise, config=True, requires=(HasReverseMode,))
def _rrule_piecewise(config: Any, f: Any, x: Any, *rest: Any, **kw: Any) -> Any:
    parts = _piecewise_parts(x, rest)
    if parts is None:
        return None
    flat_x, conditions, funclist, args = parts
    dtype = np.asarray(primal_of(x)).dtype
    y: Any = np.zeros(np.shape(primal_of(flat_x)), dtype)
    pullbacks: list[Any] = []
    for condition, func in zip(conditions, funclist):
        piece_pullback = None
        if not callable(func):
            y = np.where(condition, func, y)
        elif condition.any():
            values, piece_pullback = config.rrule_via_ad(func, flat_x[condition], *args, **kw)
            y = np.where(condition, _spread(values, condition), y)
            pullbacks.append((np.shape(primal_of(values)), piece_pullback))
            continue
        pullbacks.append(None)
    out = np.reshape(y.astype(dtype, copy=False), np.shape(primal_of(x)))
    kept = _kept(conditions)
    project_x, project_funclist = ProjectTo(x), ProjectTo(funclist)
    project_args = [ProjectTo(a) for a in args]
    shape = np.shape(primal_of(x))

    def piecewise_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, shape)
        if isinstance(out_bar, AbstractZero):
            return (
                NoTangent(),
                project_x(out_bar),
                NoTangent(),
                project_funclist(out_bar),
                *[ZeroTangent()] * len(args),
            )
        seed = np.reshape(out_bar, np.shape(primal_of(flat_x)))
        x_bar: Any = ZeroTangent()
        funclist_bar: list[Any] = []
        arg_bars: list[Any] = [ZeroTangent()] * len(args)
        for condition, keep, func, piece in zip(conditions, kept, funclist, pullbacks):
            kept_seed = np.where(keep, seed, 0)
            if piece is None:
                funclist_bar.append(ZeroTangent() if callable(func) else np.sum(kept_seed))
                continue
            values_shape, piece_pullback = piece
            piece_seed = kept_seed[condition]
            if np.shape(piece_seed) != values_shape:  # one value written to every entry: the seeds add up
                piece_seed = np.reshape(np.sum(piece_seed), values_shape)
            func_bar, piece_bar, *step_arg_bars = piece_pullback(piece_seed)
            funclist_bar.append(func_bar)
            piece_bar = unthunk(piece_bar)
            if not isinstance(piece_bar, AbstractZero):
                x_bar = x_bar + _spread(piece_bar, condition)
            arg_bars = [a + unthunk(b) for a, b in zip(arg_bars, step_arg_bars)]
        if not isinstance(x_bar, AbstractZero):
            x_bar = np.reshape(x_bar, shape)
        return (
            NoTangent(),
            project_x(x_bar),
            NoTangent(),
            project_funclist(funclist_bar),
            *[project(b) for project, b in zip(project_args, arg_bars)],
        )

    return out, piecewise_pullback


@frule.register(np.piecewise, config=True, requires=(HasForwardMode,))
def _frule_piecewise(config: Any, tangents: tuple[Any, ...], f: Any, x: Any, *rest: Any, **kw: Any) -> Any:
    parts = _piecewise_parts(x, rest)
    if parts is None:
        return None
    flat_x, conditions, funclist, args = parts
    _, x_dot, _, funclist_dot, *arg_dots = tangents
    x_dot = checked_tangent(f, x_dot, x, 1)
    arg_dots = [checked_tangent(f, t, a, k) for k, (t, a) in enumerate(zip(arg_dots, args), start=4)]
    if not isinstance(x_dot, AbstractZero):
        x_dot = np.reshape(x_dot, np.shape(primal_of(flat_x)))
    dtype = np.asarray(primal_of(x)).dtype
    y: Any = np.zeros(np.shape(primal_of(flat_x)), dtype)
    y_dot: Any = np.zeros(np.shape(primal_of(flat_x)), dtype)
    for k, (condition, func) in enumerate(zip(conditions, funclist)):
        func_dot = _item(funclist_dot, k)
        if not callable(func):
            y = np.where(condition, func, y)
            y_dot = np.where(condition, 0 if isinstance(func_dot, AbstractZero) else func_dot, y_dot)
        elif condition.any():
            piece_dot = x_dot if isinstance(x_dot, AbstractZero) else x_dot[condition]
            values, values_dot = config.frule_via_ad(
                (func_dot, piece_dot, *arg_dots), func, flat_x[condition], *args, **kw
            )
            values_dot = unthunk(values_dot)
            y = np.where(condition, _spread(values, condition), y)
            if not isinstance(values_dot, AbstractZero):
                y_dot = np.where(condition, _spread(values_dot, condition), y_dot)
            else:
                y_dot = np.where(condition, 0, y_dot)
    out = np.reshape(y.astype(dtype, copy=False), np.shape(primal_of(x)))
    return out, ProjectTo(out)(np.reshape(y_dot, np.shape(out)))
