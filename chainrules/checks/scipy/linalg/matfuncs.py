"""Declared checks of the scipy.linalg matrix functions (``chainrules.rules.scipy.linalg.matfuncs``), with scipy."""

from __future__ import annotations

import numpy as np

from chainrules.checks._matrices import random_matrix, well_conditioned
from chainrules.checks._register import register_shipped_cases
from chainrules.checks.numpy.linalg.eig import _diagonalizable
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing.cases import REALS, Arg, At, Case, Generated

try:
    from scipy import linalg
except ImportError:  # scipy is optional: without it there is nothing to check
    linalg = None

_DOUBLE = ("float64", "complex128")
_ROTATION = [[1.0, -2.0], [2.0, 1.0]]  # eigenvalues 1 +- 2i: a real logarithm and square root


def _right_half_plane(shape: tuple[int, ...]) -> Generated:
    """``2 I + N / 4``: eigenvalues within about 1 of 2, far from the branch cut of logm and sqrtm.

    The finite differences step up to a fifth of each entry, which must not
    carry an eigenvalue onto the negative real axis (the result would turn
    complex there).
    """

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        return (2 * np.eye(shape[-1]) + random_matrix(rng, shape, dtype) / 4).astype(dtype)

    return Generated(make, f"eigenvalues near 2{shape}".replace(" ", ""))


if linalg is not None:
    wc = well_conditioned
    register_shipped_cases(
        "scipy.linalg.matfuncs",
        Case(linalg.expm, (Arg(REALS, (3, 3)),)),
        Case(linalg.expm, (Arg(REALS, (2, 3, 3)),), dtypes=_DOUBLE),
        Case(linalg.expm, (At([[0.0, 0.0], [0.0, 0.0]]),), name="zero matrix"),
        # logm and sqrtm: eigenvalues off the closed negative real axis; scipy's logm is slow, so few cases
        Case(linalg.logm, (_right_half_plane((3, 3)),), dtypes=_DOUBLE),
        # float32: scipy computes the logarithm in single precision and keeps only its real part where the
        # imaginary parts are below double precision's tolerance, so at complex eigenvalues (which 2 I + N / 4
        # has at most seeds) it returns a complex matrix where the double copy the finite differences evaluate
        # gives a real one; at real, separated eigenvalues the Schur form is triangular and both are real
        Case(linalg.logm, (_diagonalizable((3, 3), [1.5, 2.0, 2.5], "real eigenvalues near 2"),), dtypes=("float32",)),
        # a float32 input gives a float64 logm computed in single precision, complex where rounding leaves
        # imaginary parts: at complex eigenvalues, its type would change between the input and its double copy
        Case(linalg.logm, (At(_ROTATION),), dtypes=("float64",), name="complex eigenvalues"),
        Case(linalg.sqrtm, (_right_half_plane((3, 3)),)),
        Case(linalg.sqrtm, (_right_half_plane((2, 3, 3)),), dtypes=_DOUBLE),
        Case(linalg.sqrtm, (At(_ROTATION),), name="complex eigenvalues"),
        # expm_frechet: the second-order Frechet derivative in A
        Case(linalg.expm_frechet, (Arg(REALS, (3, 3)), Arg(REALS, (3, 3)))),
        Case(linalg.expm_frechet, (Arg(REALS, (3, 3)), Arg(REALS, (3, 3))), kwargs={"compute_expm": False}),
        Case(linalg.expm_frechet, (Arg(REALS, (2, 3, 3)), Arg(REALS, (3, 3)), "blockEnlarge"), dtypes=_DOUBLE),
        # matrix equations: spectra of A and -B apart
        Case(linalg.solve_sylvester, (wc((3, 3)), wc((2, 2)), Arg(REALS, (3, 2)))),
        Case(linalg.solve_sylvester, (wc((2, 3, 3)), wc((2, 2)), Arg(REALS, (3, 2))), dtypes=_DOUBLE, name="broadcast"),
        Case(linalg.solve_continuous_lyapunov, (wc((3, 3)), Arg(REALS, (3, 3)))),
        Case(linalg.solve_continuous_lyapunov, (wc((3, 3)), Arg(REALS, (2, 3, 3))), dtypes=_DOUBLE, name="broadcast"),
    )

    refuse_edges(
        "scipy.linalg.matfuncs",
        linalg.sqrtm,
        ("huge", "tiny", "subnormal"),
        "scipy's sqrtm of a matrix with complex eigenvalues scaled by 1e300 is NaN, and by 1e-300 wrong "
        "(sqrtm(1e-300 [[1, -2], [2, 1]]) is 1e-150 [[1, -1], [1, 1]])",
        where="complex eigenvalues",
    )
    refuse_edges(
        "scipy.linalg.matfuncs",
        linalg.sqrtm,
        ("0-d",),
        "scipy 1.17's sqrtm returns exp(a) for a 0-d a (a shortcut like expm's), not its square root: the rules "
        "decline it (None)",
    )
    refuse_edges(
        "scipy.linalg.matfuncs",
        linalg.solve_sylvester,
        ("tiny", "subnormal"),
        "scipy's own solve loses its digits there: for well-conditioned a and b, solve_sylvester(1e-300 a, "
        "1e-300 b, 1e-300 q) is off solve_sylvester(a, b, q), the same X, by 0.4",
    )
    for _argument in ("argument 1 axis", "argument 2 axis"):
        refuse_edges(
            "scipy.linalg.matfuncs",
            linalg.solve_sylvester,
            ("empty",),
            "a or b cut to an empty matrix that is not square: scipy checks no shapes then and returns "
            "uninitialized memory (its values change from call to call); the rules raise ValueError",
            where=_argument,
        )
    refuse_edges(
        "scipy.linalg.matfuncs",
        linalg.solve_continuous_lyapunov,
        ("tiny", "subnormal"),
        "scipy's own solve loses its digits there: for a well-conditioned 3 x 3 a, solve_continuous_lyapunov(1e-300 "
        "a, 1e-300 q) has entries of 3e-9 where solve_continuous_lyapunov(a, q), the same X, has 0.4",
    )
    refuse_edges(
        "scipy.linalg.matfuncs",
        linalg.logm,
        ("huge",),
        "logm at -1e300: the matrix logarithm's series and scaling lose digits there",
    )
