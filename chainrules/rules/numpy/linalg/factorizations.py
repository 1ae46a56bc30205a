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

Both run on every Array API library, their formulas computed in its
namespace; ``qr(mode='r')`` there is the R of the standard's reduced QR.
The standard has no triangular solve: another library's solves with the
Cholesky factor are general ones (O(n³) per stack rather than O(n²)).
dask factors single matrices only, in square chunks (cholesky) or split
along one axis (qr): its other arrays get ``TypeError``.
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
from chainrules_core.arrays import device_of, is_complex_dtype, namespace_of

from ..._makers import checked_entries
from ._common import (
    adjoint,
    as_array,
    complement_cotangent,
    complement_tangent,
    dask_refusals,
    diag_embed,
    diagonal,
    fold_to_triangle,
    hermitian_from_triangle,
    lower_adjoint_times,
    phi_lower,
    real_part_of,
    solve_lower,
    solve_right,
    tuple_tangent,
)

# ----- cholesky -----
# Murray 2016, "Differentiation of the Cholesky decomposition", eqs. (9)-(10):
# with A = L L^H, L_dot = L Phi(L^-1 A_dot L^-H), and the adjoint
# S = L^-H Phi(L^H L_bar) L^-1, whose Hermitian part is the cotangent of A.


def _cholesky_call(xp: Any, f: Any, a: Any, upper: bool) -> Any:
    """numpy's ``cholesky``; another library's of the Hermitian matrix numpy's reads from one triangle (JAX reads
    both triangles, array-api-strict the lower one for ``upper=True``: the standard leaves it open)."""
    if xp is np:
        return f(a, upper=upper) if upper else f(a)
    with dask_refusals(f, a):
        return xp.linalg.cholesky(hermitian_from_triangle(a, not upper, xp), upper=upper)


@rrule.register(np.linalg.cholesky, generic=True)
def _rrule_cholesky(f: Any, a: Any, **kwargs: Any) -> Any:
    if not kwargs.keys() <= {"upper"}:
        return None
    return _cholesky_rrule(f, a, bool(kwargs.get("upper", False)), namespace_of(a))


def _cholesky_rrule(f: Any, a: Any, upper: bool, xp: Any, times: Any = None) -> Any:
    """The rrule of ``cholesky``, whose pullback computes ``L^H L_bar`` as ``times(L, L_bar)`` (a general product
    by default)."""
    out = _cholesky_call(xp, f, a, upper)
    project_a = ProjectTo(a)
    low = adjoint(out, xp) if upper else out
    shape = value_shape(out)

    def cholesky_pullback(out_bar: Any) -> tuple[Any, Any]:
        out_bar = checked_seed(f, out_bar, shape)
        low_bar = adjoint(out_bar, xp) if upper else out_bar
        product = adjoint(low, xp) @ low_bar if times is None else times(low, low_bar)
        # S = L^-H (L^-H Phi^H)^H = L^-H Phi(L^H L_bar) L^-1; Phi^H is a view numpy's solves take without a copy
        z = solve_lower(low, adjoint(phi_lower(product, xp, overwrite=True), xp), True, xp)  # the product is ours
        s = solve_lower(low, adjoint(z, xp), True, xp)
        return NoTangent(), project_a(fold_to_triangle(s, not upper, xp))

    return out, cholesky_pullback


@frule.register(np.linalg.cholesky, generic=True)
def _frule_cholesky(tangents: tuple[Any, ...], f: Any, a: Any, **kwargs: Any) -> Any:
    if not kwargs.keys() <= {"upper"}:
        return None
    upper = bool(kwargs.get("upper", False))
    xp = namespace_of(a)
    out = _cholesky_call(xp, f, a, upper)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero):
        return out, ZeroTangent()
    low = adjoint(out, xp) if upper else out
    h_dot = hermitian_from_triangle(as_array(a_dot) if xp is np else a_dot, not upper, xp)
    m = adjoint(solve_lower(low, adjoint(solve_lower(low, h_dot, xp=xp), xp), xp=xp), xp)  # L^-1 H_dot L^-H
    low_dot = low @ phi_lower(m, xp)
    return out, ProjectTo(out)(adjoint(low_dot, xp) if upper else low_dot)


# ----- qr -----
# Walter and Lehmann 2018, "Algorithmic differentiation of linear algebra
# functions with application in optimum experimental design", section 3.3
# (forward), and Roberts and Roberts 2020, "QR and LQ decomposition matrix
# backpropagation algorithms for square, wide, and deep matrices" (reverse,
# including the wide case). LAPACK makes the diagonal of R real, which fixes
# the phase of each column of Q: the derivative is unique for full-rank input.


def _qr_omega(c: Any, xp: Any = np) -> Any:
    """The skew-Hermitian ``Q^H Q_dot`` for ``C = Q^H A_dot R^-1`` (R_dot R^-1 upper, real diagonal)."""
    if xp is np:
        low = np.tril(c, -1)
        return low - adjoint(low) + 1j * diag_embed(diagonal(c).imag) if np.iscomplexobj(c) else low - adjoint(low)
    low = xp.tril(c, k=-1)
    if not is_complex_dtype(xp, c.dtype):
        return low - adjoint(low, xp)
    return low - adjoint(low, xp) + diag_embed(xp.astype(xp.imag(diagonal(c, xp)), c.dtype), xp) * 1j


def _unit_scaled(r: Any, xp: Any = np) -> tuple[Any, Any]:
    """``(R / c, c)`` with ``c`` each matrix's largest magnitude: solves with ``R / c`` do not see a tiny diagonal as
    singular (at subnormal entries) nor overflow (at huge ones), and ``x R^-1 = (x (R / c)^-1) / c``."""
    if xp is np:
        scale = np.max(np.abs(r), axis=(-2, -1), keepdims=True, initial=0.0)
    else:  # the standard's max takes no initial value: R is not empty there
        scale = xp.max(xp.abs(r), axis=(-2, -1), keepdims=True)
    scale = xp.where(scale > 0, scale, 1.0)
    return r / scale, scale


def _qr_square_pushforward(q: Any, r: Any, a_dot: Any, xp: Any = np) -> tuple[Any, Any]:
    """``(Q_dot, R_dot)`` for an ``m >= n`` input (R square and invertible)."""
    r_unit, scale = _unit_scaled(r, xp)
    a_dot_rinv = solve_right(a_dot, r_unit, xp) / scale
    c = adjoint(q, xp) @ a_dot_rinv
    upper_part = c - _qr_omega(c, xp)  # R_dot R^-1
    return a_dot_rinv - q @ upper_part, upper_part @ r


def _qr_square_cotangent(q: Any, r: Any, q_bar: Any, r_bar: Any, xp: Any = np) -> Any:
    """``A_bar = (Q_bar + Q copyutl(M)) R^-H`` with ``M = R_bar R^H - Q^H Q_bar``."""
    if xp is np:
        m = np.zeros(r.shape, np.result_type(q, r))
    else:
        m = xp.zeros(r.shape, dtype=xp.result_type(q, r), device=device_of(r))
    if not isinstance(r_bar, AbstractZero):
        m = m + r_bar @ adjoint(r, xp)
    if not isinstance(q_bar, AbstractZero):
        m = m - adjoint(q, xp) @ q_bar
    if xp is np:
        upper = np.triu(m, 1)
        sym = upper + adjoint(upper) + diag_embed(diagonal(m).real.astype(m.dtype))
    else:
        upper = xp.triu(m, k=1)
        sym = upper + adjoint(upper, xp) + diag_embed(real_part_of(diagonal(m, xp), xp), xp)
    lhs = q @ sym if isinstance(q_bar, AbstractZero) else q_bar + q @ sym
    r_unit, scale = _unit_scaled(r, xp)
    return solve_right(lhs, adjoint(r_unit, xp), xp) / scale


def _concat(xp: Any, arrays: list[Any]) -> Any:
    return np.concatenate(arrays, axis=-1) if xp is np else xp.concat(arrays, axis=-1)


def _qr_pushforward(q: Any, r: Any, a_dot: Any, xp: Any = np) -> tuple[Any, Any]:
    m, n = q.shape[-2], r.shape[-1]
    if m >= n:
        return _qr_square_pushforward(q, r, a_dot, xp)
    # A = [X | Y] with X = Q U square and Y = Q V: V_dot = Q^H (Y_dot - Q_dot V)
    q_dot, u_dot = _qr_square_pushforward(q, r[..., :m], a_dot[..., :m], xp)
    v_dot = adjoint(q, xp) @ (a_dot[..., m:] - q_dot @ r[..., m:])
    return q_dot, _concat(xp, [u_dot, v_dot])


def _qr_cotangent(q: Any, r: Any, a: Any, q_bar: Any, r_bar: Any, xp: Any = np) -> Any:
    m, n = q.shape[-2], r.shape[-1]
    if m >= n:
        return _qr_square_cotangent(q, r, q_bar, r_bar, xp)
    if isinstance(r_bar, AbstractZero):
        x_bar = _qr_square_cotangent(q, r[..., :m], q_bar, r_bar, xp)
        return _concat(xp, [x_bar, xp.zeros_like(a[..., m:])])
    u_bar, v_bar = r_bar[..., :m], r_bar[..., m:]
    q_bar_all = a[..., m:] @ adjoint(v_bar, xp)
    if not isinstance(q_bar, AbstractZero):
        q_bar_all = q_bar_all + q_bar
    x_bar = _qr_square_cotangent(q, r[..., :m], q_bar_all, u_bar, xp)
    return _concat(xp, [x_bar, q @ v_bar])


def _qr_mode(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """The mode of a ``qr`` call; None for modes without a rule ('raw') and unknown keywords."""
    if len(args) > 1 or not kwargs.keys() <= {"mode"}:
        return None
    mode = args[0] if args else kwargs.get("mode", "reduced")
    return mode if mode in ("reduced", "complete", "r") else None


def _qr_call(f: Any, a: Any, args: tuple[Any, ...], kwargs: dict[str, Any], mode: str) -> tuple[Any, Any, Any]:
    """The output of ``qr``, its ``(Q, R)`` and the namespace: the standard's reduced R for ``mode='r'``."""
    xp = namespace_of(a)
    if xp is np:
        out = f(a, *args, **kwargs)
        return out, (np.linalg.qr(as_array(a)) if mode == "r" else out), xp
    with dask_refusals(f, a):
        parts = xp.linalg.qr(a, mode="reduced" if mode == "r" else mode)
    return (parts[1] if mode == "r" else parts), parts, xp


@rrule.register(np.linalg.qr, generic=True)
def _rrule_qr(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    mode = _qr_mode(args, kwargs)
    if mode is None:
        return None
    out, (q, r), xp = _qr_call(f, a, args, kwargs, mode)
    project_a = ProjectTo(a)
    a_arr = as_array(a) if xp is np else a
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
                q_bar = q_bar[..., :k] + complement_cotangent(q[..., :k], q[..., k:], q_bar[..., k:], xp)
            r_bar = r_bar if isinstance(r_bar, AbstractZero) else r_bar[..., :k, :]
        a_bar = _qr_cotangent(q[..., :k], r[..., :k, :], a_arr, q_bar, r_bar, xp)
        return NoTangent(), project_a(a_bar), *(NoTangent(),) * n_extra_args

    return out, qr_pullback


@frule.register(np.linalg.qr, generic=True)
def _frule_qr(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    mode = _qr_mode(args, kwargs)
    if mode is None:
        return None
    out, (q, r), xp = _qr_call(f, a, args, kwargs, mode)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero):
        return out, ZeroTangent()
    k = min(q.shape[-2], r.shape[-1])
    q_dot, r_dot = _qr_pushforward(q[..., :k], r[..., :k, :], as_array(a_dot) if xp is np else a_dot, xp)
    if mode == "r":
        return out, ProjectTo(out)(r_dot)
    if q.shape[-1] > k:  # complete mode, tall
        q_dot = _concat(xp, [q_dot, complement_tangent(q[..., :k], q_dot, q[..., k:], xp)])
        zeros = np.zeros_like(r[..., k:, :]) if xp is np else xp.zeros_like(r[..., k:, :])
        r_dot = np.concatenate([r_dot, zeros], axis=-2) if xp is np else xp.concat([r_dot, zeros], axis=-2)
    return out, tuple_tangent(out, ProjectTo(q)(q_dot), ProjectTo(r)(r_dot))


# ----- fast paths -----


def _rrule_cholesky_trmm(rule: Any, f: Any, a: Any, **kwargs: Any) -> Any:
    """``cholesky`` of a real numpy matrix: the pullback's product ``L^H L_bar`` with a triangular ``L`` is BLAS's
    ``trmm`` (``lower_adjoint_times``: n³ flops where a general product takes 2n³); the rule for other calls."""
    if not kwargs.keys() <= {"upper"} or type(a) is not np.ndarray or a.ndim != 2 or a.dtype.char not in "fd":
        return rule(f, a, **kwargs)
    return _cholesky_rrule(f, a, bool(kwargs.get("upper", False)), np, lower_adjoint_times)


rrule.fast_path(np.linalg.cholesky)(_rrule_cholesky_trmm)
