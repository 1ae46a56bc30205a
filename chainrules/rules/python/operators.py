"""Rules for the ``operator`` module and the builtins ``abs``, ``pow``, ``sum``, ``max``, ``min``, ``round``, ``float``.

On numbers and numpy arrays the arithmetic operators share numpy's
derivative tables: Python floats and ints take the fast Python path and get
Python floats back; numpy values and Python complex numbers go through the
numpy function's rule, called with the operator itself so the primal keeps
Python's semantics. The rules are registered for those argument types only,
so ``operator.add`` on other objects has no rule (``None``), except tuples
and lists, whose concatenation (``+``) and repetition (``* n``) move
cotangents entry by entry. ``operator.getitem`` has rules for tuples, lists
and dicts (numpy arrays are indexed in ``indexing``); ``operator.matmul`` is
numpy's ``matmul``, in the linear-algebra rules.
"""

from __future__ import annotations

import builtins
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
    rrule,
    unthunk,
    value_shape,
)
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
    python_rule(f, partials, *types, lazy=lazy, numpy_rrule=_numpy_rrule(ufunc), numpy_frule=_numpy_frule(ufunc))


def _numpy_rrule(ufunc: Any) -> Any:
    """The rrule of ``ufunc`` for the arguments of a call, called with ``f`` so the primal keeps Python's semantics;
    looked up at each call, so that it is the general rule while fast paths are off."""

    def numpy_rrule(f: Any, *args: Any, **kwargs: Any) -> Any:
        rule = rrule.find(ufunc, *args)
        return None if rule is None else rule(f, *args, **kwargs)

    return numpy_rrule


def _numpy_frule(ufunc: Any) -> Any:
    """The frule of ``ufunc`` for the arguments of a call, as ``_numpy_rrule``."""

    def numpy_frule(tangents: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
        rule = frule.find(ufunc, *args)
        return None if rule is None else rule(tangents, f, *args, **kwargs)

    return numpy_frule


for _f, _ufunc in OPERATOR_BINARY.items():
    _numeric_rules(_f, _ufunc, 2)
for _f, _ufunc in OPERATOR_UNARY.items():
    _numeric_rules(_f, _ufunc, 1)

# pow(x, p, mod) is integer arithmetic
non_differentiable(builtins.pow, arg_types=(NUMERIC, NUMERIC, (numbers.Integral, np.integer)))

# round(x) returns an int (no tangent), round(x, n) a float (zero derivative)
zero_derivative_rule(builtins.round, nin=2)


@rrule.register(type[float])
def _rrule_float(f: Any, *args: Any) -> Any:
    if not args:  # float() is the constant 0.0
        return f(), lambda out_bar: (NoTangent(),)
    (x,) = args
    out = follow(f, x)  # float() of an engine's value: one operation it follows
    project_x = ProjectTo(x)
    project_out = ProjectTo(out)

    def float_pullback(out_bar: Any) -> tuple[Any, Any]:
        return NoTangent(), project_x(project_out(checked_seed(f, out_bar, ())))

    return out, float_pullback


@frule.register(type[float])
def _frule_float(tangents: tuple[Any, ...], f: Any, *args: Any) -> Any:
    out = follow(f, *args)
    x_dot = checked_tangent(f, tangents[1], args[0]) if args else ZeroTangent()
    if isinstance(x_dot, AbstractZero) or ProjectTo(args[0]).is_no_tangent:
        return out, ZeroTangent()
    return out, ProjectTo(out)(x_dot)


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


@rrule.register(operator.add, tuple, tuple)
@rrule.register(operator.add, list, list)
def _rrule_concatenate(f: Any, a: Any, b: Any) -> Any:
    out = f(a, b)
    project_a, project_b = ProjectTo(a), ProjectTo(b)

    def concatenate_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
        entries = [readonly(e) for e in checked_entries(f, out_bar, len(out), [value_shape(o) for o in out])]
        return NoTangent(), project_a(entries[: len(a)]), project_b(entries[len(a) :])

    return out, concatenate_pullback


@frule.register(operator.add, tuple, tuple)
@frule.register(operator.add, list, list)
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
