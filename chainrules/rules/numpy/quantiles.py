"""Order statistics: median, percentile, quantile and their NaN-skipping forms.

For a fixed order of the data every ``method=`` of numpy's quantile is
``(1 - g) x_(j) + g x_(j+1)``, two order statistics (the values sorted along
the reduced axes) with ``j`` and ``g`` depending on the number of values
``n`` and on ``q`` only: the sample quantiles of Hyndman and Fan (1996),
"Sample quantiles in statistical packages", which numpy implements. The
derivative in ``x`` hands the seed to those two entries with the weights
``1 - g`` and ``g``. The rules take ``j + g`` from numpy itself: the method
applied to the ranks ``0, 1, ..., n - 1`` returns ``(1 - g) j + g (j + 1)``.

* Ties: an order statistic of tied entries has no derivative; its weight is
  split evenly among the entries equal to it (the central difference for
  two ties, and the convention of ``max`` and ``min``).
* NaN: numpy's quantile of a slice holding a NaN is nan; the seed goes to
  its NaNs, split evenly, as for ``max``. The ``nan*`` forms take the order
  statistics of each slice's numbers (``n`` varies by slice); NaN entries
  get zero, and a slice of NaNs only (numpy warns, the result is nan) gets
  zeros.
* ``q`` is differentiable for the continuous methods (``linear``,
  ``weibull``, ``hazen``, ``median_unbiased``, ``normal_unbiased``,
  ``interpolated_inverted_cdf``): numpy's virtual index is
  ``v = n q + alpha + q (1 - alpha - beta) - 1`` with Hyndman and Fan's
  ``(alpha, beta)``, so ``d out / dq = (n + 1 - alpha - beta)
  (x_(j+1) - x_(j))``; zero where ``v`` is clipped to the ends; at a kink
  (``v`` an integer) the central difference, the mean of the slopes on
  either side (one-sided at ``q = 0`` and ``q = 1``). The other methods are
  piecewise constant in ``q``: a zero derivative. ``percentile`` takes ``q``
  in percent.
* ``weights=`` (``inverted_cdf``): the output is one of the entries, which
  gets the seed (split among its ties). Weights are keyword-only: constants.

``out=`` and ``overwrite_input=True`` get no rule (``None``): the primal
writes into a buffer (or reorders the input). numpy's median accepts complex
input (ordered lexicographically), its percentile and quantile refuse it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    ZeroTangent,
    checked_seed,
    checked_tangent,
    frule,
    is_followed,
    named_after,
    primal_of,
    rrule,
    value_shape,
)

from .._arrays import bind_options, is_given, reduced_axes, scatter_add
from ._reducing import cotangent_dtype, seed_as
from .linalg._common import as_array

_ALPHA_BETA = {
    "interpolated_inverted_cdf": (0.0, 1.0),
    "hazen": (0.5, 0.5),
    "weibull": (0.0, 0.0),
    "linear": (1.0, 1.0),
    "median_unbiased": (1 / 3, 1 / 3),
    "normal_unbiased": (3 / 8, 3 / 8),
}
"""Hyndman and Fan's (alpha, beta) of the methods continuous in q (numpy's table)."""

_MEDIAN_ARGS = ("axis", "out", "overwrite_input", "keepdims")
_QUANTILE_ARGS = ("axis", "out", "overwrite_input", "method", "keepdims")


def _run_average(v: np.ndarray[Any, Any], same: np.ndarray[Any, Any] | None) -> np.ndarray[Any, Any]:
    """``v`` (rows of sorted positions) averaged over each run of equal values (``same``: next equals previous)."""
    if same is None:
        return v
    rows, n = v.shape
    starts = np.concatenate([np.ones((rows, 1), dtype=bool), ~same], axis=1)
    group = (np.cumsum(starts, axis=1) - 1 + n * np.arange(rows)[:, None]).reshape(-1)
    counts = np.bincount(group, minlength=rows * n)
    sums = scatter_add(rows * n, group, v, v.dtype if v.dtype.kind in "fc" else np.dtype(float))
    return (sums / np.maximum(counts, 1))[group].reshape(rows, n).astype(v.dtype, copy=False)


class _Spec:
    """What differs between median, percentile, quantile and their nan* forms."""

    def __init__(self, names: tuple[str, ...], takes_q: bool, ranks: Any, scale: float, skips_nan: bool) -> None:
        self.names = names
        self.takes_q = takes_q
        self.ranks = ranks
        self.scale = scale
        self.skips_nan = skips_nan

    def parse(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]] | None:
        """``(q, options)``, or ``None`` for a call that writes into a buffer (``out=``, ``overwrite_input``)."""
        if not self.takes_q:
            q, rest = 0.5, args
        else:  # q by keyword is a constant, as every keyword argument is
            q, rest = (args[0], args[1:]) if args else (kwargs.get("q"), ())
        options = bind_options(self.names, rest, kwargs, axis=None, out=None, overwrite_input=False, method="linear")
        if is_given(options["out"]) or options["overwrite_input"]:
            return None
        if is_given(kwargs.get("interpolation")):
            options["method"] = kwargs["interpolation"]
        return q, options


class _OrderStatistics:
    """One call: the slices sorted, the two order statistics each output reads, and its slope in ``q``.

    The order, the NaNs, the ties and which statistics an output reads are
    the primal's (piecewise constant: no derivative). What moves with the
    inputs, ``g`` with ``q`` and the slope in ``q`` with ``x``, is computed on
    the inputs themselves, so that an engine follows it (nested differentiation).
    """

    def __init__(self, x: Any, q: Any, options: dict[str, Any], weights: Any, out: Any, spec: _Spec) -> None:
        method = options["method"]
        values = np.asarray(primal_of(x))
        self.shape = values.shape
        self.axes = reduced_axes(options["axis"], values.ndim)
        rows = self.rows(values)
        self.order = np.argsort(rows, axis=-1, kind="stable")
        self.sorted = np.take_along_axis(rows, self.order, axis=-1)
        n = rows.shape[-1]
        nans = np.isnan(self.sorted) if self.sorted.dtype.kind in "fc" else np.zeros(self.sorted.shape, dtype=bool)
        self.count = n - np.sum(nans, axis=-1)  # NaNs sort last: the numbers are the first ``count``
        self.nan_rows = None if spec.skips_nan or not nans.any() else self.count < n
        self.same = self.sorted[:, 1:] == self.sorted[:, :-1]
        self.same = self.same if self.same.any() else None
        self.q_shape = np.shape(q)
        q_flat = np.reshape(primal_of(q), -1)
        self.n = n
        self.lo = np.zeros((q_flat.size, rows.shape[0]), dtype=np.intp)
        self.hi = np.zeros_like(self.lo)
        self.g: Any = np.zeros(self.lo.shape)
        self.empty = self.count == 0  # NaNs only (the nan* forms): a zero derivative
        if weights is not None:  # the output is an entry: point at one equal to it, the ties split the rest
            out_rows = np.reshape(primal_of(out), (q_flat.size, -1))
            self.lo[...] = np.argmax(self.sorted[None] == out_rows[..., None], axis=-1)
            self.hi[...] = self.lo
        else:
            followed_q = np.reshape(q, -1) if is_followed(q) else None
            for c in np.unique(self.count[self.count > 0]):
                v = np.reshape(spec.ranks(np.arange(c, dtype=float), q_flat, method=method), (-1, 1))
                j = np.clip(np.floor(v), 0, c - 1)
                in_c = self.count == c
                self.lo[:, in_c] = j
                self.hi[:, in_c] = np.minimum(j + 1, c - 1)
                if followed_q is not None:  # g = v - j moves with q
                    v = np.reshape(spec.ranks(np.arange(c, dtype=float), followed_q, method=method), (-1, 1))
                self.g = np.where(in_c, v - j, self.g)
        continuous = spec.takes_q and weights is None and method in _ALPHA_BETA
        self.q_slope = self._q_slope(x, q_flat / spec.scale, method, spec.scale) if continuous else None

    def rows(self, x: Any) -> Any:
        """``x`` (or a tangent of it) with the reduced axes last and flattened: one row per slice."""
        ndim, k = len(self.shape), len(self.axes)
        moved = np.moveaxis(as_array(x), self.axes, tuple(range(ndim - k, ndim)))
        return np.reshape(moved, (math.prod(moved.shape[: ndim - k]), math.prod(moved.shape[ndim - k :])))

    def _q_slope(self, x: Any, q: np.ndarray[Any, Any], method: str, scale: float) -> Any:
        """d out / dq for each (q, slice): the central difference of the piecewise-linear interpolation."""
        alpha, beta = _ALPHA_BETA[method]
        c = self.count.astype(float)
        v = c * q[:, None] + alpha + q[:, None] * (1 - alpha - beta) - 1
        values = np.take_along_axis(self.rows(x), self.order, axis=-1) if is_followed(x) else self.sorted
        steps = np.diff(values, axis=-1) if self.n > 1 else np.zeros((self.sorted.shape[0], 1))
        last = np.maximum(c - 1, 0)

        def slope_of_segment(k: np.ndarray[Any, Any], inside: np.ndarray[Any, Any]) -> Any:
            index = np.clip(k, 0, steps.shape[-1] - 1).astype(np.intp)
            found = np.transpose(np.take_along_axis(steps, index.T, axis=-1))
            return np.where(inside, found, 0)

        right = slope_of_segment(np.floor(v), (v >= 0) & (v < last))
        left = slope_of_segment(np.ceil(v) - 1, (v > 0) & (v <= last))
        right = np.where(q[:, None] >= 1, left, right)  # no right side at q = 1, no left side at q = 0
        left = np.where(q[:, None] <= 0, right, left)
        slope = (c + 1 - alpha - beta) * (left + right) / 2 / scale
        return np.where(self.empty | (self.count < self.n if self.nan_rows is not None else False), 0, slope)

    def live(self) -> np.ndarray[Any, Any]:
        """The outputs that two order statistics give (not those of an empty slice, nor a NaN of ``median``)."""
        live = ~self.empty
        return live if self.nan_rows is None else live & ~self.nan_rows

    def sorted_weights(self, seed: Any) -> Any:
        """The seed (rows of the outputs, one row per q) handed to the sorted positions of each slice."""
        live = self.live()
        g = np.where(live, self.g, 0)
        spread = np.stack([(1 - g) * live * seed, g * seed])
        weights = _scatter(spread, self)
        if self.nan_rows is not None:  # a NaN output: its seed goes to the slice's NaNs
            n = self.n
            nan_seed = np.sum(np.where(self.nan_rows, seed, 0), axis=0) / np.maximum(n - self.count, 1)
            at_nan = np.arange(n) >= self.count[:, None]
            weights = weights + np.where(at_nan & self.nan_rows[:, None], nan_seed[:, None], 0)
        return weights

    def unsorted(self, sorted_values: Any) -> Any:
        """Values at the sorted positions put back where they came from, in ``x``'s layout."""
        inverse = np.empty_like(self.order)
        np.put_along_axis(inverse, self.order, np.arange(self.n)[None], axis=-1)
        rows = np.take_along_axis(sorted_values, inverse, axis=-1)
        ndim, k = len(self.shape), len(self.axes)
        kept = tuple(n for i, n in enumerate(self.shape) if i not in self.axes)
        moved = np.reshape(rows, kept + tuple(self.shape[i] for i in self.axes))
        return np.moveaxis(moved, tuple(range(ndim - k, ndim)), self.axes)

    def x_pushforward(self, x_dot: Any) -> Any:
        """The output's tangent from ``x``'s, rows of outputs (one row per q)."""
        dots = np.take_along_axis(self.rows(x_dot), self.order, axis=-1)
        lo, hi = _gather(dots, self)
        out_dot = np.where(self.empty, 0, (1 - self.g) * lo + self.g * hi)
        if self.nan_rows is not None:
            at_nan = np.arange(self.n) >= self.count[:, None]
            nan_mean = np.sum(np.where(at_nan, dots, 0), axis=-1) / np.maximum(self.n - self.count, 1)
            out_dot = np.where(self.nan_rows, nan_mean, out_dot)
        return out_dot


def _scatter(spread: Any, stats: _OrderStatistics) -> np.ndarray[Any, Any]:
    """The sorted positions' weights (rows, n) from the weights of each output's two order statistics.

    Linear, the adjoint of ``_gather`` (ties averaged in both).
    """
    rows, n = stats.sorted.shape
    dtype = spread.dtype if spread.dtype.kind in "fc" else np.dtype(float)
    if not n:  # empty slices: NaN outputs that no entry moves
        return np.zeros((rows, 0), dtype)
    offsets = n * np.arange(rows)
    index = np.concatenate([(stats.lo + offsets).reshape(-1), (stats.hi + offsets).reshape(-1)])
    weights = scatter_add(rows * n, index, spread, dtype).reshape(rows, n)
    return _run_average(weights, stats.same)


def _gather(sorted_values: Any, stats: _OrderStatistics) -> tuple[Any, Any]:
    """The two order statistics each output reads, ``(lo, hi)``, from values at the sorted positions (rows, n)."""
    if not stats.n:
        return np.zeros(stats.lo.shape, sorted_values.dtype), np.zeros(stats.lo.shape, sorted_values.dtype)
    averaged = _run_average(sorted_values, stats.same)
    rows = np.arange(averaged.shape[0])
    return averaged[rows, stats.lo], averaged[rows, stats.hi]


def _data_by_keyword(f: Any, kwargs: dict[str, Any]) -> Any:
    """The output of a call whose data comes by keyword (``a=x``): every argument is a keyword, a constant.

    ``None`` (no rule) for a call that writes into a buffer; numpy's own ``TypeError`` for a call without data.
    """
    if is_given(kwargs.get("out")) or kwargs.get("overwrite_input"):
        return None
    return f(**kwargs)


def _register(f: Any, spec: _Spec) -> None:
    def _rrule_order(f: Any, *args: Any, **kwargs: Any) -> Any:
        if not args:  # the data by keyword: a constant, as every keyword argument is
            out = _data_by_keyword(f, kwargs)

            def keyword_data_pullback(out_bar: Any) -> tuple[Any, ...]:
                return (NoTangent(),)

            return None if out is None else (out, keyword_data_pullback)
        x, args = args[0], args[1:]
        parsed = spec.parse(args, kwargs)
        if parsed is None:
            return None
        out = f(x, *args, **kwargs)
        shape = value_shape(out)
        project_x = ProjectTo(x)
        projects = [ProjectTo(a) if spec.takes_q and i == 0 else ProjectTo(None) for i, a in enumerate(args)]
        sorted_once: list[_OrderStatistics] = []  # the sort waits for the pullback, and runs once

        def order_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = checked_seed(f, out_bar, shape)
            bars = [project(ZeroTangent()) for project in projects]
            x_bar = project_x(ZeroTangent())
            q_wanted = bool(projects) and not projects[0].is_no_tangent
            if isinstance(out_bar, AbstractZero) or (project_x.is_no_tangent and not q_wanted):
                return (NoTangent(), x_bar, *bars)
            if not sorted_once:
                sorted_once.append(_OrderStatistics(x, *parsed, kwargs.get("weights"), out, spec))
            stats = sorted_once[0]
            dtype = cotangent_dtype(x) or np.dtype(float)
            seed = seed_as(out_bar, dtype).reshape(stats.lo.shape)
            if not project_x.is_no_tangent:
                x_bar = project_x(stats.unsorted(stats.sorted_weights(seed).astype(dtype, copy=False)))
            if q_wanted:
                slope = 0 if stats.q_slope is None else stats.q_slope
                bars[0] = projects[0](np.reshape(np.sum(np.real(slope * seed), axis=-1), stats.q_shape))
            return (NoTangent(), x_bar, *bars)

        return out, order_pullback

    def _frule_order(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        if not args:
            out = _data_by_keyword(f, kwargs)
            return None if out is None else (out, ProjectTo(out)(ZeroTangent()))
        x, args = args[0], args[1:]
        parsed = spec.parse(args, kwargs)
        if parsed is None:
            return None
        out = f(x, *args, **kwargs)
        x_dot = checked_tangent(f, tangents[1], x, 1)
        q_dot = checked_tangent(f, tangents[2], args[0], 2) if spec.takes_q and args else ZeroTangent()
        stats = _OrderStatistics(x, *parsed, kwargs.get("weights"), out, spec)
        project_out = ProjectTo(out)
        out_dot: Any = np.zeros(stats.lo.shape)
        if not isinstance(x_dot, AbstractZero) and not ProjectTo(x).is_no_tangent:
            out_dot = stats.x_pushforward(x_dot)
        if stats.q_slope is not None and not isinstance(q_dot, AbstractZero):
            if not ProjectTo(args[0]).is_no_tangent:
                out_dot = out_dot + stats.q_slope * np.reshape(q_dot, (-1, 1))
        return out, project_out(np.reshape(out_dot, np.shape(out)))

    rrule.register(f)(named_after(f, _rrule_order))
    frule.register(f)(named_after(f, _frule_order))


for _f, _spec in (
    (np.median, _Spec(_MEDIAN_ARGS, False, np.quantile, 1.0, False)),
    (np.nanmedian, _Spec(_MEDIAN_ARGS, False, np.quantile, 1.0, True)),
    (np.quantile, _Spec(_QUANTILE_ARGS, True, np.quantile, 1.0, False)),
    (np.nanquantile, _Spec(_QUANTILE_ARGS, True, np.quantile, 1.0, True)),
    (np.percentile, _Spec(_QUANTILE_ARGS, True, np.percentile, 100.0, False)),
    (np.nanpercentile, _Spec(_QUANTILE_ARGS, True, np.percentile, 100.0, True)),
):
    _register(_f, _spec)
