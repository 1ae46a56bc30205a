"""Cumulative operations: cumsum, cumprod (exact with zeros), their NaN-skipping and array-API forms, diff, ediff1d.

``axis=None`` works on the flattened input; ``dtype=`` casts the cotangent
back to the input's dtype; ``out=`` gets no rule (``None``).
``cumulative_sum`` and ``cumulative_prod`` (numpy 2.1) take
``include_initial``: the leading 0 or 1 is a constant. ``nancumsum`` and
``nancumprod`` count a NaN as 0 or 1: NaN entries get a zero cotangent.

``cumsum(x)`` and ``cumsum(x, axis)`` of a float array, with a seed of the
output's shape and dtype, take a fast path (the section at the bottom): the
seed reversed, summed and reversed again by slicing. Every other call and
seed takes the general rule, which gives the same cotangents.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from chainrules_core import (
    NoTangent,
    ProjectTo,
    ZeroTangent,
    checked_seed,
    checked_tangent,
    frule,
    is_followed,
    named_after,
    rrule,
    sum_to_shape,
    value_shape,
)

from .._arrays import (
    NOVALUE,
    OTHER_OPTIONS,
    bind_options,
    instantiate_zeros,
    is_given,
    is_plain_float_array,
    plain_axis,
)
from .._makers import PullbackOf, checked_tangents, rule_in_first
from ._reducing import cotangent_dtype, diff_adjoint, nan_mask, seed_as, unless_integer_output
from .linalg._common import as_array

_ARGS = ("axis", "dtype", "out")
_NO_TANGENT = NoTangent()


def _along_last(x: Any, axis: Any) -> np.ndarray[Any, Any]:
    """``x`` with the scanned axis last (flattened, whatever its shape, when ``axis`` is None)."""
    values = as_array(x)
    return values.reshape(-1) if axis is None else np.moveaxis(values, axis, -1)


def _scanned_axis(x: Any, axis: Any) -> Any:
    """The axis the scan runs along: ``None`` (flattened) for a 0-d array, which numpy scans as one entry."""
    return None if np.ndim(x) == 0 else axis


def _reverse_cumsum(v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``sum_{i >= k} v_i`` along the last axis."""
    return np.flip(np.cumsum(np.flip(v, -1), -1), -1)


class _Cumulative:
    """One call of a cumulative sum or product: the values scanned, the axis, a leading constant.

    ``fill`` is what a NaN counts as in the NaN-skipping forms (0 for sums, 1
    for products); the others leave NaNs alone.
    """

    fill: float | None = None

    def __init__(self, x: Any, options: dict[str, Any], out: Any) -> None:
        self.x = x
        self.out = out
        self.axis = _scanned_axis(x, options.get("axis"))
        self.initial = bool(options.get("include_initial"))
        self.out_shape = np.shape(out)
        values = as_array(x)
        self.valid = nan_mask(values) if self.fill is not None else None
        if self.valid is not None:
            values = np.where(self.valid, values, np.asarray(self.fill, dtype=values.dtype))
        self.values = _along_last(values, self.axis)

    def seed(self, out_bar: Any) -> np.ndarray[Any, Any]:
        """The seed in the input's dtype with the scanned axis last, the leading constant's entry dropped."""
        seed = _along_last(seed_as(out_bar, cotangent_dtype(self.x)), self.axis)
        return seed[..., 1:] if self.initial else seed

    def cotangent(self, x_bar: np.ndarray[Any, Any]) -> Any:
        """A cotangent with the scanned axis last, moved back to ``x``'s layout; NaN entries zero."""
        x_bar = x_bar.reshape(np.shape(self.x)) if self.axis is None else np.moveaxis(x_bar, -1, self.axis)
        return x_bar if self.valid is None else np.where(self.valid, x_bar, np.zeros((), dtype=x_bar.dtype))

    def tangent_in(self, x_dot: Any) -> np.ndarray[Any, Any]:
        x_dot = as_array(x_dot)
        if self.valid is not None:
            x_dot = np.where(self.valid, x_dot, np.zeros((), dtype=x_dot.dtype))
        return _along_last(x_dot, self.axis)

    def tangent_out(self, out_dot: np.ndarray[Any, Any]) -> Any:
        if self.initial:  # the leading 0 or 1 is a constant
            out_dot = np.concatenate([np.zeros((*out_dot.shape[:-1], 1), out_dot.dtype), out_dot], axis=-1)
        return out_dot.reshape(self.out_shape) if self.axis is None else np.moveaxis(out_dot, -1, self.axis)


class _NanSum(_Cumulative):
    fill = 0.0


class _NanProduct(_Cumulative):
    fill = 1.0


def _options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    options = bind_options(_ARGS, args, kwargs)
    return None if is_given(options["out"]) else options


# ----- cumsum: the adjoint sums the seed from each entry to the end -----


def _cumsum_cotangent(c: _Cumulative, out_bar: Any) -> Any:
    return c.cotangent(_reverse_cumsum(c.seed(out_bar)))


def _cumsum_tangent(c: _Cumulative, x_dot: Any) -> Any:
    return c.tangent_out(np.cumsum(c.tangent_in(x_dot), axis=-1))


# ----- cumprod -----


class _Scan:
    """A cumulative product along the last axis, split at each row's first zero.

    Before the first zero every entry is nonzero and the usual quotient
    formulas are exact; at the first zero the derivative is the product of
    the entries before it times those after it; past it every derivative
    vanishes (the product holds two zeros). These are ChainRules.jl's
    ``∇cumprod`` cases, vectorised over rows.

    Past a zero those cases are constants (0), though the derivatives there
    move with the zero itself: an engine differentiating the pullback or
    pushforward of an input holding a zero gets an error, not a number.
    """

    def __init__(self, x: np.ndarray[Any, Any]) -> None:
        n = x.shape[-1]
        zeros = x == 0
        if is_followed(x) and np.any(zeros):
            raise NotImplementedError(
                "cumprod: the derivative of its pullback or pushforward at an input holding a zero is not implemented"
            )
        # the index of each row's first zero (n if none): how many entries precede it; 0 on an empty axis
        self.first = np.sum(np.cumsum(zeros, axis=-1) == 0, axis=-1)[..., None]
        index = np.arange(n)
        self.before = index < self.first
        self.at = index == self.first
        self.x = x
        self.safe = np.where(self.before, x, np.ones((), dtype=x.dtype))
        self.out = np.cumprod(self.safe, axis=-1)  # cumprod(x) before the first zero
        # prod_{first < j <= i} x_j, for i >= first
        self.after = np.cumprod(np.where(index > self.first, x, np.ones((), dtype=x.dtype)), axis=-1)
        self.lead = np.prod(self.safe, axis=-1, keepdims=True)  # the product before the first zero

    def cotangent(self, g: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """``sum_{i >= k} g_i prod_{j <= i, j != k} x_j`` (no conjugation)."""
        ahead = _reverse_cumsum(np.where(self.before, g * self.out, 0))
        x_bar = np.where(self.before, ahead / self.safe, 0)
        at_zero = self.lead * np.sum(np.where(self.before, 0, g * self.after), axis=-1, keepdims=True)
        return np.where(self.at, at_zero, x_bar)

    def pushforward(self, x_dot: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """``sum_{k <= i} x_dot_k prod_{j <= i, j != k} x_j``."""
        early = self.out * np.cumsum(np.where(self.before, x_dot / self.safe, 0), axis=-1)
        x_dot_at = np.sum(np.where(self.at, x_dot, 0), axis=-1, keepdims=True)
        return np.where(self.before, early, self.lead * x_dot_at * self.after)


def _cumprod_cotangent(c: _Cumulative, out_bar: Any) -> Any:
    return c.cotangent(_Scan(np.conjugate(c.values)).cotangent(c.seed(out_bar)))


def _cumprod_tangent(c: _Cumulative, x_dot: Any) -> Any:
    return c.tangent_out(_Scan(c.values).pushforward(c.tangent_in(x_dot)))


_SCANS = [
    ((np.cumsum, np.ndarray.cumsum), _Cumulative, _cumsum_cotangent, _cumsum_tangent),
    ((np.nancumsum,), _NanSum, _cumsum_cotangent, _cumsum_tangent),
    ((np.cumprod, np.ndarray.cumprod), _Cumulative, _cumprod_cotangent, _cumprod_tangent),
    ((np.nancumprod,), _NanProduct, _cumprod_cotangent, _cumprod_tangent),
]
if hasattr(np, "cumulative_sum"):  # numpy >= 2.1
    _SCANS.append(((np.cumulative_sum,), _Cumulative, _cumsum_cotangent, _cumsum_tangent))
    _SCANS.append(((np.cumulative_prod,), _Cumulative, _cumprod_cotangent, _cumprod_tangent))
_PULLBACK_OF: dict[Any, PullbackOf] = {}
"""Each scan's general pullback of a call, for its fast path."""
for _fs, _prepare, _cotangent, _tangent in _SCANS:
    for _f in _fs:
        _PULLBACK_OF[_f] = rule_in_first(
            _f, parse=_options, prepare=_prepare, cotangent=unless_integer_output(_cotangent), tangent=_tangent
        )


# ----- diff -----

_DIFF_ARGS = ("n", "axis", "prepend", "append")


class _Diff:
    """The layout of ``diff``'s input: ``concatenate([prepend, a, append], axis)``."""

    def __init__(self, a: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        options = bind_options(_DIFF_ARGS, args, kwargs, n=1, axis=-1, prepend=NOVALUE, append=NOVALUE)
        shape = self.shape = np.shape(a)
        self.n = int(options["n"])
        self.axis = int(options["axis"]) % max(len(shape), 1)
        self.parts = [(options[k], np.shape(options[k])) for k in ("prepend", "append")]
        lengths = []
        for value, part_shape in self.parts:
            if not is_given(value):
                lengths.append(0)
            else:
                lengths.append(1 if len(part_shape) == 0 else part_shape[self.axis])
        self.lengths = (lengths[0], shape[self.axis] if shape else 0, lengths[1])

    def adjoint(self, out_bar: Any) -> list[Any]:
        """The cotangents of prepend, a and append, unprojected.

        ``n == 0`` returns ``a`` itself, without prepend and append; ``n`` at
        least the joined length gives an empty output, constant in every input.
        """
        c_bar = as_array(out_bar)
        head, tail = (np.zeros(part_shape, dtype=c_bar.dtype) for _, part_shape in self.parts)
        if self.n == 0:
            return [head, c_bar, tail]
        if self.n >= sum(self.lengths):
            return [head, np.zeros(self.shape, dtype=c_bar.dtype), tail]
        for _ in range(self.n):
            c_bar = diff_adjoint(c_bar, self.axis)
        stops = np.cumsum(self.lengths)
        pieces = np.split(c_bar, stops[:2], axis=self.axis)
        return [pieces[0], pieces[1], pieces[2]]


def _rrule_diff(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(a, *args, **kwargs)
    layout = _Diff(a, args, kwargs)
    project_a = ProjectTo(a)
    projects = [ProjectTo(v) if is_given(v) else None for v, _ in layout.parts]
    zeros = tuple(NoTangent() for _ in args)
    shape = value_shape(out)

    def diff_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, shape)
        arg_bars = list(zeros)
        head, middle, tail = layout.adjoint(out_bar)
        for i, (j, piece) in zip((2, 3), ((0, head), (1, tail))):
            project = projects[j]
            if i < len(args) and project is not None:
                arg_bars[i] = project(sum_to_shape(piece, layout.parts[j][1]))
        return (NoTangent(), project_a(middle), *arg_bars)

    return out, diff_pullback


def _frule_diff(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(a, *args, **kwargs)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    dots = [checked_tangent(f, t, v, k) for k, (t, v) in enumerate(zip(tangents[2:], args), start=2)]
    dots += [None] * (4 - len(args))
    if ProjectTo(out).is_no_tangent:
        return out, NoTangent()
    options = bind_options(_DIFF_ARGS, args, kwargs, n=1, axis=-1, prepend=NOVALUE, append=NOVALUE)
    extra = {}
    for i, name in ((2, "prepend"), (3, "append")):
        if is_given(options[name]):
            extra[name] = instantiate_zeros(NoTangent() if dots[i] is None else dots[i], options[name])
    a_dot = instantiate_zeros(a_dot, a)
    return out, ProjectTo(out)(np.diff(a_dot, n=options["n"], axis=options["axis"], **extra))


rrule.register(np.diff)(_rrule_diff)
frule.register(np.diff)(_frule_diff)


# ----- ediff1d: to_begin, the differences of the flattened input, to_end -----

_EDIFF_ARGS = ("to_end", "to_begin")


class _Ediff:
    """The layout of ``ediff1d``'s output: ``concatenate([ravel(to_begin), diff(ravel(ary)), ravel(to_end)])``."""

    def __init__(self, ary: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        options = bind_options(_EDIFF_ARGS, args, kwargs, to_end=None, to_begin=None)
        self.shape = np.shape(ary)
        self.ends = {k: np.shape(options[k]) for k in _EDIFF_ARGS if options[k] is not None}
        self.begin = int(np.prod(self.ends.get("to_begin", (0,))))
        self.size = int(np.prod(self.shape))

    def adjoint(self, out_bar: Any) -> dict[str, Any]:
        """The cotangents of ``ary``, ``to_begin`` and ``to_end``, unprojected."""
        g = as_array(out_bar).reshape(-1)
        middle = g[self.begin : self.begin + max(self.size - 1, 0)]
        ary_bar = diff_adjoint(middle) if self.size else middle
        bars = {"ary": ary_bar.reshape(self.shape)}
        if "to_begin" in self.ends:
            bars["to_begin"] = g[: self.begin].reshape(self.ends["to_begin"])
        if "to_end" in self.ends:
            bars["to_end"] = g[self.begin + max(self.size - 1, 0) :].reshape(self.ends["to_end"])
        return bars


@rrule.register(np.ediff1d)
def _rrule_ediff1d(f: Any, ary: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(ary, *args, **kwargs)
    layout = _Ediff(ary, args, kwargs)
    project_ary = ProjectTo(ary)
    projects = [ProjectTo(v) for v in args]
    shape = value_shape(out)

    def ediff1d_pullback(out_bar: Any) -> tuple[Any, ...]:
        bars = layout.adjoint(checked_seed(f, out_bar, shape))
        arg_bars = [project(bars.get(name, ZeroTangent())) for project, name in zip(projects, _EDIFF_ARGS)]
        return (NoTangent(), project_ary(bars["ary"]), *arg_bars)

    return out, ediff1d_pullback


@frule.register(np.ediff1d)
def _frule_ediff1d(tangents: tuple[Any, ...], f: Any, ary: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(ary, *args, **kwargs)
    dots = checked_tangents(f, tangents, (ary, *args))
    project_out = ProjectTo(out)
    if project_out.is_no_tangent:
        return out, NoTangent()
    options = bind_options(_EDIFF_ARGS, args, kwargs, to_end=None, to_begin=None)
    ends = {}
    for i, name in enumerate(_EDIFF_ARGS):
        if options[name] is not None:  # a keyword end is a constant: its tangent is zero
            dot = dots[1 + i] if i < len(args) else NoTangent()
            ends[name] = instantiate_zeros(dot, options[name])
    ary_dot = instantiate_zeros(dots[0], ary)
    return out, project_out(np.ediff1d(ary_dot, **ends))


# ----- fast paths -----


@functools.lru_cache(maxsize=64)
def _reversing(ndim: int, axis: int | None) -> tuple[slice, ...] | None:
    """The index that reverses the scanned axis of an ``ndim``-d array, or ``None`` for an axis numpy refuses."""
    if axis is None:
        return (slice(None, None, -1),)
    if not -ndim <= axis < ndim:
        return None
    return (slice(None),) * (axis % ndim) + (slice(None, None, -1),)


def _fast_cumsum(pullback_of: PullbackOf) -> Any:
    """The fast path of ``cumsum(x)`` or ``cumsum(x, axis)`` of a float array of at least one entry: the seed
    reversed, summed and reversed by slicing; other calls and seeds take the general rule."""

    def _rrule_cumsum(rule: Any, f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        axis = plain_axis(args, kwargs)
        if axis is OTHER_OPTIONS or not is_plain_float_array(x) or not x.ndim:
            return rule(f, x, *args, **kwargs)
        reverse = _reversing(x.ndim, axis)
        if reverse is None:
            return rule(f, x, *args, **kwargs)
        out = f(x, *args, **kwargs)
        flat = axis is None and x.ndim > 1

        def cumsum_pullback(out_bar: Any) -> tuple[Any, ...]:
            if type(out_bar) is not np.ndarray or out_bar.shape != out.shape or out_bar.dtype != x.dtype:
                return pullback_of(f, x, args, kwargs, out)(out_bar)
            x_bar = out_bar[reverse].cumsum(axis)[reverse]
            return (_NO_TANGENT, x_bar.reshape(x.shape) if flat else x_bar, *(_NO_TANGENT,) * len(args))

        return out, cumsum_pullback

    return _rrule_cumsum


for _f in (np.cumsum, np.ndarray.cumsum):
    rrule.fast_path(_f)(named_after(_f, _fast_cumsum(_PULLBACK_OF[_f])))
