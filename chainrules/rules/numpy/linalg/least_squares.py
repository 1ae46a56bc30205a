"""Pseudo-inverse and least squares: pinv and lstsq.

Both cut the singular values at or below a threshold (``rcond``/``rtol``
times the largest) to zero, so their value jumps where a singular value
crosses it. The rules hold the rank fixed: the derivative is that of the
pseudo-inverse of a matrix of that rank, Golub and Pereyra 1973, "The
differentiation of pseudo-inverses and nonlinear least squares problems
whose variables separate", eq. (4.12), with ``X = pinv(A)``:

    X_dot = -X A_dot X + X X^H A_dot^H (I - A X) + (I - X A) A_dot^H X^H X

It is exact for full-rank and for rank-deficient matrices whose cut
singular values are zero (up to rounding), and ignores the part of
``A_dot`` that would raise the rank. Where the cut values are not
negligible (a large ``rtol``), it is the derivative with them held at zero.

``pinv(a, hermitian=True)`` reads the lower triangle of ``a`` (numpy's
``eigh`` path): its tangent is mirrored from that triangle and its
cotangent lives there. Stacks of matrices are handled.

``pinv`` runs on every Array API library, its formulas computed in its
namespace (the standard's ``pinv``, ``rcond`` as its ``rtol``); the
standard has no ``hermitian`` option, which stays numpy's. ``lstsq``, which
the standard does not name, is numpy's alone.

``lstsq(a, b)`` returns ``(x, residuals, rank, s)`` with ``x = pinv(a) b``.
``x`` and ``residuals = |b - a x|**2`` per column (present when ``a`` has full
column rank and more rows than columns, else an empty array) are
differentiated; ``rank`` is an integer (``NoTangent()``); the singular
values ``s`` of ``a`` get their derivative ``Re diag(U^H A_dot V)``, 0 for
those that are zero up to rounding (a kink, as in ``svdvals``). numpy's
``lstsq`` takes no stacks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    Tangent,
    ZeroTangent,
    checked_seed,
    frule,
    primal_of,
    rrule,
    value_shape,
)
from chainrules_core.arrays import namespace_of, refusal

from ..._arrays import NOVALUE
from ..._makers import checked_entries, checked_tangents
from ._common import (
    adjoint,
    as_array,
    fold_to_triangle,
    hermitian_from_triangle,
    linalg_call,
    nonzero_singular_values,
)


def _pinv_pushforward(a: Any, x: Any, a_dot: Any, xp: Any = np) -> Any:
    """``X_dot`` of Golub and Pereyra's eq. (4.12), for ``X = pinv(a)``."""
    x_h, a_dot_h = adjoint(x, xp), adjoint(a_dot, xp)
    y2 = x @ (x_h @ a_dot_h)  # X X^H A_dot^H, then times (I - A X)
    y3 = a_dot_h @ (x_h @ x)  # (I - X A) times A_dot^H X^H X
    return -(x @ a_dot @ x) + (y2 - (y2 @ a) @ x) + (y3 - x @ (a @ y3))


def _pinv_cotangent(a: Any, x: Any, x_bar: Any, xp: Any = np) -> Any:
    """The adjoint: ``-X^H G X^H + (I - A X) G^H X X^H + X^H X G^H (I - X A)``."""
    x_h, g_h = adjoint(x, xp), adjoint(x_bar, xp)
    y2 = g_h @ (x @ x_h)
    y3 = (x_h @ x) @ g_h
    return -(x_h @ x_bar @ x_h) + (y2 - a @ (x @ y2)) + (y3 - (y3 @ x) @ a)


# ----- pinv -----


def _pinv_options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    if len(args) > 2 or not kwargs.keys() <= {"rcond", "hermitian", "rtol"}:
        return None
    options = {"rcond": None, "hermitian": False, "rtol": NOVALUE, **dict(zip(("rcond", "hermitian"), args)), **kwargs}
    return options


def _pinv_call(f: Any, a: Any, args: tuple[Any, ...], kwargs: dict[str, Any], hermitian: bool) -> tuple[Any, Any]:
    """numpy's ``pinv``; another library's, the standard's (which has no ``hermitian``)."""
    xp = namespace_of(a)
    if xp is not np and hermitian:
        raise refusal(f, a, "hermitian= has no counterpart in the Python Array API standard")
    return linalg_call(xp, f, a, *args, **kwargs), xp


@rrule.register(np.linalg.pinv, generic=True)
def _rrule_pinv(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    options = _pinv_options(args, kwargs)
    if options is None:
        return None
    hermitian = bool(options["hermitian"])
    out, xp = _pinv_call(f, a, args, kwargs, hermitian)
    project_a = ProjectTo(a)
    a_arr = as_array(a) if xp is np else a
    extra = (NoTangent(),) * len(args)
    shape = value_shape(out)

    def pinv_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, shape)
        if hermitian:
            a_bar = fold_to_triangle(_pinv_cotangent(hermitian_from_triangle(a_arr, True), out, out_bar), True)
        else:
            a_bar = _pinv_cotangent(a_arr, out, out_bar, xp)
        return NoTangent(), project_a(a_bar), *extra

    return out, pinv_pullback


@frule.register(np.linalg.pinv, generic=True)
def _frule_pinv(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    options = _pinv_options(args, kwargs)
    if options is None:
        return None
    out, xp = _pinv_call(f, a, args, kwargs, bool(options["hermitian"]))
    a_dot, *_ = checked_tangents(f, tangents, (a, *args))  # rcond's too: pinv is constant in it, but it has a shape
    if isinstance(a_dot, AbstractZero) or ProjectTo(a).is_no_tangent:
        return out, ZeroTangent()
    if xp is not np:  # hermitian=True is refused there
        return out, ProjectTo(out)(_pinv_pushforward(a, out, a_dot, xp))
    a_arr, a_dot = as_array(a), as_array(a_dot)
    if options["hermitian"]:
        a_arr, a_dot = hermitian_from_triangle(a_arr, True), hermitian_from_triangle(a_dot, True)
    return out, ProjectTo(out)(_pinv_pushforward(a_arr, out, a_dot))


# ----- lstsq -----


class _LeastSquares:
    """One ``lstsq`` call as column matrices, with ``pinv(a)`` and the SVD it comes from."""

    def __init__(self, a: Any, b: Any, out: tuple[Any, ...], rcond: Any) -> None:
        self.a = as_array(a)
        self.vector = np.ndim(b) == 1
        x = out[0]
        self.x = x[:, None] if self.vector else x
        b_arr = as_array(b).astype(x.dtype)
        self.b = b_arr[:, None] if self.vector else b_arr
        self.has_residuals = out[1].size > 0
        self.u, s, self.vh = np.linalg.svd(self.a.astype(x.dtype), full_matrices=False)
        # gelsd's cut: singular values at or below rcond * s_max are zero (numpy computes in double precision)
        cut = np.finfo(np.float64).eps * max(self.a.shape) if rcond is None else rcond
        plain = primal_of(s)  # the rank: which values are cut, and which are zero, is the primal's
        kept = plain > cut * plain[:1]
        inverted = np.where(kept, 1 / np.where(kept, s, 1), 0)  # no out=/where=: an engine may follow s
        self.pinv = (adjoint(self.vh) * inverted.astype(x.dtype)) @ adjoint(self.u)
        self.residual = self.b - self.a @ self.x
        self.nonzero = nonzero_singular_values(plain, self.a.shape)

    def columns(self, t: Any) -> Any:
        return t[:, None] if self.vector and not isinstance(t, AbstractZero) else t

    def pushforward(self, a_dot: Any, b_dot: Any) -> tuple[Any, Any, Any]:
        """The tangents of ``x`` (as columns), of the residuals and of ``s``."""
        x_dot: Any = ZeroTangent()
        r_dot: Any = ZeroTangent()  # d(b - a x) without the a dx term, orthogonal to the residual
        s_dot: Any = ZeroTangent()
        if not isinstance(b_dot, AbstractZero):
            x_dot, r_dot = self.pinv @ b_dot, b_dot
        if not isinstance(a_dot, AbstractZero):
            x_dot = x_dot + _pinv_pushforward(self.a, self.pinv, a_dot) @ self.b
            r_dot = r_dot - a_dot @ self.x
            s_dot = np.real(np.einsum("ki,kl,il->i", self.u.conj(), a_dot, self.vh.conj())) * self.nonzero
        resid_dot = 2 * np.sum(np.real(self.residual.conj() * r_dot), axis=0) if self.has_residuals else ZeroTangent()
        return x_dot, resid_dot, s_dot

    def cotangents(self, x_bar: Any, resid_bar: Any, s_bar: Any) -> tuple[Any, Any]:
        """The cotangents of ``a`` and of ``b`` (as columns)."""
        a_bar = np.zeros_like(self.a, dtype=self.x.dtype)
        b_bar = np.zeros_like(self.b)
        if not isinstance(x_bar, AbstractZero):
            b_bar = adjoint(self.pinv) @ x_bar
            a_bar = _pinv_cotangent(self.a, self.pinv, x_bar @ adjoint(self.b))
        if self.has_residuals and not isinstance(resid_bar, AbstractZero):
            weighted = 2 * self.residual * np.real(resid_bar)
            b_bar = b_bar + weighted
            a_bar = a_bar - weighted @ adjoint(self.x)
        if not isinstance(s_bar, AbstractZero):
            a_bar = a_bar + (self.u * (np.real(s_bar) * self.nonzero)) @ self.vh
        return a_bar, b_bar


def _lstsq_rcond(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[bool, Any]:
    """Whether the call has a rule, and its ``rcond``."""
    if len(args) > 1 or not kwargs.keys() <= {"rcond"}:
        return False, None
    return True, args[0] if args else kwargs.get("rcond")


@rrule.register(np.linalg.lstsq)
def _rrule_lstsq(f: Any, a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    accepted, rcond = _lstsq_rcond(args, kwargs)
    if not accepted:
        return None
    out = f(a, b, *args, **kwargs)
    problem = _LeastSquares(a, b, out, rcond)
    project_a, project_b = ProjectTo(a), ProjectTo(b)
    extra = (NoTangent(),) * len(args)
    shapes = [value_shape(x) for x in out]

    def lstsq_pullback(out_bar: Any) -> tuple[Any, ...]:
        x_bar, resid_bar, _, s_bar = checked_entries(f, out_bar, 4, shapes)
        a_bar, b_bar = problem.cotangents(problem.columns(x_bar), resid_bar, s_bar)
        return NoTangent(), project_a(a_bar), project_b(np.reshape(b_bar, np.shape(b))), *extra

    return out, lstsq_pullback


@frule.register(np.linalg.lstsq)
def _frule_lstsq(tangents: tuple[Any, ...], f: Any, a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    accepted, rcond = _lstsq_rcond(args, kwargs)
    if not accepted:
        return None
    out = f(a, b, *args, **kwargs)
    x, resids, _, s = out
    problem = _LeastSquares(a, b, out, rcond)
    dots = checked_tangents(f, tangents[:3], (a, b))
    a_dot, b_dot = (ZeroTangent() if ProjectTo(v).is_no_tangent else t for v, t in zip((a, b), dots))
    x_dot, resid_dot, s_dot = problem.pushforward(a_dot, problem.columns(b_dot))
    if not isinstance(x_dot, AbstractZero):
        x_dot = np.reshape(x_dot, x.shape)
    project = [ProjectTo(x), ProjectTo(resids), ProjectTo(s)]
    x_dot, resid_dot, s_dot = (p(t) for p, t in zip(project, (x_dot, resid_dot, s_dot)))
    return out, Tangent(tuple, x_dot, resid_dot, NoTangent(), s_dot)
