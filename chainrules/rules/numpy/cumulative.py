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
    follow,
    frule,
    is_followed,
    named_after,
    rrule,
    sum_to_shape,
    value_shape,
)
from chainrules_core.array_api import call_in, dtype_in
from chainrules_core.arrays import (
    device_of,
    has_unknown_shape,
    is_complex_dtype,
    is_foreign_array,
    is_inexact_dtype,
    namespace_of,
    refusal,
    zeros_like,
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
from ._reducing import cotangent_dtype, diff_adjoint, nan_mask, seed_as, slice_along, unless_integer_output
from .linalg._common import as_array

_ARGS = ("axis", "dtype", "out")
_NO_TANGENT = NoTangent()


def _known_shape(f: Any, x: Any) -> tuple[int, ...]:
    """``x``'s shape; a dask array's unknown lengths refused (the rules need them)."""
    if not is_foreign_array(x):
        return np.shape(x)
    if has_unknown_shape(x):
        raise refusal(f, x, "its rule needs the input's shape, which dask has not computed")
    return tuple(x.shape)


def _along_last(xp: Any, x: Any, axis: Any) -> Any:
    """``x`` with the scanned axis last (flattened, whatever its shape, when ``axis`` is None)."""
    return xp.reshape(x, (-1,)) if axis is None else xp.moveaxis(x, axis, -1)


def _scanned_axis(x: Any, axis: Any) -> Any:
    """The axis the scan runs along: ``None`` (flattened) for a 0-d array, which numpy scans as one entry."""
    return None if len(getattr(x, "shape", np.shape(x))) == 0 else axis


def _cumsum(xp: Any, v: Any) -> Any:
    """The cumulative sum along the last axis: numpy's ``cumsum`` (which an engine following ``v`` answers), the
    standard's ``cumulative_sum``."""
    return np.cumsum(v, axis=-1) if xp is np else xp.cumulative_sum(v, axis=-1)


def _cumprod(xp: Any, v: Any) -> Any:
    return np.cumprod(v, axis=-1) if xp is np else xp.cumulative_prod(v, axis=-1)


def _reverse_cumsum(xp: Any, v: Any) -> Any:
    """``sum_{i >= k} v_i`` along the last axis."""
    return xp.flip(_cumsum(xp, xp.flip(v, axis=-1)), axis=-1)


def _conj(xp: Any, a: Any) -> Any:
    """The complex conjugate, ``a`` itself when real (the standard's ``conj`` wants complex input)."""
    if xp is np:
        return np.conjugate(a)
    return xp.conj(a) if is_complex_dtype(xp, a.dtype) else a


def _zero(xp: Any, a: Any) -> Any:
    """A zero to select with ``where`` beside ``a``: numpy's of ``a``'s dtype, a Python 0 for the standard."""
    return np.zeros((), dtype=a.dtype) if xp is np else 0


class _Cumulative:
    """One call of a cumulative sum or product: the values scanned, the axis, a leading constant.

    ``fill`` is what a NaN counts as in the NaN-skipping forms (0 for sums, 1
    for products); the others leave NaNs alone. ``xp`` is the input's namespace.
    """

    fill: float | None = None

    def __init__(self, x: Any, options: dict[str, Any], out: Any) -> None:
        self.x = x
        self.out = out
        self.xp = xp = namespace_of(x)
        self.shape = _known_shape(options["f"], x)
        self.axis = _scanned_axis(x, options.get("axis"))
        self.initial = bool(options.get("include_initial"))
        self.out_shape = np.shape(out) if xp is np else tuple(out.shape)
        values = as_array(x) if xp is np else x
        self.precision = None  # dtype=: the scan in the output's precision, as the primal computes it
        dtype = dtype_in(xp, options.get("dtype"))
        if dtype is not None and cotangent_dtype(x) is not None and is_inexact_dtype(xp, dtype):
            precision = np.result_type(values, dtype) if xp is np else xp.result_type(x.dtype, dtype)
            if precision != values.dtype:
                self.precision = precision
                values = values.astype(precision) if xp is np else xp.astype(values, precision)
        self.valid = nan_mask(values) if self.fill is not None else None
        if self.valid is not None:
            fill = np.asarray(self.fill, dtype=values.dtype) if xp is np else self.fill
            values = xp.where(self.valid, values, fill)
        self.values = _along_last(xp, values, self.axis)

    def seed(self, out_bar: Any) -> Any:
        """The seed in the input's dtype with the scanned axis last, the leading constant's entry dropped."""
        dtype = cotangent_dtype(self.x) if self.precision is None else self.precision
        seed = _along_last(self.xp, seed_as(out_bar, dtype, self.x), self.axis)
        return seed[..., 1:] if self.initial else seed

    def cotangent(self, x_bar: Any) -> Any:
        """A cotangent with the scanned axis last, moved back to ``x``'s layout; NaN entries zero."""
        xp = self.xp
        x_bar = xp.reshape(x_bar, self.shape) if self.axis is None else xp.moveaxis(x_bar, -1, self.axis)
        return x_bar if self.valid is None else xp.where(self.valid, x_bar, _zero(xp, x_bar))

    def tangent_in(self, x_dot: Any) -> Any:
        xp = self.xp
        if xp is np:
            x_dot = as_array(x_dot)
        if self.precision is not None:
            x_dot = x_dot.astype(self.precision) if xp is np else xp.astype(x_dot, self.precision)
        if self.valid is not None:
            x_dot = xp.where(self.valid, x_dot, _zero(xp, x_dot))
        return _along_last(xp, x_dot, self.axis)

    def tangent_out(self, out_dot: Any) -> Any:
        xp = self.xp
        if self.initial:  # the leading 0 or 1 is a constant
            zeros = xp.zeros((*out_dot.shape[:-1], 1), dtype=out_dot.dtype, device=device_of(out_dot))
            out_dot = xp.concat([zeros, out_dot], axis=-1)
        return xp.reshape(out_dot, self.out_shape) if self.axis is None else xp.moveaxis(out_dot, -1, self.axis)


class _NanSum(_Cumulative):
    fill = 0.0


class _NanProduct(_Cumulative):
    fill = 1.0


def _primal(f: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any], options: dict[str, Any]) -> Any:
    """The output: numpy's call (an engine's followed value answers it), another library's through ``call_in``;
    the flattened scan of dask's nancumsum and nancumprod, which want an axis, along the raveled input."""
    if not is_foreign_array(x):
        return follow(f, x, *args, **kwargs) if is_followed(x) else f(x, *args, **kwargs)
    xp = namespace_of(x)
    if options["axis"] is not None or f not in (np.nancumsum, np.nancumprod):
        return call_in(xp, f, x, *args, **kwargs)
    dtype = {} if options["dtype"] is None else {"dtype": options["dtype"]}
    return call_in(xp, f, xp.reshape(x, (-1,)), axis=0, **dtype)


def _options(f: Any) -> Any:
    def options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
        options = bind_options(_ARGS, args, kwargs, f=f)
        return None if is_given(options["out"]) else options

    return options


# ----- cumsum: the adjoint sums the seed from each entry to the end -----


def _cumsum_cotangent(c: _Cumulative, out_bar: Any) -> Any:
    return c.cotangent(_reverse_cumsum(c.xp, c.seed(out_bar)))


def _cumsum_tangent(c: _Cumulative, x_dot: Any) -> Any:
    return c.tangent_out(_cumsum(c.xp, c.tangent_in(x_dot)))


# ----- cumprod -----


class _Scan:
    """A cumulative product along the last axis, split at each row's first zero.

    Before the first zero every entry is nonzero and the usual quotient
    formulas are exact; at the first zero the derivative is the product of
    the entries before it times those after it; past it every derivative
    vanishes (the product holds two zeros). These are ChainRules.jl's
    ``∇cumprod`` cases, vectorised over rows: the count of zeros up to each
    entry (a cumulative sum) says which case it is in.

    Past a zero those cases are constants (0), though the derivatives there
    move with the zero itself (``d/dx_z`` of a product past ``z`` is the
    product without ``x_z``). So when an engine follows an input holding a
    zero (nested differentiation), the pullback and pushforward take the
    products themselves, without a quotient: row ``k`` of a square array is
    ``x`` with ``x_k`` replaced (by 1 for the pullback, by ``x_dot_k`` for the
    pushforward) and its cumulative product is ``prod_{j <= i, j != k} x_j``
    (times ``x_dot_k``) for ``i >= k``: O(n^2), polynomials in ``x`` that the
    engine differentiates exactly.
    """

    def __init__(self, xp: Any, x: Any) -> None:
        self.xp = xp
        zeros = x == 0
        self.dense = is_followed(x) and bool(np.any(zeros))
        self.x = x
        if self.dense:
            return
        if xp is np:
            seen = np.cumsum(zeros, axis=-1)  # how many zeros up to each entry
        else:  # the standard sums no booleans
            seen = xp.cumulative_sum(xp.astype(zeros, xp.int64), axis=-1)
        self.before = seen == 0
        self.at = zeros & (seen == 1)
        one = np.ones((), dtype=x.dtype) if xp is np else 1
        self.safe = xp.where(self.before, x, one)
        self.out = _cumprod(xp, self.safe)  # cumprod(x) before the first zero
        # prod_{first < j <= i} x_j, for i >= first
        self.after = _cumprod(xp, xp.where(self.before | self.at, one, x))
        self.lead = xp.prod(self.safe, axis=-1, keepdims=True)  # the product before the first zero

    def cotangent(self, g: Any) -> Any:
        """``sum_{i >= k} g_i prod_{j <= i, j != k} x_j`` (no conjugation)."""
        xp = self.xp
        if self.dense:
            eye, later = _square_masks(self.x)
            products = np.cumprod(np.where(eye, 1, self.x[..., None, :]), axis=-1)  # [k, i]: x_k left out
            return np.sum(np.where(later, products * g[..., None, :], 0), axis=-1)
        ahead = _reverse_cumsum(xp, xp.where(self.before, g * self.out, 0))
        x_bar = xp.where(self.before, ahead / self.safe, 0)
        at_zero = self.lead * xp.sum(xp.where(self.before, 0, g * self.after), axis=-1, keepdims=True)
        return xp.where(self.at, at_zero, x_bar)

    def pushforward(self, x_dot: Any) -> Any:
        """``sum_{k <= i} x_dot_k prod_{j <= i, j != k} x_j``."""
        xp = self.xp
        if self.dense:
            eye, later = _square_masks(self.x)
            products = np.cumprod(np.where(eye, x_dot[..., None, :], self.x[..., None, :]), axis=-1)  # x_k -> x_dot_k
            return np.sum(np.where(later, products, 0), axis=-2)
        early = self.out * _cumsum(xp, xp.where(self.before, x_dot / self.safe, 0))
        x_dot_at = xp.sum(xp.where(self.at, x_dot, 0), axis=-1, keepdims=True)
        return xp.where(self.before, early, self.lead * x_dot_at * self.after)


def _square_masks(x: Any) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """For rows ``k`` and columns ``i`` of the scanned axis: ``i == k``, and ``i >= k``."""
    n = np.shape(x)[-1]
    return np.eye(n, dtype=bool), np.triu(np.ones((n, n), dtype=bool))


def _cumprod_cotangent(c: _Cumulative, out_bar: Any) -> Any:
    return c.cotangent(_Scan(c.xp, _conj(c.xp, c.values)).cotangent(c.seed(out_bar)))


def _cumprod_tangent(c: _Cumulative, x_dot: Any) -> Any:
    return c.tangent_out(_Scan(c.xp, c.values).pushforward(c.tangent_in(x_dot)))


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
            _f,
            parse=_options(_f),
            prepare=_prepare,
            cotangent=unless_integer_output(_cotangent),
            tangent=_tangent,
            primal=_primal if _f in (np.nancumsum, np.nancumprod) else None,
            # cumulative_sum and cumulative_prod are the standard's; cumsum and the NaN-skipping scans dask's
            generic=not isinstance(_f, type(np.ndarray.cumsum)),
        )


# ----- diff -----

_DIFF_ARGS = ("n", "axis", "prepend", "append")


def _piece(x: Any, start: int, stop: int | None, axis: int) -> Any:
    return x[slice_along(axis, slice(start, stop))]


class _Diff:
    """The layout of ``diff``'s input: ``concatenate([prepend, a, append], axis)``."""

    def __init__(self, a: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        options = bind_options(_DIFF_ARGS, args, kwargs, n=1, axis=-1, prepend=NOVALUE, append=NOVALUE)
        shape = self.shape = _known_shape(np.diff, a)
        self.n = int(options["n"])
        self.axis = int(options["axis"]) % max(len(shape), 1)
        self.parts = [
            (options[k], tuple(getattr(options[k], "shape", np.shape(options[k])))) for k in ("prepend", "append")
        ]
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
        if not is_foreign_array(out_bar):
            xp, c_bar, device = np, as_array(out_bar), None
        else:
            xp, c_bar, device = namespace_of(out_bar), out_bar, device_of(out_bar)
        head, tail = (xp.zeros(part_shape, dtype=c_bar.dtype, device=device) for _, part_shape in self.parts)
        if self.n == 0:
            return [head, c_bar, tail]
        if self.n >= sum(self.lengths):
            return [head, xp.zeros(self.shape, dtype=c_bar.dtype, device=device), tail]
        for _ in range(self.n):
            c_bar = diff_adjoint(c_bar, self.axis)
        first, second = self.lengths[0], self.lengths[0] + self.lengths[1]
        return [
            _piece(c_bar, 0, first, self.axis),
            _piece(c_bar, first, second, self.axis),
            _piece(c_bar, second, None, self.axis),
        ]


def _diff(a: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``np.diff(a, *args, **kwargs)``: numpy's call, or another library's with a number or a lower-dimensional
    ``prepend``/``append`` broadcast as numpy does (the standard wants arrays of ``a``'s shape along the others)."""
    if not is_foreign_array(a) and not any(is_foreign_array(v) for v in args):
        return np.diff(a, *args, **kwargs)
    xp = namespace_of(a, *args)
    options = bind_options(_DIFF_ARGS, args, kwargs, n=1, axis=-1, prepend=NOVALUE, append=NOVALUE)
    axis = int(options["axis"])
    ends = {}
    for name in ("prepend", "append"):
        value = options[name]
        if is_given(value):
            shape = [*a.shape]
            shape[axis] = 1
            if len(getattr(value, "shape", np.shape(value))) == 0:
                value = xp.broadcast_to(xp.asarray(value, dtype=a.dtype, device=device_of(a)), tuple(shape))
            elif not is_foreign_array(value):
                value = xp.asarray(value, dtype=a.dtype, device=device_of(a))
            ends[name] = value
    return call_in(xp, np.diff, a, n=options["n"], axis=axis, **ends)


def _rrule_diff(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    out = _diff(a, args, kwargs)
    layout = _Diff(a, args, kwargs)
    project_a = ProjectTo(a)
    projects = [ProjectTo(v) if is_given(v) else None for v, _ in layout.parts]
    zeros = tuple(NoTangent() for _ in args)
    shape = value_shape(out)

    def diff_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, shape)
        arg_bars = list(zeros)
        if isinstance(out_bar, AbstractZero):  # a zero seed (an integer output's): zeros, as the projectors give them
            for i, project in zip((2, 3), projects):
                if i < len(args) and project is not None:
                    arg_bars[i] = project(ZeroTangent())
            return (NoTangent(), project_a(ZeroTangent()), *arg_bars)
        head, middle, tail = layout.adjoint(out_bar)
        for i, (j, piece) in zip((2, 3), ((0, head), (1, tail))):
            project = projects[j]
            if i < len(args) and project is not None:
                arg_bars[i] = project(sum_to_shape(piece, layout.parts[j][1]))
        return (NoTangent(), project_a(middle), *arg_bars)

    return out, diff_pullback


def _explicit(t: Any, x: Any) -> Any:
    """A tangent with its zeros made arrays of ``x``'s library (``instantiate_zeros``, for numpy's)."""
    if is_foreign_array(x) and isinstance(t, ZeroTangent | NoTangent):
        return zeros_like(x, tuple(x.shape))
    return instantiate_zeros(t, x)


def _frule_diff(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    out = _diff(a, args, kwargs)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    dots = [checked_tangent(f, t, v, k) for k, (t, v) in enumerate(zip(tangents[2:], args), start=2)]
    dots += [None] * (4 - len(args))
    if ProjectTo(out).is_no_tangent:
        return out, NoTangent()
    options = bind_options(_DIFF_ARGS, args, kwargs, n=1, axis=-1, prepend=NOVALUE, append=NOVALUE)
    ends = [NOVALUE, NOVALUE]
    for i, name in ((2, "prepend"), (3, "append")):
        if is_given(options[name]):
            ends[i - 2] = _explicit(NoTangent() if dots[i] is None else dots[i], options[name])
    a_dot = _explicit(a_dot, a)
    # the ends' tangents positionally: an engine following them (nested differentiation) takes no keyword values
    return out, ProjectTo(out)(_diff(a_dot, (options["n"], options["axis"], *ends), {}))


rrule.register(np.diff, generic=True)(_rrule_diff)
frule.register(np.diff, generic=True)(_frule_diff)


# ----- ediff1d: to_begin, the differences of the flattened input, to_end -----

_EDIFF_ARGS = ("to_end", "to_begin")


class _Ediff:
    """The layout of ``ediff1d``'s output: ``concatenate([ravel(to_begin), diff(ravel(ary)), ravel(to_end)])``."""

    def __init__(self, ary: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        options = bind_options(_EDIFF_ARGS, args, kwargs, to_end=None, to_begin=None)
        self.shape = _known_shape(np.ediff1d, ary)
        self.ends = {
            k: tuple(getattr(options[k], "shape", np.shape(options[k]))) for k in _EDIFF_ARGS if options[k] is not None
        }
        self.begin = math.prod(self.ends.get("to_begin", (0,)))
        self.size = math.prod(self.shape)

    def adjoint(self, out_bar: Any) -> dict[str, Any]:
        """The cotangents of ``ary``, ``to_begin`` and ``to_end``, unprojected."""
        xp = np if not is_foreign_array(out_bar) else namespace_of(out_bar)
        g = xp.reshape(as_array(out_bar) if xp is np else out_bar, (-1,))
        middle = g[self.begin : self.begin + max(self.size - 1, 0)]
        ary_bar = diff_adjoint(middle) if self.size else middle
        bars = {"ary": xp.reshape(ary_bar, self.shape)}
        if "to_begin" in self.ends:
            bars["to_begin"] = xp.reshape(g[: self.begin], self.ends["to_begin"])
        if "to_end" in self.ends:
            bars["to_end"] = xp.reshape(g[self.begin + max(self.size - 1, 0) :], self.ends["to_end"])
        return bars


def _ediff1d(ary: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``np.ediff1d``'s output: numpy's call, or the library's own (dask's) through ``call_in``."""
    if not is_foreign_array(ary):
        return np.ediff1d(ary, *args, **kwargs)
    return call_in(namespace_of(ary, *args), np.ediff1d, ary, *args, **kwargs)


@rrule.register(np.ediff1d, generic=True)  # dask computes np.ediff1d itself
def _rrule_ediff1d(f: Any, ary: Any, *args: Any, **kwargs: Any) -> Any:
    out = _ediff1d(ary, args, kwargs)
    layout = _Ediff(ary, args, kwargs)
    project_ary = ProjectTo(ary)
    projects = [ProjectTo(v) for v in args]
    shape = value_shape(out)

    def ediff1d_pullback(out_bar: Any) -> tuple[Any, ...]:
        bars = layout.adjoint(checked_seed(f, out_bar, shape))
        arg_bars = [project(bars.get(name, ZeroTangent())) for project, name in zip(projects, _EDIFF_ARGS)]
        return (NoTangent(), project_ary(bars["ary"]), *arg_bars)

    return out, ediff1d_pullback


@frule.register(np.ediff1d, generic=True)
def _frule_ediff1d(tangents: tuple[Any, ...], f: Any, ary: Any, *args: Any, **kwargs: Any) -> Any:
    out = _ediff1d(ary, args, kwargs)
    dots = checked_tangents(f, tangents, (ary, *args))
    project_out = ProjectTo(out)
    if project_out.is_no_tangent:
        return out, NoTangent()
    options = bind_options(_EDIFF_ARGS, args, kwargs, to_end=None, to_begin=None)
    ends: list[Any] = [None, None]  # to_end, to_begin: positionally, as an engine following them takes them
    for i, name in enumerate(_EDIFF_ARGS):
        if options[name] is not None:  # a keyword end is a constant: its tangent is zero
            dot = dots[1 + i] if i < len(args) else NoTangent()
            ends[i] = _explicit(dot, options[name])
    ary_dot = _explicit(dots[0], ary)
    return out, project_out(_ediff1d(ary_dot, tuple(ends), {}))


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
