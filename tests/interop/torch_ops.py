"""The numpy functions of the declared cases written in PyTorch's own ops, with numpy's signatures.

``counterpart(case, dtype)`` is a string saying why where PyTorch has no op
for the case's function on that dtype (complex ``max``, complex rounding, a
function none of its ops computes) or its derivative differs; the case is
then compared against the rule itself.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from chainrules_core.testing import Case
from tests.interop.checking import no_counterpart

torch = pytest.importorskip("torch", reason="PyTorch is optional: pip install 'chainrules[torch]'")


def _dims(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return tuple(sorted(a % max(ndim, 1) for a in axes))  # numpy and torch take axis 0 of a 0-d array


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


def _nan_to_num(x: Any, copy: bool = True, nan: Any = 0.0, posinf: Any = None, neginf: Any = None) -> Any:
    """numpy's replacement, part by part for complex numbers, in ``torch.where`` (differentiable in the fills)."""
    if x.is_complex():
        return torch.complex(*(_nan_to_num(p, copy, nan, posinf, neginf) for p in (x.real, x.imag)))
    big = torch.finfo(x.dtype).max
    posinf = big if posinf is None else posinf
    neginf = -big if neginf is None else neginf
    fills = [torch.as_tensor(v, dtype=x.dtype) for v in (nan, posinf, neginf)]
    return torch.where(x.isnan(), fills[0], torch.where(x.isposinf(), fills[1], torch.where(x.isneginf(), fills[2], x)))


def _modf(x: Any) -> Any:
    whole = torch.trunc(x)
    return x - whole, whole


def _frexp(x: Any) -> Any:
    mantissa, exponent = torch.frexp(x)
    return mantissa, exponent.to(torch.int32)


def _without_nan(fill: float, reduce: Callable[..., Any]) -> Callable[..., Any]:
    """numpy's nan-reduction: ``reduce`` of ``x`` with its NaNs replaced by ``fill``."""

    def nan_reduction(x: Any, axis: Any = None, *args: Any, **kwargs: Any) -> Any:
        return reduce(torch.where(x.isnan(), torch.as_tensor(fill, dtype=x.dtype), x), axis, *args, **kwargs)

    return nan_reduction


def _nanmean(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
    """The mean of the entries that are not NaN (``torch.nanmean`` takes no complex numbers)."""
    kept = ~x.isnan()
    return _sum(torch.where(kept, x, 0), axis, keepdims=keepdims) / _sum(kept.to(x.dtype), axis, keepdims=keepdims)


def _ptp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    dims = _dims(axis, x.ndim)
    return torch.amax(x, dim=dims, keepdim=keepdims) - torch.amin(x, dim=dims, keepdim=keepdims)


def _cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None) -> Any:
    """numpy's cross: vectors along ``axisa``/``axisb``, 2-vectors with a zero z component (two of them: the z
    component alone), broadcast, the result's vectors along ``axisc``."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = torch.movedim(a, axisa, -1), torch.movedim(b, axisb, -1)
    if a.shape[-1] == b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    a, b = (torch.nn.functional.pad(v, (0, 1)) if v.shape[-1] == 2 else v for v in (a, b))
    a, b = torch.broadcast_tensors(a, b)
    return torch.movedim(torch.linalg.cross(a, b, dim=-1), -1, axisc)


def _vecdot(a: Any, b: Any, axis: int = -1) -> Any:
    a, b = torch.broadcast_tensors(a, b)
    return torch.linalg.vecdot(a, b, dim=axis)


def _matvec(m: Any, v: Any) -> Any:
    return torch.matmul(m, v.unsqueeze(-1)).squeeze(-1)


def _vecmat(v: Any, m: Any) -> Any:
    return torch.matmul(v.conj().unsqueeze(-2), m).squeeze(-2)


def _tensorsolve(a: Any, b: Any, axes: Any = None) -> Any:
    return torch.linalg.tensorsolve(a, b, dims=axes)


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
    np.fix: torch.fix,
    np.sinc: torch.sinc,
    np.i0: torch.i0,
    np.nan_to_num: _nan_to_num,
    np.modf: _modf,
    np.frexp: _frexp,
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
    np.ptp: _ptp,
    np.nansum: _without_nan(0.0, _sum),
    np.nanprod: _without_nan(1.0, _prod),
    np.nanmean: _nanmean,
    np.nanmax: _without_nan(-np.inf, _extreme(torch.amax, torch.maximum)),
    np.nanmin: _without_nan(np.inf, _extreme(torch.amin, torch.minimum)),
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
    np.kron: torch.kron,
    np.cross: _cross,
    np.linalg.cross: lambda a, b, axis=-1: torch.linalg.cross(a, b, dim=axis),
    np.vecdot: _vecdot,
    np.linalg.vecdot: _vecdot,
    np.matvec: _matvec,
    np.vecmat: _vecmat,
}

LINALG: dict[Any, Callable[..., Any]] = {
    np.linalg.inv: torch.linalg.inv,
    np.linalg.solve: _solve,
    np.linalg.det: torch.linalg.det,
    np.linalg.slogdet: torch.linalg.slogdet,
    np.linalg.matrix_power: torch.linalg.matrix_power,
    np.linalg.multi_dot: torch.linalg.multi_dot,
    np.linalg.tensorinv: torch.linalg.tensorinv,
    np.linalg.tensorsolve: _tensorsolve,
}

COUNTERPARTS = {**ELEMENTWISE, **REDUCTIONS, **PRODUCTS, **LINALG}

ORDERED = {np.max, np.amax, np.min, np.amin, np.ndarray.max, np.ndarray.min, np.ptp, np.nanmax, np.nanmin}
ROUNDING = {np.rint, np.round, np.around}


def _complex(dtype: str) -> bool:
    return np.dtype(dtype).kind == "c"


# Where PyTorch has no op for a case or its derivative differs, the case is compared against the rule: (why, when).
DIFFERS: list[tuple[str, Callable[[Case, str], bool]]] = [
    ("PyTorch orders no complex numbers", lambda c, d: _complex(d) and c.f in ORDERED),
    ("PyTorch rounds no complex numbers", lambda c, d: _complex(d) and c.f in ROUNDING),
    (
        # det([[1 + h, 2], [2, 4]]) = 4h: the derivative at a rank n - 1 matrix is the adjugate, not zero.
        "torch.linalg.det's gradient at a singular matrix is zero",
        lambda c, d: c.f is np.linalg.det and "singular" in c.name,
    ),
]


def counterpart(case: Case, dtype: str, mode: str) -> Callable[..., Any] | str:
    """PyTorch's version of the case's function, or why the rule is the reference instead (the same in both modes)."""
    for why, applies in DIFFERS:
        if applies(case, dtype):
            return why
    return COUNTERPARTS.get(case.f, no_counterpart("torch"))
