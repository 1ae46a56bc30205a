"""Declared checks of scipy.linalg's solvers (``chainrules.rules.scipy.linalg.solvers``), when scipy is installed."""

from __future__ import annotations

import numpy as np

from chainrules.checks._matrices import random_matrix, well_conditioned
from chainrules.checks._register import register_shipped_cases
from chainrules.rules.numpy.linalg._common import adjoint
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing.cases import REALS, Arg, At, Case, Generated

try:
    from scipy import linalg
except ImportError:  # scipy is optional: without it there is nothing to check
    linalg = None

_DOUBLE = ("float64", "complex128")


def _triangular(shape: tuple[int, ...], lower: bool) -> Generated:
    """Full matrices whose ``lower`` (upper) triangle is well conditioned; the other triangle must not matter."""
    label = f"{'lower' if lower else 'upper'} triangular{shape}".replace(" ", "")
    return Generated(well_conditioned(shape).make_value, label)


def _hermitian_in(shape: tuple[int, ...], lower: bool) -> Generated:
    """Positive definite ``B B^H + n I`` in the ``lower`` (upper) triangle.

    The other triangle holds noise, and so does the imaginary part of the
    diagonal: the Hermitian solvers read neither.
    """
    n = shape[-1]

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        b = random_matrix(rng, shape, dtype)
        h = b @ adjoint(b) + n * np.eye(n)
        if np.dtype(dtype).kind == "c":
            h = h + 0.5j * np.eye(n)
        noise = random_matrix(rng, shape, dtype)
        kept = np.tril(h) + np.triu(noise, 1) if lower else np.triu(h) + np.tril(noise, -1)
        return kept.astype(dtype)

    return Generated(make, f"{'lower' if lower else 'upper'} positive definite{shape}".replace(" ", ""))


def _banded_matrix(shape: tuple[int, ...], lower: int, upper: int) -> Generated:
    """Well-conditioned matrices with zeros outside ``lower`` diagonals below and ``upper`` above."""

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        a = well_conditioned(shape).make_value(rng, dtype)
        return np.triu(np.tril(a, upper), -lower)

    return Generated(make, f"banded({lower},{upper}){shape}".replace(" ", ""))


def _band_storage(m: int, lower: int, upper: int, batch: tuple[int, ...] = ()) -> Generated:
    """``ab`` of a diagonally dominant banded matrix; the corners that store nothing hold noise."""

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        ab = random_matrix(rng, (*batch, lower + upper + 1, m), dtype)
        ab[..., upper, :] += 2.0 * (lower + upper + 1)
        return ab.astype(dtype)

    return Generated(make, f"band storage({lower},{upper}){(*batch, lower + upper + 1, m)}".replace(" ", ""))


if linalg is not None:
    st = linalg.solve_triangular
    wc = well_conditioned
    register_shipped_cases(
        "scipy.linalg.solvers",
        Case(st, (_triangular((3, 3), True), Arg(REALS, (3,))), kwargs={"lower": True}),
        Case(st, (_triangular((3, 3), False), Arg(REALS, (3, 2)))),
        *[
            Case(st, (_triangular((3, 3), True), Arg(REALS, (3, 2))), kwargs={"lower": True, "trans": t})
            for t in (1, 2, "T", "C")
        ],
        Case(st, (_triangular((3, 3), False), Arg(REALS, (3,))), kwargs={"trans": "C", "unit_diagonal": True}),
        Case(st, (_triangular((3, 3), True), Arg(REALS, (3,)), 0, True), name="options positional"),
        Case(st, (_triangular((2, 3, 3), True), Arg(REALS, (2, 3, 2))), kwargs={"lower": True}),
        # solve: every entry, or the matrix that assume_a names
        Case(linalg.solve, (wc((3, 3)), Arg(REALS, (3,)))),
        Case(linalg.solve, (wc((2, 3, 3)), Arg(REALS, (3, 2))), dtypes=_DOUBLE, name="one right-hand side for a stack"),
        Case(linalg.solve, (wc((3, 3)), Arg(REALS, (2, 3, 2))), dtypes=_DOUBLE, name="one matrix for a stack"),
        Case(linalg.solve, (wc((3, 3)), Arg(REALS, (3,))), kwargs={"transposed": True}, dtypes=("float64",)),
        Case(
            linalg.solve,
            (At(np.tril(np.arange(1.0, 10.0).reshape(3, 3)) + 4 * np.eye(3)), Arg(REALS, (3,))),
            dtypes=_DOUBLE,
            name="detected lower triangular, every entry counts",
        ),
        *[
            Case(
                linalg.solve,
                (_triangular((3, 3), "lower" in s), Arg(REALS, (3, 2))),
                kwargs={"assume_a": s},
                dtypes=_DOUBLE,
            )
            for s in ("lower triangular", "upper triangular")
        ],
        Case(linalg.solve, (wc((4, 4)), Arg(REALS, (4,))), kwargs={"assume_a": "diagonal"}, dtypes=_DOUBLE),
        Case(linalg.solve, (wc((5, 5)), Arg(REALS, (5,))), kwargs={"assume_a": "tridiagonal"}, dtypes=_DOUBLE),
        Case(
            linalg.solve,
            (_banded_matrix((5, 5), 1, 2), Arg(REALS, (5,))),
            kwargs={"assume_a": "banded"},
            dtypes=_DOUBLE,
            name="every entry counts",
        ),
        *[
            Case(
                linalg.solve,
                (_hermitian_in((3, 3), lower), Arg(REALS, (3, 2))),
                kwargs={"assume_a": s, "lower": lower},
                dtypes=_DOUBLE,
            )
            for s, lower in (("sym", False), ("her", True), ("pos", False), ("positive definite", True))
        ],
        Case(
            linalg.solve,
            (_hermitian_in((2, 3, 3), True), Arg(REALS, (2, 3, 1))),
            kwargs={"assume_a": "pos", "lower": True},
            dtypes=_DOUBLE,
        ),
        # inv
        Case(linalg.inv, (wc((3, 3)),)),
        Case(linalg.inv, (wc((2, 3, 3)),), dtypes=_DOUBLE),
        Case(linalg.inv, (_triangular((3, 3), False),), kwargs={"assume_a": "upper triangular"}, dtypes=_DOUBLE),
        *[
            Case(linalg.inv, (_hermitian_in((3, 3), lower),), kwargs={"assume_a": s, "lower": lower}, dtypes=_DOUBLE)
            for s, lower in (("sym", True), ("her", False), ("pos", True))
        ],
        # det: numpy's rule, finite at singular matrices
        Case(linalg.det, (wc((3, 3)),)),
        Case(linalg.det, (wc((2, 3, 3)),), dtypes=_DOUBLE),
        Case(linalg.det, (At([[1.0, 2.0], [2.0, 4.0]]),), dtypes=_DOUBLE, name="singular"),
        # solve_banded: the cotangent of ab lives on the stored band
        Case(linalg.solve_banded, ((1, 2), _band_storage(5, 1, 2), Arg(REALS, (5,)))),
        Case(linalg.solve_banded, ((0, 1), _band_storage(4, 0, 1), Arg(REALS, (4, 2))), dtypes=_DOUBLE),
        Case(
            linalg.solve_banded,
            ((1, 1), _band_storage(4, 1, 1, (2,)), Arg(REALS, (4,))),
            dtypes=_DOUBLE,
            name="tridiagonal, a stack",
        ),
        # block_diag
        Case(linalg.block_diag, (Arg(REALS, (2, 2)), Arg(REALS, (3,)), Arg(REALS, ()), Arg(REALS, (2, 1)))),
        Case(linalg.block_diag, (Arg(REALS, (2, 2, 2)), Arg(REALS, (1, 3))), dtypes=_DOUBLE, name="a stack"),
    )

    refuse_edges(
        "scipy.linalg.solvers",
        linalg.det,
        ("huge",),
        "the adjugate of a singular matrix of entries 1e300 comes from products of singular values that overflow",
        where="singular",
    )
    for _f in (linalg.solve, linalg.solve_banded):
        refuse_edges(
            "scipy.linalg.solvers",
            _f,
            ("subnormal",),
            "at subnormal magnitudes LAPACK loses digits: the solution itself is inaccurate",
        )
