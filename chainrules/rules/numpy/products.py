"""Products: matmul (and ``@``), dot, vdot, inner, outer, tensordot, einsum.

Every product here is linear in each operand, so the pushforward is the sum
of the product with one operand replaced by its tangent, and the pullback of
an operand is the contraction of the output cotangent with the conjugates of
the other operands (Giles 2008, "An extended collection of matrix derivative
results", section 2.2; conjugated for the complex convention of
ChainRules.jl). Each operand's cotangent is a ``Thunk``: an engine that needs
only one pays for one product.

Calls with keyword arguments other than ``axes`` (tensordot) and ``optimize``
(einsum) get no rule (``None``): ``out=``, ``dtype=``, ``casting=`` and the
gufunc keywords of matmul are left to the engine.

The products the Python Array API standard names (``matmul``,
``tensordot``, ``vecdot``, ``linalg.outer``, ``linalg.cross``) run on every
Array API library, their cotangents computed in the namespace of the
arrays. ``dot``, ``inner``, ``outer`` and ``vdot``, which the standard lacks,
run on the libraries that answer numpy's functions themselves (dask, CuPy):
``inner`` as a ``tensordot`` there (dask has no ``inner``). ``linalg.cross``
of a library without one (dask) is computed from the components. ``kron``,
``cross``, ``matvec`` and ``vecmat`` are numpy's alone.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    Thunk,
    ZeroTangent,
    checked_seed,
    frule,
    named_after,
    rrule,
    sum_to_shape,
)
from chainrules_core.array_api import implements, standard_name
from chainrules_core.arrays import first_foreign_array, namespace_of, refusal
from chainrules_core.projection import project_onto

from .._arrays import bind_options
from ._bilinear import Cotangents, bilinear_rule, numeric_seed
from .linalg._common import adjoint, conjugate, matmul_summed

# ----- matmul -----

_NO_TANGENT = NoTangent()


def _matmul_cotangents(a: Any, b: Any, g: Any) -> tuple[Any, Any]:
    """Functions computing the unprojected cotangents of ``a`` and ``b`` in ``a @ b``."""
    xp = namespace_of(a, b, g)
    if a.ndim == 1 and b.ndim == 1:
        return (lambda: g * conjugate(b, xp)), (lambda: conjugate(a, xp) * g)
    if a.ndim == 2 and b.ndim == 2:  # no batch axes to sum over
        return (lambda: g @ adjoint(b, xp)), (lambda: adjoint(a, xp) @ g)
    a2 = xp.expand_dims(a, axis=0) if a.ndim == 1 else a
    b2 = xp.expand_dims(b, axis=-1) if b.ndim == 1 else b
    if a.ndim == 1:
        g = xp.expand_dims(g, axis=-2)
    if b.ndim == 1:
        g = xp.expand_dims(g, axis=-1)

    def a_bar() -> Any:
        return xp.reshape(matmul_summed(g, adjoint(b2, xp), a2.shape, xp), a.shape)

    def b_bar() -> Any:
        return xp.reshape(matmul_summed(adjoint(a2, xp), g, b2.shape, xp), b.shape)

    return a_bar, b_bar


def _matmul_cotangents_of(a: Any, b: Any, **kwargs: Any) -> Cotangents | None:
    return None if kwargs else _matmul_cotangents


for _f in (np.matmul, np.linalg.matmul):
    bilinear_rule(_f, _matmul_cotangents_of, generic=True)

# ``a @ b`` reaches numpy only when an operand is an array; numpy refuses scalars in matmul.
_MATMUL_OPERANDS = [(np.ndarray, np.ndarray)]
_MATMUL_OPERANDS += [pair for t in (list, tuple) for pair in [(np.ndarray, t), (t, np.ndarray)]]
for _types in _MATMUL_OPERANDS:
    bilinear_rule(operator.matmul, _matmul_cotangents_of, *_types)


# ----- tensordot, dot, inner, outer -----


def _normalize_axes(axes: Any, a_ndim: int, b_ndim: int) -> tuple[list[int], list[int]]:
    """tensordot's ``axes`` as two lists of non-negative axes, paired in order."""
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        return list(range(a_ndim - n, a_ndim)), list(range(n))
    ax_a, ax_b = axes
    ax_a = [ax_a] if isinstance(ax_a, (int, np.integer)) else list(ax_a)
    ax_b = [ax_b] if isinstance(ax_b, (int, np.integer)) else list(ax_b)
    return [int(i) % max(a_ndim, 1) for i in ax_a], [int(j) % max(b_ndim, 1) for j in ax_b]


def _tensordot_cotangents(a: Any, b: Any, ax_a: list[int], ax_b: list[int], g: Any) -> Any:
    """Functions computing the cotangents of ``a`` and ``b`` in ``tensordot(a, b, (ax_a, ax_b))``.

    The output's axes are the free axes of ``a`` then those of ``b``; each
    cotangent contracts ``g`` with the other operand over that operand's free
    axes and puts the axes back in the operand's order (as autograd's
    ``tensordot_adjoint_0/1`` do).
    """
    xp = namespace_of(a, b, g)
    if xp is not np and (a.ndim == 0 or b.ndim == 0):  # a scaling: the standard's tensordot takes no 0-d operand
        return _scaling_cotangents(xp, a, b, g)
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [j for j in range(b.ndim) if j not in ax_b]
    n_free_a = len(free_a)

    # a 0-d g (a full contraction, dot of two vectors): each cotangent is the other operand scaled, which dask
    # computes chunk by chunk, where its tensordot of no axes would add a reduction per chunk
    scaled = xp is not np and g.ndim == 0

    def a_bar() -> Any:
        c = conjugate(b, xp)
        r = c * g if scaled else xp.tensordot(g, c, axes=(list(range(n_free_a, g.ndim)), free_b))
        return _ordered(xp, r, free_a + [ax_a[ax_b.index(j)] for j in sorted(ax_b)])

    def b_bar() -> Any:
        c = conjugate(a, xp)
        r = c * g if scaled else xp.tensordot(c, g, axes=(free_a, list(range(n_free_a))))
        return _ordered(xp, r, [ax_b[ax_a.index(i)] for i in sorted(ax_a)] + free_b)

    return a_bar, b_bar


def _scaling_cotangents(xp: Any, a: Any, b: Any, g: Any) -> Any:
    """The cotangents of ``a * b`` with ``a`` or ``b`` 0-d: ``g conj(b)`` and ``conj(a) g``, summed for the 0-d."""

    def a_bar() -> Any:
        r = g * conjugate(b, xp)
        return xp.sum(r) if a.ndim == 0 else r

    def b_bar() -> Any:
        r = conjugate(a, xp) * g
        return xp.sum(r) if b.ndim == 0 else r

    return a_bar, b_bar


def _ordered(xp: Any, r: Any, order: list[int]) -> Any:
    """``r``, whose axis ``k`` is axis ``order[k]`` of an operand, with its axes in the operand's order."""
    if xp is np:
        return np.transpose(r, np.argsort(order))
    return xp.permute_dims(r, tuple(sorted(range(len(order)), key=order.__getitem__)))


def _contraction(axes_of: Callable[..., Any]) -> Callable[..., Cotangents | None]:
    """``cotangents_of`` for a product that is a ``tensordot`` with axes ``axes_of(a, b, *rest, **kwargs)``."""

    def cotangents_of(a: Any, b: Any, *rest: Any, **kwargs: Any) -> Cotangents | None:
        axes = axes_of(a, b, *rest, **kwargs)
        if axes is None:
            return None
        ax_a, ax_b = _normalize_axes(axes, np.ndim(a), np.ndim(b))
        return lambda a_arr, b_arr, g: _tensordot_cotangents(a_arr, b_arr, ax_a, ax_b, g)

    return cotangents_of


def _tensordot_axes(a: Any, b: Any, axes: Any = 2, *rest: Any, **kwargs: Any) -> Any:
    return None if rest or kwargs else axes


def _dot_axes(a: Any, b: Any, *rest: Any, **kwargs: Any) -> Any:
    if rest or kwargs:
        return None
    a_ndim, b_ndim = np.ndim(a), np.ndim(b)
    if a_ndim == 0 or b_ndim == 0:
        return 0
    return [a_ndim - 1], [0 if b_ndim == 1 else b_ndim - 2]


def _inner_axes(a: Any, b: Any, *rest: Any, **kwargs: Any) -> Any:
    if rest or kwargs:
        return None
    return 0 if np.ndim(a) == 0 or np.ndim(b) == 0 else ([-1], [-1])


def _contracted_in(f: Any, axes_of: Callable[..., Any]) -> Callable[..., Any]:
    """The output of ``f``, a ``tensordot`` with axes ``axes_of(a, b, *rest, **kwargs)``, on another library's
    arrays: the standard's ``tensordot`` with the axes as two lists (what it takes), a product where an operand
    is 0-d (which it refuses). ``dot`` and ``inner``, which the standard lacks, run on the libraries that answer
    numpy's functions themselves (dask's ``dot`` takes no 0-d operand, and it has no ``inner``)."""
    in_standard = standard_name(f) is not None

    def primal(xp: Any, a: Any, b: Any, *rest: Any, **kwargs: Any) -> Any:
        array = first_foreign_array((a, b))
        if not in_standard and not implements(array, np.tensordot):
            raise refusal(f, array, "the Python Array API standard has no such function")
        a_ndim, b_ndim = np.ndim(a), np.ndim(b)
        if a_ndim == 0 or b_ndim == 0:
            return a * b
        return xp.tensordot(a, b, axes=_normalize_axes(axes_of(a, b, *rest, **kwargs), a_ndim, b_ndim))

    return primal


for _f, _axes_of in [
    (np.tensordot, _tensordot_axes),
    (np.linalg.tensordot, _tensordot_axes),
    (np.dot, _dot_axes),
    (np.inner, _inner_axes),
]:
    bilinear_rule(_f, _contraction(_axes_of), generic=True, primal=_contracted_in(_f, _axes_of))


def _outer_cotangents(a: Any, b: Any, g: Any) -> Any:
    xp = namespace_of(a, b, g)
    a_flat, b_flat = xp.reshape(a, (-1,)), xp.reshape(b, (-1,))
    return (lambda: xp.reshape(g @ conjugate(b_flat, xp), a.shape)), (
        lambda: xp.reshape(conjugate(a_flat, xp) @ g, b.shape)
    )


def _vdot_cotangents(a: Any, b: Any, g: Any) -> Any:
    # vdot(a, b) = sum(conj(a) * b) is antiholomorphic in a: a_bar = conj(out_bar) * b.
    xp = namespace_of(a, b, g)
    return (lambda: xp.reshape(conjugate(g, xp) * b, a.shape)), (lambda: xp.reshape(g * a, b.shape))


def _without_keywords(cotangents: Cotangents) -> Callable[..., Cotangents | None]:
    return lambda a, b, *rest, **kwargs: None if rest or kwargs else cotangents


for _f in (np.outer, np.linalg.outer):
    bilinear_rule(_f, _without_keywords(_outer_cotangents), generic=True)
bilinear_rule(np.vdot, _without_keywords(_vdot_cotangents), generic=True)


# ----- kron -----


def _kron_cotangents(a: np.ndarray, b: np.ndarray, g: np.ndarray) -> Any:
    """``kron(a, b)`` reshaped to interleaved axes ``(a0, b0, a1, b1, ...)`` is ``a[i0, i1, ...] b[j0, j1, ...]``.

    Each cotangent contracts that view of the seed with the other operand's
    conjugate over the other operand's axes (autograd's ``grad_kron``, conjugated).
    """
    nd = max(a.ndim, b.ndim)
    a_full = a.reshape((1,) * (nd - a.ndim) + a.shape)
    b_full = b.reshape((1,) * (nd - b.ndim) + b.shape)
    interleaved = g.reshape([n for pair in zip(a_full.shape, b_full.shape) for n in pair])
    split = interleaved.transpose([*range(0, 2 * nd, 2), *range(1, 2 * nd, 2)])  # a's axes, then b's

    def a_bar() -> np.ndarray:
        return np.tensordot(split, b_full.conj(), axes=nd).reshape(a.shape)

    def b_bar() -> np.ndarray:
        return np.tensordot(a_full.conj(), split, axes=nd).reshape(b.shape)

    return a_bar, b_bar


bilinear_rule(np.kron, _without_keywords(_kron_cotangents))


# ----- cross -----

_CROSS_ARGS = ("axisa", "axisb", "axisc", "axis")


def _padded(v: np.ndarray) -> np.ndarray:
    """2-vectors (along the last axis) as 3-vectors with a zero third component."""
    return v if v.shape[-1] == 3 else np.concatenate([v, np.zeros_like(v[..., :1])], axis=-1)


def _cross_cotangents_of(a: Any, b: Any, *args: Any, **kwargs: Any) -> Cotangents | None:
    """``c = a x b`` is linear in each: ``a_bar = conj(b) x c_bar`` and ``b_bar = c_bar x conj(a)``.

    These are autograd's ``cross`` VJPs, conjugated for the complex convention.
    The adjoint of ``a -> a x b = -[b]_x a`` is ``-[b]_x^H = conj([b]_x)``
    (``[b]_x`` is antisymmetric). 2-vectors are 3-vectors with a zero third
    component, which gets no cotangent; two 2-vectors give the third
    component alone. Broadcast axes are summed back.
    """
    options = bind_options(_CROSS_ARGS, args, kwargs, axisa=-1, axisb=-1, axisc=-1)
    if options["axis"] is not None:
        options["axisa"] = options["axisb"] = options["axisc"] = options["axis"]
    axisa, axisb, axisc = (int(options[name]) for name in _CROSS_ARGS[:3])

    def cotangents(a: np.ndarray, b: np.ndarray, g: np.ndarray) -> Any:
        a_moved, b_moved = np.moveaxis(a, axisa, -1), np.moveaxis(b, axisb, -1)
        if a_moved.shape[-1] == 2 and b_moved.shape[-1] == 2:
            g3 = np.stack([np.zeros_like(g), np.zeros_like(g), g], axis=-1)
        else:
            g3 = np.moveaxis(g, axisc, -1)

        def a_bar() -> np.ndarray:
            x_bar = np.cross(_padded(b_moved).conj(), g3)[..., : a_moved.shape[-1]]
            return np.moveaxis(sum_to_shape(x_bar, a_moved.shape), -1, axisa)

        def b_bar() -> np.ndarray:
            x_bar = np.cross(g3, _padded(a_moved).conj())[..., : b_moved.shape[-1]]
            return np.moveaxis(sum_to_shape(x_bar, b_moved.shape), -1, axisb)

        return a_bar, b_bar

    return cotangents


def _cross_in(xp: Any, a: Any, b: Any, axis: int = -1) -> Any:
    """The standard's ``linalg.cross`` of 3-vectors along ``axis``; from the components on a library without it
    (dask): ``(a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0)``."""
    if axis >= 0:  # the standard takes the axis counted from the end
        axis -= max(a.ndim, b.ndim)
    cross = getattr(xp.linalg, "cross", None)
    if cross is not None:
        return cross(a, b, axis=axis)
    a, b = xp.broadcast_arrays(a, b)
    a, b = xp.moveaxis(a, axis, -1), xp.moveaxis(b, axis, -1)
    (a0, a1, a2), (b0, b1, b2) = ([v[..., i] for i in range(3)] for v in (a, b))
    c = xp.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return xp.moveaxis(c, -1, axis)


def _linalg_cross_cotangents_of(a: Any, b: Any, axis: int = -1) -> Cotangents | None:
    """``linalg.cross``: 3-vectors along ``axis`` (``_cross_cotangents_of``'s formulas)."""
    numpy_cotangents = _cross_cotangents_of(a, b, axis=axis)

    def cotangents(a: Any, b: Any, g: Any) -> Any:
        xp = namespace_of(a, b, g)
        if xp is np:
            return numpy_cotangents(a, b, g)  # type: ignore[misc]

        def a_bar() -> Any:
            return sum_to_shape(_cross_in(xp, conjugate(b, xp), g, axis), a.shape)

        def b_bar() -> Any:
            return sum_to_shape(_cross_in(xp, g, conjugate(a, xp), axis), b.shape)

        return a_bar, b_bar

    return cotangents


bilinear_rule(np.cross, _cross_cotangents_of)
if hasattr(np.linalg, "cross"):  # numpy >= 2.0: 3-vectors only, along ``axis``
    bilinear_rule(np.linalg.cross, _linalg_cross_cotangents_of, generic=True, primal=_cross_in)


# ----- vecdot, matvec, vecmat (numpy >= 2.0 and 2.2): batched, broadcasting -----


def _vecdot_cotangents_of(a: Any, b: Any, *rest: Any, axis: int = -1, **kwargs: Any) -> Cotangents | None:
    """``vecdot(a, b) = sum(conj(a) * b, axis)``: antiholomorphic in ``a``, as ``vdot``.

    ``a_bar = b conj(out_bar)``, ``b_bar = a out_bar``, each summed back over broadcast axes.
    """
    if rest or kwargs:
        return None

    def cotangents(a: Any, b: Any, g: Any) -> Any:
        xp = namespace_of(a, b, g)
        a_moved, b_moved = xp.moveaxis(a, axis, -1), xp.moveaxis(b, axis, -1)
        g_column = xp.expand_dims(g, axis=-1)

        def a_bar() -> Any:
            return xp.moveaxis(sum_to_shape(b_moved * conjugate(g_column, xp), a_moved.shape), -1, axis)

        def b_bar() -> Any:
            return xp.moveaxis(sum_to_shape(a_moved * g_column, b_moved.shape), -1, axis)

        return a_bar, b_bar

    return cotangents


def _vecdot_in(xp: Any, a: Any, b: Any, *, axis: int = -1) -> Any:
    """The standard's ``vecdot`` (numpy's is a gufunc, whose ``axis`` ``call_in`` does not pass on), the axis
    counted from the end as the standard takes it."""
    return xp.vecdot(a, b, axis=axis - max(a.ndim, b.ndim) if axis >= 0 else axis)


def _matvec_cotangents(a: np.ndarray, v: np.ndarray, g: np.ndarray) -> Any:
    """``matvec(a, v) = a @ v``: ``a_bar = out_bar v^H``, ``v_bar = a^H out_bar``."""
    g_column = g[..., None]

    def a_bar() -> np.ndarray:
        return matmul_summed(g_column, v.conj()[..., None, :], a.shape)

    def v_bar() -> np.ndarray:
        return matmul_summed(adjoint(a), g_column, (*v.shape, 1))[..., 0]

    return a_bar, v_bar


def _vecmat_cotangents(v: np.ndarray, a: np.ndarray, g: np.ndarray) -> Any:
    """``vecmat(v, a) = conj(v) @ a``, antiholomorphic in ``v``: ``v_bar = a conj(out_bar)``, ``a_bar = v out_bar^T``.

    With ``out_j = sum_i conj(v_i) a_ij``, ``a`` enters holomorphically with
    partial ``conj(v_i)``, so its cotangent is ``v_i out_bar_j``.
    """

    def v_bar() -> np.ndarray:
        return matmul_summed(a, g.conj()[..., None], (*v.shape, 1))[..., 0]

    def a_bar() -> np.ndarray:
        return matmul_summed(v[..., None], g[..., None, :], a.shape)

    return v_bar, a_bar


if hasattr(np, "vecdot"):  # numpy >= 2.0
    bilinear_rule(np.vecdot, _vecdot_cotangents_of, generic=True, primal=_vecdot_in)
    bilinear_rule(np.linalg.vecdot, _vecdot_cotangents_of, generic=True, primal=_vecdot_in)
if hasattr(np, "matvec"):
    bilinear_rule(np.matvec, _without_keywords(_matvec_cotangents))
    bilinear_rule(np.vecmat, _without_keywords(_vecmat_cotangents))


# ----- fast paths -----


_EAGER_FLOPS = 65536
"""Matrix products of at most this many multiply-adds (16 x 16 times 16 x 256) are computed eagerly in the pullback,
not thunked: at width 16 a tanh network's gradient spends more on the thunks (a closure, an object and a call
each) than on the one product nobody reads (the first layer's input), 2.33 -> 2.24 of the hand-written backprop
in one process; at width 512 that product takes 2.5 % of it."""


def _rrule_matmul(rule: Any, f: Any, a: Any, b: Any, *rest: Any, **kwargs: Any) -> Any:
    """The rrule of ``a @ b`` for two matrices of one real dtype, without options; the rule for other calls.

    A seed of the output's dtype and shape gives cotangents ``g @ b.T`` and ``a.T @ g`` of the operands' own
    shape and dtype, with nothing to project; any other seed is checked, and its products projected.
    """
    if rest or kwargs or type(a) is not np.ndarray or type(b) is not np.ndarray:
        return rule(f, a, b, *rest, **kwargs)
    dtype = a.dtype
    if a.ndim != 2 or b.ndim != 2 or dtype.kind != "f" or b.dtype != dtype:
        return rule(f, a, b)
    out = f(a, b)
    shape = out.shape  # not the output itself, which can then be freed as soon as the program is done with it
    small = a.size * shape[-1] <= _EAGER_FLOPS

    def matmul_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
        if type(out_bar) is not np.ndarray or out_bar.dtype != dtype or out_bar.shape != shape:
            out_bar = checked_seed(f, out_bar, shape)
            if isinstance(out_bar, AbstractZero):
                return _NO_TANGENT, out_bar, out_bar
            g = numeric_seed(f, out_bar, shape)
            return (
                _NO_TANGENT,
                Thunk(lambda: project_onto(a, g @ adjoint(b))),
                Thunk(lambda: project_onto(b, adjoint(a) @ g)),
            )
        if small:  # a product this small costs less than the two thunks that would spare it
            return _NO_TANGENT, out_bar @ b.T, a.T @ out_bar
        return _NO_TANGENT, Thunk(lambda: out_bar @ b.T), Thunk(lambda: a.T @ out_bar)

    return out, matmul_pullback


def _frule_matmul(rule: Any, tangents: tuple[Any, ...], f: Any, a: Any, b: Any, *rest: Any, **kwargs: Any) -> Any:
    """The frule of ``a @ b`` for two matrices of one real dtype, without options, with tangents of the operands'
    shapes and dtype or ``ZeroTangent()``: ``a_dot @ b + a @ b_dot``, the second product added into the first's
    new buffer (the rule's sum, one array fewer); the rule for other calls."""
    if rest or kwargs or len(tangents) != 3 or type(a) is not np.ndarray or type(b) is not np.ndarray:
        return rule(tangents, f, a, b, *rest, **kwargs)
    dtype = a.dtype
    if a.ndim != 2 or b.ndim != 2 or dtype.kind != "f" or b.dtype != dtype:
        return rule(tangents, f, a, b)
    _, a_dot, b_dot = tangents
    a_moves = type(a_dot) is np.ndarray and a_dot.shape == a.shape and a_dot.dtype == dtype
    b_moves = type(b_dot) is np.ndarray and b_dot.shape == b.shape and b_dot.dtype == dtype
    if not (a_moves or type(a_dot) is ZeroTangent) or not (b_moves or type(b_dot) is ZeroTangent):
        return rule(tangents, f, a, b)
    if a_moves:
        out_dot = f(a_dot, b)
        if b_moves:
            out_dot += f(a, b_dot)
    elif b_moves:
        out_dot = f(a, b_dot)
    else:
        return rule(tangents, f, a, b)
    return f(a, b), out_dot


for _f in (np.matmul, np.linalg.matmul):
    rrule.fast_path(_f)(named_after(_f, _rrule_matmul))
    frule.fast_path(_f)(named_after(_f, _frule_matmul))
for _types in _MATMUL_OPERANDS:
    rrule.fast_path(operator.matmul, *_types)(named_after(operator.matmul, _rrule_matmul))
    frule.fast_path(operator.matmul, *_types)(named_after(operator.matmul, _frule_matmul))
