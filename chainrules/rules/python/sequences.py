"""Rules for Python functions of sequences of numbers: ``sum``, ``math.fsum``, ``math.prod``, ``math.dist``, ``max``,
``min``, ``sorted``.

The sequence is a list, a tuple or a numpy array (iterated along its first
axis); its cotangent has the same structure: a list, a ``Tangent(tuple,
...)``, an array. Other iterables (generators, sets, dicts) get no rule
(``None``): a cotangent cannot be handed back to an iterator that is used up.
"""

from __future__ import annotations

import builtins
import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    Tangent,
    ZeroTangent,
    backing,
    checked_seed,
    checked_tangent,
    follow,
    frule,
    is_namedtuple,
    primal_of,
    rrule,
    unthunk,
    value_shape,
)
from chainrules_core.projection import ProjectTo, sum_to_shape, unbroadcast

from .._arrays import is_ndarray_value, items_of
from .._makers import (
    checked_entries,
    checked_tangents,
    python_partials,
    readonly,
    readonly_if_given,
    tangent_from_terms,
)
from ..numpy.arithmetic import hypot_partial


def sequence_items(xs: Any) -> list[Any] | None:
    """The items of a list, tuple or array (along its first axis, an engine's followed array too); None otherwise."""
    if (isinstance(xs, (list, tuple)) and not is_namedtuple(type(xs))) or (is_ndarray_value(xs) and xs.ndim >= 1):
        return items_of(xs)
    return None


def _item_tangents(xs: Any, xs_dot: Any) -> list[Any]:
    """The tangent of each item of ``xs`` from the tangent of the sequence."""
    if isinstance(xs_dot, AbstractZero):
        return [xs_dot] * len(xs)
    if isinstance(xs_dot, Tangent):
        return list(backing(xs_dot))
    return list(unthunk(xs_dot))


def _sequence_bar(xs: Any, project: Any, bars: list[Any]) -> Any:
    """The cotangent of the sequence from its items' cotangents."""
    if project.is_no_tangent:
        return NoTangent()
    if is_ndarray_value(xs):
        if not bars:  # no rows
            return project(np.zeros(xs.shape))
        return project(np.stack([np.zeros(xs.shape[1:]) if isinstance(b, AbstractZero) else b for b in bars]))
    return project(bars)


def _active(tangents: list[Any], items: list[Any]) -> list[int]:
    return [
        i
        for i, (t, x) in enumerate(zip(tangents, items))
        if not isinstance(t, AbstractZero) and not ProjectTo(x).is_no_tangent
    ]


# ----- sum, math.fsum: every item, and ``start`` when given positionally, gets the cotangent (unbroadcast) -----


@rrule.register(builtins.sum)
@rrule.register(math.fsum)
def _rrule_sum(f: Any, xs: Any, *rest: Any, **kwargs: Any) -> Any:
    items = sequence_items(xs)
    if items is None:
        return None
    out = follow(f, xs, *rest, **kwargs)
    project_xs = ProjectTo(xs)
    shape = value_shape(out)

    def sum_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, shape)
        if is_ndarray_value(xs):
            xs_bar = project_xs(np.broadcast_to(sum_to_shape(out_bar, xs.shape[1:]), xs.shape))
        else:
            bars = [readonly_if_given(unbroadcast(x, out_bar), out_bar) for x in items]
            xs_bar = _sequence_bar(xs, project_xs, bars)
        return NoTangent(), xs_bar, *(readonly_if_given(unbroadcast(r, out_bar), out_bar) for r in rest)

    return out, sum_pullback


@frule.register(builtins.sum)
@frule.register(math.fsum)
def _frule_sum(tangents: tuple[Any, ...], f: Any, xs: Any, *rest: Any, **kwargs: Any) -> Any:
    items = sequence_items(xs)
    if items is None:
        return None
    out = follow(f, xs, *rest, **kwargs)
    xs_dot, *rest_dots = checked_tangents(f, tangents, (xs, *rest))
    item_dots = _item_tangents(xs, xs_dot)
    terms = [unthunk(item_dots[i]) for i in _active(item_dots, items)]
    terms += [rest_dots[j] for j in _active(rest_dots, list(rest))]
    return out, tangent_from_terms(out, terms)


# ----- math.prod: item i gets conj(start * prod(others)) * out_bar, exact where items are 0 -----


def _products_but_one(items: list[Any], start: Any) -> list[Any]:
    """``start * prod(items[j] for j != i)`` for each i, by prefix and suffix products: exact with zeros."""
    n = len(items)
    prefix = [start]
    for x in items[:-1]:
        prefix.append(prefix[-1] * x)
    others = [None] * n
    suffix: Any = 1
    for i in range(n - 1, -1, -1):
        others[i] = prefix[i] * suffix
        suffix = suffix * items[i]
    return others


@rrule.register(math.prod)
def _rrule_prod(f: Any, xs: Any, **kwargs: Any) -> Any:
    items = sequence_items(xs)
    if items is None:
        return None
    out = follow(f, xs, **kwargs)
    project_xs = ProjectTo(xs)
    shape = value_shape(out)

    def prod_pullback(out_bar: Any) -> tuple[Any, Any]:
        out_bar = checked_seed(f, out_bar, shape)
        if project_xs.is_no_tangent:
            return NoTangent(), NoTangent()
        others = _products_but_one(items, kwargs.get("start", 1))
        bars = [unbroadcast(x, np.conjugate(p) * out_bar) for x, p in zip(items, others)]
        return NoTangent(), _sequence_bar(xs, project_xs, bars)

    return out, prod_pullback


@frule.register(math.prod)
def _frule_prod(tangents: tuple[Any, ...], f: Any, xs: Any, **kwargs: Any) -> Any:
    items = sequence_items(xs)
    if items is None:
        return None
    out = follow(f, xs, **kwargs)
    item_dots = _item_tangents(xs, checked_tangent(f, tangents[1], xs))
    active = _active(item_dots, items)
    others = _products_but_one(items, kwargs.get("start", 1)) if active else []
    return out, tangent_from_terms(out, [others[i] * unthunk(item_dots[i]) for i in active])


# ----- max, min: f(xs) or f(a, b, *more), with optional key and default; real numbers only -----


def _is_real_number(x: Any) -> bool:
    """A real number: Python's, numpy's, or a 0-d array of a real dtype (Python compares it as a number)."""
    x = primal_of(x)
    if isinstance(x, numbers.Real):
        return True
    return isinstance(x, (np.generic, np.ndarray)) and x.ndim == 0 and x.dtype.kind in "biuf"


def _weights(items: list[Any], key: Any, pick: Callable[..., Any]) -> list[float]:
    """How the cotangent of ``max``/``min`` (``pick``) is shared among the items.

    Without ``key``, items equal to the result share it evenly: the central
    difference, as for numpy's ``maximum`` (Python returns the first of
    them; ChainRules.jl gives all to one). With ``key``, the item Python
    returns takes it all: items with equal keys need not be equal.
    """
    items = [primal_of(x) for x in items]  # an order: read off the plain values
    if key is not None:
        keys = [key(x) for x in items]
        best = pick(keys)
        weights = [0.0] * len(items)
        weights[keys.index(best)] = 1.0
        return weights
    best = pick(items)
    ties = [x is best or x == best for x in items]  # identity for a nan result
    share = 1.0 / sum(ties)
    return [share if tie else 0.0 for tie in ties]


def _extreme_items(args: tuple[Any, ...]) -> list[Any] | None:
    items = sequence_items(args[0]) if len(args) == 1 else list(args)
    if items is None or not all(_is_real_number(x) for x in items):
        return None
    return items


@rrule.register(builtins.max)
@rrule.register(builtins.min)
def _rrule_extreme(f: Any, *args: Any, **kwargs: Any) -> Any:
    items = _extreme_items(args)
    if items is None:
        return None
    out = follow(f, *args, **kwargs)
    projects = [ProjectTo(a) for a in args]
    weights = _weights(items, kwargs.get("key"), f) if items else []  # no items: the default of an empty sequence
    shape = value_shape(out)

    def extreme_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, shape)
        if not items:
            return (NoTangent(), *(p(ZeroTangent()) for p in projects))
        bars = [ZeroTangent() if w == 0 else ProjectTo(x)(w * out_bar) for x, w in zip(items, weights)]
        if len(args) > 1:
            return (NoTangent(), *(p(b) for p, b in zip(projects, bars)))
        return NoTangent(), _sequence_bar(args[0], projects[0], bars)

    return out, extreme_pullback


@frule.register(builtins.max)
@frule.register(builtins.min)
def _frule_extreme(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
    items = _extreme_items(args)
    if items is None:
        return None
    out = follow(f, *args, **kwargs)
    dots = checked_tangents(f, tangents, args)
    if not items:
        return out, ProjectTo(out)(ZeroTangent())
    weights = _weights(items, kwargs.get("key"), f)
    item_dots = _item_tangents(args[0], dots[0]) if len(args) == 1 else dots
    terms = [weights[i] * unthunk(item_dots[i]) for i in _active(item_dots, items) if weights[i]]
    return out, tangent_from_terms(out, terms)


# ----- math.dist: the Euclidean distance of two points, hypot of their differences -----


def _dist_units(p: list[Any], q: list[Any], out: Any) -> list[Any]:
    """``(p_i - q_i) / dist(p, q)``, the partials in ``p`` (those in ``q`` are their negatives); 0 where the points
    coincide, as ``hypot`` at the origin and the norms at zero."""
    return [python_partials(hypot_partial, out, (x - y,)) for x, y in zip(p, q)]


@rrule.register(math.dist)
def _rrule_dist(f: Any, p: Any, q: Any) -> Any:
    p_items, q_items = sequence_items(p), sequence_items(q)
    if p_items is None or q_items is None:
        return None
    out = follow(f, p, q)
    project_p, project_q = ProjectTo(p), ProjectTo(q)
    shape = value_shape(out)

    def dist_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
        out_bar = checked_seed(f, out_bar, shape)
        bars = [u * out_bar for u in _dist_units(p_items, q_items, out)]
        return NoTangent(), _sequence_bar(p, project_p, bars), _sequence_bar(q, project_q, [-b for b in bars])

    return out, dist_pullback


@frule.register(math.dist)
def _frule_dist(tangents: tuple[Any, ...], f: Any, p: Any, q: Any) -> Any:
    p_items, q_items = sequence_items(p), sequence_items(q)
    if p_items is None or q_items is None:
        return None
    out = follow(f, p, q)
    units = _dist_units(p_items, q_items, out)
    p_dot, q_dot = checked_tangents(f, tangents, (p, q))
    terms = []
    for items, dots, sign in (
        (p_items, _item_tangents(p, p_dot), 1),
        (q_items, _item_tangents(q, q_dot), -1),
    ):
        terms += [sign * units[i] * unthunk(dots[i]) for i in _active(dots, items)]
    return out, tangent_from_terms(out, terms)


# ----- sorted: a permutation of the items -----


def _sorted_items(xs: Any, kwargs: dict[str, Any]) -> list[Any] | None:
    """The items ``sorted`` moves: real numbers, or any items ordered by ``key``; None for other calls."""
    items = sequence_items(xs)
    if items is None or not set(kwargs) <= {"key", "reverse"}:
        return None
    if kwargs.get("key") is None and not all(_is_real_number(x) for x in items):
        return None
    return items


def _permutation(items: list[Any], key: Any, reverse: bool) -> list[int]:
    """The item each output entry of ``sorted`` is: the same stable sort of the indices, compared as the items are
    (by ``key`` when given), so ties keep their order as in the call itself."""
    values = [primal_of(x) for x in items]
    keys = values if key is None else [key(v) for v in values]
    return sorted(range(len(items)), key=keys.__getitem__, reverse=reverse)


@rrule.register(builtins.sorted)
def _rrule_sorted(f: Any, xs: Any, **kwargs: Any) -> Any:
    items = _sorted_items(xs, kwargs)
    if items is None:
        return None
    out = follow(f, xs, **kwargs)
    perm = _permutation(items, kwargs.get("key"), bool(kwargs.get("reverse", False)))
    project_xs = ProjectTo(xs)
    shapes = [value_shape(o) for o in out]

    def sorted_pullback(out_bar: Any) -> tuple[Any, Any]:
        entries = checked_entries(f, out_bar, len(out), shapes)
        bars: list[Any] = [ZeroTangent()] * len(items)
        for j, i in enumerate(perm):
            bars[i] = readonly(entries[j])
        return NoTangent(), _sequence_bar(xs, project_xs, bars)

    return out, sorted_pullback


@frule.register(builtins.sorted)
def _frule_sorted(tangents: tuple[Any, ...], f: Any, xs: Any, **kwargs: Any) -> Any:
    items = _sorted_items(xs, kwargs)
    if items is None:
        return None
    out = follow(f, xs, **kwargs)
    xs_dot = checked_tangent(f, tangents[1], xs)
    if isinstance(xs_dot, AbstractZero):
        return out, ProjectTo(out)(ZeroTangent())
    perm = _permutation(items, kwargs.get("key"), bool(kwargs.get("reverse", False)))
    item_dots = _item_tangents(xs, xs_dot)
    return out, ProjectTo(out)([item_dots[i] for i in perm])
