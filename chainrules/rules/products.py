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
from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, ProjectTo, Thunk, ZeroTangent, frule, rrule, unthunk

from ._arrays import instantiate_zeros
from ._linalg_common import adjoint, as_array, matmul_summed

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


def _matmul_rrule(f: Any, a: Any, b: Any, **kwargs: Any) -> Any:
    if kwargs:
        return None
    return _bilinear_rrule(f, a, b, (), _matmul_pullbacks)


def _bilinear_rrule(f: Any, a: Any, b: Any, rest: tuple[Any, ...], pullbacks: Any, **kwargs: Any) -> Any:
    """The rrule of a product linear in ``a`` and in ``b``.

    ``pullbacks(a, b, out_bar)`` returns two functions computing the
    unprojected cotangents of ``a`` and ``b``; they run only when the
    thunks holding them are forced. ``rest`` are trailing non-differentiable
    positional arguments (tensordot's ``axes``).
    """
    out = f(a, b, *rest, **kwargs)
    project_a, project_b = ProjectTo(a), ProjectTo(b)
    a_arr, b_arr = as_array(a), as_array(b)
    no_tangents = (NoTangent(),) * len(rest)

    def product_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), project_a(ZeroTangent()), project_b(ZeroTangent()), *no_tangents
        a_bar, b_bar = pullbacks(a_arr, b_arr, as_array(out_bar))
        return NoTangent(), _lazy(project_a, a_bar), _lazy(project_b, b_bar), *no_tangents

    return out, product_pullback


def _lazy(project: Any, compute: Any) -> Any:
    if project.is_no_tangent:
        return NoTangent()
    return Thunk(lambda: project(compute()))


def _bilinear_frule(tangents: tuple[Any, ...], f: Any, a: Any, b: Any, *rest: Any, **kwargs: Any) -> Any:
    """The pushforward of a product linear in ``a`` and in ``b``: ``f(a_dot, b) + f(a, b_dot)``."""
    out = f(a, b, *rest, **kwargs)
    _, a_dot, b_dot = (unthunk(t) for t in tangents)
    a_dot = (
        instantiate_zeros(a_dot, a) if isinstance(a, (list, tuple)) else a_dot
    )  # Tangent(list, ...) of an array-like
    b_dot = instantiate_zeros(b_dot, b) if isinstance(b, (list, tuple)) else b_dot
    project_out = ProjectTo(out)
    terms = []
    if not isinstance(a_dot, AbstractZero) and not ProjectTo(a).is_no_tangent:
        terms.append(f(a_dot, b, *rest, **kwargs))
    if not isinstance(b_dot, AbstractZero) and not ProjectTo(b).is_no_tangent:
        terms.append(f(a, b_dot, *rest, **kwargs))
    if not terms:
        return out, project_out(ZeroTangent())
    return out, project_out(terms[0] + terms[1] if len(terms) == 2 else terms[0])


def _matmul_frule(tangents: tuple[Any, ...], f: Any, a: Any, b: Any, **kwargs: Any) -> Any:
    if kwargs:
        return None
    return _bilinear_frule(tangents, f, a, b)


for _f in (np.matmul, np.linalg.matmul):
    rrule.register(_f)(_matmul_rrule)
    frule.register(_f)(_matmul_frule)

# ``a @ b`` reaches numpy only when an operand is an array; numpy refuses scalars in matmul.
_MATMUL_OPERANDS = [(np.ndarray, np.ndarray)]
_MATMUL_OPERANDS += [pair for t in (list, tuple) for pair in [(np.ndarray, t), (t, np.ndarray)]]
for _types in _MATMUL_OPERANDS:
    rrule.register(operator.matmul, *_types)(_matmul_rrule)
    frule.register(operator.matmul, *_types)(_matmul_frule)


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


def _contraction_rrule(axes_of: Any) -> Any:
    """An rrule for a product that is a ``tensordot`` with axes ``axes_of(a, b, **kwargs)``."""

    def contraction_rrule(f: Any, a: Any, b: Any, *rest: Any, **kwargs: Any) -> Any:
        axes = axes_of(a, b, *rest, **kwargs)
        if axes is None:
            return None
        ax_a, ax_b = _normalize_axes(axes, np.ndim(a), np.ndim(b))

        def pullbacks(a_arr: np.ndarray, b_arr: np.ndarray, g: np.ndarray) -> Any:
            return _tensordot_pullbacks(a_arr, b_arr, ax_a, ax_b, g)

        return _bilinear_rrule(f, a, b, rest, pullbacks, **kwargs)

    return contraction_rrule


def _contraction_frule(axes_of: Any) -> Any:
    def contraction_frule(tangents: tuple[Any, ...], f: Any, a: Any, b: Any, *rest: Any, **kwargs: Any) -> Any:
        if axes_of(a, b, *rest, **kwargs) is None:
            return None
        return _bilinear_frule(tangents[:3], f, a, b, *rest, **kwargs)

    return contraction_frule


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
    rrule.register(_f)(_contraction_rrule(_axes_of))
    frule.register(_f)(_contraction_frule(_axes_of))


def _outer_axes(a: Any, b: Any, *rest: Any, **kwargs: Any) -> Any:
    return None if rest or kwargs else 0


@rrule.register(np.outer)
@rrule.register(np.linalg.outer)
def _outer_rrule(f: Any, a: Any, b: Any, **kwargs: Any) -> Any:
    if kwargs:
        return None
    return _bilinear_rrule(f, a, b, (), _outer_pullbacks)


def _outer_pullbacks(a: np.ndarray, b: np.ndarray, g: np.ndarray) -> Any:
    a_flat, b_flat = a.ravel(), b.ravel()
    return (lambda: (g @ b_flat.conj()).reshape(a.shape)), (lambda: (a_flat.conj() @ g).reshape(b.shape))


frule.register(np.outer)(_contraction_frule(_outer_axes))
frule.register(np.linalg.outer)(_contraction_frule(_outer_axes))


# ----- vdot -----


@rrule.register(np.vdot)
def _vdot_rrule(f: Any, a: Any, b: Any) -> Any:
    return _bilinear_rrule(f, a, b, (), _vdot_pullbacks)


def _vdot_pullbacks(a: np.ndarray, b: np.ndarray, g: np.ndarray) -> Any:
    # vdot(a, b) = sum(conj(a) * b) is antiholomorphic in a: a_bar = conj(out_bar) * b.
    return (lambda: (g.conj() * b).reshape(a.shape)), (lambda: (g * a).reshape(b.shape))


@frule.register(np.vdot)
def _vdot_frule(tangents: tuple[Any, ...], f: Any, a: Any, b: Any) -> Any:
    return _bilinear_frule(tangents, f, a, b)
