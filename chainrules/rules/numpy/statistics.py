"""Statistics: var and std (their ``ndarray`` methods, nanvar and nanstd) and average.

``var = sum(|x - mean|²) / (N - ddof)`` over the reduced axes, so
``d var = 2 Re(conj(x - mean) dx) / (N - ddof)`` (the mean's own variation
cancels because the deviations sum to zero) and the pullback is
``2 (x - mean) var_bar / (N - ddof)``; complex inputs give a real output.
``std = sqrt(var)`` divides that by ``2 std``; where ``std == 0`` the
derivative does not exist and the rules give 0, as PyTorch does. ``N <= ddof``
gives inf or nan, with numpy's warnings, as the primal does.

``nanvar`` and ``nanstd`` are the same rules over the entries that are not
NaN (those get a zero cotangent). Where a slice has no more than ``ddof``
such entries numpy warns and returns nan; the rules give those slices a zero
cotangent.

``ddof`` and ``correction`` are integers without tangents. ``out=``,
``where=`` and ``mean=`` get no rule (``None``).

``average(a, axis, weights, returned)``: ``sum(a w) / sum(w)``, so
``d avg = sum(w da + (a - avg) dw) / sum(w)``; with ``returned=True`` the
second output ``sum(w)`` has the tangent ``sum(dw)``. Weights passed by
keyword are constants, like every keyword argument.

``bincount(x, weights, minlength)``: ``out[k] = sum of weights[i] where
x[i] == k``, linear in the weights, so the tangent is ``bincount(x,
weights_dot)`` and the weights' cotangent is ``seed[x]`` (each weight gets
the seed of its bin). ``x`` holds integers (no tangent). Without weights
the counts are integers: no tangent; weights by keyword are constants.
numpy refuses complex weights, and returns float64 counts for any weights.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    Tangent,
    ZeroTangent,
    checked_seed,
    checked_tangent,
    frule,
    is_followed,
    rrule,
    sum_to_shape,
    value_shape,
)
from chainrules_core.array_api import call_in, dtype_in
from chainrules_core.arrays import (
    broadcast_like,
    device_of,
    has_unknown_shape,
    is_complex_dtype,
    is_foreign_array,
    namespace_of,
    real_dtype,
    real_part,
    refusal,
    zeros_like,
)

from .._arrays import (
    bind_options,
    cast_to,
    dtype_of_value,
    instantiate_zeros,
    is_given,
    kept_shape,
    reduced_axes,
    tuple_entries,
)
from .._makers import rule_in_first
from ._reducing import nan_mask, seed_as

_ARGS = ("axis", "dtype", "out", "ddof", "keepdims")


def _shape(f: Any, x: Any) -> tuple[int, ...]:
    """``x``'s shape; a dask array's unknown lengths refused (the rules need them)."""
    if not is_foreign_array(x):
        return np.shape(x)
    if has_unknown_shape(x):
        raise refusal(f, x, "its rule needs the input's shape, which dask has not computed")
    return tuple(x.shape)


def _conj(xp: Any, a: Any) -> Any:
    """The complex conjugate, ``a`` itself when real (the standard's ``conj`` wants complex input)."""
    if xp is np:
        return np.conjugate(a)
    return xp.conj(a) if is_complex_dtype(xp, a.dtype) else a


class _Spread:
    """One call of var or std: the deviations from the mean and the divisor ``N - ddof``.

    ``xp`` is the input's namespace: numpy, or another library's (the standard's functions). There the divisor
    is a 0-d array of the input's real dtype, and the NaN mask of nanvar is computed whatever the input holds.
    """

    is_std = False
    skips_nan = False

    def __init__(self, x: Any, options: dict[str, Any], out: Any) -> None:
        self.x = x
        self.xp = xp = namespace_of(x)
        shape = _shape(options["f"], x)
        self.axes = reduced_axes(options["axis"], len(shape))
        self.kept = kept_shape(shape, self.axes)
        self.keepdims = bool(options["keepdims"])
        self.precision = None  # dtype=: the deviations in the output's precision, as the primal computes them
        if options["dtype"] is not None:
            dtype = dtype_in(xp, options["dtype"])
            self.precision = np.result_type(dtype_of_value(x), dtype) if xp is np else xp.result_type(x.dtype, dtype)
        ddof = options["correction"] if is_given(options.get("correction")) else options["ddof"]
        self.valid = nan_mask(x) if self.skips_nan else None
        if self.valid is None:
            n = max(math.prod(shape[a] for a in self.axes) - ddof, 0)  # numpy clips the degrees of freedom at 0
            if xp is np:
                self.divisor: Any = np.float64(n)
            else:
                self.divisor = xp.asarray(float(n), dtype=real_dtype(xp, out.dtype), device=device_of(x))  # dtype='s
        else:
            self.divisor = self.count() - ddof
        self.out_shape = np.shape(out) if xp is np else tuple(out.shape)
        self.out = xp.reshape(out, self.kept)

    def count(self) -> Any:
        """How many entries are not NaN in each slice, in the kept shape."""
        xp = self.xp
        if xp is np:
            return np.sum(self.valid, axis=self.axes, keepdims=True)
        return xp.sum(xp.astype(self.valid, real_dtype(xp, self.x.dtype)), axis=self.axes, keepdims=True)

    def deviation(self) -> Any:
        xp = self.xp
        values = np.asarray(self.x) if xp is np and not is_followed(self.x) else self.x
        dtype = dtype_of_value(values) if xp is np else values.dtype
        if self.precision is not None and dtype != self.precision:
            # cast_to: an engine's value (a nested pass) answers numpy's cast itself
            values = cast_to(values, self.precision) if xp is np else xp.astype(values, self.precision)
        if self.valid is None:
            return values - xp.mean(values, axis=self.axes, keepdims=True)
        zero = np.zeros((), dtype=values.dtype) if xp is np else 0.0
        count = self.count()
        count = np.maximum(count, 1) if xp is np else xp.where(count > 0, count, 1.0)
        mean = xp.sum(xp.where(self.valid, values, zero), axis=self.axes, keepdims=True) / count
        return xp.where(self.valid, values - mean, zero)

    def scale(self) -> Any:
        """d(out)/d(var) times 2 / (N - ddof): the factor in front of the deviations."""
        xp = self.xp
        divisor = self.divisor
        if self.valid is not None:  # numpy's nan where N <= ddof: no derivative, a zero cotangent
            divisor = xp.where(divisor > 0, divisor, math.inf)
        if not self.is_std:
            return 2 / divisor
        std = xp.where(xp.isfinite(divisor), self.out, 0)
        safe = xp.where(std == 0, 1, std)
        return xp.where(std == 0, 0, 1 / (divisor * safe))


class _Deviation(_Spread):
    is_std = True


class _NanSpread(_Spread):
    skips_nan = True


class _NanDeviation(_Deviation):
    skips_nan = True


def _options(f: Any) -> Any:
    def options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
        options = bind_options(_ARGS, args, kwargs, axis=None, dtype=None, out=None, ddof=0, keepdims=False, f=f)
        refused = is_given(options["out"]) or is_given(options.get("mean")) or options.get("where", True) is not True
        return None if refused else options

    return options


def _spread_cotangent(s: _Spread, out_bar: Any) -> Any:
    deviation = s.deviation()
    xp = s.xp
    if xp is np:
        return deviation * (np.reshape(np.real(out_bar), s.kept) * s.scale()).astype(deviation.dtype, copy=False)
    seed = xp.reshape(seed_as(out_bar, real_dtype(xp, s.x.dtype), s.x), s.kept)
    return deviation * xp.astype(seed * s.scale(), deviation.dtype)


def _spread_pushforward(s: _Spread, x_dot: Any) -> Any:
    xp = s.xp
    inner = real_part(xp, _conj(xp, s.deviation()) * x_dot)
    total = xp.sum(inner, axis=s.axes, keepdims=True) * s.scale()
    return total if s.keepdims else xp.reshape(total, s.out_shape)


for _fs, _prepare in (
    ((np.var, np.ndarray.var), _Spread),
    ((np.std, np.ndarray.std), _Deviation),
    ((np.nanvar,), _NanSpread),
    ((np.nanstd,), _NanDeviation),
):
    for _f in _fs:
        rule_in_first(
            _f,
            parse=_options(_f),
            prepare=_prepare,
            cotangent=_spread_cotangent,
            tangent=_spread_pushforward,
            generic=not isinstance(_f, type(np.ndarray.var)),  # var and std: the standard's; nanvar, nanstd: dask's
        )


# ----- average -----

_AVERAGE_ARGS = ("axis", "weights", "returned")


class _Average:
    """One call of ``average``: the axes, and the weights laid out to broadcast against ``a`` as numpy does.

    ``xp`` is the namespace of ``a`` (numpy, or dask's, which computes ``np.average`` itself); weights given by
    keyword as a numpy array become arrays of ``a``'s library.
    """

    def __init__(self, f: Any, a: Any, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
        options = bind_options(_AVERAGE_ARGS, args, kwargs, axis=None, weights=None, returned=False)
        self.xp = xp = namespace_of(a)
        self.a = np.asarray(a) if xp is np else a
        self.shape = _shape(f, self.a)
        ndim = len(self.shape)
        self.axes = reduced_axes(options["axis"], ndim)
        self.kept = kept_shape(self.shape, self.axes)
        self.returned = bool(options["returned"])
        avg = out[0] if self.returned else out
        self.avg_shape = np.shape(avg) if xp is np else tuple(avg.shape)
        self.avg = xp.reshape(avg, self.kept)
        w = options["weights"]
        self.w = None if w is None else np.asarray(w) if xp is np else xp.asarray(w, device=device_of(a))
        self.perm = None
        if self.w is None:
            self.w_total: Any = math.prod(self.shape[i] for i in self.axes)
            return
        if tuple(self.w.shape) != self.shape:  # weights along the axes, their own axes in the order ``axis`` lists
            given = options["axis"] if isinstance(options["axis"], (tuple, list)) else (options["axis"],)
            order = [int(i) % ndim for i in given]
            self.perm = tuple(sorted(range(len(order)), key=order.__getitem__))
        self.w_laid = self.laid_out(self.w)
        self.w_total = xp.sum(self.w_laid, axis=self.axes, keepdims=True)

    def laid_out(self, w: Any) -> Any:
        """Weights (or a tangent of them) as numpy broadcasts them against ``a``."""
        if self.perm is None:
            return w
        shape = tuple(n if i in self.axes else 1 for i, n in enumerate(self.shape))
        return self.xp.reshape(self.xp.permute_dims(w, self.perm), shape)

    def weights_back(self, w_bar: Any) -> Any:
        """A cotangent of the laid-out weights, summed and moved back to the weights' own layout."""
        xp = self.xp
        w_bar = sum_to_shape(w_bar, tuple(self.w_laid.shape))
        if self.perm is None:
            return w_bar
        moved = xp.reshape(w_bar, tuple(self.w.shape[i] for i in self.perm))
        return xp.permute_dims(moved, tuple(self.perm.index(i) for i in range(len(self.perm))))

    def a_cotangent(self, avg_bar: Any) -> Any:
        xp = self.xp
        g = xp.reshape(avg_bar, self.kept)
        if self.w is None:
            share: Any = 1 / self.w_total if self.w_total else 0.0
        else:
            share = _conj(xp, self.w_laid / self.w_total)
        return broadcast_like(xp, share * g, self.a)

    def w_cotangent(self, avg_bar: Any, total_bar: Any) -> Any:
        xp = self.xp
        w_bar: Any = 0
        if not isinstance(avg_bar, AbstractZero):
            w_bar = _conj(xp, (self.a - self.avg) / self.w_total) * xp.reshape(avg_bar, self.kept)
        if not isinstance(total_bar, AbstractZero):
            w_bar = w_bar + xp.reshape(total_bar, self.kept)
        shape = np.broadcast_shapes(tuple(np.shape(w_bar) if xp is np else w_bar.shape), tuple(self.w_laid.shape))
        return self.weights_back(xp.broadcast_to(w_bar, shape))

    def pushforward(self, a_dot: Any, w_dot: Any) -> tuple[Any, Any]:
        """The tangents of the average and of the sum of the weights (``w_dot`` None: constant weights)."""
        xp = self.xp
        if self.w is None:
            return xp.mean(a_dot, axis=self.axes, keepdims=True), 0.0
        # the shares w / sum(w) first, as the pullback takes them: w * a_dot / sum(w) underflows for w of 1e-300
        weighted = self.w_laid / self.w_total * a_dot
        if w_dot is None:
            return xp.sum(weighted, axis=self.axes, keepdims=True), 0.0
        w_dot = xp.broadcast_to(self.laid_out(w_dot), tuple(self.w_laid.shape))
        weighted = weighted + (self.a - self.avg) / self.w_total * w_dot
        return xp.sum(weighted, axis=self.axes, keepdims=True), xp.sum(w_dot, axis=self.axes, keepdims=True)


def _weights_position(args: tuple[Any, ...]) -> bool:
    """Whether the weights came positionally (differentiable) rather than by keyword (a constant)."""
    return len(args) > 1 and args[1] is not None


def _average(f: Any, a: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``np.average``'s output: numpy's call, or the library's own (dask's) through ``call_in``."""
    if not is_foreign_array(a):
        return f(a, *args, **kwargs)
    xp = namespace_of(a, *args)
    out = call_in(xp, f, a, *args, **kwargs)
    if not isinstance(out, tuple) or is_foreign_array(out[1]):
        return out
    avg, total = out  # dask gives the count of an unweighted average as a numpy number: an array of a's library
    total = xp.asarray(total, dtype=avg.dtype, device=device_of(a))
    return avg, xp.broadcast_to(total, tuple(avg.shape))


def _explicit(t: Any, x: Any) -> Any:
    """A tangent with its zeros made arrays of ``x``'s library (``instantiate_zeros``, for numpy's)."""
    if is_foreign_array(x) and isinstance(t, AbstractZero):
        return zeros_like(x, tuple(x.shape))
    return instantiate_zeros(t, x)


@rrule.register(np.average, generic=True)  # dask computes np.average itself
def _rrule_average(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    out = _average(f, a, args, kwargs)
    call = _Average(f, a, args, kwargs, out)
    project_a = ProjectTo(a)
    project_w = ProjectTo(args[1]) if _weights_position(args) else None
    shapes = (value_shape(out[0]), value_shape(out[1])) if call.returned else (value_shape(out),)

    def average_pullback(out_bar: Any) -> tuple[Any, ...]:
        if call.returned:
            avg_bar, total_bar = tuple_entries(out_bar, 2)
            avg_bar, total_bar = checked_seed(f, avg_bar, shapes[0]), checked_seed(f, total_bar, shapes[1])
        else:
            avg_bar, total_bar = checked_seed(f, out_bar, shapes[0]), ZeroTangent()
        bars: list[Any] = [NoTangent()] * len(args)
        a_bar = project_a(ZeroTangent())
        if not isinstance(avg_bar, AbstractZero):
            a_bar = project_a(call.a_cotangent(avg_bar))
        if project_w is not None:
            bars[1] = project_w(call.w_cotangent(avg_bar, total_bar))
        return (NoTangent(), a_bar, *bars)

    return out, average_pullback


@frule.register(np.average, generic=True)
def _frule_average(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    out = _average(f, a, args, kwargs)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    w_dot = checked_tangent(f, tangents[3], args[1], 3) if _weights_position(args) else None
    call = _Average(f, a, args, kwargs, out)
    xp = call.xp
    a_dot = _explicit(a_dot, call.a)
    w_dot = None if w_dot is None else _explicit(w_dot, call.w)
    avg_dot, total_dot = call.pushforward(a_dot, w_dot)
    project_out = ProjectTo(out)
    if not call.returned:
        return out, project_out(xp.reshape(avg_dot, call.avg_shape))
    total_dot = xp.reshape(xp.broadcast_to(xp.asarray(total_dot), call.kept), call.avg_shape)
    return out, project_out(Tangent(tuple, xp.reshape(avg_dot, call.avg_shape), total_dot))


# ----- bincount: linear in the weights -----


def _bincount_weights(args: tuple[Any, ...]) -> Any:
    """The weights when passed positionally (``bincount(x, weights)``), else ``None``: a keyword is a constant."""
    return args[0] if args and args[0] is not None else None


@rrule.register(np.bincount)
def _rrule_bincount(f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(x, *args, **kwargs)
    weights = _bincount_weights(args)
    project_weights = ProjectTo(weights) if weights is not None else None
    indices, shape = np.asarray(x), value_shape(out)

    def bincount_pullback(out_bar: Any) -> tuple[Any, ...]:
        bars: list[Any] = [NoTangent()] * len(args)
        if project_weights is not None:
            out_bar = checked_seed(f, out_bar, shape)
            bars[0] = project_weights(out_bar if isinstance(out_bar, AbstractZero) else out_bar[indices])
        return (NoTangent(), NoTangent(), *bars)

    return out, bincount_pullback


@frule.register(np.bincount)
def _frule_bincount(tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(x, *args, **kwargs)
    project_out = ProjectTo(out)
    weights = _bincount_weights(args)
    w_dot = ZeroTangent() if weights is None else checked_tangent(f, tangents[2], weights, 2)
    if project_out.is_no_tangent:  # no weights, or numpy's integer zeros for an empty x
        return out, NoTangent()
    if isinstance(w_dot, AbstractZero):
        return out, project_out(w_dot)
    return out, project_out(np.bincount(x, np.real(w_dot), minlength=np.size(out)))
