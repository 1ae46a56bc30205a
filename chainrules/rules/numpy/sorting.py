"""Sorting: sort, partition, sort_complex, the unique family, the set operations, and the index-valued functions
as non-differentiable.

``sort`` moves each entry to its place: the pushforward gathers the tangent
through the stable ``argsort`` permutation and the pullback gathers the
seed through its inverse. Ties are the one place where sorting is not smooth;
the stable permutation is the consistent choice rule_coverage.md suggests
(autograd and PyTorch do the same).

``partition`` and ``sort_complex`` move entries too (``entries_rule``): the
output is numpy's own, and the entry each output came from is found by
matching the sorted values of input and output, so ties and the order
numpy leaves on either side of ``kth`` need no assumption about numpy's
algorithm. That costs two sorts, ``O(n log n)`` against the partition's
``O(n)``. ``argpartition`` is index-valued: no derivative.

The ``unique`` family: the unique values are entries of the input, each
read from its first occurrence, so their tangent is the input's tangent
there and their cotangent goes back there. Where the input holds duplicates
a perturbation can split them and change the output's length, so there is
no derivative; the first occurrence is the convention. Counts, indices and
inverses have no tangent.

``sort`` and ``unique_values``, ``unique_counts``, ``unique_inverse`` and
``unique_all`` run on every library that follows the Python Array API
standard. ``sort`` gathers through the standard's stable ``argsort`` (its
pullback through the inverse permutation, itself an ``argsort``). The
standard has no scatter: the unique values' first occurrences are found by
comparing every value with every entry, and their pullback is a product
with that one-hot matrix, ``O(u * n)`` for ``u`` values of ``n`` entries
(numpy's rules take ``O(n log n)``). The number of unique values depends
on the values: a library that does not know them (``jax.jit`` tracing,
dask before computing) cannot run these rules and raises ``TypeError``.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    Tangent,
    ZeroTangent,
    backing,
    checked_seed,
    follow,
    frule,
    is_followed,
    non_differentiable,
    primal_of,
    rrule,
    unthunk,
    value_shape,
)
from chainrules_core.array_api import call_in
from chainrules_core.arrays import (
    has_unknown_shape,
    is_complex_dtype,
    is_foreign_array,
    is_inexact_dtype,
    namespace_of,
    refusal,
)

from .._arrays import bind_options, cast_to, real_dtype_of, scatter_add
from .._makers import rule_in_first, zero_derivative_rule
from ._entries import entries_rule, gather_along, one_hot

# ----- sort -----


def _sort_options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    """The options of a sort, or ``None`` for ``order=`` (fields of structured arrays)."""
    options = bind_options(("axis", "kind", "order"), args, kwargs, axis=-1)
    return None if options["order"] is not None else options


def _gather(x: Any, perm: np.ndarray[Any, Any], axis: Any) -> Any:
    values = x if is_followed(x) else np.asarray(x)  # an engine's followed values stay as they are
    return np.reshape(values, -1)[perm] if axis is None else np.take_along_axis(values, perm, axis)


def _sorted(f: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any], options: dict[str, Any]) -> Any:
    """The sorted array, gathered through the stable permutation (which the rules keep)."""
    if is_foreign_array(x):
        xp = namespace_of(x)
        lines = xp.reshape(x, (-1,)) if options["axis"] is None else x
        axis = -1 if options["axis"] is None else int(options["axis"])
        try:
            options["perm"] = call_in(xp, np.argsort, lines, axis=axis, stable=True)
        except TypeError as err:  # complex numbers, where the library sorts real ones alone
            raise refusal(f, x, str(err).partition(": ")[2]) from None
        return gather_along(xp, lines, options["perm"], axis)
    options["perm"] = np.argsort(np.asarray(primal_of(x)), axis=options["axis"], kind="stable")
    return _gather(x, options["perm"], options["axis"])


def _sort_state(x: Any, options: dict[str, Any], out: Any) -> tuple[Any, Any, Any]:
    return x, options["perm"], options["axis"]


def _sort_cotangent(state: tuple[Any, Any, Any], out_bar: Any) -> Any:
    x, perm, axis = state
    if is_foreign_array(out_bar):  # gathered through the inverse permutation, the argsort of the permutation
        xp = namespace_of(out_bar)
        along = -1 if axis is None else int(axis)
        inverse = xp.argsort(perm, axis=along, stable=True)
        return xp.reshape(gather_along(xp, out_bar, inverse, along), tuple(x.shape))
    dtype = real_dtype_of(x)
    assert dtype is not None
    seed = cast_to(out_bar, dtype)
    if is_followed(seed):  # nested differentiation: a gather through the inverse permutation, which an engine follows
        return np.reshape(_gather(seed, _inverse(perm, axis), axis), np.shape(x))
    x_bar = np.empty(np.shape(x), dtype=dtype)
    if axis is None:
        x_bar.reshape(-1)[perm] = seed
    else:
        np.put_along_axis(x_bar, perm, seed, axis)
    return x_bar


def _inverse(perm: np.ndarray[Any, Any], axis: Any) -> np.ndarray[Any, Any]:
    """The permutation undoing ``perm`` along ``axis`` (of the flat array for ``None``)."""
    inverse = np.empty_like(perm)
    positions = np.arange(perm.shape[-1 if axis is None else axis])
    if axis is None:
        inverse[perm] = positions
        return inverse
    shape = [1] * perm.ndim
    shape[axis] = -1
    np.put_along_axis(inverse, perm, positions.reshape(shape), axis)
    return inverse


def _sort_pushforward(state: tuple[Any, Any, Any], x_dot: Any) -> Any:
    _, perm, axis = state
    if is_foreign_array(x_dot):
        xp = namespace_of(x_dot)
        lines = xp.reshape(x_dot, (-1,)) if axis is None else x_dot
        return gather_along(xp, lines, perm, -1 if axis is None else int(axis))
    return _gather(x_dot, perm, axis)


rule_in_first(
    np.sort,
    parse=_sort_options,
    prepare=_sort_state,
    cotangent=_sort_cotangent,
    tangent=_sort_pushforward,
    primal=_sorted,
    generic=True,
)


# ----- partition and sort_complex: entries moved, found by matching sorted values -----


def _matching_order(x: Any, out: Any, axis: int) -> np.ndarray[Any, Any]:
    """The permutation ``p`` along ``axis`` with ``take_along_axis(x, p, axis) == out``.

    ``out`` holds the entries of ``x`` along each line, reordered: sorting
    both (stably, NaNs last) pairs each entry of ``out`` with one of ``x``
    holding the same value; equal values are interchangeable.
    """
    from_x = np.argsort(x, axis=axis, kind="stable")
    from_out = np.argsort(out, axis=axis, kind="stable")
    order = np.empty_like(from_x)
    np.put_along_axis(order, from_out, from_x, axis)
    return order


def _partition_source(f: Any, label_args: Any, label_kwargs: Any, args: Any, kwargs: Any, out: Any) -> Any:
    axis = bind_options(("a", "kth", "axis"), args, kwargs, axis=-1)["axis"]
    x, labels, out = np.asarray(primal_of(args[0])), np.asarray(label_args[0]), np.asarray(primal_of(out))
    if axis is None:
        x, labels, axis = x.reshape(-1), labels.reshape(-1), -1
    return np.take_along_axis(labels, _matching_order(x, out, int(axis)), int(axis))


def _sort_complex_source(f: Any, label_args: Any, label_kwargs: Any, args: Any, kwargs: Any, out: Any) -> Any:
    order = np.argsort(np.asarray(primal_of(args[0])), axis=-1, kind="stable")
    return np.take_along_axis(np.asarray(label_args[0]), order, -1)


def _no_order(*args: Any, **kwargs: Any) -> bool:
    return bind_options(("a", "kth", "axis", "kind", "order"), args, kwargs)["order"] is None


entries_rule(np.partition, [(0, "a")], source=_partition_source, applies=_no_order)
entries_rule(np.sort_complex, [(0, "a")], source=_sort_complex_source)


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


def _unique_options(f: Any) -> Any:
    """``parse`` for ``f`` of the unique family: its options, ``None`` for ``axis=`` (unique rows or columns)."""

    def parse(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
        options = bind_options(("return_index", "return_inverse", "return_counts", "axis"), args, kwargs)
        options["f"] = f
        return None if options["axis"] is not None else options

    return parse


def _unique_state(x: Any, options: dict[str, Any], out: Any) -> tuple[Any, Any, Any, Any]:
    if is_foreign_array(x):
        values = _values_of(out)
        return x, _first_occurrence_in(namespace_of(x), x, values), out, (options["f"], value_shape(values))
    flat = np.asarray(primal_of(x)).reshape(-1)
    values = _values_of(primal_of(out))
    return x, _first_occurrence(flat, values), out, (options["f"], value_shape(values))


def _first_occurrence_in(xp: Any, x: Any, values: Any) -> Any:
    """Where each of ``values`` first occurs in ``x`` flattened, in another library: every value compared with every
    entry (NaN matching NaN, as numpy's unique collapses them), the first match found by ``argmax``."""
    flat = xp.reshape(x, (-1,))
    same = values[:, None] == flat[None, :]
    if is_inexact_dtype(xp, x.dtype):
        same = same | (xp.isnan(values)[:, None] & xp.isnan(flat)[None, :])
    return xp.argmax(xp.astype(same, xp.int8), axis=1)


def _unique_cotangent(state: tuple[Any, Any, Any, Any], out_bar: Any) -> Any:
    x, first, _, (f, shape) = state
    seed = checked_seed(f, _values_seed(out_bar), shape)  # the seed of the values: of their shape
    if is_foreign_array(x):  # each value's seed back at its first occurrence: a one-hot product
        if isinstance(seed, AbstractZero):
            return seed
        xp = namespace_of(x)
        n = math.prod(tuple(x.shape))
        return xp.reshape(xp.matmul(seed, one_hot(xp, first, n, seed.dtype)), tuple(x.shape))
    dtype = real_dtype_of(x)
    if isinstance(seed, AbstractZero) or dtype is None:
        return seed
    return np.reshape(scatter_add(np.size(x), first, cast_to(seed, dtype), dtype), np.shape(x))


def _unique_pushforward(state: tuple[Any, Any, Any, Any], x_dot: Any) -> Any:
    _, first, out, _ = state
    if is_foreign_array(x_dot):
        xp = namespace_of(x_dot)
        return _values_tangent(out, xp.take(xp.reshape(x_dot, (-1,)), first, axis=0))
    return _values_tangent(out, np.reshape(x_dot if is_followed(x_dot) else np.asarray(x_dot), -1)[first])


def _unique_in(f: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any], options: Any) -> Any:
    """``f`` of the unique family: numpy's; on another library's array, the standard's (``unique_all`` made from
    ``unique_inverse`` and ``unique_counts`` where the library lacks it, as torch does). A library that does not
    know the values (``jax.jit`` tracing, dask's lengths before computing) cannot tell how many there are."""
    if not is_foreign_array(x):
        return follow(f, x, *args, **kwargs) if is_followed(x) else f(x, *args, **kwargs)
    if _is_traced(x):
        raise refusal(f, x, "the number of unique values depends on the values, which jax.jit traces without")
    xp = namespace_of(x)
    try:
        out = call_in(xp, f, x, *args, **kwargs)
    except NotImplementedError as err:
        if f is not np.unique_all or is_complex_dtype(xp, x.dtype):
            raise refusal(f, x, str(err)) from None
        values, inverse = xp.unique_inverse(x)
        counts = xp.unique_counts(x).counts
        out = _UNIQUE_ALL(values, _first_occurrence_in(xp, x, values), inverse, counts)
    if has_unknown_shape(_values_of(out)):
        raise refusal(f, x, "the number of unique values is known only once the array is computed")
    return out


def _is_traced(x: Any) -> bool:
    """Whether ``x`` is a value ``jax.jit`` traces: its shape is known, its values are not."""
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(x, jax.core.Tracer)


_UNIQUE = [np.unique] + [
    getattr(np, name)
    for name in ("unique_values", "unique_counts", "unique_inverse", "unique_all")
    if hasattr(np, name)
]
_UNIQUE_ALL = type(np.unique_all(np.zeros(1))) if hasattr(np, "unique_all") else tuple
"""numpy's named tuple of ``unique_all``'s results."""
for _f in _UNIQUE:
    rule_in_first(
        _f,
        parse=_unique_options(_f),
        prepare=_unique_state,
        cotangent=_unique_cotangent,
        tangent=_unique_pushforward,
        primal=_unique_in if _f is not np.unique else None,
        generic=_f is not np.unique,  # np.unique: numpy's alone
    )


# ----- set operations: union1d, setdiff1d, setxor1d, intersect1d -----
# Each value of union1d, setdiff1d and setxor1d is an entry of an argument, read (as unique's) from its first
# occurrence in ar1 then ar2: the rules are entries_rule's, with the entry each value came from found by a sort.
# A value shared by ar1 and ar2 decides membership: setdiff1d and setxor1d leave it out, intersect1d keeps only
# such values, and any perturbation of one copy makes it appear or vanish (no derivative of any kind, not even
# one-sided in most directions); its convention is zero, as floor's at its jumps. union1d keeps a shared value
# under any perturbation (it may split in two, as unique's duplicates), so it reads it from ar1's copy.
# intersect1d's values are all shared: its derivative is zero (zero_derivative_rule), in every argument.


def _set_source(sides: tuple[int, ...]) -> Any:
    """``source`` for a set operation whose values are entries of the arguments at ``sides`` (0: ar1, 1: ar2)."""

    def source(f: Any, label_args: Any, label_kwargs: Any, args: Any, kwargs: Any, out: Any) -> Any:
        names = ("ar1", "ar2")
        values = [args[k] if k < len(args) else kwargs[names[k]] for k in sides]
        labels = [label_args[k] if k < len(label_args) else label_kwargs[names[k]] for k in sides]
        flat = np.concatenate([np.reshape(primal_of(v), -1) for v in values])
        flat_labels = np.concatenate([np.reshape(label, -1) for label in labels])
        out_values = np.asarray(primal_of(out))
        return flat_labels[_first_occurrence(flat.astype(out_values.dtype), out_values)]

    return source


entries_rule(np.union1d, [(0, "ar1"), (1, "ar2")], source=_set_source((0, 1)))
entries_rule(np.setxor1d, [(0, "ar1"), (1, "ar2")], source=_set_source((0, 1)))
entries_rule(np.setdiff1d, [(0, "ar1"), (1, "ar2")], source=_set_source((0,)))
_rrule_intersect1d_zero, _frule_intersect1d = zero_derivative_rule(np.intersect1d, register=False)
frule.register(np.intersect1d)(_frule_intersect1d)


@rrule.register(np.intersect1d)
def _rrule_intersect1d(f: Any, *args: Any, **kwargs: Any) -> Any:
    out, zero_pullback = _rrule_intersect1d_zero(f, *args, **kwargs)
    if not isinstance(out, tuple):
        return out, zero_pullback
    shape = value_shape(out[0])

    def intersect1d_pullback(out_bar: Any) -> tuple[Any, ...]:
        checked_seed(f, _values_seed(out_bar), shape)  # with return_indices: the values' seed, then the indices'
        return zero_pullback(out_bar)

    return out, intersect1d_pullback


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
