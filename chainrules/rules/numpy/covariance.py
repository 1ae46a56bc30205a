"""Covariance and correlation: cov and corrcoef.

``cov``: with the variables as the rows of ``X`` (``m`` and ``y`` stacked,
transposed when ``rowvar=False``), the weights ``w = fweights * aweights``
(ones without them), the weighted means ``avg = X w / sum(w)`` and the
deviations ``Xc = X - avg``, numpy computes ``c = Xc W Xc^H / fact`` with
``W = diag(w)``. The mean's own variation drops out (``Xc w = 0``), so

    dc = (dX W Xc^H + Xc W dX^H + Xc dW Xc^H) / fact - c dfact / fact

and the pullback of ``C_bar`` to ``X`` is ``(C_bar + C_bar^H) Xc W / fact``.
``m``, ``y`` and ``aweights`` passed positionally are differentiable
(``fweights`` are integers); ``fact`` is ``sum(w) - ddof``, or
``sum(w) - ddof sum(w a) / sum(w)`` with ``aweights`` ``a`` (numpy's
normalisation), whose derivative enters ``dfact``.

``corrcoef``: ``R = C / (s s^T)`` with ``s = sqrt(Re diag C)``, so
``dR = dC / (s s^T) - R (u_i + u_j)`` with ``u_i = Re(dC_ii) / (2 s_i^2)``.
Constant variables (``s = 0``) give nan, with numpy's warnings. numpy clips
``R`` to [-1, 1] against rounding; the rules differentiate the unclipped
formula (equal up to rounding; ``R_ii = 1`` has derivative 0 either way).
A single variable's correlation ``c / c`` is constant: zero derivative.
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
    rrule,
    value_shape,
)

from .._arrays import bind_options, cast_to
from .linalg._common import as_array

_COV_ARGS = ("y", "rowvar", "bias", "ddof", "fweights", "aweights")
_COV_DEFAULTS = {"y": None, "rowvar": True, "bias": False, "ddof": None, "fweights": None, "aweights": None}
_AWEIGHTS = 5  # the position of aweights among the arguments after m


class _Covariance:
    """One call of ``cov``: the layout of ``m`` and ``y`` in ``X``, the weights, the deviations, ``fact``."""

    def __init__(self, m: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        o = bind_options(_COV_ARGS, args, kwargs, **_COV_DEFAULTS)
        y, rowvar = o["y"], o["rowvar"]
        dtype = kwargs.get("dtype")
        if dtype is None:
            dtype = np.result_type(m, np.float64) if y is None else np.result_type(m, y, np.float64)
        self.dtype = np.dtype(dtype)
        self.shapes = [np.shape(m)]
        self.transposed = [not rowvar and np.ndim(m) != 1]
        rows = [self._rows(m, 0)]
        if y is not None:
            self.shapes.append(np.shape(y))
            self.transposed.append(not rowvar and (np.shape(y) if np.ndim(y) >= 2 else (1,))[0] != 1)
            rows.append(self._rows(y, 1))
        self.split = rows[0].shape[0]
        X = np.concatenate(rows, axis=0)
        ddof = o["ddof"] if o["ddof"] is not None else (0 if o["bias"] else 1)
        f = None if o["fweights"] is None else np.asarray(o["fweights"], dtype=float)
        self.a = None if o["aweights"] is None else cast_to(o["aweights"], np.dtype(float))
        self.f = np.ones(X.shape[1]) if f is None else f
        self.w = None if f is None and self.a is None else self.f * (1 if self.a is None else self.a)
        self.ddof = ddof
        if self.w is None:
            self.Xc = X - np.mean(X, axis=1, keepdims=True)
            fact = X.shape[1] - ddof
        else:
            self.total = np.sum(self.w)
            self.Xc = X - (X @ self.w / self.total)[:, None]
            if ddof == 0:
                fact = self.total
            elif self.a is None:
                fact = self.total - ddof
            else:
                fact = self.total - ddof * np.sum(self.w * self.a) / self.total
        self.fact = max(fact, 0.0)  # numpy warns and divides by 0: inf or nan, and so do the derivatives
        self.XcW = self.Xc if self.w is None else self.Xc * self.w
        self.c = (self.XcW @ self.Xc.conj().T) * np.true_divide(1, self.fact)

    def _rows(self, v: Any, i: int) -> np.ndarray[Any, Any]:
        rows = cast_to(v, self.dtype)
        if rows.ndim < 2:
            rows = np.reshape(rows, (1, -1) if rows.ndim else (1, 1))
        return rows.T if self.transposed[i] else rows

    def fact_partials(self) -> np.ndarray[Any, Any] | None:
        """d fact / d aweights, or ``None`` without aweights."""
        if self.a is None:
            return None
        if self.ddof == 0:
            return self.f
        s = np.sum(self.w * self.a)
        return self.f - self.ddof * (2 * self.f * self.a / self.total - s * self.f / self.total**2)

    def cotangents(self, c_bar: Any) -> tuple[Any, Any, Any]:
        """The cotangents of ``m``, ``y`` (or None) and ``aweights`` (or None), before projection."""
        c_bar = np.reshape(c_bar, self.c.shape)
        X_bar = (c_bar + c_bar.conj().T) @ self.XcW / self.fact
        pieces = [X_bar[: self.split], X_bar[self.split :]]
        bars = [np.reshape(p.T if t else p, shape) for p, t, shape in zip(pieces, self.transposed, self.shapes)]
        a_bar = None
        partials = self.fact_partials()
        if partials is not None:
            spread = np.real(np.sum(self.Xc.conj() * (c_bar @ self.Xc), axis=0)) * self.f
            a_bar = (spread - np.real(np.vdot(c_bar, self.c)) * partials) / self.fact
        return bars[0], (bars[1] if len(bars) > 1 else None), a_bar

    def pushforward(self, m_dot: Any, y_dot: Any, a_dot: Any) -> np.ndarray[Any, Any]:
        """The tangent of ``c`` (square, before numpy's squeeze); ``None`` for an argument held constant."""
        dots = [self._rows(m_dot, 0)]
        if len(self.shapes) > 1:
            dots.append(self._rows(y_dot, 1))
        X_dot = np.concatenate(dots, axis=0)
        half = X_dot @ self.XcW.conj().T / self.fact
        c_dot = half + half.conj().T
        partials = self.fact_partials()
        if partials is not None and a_dot is not None:
            a_dot = as_array(a_dot)
            c_dot = c_dot + (self.Xc * (self.f * a_dot)) @ self.Xc.conj().T / self.fact
            c_dot = c_dot - self.c * (np.sum(partials * a_dot) / self.fact)
        return c_dot


def _cov_projectors(m: Any, args: tuple[Any, ...]) -> list[Any]:
    """Projectors for ``m`` and each positional argument: ``y`` and ``aweights`` differentiable, the rest not."""
    differentiable = {0, _AWEIGHTS}
    return [ProjectTo(m)] + [
        ProjectTo(v) if i in differentiable and v is not None else ProjectTo(None) for i, v in enumerate(args)
    ]


def _tangent_or_none(f: Any, t: Any, x: Any, position: int) -> Any:
    t = checked_tangent(f, t, x, position)
    if isinstance(t, AbstractZero) or ProjectTo(x).is_no_tangent:
        return None
    return t


def _dots(f: Any, m: Any, tangents: tuple[Any, ...], args: tuple[Any, ...]) -> tuple[Any, Any, Any]:
    """``m_dot``, ``y_dot`` with zeros made explicit, and ``aweights``' tangent or None, checked against their
    arguments' shapes."""
    m_dot = _tangent_or_none(f, tangents[1], m, 1)
    m_dot = np.zeros(np.shape(m)) if m_dot is None else m_dot
    y = args[0] if args else None
    y_dot = None
    if y is not None:
        y_dot = _tangent_or_none(f, tangents[2], y, 2)
        y_dot = np.zeros(np.shape(y)) if y_dot is None else y_dot
    a_dot = None
    if len(args) > _AWEIGHTS:
        a_dot = _tangent_or_none(f, tangents[2 + _AWEIGHTS], args[_AWEIGHTS], 2 + _AWEIGHTS)
    return m_dot, y_dot, a_dot


def _cov_bars(call: _Covariance, projects: list[Any], c_bar: Any) -> tuple[Any, ...]:
    m_bar, y_bar, a_bar = call.cotangents(c_bar)
    bars = [project(ZeroTangent()) for project in projects]
    bars[0] = projects[0](m_bar)
    if y_bar is not None and not projects[1].is_no_tangent:
        bars[1] = projects[1](y_bar)
    if a_bar is not None and len(projects) > 1 + _AWEIGHTS and not projects[1 + _AWEIGHTS].is_no_tangent:
        bars[1 + _AWEIGHTS] = projects[1 + _AWEIGHTS](a_bar)
    return (NoTangent(), *bars)


@rrule.register(np.cov)
def _rrule_cov(f: Any, m: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(m, *args, **kwargs)
    call = _Covariance(m, args, kwargs)
    projects = _cov_projectors(m, args)
    shape = value_shape(out)

    def cov_pullback(out_bar: Any) -> tuple[Any, ...]:
        return _cov_bars(call, projects, checked_seed(f, out_bar, shape))

    return out, cov_pullback


@frule.register(np.cov)
def _frule_cov(tangents: tuple[Any, ...], f: Any, m: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(m, *args, **kwargs)
    dots = _dots(f, m, tangents, args)
    call = _Covariance(m, args, kwargs)
    c_dot = call.pushforward(*dots)
    return out, ProjectTo(out)(np.reshape(c_dot, np.shape(out)))


# ----- corrcoef -----

_CORRCOEF_ARGS = ("y", "rowvar")


class _Correlation:
    """One call of ``corrcoef``: the covariance and the standard deviations it divides by."""

    def __init__(self, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        o = bind_options(_CORRCOEF_ARGS, args, kwargs, y=None, rowvar=True)
        cov_kwargs = {"dtype": kwargs["dtype"]} if kwargs.get("dtype") is not None else {}
        self.cov = _Covariance(x, (o["y"], o["rowvar"]), cov_kwargs)
        c = self.cov.c
        self.scalar = c.shape == (1, 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.s = np.sqrt(np.real(np.diagonal(c)))
            self.outer = self.s[:, None] * self.s[None, :]
            self.r = c / self.outer

    def c_bar(self, r_bar: Any) -> np.ndarray[Any, Any]:
        r_bar = np.reshape(r_bar, self.r.shape)
        t = np.real(np.sum(r_bar.conj() * self.r, axis=1) + np.sum(r_bar.conj() * self.r, axis=0))
        return r_bar / self.outer - np.diag(t / (2 * self.s**2))

    def r_dot(self, c_dot: Any) -> np.ndarray[Any, Any]:
        u = np.real(np.diagonal(c_dot)) / (2 * self.s**2)
        return c_dot / self.outer - self.r * (u[:, None] + u[None, :])


@rrule.register(np.corrcoef)
def _rrule_corrcoef(f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(x, *args, **kwargs)
    call = _Correlation(x, args, kwargs)
    projects = [ProjectTo(x)] + [ProjectTo(v) if i == 0 else ProjectTo(None) for i, v in enumerate(args)]
    shape = value_shape(out)

    def corrcoef_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, shape)
        if call.scalar:
            return (NoTangent(), *(project(ZeroTangent()) for project in projects))
        return _cov_bars(call.cov, projects, call.c_bar(out_bar))

    return out, corrcoef_pullback


@frule.register(np.corrcoef)
def _frule_corrcoef(tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    out = f(x, *args, **kwargs)
    dots = _dots(f, x, tangents[:3], args[:1])
    call = _Correlation(x, args, kwargs)
    if call.scalar:
        return out, ProjectTo(out)(np.zeros(np.shape(out)))
    c_dot = call.cov.pushforward(*dots)
    return out, ProjectTo(out)(np.reshape(call.r_dot(c_dot), np.shape(out)))
