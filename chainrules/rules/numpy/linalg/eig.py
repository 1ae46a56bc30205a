"""Eigendecomposition of general square matrices: eig and eigvals.

``A V = V diag(w)``. numpy returns complex eigenvalues and eigenvectors
unless every eigenvalue of a real input is real, in which case both are
real; the tangents follow the outputs' dtypes, and a real input gets the
real part of its cotangent. Stacks of matrices are handled over the last
two axes.

With ``P = V^-1 A_dot V`` and ``F_ij = 1 / (w_j - w_i)`` off the diagonal
(Giles 2008, "An extended collection of matrix derivative results",
section 3.1; Boeddeker et al. 2017, "On the computation of complex-valued
gradients with application to statistically optimum beamforming"):
``w_dot = diag(P)`` and ``V_dot = V (F o P)`` up to the gauge term below.

Gauge. Each eigenvector is defined up to a nonzero complex factor; numpy
normalizes it to unit length, which leaves a phase (a sign for real
vectors). The rules use the gauge in which no eigenvector moves along
itself: ``diag(V^H V_dot) = 0``, i.e. each column's tangent is projected
off that column, which keeps the unit length and does not turn the phase.
The pullback is the adjoint of that pushforward,
``A_bar = V^-H (diag(w_bar) + conj(F) o (V^H G)) V^H`` with
``G = V_bar - V diag(V^H V_bar)`` (PyTorch's ``linalg_eig_backward`` and
JAX's ``eig_jvp_rule`` carry the same terms). A result that does not depend
on the phases (``abs(V)``, ``V diag(c) V^-1``, the eigenvalues) gets its
true derivative; the pullback of a cotangent that does not rotate phases
(``Im diag(V^H V_bar) = 0``, what every such result gives) is the same
whatever phases numpy picked.

Repeated eigenvalues. The vector terms divide by ``w_j - w_i``: where
eigenvalues coincide and the eigenvectors' cotangent is not zero there, the
result is ``inf``/``nan`` with numpy's warnings. A zero cotangent on the
vectors contributes nothing, so a seed on the eigenvalues alone stays
finite: ``V^-H diag(w_bar) V^H``, correct where the seed is equal on the
repeated group (their sum is smooth). A defective matrix (fewer independent
eigenvectors than its size) has a numerically singular ``V``: its
eigenvalues have no derivative, and the cotangent is of the order of
``1 / eps`` or non-finite unless the seed is equal on the group.

``eigvals`` returns numpy's own eigenvalues; its pullback computes the
eigenvectors when called.
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
from ._common import adjoint, diag_embed, diagonal, inverse, over_gaps, tuple_tangent


def _off_itself(v: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Each column of ``x`` minus its component along the same column of ``v``: ``x - V diag(V^H x)``."""
    return x - v * np.sum(v.conj() * x, axis=-2, keepdims=True)


def _eig_pushforward(w: np.ndarray, v: np.ndarray, a_dot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = inverse(v) @ a_dot @ v
    return diagonal(p), _off_itself(v, v @ over_gaps(p, w))


def _eig_cotangent(w: np.ndarray, v: np.ndarray, w_bar: Any, v_bar: Any) -> np.ndarray:
    """``A_bar = V^-H (diag(w_bar) + conj(F) o (V^H G)) V^H`` with ``G = V_bar - V diag(V^H V_bar)``."""
    m = np.zeros(v.shape, np.result_type(v, w))
    if not isinstance(w_bar, AbstractZero):
        m = m + diag_embed(np.asarray(w_bar))
    if not isinstance(v_bar, AbstractZero):
        m = m + over_gaps(adjoint(v) @ _off_itself(v, v_bar), w.conj())
    return adjoint(inverse(v)) @ m @ adjoint(v)


@rrule.register(np.linalg.eig)
def _rrule_eig(f: Any, a: Any) -> Any:
    out = f(a)
    w, v = out
    project_a = ProjectTo(a)
    shapes = (w.shape, v.shape)

    def eig_pullback(out_bar: Any) -> tuple[Any, Any]:
        w_bar, v_bar = checked_entries(f, out_bar, ("eigenvalues", "eigenvectors"), shapes)
        if isinstance(w_bar, AbstractZero) and isinstance(v_bar, AbstractZero):
            return NoTangent(), project_a(ZeroTangent())
        return NoTangent(), project_a(_eig_cotangent(w, v, w_bar, v_bar))

    return out, eig_pullback


@frule.register(np.linalg.eig)
def _frule_eig(tangents: tuple[Any, ...], f: Any, a: Any) -> Any:
    out = f(a)
    w, v = out
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero) or ProjectTo(a).is_no_tangent:
        return out, ZeroTangent()
    w_dot, v_dot = _eig_pushforward(w, v, np.asarray(a_dot))
    return out, tuple_tangent(out, ProjectTo(w)(w_dot), ProjectTo(v)(v_dot))


def _eigenvectors(a: Any, w: np.ndarray) -> np.ndarray:
    """The eigenvectors of ``a`` in the order of its eigenvalues ``w`` (``eigvals``' order).

    LAPACK finds the same eigenvalues in the same order with or without the
    vectors; should the order differ, each value is matched to the nearest.
    """
    w_vec, v = np.linalg.eig(a)
    if w_vec.shape == w.shape and np.allclose(w_vec, w, rtol=1e-10, atol=0.0):
        return v
    nearest = np.argmin(np.abs(w[..., :, None] - w_vec[..., None, :]), axis=-1)
    return np.take_along_axis(v, nearest[..., None, :], axis=-1)


@rrule.register(np.linalg.eigvals)
def _rrule_eigvals(f: Any, a: Any) -> Any:
    w = f(a)
    project_a = ProjectTo(a)
    shape = value_shape(w)

    def eigvals_pullback(w_bar: Any) -> tuple[Any, Any]:
        w_bar = checked_seed(f, w_bar, shape)
        if project_a.is_no_tangent:
            return NoTangent(), project_a(ZeroTangent())
        return NoTangent(), project_a(_eig_cotangent(w, _eigenvectors(a, w), w_bar, ZeroTangent()))

    return w, eigvals_pullback


@frule.register(np.linalg.eigvals)
def _frule_eigvals(tangents: tuple[Any, ...], f: Any, a: Any) -> Any:
    w = f(a)
    a_dot = checked_tangent(f, tangents[1], a, 1)
    if isinstance(a_dot, AbstractZero) or ProjectTo(a).is_no_tangent:
        return w, ZeroTangent()
    v = _eigenvectors(a, w)
    w_dot = np.einsum("...ik,...kl,...li->...i", inverse(v), a_dot, v)  # diag(V^-1 A_dot V)
    return w, ProjectTo(w)(w_dot)
