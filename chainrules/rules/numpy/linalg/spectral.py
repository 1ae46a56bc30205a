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
s_i^2``): where values coincide and the cotangent of the vectors is not zero
there, the result is infinite or nan, with numpy's warnings (the vectors are
not differentiable there). A zero cotangent (``ZeroTangent()`` or zeros)
contributes nothing, so using only eigenvalues or singular values keeps the
result finite. ``eigvalsh`` and ``svdvals`` never form that term.

Primal values. ``eigvalsh``, ``svdvals`` and ``svd(compute_uv=False)``
return numpy's own values (LAPACK computes them without vectors, which can
differ from the vectors' path by a few ulps); their pullbacks compute the
vectors when called. A singular value at 0 (up to ``max(m, n) * eps *
s_max``) is a kink, ``|h| c`` along any direction: ``svdvals`` and
``svd(compute_uv=False)`` give it the central difference, 0.

eigh and ``svd(hermitian=True)`` read one triangle of their input (``UPLO``);
the cotangent lives on that triangle, with a real diagonal.

``svd(full_matrices=True)`` of a non-square matrix returns singular vectors
beyond ``min(m, n)`` that are any orthonormal basis of a complement. The
rules use the gauge in which that basis does not turn within the
complement: with ``U = [U1 | U2]``, ``U2^H U2_dot = 0``, so
``U2_dot = -U1 (U1_dot^H U2)`` (the same for ``V``). A result that depends
on the complement only (its projector ``U2 U2^H``) gets its true
derivative. Unknown keywords get no rule (``None``).
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
    nonzero_singular_values,
    over_gaps,
    over_square_gaps,
    tuple_tangent,
)

# ----- eigh, eigvalsh -----
# Giles 2008, "An extended collection of matrix derivative results", section
# 3.1, for Hermitian matrices: with M = V^H H_dot V, w_dot = Re diag(M) and
# V_dot = V (F o M), F_ij = 1 / (w_j - w_i); the adjoint
# S = V (diag(w_bar) + F o (V^H V_bar)) V^H, folded onto the triangle read.


def _uplo(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool | None:
    """Whether the call reads the lower triangle; None for arguments without a rule."""
    if len(args) > 1 or not kwargs.keys() <= {"UPLO"}:
        return None
    uplo = args[0] if args else kwargs.get("UPLO", "L")
    return str(uplo).upper() == "L"


def _eigh_cotangent(w: np.ndarray, v: np.ndarray, w_bar: Any, v_bar: Any, lower: bool) -> np.ndarray:
    """``S = V (diag(w_bar) + F o (V^H V_bar)) V^H`` folded onto the triangle read."""
    inner = np.zeros(v.shape, v.dtype)
    if not isinstance(w_bar, AbstractZero):
        inner = inner + diag_embed(np.real(w_bar).astype(v.dtype))
    if not isinstance(v_bar, AbstractZero):
        inner = inner + over_gaps(adjoint(v) @ v_bar, w)
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
    shapes = (w.shape, v.shape)

    def eigh_pullback(out_bar: Any) -> tuple[Any, ...]:
        w_bar, v_bar = checked_entries(f, out_bar, ("eigenvalues", "eigenvectors"), shapes)
        if isinstance(w_bar, AbstractZero) and isinstance(v_bar, AbstractZero):
            return NoTangent(), project_a(ZeroTangent()), *extra
        return NoTangent(), project_a(_eigh_cotangent(w, v, w_bar, v_bar, lower)), *extra

    return out, eigh_pullback


@frule.register(np.linalg.eigh)
def _frule_eigh(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    lower = _uplo(args, kwargs)
    if lower is None:
        return None
    out = f(a, *args, **kwargs)
    w, v = out
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero):
        return out, ZeroTangent()
    m = adjoint(v) @ hermitian_from_triangle(as_array(a_dot), lower) @ v
    w_dot = np.real(diagonal(m))
    v_dot = v @ over_gaps(m, w)
    return out, tuple_tangent(out, ProjectTo(w)(w_dot), ProjectTo(v)(v_dot))


@rrule.register(np.linalg.eigvalsh)
def _rrule_eigvalsh(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    lower = _uplo(args, kwargs)
    if lower is None:
        return None
    w = f(a, *args, **kwargs)
    project_a = ProjectTo(a)
    extra = (NoTangent(),) * len(args)
    shape = value_shape(w)

    def eigvalsh_pullback(w_bar: Any) -> tuple[Any, ...]:
        w_bar = checked_seed(f, w_bar, shape)
        _, v = np.linalg.eigh(a, "L" if lower else "U")
        return NoTangent(), project_a(_eigh_cotangent(w, v, w_bar, ZeroTangent(), lower)), *extra

    return w, eigvalsh_pullback


@frule.register(np.linalg.eigvalsh)
def _frule_eigvalsh(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    lower = _uplo(args, kwargs)
    if lower is None:
        return None
    w = f(a, *args, **kwargs)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero):
        return w, ZeroTangent()
    _, v = np.linalg.eigh(a, "L" if lower else "U")
    h_dot = hermitian_from_triangle(as_array(a_dot), lower)
    return w, ProjectTo(w)(np.real(np.einsum("...ki,...kl,...li->...i", v.conj(), h_dot, v)))


# ----- svd, svdvals -----
# Townsend 2016, "Differentiating the singular value decomposition"; Seeger et
# al. 2017, "Auto-differentiating linear algebra"; the imaginary diagonal term
# for complex input after Wan and Zhang 2019, "Automatic differentiation for
# complex valued SVD". With P = U^H A_dot V and F_ij = 1 / (s_j^2 - s_i^2):
# s_dot = Re diag(P), U^H U_dot = F o (P S + S P^H), V^H V_dot = F o (S P + P^H S),
# plus the projections onto the complements of U and V for rectangular input.


def _svd_pushforward(u: np.ndarray, s: np.ndarray, vh: np.ndarray, a_dot: np.ndarray) -> Any:
    """``(U_dot, s_dot, Vh_dot)`` for the reduced SVD."""
    v = adjoint(vh)
    p = adjoint(u) @ a_dot @ v
    s_dot = np.real(diagonal(p))
    # With the singular values scaled to at most 1, P S neither underflows at tiny nor overflows at huge ones.
    scale = np.max(s, axis=-1, keepdims=True, initial=0.0)
    scale = np.where(scale > 0, scale, 1.0)
    t = s / scale
    pt, tp = p * t[..., None, :], t[..., :, None] * p
    omega_u = over_square_gaps(pt + adjoint(pt), t) / scale[..., None]
    omega_v = over_square_gaps(tp + adjoint(tp), t) / scale[..., None]
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


def _svd_cotangent(u: np.ndarray, s: np.ndarray, vh: np.ndarray, u_bar: Any, s_bar: Any, vh_bar: Any) -> np.ndarray:
    """``A_bar`` for the reduced SVD (Townsend 2016, eq. 30, with conjugate transposes)."""
    inner = np.zeros((*s.shape, s.shape[-1]), np.result_type(u, vh))
    if not isinstance(s_bar, AbstractZero):
        inner = inner + diag_embed(np.real(s_bar).astype(inner.dtype))
    has_u, has_v = not isinstance(u_bar, AbstractZero), not isinstance(vh_bar, AbstractZero)
    j = adjoint(u) @ u_bar if has_u else None
    k_ = vh @ adjoint(vh_bar) if has_v else None  # V^H V_bar
    if j is not None:
        inner = inner + over_square_gaps(j - adjoint(j), s) * s[..., None, :]
    if k_ is not None:
        inner = inner + s[..., :, None] * over_square_gaps(k_ - adjoint(k_), s)
    if (has_u or has_v) and np.iscomplexobj(inner):
        imag = (diagonal(j).imag if j is not None else 0) - (diagonal(k_).imag if k_ is not None else 0)
        inner = inner + diag_embed(1j * imag / (2 * s))
    a_bar = u @ inner @ vh
    m, k, n = u.shape[-2], s.shape[-1], vh.shape[-1]
    if j is not None and m > k:
        a_bar = a_bar + ((u_bar - u @ j) / s[..., None, :]) @ vh
    if k_ is not None and n > k:
        a_bar = a_bar + (u / s[..., None, :]) @ (vh_bar - adjoint(k_) @ vh)
    return a_bar


def _values_cotangent(a: Any, s_bar: Any, hermitian: bool) -> np.ndarray:
    """``A_bar = U diag(Re s_bar) Vh`` from a reduced SVD computed now (a seed on the singular values only)."""
    u, s, vh = np.linalg.svd(a, full_matrices=False, hermitian=hermitian)
    weights = np.real(s_bar) * nonzero_singular_values(s, np.shape(a))
    a_bar = (u * weights[..., None, :].astype(u.dtype)) @ vh
    return fold_to_triangle(a_bar, lower=True) if hermitian else a_bar


def _values_pushforward(a: Any, a_dot: np.ndarray, hermitian: bool) -> np.ndarray:
    """``s_dot = Re diag(U^H A_dot V)`` from a reduced SVD computed now."""
    u, s, vh = np.linalg.svd(a, full_matrices=False, hermitian=hermitian)
    s_dot = np.real(np.einsum("...ki,...kl,...il->...i", u.conj(), a_dot, vh.conj()))
    return s_dot * nonzero_singular_values(s, np.shape(a))


def _reduced_vector_bars(u: np.ndarray, vh: np.ndarray, k: int, u_bar: Any, vh_bar: Any) -> tuple[Any, Any]:
    """The cotangents of the first ``k`` singular vectors, those of the complements folded in.

    The adjoint of ``complement_tangent``: the complement's basis follows
    the first ``k`` vectors without turning within the complement.
    """
    if not isinstance(u_bar, AbstractZero) and u_bar.shape[-1] > k:
        u_bar = u_bar[..., :k] + complement_cotangent(u[..., :k], u[..., k:], u_bar[..., k:])
    if not isinstance(vh_bar, AbstractZero) and vh_bar.shape[-2] > k:
        v1, v2, v2_bar = adjoint(vh[..., :k, :]), adjoint(vh[..., k:, :]), adjoint(vh_bar[..., k:, :])
        vh_bar = vh_bar[..., :k, :] + adjoint(complement_cotangent(v1, v2, v2_bar))
    return u_bar, vh_bar


def _full_vector_dots(u: np.ndarray, vh: np.ndarray, u_dot: np.ndarray, vh_dot: np.ndarray) -> tuple[Any, Any]:
    """The tangents of all of ``U`` and ``Vh`` of a full SVD from those of the first ``k`` vectors."""
    k = u_dot.shape[-1]
    if u.shape[-1] > k:
        u_dot = np.concatenate([u_dot, complement_tangent(u[..., :k], u_dot, u[..., k:])], axis=-1)
    if vh.shape[-2] > k:
        v1, v2 = adjoint(vh[..., :k, :]), adjoint(vh[..., k:, :])
        vh_dot = np.concatenate([vh_dot, adjoint(complement_tangent(v1, adjoint(vh_dot), v2))], axis=-2)
    return u_dot, vh_dot


_SVD_DEFAULTS = {"full_matrices": True, "compute_uv": True, "hermitian": False}


def _svd_options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, bool] | None:
    if len(args) > 3 or not kwargs.keys() <= _SVD_DEFAULTS.keys():
        return None
    return {**_SVD_DEFAULTS, **dict(zip(_SVD_DEFAULTS, args)), **kwargs}


@rrule.register(np.linalg.svd)
def _rrule_svd(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    options = _svd_options(args, kwargs)
    if options is None:
        return None
    out = f(a, *args, **kwargs)
    hermitian = options["hermitian"]
    project_a = ProjectTo(a)
    extra = (NoTangent(),) * len(args)
    if not options["compute_uv"]:
        shape = value_shape(out)

        def svd_values_pullback(s_bar: Any) -> tuple[Any, ...]:
            return NoTangent(), project_a(_values_cotangent(a, checked_seed(f, s_bar, shape), hermitian)), *extra

        return out, svd_values_pullback
    u, s, vh = out
    k = s.shape[-1]
    shapes = (u.shape, s.shape, vh.shape)

    def svd_pullback(out_bar: Any) -> tuple[Any, ...]:
        u_bar, s_bar, vh_bar = checked_entries(f, out_bar, ("U", "S", "Vh"), shapes)
        if isinstance(u_bar, AbstractZero) and isinstance(s_bar, AbstractZero) and isinstance(vh_bar, AbstractZero):
            return NoTangent(), project_a(ZeroTangent()), *extra
        u_bar, vh_bar = _reduced_vector_bars(u, vh, k, u_bar, vh_bar)
        a_bar = _svd_cotangent(u[..., :k], s, vh[..., :k, :], u_bar, s_bar, vh_bar)
        return NoTangent(), project_a(fold_to_triangle(a_bar, lower=True) if hermitian else a_bar), *extra

    return out, svd_pullback


@frule.register(np.linalg.svd)
def _frule_svd(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    options = _svd_options(args, kwargs)
    if options is None:
        return None
    out = f(a, *args, **kwargs)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero):
        return out, ZeroTangent()
    a_dot = as_array(a_dot)
    if options["hermitian"]:
        a_dot = hermitian_from_triangle(a_dot, lower=True)  # numpy's hermitian path calls eigh(a), UPLO='L'
    if not options["compute_uv"]:
        return out, ProjectTo(out)(_values_pushforward(a, a_dot, options["hermitian"]))
    u, s, vh = out
    k = s.shape[-1]
    u_dot, s_dot, vh_dot = _svd_pushforward(u[..., :k], s, vh[..., :k, :], a_dot)
    u_dot, vh_dot = _full_vector_dots(u, vh, u_dot, vh_dot)
    return out, tuple_tangent(out, ProjectTo(u)(u_dot), ProjectTo(s)(s_dot), ProjectTo(vh)(vh_dot))


@rrule.register(np.linalg.svdvals)
def _rrule_svdvals(f: Any, x: Any) -> Any:
    s = f(x)
    project_x = ProjectTo(x)
    shape = value_shape(s)

    def svdvals_pullback(s_bar: Any) -> tuple[Any, Any]:
        return NoTangent(), project_x(_values_cotangent(x, checked_seed(f, s_bar, shape), hermitian=False))

    return s, svdvals_pullback


@frule.register(np.linalg.svdvals)
def _frule_svdvals(tangents: tuple[Any, ...], f: Any, x: Any) -> Any:
    s = f(x)
    x_dot = checked_tangent(f, tangents[1], x, 1)
    if isinstance(x_dot, AbstractZero):
        return s, ZeroTangent()
    return s, ProjectTo(s)(_values_pushforward(x, as_array(x_dot), hermitian=False))
