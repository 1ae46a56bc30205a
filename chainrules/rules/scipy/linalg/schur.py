"""Rules for scipy.linalg's ``schur``: ``A = Z T Z^H`` with ``Z`` unitary and ``T`` upper (quasi-)triangular.

The derivative (Konstantinov, Petkov and Christov, "Nonlocal perturbation
analysis of the Schur system of a matrix", SIAM J. Matrix Anal. Appl. 15
(1994)). With ``C = Z^H dA Z`` and ``Omega = Z^H dZ`` skew-Hermitian,
differentiating ``T = Z^H A Z`` gives ``dT = C - (Omega T - T Omega)``. ``dT``
is zero below ``T``'s diagonal blocks (1 x 1, and the 2 x 2 blocks of a real
form), so the part ``X`` of ``Omega`` below the blocks solves the block
triangular Sylvester equation ``low(X T - T X) = low(C)`` (``low``: the part
below the blocks), in which only ``X`` appears. Block column ``j`` of ``X`` is
one small Sylvester equation, ``X_j T_jj - T[e:, e:] X_j = C[e:, j] - X[e:, :s]
T[:s, j]``, the block columns in order (Bartels and Stewart's substitution,
CACM 15 (1972)); with 1 x 1 blocks only, one triangular solve.

* The complex form (and a real form with real eigenvalues): ``Omega = X -
  X^H``, ``dZ = Z Omega``, ``dT = C - Omega T + T Omega`` on and above the
  diagonal. The gauge: for distinct eigenvalues the complex form is unique up
  to ``Z -> Z D``, ``T -> D^H T D`` with ``D`` diagonal unitary (the
  eigenvalues' order is LAPACK's and locally constant); the rules keep each
  column's phase (``diag(Omega) = 0``), as the eig rules keep each
  eigenvector's, and ignore a cotangent's part that only turns phases.
  Functions of the decomposition that no phase affects (``diag(T)``, ``|T|``,
  ``Z diag(c) Z^H``) have the derivative of ``A``'s; ``T`` and ``Z``
  themselves carry the gauge. A real form's gauge is a sign per column,
  locally constant.
* A real form's 2 x 2 block ``[[a, b], [c, a]]`` (eigenvalues ``a ± i
  sqrt(-bc)``) is standardized by LAPACK (xLANV2): equal diagonal entries.
  The rotation ``omega`` inside the block, ``Omega[s+1, s] = -Omega[s, s+1]``,
  keeps them equal: ``omega = -(D0[s, s] - D0[s+1, s+1]) / (2 (b + c))`` with
  ``D0 = C - (Omega0 T - T Omega0)`` the change the rest of ``Omega`` leaves
  (the rotation ``omega J`` changes the block's diagonal by ``∓omega (b +
  c)``). ``b + c = 0`` (a block that is a scaled rotation, ``b = -c``) leaves
  the standardization free: the derivative is infinite there.

The pullback is the adjoint of that map under ``Re tr(a^H b)``
(``_cotangent``). Repeated eigenvalues divide by zero (``inf``/``nan``, as
numpy's eig rules).

Refused:

* ``sort=``: the ordered form's order and ``sdim`` jump where an eigenvalue
  crosses the selection's boundary: no rule (``None``).
* ``overwrite_a=True``: the rules never take that leave; ``lwork`` and
  ``check_finite`` pass through.
* One matrix at a time: a stack (``a.ndim > 2``) gets no rule (``None``).
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
    checked_tangent,
    follow,
    frule,
    primal_of,
    rrule,
    value_shape,
)

from ..._makers import checked_entries
from ...numpy.linalg._common import adjoint, as_array, solve_lower
from ._common import call_options

_OPTIONS = ("output", "lwork", "overwrite_a", "sort", "check_finite")


def _call(a: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    """The options of a call that gets rules, with ``overwrite_a=False``; ``None`` for one that gets none."""
    options = call_options(_OPTIONS, args, kwargs, {"output": "real", "sort": None})
    if options is None or options["sort"] is not None or np.ndim(primal_of(a)) != 2:
        return None
    return {**options, "overwrite_a": False}


class _Form:
    """A Schur form's diagonal blocks ``(start, stop)``: 2 x 2 where a real form's subdiagonal entry is nonzero,
    1 x 1 elsewhere; the mask of the entries below them; the starts of the 2 x 2 blocks.

    A nan subdiagonal entry, of a matrix with infinite or nan entries, is not a block: the derivative there is
    nan, as numpy's rules give.
    """

    def __init__(self, t: Any) -> None:
        t = np.asarray(primal_of(t))
        self.n = n = t.shape[-1]
        sub = np.diagonal(t, -1)
        paired = [False] * max(n - 1, 0) if np.iscomplexobj(t) else list(np.isfinite(sub) & (sub != 0))
        self.blocks: list[tuple[int, int]] = []
        k = 0
        while k < n:
            width = 2 if k < n - 1 and paired[k] else 1
            self.blocks.append((k, k + width))
            k += width
        row_block = np.repeat(np.arange(len(self.blocks)), [e - s for s, e in self.blocks])
        self.below = row_block[:, None] > row_block[None, :]
        self.pairs = [s for s, e in self.blocks if e - s == 2]

    def unit(self, i: int, j: int) -> np.ndarray:
        """The matrix with a 1 at ``(i, j)``."""
        return np.eye(self.n)[:, [i]] @ np.eye(self.n)[[j], :]


def _panel(form: _Form, t: Any, block: tuple[int, int], rhs: Any, transposed: bool) -> Any:
    """Block column ``X[e:, s:e]`` with ``X T_jj - T_22 X = rhs`` (``T_22 = T[e:, e:]``), or, ``transposed``, of
    the adjoint equation ``Y T_jj^H - T_22^H Y = rhs``: a triangular solve when every block is 1 x 1, else a
    small Sylvester equation."""
    s, e = block
    t22, tjj = t[e:, e:], t[s:e, s:e]
    if transposed:
        t22, tjj = adjoint(t22), adjoint(tjj)
    if not form.pairs:
        shifted = tjj[0, 0] * np.eye(form.n - e, dtype=np.result_type(t22, tjj)) - t22
        if transposed:  # lower triangular
            return solve_lower(shifted, rhs)
        return solve_lower(adjoint(shifted), rhs, conjugate_transpose=True)  # upper triangular
    return follow(linalg.solve_sylvester, -t22, tjj, rhs)


def _sylvester(form: _Form, t: Any, c: Any, transposed: bool) -> Any:
    """``X``, zero on and above the blocks, with ``low(X T - T X) = low(C)``, block columns from the first; or,
    ``transposed``, with ``low(X T^H - T^H X) = low(C)``, block columns from the last."""
    dtype = np.result_type(t, c, 1.0)
    if not form.n:
        return np.zeros((0, 0), dtype=dtype)
    done: list[Any] = []  # full-height block columns, in the order solved
    for block in reversed(form.blocks) if transposed else form.blocks:
        s, e = block
        if e == form.n:
            panel = np.zeros((0, e - s), dtype=dtype)
        else:
            rhs = c[e:, s:e]
            if done and not transposed:  # X[e:, :s] T[:s, j]
                rhs = rhs - np.concatenate(done, axis=1)[e:] @ t[:s, s:e]
            elif done:  # X[e:, e:] T[j, e:]^H
                rhs = rhs - np.concatenate(done[::-1], axis=1)[e:] @ adjoint(t[s:e, e:])
            panel = _panel(form, t, block, rhs, transposed)
        done.append(np.concatenate([np.zeros((e, e - s), dtype=dtype), panel], axis=0))
    return np.concatenate(done[::-1] if transposed else done, axis=1)


def _rotations(form: _Form, t: Any, d0: Any) -> Any:
    """The part of ``Omega`` inside the 2 x 2 blocks, which keeps each block's diagonal entries equal."""
    terms = [
        -(d0[s, s] - d0[s + 1, s + 1]) / (2 * (t[s, s + 1] + t[s + 1, s])) * (form.unit(s + 1, s) - form.unit(s, s + 1))
        for s in form.pairs
    ]
    return sum(terms[1:], terms[0])


def _pushforward(t: Any, z: Any, a_dot: Any) -> tuple[Any, Any]:
    """``(dT, dZ)`` for the tangent ``a_dot``."""
    form = _Form(t)
    c = adjoint(z) @ a_dot @ z
    x = _sylvester(form, t, c, transposed=False)
    omega = x - adjoint(x)
    if form.pairs:
        omega = omega + _rotations(form, t, c - omega @ t + t @ omega)
    return np.where(form.below, 0, c - omega @ t + t @ omega), z @ omega


def _cotangent(t: Any, z: Any, t_bar: Any, z_bar: Any) -> Any:
    """``A_bar`` for the cotangents of ``T`` and ``Z`` (either may be a zero): the adjoint of ``_pushforward``.

    With ``Tb`` the part of ``T_bar`` on and above the blocks, ``<T_bar, dT> + <Z_bar, dZ> = <Tb, C> + <G,
    Omega>`` for ``G = Z^H Z_bar - Tb T^H + T^H Tb``. A 2 x 2 block's rotation ``omega = <W, D0>`` (``W =
    -(E_ss - E_s+1,s+1) / (2 (b + c))``) passes ``g = G[s+1, s] - G[s, s+1]`` on to ``V = g W``, and ``D0``'s
    dependence on ``X`` adds ``-(K - K^H)``, ``K = V T^H - T^H V``, to ``G - G^H``; ``Y`` solves the adjoint
    equation ``low(Y T^H - T^H Y) = low(G - G^H - (K - K^H))``, and ``A_bar = Z (Tb + V + Y) Z^H``.
    """
    form = _Form(t)
    inner: Any = ZeroTangent() if isinstance(t_bar, AbstractZero) else np.where(form.below, 0, t_bar)
    g: Any = ZeroTangent() if isinstance(z_bar, AbstractZero) else adjoint(z) @ z_bar
    if not isinstance(inner, AbstractZero):
        g = g - inner @ adjoint(t) + adjoint(t) @ inner
    if isinstance(g, AbstractZero):
        return z @ inner @ adjoint(z)
    h = g - adjoint(g)
    if form.pairs:
        weights = [
            (g[s + 1, s] - g[s, s + 1])
            / (-2 * (t[s, s + 1] + t[s + 1, s]))
            * (form.unit(s, s) - form.unit(s + 1, s + 1))
            for s in form.pairs
        ]
        v = sum(weights[1:], weights[0])
        k = v @ adjoint(t) - adjoint(t) @ v
        h = h - (k - adjoint(k))
        inner = v if isinstance(inner, AbstractZero) else inner + v
    y = _sylvester(form, t, np.where(form.below, h, 0), transposed=True)
    inner = y if isinstance(inner, AbstractZero) else inner + y
    return z @ inner @ adjoint(z)


@rrule.register(linalg.schur)
def _rrule_schur(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    options = _call(a, args, kwargs)
    if options is None:
        return None
    out = follow(f, a, **options)
    t, z = out
    project, shapes = ProjectTo(a), [value_shape(x) for x in out]

    def schur_pullback(out_bar: Any) -> tuple[Any, ...]:
        t_bar, z_bar = checked_entries(f, out_bar, 2, shapes)
        if project.is_no_tangent:
            return NoTangent(), NoTangent()
        if isinstance(t_bar, AbstractZero) and isinstance(z_bar, AbstractZero):
            return NoTangent(), project(ZeroTangent())
        return NoTangent(), project(_cotangent(t, z, t_bar, z_bar))

    return out, schur_pullback


@frule.register(linalg.schur)
def _frule_schur(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    options = _call(a, args, kwargs)
    if options is None:
        return None
    out = follow(f, a, **options)
    t, z = out
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero) or ProjectTo(a).is_no_tangent:
        return out, ZeroTangent()
    t_dot, z_dot = _pushforward(t, z, as_array(a_dot))
    return out, Tangent(tuple, ProjectTo(t)(t_dot), ProjectTo(z)(z_dot))
