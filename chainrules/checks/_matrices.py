"""Matrix inputs for the declared checks of the linear-algebra rules."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core.testing.cases import Generated


def random_matrix(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """Standard normal entries, complex ones for a complex ``dtype``."""
    x = rng.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=shape)
    return x


def well_conditioned(shape: tuple[int, ...]) -> Any:
    """A ``Generated`` stack of square matrices ``N + 2 sqrt(n) I``: condition numbers of a few units."""
    n = shape[-1]

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        return (random_matrix(rng, shape, dtype) + 2 * np.sqrt(n) * np.eye(n)).astype(dtype)

    return Generated(make, f"well-conditioned{shape}".replace(" ", ""))


SVD_HANGS = "numpy's SVD (LAPACK gesdd) does not return for a matrix with an infinite entry"
"""Why the ``inf`` edge variants of functions numpy computes through the SVD do not run."""


REPEATED_EIGENVALUE_ORDER2 = (
    "at a repeated eigenvalue the derivative of the pullback V diag(w_bar) V^-1 has terms "
    "(w_bar_j - w_bar_i) / (w_j - w_i), 0/0 there: their limit, a divided difference of w_bar as a function of "
    "w, depends on how the seed varies with the eigenvalues, which the pullback is not given (the function "
    "checked is smooth there; zeroing the terms would be wrong too)"
)
"""Why a second derivative through an eigendecomposition is refused at a repeated eigenvalue."""
