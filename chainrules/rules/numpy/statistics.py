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
    rrule,
    sum_to_shape,
    value_shape,
)

from .._arrays import bind_options, instantiate_zeros, is_given, kept_shape, reduced_axes, tuple_entries
from .._makers import rule_in_first
from ._reducing import nan_mask

_ARGS = ("axis", "dtype", "out", "ddof", "keepdims")


class _Spread:
    """One call of var or std: the deviations from the mean and the divisor ``N - ddof``."""

    is_std = False
    skips_nan = False

    def __init__(self, x: Any, options: dict[str, Any], out: Any) -> None:
        self.x = x
        shape = np.shape(x)
        self.axes = reduced_axes(options["axis"], len(shape))
        self.kept = kept_shape(shape, self.axes)
        self.keepdims = bool(options["keepdims"])
        ddof = options["correction"] if is_given(options.get("correction")) else options["ddof"]
        self.valid = nan_mask(x) if self.skips_nan else None
        if self.valid is None:
            n = math.prod(shape[a] for a in self.axes)
            self.divisor: Any = np.float64(max(n - ddof, 0))  # numpy clips the degrees of freedom at 0
        else:
            self.divisor = np.sum(self.valid, axis=self.axes, keepdims=True) - ddof
        self.out_shape = np.shape(out)
        self.out = np.reshape(out, self.kept)

    def deviation(self) -> Any:
        values = np.asarray(self.x)
        if self.valid is None:
            return values - np.mean(values, axis=self.axes, keepdims=True)
        zero = np.zeros((), dtype=values.dtype)
        count = np.sum(self.valid, axis=self.axes, keepdims=True)
        mean = np.sum(np.where(self.valid, values, zero), axis=self.axes, keepdims=True) / np.maximum(count, 1)
        return np.where(self.valid, values - mean, zero)

    def scale(self) -> Any:
        """d(out)/d(var) times 2 / (N - ddof): the factor in front of the deviations."""
        divisor = self.divisor
        if self.valid is not None:  # numpy's nan where N <= ddof: no derivative, a zero cotangent
            divisor = np.where(divisor > 0, divisor, np.inf)
        if not self.is_std:
            return 2 / divisor
        std = np.where(np.isfinite(divisor), self.out, 0)
        safe = np.where(std == 0, 1, std)
        return np.where(std == 0, 0, 1 / (divisor * safe))


class _Deviation(_Spread):
    is_std = True


class _NanSpread(_Spread):
    skips_nan = True


class _NanDeviation(_Deviation):
    skips_nan = True


def _options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    options = bind_options(_ARGS, args, kwargs, axis=None, dtype=None, out=None, ddof=0, keepdims=False)
    refused = is_given(options["out"]) or is_given(options.get("mean")) or options.get("where", True) is not True
    return None if refused else options


def _spread_cotangent(s: _Spread, out_bar: Any) -> Any:
    deviation = s.deviation()
    return deviation * (np.reshape(np.real(out_bar), s.kept) * s.scale()).astype(deviation.dtype, copy=False)


def _spread_pushforward(s: _Spread, x_dot: Any) -> Any:
    inner = np.real(np.conjugate(s.deviation()) * x_dot)
    total = np.sum(inner, axis=s.axes, keepdims=True) * s.scale()
    return total if s.keepdims else total.reshape(s.out_shape)


for _fs, _prepare in (
    ((np.var, np.ndarray.var), _Spread),
    ((np.std, np.ndarray.std), _Deviation),
    ((np.nanvar,), _NanSpread),
    ((np.nanstd,), _NanDeviation),
):
    for _f in _fs:
        rule_in_first(_f, parse=_options, prepare=_prepare, cotangent=_spread_cotangent, tangent=_spread_pushforward)


# ----- average -----

_AVERAGE_ARGS = ("axis", "weights", "returned")


class _Average:
    """One call of ``average``: the axes, and the weights laid out to broadcast against ``a`` as numpy does."""

    def __init__(self, a: Any, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
        options = bind_options(_AVERAGE_ARGS, args, kwargs, axis=None, weights=None, returned=False)
        self.a = np.asarray(a)
        self.shape = self.a.shape
        self.axes = reduced_axes(options["axis"], self.a.ndim)
        self.kept = kept_shape(self.shape, self.axes)
        self.returned = bool(options["returned"])
        avg = out[0] if self.returned else out
        self.avg_shape = np.shape(avg)
        self.avg = np.reshape(avg, self.kept)
        self.w = None if options["weights"] is None else np.asarray(options["weights"])
        self.perm = None
        if self.w is None:
            self.w_total: Any = math.prod(self.shape[i] for i in self.axes)
            return
        if self.w.shape != self.shape:  # weights along the axes, their own axes in the order ``axis`` lists
            given = options["axis"] if isinstance(options["axis"], (tuple, list)) else (options["axis"],)
            self.perm = np.argsort([int(i) % self.a.ndim for i in given])
        self.w_laid = self.laid_out(self.w)
        self.w_total = np.sum(self.w_laid, axis=self.axes, keepdims=True)

    def laid_out(self, w: Any) -> Any:
        """Weights (or a tangent of them) as numpy broadcasts them against ``a``."""
        if self.perm is None:
            return w
        shape = tuple(n if i in self.axes else 1 for i, n in enumerate(self.shape))
        return np.reshape(np.transpose(w, self.perm), shape)

    def weights_back(self, w_bar: Any) -> Any:
        """A cotangent of the laid-out weights, summed and moved back to the weights' own layout."""
        w_bar = sum_to_shape(w_bar, np.shape(self.w_laid))
        if self.perm is None:
            return w_bar
        moved = np.reshape(w_bar, tuple(self.w.shape[i] for i in self.perm))
        return np.transpose(moved, np.argsort(self.perm))

    def a_cotangent(self, avg_bar: Any) -> Any:
        g = np.reshape(avg_bar, self.kept)
        share = (
            (1 / self.w_total if self.w_total else 0.0) if self.w is None else np.conjugate(self.w_laid / self.w_total)
        )
        return np.broadcast_to(share * g, self.shape)

    def w_cotangent(self, avg_bar: Any, total_bar: Any) -> Any:
        w_bar: Any = 0
        if not isinstance(avg_bar, AbstractZero):
            w_bar = np.conjugate((self.a - self.avg) / self.w_total) * np.reshape(avg_bar, self.kept)
        if not isinstance(total_bar, AbstractZero):
            w_bar = w_bar + np.reshape(total_bar, self.kept)
        return self.weights_back(np.broadcast_to(w_bar, np.broadcast_shapes(np.shape(w_bar), self.w_laid.shape)))

    def pushforward(self, a_dot: Any, w_dot: Any) -> tuple[Any, Any]:
        """The tangents of the average and of the sum of the weights (``w_dot`` None: constant weights)."""
        if self.w is None:
            return np.mean(a_dot, axis=self.axes, keepdims=True), 0.0
        # the shares w / sum(w) first, as the pullback takes them: w * a_dot / sum(w) underflows for w of 1e-300
        weighted = self.w_laid / self.w_total * a_dot
        if w_dot is None:
            return np.sum(weighted, axis=self.axes, keepdims=True), 0.0
        w_dot = np.broadcast_to(self.laid_out(w_dot), self.w_laid.shape)
        weighted = weighted + (self.a - self.avg) / self.w_total * w_dot
        return np.sum(weighted, axis=self.axes, keepdims=True), np.sum(w_dot, self.axes, keepdims=True)


def _weights_position(args: tuple[Any, ...]) -> bool:
    """Whether the weights came positionally (differentiable) rather than by keyword (a constant)."""
    return len(args) > 1 and args[1] is not None


@rrule.register(np.average)
def _rrule_average(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(a, *args, **kwargs)
    call = _Average(a, args, kwargs, out)
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


@frule.register(np.average)
def _frule_average(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(a, *args, **kwargs)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    w_dot = checked_tangent(f, tangents[3], args[1], 3) if _weights_position(args) else None
    call = _Average(a, args, kwargs, out)
    a_dot = instantiate_zeros(a_dot, call.a)
    w_dot = None if w_dot is None else instantiate_zeros(w_dot, call.w)
    avg_dot, total_dot = call.pushforward(a_dot, w_dot)
    project_out = ProjectTo(out)
    if not call.returned:
        return out, project_out(np.reshape(avg_dot, call.avg_shape))
    total_dot = np.broadcast_to(total_dot, call.kept).reshape(call.avg_shape)
    return out, project_out(Tangent(tuple, np.reshape(avg_dot, call.avg_shape), total_dot))
