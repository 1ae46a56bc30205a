"""Creation: array, asarray, copy, full, full_like, linspace, logspace, geomspace, meshgrid, vander;
zeros, ones, eye, arange ... as non-differentiable.

``np.array``, ``np.asarray`` (and ``ascontiguousarray``, ``asfortranarray``)
of nested lists and tuples of numbers and arrays are differentiable in every
entry: the cotangent of a list is a list, of a tuple ``Tangent(tuple, ...)``,
as ``ProjectTo`` lays them out. A result of an integer or bool dtype is
non-differentiable. The fill value of ``full`` and ``full_like`` is
differentiable (its cotangent is the sum of the seed); shapes and dtypes are
not. The spacing functions are differentiable in ``start`` and ``stop`` (and
``logspace`` in ``base``) passed positionally; ``num``, ``endpoint`` and the
axis are not. ``meshgrid`` returns a tuple: input ``i``'s cotangent is output
``i``'s seed summed over every axis but its own; it runs on every library
that follows the Python Array API standard (its ``meshgrid``; ``sparse=``
reshapes each input along its axis). ``vander``'s columns are powers of ``x``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    ZeroTangent,
    checked_seed,
    follow,
    frule,
    is_followed,
    named_after,
    non_differentiable,
    primal_of,
    rrule,
    sum_to_shape,
    value_shape,
)
from chainrules_core.arrays import device_of, first_foreign_array, is_foreign_array, namespace_of

from .._arrays import bind_options, cast_to, instantiate_zeros, tuple_entries
from .._makers import checked_tangents, linear_in_first_rule, rule_in_first


def _same_layout(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    """The adjoint of copying ``x`` into an array: the seed in ``x``'s shape (``ndmin`` adds leading 1s)."""
    return np.reshape(out_bar, np.shape(x))


for _f in (np.array, np.asarray, np.asanyarray, np.copy, np.ndarray.copy, np.ascontiguousarray, np.asfortranarray):
    linear_in_first_rule(_f, _same_layout)
linear_in_first_rule(np.require, _same_layout)  # a copy with the flags asked for; ``dtype`` casts as astype does


# ----- full and full_like: the fill value is differentiable -----


def _register_full(f: Any, prototype: bool) -> None:
    """``f(shape_or_prototype, fill_value, ...)``: a prototype's values do not matter (zero cotangent)."""

    def _rrule_full(f: Any, first: Any, *args: Any, **kwargs: Any) -> Any:
        out = follow(f, first, *args, **kwargs)  # np.full of a followed value: one call an engine follows
        first_bar = ProjectTo(first)(ZeroTangent()) if prototype else NoTangent()
        differentiable = bool(args) and not ProjectTo(out).is_no_tangent
        project_fill = ProjectTo(args[0]) if differentiable else ProjectTo(None)
        fill_shape = np.shape(args[0]) if args else ()
        rest = (NoTangent(),) * max(len(args) - 1, 0)
        shape = value_shape(out)

        def full_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = checked_seed(f, out_bar, shape)
            if not args:  # the fill value came by keyword: no tangent
                return NoTangent(), first_bar
            if isinstance(out_bar, AbstractZero) or project_fill.is_no_tangent:
                return NoTangent(), first_bar, project_fill(ZeroTangent()), *rest
            return NoTangent(), first_bar, project_fill(sum_to_shape(np.asarray(out_bar), fill_shape)), *rest

        return out, full_pullback

    def _frule_full(tangents: tuple[Any, ...], f: Any, first: Any, *args: Any, **kwargs: Any) -> Any:
        out = follow(f, first, *args, **kwargs)  # np.full of a followed value: one call an engine follows
        project_out = ProjectTo(out)
        if project_out.is_no_tangent:
            return out, NoTangent()
        dots = checked_tangents(f, tangents, (first, *args))
        fill_dot = dots[1] if args else ZeroTangent()
        if isinstance(fill_dot, AbstractZero):
            return out, ZeroTangent()
        return out, project_out(np.broadcast_to(cast_to(fill_dot, out.dtype), out.shape))

    rrule.register(f)(named_after(f, _rrule_full))
    frule.register(f)(named_after(f, _frule_full))


_register_full(np.full, prototype=False)
_register_full(np.full_like, prototype=True)

# The output does not depend on the values of any argument.
non_differentiable(
    np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like, np.empty_like, np.eye, np.identity, np.tri, np.indices
)
non_differentiable(np.arange)  # float bounds change the length, not smoothly


# ----- linspace, logspace, geomspace: smooth in start, stop (and logspace's base) -----

_SPACE_NAMES = {
    np.linspace: ("start", "stop", "num", "endpoint", "retstep", "dtype", "axis"),
    np.logspace: ("start", "stop", "num", "endpoint", "base", "dtype", "axis"),
    np.geomspace: ("start", "stop", "num", "endpoint", "dtype", "axis"),
}


class _Spacing:
    """One call of a spacing function: its output and the partial of each argument passed positionally.

    Sample ``k`` sits at the fraction ``t_k = k / div`` of the way from
    ``start`` to ``stop`` (``div = num - 1`` with the endpoint, else
    ``num``; ``t = 0`` when ``div`` is 0). With ``start`` and ``stop``
    broadcast to a common shape and given the samples' axis:

    * linspace: ``d out = (1 - t) d start + t d stop``;
    * logspace, ``out = base ** y`` with ``y`` the linspace: ``d out = out log(base) d y + out (y / base) d base``;
    * geomspace, ``out = start (stop / start) ** t``: ``d out = out ((1 - t) d start / start + t d stop / stop)``,
      holomorphic, so complex spirals follow the same formula (numpy's endpoints, set exactly, agree with it).
    """

    def __init__(self, f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.args = args
        self.out = f(*args, **kwargs)
        options = bind_options(_SPACE_NAMES[f], args, kwargs, num=50, endpoint=True, retstep=False, base=10.0, axis=0)
        self.retstep = bool(options["retstep"])
        self.samples = self.out[0] if self.retstep else self.out
        self.constant = ProjectTo(self.samples).is_no_tangent
        self.partials: dict[int, Any] = {}  # argument position -> partial, broadcast against the samples
        if self.constant:
            return
        samples, num, endpoint = self.samples, int(options["num"]), bool(options["endpoint"])
        self.div = num - 1 if endpoint else num
        self.axis = int(options["axis"]) % samples.ndim
        self.common = np.broadcast_shapes(np.shape(options["start"]), np.shape(options["stop"]))
        t = np.arange(num) / self.div if self.div > 0 else np.zeros(num)
        t = t.reshape([num if k == self.axis else 1 for k in range(samples.ndim)])
        if f is np.linspace:
            self.partials[0], self.partials[1] = 1 - t, t
        elif f is np.geomspace:
            start, stop = (self.laid_out(0, options[name]) for name in ("start", "stop"))
            self.partials[0], self.partials[1] = samples * (1 - t) / start, samples * t / stop
        else:
            base = options["base"] if is_followed(options["base"]) else np.asarray(options["base"])
            self.base_axis = int(options["axis"])  # numpy gives an array base that axis, as the caller wrote it
            base = self.laid_out(4, base)
            y = np.linspace(options["start"], options["stop"], num, endpoint, axis=self.axis)
            with np.errstate(invalid="ignore", divide="ignore"):
                # Where out = base ** y is 0 because y or base is infinite (or base is 0), out log(base) and
                # y out / base tend to 0: the power decays faster than log(base) or y grows. At an infinite
                # base, y out / base is y base ** (y - 1): 0 for y < 1, 1 at y = 1, inf above.
                # (which entries are infinite or 0 read off the plain values: an engine may follow them)
                scale = np.where(samples == 0, 0, samples * np.log(base))
                base_partial = np.where(np.isinf(primal_of(base)), y * base ** (y - 1), samples * y / base)
                base_partial = np.where((samples == 0) & np.isinf(primal_of(y)), 0, base_partial)
                self.partials[0] = np.where(t == 1, 0, scale * (1 - t))  # the end sample moves with stop only
                self.partials[1] = np.where(t == 0, 0, scale * t)
            self.partials[4] = base_partial
        self.partials = {k: p for k, p in self.partials.items() if k < len(args)}

    def laid_out(self, k: int, x: Any) -> Any:
        """An argument (or its tangent) laid out against the samples: ``start``/``stop`` broadcast
        to their common shape with the samples' axis inserted; an array ``base`` given that axis."""
        if k == 4:
            return np.expand_dims(x, self.base_axis) if np.ndim(x) else x
        return np.expand_dims(np.broadcast_to(x, self.common), self.axis)

    def pushforward(self, dots: list[Any]) -> Any:
        terms = [
            p * self.laid_out(k, dots[k]) for k, p in self.partials.items() if not isinstance(dots[k], AbstractZero)
        ]
        samples_dot = np.broadcast_to(sum(terms[1:], terms[0]), self.samples.shape) if terms else ZeroTangent()
        if not self.retstep:
            return samples_dot
        return samples_dot, self.step_tangent(dots)

    def step_tangent(self, dots: list[Any]) -> Any:
        """``step = (stop - start) / div``; a constant NaN (zero tangent) when ``div`` is 0."""
        if self.div <= 0:
            return ZeroTangent()
        start_dot, stop_dot = (0.0 if isinstance(d, AbstractZero) else d for d in dots[:2])
        return np.broadcast_to(np.subtract(stop_dot, start_dot) / self.div, self.common)

    def cotangents(self, f: Any, out_bar: Any) -> dict[int, Any]:
        step_bar: Any = ZeroTangent()
        if self.retstep:
            out_bar, step_bar = tuple_entries(out_bar, 2)
            step_bar = checked_seed(f, step_bar, value_shape(self.out[1]))
        out_bar = checked_seed(f, out_bar, self.samples.shape)
        bars: dict[int, Any] = {}
        if not isinstance(out_bar, AbstractZero):
            for k, partial in self.partials.items():
                weighted = np.conj(partial) * out_bar
                if k == 4:
                    bars[k] = sum_to_shape(weighted, np.shape(self.laid_out(4, self.args[4]))).reshape(
                        np.shape(self.args[4])
                    )
                else:
                    bars[k] = sum_to_shape(np.sum(weighted, axis=self.axis), np.shape(self.args[k]))
        if self.div > 0 and not isinstance(step_bar, AbstractZero):
            for k, sign in ((0, -1), (1, 1)):
                if k in self.partials:
                    bars[k] = bars.get(k, 0) + sum_to_shape(
                        sign * np.asarray(step_bar) / self.div, np.shape(self.args[k])
                    )
        return bars


def _register_spacing(f: Any) -> None:
    def _rrule_spacing(f: Any, *args: Any, **kwargs: Any) -> Any:
        call = _Spacing(f, args, kwargs)
        projects = [ProjectTo(x if k in call.partials else None) for k, x in enumerate(args)]

        def spacing_pullback(out_bar: Any) -> tuple[Any, ...]:
            bars = call.cotangents(f, out_bar) if call.partials else {}
            return (NoTangent(), *(p(bars.get(k, ZeroTangent())) for k, p in enumerate(projects)))

        return call.out, spacing_pullback

    def _frule_spacing(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        call = _Spacing(f, args, kwargs)
        if call.constant:
            return call.out, NoTangent()
        dots = [
            t if k in call.partials and not ProjectTo(x).is_no_tangent else ZeroTangent()
            for k, (t, x) in enumerate(zip(checked_tangents(f, tangents, args), args))
        ]
        return call.out, ProjectTo(call.out)(call.pushforward(dots))

    rrule.register(f)(named_after(f, _rrule_spacing))
    frule.register(f)(named_after(f, _frule_spacing))


for _f in _SPACE_NAMES:
    _register_spacing(_f)


# ----- meshgrid: each output is one input laid along its own axis -----


def _meshgrid_axes(n: int, indexing: str) -> list[int]:
    """The axis each input varies along: its position, with the first two swapped for 'xy' indexing."""
    axes = list(range(n))
    if indexing == "xy" and n > 1:
        axes[0], axes[1] = 1, 0
    return axes


@rrule.register(np.meshgrid, generic=True)
def _rrule_meshgrid(f: Any, *xs: Any, **kwargs: Any) -> Any:
    out = _meshgrid_in(f, xs, kwargs)
    axes = _meshgrid_axes(len(xs), kwargs.get("indexing", "xy"))
    projects = [ProjectTo(x) for x in xs]  # output i has the dtype of input i
    shapes = [value_shape(y) for y in out]

    def meshgrid_pullback(out_bar: Any) -> tuple[Any, ...]:
        bars = [checked_seed(f, bar, shape) for bar, shape in zip(tuple_entries(out_bar, len(xs)), shapes)]
        return (
            NoTangent(),
            *(
                project(bar if isinstance(bar, AbstractZero) or project.is_no_tangent else _summed_but(bar, axis, x))
                for project, bar, axis, x in zip(projects, bars, axes, xs)
            ),
        )

    return out, meshgrid_pullback


def _summed_but(bar: Any, axis: int, x: Any) -> Any:
    """``bar`` summed over every axis but ``axis``, in ``x``'s shape (meshgrid reads ``x`` raveled)."""
    xp = namespace_of(bar)
    bar = bar if xp is not np else np.asarray(bar)
    return xp.reshape(xp.sum(bar, axis=tuple(k for k in range(bar.ndim) if k != axis)), tuple(np.shape(x)))


def _meshgrid_in(f: Any, xs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``np.meshgrid(*xs, **kwargs)``; with another library's arrays, the standard's ``meshgrid`` of the inputs
    raveled (Python numbers as 0-d arrays of the first array's dtype), or for ``sparse=True`` each input reshaped
    along its own axis (``copy=`` does not matter: those libraries' arrays are not written into)."""
    like = first_foreign_array(xs)
    if like is None:
        return f(*xs, **kwargs)
    xp, device = namespace_of(like), device_of(like)
    options = bind_options(("copy", "sparse", "indexing"), (), kwargs, sparse=False, indexing="xy")
    flat = [xp.reshape(x if is_foreign_array(x) else xp.asarray(x, dtype=like.dtype, device=device), (-1,)) for x in xs]
    if not options["sparse"]:
        return tuple(xp.meshgrid(*flat, indexing=options["indexing"]))
    axes = _meshgrid_axes(len(xs), options["indexing"])
    return tuple(xp.reshape(v, tuple(-1 if k == axis else 1 for k in range(len(xs)))) for v, axis in zip(flat, axes))


@frule.register(np.meshgrid, generic=True)
def _frule_meshgrid(tangents: tuple[Any, ...], f: Any, *xs: Any, **kwargs: Any) -> Any:
    out = _meshgrid_in(f, xs, kwargs)
    like = first_foreign_array(xs)
    dots = [
        (instantiate_zeros(t, x) if like is None else _dense_in(t, x, like))
        for t, x in zip(checked_tangents(f, tangents, xs), xs)
    ]
    return out, ProjectTo(out)(_meshgrid_in(f, tuple(dots), kwargs))


def _dense_in(t: Any, x: Any, like: Any) -> Any:
    """The tangent ``t`` of ``x`` in ``like``'s library, zeros made explicit."""
    if isinstance(t, AbstractZero):
        return namespace_of(like).zeros(tuple(np.shape(x)), dtype=like.dtype, device=device_of(like))
    return t


# ----- vander: columns of powers -----


def _vander_options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    return bind_options(("N", "increasing"), args, kwargs, increasing=False)


def vander_derivative(x: Any, columns: int, increasing: bool) -> Any:
    """``d V[i, j] / d x[i] = p_j x[i] ** (p_j - 1)`` for ``V = np.vander(x, columns, increasing)`` (0 for ``p_j = 0``).

    The powers one lower are the columns of the Vandermonde matrix with one
    column fewer, so nothing is divided by ``x`` and ``x = 0`` is exact.
    """
    if columns < 2:
        return np.zeros((np.size(x), columns), dtype=np.result_type(x, 1.0))
    lower = np.vander(x, columns - 1, increasing=True) * np.arange(1, columns)
    partials = np.concatenate([np.zeros_like(lower[:, :1]), lower], axis=1)
    return partials if increasing else partials[:, ::-1]


def _vander_partials(x: Any, options: dict[str, Any], out: Any) -> Any:
    return vander_derivative(x, out.shape[1], bool(options["increasing"]))


rule_in_first(
    np.vander,
    parse=_vander_options,
    prepare=_vander_partials,
    cotangent=lambda partials, out_bar: np.sum(np.conj(partials) * out_bar, axis=1),
    tangent=lambda partials, x_dot: partials * np.asarray(x_dot)[:, None],
)
