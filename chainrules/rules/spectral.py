"""Spectral decompositions: eigh, eigvalsh, svd, svdvals.

Gauge. Eigenvectors and singular vectors are defined up to a phase per
vector (a sign for real input); the rules give the derivative in the gauge
where each vector's phase does not move: ``Im(diag(V^H V_dot)) = 0`` for
eigh, and for the SVD the phase derivative shared equally,
``diag(U^H U_dot) = -diag(V^H V_dot) = i Im(diag(U^H A_dot V)) / 2s``. A result
that does not depend on the phases (``U diag(s) U^H``, ``abs(U)``, the polar
factor ``U Vh``, eigenvalues) gets its true derivative; the pullback
ignores the part of a cotangent that would rotate the phases.

Degenerate values. The vector terms divide by ``w_j - w_i`` (``s_j^2 -
s_i^2``): where values coincide and the cotangent of the vectors is not zero,
the result is infinite or nan, with numpy's warnings (the vectors are not
differentiable there). When the vectors' cotangent is zero (only eigenvalues
or singular values used), that term is skipped and the result stays finite.
``eigvalsh`` and ``svdvals`` never have it.

eigh and ``svd(hermitian=True)`` read one triangle of their input (``UPLO``);
the cotangent lives on that triangle, with a real diagonal.

``svd(full_matrices=True)`` of a non-square matrix returns singular vectors
beyond ``min(m, n)`` that are any basis of a complement: the pullback takes
a cotangent that is zero on them and raises ``ValueError`` otherwise; the
frule returns ``None``. Unknown keywords get no rule (``None``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, ProjectTo, ZeroTangent, frule, rrule, unthunk

from ._arrays import tuple_entries
from ._linalg_common import (
    adjoint,
    diag_embed,
    diagonal,
    fold_to_triangle,
    hermitian_from_triangle,
    tuple_tangent,
    unique_part,
)


def _inverse_gaps(w: np.ndarray) -> np.ndarray:
    """``F[..., i, j] = 1 / (w_j - w_i)`` off the diagonal, 0 on it (Giles 2008, section 3.1)."""
    gaps = w[..., None, :] - w[..., :, None]
    off_diagonal = ~np.eye(w.shape[-1], dtype=bool)
    return np.divide(1.0, gaps, out=np.zeros_like(gaps), where=off_diagonal)


# ----- eigh, eigvalsh -----


def _uplo(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool | None:
    """Whether the call reads the lower triangle; None for arguments without a rule."""
    if len(args) > 1 or not kwargs.keys() <= {"UPLO"}:
        return None
    uplo = args[0] if args else kwargs.get("UPLO", "L")
    return str(uplo).upper() == "L"


def _eigh_pullback(w: np.ndarray, v: np.ndarray, w_bar: Any, v_bar: Any, lower: bool) -> np.ndarray:
    """``S = V (diag(w_bar) + F o (V^H V_bar)) V^H`` folded onto the triangle read."""
    inner = np.zeros(v.shape, v.dtype)
    if not isinstance(w_bar, AbstractZero):
        inner = inner + diag_embed(np.real(w_bar).astype(v.dtype))
    if not isinstance(v_bar, AbstractZero):
        inner = inner + _inverse_gaps(w) * (adjoint(v) @ v_bar)
    return fold_to_triangle(v @ inner @ adjoint(v), lower)


@rrule.register(np.linalg.eigh)
def _rrule_eigh(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    lower = _uplo(args, kwargs)
    if lower is None:
        return None
    out = f(a, *args, **kwargs)
    w, v = out
    project_a = ProjectTo(a)
    extra = (NoTangent(),) * len(args)

    def eigh_pullback(out_bar: Any) -> tuple[Any, ...]:
        w_bar, v_bar = tuple_entries(out_bar, ("eigenvalues", "eigenvectors"))
        if isinstance(w_bar, AbstractZero) and isinstance(v_bar, AbstractZero):
            return NoTangent(), project_a(ZeroTangent()), *extra
        return NoTangent(), project_a(_eigh_pullback(w, v, w_bar, v_bar, lower)), *extra

    return out, eigh_pullback


@frule.register(np.linalg.eigh)
def _frule_eigh(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    lower = _uplo(args, kwargs)
    if lower is None:
        return None
    out = f(a, *args, **kwargs)
    w, v = out
    a_dot = unthunk(tangents[1])
    if isinstance(a_dot, AbstractZero):
        return out, ZeroTangent()
    m = adjoint(v) @ hermitian_from_triangle(np.asarray(a_dot), lower) @ v
    w_dot = np.real(diagonal(m))
    v_dot = v @ (_inverse_gaps(w) * m)
    return out, tuple_tangent(out, ProjectTo(w)(w_dot), ProjectTo(v)(v_dot))


@rrule.register(np.linalg.eigvalsh)
def _rrule_eigvalsh(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    lower = _uplo(args, kwargs)
    if lower is None:
        return None
    w, v = np.linalg.eigh(a, "L" if lower else "U")  # one decomposition: its eigenvalues are the primal
    project_a = ProjectTo(a)
    extra = (NoTangent(),) * len(args)

    def eigvalsh_pullback(w_bar: Any) -> tuple[Any, ...]:
        w_bar = unthunk(w_bar)
        if isinstance(w_bar, AbstractZero):
            return NoTangent(), project_a(ZeroTangent()), *extra
        return NoTangent(), project_a(_eigh_pullback(w, v, w_bar, ZeroTangent(), lower)), *extra

    return w, eigvalsh_pullback


@frule.register(np.linalg.eigvalsh)
def _frule_eigvalsh(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    lower = _uplo(args, kwargs)
    if lower is None:
        return None
    w, v = np.linalg.eigh(a, "L" if lower else "U")
    a_dot = unthunk(tangents[1])
    if isinstance(a_dot, AbstractZero):
        return w, ZeroTangent()
    h_dot = hermitian_from_triangle(np.asarray(a_dot), lower)
    return w, ProjectTo(w)(np.real(np.einsum("...ki,...kl,...li->...i", v.conj(), h_dot, v)))


# ----- svd, svdvals -----
# Townsend 2016, "Differentiating the singular value decomposition"; Seeger et
# al. 2017, "Auto-differentiating linear algebra"; the imaginary diagonal term
# for complex input after Wan and Zhang 2019, "Automatic differentiation for
# complex valued SVD". With P = U^H A_dot V and F_ij = 1 / (s_j^2 - s_i^2):
# s_dot = Re diag(P), U^H U_dot = F o (P S + S P^H), V^H V_dot = F o (S P + P^H S),
# plus the projections onto the complements of U and V for rectangular input.


def _svd_pushforward(u: np.ndarray, s: np.ndarray, vh: np.ndarray, a_dot: np.ndarray, vectors: bool) -> Any:
    """``(U_dot, s_dot, Vh_dot)`` for the reduced SVD; only ``s_dot`` unless ``vectors``."""
    v = adjoint(vh)
    p = adjoint(u) @ a_dot @ v
    s_dot = np.real(diagonal(p))
    if not vectors:
        return None, s_dot, None
    f = _inverse_gaps(s**2)
    ps, sp = p * s[..., None, :], s[..., :, None] * p
    omega_u = f * (ps + adjoint(ps))
    omega_v = f * (sp + adjoint(sp))
    if np.iscomplexobj(p):
        phase = diag_embed(1j * diagonal(p).imag / (2 * s))
        omega_u, omega_v = omega_u + phase, omega_v - phase
    u_dot, v_dot = u @ omega_u, v @ omega_v
    m, k, n = u.shape[-2], s.shape[-1], vh.shape[-1]
    if m > k:
        u_dot = u_dot + (a_dot @ v - u @ p) / s[..., None, :]
    if n > k:
        v_dot = v_dot + (adjoint(a_dot) @ u - v @ adjoint(p)) / s[..., None, :]
    return u_dot, s_dot, adjoint(v_dot)


def _svd_pullback(u: np.ndarray, s: np.ndarray, vh: np.ndarray, u_bar: Any, s_bar: Any, vh_bar: Any) -> np.ndarray:
    """``A_bar`` for the reduced SVD (Townsend 2016, eq. 30, with conjugate transposes)."""
    inner = np.zeros((*s.shape, s.shape[-1]), np.result_type(u, vh))
    if not isinstance(s_bar, AbstractZero):
        inner = inner + diag_embed(np.real(s_bar).astype(inner.dtype))
    has_u, has_v = not isinstance(u_bar, AbstractZero), not isinstance(vh_bar, AbstractZero)
    j = adjoint(u) @ u_bar if has_u else None
    k_ = vh @ adjoint(vh_bar) if has_v else None  # V^H V_bar
    if has_u or has_v:
        f = _inverse_gaps(s**2)
        if j is not None:
            inner = inner + (f * (j - adjoint(j))) * s[..., None, :]
        if k_ is not None:
            inner = inner + s[..., :, None] * (f * (k_ - adjoint(k_)))
        if np.iscomplexobj(inner):
            imag = (diagonal(j).imag if j is not None else 0) - (diagonal(k_).imag if k_ is not None else 0)
            inner = inner + diag_embed(1j * imag / (2 * s))
    a_bar = u @ inner @ vh
    m, k, n = u.shape[-2], s.shape[-1], vh.shape[-1]
    if j is not None and m > k:
        a_bar = a_bar + ((u_bar - u @ j) / s[..., None, :]) @ vh
    if k_ is not None and n > k:
        a_bar = a_bar + (u / s[..., None, :]) @ (vh_bar - adjoint(k_) @ vh)
    return a_bar


_SVD_DEFAULTS = {"full_matrices": True, "compute_uv": True, "hermitian": False}


def _svd_options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, bool] | None:
    if len(args) > 3 or not kwargs.keys() <= _SVD_DEFAULTS.keys():
        return None
    return {**_SVD_DEFAULTS, **dict(zip(_SVD_DEFAULTS, args)), **kwargs}


_NOT_UNIQUE = (
    "rrule(np.linalg.svd): full_matrices=True with a non-square matrix: the {} beyond min(m, n) are "
    "any orthonormal basis of a complement, so a result that depends on them has no derivative; "
    "use full_matrices=False"
)


@rrule.register(np.linalg.svd)
def _rrule_svd(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    options = _svd_options(args, kwargs)
    if options is None:
        return None
    out = f(a, *args, **kwargs)
    hermitian = options["hermitian"]
    if options["compute_uv"]:
        u, s, vh = out
    else:
        u, s, vh = np.linalg.svd(a, full_matrices=False, hermitian=hermitian)
    k = s.shape[-1]
    u, vh = u[..., :k], vh[..., :k, :]
    project_a = ProjectTo(a)
    extra = (NoTangent(),) * len(args)

    def svd_pullback(out_bar: Any) -> tuple[Any, ...]:
        if options["compute_uv"]:
            u_bar, s_bar, vh_bar = tuple_entries(out_bar, ("U", "S", "Vh"))
            u_bar = unique_part(u_bar, k, -1, _NOT_UNIQUE.format("columns of U"))
            vh_bar = unique_part(vh_bar, k, -2, _NOT_UNIQUE.format("rows of Vh"))
        else:
            u_bar, s_bar, vh_bar = ZeroTangent(), unthunk(out_bar), ZeroTangent()
        if isinstance(u_bar, AbstractZero) and isinstance(s_bar, AbstractZero) and isinstance(vh_bar, AbstractZero):
            return NoTangent(), project_a(ZeroTangent()), *extra
        a_bar = _svd_pullback(u, s, vh, u_bar, s_bar, vh_bar)
        return NoTangent(), project_a(fold_to_triangle(a_bar, lower=True) if hermitian else a_bar), *extra

    return out, svd_pullback


@frule.register(np.linalg.svd)
def _frule_svd(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    options = _svd_options(args, kwargs)
    if options is None:
        return None
    out = f(a, *args, **kwargs)
    a_dot = unthunk(tangents[1])
    if isinstance(a_dot, AbstractZero):
        return out, ZeroTangent()
    a_dot = np.asarray(a_dot)
    if options["hermitian"]:
        a_dot = hermitian_from_triangle(a_dot, lower=True)  # numpy's hermitian path calls eigh(a), UPLO='L'
    if not options["compute_uv"]:
        u, s, vh = np.linalg.svd(a, full_matrices=False, hermitian=options["hermitian"])
        return out, ProjectTo(out)(_svd_pushforward(u, s, vh, a_dot, vectors=False)[1])
    u, s, vh = out
    if options["full_matrices"] and u.shape[-1] != vh.shape[-2]:
        return None  # the singular vectors beyond min(m, n) are not determined by the matrix
    u_dot, s_dot, vh_dot = _svd_pushforward(u, s, vh, a_dot, vectors=True)
    return out, tuple_tangent(out, ProjectTo(u)(u_dot), ProjectTo(s)(s_dot), ProjectTo(vh)(vh_dot))


@rrule.register(np.linalg.svdvals)
def _rrule_svdvals(f: Any, x: Any) -> Any:
    u, s, vh = np.linalg.svd(x, full_matrices=False)  # one decomposition: its singular values are the primal
    project_x = ProjectTo(x)

    def svdvals_pullback(s_bar: Any) -> tuple[Any, Any]:
        s_bar = unthunk(s_bar)
        if isinstance(s_bar, AbstractZero):
            return NoTangent(), project_x(ZeroTangent())
        return NoTangent(), project_x((u * np.real(s_bar)[..., None, :]) @ vh)

    return s, svdvals_pullback


@frule.register(np.linalg.svdvals)
def _frule_svdvals(tangents: tuple[Any, ...], f: Any, x: Any) -> Any:
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    x_dot = unthunk(tangents[1])
    if isinstance(x_dot, AbstractZero):
        return s, ZeroTangent()
    return s, ProjectTo(s)(_svd_pushforward(u, s, vh, np.asarray(x_dot), vectors=False)[1])
