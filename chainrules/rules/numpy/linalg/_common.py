"""Helpers shared by the products, linear-algebra and factorization rules.

Matrices are stacks over the last two axes, as numpy's ``linalg`` functions
take them; every helper here works on such stacks. The helpers that the
rules of other libraries' arrays use take the namespace ``xp`` to compute in
(``chainrules_core.arrays.namespace_of``), numpy's by default: numpy keeps
its own calls (views for real arrays, calls an engine's followed values
answer), any other library computes with the Python Array API standard's.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from chainrules_core import AbstractZero, Tangent, follow, is_followed, primal_of, sum_to_shape
from chainrules_core.array_api import call_in
from chainrules_core.arrays import (
    array_type_name,
    device_of,
    first_foreign_array,
    is_complex_dtype,
    is_inexact_dtype,
    refusal,
)


def conjugate(x: Any, xp: Any = np) -> Any:
    """The complex conjugate of ``x``, ``x`` itself when it is real (the standard's ``conj`` wants complex input)."""
    if xp is np:
        return x.conj()
    return xp.conj(x) if is_complex_dtype(xp, x.dtype) else x


def adjoint(x: Any, xp: Any = np) -> Any:
    """The conjugate transpose of each matrix in the stack (a view for real numpy arrays)."""
    if xp is np:
        return np.swapaxes(x, -1, -2).conj()
    return conjugate(xp.matrix_transpose(x), xp)


def negated(x: Any) -> Any:
    """``-x``, in ``x``'s own buffer where it is a numpy array the caller has just made (a product): one pass and no
    new array, where numpy reuses a temporary only from 256 KiB on and a new array of that size is faulted in page
    by page."""
    if isinstance(x, np.ndarray):
        return np.negative(x, out=x)
    return -x


def mT(x: Any, xp: Any = np) -> Any:  # noqa: N802 - numpy's name for the matrix transpose
    if xp is np:
        return np.swapaxes(x, -1, -2)
    return xp.matrix_transpose(x)


def matmul_summed(left: Any, right: Any, shape: tuple[int, ...], xp: Any = np) -> Any:
    """``left @ right`` summed over the batch axes that broadcasting added to an operand of ``shape``."""
    batch = left.shape[:-2]
    if xp is np and len(shape) == 2 and batch and batch == right.shape[:-2]:
        axes = list(range(len(batch)))  # numpy: one matrix product over the folded batch, no stack to sum
        return np.tensordot(left, right, axes=([*axes, left.ndim - 1], [*axes, right.ndim - 2]))
    return sum_to_shape(left @ right, shape)


def diagonal(x: Any, xp: Any = np) -> Any:
    """The diagonals of a stack of matrices, shape ``(..., n)``."""
    if xp is np:
        return np.diagonal(x, axis1=-2, axis2=-1)
    return xp.linalg.diagonal(x)


def diag_embed(d: Any, xp: Any = np) -> Any:
    """A stack of diagonal matrices with the diagonals ``d`` of shape ``(..., n)``."""
    n = d.shape[-1]
    if xp is np:
        return d[..., :, None] * np.eye(n, dtype=d.dtype)  # not written in place: an engine may follow d
    return xp.expand_dims(d, axis=-1) * xp.eye(n, dtype=d.dtype, device=device_of(d))


def real_part_of(x: Any, xp: Any = np) -> Any:
    """The real part of ``x`` in its own dtype (a complex array keeps its dtype, with a zero imaginary part)."""
    if not is_complex_dtype(xp, x.dtype):
        return x
    return xp.astype(xp.real(x), x.dtype) if xp is not np else x.real.astype(x.dtype)


def hermitian_from_triangle(x: Any, lower: bool, xp: Any = np) -> Any:
    """The Hermitian matrix that a LAPACK routine reading one triangle of ``x`` sees.

    The strict triangle is mirrored with a conjugate; the diagonal keeps its
    real part only, as the routines ignore an imaginary part there.
    """
    if xp is np:
        tri = np.tril(x, -1) if lower else np.triu(x, 1)
        d = diagonal(x).real if np.iscomplexobj(x) else diagonal(x)
        return tri + adjoint(tri) + diag_embed(d.astype(x.dtype))
    tri = xp.tril(x, k=-1) if lower else xp.triu(x, k=1)
    return tri + adjoint(tri, xp) + diag_embed(real_part_of(diagonal(x, xp), xp), xp)


def fold_to_triangle(s: Any, lower: bool, xp: Any = np) -> Any:
    """The cotangent of ``x`` when ``s`` is the cotangent of ``hermitian_from_triangle(x, lower)``.

    The adjoint of that map: ``s + s^H`` on the read strict triangle, the real
    part of ``s``'s diagonal on the diagonal, zero on the triangle not read.
    """
    both = s + adjoint(s, xp)
    if isinstance(both, np.ndarray):  # numpy's (not an engine's value): a new array, folded in place
        np.copyto(both, 0, where=_unread(both.shape[-1], lower))
        _diagonal_entries(both)[...] *= 0.5  # the diagonal, 2 Re(s_ii), halved
        return both
    if xp is np:
        tri = np.tril(both, -1) if lower else np.triu(both, 1)
        return tri + diag_embed(diagonal(s).real.astype(s.dtype))
    tri = xp.tril(both, k=-1) if lower else xp.triu(both, k=1)
    return tri + diag_embed(real_part_of(diagonal(s, xp), xp), xp)


def _unread(n: int, lower: bool) -> np.ndarray:
    """The mask of the triangle of an n x n matrix that ``hermitian_from_triangle(x, lower)`` does not read.

    Zeroing it in place costs a mask of n² bytes where ``np.tril`` makes a
    copy of n² entries; at n = 512 a fresh 2 MiB array is faulted in page by
    page, which took cholesky's pullback from 1 ms of folding to 3 (the
    benchmark's floor section).
    """
    if not lower:
        return np.tri(n, k=-1, dtype=bool)  # the strict lower triangle
    upper = np.tri(n, dtype=bool)
    return np.logical_not(upper, out=upper)  # the strict upper triangle


def _diagonal_entries(x: np.ndarray) -> np.ndarray:
    """The diagonals of a stack of matrices as a writable view (``np.diagonal``'s is read-only)."""
    return np.einsum("...ii->...i", x)


def phi_lower(x: Any, xp: Any = np, overwrite: bool = False) -> Any:
    """The lower triangle with the diagonal halved (Murray 2016's ``Phi``); in ``x`` itself with ``overwrite=True``
    where ``x`` is a numpy array (a new one the caller owns)."""
    n = x.shape[-1]
    if isinstance(x, np.ndarray):  # numpy's array (not an engine's value): its lower triangle, halved in place
        low = x if overwrite else x.copy()
        np.copyto(low, 0, where=_unread(n, True))
        _diagonal_entries(low)[...] *= 0.5
        return low
    if xp is np:
        return np.tril(x) * np.where(np.eye(n, dtype=bool), 0.5, 1.0).astype(x.dtype)  # not in place, as diag_embed
    return xp.tril(x, k=-1) + diag_embed(diagonal(x, xp) * 0.5, xp)


def solve_right(x: Any, a: Any, xp: Any = np) -> Any:
    """``x @ inv(a)`` for stacks of matrices, through a solve."""
    return mT(xp.linalg.solve(mT(a, xp), mT(x, xp)), xp)


@functools.cache
def _scipy_solve_triangular() -> Any:
    """scipy's ``solve_triangular`` (O(n²) per right-hand side), imported on first use; ``None`` without scipy."""
    try:
        from scipy.linalg import solve_triangular
    except ImportError:
        return None
    return solve_triangular


def solve_lower(low: Any, b: Any, conjugate_transpose: bool = False, xp: Any = np) -> Any:
    """``inv(low) @ b``, or ``inv(low)^H @ b``, for stacks of lower-triangular matrices ``low``.

    numpy's arrays take scipy's triangular solve; another library's the standard's general ``solve`` (which has
    no triangular one), O(n³) rather than O(n²) per stack.
    """
    solve_triangular = _scipy_solve_triangular() if xp is np else None
    if solve_triangular is not None and low.size and b.size:  # scipy refuses zero-size stacks; numpy takes them
        # scipy converts its arguments: an engine that follows them follows the call as one
        # trans=1 for a real matrix: scipy then solves with a C-ordered one as it is, where trans=2 copies it
        trans = (2 if np.iscomplexobj(primal_of(low)) else 1) if conjugate_transpose else 0
        return follow(solve_triangular, low, b, lower=True, trans=trans, check_finite=False)
    return xp.linalg.solve(adjoint(low, xp) if conjugate_transpose else low, b)


def solve_vectors(a: Any, b: Any, xp: Any = np) -> Any:
    """``inv(a) @ b`` for a stack of vectors ``b`` of shape ``(..., n)``.

    ``np.linalg.solve`` reads a 2-D ``b`` as a matrix, so the vectors are
    made single-column matrices first.
    """
    if xp is np:
        return np.linalg.solve(a, b[..., None])[..., 0]
    return xp.linalg.solve(a, xp.expand_dims(b, axis=-1))[..., 0]


def pad_to(x_bar: Any, shape: tuple[int, ...]) -> Any:
    """``x_bar`` in the leading corner of zeros of ``shape`` (a zero stays a zero)."""
    if isinstance(x_bar, AbstractZero) or x_bar.shape == shape:
        return x_bar
    if is_followed(x_bar):  # an engine's value (nested differentiation) is padded, not written into zeros
        return np.pad(x_bar, [(0, m - n) for m, n in zip(shape, x_bar.shape)])
    padded = np.zeros(shape, x_bar.dtype)
    padded[tuple(slice(0, n) for n in x_bar.shape)] = x_bar
    return padded


def unique_part(x_bar: Any, k: int, axis: int, message: str) -> Any:
    """The cotangent of the first ``k`` columns (``axis=-1``) or rows (``-2``) of an output not unique past them.

    The extra columns of a complete QR's Q or of a full SVD's U are any
    orthonormal basis of a complement: a result that depends on them has no
    derivative, so ``ValueError(message)`` unless ``x_bar`` is zero there.
    """
    if isinstance(x_bar, AbstractZero):
        return x_bar
    kept, rest = (slice(None, k), slice(k, None))
    index = (Ellipsis, rest) if axis == -1 else (Ellipsis, rest, slice(None))
    if np.any(x_bar[index] != 0):
        raise ValueError(message)
    return x_bar[..., kept] if axis == -1 else x_bar[..., kept, :]


def tuple_tangent(out: Any, *values: Any) -> Any:
    """The tangent of the namedtuple ``out`` holding ``values`` in field order (by position for a result without
    field names, such as torch's ``torch.return_types``)."""
    fields = getattr(type(out), "_fields", None)
    if fields is None:
        return Tangent(type(out), *values)
    return Tangent(type(out), **dict(zip(fields, values)))


def as_array(x: Any) -> np.ndarray:
    """``np.asarray(x)``; a value an AD engine follows stays as it is (it answers numpy's functions itself)."""
    return x if is_followed(x) else np.asarray(x)


def over_gaps(x: Any, w: Any, xp: Any = np) -> Any:
    """``x[..., i, j] / (w_j - w_i)`` off the diagonal; 0 on it and wherever ``x`` is 0.

    The eigenvector and singular-vector terms of Giles 2008, section 3.1. A
    zero entry of ``x`` contributes nothing even where two values coincide
    (no ``0 * inf``); a nonzero one over a zero gap gives ``inf``/``nan``
    with numpy's warning, as the vectors have no derivative there.
    """
    return _over_pairs(xp, x, _pairs(xp, w, -1))


def over_square_gaps(x: Any, s: Any, xp: Any = np) -> Any:
    """``x[..., i, j] / (s_j^2 - s_i^2)`` as ``over_gaps(x, s**2)``, without squaring ``s``.

    Dividing by ``s_j - s_i`` and then by ``s_j + s_i`` keeps the gaps of
    singular values below 1e-154 (whose squares underflow to 0) and above
    1e154 (whose squares overflow).
    """
    return _over_pairs(xp, x, _pairs(xp, s, -1), _pairs(xp, s, 1))


def _pairs(xp: Any, w: Any, sign: int) -> Any:
    """``w_j - w_i`` (``sign`` -1) or ``w_j + w_i`` (1) at ``[..., i, j]``."""
    row, column = (
        (w[..., None, :], w[..., :, None]) if xp is np else (xp.expand_dims(w, axis=-2), xp.expand_dims(w, axis=-1))
    )
    return row + column if sign == 1 else row - column


def _over_pairs(xp: Any, x: Any, *divisors: Any) -> Any:
    """``x`` divided by each of ``divisors`` in turn off the diagonal; 0 on it and wherever ``x`` is 0."""
    if xp is np:
        where = (x != 0) & ~np.eye(x.shape[-1], dtype=bool)
        for d in divisors:
            x = x / np.where(where, d, 1)
        return np.where(where, x, 0)  # no out=: an engine may follow x and the divisors
    where = (x != 0) & ~xp.eye(x.shape[-1], dtype=xp.bool, device=device_of(x))
    for d in divisors:
        x = x / xp.where(where, d, 1.0)
    return xp.where(where, x, 0.0)


def complement_tangent(q1: Any, q1_dot: Any, q2: Any, xp: Any = np) -> Any:
    """The tangent of ``q2``, an orthonormal basis of the complement of ``q1``'s columns, as ``q1`` moves.

    ``q2`` is any such basis; the one that does not turn within the
    complement (``q2^H q2_dot = 0``) moves as ``q2_dot = -q1 (q1_dot^H q2)``,
    which keeps ``[q1 | q2]`` unitary to first order.
    """
    return -(q1 @ (adjoint(q1_dot, xp) @ q2))


def complement_cotangent(q1: Any, q2: Any, q2_bar: Any, xp: Any = np) -> Any:
    """The cotangent of ``q1`` that ``complement_tangent`` sends ``q2_bar`` to: ``-q2 q2_bar^H q1``."""
    if isinstance(q2_bar, AbstractZero):
        return q2_bar
    return -(q2 @ (adjoint(q2_bar, xp) @ q1))


def _products_of_the_others(s: Any, xp: Any = np) -> Any:
    """``p[..., i] = prod(s[..., j] for j != i)``, without dividing (exact with zeros): numpy's by cumulative
    products from both ends, another library's as the products of the rows of ``s`` with 1 on the diagonal."""
    if xp is not np:
        eye = xp.eye(s.shape[-1], dtype=xp.bool, device=device_of(s))
        return xp.prod(xp.where(eye, 1.0, xp.expand_dims(s, axis=-2)), axis=-1)
    ones = np.ones_like(s[..., :1])
    before = np.cumprod(np.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return before * after


def adjugate_svd(a: Any, xp: Any = np) -> Any:
    """``adj(a)`` from the SVD ``a = U diag(s) Vh``: ``det(U) det(Vh) Vh^H diag(p) U^H``, ``p_i = prod_{j != i} s_j``.

    Exact for singular matrices (rank n - 1 gives the rank-one adjugate,
    lower rank gives zero), as in PyTorch's singular branch of det's backward.
    A matrix with an infinite or NaN entry gets NaN: LAPACK's SVD does not
    return for an infinite entry (numpy's arrays; another library's get what its SVD gives).
    """
    if xp is not np:
        u, s, vh = xp.linalg.svd(a, full_matrices=False)
        phase = xp.linalg.det(u) * xp.linalg.det(vh)
        p = xp.astype(_products_of_the_others(s, xp), a.dtype)
        return phase[..., None, None] * ((adjoint(vh, xp) * xp.expand_dims(p, axis=-2)) @ adjoint(u, xp))
    finite = np.all(np.isfinite(a), axis=(-2, -1))
    if not np.all(finite):
        out = np.full(a.shape, np.nan, dtype=np.result_type(a, 1.0))
        out[finite] = adjugate_svd(a[finite])
        return out
    u, s, vh = np.linalg.svd(a)
    phase = np.linalg.det(u) * np.linalg.det(vh)
    p = _products_of_the_others(s).astype(a.dtype)
    return np.asarray(phase)[..., None, None] * ((adjoint(vh) * p[..., None, :]) @ adjoint(u))


def inverse(a: Any, xp: Any = np) -> Any:
    """``inv(a)``; at a singular matrix ``adj(a) / 0``: infinite, with numpy's warnings (another library's
    arrays: what its ``inv`` gives there)."""
    if xp is not np:
        return xp.linalg.inv(a)
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        return adjugate_svd(a) / np.linalg.det(a)[..., None, None]


def nonzero_singular_values(s: Any, shape: tuple[int, ...], xp: Any = np) -> Any:
    """Which singular values ``s`` (descending) of matrices of ``shape`` are above zero beyond rounding.

    numpy's ``matrix_rank`` tolerance, ``s > max(m, n) * eps * s_max``. A
    singular value at 0 is a kink, ``|h| c`` along any direction: its
    central difference, and the rules' derivative there, is 0.
    """
    return s > s[..., :1] * max(shape[-2:]) * xp.finfo(s.dtype).eps


def block_matrix(rows: list[list[Any]], shape: tuple[int, ...], dtype: Any) -> Any:
    """The matrices joined from blocks of ``shape`` (``(..., r, c)``, each block broadcast to it; ``None`` for zeros).

    Written into zeros for plain arrays; joined by concatenation (which an engine follows) when an engine follows
    a block.
    """
    *batch, r, c = shape
    if not any(is_followed(b) for row in rows for b in row):
        out = np.zeros((*batch, len(rows) * r, len(rows[0]) * c), dtype=dtype)
        for i, row in enumerate(rows):
            for j, b in enumerate(row):
                if b is not None:
                    out[..., i * r : (i + 1) * r, j * c : (j + 1) * c] = b
        return out
    zeros = np.zeros(shape, dtype=dtype)
    joined = [np.concatenate([zeros if b is None else np.broadcast_to(b, shape) for b in row], axis=-1) for row in rows]
    return np.concatenate(joined, axis=-2)


def block_frechet(f: Any, a: np.ndarray, e: np.ndarray) -> np.ndarray:
    """The Fréchet derivative ``L_f(a, e)`` of a primary matrix function ``f``, for stacks of matrices.

    ``f([[a, e], [0, a]]) = [[f(a), L_f(a, e)], [0, f(a)]]`` (Mathias 1996;
    Higham 2008, "Functions of Matrices", section 3.2). ``L_f(a, .)`` is
    linear, so ``e`` is first scaled to the 1-norm of ``a`` and the result
    scaled back: the block then has the norm of ``a``, which keeps the
    algorithm for ``f`` (its scaling, its Padé degree) that of ``a``.

    An engine may follow ``a`` and ``e``: the block is joined from them
    (``block_matrix``), ``f`` is called through ``follow`` (its own rules
    differentiate it), and the scale, a constant of the exact result, is
    read off the plain values.
    """
    a, e = as_array(a), as_array(e)
    shape = np.broadcast_shapes(np.shape(a), np.shape(e))
    dtype = np.result_type(a, e, 1.0)
    n = shape[-1]
    a_norm = np.linalg.norm(primal_of(a), 1, axis=(-2, -1))
    e_norm = np.linalg.norm(primal_of(e), 1, axis=(-2, -1))
    target = np.where(a_norm > 0, a_norm, 1.0)
    scale = np.where(e_norm > 0, target / np.where(e_norm > 0, e_norm, 1.0), 1.0).astype(dtype.char.lower())
    scale = np.broadcast_to(scale, shape[:-2])[..., None, None]
    block = block_matrix([[a, e * scale], [None, a]], shape, dtype)
    return as_array(follow(f, block))[..., :n, n:] / scale


def inexact(a: Any, xp: Any = np) -> Any:
    """``a`` if its dtype is float or complex, else ``a`` as float64 (an integer matrix's derivatives are real)."""
    if xp is np:
        return a if a.dtype.kind in "fc" else a.astype(np.float64)
    return a if is_inexact_dtype(xp, a.dtype) else xp.astype(a, xp.float64)


def per_matrix(c: Any, xp: Any = np) -> Any:
    """A number per matrix of a stack (shape ``(...)``) as ``(..., 1, 1)``, to scale each matrix; a Python number
    as it is."""
    if xp is np:
        return np.asarray(c)[..., None, None]
    if isinstance(c, (int, float, complex)):
        return c
    return xp.expand_dims(xp.expand_dims(c, axis=-1), axis=-1)


def trace_of_product(x: Any, y: Any, xp: Any = np) -> Any:
    """``tr(x y)`` per matrix of the stacks: ``sum_ij x_ji y_ij``."""
    if xp is np:
        return np.einsum("...ji,...ij->...", x, y)
    return xp.sum(xp.matrix_transpose(x) * y, axis=(-2, -1))


@contextlib.contextmanager
def dask_refusals(f: Any, x: Any) -> Iterator[None]:
    """Turns dask's refusal of arrays its linear algebra does not take (a stack, chunks that are not square or
    split both ways) into ``refusal``'s ``TypeError`` naming ``f``; any other error passes."""
    try:
        yield
    except (ValueError, NotImplementedError) as err:
        if not array_type_name(x).startswith("dask."):
            raise
        why = str(err).splitlines()[0]
        raise refusal(f, x, f"dask's linear algebra does not take these arrays ({why})") from None


def linalg_call(xp: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
    """``f(*args, **kwargs)`` of numpy's arrays, ``call_in(xp, f, ...)`` of another library's (``dask_refusals``)."""
    if xp is np:
        return f(*args, **kwargs)
    with dask_refusals(f, first_foreign_array(args)):
        return call_in(xp, f, *args, **kwargs)


# ----- fast paths -----
# What the fast paths of dense.py and factorizations.py share: LAPACK's LU and BLAS's triangular product on plain
# numpy matrices, where scipy is present.


@functools.cache
def _scipy_lapack() -> Any:
    """scipy's ``get_lapack_funcs``, imported on first use; ``None`` without scipy."""
    try:
        from scipy.linalg import get_lapack_funcs
    except ImportError:
        return None
    return get_lapack_funcs


def lu_factored(a: Any) -> tuple[Any, Any] | None:
    """``(lu, piv)``: LAPACK's LU of the square matrix ``a`` (``getrf``), to read its determinant and inverse from.

    Only for a plain numpy matrix (not a stack, not empty, not a value an
    engine follows) of float or complex dtype, and where scipy is present;
    ``None`` otherwise, and where a pivot is within ``n`` roundings of zero
    relative to the largest: numpy's LAPACK is not scipy's, and at a
    singular matrix one may meet an exact zero pivot (numpy's ``inv``
    raises ``LinAlgError``, its ``det`` is 0) where the other meets 1e-16.
    numpy's functions then say what they say of the matrix.
    """
    get_lapack_funcs = _scipy_lapack()
    if get_lapack_funcs is None or type(a) is not np.ndarray or a.ndim != 2 or a.dtype.char not in "fdFD":
        return None
    n = a.shape[0]
    if a.shape[1] != n or a.size == 0:
        return None
    (getrf,) = get_lapack_funcs(("getrf",), (a,))
    lu, piv, info = getrf(a)
    if info != 0:
        return None
    pivots = np.abs(np.diagonal(lu))
    smallest, largest = pivots.min(), pivots.max()  # NaN compares false below: numpy's functions say
    return (lu, piv) if smallest > n * np.finfo(lu.dtype).eps * largest else None


def lu_inverted(factored: tuple[Any, Any]) -> Any:
    """``inv(a)`` from ``lu_factored(a)`` by LAPACK's ``getri`` (n³ flops, where a solve with the identity takes
    2n³), into a copy of the factors (kept for another call); ``None`` where the inverse is not finite."""
    lu, piv = factored
    n = lu.shape[0]
    getri, getri_lwork = _scipy_lapack()(("getri", "getri_lwork"), (lu,))
    work, info = getri_lwork(n)
    if info != 0:
        return None
    inv, info = getri(lu, piv, lwork=max(int(work.real), n))
    # where the inverse overflows (a subnormal matrix), getri's NaN would not be numpy's infinities
    return None if info != 0 or not np.isfinite(inv).all() else inv


@functools.cache
def lapack_is_numpys() -> bool:
    """Whether scipy's LAPACK is numpy's own build, as both report it (``show_config``): the same library, version
    and configuration (the integer width of its interface aside). Only then is scipy's LU of a matrix numpy's, bit
    for bit: numpy 2.4's OpenBLAS 0.3.31 and scipy 1.17's 0.3.30 factorize a third of real matrices otherwise from
    n = 6 on (every complex one tried alike), and OpenBLAS's LU changes with its number of threads from n = 100 or
    so, which two builds set apart."""
    try:
        import scipy

        ours = np.show_config(mode="dicts")["Build Dependencies"]["lapack"]
        theirs = scipy.show_config(mode="dicts")["Build Dependencies"]["lapack"]
    except (ImportError, AttributeError, KeyError, TypeError):  # no scipy, or a show_config without dicts
        return False

    def build(info: dict[str, Any]) -> tuple[Any, ...]:
        configuration = str(info.get("openblas configuration", "")).replace("USE64BITINT", "").split()
        return info.get("name"), info.get("version"), configuration

    return bool(ours.get("name")) and build(ours) == build(theirs)


def lu_slogdet(factored: tuple[Any, Any]) -> tuple[Any, Any]:
    """numpy's ``slogdet(a)`` from ``lu_factored(a)``, as numpy computes it from its own LU (numpy's value where the
    LU is numpy's, ``lapack_is_numpys``).

    In numpy's order of operations (``slogdet_from_factored_diagonal`` in numpy/linalg/umath_linalg.cpp): the sign
    starts at the pivots' parity and takes each pivot's sign (real) or phase ``z / |z|`` (complex, multiplied as
    numpy's ``mult``: ``(ar br - ai bi, ar bi + ai br)``) in turn, and ``log|det|`` adds the logs of the magnitudes
    one at a time, with the C library's ``log`` and ``hypot`` (``math.log``, ``abs``) as numpy's C code calls them:
    ``np.log`` (vectorised, AVX-512) differs from it in the last bit, and ``np.sum`` adds pairwise.
    """
    lu, piv = factored
    parity = -1.0 if np.count_nonzero(piv != np.arange(piv.size)) % 2 else 1.0
    logabsdet = 0.0
    if lu.dtype.kind == "c":
        re, im = parity, 0.0
        for z in np.diagonal(lu).tolist():
            magnitude = abs(z)
            z_re, z_im = z.real / magnitude, z.imag / magnitude
            re, im = re * z_re - im * z_im, re * z_im + im * z_re
            logabsdet += math.log(magnitude)
        return np.complex128(complex(re, im)), np.float64(logabsdet)
    sign = parity
    for x in np.diagonal(lu).tolist():
        if x < 0.0:
            sign, x = -sign, -x
        logabsdet += math.log(x)
    return np.float64(sign), np.float64(logabsdet)


def lu_det(factored: tuple[Any, Any]) -> Any:
    """numpy's ``det(a)`` from ``lu_factored(a)``: ``sign * exp(logabsdet)`` of ``lu_slogdet`` (``det_from_slogdet``
    in umath_linalg.cpp; a complex sign times ``(exp(logabsdet), 0)`` as numpy's ``mult``); ``inf`` where it
    overflows."""
    sign, logabsdet = lu_slogdet(factored)
    try:
        scale = math.exp(logabsdet)
    except OverflowError:
        scale = math.inf
    if isinstance(sign, np.complexfloating):
        re, im = float(sign.real), float(sign.imag)
        return np.complex128(complex(re * scale - im * 0.0, re * 0.0 + im * scale))
    return np.float64(float(sign) * scale)


@functools.cache
def _scipy_blas() -> Any:
    """scipy's ``get_blas_funcs``, imported on first use; ``None`` without scipy."""
    try:
        from scipy.linalg.blas import get_blas_funcs
    except ImportError:
        return None
    return get_blas_funcs


def lower_adjoint_times(low: Any, b: Any, xp: Any = np) -> Any:
    """``low^H @ b`` for stacks of lower-triangular matrices ``low``.

    A plain real numpy matrix takes BLAS's triangular product ``trmm`` where
    scipy is present (n³ flops, where a general product takes 2n³), with
    the transposes that spare it copies; anything else (a stack, complex
    numbers, a value an engine follows) the general product.
    """
    get_blas_funcs = _scipy_blas() if xp is np else None
    if (
        get_blas_funcs is None
        or type(low) is not np.ndarray
        or type(b) is not np.ndarray
        or low.ndim != 2
        or b.ndim != 2
        or low.dtype != b.dtype
        or low.dtype.char not in "fd"
        or not b.size
    ):
        return adjoint(low, xp) @ b
    (trmm,) = get_blas_funcs(("trmm",), (low,))
    return trmm(1.0, low.T, b.T, side=1, lower=0, trans_a=1).T  # (b^T L)^T, in C order
