"""Sorting: sort, the unique family, and the index-valued functions as non-differentiable.

``sort`` moves each entry to its place: the pushforward gathers the tangent
through the stable ``argsort`` permutation and the pullback scatters the
seed back through it. Ties are the one place where sorting is not smooth;
the stable permutation is the consistent choice rule_coverage.md suggests
(autograd and PyTorch do the same).

The ``unique`` family: the unique values are entries of the input, each
read from its first occurrence, so their tangent is the input's tangent
there and their cotangent goes back there. Where the input holds duplicates
a perturbation can split them and change the output's length, so there is
no derivative; the first occurrence is the convention. Counts, indices and
inverses have no tangent.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    Tangent,
    ZeroTangent,
    backing,
    frule,
    non_differentiable,
    rrule,
    unthunk,
)
from chainrules_core.testing import DTYPES, REALS, Arg, Case, register_cases

from ._arrays import bind, cast_to, real_dtype_of, zero_cotangent

# ----- sort -----


def _sort_permutation(x: Any, *args: Any, **kwargs: Any) -> tuple[np.ndarray[Any, Any], Any] | None:
    """``(perm, axis)`` with ``sort(x) == take_along_axis(x, perm, axis)``; ``None`` for ``order=``."""
    options = bind(("axis", "kind", "order"), args, kwargs, axis=-1)
    if options["order"] is not None:
        return None
    values = np.asarray(x)
    axis = options["axis"]
    return np.argsort(values, axis=axis, kind="stable"), axis


def _gather(x: Any, perm: np.ndarray[Any, Any], axis: Any) -> Any:
    values = np.asarray(x)
    return values.reshape(-1)[perm] if axis is None else np.take_along_axis(values, perm, axis)


@rrule.register(np.sort)
def _rrule_sort(f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    found = _sort_permutation(x, *args, **kwargs)
    if found is None:
        return None
    perm, axis = found
    out = _gather(x, perm, axis)
    project_x = ProjectTo(x)
    dtype = real_dtype_of(x)
    others = (NoTangent(),) * len(args)

    def sort_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero) or dtype is None:
            return (NoTangent(), zero_cotangent(project_x), *others)
        seed = cast_to(out_bar, dtype)
        x_bar = np.empty(np.shape(x), dtype=dtype)
        if axis is None:
            x_bar.reshape(-1)[perm] = seed
        else:
            np.put_along_axis(x_bar, perm, seed, axis)
        return (NoTangent(), project_x(x_bar), *others)

    return out, sort_pullback


@frule.register(np.sort)
def _frule_sort(tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    found = _sort_permutation(x, *args, **kwargs)
    if found is None:
        return None
    perm, axis = found
    out = _gather(x, perm, axis)
    x_dot = unthunk(tangents[1])
    if real_dtype_of(x) is None:
        return out, NoTangent()
    if isinstance(x_dot, AbstractZero):
        return out, ZeroTangent()
    return out, ProjectTo(out)(_gather(x_dot, perm, axis))


# ----- unique -----


def _first_occurrence(flat: np.ndarray[Any, Any], values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Where each of ``values`` first occurs in ``flat`` (a stable sort keeps first occurrences first)."""
    order = np.argsort(flat, kind="stable")
    return order[np.searchsorted(flat[order], values, side="left")]


def _values_of(result: Any) -> Any:
    """The unique values in what a function of the unique family returned."""
    if isinstance(result, tuple):
        return result[0]
    return result


def _values_seed(out_bar: Any) -> Any:
    """The seed of the values in a seed for an output of the unique family."""
    out_bar = unthunk(out_bar)
    if isinstance(out_bar, Tangent):
        fields = backing(out_bar)
        out_bar = fields.get("values", ZeroTangent()) if isinstance(fields, dict) else fields[0]
    elif isinstance(out_bar, (tuple, list)):
        out_bar = out_bar[0]
    return unthunk(out_bar)


def _values_tangent(out: Any, values_dot: Any) -> Any:
    """A tangent for an output of the unique family, from the values' tangent."""
    if not isinstance(out, tuple):
        return values_dot
    if hasattr(out, "_fields"):
        return Tangent(type(out), values=values_dot)
    return Tangent(tuple, values_dot, *(NoTangent(),) * (len(out) - 1))


def _unique_applies(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    return bind(("return_index", "return_inverse", "return_counts", "axis"), args, kwargs).get("axis") is None


def _register_unique(f: Any) -> None:
    @rrule.register(f)
    def _rrule_unique(f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        if not _unique_applies(args, kwargs):
            return None
        out = f(x, *args, **kwargs)
        project_x = ProjectTo(x)
        dtype = real_dtype_of(x)
        others = (NoTangent(),) * len(args)

        def unique_pullback(out_bar: Any) -> tuple[Any, ...]:
            seed = _values_seed(out_bar)
            if isinstance(seed, AbstractZero) or dtype is None:
                return (NoTangent(), zero_cotangent(project_x), *others)
            flat = np.asarray(x).reshape(-1)
            x_bar = np.zeros(flat.shape, dtype=dtype)
            x_bar[_first_occurrence(flat, _values_of(out))] = cast_to(seed, dtype)
            return (NoTangent(), project_x(x_bar.reshape(np.shape(x))), *others)

        return out, unique_pullback

    @frule.register(f)
    def _frule_unique(tangents: tuple[Any, ...], f: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        if not _unique_applies(args, kwargs):
            return None
        out = f(x, *args, **kwargs)
        x_dot = unthunk(tangents[1])
        if real_dtype_of(x) is None:
            return out, NoTangent()
        if isinstance(x_dot, AbstractZero):
            return out, ZeroTangent()
        flat = np.asarray(x).reshape(-1)
        values_dot = np.asarray(x_dot).reshape(-1)[_first_occurrence(flat, _values_of(out))]
        return out, _values_tangent(out, values_dot)


_UNIQUE = [np.unique] + [
    getattr(np, name)
    for name in ("unique_values", "unique_counts", "unique_inverse", "unique_all")
    if hasattr(np, name)
]
for _f in _UNIQUE:
    _register_unique(_f)


# ----- index-valued: no derivative -----

non_differentiable(
    np.argsort,
    np.argpartition,
    np.lexsort,
    np.searchsorted,
    np.digitize,
    np.nonzero,
    np.flatnonzero,
    np.argwhere,
    np.ndarray.argsort,
    np.ndarray.argpartition,
    np.ndarray.searchsorted,
    np.ndarray.nonzero,
)


# ----- declared checks -----

# Ties (in sort) and duplicates (in unique) are points without a derivative that a finite
# difference could confirm; tests/rules/test_sorting.py checks the conventions there exactly.
register_cases(
    "sorting",
    *(
        Case(np.sort, (Arg(REALS, (3, 4)), *args), kwargs=kw)
        for args, kw in (((), {}), ((0,), {}), ((), {"axis": None}))
    ),
    Case(np.sort, (Arg(REALS, (2, 3, 4)),), kwargs={"axis": 1, "kind": "mergesort"}),
    Case(np.sort, (Arg(REALS, (5,)),), kwargs={"stable": True}),
    Case(np.unique, (Arg(REALS, (3, 4)),)),
    Case(np.unique, (Arg(REALS, (3, 4)), True, True, True), name="every output"),
    # unique_values (and unique with sorted=False) may return complex values in hash order, which
    # jumps as the values move: the rule follows whatever order comes back, finite differences cannot.
    *(
        Case(f, (Arg(REALS, (3, 4)),), dtypes=("float64", "float32") if f.__name__ == "unique_values" else DTYPES)
        for f in _UNIQUE[1:]
    ),
)
if "sorted" in inspect.signature(np.unique).parameters:
    register_cases(
        "sorting",
        Case(
            np.unique, (Arg(REALS, (3, 4)),), kwargs={"sorted": False}, dtypes=("float64", "float32"), name="unsorted"
        ),
    )
