"""Rules for the ``operator`` module and the builtins ``abs``, ``pow``, ``divmod``, ``round``, ``float``, ``complex``.

On numbers and numpy arrays the arithmetic operators share numpy's
derivative tables: Python floats and ints take the fast Python path and get
Python floats back; numpy values and Python complex numbers go through the
numpy function's rule, called with the operator itself so the primal keeps
Python's semantics. The rules are registered for those argument types only,
so ``operator.add`` on other objects has no rule (``None``), except tuples
and lists, whose concatenation (``+``) and repetition (``* n``) move
cotangents entry by entry. ``operator.getitem`` has rules for tuples, lists
and dicts (numpy arrays are indexed in ``indexing``); ``operator.matmul`` is
numpy's ``matmul``, in the linear-algebra rules. ``divmod`` is numpy's
``divmod`` rule; ``operator.concat`` that of ``+`` on tuples and lists.
``itemgetter`` and ``attrgetter`` objects read items and stored fields, and
have no tangent of their own. The in-place operators share the out-of-place
rules on values they cannot change and refuse, with a ``TypeError``, those
they would change (``refuse_mutation``).
"""

from __future__ import annotations

import builtins
import dataclasses
import numbers
import operator
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
    named_after,
    non_differentiable,
    primal_of,
    rrule,
    unthunk,
    value_shape,
)
from chainrules_core.arrays import array_type_name
from chainrules_core.projection import ProjectTo

from .._arrays import tuple_entries
from .._makers import NUMERIC, checked_entries, constant_partials, python_rule, readonly, zero_derivative_rule
from ..numpy.arithmetic import BINARY, LINEAR_BINARY, POWER
from ..numpy.elementwise import LINEAR_UNARY, UNARY
from ._numbers import FLOAT_PAIR

OPERATOR_BINARY = {
    operator.add: np.add,
    operator.sub: np.subtract,
    operator.mul: np.multiply,
    operator.truediv: np.divide,
    operator.mod: np.remainder,  # Python's % on numbers is floored, as numpy's remainder
    operator.pow: np.power,
    builtins.pow: np.power,
}
OPERATOR_UNARY = {
    operator.neg: np.negative,
    operator.pos: np.positive,
    operator.abs: np.absolute,
    builtins.abs: np.absolute,
}


def _partials(ufunc: Any) -> tuple[Any, tuple[int, ...]]:
    """The table entry of a numpy function, and the arguments whose cotangents are lazy."""
    if ufunc is np.power:
        return POWER, (1,)
    for table in (UNARY, BINARY):
        if ufunc in table:
            return table[ufunc], ()
    constants = LINEAR_BINARY.get(ufunc) or (LINEAR_UNARY[ufunc],)
    return constant_partials(constants), ()


def _numeric_rules(f: Any, ufunc: Any, arity: int) -> None:
    """``f`` on numbers and arrays: Python floats in Python arithmetic, anything else through ``ufunc``'s rules."""
    types = (NUMERIC,) * arity
    partials, lazy = _partials(ufunc)
    python_rule(f, partials, *types, lazy=lazy, numpy_rrule=_rrule_of(ufunc), numpy_frule=_frule_of(ufunc))


def _rrule_of(primal: Any) -> Any:
    """The rrule of ``primal`` for the arguments of a call, called with ``f`` so the primal keeps ``f``'s semantics;
    looked up at each call (by the types of the values an engine's arguments stand for), so that it is the general
    rule while fast paths are off."""

    def rrule_of(f: Any, *args: Any, **kwargs: Any) -> Any:
        rule = rrule.find(primal, *map(primal_of, args))
        return None if rule is None else rule(f, *args, **kwargs)

    return rrule_of


def _frule_of(primal: Any) -> Any:
    """The frule of ``primal`` for the arguments of a call, as ``_rrule_of``."""

    def frule_of(tangents: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
        rule = frule.find(primal, *map(primal_of, args))
        return None if rule is None else rule(tangents, f, *args, **kwargs)

    return frule_of


for _f, _ufunc in OPERATOR_BINARY.items():
    _numeric_rules(_f, _ufunc, 2)
for _f, _ufunc in OPERATOR_UNARY.items():
    _numeric_rules(_f, _ufunc, 1)

# divmod(x, y) is (x // y, x % y), as numpy's divmod: the quotient piecewise constant (a zero derivative), the
# remainder's partials those of % (1 and minus the quotient)
rrule.register(builtins.divmod, NUMERIC, NUMERIC)(_rrule_of(np.divmod))
frule.register(builtins.divmod, NUMERIC, NUMERIC)(_frule_of(np.divmod))

# pow(x, p, mod) is integer arithmetic
non_differentiable(builtins.pow, arg_types=(NUMERIC, NUMERIC, (numbers.Integral, np.integer)))

# round(x) returns an int (no tangent), round(x, n) a float (zero derivative)
zero_derivative_rule(builtins.round, nin=2)


# float(x) and complex(x) convert; complex(re, im) is re + 1j * im, linear in both
_UNITS = (1, 1j)
"""The partial of ``complex(re, im)`` in each argument (``float(x)`` and ``complex(z)``: 1)."""


@rrule.register(type[float])
@rrule.register(type[complex])
def _rrule_number(f: Any, *args: Any, **kwargs: Any) -> Any:
    if kwargs:  # complex(real=..., imag=...): keyword arguments get no tangents
        return None
    if not args:  # float() and complex() are the constant 0
        return f(), lambda out_bar: (NoTangent(),)
    out = follow(f, *args)  # float() of an engine's value: one operation it follows
    projects = [ProjectTo(a) for a in args]
    project_out = ProjectTo(out)

    def number_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = project_out(checked_seed(f, out_bar, ()))
        return NoTangent(), *(p(out_bar if u == 1 else u.conjugate() * out_bar) for p, u in zip(projects, _UNITS))

    return out, number_pullback


@frule.register(type[float])
@frule.register(type[complex])
def _frule_number(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
    if kwargs:
        return None
    out = follow(f, *args)
    terms = []
    for i, (x, u) in enumerate(zip(args, _UNITS)):
        x_dot = checked_tangent(f, tangents[i + 1], x, i + 1)
        if not isinstance(x_dot, AbstractZero) and not ProjectTo(x).is_no_tangent:
            terms.append(x_dot if u == 1 else u * x_dot)
    if not terms:
        return out, ZeroTangent()
    return out, ProjectTo(out)(sum(terms[1:], terms[0]))


# ----- tuples, lists, dicts: indexing, concatenation, repetition -----


def _positions(xs: Any, index: Any) -> list[int]:
    return list(range(len(xs))[index]) if isinstance(index, slice) else [range(len(xs))[index]]


def _scatter(xs: Any, index: Any, out_bar: Any) -> Any:
    """The cotangent of ``xs`` from that of ``xs[index]``: zero everywhere else."""
    out_bar = readonly(out_bar)  # passed on unchanged: not ours to write into
    if isinstance(xs, dict):
        return {index: out_bar}
    positions = _positions(xs, index)
    values = tuple_entries(out_bar, len(positions)) if isinstance(index, slice) else [out_bar]
    entries: list[Any] = [ZeroTangent()] * len(xs)
    for position, value in zip(positions, values):
        entries[position] = value
    if is_namedtuple(type(xs)):
        return dict(zip(xs._fields, entries))
    return entries


@rrule.register(operator.getitem, (tuple, list, dict), object)
def _rrule_getitem(f: Any, xs: Any, index: Any) -> Any:
    out = f(xs, index)
    project_xs = ProjectTo(xs)
    shape = value_shape(out)

    def getitem_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
        out_bar = checked_seed(f, out_bar, shape)
        if isinstance(out, (tuple, list)):  # a slice: its entries' seeds
            checked_entries(f, out_bar, len(out), [value_shape(o) for o in out])
        if project_xs.is_no_tangent:
            return NoTangent(), NoTangent(), NoTangent()
        return NoTangent(), project_xs(_scatter(xs, index, out_bar)), NoTangent()

    return out, getitem_pullback


@frule.register(operator.getitem, (tuple, list, dict), object)
def _frule_getitem(tangents: tuple[Any, ...], f: Any, xs: Any, index: Any) -> Any:
    out = f(xs, index)
    xs_dot = unthunk(tangents[1])
    project_out = ProjectTo(out)
    if isinstance(xs_dot, AbstractZero):
        return out, project_out(ZeroTangent())
    if isinstance(xs, dict) or is_namedtuple(type(xs)):
        fields = dict(backing(xs_dot)) if isinstance(xs_dot, Tangent) else dict(xs_dot)
        key = index if isinstance(xs, dict) else xs._fields[index]
        return out, project_out(fields.get(key, ZeroTangent()))
    entries = tuple_entries(xs_dot, len(xs))
    return out, project_out(entries[index])


# ----- itemgetter(*items)(xs), attrgetter(*names)(obj): callables with no tangent of their own -----
# itemgetter(i, j)(xs) is (xs[i], xs[j]): getitem's rules, for every container they take, the cotangents summed;
# attrgetter("a", "b.c")(obj) reads fields: the cotangent is a structural Tangent of obj holding the seed there


def _getter_arguments(f: Any) -> tuple[Any, ...]:
    """The items or attribute names an ``itemgetter`` or ``attrgetter`` was made with."""
    return f.__reduce__()[1]  # type: ignore[no-any-return]


_rrule_getitem_of, _frule_getitem_of = _rrule_of(operator.getitem), _frule_of(operator.getitem)


def _argument(f: Any, args: tuple[Any, ...]) -> Any:
    """The one argument of a getter's call (another number of them: the call's own ``TypeError``)."""
    if len(args) != 1:
        f(*args)
    return args[0]


def _summed(bars: list[Any], zero: Any) -> Any:
    return sum(bars[1:], bars[0]) if bars else zero


@rrule.register(operator.itemgetter)
def _rrule_itemgetter(f: Any, *args: Any) -> Any:
    xs = _argument(f, args)
    calls = [_rrule_getitem_of(operator.getitem, xs, item) for item in _getter_arguments(f)]
    if any(call is None for call in calls):
        return None
    outs = [out for out, _ in calls]
    shapes = [value_shape(out) for out in outs]
    zero = ProjectTo(xs)(ZeroTangent())

    def itemgetter_pullback(out_bar: Any) -> tuple[Any, Any]:
        if len(calls) == 1:
            return NoTangent(), calls[0][1](checked_seed(f, out_bar, shapes[0]))[1]
        entries = checked_entries(f, out_bar, len(calls), shapes)
        bars = [pb(e)[1] for (_, pb), e in zip(calls, entries) if not isinstance(e, AbstractZero)]
        return NoTangent(), _summed(bars, zero)

    return (outs[0] if len(calls) == 1 else tuple(outs)), itemgetter_pullback


@frule.register(operator.itemgetter)
def _frule_itemgetter(tangents: tuple[Any, ...], f: Any, *args: Any) -> Any:
    xs = _argument(f, args)
    xs_dot = checked_tangent(f, tangents[1], xs)
    tangents = (NoTangent(), xs_dot, NoTangent())
    calls = [_frule_getitem_of(tangents, operator.getitem, xs, item) for item in _getter_arguments(f)]
    if any(call is None for call in calls):
        return None
    if len(calls) == 1:
        return calls[0]
    out = tuple(o for o, _ in calls)
    return out, ProjectTo(out)([o_dot for _, o_dot in calls])


def _fields_of(obj: Any) -> Any:
    """The names of ``obj``'s stored fields: a named tuple's, a dataclass's, its instance dictionary's."""
    if is_namedtuple(type(obj)):
        return obj._fields
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [field.name for field in dataclasses.fields(obj)]
    return getattr(obj, "__dict__", {})


def _attribute_paths(f: Any, obj: Any) -> list[list[tuple[Any, str]]] | None:
    """For each name of an ``attrgetter``, the ``(owner, field)`` steps from ``obj``; None where a step is not a
    stored field (a property, a method, an array's ``.T``: computed, not read)."""
    paths = []
    for name in _getter_arguments(f):
        owner, path = primal_of(obj), []
        for field in name.split("."):
            if field not in _fields_of(owner):
                return None
            path.append((owner, field))
            owner = getattr(owner, field)
        paths.append(path)
    return paths


def _nested_tangent(path: list[tuple[Any, str]], out_bar: Any) -> Any:
    """``out_bar`` at the end of ``path``, as nested structural tangents of the owners along it."""
    for owner, field in reversed(path):
        out_bar = Tangent(type(owner), **{field: out_bar})
    return out_bar


@rrule.register(operator.attrgetter)
def _rrule_attrgetter(f: Any, *args: Any) -> Any:
    obj = _argument(f, args)
    paths = _attribute_paths(f, obj)
    if paths is None:
        return None
    out = f(obj)
    outs = [out] if len(paths) == 1 else list(out)
    shapes = [value_shape(o) for o in outs]
    project_obj = ProjectTo(obj)

    def attrgetter_pullback(out_bar: Any) -> tuple[Any, Any]:
        if len(paths) == 1:
            entries = [checked_seed(f, out_bar, shapes[0])]
        else:
            entries = checked_entries(f, out_bar, len(paths), shapes)
        bars = [
            _nested_tangent(path, readonly(e)) for path, e in zip(paths, entries) if not isinstance(e, AbstractZero)
        ]
        return NoTangent(), project_obj(_summed(bars, ZeroTangent()))

    return out, attrgetter_pullback


@frule.register(operator.attrgetter)
def _frule_attrgetter(tangents: tuple[Any, ...], f: Any, *args: Any) -> Any:
    obj = _argument(f, args)
    paths = _attribute_paths(f, obj)
    if paths is None:
        return None
    out = f(obj)
    dots = []
    for path in paths:
        dot = unthunk(tangents[1])
        for _, field in path:
            dot = dot if isinstance(dot, AbstractZero) else unthunk(getattr(dot, field))
        dots.append(dot)
    return out, ProjectTo(out)(dots[0] if len(paths) == 1 else dots)


@rrule.register(operator.add, tuple, tuple)
@rrule.register(operator.add, list, list)
@rrule.register(operator.concat, tuple, tuple)
@rrule.register(operator.concat, list, list)
def _rrule_concatenate(f: Any, a: Any, b: Any) -> Any:
    out = f(a, b)
    project_a, project_b = ProjectTo(a), ProjectTo(b)

    def concatenate_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
        entries = [readonly(e) for e in checked_entries(f, out_bar, len(out), [value_shape(o) for o in out])]
        return NoTangent(), project_a(entries[: len(a)]), project_b(entries[len(a) :])

    return out, concatenate_pullback


@frule.register(operator.add, tuple, tuple)
@frule.register(operator.add, list, list)
@frule.register(operator.concat, tuple, tuple)
@frule.register(operator.concat, list, list)
def _frule_concatenate(tangents: tuple[Any, ...], f: Any, a: Any, b: Any) -> Any:
    out = f(a, b)
    _, a_dot, b_dot = tangents
    if isinstance(a_dot, AbstractZero) and isinstance(b_dot, AbstractZero):
        return out, ProjectTo(out)(ZeroTangent())
    return out, ProjectTo(out)(tuple_entries(a_dot, len(a)) + tuple_entries(b_dot, len(b)))


def _repeated(seq: Any, n: Any) -> bool:
    return isinstance(seq, (tuple, list)) and isinstance(n, (numbers.Integral, np.integer))


@rrule.register(operator.mul, (tuple, list), (numbers.Integral, np.integer))
@rrule.register(operator.mul, (numbers.Integral, np.integer), (tuple, list))
def _rrule_repeat(f: Any, a: Any, b: Any) -> Any:
    out = f(a, b)
    seq, seq_first = (a, True) if _repeated(a, b) else (b, False)
    project_seq = ProjectTo(seq)
    k = len(seq)

    def repeat_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
        entries = checked_entries(f, out_bar, len(out), [value_shape(o) for o in out])
        if project_seq.is_no_tangent:
            seq_bar: Any = NoTangent()
        else:
            seq_bar = project_seq([sum(entries[i::k], ZeroTangent()) for i in range(k)])
        return (NoTangent(), seq_bar, NoTangent()) if seq_first else (NoTangent(), NoTangent(), seq_bar)

    return out, repeat_pullback


@frule.register(operator.mul, (tuple, list), (numbers.Integral, np.integer))
@frule.register(operator.mul, (numbers.Integral, np.integer), (tuple, list))
def _frule_repeat(tangents: tuple[Any, ...], f: Any, a: Any, b: Any) -> Any:
    out = f(a, b)
    (seq, n, seq_dot) = (a, b, tangents[1]) if _repeated(a, b) else (b, a, tangents[2])
    if isinstance(seq_dot, AbstractZero):
        return out, ProjectTo(out)(ZeroTangent())
    return out, ProjectTo(out)(tuple_entries(seq_dot, len(seq)) * n)


# ----- in-place operators: x += y on a value that cannot change is x = x + y -----

IN_PLACE = {
    operator.iadd: operator.add,
    operator.isub: operator.sub,
    operator.imul: operator.mul,
    operator.itruediv: operator.truediv,
    operator.imod: operator.mod,
    operator.ipow: operator.pow,
    operator.imatmul: operator.matmul,
}
"""Each in-place operator and its out-of-place form, whose rules it shares where it changes nothing."""


def refuse_mutation(f: Any, x: Any) -> None:
    """Raise ``TypeError`` when ``f`` (``operator.iadd``, ...) would change ``x`` in place.

    Python calls ``x.__iadd__`` where the type defines it (numpy arrays,
    lists, torch tensors) and the call then writes into ``x``: no rule can
    mirror a call that changes its argument, so the rule refuses and names
    the out-of-place form. Numbers, tuples and immutable arrays (JAX) have no
    such method, and ``operator.iadd(x, y)`` is ``x + y``.
    """
    x = primal_of(x)
    if getattr(type(x), f"__{f.__name__}__", None) is None:
        return
    out_of_place = IN_PLACE[f].__name__
    raise TypeError(
        f"operator.{f.__name__} changes its first argument (a {array_type_name(x)}) in place, so no rule can mirror "
        f"the call; use operator.{out_of_place}, which returns a new value (x = operator.{out_of_place}(x, y)) and has "
        "rules"
    )


def _in_place_rules(f: Any, out_of_place: Any) -> None:
    """``f`` refuses a value it would change, and is ``out_of_place``'s rule on any other (called with ``f``)."""
    rrule_of, frule_of = _rrule_of(out_of_place), _frule_of(out_of_place)

    def _rrule_in_place(f: Any, x: Any, y: Any) -> Any:
        refuse_mutation(f, x)
        return rrule_of(f, x, y)

    def _frule_in_place(tangents: tuple[Any, ...], f: Any, x: Any, y: Any) -> Any:
        refuse_mutation(f, x)
        return frule_of(tangents, f, x, y)

    rrule.register(f)(named_after(f, _rrule_in_place))
    frule.register(f)(named_after(f, _frule_in_place))


for _f, _out_of_place in IN_PLACE.items():
    _in_place_rules(_f, _out_of_place)


# ----- fast paths: the product of two floats -----
# It replaces python_rule's path for two floats (``float_pair_rules``) with the partials (y, x) written in, and
# gives the same numbers.

_NO_TANGENT = NoTangent()


def _rrule_mul_of_floats(rule: Any, f: Any, x: float, y: float) -> Any:
    def mul_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
        if type(out_bar) is not float:
            return rule(f, x, y)[1](out_bar)  # type: ignore[no-any-return]
        return _NO_TANGENT, y * out_bar, x * out_bar

    return x * y, mul_pullback


def _frule_mul_of_floats(rule: Any, tangents: tuple[Any, ...], f: Any, x: float, y: float) -> Any:
    if len(tangents) == 3:
        _, x_dot, y_dot = tangents
        if type(x_dot) is float:
            if type(y_dot) is float:
                return x * y, y * x_dot + x * y_dot
            if type(y_dot) is ZeroTangent:
                return x * y, y * x_dot
        elif type(x_dot) is ZeroTangent and type(y_dot) is float:
            return x * y, x * y_dot
    return rule(tangents, f, x, y)


rrule.fast_path(operator.mul, NUMERIC, NUMERIC, exact=FLOAT_PAIR)(named_after(operator.mul, _rrule_mul_of_floats))
frule.fast_path(operator.mul, NUMERIC, NUMERIC, exact=FLOAT_PAIR)(named_after(operator.mul, _frule_mul_of_floats))
