"""Declared checks of the factorizations rules (``chainrules.rules.numpy.linalg.factorizations``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.checks._matrices import random_matrix
from chainrules.checks._register import register_shipped_cases
from chainrules.rules._arrays import tuple_entries
from chainrules.rules._makers import checked_entries
from chainrules.rules.numpy.linalg._common import adjoint, pad_to
from chainrules.testing.edges import refuse_edges
from chainrules_core import AbstractZero, NoTangent, ProjectTo, checked_tangent, frule, rrule
from chainrules_core.testing.cases import Case, Generated


def qr_complete_parts(a: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``Q1``, ``R1`` and ``Q2 Q2^H`` from ``qr(a, mode='complete') = [Q1 | Q2] [R1; 0]``.

    For a tall ``a``, ``Q1`` and ``R1`` are its reduced QR and ``Q2`` any
    orthonormal basis of the complement of its range: the projector
    ``Q2 Q2^H`` does not depend on which.

    >>> q1, r1, p2 = qr_complete_parts(np.array([[3.0], [4.0]]))
    >>> q1.shape, r1.shape, np.round(p2 * 25, 12) + 0.0
    ((2, 1), (1, 1), array([[ 16., -12.],
           [-12.,   9.]]))
    """
    q, r = np.linalg.qr(a, mode="complete")
    n = np.shape(a)[-1]
    q2 = q[..., n:]
    return q[..., :n], r[..., :n, :], q2 @ adjoint(q2)


@rrule.register(qr_complete_parts)
def _qr_complete_parts_rrule(f: Any, a: Any) -> Any:
    (q, r), pullback = rrule(np.linalg.qr, a, mode="complete")
    n = np.shape(a)[-1]
    q1, q2 = q[..., :n], q[..., n:]
    out = (q1, r[..., :n, :], q2 @ adjoint(q2))
    shapes = [x.shape for x in out]

    def qr_complete_parts_pullback(out_bar: Any) -> tuple[Any, Any]:
        q1_bar, r1_bar, p2_bar = checked_entries(f, out_bar, ("Q1", "R1", "Q2 Q2^H"), shapes)
        if isinstance(p2_bar, AbstractZero):
            q_bar = pad_to(q1_bar, q.shape)
        else:  # joined, not written into an array: an engine may follow the cotangents (nested differentiation)
            q2_bar = (p2_bar + adjoint(p2_bar)) @ q2
            q1_bar = np.zeros(np.shape(q1), q2_bar.dtype) if isinstance(q1_bar, AbstractZero) else q1_bar
            q_bar = np.concatenate([q1_bar, q2_bar], axis=-1)
        return pullback((q_bar, pad_to(r1_bar, r.shape)))

    return out, qr_complete_parts_pullback


@frule.register(qr_complete_parts)
def _qr_complete_parts_frule(tangents: tuple[Any, ...], f: Any, a: Any) -> Any:
    (q, r), out_dot = frule((NoTangent(), checked_tangent(f, tangents[1], a, 1)), np.linalg.qr, a, mode="complete")
    n = np.shape(a)[-1]
    q_dot, r_dot = tuple_entries(out_dot, ("Q", "R"))
    q2, q2_dot = q[..., n:], q_dot[..., n:]
    out = (q[..., :n], r[..., :n, :], q2 @ adjoint(q2))
    parts_dot = (q_dot[..., :n], r_dot[..., :n, :], q2_dot @ adjoint(q2) + q2 @ adjoint(q2_dot))
    return out, tuple(ProjectTo(o)(d) for o, d in zip(out, parts_dot))


def _spd(shape: tuple[int, ...]) -> Generated:
    """Hermitian positive definite matrices ``B B^H + n I``; the triangle not read holds noise."""
    n = shape[-1]

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        b = random_matrix(rng, shape, dtype)
        spd = b @ adjoint(b) + n * np.eye(n)
        noise = np.triu(random_matrix(rng, shape, dtype), 1)  # must not matter: only the lower triangle is read
        return (spd + noise).astype(dtype)

    return Generated(make, f"hermitian positive definite{shape}".replace(" ", ""))


def _spd_upper(shape: tuple[int, ...]) -> Generated:
    lower = _spd(shape)
    return Generated(lambda rng, dtype: adjoint(lower.make(rng, dtype)), f"{lower.label}, upper")


def _full_rank(shape: tuple[int, ...]) -> Generated:
    """Full-rank matrices with well-separated singular values: Q diag(1..k) W^H scaled, plus noise.

    A wide matrix ``[X | Y]`` gets a well-conditioned leading block ``X`` as well:
    the derivative of its QR goes through ``X``'s triangular factor, so an
    ill-conditioned ``X`` would turn float32 round-off into errors of 1e-4.
    """

    def separated(rng: np.random.Generator, dtype: str, m: int, n: int) -> np.ndarray:
        k = min(m, n)
        u, _ = np.linalg.qr(random_matrix(rng, (*shape[:-2], m, k), dtype))
        w, _ = np.linalg.qr(random_matrix(rng, (*shape[:-2], n, k), dtype))
        s = np.linspace(1.0, 2.0 * k, k)
        return (u * s) @ adjoint(w) + 0.05 * random_matrix(rng, (*shape[:-2], m, n), dtype)

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        m, n = shape[-2:]
        if n <= m:
            return separated(rng, dtype, m, n).astype(dtype)
        rest = random_matrix(rng, (*shape[:-2], m, n - m), dtype)
        return np.concatenate([separated(rng, dtype, m, m), rest], axis=-1).astype(dtype)

    return Generated(make, f"full rank{shape}".replace(" ", ""))


_REAL = ("float64", "float32")

register_shipped_cases(
    "numpy.linalg.factorizations",
    Case(np.linalg.cholesky, (_spd((3, 3)),)),
    Case(np.linalg.cholesky, (_spd((2, 4, 4)),)),
    Case(np.linalg.cholesky, (_spd_upper((3, 3)),), kwargs={"upper": True}),
    *[Case(np.linalg.qr, (_full_rank(shape),)) for shape in [(3, 3), (5, 3), (3, 5), (2, 4, 3), (2, 3, 4)]],
    Case(np.linalg.qr, (_full_rank((4, 3)),), kwargs={"mode": "r"}),
    Case(np.linalg.qr, (_full_rank((3, 5)), "r")),
    Case(np.linalg.qr, (_full_rank((3, 5)),), kwargs={"mode": "complete"}, name="complete equals reduced"),
    Case(np.linalg.qr, (_full_rank((3, 3)),), kwargs={"mode": "complete"}),
    Case(np.linalg.qr, (_full_rank((4, 3)),), kwargs={"mode": "complete"}, dtypes=_REAL, name="one extra column"),
    *[Case(qr_complete_parts, (_full_rank(shape),), name="complete, tall") for shape in [(5, 3), (2, 4, 2), (4, 1)]],
)

for _f in (np.linalg.qr, np.linalg.cholesky, qr_complete_parts):
    refuse_edges(
        "numpy.linalg.factorizations",
        _f,
        ("inf",),
        "not handled: with an infinite entry the rules' solves with the factors give NaN, though some outputs tend to "
        "limits",
    )
refuse_edges(
    "numpy.linalg.factorizations",
    np.linalg.qr,
    ("subnormal",),
    "at subnormal magnitudes the pullback's entries, of size |Q_bar| / |A|, exceed float64 (inf) and its products with "
    "R lose the digits subnormal numbers do not have; the pushforward holds there (solves with R scaled to 1)",
    modes=("rrule",),
)
refuse_edges(
    "numpy.linalg.factorizations",
    np.linalg.qr,
    ("size 1",),
    "not unique: a single column leaves m - 1 extra columns of Q in mode 'complete', which numpy's Householder "
    "vectors turn within themselves; the rules' gauge (Q2^H Q2_dot = 0) is checked through qr_complete_parts",
    where="mode='complete'",
)
