"""Joining and splitting: the stacks, concatenate, append, block, the splits, unstack, tile, resize, repeat, pad.

The joins (``concatenate``, ``stack``, ``vstack``, ``hstack``, ``dstack``,
``column_stack``, ``row_stack``) take a list, a tuple, or an array whose
first-axis slices numpy joins; the cotangent of a list is
``Tangent(list, ...)``, of a tuple ``Tangent(tuple, ...)``, of an array an
array, with each input's piece of the seed projected onto it as entries (a
fast path at the bottom hands float arrays of one dtype their pieces as
views of the seed, unprojected). ``append`` joins two arguments,
both differentiable; ``block``'s nested lists get nested ``Tangent(list,
...)`` cotangents. The splits return lists (``unstack`` a tuple); their
pullbacks accept a list, a tuple or a ``Tangent`` seed whose entries may be
``ZeroTangent()`` or thunks, and write the entries given into one zero
array. ``tile``, ``resize`` and ``repeat`` copy entries: their pullbacks add
the copies up. ``out=`` gets no rule (``None``).

``concatenate``, ``stack``, ``unstack``, ``tile`` and ``repeat`` run on every
library that follows the Python Array API standard, ``vstack``, ``hstack``
and ``dstack`` on dask. ``repeat``'s cotangent for uneven counts sums each
entry's run of the seed: numpy's ``add.reduceat`` in one pass; the standard
has no segmented sum, so other libraries take a product with the one-hot
matrix of the runs, ``O(n * total)`` for ``n`` entries copied ``total`` times.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    Tangent,
    ZeroTangent,
    backing,
    checked_seed,
    checked_tangent,
    frule,
    named_after,
    rrule,
    unthunk,
    value_shape,
)
from chainrules_core.array_api import call_in
from chainrules_core.arrays import (
    array_type_name,
    device_of,
    first_foreign_array,
    is_foreign_array,
    namespace_of,
    refusal,
)
from chainrules_core.projection import no_tangent_space

from .._arrays import bind_options, cast_to, instantiate_zeros, is_given, real_dtype_of, scatter_add, tuple_entries
from .._makers import linear_in_first_rule, rule_in_first
from ._bilinear import numeric_seed
from ._entries import entries_rule, repeat_adjoint_in, repeat_in, sum_into

# ----- joins: the pullback splits the seed back into views -----

Layout = Callable[[list[tuple[int, ...]], tuple[Any, ...], dict[str, Any]], "tuple[int, list[tuple[int, ...]]]"]
"""``(shapes, args, kwargs) -> (axis, laid)``: from the inputs' shapes, the axis they are laid
along and each input's shape as laid out (flattened, with an axis inserted, made at least
1-d, 2-d or 3-d). Called after the primal, so numpy has rejected what it rejects."""


def _axis_option(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if args:
        return args[0]
    return kwargs.get("axis", 0)


def _concatenate(shapes: list[tuple[int, ...]], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    axis = _axis_option(args, kwargs)
    if axis is None:
        return 0, [(math.prod(s),) for s in shapes]
    return int(axis) % len(shapes[0]), shapes


def _stack(shapes: list[tuple[int, ...]], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    axis = int(_axis_option(args, kwargs)) % (len(shapes[0]) + 1)
    return axis, [(*s[:axis], 1, *s[axis:]) for s in shapes]


def _at_least(ndim: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of ``np.atleast_{ndim}d`` (``ndim`` 1, 2 or 3) of an array of ``shape``."""
    if len(shape) >= ndim:
        return shape
    if ndim == 3 and len(shape) == 2:
        return (*shape, 1)
    if ndim == 3:
        return (1, *(shape or (1,)), 1)
    return (1,) * (ndim - len(shape)) + shape


def _vstack(shapes: list[tuple[int, ...]], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return 0, [_at_least(2, s) for s in shapes]


def _hstack(shapes: list[tuple[int, ...]], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    laid = [_at_least(1, s) for s in shapes]
    return (0 if len(laid[0]) == 1 else 1), laid


def _dstack(shapes: list[tuple[int, ...]], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return 2, [_at_least(3, s) for s in shapes]


def _column_stack(shapes: list[tuple[int, ...]], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return 1, [s if len(s) >= 2 else (math.prod(s), 1) for s in shapes]  # 0-d and 1-d become columns


def _no_out(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    return not (len(args) > 1 or is_given(kwargs.get("out")))


def _always(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    return True


_ARRAY_KINDS = frozenset("fc")
_NO_TANGENT = NoTangent()


def _joined_cotangent(arrays: Any, bars: list[Any]) -> Any:
    """The cotangent of the sequence argument: a ``Tangent`` of its container, or an array for an array."""
    if isinstance(arrays, np.ndarray):
        return ProjectTo(arrays)(np.stack(bars) if bars else np.zeros(arrays.shape))
    if is_foreign_array(arrays):
        xp = namespace_of(arrays)
        return ProjectTo(arrays)(xp.stack(bars) if bars else xp.zeros_like(arrays))
    return Tangent(list if isinstance(arrays, list) else tuple, *bars)


def _is_stacked(arrays: Any) -> bool:
    """Whether a join's sequence is one array, whose first-axis slices it joins."""
    return isinstance(arrays, np.ndarray) or is_foreign_array(arrays)


def _join_in(f: Any, arrays: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The join ``f(arrays, *args, **kwargs)``: numpy's for numpy's arrays; for another library's, the standard's
    ``concat`` or ``stack`` (an array as the sequence taken apart by ``unstack``, ``dtype=`` a cast after
    joining), or the library's own ``vstack``, ``hstack`` ... where it implements them (dask)."""
    foreign = first_foreign_array((arrays,)) if not isinstance(arrays, np.ndarray) else None
    if foreign is None:
        return f(arrays, *args, **kwargs)
    xp = namespace_of(foreign)
    parts = list(xp.unstack(arrays)) if is_foreign_array(arrays) else list(arrays)
    if f is np.concatenate or f is np.stack:
        options = bind_options(("axis", "out", "dtype", "casting"), args, kwargs, axis=0, casting="same_kind")
        if options["casting"] != "same_kind":
            raise refusal(f, foreign, "casting= has no counterpart in the Python Array API standard")
        joined = (xp.concat if f is np.concatenate else xp.stack)(parts, axis=options["axis"])
        dtype = options["dtype"]  # numpy's dtype as the library's: np.complex128 is xp.complex128
        return joined if dtype is None else xp.astype(joined, getattr(xp, np.dtype(dtype).name))
    if f is np.hstack:  # numpy's makes each part at least 1-d; dask's takes no 0-d part
        parts = [xp.reshape(p, (1,)) if not p.shape else p for p in parts]
    return call_in(xp, f, parts, *args, **kwargs)


def _pieces(
    layout: Layout, shapes: tuple[tuple[int, ...], ...], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[tuple[slice, ...], ...], bool]:
    """Where each input lies in the output, and whether any is laid out in another shape than its own."""
    axis, laid = layout(list(shapes), args, kwargs)
    lead = (slice(None),) * axis
    pieces = []
    start = 0
    for s in laid:
        pieces.append((*lead, slice(start, start + s[axis])))
        start += s[axis]
    return tuple(pieces), any(s != shape for s, shape in zip(laid, shapes))


@functools.lru_cache(maxsize=256)
def _cached_pieces(layout: Layout, shapes: tuple[tuple[int, ...], ...]) -> tuple[tuple[tuple[slice, ...], ...], bool]:
    """``_pieces`` of a call without options, kept for the next call with these shapes."""
    return _pieces(layout, shapes, (), {})


def _join_pieces(
    layout: Layout, shapes: tuple[tuple[int, ...], ...], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[tuple[slice, ...], ...], bool]:
    return _pieces(layout, shapes, args, kwargs) if args or kwargs else _cached_pieces(layout, shapes)


def _join_pullback_of(
    f: Any, arrays: Any, args: tuple[Any, ...], pieces: tuple[tuple[slice, ...], ...], shape: tuple[int, ...]
) -> Callable[[Any], tuple[Any, ...]]:
    """The pullback of a join: each input's cotangent is its piece of the seed, in its shape and dtype.

    An array joined as a sequence (its first-axis slices) gets the pieces stacked back, projected once.
    """
    stacked = _is_stacked(arrays)
    projects = [] if stacked else [ProjectTo(a) for a in arrays]
    shapes = [tuple(arrays.shape[1:])] * arrays.shape[0] if stacked else [tuple(np.shape(a)) for a in arrays]
    others = (_NO_TANGENT,) * len(args)

    def join_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, shape)
        if isinstance(out_bar, AbstractZero):
            return (_NO_TANGENT, ProjectTo(arrays)(out_bar), *others)
        if is_foreign_array(out_bar):
            xp = namespace_of(out_bar)
            bars = [xp.reshape(out_bar[(*where, ...)], s) for where, s in zip(pieces, shapes)]
        else:
            seed = numeric_seed(f, out_bar, shape)
            bars = [seed[where].reshape(s) for where, s in zip(pieces, shapes)]
        if stacked:
            return (_NO_TANGENT, _joined_cotangent(arrays, bars), *others)
        bars = [_NO_TANGENT if p.is_no_tangent else p(bar) for p, bar in zip(projects, bars)]
        return (_NO_TANGENT, _joined_cotangent(arrays, bars), *others)

    return join_pullback


def _register_join(
    f: Any, layout: Layout, applies: Callable[[tuple[Any, ...], dict[str, Any]], bool], generic: bool = True
) -> None:
    """The rules of a join ``f(arrays, *args, **kwargs)``: the inputs laid side by side along one axis.

    ``arrays`` may be a list, a tuple, or an array (numpy then joins its
    first-axis slices, and the cotangent is an array).
    """

    def _rrule_join(f: Any, arrays: Any, *args: Any, **kwargs: Any) -> Any:
        if (args or kwargs) and not applies(args, kwargs):
            return None
        out = _join_in(f, arrays, args, kwargs)
        stacked = _is_stacked(arrays)  # joined as its first-axis slices
        if no_tangent_space(out) or (no_tangent_space(arrays) if stacked else all(map(no_tangent_space, arrays))):
            others = (_NO_TANGENT,) * len(args)

            def constant_join_pullback(out_bar: Any) -> tuple[Any, ...]:
                return (_NO_TANGENT, _NO_TANGENT, *others)

            return out, constant_join_pullback
        shapes = (tuple(arrays.shape[1:]),) * arrays.shape[0] if stacked else tuple(tuple(np.shape(a)) for a in arrays)
        pieces, _ = _join_pieces(layout, shapes, args, kwargs)
        return out, _join_pullback_of(f, arrays, args, pieces, tuple(out.shape))

    def _frule_join(tangents: tuple[Any, ...], f: Any, arrays: Any, *args: Any, **kwargs: Any) -> Any:
        if not applies(args, kwargs):
            return None
        out = _join_in(f, arrays, args, kwargs)
        project_out = ProjectTo(out)
        if project_out.is_no_tangent:
            return out, NoTangent()
        arrays_dot = checked_tangent(f, tangents[1], arrays, 1)
        if isinstance(arrays_dot, AbstractZero):
            return out, ZeroTangent()
        if is_foreign_array(out):
            return out, project_out(_join_in(f, _foreign_dots(arrays_dot, arrays, out), args, kwargs))
        dots = instantiate_zeros(arrays_dot, arrays)
        if isinstance(dots, list):  # of a list or tuple: each entry of its entry's shape
            dots = [checked_tangent(f, d, a, 1) for d, a in zip(dots, arrays)]
        return out, project_out(f([cast_to(d, out.dtype) for d in dots], *args, **kwargs))

    rrule.register(f, generic=generic)(named_after(f, _rrule_join))
    frule.register(f, generic=generic)(named_after(f, _frule_join))
    _JOINS[f] = layout


def _foreign_dots(arrays_dot: Any, arrays: Any, out: Any) -> Any:
    """The tangents of a join's inputs in another library's arrays of the output's dtype: zeros made explicit."""
    xp, device = namespace_of(out), device_of(out)
    if is_foreign_array(arrays):  # an array as the sequence: its tangent is one array too
        return xp.astype(arrays_dot, out.dtype)
    items = backing(arrays_dot) if isinstance(arrays_dot, Tangent) else arrays_dot
    dots = [checked_tangent(np.concatenate, d, a, 1) for d, a in zip(items, arrays)]
    zero = [xp.zeros(tuple(np.shape(a)), dtype=out.dtype, device=device) for a in arrays]
    return [
        z if isinstance(d, AbstractZero) else xp.asarray(d, dtype=out.dtype, device=device) for d, z in zip(dots, zero)
    ]


_JOINS: dict[Any, Layout] = {}
"""The joins and their layouts, for their fast paths (at the bottom)."""


_register_join(np.concatenate, _concatenate, _no_out)
_register_join(np.stack, _stack, _no_out)
_register_join(np.vstack, _vstack, _always)
_register_join(np.hstack, _hstack, _always)
_register_join(np.dstack, _dstack, _always)
_register_join(np.column_stack, _column_stack, _always, generic=False)  # dask has none
if hasattr(np, "row_stack"):  # deprecated in numpy 2.0: vstack under another name
    _register_join(np.row_stack, _vstack, _always, generic=False)


# ----- append: two arguments joined -----


@rrule.register(np.append)
def _rrule_append(f: Any, arr: Any, values: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(arr, values, *args, **kwargs)
    axis = bind_options(("axis",), args, kwargs)["axis"]
    shapes = [np.shape(arr), np.shape(values)]
    flat = axis is None
    axis = 0 if flat else int(axis) % out.ndim
    split = np.shape(arr)[axis] if not flat else np.size(arr)
    first, second = (slice(None),) * axis + (slice(None, split),), (slice(None),) * axis + (slice(split, None),)
    constant = ProjectTo(out).is_no_tangent
    project_arr, project_values = (ProjectTo(None if constant else x) for x in (arr, values))
    others = (NoTangent(),) * len(args)

    def append_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), project_arr(out_bar), project_values(out_bar), *others
        seed = numeric_seed(f, out_bar, np.shape(out))
        arr_bar, values_bar = (seed[where].reshape(shape) for where, shape in zip((first, second), shapes))
        return NoTangent(), project_arr(arr_bar), project_values(values_bar), *others

    return out, append_pullback


@frule.register(np.append)
def _frule_append(tangents: tuple[Any, ...], f: Any, arr: Any, values: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(arr, values, *args, **kwargs)
    project_out = ProjectTo(out)
    if project_out.is_no_tangent:
        return out, NoTangent()
    arr_dot, values_dot = (
        cast_to(instantiate_zeros(checked_tangent(f, t, x, k), x), out.dtype)
        for k, (t, x) in enumerate(zip(tangents[1:3], (arr, values)), start=1)
    )
    return out, project_out(f(arr_dot, values_dot, *args, **kwargs))


# ----- block: nested lists of blocks -----

entries_rule(np.block, [(0, "arrays")])


# ----- splits: the pullback writes the pieces given into one zero array -----


def _split_axis(x: Any, *args: Any, **kwargs: Any) -> int:
    return int(bind_options(("indices_or_sections", "axis"), args, kwargs, axis=0)["axis"]) % max(np.ndim(x), 1)


_SPLIT_AXIS: dict[Any, Callable[..., int]] = {
    np.split: _split_axis,
    np.array_split: _split_axis,
    np.vsplit: lambda x, *args, **kwargs: 0,
    np.hsplit: lambda x, *args, **kwargs: 1 if np.ndim(x) > 1 else 0,
    np.dsplit: lambda x, *args, **kwargs: 2,
}
if hasattr(np, "unstack"):  # numpy >= 2.1: the pieces lose the axis
    _SPLIT_AXIS[np.unstack] = lambda x, axis=0: int(axis) % np.ndim(x)


def _split_options(f: Any, split_axis: Callable[..., int]) -> Callable[..., dict[str, Any]]:
    """The call as it was made, for the pushforward to split the tangent the same way."""

    def options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        return {"f": f, "args": args, "kwargs": kwargs, "split_axis": split_axis}

    return options


def _split_state(x: Any, options: dict[str, Any], out: Any) -> tuple[Any, int, list[int], Any]:
    axis = options["split_axis"](x, *options["args"], **options["kwargs"])
    options = {**options, "shapes": [value_shape(piece) for piece in out]}
    if options["f"] is getattr(np, "unstack", None):
        return x, axis, list(range(len(out) + 1)), options
    bounds = np.cumsum([0] + [np.shape(piece)[axis] for piece in out]).tolist()
    return x, axis, bounds, options


def _split_cotangent(state: tuple[Any, int, list[int], Any], out_bar: Any) -> Any:
    x, axis, bounds, options = state
    foreign = is_foreign_array(x)  # float or complex: the rule gives an integer x a zero first
    dtype = None if foreign else real_dtype_of(x)
    f, shapes = options["f"], options["shapes"]
    seeds = [checked_seed(f, p, shape) for p, shape in zip(tuple_entries(out_bar, len(bounds) - 1), shapes)]
    given_pieces = [(k, p) for k, p in enumerate(seeds) if not isinstance(p, AbstractZero)]
    if not given_pieces or (dtype is None and not foreign):
        return ZeroTangent()
    given = dict(given_pieces)
    shape = tuple(np.shape(x))
    if foreign:  # unstack's: the standard's stack, with zeros for the pieces not given
        xp, device = namespace_of(x), device_of(x)
        lost = shape[:axis] + shape[axis + 1 :]
        zeros = xp.zeros(lost, dtype=x.dtype, device=device)
        return xp.stack([given.get(k, zeros) for k in range(shape[axis])], axis=axis)
    if state[3]["f"] is getattr(np, "unstack", None):  # the pieces lost the axis: stacked back along it
        lost = shape[:axis] + shape[axis + 1 :]
        return np.stack(
            [cast_to(given[k], dtype) if k in given else np.zeros(lost, dtype) for k in range(shape[axis])], axis
        )
    parts = [
        cast_to(given[k], dtype) if k in given else np.zeros((*shape[:axis], hi - lo, *shape[axis + 1 :]), dtype)
        for k, (lo, hi) in enumerate(itertools.pairwise(bounds))
    ]
    return np.concatenate(parts, axis)  # built, not written into: an engine may follow the pieces


def _split_pushforward(state: tuple[Any, int, list[int], Any], x_dot: Any) -> Any:
    options = state[3]
    if is_foreign_array(x_dot):
        return call_in(namespace_of(x_dot), options["f"], x_dot, *options["args"], **options["kwargs"])
    return options["f"](x_dot, *options["args"], **options["kwargs"])


for _f, _axis in _SPLIT_AXIS.items():
    rule_in_first(
        _f,
        parse=_split_options(_f, _axis),
        prepare=_split_state,
        cotangent=_split_cotangent,
        tangent=_split_pushforward,
        generic=_f is getattr(np, "unstack", None),  # the standard's unstack; the splits are numpy's alone
    )


# ----- tile, resize and repeat: the pullback sums the copies -----


def _tile_adjoint(out_bar: Any, x: Any, reps: Any) -> Any:
    xp = namespace_of(out_bar)
    shape = tuple(np.shape(x))
    reps = tuple(np.atleast_1d(reps).tolist())
    d = max(len(shape), len(reps))
    padded = (1,) * (d - len(shape)) + shape
    reps = (1,) * (d - len(reps)) + reps
    interleaved = xp.reshape(out_bar, tuple(n for pair in zip(reps, padded) for n in pair))
    return xp.reshape(xp.sum(interleaved, axis=tuple(range(0, 2 * d, 2))), shape)


def _tile_in(xp: Any, x: Any, reps: Any) -> Any:
    """``np.tile`` of another library's array: the standard's ``tile`` takes a tuple of repetitions."""
    return xp.tile(x, tuple(int(r) for r in np.atleast_1d(reps).tolist()))


def _repeat_adjoint(out_bar: Any, x: Any, repeats: Any, *args: Any, **kwargs: Any) -> Any:
    axis = bind_options(("axis",), args, kwargs).get("axis")
    if is_foreign_array(out_bar):
        return repeat_adjoint_in(namespace_of(out_bar), out_bar, x, repeats, axis)
    shape = np.shape(x)
    axis = None if not shape else axis  # numpy repeats a 0-d array as a 1-d one, whatever the axis
    seed = np.asarray(out_bar).reshape(-1) if axis is None else np.asarray(out_bar)
    axis = 0 if axis is None else int(axis) % len(shape)
    n = math.prod(shape) if seed.ndim == 1 and len(shape) != 1 else shape[axis]
    counts = np.asarray(repeats)
    if counts.size == 1:
        split = (*seed.shape[:axis], n, int(counts.reshape(())), *seed.shape[axis + 1 :])
        return np.sum(seed.reshape(split), axis=axis + 1).reshape(shape)
    counts = np.broadcast_to(counts, (n,))
    x_bar = np.zeros((*seed.shape[:axis], n, *seed.shape[axis + 1 :]), dtype=seed.dtype)
    nonempty = np.flatnonzero(counts)
    if nonempty.size:  # segment sums over the runs; an empty run gets nothing
        starts = (np.cumsum(counts) - counts)[nonempty]
        np.moveaxis(x_bar, axis, 0)[nonempty] = np.moveaxis(np.add.reduceat(seed, starts, axis=axis), axis, 0)
    return x_bar.reshape(shape)


def _resize_adjoint(out_bar: Any, x: Any, new_shape: Any) -> Any:
    """Each output entry ``k`` reads ``x.flat[k % x.size]``: add the seed's cycles up."""
    size = np.size(x)
    seed = np.ravel(out_bar)
    if size == 0:
        return np.zeros(np.shape(x), dtype=seed.dtype)
    cycles = -(-seed.size // size)
    padded = np.zeros(cycles * size, dtype=seed.dtype)
    padded[: seed.size] = seed
    return padded.reshape(cycles, size).sum(axis=0).reshape(np.shape(x))


linear_in_first_rule(np.tile, _tile_adjoint, generic=True, foreign=_tile_in)
linear_in_first_rule(np.resize, _resize_adjoint)
linear_in_first_rule(np.repeat, _repeat_adjoint, generic=True, foreign=repeat_in)
linear_in_first_rule(np.ndarray.repeat, _repeat_adjoint)


# ----- pad -----

_GATHER_MODES = ("edge", "reflect", "symmetric", "wrap")


def _pad_mode(x: Any, pad_width: Any, *args: Any, **kwargs: Any) -> str | None:
    """The mode of a call whose rules are known: 'constant' or a gather mode; ``None`` for the rest.

    'reflect' and 'symmetric' with ``reflect_type='odd'`` extrapolate (``2 edge - x``)
    and the statistical modes ('mean', 'maximum', ...) and callables have no rule here.
    """
    mode = args[0] if args else kwargs.get("mode", "constant")
    if mode == "constant" or (mode in _GATHER_MODES and kwargs.get("reflect_type", "even") == "even"):
        return str(mode)
    return None


def _pad_adjoint(out_bar: Any, x: Any, pad_width: Any, *args: Any, **kwargs: Any) -> Any:
    shape = tuple(np.shape(x))
    mode = _pad_mode(x, pad_width, *args, **kwargs)
    foreign = is_foreign_array(out_bar)  # dask's pad: its seed sliced, or summed back by a one-hot product
    if mode == "constant":
        widths = np.broadcast_to(np.asarray(pad_width, dtype=np.intp), (len(shape), 2))
        return (out_bar if foreign else np.asarray(out_bar))[tuple(slice(b, b + n) for (b, _), n in zip(widths, shape))]
    # Every gather mode reads each output entry from one input entry: pad an index array
    # the same way to find which, and add the seed back there.
    source = np.pad(np.arange(math.prod(shape)).reshape(shape), pad_width, *args, **kwargs)
    if foreign:
        xp = namespace_of(out_bar)
        flat = xp.reshape(out_bar, (-1,))
        index = xp.asarray(source.reshape(-1), device=device_of(flat))
        return xp.reshape(sum_into(xp, flat, index, math.prod(shape), 0), shape)
    dtype = real_dtype_of(x)
    assert dtype is not None
    return scatter_add(math.prod(shape), source, out_bar, dtype).reshape(shape)


def _pad_in(xp: Any, x: Any, pad_width: Any, *args: Any, **kwargs: Any) -> Any:
    """``np.pad`` of another library's array, where it implements it (dask); dask's own pads a reflection or a
    wrap wider than the array wrong (a shorter output): refused."""
    mode = _pad_mode(x, pad_width, *args, **kwargs)
    if mode in _GATHER_MODES and array_type_name(x).startswith("dask."):
        widths = np.broadcast_to(np.asarray(pad_width, dtype=np.intp), (len(x.shape), 2))
        if any(w > n - (mode == "reflect") for (*pair, n) in zip(*widths.T, x.shape) for w in pair):
            raise refusal(np.pad, x, f"dask pads mode={mode!r} wider than the array wrong")
    return call_in(xp, np.pad, x, pad_width, *args, **kwargs)


def _pad_pushforward(x_dot: Any, pad_width: Any, *args: Any, **kwargs: Any) -> Any:
    if _pad_mode(x_dot, pad_width, *args, **kwargs) == "constant":
        args, kwargs = (), {}
    return call_in(namespace_of(x_dot), np.pad, x_dot, pad_width, *args, **kwargs)


linear_in_first_rule(
    np.pad,
    _pad_adjoint,
    tangent=_pad_pushforward,
    applies=lambda *a, **k: _pad_mode(*a, **k) is not None,
    generic=True,  # dask's pad: the standard has none
    foreign=_pad_in,
)


# ----- fast paths: a list or tuple of float arrays of one dtype, joined without options -----


def _join_fast_path(layout: Layout) -> Callable[..., Any]:
    """The fast path of a join's ``rrule`` for a list or tuple of float arrays of one dtype and no options.

    Where no input is reshaped, a seed of the output's shape and dtype
    gives each input its piece as a view, with no projector; every other
    seed, and every call the fast path does not take, gets the general rule.
    """

    def _rrule_join(rule: Any, f: Any, arrays: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs or (type(arrays) is not list and type(arrays) is not tuple) or not arrays:
            return rule(f, arrays, *args, **kwargs)
        first = arrays[0]
        dtype = first.dtype if type(first) is np.ndarray else None
        if dtype is None or dtype.kind not in _ARRAY_KINDS:
            return rule(f, arrays)
        for a in arrays:
            if type(a) is not np.ndarray or a.dtype != dtype:
                return rule(f, arrays)
        out = f(arrays)
        pieces, reshaped = _cached_pieces(layout, tuple(a.shape for a in arrays))
        container = type(arrays)
        shape = out.shape
        shapes = [a.shape for a in arrays] if reshaped else None

        def join_pullback(out_bar: Any) -> tuple[Any, ...]:
            if type(out_bar) is np.ndarray and out_bar.shape == shape and out_bar.dtype == dtype:
                if shapes is None:
                    return (_NO_TANGENT, Tangent(container, *map(out_bar.__getitem__, pieces)))
                return (_NO_TANGENT, Tangent(container, *(out_bar[w].reshape(s) for w, s in zip(pieces, shapes))))
            return _join_pullback_of(f, arrays, (), pieces, shape)(out_bar)

        return out, join_pullback

    return _rrule_join


for _f, _layout in _JOINS.items():
    rrule.fast_path(_f)(named_after(_f, _join_fast_path(_layout)))
