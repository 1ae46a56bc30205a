"""Declared checks of the least-squares rules (``chainrules.rules.numpy.linalg.least_squares``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.checks._matrices import SVD_HANGS, random_matrix
from chainrules.checks._register import register_shipped_cases
from chainrules.rules.numpy.linalg._common import adjoint
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing import FiniteDifferences
from chainrules_core.testing.cases import REALS, Arg, Case, Generated


def _of_rank(shape: tuple[int, ...], spectrum: Any) -> Generated:
    """``U diag(spectrum) V^H`` with orthonormal ``U``, ``V``: rank ``len(spectrum)``."""
    m, n = shape[-2:]
    s = np.asarray(spectrum, dtype=float)
    r = len(s)

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        u, _ = np.linalg.qr(random_matrix(rng, (*shape[:-2], m, r), dtype))
        v, _ = np.linalg.qr(random_matrix(rng, (*shape[:-2], n, r), dtype))
        return ((u * s) @ adjoint(v)).astype(dtype)

    return Generated(make, f"rank {r}{shape}".replace(" ", ""))


def _hermitian(n: int, spectrum: Any) -> Generated:
    """Hermitian matrices with eigenvalues ``spectrum`` (zeros make them singular); noise in the upper triangle."""
    w = np.asarray(spectrum, dtype=float)

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        q, _ = np.linalg.qr(random_matrix(rng, (n, n), dtype))
        h = (q * w) @ adjoint(q)
        return (np.tril(h) + np.triu(random_matrix(rng, (n, n), dtype), 1)).astype(dtype)

    return Generated(make, f"hermitian, eigenvalues {list(w)}".replace(" ", ""))


# Rank-deficient inputs are checked with a cut-off of a tenth of the largest singular value and steps
# of at most 1 %, so that the perturbations' own singular values stay below the cut: the rank is held.
_HELD_RANK = {"fdm": FiniteDifferences(max_step=0.01)}
_RTOL = {"rtol": 0.1}

register_shipped_cases(
    "numpy.linalg.least_squares",
    *[Case(np.linalg.pinv, (_of_rank(shape, [3.0, 2.0, 1.0]),)) for shape in [(3, 3), (5, 3), (3, 5), (2, 4, 3)]],
    Case(np.linalg.pinv, (_of_rank((4, 3), [3.0, 1.5]),), kwargs=_RTOL, options=_HELD_RANK, name="rank deficient"),
    Case(np.linalg.pinv, (_of_rank((2, 3, 5), [2.0]),), kwargs=_RTOL, options=_HELD_RANK, name="rank deficient"),
    Case(np.linalg.pinv, (_of_rank((3, 3), [3.0, 1.0]), 0.1), options=_HELD_RANK, name="rcond positional"),
    Case(np.linalg.pinv, (_hermitian(3, [-2.0, 1.0, 3.0]),), kwargs={"hermitian": True}),
    Case(
        np.linalg.pinv,
        (_hermitian(4, [-2.0, 0.0, 1.5, 3.0]),),
        kwargs={"hermitian": True, **_RTOL},
        options=_HELD_RANK,
        name="rank deficient",
    ),
    Case(np.linalg.lstsq, (_of_rank((5, 3), [3.0, 2.0, 1.0]), Arg(REALS, (5,))), name="residuals"),
    Case(np.linalg.lstsq, (_of_rank((5, 3), [3.0, 2.0, 1.0]), Arg(REALS, (5, 2))), name="residuals"),
    Case(np.linalg.lstsq, (_of_rank((3, 5), [3.0, 2.0, 1.0]), Arg(REALS, (3, 2))), name="minimum norm"),
    Case(np.linalg.lstsq, (_of_rank((4, 4), [4.0, 3.0, 2.0, 1.0]), Arg(REALS, (4,)))),
    Case(
        np.linalg.lstsq,
        (_of_rank((5, 3), [3.0, 1.5]), Arg(REALS, (5, 2))),
        kwargs={"rcond": 0.1},
        options=_HELD_RANK,
        # s has a kink at its zero singular value; a float32 input is rank-deficient only to float32's
        # precision, so the finite differences, which run in double precision, see a small smooth one
        dtypes=("float64", "complex128"),
        name="rank deficient",
        smooth=False,
    ),
    Case(np.linalg.lstsq, (_of_rank((4, 3), [3.0, 2.0, 1.0]), Arg(REALS, (4,)), None), name="rcond positional"),
)

for _f in (np.linalg.pinv, np.linalg.lstsq):
    refuse_edges("numpy.linalg.least_squares", _f, ("inf",), SVD_HANGS, run=False)

refuse_edges(
    "numpy.linalg.least_squares",
    np.linalg.pinv,
    ("empty",),
    "numpy's pinv(hermitian=True) takes a non-square empty matrix, which the rules' eigendecomposition does not",
    where="hermitian=True",
)
refuse_edges(
    "numpy.linalg.least_squares",
    np.linalg.lstsq,
    ("subnormal",),
    "at subnormal magnitudes LAPACK's least squares loses most digits of a rank-deficient fit",
    where="rank deficient",
)
