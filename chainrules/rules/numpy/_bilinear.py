"""The rule maker for products: functions linear in each of two operands (matmul, kron, cross, polymul ...).

The pushforward is the sum of the product with one operand replaced by its
tangent. The pullback of each operand is a ``Thunk``, so an engine that
needs one pays for one product; the seed is checked when the pullback is
called, so a seed that is not a numeric array fails there, naming the
function, rather than later inside a thunk.

A product declared ``generic`` runs on every Array API library: its output
on another library's arrays is ``call_in`` (the standard's function, or the
library's own numpy-compatible one; a rule may pass its own ``primal``),
its tangent the same call with a tangent in place of an operand, and its
cotangent formulas compute in the namespace of their arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    Thunk,
    checked_seed,
    checked_tangent,
    frule,
    function_name,
    named_after,
    rrule,
    value_shape,
)
from chainrules_core.array_api import call_in
from chainrules_core.arrays import as_arrays_like, first_foreign_array, is_foreign_array, namespace_of
from chainrules_core.projection import project_onto

from .._arrays import instantiate_zeros
from .._makers import tangent_from_terms
from .linalg._common import as_array

Cotangents = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[Callable[[], Any], Callable[[], Any]]]
"""``(a, b, out_bar) -> (a_bar, b_bar)``: two functions computing the unprojected cotangents."""


def numeric_seed(f: Any, out_bar: Any, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """``out_bar`` as a numeric array of the output's ``shape``: ``ValueError`` naming ``f`` and both shapes for a seed
    of another shape (``checked_seed``), ``TypeError`` for one that is not a number or a numeric array."""
    seed = checked_seed(f, out_bar, shape)
    if isinstance(seed, np.ndarray) and seed.dtype.kind in "fc":
        return seed
    if is_foreign_array(seed):  # another library's array: its own dtype, never converted to numpy
        return seed
    array = as_array(seed)
    if array.dtype.kind not in "iufc":
        raise TypeError(
            f"{function_name(f)}: the cotangent of the output must be a number or a numeric array, "
            f"got {type(seed).__name__} {str(seed)[:40]!r}"
        )
    if array.shape != shape:
        raise ValueError(f"{function_name(f)}: a seed of shape {array.shape} for an output of shape {shape}")
    return array


def bilinear_rule(
    f: Any,
    cotangents_of: Callable[..., Cotangents | None],
    *types: Any,
    generic: bool = False,
    primal: Callable[..., Any] | None = None,
) -> None:
    """Register the rules of ``f(a, b, *rest, **kwargs)``, linear in ``a`` and in ``b``.

    ``cotangents_of(a, b, *rest, **kwargs)`` gives, for an accepted call, a
    function ``(a, b, out_bar) -> (a_bar, b_bar)`` of two functions computing
    the unprojected cotangents, which run only when the thunks holding them
    are forced; ``None`` refuses the call. ``rest`` are trailing
    non-differentiable arguments (tensordot's ``axes``). The pushforward is
    ``f(a_dot, b) + f(a, b_dot)``.

    ``generic=True`` declares ``cotangents`` computing in the namespace of
    their arrays; the output on another library's arrays is then
    ``primal(xp, a, b, *rest, **kwargs)`` if given, else ``call_in``.
    """

    def call(a: Any, b: Any, rest: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if generic and first_foreign_array((a, b)) is not None:
            xp = namespace_of(a, b)
            if primal is not None:
                return primal(xp, a, b, *rest, **kwargs)
            return call_in(xp, f, a, b, *rest, **kwargs)
        return f(a, b, *rest, **kwargs)

    def _rrule_product(f: Any, a: Any, b: Any, *rest: Any, **kwargs: Any) -> Any:
        cotangents = cotangents_of(a, b, *rest, **kwargs)
        if cotangents is None:
            return None
        out = call(a, b, rest, kwargs)
        out_shape = value_shape(out)
        project_a, project_b = _projector(a), _projector(b)
        foreign = is_foreign_array(out)
        if foreign:  # a Python number among another library's arrays: an array of its own
            a_arr, b_arr = as_arrays_like(out, a, b)
        else:
            a_arr, b_arr = as_array(a), as_array(b)
        no_tangents = (_NO_TANGENT,) * len(rest)

        def product_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = checked_seed(f, out_bar, out_shape)
            if isinstance(out_bar, AbstractZero):  # no product to compute
                return _NO_TANGENT, ProjectTo(a)(out_bar), ProjectTo(b)(out_bar), *no_tangents
            if foreign and isinstance(out_bar, (int, float, complex)):  # the number seed of a 0-d output
                (out_bar,) = as_arrays_like(out, out_bar)
            a_bar, b_bar = cotangents(a_arr, b_arr, numeric_seed(f, out_bar, out_shape))
            return _NO_TANGENT, _lazy(a, project_a, a_bar), _lazy(b, project_b, b_bar), *no_tangents

        return out, product_pullback

    def _frule_product(tangents: tuple[Any, ...], f: Any, a: Any, b: Any, *rest: Any, **kwargs: Any) -> Any:
        if cotangents_of(a, b, *rest, **kwargs) is None:
            return None
        out = call(a, b, rest, kwargs)
        a_dot, b_dot = (
            _dense_if_sequence(checked_tangent(f, t, x, k), x) for k, (t, x) in enumerate(zip(tangents[1:3], (a, b)), 1)
        )
        terms = []
        if not isinstance(a_dot, AbstractZero) and not ProjectTo(a).is_no_tangent:
            terms.append(call(a_dot, b, rest, kwargs))
        if not isinstance(b_dot, AbstractZero) and not ProjectTo(b).is_no_tangent:
            terms.append(call(a, b_dot, rest, kwargs))
        return out, tangent_from_terms(out, terms)

    rrule.register(f, *types, generic=generic)(named_after(f, _rrule_product))
    frule.register(f, *types, generic=generic)(named_after(f, _frule_product))


_NO_TANGENT = NoTangent()


def _projector(x: Any) -> Any:
    """``ProjectTo(x)``, or ``None`` for a float or complex array: ``project_onto`` then projects only what does
    not fit it already."""
    return None if isinstance(x, np.ndarray) and x.dtype.kind in "fc" else ProjectTo(x)


def _lazy(x: Any, project: Any, compute: Callable[[], Any]) -> Any:
    """A thunk of the cotangent of ``x`` that ``compute`` gives unprojected; ``project`` from ``_projector``."""
    if project is None:
        return Thunk(lambda: project_onto(x, compute()))
    if project.is_no_tangent:
        return _NO_TANGENT
    return Thunk(lambda: project(compute()))


def _dense_if_sequence(t: Any, x: Any) -> Any:
    """The tangent of an array-like list or tuple (a ``Tangent(list, ...)``) as an array; others as they are."""
    return instantiate_zeros(t, x) if isinstance(x, (list, tuple)) else t
