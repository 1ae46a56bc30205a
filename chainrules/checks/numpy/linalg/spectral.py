"""Declared checks of the spectral rules (``chainrules.rules.numpy.linalg.spectral``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.checks._matrices import REPEATED_EIGENVALUE_ORDER2, SVD_HANGS, random_matrix
from chainrules.checks._register import register_shipped_cases
from chainrules.rules._arrays import tuple_entries
from chainrules.rules._makers import checked_entries
from chainrules.rules.numpy.linalg._common import adjoint, pad_to
from chainrules.testing.edges import refuse_edges
from chainrules.testing.second_order import refuse_order2
from chainrules_core import AbstractZero, NoTangent, ProjectTo, ZeroTangent, checked_tangent, frule, rrule
from chainrules_core.testing import FiniteDifferences, with_tangent
from chainrules_core.testing.cases import At, Case, Generated

# The harness compares a rule with finite differences of the function itself,
# and numpy's phase convention for complex singular vectors and eigenvectors
# is not the rules' gauge. So besides the raw outputs for real input (where
# the gauge is a locally constant sign), the checks go through functions of
# the decompositions that no phase affects, whose rules are composed here
# from the decompositions' own rules.


def _abs2(x: np.ndarray) -> np.ndarray:
    return (x * x.conj()).real


def _sum_terms(*terms: Any) -> Any:
    present = [t for t in terms if t is not None]
    return sum(present[1:], present[0]) if present else ZeroTangent()


def svd_invariants(a: Any, full_matrices: bool = False, hermitian: bool = False) -> tuple[np.ndarray, ...]:
    """``abs(U)**2, s, abs(Vh)**2, U @ Vh`` for the first ``min(m, n)`` singular triplets of ``a``.

    None of these depends on the phases of the singular vectors.

    >>> m2, s, n2, polar = svd_invariants(np.diag([3.0, -2.0]))
    >>> s, polar
    (array([3., 2.]), array([[ 1.,  0.],
           [ 0., -1.]]))
    """
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices, hermitian=hermitian)
    k = s.shape[-1]
    u, vh = u[..., :k], vh[..., :k, :]
    return _abs2(u), s, _abs2(vh), u @ vh


def eigh_invariants(a: Any, UPLO: str = "L") -> tuple[np.ndarray, np.ndarray]:
    """``w, abs(V)**2`` for ``w, V = eigh(a, UPLO)``: unaffected by the eigenvectors' phases.

    >>> w, v2 = eigh_invariants(np.array([[2.0, 0.0], [0.0, 1.0]]))
    >>> w, v2
    (array([1., 2.]), array([[0., 1.],
           [1., 0.]]))
    """
    w, v = np.linalg.eigh(a, UPLO)
    return w, _abs2(v)


def _svd_parts(parts: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    u, s, vh = parts
    k = s.shape[-1]
    return u[..., :k], s, vh[..., :k, :], k


@rrule.register(svd_invariants)
def _svd_invariants_rrule(f: Any, a: Any, **kwargs: Any) -> Any:
    parts, pullback = rrule(np.linalg.svd, a, **{"full_matrices": False, **kwargs})
    u, s, vh, _ = _svd_parts(parts)
    out = (_abs2(u), s, _abs2(vh), u @ vh)
    shapes = [x.shape for x in out]

    def svd_invariants_pullback(out_bar: Any) -> tuple[Any, Any]:
        m2_bar, s_bar, n2_bar, polar_bar = checked_entries(f, out_bar, ("abs2 U", "s", "abs2 Vh", "U Vh"), shapes)
        has_polar = not isinstance(polar_bar, AbstractZero)
        u_bar = _sum_terms(
            None if isinstance(m2_bar, AbstractZero) else 2 * m2_bar * u, polar_bar @ adjoint(vh) if has_polar else None
        )
        vh_bar = _sum_terms(
            None if isinstance(n2_bar, AbstractZero) else 2 * n2_bar * vh, adjoint(u) @ polar_bar if has_polar else None
        )
        return pullback((pad_to(u_bar, parts[0].shape), s_bar, pad_to(vh_bar, parts[2].shape)))[:2]

    return out, svd_invariants_pullback


@frule.register(svd_invariants)
def _svd_invariants_frule(tangents: tuple[Any, ...], f: Any, a: Any, **kwargs: Any) -> Any:
    a_dot = checked_tangent(f, tangents[1], a, 1)
    result = frule((NoTangent(), a_dot), np.linalg.svd, a, **{"full_matrices": False, **kwargs})
    if result is None:
        return None
    parts, parts_dot = result
    u, s, vh, k = _svd_parts(parts)
    u_dot, s_dot, vh_dot = tuple_entries(parts_dot, ("U", "S", "Vh"))
    u_dot, vh_dot = u_dot[..., :k], vh_dot[..., :k, :]
    out = (_abs2(u), s, _abs2(vh), u @ vh)
    out_dot = (2 * np.real(u.conj() * u_dot), s_dot, 2 * np.real(vh.conj() * vh_dot), u_dot @ vh + u @ vh_dot)
    return out, tuple(ProjectTo(o)(d) for o, d in zip(out, out_dot))


@rrule.register(eigh_invariants)
def _eigh_invariants_rrule(f: Any, a: Any, **kwargs: Any) -> Any:
    (w, v), pullback = rrule(np.linalg.eigh, a, **kwargs)
    shapes = (w.shape, v.shape)

    def eigh_invariants_pullback(out_bar: Any) -> tuple[Any, Any]:
        w_bar, v2_bar = checked_entries(f, out_bar, ("w", "abs2 V"), shapes)
        return pullback((w_bar, ZeroTangent() if isinstance(v2_bar, AbstractZero) else 2 * v2_bar * v))[:2]

    return (w, _abs2(v)), eigh_invariants_pullback


@frule.register(eigh_invariants)
def _eigh_invariants_frule(tangents: tuple[Any, ...], f: Any, a: Any, **kwargs: Any) -> Any:
    (w, v), parts_dot = frule((NoTangent(), checked_tangent(f, tangents[1], a, 1)), np.linalg.eigh, a, **kwargs)
    w_dot, v_dot = tuple_entries(parts_dot, ("eigenvalues", "eigenvectors"))
    v2 = _abs2(v)
    return (w, v2), (w_dot, ProjectTo(v2)(2 * np.real(v.conj() * v_dot)))


def svd_complements(a: Any) -> tuple[np.ndarray, np.ndarray]:
    """``U2 U2^H`` and ``V2 V2^H``: the projectors onto the singular vectors of a full SVD beyond ``min(m, n)``.

    ``U2`` and ``V2`` are any orthonormal bases of the complements of the
    first ``min(m, n)`` singular vectors; the projectors do not depend on
    which.

    >>> p_u, p_v = svd_complements(np.array([[3.0], [0.0]]))
    >>> p_u, p_v
    (array([[0., 0.],
           [0., 1.]]), array([[0.]]))
    """
    u, s, vh = np.linalg.svd(a, full_matrices=True)
    k = s.shape[-1]
    u2, vh2 = u[..., k:], vh[..., k:, :]
    return u2 @ adjoint(u2), adjoint(vh2) @ vh2


@rrule.register(svd_complements)
def _svd_complements_rrule(f: Any, a: Any) -> Any:
    (u, s, vh), pullback = rrule(np.linalg.svd, a, full_matrices=True)
    k = s.shape[-1]
    u1, u2, vh1, vh2 = u[..., :k], u[..., k:], vh[..., :k, :], vh[..., k:, :]
    out = (u2 @ adjoint(u2), adjoint(vh2) @ vh2)
    shapes = [x.shape for x in out]

    def svd_complements_pullback(out_bar: Any) -> tuple[Any, Any]:
        pu_bar, pv_bar = checked_entries(f, out_bar, ("U2 U2^H", "V2 V2^H"), shapes)
        # the first k columns of U and rows of Vh get zeros, joined on rather than written into an array: an engine
        # may follow the cotangents (nested differentiation)
        u_bar = vh_bar = ZeroTangent()
        if not isinstance(pu_bar, AbstractZero):
            u2_bar = (pu_bar + adjoint(pu_bar)) @ u2
            u_bar = np.concatenate([np.zeros(np.shape(u1), u2_bar.dtype), u2_bar], axis=-1)
        if not isinstance(pv_bar, AbstractZero):
            vh2_bar = vh2 @ (pv_bar + adjoint(pv_bar))
            vh_bar = np.concatenate([np.zeros(np.shape(vh1), vh2_bar.dtype), vh2_bar], axis=-2)
        return pullback((u_bar, ZeroTangent(), vh_bar))[:2]

    return out, svd_complements_pullback


@frule.register(svd_complements)
def _svd_complements_frule(tangents: tuple[Any, ...], f: Any, a: Any) -> Any:
    a_dot = checked_tangent(f, tangents[1], a, 1)
    (u, s, vh), parts_dot = frule((NoTangent(), a_dot), np.linalg.svd, a, full_matrices=True)
    k = s.shape[-1]
    u_dot, _, vh_dot = tuple_entries(parts_dot, ("U", "S", "Vh"))
    u2, vh2, u2_dot, vh2_dot = u[..., k:], vh[..., k:, :], u_dot[..., k:], vh_dot[..., k:, :]
    pu_dot = u2_dot @ adjoint(u2) + u2 @ adjoint(u2_dot)
    pv_dot = adjoint(vh2_dot) @ vh2 + adjoint(vh2) @ vh2_dot
    out = (u2 @ adjoint(u2), adjoint(vh2) @ vh2)
    return out, tuple(ProjectTo(o)(d) for o, d in zip(out, (pu_dot, pv_dot)))


def _hermitian(shape: tuple[int, ...], spectrum: Any = None) -> Generated:
    """Hermitian matrices with eigenvalues ``spectrum`` (default: well separated); noise in the upper triangle."""
    n = shape[-1]
    w = np.linspace(-2.0, 3.0, n) if spectrum is None else np.asarray(spectrum, dtype=float)

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        q, _ = np.linalg.qr(random_matrix(rng, shape, dtype))
        h = (q * w) @ adjoint(q)
        return (np.tril(h) + np.triu(random_matrix(rng, shape, dtype), 1)).astype(dtype)

    label = "hermitian" if spectrum is None else f"hermitian, eigenvalues {list(w)}"
    return Generated(make, f"{label}{shape}".replace(" ", ""))


def _upper(spec: Generated) -> Generated:
    return Generated(lambda rng, dtype: adjoint(spec.make(rng, dtype)), f"{spec.label}, upper")


def _separated(shape: tuple[int, ...]) -> Generated:
    """Matrices with singular values spread over [1, 2k], none repeated."""
    m, n = shape[-2:]
    k = min(m, n)

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        u, _ = np.linalg.qr(random_matrix(rng, (*shape[:-2], m, k), dtype))
        w, _ = np.linalg.qr(random_matrix(rng, (*shape[:-2], n, k), dtype))
        return ((u * np.linspace(2.0 * k, 1.0, k)) @ adjoint(w)).astype(dtype)

    return Generated(make, f"distinct singular values{shape}".replace(" ", ""))


_REAL = ("float64", "float32")
_DEGENERATE = [1.0, 1.0, 3.0]
# A zero singular value is a kink, 5 |t| along RANK_ONE + t (RANK_ONE + NULL_BLOCK): even in t, so the
# central difference is exact at large steps (see the norms' checks).
_RANK_ONE = np.array([[1.0, 2.0], [2.0, 4.0], [-1.0, -2.0]])
_NULL_BLOCK = np.array([[4.0, -2.0], [-2.0, 1.0], [0.0, 0.0]])


def _eigenvalue_seed(out: Any) -> Any:
    """A seed on the eigenvalues only, equal on the degenerate pair (a smooth function there)."""
    return np.array([0.7, 0.7, -1.3], dtype=out.dtype)


register_shipped_cases(
    "numpy.linalg.spectral",
    Case(np.linalg.eigh, (_hermitian((3, 3)),), dtypes=_REAL, name="raw outputs"),
    Case(np.linalg.eigh, (_upper(_hermitian((3, 3))),), kwargs={"UPLO": "U"}, dtypes=_REAL, name="raw outputs"),
    Case(eigh_invariants, (_hermitian((4, 4)),)),
    Case(eigh_invariants, (_hermitian((2, 3, 3)),)),
    Case(eigh_invariants, (_upper(_hermitian((3, 3))),), kwargs={"UPLO": "U"}),
    Case(np.linalg.eigvalsh, (_hermitian((4, 4)),)),
    Case(np.linalg.eigvalsh, (_upper(_hermitian((2, 3, 3))),), kwargs={"UPLO": "U"}),
    Case(
        np.linalg.eigvalsh,
        (_hermitian((3, 3), _DEGENERATE),),
        modes=("rrule",),
        options={"output_tangent": _eigenvalue_seed},
        name="degenerate",
    ),
    *[
        Case(np.linalg.svd, (_separated(shape),), kwargs={"full_matrices": False}, dtypes=_REAL, name="raw outputs")
        for shape in [(3, 3), (4, 3), (3, 4)]
    ],
    *[Case(svd_invariants, (_separated(shape),)) for shape in [(3, 3), (4, 3), (3, 4), (2, 4, 3)]],
    *[
        Case(svd_invariants, (_separated(shape),), kwargs={"full_matrices": True})
        for shape in [(3, 3), (4, 3), (2, 3, 4)]
    ],
    *[
        # one extra real singular vector: fixed up to a sign, so numpy's and the rules' gauges agree
        Case(np.linalg.svd, (_separated(shape),), dtypes=_REAL, name="raw outputs, full_matrices")
        for shape in [(4, 3), (2, 3, 4)]
    ],
    *[Case(svd_complements, (_separated(shape),)) for shape in [(5, 3), (3, 5), (2, 4, 2)]],
    Case(svd_invariants, (_hermitian((3, 3), [-3.0, 1.0, 2.0]),), kwargs={"hermitian": True}),
    Case(np.linalg.svd, (_separated((4, 3)),), kwargs={"compute_uv": False}),
    Case(np.linalg.svd, (_separated((2, 3, 4)), False, False), name="compute_uv positional"),
    Case(np.linalg.svdvals, (_separated((4, 3)),)),
    Case(np.linalg.svdvals, (_separated((2, 3, 4)),)),
    Case(
        np.linalg.svdvals,
        (with_tangent(At(_RANK_ONE.tolist()), _RANK_ONE + _NULL_BLOCK),),
        options={"fdm": FiniteDifferences(max_step=0.1, steps=3)},
        name="a zero singular value",
        smooth=False,
    ),
)

for _f in (np.linalg.svd, np.linalg.svdvals, svd_invariants, svd_complements):
    refuse_edges(
        "numpy.linalg.spectral", _f, ("inf",), SVD_HANGS, run=False, cases=lambda case: not case.kwargs.get("hermitian")
    )

for _f in (np.linalg.eigh, eigh_invariants, svd_invariants):
    refuse_edges(
        "numpy.linalg.spectral",
        _f,
        ("inf",),
        "with an infinite entry numpy's eigendecomposition is NaN but for the entries it does not touch: the rules "
        "give NaN where a few outputs tend to limits",
    )
refuse_edges(
    "numpy.linalg.spectral",
    np.linalg.svd,
    ("size 1",),
    "full_matrices of a single row: the complement of its right singular vector has two dimensions, and its "
    "basis numpy returns (any rotation of it) has no derivative",
)
refuse_edges(
    "numpy.linalg.spectral",
    np.linalg.eigvalsh,
    ("huge",),
    "a degenerate pair of eigenvalues at 1e300: finite differences see the split of the pair, not its mean",
    where="degenerate",
)

refuse_order2("numpy.linalg.spectral", np.linalg.eigvalsh, REPEATED_EIGENVALUE_ORDER2, where="degenerate")
