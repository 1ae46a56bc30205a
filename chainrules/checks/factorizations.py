"""Declared checks of the factorizations rules (``chainrules.rules.factorizations``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.checks._matrices import random_matrix
from chainrules.rules._arrays import tuple_entries
from chainrules.rules._linalg_common import adjoint, pad_to
from chainrules_core import rrule
from chainrules_core.testing.cases import Case, Generated, register_cases


def qr_complete_reduced_part(a: Any) -> tuple[np.ndarray, np.ndarray]:
    """The first ``n`` columns of Q and the first ``n`` rows of R from ``qr(a, mode='complete')``.

    For a tall ``a`` these are determined by ``a`` (they are the reduced QR);
    the rest of the complete Q is not.

    >>> q, r = qr_complete_reduced_part(np.array([[3.0], [4.0]]))
    >>> q.shape, r.shape
    ((2, 1), (1, 1))
    """
    q, r = np.linalg.qr(a, mode="complete")
    n = np.shape(a)[-1]
    return q[..., :n], r[..., :n, :]


@rrule.register(qr_complete_reduced_part)
def _qr_complete_reduced_part_rrule(f: Any, a: Any) -> Any:
    (q, r), pullback = rrule(np.linalg.qr, a, mode="complete")
    n = np.shape(a)[-1]

    def qr_complete_reduced_part_pullback(out_bar: Any) -> tuple[Any, Any]:
        q_bar, r_bar = tuple_entries(out_bar, ("Q", "R"))
        return pullback((pad_to(q_bar, q.shape), pad_to(r_bar, r.shape)))

    return (q[..., :n], r[..., :n, :]), qr_complete_reduced_part_pullback


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


register_cases(
    "factorizations",
    Case(np.linalg.cholesky, (_spd((3, 3)),)),
    Case(np.linalg.cholesky, (_spd((2, 4, 4)),)),
    Case(np.linalg.cholesky, (_spd_upper((3, 3)),), kwargs={"upper": True}),
    *[Case(np.linalg.qr, (_full_rank(shape),)) for shape in [(3, 3), (5, 3), (3, 5), (2, 4, 3), (2, 3, 4)]],
    Case(np.linalg.qr, (_full_rank((4, 3)),), kwargs={"mode": "r"}),
    Case(np.linalg.qr, (_full_rank((3, 5)), "r")),
    Case(np.linalg.qr, (_full_rank((3, 5)),), kwargs={"mode": "complete"}, name="complete equals reduced"),
    Case(np.linalg.qr, (_full_rank((3, 3)),), kwargs={"mode": "complete"}),
    Case(qr_complete_reduced_part, (_full_rank((5, 3)),), modes=("rrule",), name="complete, tall"),
)
