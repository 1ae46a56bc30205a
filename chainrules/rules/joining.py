"""Joining and splitting: concatenate, stack, vstack, hstack, split, tile, repeat, pad.

The joins take a list or tuple of arrays; the cotangent of a list is a list
and of a tuple ``Tangent(tuple, ...)``, with views of the seed as entries.
The splits return lists; their pullbacks accept a list, a tuple or a
``Tangent(tuple, ...)`` seed whose entries may be ``ZeroTangent()`` or
thunks, and write the entries given into one zero array. ``out=`` gets no
rule (``None``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, ProjectTo, ZeroTangent, frule, rrule, unthunk

from ._arrays import bind_options, cast_to, instantiate_zeros, is_given, real_dtype_of, scatter_add, tuple_entries
from ._makers import linear_in_first_rule, rule_in_first

# ----- joins: the pullback splits the seed back into views -----

Arrangement = Callable[..., "tuple[int, list[tuple[int, ...]]] | None"]
"""``(arrays, *args, **kwargs) -> (axis, shapes)``: the axis the inputs are laid along, and each
input's shape as laid out (flattened, with an axis inserted, made at least 1-d or 2-d);
``None`` refuses the call."""


def _concatenate(arrays: Any, *args: Any, **kwargs: Any) -> Any:
    options = bind_options(("axis", "out"), args, kwargs, axis=0)
    if is_given(options["out"]):
        return None
    if options["axis"] is None:
        return 0, [(math.prod(np.shape(a)),) for a in arrays]
    shapes = [np.shape(a) for a in arrays]
    return int(options["axis"]) % len(shapes[0]), shapes


def _stack(arrays: Any, *args: Any, **kwargs: Any) -> Any:
    options = bind_options(("axis", "out"), args, kwargs, axis=0)
    if is_given(options["out"]):
        return None
    shapes = [np.shape(a) for a in arrays]
    axis = int(options["axis"]) % (len(shapes[0]) + 1)
    return axis, [(*s[:axis], 1, *s[axis:]) for s in shapes]


def _vstack(arrays: Any, *args: Any, **kwargs: Any) -> Any:
    return 0, [np.shape(np.atleast_2d(a)) for a in arrays]


def _hstack(arrays: Any, *args: Any, **kwargs: Any) -> Any:
    shapes = [np.shape(np.atleast_1d(a)) for a in arrays]
    return (0 if len(shapes[0]) == 1 else 1), shapes


def _register_join(f: Any, arrangement: Arrangement) -> None:
    @rrule.register(f)
    def _rrule_join(f: Any, arrays: Any, *args: Any, **kwargs: Any) -> Any:
        laid = arrangement(arrays, *args, **kwargs)
        if laid is None:
            return None
        out = f(arrays, *args, **kwargs)
        axis, shapes = laid
        project = ProjectTo(None) if ProjectTo(out).is_no_tangent else ProjectTo(arrays)
        bounds = np.cumsum([0] + [s[axis] for s in shapes]).tolist()
        lead = (slice(None),) * axis
        pieces = [((*lead, slice(start, stop)), np.shape(a)) for start, stop, a in zip(bounds, bounds[1:], arrays)]
        others = (NoTangent(),) * len(args)

        def join_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = unthunk(out_bar)
            if isinstance(out_bar, AbstractZero) or project.is_no_tangent:
                return (NoTangent(), project(ZeroTangent()), *others)
            seed = np.asarray(out_bar)
            x_bars = [seed[where] for where, _ in pieces]
            x_bars = [bar if bar.shape == shape else bar.reshape(shape) for bar, (_, shape) in zip(x_bars, pieces)]
            return (NoTangent(), project(x_bars), *others)

        return out, join_pullback

    @frule.register(f)
    def _frule_join(tangents: tuple[Any, ...], f: Any, arrays: Any, *args: Any, **kwargs: Any) -> Any:
        if arrangement(arrays, *args, **kwargs) is None:
            return None
        out = f(arrays, *args, **kwargs)
        project_out = ProjectTo(out)
        if project_out.is_no_tangent:
            return out, NoTangent()
        if isinstance(unthunk(tangents[1]), AbstractZero):
            return out, ZeroTangent()
        dots = [cast_to(d, out.dtype) for d in instantiate_zeros(tangents[1], arrays)]
        return out, project_out(f(dots, *args, **kwargs))


_register_join(np.concatenate, _concatenate)
_register_join(np.stack, _stack)
_register_join(np.vstack, _vstack)
_register_join(np.hstack, _hstack)


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


def _split_options(f: Any, split_axis: Callable[..., int]) -> Callable[..., dict[str, Any]]:
    """The call as it was made, for the pushforward to split the tangent the same way."""

    def options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        return {"f": f, "args": args, "kwargs": kwargs, "split_axis": split_axis}

    return options


def _split_state(x: Any, options: dict[str, Any], out: Any) -> tuple[Any, int, list[int], Any]:
    axis = options["split_axis"](x, *options["args"], **options["kwargs"])
    bounds = np.cumsum([0] + [np.shape(piece)[axis] for piece in out]).tolist()
    return x, axis, bounds, options


def _split_cotangent(state: tuple[Any, int, list[int], Any], out_bar: Any) -> Any:
    x, axis, bounds, _ = state
    dtype = real_dtype_of(x)
    given_pieces = [
        (k, p) for k, p in enumerate(tuple_entries(out_bar, len(bounds) - 1)) if not isinstance(p, AbstractZero)
    ]
    if not given_pieces or dtype is None:
        return ZeroTangent()
    x_bar = np.zeros(np.shape(x), dtype=dtype)
    moved = np.moveaxis(x_bar, axis, 0)
    for k, piece in given_pieces:
        moved[bounds[k] : bounds[k + 1]] = np.moveaxis(cast_to(piece, dtype), axis, 0)
    return x_bar


def _split_pushforward(state: tuple[Any, int, list[int], Any], x_dot: Any) -> Any:
    options = state[3]
    return options["f"](x_dot, *options["args"], **options["kwargs"])


for _f, _axis in _SPLIT_AXIS.items():
    rule_in_first(
        _f,
        parse=_split_options(_f, _axis),
        prepare=_split_state,
        pullback=_split_cotangent,
        pushforward=_split_pushforward,
    )


# ----- tile and repeat: the pullback sums the copies -----


def _tile_adjoint(out_bar: Any, x: Any, reps: Any) -> Any:
    shape = np.shape(x)
    reps = tuple(np.atleast_1d(reps).tolist())
    d = max(len(shape), len(reps))
    padded = (1,) * (d - len(shape)) + shape
    reps = (1,) * (d - len(reps)) + reps
    interleaved = np.reshape(out_bar, [n for pair in zip(reps, padded) for n in pair])
    return np.sum(interleaved, axis=tuple(range(0, 2 * d, 2))).reshape(shape)


def _repeat_adjoint(out_bar: Any, x: Any, repeats: Any, *args: Any, **kwargs: Any) -> Any:
    axis = bind_options(("axis",), args, kwargs).get("axis")
    shape = np.shape(x)
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


linear_in_first_rule(np.tile, _tile_adjoint)
for _f in (np.repeat, np.ndarray.repeat):
    linear_in_first_rule(_f, _repeat_adjoint)


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
    shape = np.shape(x)
    mode = _pad_mode(x, pad_width, *args, **kwargs)
    if mode == "constant":
        widths = np.broadcast_to(np.asarray(pad_width, dtype=np.intp), (len(shape), 2))
        return np.asarray(out_bar)[tuple(slice(b, b + n) for (b, _), n in zip(widths, shape))]
    # Every gather mode reads each output entry from one input entry: pad an index array
    # the same way to find which, and add the seed back there.
    source = np.pad(np.arange(math.prod(shape)).reshape(shape), pad_width, *args, **kwargs)
    dtype = real_dtype_of(x)
    assert dtype is not None
    return scatter_add(math.prod(shape), source, out_bar, dtype).reshape(shape)


def _pad_pushforward(x_dot: Any, pad_width: Any, *args: Any, **kwargs: Any) -> Any:
    if _pad_mode(x_dot, pad_width, *args, **kwargs) == "constant":
        return np.pad(x_dot, pad_width)
    return np.pad(x_dot, pad_width, *args, **kwargs)


linear_in_first_rule(
    np.pad, _pad_adjoint, pushforward=_pad_pushforward, applies=lambda *a, **k: _pad_mode(*a, **k) is not None
)
