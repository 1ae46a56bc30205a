"""Linear algebra: inv, solve, det, slogdet.

Every rule takes stacks of matrices over the last two axes, as numpy does.
The formulas are those of Giles 2008, "An extended collection of matrix
derivative results for forward and reverse mode algorithmic
differentiation", sections 2.2-2.3, with conjugate transposes for the
complex convention (the adjoint under ``Re(conj(a) b)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, ProjectTo, ZeroTangent, frule, rrule, unbroadcast, unthunk

from ._arrays import tuple_entries
from ._linalg_common import adjoint, adjugate_svd, as_array, inverse, matmul_summed, solve_vectors, tuple_tangent

# ----- inv -----


@rrule.register(np.linalg.inv)
def _rrule_inv(f: Any, a: Any) -> Any:
    out = f(a)
    project_a = ProjectTo(a)

    def inv_pullback(out_bar: Any) -> tuple[Any, Any]:
        out_h = adjoint(out)
        return NoTangent(), project_a(-(out_h @ unthunk(out_bar) @ out_h))

    return out, inv_pullback


@frule.register(np.linalg.inv)
def _frule_inv(tangents: tuple[Any, ...], f: Any, a: Any) -> Any:
    out = f(a)
    a_dot = unthunk(tangents[1])
    if isinstance(a_dot, AbstractZero):
        return out, ZeroTangent()
    return out, ProjectTo(out)(-(out @ a_dot @ out))


# ----- solve -----


@rrule.register(np.linalg.solve)
def _rrule_solve(f: Any, a: Any, b: Any) -> Any:
    x = f(a, b)
    project_a = ProjectTo(a)
    a_arr, b_arr = as_array(a), as_array(b)
    vector = b_arr.ndim == 1  # numpy reads b as a stack of matrices unless it is 1-D

    def solve_pullback(x_bar: Any) -> tuple[Any, Any, Any]:
        x_bar = unthunk(x_bar)
        a_h = adjoint(a_arr)
        if vector:
            b_bar = solve_vectors(a_h, x_bar)
            a_bar = matmul_summed(-b_bar[..., :, None], x.conj()[..., None, :], a_arr.shape)
        else:
            b_bar = np.linalg.solve(a_h, x_bar)
            a_bar = matmul_summed(-b_bar, adjoint(x), a_arr.shape)
        return NoTangent(), project_a(a_bar), unbroadcast(b, b_bar)

    return x, solve_pullback


@frule.register(np.linalg.solve)
def _frule_solve(tangents: tuple[Any, ...], f: Any, a: Any, b: Any) -> Any:
    x = f(a, b)
    _, a_dot, b_dot = (unthunk(t) for t in tangents)
    vector = np.ndim(b) == 1
    rhs: Any = None
    if not isinstance(b_dot, AbstractZero) and not ProjectTo(b).is_no_tangent:
        rhs = b_dot
    if not isinstance(a_dot, AbstractZero) and not ProjectTo(a).is_no_tangent:
        a_dot_x = (a_dot @ x[..., None])[..., 0] if vector else a_dot @ x
        rhs = -a_dot_x if rhs is None else rhs - a_dot_x
    if rhs is None:
        return x, ZeroTangent()
    rhs = np.broadcast_to(rhs, x.shape)
    x_dot = solve_vectors(as_array(a), rhs) if vector else np.linalg.solve(a, rhs)
    return x, ProjectTo(x)(x_dot)


# ----- det -----


def adjugate(a: np.ndarray, det: np.ndarray) -> np.ndarray:
    """The adjugate ``det(a) inv(a)``, finite at singular matrices.

    Through ``inv`` for matrices whose 1-norm condition number is below
    ``eps**-0.5`` (there ``det * inv`` loses at most half the digits), through
    the SVD otherwise and at exactly singular matrices (JAX and PyTorch keep
    det's derivative finite there the same way).
    """
    try:
        inv = np.linalg.inv(a)
    except np.linalg.LinAlgError:
        return adjugate_svd(a)
    cond = np.linalg.norm(a, 1, axis=(-2, -1)) * np.linalg.norm(inv, 1, axis=(-2, -1))
    good = np.isfinite(cond) & (cond < np.finfo(a.dtype).eps ** -0.5)
    adj = np.asarray(det)[..., None, None] * inv
    if not np.all(good):
        bad = ~good
        if adj.ndim == 2:
            return adjugate_svd(a)
        adj[bad] = adjugate_svd(a[bad])
    return adj


@rrule.register(np.linalg.det)
def _rrule_det(f: Any, a: Any) -> Any:
    out = f(a)
    project_a = ProjectTo(a)
    a_arr = as_array(a)

    def det_pullback(out_bar: Any) -> tuple[Any, Any]:
        out_bar = unthunk(out_bar)
        # d det = tr(adj(A) dA): A_bar = out_bar adj(A)^H
        adj = adjugate(_inexact(a_arr), out)
        return NoTangent(), project_a(np.asarray(out_bar)[..., None, None] * adjoint(adj))

    return out, det_pullback


@frule.register(np.linalg.det)
def _frule_det(tangents: tuple[Any, ...], f: Any, a: Any) -> Any:
    out = f(a)
    a_dot = unthunk(tangents[1])
    if isinstance(a_dot, AbstractZero) or ProjectTo(a).is_no_tangent:
        return out, ZeroTangent()
    adj = adjugate(_inexact(as_array(a)), out)
    return out, ProjectTo(out)(np.einsum("...ji,...ij->...", adj, a_dot))


def _inexact(a: np.ndarray) -> np.ndarray:
    return a if a.dtype.kind in "fc" else a.astype(np.float64)


# ----- slogdet -----


@rrule.register(np.linalg.slogdet)
def _rrule_slogdet(f: Any, a: Any) -> Any:
    out = f(a)
    sign = out[0]
    project_a = ProjectTo(a)
    a_arr = _inexact(as_array(a))
    complex_a = a_arr.dtype.kind == "c"

    def slogdet_pullback(out_bar: Any) -> tuple[Any, Any]:
        sign_bar, logabsdet_bar = tuple_entries(out_bar, ("sign", "logabsdet"))
        if not complex_a:
            sign_bar = ZeroTangent()  # the sign of a real determinant is locally constant
        if (isinstance(sign_bar, AbstractZero) and isinstance(logabsdet_bar, AbstractZero)) or project_a.is_no_tangent:
            return NoTangent(), project_a(ZeroTangent())
        # With t = tr(inv(A) dA): d logabsdet = Re(t) and d sign = sign i Im(t).
        t_bar = np.zeros(np.shape(sign), dtype=a_arr.dtype)
        if not isinstance(logabsdet_bar, AbstractZero):
            t_bar = t_bar + np.real(logabsdet_bar)
        if not isinstance(sign_bar, AbstractZero):
            t_bar = t_bar - 1j * np.imag(np.conj(sign_bar) * sign)
        return NoTangent(), project_a(t_bar[..., None, None] * adjoint(inverse(a_arr)))

    return out, slogdet_pullback


@frule.register(np.linalg.slogdet)
def _frule_slogdet(tangents: tuple[Any, ...], f: Any, a: Any) -> Any:
    out = f(a)
    sign, logabsdet = out
    a_dot = unthunk(tangents[1])
    if isinstance(a_dot, AbstractZero) or ProjectTo(a).is_no_tangent:
        return out, ZeroTangent()
    t = np.einsum("...ji,...ij->...", inverse(_inexact(as_array(a))), a_dot)
    logabsdet_dot = ProjectTo(logabsdet)(np.real(t))
    if np.iscomplexobj(sign):
        return out, tuple_tangent(out, ProjectTo(sign)(sign * 1j * np.imag(t)), logabsdet_dot)
    return out, tuple_tangent(out, ZeroTangent(), logabsdet_dot)
