"""Factorizations: cholesky and qr.

Both take stacks of matrices over the last two axes. ``cholesky`` reads one
triangle of its input (the lower one, the upper one with ``upper=True``): its
rules see the Hermitian matrix that triangle stands for, and the cotangent
lives on that triangle only, with a real diagonal.

``qr`` has rules for modes ``'reduced'``, ``'r'`` and ``'complete'``; with
``'complete'`` and more rows than columns the extra columns ``Q2`` of
``Q = [Q1 | Q2]`` are any orthonormal basis of the complement of A's range:
the rules use the gauge in which that basis does not turn within the
complement, ``Q2^H Q2_dot = 0``, so ``Q2_dot = -Q1 (Q1_dot^H Q2)``; the
zero rows of R have a zero tangent. ``mode='raw'`` and unknown keywords get
no rule (``None``).
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

from ..._makers import checked_entries
from ._common import (
    adjoint,
    as_array,
    complement_cotangent,
    complement_tangent,
    diag_embed,
    diagonal,
    fold_to_triangle,
    hermitian_from_triangle,
    phi_lower,
    solve_lower,
    solve_right,
    tuple_tangent,
)

# ----- cholesky -----
# Murray 2016, "Differentiation of the Cholesky decomposition", eqs. (9)-(10):
# with A = L L^H, L_dot = L Phi(L^-1 A_dot L^-H), and the adjoint
# S = L^-H Phi(L^H L_bar) L^-1, whose Hermitian part is the cotangent of A.


@rrule.register(np.linalg.cholesky)
def _rrule_cholesky(f: Any, a: Any, **kwargs: Any) -> Any:
    if not kwargs.keys() <= {"upper"}:
        return None
    upper = bool(kwargs.get("upper", False))
    out = f(a, **kwargs)
    project_a = ProjectTo(a)
    low = adjoint(out) if upper else out
    shape = value_shape(out)

    def cholesky_pullback(out_bar: Any) -> tuple[Any, Any]:
        out_bar = checked_seed(f, out_bar, shape)
        low_bar = adjoint(out_bar) if upper else out_bar
        x = solve_lower(low, phi_lower(adjoint(low) @ low_bar), conjugate_transpose=True)
        s = adjoint(solve_lower(low, adjoint(x), conjugate_transpose=True))  # L^-H Phi(L^H L_bar) L^-1
        return NoTangent(), project_a(fold_to_triangle(s, lower=not upper))

    return out, cholesky_pullback


@frule.register(np.linalg.cholesky)
def _frule_cholesky(tangents: tuple[Any, ...], f: Any, a: Any, **kwargs: Any) -> Any:
    if not kwargs.keys() <= {"upper"}:
        return None
    upper = bool(kwargs.get("upper", False))
    out = f(a, **kwargs)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero):
        return out, ZeroTangent()
    low = adjoint(out) if upper else out
    h_dot = hermitian_from_triangle(as_array(a_dot), lower=not upper)
    m = adjoint(solve_lower(low, adjoint(solve_lower(low, h_dot))))  # L^-1 H_dot L^-H
    low_dot = low @ phi_lower(m)
    return out, ProjectTo(out)(adjoint(low_dot) if upper else low_dot)


# ----- qr -----
# Walter and Lehmann 2018, "Algorithmic differentiation of linear algebra
# functions with application in optimum experimental design", section 3.3
# (forward), and Roberts and Roberts 2020, "QR and LQ decomposition matrix
# backpropagation algorithms for square, wide, and deep matrices" (reverse,
# including the wide case). LAPACK makes the diagonal of R real, which fixes
# the phase of each column of Q: the derivative is unique for full-rank input.


def _qr_omega(c: np.ndarray) -> np.ndarray:
    """The skew-Hermitian ``Q^H Q_dot`` for ``C = Q^H A_dot R^-1`` (R_dot R^-1 upper, real diagonal)."""
    low = np.tril(c, -1)
    return low - adjoint(low) + 1j * diag_embed(diagonal(c).imag) if np.iscomplexobj(c) else low - adjoint(low)


def _unit_scaled(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(R / c, c)`` with ``c`` each matrix's largest magnitude: solves with ``R / c`` do not see a tiny diagonal as
    singular (at subnormal entries) nor overflow (at huge ones), and ``x R^-1 = (x (R / c)^-1) / c``."""
    scale = np.max(np.abs(r), axis=(-2, -1), keepdims=True, initial=0.0)
    scale = np.where(scale > 0, scale, 1.0)
    return r / scale, scale


def _qr_square_pushforward(q: np.ndarray, r: np.ndarray, a_dot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(Q_dot, R_dot)`` for an ``m >= n`` input (R square and invertible)."""
    r_unit, scale = _unit_scaled(r)
    a_dot_rinv = solve_right(a_dot, r_unit) / scale
    c = adjoint(q) @ a_dot_rinv
    upper_part = c - _qr_omega(c)  # R_dot R^-1
    return a_dot_rinv - q @ upper_part, upper_part @ r


def _qr_square_cotangent(q: np.ndarray, r: np.ndarray, q_bar: Any, r_bar: Any) -> np.ndarray:
    """``A_bar = (Q_bar + Q copyutl(M)) R^-H`` with ``M = R_bar R^H - Q^H Q_bar``."""
    m = np.zeros(r.shape, np.result_type(q, r))
    if not isinstance(r_bar, AbstractZero):
        m = m + r_bar @ adjoint(r)
    if not isinstance(q_bar, AbstractZero):
        m = m - adjoint(q) @ q_bar
    upper = np.triu(m, 1)
    sym = upper + adjoint(upper) + diag_embed(diagonal(m).real.astype(m.dtype))
    lhs = q @ sym if isinstance(q_bar, AbstractZero) else q_bar + q @ sym
    r_unit, scale = _unit_scaled(r)
    return solve_right(lhs, adjoint(r_unit)) / scale


def _qr_pushforward(q: np.ndarray, r: np.ndarray, a_dot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m, n = q.shape[-2], r.shape[-1]
    if m >= n:
        return _qr_square_pushforward(q, r, a_dot)
    # A = [X | Y] with X = Q U square and Y = Q V: V_dot = Q^H (Y_dot - Q_dot V)
    q_dot, u_dot = _qr_square_pushforward(q, r[..., :m], a_dot[..., :m])
    v_dot = adjoint(q) @ (a_dot[..., m:] - q_dot @ r[..., m:])
    return q_dot, np.concatenate([u_dot, v_dot], axis=-1)


def _qr_cotangent(q: np.ndarray, r: np.ndarray, a: np.ndarray, q_bar: Any, r_bar: Any) -> np.ndarray:
    m, n = q.shape[-2], r.shape[-1]
    if m >= n:
        return _qr_square_cotangent(q, r, q_bar, r_bar)
    if isinstance(r_bar, AbstractZero):
        return np.concatenate([_qr_square_cotangent(q, r[..., :m], q_bar, r_bar), np.zeros_like(a[..., m:])], axis=-1)
    u_bar, v_bar = r_bar[..., :m], r_bar[..., m:]
    q_bar_all = a[..., m:] @ adjoint(v_bar)
    if not isinstance(q_bar, AbstractZero):
        q_bar_all = q_bar_all + q_bar
    x_bar = _qr_square_cotangent(q, r[..., :m], q_bar_all, u_bar)
    return np.concatenate([x_bar, q @ v_bar], axis=-1)


def _qr_mode(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """The mode of a ``qr`` call; None for modes without a rule ('raw') and unknown keywords."""
    if len(args) > 1 or not kwargs.keys() <= {"mode"}:
        return None
    mode = args[0] if args else kwargs.get("mode", "reduced")
    return mode if mode in ("reduced", "complete", "r") else None


@rrule.register(np.linalg.qr)
def _rrule_qr(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    mode = _qr_mode(args, kwargs)
    if mode is None:
        return None
    out = f(a, *args, **kwargs)
    project_a = ProjectTo(a)
    a_arr = as_array(a)
    q, r = np.linalg.qr(a_arr) if mode == "r" else out
    k = min(q.shape[-2], r.shape[-1])
    n_extra_args = len(args)
    shapes = [value_shape(out)] if mode == "r" else [value_shape(x) for x in out]

    def qr_pullback(out_bar: Any) -> tuple[Any, ...]:
        if mode == "r":
            q_bar, r_bar = ZeroTangent(), checked_seed(f, out_bar, shapes[0])
        else:
            q_bar, r_bar = checked_entries(f, out_bar, ("Q", "R"), shapes)
        if isinstance(q_bar, AbstractZero) and isinstance(r_bar, AbstractZero):
            return NoTangent(), project_a(ZeroTangent()), *(NoTangent(),) * n_extra_args
        if q.shape[-1] > k:  # complete mode, tall: fold in the complement's cotangent; R's zero rows are constant
            if not isinstance(q_bar, AbstractZero):
                q_bar = q_bar[..., :k] + complement_cotangent(q[..., :k], q[..., k:], q_bar[..., k:])
            r_bar = r_bar if isinstance(r_bar, AbstractZero) else r_bar[..., :k, :]
        a_bar = _qr_cotangent(q[..., :k], r[..., :k, :], a_arr, q_bar, r_bar)
        return NoTangent(), project_a(a_bar), *(NoTangent(),) * n_extra_args

    return out, qr_pullback


@frule.register(np.linalg.qr)
def _frule_qr(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    mode = _qr_mode(args, kwargs)
    if mode is None:
        return None
    out = f(a, *args, **kwargs)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero):
        return out, ZeroTangent()
    q, r = np.linalg.qr(a) if mode == "r" else out
    k = min(q.shape[-2], r.shape[-1])
    q_dot, r_dot = _qr_pushforward(q[..., :k], r[..., :k, :], as_array(a_dot))
    if mode == "r":
        return out, ProjectTo(out)(r_dot)
    if q.shape[-1] > k:  # complete mode, tall
        q_dot = np.concatenate([q_dot, complement_tangent(q[..., :k], q_dot, q[..., k:])], axis=-1)
        r_dot = np.concatenate([r_dot, np.zeros_like(r[..., k:, :])], axis=-2)
    return out, tuple_tangent(out, ProjectTo(q)(q_dot), ProjectTo(r)(r_dot))
