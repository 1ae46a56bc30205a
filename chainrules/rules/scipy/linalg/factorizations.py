"""Rules for scipy.linalg's factorizations: lu, lu_factor, lu_solve, cho_factor, cho_solve, qr.

LU. ``A = P L U`` with partial pivoting, ``L`` unit lower trapezoidal
(``m x k``), ``U`` upper trapezoidal (``k x n``), ``k = min(m, n)``. The
permutation is locally constant (it changes only where two pivot candidates
tie), so it gets ``NoTangent()``, as the integer pivots of ``lu_factor`` do.
With ``F = L_pad^-1 P^T dA U_pad^-1``, where ``L_pad`` (``m x m``) and
``U_pad`` (``n x n``) complete ``L`` and ``U`` with identity blocks,
``dL = L_pad tril(F, -1)`` and ``dU = triu(F) U_pad`` (de Hoog, Anderssen and
Lukas 2011, "Differentiation of matrix functionals using triangular
factorization"; Walter and Lehmann 2018 for the square case); the pullback
is the adjoint, ``A_bar = P L_pad^-H (tril(L_pad^H L_bar, -1) + triu(U_bar
U_pad^H)) U_pad^-H``.

``lu_factor`` packs ``L`` (below the diagonal) and ``U`` into one matrix:
its cotangent is read the same way, the strict lower part as ``L_bar`` and
the rest as ``U_bar``. ``lu_solve((lu, piv), b, trans)`` and ``cho_solve((c,
lower), b)`` differentiate in the packed factors (and ``b``), so a program
calling ``lu_factor`` then ``lu_solve`` differentiates through both.

``cho_factor(a, lower)`` returns ``(c, lower)``: ``c`` holds the Cholesky
factor in the triangle ``lower`` names (numpy's cholesky rule, Murray 2016),
and in the other strict triangle the entries of ``a`` that LAPACK left there
(``potrf`` without cleaning): their tangent is ``a``'s, and the cotangent
there passes back to ``a`` unchanged. ``cho_solve`` reads the factor's
triangle only (its diagonal as it is); the cotangent of ``c`` lives there.

``qr`` has rules for modes ``'full'``, ``'economic'`` and ``'r'``, with and
without ``pivoting`` (the column permutation gets ``NoTangent()``); the
formulas are numpy's qr rules (Walter and Lehmann 2018; Roberts and Roberts
2020). With ``'full'`` and more rows than columns the last columns of Q are
any basis of a complement: the pullback takes a cotangent that is zero on
them and raises ``ValueError`` otherwise, the frule returns ``None``.
``mode='raw'`` gets no rule.

``overwrite_a=True`` and ``overwrite_b=True`` get no rule (``None``).
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
    primal_of,
    rrule,
    sum_to_shape,
    value_shape,
)

from ..._arrays import tuple_entries
from ..._makers import checked_entries
from ...numpy.linalg import factorizations
from ...numpy.linalg._common import adjoint, as_array, pad_to, unique_part
from ._common import as_matrix, call_options, follow_pair, op, returning, solve_adjoint

# ----- LU: shared pieces -----


def _solve_triangular(a: np.ndarray, b: np.ndarray, **options: Any) -> np.ndarray:
    """scipy's ``solve_triangular``, zero-size stacks included (scipy refuses them): an empty solution."""
    if a.size and b.size:
        return follow(linalg.solve_triangular, a, b, check_finite=False, **options)  # scipy converts its arguments
    return np.zeros((*np.broadcast_shapes(a.shape[:-2], b.shape[:-2]), *b.shape[-2:]), np.result_type(a, b, 1.0))


def _rows(x: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """``x[perm]`` for stacks: the rows of each matrix in the order ``perm`` (broadcast over the stack)."""
    index = np.broadcast_to(
        perm[..., :, None], (*np.broadcast_shapes(x.shape[:-2], perm.shape[:-1]), perm.shape[-1], 1)
    )
    return np.take_along_axis(x, index, axis=-2)


def _unrows(x: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """The inverse of ``_rows``: ``y`` with ``y[perm] = x``."""
    return _rows(x, np.argsort(perm, axis=-1))


def _padded(low: np.ndarray, up: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``L_pad`` (``m x m``) and ``U_pad`` (``n x n``): ``L`` and ``U`` completed with identity blocks."""
    m, k, n = low.shape[-2], low.shape[-1], up.shape[-1]
    if m > k:
        eye = np.broadcast_to(np.eye(m, dtype=low.dtype)[:, k:], (*low.shape[:-2], m, m - k))
        low = np.concatenate([low, eye], axis=-1)
    if n > k:
        eye = np.broadcast_to(np.eye(n, dtype=up.dtype)[k:], (*up.shape[:-2], n - k, n))
        up = np.concatenate([up, eye], axis=-2)
    return low, up


def _lu_pushforward(
    perm: np.ndarray, low: np.ndarray, up: np.ndarray, a_dot: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(dL, dU)`` for ``A[perm] = L U``."""
    k = low.shape[-1]
    low_pad, up_pad = _padded(low, up)
    y = _solve_triangular(low_pad, _rows(a_dot, perm), lower=True, unit_diagonal=True)
    f = np.swapaxes(_solve_triangular(up_pad, np.swapaxes(y, -1, -2), trans=1), -1, -2)
    return low_pad @ np.tril(f, -1)[..., :, :k], np.triu(f)[..., :k, :] @ up_pad


def _lu_cotangent(perm: np.ndarray, low: np.ndarray, up: np.ndarray, low_bar: Any, up_bar: Any) -> np.ndarray:
    """``A_bar`` for ``A[perm] = L U`` and the cotangents of ``L`` and ``U``."""
    m, n = low.shape[-2], up.shape[-1]
    low_pad, up_pad = _padded(low, up)
    shape = (*np.broadcast_shapes(low.shape[:-2], up.shape[:-2]), m, n)
    f_bar = np.zeros(shape, np.result_type(low, up))
    if not isinstance(low_bar, AbstractZero):
        f_bar = f_bar + np.tril(pad_to(adjoint(low_pad) @ low_bar, shape), -1)
    if not isinstance(up_bar, AbstractZero):
        f_bar = f_bar + np.triu(pad_to(up_bar @ adjoint(up_pad), shape))
    z = _solve_triangular(low_pad, f_bar, lower=True, unit_diagonal=True, trans=2)
    return _unrows(adjoint(_solve_triangular(up_pad, adjoint(z))), perm)


def _no_tangent_if_given(x: Any) -> Any:
    return x if isinstance(x, AbstractZero) else NoTangent()


# ----- lu -----

_LU = ("permute_l", "overwrite_a", "check_finite", "p_indices")


def _lu_options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    return call_options(_LU, args, kwargs, {"permute_l": False, "p_indices": False}, refused=("overwrite_a",))


def _lu_parts(f: Any, a: Any, out: tuple[np.ndarray, ...], options: dict[str, Any]) -> tuple[np.ndarray, ...]:
    """``(perm, L, U)`` with ``A[perm] = L U`` for the output of ``lu`` (scipy's ``p`` has ``A = L[p] U``)."""
    if options["permute_l"]:  # P L leaves no trace of P: one more factorization, with row indices
        p, low, up = follow(f, a, p_indices=True, check_finite=False)
    else:
        p, low, up = out
    p = primal_of(p)  # the permutation is locally constant: read off the plain value
    if not options["p_indices"] and not options["permute_l"]:  # P[i, p[i]] = 1: p = P @ (0, 1, ...)
        p = (p @ np.arange(p.shape[-1])).astype(np.intp)  # which an empty P has too
    return np.argsort(p, axis=-1), low, up


@rrule.register(linalg.lu)
def _rrule_lu(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    options = _lu_options(args, kwargs)
    if options is None:
        return None
    out = follow(f, a, *args, **kwargs)
    perm, low, up = _lu_parts(f, a, out, options)
    project_a = ProjectTo(a)
    extra = (NoTangent(),) * len(args)
    shapes = [value_shape(x) for x in out]

    def lu_pullback(out_bar: Any) -> tuple[Any, ...]:
        if options["permute_l"]:
            pl_bar, up_bar = checked_entries(f, out_bar, 2, shapes)
            low_bar = pl_bar if isinstance(pl_bar, AbstractZero) else _rows(pl_bar, perm)
        else:  # the permutation's cotangent, whatever its values, is ignored
            _, low_bar, up_bar = checked_entries(f, out_bar, 3, shapes)
        if (isinstance(low_bar, AbstractZero) and isinstance(up_bar, AbstractZero)) or project_a.is_no_tangent:
            return NoTangent(), project_a(ZeroTangent()), *extra
        if np.size(a) == 0:
            return NoTangent(), project_a(np.zeros(np.shape(a))), *extra
        return NoTangent(), project_a(_lu_cotangent(perm, low, up, low_bar, up_bar)), *extra

    return out, lu_pullback


@frule.register(linalg.lu)
def _frule_lu(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    options = _lu_options(args, kwargs)
    if options is None:
        return None
    out = follow(f, a, *args, **kwargs)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero):
        return out, ZeroTangent()
    if np.size(a) == 0:  # every factor is empty too (and scipy's permutation of an empty matrix has no rows)
        zeros = [ProjectTo(x)(np.zeros(x.shape)) for x in out]
        return out, Tangent(tuple, *zeros) if options["permute_l"] else Tangent(tuple, NoTangent(), *zeros[1:])
    perm, low, up = _lu_parts(f, a, out, options)
    low_dot, up_dot = _lu_pushforward(perm, low, up, as_array(a_dot))
    if options["permute_l"]:
        return out, Tangent(tuple, ProjectTo(out[0])(_unrows(low_dot, perm)), ProjectTo(up)(up_dot))
    return out, Tangent(tuple, NoTangent(), ProjectTo(low)(low_dot), ProjectTo(up)(up_dot))


# ----- lu_factor, lu_solve: the packed factors -----


def _permutation(piv: np.ndarray, m: int) -> np.ndarray:
    """``perm`` with ``A[perm] = L U`` from LAPACK's row interchanges ``piv`` (row ``i`` swapped with ``piv[i]``)."""
    perm = np.array(np.broadcast_to(np.arange(m), (*piv.shape[:-1], m)))
    for i in range(piv.shape[-1]):
        j = piv[..., i : i + 1].astype(np.intp)
        row_i, row_j = perm[..., i : i + 1].copy(), np.take_along_axis(perm, j, axis=-1)
        perm[..., i : i + 1] = row_j
        np.put_along_axis(perm, j, row_i, axis=-1)
    return perm


def _unpacked(lu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``L`` and ``U`` from the packed ``lu`` of ``lu_factor``."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    return np.tril(lu, -1)[..., :, :k] + np.eye(m, k, dtype=lu.dtype), np.triu(lu)[..., :k, :]


def _packed(l_part: Any, u_part: Any, shape: tuple[int, ...]) -> Any:
    """The strict lower part of ``l_part`` and the upper part of ``u_part``, in one matrix of ``shape``."""
    return np.tril(pad_to(l_part, shape), -1) + np.triu(pad_to(u_part, shape))


_LU_FACTOR = ("overwrite_a", "check_finite")


@rrule.register(linalg.lu_factor)
def _rrule_lu_factor(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    if call_options(_LU_FACTOR, args, kwargs, {}, refused=("overwrite_a",)) is None:
        return None
    out = follow(f, a, *args, **kwargs)
    lu, piv = as_matrix(out[0]), primal_of(out[1])  # the factors of a 0-d a are 0-d
    low, up = _unpacked(lu)
    perm = _permutation(piv, lu.shape[-2])
    project_a = ProjectTo(a)
    extra = (NoTangent(),) * len(args)
    shapes = [value_shape(x) for x in out]

    def lu_factor_pullback(out_bar: Any) -> tuple[Any, ...]:
        lu_bar, _ = checked_entries(f, out_bar, 2, shapes)
        if isinstance(lu_bar, AbstractZero) or project_a.is_no_tangent:
            return NoTangent(), project_a(ZeroTangent()), *extra
        lu_bar, k = as_matrix(lu_bar), low.shape[-1]
        low_bar, up_bar = np.tril(lu_bar, -1)[..., :, :k], np.triu(lu_bar)[..., :k, :]
        a_bar = _lu_cotangent(perm, low, up, low_bar, up_bar)
        return NoTangent(), project_a(np.reshape(a_bar, np.shape(a))), *extra

    return out, lu_factor_pullback


@frule.register(linalg.lu_factor)
def _frule_lu_factor(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    if call_options(_LU_FACTOR, args, kwargs, {}, refused=("overwrite_a",)) is None:
        return None
    out = follow(f, a, *args, **kwargs)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero):
        return out, ZeroTangent()
    lu, piv = as_matrix(out[0]), primal_of(out[1])
    low, up = _unpacked(lu)
    low_dot, up_dot = _lu_pushforward(_permutation(piv, lu.shape[-2]), low, up, as_matrix(as_array(a_dot)))
    lu_dot = np.reshape(_packed(low_dot, up_dot, lu.shape), np.shape(out[0]))
    return out, Tangent(tuple, ProjectTo(out[0])(lu_dot), NoTangent())


# lu_solve: op(A) x = b with A = P L U; dA = P (dL U + L dU), x_dot = op(A)^-1 (b_dot - op(dA) x).
# The pullback: b_bar = op(A)^-H x_bar, A_bar = op*(-b_bar x^H) = -p q^H, and through
# A = P L U: L_bar = tril(P^T A_bar U^H, -1), U_bar = triu(L^H P^T A_bar).

_LU_SOLVE = ("trans", "overwrite_b", "check_finite")


def _lu_solve_options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    options = call_options(_LU_SOLVE, args, kwargs, {"trans": 0}, refused=("overwrite_b",))
    return None if options is None or options["trans"] not in (0, 1, 2) else options


def _lu_solve_parts(lu_and_piv: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """``(lu, perm, L, U)`` of ``lu_solve``'s first argument; ``None`` if it is not a pair."""
    try:
        lu, piv = lu_and_piv
    except (TypeError, ValueError):
        return None
    lu = as_array(lu)
    low, up = _unpacked(lu)
    return lu, _permutation(np.asarray(primal_of(piv)), lu.shape[-2]), low, up


def _check_pivots(lu_and_piv: Any) -> None:
    """``ValueError`` for pivots past the rows of the factors, before scipy reads outside its arrays."""
    try:
        lu, piv = lu_and_piv
    except (TypeError, ValueError):
        return
    shape, piv = np.shape(lu), np.asarray(primal_of(piv))
    if len(shape) >= 2 and piv.size and piv.dtype.kind in "iu" and (piv.min() < 0 or piv.max() >= shape[-2]):
        raise ValueError(f"lu_solve: lu_and_piv holds pivots outside the {shape[-2]} rows of its factors")


def _matrices(x: Any, vector: bool) -> np.ndarray:
    x = as_array(x)
    return x[..., None] if vector else x


@rrule.register(linalg.lu_solve)
def _rrule_lu_solve(f: Any, lu_and_piv: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    options = _lu_solve_options(args, kwargs)
    if options is None:
        return None
    _check_pivots(lu_and_piv)
    x = follow_pair(f, lu_and_piv, b, *args, **kwargs)  # then scipy's checks of the arguments, and its exceptions
    parts = _lu_solve_parts(lu_and_piv)
    if parts is None:
        return None
    lu, perm, low, up = parts
    trans, vector = options["trans"], np.ndim(b) == 1
    project_lu = ProjectTo(lu_and_piv)
    extra = (NoTangent(),) * len(args)
    shape = value_shape(x)

    def lu_solve_pullback(x_bar: Any) -> tuple[Any, ...]:
        x_bar = _matrices(checked_seed(f, x_bar, shape), vector)
        b_bar = solve_adjoint(lambda rhs, t: follow_pair(f, lu_and_piv, rhs, trans=t, check_finite=False), x_bar, trans)
        x2 = _matrices(x, vector)
        p, q = {0: (b_bar, x2), 1: (x2.conj(), b_bar.conj()), 2: (x2, b_bar)}[trans]  # A_bar = -p q^H
        p_rows = _rows(p, perm)
        low_bar = np.tril(-p_rows @ adjoint(up @ q), -1)
        up_bar = np.triu(-(adjoint(low) @ p_rows) @ adjoint(q))
        lu_bar = sum_to_shape(low_bar + up_bar, lu.shape)
        b_bar = sum_to_shape(b_bar[..., 0] if vector else b_bar, np.shape(b))
        return NoTangent(), project_lu(Tangent(tuple, lu_bar, NoTangent())), ProjectTo(b)(b_bar), *extra

    return x, lu_solve_pullback


@frule.register(linalg.lu_solve)
def _frule_lu_solve(tangents: tuple[Any, ...], f: Any, lu_and_piv: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    options = _lu_solve_options(args, kwargs)
    if options is None:
        return None
    _check_pivots(lu_and_piv)
    x = follow_pair(f, lu_and_piv, b, *args, **kwargs)
    parts = _lu_solve_parts(lu_and_piv)
    if parts is None:
        return None
    lu, perm, low, up = parts
    trans, vector = options["trans"], np.ndim(b) == 1
    lu_dot, _ = tuple_entries(tangents[1], 2)
    lu_dot = checked_tangent(f, lu_dot, lu, 1)
    b_dot = checked_tangent(f, tangents[2], b, 2)
    rhs = None if isinstance(b_dot, AbstractZero) or ProjectTo(b).is_no_tangent else _matrices(b_dot, vector)
    if not isinstance(lu_dot, AbstractZero):
        low_dot, up_dot = np.tril(lu_dot, -1), np.triu(lu_dot)
        x2 = _matrices(x, vector)
        if trans == 0:  # dA x = P (dL (U x) + L (dU x))
            moved = _unrows(low_dot @ (up @ x2) + low @ (up_dot @ x2), perm)
        else:  # op(dA) x = op(U) (op(dL) y) + op(dU) (op(L) y) with y = x[perm]
            y = _rows(x2, perm)
            moved = op(up, trans) @ (op(low_dot, trans) @ y) + op(up_dot, trans) @ (op(low, trans) @ y)
        rhs = -moved if rhs is None else rhs - moved
    if rhs is None:
        return x, ZeroTangent()
    x_dot = follow_pair(f, lu_and_piv, rhs, trans=trans, check_finite=False)
    return x, ProjectTo(x)(x_dot[..., 0] if vector else x_dot)


# ----- cho_factor, cho_solve -----

_CHO_FACTOR = ("lower", "overwrite_a", "check_finite")


def _cho_factor_options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    return call_options(_CHO_FACTOR, args, kwargs, {"lower": False}, refused=("overwrite_a",))


def _factor(c: np.ndarray, lower: bool) -> np.ndarray:
    """The Cholesky factor in ``c``: its lower triangle (``L``) or its upper one (``U = L^H``)."""
    return np.tril(c) if lower else np.triu(c)


def _left_alone(x: Any, lower: bool) -> Any:
    """The strict triangle ``cho_factor`` does not write: ``a``'s entries stay there."""
    return np.triu(x, 1) if lower else np.tril(x, -1)


@rrule.register(linalg.cho_factor)
def _rrule_cho_factor(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    options = _cho_factor_options(args, kwargs)
    if options is None:
        return None
    out = follow(f, a, *args, **kwargs)
    lower = bool(options["lower"])
    matrix = as_matrix(as_array(a))
    _, pullback = factorizations._rrule_cholesky(returning(_factor(out[0], lower)), matrix, upper=not lower)
    project_a = ProjectTo(a)
    extra = (NoTangent(),) * len(args)
    shapes = [value_shape(x) for x in out]

    def cho_factor_pullback(out_bar: Any) -> tuple[Any, ...]:
        c_bar, _ = checked_entries(f, out_bar, 2, shapes)
        if isinstance(c_bar, AbstractZero) or project_a.is_no_tangent:
            return NoTangent(), project_a(ZeroTangent()), *extra
        c_bar = as_array(c_bar)
        a_bar = pullback(_factor(c_bar, lower))[1] + _left_alone(c_bar, lower)
        return NoTangent(), project_a(np.reshape(a_bar, np.shape(a))), *extra

    return out, cho_factor_pullback


@frule.register(linalg.cho_factor)
def _frule_cho_factor(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    options = _cho_factor_options(args, kwargs)
    if options is None:
        return None
    out = follow(f, a, *args, **kwargs)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero):
        return out, ZeroTangent()
    lower = bool(options["lower"])
    a_dot = as_matrix(as_array(a_dot))
    factor_tangent = (NoTangent(), a_dot)
    _, factor_dot = factorizations._frule_cholesky(
        factor_tangent, returning(_factor(out[0], lower)), as_matrix(as_array(a)), upper=not lower
    )
    c_dot = factor_dot + _left_alone(a_dot, lower)
    return out, Tangent(tuple, ProjectTo(out[0])(c_dot), NoTangent())


# cho_solve: A x = b with A = L L^H (U^H U), x_dot = A^-1 (b_dot - dA x), dA = dL L^H + L dL^H.
# The pullback: b_bar = A^-1 x_bar (A is Hermitian), A_bar = -b_bar x^H, and
# L_bar = (A_bar + A_bar^H) L (U_bar = U (A_bar + A_bar^H)) on the factor's triangle.

_CHO_SOLVE = ("overwrite_b", "check_finite")


def _cho_solve_parts(c_and_lower: Any) -> tuple[np.ndarray, bool] | None:
    """``(c, lower)`` of ``cho_solve``'s first argument; ``None`` if it is not such a pair."""
    try:
        c, lower = c_and_lower
    except (TypeError, ValueError):
        return None
    flags = np.asarray(primal_of(lower))  # a stack factored by cho_factor has one flag per matrix, all equal
    if bool(np.any(flags)) != bool(np.all(flags)):
        return None
    return as_array(c), bool(np.all(flags))


@rrule.register(linalg.cho_solve)
def _rrule_cho_solve(f: Any, c_and_lower: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    parts = _cho_solve_parts(c_and_lower)
    if parts is None or call_options(_CHO_SOLVE, args, kwargs, {}, refused=("overwrite_b",)) is None:
        return None
    c, lower = parts
    x = follow_pair(f, c_and_lower, b, *args, **kwargs)  # first: scipy's checks of the arguments, and its exceptions
    factor = _factor(c, lower)
    vector = np.ndim(b) == 1
    project_c = ProjectTo(c_and_lower)
    extra = (NoTangent(),) * len(args)
    shape = value_shape(x)

    def cho_solve_pullback(x_bar: Any) -> tuple[Any, ...]:
        b_bar = follow_pair(f, c_and_lower, _matrices(checked_seed(f, x_bar, shape), vector), check_finite=False)
        x2 = _matrices(x, vector)
        if lower:
            factor_bar = np.tril(-(b_bar @ (adjoint(x2) @ factor) + x2 @ (adjoint(b_bar) @ factor)))
        else:
            factor_bar = np.triu(-((factor @ b_bar) @ adjoint(x2) + (factor @ x2) @ adjoint(b_bar)))
        c_bar = Tangent(tuple, sum_to_shape(factor_bar, c.shape), NoTangent())
        b_bar = sum_to_shape(b_bar[..., 0] if vector else b_bar, np.shape(b))
        return NoTangent(), project_c(c_bar), ProjectTo(b)(b_bar), *extra

    return x, cho_solve_pullback


@frule.register(linalg.cho_solve)
def _frule_cho_solve(tangents: tuple[Any, ...], f: Any, c_and_lower: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    parts = _cho_solve_parts(c_and_lower)
    if parts is None or call_options(_CHO_SOLVE, args, kwargs, {}, refused=("overwrite_b",)) is None:
        return None
    c, lower = parts
    x = follow_pair(f, c_and_lower, b, *args, **kwargs)
    vector = np.ndim(b) == 1
    c_dot, _ = tuple_entries(tangents[1], 2)
    c_dot = checked_tangent(f, c_dot, c, 1)
    b_dot = checked_tangent(f, tangents[2], b, 2)
    rhs = None if isinstance(b_dot, AbstractZero) or ProjectTo(b).is_no_tangent else _matrices(b_dot, vector)
    if not isinstance(c_dot, AbstractZero):
        factor, factor_dot, x2 = _factor(c, lower), _factor(as_array(c_dot), lower), _matrices(x, vector)
        if lower:  # dA x = dL (L^H x) + L (dL^H x)
            moved = factor_dot @ (adjoint(factor) @ x2) + factor @ (adjoint(factor_dot) @ x2)
        else:  # dA x = dU^H (U x) + U^H (dU x)
            moved = adjoint(factor_dot) @ (factor @ x2) + adjoint(factor) @ (factor_dot @ x2)
        rhs = -moved if rhs is None else rhs - moved
    if rhs is None:
        return x, ZeroTangent()
    x_dot = follow_pair(f, c_and_lower, rhs, check_finite=False)
    return x, ProjectTo(x)(x_dot[..., 0] if vector else x_dot)


# ----- qr -----

_QR = ("overwrite_a", "lwork", "mode", "pivoting", "check_finite")
_NOT_UNIQUE = (
    "rrule(scipy.linalg.qr): mode='full' with more rows than columns: the last {} columns of Q are "
    "any orthonormal basis of the complement of A's range, so a result that depends on them has no "
    "derivative; use mode='economic'"
)


def _qr_options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    options = call_options(_QR, args, kwargs, {"mode": "full", "pivoting": False}, refused=("overwrite_a",))
    return None if options is None or options["mode"] not in ("full", "economic", "r") else options


def _columns(x: np.ndarray, cols: np.ndarray | None) -> np.ndarray:
    """``x[..., :, cols]`` for stacks (``x`` itself without pivoting)."""
    if cols is None:
        return x
    return np.take_along_axis(x, np.broadcast_to(cols[..., None, :], (*x.shape[:-2], 1, cols.shape[-1])), axis=-1)


def _qr_parts(a: Any, out: Any, options: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The reduced ``(Q, R)`` of ``a[:, cols]`` and the column permutation ``cols`` (``None`` without pivoting)."""
    parts = list(out)
    cols = np.asarray(primal_of(parts.pop())) if options["pivoting"] else None
    if options["mode"] == "r":  # the derivative of R needs Q
        q, r = follow(linalg.qr, _columns(as_array(a), cols), mode="economic", check_finite=False)
    else:
        q, r = parts
    k = min(q.shape[-2], r.shape[-1])
    return q[..., :k], r[..., :k, :], cols


@rrule.register(linalg.qr)
def _rrule_qr(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    options = _qr_options(args, kwargs)
    if options is None:
        return None
    out = follow(f, a, *args, **kwargs)
    q, r, cols = _qr_parts(a, out, options)
    a_cols = _columns(as_array(a), cols)
    extra_q = out[0].shape[-1] - q.shape[-1] if options["mode"] == "full" else 0
    project_a = ProjectTo(a)
    extra = (NoTangent(),) * len(args)
    shapes = [value_shape(x) for x in out]

    def qr_pullback(out_bar: Any) -> tuple[Any, ...]:
        entries = checked_entries(f, out_bar, len(out), shapes)  # the permutation's cotangent's values are ignored
        q_bar, r_bar = (ZeroTangent(), entries[0]) if options["mode"] == "r" else entries[:2]
        if (isinstance(q_bar, AbstractZero) and isinstance(r_bar, AbstractZero)) or project_a.is_no_tangent:
            return NoTangent(), project_a(ZeroTangent()), *extra
        if extra_q:
            q_bar = unique_part(q_bar, q.shape[-1], -1, _NOT_UNIQUE.format(extra_q))
        if not isinstance(r_bar, AbstractZero):
            r_bar = r_bar[..., : r.shape[-2], :]  # the rows of a full R past min(m, n) are zeros
        a_bar = factorizations._qr_cotangent(q, r, a_cols, q_bar, r_bar)
        return NoTangent(), project_a(_columns(a_bar, None if cols is None else np.argsort(cols, axis=-1))), *extra

    return out, qr_pullback


@frule.register(linalg.qr)
def _frule_qr(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    options = _qr_options(args, kwargs)
    if options is None:
        return None
    out = follow(f, a, *args, **kwargs)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero):
        return out, ZeroTangent()
    q, r, cols = _qr_parts(a, out, options)
    if options["mode"] == "full" and out[0].shape[-1] > q.shape[-1]:
        return None  # the last columns of Q are not determined by A
    q_dot, r_dot = factorizations._qr_pushforward(q, r, _columns(as_array(a_dot), cols))
    r_out = out[0] if options["mode"] == "r" else out[1]
    dots = [ProjectTo(r_out)(pad_to(r_dot, r_out.shape))]
    if options["mode"] != "r":
        dots.insert(0, ProjectTo(out[0])(q_dot))
    return out, Tangent(tuple, *dots, *([NoTangent()] if cols is not None else []))
