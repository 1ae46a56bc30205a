"""Rules for scipy.linalg's solvers: solve_triangular, solve, inv, det, solve_banded, block_diag.

Imported when ``scipy.linalg`` is. The factorizations live in
``scipy_linalg_factor``, ``eigh`` and ``polar`` in ``scipy_linalg_spectral``,
the matrix functions and matrix equations in ``scipy_linalg_matfuncs``.

``solve``, ``inv`` and ``det`` compute what ``numpy.linalg``'s do and use the
rules of ``chainrules.rules.numpy.linalg.dense`` on scipy's result (Giles 2008, sections
2.2-2.3). ``solve`` and ``inv`` read the matrix their ``assume_a`` names: one
triangle (``'upper triangular'``, ``'lower triangular'``), the symmetric
(``'sym'``) or Hermitian (``'her'``, ``'pos'``) matrix of the triangle
``lower`` names, the diagonal or the three central diagonals
(``'diagonal'``, ``'tridiagonal'``); the tangent of ``a`` is mapped to that
matrix and the cotangent lives on the entries read. ``None``, ``'general'``
and ``'banded'`` read every entry (``'banded'`` reads the band off the
values, so an entry outside it matters as soon as it moves).

``solve_triangular(a, b, trans, lower, unit_diagonal)`` solves ``op(T) x = b``
where ``T`` is the triangle of ``a`` that ``lower`` names (with ones on the
diagonal when ``unit_diagonal``) and ``op`` is the identity, the transpose
(``trans=1`` or ``'T'``) or the conjugate transpose (``2``, ``'C'``); the
cotangent of ``a`` lives on that triangle, as autograd's
``grad_solve_triangular`` projects it: ``b_bar = op(T)^-H x_bar`` and
``op(T)_bar = -b_bar x^H``.

``solve_banded((l, u), ab, b)`` stores ``A[i, j]`` at ``ab[u + i - j, j]``: the
cotangent of ``ab`` holds ``A_bar`` on those places and zero on the corners
that store nothing.

``check_finite`` is accepted everywhere; ``overwrite_a``/``overwrite_b``/
``overwrite_ab=True`` get no rule (``None``), as the primal would destroy an
input the rule reads. ``inv(assume_a='diagonal')`` gets no rule: scipy 1.17
returns the input's off-diagonal entries beside the inverted diagonal, which
is not the inverse of the diagonal matrix it reads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import linalg

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    ZeroTangent,
    checked_seed,
    checked_tangent,
    follow,
    frule,
    rrule,
    sum_to_shape,
    unbroadcast,
    value_shape,
)

from ..._makers import checked_tangents, tangent_from_terms
from ...numpy.linalg import dense as numpy_linalg
from ...numpy.linalg._common import (
    adjoint,
    as_array,
    diag_embed,
    diagonal,
    fold_to_triangle,
    hermitian_from_triangle,
    mT,
)
from ._common import call_options, op, returning, solve_adjoint

# ----- solve_triangular -----

_TRIANGULAR = ("trans", "lower", "unit_diagonal", "overwrite_b", "check_finite")
_TRANS = {0: 0, "N": 0, 1: 1, "T": 1, 2: 2, "C": 2}


def _triangular_options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    defaults = {"trans": 0, "lower": False, "unit_diagonal": False}
    options = call_options(_TRIANGULAR, args, kwargs, defaults, refused=("overwrite_b",))
    if options is None or options["trans"] not in _TRANS:
        return None
    options["trans"] = _TRANS[options["trans"]]
    return options


def _triangle(x: np.ndarray, lower: bool, unit_diagonal: bool) -> np.ndarray:
    """The part of ``x`` that ``solve_triangular`` reads."""
    return np.tril(x, -1 if unit_diagonal else 0) if lower else np.triu(x, 1 if unit_diagonal else 0)


def _solve(f: Any, a: Any, rhs: np.ndarray, vector: bool, trans: int, options: dict[str, Any]) -> np.ndarray:
    """``op(T)^-1 rhs`` through ``f`` itself, for the same triangle and diagonal.

    The primal checked ``a`` as the call asked (``check_finite``); a right-hand side that overflowed on the
    way gives an infinite or NaN derivative, not an error.
    """
    kwargs = {
        "lower": options["lower"],
        "unit_diagonal": options["unit_diagonal"],
        "trans": trans,
        "check_finite": False,
    }
    if vector and rhs.ndim > 1:
        return follow(f, a, rhs[..., None], **kwargs)[..., 0]
    return follow(f, a, rhs, **kwargs)  # scipy converts its arguments: an engine follows the call as one


@rrule.register(linalg.solve_triangular)
def _rrule_solve_triangular(f: Any, a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    options = _triangular_options(args, kwargs)
    if options is None:
        return None
    x = follow(f, a, b, *args, **kwargs)
    project_a = ProjectTo(a)
    vector = np.ndim(b) == 1
    extra = (NoTangent(),) * len(args)
    shape = value_shape(x)

    def solve_triangular_pullback(x_bar: Any) -> tuple[Any, ...]:
        x_bar = as_array(checked_seed(f, x_bar, shape))
        b_bar = solve_adjoint(lambda rhs, t: _solve(f, a, rhs, vector, t, options), x_bar, options["trans"])
        op_bar = -(b_bar[..., :, None] * x.conj()[..., None, :] if vector else b_bar @ adjoint(x))
        t_bar = op(op_bar, options["trans"])
        a_bar = unbroadcast(a, _triangle(t_bar, options["lower"], options["unit_diagonal"]))
        return NoTangent(), project_a(a_bar), unbroadcast(b, b_bar), *extra

    return x, solve_triangular_pullback


@frule.register(linalg.solve_triangular)
def _frule_solve_triangular(tangents: tuple[Any, ...], f: Any, a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    options = _triangular_options(args, kwargs)
    if options is None:
        return None
    x = follow(f, a, b, *args, **kwargs)
    a_dot, b_dot = checked_tangents(f, tangents[:3], (a, b))
    vector = np.ndim(b) == 1
    rhs: Any = None
    if not isinstance(b_dot, AbstractZero):
        rhs = as_array(b_dot)
    if not isinstance(a_dot, AbstractZero) and not ProjectTo(a).is_no_tangent:
        op_dot = op(_triangle(as_array(a_dot), options["lower"], options["unit_diagonal"]), options["trans"])
        op_dot_x = (op_dot @ x[..., None])[..., 0] if vector else op_dot @ x
        rhs = -op_dot_x if rhs is None else rhs - op_dot_x
    if rhs is None:
        return x, ZeroTangent()
    return x, ProjectTo(x)(_solve(f, a, np.broadcast_to(rhs, x.shape), vector, options["trans"], options))


# ----- solve, inv, det: numpy's rules on the matrix scipy reads -----

Linear = Callable[[np.ndarray], np.ndarray]


def _identity(x: np.ndarray) -> np.ndarray:
    return x


def _diagonal_part(x: np.ndarray) -> np.ndarray:
    return diag_embed(diagonal(x))


def _tridiagonal_part(x: np.ndarray) -> np.ndarray:
    return np.triu(np.tril(x, 1), -1)


def _symmetric_from_triangle(x: np.ndarray, lower: bool) -> np.ndarray:
    """The complex-symmetric matrix (no conjugate) that LAPACK's ``?sysv`` sees in one triangle of ``x``."""
    tri = np.tril(x, -1) if lower else np.triu(x, 1)
    return tri + mT(tri) + _diagonal_part(x)


def _fold_symmetric(s: np.ndarray, lower: bool) -> np.ndarray:
    """The adjoint of ``_symmetric_from_triangle``: ``s + s^T`` on the strict triangle read, ``s``'s diagonal on it."""
    both = s + mT(s)
    return (np.tril(both, -1) if lower else np.triu(both, 1)) + _diagonal_part(s)


_MASKS: dict[str, Linear] = {
    "upper triangular": np.triu,
    "lower triangular": np.tril,
    "diagonal": _diagonal_part,
    "tridiagonal": _tridiagonal_part,
}


def _structure(assume_a: Any, lower: bool) -> tuple[Linear, Linear] | None:
    """The matrix scipy's ``solve`` and ``inv`` read for ``assume_a``, and that map's adjoint; ``None`` if unknown."""
    if assume_a in (None, "general", "gen", "banded"):
        return _identity, _identity
    if assume_a in _MASKS:
        return _MASKS[assume_a], _MASKS[assume_a]
    if assume_a in ("sym", "symmetric"):
        return (lambda x: _symmetric_from_triangle(x, lower)), (lambda s: _fold_symmetric(s, lower))
    if assume_a in ("her", "hermitian", "pos", "positive definite"):
        return (lambda x: hermitian_from_triangle(x, lower)), (lambda s: fold_to_triangle(s, lower))
    return None


_SOLVE = ("lower", "overwrite_a", "overwrite_b", "check_finite", "assume_a", "transposed")
_SOLVE_DEFAULTS = {"lower": False, "assume_a": None, "transposed": False}
_INV = ("overwrite_a", "check_finite", "assume_a", "lower")


def _solve_matrix(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Linear, Linear] | None:
    """The matrix ``solve`` inverts, as a linear map of ``a``, and its adjoint; ``None`` for a call without a rule."""
    options = call_options(_SOLVE, args, kwargs, _SOLVE_DEFAULTS, refused=("overwrite_a", "overwrite_b"))
    if options is None:
        return None
    structure = _structure(options["assume_a"], options["lower"])
    if structure is None or not options["transposed"]:
        return structure
    seen, seen_adjoint = structure
    return (lambda x: mT(seen(x))), (lambda s: seen_adjoint(mT(s)))


def _inv_matrix(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Linear, Linear] | None:
    options = call_options(_INV, args, kwargs, {"assume_a": None, "lower": False}, ("overwrite_a",), positional=2)
    if options is None or options["assume_a"] == "diagonal":  # scipy 1.17 keeps the off-diagonal entries: no inverse
        return None
    return _structure(options["assume_a"], options["lower"])


def _matrix_tangent(t: Any, seen: Linear) -> Any:
    return t if isinstance(t, AbstractZero) else seen(as_array(t))


def _matrix_cotangent(project: Any, t: Any, seen_adjoint: Linear) -> Any:
    return project(t if isinstance(t, AbstractZero) else seen_adjoint(as_array(t)))


# A matrix of one entry (a 0-d array too) is a number s to scipy's solve, whatever assume_a
# says: x = b / s, broadcast; x_dot = (b_dot - x s_dot) / s, b_bar = x_bar / conj(s),
# s_bar = -sum(conj(x) b_bar). x has b's entries (one for a 0-d b).


def _divided_cotangent(f: Any, a: Any, b: Any, x: np.ndarray, n_extra: int) -> Callable[[Any], tuple[Any, ...]]:
    s = np.reshape(as_array(a), ())
    project_a, project_b = ProjectTo(a), ProjectTo(b)
    shape = value_shape(x)

    def solve_pullback(x_bar: Any) -> tuple[Any, ...]:
        b_bar = as_array(checked_seed(f, x_bar, shape)) / np.conj(s)
        a_bar = -np.sum(np.conj(x) * b_bar)
        bars = project_a(np.reshape(a_bar, np.shape(a))), project_b(np.reshape(b_bar, np.shape(b)))
        return NoTangent(), *bars, *(NoTangent(),) * n_extra

    return solve_pullback


def _divided_tangent(a: Any, b: Any, x: np.ndarray, a_dot: Any, b_dot: Any) -> Any:
    terms = []
    if not isinstance(b_dot, AbstractZero) and not ProjectTo(b).is_no_tangent:
        terms.append(np.reshape(b_dot, x.shape))
    if not isinstance(a_dot, AbstractZero) and not ProjectTo(a).is_no_tangent:
        terms.append(-x * np.reshape(a_dot, ()))
    return tangent_from_terms(x, [t / np.reshape(as_array(a), ()) for t in terms])


@rrule.register(linalg.solve)
def _rrule_solve(f: Any, a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    structure = _solve_matrix(args, kwargs)
    if structure is None:
        return None
    seen, seen_adjoint = structure
    x = follow(f, a, b, *args, **kwargs)
    if np.size(a) == 1:
        return x, _divided_cotangent(f, a, b, x, len(args))
    project_a = ProjectTo(a)
    _, pullback = numpy_linalg._rrule_solve(returning(x), seen(as_array(a)), b)
    extra = (NoTangent(),) * len(args)
    shape = value_shape(x)

    def solve_pullback(x_bar: Any) -> tuple[Any, ...]:
        _, m_bar, b_bar = pullback(checked_seed(f, x_bar, shape))
        return NoTangent(), _matrix_cotangent(project_a, m_bar, seen_adjoint), b_bar, *extra

    return x, solve_pullback


@frule.register(linalg.solve)
def _frule_solve(tangents: tuple[Any, ...], f: Any, a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    structure = _solve_matrix(args, kwargs)
    if structure is None:
        return None
    seen = structure[0]
    x = follow(f, a, b, *args, **kwargs)
    a_dot, b_dot = checked_tangents(f, tangents[:3], (a, b))
    if np.size(a) == 1:
        return x, _divided_tangent(a, b, x, a_dot, b_dot)
    matrix_tangents = (NoTangent(), _matrix_tangent(a_dot, seen), b_dot)
    return numpy_linalg._frule_solve(matrix_tangents, returning(x), seen(as_array(a)), b)


@rrule.register(linalg.inv)
def _rrule_inv(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    structure = _inv_matrix(args, kwargs)
    if structure is None:
        return None
    out = follow(f, a, *args, **kwargs)
    project_a = ProjectTo(a)
    _, pullback = numpy_linalg._rrule_inv(returning(out), structure[0](as_array(a)))
    extra = (NoTangent(),) * len(args)
    shape = value_shape(out)

    def inv_pullback(out_bar: Any) -> tuple[Any, ...]:
        m_bar = pullback(checked_seed(f, out_bar, shape))[1]
        return NoTangent(), _matrix_cotangent(project_a, m_bar, structure[1]), *extra

    return out, inv_pullback


@frule.register(linalg.inv)
def _frule_inv(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    structure = _inv_matrix(args, kwargs)
    if structure is None:
        return None
    out = follow(f, a, *args, **kwargs)
    a_dot = _matrix_tangent(checked_tangent(f, tangents[1], a, 1), structure[0])
    return numpy_linalg._frule_inv((NoTangent(), a_dot), returning(out), a)


_DET = ("overwrite_a", "check_finite")


@rrule.register(linalg.det)
def _rrule_det(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    if call_options(_DET, args, kwargs, {}, refused=("overwrite_a",)) is None:
        return None
    out, pullback = numpy_linalg._rrule_det(returning(follow(f, a, *args, **kwargs)), a)
    extra = (NoTangent(),) * len(args)
    shape = value_shape(out)

    def det_pullback(out_bar: Any) -> tuple[Any, ...]:
        return *pullback(checked_seed(f, out_bar, shape)), *extra

    return out, det_pullback


@frule.register(linalg.det)
def _frule_det(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    if call_options(_DET, args, kwargs, {}, refused=("overwrite_a",)) is None:
        return None
    a_dot = checked_tangent(f, tangents[1], a, 1)
    return numpy_linalg._frule_det((NoTangent(), a_dot), returning(follow(f, a, *args, **kwargs)), a)


# ----- solve_banded -----
# Band storage: A[i, i + d] = ab[u - d, i + d] for the diagonals d = -l ... u.
# The formulas are solve's: b_bar = A^-H x_bar, A_bar = -b_bar x^H on the band.

_BANDED = ("overwrite_ab", "overwrite_b", "check_finite")


def _diagonal_slices(d: int, m: int) -> tuple[slice, slice]:
    """The rows ``i`` and the columns ``i + d`` of the ``d``-th diagonal of an ``m x m`` matrix."""
    return slice(max(0, -d), min(m, m - d)), slice(max(0, d), min(m, m + d))


def _placed(v: np.ndarray, where: slice, m: int, axis: int) -> np.ndarray:
    """``v`` at the places ``where`` of an axis of length ``m`` (``axis`` -1 or -2), zeros around it.

    Built by concatenation rather than written into zeros: an engine may follow ``v``.
    """
    before = min(where.start, m)  # a diagonal past the matrix (a bandwidth of m or more) is empty
    after = m - before - v.shape[axis]
    if before == 0 and after == 0:
        return v
    pad = list(v.shape)
    parts = []
    for n in (before, after):
        pad[axis] = n
        parts.append(np.zeros(pad, dtype=np.result_type(v)))
    return np.concatenate([parts[0], v, parts[1]], axis=axis)


def _band_matmul(ab: np.ndarray, lower: int, upper: int, x: np.ndarray) -> np.ndarray:
    """``A @ x`` for the banded ``A`` that ``ab`` stores and ``x`` of shape ``(..., m, k)``."""
    m = ab.shape[-1]
    terms = []
    for d in range(-lower, upper + 1):
        rows, cols = _diagonal_slices(d, m)
        terms.append(_placed(ab[..., upper - d, cols, None] * x[..., cols, :], rows, m, -2))
    return sum(terms[1:], terms[0])


def _band_adjoint(ab: np.ndarray, lower: int, upper: int) -> np.ndarray:
    """The band storage of ``A^H`` (widths swapped): ``A^H[i, i + d] = conj(A[i + d, i])``."""
    m = ab.shape[-1]
    rows_out = []
    for d in range(lower, -upper - 1, -1):  # the rows lower - d = 0, 1, ... of the storage of A^H
        rows, cols = _diagonal_slices(d, m)
        rows_out.append(_placed(ab[..., upper + d, rows].conj(), cols, m, -1))
    return np.stack(rows_out, axis=-2)


def _band_of_outer(p: np.ndarray, q: np.ndarray, lower: int, upper: int) -> np.ndarray:
    """The band storage of ``p @ q^H`` on the band (zero on the corners that store nothing)."""
    m = p.shape[-2]
    rows_out = []
    for d in range(upper, -lower - 1, -1):  # the rows upper - d = 0, 1, ... of the storage
        rows, cols = _diagonal_slices(d, m)
        rows_out.append(_placed(np.sum(p[..., rows, :] * q[..., cols, :].conj(), axis=-1), cols, m, -1))
    return np.stack(rows_out, axis=-2)


def _bandwidths(l_and_u: Any) -> tuple[int, int] | None:
    try:
        lower, upper = l_and_u
    except (TypeError, ValueError):
        return None
    if not all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in (lower, upper)):
        return None
    return int(lower), int(upper)


def _as_matrices(x: np.ndarray, vector: bool) -> np.ndarray:
    return x[..., None] if vector else x


@rrule.register(linalg.solve_banded)
def _rrule_solve_banded(f: Any, l_and_u: Any, ab: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    band = _bandwidths(l_and_u)
    if band is None or call_options(_BANDED, args, kwargs, {}, refused=("overwrite_ab", "overwrite_b")) is None:
        return None
    lower, upper = band
    x = follow(f, l_and_u, ab, b, *args, **kwargs)
    project_ab = ProjectTo(ab)
    ab_arr = as_array(ab)
    vector = np.ndim(b) == 1
    extra = (NoTangent(),) * len(args)
    shape = value_shape(x)

    def solve_banded_pullback(x_bar: Any) -> tuple[Any, ...]:
        x_bar = _as_matrices(as_array(checked_seed(f, x_bar, shape)), vector)
        b_bar = follow(f, (upper, lower), _band_adjoint(ab_arr, lower, upper), x_bar)
        ab_bar = _band_of_outer(-b_bar, _as_matrices(x, vector), lower, upper)
        b_bar = b_bar[..., 0] if vector else b_bar
        return NoTangent(), NoTangent(), project_ab(sum_to_shape(ab_bar, ab_arr.shape)), unbroadcast(b, b_bar), *extra

    return x, solve_banded_pullback


@frule.register(linalg.solve_banded)
def _frule_solve_banded(
    tangents: tuple[Any, ...], f: Any, l_and_u: Any, ab: Any, b: Any, *args: Any, **kwargs: Any
) -> Any:
    band = _bandwidths(l_and_u)
    if band is None or call_options(_BANDED, args, kwargs, {}, refused=("overwrite_ab", "overwrite_b")) is None:
        return None
    lower, upper = band
    x = follow(f, l_and_u, ab, b, *args, **kwargs)
    _, ab_dot, b_dot = checked_tangents(f, tangents[:4], (l_and_u, ab, b))
    vector = np.ndim(b) == 1
    rhs: Any = None
    if not isinstance(b_dot, AbstractZero) and not ProjectTo(b).is_no_tangent:
        rhs = _as_matrices(as_array(b_dot), vector)
    if not isinstance(ab_dot, AbstractZero) and not ProjectTo(ab).is_no_tangent:
        moved = _band_matmul(as_array(ab_dot), lower, upper, _as_matrices(x, vector))
        rhs = -moved if rhs is None else rhs - moved
    if rhs is None:
        return x, ZeroTangent()
    x_dot = follow(f, l_and_u, ab, rhs)
    return x, ProjectTo(x)(x_dot[..., 0] if vector else x_dot)


# ----- block_diag -----
# Linear: each block's cotangent is its slice of the output's, summed over the
# batch axes it was broadcast along.


def _block_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape ``block_diag`` gives an argument: at least 2-D, ones prepended."""
    return (1,) * (2 - len(shape)) + shape if len(shape) < 2 else shape


@rrule.register(linalg.block_diag)
def _rrule_block_diag(f: Any, *arrs: Any) -> Any:
    out = f(*arrs)
    shapes = [np.shape(x) for x in arrs]
    projects = [ProjectTo(x) for x in arrs]
    out_shape = value_shape(out)

    def block_diag_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, out_shape)
        bars, r, c = [], 0, 0
        for shape, project in zip(shapes, projects):
            block = _block_shape(shape)
            rows, cols = block[-2:]
            piece = out_bar[..., r : r + rows, c : c + cols]
            bars.append(project(sum_to_shape(piece, block).reshape(shape)))
            r, c = r + rows, c + cols
        return NoTangent(), *bars

    return out, block_diag_pullback


@frule.register(linalg.block_diag)
def _frule_block_diag(tangents: tuple[Any, ...], f: Any, *arrs: Any) -> Any:
    out = f(*arrs)
    dots = checked_tangents(f, tangents, arrs)
    if all(isinstance(t, AbstractZero) for t in dots):
        return out, ZeroTangent()
    blocks = [np.zeros(np.shape(x)) if isinstance(t, AbstractZero) else t for x, t in zip(arrs, dots)]
    return out, ProjectTo(out)(f(*blocks))
