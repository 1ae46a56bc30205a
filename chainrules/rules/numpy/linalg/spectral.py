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

All four run on every Array API library, their formulas computed in its
namespace (the standard's ``eigh`` and ``svd`` of the matrix numpy's reads:
JAX's read both triangles). ``svd(hermitian=True)`` is numpy's alone (the
standard has no such option). dask has no ``eigh`` nor ``eigvalsh``, and
its SVD takes single matrices split along one axis only: its other arrays
get ``TypeError``.
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
from chainrules_core.array_api import call_in
from chainrules_core.arrays import device_of, is_complex_dtype, namespace_of, real_part, refusal

from ..._makers import checked_entries
from ._common import (
    adjoint,
    as_array,
    complement_cotangent,
    complement_tangent,
    conjugate,
    dask_refusals,
    diag_embed,
    diagonal,
    fold_to_triangle,
    hermitian_from_triangle,
    linalg_call,
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


def _zeros(xp: Any, shape: tuple[int, ...], dtype: Any, like: Any) -> Any:
    return np.zeros(shape, dtype) if xp is np else xp.zeros(shape, dtype=dtype, device=device_of(like))


def _as_dtype(xp: Any, x: Any, dtype: Any) -> Any:
    """``x``'s real part in ``dtype`` (a seed of real values may come complex)."""
    return np.real(x).astype(dtype) if xp is np else xp.astype(real_part(xp, x), dtype)


def _eigh_cotangent(w: Any, v: Any, w_bar: Any, v_bar: Any, lower: bool, xp: Any = np) -> Any:
    """``S = V (diag(w_bar) + F o (V^H V_bar)) V^H`` folded onto the triangle read."""
    inner = _zeros(xp, v.shape, v.dtype, v)
    if not isinstance(w_bar, AbstractZero):
        inner = inner + diag_embed(_as_dtype(xp, w_bar, v.dtype), xp)
    if not isinstance(v_bar, AbstractZero):
        inner = inner + over_gaps(adjoint(v, xp) @ v_bar, w, xp)
    return fold_to_triangle(v @ inner @ adjoint(v, xp), lower, xp)


def _eigh_call(f: Any, a: Any, args: tuple[Any, ...], kwargs: dict[str, Any], lower: bool) -> tuple[Any, Any]:
    """numpy's ``eigh`` (or ``eigvalsh``); another library's of the Hermitian matrix numpy's reads from one
    triangle (the standard reads no option to say which)."""
    xp = namespace_of(a)
    if xp is np:
        return f(a, *args, **kwargs), xp
    with dask_refusals(f, a):
        return call_in(xp, f, hermitian_from_triangle(a, lower, xp)), xp


@rrule.register(np.linalg.eigh, generic=True)
def _rrule_eigh(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    lower = _uplo(args, kwargs)
    if lower is None:
        return None
    out, xp = _eigh_call(f, a, args, kwargs, lower)
    w, v = out
    project_a = ProjectTo(a)
    extra = (NoTangent(),) * len(args)
    shapes = (w.shape, v.shape)

    def eigh_pullback(out_bar: Any) -> tuple[Any, ...]:
        w_bar, v_bar = checked_entries(f, out_bar, ("eigenvalues", "eigenvectors"), shapes)
        if isinstance(w_bar, AbstractZero) and isinstance(v_bar, AbstractZero):
            return NoTangent(), project_a(ZeroTangent()), *extra
        return NoTangent(), project_a(_eigh_cotangent(w, v, w_bar, v_bar, lower, xp)), *extra

    return out, eigh_pullback


@frule.register(np.linalg.eigh, generic=True)
def _frule_eigh(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    lower = _uplo(args, kwargs)
    if lower is None:
        return None
    out, xp = _eigh_call(f, a, args, kwargs, lower)
    w, v = out
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero):
        return out, ZeroTangent()
    m = adjoint(v, xp) @ hermitian_from_triangle(as_array(a_dot) if xp is np else a_dot, lower, xp) @ v
    w_dot = real_part(xp, diagonal(m, xp))
    v_dot = v @ over_gaps(m, w, xp)
    return out, tuple_tangent(out, ProjectTo(w)(w_dot), ProjectTo(v)(v_dot))


def _eigenvectors(xp: Any, a: Any, lower: bool) -> Any:
    """The eigenvectors of the Hermitian matrix ``a``'s triangle stands for, computed now."""
    if xp is np:
        return np.linalg.eigh(a, "L" if lower else "U")[1]
    return xp.linalg.eigh(hermitian_from_triangle(a, lower, xp))[1]


def _values_tangent(xp: Any, v: Any, h_dot: Any) -> Any:
    """``Re diag(V^H H_dot V)``, the eigenvalues' tangent."""
    if xp is np:
        return np.real(np.einsum("...ki,...kl,...li->...i", v.conj(), h_dot, v))
    return real_part(xp, xp.sum(conjugate(v, xp) * (h_dot @ v), axis=-2))


@rrule.register(np.linalg.eigvalsh, generic=True)
def _rrule_eigvalsh(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    lower = _uplo(args, kwargs)
    if lower is None:
        return None
    w, xp = _eigh_call(f, a, args, kwargs, lower)
    project_a = ProjectTo(a)
    extra = (NoTangent(),) * len(args)
    shape = value_shape(w)

    def eigvalsh_pullback(w_bar: Any) -> tuple[Any, ...]:
        w_bar = checked_seed(f, w_bar, shape)
        v = _eigenvectors(xp, a, lower)
        return NoTangent(), project_a(_eigh_cotangent(w, v, w_bar, ZeroTangent(), lower, xp)), *extra

    return w, eigvalsh_pullback


@frule.register(np.linalg.eigvalsh, generic=True)
def _frule_eigvalsh(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    lower = _uplo(args, kwargs)
    if lower is None:
        return None
    w, xp = _eigh_call(f, a, args, kwargs, lower)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero):
        return w, ZeroTangent()
    v = _eigenvectors(xp, a, lower)
    h_dot = hermitian_from_triangle(as_array(a_dot) if xp is np else a_dot, lower, xp)
    return w, ProjectTo(w)(_values_tangent(xp, v, h_dot))


# ----- svd, svdvals -----
# Townsend 2016, "Differentiating the singular value decomposition"; Seeger et
# al. 2017, "Auto-differentiating linear algebra"; the imaginary diagonal term
# for complex input after Wan and Zhang 2019, "Automatic differentiation for
# complex valued SVD". With P = U^H A_dot V and F_ij = 1 / (s_j^2 - s_i^2):
# s_dot = Re diag(P), U^H U_dot = F o (P S + S P^H), V^H V_dot = F o (S P + P^H S),
# plus the projections onto the complements of U and V for rectangular input.


def _row(xp: Any, s: Any) -> Any:
    """``s[..., None, :]``: a vector per matrix as a row that scales the columns."""
    return s[..., None, :] if xp is np else xp.expand_dims(s, axis=-2)


def _column(xp: Any, s: Any) -> Any:
    """``s[..., :, None]``: a vector per matrix as a column that scales the rows."""
    return s[..., :, None] if xp is np else xp.expand_dims(s, axis=-1)


def _largest(xp: Any, s: Any) -> Any:
    """The largest singular value of each matrix (0 for none), keeping the axis."""
    if xp is np:
        return np.max(s, axis=-1, keepdims=True, initial=0.0)
    return xp.max(s, axis=-1, keepdims=True)  # the standard's max takes no initial value: s is not empty there


def _is_complex(xp: Any, x: Any) -> bool:
    return bool(np.iscomplexobj(x)) if xp is np else is_complex_dtype(xp, x.dtype)


def _times_i(xp: Any, x: Any, dtype: Any) -> Any:
    """``1j * x`` for a real ``x``, in the complex ``dtype``."""
    return 1j * x if xp is np else xp.astype(x, dtype) * 1j


def _svd_pushforward(u: Any, s: Any, vh: Any, a_dot: Any, xp: Any = np) -> Any:
    """``(U_dot, s_dot, Vh_dot)`` for the reduced SVD."""
    v = adjoint(vh, xp)
    p = adjoint(u, xp) @ a_dot @ v
    s_dot = real_part(xp, diagonal(p, xp))
    # With the singular values scaled to at most 1, P S neither underflows at tiny nor overflows at huge ones.
    scale = _largest(xp, s)
    scale = xp.where(scale > 0, scale, 1.0)
    t = s / scale
    pt, tp = p * _row(xp, t), _column(xp, t) * p
    omega_u = over_square_gaps(pt + adjoint(pt, xp), t, xp) / _column(xp, scale)
    omega_v = over_square_gaps(tp + adjoint(tp, xp), t, xp) / _column(xp, scale)
    if _is_complex(xp, p):
        phase = diag_embed(_times_i(xp, xp.imag(diagonal(p, xp)) / (2 * s), p.dtype), xp)
        omega_u, omega_v = omega_u + phase, omega_v - phase
    u_dot, v_dot = u @ omega_u, v @ omega_v
    m, k, n = u.shape[-2], s.shape[-1], vh.shape[-1]
    if m > k:
        u_dot = u_dot + (a_dot @ v - u @ p) / _row(xp, s)
    if n > k:
        v_dot = v_dot + (adjoint(a_dot, xp) @ u - v @ adjoint(p, xp)) / _row(xp, s)
    return u_dot, s_dot, adjoint(v_dot, xp)


def _svd_cotangent(u: Any, s: Any, vh: Any, u_bar: Any, s_bar: Any, vh_bar: Any, xp: Any = np) -> Any:
    """``A_bar`` for the reduced SVD (Townsend 2016, eq. 30, with conjugate transposes)."""
    dtype = np.result_type(u, vh) if xp is np else xp.result_type(u, vh)
    inner = _zeros(xp, (*s.shape, s.shape[-1]), dtype, u)
    if not isinstance(s_bar, AbstractZero):
        inner = inner + diag_embed(_as_dtype(xp, s_bar, dtype), xp)
    has_u, has_v = not isinstance(u_bar, AbstractZero), not isinstance(vh_bar, AbstractZero)
    j = adjoint(u, xp) @ u_bar if has_u else None
    k_ = vh @ adjoint(vh_bar, xp) if has_v else None  # V^H V_bar
    if j is not None:
        inner = inner + over_square_gaps(j - adjoint(j, xp), s, xp) * _row(xp, s)
    if k_ is not None:
        inner = inner + _column(xp, s) * over_square_gaps(k_ - adjoint(k_, xp), s, xp)
    if (has_u or has_v) and is_complex_dtype(xp, dtype):
        imag = [xp.imag(diagonal(x, xp)) for x in (j, k_) if x is not None]
        turn = imag[0] - imag[1] if len(imag) == 2 else (imag[0] if j is not None else -imag[0])
        inner = inner + diag_embed(_times_i(xp, turn / (2 * s), dtype), xp)
    a_bar = u @ inner @ vh
    m, k, n = u.shape[-2], s.shape[-1], vh.shape[-1]
    if j is not None and m > k:
        a_bar = a_bar + ((u_bar - u @ j) / _row(xp, s)) @ vh
    if k_ is not None and n > k:
        a_bar = a_bar + (u / _row(xp, s)) @ (vh_bar - adjoint(k_, xp) @ vh)
    return a_bar


def _reduced_svd(xp: Any, a: Any, hermitian: bool) -> Any:
    if xp is np:
        return np.linalg.svd(a, full_matrices=False, hermitian=hermitian)
    return xp.linalg.svd(a, full_matrices=False)


def _values_cotangent(a: Any, s_bar: Any, hermitian: bool, xp: Any = np) -> Any:
    """``A_bar = U diag(Re s_bar) Vh`` from a reduced SVD computed now (a seed on the singular values only)."""
    u, s, vh = _reduced_svd(xp, a, hermitian)
    nonzero = nonzero_singular_values(s, np.shape(a) if xp is np else tuple(a.shape), xp)
    weights = _as_dtype(xp, s_bar, s.dtype) * _as_dtype(xp, nonzero, s.dtype)
    a_bar = (u * _as_dtype(xp, _row(xp, weights), u.dtype)) @ vh
    return fold_to_triangle(a_bar, True, xp) if hermitian else a_bar


def _values_pushforward(a: Any, a_dot: Any, hermitian: bool, xp: Any = np) -> Any:
    """``s_dot = Re diag(U^H A_dot V)`` from a reduced SVD computed now."""
    u, s, vh = _reduced_svd(xp, a, hermitian)
    if xp is np:
        s_dot = np.real(np.einsum("...ki,...kl,...il->...i", u.conj(), a_dot, vh.conj()))
        return s_dot * nonzero_singular_values(s, np.shape(a))
    s_dot = real_part(xp, xp.sum(conjugate(u, xp) * (a_dot @ adjoint(vh, xp)), axis=-2))
    return xp.where(nonzero_singular_values(s, tuple(a.shape), xp), s_dot, 0.0)


def _concat(xp: Any, arrays: list[Any], axis: int) -> Any:
    return np.concatenate(arrays, axis=axis) if xp is np else xp.concat(arrays, axis=axis)


def _reduced_vector_bars(u: Any, vh: Any, k: int, u_bar: Any, vh_bar: Any, xp: Any = np) -> tuple[Any, Any]:
    """The cotangents of the first ``k`` singular vectors, those of the complements folded in.

    The adjoint of ``complement_tangent``: the complement's basis follows
    the first ``k`` vectors without turning within the complement.
    """
    if not isinstance(u_bar, AbstractZero) and u_bar.shape[-1] > k:
        u_bar = u_bar[..., :k] + complement_cotangent(u[..., :k], u[..., k:], u_bar[..., k:], xp)
    if not isinstance(vh_bar, AbstractZero) and vh_bar.shape[-2] > k:
        v1, v2, v2_bar = adjoint(vh[..., :k, :], xp), adjoint(vh[..., k:, :], xp), adjoint(vh_bar[..., k:, :], xp)
        vh_bar = vh_bar[..., :k, :] + adjoint(complement_cotangent(v1, v2, v2_bar, xp), xp)
    return u_bar, vh_bar


def _full_vector_dots(u: Any, vh: Any, u_dot: Any, vh_dot: Any, xp: Any = np) -> tuple[Any, Any]:
    """The tangents of all of ``U`` and ``Vh`` of a full SVD from those of the first ``k`` vectors."""
    k = u_dot.shape[-1]
    if u.shape[-1] > k:
        u_dot = _concat(xp, [u_dot, complement_tangent(u[..., :k], u_dot, u[..., k:], xp)], -1)
    if vh.shape[-2] > k:
        v1, v2 = adjoint(vh[..., :k, :], xp), adjoint(vh[..., k:, :], xp)
        vh_dot = _concat(xp, [vh_dot, adjoint(complement_tangent(v1, adjoint(vh_dot, xp), v2, xp), xp)], -2)
    return u_dot, vh_dot


_SVD_DEFAULTS = {"full_matrices": True, "compute_uv": True, "hermitian": False}


def _svd_options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, bool] | None:
    if len(args) > 3 or not kwargs.keys() <= _SVD_DEFAULTS.keys():
        return None
    return {**_SVD_DEFAULTS, **dict(zip(_SVD_DEFAULTS, args)), **kwargs}


def _svd_call(f: Any, a: Any, args: tuple[Any, ...], kwargs: dict[str, Any], options: dict[str, bool]) -> Any:
    """numpy's ``svd``; another library's ``svd`` (``full_matrices``) or ``svdvals`` (``compute_uv=False``), the
    standard's (it has no ``hermitian``)."""
    xp = namespace_of(a)
    if xp is np:
        return f(a, *args, **kwargs), xp
    if options["hermitian"]:
        raise refusal(f, a, "hermitian= has no counterpart in the Python Array API standard")
    with dask_refusals(f, a):
        if not options["compute_uv"]:
            return xp.linalg.svdvals(a), xp
        return xp.linalg.svd(a, full_matrices=options["full_matrices"]), xp


@rrule.register(np.linalg.svd, generic=True)
def _rrule_svd(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    options = _svd_options(args, kwargs)
    if options is None:
        return None
    out, xp = _svd_call(f, a, args, kwargs, options)
    hermitian = options["hermitian"]
    project_a = ProjectTo(a)
    extra = (NoTangent(),) * len(args)
    if not options["compute_uv"]:
        shape = value_shape(out)

        def svd_values_pullback(s_bar: Any) -> tuple[Any, ...]:
            a_bar = _values_cotangent(a, checked_seed(f, s_bar, shape), hermitian, xp)
            return NoTangent(), project_a(a_bar), *extra

        return out, svd_values_pullback
    u, s, vh = out
    k = s.shape[-1]
    shapes = (u.shape, s.shape, vh.shape)

    def svd_pullback(out_bar: Any) -> tuple[Any, ...]:
        u_bar, s_bar, vh_bar = checked_entries(f, out_bar, ("U", "S", "Vh"), shapes)
        if isinstance(u_bar, AbstractZero) and isinstance(s_bar, AbstractZero) and isinstance(vh_bar, AbstractZero):
            return NoTangent(), project_a(ZeroTangent()), *extra
        u_bar, vh_bar = _reduced_vector_bars(u, vh, k, u_bar, vh_bar, xp)
        a_bar = _svd_cotangent(u[..., :k], s, vh[..., :k, :], u_bar, s_bar, vh_bar, xp)
        return NoTangent(), project_a(fold_to_triangle(a_bar, True, xp) if hermitian else a_bar), *extra

    return out, svd_pullback


@frule.register(np.linalg.svd, generic=True)
def _frule_svd(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    options = _svd_options(args, kwargs)
    if options is None:
        return None
    out, xp = _svd_call(f, a, args, kwargs, options)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero):
        return out, ZeroTangent()
    a_dot = as_array(a_dot) if xp is np else a_dot
    if options["hermitian"]:
        a_dot = hermitian_from_triangle(a_dot, lower=True)  # numpy's hermitian path calls eigh(a), UPLO='L'
    if not options["compute_uv"]:
        return out, ProjectTo(out)(_values_pushforward(a, a_dot, options["hermitian"], xp))
    u, s, vh = out
    k = s.shape[-1]
    u_dot, s_dot, vh_dot = _svd_pushforward(u[..., :k], s, vh[..., :k, :], a_dot, xp)
    u_dot, vh_dot = _full_vector_dots(u, vh, u_dot, vh_dot, xp)
    return out, tuple_tangent(out, ProjectTo(u)(u_dot), ProjectTo(s)(s_dot), ProjectTo(vh)(vh_dot))


@rrule.register(np.linalg.svdvals, generic=True)
def _rrule_svdvals(f: Any, x: Any) -> Any:
    xp = namespace_of(x)
    s = linalg_call(xp, f, x)
    project_x = ProjectTo(x)
    shape = value_shape(s)

    def svdvals_pullback(s_bar: Any) -> tuple[Any, Any]:
        return NoTangent(), project_x(_values_cotangent(x, checked_seed(f, s_bar, shape), False, xp))

    return s, svdvals_pullback


@frule.register(np.linalg.svdvals, generic=True)
def _frule_svdvals(tangents: tuple[Any, ...], f: Any, x: Any) -> Any:
    xp = namespace_of(x)
    s = linalg_call(xp, f, x)
    x_dot = checked_tangent(f, tangents[1], x, 1)
    if isinstance(x_dot, AbstractZero):
        return s, ZeroTangent()
    return s, ProjectTo(s)(_values_pushforward(x, as_array(x_dot) if xp is np else x_dot, False, xp))
