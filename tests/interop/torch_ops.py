"""The numpy functions of the declared cases written in PyTorch's own ops, with numpy's signatures.

``counterpart(f, dtype)`` is ``None`` where PyTorch has no op for ``f`` on
that dtype (complex ``max``, complex rounding); the case is then compared
against the rule itself.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from chainrules_core.testing import Case

torch = pytest.importorskip("torch", reason="PyTorch is optional: pip install 'chainrules[torch]'")


def _dims(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return tuple(sorted(a % ndim for a in axes))


def _torch_dtype(dtype: Any) -> torch.dtype:
    return torch.from_numpy(np.empty(0, dtype=dtype)).dtype


def _sum(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, initial: Any = 0.0, where: Any = None):
    if dtype is not None:
        x = x.to(_torch_dtype(dtype))
    if where is not None:
        x = torch.where(torch.as_tensor(where), x, 0)
    out = torch.sum(x, dim=_dims(axis, x.ndim), keepdim=keepdims) if x.ndim else x
    return out + initial


def _prod(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, initial: Any = 1.0, where: Any = None):
    if dtype is not None:
        x = x.to(_torch_dtype(dtype))
    if where is not None:
        x = torch.where(torch.as_tensor(where), x, 1)
    for d in reversed(_dims(axis, x.ndim)):
        x = torch.prod(x, dim=d, keepdim=keepdims)
    return x * initial


def _mean(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, where: Any = None):
    if dtype is not None:
        x = x.to(_torch_dtype(dtype))
    if where is None:
        return torch.mean(x, dim=_dims(axis, x.ndim), keepdim=keepdims)
    mask = torch.broadcast_to(torch.as_tensor(where), x.shape)
    dims = _dims(axis, x.ndim)
    return _sum(x, axis, keepdims=keepdims, where=mask) / torch.sum(mask, dim=dims, keepdim=keepdims)


def _extreme(reduce: Callable[..., Any], pick: Callable[..., Any]) -> Callable[..., Any]:
    def extreme(x: Any, axis: Any = None, keepdims: bool = False, initial: Any = None) -> Any:
        out = reduce(x, dim=_dims(axis, x.ndim), keepdim=keepdims)
        return out if initial is None else pick(out, torch.as_tensor(initial, dtype=x.dtype))

    return extreme


def _trace(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    return torch.diagonal(x, offset, axis1, axis2).sum(-1)


def _dot(a: Any, b: Any) -> Any:
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return torch.tensordot(a, b, dims=([a.ndim - 1], [max(b.ndim - 2, 0)]))


def _inner(a: Any, b: Any) -> Any:
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return torch.tensordot(a, b, dims=([a.ndim - 1], [b.ndim - 1]))


def _tensordot(a: Any, b: Any, axes: Any = 2) -> Any:
    if isinstance(axes, int):
        return torch.tensordot(a, b, dims=axes)
    first, second = ([x] if isinstance(x, int) else list(x) for x in axes)
    return torch.tensordot(a, b, dims=([d % a.ndim for d in first], [d % b.ndim for d in second]))


def _solve(a: Any, b: Any) -> Any:
    if b.ndim == 1:  # numpy: a 1-d b is a vector, anything else a stack of matrices
        return torch.linalg.solve(a, b.unsqueeze(-1)).squeeze(-1)
    return torch.linalg.solve(a, b)


def _cbrt(x: Any) -> Any:
    return torch.sign(x) * torch.abs(x) ** (1 / 3)


def _imag(x: Any) -> Any:
    return torch.imag(x) if x.is_complex() else torch.zeros_like(x)


def _sign(x: Any) -> Any:
    return torch.sgn(x) if x.is_complex() else torch.sign(x)


def _round(x: Any, decimals: int = 0) -> Any:
    return torch.round(x, decimals=decimals)


def _angle(x: Any, deg: bool = False) -> Any:
    return torch.rad2deg(torch.angle(x)) if deg else torch.angle(x)


ELEMENTWISE: dict[Any, Callable[..., Any]] = {
    np.negative: torch.neg,
    np.positive: torch.positive,
    np.sqrt: torch.sqrt,
    np.cbrt: _cbrt,
    np.square: torch.square,
    np.reciprocal: torch.reciprocal,
    np.exp: torch.exp,
    np.exp2: torch.exp2,
    np.expm1: torch.expm1,
    np.log: torch.log,
    np.log2: torch.log2,
    np.log10: torch.log10,
    np.log1p: torch.log1p,
    np.sin: torch.sin,
    np.cos: torch.cos,
    np.tan: torch.tan,
    np.arcsin: torch.asin,
    np.arccos: torch.acos,
    np.arctan: torch.atan,
    np.sinh: torch.sinh,
    np.cosh: torch.cosh,
    np.tanh: torch.tanh,
    np.arcsinh: torch.asinh,
    np.arccosh: torch.acosh,
    np.arctanh: torch.atanh,
    np.deg2rad: torch.deg2rad,
    np.radians: torch.deg2rad,
    np.rad2deg: torch.rad2deg,
    np.degrees: torch.rad2deg,
    np.absolute: torch.abs,
    np.fabs: torch.abs,
    np.conjugate: torch.conj_physical,
    np.real: torch.real,
    np.imag: _imag,
    np.angle: _angle,
    np.sign: _sign,
    np.floor: torch.floor,
    np.ceil: torch.ceil,
    np.trunc: torch.trunc,
    np.rint: torch.round,
    np.round: _round,
    np.around: _round,
}

REDUCTIONS: dict[Any, Callable[..., Any]] = {
    np.sum: _sum,
    np.prod: _prod,
    np.mean: _mean,
    np.max: _extreme(torch.amax, torch.maximum),
    np.amax: _extreme(torch.amax, torch.maximum),
    np.min: _extreme(torch.amin, torch.minimum),
    np.amin: _extreme(torch.amin, torch.minimum),
    np.trace: _trace,
}
REDUCTIONS.update(
    {getattr(np.ndarray, f.__name__): op for f, op in REDUCTIONS.items() if hasattr(np.ndarray, f.__name__)}
)

PRODUCTS: dict[Any, Callable[..., Any]] = {
    np.matmul: torch.matmul,
    np.linalg.matmul: torch.matmul,
    operator.matmul: torch.matmul,
    np.dot: _dot,
    np.vdot: lambda a, b: torch.vdot(a.flatten(), b.flatten()),
    np.inner: _inner,
    np.outer: lambda a, b: torch.outer(a.flatten(), b.flatten()),
    np.linalg.outer: torch.outer,
    np.tensordot: _tensordot,
    np.linalg.tensordot: _tensordot,
}

LINALG: dict[Any, Callable[..., Any]] = {
    np.linalg.inv: torch.linalg.inv,
    np.linalg.solve: _solve,
    np.linalg.det: torch.linalg.det,
    np.linalg.slogdet: torch.linalg.slogdet,
}

COUNTERPARTS = {**ELEMENTWISE, **REDUCTIONS, **PRODUCTS, **LINALG}

# PyTorch has no complex maximum, minimum or rounding.
REAL_ONLY = {np.max, np.amax, np.min, np.amin, np.ndarray.max, np.ndarray.min, np.rint, np.round, np.around}


def counterpart(case: Case, dtype: str) -> Callable[..., Any] | None:
    """PyTorch's version of the case's function, or ``None`` where PyTorch has none or disagrees."""
    if np.dtype(dtype).kind == "c" and case.f in REAL_ONLY:
        return None
    if case.f is np.linalg.det and "singular" in case.name:
        # torch.linalg.det's gradient at a singular matrix is zero; the derivative there is the
        # adjugate, which is nonzero at rank n - 1 (det([[1 + h, 2], [2, 4]]) = 4h).
        return None
    return COUNTERPARTS.get(case.f)
