"""Creation: array, asarray, copy, full and full_like; zeros, ones, eye, arange ... as non-differentiable.

``np.array`` and ``np.asarray`` of nested lists and tuples of numbers and
arrays are differentiable in every entry: the cotangent of a list is a list,
of a tuple ``Tangent(tuple, ...)``, as ``ProjectTo`` lays them out. A result
of an integer or bool dtype is non-differentiable. The fill value of
``full`` and ``full_like`` is differentiable (its cotangent is the sum of the
seed); shapes and dtypes are not.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    ZeroTangent,
    frule,
    non_differentiable,
    rrule,
    sum_to_shape,
    unthunk,
)

from ._arrays import cast_to
from ._makers import linear_in_first_rule


def _same_layout(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    """The adjoint of copying ``x`` into an array: the seed in ``x``'s shape (``ndmin`` adds leading 1s)."""
    return np.reshape(out_bar, np.shape(x))


for _f in (np.array, np.asarray, np.copy, np.ndarray.copy):
    linear_in_first_rule(_f, _same_layout)


# ----- full and full_like: the fill value is differentiable -----


def _register_full(f: Any, prototype: bool) -> None:
    """``f(shape_or_prototype, fill_value, ...)``: a prototype's values do not matter (zero cotangent)."""

    @rrule.register(f)
    def _rrule_full(f: Any, first: Any, *args: Any, **kwargs: Any) -> Any:
        out = f(first, *args, **kwargs)
        first_bar = ProjectTo(first)(ZeroTangent()) if prototype else NoTangent()
        differentiable = bool(args) and not ProjectTo(out).is_no_tangent
        project_fill = ProjectTo(args[0]) if differentiable else ProjectTo(None)
        fill_shape = np.shape(args[0]) if args else ()
        rest = (NoTangent(),) * max(len(args) - 1, 0)

        def full_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = unthunk(out_bar)
            if not args:  # the fill value came by keyword: no tangent
                return NoTangent(), first_bar
            if isinstance(out_bar, AbstractZero) or project_fill.is_no_tangent:
                return NoTangent(), first_bar, project_fill(ZeroTangent()), *rest
            return NoTangent(), first_bar, project_fill(sum_to_shape(np.asarray(out_bar), fill_shape)), *rest

        return out, full_pullback

    @frule.register(f)
    def _frule_full(tangents: tuple[Any, ...], f: Any, first: Any, *args: Any, **kwargs: Any) -> Any:
        out = f(first, *args, **kwargs)
        project_out = ProjectTo(out)
        if project_out.is_no_tangent:
            return out, NoTangent()
        fill_dot = unthunk(tangents[2]) if args else ZeroTangent()
        if isinstance(fill_dot, AbstractZero):
            return out, ZeroTangent()
        return out, project_out(np.full(out.shape, cast_to(fill_dot, out.dtype)))


_register_full(np.full, prototype=False)
_register_full(np.full_like, prototype=True)

# The output does not depend on the values of any argument.
non_differentiable(
    np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like, np.empty_like, np.eye, np.identity, np.tri, np.indices
)
non_differentiable(np.arange)  # float bounds change the length, not smoothly
