"""Reductions: sum, prod, mean, max/amax, min/amin, trace, and their ``ndarray`` methods.

Every rule takes the arguments of the numpy function, positional or by
name. ``axis`` may be None, an int, a negative int or a tuple; ``keepdims``
either way; ``dtype=`` casts the cotangent back to the input's dtype.
``out=`` gets no rule (``None``): the primal would write into a buffer the
caller owns, which an engine must treat as a mutation. ``where=`` and
``initial=`` are handled: masked entries get a zero cotangent, ``initial``
none (it is a constant).

The seed of a reduction is reshaped so that it broadcasts against the input,
and the cotangent of ``sum`` and ``mean`` is a read-only broadcast view of it:
no full-size array is allocated.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from chainrules_core import non_differentiable

from ._arrays import bind_options, cast_to, diagonal_adjoint, is_given, kept_shape, real_dtype_of, reduced_axes
from ._makers import linear_in_first_rule, rule_in_first

_REDUCE_ARGS = ("axis", "dtype", "out", "keepdims", "initial", "where")
_MEAN_ARGS = ("axis", "dtype", "out", "keepdims")
_DEFAULTS = {"axis": None, "dtype": None, "out": None, "keepdims": False, "initial": None, "where": True}


class _Reduction:
    """What a reduction's rules need to know about one call: the input, the axes and the options."""

    def __init__(self, x: Any, options: dict[str, Any], out: Any) -> None:
        self.x = x
        self.out = out
        self.out_dtype = options["dtype"]
        self.shape = np.shape(x)
        self.dtype = real_dtype_of(x)
        self.axes = reduced_axes(options["axis"], len(self.shape))
        self.kept = kept_shape(self.shape, self.axes)
        self.keepdims = bool(options["keepdims"])
        self.where = options["where"]
        self.initial = options["initial"]
        self.masked = self.where is not True
        self.size = math.prod(self.shape[a] for a in self.axes)

    def seed(self, out_bar: Any) -> np.ndarray[Any, Any]:
        """The seed in the input's dtype, shaped to broadcast against the input (no copy)."""
        assert self.dtype is not None
        return cast_to(out_bar, self.dtype).reshape(self.kept)

    def mask(self, x_bar: Any) -> Any:
        """``x_bar`` with the entries that ``where=`` leaves out set to zero."""
        if not self.masked:
            return x_bar
        return np.where(self.where, x_bar, np.zeros((), dtype=x_bar.dtype))

    def count(self) -> Any:
        """How many entries each output reduces: a number, or an array when ``where=`` masks."""
        if not self.masked:
            return self.size
        mask = np.broadcast_to(self.where, self.shape)
        return np.sum(mask, axis=self.axes, keepdims=True)

    def total(self, values: Any) -> Any:
        """``values`` summed over the reduced axes, as the primal lays its output out."""
        return np.sum(values, axis=self.axes, keepdims=self.keepdims, dtype=self.out_dtype)


def _options(names: tuple[str, ...]) -> Any:
    """The option parser for a reduction with these positional names; ``None`` for ``out=`` (refused)."""

    def options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
        found = bind_options(names, args, kwargs, **_DEFAULTS)
        return None if is_given(found["out"]) else found

    return options


# ----- sum and mean: linear -----


def _sum_cotangent(r: _Reduction, out_bar: Any) -> Any:
    return r.mask(np.broadcast_to(r.seed(out_bar), r.shape))


def _mean_cotangent(r: _Reduction, out_bar: Any) -> Any:
    seed, count = r.seed(out_bar), r.count()
    if 0 in r.shape:
        return np.zeros(r.shape, dtype=seed.dtype)
    if r.masked:  # rows that where= empties give nan in the primal and nothing here
        seed = np.divide(
            seed, count, out=np.zeros(np.broadcast_shapes(seed.shape, count.shape), seed.dtype), where=count > 0
        )
    else:
        seed = seed / count
    return r.mask(np.broadcast_to(seed, r.shape))


def _linear_pushforward(push: Any) -> Any:
    def pushforward(r: _Reduction, x_dot: Any) -> Any:
        where = {} if r.where is True else {"where": r.where}
        return push(x_dot, axis=r.axes, dtype=r.out_dtype, keepdims=r.keepdims, **where)

    return pushforward


for _f in (np.sum, np.ndarray.sum):
    rule_in_first(
        _f,
        parse=_options(_REDUCE_ARGS),
        prepare=_Reduction,
        pullback=_sum_cotangent,
        pushforward=_linear_pushforward(np.sum),
    )
for _f in (np.mean, np.ndarray.mean):
    rule_in_first(
        _f,
        parse=_options(_MEAN_ARGS),
        prepare=_Reduction,
        pullback=_mean_cotangent,
        pushforward=_linear_pushforward(np.mean),
    )


# ----- prod: exact with zeros -----


def _others_product(x: np.ndarray[Any, Any], axes: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """For each entry, the product of the other entries it is reduced with.

    The product of the entries before it times the product of those after it
    (exclusive cumulative products from both ends), so zeros need no special
    case and nothing is divided by ``x``, as in ChainRules.jl's ``∇prod``.
    """
    k = len(axes)
    moved = np.moveaxis(x, axes, tuple(range(-k, 0)))
    flat = moved.reshape((*moved.shape[: moved.ndim - k], -1))
    before = np.ones_like(flat)
    after = np.ones_like(flat)
    np.cumprod(flat[..., :-1], axis=-1, out=before[..., 1:])
    np.cumprod(flat[..., :0:-1], axis=-1, out=after[..., -2::-1])
    before *= after
    return np.moveaxis(before.reshape(moved.shape), tuple(range(-k, 0)), axes)


def _prod_partials(r: _Reduction, x: Any) -> np.ndarray[Any, Any]:
    """d(out)/dx entry by entry; entries left out by ``where=`` count as 1 and get 0."""
    values = np.asarray(x, dtype=r.dtype)
    if r.masked:
        values = np.where(r.where, values, np.ones((), dtype=r.dtype))
    partials = _others_product(values, r.axes)
    if is_given(r.initial):
        partials *= r.initial
    return r.mask(partials)


def _prod_cotangent(r: _Reduction, out_bar: Any) -> Any:
    return np.conjugate(_prod_partials(r, r.x)) * r.seed(out_bar)


def _prod_pushforward(r: _Reduction, x_dot: Any) -> Any:
    return r.total(_prod_partials(r, r.x) * x_dot)


for _f in (np.prod, np.ndarray.prod):
    rule_in_first(
        _f, parse=_options(_REDUCE_ARGS), prepare=_Reduction, pullback=_prod_cotangent, pushforward=_prod_pushforward
    )


# ----- max and min: ties split evenly -----


def _extremum_weights(r: _Reduction) -> np.ndarray[Any, Any]:
    """1/k on each of the k entries equal to the extremum, 0 elsewhere.

    Ties split evenly, as autograd and PyTorch's full reductions do
    (ChainRules.jl gives all to one index). For two ties this is what a
    central difference sees; for k > 2 the central difference is the mean of
    the largest and smallest tied directions, which is not linear, and 1/k
    each is the symmetric subgradient. A NaN extremum goes to the NaN
    entries. An ``initial`` equal to the extremum counts as one of the ties.
    """
    values = np.asarray(r.x)
    extremum = np.reshape(r.out, r.kept)
    hit = values == extremum
    if values.dtype.kind in "fc":
        hit |= np.isnan(values) & np.isnan(extremum)
    if r.masked:
        hit &= np.asarray(r.where, dtype=bool)
    count = np.sum(hit, axis=r.axes, keepdims=True)
    if is_given(r.initial):
        count = count + (extremum == r.initial)
    assert r.dtype is not None
    return np.divide(hit, np.maximum(count, 1), dtype=r.dtype)


def _extremum_cotangent(r: _Reduction, out_bar: Any) -> Any:
    return _extremum_weights(r) * r.seed(out_bar)


def _extremum_pushforward(r: _Reduction, x_dot: Any) -> Any:
    return r.total(_extremum_weights(r) * x_dot)


for _f in (np.max, np.amax, np.min, np.amin, np.ndarray.max, np.ndarray.min):
    rule_in_first(
        _f,
        parse=_options(_REDUCE_ARGS),
        prepare=_Reduction,
        pullback=_extremum_cotangent,
        pushforward=_extremum_pushforward,
    )


# ----- trace -----


def _trace_adjoint(
    out_bar: Any, x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: Any = None
) -> Any:
    x_dtype = real_dtype_of(x)
    assert x_dtype is not None
    return diagonal_adjoint(np.asarray(out_bar)[..., None], np.shape(x), x_dtype, offset, axis1, axis2)


def _trace_applies(x: Any, *args: Any, **kwargs: Any) -> bool:
    return not is_given(bind_options(("offset", "axis1", "axis2", "dtype", "out"), args, kwargs).get("out"))


for _f in (np.trace, np.ndarray.trace):
    linear_in_first_rule(_f, _trace_adjoint, applies=_trace_applies)

non_differentiable(np.count_nonzero)
