"""Norms: ``np.linalg.norm``, ``vector_norm`` and ``matrix_norm``.

A norm is real-valued, so one array ``g`` shaped like ``x`` (its gradient)
gives both rules: the pushforward ``Re(sum(conj(g) * x_dot))`` over the
reduced axes and the pullback ``out_bar * g`` (for complex ``x`` this is the
2×2 real Jacobian written in complex form: ``d|z| = Re(conj(z / |z|) dz)``).

Non-smooth points, each the value a central difference gives:

* the zero vector (any ord) and zero entries: gradient 0, never nan;
* ``ord=inf`` / ``-inf`` (and matrix ``1``, ``-1``, ``inf``, ``-inf``) with
  ties: the gradient is split evenly among the tied entries (rows, columns);
* ``ord=0`` counts the nonzero entries: a piecewise-constant function, its
  derivative is zero (``ZeroTangent()``);
* ``p < 1`` at a zero entry: the derivative is unbounded there; the rule
  gives 0, the symmetric value;
* matrix ``2`` / ``-2`` with a repeated extreme singular value, and ``nuc``
  with a zero singular value: ``u_1 v_1^H`` (``u_n v_n^H``, ``U V^H``) from
  numpy's SVD, one subgradient.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, ProjectTo, ZeroTangent, frule, rrule, unthunk

from ._linalg_common import as_array


def _sign(x: np.ndarray) -> np.ndarray:
    """``x / |x|``, 0 at 0 (numpy's ``sign`` for complex numbers too)."""
    return np.sign(x)


def _signed_extremes(x: np.ndarray, values: np.ndarray, axes: tuple[int, ...], largest: bool) -> np.ndarray:
    """``sign(x)`` where ``values`` is largest (smallest) over ``axes``, ties weighted ``1 / count``; 0 elsewhere."""
    extreme = (np.max if largest else np.min)(values, axis=axes, keepdims=True)
    mask = values == extreme
    weights = mask / np.sum(mask, axis=axes, keepdims=True)
    return np.where(mask, _sign(x) * weights, 0).astype(x.dtype)


def _vector_gradient(x: np.ndarray, norm: np.ndarray, ord: Any, axes: tuple[int, ...]) -> np.ndarray | None:
    """``d norm / d x`` for a vector norm over ``axes``; ``norm`` has those axes kept. None for ``ord=0``."""
    if ord in (None, 2):
        return np.divide(x, norm, out=np.zeros(np.broadcast_shapes(x.shape, norm.shape), x.dtype), where=norm != 0)
    if ord == 0:
        return None
    if ord == 1:
        return _sign(x)
    magnitude = np.abs(x)
    if ord in (math.inf, -math.inf):
        return _signed_extremes(x, magnitude, axes, ord > 0)
    p = float(ord)
    # d/dx_i (sum |x|^p)^(1/p) = sign(x_i) (|x_i| / norm)^(p - 1)
    nonzero = (magnitude != 0) & (norm != 0)
    ratio = np.divide(magnitude, norm, out=np.ones(nonzero.shape, magnitude.dtype), where=nonzero)
    return np.where(nonzero, _sign(x) * ratio ** (p - 1), 0).astype(x.dtype)


def _matrix_gradient(x: np.ndarray, norm: np.ndarray, ord: Any) -> np.ndarray:
    """``d norm / d x`` for a matrix norm over the last two axes; ``norm`` has them kept."""
    if ord in ("fro", None):
        return _vector_gradient(x, norm, 2, (-2, -1))  # type: ignore[return-value]
    if ord in ("nuc", 2, -2):
        u, _, vh = np.linalg.svd(x, full_matrices=False)
        if ord == "nuc":
            return u @ vh  # d sum(s) = Re tr((U Vh)^H dA) (Townsend 2016, the diagonal term)
        k = 0 if ord == 2 else -1
        return u[..., :, k, None] * vh[..., None, k, :]
    if ord in (1, -1):  # the largest (smallest) column sum
        return _signed_extremes(x, np.sum(np.abs(x), axis=-2, keepdims=True), (-1,), ord > 0)
    if ord in (math.inf, -math.inf):  # the largest (smallest) row sum
        return _signed_extremes(x, np.sum(np.abs(x), axis=-1, keepdims=True), (-2,), ord > 0)
    raise ValueError(f"np.linalg.norm: no derivative for the matrix norm ord={ord!r}")


def _kept_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> list[int]:
    return [1 if i in axes else n for i, n in enumerate(shape)]


def _norm_gradient(x: np.ndarray, out: Any, ord: Any, axes: tuple[int, ...], matrix: bool) -> np.ndarray | None:
    kept = np.reshape(out, _kept_shape(x.shape, axes))
    if not matrix:
        return _vector_gradient(x, kept, ord, axes)
    moved = np.moveaxis(x, axes, (-2, -1))
    g = _matrix_gradient(moved, np.moveaxis(kept, axes, (-2, -1)), ord)
    return np.moveaxis(g, (-2, -1), axes)


class _Norm:
    """One call of a norm: the primal, which norm it is, and its gradient on demand."""

    def __init__(
        self, f: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any], ord: Any, axis: Any, matrix: bool | None
    ) -> None:
        self.out = f(x, *args, **kwargs)
        x_arr = as_array(x)
        self.x = x_arr if x_arr.dtype.kind in "fc" else x_arr.astype(np.float64)
        self.project_x = ProjectTo(x)
        self.n_extra = len(args)
        self.keepdims = bool(kwargs.get("keepdims", args[2] if len(args) > 2 else False))
        ndim = self.x.ndim
        axes = range(ndim) if axis is None else (axis,) if isinstance(axis, (int, np.integer)) else axis
        self.ord, self.axes = ord, tuple(int(a) % ndim for a in axes)
        self.matrix = len(self.axes) == 2 if matrix is None else matrix

    def gradient(self) -> np.ndarray | None:
        return _norm_gradient(self.x, self.out, self.ord, self.axes, self.matrix)

    def rrule(self) -> Any:
        def norm_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = unthunk(out_bar)
            g = None if isinstance(out_bar, AbstractZero) or self.project_x.is_no_tangent else self.gradient()
            extra = (NoTangent(),) * self.n_extra
            if g is None:
                return NoTangent(), self.project_x(ZeroTangent()), *extra
            kept = np.reshape(np.real(out_bar), _kept_shape(self.x.shape, self.axes))
            return NoTangent(), self.project_x(kept * g), *extra

        return self.out, norm_pullback

    def frule(self, tangents: tuple[Any, ...]) -> Any:
        x_dot = unthunk(tangents[1])
        g = None if isinstance(x_dot, AbstractZero) or self.project_x.is_no_tangent else self.gradient()
        if g is None:
            return self.out, ZeroTangent()
        out_dot = np.sum(np.real(g.conj() * x_dot), axis=self.axes, keepdims=self.keepdims)
        return self.out, ProjectTo(self.out)(out_dot)


# ----- the three entry points: which norm, over which axes -----


def _linalg_norm(f: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> _Norm:
    bound = dict(zip(("ord", "axis", "keepdims"), args)) | kwargs
    ord, axis = bound.get("ord"), bound.get("axis")
    if ord is None and axis is None:  # the 2-norm of x flattened, whatever its shape
        return _Norm(f, x, args, kwargs, 2, None, matrix=False)
    return _Norm(f, x, args, kwargs, ord, axis, matrix=None)


@rrule.register(np.linalg.norm)
def _rrule_linalg_norm(f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return _linalg_norm(f, x, args, kwargs).rrule()


@frule.register(np.linalg.norm)
def _frule_linalg_norm(tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return _linalg_norm(f, x, args, kwargs).frule(tangents)


def _vector_norm(f: Any, x: Any, kwargs: dict[str, Any]) -> _Norm:
    return _Norm(f, x, (), kwargs, kwargs.get("ord", 2), kwargs.get("axis"), matrix=False)


@rrule.register(np.linalg.vector_norm)
def _rrule_vector_norm(f: Any, x: Any, **kwargs: Any) -> Any:
    return _vector_norm(f, x, kwargs).rrule()


@frule.register(np.linalg.vector_norm)
def _frule_vector_norm(tangents: tuple[Any, ...], f: Any, x: Any, **kwargs: Any) -> Any:
    return _vector_norm(f, x, kwargs).frule(tangents)


def _matrix_norm(f: Any, x: Any, kwargs: dict[str, Any]) -> _Norm:
    return _Norm(f, x, (), kwargs, kwargs.get("ord", "fro"), (-2, -1), matrix=True)


@rrule.register(np.linalg.matrix_norm)
def _rrule_matrix_norm(f: Any, x: Any, **kwargs: Any) -> Any:
    return _matrix_norm(f, x, kwargs).rrule()


@frule.register(np.linalg.matrix_norm)
def _frule_matrix_norm(tangents: tuple[Any, ...], f: Any, x: Any, **kwargs: Any) -> Any:
    return _matrix_norm(f, x, kwargs).frule(tangents)
