"""Signal processing: convolve, correlate, interp, unwrap.

``convolve(a, v, mode)`` is bilinear: with ``full = a * v`` (length
``n + m - 1``) and each mode a slice of it, the pullback pads the seed back
to the full length and correlates it with the other argument,
``a_bar = correlate(G, v, 'valid')`` and ``v_bar = correlate(G, a, 'valid')``
(the adjoint of a convolution is a correlation with the conjugate kernel).
``correlate(a, v)`` is the full convolution of ``a`` with ``conj(v[::-1])``
(numpy conjugates its second argument), so ``v_bar`` is the conjugate of the
reversed kernel cotangent. ``same`` keeps numpy's centring.

``interp(x, xp, fp, left, right, period)`` is linear between the knots:
``out = (1 - t) fp_j + t fp_(j+1)`` with ``t = (x - xp_j) / (xp_(j+1) - xp_j)``.
Its partials are the slope ``s_j`` for ``x``, ``1 - t`` and ``t`` for ``fp``,
and ``-(1 - t) s_j`` and ``-t s_j`` for ``xp_j`` and ``xp_(j+1)`` (moving a
knot moves the segment). At a knot the slope jumps: the rules take the mean
of the slopes on either side (the central difference), with slope 0 beyond
the ends; outside ``[xp_0, xp_-1]`` the output is ``left``/``right`` (or
``fp_0``/``fp_-1``), constant in ``x`` and ``xp``; a single knot gives
``fp_0`` (or ``left``/``right``) everywhere. Next to an infinite end knot
numpy gives the limit, ``fp`` of the finite end (``t`` is 1 after ``-inf``
and 0 before ``+inf``), and so do the partials. With ``period`` numpy
wraps ``x`` and ``xp`` into one period, sorts the knots and repeats one
at each end; the cotangents follow those copies back, and a positional
``period`` gets the derivative of the wrapping.

``unwrap(p)`` adds multiples of the period where ``p`` jumps: locally
constant corrections, so the derivative is the identity (away from the
thresholds, where it jumps). ``discont`` is a threshold: no tangent.
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
    checked_tangent,
    frule,
    is_followed,
    named_after,
    primal_of,
    rrule,
    value_shape,
)

from .._arrays import bind_options, instantiate_zeros, scatter_add
from .._makers import checked_tangents, linear_in_first_rule
from .linalg._common import as_array

# ----- convolve and correlate -----

_MODES = {0: "v", 1: "s", 2: "f"}


def _vector(x: Any) -> Any:
    """``np.atleast_1d(x)``, keeping a value an engine follows (numpy would make it an array of objects)."""
    x = as_array(x)
    return x if np.ndim(x) else np.reshape(x, (1,))


class _Product:
    """One call of convolve or correlate as a slice of the full convolution ``a * b``."""

    def __init__(self, a: Any, v: Any, mode: Any, correlate: bool) -> None:
        self.a = _vector(a)
        self.v = _vector(v)
        self.correlate = correlate
        self.b = np.conjugate(self.v[::-1]) if correlate else self.v
        n, m = self.a.size, self.v.size
        self.full = n + m - 1
        kind = mode.lower()[0] if isinstance(mode, str) else _MODES[int(mode)]
        short = min(n, m)
        if kind == "f":
            self.start, self.length = 0, self.full
        elif kind == "v":
            self.start, self.length = short - 1, max(n, m) - short + 1
        else:  # numpy centres 'same' on the longer input; a correlation with the longer kernel mirrors it
            self.start = short // 2 if correlate and n < m else (short - 1) // 2
            self.length = max(n, m)

    def cotangents(self, out_bar: Any) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """The cotangents of ``a`` and ``v``, flat and before projection."""
        g = as_array(out_bar).reshape(-1)
        # the seed placed in the full-length output by joining it with zeros, not by assignment: an engine
        # differentiating the pullback follows a join, not a write into a buffer
        dtype = np.result_type(g, self.a, self.b)
        after = self.full - self.start - self.length
        full = np.concatenate([np.zeros(self.start, dtype), g, np.zeros(after, dtype)]).astype(dtype, copy=False)
        a_bar = np.correlate(full, self.b, "valid")
        b_bar = np.correlate(full, self.a, "valid")
        return a_bar, (np.conjugate(b_bar[::-1]) if self.correlate else b_bar)


def _conv_mode(args: tuple[Any, ...], kwargs: dict[str, Any], default: str) -> Any:
    return bind_options(("mode",), args, kwargs, mode=default)["mode"]


def _register_product(f: Any, correlate: bool, default: str) -> None:
    def _rrule_product(f: Any, a: Any, v: Any, *args: Any, **kwargs: Any) -> Any:
        out = f(a, v, *args, **kwargs)
        product = _Product(a, v, _conv_mode(args, kwargs, default), correlate)
        project_a, project_v = ProjectTo(a), ProjectTo(v)
        others = (NoTangent(),) * len(args)
        shape = value_shape(out)

        def product_pullback(out_bar: Any) -> tuple[Any, ...]:
            a_bar, v_bar = product.cotangents(checked_seed(f, out_bar, shape))
            return (NoTangent(), project_a(a_bar.reshape(np.shape(a))), project_v(v_bar.reshape(np.shape(v))), *others)

        return out, product_pullback

    def _frule_product(tangents: tuple[Any, ...], f: Any, a: Any, v: Any, *args: Any, **kwargs: Any) -> Any:
        out = f(a, v, *args, **kwargs)
        terms = []
        a_dot, v_dot = checked_tangent(f, tangents[1], a, 1), checked_tangent(f, tangents[2], v, 2)
        if not isinstance(a_dot, AbstractZero) and not ProjectTo(a).is_no_tangent:
            terms.append(f(a_dot, v, *args, **kwargs))
        if not isinstance(v_dot, AbstractZero) and not ProjectTo(v).is_no_tangent:
            terms.append(f(a, v_dot, *args, **kwargs))
        return out, ProjectTo(out)(sum(terms[1:], terms[0]) if terms else ZeroTangent())

    rrule.register(f)(named_after(f, _rrule_product))
    frule.register(f)(named_after(f, _frule_product))


_register_product(np.convolve, correlate=False, default="full")
_register_product(np.correlate, correlate=True, default="valid")


# ----- interp -----

_INTERP_ARGS = ("left", "right", "period")


class _Interp:
    """One call of ``interp``: for each ``x``, the knots it reads and the partials in ``x``, ``xp`` and ``fp``."""

    def __init__(self, x: Any, xp: Any, fp: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        options = bind_options(_INTERP_ARGS, args, kwargs, left=None, right=None, period=None)
        # the knots read and every mask come from the plain values; the partials from the values themselves, which
        # an engine may follow (nested differentiation): then its own passes give their derivatives
        x, xp, fp = _as_float(x), _as_float(xp), as_array(fp)
        xv, xpv = np.asarray(primal_of(x), dtype=float), np.asarray(primal_of(xp), dtype=float)
        self.x_shape, self.n = xv.shape, xpv.size
        self.period = options["period"]
        self.index = np.arange(xpv.size)  # the original knot behind each knot used
        self.left, self.right = options["left"], options["right"]
        if self.period is not None:  # numpy's wrapping: one period, sorted knots, one copy at each end
            p = abs(self.period)
            pv = primal_of(p)
            self.wraps = (-np.floor(xv / pv), -np.floor(xpv / pv))
            x, xp = x % p, xp % p
            xv, xpv = np.asarray(primal_of(x), dtype=float), np.asarray(primal_of(xp), dtype=float)
            order = np.argsort(xpv)
            self.index = np.concatenate([order[-1:], order, order[:1]])
            self.xp_shift = np.concatenate([[-1.0], np.zeros(xpv.size), [1.0]])  # the copies' d xp / d period
            xp = np.concatenate([xp[order[-1:]] - p, xp[order], xp[order[:1]] + p])
            xpv = np.asarray(primal_of(xp), dtype=float)
            self.left = self.right = None
        fp = fp[self.index]
        x, xv = np.reshape(x, -1), np.reshape(xv, -1)
        k = xpv.size
        if k == 1:
            self._single_knot(xv, xpv[0])
            return
        steps = np.diff(xp)
        slopes = np.diff(fp) / steps
        j = np.clip(np.searchsorted(xpv, xv, side="right") - 1, 0, k - 2)
        with np.errstate(invalid="ignore"):
            t = (x - xp[j]) / steps[j]
        # an infinite end knot: t's limit as the knot moves out, 1 after -inf and 0 before +inf (numpy's values
        # too); 1 on the last knot, infinite or not
        finite = np.isfinite(xv)
        t = np.where(np.isneginf(xpv[j]) & finite, 1.0, np.where(np.isposinf(xpv[j + 1]) & finite, 0.0, t))
        t = np.where(xv == xpv[j + 1], 1.0, t)
        self.below, self.above = xv < xpv[0], xv > xpv[-1]
        inside = ~(self.below | self.above)
        # the slope in x: the segment's, or at a knot the mean of the segments on either side (0 past the ends)
        before = np.where(j > 0, slopes[np.maximum(j - 1, 0)], 0)
        at_first = xv == xpv[j]
        at_last = xv == xpv[-1]
        slope = np.where(at_first, (before + slopes[j]) / 2, slopes[j])
        slope = np.where(at_last, slopes[-1] / 2, slope)
        self.x_partial = np.where(inside, slope, 0)
        # fp: (1 - t) and t inside; the end value beyond an end unless left/right replace it
        outside_first = self.below & (self.left is None)
        outside_last = self.above & (self.right is None)
        self.fp_at = (np.where(self.below, 0, np.where(self.above, k - 1, j)), np.where(inside, j + 1, 0))
        self.fp_weight = (np.where(inside, 1 - t, outside_first | outside_last), np.where(inside, t, 0))
        # xp: -(1 - t) s_j and -t s_j inside; at a knot all on that knot, minus the x slope
        on_knot = at_first | at_last
        self.xp_at = (np.where(at_last, k - 1, j), j + 1)
        self.xp_partial = (
            np.where(inside, np.where(on_knot, -slope, -(1 - t) * slopes[j]), 0),
            np.where(inside & ~on_knot, -t * slopes[j], 0),
        )
        self.k = k

    def _single_knot(self, x: np.ndarray[Any, Any], knot: Any) -> None:
        """One knot: ``fp_0`` everywhere, or ``left``/``right`` on either side of it; nothing moves with x or xp."""
        self.below, self.above = x < knot, x > knot
        zero, first = np.zeros(x.shape), np.zeros(x.shape, dtype=np.intp)
        self.x_partial = zero
        kept = ~((self.below & (self.left is not None)) | (self.above & (self.right is not None)))
        self.fp_at, self.fp_weight = (first, first), (kept.astype(float), zero)
        self.xp_at, self.xp_partial = (first, first), (zero, zero)
        self.k = 1

    def on_knots(self, values: Any, at: Any, partials: Any, dtype: Any) -> np.ndarray[Any, Any]:
        """``partials * values`` of both reads summed onto the knots used (the wrapped copies apart)."""
        index = np.concatenate([at[0], at[1]])
        return scatter_add(self.k, index, np.concatenate([partials[0] * values, partials[1] * values]), dtype)

    def to_original(self, used_bar: np.ndarray[Any, Any], dtype: Any) -> np.ndarray[Any, Any]:
        """A cotangent of the knots used, summed back onto the knots given."""
        return scatter_add(self.n, self.index, used_bar, dtype)

    def period_partials(self) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """d x' / d period and d xp' / d period of the wrapped points and knots (``p = |period|``)."""
        wraps_x, wraps_xp = self.wraps
        sign = np.sign(self.period)
        return sign * wraps_x.reshape(-1), sign * (wraps_xp[self.index] + self.xp_shift)


def _as_float(v: Any) -> Any:
    """``v`` as a float array; a value an engine follows as it is (interp's points and knots are real)."""
    return v if is_followed(v) else np.asarray(v, dtype=float)


def _interp_options(args: tuple[Any, ...]) -> list[bool]:
    """Which of left, right, period came positionally (differentiable) and are not None."""
    return [i < len(args) and args[i] is not None for i in range(3)]


@rrule.register(np.interp)
def _rrule_interp(f: Any, x: Any, xp: Any, fp: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(x, xp, fp, *args, **kwargs)
    call = _Interp(x, xp, fp, args, kwargs)
    projects = [ProjectTo(v) for v in (x, xp, fp)]
    given = _interp_options(args)
    arg_projects = [ProjectTo(v) if g else ProjectTo(None) for v, g in zip(args, given)]
    shape = value_shape(out)

    def interp_pullback(out_bar: Any) -> tuple[Any, ...]:
        g = np.reshape(as_array(checked_seed(f, out_bar, shape)), -1)
        dtype = np.result_type(g, call.x_partial, call.fp_weight[0])
        x_bar = np.conjugate(call.x_partial) * g
        xp_used = call.on_knots(g, call.xp_at, tuple(np.conjugate(p) for p in call.xp_partial), dtype)
        fp_bar = call.to_original(call.on_knots(g, call.fp_at, call.fp_weight, dtype), dtype)
        bars = [
            projects[0](x_bar.reshape(call.x_shape)),
            projects[1](call.to_original(xp_used, dtype).reshape(np.shape(xp))),
            projects[2](fp_bar.reshape(np.shape(fp))),
        ]
        arg_bars = [project(ZeroTangent()) for project in arg_projects]
        if given[0] and call.period is None:
            arg_bars[0] = arg_projects[0](np.sum(np.where(call.below, g, 0)))
        if given[1] and call.period is None:
            arg_bars[1] = arg_projects[1](np.sum(np.where(call.above, g, 0)))
        if given[2]:
            dx, dxp = call.period_partials()
            arg_bars[2] = arg_projects[2](np.sum(np.real(x_bar) * dx) + np.sum(np.real(xp_used) * dxp))
        return (NoTangent(), *bars, *arg_bars)

    return out, interp_pullback


@frule.register(np.interp)
def _frule_interp(tangents: tuple[Any, ...], f: Any, x: Any, xp: Any, fp: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(x, xp, fp, *args, **kwargs)
    checked = checked_tangents(f, tangents, (x, xp, fp, *args))
    call = _Interp(x, xp, fp, args, kwargs)
    dots = [instantiate_zeros(t, v) for t, v in zip(checked[:3], (x, xp, fp))]
    x_dot, xp_dot, fp_dot = (np.reshape(as_array(d), -1) for d in dots)
    xp_dot, fp_dot = xp_dot[call.index], fp_dot[call.index]  # onto the knots used (with period: wrapped copies)
    given = _interp_options(args)
    if given[2]:
        p_dot = instantiate_zeros(checked[5], args[2])
        dx, dxp = call.period_partials()
        x_dot, xp_dot = x_dot + dx * p_dot, xp_dot + dxp * p_dot
    out_dot = call.x_partial * x_dot
    for at, weight in zip(call.fp_at, call.fp_weight):
        out_dot = out_dot + weight * fp_dot[at]
    for at, partial in zip(call.xp_at, call.xp_partial):
        out_dot = out_dot + partial * xp_dot[at]
    for i, mask in ((0, call.below), (1, call.above)):
        if given[i] and call.period is None:
            out_dot = out_dot + mask * instantiate_zeros(checked[3 + i], args[i])
    return out, ProjectTo(out)(np.reshape(out_dot, np.shape(out)))


# ----- unwrap -----


def _identity_adjoint(out_bar: Any, p: Any, *args: Any, **kwargs: Any) -> Any:
    return np.broadcast_to(out_bar, np.shape(p))


def _identity_pushforward(p_dot: Any, *args: Any, **kwargs: Any) -> Any:
    return p_dot


linear_in_first_rule(np.unwrap, _identity_adjoint, tangent=_identity_pushforward)
