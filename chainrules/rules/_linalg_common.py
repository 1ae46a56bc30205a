"""Helpers shared by the products, linear-algebra and factorization rules.

Matrices are stacks over the last two axes, as numpy's ``linalg`` functions
take them; every helper here works on such stacks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

try:  # scipy, when installed, solves triangular systems in O(n^2) per right-hand side
    from scipy.linalg import solve_triangular as _solve_triangular
except ImportError:
    _solve_triangular = None

from chainrules_core import AbstractZero, NoTangent, Tangent, ZeroTangent, backing, sum_to_shape, unthunk


def adjoint(x: np.ndarray) -> np.ndarray:
    """The conjugate transpose of each matrix in the stack (a view for real arrays)."""
    return np.swapaxes(x, -1, -2).conj()


def mT(x: np.ndarray) -> np.ndarray:  # noqa: N802 - numpy's name for the matrix transpose
    return np.swapaxes(x, -1, -2)


def matmul_summed(left: np.ndarray, right: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``left @ right`` summed over the batch axes that broadcasting added to an operand of ``shape``."""
    batch = left.shape[:-2]
    if len(shape) == 2 and batch and batch == right.shape[:-2]:
        axes = list(range(len(batch)))  # one matrix product over the folded batch, no stack to sum
        return np.tensordot(left, right, axes=([*axes, left.ndim - 1], [*axes, right.ndim - 2]))
    return sum_to_shape(left @ right, shape)


def diagonal(x: np.ndarray) -> np.ndarray:
    """The diagonals of a stack of matrices, shape ``(..., n)``."""
    return np.diagonal(x, axis1=-2, axis2=-1)


def diag_embed(d: np.ndarray) -> np.ndarray:
    """A stack of diagonal matrices with the diagonals ``d`` of shape ``(..., n)``."""
    n = d.shape[-1]
    out = np.zeros((*d.shape, n), dtype=d.dtype)
    np.einsum("...ii->...i", out)[...] = d
    return out


def hermitian_part(x: np.ndarray) -> np.ndarray:
    """``(x + x^H) / 2``."""
    return (x + adjoint(x)) / 2


def hermitian_from_triangle(x: np.ndarray, lower: bool) -> np.ndarray:
    """The Hermitian matrix that a LAPACK routine reading one triangle of ``x`` sees.

    The strict triangle is mirrored with a conjugate; the diagonal keeps its
    real part only, as the routines ignore an imaginary part there.
    """
    tri = np.tril(x, -1) if lower else np.triu(x, 1)
    d = diagonal(x).real if np.iscomplexobj(x) else diagonal(x)
    return tri + adjoint(tri) + diag_embed(d.astype(x.dtype))


def fold_to_triangle(s: np.ndarray, lower: bool) -> np.ndarray:
    """The cotangent of ``x`` when ``s`` is the cotangent of ``hermitian_from_triangle(x, lower)``.

    The adjoint of that map: ``s + s^H`` on the read strict triangle, the real
    part of ``s``'s diagonal on the diagonal, zero on the triangle not read.
    """
    both = s + adjoint(s)
    tri = np.tril(both, -1) if lower else np.triu(both, 1)
    return tri + diag_embed(diagonal(s).real.astype(s.dtype))


def phi_lower(x: np.ndarray) -> np.ndarray:
    """The lower triangle with the diagonal halved (Murray 2016's ``Phi``)."""
    out = np.tril(x)
    np.einsum("...ii->...i", out)[...] *= 0.5
    return out


def solve_right(x: np.ndarray, a: np.ndarray) -> np.ndarray:
    """``x @ inv(a)`` for stacks of matrices, through a solve."""
    return mT(np.linalg.solve(mT(a), mT(x)))


def solve_lower(low: np.ndarray, b: np.ndarray, conjugate_transpose: bool = False) -> np.ndarray:
    """``inv(low) @ b``, or ``inv(low)^H @ b``, for stacks of lower-triangular matrices ``low``."""
    if _solve_triangular is not None:
        return _solve_triangular(low, b, lower=True, trans=2 if conjugate_transpose else 0, check_finite=False)
    return np.linalg.solve(adjoint(low) if conjugate_transpose else low, b)


def solve_vectors(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``inv(a) @ b`` for a stack of vectors ``b`` of shape ``(..., n)``.

    ``np.linalg.solve`` reads a 2-D ``b`` as a matrix, so the vectors are
    made single-column matrices first.
    """
    return np.linalg.solve(a, b[..., None])[..., 0]


def pad_to(x_bar: Any, shape: tuple[int, ...]) -> Any:
    """``x_bar`` in the leading corner of zeros of ``shape`` (a zero stays a zero)."""
    if is_zero(x_bar) or x_bar.shape == shape:
        return x_bar
    padded = np.zeros(shape, x_bar.dtype)
    padded[tuple(slice(0, n) for n in x_bar.shape)] = x_bar
    return padded


def require_zero(x_bar: Any, part: tuple[Any, ...], message: str) -> None:
    """Raise ``ValueError(message)`` unless ``x_bar`` is zero on ``part``: the output there is not unique."""
    if not is_zero(x_bar) and np.any(x_bar[part] != 0):
        raise ValueError(message)


def is_zero(x: Any) -> bool:
    return isinstance(x, AbstractZero)


def tuple_cotangents(out_bar: Any, names: Sequence[str]) -> list[Any]:
    """The entries of a cotangent of a tuple or namedtuple output, unthunked; zeros where absent.

    Accepts ``Tangent(P, field=...)`` for a namedtuple ``P``, ``Tangent(tuple, ...)``,
    a plain tuple or list, or a zero for the whole output.
    """
    out_bar = unthunk(out_bar)
    if isinstance(out_bar, AbstractZero):
        return [ZeroTangent()] * len(names)
    if isinstance(out_bar, Tangent):
        data = backing(out_bar)
        values = [data.get(name, ZeroTangent()) for name in names] if isinstance(data, dict) else list(data)
    else:
        values = list(out_bar)
    if len(values) != len(names):
        raise ValueError(f"a cotangent of {len(values)} entries for an output of {len(names)} ({', '.join(names)})")
    return [unthunk(v) for v in values]


def tuple_tangent(out: Any, *values: Any) -> Any:
    """The tangent of the namedtuple ``out`` holding ``values`` in field order."""
    fields = type(out)._fields
    return Tangent(type(out), **dict(zip(fields, values)))


def zero_like(project: Any) -> Any:
    """``NoTangent()`` for an argument without a tangent space, else ``ZeroTangent()``."""
    return NoTangent() if project.is_no_tangent else ZeroTangent()


def as_array(x: Any) -> np.ndarray:
    return x if type(x) is np.ndarray else np.asarray(x)


# ----- inputs for the declared checks -----


def random_matrix(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """Standard normal entries, complex ones for a complex ``dtype``."""
    x = rng.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=shape)
    return x


def well_conditioned(shape: tuple[int, ...]) -> Any:
    """A ``Generated`` stack of square matrices ``N + 2 sqrt(n) I``: condition numbers of a few units."""
    from chainrules_core.testing import Generated

    n = shape[-1]

    def make(rng: np.random.Generator, dtype: str) -> np.ndarray:
        return (random_matrix(rng, shape, dtype) + 2 * np.sqrt(n) * np.eye(n)).astype(dtype)

    return Generated(make, f"well-conditioned{shape}".replace(" ", ""))
