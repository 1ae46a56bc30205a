"""Cumulative operations: cumsum, cumprod (exact with zeros) and diff.

``axis=None`` works on the flattened input; ``dtype=`` casts the cotangent
back to the input's dtype; ``out=`` gets no rule (``None``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core import NoTangent, ProjectTo, frule, rrule, sum_to_shape, unthunk

from ._arrays import NOVALUE, bind_options, instantiate_zeros, is_given
from ._makers import linear_in_first_rule, rule_in_first
from ._reducing import cotangent_dtype, seed_as

_ARGS = ("axis", "dtype", "out")


def _along_last(x: Any, axis: Any) -> np.ndarray[Any, Any]:
    """``x`` with the scanned axis last (flattened, whatever its shape, when ``axis`` is None)."""
    values = np.asarray(x)
    return values.reshape(-1) if axis is None else np.moveaxis(values, axis, -1)


def _back(v: np.ndarray[Any, Any], x: Any, axis: Any) -> np.ndarray[Any, Any]:
    """Undo ``_along_last`` on a cotangent of ``x``."""
    return v.reshape(np.shape(x)) if axis is None else np.moveaxis(v, -1, axis)


def _reverse_cumsum(v: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``sum_{i >= k} v_i`` along the last axis."""
    return np.flip(np.cumsum(np.flip(v, -1), -1), -1)


def _no_out(x: Any, *args: Any, **kwargs: Any) -> bool:
    return not is_given(bind_options(_ARGS, args, kwargs).get("out"))


def _cumsum_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    axis = bind_options(_ARGS, args, kwargs).get("axis")
    seed = seed_as(out_bar, cotangent_dtype(x))
    return _back(_reverse_cumsum(_along_last(seed, axis)), x, axis)


for _f in (np.cumsum, np.ndarray.cumsum):
    linear_in_first_rule(_f, _cumsum_adjoint, applies=_no_out)


# ----- cumprod -----


class _Scan:
    """A cumulative product along the last axis, split at each row's first zero.

    Before the first zero every entry is nonzero and the usual quotient
    formulas are exact; at the first zero the derivative is the product of
    the entries before it times those after it; past it every derivative
    vanishes (the product holds two zeros). These are ChainRules.jl's
    ``∇cumprod`` cases, vectorised over rows.
    """

    def __init__(self, x: np.ndarray[Any, Any]) -> None:
        n = x.shape[-1]
        is_zero = x == 0
        self.first = np.where(np.any(is_zero, axis=-1), np.argmax(is_zero, axis=-1), n)[..., None]
        index = np.arange(n)
        self.before = index < self.first
        self.at = index == self.first
        self.x = x
        self.safe = np.where(self.before, x, np.ones((), dtype=x.dtype))
        self.out = np.cumprod(self.safe, axis=-1)  # cumprod(x) before the first zero
        # prod_{first < j <= i} x_j, for i >= first
        self.after = np.cumprod(np.where(index > self.first, x, np.ones((), dtype=x.dtype)), axis=-1)
        self.lead = np.prod(self.safe, axis=-1, keepdims=True)  # the product before the first zero

    def pullback(self, g: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
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


def _cumprod_options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    options = bind_options(_ARGS, args, kwargs)
    return None if is_given(options["out"]) else options


def _cumprod_state(x: Any, options: dict[str, Any], out: Any) -> tuple[Any, Any]:
    return x, options["axis"]


def _cumprod_cotangent(state: tuple[Any, Any], out_bar: Any) -> Any:
    x, axis = state
    seed = seed_as(out_bar, cotangent_dtype(x))
    x_bar = _Scan(np.conjugate(_along_last(x, axis))).pullback(_along_last(seed, axis))
    return _back(x_bar, x, axis)


def _cumprod_pushforward(state: tuple[Any, Any], x_dot: Any) -> Any:
    x, axis = state
    out_dot = _Scan(_along_last(x, axis)).pushforward(_along_last(x_dot, axis))
    return out_dot if axis is None else np.moveaxis(out_dot, -1, axis)


for _f in (np.cumprod, np.ndarray.cumprod):
    rule_in_first(
        _f,
        parse=_cumprod_options,
        prepare=_cumprod_state,
        pullback=_cumprod_cotangent,
        pushforward=_cumprod_pushforward,
    )


# ----- diff -----

_DIFF_ARGS = ("n", "axis", "prepend", "append")


class _Diff:
    """The layout of ``diff``'s input: ``concatenate([prepend, a, append], axis)``."""

    def __init__(self, a: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        options = bind_options(_DIFF_ARGS, args, kwargs, n=1, axis=-1, prepend=NOVALUE, append=NOVALUE)
        shape = np.shape(a)
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
        """The cotangents of prepend, a and append, unprojected."""
        c_bar = np.asarray(out_bar)
        for _ in range(self.n):  # the adjoint of one difference is minus a difference of the zero-padded seed
            c_bar = -np.diff(c_bar, axis=self.axis, prepend=0, append=0)
        stops = np.cumsum(self.lengths)
        pieces = np.split(c_bar, stops[:2], axis=self.axis)
        return [pieces[0], pieces[1], pieces[2]]


def _rrule_diff(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(a, *args, **kwargs)
    layout = _Diff(a, args, kwargs)
    project_a = ProjectTo(a)
    projects = [ProjectTo(v) if is_given(v) else None for v, _ in layout.parts]
    zeros = tuple(NoTangent() for _ in args)

    def diff_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = unthunk(out_bar)
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
    if ProjectTo(out).is_no_tangent:
        return out, NoTangent()
    dots = list(tangents[2:]) + [None] * (4 - len(args))
    options = bind_options(_DIFF_ARGS, args, kwargs, n=1, axis=-1, prepend=NOVALUE, append=NOVALUE)
    extra = {}
    for i, name in ((2, "prepend"), (3, "append")):
        if is_given(options[name]):
            extra[name] = instantiate_zeros(NoTangent() if dots[i] is None else dots[i], options[name])
    a_dot = instantiate_zeros(tangents[1], a)
    return out, ProjectTo(out)(np.diff(a_dot, n=options["n"], axis=options["axis"], **extra))


rrule.register(np.diff)(_rrule_diff)
frule.register(np.diff)(_frule_diff)
