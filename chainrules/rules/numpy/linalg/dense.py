"""Linear algebra: inv, solve, det, slogdet, matrix_power, multi_dot, tensorinv, tensorsolve.

Every rule takes stacks of matrices over the last two axes, as numpy does.
The formulas are those of Giles 2008, "An extended collection of matrix
derivative results for forward and reverse mode algorithmic
differentiation", sections 2.2-2.3, with conjugate transposes for the
complex convention (the adjoint under ``Re(conj(a) b)``).

``inv``, ``solve``, ``det``, ``slogdet`` and ``matrix_power``, which the
Python Array API standard names, run on every Array API library, their
formulas computed in its namespace. numpy keeps its own ways: ``det``'s
adjugate through ``inv`` where the matrix is well conditioned and the SVD
where it is not (a choice by value), and ``inv`` falling back to the SVD at
an exactly singular matrix. On another library's arrays the adjugate
always comes from the SVD (exact at singular matrices, no branch on values,
which ``jax.jit`` could not take): an SVD and two determinants per pullback
where numpy pays an inverse. ``matrix_power`` of a library without one
(dask) is the product of the squares numpy's own multiplies. dask has no
``det`` nor ``slogdet``, and its LU (``inv``, ``solve``) takes single
matrices in square chunks only: its other arrays get ``TypeError``.
"""

from __future__ import annotations

import functools
import math
import operator
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
    is_followed,
    rrule,
    unbroadcast,
    value_shape,
)
from chainrules_core.arrays import as_arrays_like, device_of, is_complex_dtype, namespace_of, real_part

from ..._arrays import tuple_entries
from ..._makers import checked_entries, checked_tangents
from .._bilinear import numeric_seed
from ._common import (
    adjoint,
    adjugate_svd,
    as_array,
    conjugate,
    dask_refusals,
    inexact,
    inverse,
    lapack_is_numpys,
    linalg_call,
    lu_det,
    lu_factored,
    lu_inverted,
    lu_slogdet,
    matmul_summed,
    negated,
    per_matrix,
    solve_vectors,
    trace_of_product,
    tuple_tangent,
)

# ----- inv -----


@rrule.register(np.linalg.inv, generic=True)
def _rrule_inv(f: Any, a: Any) -> Any:
    xp = namespace_of(a)
    return _inv_rrule(f, a, linalg_call(xp, f, a), xp)


def _inv_rrule(f: Any, a: Any, out: Any, xp: Any) -> Any:
    """The rrule of ``inv`` at ``a``, whose inverse is ``out``."""
    project_a = ProjectTo(a)
    shape = value_shape(out)

    def inv_pullback(out_bar: Any) -> tuple[Any, Any]:
        out_bar = checked_seed(f, out_bar, shape)
        out_h = adjoint(out, xp)
        return NoTangent(), project_a(negated(out_h @ out_bar @ out_h))

    return out, inv_pullback


@frule.register(np.linalg.inv, generic=True)
def _frule_inv(tangents: tuple[Any, ...], f: Any, a: Any) -> Any:
    out = linalg_call(namespace_of(a), f, a)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero):
        return out, ZeroTangent()
    return out, ProjectTo(out)(-(out @ a_dot @ out))


# ----- solve -----


@rrule.register(np.linalg.solve, generic=True)
def _rrule_solve(f: Any, a: Any, b: Any) -> Any:
    xp = namespace_of(a, b)
    x = linalg_call(xp, f, a, b)
    project_a = ProjectTo(a)
    a_arr, b_arr = (as_array(a), as_array(b)) if xp is np else (a, b)
    vector = b_arr.ndim == 1  # numpy reads b as a stack of matrices unless it is 1-D
    shape = value_shape(x)

    def solve_pullback(x_bar: Any) -> tuple[Any, Any, Any]:
        x_bar = checked_seed(f, x_bar, shape)
        a_h = adjoint(a_arr, xp)
        if vector:
            b_bar = solve_vectors(a_h, x_bar, xp)
            column, row = xp.expand_dims(-b_bar, axis=-1), xp.expand_dims(conjugate(x, xp), axis=-2)
            a_bar = matmul_summed(column, row, a_arr.shape, xp)
        else:
            b_bar = xp.linalg.solve(a_h, x_bar)
            a_bar = matmul_summed(-b_bar, adjoint(x, xp), a_arr.shape, xp)
        return NoTangent(), project_a(a_bar), unbroadcast(b, b_bar)

    return x, solve_pullback


@frule.register(np.linalg.solve, generic=True)
def _frule_solve(tangents: tuple[Any, ...], f: Any, a: Any, b: Any) -> Any:
    xp = namespace_of(a, b)
    x = linalg_call(xp, f, a, b)
    a_dot, b_dot = checked_tangents(f, tangents, (a, b))
    vector = np.ndim(b) == 1
    rhs: Any = None
    if not isinstance(b_dot, AbstractZero) and not ProjectTo(b).is_no_tangent:
        rhs = b_dot
    if not isinstance(a_dot, AbstractZero) and not ProjectTo(a).is_no_tangent:
        a_dot_x = (a_dot @ xp.expand_dims(x, axis=-1))[..., 0] if vector else a_dot @ x
        rhs = -a_dot_x if rhs is None else rhs - a_dot_x
    if rhs is None:
        return x, ZeroTangent()
    rhs = xp.broadcast_to(rhs, x.shape)
    x_dot = solve_vectors(as_array(a) if xp is np else a, rhs, xp) if vector else xp.linalg.solve(a, rhs)
    return x, ProjectTo(x)(x_dot)


# ----- det -----


def adjugate(a: np.ndarray, det: np.ndarray) -> np.ndarray:
    """The adjugate ``det(a) inv(a)``, finite at singular matrices.

    Through ``inv`` for matrices whose 1-norm condition number is below
    ``eps**-0.5`` (there ``det * inv`` loses at most half the digits), through
    the SVD otherwise and at exactly singular matrices (JAX and PyTorch keep
    det's derivative finite there the same way). A matrix with an infinite or
    NaN entry keeps ``det * inv``, NaN: it has no derivative, and LAPACK's
    SVD does not return for an infinite entry.

    In a stack, each matrix takes its own way, and the two are joined by
    ``np.where`` (not by assignment), so that an engine differentiating the
    adjugate follows each matrix through its own way only: a matrix on the
    other way is replaced by one whose inverse and SVD are harmless there
    (``_distinct``), never fed to the SVD with repeated singular values.

    An engine differentiating the adjugate of a complex matrix on the SVD
    route (nested differentiation) gets it from the cofactors instead
    (``_adjugate_cofactors``): the complex SVD's phase terms grow like 1/s
    near a zero singular value, and that second derivative of det came out
    NaN or wrong against finite differences.
    """
    singular = None
    try:
        inv = np.linalg.inv(a)
    except np.linalg.LinAlgError:
        if a.ndim == 2:
            return _adjugate_svd(a)
        singular = np.asarray(det == 0)  # an exact zero pivot of the LU that both det and inv compute
        try:
            inv = np.linalg.inv(np.where(singular[..., None, None], _distinct(a), a))
        except np.linalg.LinAlgError:
            return _adjugate_svd(a)
    good = _conditioned(a, inv)
    if singular is not None:
        good = good & ~singular
    adj = np.asarray(det)[..., None, None] * inv
    bad = ~good & np.all(np.isfinite(a), axis=(-2, -1))
    if np.any(bad):
        if adj.ndim == 2:
            return _adjugate_svd(a)
        chosen = bad[..., None, None]
        adj = np.where(chosen, _adjugate_svd(np.where(chosen, a, _distinct(a))), adj)
    return adj


def _conditioned(a: np.ndarray, inv: np.ndarray) -> Any:
    """Whether ``det * inv`` is ``adjugate``'s way for each matrix of ``a``: a 1-norm condition number below
    ``eps**-0.5`` (false where it is not finite)."""
    cond = np.linalg.norm(a, 1, axis=(-2, -1)) * np.linalg.norm(inv, 1, axis=(-2, -1))
    return np.isfinite(cond) & (cond < np.finfo(a.dtype).eps ** -0.5)


def _adjugate_svd(a: np.ndarray) -> np.ndarray:
    """``adjugate_svd(a)``; for a complex matrix an engine follows, ``_adjugate_cofactors(a)``."""
    if a.dtype.kind == "c" and is_followed(a):
        return _adjugate_cofactors(a)
    return adjugate_svd(a)


def _adjugate_cofactors(a: Any) -> Any:
    """``adj(a)_ji = (-1)^(i + j) det(M_ij)``, ``M_ij`` being ``a`` without row ``i`` and column ``j``.

    The adjugate by its definition (Horn and Johnson, Matrix Analysis, 0.8.2):
    a polynomial in the entries, which an engine following ``a`` differentiates
    through ``det``'s own rule of each minor, singular or not. ``n**2``
    determinants of order ``n - 1`` in one stacked call: for nested
    differentiation at a singular complex matrix only.
    """
    n = a.shape[-1]
    if n == 1:
        return np.ones(a.shape, a.dtype)
    others = np.array([[j for j in range(n) if j != i] for i in range(n)])  # row i: the indices but i
    minors = a[..., others[:, None, :, None], others[None, :, None, :]]  # [..., i, j]: M_ij, of order n - 1
    signs = (-1.0) ** np.add.outer(np.arange(n), np.arange(n))
    return np.swapaxes(signs * np.linalg.det(minors), -1, -2)


def _distinct(a: np.ndarray) -> np.ndarray:
    """diag(1, ..., n) in ``a``'s dtype: invertible, well conditioned, with distinct singular values."""
    n = a.shape[-1]
    return np.diag(np.arange(1, n + 1)).astype(a.dtype)


def _adjugate_in(xp: Any, a: Any, det: Any) -> Any:
    """``adjugate`` of numpy's matrices; another library's from the SVD (``adjugate_svd``), with no branch."""
    return adjugate(a, det) if xp is np else adjugate_svd(a, xp)


@rrule.register(np.linalg.det, generic=True)
def _rrule_det(f: Any, a: Any) -> Any:
    xp = namespace_of(a)
    out = linalg_call(xp, f, a)
    a_arr = as_array(a) if xp is np else a
    return _det_rrule(f, a, out, xp, lambda: _adjugate_in(xp, inexact(a_arr, xp), out))


def _det_rrule(f: Any, a: Any, out: Any, xp: Any, adjugate_of: Any) -> Any:
    """The rrule of ``det`` at ``a``, whose determinant is ``out`` and adjugate ``adjugate_of()``."""
    project_a = ProjectTo(a)
    shape = value_shape(out)

    def det_pullback(out_bar: Any) -> tuple[Any, Any]:
        out_bar = checked_seed(f, out_bar, shape)
        # d det = tr(adj(A) dA): A_bar = out_bar adj(A)^H
        return NoTangent(), project_a(per_matrix(out_bar, xp) * adjoint(adjugate_of(), xp))

    return out, det_pullback


@frule.register(np.linalg.det, generic=True)
def _frule_det(tangents: tuple[Any, ...], f: Any, a: Any) -> Any:
    xp = namespace_of(a)
    out = linalg_call(xp, f, a)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero) or ProjectTo(a).is_no_tangent:
        return out, ZeroTangent()
    adj = _adjugate_in(xp, inexact(as_array(a) if xp is np else a, xp), out)
    return out, ProjectTo(out)(trace_of_product(adj, a_dot, xp))


# ----- slogdet -----


def _slogdet_trace_cotangent(xp: Any, sign: Any, sign_bar: Any, logabsdet_bar: Any, dtype: Any) -> Any:
    """The cotangent of ``t = tr(inv(A) dA)``, with ``d logabsdet = Re(t)`` and ``d sign = sign i Im(t)``."""
    if xp is np:
        t_bar = np.zeros(np.shape(sign), dtype=dtype)
        if not isinstance(logabsdet_bar, AbstractZero):
            t_bar = t_bar + np.real(logabsdet_bar)
        if not isinstance(sign_bar, AbstractZero):
            t_bar = t_bar - 1j * np.imag(np.conj(sign_bar) * sign)
        return t_bar
    t_bar = xp.zeros(sign.shape, dtype=dtype, device=device_of(sign))
    if not isinstance(logabsdet_bar, AbstractZero):
        (logabsdet_bar,) = as_arrays_like(t_bar, logabsdet_bar)
        t_bar = t_bar + xp.astype(real_part(xp, logabsdet_bar), dtype)
    if not isinstance(sign_bar, AbstractZero):
        (sign_bar,) = as_arrays_like(sign, sign_bar)
        t_bar = t_bar - xp.astype(xp.imag(xp.conj(sign_bar) * sign), dtype) * 1j
    return t_bar


@rrule.register(np.linalg.slogdet, generic=True)
def _rrule_slogdet(f: Any, a: Any) -> Any:
    xp = namespace_of(a)
    out = linalg_call(xp, f, a)
    a_arr = inexact(as_array(a) if xp is np else a, xp)
    return _slogdet_rrule(f, a, out, xp, a_arr.dtype, lambda: inverse(a_arr, xp))


def _slogdet_rrule(f: Any, a: Any, out: Any, xp: Any, dtype: Any, inverse_of: Any) -> Any:
    """The rrule of ``slogdet`` at ``a`` (of inexact ``dtype``), whose result is ``out`` and inverse
    ``inverse_of()``."""
    sign = out[0]
    project_a = ProjectTo(a)
    complex_a = is_complex_dtype(xp, dtype)
    shapes = [value_shape(x) for x in out]

    def slogdet_pullback(out_bar: Any) -> tuple[Any, Any]:
        sign_bar, logabsdet_bar = checked_entries(f, out_bar, ("sign", "logabsdet"), shapes)
        if not complex_a:
            sign_bar = ZeroTangent()  # the sign of a real determinant is locally constant
        if (isinstance(sign_bar, AbstractZero) and isinstance(logabsdet_bar, AbstractZero)) or project_a.is_no_tangent:
            return NoTangent(), project_a(ZeroTangent())
        t_bar = _slogdet_trace_cotangent(xp, sign, sign_bar, logabsdet_bar, dtype)
        return NoTangent(), project_a(per_matrix(t_bar, xp) * adjoint(inverse_of(), xp))

    return out, slogdet_pullback


@frule.register(np.linalg.slogdet, generic=True)
def _frule_slogdet(tangents: tuple[Any, ...], f: Any, a: Any) -> Any:
    xp = namespace_of(a)
    out = linalg_call(xp, f, a)
    sign, logabsdet = out
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero) or ProjectTo(a).is_no_tangent:
        return out, ZeroTangent()
    t = trace_of_product(inverse(inexact(as_array(a) if xp is np else a, xp), xp), a_dot, xp)
    logabsdet_dot = ProjectTo(logabsdet)(real_part(xp, t))
    if not is_complex_dtype(xp, sign.dtype):
        return out, tuple_tangent(out, ZeroTangent(), logabsdet_dot)
    turn = sign * 1j * np.imag(t) if xp is np else sign * xp.astype(xp.imag(t), sign.dtype) * 1j
    return out, tuple_tangent(out, ProjectTo(sign)(turn), logabsdet_dot)


# ----- matrix_power -----
# numpy's binary powering, B = A (or inv(A) for n < 0): the squares S_0 = B, S_j+1 = S_j S_j, and
# B^|n| the product of the squares at the set bits of |n|, in increasing order. The rules run the
# chain rule through those O(log n) products: d(S S) = dS S + S dS; inv as above.


def _power_chain(b: np.ndarray, n: int) -> tuple[list[np.ndarray], list[int]]:
    """The squares ``b^(2^j)`` that ``b^n`` (``n >= 1``) needs, and the indices of those it multiplies."""
    squares, picks = [b], []
    while True:
        n, bit = divmod(n, 2)
        if bit:
            picks.append(len(squares) - 1)
        if n == 0:
            return squares, picks
        squares.append(squares[-1] @ squares[-1])


def _power_pushforward(b: np.ndarray, b_dot: np.ndarray, n: int) -> np.ndarray:
    squares, picks = _power_chain(b, n)
    dots = [b_dot]
    for s, s_dot in zip(squares[:-1], dots):
        dots.append(s_dot @ s + s @ s_dot)
    value, tangent = squares[picks[0]], dots[picks[0]]
    for j in picks[1:]:
        value, tangent = value @ squares[j], tangent @ squares[j] + value @ dots[j]
    return tangent


def _matrix_power_cotangent(b: Any, out_bar: Any, n: int, xp: Any = np) -> Any:
    squares, picks = _power_chain(b, n)
    partial = [squares[picks[0]]]  # the running products of the picked squares
    for j in picks[1:-1]:
        partial.append(partial[-1] @ squares[j])
    bars: list[Any] = [None] * len(squares)
    r_bar = out_bar
    for k in range(len(picks) - 1, 0, -1):
        j = picks[k]
        term = adjoint(partial[k - 1], xp) @ r_bar
        bars[j] = term if bars[j] is None else bars[j] + term
        r_bar = r_bar @ adjoint(squares[j], xp)
    bars[picks[0]] = r_bar if bars[picks[0]] is None else bars[picks[0]] + r_bar
    for j in range(len(squares) - 1, 0, -1):
        if bars[j] is not None:
            s_h = adjoint(squares[j - 1], xp)
            term = bars[j] @ s_h + s_h @ bars[j]
            bars[j - 1] = term if bars[j - 1] is None else bars[j - 1] + term
    return bars[0]


def _exponent(args: tuple[Any, ...], kwargs: dict[str, Any]) -> int | None:
    if len(args) + len(kwargs) != 1 or not kwargs.keys() <= {"n"}:
        return None
    n = args[0] if args else kwargs["n"]
    try:
        return operator.index(n)
    except TypeError:
        return None  # numpy raises for it


def _matrix_power_in(xp: Any, a: Any, n: int) -> Any:
    """``matrix_power(a, n)`` of another library's arrays: its own, or (dask has none) the product of the squares
    numpy's multiplies."""
    power = getattr(xp.linalg, "matrix_power", None)
    if power is not None:
        return power(a, n)
    if n == 0:
        return xp.broadcast_to(xp.eye(a.shape[-1], dtype=a.dtype, device=device_of(a)), a.shape)
    with dask_refusals(np.linalg.matrix_power, a):
        b = a if n > 0 else xp.linalg.inv(a)
    squares, picks = _power_chain(b, abs(n))
    out = squares[picks[0]]
    for j in picks[1:]:
        out = out @ squares[j]
    return out


def _matrix_power_call(f: Any, a: Any, args: tuple[Any, ...], kwargs: dict[str, Any], n: int) -> tuple[Any, Any]:
    xp = namespace_of(a)
    return (f(a, *args, **kwargs) if xp is np else _matrix_power_in(xp, a, n)), xp


@rrule.register(np.linalg.matrix_power, generic=True)
def _rrule_matrix_power(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    n = _exponent(args, kwargs)
    if n is None:
        return None
    out, xp = _matrix_power_call(f, a, args, kwargs, n)
    project_a = ProjectTo(a)
    a_arr = inexact(as_array(a) if xp is np else a, xp)
    extra = (NoTangent(),) * len(args)
    shape = value_shape(out)

    def matrix_power_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, shape)
        if n == 0:
            return NoTangent(), project_a(ZeroTangent()), *extra
        if n > 0:
            return NoTangent(), project_a(_matrix_power_cotangent(a_arr, out_bar, n, xp)), *extra
        b = xp.linalg.inv(a_arr)
        b_h = adjoint(b, xp)
        return NoTangent(), project_a(-(b_h @ _matrix_power_cotangent(b, out_bar, -n, xp) @ b_h)), *extra

    return out, matrix_power_pullback


@frule.register(np.linalg.matrix_power, generic=True)
def _frule_matrix_power(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    n = _exponent(args, kwargs)
    if n is None:
        return None
    out, xp = _matrix_power_call(f, a, args, kwargs, n)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero) or ProjectTo(a).is_no_tangent or n == 0:
        return out, ProjectTo(out)(ZeroTangent())
    a_arr = inexact(as_array(a) if xp is np else a, xp)
    if n > 0:
        return out, ProjectTo(out)(_power_pushforward(a_arr, np.asarray(a_dot) if xp is np else a_dot, n))
    b = xp.linalg.inv(a_arr)
    return out, ProjectTo(out)(_power_pushforward(b, -(b @ a_dot @ b), -n))


# ----- multi_dot -----
# The product A_1 ... A_N (a 1-d first or last array a row or a column): A_k_bar = L_k^H G R_k^H with
# L_k = A_1 ... A_k-1 and R_k = A_k+1 ... A_N (Giles 2008, section 2.2). Each sweep costs products
# proportional to one end's size, so the rules sweep from the smaller end, through the transposed
# chain A_N^T ... A_1^T when that is the first.


def _chain_bars(arrays: list[np.ndarray], g: np.ndarray) -> list[np.ndarray]:
    """``L_k^H G R_k^H`` for each ``k``, in products of the last array's width."""
    suffixes: list[Any] = [None] * len(arrays)
    for k in range(len(arrays) - 2, -1, -1):
        nxt = arrays[k + 1]
        suffixes[k] = nxt if suffixes[k + 1] is None else nxt @ suffixes[k + 1]
    bars, left = [], g  # left = L_k^H G
    for k, a in enumerate(arrays):
        bars.append(left if suffixes[k] is None else left @ adjoint(suffixes[k]))
        left = adjoint(a) @ left
    return bars


def _chain_tangent(arrays: list[np.ndarray], dots: list[Any]) -> Any:
    """``sum_k L_k A_k_dot R_k``, left to right, in products of the first array's height."""
    value, tangent = None, None
    for a, a_dot in zip(arrays, dots):
        tangent = None if tangent is None else tangent @ a
        if not isinstance(a_dot, AbstractZero):
            term = a_dot if value is None else value @ a_dot
            tangent = term if tangent is None else tangent + term
        value = a if value is None else value @ a
    return tangent


def _as_chain(arrays: Any) -> list[np.ndarray] | None:
    """The arrays as matrices (a 1-d first array a row, a 1-d last one a column); None if numpy would refuse."""
    chain = [inexact(as_array(a)) for a in arrays]
    if len(chain) < 2:
        return None
    if chain[0].ndim == 1:
        chain[0] = chain[0][None, :]
    if chain[-1].ndim == 1:
        chain[-1] = chain[-1][:, None]
    return chain if all(a.ndim == 2 for a in chain) else None


def _transposed(chain: list[Any]) -> list[Any]:
    return [t if isinstance(t, AbstractZero) else t.T for t in reversed(chain)]


@rrule.register(np.linalg.multi_dot)
def _rrule_multi_dot(f: Any, arrays: Any, **kwargs: Any) -> Any:
    chain = None if kwargs else _as_chain(arrays)
    if chain is None:
        return None
    out = f(arrays)
    project = ProjectTo(arrays)
    shapes = [np.shape(a) for a in arrays]

    def multi_dot_pullback(out_bar: Any) -> tuple[Any, Any]:
        g = np.reshape(numeric_seed(f, out_bar, np.shape(out)), (chain[0].shape[0], chain[-1].shape[1]))
        if chain[0].shape[0] < chain[-1].shape[1]:
            bars = _transposed(_chain_bars(_transposed(chain), g.T))
        else:
            bars = _chain_bars(chain, g)
        return NoTangent(), project([np.reshape(bar, shape) for bar, shape in zip(bars, shapes)])

    return out, multi_dot_pullback


@frule.register(np.linalg.multi_dot)
def _frule_multi_dot(tangents: tuple[Any, ...], f: Any, arrays: Any, **kwargs: Any) -> Any:
    chain = None if kwargs else _as_chain(arrays)
    if chain is None:
        return None
    out = f(arrays)
    dots = checked_tangent(f, tangents[1], arrays, 1)
    if isinstance(dots, AbstractZero):
        return out, ProjectTo(out)(ZeroTangent())
    entries = [checked_tangent(f, d, x, 1) for d, x in zip(tuple_entries(dots, len(chain)), arrays)]
    dots = [d if isinstance(d, AbstractZero) else np.reshape(d, a.shape) for d, a in zip(entries, chain)]
    if chain[-1].shape[1] < chain[0].shape[0]:
        tangent = _chain_tangent(_transposed(chain), _transposed(dots)).T
    else:
        tangent = _chain_tangent(chain, dots)
    return out, ProjectTo(out)(np.reshape(tangent, np.shape(out)))


# ----- tensorinv, tensorsolve: inv and solve of the matrices numpy reshapes them to -----


def _tensorinv_ind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> int | None:
    """``ind`` of a ``tensorinv`` call; None for unknown keywords."""
    if len(args) + len(kwargs) > 1 or not kwargs.keys() <= {"ind"}:
        return None
    return operator.index(args[0] if args else kwargs.get("ind", 2))


def _tensorinv_matrix(a: Any, out: np.ndarray, ind: int) -> np.ndarray:
    """``inv(a.reshape(P, P))``, which ``out`` holds reshaped."""
    return out.reshape(math.prod(np.shape(a)[ind:]), -1)


@rrule.register(np.linalg.tensorinv)
def _rrule_tensorinv(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    ind = _tensorinv_ind(args, kwargs)
    if ind is None:
        return None
    out = f(a, *args, **kwargs)
    x = _tensorinv_matrix(a, out, ind)
    project_a = ProjectTo(a)
    extra = (NoTangent(),) * len(args)
    shape = value_shape(out)

    def tensorinv_pullback(out_bar: Any) -> tuple[Any, ...]:
        g = np.reshape(checked_seed(f, out_bar, shape), x.shape)
        return NoTangent(), project_a(np.reshape(-(adjoint(x) @ g @ adjoint(x)), np.shape(a))), *extra

    return out, tensorinv_pullback


@frule.register(np.linalg.tensorinv)
def _frule_tensorinv(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    ind = _tensorinv_ind(args, kwargs)
    if ind is None:
        return None
    out = f(a, *args, **kwargs)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero) or ProjectTo(a).is_no_tangent:
        return out, ZeroTangent()
    x = _tensorinv_matrix(a, out, ind)
    return out, ProjectTo(out)(np.reshape(-(x @ np.reshape(a_dot, x.shape) @ x), out.shape))


def _tensorsolve_axes(a: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[int] | None:
    """The transposition numpy applies to ``a`` (its ``axes`` moved to the end); None for unknown keywords."""
    if len(args) + len(kwargs) > 1 or not kwargs.keys() <= {"axes"}:
        return None
    axes = args[0] if args else kwargs.get("axes")
    order = list(range(np.ndim(a)))
    for k in axes or ():
        order.remove(k)
        order.insert(np.ndim(a), k)
    return order


@rrule.register(np.linalg.tensorsolve)
def _rrule_tensorsolve(f: Any, a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    order = _tensorsolve_axes(a, args, kwargs)
    if order is None:
        return None
    out = f(a, b, *args, **kwargs)
    project_a, project_b = ProjectTo(a), ProjectTo(b)
    moved = np.transpose(as_array(a), order)
    m = moved.reshape(out.size, out.size)
    extra = (NoTangent(),) * len(args)
    shape = value_shape(out)

    def tensorsolve_pullback(out_bar: Any) -> tuple[Any, ...]:
        b_bar = np.linalg.solve(adjoint(m), np.ravel(checked_seed(f, out_bar, shape)))
        m_bar = -np.outer(b_bar, np.ravel(out).conj())
        a_bar = np.transpose(m_bar.reshape(moved.shape), np.argsort(order))
        return NoTangent(), project_a(a_bar), project_b(b_bar.reshape(np.shape(b))), *extra

    return out, tensorsolve_pullback


@frule.register(np.linalg.tensorsolve)
def _frule_tensorsolve(tangents: tuple[Any, ...], f: Any, a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    order = _tensorsolve_axes(a, args, kwargs)
    if order is None:
        return None
    out = f(a, b, *args, **kwargs)
    a_dot, b_dot = checked_tangents(f, tangents[:3], (a, b))
    rhs = np.zeros(out.size, out.dtype)
    if not isinstance(b_dot, AbstractZero) and not ProjectTo(b).is_no_tangent:
        rhs = rhs + np.ravel(b_dot)
    if not isinstance(a_dot, AbstractZero) and not ProjectTo(a).is_no_tangent:
        rhs = rhs - np.transpose(a_dot, order).reshape(out.size, out.size) @ np.ravel(out)
    m = np.transpose(as_array(a), order).reshape(out.size, out.size)
    return out, ProjectTo(out)(np.linalg.solve(m, rhs).reshape(out.shape))


# ----- fast paths -----
# numpy's own double-precision matrices, where scipy is present: LAPACK's LU once, for the primal and the pullback.
# The primal is numpy's, bit for bit: read off the LU as numpy reads its own where scipy's LAPACK is numpy's
# (``lapack_is_numpys``), numpy's own call where it is not. solve and inv have none: numpy's solve (``gesv``) is
# not LAPACK's ``getrf`` and ``getrs`` run apart, not even in one library once it runs threads, and numpy's inv is
# its own solve with the identity, so with numpy's primal a kept LU saves the pullback nothing the rule pays.


def _rrule_det_lu(rule: Any, f: Any, a: Any) -> Any:
    """``det`` of a double-precision matrix with LAPACK's LU (``getrf``) kept for the pullback's adjugate
    ``det * inv`` (the inverse from the LU, ``getri``), where the rule factorizes again for ``inv``; the rule for
    other calls (a stack among them), at an exact zero pivot and where det is not finite. The adjugate takes
    ``adjugate``'s other way where it would: an ill-conditioned matrix, an inverse that is not finite."""
    factored = _lu_of_double(f, np.linalg.det, a)
    if factored is None:
        return rule(f, a)
    out = lu_det(factored) if lapack_is_numpys() else f(a)
    if not np.isfinite(out):
        return rule(f, a)

    def adjugate_from_lu() -> Any:
        inv = lu_inverted(factored)
        if inv is None or not _conditioned(a, inv):
            return adjugate(a, out)
        inv *= out
        return inv

    return _det_rrule(f, a, out, np, adjugate_from_lu)


def _rrule_slogdet_lu(rule: Any, f: Any, a: Any) -> Any:
    """``slogdet`` of a double-precision matrix with LAPACK's LU kept for the pullback's inverse (``getri``), as
    ``det``'s; the rule for other calls, at an exact zero pivot and where the matrix is not finite."""
    factored = _lu_of_double(f, np.linalg.slogdet, a)
    if factored is None:
        return rule(f, a)
    out = _slogdet_result(*lu_slogdet(factored)) if lapack_is_numpys() else f(a)
    if not np.isfinite(out[1]):
        return rule(f, a)

    def inverse_from_lu() -> Any:
        inv = lu_inverted(factored)
        return inverse(a) if inv is None else inv

    return _slogdet_rrule(f, a, out, np, a.dtype, inverse_from_lu)


def _lu_of_double(f: Any, primal: Any, a: Any) -> Any:
    """``lu_factored(a)`` of a call ``primal(a)`` on a double-precision matrix (numpy factorizes a single-precision
    one in double precision, and rounds the result); ``None`` otherwise."""
    if f is not primal or type(a) is not np.ndarray or a.dtype.char not in "dD":
        return None
    return lu_factored(a)


@functools.cache
def _slogdet_type() -> Any:
    """The type of numpy's ``slogdet`` result: ``SlogdetResult`` (numpy 2), a plain tuple before."""
    return type(np.linalg.slogdet(np.ones((1, 1))))


def _slogdet_result(sign: Any, logabsdet: Any) -> Any:
    kind = _slogdet_type()
    return (sign, logabsdet) if kind is tuple else kind(sign, logabsdet)


rrule.fast_path(np.linalg.det)(_rrule_det_lu)
rrule.fast_path(np.linalg.slogdet)(_rrule_slogdet_lu)
