"""Rules for the matrix functions and matrix equations of ``scipy.linalg``.

``expm``, ``logm``, ``sqrtm``, ``expm_frechet``, ``solve_sylvester`` and
``solve_continuous_lyapunov``, on stacks of matrices as scipy takes them
(batches broadcast; a broadcast argument's cotangent is summed back).

The matrix functions are primary matrix functions with real Taylor
coefficients, so the adjoint of their Fréchet derivative ``L(A, .)`` is
``L(A^H, .)`` (Higham 2008, "Functions of Matrices", chapter 3): the
pullback of ``X = f(A)`` is ``A_bar = L(A^H, X_bar)``.

* ``expm`` and ``logm``: ``L(A, E)`` is the upper-right block of
  ``f([[A, E], [0, A]])`` (Mathias 1996; Higham 2008, section 3.2).
* ``sqrtm``: ``X dX + dX X = dA`` (Higham 2008, chapter 6), a Sylvester
  equation; the pullback solves ``X^H A_bar + A_bar X^H = X_bar``.
* ``expm_frechet(A, E)`` returns ``(expm(A), L(A, E))``. Its derivative holds
  the second-order Fréchet derivative ``L2(A, E, F)``, read off one
  exponential of a 4 x 4 block matrix (Higham and Relton 2014, "Higher order
  Fréchet derivatives of matrix functions and the level-2 condition number").

``logm`` and ``sqrtm`` are differentiable where ``A`` has no eigenvalue on the
closed negative real axis (their principal branches); at a singular ``A``
the Sylvester equation of ``sqrtm`` is singular and the derivative infinite.
The deprecated ``disp`` and ``blocksize`` options get no rule (``None``), nor
does ``sqrtm`` of an array of fewer than two axes: scipy 1.17 returns
``exp(a)`` for a 0-d ``a``.
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
    named_after,
    primal_of,
    rrule,
    unbroadcast,
    value_shape,
)

from ..._makers import checked_entries, checked_tangents
from ...numpy.linalg._common import adjoint, as_array, block_frechet, block_matrix, matmul_summed
from ._common import as_matrix, call_options

# ----- expm, logm, sqrtm: X = f(A), dX = L(A, dA), A_bar = L(A^H, X_bar) -----
# expm and logm: L(A, E) from the block-triangular identity (block_frechet).
# sqrtm: X dX + dX X = dA (Higham 2008, chapter 6), a Sylvester equation; the
# adjoint of Z -> X Z + Z X is W -> X^H W + W X^H, so X^H A_bar + A_bar X^H = X_bar.


def _block_derivative(f: Any, a: np.ndarray, out: np.ndarray, e: Any) -> np.ndarray:
    return block_frechet(f, a, e)


def _sqrtm_derivative(f: Any, a: np.ndarray, out: np.ndarray, e: Any) -> np.ndarray:
    if np.size(out) == 0:  # scipy's solve_sylvester refuses zero-size stacks
        return np.zeros(np.broadcast_shapes(np.shape(out), np.shape(e)), np.result_type(out, e))
    lost = ~np.isfinite(primal_of(out)).all(axis=(-2, -1), keepdims=True)
    if np.any(lost):  # an infinite entry: scipy's square root is NaN (or partly so), the derivative NaN throughout
        out = np.where(lost, np.eye(out.shape[-1]), out)
        return np.where(lost, np.nan, follow(linalg.solve_sylvester, out, out, np.where(lost, 0, e)))
    return follow(linalg.solve_sylvester, out, out, e)  # scipy converts its arguments: one call an engine follows


def _matrix_function_rules(f: Any, derivative: Any, matrices_only: bool = False) -> None:
    """Register the rules of ``X = f(A)`` given ``derivative(f, A, X, E) = L(A, E)``; the pullback is ``L(A^H, .)``.

    ``L(A^H, .)`` is the adjoint of ``L(A, .)`` for functions with real Taylor
    coefficients (``f(A^H) = f(A)^H``). Options (the deprecated ``disp`` and
    ``blocksize``) get no rule, nor, with ``matrices_only``, an ``A`` of fewer
    than two axes.
    """

    def _rrule_function(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs or (matrices_only and np.ndim(a) < 2):
            return None
        out = follow(f, a)
        project_a = ProjectTo(a)
        a_h, out_h = adjoint(as_matrix(as_array(a))), adjoint(out)
        shape = value_shape(out)

        def function_pullback(out_bar: Any) -> tuple[Any, Any]:
            out_bar = checked_seed(f, out_bar, shape)
            if project_a.is_no_tangent:
                return NoTangent(), NoTangent()
            return NoTangent(), project_a(np.reshape(derivative(f, a_h, out_h, out_bar), np.shape(a)))

        return out, function_pullback

    def _frule_function(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs or (matrices_only and np.ndim(a) < 2):
            return None
        out = follow(f, a)
        a_dot = checked_tangent(f, tangents[1], a, 1)
        if isinstance(a_dot, AbstractZero):
            return out, ZeroTangent()
        return out, ProjectTo(out)(derivative(f, as_matrix(as_array(a)), out, as_matrix(a_dot)))

    rrule.register(f)(named_after(f, _rrule_function))
    frule.register(f)(named_after(f, _frule_function))


_matrix_function_rules(linalg.expm, _block_derivative)
_matrix_function_rules(linalg.logm, _block_derivative)
_matrix_function_rules(linalg.sqrtm, _sqrtm_derivative, matrices_only=True)  # scipy 1.17: sqrtm(0-d a) is exp(a)


# ----- expm_frechet: the second-order Fréchet derivative -----
# With M = [[A, E, F, G], [0, A, 0, F], [0, 0, A, E], [0, 0, 0, A]], expm(M) holds
# L(A, F) in block (1, 3) and L(A, G) + L2(A, E, F) in block (1, 4): M is
# [[B, D], [0, B]] with B = [[A, E], [0, A]] and D = [[F, G], [0, F]], so those
# blocks are d/dt L(A + tF, E + tG). L2(A, E, .)^* = L2(A^H, E^H, .) (term by
# term in the power series), so the pullback is the same exponential at
# (A^H, E^H, L_bar, expm_bar): A_bar in block (1, 4), E_bar in block (1, 3).

_EXPM_FRECHET = ("method", "compute_expm", "check_finite")


def _second_order(a: np.ndarray, e: np.ndarray, f: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(L(A, F), L(A, G) + L2(A, E, F))`` from one exponential of a 4n x 4n matrix.

    ``(F, G)`` enter linearly, so they are scaled together to the 1-norm of
    ``A`` first (as ``block_frechet`` scales its direction).
    """
    shape = np.broadcast_shapes(*(np.shape(x) for x in (a, e, f, g)))
    n = shape[-1]
    dtype = np.result_type(a, e, f, g, 1.0)
    size = np.maximum(np.linalg.norm(primal_of(f), 1, axis=(-2, -1)), np.linalg.norm(primal_of(g), 1, axis=(-2, -1)))
    target = np.maximum(np.linalg.norm(primal_of(a), 1, axis=(-2, -1)), 1.0)  # a constant of the exact result
    scale = np.broadcast_to((target / np.where(size > 0, size, 1.0)).astype(dtype.char.lower()), shape[:-2])
    f, g = f * scale[..., None, None], g * scale[..., None, None]
    m = block_matrix([[a, e, f, g], [None, a, None, f], [None, None, a, e], [None, None, None, a]], shape, dtype)
    blocks = follow(linalg.expm, m)[..., :n, :]
    scale = scale[..., None, None]
    return blocks[..., 2 * n : 3 * n] / scale, blocks[..., 3 * n :] / scale


def _zeros_like(x: Any, t: Any) -> np.ndarray:
    """The tangent ``t`` as an array, zeros for a zero tangent."""
    return np.zeros(np.shape(x)) if isinstance(t, AbstractZero) else as_array(t)


@rrule.register(linalg.expm_frechet)
def _rrule_expm_frechet(f: Any, a: Any, e: Any, *args: Any, **kwargs: Any) -> Any:
    options = call_options(_EXPM_FRECHET, args, kwargs, {"compute_expm": True})
    if options is None:
        return None
    out = follow(f, a, e, *args, **kwargs)
    project_a, project_e = ProjectTo(a), ProjectTo(e)
    a_h, e_h = adjoint(as_array(a)), adjoint(as_array(e))
    extra = (NoTangent(),) * len(args)
    shapes = [value_shape(x) for x in out] if options["compute_expm"] else [value_shape(out)]

    def expm_frechet_pullback(out_bar: Any) -> tuple[Any, ...]:
        if options["compute_expm"]:
            expm_bar, frechet_bar = checked_entries(f, out_bar, 2, shapes)
        else:
            expm_bar, frechet_bar = ZeroTangent(), checked_seed(f, out_bar, shapes[0])
        e_bar, a_bar = _second_order(a_h, e_h, _zeros_like(a_h, frechet_bar), _zeros_like(a_h, expm_bar))
        return NoTangent(), project_a(unbroadcast(a, a_bar)), project_e(unbroadcast(e, e_bar)), *extra

    return out, expm_frechet_pullback


@frule.register(linalg.expm_frechet)
def _frule_expm_frechet(tangents: tuple[Any, ...], f: Any, a: Any, e: Any, *args: Any, **kwargs: Any) -> Any:
    options = call_options(_EXPM_FRECHET, args, kwargs, {"compute_expm": True})
    if options is None:
        return None
    out = follow(f, a, e, *args, **kwargs)
    a_dot, e_dot = checked_tangents(f, tangents[:3], (a, e))
    a_arr = as_array(a)
    expm_dot, frechet_dot = _second_order(a_arr, as_array(e), _zeros_like(a, a_dot), _zeros_like(e, e_dot))
    if not options["compute_expm"]:
        return out, ProjectTo(out)(frechet_dot)
    expm_a, frechet = out
    return out, Tangent(tuple, ProjectTo(expm_a)(expm_dot), ProjectTo(frechet)(frechet_dot))


# ----- solve_sylvester, solve_continuous_lyapunov -----
# A X + X B = Q: A dX + dX B = dQ - dA X - X dB, the same equation again. The
# adjoint of Z -> A Z + Z B is W -> A^H W + W B^H, so Q_bar solves
# A^H Q_bar + Q_bar B^H = X_bar, and A_bar = -Q_bar X^H, B_bar = -X^H Q_bar
# (ChainRules.jl's `sylvester` and `lyap` rules, autograd's solve_sylvester
# VJP). Lyapunov is the case B = A^H: A_bar = -(Q_bar X^H + Q_bar^H X).


def _terms(*terms: Any) -> Any:
    """The sum of the terms that are not ``None``; ``None`` if none is."""
    present = [t for t in terms if t is not None]
    return sum(present[1:], present[0]) if present else None


def _given(t: Any, x: Any) -> bool:
    return not isinstance(t, AbstractZero) and not ProjectTo(x).is_no_tangent


def _check_sylvester(a: Any, b: Any, q: Any) -> None:
    """``ValueError`` unless ``a`` (m x m) and ``b`` (n x n) are square and ``q`` is m x n.

    scipy 1.17 checks no shapes when an operand is empty and returns uninitialized memory.
    """
    (m, m2), (n, n2), q_shape = np.shape(a)[-2:], np.shape(b)[-2:], np.shape(q)[-2:]
    for name, shape in (("a", (m, m2)), ("b", (n, n2))):
        if shape[0] != shape[1]:
            raise ValueError(f"solve_sylvester: {name} of shape {shape} is not square")
    if q_shape != (m, n):
        raise ValueError(f"solve_sylvester: q of shape {q_shape} does not match a ({m} x {m}) and b ({n} x {n})")


@rrule.register(linalg.solve_sylvester)
def _rrule_solve_sylvester(f: Any, a: Any, b: Any, q: Any) -> Any:
    _check_sylvester(a, b, q)
    x = follow(f, a, b, q)
    project_a, project_b, project_q = ProjectTo(a), ProjectTo(b), ProjectTo(q)
    a_arr, b_arr = as_array(a), as_array(b)
    shape = value_shape(x)

    def solve_sylvester_pullback(x_bar: Any) -> tuple[Any, Any, Any, Any]:
        q_bar = follow(f, adjoint(a_arr), adjoint(b_arr), checked_seed(f, x_bar, shape))
        a_bar = matmul_summed(-q_bar, adjoint(x), a_arr.shape)
        b_bar = matmul_summed(-adjoint(x), q_bar, b_arr.shape)
        return NoTangent(), project_a(a_bar), project_b(b_bar), project_q(unbroadcast(q, q_bar))

    return x, solve_sylvester_pullback


@frule.register(linalg.solve_sylvester)
def _frule_solve_sylvester(tangents: tuple[Any, ...], f: Any, a: Any, b: Any, q: Any) -> Any:
    _check_sylvester(a, b, q)
    x = follow(f, a, b, q)
    a_dot, b_dot, q_dot = checked_tangents(f, tangents, (a, b, q))
    rhs = _terms(
        q_dot if _given(q_dot, q) else None,
        -(a_dot @ x) if _given(a_dot, a) else None,
        -(x @ b_dot) if _given(b_dot, b) else None,
    )
    if rhs is None:
        return x, ZeroTangent()
    return x, ProjectTo(x)(follow(f, a, b, rhs))


@rrule.register(linalg.solve_continuous_lyapunov)
def _rrule_solve_continuous_lyapunov(f: Any, a: Any, q: Any) -> Any:
    x = follow(f, a, q)
    project_a, project_q = ProjectTo(a), ProjectTo(q)
    a_arr = as_array(a)
    shape = value_shape(x)

    def solve_continuous_lyapunov_pullback(x_bar: Any) -> tuple[Any, Any, Any]:
        q_bar = follow(f, adjoint(a_arr), checked_seed(f, x_bar, shape))  # A^H Q_bar + Q_bar A = X_bar
        a_bar = matmul_summed(-q_bar, adjoint(x), a_arr.shape) + matmul_summed(-adjoint(q_bar), x, a_arr.shape)
        return NoTangent(), project_a(a_bar), project_q(unbroadcast(q, q_bar))

    return x, solve_continuous_lyapunov_pullback


@frule.register(linalg.solve_continuous_lyapunov)
def _frule_solve_continuous_lyapunov(tangents: tuple[Any, ...], f: Any, a: Any, q: Any) -> Any:
    x = follow(f, a, q)
    a_dot, q_dot = checked_tangents(f, tangents, (a, q))
    moved = -(a_dot @ x) - x @ adjoint(a_dot) if _given(a_dot, a) else None
    rhs = _terms(q_dot if _given(q_dot, q) else None, moved)
    if rhs is None:
        return x, ZeroTangent()
    return x, ProjectTo(x)(follow(f, a, rhs))
