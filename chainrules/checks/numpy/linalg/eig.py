"""Declared checks of the eig rules (``chainrules.rules.numpy.linalg.eig``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.checks._matrices import REPEATED_EIGENVALUE_ORDER2, random_matrix
from chainrules.checks._register import register_shipped_cases
from chainrules.rules._arrays import tuple_entries
from chainrules.rules._makers import checked_entries
from chainrules.rules.numpy.linalg._common import adjoint
from chainrules.testing.second_order import refuse_order2
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
from chainrules_core.testing import FiniteDifferences
from chainrules_core.testing.cases import Case, Generated

# numpy scales each eigenvector to unit length and, for complex vectors, picks a phase that is not
# the rules' gauge. So besides the raw outputs for real input with real eigenvalues (unit vectors
# fixed up to a locally constant sign), the checks go through a function of the decomposition that
# no phase affects, whose rules are composed here from eig's own.


def _abs2(x: np.ndarray) -> np.ndarray:
    return (x * x.conj()).real


def eig_invariants(a: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``w, abs(V)**2, V diag(c) V^-1`` for ``w, V = eig(a)`` and ``c = 1, 2, ..., n``.

    None of these depends on the eigenvectors' phases; the last weighs the
    spectral projectors of ``a`` and so involves every eigenvector.

    >>> w, v2, weighed = eig_invariants(np.array([[2.0, 1.0], [0.0, 1.0]]))
    >>> w, np.round(weighed, 12) + 0.0
    (array([2., 1.]), array([[ 1., -1.],
           [ 0.,  2.]]))
    """
    w, v = np.linalg.eig(a)
    return w, _abs2(v), _weighed_projectors(v)


def _weights(v: np.ndarray) -> np.ndarray:
    return np.arange(1, v.shape[-1] + 1).astype(v.dtype)


def _weighed_projectors(v: np.ndarray) -> np.ndarray:
    return (v * _weights(v)) @ np.linalg.inv(v)


@rrule.register(eig_invariants)
def _eig_invariants_rrule(f: Any, a: Any) -> Any:
    (w, v), pullback = rrule(np.linalg.eig, a)
    inv = np.linalg.inv(v)
    weighed = (v * _weights(v)) @ inv
    shapes = (w.shape, v.shape, weighed.shape)

    def eig_invariants_pullback(out_bar: Any) -> tuple[Any, Any]:
        w_bar, v2_bar, weighed_bar = checked_entries(f, out_bar, ("w", "abs2 V", "V diag(c) V^-1"), shapes)
        v_bar: Any = ZeroTangent() if isinstance(v2_bar, AbstractZero) else 2 * v2_bar * v
        if not isinstance(weighed_bar, AbstractZero):
            # d(V C X) = dV (C X) - (V C X) dV X with X = V^-1
            term = weighed_bar @ adjoint(_weights(v)[:, None] * inv) - adjoint(weighed) @ weighed_bar @ adjoint(inv)
            v_bar = term if isinstance(v_bar, AbstractZero) else v_bar + term
        return pullback((w_bar, v_bar))

    return (w, _abs2(v), weighed), eig_invariants_pullback


@frule.register(eig_invariants)
def _eig_invariants_frule(tangents: tuple[Any, ...], f: Any, a: Any) -> Any:
    (w, v), parts_dot = frule((NoTangent(), checked_tangent(f, tangents[1], a, 1)), np.linalg.eig, a)
    w_dot, v_dot = tuple_entries(parts_dot, ("eigenvalues", "eigenvectors"))
    inv = np.linalg.inv(v)
    weighed = (v * _weights(v)) @ inv
    out = (w, _abs2(v), weighed)
    weighed_dot = (v_dot * _weights(v)) @ inv - weighed @ v_dot @ inv
    out_dot = (w_dot, 2 * np.real(v.conj() * v_dot), weighed_dot)
    return out, tuple(ProjectTo(o)(d) for o, d in zip(out, out_dot))


def power_sums(a: Any) -> np.ndarray:
    """``sum(w**k)`` for ``k = 1, 2, 3`` over the eigenvalues ``w`` of ``a``; real for real ``a``.

    Symmetric in the eigenvalues, so smooth where they repeat and whatever
    order LAPACK returns them in: ``tr(a**k)``.

    >>> power_sums(np.diag([1.0, 1.0, 3.0]))
    array([ 5., 11., 29.])
    """
    w = np.linalg.eigvals(a)
    sums = np.stack([np.sum(w**k, axis=-1) for k in (1, 2, 3)], axis=-1)
    return sums.real if np.isrealobj(a) else sums


@rrule.register(power_sums)
def _power_sums_rrule(f: Any, a: Any) -> Any:
    w, pullback = rrule(np.linalg.eigvals, a)
    out = power_sums(a)
    shape = value_shape(out)

    def power_sums_pullback(out_bar: Any) -> tuple[Any, Any]:
        out_bar = np.asarray(checked_seed(f, out_bar, shape))
        w_bar = sum(np.conj(k * w ** (k - 1)) * out_bar[..., k - 1 : k] for k in (1, 2, 3))
        return pullback(w_bar)

    return out, power_sums_pullback


@frule.register(power_sums)
def _power_sums_frule(tangents: tuple[Any, ...], f: Any, a: Any) -> Any:
    w, w_dot = frule((NoTangent(), checked_tangent(f, tangents[1], a, 1)), np.linalg.eigvals, a)
    out = power_sums(a)
    sums_dot = np.stack([np.sum(k * w ** (k - 1) * w_dot, axis=-1) for k in (1, 2, 3)], axis=-1)
    return out, ProjectTo(out)(sums_dot)


def _diagonalizable(shape: tuple[int, ...], spectrum: Any, label: str) -> Generated:
    """``V diag(spectrum) V^-1`` with a well-conditioned ``V`` (real for real dtypes)."""
    n = shape[-1]
    w = np.asarray(spectrum)

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        v = random_matrix(rng, shape, dtype) + 2 * np.sqrt(n) * np.eye(n)
        return ((v * w) @ np.linalg.inv(v)).astype(dtype)

    return Generated(make, f"{label}{shape}".replace(" ", ""))


def _rotations(shape: tuple[int, ...], pairs: list[tuple[float, float]]) -> Generated:
    """``V B V^-1`` with ``B`` block diagonal, blocks ``[[a, -b], [b, a]]``: eigenvalues ``a ± ib`` for real ``V``."""
    n = shape[-1]
    b = np.zeros((n, n))
    for k, (re, im) in enumerate(pairs):
        b[2 * k : 2 * k + 2, 2 * k : 2 * k + 2] = [[re, -im], [im, re]]
    if n % 2:
        b[-1, -1] = 3.0

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        v = random_matrix(rng, shape, dtype) + 2 * np.sqrt(n) * np.eye(n)
        return (v @ b @ np.linalg.inv(v)).astype(dtype)

    return Generated(make, f"complex pairs{shape}".replace(" ", ""))


_REAL = ("float64", "float32")
_DEGENERATE = [1.0, 1.0, 3.0]
# LAPACK's order of the eigenvalues is only locally constant: steps of 10 % of the input can permute them.
_SMALL_STEPS = {"fdm": FiniteDifferences(max_step=0.01)}


def _eig_case(f: Any, spec: Generated, **kwargs: Any) -> Case:
    return Case(f, (spec,), options=_SMALL_STEPS, **kwargs)


register_shipped_cases(
    "numpy.linalg.eig",
    _eig_case(np.linalg.eig, _diagonalizable((4, 4), np.linspace(-2.0, 3.0, 4), "real eigenvalues"), dtypes=_REAL),
    _eig_case(np.linalg.eig, _diagonalizable((2, 3, 3), [-4.0, 1.0, 6.0], "real eigenvalues"), dtypes=_REAL),
    _eig_case(eig_invariants, _diagonalizable((4, 4), np.linspace(-2.0, 3.0, 4), "real eigenvalues")),
    _eig_case(eig_invariants, _rotations((4, 4), [(1.0, 1.0), (-1.0, 2.0)])),
    _eig_case(eig_invariants, _rotations((2, 3, 3), [(0.5, 1.5)])),
    _eig_case(
        eig_invariants,
        _diagonalizable((3, 3), [1.0 + 1.0j, -1.0, 2.0 - 0.5j], "complex eigenvalues"),
        dtypes=("complex128",),
    ),
    _eig_case(np.linalg.eigvals, _diagonalizable((4, 4), np.linspace(-2.0, 3.0, 4), "real eigenvalues")),
    _eig_case(np.linalg.eigvals, _rotations((4, 4), [(1.0, 1.0), (-1.0, 2.0)])),
    _eig_case(np.linalg.eigvals, _rotations((2, 3, 3), [(0.5, 1.5)])),
    _eig_case(power_sums, _diagonalizable((3, 3), _DEGENERATE, "repeated eigenvalue"), name="degenerate"),
    _eig_case(power_sums, _diagonalizable((2, 3, 3), _DEGENERATE, "repeated eigenvalue"), name="degenerate"),
)

refuse_order2("numpy.linalg.eig", power_sums, REPEATED_EIGENVALUE_ORDER2, where="degenerate")
