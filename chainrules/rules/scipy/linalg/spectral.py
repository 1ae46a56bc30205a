"""Rules for scipy.linalg's ``eigh`` (standard and generalized) and ``polar``.

eigh. ``A V = B V diag(w)`` with ``V^H B V = I`` (``B = I`` when ``b`` is not
given), both matrices read in the triangle ``lower`` names, the imaginary
part of their diagonals ignored: the tangents are mirrored into the
Hermitian matrices the routine sees and the cotangents live on the triangle
read (as numpy's eigh rule does). With ``K = V^H dA V - V^H dB V diag(w)``,
``dw = Re diag(K)`` and ``dV = V (F o K) - V diag(Re diag(V^H dB V)) / 2``,
``F[j, i] = 1 / (w_i - w_j)`` off the diagonal (Giles 2008, section 3.1, for
``B = I``; Fox and Kapoor 1968, "Rates of change of eigenvalues and
eigenvectors", for ``B``). The gauge is numpy's eigh's: each vector's phase
does not move, and a cotangent that only rotates phases is ignored; the
vector terms are infinite at repeated eigenvalues unless the vectors'
cotangent is zero. ``subset_by_index``/``subset_by_value`` and
``eigvals_only`` take the other eigenvectors from one more, full,
decomposition. ``type=2`` and ``type=3`` get no rule (``None``), nor do
``overwrite_a``/``overwrite_b=True``. ``b`` passed by keyword is a constant.

polar. ``A = U P`` (``side='right'``, ``m >= n``) or ``A = P U`` (``'left'``,
``m <= n``): with ``U^H U = I``, ``X = U^H dU`` is skew-Hermitian and solves
``H X + X H = U^H dA - dA^H U``, ``dH = U^H dA - X H``, and a tall ``A`` adds
``(I - U U^H) dA H^-1`` to ``dU`` (Higham 2008, "Functions of Matrices",
chapter 8). The Sylvester equation is solved in the eigenbasis of ``H``, so
repeated singular values are fine; the derivative needs full rank (``H``
positive definite). The left factorization is the right one of ``A^H``. The
other shapes (``side='right'`` with ``m < n``, ``'left'`` with ``m > n``) have
a singular ``P``, whose square root has no derivative: no rule (``None``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import linalg

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    Tangent,
    ZeroTangent,
    checked_seed,
    checked_tangent,
    follow,
    frule,
    is_followed,
    primal_of,
    rrule,
    unbroadcast,
    value_shape,
)

from ..._makers import checked_entries
from ...numpy.linalg._common import adjoint, as_array, fold_to_triangle, hermitian_from_triangle, solve_right
from ._common import call_options

# ----- eigh -----

_EIGH = (
    "lower",
    "eigvals_only",
    "overwrite_a",
    "overwrite_b",
    "type",
    "check_finite",
    "subset_by_index",
    "subset_by_value",
    "driver",
)


def _eigh_options(b: Any, kwargs: dict[str, Any]) -> dict[str, Any] | None:
    kwargs = {k: v for k, v in kwargs.items() if k != "b"}
    defaults = {"lower": True, "eigvals_only": False, "type": 1, "subset_by_index": None, "subset_by_value": None}
    options = call_options(_EIGH, (), kwargs, defaults, refused=("overwrite_a", "overwrite_b"))
    if options is None or (b is not None and options["type"] != 1):
        return None
    return options


def _gaps(w_all: np.ndarray, w: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``G[..., j, i] = 1 / (w_i - w_all_j)``, zero where ``j`` is the ``i``-th pair itself."""
    gaps = w[..., None, :] - w_all[..., :, None]
    own = np.broadcast_to(np.arange(w_all.shape[-1])[:, None] == index[..., None, :], np.shape(gaps))
    return np.where(own, 0.0, 1.0 / np.where(own, 1.0, gaps))  # no out=: an engine may follow the eigenvalues


def _eigenpairs(f: Any, a: Any, b: Any, out: Any, options: dict[str, Any]) -> tuple[np.ndarray, ...]:
    """``(w_all, V_all, index, w, V)``: the whole decomposition, the pairs ``f`` returned and their places in it."""
    by_index, by_value = options["subset_by_index"], options["subset_by_value"]
    if by_index is None and by_value is None and not options["eigvals_only"]:
        w, v = out
        return w, v, np.arange(w.shape[-1]), w, v
    matrices = (a,) if b is None else (a, b)
    w_all, v_all = follow(f, *matrices, lower=options["lower"], check_finite=False)  # scipy converts its arguments
    w = out if options["eigvals_only"] else out[0]
    start: Any = 0  # the pairs returned are consecutive in the ascending order
    if by_index is not None:
        start = int(by_index[0])
    elif by_value is not None and w.shape[-1]:  # (no eigenvalue in the interval: no pairs to place)
        start = np.argmin(np.abs(primal_of(w_all) - primal_of(w)[..., :1]), axis=-1)[..., None]
    index = start + np.arange(w.shape[-1])
    if not options["eigvals_only"]:
        return w_all, v_all, index, w, out[1]
    columns = np.broadcast_to(index[..., None, :], (*v_all.shape[:-1], w.shape[-1]))
    return w_all, v_all, index, w, np.take_along_axis(v_all, columns, axis=-1)


def _eigh_pushforward(pairs: tuple[np.ndarray, ...], h_a: Any, h_b: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(w_dot, V_dot)`` of the pairs returned, for the Hermitian tangents ``h_a`` and ``h_b`` (``None`` for 0)."""
    w_all, v_all, index, w, v = pairs
    k = np.zeros((*v.shape[:-2], v_all.shape[-1], w.shape[-1]), np.result_type(v, v_all, 1.0))
    w_dot = np.zeros(w.shape, dtype=w.dtype)
    if h_a is not None:
        a_v = h_a @ v
        k = k + adjoint(v_all) @ a_v
        w_dot = w_dot + np.real(np.sum(v.conj() * a_v, axis=-2))
    q_diag = None
    if h_b is not None:
        b_v = h_b @ v
        k = k - (adjoint(v_all) @ b_v) * w[..., None, :]
        q_diag = np.real(np.sum(v.conj() * b_v, axis=-2))
        w_dot = w_dot - w * q_diag
    v_dot = v_all @ (_gaps(w_all, w, index) * k)
    if q_diag is not None:
        v_dot = v_dot - v * (q_diag / 2)[..., None, :]
    return w_dot, v_dot


def _generalized_eigh_cotangent(
    pairs: tuple[np.ndarray, ...], w_bar: Any, v_bar: Any, generalized: bool
) -> tuple[Any, Any]:
    """The cotangents of the Hermitian matrices ``A`` and ``B`` (``None`` without ``B``) the routine saw."""
    w_all, v_all, index, w, v = pairs
    s_a = np.zeros((*v.shape[:-1], v.shape[-2]), np.result_type(v, 1.0))
    s_b = np.zeros_like(s_a) if generalized else None
    if not isinstance(w_bar, AbstractZero):
        w_bar = np.real(w_bar)
        s_a = s_a + (v * w_bar[..., None, :]) @ adjoint(v)
        if s_b is not None:
            s_b = s_b - (v * (w_bar * w)[..., None, :]) @ adjoint(v)
    if not isinstance(v_bar, AbstractZero):  # skipped when only eigenvalues are used: finite at repeated ones
        k_bar = _gaps(w_all, w, index) * (adjoint(v_all) @ v_bar)
        s_a = s_a + v_all @ k_bar @ adjoint(v)
        if s_b is not None:
            q_bar = -np.real(np.sum(v.conj() * v_bar, axis=-2)) / 2
            s_b = s_b + (v * q_bar[..., None, :] - v_all @ (k_bar * w[..., None, :])) @ adjoint(v)
    return s_a, s_b


def _hermitian_tangent(t: Any, x: Any, lower: bool) -> Any:
    """The tangent of the Hermitian matrix read from ``x``; ``None`` for a zero one."""
    if isinstance(t, AbstractZero) or x is None or ProjectTo(x).is_no_tangent:
        return None
    return hermitian_from_triangle(as_array(t), lower)


@rrule.register(linalg.eigh)
def _rrule_eigh(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    b = args[0] if args else kwargs.get("b")
    options = _eigh_options(b, kwargs)
    if options is None or len(args) > 1:
        return None
    out = follow(f, a, *args, **kwargs)
    pairs = _eigenpairs(f, a, b, out, options)
    lower = options["lower"]
    project_a, project_b = ProjectTo(a), ProjectTo(b)
    b_given = bool(args)
    shapes = [value_shape(out)] if options["eigvals_only"] else [value_shape(x) for x in out]

    def eigh_pullback(out_bar: Any) -> tuple[Any, ...]:
        if options["eigvals_only"]:
            w_bar, v_bar = checked_seed(f, out_bar, shapes[0]), ZeroTangent()
        else:
            w_bar, v_bar = checked_entries(f, out_bar, 2, shapes)
        s_a, s_b = _generalized_eigh_cotangent(pairs, w_bar, v_bar, b is not None)
        a_bar = project_a(unbroadcast(a, fold_to_triangle(s_a, lower)))
        if not b_given:
            return NoTangent(), a_bar
        b_bar = ZeroTangent() if s_b is None else unbroadcast(b, fold_to_triangle(s_b, lower))
        return NoTangent(), a_bar, project_b(b_bar)

    return out, eigh_pullback


@frule.register(linalg.eigh)
def _frule_eigh(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    b = args[0] if args else kwargs.get("b")
    options = _eigh_options(b, kwargs)
    if options is None or len(args) > 1:
        return None
    out = follow(f, a, *args, **kwargs)
    lower = options["lower"]
    h_a = _hermitian_tangent(checked_tangent(f, tangents[1], a, 1), a, lower)
    h_b = _hermitian_tangent(checked_tangent(f, tangents[2], b, 2), b, lower) if args else None
    if h_a is None and h_b is None:
        return out, ZeroTangent()
    w_dot, v_dot = _eigh_pushforward(_eigenpairs(f, a, b, out, options), h_a, h_b)
    if options["eigvals_only"]:
        return out, ProjectTo(out)(w_dot)
    return out, Tangent(tuple, ProjectTo(out[0])(w_dot), ProjectTo(out[1])(v_dot))


# ----- polar -----


class _Polar:
    """The right polar factors ``U`` (``m x n``, ``m >= n``) and ``H`` (``n x n``), with ``H``'s eigendecomposition."""

    def __init__(self, u: np.ndarray, h: np.ndarray) -> None:
        self.u, self.h = u, h
        self.followed = is_followed(u) or is_followed(h)
        if not self.followed:
            self.w, self.v = np.linalg.eigh(h)
        self.tall = u.shape[-2] > u.shape[-1]

    def sylvester(self, m: np.ndarray) -> np.ndarray:
        """The solution ``X`` of ``H X + X H = M``: self-adjoint in ``M``.

        Followed values take scipy's ``solve_sylvester`` instead of the eigenbasis of ``H``: its rules differentiate
        it where ``H`` has repeated eigenvalues too, which eigenvectors could not.
        """
        if self.followed or is_followed(m):
            return follow(linalg.solve_sylvester, self.h, self.h, m)
        w, v = self.w, self.v
        return v @ ((adjoint(v) @ m @ v) / (w[..., :, None] + w[..., None, :])) @ adjoint(v)

    def right_divided(self, x: np.ndarray) -> np.ndarray:
        """``x H^-1`` (a solve for followed values, as in ``sylvester``)."""
        if self.followed or is_followed(x):
            return solve_right(x, self.h)
        return ((x @ self.v) / self.w[..., None, :]) @ adjoint(self.v)

    def pushforward(self, a_dot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        u = self.u
        g = adjoint(u) @ a_dot
        x = self.sylvester(g - adjoint(g))
        u_dot = u @ x
        if self.tall:
            u_dot = u_dot + self.right_divided(a_dot - u @ g)
        return u_dot, g - x @ self.h

    def cotangent(self, u_bar: Any, h_bar: Any) -> np.ndarray:
        u = self.u
        x_bar = np.zeros(self.h.shape, np.result_type(u, self.h))
        g_bar = np.zeros_like(x_bar)
        if not isinstance(u_bar, AbstractZero):
            x_bar = x_bar + adjoint(u) @ u_bar
        if not isinstance(h_bar, AbstractZero):
            x_bar = x_bar - h_bar @ self.h
            g_bar = g_bar + h_bar
        y = self.sylvester(x_bar)
        a_bar = u @ (g_bar + y - adjoint(y))
        if self.tall and not isinstance(u_bar, AbstractZero):
            a_bar = a_bar + self.right_divided(u_bar - u @ (adjoint(u) @ u_bar))
        return a_bar


def _polar_side(a: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """``'right'`` or ``'left'``; ``None`` for other options and for the shapes without a derivative."""
    options = call_options(("side",), args, kwargs, {"side": "right"})
    if options is None or options["side"] not in ("right", "left"):
        return None
    m, n = np.shape(a)[-2:]
    return options["side"] if (m >= n if options["side"] == "right" else m <= n) else None


def _right_factors(out: tuple[np.ndarray, np.ndarray], side: str) -> _Polar:
    u, p = out
    return _Polar(u, p) if side == "right" else _Polar(adjoint(u), p)  # A = P U: A^H = U^H P


@rrule.register(linalg.polar)
def _rrule_polar(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    side = _polar_side(a, args, kwargs)
    if side is None:
        return None
    out = follow(f, a, *args, **kwargs)
    polar = _right_factors(out, side)
    project_a = ProjectTo(a)
    extra = (NoTangent(),) * len(args)
    shapes = [value_shape(x) for x in out]

    def polar_pullback(out_bar: Any) -> tuple[Any, ...]:
        u_bar, p_bar = checked_entries(f, out_bar, 2, shapes)
        if isinstance(u_bar, AbstractZero) and isinstance(p_bar, AbstractZero):
            return NoTangent(), project_a(ZeroTangent()), *extra
        if side == "right":
            return NoTangent(), project_a(polar.cotangent(u_bar, p_bar)), *extra
        u_bar = u_bar if isinstance(u_bar, AbstractZero) else adjoint(u_bar)
        return NoTangent(), project_a(adjoint(polar.cotangent(u_bar, p_bar))), *extra

    return out, polar_pullback


@frule.register(linalg.polar)
def _frule_polar(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    side = _polar_side(a, args, kwargs)
    if side is None:
        return None
    out = follow(f, a, *args, **kwargs)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero):
        return out, ZeroTangent()
    polar = _right_factors(out, side)
    if side == "right":
        u_dot, p_dot = polar.pushforward(as_array(a_dot))
    else:
        u_h_dot, p_dot = polar.pushforward(adjoint(as_array(a_dot)))
        u_dot = adjoint(u_h_dot)
    return out, Tangent(tuple, ProjectTo(out[0])(u_dot), ProjectTo(out[1])(p_dot))
