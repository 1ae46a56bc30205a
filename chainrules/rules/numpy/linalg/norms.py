"""Norms: ``np.linalg.norm``, ``vector_norm``, ``matrix_norm``, and ``cond``.

A norm is real-valued, so one array ``g`` shaped like ``x`` (its gradient)
gives both rules: the pushforward ``Re(sum(conj(g) * x_dot))`` over the
reduced axes and the pullback ``out_bar * g`` (for complex ``x`` this is the
2×2 real Jacobian written in complex form: ``d|z| = Re(conj(z / |z|) dz)``).

Non-smooth points get the value a central difference gives (a norm is
even, ``|h| ||d||`` both ways, so its central difference at 0 is 0):

* the zero vector and the zero matrix, for every ord: gradient 0, never nan;
* a zero entry (``ord`` 1, inf, ``p < 1``, the matrix 1 and inf norms): 0;
* ``ord=inf`` / ``-inf`` (and matrix ``1``, ``-1``, ``inf``, ``-inf``) with
  ties: the gradient is split evenly among the tied entries (rows, columns);
* matrix ``2`` / ``-2`` with a repeated extreme singular value: split evenly
  among the tied singular pairs, ``U_t V_t^H / r``;
* matrix ``-2`` at a rank-deficient matrix (smallest singular value 0) and
  the zero singular values of ``nuc``: they contribute 0, so ``nuc`` has
  ``U_+ V_+^H`` over the nonzero singular values;
* ``ord=0`` counts the nonzero entries: a piecewise-constant function, its
  derivative is zero (``ZeroTangent()``).

Singular values count as tied, or as zero, within ``max(m, n) * eps * s_max``
(numpy's ``matrix_rank`` tolerance), as the SVD computes a repeated value
only to that accuracy.

``cond(x, p)`` is ``s_max / s_min`` for ``p`` in None, 2 (``s_min / s_max``
for -2), else ``norm(x, p) * norm(inv(x), p)``; its gradient is composed
from the norms' gradients above, ties and kinks included
(``d inv(x) = -inv(x) dx inv(x)``). A singular matrix is a pole of
``cond``: numpy returns ``inf`` (or about ``1 / eps`` when rounding leaves
``s_min`` above 0), and the cotangent is ``inf``/``nan`` with numpy's
warnings (or as large). ``cond(x, -2) = s_min / s_max`` is 0 there, a kink
like the norm's: its gradient is 0.

``vector_norm`` and ``matrix_norm``, which the Python Array API standard
names, run on every Array API library, the gradient computed in its
namespace (the same formulas, masks as ``where`` and float weights rather
than arithmetic on booleans). dask computes no norm from singular values
of a stack, nor an SVD of a matrix split in chunks both ways: those get
``TypeError``. ``norm`` and ``cond`` are numpy's alone.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

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
from chainrules_core.arrays import as_arrays_like, is_foreign_array, namespace_of, real_part

from ..._makers import rule_in_first
from ._common import adjoint, as_array, conjugate, inexact, inverse, linalg_call, nonzero_singular_values


def _astype(xp: Any, x: Any, dtype: Any) -> Any:
    return x.astype(dtype) if xp is np else xp.astype(x, dtype)


def _signed_extremes(xp: Any, x: Any, values: Any, axes: tuple[int, ...], largest: bool) -> Any:
    """``sign(x)`` where ``values`` is largest (smallest) over ``axes``, ties weighted ``1 / count``; 0 elsewhere."""
    if not math.prod(values.shape):  # numpy's norm of an empty array is 0, and the array has no entries to weigh
        return xp.zeros(x.shape, dtype=x.dtype) if xp is np else xp.zeros_like(x)
    extreme = (xp.max if largest else xp.min)(values, axis=axes, keepdims=True)
    mask = values == extreme
    if xp is np:
        weights = mask / np.sum(mask, axis=axes, keepdims=True)
        return np.where(mask, np.sign(x) * weights, 0).astype(x.dtype)
    ones = xp.astype(mask, values.dtype)  # the standard has no arithmetic on booleans
    weights = ones / xp.sum(ones, axis=axes, keepdims=True)
    return xp.astype(xp.where(mask, xp.sign(x) * weights, 0.0), x.dtype)


def _vector_gradient(xp: Any, x: Any, norm: Any, ord: Any, axes: tuple[int, ...]) -> Any:
    """``d norm / d x`` for a vector norm over ``axes``; ``norm`` has those axes kept. None for ``ord=0``."""
    if ord in (None, 2):
        nonzero = norm != 0  # no out=: an engine may follow these
        return xp.where(nonzero, x / xp.where(nonzero, norm, 1.0), 0.0)
    if ord == 0:
        return None
    if ord == 1:
        return xp.sign(x)  # x / |x|, 0 at 0 (complex numbers too)
    magnitude = xp.abs(x)
    if ord in (math.inf, -math.inf):
        return _signed_extremes(xp, x, magnitude, axes, ord > 0)
    p = float(ord)
    # d/dx_i (sum |x|^p)^(1/p) = sign(x_i) (|x_i| / norm)^(p - 1)
    nonzero = (magnitude != 0) & (norm != 0)
    ratio = xp.where(nonzero, magnitude / xp.where(nonzero, norm, 1.0), 1.0)  # no out=: an engine may follow these
    return _astype(xp, xp.where(nonzero, xp.sign(x) * ratio ** (p - 1), 0.0), x.dtype)


def _spectral_gradient(x: Any, ord: Any, svd: Any = None, xp: Any = np) -> Any:
    """The gradient of the matrix norms ``nuc``, 2 and -2: ``U diag(weights) Vh``.

    ``d s_i = Re(u_i^H dA v_i)`` (Townsend 2016, the diagonal term); the
    weights are 1 for ``nuc`` and ``1 / r`` on the ``r`` singular values
    tied with the largest (2) or smallest (-2), and 0 on singular values
    that are zero up to rounding (the central difference at that kink).
    """
    u, s, vh = xp.linalg.svd(x, full_matrices=False) if svd is None else svd
    weights = nonzero_singular_values(s, x.shape, xp)
    if xp is not np:
        weights = xp.astype(weights, s.dtype)  # the standard has no arithmetic on booleans
    if ord != "nuc":
        tol = s[..., :1] * max(x.shape[-2:]) * xp.finfo(s.dtype).eps
        tied = xp.abs(s - (s[..., :1] if ord == 2 else s[..., -1:])) <= tol
        if xp is not np:
            tied = xp.astype(tied, s.dtype)
        weights = weights * tied / xp.sum(tied, axis=-1, keepdims=True)
    if xp is np:
        return (u * weights[..., None, :].astype(u.dtype)) @ vh
    return (u * xp.astype(xp.expand_dims(weights, axis=-2), u.dtype)) @ vh


def _matrix_gradient(x: Any, norm: Any, ord: Any, xp: Any = np) -> Any:
    """``d norm / d x`` for a matrix norm over the last two axes; ``norm`` has them kept."""
    if ord in ("fro", None):
        return _vector_gradient(xp, x, norm, 2, (-2, -1))
    if ord in ("nuc", 2, -2):
        return _spectral_gradient(x, ord, xp=xp)
    if ord in (1, -1):  # the largest (smallest) column sum
        return _signed_extremes(xp, x, xp.sum(xp.abs(x), axis=-2, keepdims=True), (-1,), ord > 0)
    if ord in (math.inf, -math.inf):  # the largest (smallest) row sum
        return _signed_extremes(xp, x, xp.sum(xp.abs(x), axis=-1, keepdims=True), (-2,), ord > 0)
    raise ValueError(f"np.linalg.norm: no derivative for the matrix norm ord={ord!r}")


def _kept_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def _norm_gradient(xp: Any, x: Any, out: Any, ord: Any, axes: tuple[int, ...], matrix: bool) -> Any:
    kept = xp.reshape(out, _kept_shape(x.shape, axes))
    if not matrix:
        return _vector_gradient(xp, x, kept, ord, axes)
    moved = xp.moveaxis(x, axes, (-2, -1))
    g = _matrix_gradient(moved, xp.moveaxis(kept, axes, (-2, -1)), ord, xp)
    return xp.moveaxis(g, (-2, -1), axes)


class _Norm:
    """One call of a norm: the primal, which norm it is, and its gradient on demand."""

    def __init__(
        self, f: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any], ord: Any, axis: Any, matrix: bool | None
    ) -> None:
        self.xp = xp = namespace_of(x)
        self.f, self.out = f, linalg_call(xp, f, x, *args, **kwargs)
        self.x = inexact(as_array(x) if xp is np else x, xp)
        self.project_x = ProjectTo(x)
        self.n_extra = len(args)
        self.keepdims = bool(kwargs.get("keepdims", args[2] if len(args) > 2 else False))
        ndim = self.x.ndim
        axes = range(ndim) if axis is None else (axis,) if isinstance(axis, (int, np.integer)) else axis
        self.ord, self.axes = ord, tuple(int(a) % ndim for a in axes)
        self.matrix = len(self.axes) == 2 if matrix is None else matrix

    def gradient(self) -> Any:
        return _norm_gradient(self.xp, self.x, self.out, self.ord, self.axes, self.matrix)

    def rrule(self) -> Any:
        shape = value_shape(self.out)

        def norm_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = checked_seed(self.f, out_bar, shape)
            g = None if isinstance(out_bar, AbstractZero) or self.project_x.is_no_tangent else self.gradient()
            extra = (NoTangent(),) * self.n_extra
            if g is None:
                return NoTangent(), self.project_x(ZeroTangent()), *extra
            xp = self.xp
            if is_foreign_array(self.out) and isinstance(out_bar, (int, float, complex)):  # the seed of a 0-d norm
                (out_bar,) = as_arrays_like(self.out, out_bar)
            kept = xp.reshape(real_part(xp, out_bar), _kept_shape(self.x.shape, self.axes))
            return NoTangent(), self.project_x(kept * g), *extra

        return self.out, norm_pullback

    def frule(self, tangents: tuple[Any, ...]) -> Any:
        x_dot = checked_tangent(self.f, tangents[1], self.x, 1)
        g = None if isinstance(x_dot, AbstractZero) or self.project_x.is_no_tangent else self.gradient()
        if g is None:
            return self.out, ZeroTangent()
        xp = self.xp
        out_dot = xp.sum(real_part(xp, conjugate(g, xp) * x_dot), axis=self.axes, keepdims=self.keepdims)
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


@rrule.register(np.linalg.vector_norm, generic=True)
def _rrule_vector_norm(f: Any, x: Any, **kwargs: Any) -> Any:
    return _vector_norm(f, x, kwargs).rrule()


@frule.register(np.linalg.vector_norm, generic=True)
def _frule_vector_norm(tangents: tuple[Any, ...], f: Any, x: Any, **kwargs: Any) -> Any:
    return _vector_norm(f, x, kwargs).frule(tangents)


def _matrix_norm(f: Any, x: Any, kwargs: dict[str, Any]) -> _Norm:
    return _Norm(f, x, (), kwargs, kwargs.get("ord", "fro"), (-2, -1), matrix=True)


@rrule.register(np.linalg.matrix_norm, generic=True)
def _rrule_matrix_norm(f: Any, x: Any, **kwargs: Any) -> Any:
    return _matrix_norm(f, x, kwargs).rrule()


@frule.register(np.linalg.matrix_norm, generic=True)
def _frule_matrix_norm(tangents: tuple[Any, ...], f: Any, x: Any, **kwargs: Any) -> Any:
    return _matrix_norm(f, x, kwargs).frule(tangents)


# ----- cond -----


def _cond_parse(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if len(args) > 1 or not kwargs.keys() <= {"p"}:
        return None
    return {"p": args[0] if args else kwargs.get("p")}


class _Cond:
    """One call of ``cond``: its input and ``p``; the gradient is computed when a rule needs it."""

    def __init__(self, x: Any, options: dict[str, Any], out: Any) -> None:
        x_arr = as_array(x)
        self.x = x_arr if x_arr.dtype.kind in "fc" else x_arr.astype(np.float64)
        self.p = options["p"]

    def gradient(self) -> tuple[np.ndarray, np.ndarray]:
        """``(g, c)``: the gradient is ``g / c``, divided last (after the seed), as it may exceed float64."""
        # cond(c x) = cond(x): the gradient at x is the gradient at x / c over c, with c = max |x|, so the
        # SVD and the inverse see entries of size 1 (LAPACK's SVD does not converge on subnormal ones)
        c = np.max(np.abs(self.x), axis=(-2, -1), keepdims=True) if self.x.size else np.ones(())
        c = np.where((c > 0) & np.isfinite(c), c, 1.0).astype(self.x.real.dtype)
        return self._gradient(self.x / c), c

    def _gradient(self, x: np.ndarray) -> np.ndarray:
        p = self.p
        if p in (None, 2, -2):  # s_max / s_min (s_min / s_max for -2), from one SVD
            svd = np.linalg.svd(x, full_matrices=False)
            s = svd[1]
            top, bottom = (s[..., -1:], s[..., :1]) if p == -2 else (s[..., :1], s[..., -1:])
            g_top = _spectral_gradient(x, -2 if p == -2 else 2, svd)
            g_bottom = _spectral_gradient(x, 2 if p == -2 else -2, svd)
            return (g_top - (top / bottom)[..., None] * g_bottom) / bottom[..., None]  # no s² to overflow
        inv = inverse(x)
        norm_x = np.linalg.norm(x, p, axis=(-2, -1), keepdims=True)
        norm_inv = np.linalg.norm(inv, p, axis=(-2, -1), keepdims=True)
        g_x, g_inv = _matrix_gradient(x, norm_x, p), _matrix_gradient(inv, norm_inv, p)
        return norm_inv * g_x - ((norm_x * adjoint(inv)) @ g_inv) @ adjoint(inv)  # no |x|^-2 to underflow


def _cond_cotangent(state: _Cond, out_bar: Any) -> Any:
    g, c = state.gradient()
    return np.asarray(np.real(out_bar))[..., None, None] * g / c


def _cond_pushforward(state: _Cond, x_dot: Any) -> Any:
    g, c = state.gradient()
    return np.sum(np.real(g.conj() * (x_dot / c)), axis=(-2, -1))


rule_in_first(np.linalg.cond, parse=_cond_parse, prepare=_Cond, cotangent=_cond_cotangent, tangent=_cond_pushforward)
