"""Reductions: sum, prod, mean, max/amax, min/amin, ptp, trace, their ``ndarray`` methods and NaN-skipping forms.

Every rule takes the arguments of the numpy function, positional or by
name. ``axis`` may be None, an int, a negative int or a tuple; ``keepdims``
either way; ``dtype=`` casts the cotangent back to the input's dtype.
``out=`` gets no rule (``None``): the primal would write into a buffer the
caller owns, which an engine must treat as a mutation. ``where=`` and
``initial=`` are handled: masked entries get a zero cotangent, ``initial``
none (it is a constant).

``nansum``, ``nanmean``, ``nanprod``, ``nanmax`` and ``nanmin`` are the same
rules with the NaN entries masked out: those get a zero cotangent, and a
slice of NaNs only (numpy warns and returns nan for its mean, max or min)
gets zeros.

The seed of a reduction is reshaped so that it broadcasts against the input,
and the cotangent of ``sum`` and ``mean`` is a read-only broadcast view of it:
no full-size array is allocated. Object arrays are differentiated with
numpy's object arithmetic, as numpy computes their primal.

The common call of ``sum``, ``mean``, ``max`` and ``min``, a float array
reduced over all axes or one with nothing else given, and a seed of the
output's layout, takes a fast path (its layout cached by shape, dtype and
axis; the section at the bottom) that gives the same cotangents; every
other call and seed takes the general rule.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from chainrules_core import NoTangent, named_after, non_differentiable, rrule, shape_of

from .._arrays import (
    OTHER_OPTIONS,
    bind_options,
    broadcast_view,
    cast_to,
    diagonal_adjoint,
    is_given,
    is_plain_float_array,
    kept_shape,
    plain_axis,
    reduced_axes,
)
from .._makers import PullbackOf, linear_in_first_rule, rule_in_first
from ._reducing import cotangent_dtype, joined_mask, nan_mask, seed_as, unless_integer_output

_REDUCE_ARGS = ("axis", "dtype", "out", "keepdims", "initial", "where")
_MEAN_ARGS = ("axis", "dtype", "out", "keepdims")
_EXTREMUM_ARGS = ("axis", "out", "keepdims", "initial", "where")
_PTP_ARGS = ("axis", "out", "keepdims")
_NO_TANGENT = NoTangent()
_DEFAULTS = {"axis": None, "dtype": None, "out": None, "keepdims": False, "initial": None, "where": True}


class _Reduction:
    """What a reduction's rules need to know about one call: the input, the axes, the options, the mask."""

    skips_nan = False

    def __init__(self, x: Any, options: dict[str, Any], out: Any) -> None:
        self.x = x
        self.out = out
        self.out_dtype = options.get("dtype")
        self.shape = shape_of(x)
        self.dtype: Any = cotangent_dtype(x)
        axis, ndim = options["axis"], len(self.shape)
        self.axes = reduced_axes(axis, ndim)
        if axis is None:
            self.kept, self.size = (1,) * ndim, math.prod(self.shape)
        else:
            self.kept, self.size = kept_shape(self.shape, self.axes), math.prod(self.shape[a] for a in self.axes)
        self.keepdims = bool(options["keepdims"])
        self.initial = options.get("initial")
        self.where = joined_mask(options.get("where", True), nan_mask(x) if self.skips_nan else None)
        self.masked = self.where is not True

    def seed(self, out_bar: Any) -> np.ndarray[Any, Any]:
        """The seed in the input's dtype, shaped to broadcast against the input (no copy)."""
        return seed_as(out_bar, self.dtype).reshape(self.kept)

    def mask(self, x_bar: Any) -> Any:
        """``x_bar`` with the entries that ``where=`` (or a NaN) leaves out set to zero."""
        if not self.masked:
            return x_bar
        return np.where(self.where, x_bar, np.zeros((), dtype=x_bar.dtype))

    def count(self) -> Any:
        """How many entries each output reduces: a number, or an array when entries are masked."""
        if not self.masked:
            return self.size
        mask = np.broadcast_to(self.where, self.shape)
        return np.sum(mask, axis=self.axes, keepdims=True)

    def total(self, values: Any) -> Any:
        """``values`` summed over the reduced axes, as the primal lays its output out."""
        return np.sum(values, axis=self.axes, keepdims=self.keepdims, dtype=self.out_dtype)

    def laid_out(self, kept: Any) -> Any:
        """A result of the kept shape laid out as the primal's output (the reduced axes dropped unless kept)."""
        return kept if self.keepdims else np.reshape(kept, np.shape(self.out))


class _NanReduction(_Reduction):
    skips_nan = True


def _options(names: tuple[str, ...]) -> Any:
    """The option parser for a reduction with these positional names; ``None`` for ``out=`` (refused)."""

    unset = bind_options(names, (), {}, **_DEFAULTS)

    def options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
        found = bind_options(names, args, kwargs, **_DEFAULTS) if args or kwargs else dict(unset)
        return None if is_given(found["out"]) else found

    return options


_PULLBACK_OF: dict[Any, PullbackOf] = {}
"""Each reduction's general pullback of a call, for its fast path."""


def _register(functions: tuple[Any, ...], names: tuple[str, ...], prepare: Any, cotangent: Any, tangent: Any) -> None:
    for f in functions:
        _PULLBACK_OF[f] = rule_in_first(
            f, parse=_options(names), prepare=prepare, cotangent=unless_integer_output(cotangent), tangent=tangent
        )


# ----- sum and mean: linear -----


def _sum_cotangent(r: _Reduction, out_bar: Any) -> Any:
    return r.mask(broadcast_view(r.seed(out_bar), r.shape))


def _mean_cotangent(r: _Reduction, out_bar: Any) -> Any:
    seed, count = r.seed(out_bar), r.count()
    if 0 in r.shape:
        return np.zeros(r.shape, dtype=seed.dtype)
    if r.masked:  # rows with nothing left (where=, or NaNs only) give nan in the primal and nothing here
        seed = _over_count(seed, count)
    else:
        seed = seed / count
    return r.mask(broadcast_view(seed, r.shape))


def _sum_tangent(r: _Reduction, x_dot: Any) -> Any:
    where = {} if r.where is True else {"where": r.where}
    return np.sum(x_dot, axis=r.axes, dtype=r.out_dtype, keepdims=r.keepdims, **where)


def _mean_tangent(r: _Reduction, x_dot: Any) -> Any:
    if not r.masked:
        return np.mean(x_dot, axis=r.axes, dtype=r.out_dtype, keepdims=r.keepdims)
    total = np.sum(x_dot, axis=r.axes, keepdims=True, where=r.where)
    return r.laid_out(_over_count(total, r.count()))


def _over_count(v: Any, count: np.ndarray) -> Any:
    """``v / count`` in ``v``'s dtype, 0 where the count is 0: ``np.where`` rather than a division into a buffer, so
    that an engine differentiating the pullback or pushforward can follow it."""
    counted = count > 0
    return np.where(counted, v / np.where(counted, count, 1).astype(v.dtype), 0)


_register((np.sum, np.ndarray.sum), _REDUCE_ARGS, _Reduction, _sum_cotangent, _sum_tangent)
_register((np.mean, np.ndarray.mean), _MEAN_ARGS, _Reduction, _mean_cotangent, _mean_tangent)
_register((np.nansum,), _REDUCE_ARGS, _NanReduction, _sum_cotangent, _sum_tangent)
_register((np.nanmean,), _MEAN_ARGS, _NanReduction, _mean_cotangent, _mean_tangent)


# ----- prod: exact with zeros -----


def _others_product(x: np.ndarray[Any, Any], axes: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """For each entry, the product of the other entries it is reduced with.

    The product of the entries before it times the product of those after it
    (exclusive cumulative products from both ends), so zeros need no special
    case and nothing is divided by ``x``, as in ChainRules.jl's ``∇prod``.
    """
    k = len(axes)
    moved = np.moveaxis(x, axes, tuple(range(-k, 0)))
    flat = moved.reshape((*moved.shape[: moved.ndim - k], math.prod(moved.shape[moved.ndim - k :])))  # no -1: empty
    ones = np.ones_like(flat[..., :1])  # built without out=, so that an engine can follow x
    if flat.shape[-1] < 2:
        return np.moveaxis(np.ones_like(flat).reshape(moved.shape), tuple(range(-k, 0)), axes)
    before = np.concatenate([ones, np.cumprod(flat[..., :-1], axis=-1)], axis=-1)
    after = np.concatenate([np.flip(np.cumprod(np.flip(flat[..., 1:], -1), axis=-1), -1), ones], axis=-1)
    return np.moveaxis((before * after).reshape(moved.shape), tuple(range(-k, 0)), axes)


def _prod_partials(r: _Reduction, x: Any) -> np.ndarray[Any, Any]:
    """d(out)/dx entry by entry; entries left out by ``where=`` (or NaNs, for nanprod) count as 1 and get 0."""
    values = cast_to(x, r.dtype)
    if r.masked:
        values = np.where(r.where, values, np.ones((), dtype=r.dtype))
    partials = _others_product(values, r.axes)
    if is_given(r.initial):
        partials *= r.initial
    return r.mask(partials)


def _prod_cotangent(r: _Reduction, out_bar: Any) -> Any:
    return np.conjugate(_prod_partials(r, r.x)) * r.seed(out_bar)


def _prod_tangent(r: _Reduction, x_dot: Any) -> Any:
    return r.total(_prod_partials(r, r.x) * x_dot)


_register((np.prod, np.ndarray.prod), _REDUCE_ARGS, _Reduction, _prod_cotangent, _prod_tangent)
_register((np.nanprod,), _REDUCE_ARGS, _NanReduction, _prod_cotangent, _prod_tangent)


# ----- max and min: ties split evenly -----


def _extremum_hits(r: _Reduction, extremum: Any) -> tuple[Any, Any]:
    """Where the entries equal the extremum (of the kept shape), and how many tie in each slice.

    Ties split evenly, as autograd and PyTorch's full reductions do
    (ChainRules.jl gives all to one index). For two ties this is what a
    central difference sees; for k > 2 the central difference is the mean of
    the largest and smallest tied directions, which is not linear, and 1/k
    each is the symmetric subgradient. A NaN extremum goes to the NaN
    entries (for ``nanmax``, NaNs are masked out, so a slice of NaNs gets
    nothing). An ``initial`` equal to the extremum counts as one of the ties.
    """
    values = np.asarray(r.x)
    hit = values == extremum
    if values.dtype.kind in "fc":
        nan_extremum = np.isnan(extremum)
        if nan_extremum.any():  # the full-size NaN passes only where a slice's extremum is NaN
            hit |= np.isnan(values) & nan_extremum
    if r.masked:
        hit &= np.asarray(r.where, dtype=bool)
    count = np.sum(hit, axis=r.axes, keepdims=True)
    if is_given(r.initial):
        count = count + (extremum == r.initial)
    return hit, np.maximum(count, 1)


def _extremum_scale(r: _Reduction, out_bar: Any, count: Any) -> Any:
    """The seed divided among the ties, in the kept shape (small: no full-size division)."""
    return (r.seed(out_bar) / count).astype(r.dtype, copy=False)


def _extremum_cotangent(r: _Reduction, out_bar: Any) -> Any:
    hit, count = _extremum_hits(r, np.reshape(r.out, r.kept))
    return hit * _extremum_scale(r, out_bar, count)


def _extremum_tangent(r: _Reduction, x_dot: Any) -> Any:
    hit, count = _extremum_hits(r, np.reshape(r.out, r.kept))
    return r.laid_out(np.sum(np.where(hit, x_dot, 0), axis=r.axes, keepdims=True) / count)


_MAXIMA = (np.max, np.amax, np.min, np.amin, np.ndarray.max, np.ndarray.min)
_register(_MAXIMA, _REDUCE_ARGS, _Reduction, _extremum_cotangent, _extremum_tangent)
_register((np.nanmax, np.nanmin), _EXTREMUM_ARGS, _NanReduction, _extremum_cotangent, _extremum_tangent)


# ----- ptp: max - min, with the ties of each -----


class _Range(_Reduction):
    """``ptp``: the reduction and the entries at its maximum and at its minimum."""

    def __init__(self, x: Any, options: dict[str, Any], out: Any) -> None:
        super().__init__(x, options, out)
        self.high = _extremum_hits(self, np.max(x, axis=self.axes, keepdims=True))
        self.low = _extremum_hits(self, np.min(x, axis=self.axes, keepdims=True))


def _ptp_cotangent(r: _Range, out_bar: Any) -> Any:
    (high, n_high), (low, n_low) = r.high, r.low
    return high * _extremum_scale(r, out_bar, n_high) - low * _extremum_scale(r, out_bar, n_low)


def _ptp_tangent(r: _Range, x_dot: Any) -> Any:
    (high, n_high), (low, n_low) = r.high, r.low
    spread = np.sum(np.where(high, x_dot, 0), axis=r.axes, keepdims=True) / n_high
    spread = spread - np.sum(np.where(low, x_dot, 0), axis=r.axes, keepdims=True) / n_low
    return r.laid_out(spread)


_register((np.ptp,), _PTP_ARGS, _Range, _ptp_cotangent, _ptp_tangent)


# ----- trace -----


def _trace_adjoint(
    out_bar: Any, x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: Any = None
) -> Any:
    return diagonal_adjoint(np.asarray(out_bar)[..., None], np.shape(x), cotangent_dtype(x), offset, axis1, axis2)


def _trace_applies(x: Any, *args: Any, **kwargs: Any) -> bool:
    return not is_given(bind_options(("offset", "axis1", "axis2", "dtype", "out"), args, kwargs).get("out"))


for _f in (np.trace, np.ndarray.trace):
    linear_in_first_rule(_f, _trace_adjoint, applies=_trace_applies)

non_differentiable(np.count_nonzero)


# ----- fast paths: the common call, a float array reduced over all axes or one, nothing else given -----


class _Plain:
    """The layout of a reduction of a float array of one shape and dtype over ``axis`` (None or an int).

    A seed of the output's shape and dtype, C-contiguous (``seed_strides``),
    is broadcast against the input by a view with the strides ``strides``
    (0 along the reduced axes); ``kept`` is the keepdims shape and ``size``
    how many entries each output reduces.
    """

    __slots__ = ("axis", "dtype", "kept", "out_shape", "seed_strides", "shape", "size", "strides")

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype[Any], axis: int | None) -> None:
        axes = reduced_axes(axis, len(shape))
        self.shape, self.dtype, self.axis = shape, dtype, axis
        self.kept = kept_shape(shape, axes)
        self.size = math.prod(shape[a] for a in axes)
        self.out_shape = tuple(n for i, n in enumerate(shape) if i not in axes)
        self.seed_strides = np.empty(self.out_shape, dtype).strides
        seed_axis = iter(self.seed_strides)
        self.strides = tuple(0 if i in axes else next(seed_axis) for i in range(len(shape)))

    def seed(self, out_bar: Any) -> np.ndarray[Any, Any] | None:
        """A C-contiguous seed of the output's shape and dtype, or ``None`` for any other (the general path)."""
        if type(out_bar) is np.ndarray:
            if out_bar.shape == self.out_shape and out_bar.dtype == self.dtype and out_bar.strides == self.seed_strides:
                return out_bar
            return None
        if type(out_bar) in _FLOATS and not self.out_shape:
            return np.array(out_bar, self.dtype)
        return None

    def broadcast(self, seed: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """``seed`` as a read-only view of the input's shape (what ``np.broadcast_to`` gives, for less)."""
        view = np.ndarray(self.shape, self.dtype, seed, 0, self.strides)
        view.setflags(write=False)
        return view


_FLOATS = frozenset({float, np.float64, np.float32})


@functools.lru_cache(maxsize=256)
def _plain_layout(shape: tuple[int, ...], dtype: np.dtype[Any], axis: int | None) -> _Plain | None:
    if axis is not None and not -len(shape) <= axis < len(shape):
        return None
    return _Plain(shape, dtype, axis)


def _plain(x: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> _Plain | None:
    """The layout of ``f(x)``, ``f(x, axis)`` or ``f(x, axis=axis)`` of a non-empty float array; ``None`` otherwise."""
    axis = plain_axis(args, kwargs)
    if axis is OTHER_OPTIONS or not is_plain_float_array(x):
        return None
    return _plain_layout(x.shape, x.dtype, axis)


def _fast_path(cotangent: Any, pullback_of: PullbackOf) -> Any:
    """The fast path of a reduction's ``rrule``, from its cotangent on that path and the general pullback.

    ``cotangent(plain, x, out, seed)`` gets the layout, the input, the output and a seed of the output's layout;
    it returns ``None`` where the general pullback must answer (a NaN maximum), as it does for every other seed.
    """

    def _rrule_reduction(rule: Any, f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        plain = _plain(x, args, kwargs)
        if plain is None:
            return rule(f, x, *args, **kwargs)
        out = f(x, *args, **kwargs)
        others = (_NO_TANGENT,) * len(args)

        def reduction_pullback(out_bar: Any) -> tuple[Any, ...]:
            seed = plain.seed(out_bar)
            x_bar = None if seed is None else cotangent(plain, x, out, seed)
            if x_bar is None:
                return pullback_of(f, x, args, kwargs, out)(out_bar)
            return (_NO_TANGENT, x_bar, *others)

        return out, reduction_pullback

    return _rrule_reduction


def _plain_sum(plain: _Plain, x: Any, out: Any, seed: np.ndarray[Any, Any]) -> Any:
    return plain.broadcast(seed)


def _plain_mean(plain: _Plain, x: Any, out: Any, seed: np.ndarray[Any, Any]) -> Any:
    scaled = seed / plain.size
    return plain.broadcast(scaled if type(scaled) is np.ndarray else np.array(scaled))  # 0-d divided: a scalar


def _plain_extremum(plain: _Plain, x: Any, out: Any, seed: np.ndarray[Any, Any]) -> Any:
    hit = x == (out if plain.axis is None else out.reshape(plain.kept))
    count = np.add.reduce(hit, axis=plain.axis, keepdims=True)
    if not count.all():  # a NaN extremum, which no entry equals: the general path finds the NaNs
        return None
    x_bar = hit * (seed.reshape(plain.kept) / count).astype(plain.dtype, copy=False)
    return x_bar if type(x_bar) is np.ndarray else np.array(x_bar)  # of a 0-d input, numpy gives a scalar


for _fs, _cotangent in (((np.sum, np.ndarray.sum), _plain_sum), ((np.mean, np.ndarray.mean), _plain_mean)):
    for _f in _fs:
        rrule.fast_path(_f)(named_after(_f, _fast_path(_cotangent, _PULLBACK_OF[_f])))
for _f in _MAXIMA:
    rrule.fast_path(_f)(named_after(_f, _fast_path(_plain_extremum, _PULLBACK_OF[_f])))
