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

from chainrules_core import NoTangent, follow, frule, is_followed, named_after, non_differentiable, rrule, shape_of
from chainrules_core.array_api import call_in, dtype_in
from chainrules_core.arrays import (
    broadcast_like,
    device_of,
    has_unknown_shape,
    is_complex_dtype,
    is_foreign_array,
    namespace_of,
    real_dtype,
    refusal,
)

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
    """What a reduction's rules need to know about one call: the input, the axes, the options, the mask.

    ``xp`` is the namespace of the input (numpy, or another library's, whose formulas are the standard's).
    """

    skips_nan = False

    def __init__(self, x: Any, options: dict[str, Any], out: Any) -> None:
        self.x = x
        self.out = out
        self.xp = xp = namespace_of(x)
        if xp is np:
            self.shape = shape_of(x)
        elif has_unknown_shape(x):
            raise refusal(options["f"], x, "its rule needs the input's shape, which dask has not computed")
        else:
            self.shape = tuple(x.shape)
        self.out_dtype = options["dtype"] if xp is np else dtype_in(xp, options["dtype"])
        self.dtype: Any = cotangent_dtype(x)
        axis, ndim = options["axis"], len(self.shape)
        self.axes = reduced_axes(axis, ndim)
        if axis is None:
            self.kept, self.size = (1,) * ndim, math.prod(self.shape)
        else:
            self.kept, self.size = kept_shape(self.shape, self.axes), math.prod([self.shape[a] for a in self.axes])
        self.keepdims = bool(options["keepdims"])
        self.initial = options.get("initial")
        self.where = joined_mask(options.get("where", True), nan_mask(x) if self.skips_nan else None)
        self.masked = self.where is not True

    def seed(self, out_bar: Any) -> Any:
        """The seed in the input's dtype, shaped to broadcast against the input (no copy)."""
        if self.xp is np:
            return seed_as(out_bar, self.dtype).reshape(self.kept)
        return self.xp.reshape(seed_as(out_bar, self.dtype, self.x), self.kept)

    def mask(self, x_bar: Any) -> Any:
        """``x_bar`` with the entries that ``where=`` (or a NaN) leaves out set to zero."""
        if not self.masked:
            return x_bar
        if self.xp is np:
            return np.where(self.where, x_bar, np.zeros((), dtype=x_bar.dtype))
        return self.xp.where(self.where, x_bar, 0.0)

    def broadcast(self, seed: Any) -> Any:
        """``seed`` of the kept shape broadcast to the input's, as a read-only view."""
        return broadcast_view(seed, self.shape) if self.xp is np else broadcast_like(self.xp, seed, self.x)

    def count(self) -> Any:
        """How many entries each output reduces: a number, or an array when entries are masked."""
        if not self.masked:
            return self.size
        return self.hits(self.xp.broadcast_to(self.where, self.shape))

    def hits(self, mask: Any) -> Any:
        """How many entries of the boolean ``mask`` are true in each slice (the kept shape): numpy counts in ints,
        another library in the input's real dtype (the standard does not sum booleans)."""
        xp = self.xp
        if xp is np:
            return np.sum(mask, axis=self.axes, keepdims=True)
        return xp.sum(xp.astype(mask, real_dtype(xp, self.x.dtype)), axis=self.axes, keepdims=True)

    def total(self, values: Any) -> Any:
        """``values`` summed over the reduced axes, as the primal lays its output out."""
        return self.xp.sum(values, axis=self.axes, keepdims=self.keepdims, dtype=self.out_dtype)

    def laid_out(self, kept: Any) -> Any:
        """A result of the kept shape laid out as the primal's output (the reduced axes dropped unless kept)."""
        if self.keepdims:
            return kept
        return np.reshape(kept, np.shape(self.out)) if self.xp is np else self.xp.reshape(kept, tuple(self.out.shape))


class _NanReduction(_Reduction):
    skips_nan = True


def _options(f: Any, names: tuple[str, ...]) -> Any:
    """The option parser for a reduction with these positional names; ``None`` for ``out=`` (refused)."""

    unset = bind_options(names, (), {}, **_DEFAULTS, f=f)

    def options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
        found = bind_options(names, args, kwargs, **_DEFAULTS, f=f) if args or kwargs else dict(unset)
        return None if is_given(found["out"]) else found

    return options


_PULLBACK_OF: dict[Any, PullbackOf] = {}
"""Each reduction's general pullback of a call, for its fast path."""


def _register(
    functions: tuple[Any, ...], names: tuple[str, ...], prepare: Any, cotangent: Any, tangent: Any, generic: Any = ()
) -> None:
    """The rules of ``functions``; those in ``generic`` run on every Array API library (the others, ``ndarray``
    methods and the aliases dask lacks, refuse another library's arrays)."""
    for f in functions:
        _PULLBACK_OF[f] = rule_in_first(
            f,
            parse=_options(f, names),
            prepare=prepare,
            cotangent=unless_integer_output(cotangent),
            tangent=tangent,
            primal=_primal if f in generic else None,
            generic=f in generic,
        )


def _primal(f: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any], options: dict[str, Any]) -> Any:
    """The output: numpy's call (an engine's followed value answers it), another library's through ``call_in``.

    Two calls numpy takes are spelled otherwise for the standard: an axis of a 0-d input (numpy reduces its one
    entry; the standard has no axis there), and ``ptp(keepdims=True)`` (dask's ptp has no ``keepdims``).
    """
    if not is_foreign_array(x):
        return follow(f, x, *args, **kwargs) if is_followed(x) else f(x, *args, **kwargs)
    xp = namespace_of(x)
    zero_d = x.ndim == 0 and options["axis"] is not None
    if not zero_d and f is not np.ptp:
        return call_in(xp, f, x, *args, **kwargs)
    given = {
        k: v for k, v in options.items() if k in _DEFAULTS and k not in ("axis", "keepdims") and v is not _DEFAULTS[k]
    }
    if zero_d:
        return call_in(xp, f, x, keepdims=options["keepdims"], **given)
    out = call_in(xp, f, x, axis=options["axis"], **given)
    return (
        xp.reshape(out, kept_shape(tuple(x.shape), reduced_axes(options["axis"], x.ndim)))
        if options["keepdims"]
        else out
    )


def _conj(xp: Any, a: Any) -> Any:
    """The complex conjugate, ``a`` itself when real (the standard's ``conj`` wants complex input)."""
    if xp is np:
        return np.conjugate(a)
    return xp.conj(a) if is_complex_dtype(xp, a.dtype) else a


# ----- sum and mean: linear -----


def _sum_cotangent(r: _Reduction, out_bar: Any) -> Any:
    return r.mask(r.broadcast(r.seed(out_bar)))


def _mean_cotangent(r: _Reduction, out_bar: Any) -> Any:
    seed, count = r.seed(out_bar), r.count()
    if 0 in r.shape:
        return r.xp.zeros(r.shape, dtype=seed.dtype, device=device_of(r.x))
    if r.masked:  # rows with nothing left (where=, or NaNs only) give nan in the primal and nothing here
        seed = _over_count(r.xp, seed, count)
    else:
        seed = seed / count
    return r.mask(r.broadcast(seed))


def _sum_tangent(r: _Reduction, x_dot: Any) -> Any:
    if r.xp is not np:  # the standard's sum takes no where=
        return r.total(r.mask(x_dot))
    where = {} if r.where is True else {"where": r.where}
    return np.sum(x_dot, axis=r.axes, dtype=r.out_dtype, keepdims=r.keepdims, **where)


def _mean_tangent(r: _Reduction, x_dot: Any) -> Any:
    xp = r.xp
    if not r.masked:
        if xp is np:
            return np.mean(x_dot, axis=r.axes, dtype=r.out_dtype, keepdims=r.keepdims)
        if r.out_dtype is not None:  # the standard's mean takes no dtype=: the tangent in the output's dtype
            x_dot = xp.astype(x_dot, r.out_dtype)
        return xp.mean(x_dot, axis=r.axes, keepdims=r.keepdims)
    if xp is np:
        total = np.sum(x_dot, axis=r.axes, keepdims=True, where=r.where)
    else:
        total = xp.sum(r.mask(x_dot), axis=r.axes, keepdims=True)
    return r.laid_out(_over_count(xp, total, r.count()))


def _over_count(xp: Any, v: Any, count: Any) -> Any:
    """``v / count`` in ``v``'s dtype, 0 where the count is 0: ``where`` rather than a division into a buffer, so
    that an engine differentiating the pullback or pushforward can follow it."""
    counted = count > 0
    if xp is np:
        return np.where(counted, v / np.where(counted, count, 1).astype(v.dtype), 0)
    return xp.where(counted, v / xp.astype(xp.where(counted, count, 1.0), v.dtype), 0.0)


_STANDARD = (np.sum, np.mean, np.prod, np.max, np.min)
"""The reductions the Python Array API standard names: their rules run on every library."""
_DASK = (np.nansum, np.nanmean, np.nanprod, np.nanmax, np.nanmin, np.ptp)
"""The ones it does not name that dask computes itself (``np.nansum`` of a dask array is dask's)."""
_GENERIC = _STANDARD + _DASK

_register((np.sum, np.ndarray.sum), _REDUCE_ARGS, _Reduction, _sum_cotangent, _sum_tangent, _GENERIC)
_register((np.mean, np.ndarray.mean), _MEAN_ARGS, _Reduction, _mean_cotangent, _mean_tangent, _GENERIC)
_register((np.nansum,), _REDUCE_ARGS, _NanReduction, _sum_cotangent, _sum_tangent, _GENERIC)
_register((np.nanmean,), _MEAN_ARGS, _NanReduction, _mean_cotangent, _mean_tangent, _GENERIC)


# ----- prod: exact with zeros -----


def _others_product(xp: Any, x: Any, axes: tuple[int, ...]) -> Any:
    """For each entry, the product of the other entries it is reduced with.

    The product of the entries before it times the product of those after it
    (exclusive cumulative products from both ends), so zeros need no special
    case and nothing is divided by ``x``, as in ChainRules.jl's ``∇prod``.
    """
    k = len(axes)
    moved = xp.moveaxis(x, axes, tuple(range(-k, 0)))
    lead, tail = tuple(moved.shape[: moved.ndim - k]), math.prod(moved.shape[moved.ndim - k :])
    flat = moved.reshape((*lead, tail)) if xp is np else xp.reshape(moved, (*lead, tail))  # no -1: empty
    if tail < 2:
        return xp.ones_like(x)
    ones = xp.ones_like(flat[..., :1])  # built without out=, so that an engine can follow x
    if xp is np:  # numpy's cumprod, which an engine following x answers
        before = np.cumprod(flat[..., :-1], axis=-1)
        after = np.flip(np.cumprod(np.flip(flat[..., 1:], -1), axis=-1), -1)
    else:
        before = xp.cumulative_prod(flat[..., :-1], axis=-1)
        after = xp.flip(xp.cumulative_prod(xp.flip(flat[..., 1:], axis=-1), axis=-1), axis=-1)
    both = xp.concat([ones, before], axis=-1) * xp.concat([after, ones], axis=-1)
    both = both.reshape(moved.shape) if xp is np else xp.reshape(both, tuple(moved.shape))
    return xp.moveaxis(both, tuple(range(-k, 0)), axes)


def _prod_partials(r: _Reduction, x: Any) -> Any:
    """d(out)/dx entry by entry; entries left out by ``where=`` (or NaNs, for nanprod) count as 1 and get 0."""
    xp = r.xp
    values = cast_to(x, r.dtype) if xp is np else x
    if r.masked:
        values = xp.where(r.where, values, np.ones((), dtype=r.dtype) if xp is np else 1.0)
    partials = _others_product(xp, values, r.axes)
    if is_given(r.initial):
        partials = partials * r.initial
    return r.mask(partials)


def _prod_cotangent(r: _Reduction, out_bar: Any) -> Any:
    return _conj(r.xp, _prod_partials(r, r.x)) * r.seed(out_bar)


def _prod_tangent(r: _Reduction, x_dot: Any) -> Any:
    return r.total(_prod_partials(r, r.x) * x_dot)


_register((np.prod, np.ndarray.prod), _REDUCE_ARGS, _Reduction, _prod_cotangent, _prod_tangent, _GENERIC)
_register((np.nanprod,), _REDUCE_ARGS, _NanReduction, _prod_cotangent, _prod_tangent, _GENERIC)


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
    The mask compares every entry with its slice's extremum, broadcast: no
    index is written.
    """
    xp = r.xp
    if xp is np:
        values = np.asarray(r.x)
        hit = values == extremum
        if values.dtype.kind in "fc":
            nan_extremum = np.isnan(extremum)
            if nan_extremum.any():  # the full-size NaN passes only where a slice's extremum is NaN
                hit |= np.isnan(values) & nan_extremum
        if r.masked:
            hit &= np.asarray(r.where, dtype=bool)
    else:  # no check of the values: NaN extrema are looked for everywhere
        hit = (r.x == extremum) | (xp.isnan(r.x) & xp.isnan(extremum))
        if r.masked:
            hit = hit & r.where
    count = r.hits(hit)
    if is_given(r.initial):
        count = count + (extremum == r.initial)
    return hit, (np.maximum(count, 1) if xp is np else xp.where(count > 0, count, 1.0))


def _extremum_scale(r: _Reduction, out_bar: Any, count: Any) -> Any:
    """The seed divided among the ties, in the kept shape (small: no full-size division)."""
    if r.xp is np:
        return (r.seed(out_bar) / count).astype(r.dtype, copy=False)
    return r.seed(out_bar) / r.xp.astype(count, r.dtype)


def _on_hits(r: _Reduction, hit: Any, values: Any) -> Any:
    """``values`` (broadcast) where ``hit``, 0 elsewhere: numpy multiplies by the mask, the standard selects (it has
    no arithmetic on booleans)."""
    return hit * values if r.xp is np else r.xp.where(hit, values, 0.0)


def _extremum_cotangent(r: _Reduction, out_bar: Any) -> Any:
    hit, count = _extremum_hits(r, r.xp.reshape(r.out, r.kept))
    return _on_hits(r, hit, _extremum_scale(r, out_bar, count))


def _extremum_tangent(r: _Reduction, x_dot: Any) -> Any:
    xp = r.xp
    hit, count = _extremum_hits(r, xp.reshape(r.out, r.kept))
    return r.laid_out(xp.sum(xp.where(hit, x_dot, 0), axis=r.axes, keepdims=True) / count)


_MAXIMA = (np.max, np.amax, np.min, np.amin, np.ndarray.max, np.ndarray.min)
_register(_MAXIMA, _REDUCE_ARGS, _Reduction, _extremum_cotangent, _extremum_tangent, _GENERIC)
_register((np.nanmax, np.nanmin), _EXTREMUM_ARGS, _NanReduction, _extremum_cotangent, _extremum_tangent, _GENERIC)


# ----- ptp: max - min, with the ties of each -----


class _Range(_Reduction):
    """``ptp``: the reduction and the entries at its maximum and at its minimum."""

    def __init__(self, x: Any, options: dict[str, Any], out: Any) -> None:
        super().__init__(x, options, out)
        xp = self.xp
        self.high = _extremum_hits(self, xp.max(x, axis=self.axes, keepdims=True))
        self.low = _extremum_hits(self, xp.min(x, axis=self.axes, keepdims=True))


def _ptp_cotangent(r: _Range, out_bar: Any) -> Any:
    (high, n_high), (low, n_low) = r.high, r.low
    return _on_hits(r, high, _extremum_scale(r, out_bar, n_high)) - _on_hits(r, low, _extremum_scale(r, out_bar, n_low))


def _ptp_tangent(r: _Range, x_dot: Any) -> Any:
    xp = r.xp
    (high, n_high), (low, n_low) = r.high, r.low
    spread = xp.sum(xp.where(high, x_dot, 0), axis=r.axes, keepdims=True) / n_high
    spread = spread - xp.sum(xp.where(low, x_dot, 0), axis=r.axes, keepdims=True) / n_low
    return r.laid_out(spread)


_register((np.ptp,), _PTP_ARGS, _Range, _ptp_cotangent, _ptp_tangent, _GENERIC)


# ----- trace -----


def _trace_adjoint(
    out_bar: Any, x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: Any = None
) -> Any:
    if not is_foreign_array(out_bar):
        return diagonal_adjoint(np.asarray(out_bar)[..., None], np.shape(x), cotangent_dtype(x), offset, axis1, axis2)
    # another library: the seed where the column is the row plus offset (the standard has no index writes)
    xp = namespace_of(out_bar)
    shape = tuple(x.shape)
    ndim = len(shape)
    axis1, axis2 = axis1 % ndim, axis2 % ndim
    rest = tuple(i for i in range(ndim) if i not in (axis1, axis2))
    device = device_of(x)
    rows = xp.arange(shape[axis1], device=device)[:, None]
    cols = xp.arange(shape[axis2], device=device)[None, :]
    seed = seed_as(out_bar, x.dtype, x)[..., None, None]
    moved = xp.where(cols - rows == offset, seed, xp.zeros((), dtype=x.dtype, device=device))
    order = (*rest, axis1, axis2)
    return xp.permute_dims(moved, tuple(order.index(i) for i in range(ndim)))


def _trace_applies(x: Any, *args: Any, **kwargs: Any) -> bool:
    return not is_given(bind_options(("offset", "axis1", "axis2", "dtype", "out"), args, kwargs).get("out"))


linear_in_first_rule(np.trace, _trace_adjoint, applies=_trace_applies, generic=True)  # dask computes np.trace itself
linear_in_first_rule(np.ndarray.trace, _trace_adjoint, applies=_trace_applies)

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


def _frule_linear_reduction(rule: Any, tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    """sum and mean of a float64 array over all axes or one, with a tangent of its shape and dtype: the same
    reduction of the tangent, as the rule computes it (they are linear); other calls the rule's."""
    x_dot = tangents[1] if len(tangents) == len(args) + 2 else None
    if (
        type(x_dot) is not np.ndarray
        or type(x) is not np.ndarray
        or x.dtype != np.float64
        or x_dot.dtype != np.float64
        or x_dot.shape != x.shape
        or not x.size
        or plain_axis(args, kwargs) is OTHER_OPTIONS
    ):
        return rule(tangents, f, x, *args, **kwargs)
    return f(x, *args, **kwargs), f(x_dot, *args, **kwargs)


for _f in (np.sum, np.ndarray.sum, np.mean, np.ndarray.mean):
    frule.fast_path(_f)(named_after(_f, _frule_linear_reduction))
