"""Declared checks of the scipy.linalg factorizations (``chainrules.rules.scipy.linalg.factorizations``), with scipy."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.checks._matrices import random_matrix, well_conditioned
from chainrules.checks._register import register_shipped_cases
from chainrules.checks.numpy.linalg.factorizations import _full_rank
from chainrules.rules.numpy.linalg._common import adjoint
from chainrules.testing.edges import refuse_edges
from chainrules.testing.second_order import refuse_order2
from chainrules_core import Tangent
from chainrules_core.testing.cases import REALS, Arg, Case, Generated

try:
    from scipy import linalg
except ImportError:  # scipy is optional: without it there is nothing to check
    linalg = None

_DOUBLE = ("float64", "complex128")


def _spd(shape: tuple[int, ...], lower: bool) -> Generated:
    """Hermitian positive definite ``B B^H + n I`` in the triangle read; noise in the other one."""
    n = shape[-1]

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        b = random_matrix(rng, shape, dtype)
        spd = b @ adjoint(b) + n * np.eye(n)
        noise = random_matrix(rng, shape, dtype)
        return (np.tril(spd) + np.triu(noise, 1) if lower else np.triu(spd) + np.tril(noise, -1)).astype(dtype)

    return Generated(make, f"{'lower' if lower else 'upper'} positive definite{shape}".replace(" ", ""))


def _lu_factored(shape: tuple[int, ...]) -> Generated:
    """``lu_factor`` of a well-conditioned matrix: the pair ``(lu, piv)`` that ``lu_solve`` takes."""
    return Generated(lambda rng, dtype: linalg.lu_factor(well_conditioned(shape).make_value(rng, dtype)), f"lu{shape}")


def _cho_factored(shape: tuple[int, ...], lower: bool) -> Generated:
    """``cho_factor`` of a positive definite matrix: ``(c, lower)``, noise in the triangle not used."""
    spd = _spd(shape, lower)
    return Generated(lambda rng, dtype: linalg.cho_factor(spd.make(rng, dtype), lower), f"cho_factor{shape},{lower}")


def _pivot_stable(shape: tuple[int, ...]) -> Generated:
    """Full-rank matrices whose columns have norms 4 times apart: column pivoting picks them in a fixed order."""

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        a = _full_rank(shape).make(rng, dtype)
        scales = 4.0 ** rng.permutation(shape[-1])
        return (a / np.linalg.norm(a, axis=-2, keepdims=True) * scales).astype(dtype)

    return Generated(make, f"pivot-stable{shape}".replace(" ", ""))


def _seed_zero_past(k: int) -> Any:
    """A seed for ``qr(mode='full')`` that is zero on the columns of Q past ``k`` (they are any basis)."""

    def seed(out: Any) -> Any:
        q, r = out
        rng = np.random.default_rng(1)
        q_bar = random_matrix(rng, q.shape, q.dtype.name).astype(q.dtype)
        q_bar[..., k:] = 0
        return Tangent(tuple, q_bar, random_matrix(rng, r.shape, r.dtype.name).astype(r.dtype))

    return seed


if linalg is not None:
    wc, fr = well_conditioned, _full_rank
    register_shipped_cases(
        "scipy.linalg.factorizations",
        # lu: P gets NoTangent
        Case(linalg.lu, (wc((3, 3)),)),
        Case(linalg.lu, (fr((4, 3)),)),
        Case(linalg.lu, (fr((3, 4)),), dtypes=_DOUBLE),
        Case(linalg.lu, (wc((2, 3, 3)),), dtypes=_DOUBLE),
        Case(linalg.lu, (fr((4, 3)),), kwargs={"permute_l": True}, dtypes=_DOUBLE),
        Case(linalg.lu, (fr((3, 4)), True), dtypes=_DOUBLE, name="permute_l positional"),
        Case(linalg.lu, (wc((3, 3)),), kwargs={"p_indices": True}, dtypes=_DOUBLE),
        # lu_factor + lu_solve: the packed factors
        Case(linalg.lu_factor, (wc((3, 3)),)),
        Case(linalg.lu_factor, (fr((4, 3)),), dtypes=_DOUBLE),
        Case(linalg.lu_factor, (fr((3, 4)),), dtypes=_DOUBLE),
        Case(linalg.lu_factor, (wc((2, 3, 3)),), dtypes=_DOUBLE),
        Case(linalg.lu_solve, (_lu_factored((3, 3)), Arg(REALS, (3,)))),
        *[
            Case(linalg.lu_solve, (_lu_factored((3, 3)), Arg(REALS, (3, 2))), kwargs={"trans": t}, dtypes=_DOUBLE)
            for t in (0, 1, 2)
        ],
        Case(linalg.lu_solve, (_lu_factored((2, 3, 3)), Arg(REALS, (3,))), dtypes=_DOUBLE, name="one vector, a stack"),
        Case(linalg.lu_solve, (_lu_factored((3, 3)), Arg(REALS, (2, 3, 1))), dtypes=_DOUBLE, name="a stack of b"),
        # cho_factor + cho_solve: the triangle not written holds a's entries
        Case(linalg.cho_factor, (_spd((3, 3), False),)),
        Case(linalg.cho_factor, (_spd((3, 3), True), True), dtypes=_DOUBLE),
        Case(linalg.cho_factor, (_spd((2, 3, 3), True),), kwargs={"lower": True}, dtypes=_DOUBLE),
        Case(linalg.cho_solve, (_cho_factored((3, 3), False), Arg(REALS, (3, 2)))),
        Case(linalg.cho_solve, (_cho_factored((3, 3), True), Arg(REALS, (3,))), dtypes=_DOUBLE),
        Case(linalg.cho_solve, (_cho_factored((2, 3, 3), False), Arg(REALS, (2, 3, 1))), dtypes=_DOUBLE),
        # qr: numpy's formulas on the reduced factorization
        Case(linalg.qr, (fr((3, 3)),)),
        Case(linalg.qr, (fr((3, 4)),), dtypes=_DOUBLE, name="full, wide"),
        Case(linalg.qr, (fr((4, 3)),), kwargs={"mode": "economic"}),
        Case(linalg.qr, (fr((2, 3, 4)),), kwargs={"mode": "economic"}, dtypes=_DOUBLE),
        Case(linalg.qr, (fr((4, 3)),), kwargs={"mode": "r"}, dtypes=_DOUBLE),
        Case(linalg.qr, (fr((3, 4)),), kwargs={"mode": "r"}, dtypes=_DOUBLE),
        Case(
            linalg.qr,
            (fr((4, 3)),),
            modes=("rrule",),
            dtypes=_DOUBLE,
            options={"output_tangent": _seed_zero_past(3)},
            name="full, tall: a seed zero on the basis of the complement",
        ),
        Case(linalg.qr, (_pivot_stable((4, 3)),), kwargs={"mode": "economic", "pivoting": True}, dtypes=_DOUBLE),
        Case(linalg.qr, (_pivot_stable((3, 4)),), kwargs={"pivoting": True}, dtypes=_DOUBLE),
        Case(linalg.qr, (_pivot_stable((4, 3)),), kwargs={"mode": "r", "pivoting": True}, dtypes=_DOUBLE),
    )

    refuse_edges(
        "scipy.linalg.factorizations",
        linalg.qr,
        ("subnormal",),
        "at subnormal magnitudes the pullback's entries, of size |Q_bar| / |A|, exceed float64 (inf) and its products "
        "with R lose the digits subnormal numbers do not have; the pushforward holds there (solves with R scaled to 1)",
        modes=("rrule",),
    )
    refuse_edges(
        "scipy.linalg.factorizations",
        linalg.lu_solve,
        ("huge",),
        "packed factors scaled by 1e300 hold an L of unit diagonal with entries of 1e300 below it: its transposed "
        "solves overflow on the way (L^-H has entries of 1e600), so the pullback's inner products are inf",
        cases=lambda case: case.kwargs.get("trans") in (1, 2),
    )
    refuse_edges(
        "scipy.linalg.factorizations",
        linalg.lu_solve,
        ("size 1",),
        "the pivots of 3 x 3 factors cut to 1 x 1 point past the matrix: scipy reads outside its arrays and "
        "returns arbitrary values, the rules raise ValueError",
        where="every axis of length 3",
    )
    refuse_edges(
        "scipy.linalg.factorizations",
        linalg.qr,
        ("empty", "size 1"),
        "mode 'full' of a matrix with more rows than columns: Q's last columns are any basis of a complement, so "
        "the frule declines (None) and the pullback raises ValueError for a cotangent that is not zero on them",
    )
    refuse_order2(
        "scipy.linalg.factorizations",
        linalg.qr,
        "mode 'full' of a matrix with more rows than columns: forward over reverse pushes forward through the "
        "primal Q, whose last columns are any basis of a complement, so qr's frule declines (None) and the engine "
        "has no pushforward to follow (reverse over reverse passes)",
        where="full, tall",
        modes=("rrule",),
    )
