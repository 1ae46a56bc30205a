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
from chainrules_core.testing import REALS, Arg, Case, Generated, register_cases

from ._arrays import cast_to, linear_rule, zero_cotangent, zero_tangent


def _same_layout(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    """The adjoint of copying ``x`` into an array: the seed in ``x``'s shape (``ndmin`` adds leading 1s)."""
    return np.reshape(out_bar, np.shape(x))


for _f in (np.array, np.asarray, np.copy, np.ndarray.copy):
    linear_rule(_f, _same_layout)


# ----- full and full_like: the fill value is differentiable -----


def _register_full(f: Any, prototype: bool) -> None:
    """``f(shape_or_prototype, fill_value, ...)``: a prototype's values do not matter (zero cotangent)."""

    @rrule.register(f)
    def _rrule_full(f: Any, first: Any, *args: Any, **kwargs: Any) -> Any:
        out = f(first, *args, **kwargs)
        first_bar = zero_tangent(first) if prototype else NoTangent()
        differentiable = bool(args) and not ProjectTo(out).is_no_tangent
        project_fill = ProjectTo(args[0]) if differentiable else ProjectTo(None)
        fill_shape = np.shape(args[0]) if args else ()
        rest = (NoTangent(),) * max(len(args) - 1, 0)

        def full_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = unthunk(out_bar)
            if not args:  # the fill value came by keyword: no tangent
                return NoTangent(), first_bar
            if isinstance(out_bar, AbstractZero) or project_fill.is_no_tangent:
                return NoTangent(), first_bar, zero_cotangent(project_fill), *rest
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


# ----- declared checks -----


def _nested(rng: np.random.Generator, dtype: str) -> list[Any]:
    """A list mixing arrays and Python scalars, as users write them."""
    scalar = complex(rng.normal(), rng.normal()) if dtype == "complex128" else float(rng.normal())
    return [np.asarray(rng.standard_normal(2), dtype=dtype), [scalar, 1.5]]


def _rows(rng: np.random.Generator, dtype: str) -> tuple[Any, ...]:
    return tuple(np.asarray(rng.standard_normal(3), dtype=dtype) for _ in range(2))


register_cases(
    "creation",
    Case(np.array, (Arg(REALS, (2, 3)),)),
    Case(np.array, (Arg(REALS, (2, 3)),), kwargs={"ndmin": 4}),
    Case(np.array, (Arg(REALS, (2, 3)), np.complex128), name="to complex"),
    Case(np.array, (Arg(REALS, (2, 3)),), kwargs={"dtype": np.float64}, dtypes=("float32",), name="to float64"),
    Case(np.array, (Generated(_nested, "nested list"),)),
    Case(np.array, (Generated(_rows, "tuple of rows"),)),
    Case(np.asarray, (Arg(REALS, (3,)),)),
    Case(np.asarray, (Generated(_rows, "tuple of rows"),)),
    Case(np.asarray, (Arg(REALS, None),), name="python scalar"),
    Case(np.copy, (Arg(REALS, (2, 3)),)),
    Case(np.ndarray.copy, (Arg(REALS, (2, 3)), "F"), name="method"),
    Case(np.full, ((2, 3), Arg(REALS, None)), name="python scalar"),
    Case(np.full, ((2, 3), Arg(REALS, ()))),
    Case(np.full, ((2, 3), Arg(REALS, (3,)))),
    Case(np.full, ((2, 3), Arg(REALS, (2, 1)), np.complex128), name="to complex"),
    Case(np.full_like, (Arg(REALS, (2, 3)), Arg(REALS, ()))),
    Case(np.full_like, (Arg(REALS, (2, 3)), Arg(REALS, (3,)))),
)
