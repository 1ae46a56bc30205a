"""einsum: any subscripts numpy accepts, in the string or the interleaved form.

The subscripts are parsed once into integer labels (numpy's interleaved
form), with the dimensions an ellipsis stands for given labels of their own,
aligned from the right. ``einsum`` is linear in each operand, so the
pushforward sums ``einsum`` with one operand replaced by its tangent, and the
cotangent of operand ``k`` is ``einsum`` of the output cotangent with the
conjugates of the other operands, producing ``k``'s labels (autograd's
``grad_einsum``, conjugated for the complex convention). Three cases need
more than that one ``einsum``:

* a label repeated in operand ``k`` (a diagonal, a trace): the cotangent is
  computed per distinct label and written onto that diagonal of a zero array;
* a label only operand ``k`` has (summed within it): the cotangent is
  constant along it, a broadcast;
* a dimension of size 1 that broadcasting stretched: summed back to size 1.

``optimize=`` is passed to every ``einsum`` the rules call; calls with other
keywords (``out=``, ``dtype=``, ``casting=``, ``order=``) get no rule (``None``).

Reading the subscripts and planning each operand's contraction depend only
on the subscripts and the operands' shapes: the plan is cached by those
(the last 256 kinds of call), so a call in a loop pays for it once. Where
a cotangent of two real operands sums nothing (``'ij,ij->i'``), each entry
is one product, and the plan computes it as a broadcast product, which
numpy does faster than ``einsum`` and to the same numbers.

The Python Array API standard has no ``einsum``: the rules run on the
libraries that answer numpy's ``einsum`` themselves (dask, CuPy), whose
``einsum`` computes the output and every cotangent; the diagonal of a
repeated label is then the cotangent where the indices of the label's
axes agree (``where`` over a comparison of ``arange``s), as such a library
need not take writes into an array; so is a cotangent an AD engine follows
(nested differentiation), which no array can be written into. Any other
library's arrays get ``TypeError``.
"""

from __future__ import annotations

import functools
import string
from dataclasses import dataclass
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    Thunk,
    ZeroTangent,
    checked_seed,
    checked_tangent,
    frule,
    is_followed,
    rrule,
    shape_of,
    value_shape,
)
from chainrules_core.array_api import call_in
from chainrules_core.arrays import as_arrays_like, device_of, is_foreign_array, namespace_of
from chainrules_core.projection import no_tangent_space, project_onto

from ._bilinear import numeric_seed
from .linalg._common import as_array, conjugate

_LETTERS = string.ascii_uppercase + string.ascii_lowercase  # numpy's labels 0..51
_ALLOWED_KWARGS = frozenset({"optimize"})
_NO_TANGENT = NoTangent()


Alignment = tuple[tuple[int, ...] | None, tuple[int, ...]]
"""How an array lines up with the labels an einsum computes: the axes to transpose it by, the shape to give it."""


@dataclass(frozen=True)
class _OperandPlan:
    """How the cotangent of one operand is computed from the output cotangent.

    ``einsum(subscripts, g, *others)`` gives its entries over the labels it
    computes (``subscripts`` is the string form, which numpy reads fastest);
    reshaped to ``kept`` and broadcast
    to ``shape`` (one size per distinct label of the operand) it is the
    cotangent, written onto the diagonal ``labels`` -> ``distinct`` of a zero
    array when a label repeats.
    """

    others: tuple[int, ...]
    subscripts: str
    kept: tuple[int, ...]
    shape: tuple[int, ...]
    labels: tuple[int, ...]
    distinct: tuple[int, ...]
    operand_shape: tuple[int, ...]
    product: tuple[Alignment, Alignment] | None = None


@dataclass(frozen=True)
class _Plan:
    """Parsed einsum arguments: where the operands are, their labels, the output labels, each cotangent's plan."""

    positions: tuple[int, ...]
    inputs: tuple[tuple[int, ...], ...]
    output: tuple[int, ...]
    cotangents: tuple[_OperandPlan, ...]


def _parse_term(term: Any) -> list[Any]:
    """One operand's subscripts as a list of labels and ``...``."""
    if isinstance(term, str):
        labels: list[Any] = []
        rest = term.replace(" ", "")
        while rest:
            if rest.startswith("..."):
                labels.append(Ellipsis)
                rest = rest[3:]
            elif rest[0] in _LETTERS:
                labels.append(_LETTERS.index(rest[0]))
                rest = rest[1:]
            else:
                raise ValueError(f"einsum: invalid subscript character {rest[0]!r}")
        return labels
    return [Ellipsis if t is Ellipsis else int(t) for t in term]


def _key(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """What the plan of a call depends on: its subscripts (hashable) and its operands' shapes."""
    if isinstance(args[0], str):
        return (args[0], tuple([shape_of(x) for x in args[1:]]))
    n = len(args) // 2
    terms = tuple(tuple(args[2 * i + 1]) for i in range(n))
    output = tuple(args[-1]) if len(args) % 2 else None
    return (terms, output, tuple(shape_of(args[2 * i]) for i in range(n)))


def _plan(args: tuple[Any, ...]) -> _Plan:
    return _cached_plan(_key(args))


@functools.lru_cache(maxsize=256)
def _cached_plan(key: tuple[Any, ...]) -> _Plan:
    if isinstance(key[0], str):
        subscripts, shapes = key
        if "->" in subscripts:
            lhs, rhs = subscripts.split("->")
            explicit: list[Any] | None = _parse_term(rhs)
        else:
            lhs, explicit = subscripts, None
        terms = [_parse_term(t) for t in lhs.split(",")]
        positions = tuple(range(1, len(shapes) + 1))
    else:
        raw_terms, raw_output, shapes = key
        terms = [_parse_term(t) for t in raw_terms]
        explicit = None if raw_output is None else _parse_term(raw_output)
        positions = tuple(2 * i for i in range(len(shapes)))
    if len(terms) != len(shapes):
        raise ValueError(f"einsum: {len(terms)} subscript terms for {len(shapes)} operands")
    inputs, output = _labels(terms, explicit, shapes)
    cotangents = tuple(_operand_plan(k, inputs, output, shapes) for k in range(len(shapes)))
    return _Plan(positions, inputs, output, cotangents)


def _labels(
    terms: list[list[Any]], explicit: list[Any] | None, shapes: tuple[tuple[int, ...], ...]
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Integer labels for every operand and the output, the dimensions under ``...`` given labels of their own."""
    used = {label for term in terms for label in term if label is not Ellipsis}
    ellipsis_ranks = [len(shape) - (len(t) - 1) if Ellipsis in t else 0 for t, shape in zip(terms, shapes)]
    rank = max(ellipsis_ranks, default=0)
    fresh = [label for label in range(len(_LETTERS)) if label not in used][:rank]
    if len(fresh) < rank:
        raise ValueError("einsum: too many labels to differentiate this call")

    def expand(term: list[Any], n: int) -> tuple[int, ...]:
        if Ellipsis not in term:
            return tuple(term)
        i = term.index(Ellipsis)
        return (*term[:i], *fresh[rank - n :], *term[i + 1 :])

    inputs = tuple(expand(t, n) for t, n in zip(terms, ellipsis_ranks))
    if explicit is not None:
        return inputs, expand(explicit, rank)
    counts: dict[int, int] = {}
    for term in terms:
        for label in term:
            if label is not Ellipsis:
                counts[label] = counts.get(label, 0) + 1
    return inputs, (*fresh, *sorted(label for label, c in counts.items() if c == 1))


def _operand_plan(
    k: int, inputs: tuple[tuple[int, ...], ...], output: tuple[int, ...], shapes: tuple[tuple[int, ...], ...]
) -> _OperandPlan:
    labels = inputs[k]
    distinct = tuple(dict.fromkeys(labels))
    size = {label: shapes[k][labels.index(label)] for label in distinct}
    elsewhere: dict[int, int] = {}
    for j, (term, shape) in enumerate(zip(inputs, shapes)):
        if j != k:
            for label, n in zip(term, shape):  # broadcasting: a size 1 gives way to any other, 0 included
                elsewhere[label] = n if elsewhere.get(label, 1) == 1 else elsewhere[label]
    for label in output:
        elsewhere.setdefault(label, 1)
    # Labels computed by the einsum; the others are summed within x alone (broadcast back)
    # or size 1 in x but stretched by broadcasting (summed by leaving them out).
    computed = tuple(label for label in distinct if label in elsewhere and not (size[label] == 1 != elsewhere[label]))
    others = tuple(j for j in range(len(inputs)) if j != k)
    terms = ",".join(_letters(term) for term in (output, *(inputs[j] for j in others)))
    product = None
    if len(others) == 1 and set(computed) == {*output, *inputs[others[0]]} and _distinct(inputs[others[0]]):
        # nothing is summed: each entry is one product, which broadcasting computes faster than einsum
        sizes = _label_sizes(inputs, shapes)
        other = inputs[others[0]]
        product = (
            _aligned(output, tuple(sizes[label] for label in output), computed),
            _aligned(other, shapes[others[0]], computed),
        )
    return _OperandPlan(
        others=others,
        subscripts=f"{terms}->{_letters(computed)}",
        # the einsum's size: x's, or 1 where only other operands, broadcasting a size-1 axis against x's, have it
        kept=tuple(
            (size[label] if label in output else elsewhere[label]) if label in computed else 1 for label in distinct
        ),
        shape=tuple(size[label] for label in distinct),
        labels=labels,
        distinct=distinct,
        operand_shape=shapes[k],
        product=product,
    )


def _distinct(term: tuple[int, ...]) -> bool:
    return len(set(term)) == len(term)


def _label_sizes(inputs: tuple[tuple[int, ...], ...], shapes: tuple[tuple[int, ...], ...]) -> dict[int, int]:
    """The size of each label in the output: the operands' size, a size 1 giving way to any other."""
    sizes: dict[int, int] = {}
    for term, shape in zip(inputs, shapes):
        for label, n in zip(term, shape):
            sizes[label] = n if sizes.get(label, 1) == 1 else sizes[label]
    return sizes


def _aligned(term: tuple[int, ...], shape: tuple[int, ...], computed: tuple[int, ...]) -> Alignment:
    """How an array of ``term``'s labels and ``shape`` lines up with ``computed``: the axes to transpose it by
    (``None`` if in order already) and the shape that then broadcasts, with size 1 where it lacks a label."""
    axes = tuple(sorted(range(len(term)), key=lambda i: computed.index(term[i])))
    laid = tuple(shape[term.index(label)] if label in term else 1 for label in computed)
    return (None if axes == tuple(range(len(term))) else axes), laid


def _lined_up(x: np.ndarray, alignment: Alignment) -> np.ndarray:
    axes, laid = alignment
    if axes is not None:
        x = x.transpose(axes)
    return x if x.shape == laid else x.reshape(laid)


def _letters(labels: tuple[int, ...]) -> str:
    return "".join(_LETTERS[label] for label in labels)


def _operand_cotangent(xp: Any, plan: _OperandPlan, operands: list[Any], g: Any, optimize: Any) -> Any:
    """The cotangent of one operand from the output cotangent ``g``, in the namespace ``xp`` of them all."""
    others = [operands[j] for j in plan.others]
    r = _product(plan.product, g, others[0]) if plan.product is not None and not optimize else None
    if r is None:
        if xp is np:
            others = [x.conj() if x.dtype.kind == "c" else x for x in others]
        else:
            others = [conjugate(x, xp) for x in others]
        r = call_in(xp, np.einsum, plan.subscripts, g, *others, optimize=optimize)
    if r.shape != plan.kept:
        r = xp.reshape(r, plan.kept)
    if r.shape != plan.shape:
        r = xp.broadcast_to(r, plan.shape)
    if len(plan.distinct) == len(plan.labels):
        return r
    if xp is not np or is_followed(r):  # written into, an array holds no engine's values (nested differentiation)
        return _on_diagonals(xp, plan, r)
    x_bar = np.zeros(plan.operand_shape, np.result_type(g, *others))
    np.einsum(x_bar, list(plan.labels), list(plan.distinct))[...] = r  # a writable view of the diagonal
    return x_bar


def _on_diagonals(xp: Any, plan: _OperandPlan, r: Any) -> Any:
    """``r`` (over the operand's distinct labels) on the diagonals of its repeated labels, zero elsewhere.

    ``r``'s axes are the labels' first places, in order: a size-1 axis at every later place lines it up with the
    operand; the mask compares the index along each later place with the index at its label's first place.
    """
    labels, n = plan.labels, len(plan.labels)
    first = {label: labels.index(label) for label in plan.distinct}
    laid = tuple(size if first[label] == p else 1 for p, (label, size) in enumerate(zip(labels, plan.operand_shape)))
    device = device_of(r)

    def index_along(p: int) -> Any:
        return xp.reshape(xp.arange(plan.operand_shape[p], device=device), tuple(-1 if q == p else 1 for q in range(n)))

    mask = None
    for p, label in enumerate(labels):
        if first[label] != p:
            agree = index_along(first[label]) == index_along(p)
            mask = agree if mask is None else mask & agree
    return xp.where(mask, xp.reshape(r, laid), 0.0)


def _product(product: tuple[Alignment, Alignment], g: Any, other: Any) -> np.ndarray | None:
    """``einsum(subscripts, g, other)`` where nothing is summed, of real arrays: their broadcast product.

    ``None`` for complex or followed values, which take einsum (``g`` and
    ``other`` come through ``as_array``: an engine's value or a plain ndarray,
    never a subclass whose ``*`` means something else).
    """
    if (
        not isinstance(g, np.ndarray)
        or not isinstance(other, np.ndarray)
        or not g.dtype.kind == "f" == other.dtype.kind
    ):
        return None
    return _lined_up(g, product[0]) * _lined_up(other, product[1])  # type: ignore[no-any-return]


def _einsum(f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``einsum`` of numpy's operands, or of another library's (``call_in``: that library's own, or ``TypeError``)."""
    xp = namespace_of(*args)
    return f(*args, **kwargs) if xp is np else call_in(xp, f, *args, **kwargs)


@rrule.register(np.einsum, generic=True)
def _rrule_einsum(f: Any, *args: Any, **kwargs: Any) -> Any:
    if kwargs and not kwargs.keys() <= _ALLOWED_KWARGS:
        return None
    optimize = kwargs.get("optimize", False)
    out = _einsum(f, args, kwargs)
    plan = _plan(args)
    shape = value_shape(out)
    slots = [(i, no_tangent_space(args[i]), operand_plan) for i, operand_plan in zip(plan.positions, plan.cotangents)]
    foreign = is_foreign_array(out)

    def einsum_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, shape)
        cotangents: list[Any] = [_NO_TANGENT] * (len(args) + 1)
        if isinstance(out_bar, AbstractZero):
            for i, _, _ in slots:
                cotangents[i + 1] = ProjectTo(args[i])(ZeroTangent())
            return tuple(cotangents)
        if foreign and isinstance(out_bar, (int, float, complex)):  # the number seed of a 0-d output
            (out_bar,) = as_arrays_like(out, out_bar)
        if not isinstance(out_bar, np.ndarray) or out_bar.dtype.kind not in "fc":
            out_bar = numeric_seed(f, out_bar, shape)
        g = out_bar if foreign else as_array(out_bar)  # as_array: an engine's values stay as they are, with their dtype
        operands = [args[i] if foreign else as_array(args[i]) for i in plan.positions]
        xp = namespace_of(g, *operands)
        for i, constant, operand_plan in slots:
            if constant:
                cotangents[i + 1] = ProjectTo(args[i])(ZeroTangent())
            else:
                cotangents[i + 1] = Thunk(_thunk_body(xp, args[i], operand_plan, operands, g, optimize))
        return tuple(cotangents)

    return out, einsum_pullback


def _thunk_body(xp: Any, x: Any, plan: _OperandPlan, operands: list[Any], g: Any, optimize: Any) -> Any:
    # project_onto builds no projector for a cotangent that fits x already (a float array's)
    return lambda: project_onto(x, _operand_cotangent(xp, plan, operands, g, optimize))


def _operand_positions(args: tuple[Any, ...]) -> range:
    """Where the operands are among the positional arguments."""
    return range(1, len(args)) if isinstance(args[0], str) else range(0, 2 * (len(args) // 2), 2)


@frule.register(np.einsum, generic=True)
def _frule_einsum(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
    if not kwargs.keys() <= _ALLOWED_KWARGS:
        return None
    out = _einsum(f, args, kwargs)
    project_out = ProjectTo(out)
    out_dot: Any = None
    for i in _operand_positions(args):
        x_dot = checked_tangent(f, tangents[i + 1], args[i], i + 1)
        if isinstance(x_dot, AbstractZero) or ProjectTo(args[i]).is_no_tangent:
            continue
        term = _einsum(f, (*args[:i], x_dot, *args[i + 1 :]), kwargs)
        out_dot = term if out_dot is None else out_dot + term
    if out_dot is None:
        return out, project_out(ZeroTangent())
    return out, project_out(out_dot)


# ----- fast paths -----


@rrule.fast_path(np.einsum)
def _rrule_einsum_of_arrays(rule: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
    """einsum of float and complex arrays: the operands are the arrays themselves, no projector is needed for
    a cotangent that fits its operand, and a seed of the output's shape and kind needs no check; any other call,
    and any other seed, takes the rule (the primal computed again)."""
    if (kwargs and not kwargs.keys() <= _ALLOWED_KWARGS) or not args:
        return rule(f, *args, **kwargs)
    for i in _operand_positions(args):
        x = args[i]
        if type(x) is not np.ndarray or x.dtype.kind not in "fc":
            return rule(f, *args, **kwargs)
    optimize = kwargs.get("optimize", False)
    out = f(*args, **kwargs)  # first: numpy's errors for subscripts that do not fit
    plan = _plan(args)
    operands = [args[i] for i in plan.positions]
    shape = out.shape if type(out) is np.ndarray else ()
    pairs = list(zip(plan.positions, plan.cotangents))

    def einsum_pullback(out_bar: Any) -> tuple[Any, ...]:
        if type(out_bar) is not np.ndarray or out_bar.shape != shape or out_bar.dtype.kind not in "fc":
            return rule(f, *args, **kwargs)[1](out_bar)  # type: ignore[no-any-return]
        cotangents: list[Any] = [_NO_TANGENT] * (len(args) + 1)
        for i, operand_plan in pairs:
            cotangents[i + 1] = Thunk(_thunk_body(np, args[i], operand_plan, operands, out_bar, optimize))
        return tuple(cotangents)

    return out, einsum_pullback
