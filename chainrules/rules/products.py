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
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, ProjectTo, Thunk, frule, named_after, rrule, unthunk

from ._arrays import instantiate_zeros
from ._linalg_common import adjoint, as_array, matmul_summed
from ._makers import output_tangent

# ----- matmul -----


def _matmul_pullbacks(a: np.ndarray, b: np.ndarray, g: np.ndarray) -> tuple[Any, Any]:
    """Functions computing the unprojected cotangents of ``a`` and ``b`` in ``a @ b``."""
    if a.ndim == 1 and b.ndim == 1:
        return (lambda: g * b.conj()), (lambda: a.conj() * g)
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    if a.ndim == 1:
        g = np.expand_dims(g, -2)
    if b.ndim == 1:
        g = np.expand_dims(g, -1)

    def a_bar() -> np.ndarray:
        return matmul_summed(g, adjoint(b2), a2.shape).reshape(a.shape)

    def b_bar() -> np.ndarray:
        return matmul_summed(adjoint(a2), g, b2.shape).reshape(b.shape)

    return a_bar, b_bar


# ----- the maker: a product linear in each of its two operands -----

Pullbacks = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[Callable[[], Any], Callable[[], Any]]]


def _bilinear_rule(f: Any, pullbacks_of: Callable[..., Pullbacks | None], *types: Any) -> None:
    """Register the rules of ``f(a, b, *rest, **kwargs)``, linear in ``a`` and in ``b``.

    ``pullbacks_of(a, b, *rest, **kwargs)`` gives, for an accepted call, a
    function ``(a, b, out_bar) -> (a_bar, b_bar)`` of two functions computing
    the unprojected cotangents, which run only when the thunks holding them
    are forced; ``None`` refuses the call. ``rest`` are trailing
    non-differentiable arguments (tensordot's ``axes``). The pushforward is
    ``f(a_dot, b) + f(a, b_dot)``.
    """

    def _rrule_product(f: Any, a: Any, b: Any, *rest: Any, **kwargs: Any) -> Any:
        pullbacks = pullbacks_of(a, b, *rest, **kwargs)
        if pullbacks is None:
            return None
        out = f(a, b, *rest, **kwargs)
        project_a, project_b = ProjectTo(a), ProjectTo(b)
        a_arr, b_arr = as_array(a), as_array(b)
        no_tangents = (NoTangent(),) * len(rest)

        def product_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = unthunk(out_bar)
            if isinstance(out_bar, AbstractZero):  # no product to compute
                return NoTangent(), project_a(out_bar), project_b(out_bar), *no_tangents
            a_bar, b_bar = pullbacks(a_arr, b_arr, as_array(out_bar))
            return NoTangent(), _lazy(project_a, a_bar), _lazy(project_b, b_bar), *no_tangents

        return out, product_pullback

    def _frule_product(tangents: tuple[Any, ...], f: Any, a: Any, b: Any, *rest: Any, **kwargs: Any) -> Any:
        if pullbacks_of(a, b, *rest, **kwargs) is None:
            return None
        out = f(a, b, *rest, **kwargs)
        a_dot, b_dot = (_dense_if_sequence(unthunk(t), x) for t, x in zip(tangents[1:3], (a, b)))
        terms = []
        if not isinstance(a_dot, AbstractZero) and not ProjectTo(a).is_no_tangent:
            terms.append(f(a_dot, b, *rest, **kwargs))
        if not isinstance(b_dot, AbstractZero) and not ProjectTo(b).is_no_tangent:
            terms.append(f(a, b_dot, *rest, **kwargs))
        return out, output_tangent(out, terms)

    rrule.register(f, *types)(named_after(f, _rrule_product))
    frule.register(f, *types)(named_after(f, _frule_product))


def _lazy(project: Any, compute: Callable[[], Any]) -> Any:
    if project.is_no_tangent:
        return NoTangent()
    return Thunk(lambda: project(compute()))


def _dense_if_sequence(t: Any, x: Any) -> Any:
    """The tangent of an array-like list or tuple (a ``Tangent(list, ...)``) as an array; others as they are."""
    return instantiate_zeros(t, x) if isinstance(x, (list, tuple)) else t


def _matmul_pullbacks_of(a: Any, b: Any, **kwargs: Any) -> Pullbacks | None:
    return None if kwargs else _matmul_pullbacks


for _f in (np.matmul, np.linalg.matmul):
    _bilinear_rule(_f, _matmul_pullbacks_of)

# ``a @ b`` reaches numpy only when an operand is an array; numpy refuses scalars in matmul.
_MATMUL_OPERANDS = [(np.ndarray, np.ndarray)]
_MATMUL_OPERANDS += [pair for t in (list, tuple) for pair in [(np.ndarray, t), (t, np.ndarray)]]
for _types in _MATMUL_OPERANDS:
    _bilinear_rule(operator.matmul, _matmul_pullbacks_of, *_types)


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


def _tensordot_pullbacks(a: np.ndarray, b: np.ndarray, ax_a: list[int], ax_b: list[int], g: np.ndarray) -> Any:
    """Functions computing the cotangents of ``a`` and ``b`` in ``tensordot(a, b, (ax_a, ax_b))``.

    The output's axes are the free axes of ``a`` then those of ``b``; each
    cotangent contracts ``g`` with the other operand over that operand's free
    axes and puts the axes back in the operand's order (as autograd's
    ``tensordot_adjoint_0/1`` do).
    """
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [j for j in range(b.ndim) if j not in ax_b]
    n_free_a = len(free_a)

    def a_bar() -> np.ndarray:
        r = np.tensordot(g, b.conj(), axes=(list(range(n_free_a, g.ndim)), free_b))
        order = free_a + [ax_a[ax_b.index(j)] for j in sorted(ax_b)]
        return np.transpose(r, np.argsort(order))

    def b_bar() -> np.ndarray:
        r = np.tensordot(a.conj(), g, axes=(free_a, list(range(n_free_a))))
        order = [ax_b[ax_a.index(i)] for i in sorted(ax_a)] + free_b
        return np.transpose(r, np.argsort(order))

    return a_bar, b_bar


def _contraction(axes_of: Callable[..., Any]) -> Callable[..., Pullbacks | None]:
    """``pullbacks_of`` for a product that is a ``tensordot`` with axes ``axes_of(a, b, *rest, **kwargs)``."""

    def pullbacks_of(a: Any, b: Any, *rest: Any, **kwargs: Any) -> Pullbacks | None:
        axes = axes_of(a, b, *rest, **kwargs)
        if axes is None:
            return None
        ax_a, ax_b = _normalize_axes(axes, np.ndim(a), np.ndim(b))
        return lambda a_arr, b_arr, g: _tensordot_pullbacks(a_arr, b_arr, ax_a, ax_b, g)

    return pullbacks_of


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


for _f, _axes_of in [
    (np.tensordot, _tensordot_axes),
    (np.linalg.tensordot, _tensordot_axes),
    (np.dot, _dot_axes),
    (np.inner, _inner_axes),
]:
    _bilinear_rule(_f, _contraction(_axes_of))


def _outer_pullbacks(a: np.ndarray, b: np.ndarray, g: np.ndarray) -> Any:
    a_flat, b_flat = a.ravel(), b.ravel()
    return (lambda: (g @ b_flat.conj()).reshape(a.shape)), (lambda: (a_flat.conj() @ g).reshape(b.shape))


def _vdot_pullbacks(a: np.ndarray, b: np.ndarray, g: np.ndarray) -> Any:
    # vdot(a, b) = sum(conj(a) * b) is antiholomorphic in a: a_bar = conj(out_bar) * b.
    return (lambda: (g.conj() * b).reshape(a.shape)), (lambda: (g * a).reshape(b.shape))


def _without_keywords(pullbacks: Pullbacks) -> Callable[..., Pullbacks | None]:
    return lambda a, b, *rest, **kwargs: None if rest or kwargs else pullbacks


for _f in (np.outer, np.linalg.outer):
    _bilinear_rule(_f, _without_keywords(_outer_pullbacks))
_bilinear_rule(np.vdot, _without_keywords(_vdot_pullbacks))
