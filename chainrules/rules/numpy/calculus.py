"""Finite differences and quadrature: gradient and trapezoid.

``gradient(f, *spacing, axis, edge_order)``: along each axis, with the
spacings ``h_k`` between samples and the slopes ``s_k = (f_(k+1) - f_k) / h_k``,
numpy's second-order differences are weighted means of neighbouring slopes:
``out_i = w_i s_(i-1) + (1 - w_i) s_i`` inside, with ``w_i = h_i / (h_(i-1) + h_i)``
(the three-point formula on uneven grids of numpy's documentation, Fornberg
1988); at the ends ``s_0`` and ``s_-1`` (``edge_order=1``), or
``s_0 - r (s_1 - s_0)`` with ``r = h_0 / (h_0 + h_1)`` and its mirror
(``edge_order=2``). So the gradient is linear in ``f`` and the spacings enter
through ``s`` and the weights: ``ds = (d(Δf) - s dh) / h`` and
``dw_i = (h_(i-1) dh_i - h_i dh_(i-1)) / (h_(i-1) + h_i)^2``. Spacings given
positionally are differentiable: a scalar step (shared by every interval) or
the coordinates of the samples (``h = diff(x)``). Several axes give a tuple,
one gradient per axis.

``trapezoid(y, x, dx, axis)``: ``sum(d (y_(k+1) + y_k) / 2)`` with ``d``
the spacings ``diff(x)`` (or ``dx``): bilinear in ``d`` and ``y``. ``x``
and ``dx`` passed positionally are differentiable.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    Tangent,
    ZeroTangent,
    checked_seed,
    frule,
    rrule,
    sum_to_shape,
    value_shape,
)

from .._arrays import bind_options, cast_to, instantiate_zeros, reduced_axes, tuple_entries
from .._makers import checked_tangents
from ._reducing import diff_adjoint
from .linalg._common import as_array

# ----- gradient -----


def _padded(a: Any, before: int, after: int) -> Any:
    """``a`` with ``before`` and ``after`` zeros along its last axis (no writes: an engine may follow ``a``)."""
    return _placed([a], [before], np.shape(a)[-1] + before + after)


def _placed(columns: list[Any], positions: list[int], m: int) -> Any:
    """Blocks along the last axis (``columns``) placed from ``positions`` in zeros of length ``m``, summed where
    they meet (columns of width 1 then; a position may be negative), without writing into an array an engine
    may follow."""
    at = [p % m for p in positions]
    widths = [np.shape(c)[-1] for c in columns]
    spans = sorted(zip(at, widths, range(len(at))))
    dtype = np.result_type(*columns)
    lead = np.shape(columns[0])[:-1]
    if any(a + w > b for (a, w, _), (b, _, _) in itertools.pairwise(spans)):  # columns meeting: unit rows
        units = np.arange(m) == np.reshape(at, (-1, 1))
        return np.concatenate(columns, axis=-1) @ units.astype(np.finfo(dtype).dtype)
    pieces, free = [], 0
    for a, w, i in spans:
        pieces += [np.zeros((*lead, a - free), dtype), columns[i]]
        free = a + w
    return np.concatenate([*pieces, np.zeros((*lead, m - free), dtype)], axis=-1)


class _Stencil:
    """numpy's gradient along the last axis as weighted slopes, for the spacings ``h`` (``n - 1`` of them)."""

    def __init__(self, h: np.ndarray[Any, Any], edge_order: int) -> None:
        self.h = h
        self.edge_order = edge_order
        left, right = h[:-1], h[1:]
        self.sums = left + right
        self.w = right / self.sums  # the weight of the left slope at each interior point
        if edge_order == 2:
            self.r = (h[0] / (h[0] + h[1]), h[-1] / (h[-2] + h[-1]))

    def apply(self, s: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """The gradient from the slopes ``s`` (last axis ``n - 1``): last axis ``n``."""
        inside = self.w * s[..., :-1] + (1 - self.w) * s[..., 1:]
        first, last = s[..., :1], s[..., -1:]
        if self.edge_order == 2:
            first = first - self.r[0] * (s[..., 1:2] - first)
            last = last + self.r[1] * (last - s[..., -2:-1])
        return np.concatenate([first, inside, last], axis=-1)

    def adjoint(self, g: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """The adjoint of ``apply`` (the weights are real)."""
        m = self.h.size
        inside = g[..., 1:-1]
        first, last = g[..., :1], g[..., -1:]
        if self.edge_order == 2:
            r0, r1 = self.r
            ends = _placed([-r0 * first, -r1 * last], [1, -2], m)
            first, last = (1 + r0) * first, (1 + r1) * last
        s_bar = np.concatenate([self.w * inside, last], axis=-1) + np.concatenate(
            [first, (1 - self.w) * inside], axis=-1
        )
        return s_bar + ends if self.edge_order == 2 else s_bar

    def weight_terms(self, s: np.ndarray[Any, Any]) -> tuple[list[Any], list[Any]]:
        """``(partials, intervals)``: each output's derivative in the spacings through its weights.

        Entry ``k`` says: output column ``k`` (interior, first, last) changes by
        ``partials[k] * dh[intervals[k]]``, as arrays over the last axis.
        """
        h, sums = self.h, self.sums
        step = s[..., :-1] - s[..., 1:]  # d out_i / d w_i
        partials = [step * (-h[1:] / sums / sums), step * (h[:-1] / sums / sums)]  # sums**2 overflows at 1e154
        intervals = [np.arange(h.size - 1), np.arange(1, h.size)]
        return partials, intervals


class _Gradient:
    """One call of ``gradient``: the axes, and for each the spacings and whether they are coordinates."""

    def __init__(self, f: Any, spacing: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        values = as_array(f)
        self.f = values
        axis = kwargs.get("axis")
        self.axes = (
            tuple(range(values.ndim)) if axis is None else tuple(int(a) % values.ndim for a in np.atleast_1d(axis))
        )
        self.edge_order = int(kwargs.get("edge_order", 1))
        given = spacing * len(self.axes) if len(spacing) == 1 and np.ndim(spacing[0]) == 0 else spacing
        self.spacing_of = [0] * len(self.axes) if len(spacing) == 1 else list(range(len(spacing)))
        self.stencils, self.coordinates = [], []
        for i, a in enumerate(self.axes):
            step = cast_to(given[i] if given else 1.0, np.dtype(float))
            n = values.shape[a]
            self.coordinates.append(step.ndim == 1)
            h = np.diff(step) if step.ndim == 1 else np.broadcast_to(step, (n - 1,))
            self.stencils.append(_Stencil(h, self.edge_order))

    def slopes(self, i: int, values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        return np.diff(np.moveaxis(values, self.axes[i], -1), axis=-1) / self.stencils[i].h

    def h_cotangent(self, i: int, g: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """The cotangent of the spacings ``h`` of axis ``i`` from the seed ``g`` (axis last)."""
        stencil = self.stencils[i]
        s = self.slopes(i, self.f)
        s_bar = stencil.adjoint(g)
        h_bar = -np.real(np.conjugate(s) * s_bar) / stencil.h  # through s = Δf / h
        (left, right), _ = stencil.weight_terms(s)  # intervals 0 .. m - 2 and 1 .. m - 1
        inside = g[..., 1:-1]
        h_bar = h_bar + _padded(np.real(np.conjugate(left) * inside), 0, 1)
        h_bar = h_bar + _padded(np.real(np.conjugate(right) * inside), 1, 0)
        if self.edge_order == 2:
            h, m = stencil.h, stencil.h.size
            first = np.real(-np.conjugate(s[..., 1:2] - s[..., :1]) * g[..., :1]) / (h[0] + h[1]) / (h[0] + h[1])
            last = np.real(np.conjugate(s[..., -1:] - s[..., -2:-1]) * g[..., -1:]) / (h[-2] + h[-1]) / (h[-2] + h[-1])
            h_bar = h_bar + _placed([first * h[1], -first * h[0], last * h[-2], -last * h[-1]], [0, 1, -1, -2], m)
        return np.sum(np.reshape(h_bar, (-1, h_bar.shape[-1])), axis=0)

    def h_tangent(self, i: int, h_dot: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """The output's tangent along axis ``i`` from the spacings' tangent ``h_dot`` (axis last)."""
        stencil = self.stencils[i]
        s = self.slopes(i, self.f)
        out_dot = stencil.apply(-s * h_dot / stencil.h)
        partials, intervals = stencil.weight_terms(s)
        inside = sum(partial * h_dot[interval] for partial, interval in zip(partials, intervals))
        out_dot = out_dot + _padded(inside, 1, 1)
        if self.edge_order == 2:
            h, n = stencil.h, stencil.h.size + 1
            dr0 = (h[1] / (h[0] + h[1]) * h_dot[0] - h[0] / (h[0] + h[1]) * h_dot[1]) / (h[0] + h[1])
            dr1 = (h[-2] / (h[-2] + h[-1]) * h_dot[-1] - h[-1] / (h[-2] + h[-1]) * h_dot[-2]) / (h[-2] + h[-1])
            ends = [-(s[..., 1:2] - s[..., :1]) * dr0, (s[..., -1:] - s[..., -2:-1]) * dr1]
            out_dot = out_dot + _placed(ends, [0, -1], n)
        return out_dot

    def back(self, i: int, v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        return np.moveaxis(v, -1, self.axes[i])


@rrule.register(np.gradient)
def _rrule_gradient(f: Any, values: Any, *spacing: Any, **kwargs: Any) -> Any:
    out = f(values, *spacing, **kwargs)
    call = _Gradient(values, spacing, kwargs)
    project_f = ProjectTo(values)
    projects = [ProjectTo(v) for v in spacing]
    several = len(call.axes) != 1  # a tuple, empty for a 0-d input
    shapes = [value_shape(o) for o in out] if several else [value_shape(out)]

    def gradient_pullback(out_bar: Any) -> tuple[Any, ...]:
        seeds = tuple_entries(out_bar, len(call.axes)) if several else [out_bar]
        seeds = [checked_seed(f, seed, shape) for seed, shape in zip(seeds, shapes)]
        f_bar = np.zeros(
            call.f.shape, dtype=np.result_type(call.f, float, *(s for s in seeds if not isinstance(s, AbstractZero)))
        )
        spacing_bars: list[Any] = [ZeroTangent()] * len(spacing)
        for i, seed in enumerate(seeds):
            if isinstance(seed, AbstractZero):
                continue
            g = np.moveaxis(as_array(seed), call.axes[i], -1)
            stencil = call.stencils[i]
            f_bar = f_bar + call.back(i, diff_adjoint(stencil.adjoint(g) / stencil.h))
            if spacing:
                h_bar = call.h_cotangent(i, g)
                j = call.spacing_of[i]
                spacing_bars[j] = spacing_bars[j] + (diff_adjoint(h_bar) if call.coordinates[i] else np.sum(h_bar))
        bars = [
            project(b if isinstance(b, AbstractZero) else np.reshape(b, np.shape(v)))
            for project, b, v in zip(projects, spacing_bars, spacing)
        ]
        return (NoTangent(), project_f(f_bar), *bars)

    return out, gradient_pullback


@frule.register(np.gradient)
def _frule_gradient(tangents: tuple[Any, ...], f: Any, values: Any, *spacing: Any, **kwargs: Any) -> Any:
    out = f(values, *spacing, **kwargs)
    dots = checked_tangents(f, tangents, (values, *spacing))
    call = _Gradient(values, spacing, kwargs)
    f_dot = instantiate_zeros(dots[0], values)
    spacing_dots = [instantiate_zeros(t, v) for t, v in zip(dots[1:], spacing)]
    out_dots = []
    for i, stencil in enumerate(call.stencils):
        out_dot = stencil.apply(call.slopes(i, f_dot))
        if spacing:
            s_dot = cast_to(spacing_dots[call.spacing_of[i]], np.dtype(float))
            h_dot = np.diff(s_dot) if call.coordinates[i] else np.broadcast_to(s_dot, (stencil.h.size,))
            out_dot = out_dot + call.h_tangent(i, h_dot)
        out_dots.append(call.back(i, out_dot))
    project_out = ProjectTo(out)
    if len(call.axes) != 1:
        return out, project_out(Tangent(tuple, *out_dots))
    return out, project_out(out_dots[0])


# ----- trapezoid -----

_TRAPEZOID_ARGS = ("x", "dx", "axis")


class _Trapezoid:
    """One call of ``trapezoid``: the spacings ``d`` (from ``x`` or ``dx``) laid out against ``y``."""

    def __init__(self, y: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        options = bind_options(_TRAPEZOID_ARGS, args, kwargs, x=None, dx=1.0, axis=-1)
        self.y = as_array(y)
        self.axis = reduced_axes(options["axis"], self.y.ndim)[0]
        self.x = None if options["x"] is None else as_array(options["x"])
        self.d = self.spacings(self.x, options["dx"])
        ends = np.moveaxis(self.y, self.axis, -1)
        self.pair_sum = np.moveaxis(ends[..., 1:] + ends[..., :-1], -1, self.axis)

    def spacings(self, x: Any, dx: Any) -> Any:
        """numpy's ``d``: ``dx``, or ``diff(x)`` shaped along the axis (``x`` 1-d) or taken along it."""
        if x is None:
            return dx
        if np.ndim(x) == 1:
            shape = [1] * self.y.ndim
            shape[self.axis] = np.shape(x)[0] - 1
            return np.reshape(np.diff(x), shape)
        return np.diff(x, axis=self.axis)

    def x_cotangent(self, d_bar: Any) -> Any:
        """The cotangent of ``x`` from that of ``d``."""
        if not np.size(self.x):  # no samples, no spacings
            return np.zeros(np.shape(self.x))
        if np.ndim(self.x) == 1:
            return diff_adjoint(np.reshape(sum_to_shape(d_bar, np.shape(self.d)), -1))
        return diff_adjoint(sum_to_shape(d_bar, np.shape(self.d)), axis=self.axis)


@rrule.register(np.trapezoid)
def _rrule_trapezoid(f: Any, y: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(y, *args, **kwargs)
    call = _Trapezoid(y, args, kwargs)
    project_y = ProjectTo(y)
    projects = [ProjectTo(v) if i < 2 and v is not None else ProjectTo(None) for i, v in enumerate(args)]
    out_shape = value_shape(out)

    def trapezoid_pullback(out_bar: Any) -> tuple[Any, ...]:
        g = np.expand_dims(as_array(checked_seed(f, out_bar, out_shape)), call.axis)
        half_bar = np.conjugate(call.d) / 2 * g
        shape = np.broadcast_shapes(half_bar.shape, call.pair_sum.shape)  # x may broadcast against y
        moved = np.moveaxis(np.broadcast_to(half_bar, shape), call.axis, -1)
        y_bar = _padded(moved, 1, 0) + _padded(moved, 0, 1) if call.y.shape[call.axis] else moved  # no pairs
        y_bar = sum_to_shape(np.moveaxis(y_bar, -1, call.axis), call.y.shape)
        bars = [project(ZeroTangent()) for project in projects]
        d_bar = np.conjugate(call.pair_sum) / 2 * g
        if call.x is not None and projects and not projects[0].is_no_tangent:
            bars[0] = projects[0](call.x_cotangent(d_bar))
        elif call.x is None and len(projects) > 1 and not projects[1].is_no_tangent:
            bars[1] = projects[1](sum_to_shape(d_bar, np.shape(args[1])))
        return (NoTangent(), project_y(y_bar), *bars)

    return out, trapezoid_pullback


@frule.register(np.trapezoid)
def _frule_trapezoid(tangents: tuple[Any, ...], f: Any, y: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(y, *args, **kwargs)
    dots = checked_tangents(f, tangents, (y, *args))
    call = _Trapezoid(y, args, kwargs)
    y_dot = as_array(instantiate_zeros(dots[0], y))
    moved = np.moveaxis(y_dot, call.axis, -1)
    pair_dot = np.moveaxis(moved[..., 1:] + moved[..., :-1], -1, call.axis)
    terms = call.d * pair_dot
    if call.x is not None and args and args[0] is not None:
        terms = terms + call.spacings(instantiate_zeros(dots[1], args[0]), None) * call.pair_sum
    elif call.x is None and len(args) > 1:
        terms = terms + instantiate_zeros(dots[2], args[1]) * call.pair_sum
    return out, ProjectTo(out)(np.sum(terms, axis=call.axis) / 2)
