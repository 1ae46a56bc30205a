"""Helpers shared by the array rule families: arguments, axes, zeros and linear rules."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    Tangent,
    ZeroTangent,
    backing,
    frule,
    rrule,
    unthunk,
)

NOVALUE: Any = getattr(np, "_NoValue", None)
"""numpy's marker for an argument that was not given (``initial``, ``prepend`` ...)."""


def bind(names: Sequence[str], args: tuple[Any, ...], kwargs: dict[str, Any], **defaults: Any) -> dict[str, Any]:
    """The options of a call given positionally as ``args`` and by name as ``kwargs``; ``None`` if not given."""
    options = dict.fromkeys(names)
    options.update(defaults)
    options.update(zip(names, args))
    options.update(kwargs)
    return options


def given(value: Any) -> bool:
    """Whether an optional argument was passed: not ``None`` nor numpy's "no value"."""
    return value is not None and value is not NOVALUE


def reduced_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """``axis`` of a reduction as a sorted tuple of non-negative axes (``None``: all of them)."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(sorted(int(a) % ndim for a in axis))
    return (int(axis) % ndim,) if ndim else ()


def kept_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` with the reduced ``axes`` kept as size 1 (the ``keepdims=True`` shape)."""
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def real_dtype_of(x: Any) -> np.dtype[Any] | None:
    """The float or complex dtype of a differentiable ``x``, or ``None`` for ints, bools and the like."""
    dtype = x.dtype if isinstance(x, (np.ndarray, np.generic)) else np.asarray(x).dtype
    return dtype if dtype.kind in "fc" else None


def cast_to(dx: Any, dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
    """``dx`` as an array of ``dtype``, keeping the real part for a real dtype."""
    dx = np.asarray(dx)
    if dx.dtype.kind == "c" and dtype.kind != "c":
        dx = dx.real
    return dx.astype(dtype, copy=False)


def zero_tangent(x: Any) -> AbstractZero:
    """The zero tangent of ``x``: ``NoTangent()`` where ``x`` has no tangent space."""
    return NoTangent() if ProjectTo(x).is_no_tangent else ZeroTangent()


def dense(t: Any, x: Any) -> Any:
    """The tangent ``t`` of ``x`` with its zeros made explicit, for rules that combine tangents."""
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        if isinstance(x, (list, tuple)):
            return [dense(t, v) for v in x]
        return np.zeros(np.shape(x), dtype=real_dtype_of(x) or np.float64)
    if isinstance(x, (list, tuple)):
        items = backing(t) if isinstance(t, Tangent) else t
        return [dense(ti, v) for ti, v in zip(items, x)]
    return t


def entries(t: Any, n: int) -> list[Any]:
    """The entries of a cotangent of a list or tuple output: a zero gives ``n`` zeros."""
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return [t] * n
    items = list(backing(t)) if isinstance(t, Tangent) else list(t)
    return [unthunk(v) for v in items]


Adjoint = Callable[..., Any]
_NO_TANGENT = ProjectTo(None)


def linear_rule(
    f: Callable[..., Any],
    adjoint: Adjoint,
    *,
    pushforward: Callable[..., Any] | None = None,
    applies: Callable[..., bool] | None = None,
    types: tuple[type, ...] = (),
) -> None:
    """Register ``frule`` and ``rrule`` for ``f(x, *args, **kwargs)``, linear in ``x``.

    Every other argument is non-differentiable. The pushforward is
    ``f(x_dot, *args, **kwargs)`` unless ``pushforward`` says otherwise; the
    pullback projects ``adjoint(out_bar, x, *args, **kwargs)`` onto ``x``.
    ``applies(x, *args, **kwargs)`` returning false makes both rules answer
    ``None`` (refused keywords such as ``out=``). An output without a tangent
    space (a cast to an integer dtype) makes the call non-differentiable:
    ``NoTangent()`` for the output and every argument. ``types`` registers
    the rules for those argument types only.
    """
    push = pushforward or f

    @rrule.register(f, *types)
    def _rrule_linear(f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        if applies is not None and not applies(x, *args, **kwargs):
            return None
        out = f(x, *args, **kwargs)
        project_x = _NO_TANGENT if ProjectTo(out).is_no_tangent else ProjectTo(x)
        others = (NoTangent(),) * len(args)

        def linear_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = unthunk(out_bar)
            if isinstance(out_bar, AbstractZero) or project_x.is_no_tangent:
                return (NoTangent(), zero_cotangent(project_x), *others)
            return (NoTangent(), project_x(adjoint(out_bar, x, *args, **kwargs)), *others)

        return out, linear_pullback

    @frule.register(f, *types)
    def _frule_linear(tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        if applies is not None and not applies(x, *args, **kwargs):
            return None
        out = f(x, *args, **kwargs)
        project_out = ProjectTo(out)
        x_dot = unthunk(tangents[1])
        if project_out.is_no_tangent:
            return out, NoTangent()
        if isinstance(x_dot, AbstractZero) or ProjectTo(x).is_no_tangent:
            return out, ZeroTangent()
        if isinstance(x, (list, tuple)):
            x_dot = dense(x_dot, x)
        return out, project_out(push(x_dot, *args, **kwargs))


def unary_rule(
    f: Callable[..., Any],
    options: Callable[..., dict[str, Any] | None],
    prepare: Callable[..., Any],
    cotangent: Callable[..., Any],
    pushforward: Callable[..., Any],
    evaluate: Callable[..., Any] | None = None,
) -> None:
    """Register ``frule`` and ``rrule`` for ``f(x, *args, **kwargs)``, differentiable in ``x`` only.

    ``options(args, kwargs)`` parses the call (``None`` refuses it: both rules
    answer ``None``); ``prepare(x, options, out)`` keeps what the derivative
    needs; ``cotangent(state, out_bar)`` is ``x``'s cotangent before
    projection (or a zero) and ``pushforward(state, x_dot)`` the output's
    tangent. ``evaluate(f, x, args, kwargs, options)`` computes the primal
    when the rule has a cheaper way than calling ``f``.
    """

    def primal(f: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any], found: dict[str, Any]) -> Any:
        return f(x, *args, **kwargs) if evaluate is None else evaluate(f, x, args, kwargs, found)

    @rrule.register(f)
    def _rrule_unary(f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        found = options(args, kwargs)
        if found is None:
            return None
        out = primal(f, x, args, kwargs, found)
        state = prepare(x, found, out)
        project_x = ProjectTo(x)
        others = (NoTangent(),) * len(args)

        def unary_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = unthunk(out_bar)
            if isinstance(out_bar, AbstractZero) or project_x.is_no_tangent:
                return (NoTangent(), zero_cotangent(project_x), *others)
            x_bar = cotangent(state, out_bar)
            if isinstance(x_bar, AbstractZero):
                return (NoTangent(), zero_cotangent(project_x), *others)
            return (NoTangent(), project_x(x_bar), *others)

        return out, unary_pullback

    @frule.register(f)
    def _frule_unary(tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        found = options(args, kwargs)
        if found is None:
            return None
        out = primal(f, x, args, kwargs, found)
        x_dot = unthunk(tangents[1])
        if isinstance(x_dot, AbstractZero) or ProjectTo(x).is_no_tangent:
            return out, zero_tangent(out)
        return out, ProjectTo(out)(pushforward(prepare(x, found, out), x_dot))


def zero_cotangent(project: Any) -> AbstractZero:
    """The zero cotangent an input with projector ``project`` gets from a zero seed."""
    return NoTangent() if project.is_no_tangent else ZeroTangent()


def no_out(x: Any, *args: Any, out: Any = None, **kwargs: Any) -> bool:
    """``applies`` for functions whose only refused keyword is ``out=``: the primal would write a buffer."""
    return out is None


def scatter_add(size: int, index: Any, values: Any, dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
    """``x_bar`` of ``size`` entries with ``x_bar[index[k]] += values[k]``: repeated indices accumulate.

    ``np.bincount`` does it in one pass (several times faster than
    ``np.add.at``); a complex ``values`` takes one pass per part.
    """
    index = np.ravel(index)
    values = np.ravel(values)
    if values.dtype.kind == "c":
        summed = np.bincount(index, values.real, size) + 1j * np.bincount(index, values.imag, size)
    else:
        summed = np.bincount(index, values, size)
    return cast_to(summed, dtype)


def diagonal_adjoint(
    d_bar: Any, shape: tuple[int, ...], dtype: np.dtype[Any], offset: int, axis1: int, axis2: int
) -> np.ndarray[Any, Any]:
    """Zeros of ``shape`` with ``d_bar`` written on the diagonal that ``np.diagonal`` would read.

    ``d_bar`` has the diagonal along its last axis (``np.diagonal``'s layout) or broadcasts to it.
    """
    x_bar = np.zeros(shape, dtype=dtype)
    moved = np.moveaxis(x_bar, (axis1, axis2), (-2, -1))
    rows, cols = moved.shape[-2:]
    n = max(0, min(rows + min(offset, 0), cols - max(offset, 0)))
    i = np.arange(n) - min(offset, 0)
    moved[..., i, i + offset] = cast_to(d_bar, dtype)
    return x_bar
