"""Second derivatives: Hessian-vector products and Hessians, by nesting the engines.

``hvp(f, primals, tangents)`` pushes the tangents forward through the
gradient of ``f`` (forward over reverse: one run of ``f`` on dual numbers,
whose tape the reverse engine walks back with dual numbers). Reverse over
reverse differentiates ``<gradient(f), v>`` with the reverse engine instead.
Both need pullbacks that are themselves differentiable, which the declared
checks verify at second order (``python -m chainrules check --order 2``).

>>> import numpy as np
>>> def f(x):
...     return np.sum(x**3)
>>> grad, hv = hvp(f, (np.array([1.0, 2.0]),), (np.array([1.0, 0.0]),))
>>> grad[0], hv[0]
(array([ 3., 12.]), array([6., 0.]))
>>> hessian(f, np.array([1.0, 2.0]))
array([[ 6.,  0.],
       [ 0., 12.]])
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from chainrules_core import AbstractZero, NoTangent, ZeroTangent, unthunk
from chainrules_core.arrays import device_of, is_complex_dtype, is_foreign_array, namespace_of

from ._structure import type_name
from .dual import jvp
from .tracker import gradient

Mode = Literal["forward-over-reverse", "reverse-over-reverse"]
_MODES = ("forward-over-reverse", "reverse-over-reverse")


def hvp(
    f: Callable[..., Any], primals: tuple[Any, ...], tangents: tuple[Any, ...], mode: Mode = "forward-over-reverse"
) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """``(gradient, H @ tangents)`` of a real scalar ``f``, one entry per argument.

    ``H @ tangents`` is the derivative of the gradient along ``tangents``:
    entry ``i`` is ``sum_j H_ij v_j``. ``mode="reverse-over-reverse"``
    computes it as the gradient of ``<gradient(f), v>``. Arguments are real
    numbers or arrays (ints get ``NoTangent()``); ``ZeroTangent()`` holds an
    argument fixed.

    >>> def f(x, y):
    ...     return x * x * y
    >>> hvp(f, (3.0, 2.0), (1.0, 0.0))
    ((12.0, 9.0), (4.0, 6.0))
    >>> hvp(f, (3.0, 2.0), (1.0, 0.0), mode="reverse-over-reverse")[1]
    (4.0, 6.0)
    """
    if mode not in _MODES:
        raise ValueError(f"hvp: mode must be one of {', '.join(_MODES)}, not {mode!r}")
    if len(primals) != len(tangents):
        raise ValueError(f"hvp: {len(tangents)} tangents for {len(primals)} primals")
    for i, x in enumerate(primals):
        if _is_complex(x):
            raise TypeError(f"hvp: argument {i + 1} is complex ({type_name(x)}); Hessians here are of real arguments")

    def grad(*xs: Any) -> tuple[Any, ...]:
        return gradient(f, *xs)

    if mode == "forward-over-reverse":
        g, g_dot = jvp(grad, tuple(primals), tuple(tangents))
        dots = _entries(g_dot, len(primals))
    else:
        g = gradient(f, *primals)

        def along(*xs: Any) -> Any:
            total: Any = 0.0
            for gi, vi in zip(grad(*xs), tangents):
                vi = unthunk(vi)
                if not isinstance(gi, AbstractZero) and not isinstance(vi, AbstractZero):
                    total = total + np.sum(gi * vi)  # a followed value's sum: its rule computes in its library
            return total

        dots = tuple(gradient(along, *primals)) if _moves(tangents) else (ZeroTangent(),) * len(primals)
    return tuple(g), tuple(NoTangent() if isinstance(gi, NoTangent) else d for gi, d in zip(g, dots))


def _moves(tangents: tuple[Any, ...]) -> bool:
    return any(not isinstance(unthunk(t), AbstractZero) for t in tangents)


def _entries(t: Any, n: int) -> tuple[Any, ...]:
    """The entries of a tuple's tangent (``Tangent(tuple, ...)`` or a zero)."""
    t = unthunk(t)
    if isinstance(t, AbstractZero):
        return (ZeroTangent(),) * n
    return tuple(t[i] for i in range(n))


def hessian(f: Callable[..., Any], *args: Any, mode: Mode = "forward-over-reverse") -> Any:
    """The Hessian of a real scalar ``f``, from one Hessian-vector product per input entry.

    For one argument of shape ``S`` it has shape ``S + S``; for several, it
    is a tuple of rows of blocks, ``H[i][j]`` of shape
    ``shape(args[i]) + shape(args[j])``. Arguments without a tangent space
    (ints, bools) get ``NoTangent()`` blocks.

    >>> def f(x, y):
    ...     return x * x * y
    >>> H = hessian(f, 3.0, 2.0)
    >>> float(H[0][0]), float(H[0][1]), float(H[1][1])
    (4.0, 6.0, 0.0)
    """
    shapes = []
    for i, x in enumerate(args):
        if _differentiable(x):
            shapes.append(tuple(getattr(x, "shape", ())))
        elif isinstance(x, (bool, int, np.integer)) or (isinstance(x, np.ndarray) and x.dtype.kind in "biu"):
            shapes.append(None)
        else:
            raise TypeError(f"hessian: argument {i + 1} is a {type_name(x)}; give real numbers or arrays")
    zeros = tuple(ZeroTangent() for _ in args)
    blocks: list[list[Any]] = [[NoTangent() for _ in args] for _ in args]
    for j, x in enumerate(args):
        if shapes[j] is None:
            continue
        columns: list[list[Any]] = [[] for _ in args]
        for k in range(int(np.prod(shapes[j], dtype=int))):
            direction = _basis(x, k)
            _, dots = hvp(f, args, (*zeros[:j], direction, *zeros[j + 1 :]), mode=mode)
            for i, d in enumerate(dots):
                if shapes[i] is not None:
                    columns[i].append(_dense(d, args[i]))
        for i in range(len(args)):
            if shapes[i] is not None:
                blocks[i][j] = _block(columns[i], args[i], shapes[i] + shapes[j])
    if len(args) == 1:
        return blocks[0][0]
    return tuple(tuple(row) for row in blocks)


def _is_complex(x: Any) -> bool:
    if is_foreign_array(x):
        return is_complex_dtype(namespace_of(x), x.dtype)
    return bool(np.iscomplexobj(x))


def _differentiable(x: Any) -> bool:
    """A real number or real array, numpy's or another library's."""
    if isinstance(x, float) or (isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind == "f"):
        return True
    return is_foreign_array(x) and bool(namespace_of(x).isdtype(x.dtype, "real floating"))


def _basis(x: Any, k: int) -> Any:
    """The ``k``-th unit vector in the type of ``x``: in its library and on its device for another library's."""
    if is_foreign_array(x):
        xp = namespace_of(x)
        n = math.prod(x.shape)
        e = xp.astype(xp.arange(n, device=device_of(x)) == k, x.dtype)
        return xp.reshape(e, tuple(x.shape))
    e = np.zeros(np.shape(x), dtype=np.result_type(x))
    e.flat[k] = 1
    if isinstance(x, np.ndarray):
        return e
    return e[()] if isinstance(x, np.generic) else e.item()


def _dense(t: Any, x: Any) -> Any:
    t = unthunk(t)
    if is_foreign_array(x):
        xp = namespace_of(x)
        return xp.zeros_like(x) if isinstance(t, AbstractZero) else t
    if isinstance(t, AbstractZero):
        return np.zeros(np.shape(x), dtype=np.result_type(x))
    return np.asarray(t, dtype=np.result_type(x))


def _block(columns: list[Any], x: Any, shape: tuple[int, ...]) -> Any:
    """The Hessian block whose columns (entries of ``x``'s shape) are ``columns``, of shape ``shape``."""
    if is_foreign_array(x):
        xp = namespace_of(x)
        if not columns:
            return xp.zeros(shape, dtype=x.dtype, device=device_of(x))
        return xp.reshape(xp.stack(columns, axis=-1), shape)
    stacked = np.stack(columns, axis=-1) if columns else np.zeros((*np.shape(x), 0))
    return stacked.reshape(shape)
