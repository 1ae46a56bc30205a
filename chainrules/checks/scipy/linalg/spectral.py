"""Declared checks of scipy.linalg's eigh and polar (``chainrules.rules.scipy.linalg.spectral``), with scipy."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.checks._matrices import REPEATED_EIGENVALUE_ORDER2, random_matrix, well_conditioned
from chainrules.checks._register import register_shipped_cases
from chainrules.checks.numpy.linalg.factorizations import _full_rank
from chainrules.checks.numpy.linalg.spectral import _hermitian
from chainrules.rules._arrays import tuple_entries
from chainrules.rules._makers import checked_entries
from chainrules.rules.numpy.linalg._common import adjoint
from chainrules.testing.edges import refuse_edges
from chainrules.testing.second_order import refuse_order2
from chainrules_core import AbstractZero, NoTangent, ProjectTo, ZeroTangent, checked_tangent, frule, rrule
from chainrules_core.testing.cases import Case, Generated

try:
    from scipy import linalg
except ImportError:  # scipy is optional: without it there is nothing to check
    linalg = None

_RAW = ("float64",)
"""The raw eigenvectors: float64 only (see the cases)."""
_DOUBLE = ("float64", "complex128")

# As for numpy's eigh (chainrules/checks/numpy/linalg/spectral.py): the raw eigenvectors are
# checked for real input only, where the gauge is a sign, and with a driver
# that keeps it locally constant; every dtype goes through the eigenvalues and
# abs(V)**2, which no phase affects.


def _abs2(x: np.ndarray) -> np.ndarray:
    return (x * x.conj()).real


if linalg is not None:

    def eigh_invariants(a: Any, *args: Any, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
        """``w, abs(V)**2`` for ``w, V = scipy.linalg.eigh(a, *args, **kwargs)``: unaffected by the vectors' phases.

        >>> w, v2 = eigh_invariants(np.diag([2.0, 1.0]), np.diag([1.0, 4.0]))
        >>> w, v2
        (array([0.25, 2.  ]), array([[0.  , 1.  ],
               [0.25, 0.  ]]))
        """
        w, v = linalg.eigh(a, *args, **kwargs)
        return w, _abs2(v)

    @rrule.register(eigh_invariants)
    def _eigh_invariants_rrule(f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
        (w, v), pullback = rrule(linalg.eigh, a, *args, **kwargs)
        shapes = (w.shape, v.shape)

        def eigh_invariants_pullback(out_bar: Any) -> tuple[Any, ...]:
            w_bar, v2_bar = checked_entries(f, out_bar, 2, shapes)
            return pullback((w_bar, ZeroTangent() if isinstance(v2_bar, AbstractZero) else 2 * v2_bar * v))

        return (w, _abs2(v)), eigh_invariants_pullback

    @frule.register(eigh_invariants)
    def _eigh_invariants_frule(tangents: tuple[Any, ...], f: Any, a: Any, *args: Any, **kwargs: Any) -> Any:
        dots = [checked_tangent(f, t, x, k) for k, (t, x) in enumerate(zip(tangents[1:], (a, *args)), start=1)]
        (w, v), parts_dot = frule((NoTangent(), *dots), linalg.eigh, a, *args, **kwargs)
        w_dot, v_dot = tuple_entries(parts_dot, 2)
        v2 = _abs2(v)
        return (w, v2), (w_dot, ProjectTo(v2)(2 * np.real(v.conj() * v_dot)))


def _positive_definite(shape: tuple[int, ...]) -> Generated:
    """``I + C C^H / (4 n)``, noise in the upper triangle (only the lower one is read)."""
    n = shape[-1]

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        c = random_matrix(rng, shape, dtype)
        b = np.eye(n) + c @ adjoint(c) / (4 * n)
        return (np.tril(b) + np.triu(random_matrix(rng, shape, dtype), 1)).astype(dtype)

    return Generated(make, f"positive definite{shape}".replace(" ", ""))


def _repeated_singular_values(n: int) -> Generated:
    """``2 Q`` for a random unitary ``Q``: every singular value is 2 (the SVD's vectors are not unique)."""

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        q, _ = np.linalg.qr(random_matrix(rng, (n, n), dtype))
        return (2 * q).astype(dtype)

    return Generated(make, f"2 unitary({n},{n})")


def _invariants(*args: Any, name: str = "", **options: Any) -> Case:
    """A case of ``eigh_invariants``, named after ``scipy.linalg.eigh`` so that ``check scipy.linalg`` runs it."""
    return Case(eigh_invariants, args, name=f"of scipy.linalg.eigh{', ' + name if name else ''}", **options)


def _equal_seed(out: Any) -> Any:
    """A seed on the eigenvalues only, equal on the degenerate pair (a smooth function there)."""
    return np.array([0.7, 0.7, -1.3], dtype=out.dtype)


if linalg is not None:
    h, pd = _hermitian, _positive_definite
    register_shipped_cases(
        "scipy.linalg.spectral",
        # the default driver (evr) flips eigenvector signs under tiny perturbations: raw outputs through evd;
        # float64 only: the finite differences of a float32 case evaluate eigh in float64, whose V may take the
        # other sign in a column than ssyevd's or ssygvd's (seeds 5, 10, 22); the invariants run in float32 too
        Case(linalg.eigh, (h((3, 3)),), kwargs={"driver": "evd"}, dtypes=_RAW, name="raw outputs"),
        Case(linalg.eigh, (h((3, 3)), pd((3, 3))), kwargs={"driver": "gvd"}, dtypes=_RAW, name="raw outputs"),
        _invariants(h((4, 4))),
        _invariants(h((2, 3, 3)), dtypes=_DOUBLE),
        _invariants(
            Generated(lambda rng, dt: adjoint(h((3, 3)).make(rng, dt)), "upper"),
            kwargs={"lower": False},
            dtypes=_DOUBLE,
        ),
        _invariants(h((3, 3)), pd((3, 3)), name="generalized"),
        _invariants(h((2, 3, 3)), pd((3, 3)), dtypes=_DOUBLE, name="generalized, one b for a stack"),
        _invariants(h((4, 4)), kwargs={"subset_by_index": [1, 2]}, dtypes=_DOUBLE),
        _invariants(h((4, 4)), pd((4, 4)), kwargs={"subset_by_index": [2, 3]}, dtypes=_DOUBLE),
        _invariants(h((4, 4), [-3.0, -1.0, 1.0, 3.0]), kwargs={"subset_by_value": (-2.0, 2.0)}, dtypes=_DOUBLE),
        Case(linalg.eigh, (h((3, 3)),), kwargs={"eigvals_only": True}),
        Case(
            linalg.eigh,
            (h((3, 3)), pd((3, 3))),
            kwargs={"eigvals_only": True, "subset_by_index": [0, 1]},
            dtypes=_DOUBLE,
        ),
        Case(
            linalg.eigh,
            (h((3, 3), [1.0, 1.0, 3.0]),),
            kwargs={"eigvals_only": True},
            modes=("rrule",),
            options={"output_tangent": _equal_seed},
            name="degenerate",
        ),
        # polar: unique for full rank, repeated singular values included
        Case(linalg.polar, (well_conditioned((3, 3)),)),
        Case(linalg.polar, (well_conditioned((3, 3)), "left"), dtypes=_DOUBLE),
        Case(linalg.polar, (_full_rank((4, 3)),)),
        Case(linalg.polar, (_full_rank((3, 4)),), kwargs={"side": "left"}, dtypes=_DOUBLE),
        Case(linalg.polar, (well_conditioned((2, 3, 3)),), dtypes=_DOUBLE),
        Case(linalg.polar, (_repeated_singular_values(3),), dtypes=_DOUBLE, name="repeated singular values"),
    )

    refuse_edges(
        "scipy.linalg.spectral",
        linalg.eigh,
        ("huge",),
        "a degenerate pair of eigenvalues at 1e300: finite differences see the split of the pair, not its mean",
        where="degenerate",
    )
    refuse_edges(
        "scipy.linalg.spectral",
        linalg.polar,
        ("empty", "size 1"),
        "the rules decline (None) the side without a derivative: side='right' needs at least as many rows as columns",
    )

if linalg is not None:
    refuse_order2("scipy.linalg.spectral", linalg.eigh, REPEATED_EIGENVALUE_ORDER2, where="degenerate")
