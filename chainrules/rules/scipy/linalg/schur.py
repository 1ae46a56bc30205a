"""Rules for scipy.linalg's ``schur``: ``A = Z T Z^H`` with ``Z`` unitary and ``T`` upper triangular.

The derivative (Konstantinov, Petkov and Christov, "Nonlocal perturbation
analysis of the Schur system of a matrix", SIAM J. Matrix Anal. Appl. 15
(1994); Sun, "Perturbation bounds for the Schur decomposition", 1995).
With ``C = Z^H dA Z`` and ``Omega = Z^H dZ`` skew-Hermitian, differentiating
``T = Z^H A Z`` gives ``dT = C - (Omega T - T Omega)``. ``dT`` is upper
triangular, so the strictly lower part ``X`` of ``Omega`` solves the
triangular Sylvester equation ``low(X T - T X) = low(C)`` (``low``: the
strictly lower part), in which only ``X`` appears; column ``j`` of ``X`` is
one triangular solve, ``(T[j, j] I - T[j+1:, j+1:]) X[j+1:, j] = C[j+1:, j] -
X[j+1:, :j] T[:j, j]``, the columns in order (Bartels and Stewart's
substitution, CACM 15 (1972)). Then ``Omega = X - X^H``, ``dZ = Z Omega`` and
``dT = triu(C - Omega T + T Omega)``.

The gauge. For distinct eigenvalues the complex Schur form is unique up to
``Z -> Z D``, ``T -> D^H T D`` with ``D`` diagonal unitary (the eigenvalues'
order is LAPACK's and locally constant): the rules keep each column's phase
(``diag(Omega) = 0``), as the eig rules keep each eigenvector's, and a
cotangent that only rotates phases is ignored. Functions of the
decomposition that no phase affects (``diag(T)``, ``|T|``, ``Z diag(c) Z^H``)
have the derivative of ``A``'s; ``T`` and ``Z`` themselves carry the gauge.
For real input with real eigenvalues and ``output='real'``, ``Z`` is real and
its gauge a sign, locally constant.

The pullback is the adjoint of that map under ``Re tr(a^H b)``: with
``Tb = triu(T_bar)`` and ``G = Z^H Z_bar - Tb T^H + T^H Tb``, ``H =
low(G - G^H)``, ``Y`` solves the adjoint equation ``low(Y T^H - T^H Y) = H``
(column ``j``: ``(conj(T[j, j]) I - T[j+1:, j+1:]^H) Y[j+1:, j] = H[j+1:, j] -
Y[j+1:, j+1:] conj(T[j, j+1:])``, the columns from the last), and ``A_bar =
Z (Tb + Y) Z^H``. Repeated eigenvalues divide by zero (``inf``/``nan``, as
numpy's eig rules).

Refused or not implemented:

* ``output='real'`` where ``T`` has 2 x 2 blocks (complex eigenvalues of a
  real matrix): LAPACK standardizes each block (equal diagonal entries,
  off-diagonal entries of opposite signs), a constraint that the triangular
  equation above does not hold; the derivative is ``NotImplementedTangent``
  naming it. ``output='complex'`` differentiates such a matrix.
* ``sort=``: the ordered form's order and ``sdim`` jump where an eigenvalue
  crosses the selection's boundary, and its derivative is another Sylvester
  equation: no rule (``None``).
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
    not_implemented,
    primal_of,
    rrule,
    value_shape,
)

from ..._makers import checked_entries
from ...numpy.linalg._common import adjoint, as_array, solve_lower
from ._common import call_options

_OPTIONS = ("output", "lwork", "overwrite_a", "sort", "check_finite")


def _call(a: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]] | None:
    """The options of a call that gets rules, with ``overwrite_a=False``; ``None`` for one that gets none."""
    options = call_options(_OPTIONS, args, kwargs, {"output": "real", "sort": None})
    if options is None or options["sort"] is not None or np.ndim(primal_of(a)) != 2:
        return None
    return {**options, "overwrite_a": False}


def _has_blocks(t: Any) -> bool:
    """Whether a real Schur form has 2 x 2 blocks: a nonzero subdiagonal entry (a nan one, of a matrix with
    infinite or nan entries, is not counted: its derivative is nan, as numpy's rules give there)."""
    t = np.asarray(primal_of(t))
    subdiagonal = np.diagonal(t, -1)
    return not np.iscomplexobj(t) and bool(np.any(np.isfinite(subdiagonal) & (subdiagonal != 0)))


def _blocks() -> Any:
    return not_implemented(
        "scipy.linalg.schur: output='real' with 2 x 2 blocks (complex eigenvalues); output='complex' has rules"
    )


def _strictly_lower(x: Any) -> Any:
    return np.tril(x, -1)


def _column(values: Any, j: int, n: int) -> Any:
    """A column of length ``n``: zeros above and on row ``j``, ``values`` below."""
    return np.concatenate([np.zeros(j + 1, dtype=values.dtype), values])


def _lower_sylvester(t: Any, c: Any) -> Any:
    """The strictly lower ``X`` with ``low(X T - T X) = low(C)``, column by column from the first."""
    n = t.shape[-1]
    dtype = np.result_type(t, c)
    columns: list[Any] = []
    for j in range(n - 1):
        rhs = c[j + 1 :, j]
        if j:
            rhs = rhs - np.stack([col[j + 1 :] for col in columns], axis=1) @ t[:j, j]
        shifted = t[j, j] * np.eye(n - j - 1, dtype=dtype) - t[j + 1 :, j + 1 :]  # upper triangular
        columns.append(_column(solve_lower(adjoint(shifted), rhs, conjugate_transpose=True), j, n))
    columns.append(np.zeros(n, dtype=dtype))
    return np.stack(columns, axis=1)


def _adjoint_sylvester(t: Any, h: Any) -> Any:
    """The strictly lower ``Y`` with ``low(Y T^H - T^H Y) = low(H)``, column by column from the last."""
    n = t.shape[-1]
    dtype = np.result_type(t, h)
    columns: list[Any] = [np.zeros(n, dtype=dtype)]  # the last column, then the others prepended
    for j in range(n - 2, -1, -1):
        rhs = h[j + 1 :, j]
        if j < n - 2:
            later = np.stack([col[j + 1 :] for col in columns], axis=1)  # Y[j+1:, j+1:]
            rhs = rhs - later @ np.conj(t[j, j + 1 :])
        shifted = np.conj(t[j, j]) * np.eye(n - j - 1, dtype=dtype) - adjoint(t[j + 1 :, j + 1 :])  # lower
        columns.insert(0, _column(solve_lower(shifted, rhs), j, n))
    return np.stack(columns, axis=1)


def _pushforward(t: Any, z: Any, a_dot: Any) -> tuple[Any, Any]:
    """``(dT, dZ)`` for the tangent ``a_dot``."""
    c = adjoint(z) @ a_dot @ z
    x = _lower_sylvester(t, c)
    omega = x - adjoint(x)
    return np.triu(c - omega @ t + t @ omega), z @ omega


def _cotangent(t: Any, z: Any, t_bar: Any, z_bar: Any) -> Any:
    """``A_bar`` for the cotangents of ``T`` and ``Z`` (either may be a zero)."""
    t_bar = ZeroTangent() if isinstance(t_bar, AbstractZero) else np.triu(t_bar)
    g: Any = ZeroTangent() if isinstance(z_bar, AbstractZero) else adjoint(z) @ z_bar
    if not isinstance(t_bar, AbstractZero):
        g = g - t_bar @ adjoint(t) + adjoint(t) @ t_bar
    inner = t_bar
    if not isinstance(g, AbstractZero):
        y = _adjoint_sylvester(t, _strictly_lower(g - adjoint(g)))
        inner = y if isinstance(inner, AbstractZero) else inner + y
    return z @ inner @ adjoint(z)


@rrule.register(linalg.schur)
def _rrule_schur(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
    options = _call(a, args, kwargs)
    if options is None:
        return None
    out = follow(f, a, **options)
    t, z = out
    blocks = _has_blocks(t)
    project, shapes = ProjectTo(a), [value_shape(x) for x in out]

    def schur_pullback(out_bar: Any) -> tuple[Any, ...]:
        t_bar, z_bar = checked_entries(f, out_bar, 2, shapes)
        if project.is_no_tangent:
            return NoTangent(), NoTangent()
        if blocks:
            return NoTangent(), _blocks()
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
    if _has_blocks(t):
        return out, _blocks()
    t_dot, z_dot = _pushforward(t, z, as_array(a_dot))
    return out, Tangent(tuple, ProjectTo(t)(t_dot), ProjectTo(z)(z_dot))
