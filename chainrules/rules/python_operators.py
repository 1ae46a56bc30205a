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
    frule,
    is_namedtuple,
    non_differentiable,
    rrule,
    unthunk,
)
from chainrules_core.projection import ProjectTo
from chainrules_core.testing import NONZERO, REALS, Arg, At, Case, Generated, register_cases

from . import arithmetic, elementwise  # noqa: F401 - the numpy rules the entry points reuse
from ._cases import REAL_DTYPES, away_from_multiples, table_cases
from ._derivatives import BINARY, UNARY
from ._makers import NUMERIC, python_rule, readonly, zero_of, zero_rule
from ._sequences import extreme_rules, sum_rules

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


def _numeric_rules(f: Any, ufunc: Any, entry: Any) -> None:
    types = (NUMERIC,) * entry.arity
    numpy_rrule, numpy_frule = rrule.find(ufunc, *([1.0] * entry.arity)), frule.find(ufunc, *([1.0] * entry.arity))
    python_rule(f, entry, *types, numpy_rrule=numpy_rrule, numpy_frule=numpy_frule)


for _f, _ufunc in OPERATOR_BINARY.items():
    _numeric_rules(_f, _ufunc, BINARY[_ufunc])
for _f, _ufunc in OPERATOR_UNARY.items():
    _numeric_rules(_f, _ufunc, UNARY[_ufunc])

# pow(x, p, mod) is integer arithmetic
non_differentiable(builtins.pow, arg_types=(NUMERIC, NUMERIC, (numbers.Integral, np.integer)))

sum_rules(builtins.sum)
extreme_rules(builtins.max, builtins.max)
extreme_rules(builtins.min, builtins.min)
zero_rule(builtins.round, nin=2)  # round(x) returns an int (no tangent), round(x, n) a float (zero derivative)


@rrule.register(type[float])
def _rrule_float(f: Any, *args: Any) -> Any:
    if not args:  # float() is the constant 0.0
        return f(), lambda out_bar: (NoTangent(),)
    (x,) = args
    out = f(x)
    project_x = ProjectTo(x)
    project_out = ProjectTo(out)

    def float_pullback(out_bar: Any) -> tuple[Any, Any]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), zero_of(project_x)
        return NoTangent(), project_x(project_out(out_bar))

    return out, float_pullback


@frule.register(type[float])
def _frule_float(tangents: tuple[Any, ...], f: Any, *args: Any) -> Any:
    out = f(*args)
    x_dot = tangents[1] if args else ZeroTangent()
    if isinstance(x_dot, AbstractZero) or ProjectTo(args[0]).is_no_tangent:
        return out, ZeroTangent()
    return out, ProjectTo(out)(unthunk(x_dot))


# ----- tuples, lists, dicts: indexing, concatenation, repetition -----


def _entries(t: Any, n: int) -> list[Any]:
    """The entry tangents of a tuple or list tangent of length ``n``."""
    if isinstance(t, AbstractZero):
        return [ZeroTangent()] * n
    t = unthunk(t)
    return list(backing(t)) if isinstance(t, Tangent) else list(t)


def _positions(xs: Any, index: Any) -> list[int]:
    return list(range(len(xs))[index]) if isinstance(index, slice) else [range(len(xs))[index]]


def _scatter(xs: Any, index: Any, out_bar: Any) -> Any:
    """The cotangent of ``xs`` from that of ``xs[index]``: zero everywhere else."""
    out_bar = readonly(out_bar)  # passed on unchanged: not ours to write into
    if isinstance(xs, dict):
        return {index: out_bar}
    positions = _positions(xs, index)
    values = _entries(out_bar, len(positions)) if isinstance(index, slice) else [out_bar]
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

    def getitem_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero) or project_xs.is_no_tangent:
            return NoTangent(), zero_of(project_xs), NoTangent()
        return NoTangent(), project_xs(_scatter(xs, index, out_bar)), NoTangent()

    return out, getitem_pullback


@frule.register(operator.getitem, (tuple, list, dict), object)
def _frule_getitem(tangents: tuple[Any, ...], f: Any, xs: Any, index: Any) -> Any:
    out = f(xs, index)
    xs_dot = unthunk(tangents[1])
    project_out = ProjectTo(out)
    if isinstance(xs_dot, AbstractZero):
        return out, zero_of(project_out)
    if isinstance(xs, dict) or is_namedtuple(type(xs)):
        fields = dict(backing(xs_dot)) if isinstance(xs_dot, Tangent) else dict(xs_dot)
        key = index if isinstance(xs, dict) else xs._fields[index]
        return out, project_out(fields.get(key, ZeroTangent()))
    entries = _entries(xs_dot, len(xs))
    return out, project_out(entries[index])


@rrule.register(operator.add, tuple, tuple)
@rrule.register(operator.add, list, list)
def _rrule_concatenate(f: Any, a: Any, b: Any) -> Any:
    out = f(a, b)
    project_a, project_b = ProjectTo(a), ProjectTo(b)

    def concatenate_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), zero_of(project_a), zero_of(project_b)
        entries = [readonly(e) for e in _entries(out_bar, len(out))]
        return NoTangent(), project_a(entries[: len(a)]), project_b(entries[len(a) :])

    return out, concatenate_pullback


@frule.register(operator.add, tuple, tuple)
@frule.register(operator.add, list, list)
def _frule_concatenate(tangents: tuple[Any, ...], f: Any, a: Any, b: Any) -> Any:
    out = f(a, b)
    _, a_dot, b_dot = tangents
    if isinstance(a_dot, AbstractZero) and isinstance(b_dot, AbstractZero):
        return out, zero_of(ProjectTo(out))
    return out, ProjectTo(out)(_entries(a_dot, len(a)) + _entries(b_dot, len(b)))


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
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero) or project_seq.is_no_tangent:
            seq_bar: Any = zero_of(project_seq)
        else:
            entries = _entries(out_bar, len(out))
            seq_bar = project_seq([sum(entries[i::k], ZeroTangent()) for i in range(k)])
        return (NoTangent(), seq_bar, NoTangent()) if seq_first else (NoTangent(), NoTangent(), seq_bar)

    return out, repeat_pullback


@frule.register(operator.mul, (tuple, list), (numbers.Integral, np.integer))
@frule.register(operator.mul, (numbers.Integral, np.integer), (tuple, list))
def _frule_repeat(tangents: tuple[Any, ...], f: Any, a: Any, b: Any) -> Any:
    out = f(a, b)
    (seq, n, seq_dot) = (a, b, tangents[1]) if _repeated(a, b) else (b, a, tangents[2])
    if isinstance(seq_dot, AbstractZero):
        return out, zero_of(ProjectTo(out))
    return out, ProjectTo(out)(_entries(seq_dot, len(seq)) * n)


# ----- declared checks -----


def _floats(n: int) -> Generated:
    return Generated(lambda rng, dtype: [float(v) for v in rng.uniform(-2.0, 2.0, n)], f"{n} floats")


def _numpy_scalar(value: float) -> Generated:
    return Generated(lambda rng, dtype: np.dtype(dtype).type(value), "numpy scalar")


def _cases() -> list[Case]:
    cases = []
    for f, ufunc in OPERATOR_BINARY.items():
        if ufunc is not np.remainder:
            cases += table_cases(f, BINARY[ufunc])
    for f, ufunc in OPERATOR_UNARY.items():
        cases += table_cases(f, UNARY[ufunc])
    for f in (operator.abs, builtins.abs):
        cases += [Case(f, (Arg(NONZERO, shape),), name="complex", dtypes=("complex128",)) for shape in (None, (3,))]
    cases += [
        Case(operator.mod, (away_from_multiples(1.3, None), At(1.3)), dtypes=("float64",)),
        Case(operator.mod, (away_from_multiples([1.5, -2.0, 0.7], (2, 3)), At([1.5, -2.0, 0.7])), dtypes=REAL_DTYPES),
        Case(operator.pow, (At(-1.5), 3), name="negative base"),
        Case(builtins.pow, (At(-1.5), 2), name="negative base", dtypes=("float64",)),
        Case(operator.pow, (At(-4.0), At(0.5)), name="complex result", dtypes=("float64",)),
        Case(builtins.sum, (_floats(4),), dtypes=("float64",)),
        Case(builtins.sum, (_floats(3), At(0.5)), name="start", dtypes=("float64",)),
        Case(builtins.sum, ((1.5, 2, -0.5),), name="tuple with an int", dtypes=("float64",)),
        Case(builtins.sum, (At([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]),), name="array rows"),
        Case(builtins.sum, ([np.array([1.0, 2.0, 3.0]), np.array([[0.5], [1.5]]), 2.5],), name="broadcasting"),
        Case(builtins.max, (_floats(4),), dtypes=("float64",)),
        Case(builtins.min, (_floats(4),), dtypes=("float64",)),
        Case(builtins.max, (At(0.5), At(-1.5), At(2.0)), name="arguments", dtypes=("float64",)),
        Case(builtins.min, (At(0.5), 3, At(2.0)), name="an int argument", dtypes=("float64",)),
        Case(builtins.max, ([1.0, 2.0, 2.0, -3.0],), name="ties", dtypes=("float64",)),
        Case(builtins.min, ((0.5, -1.5, -1.5),), name="ties", dtypes=("float64",)),
        Case(builtins.max, ([1.0, -2.5, 2.0],), kwargs={"key": abs}, name="key", dtypes=("float64",)),
        Case(builtins.max, (At([0.5, 2.0, -1.0]),), name="array", dtypes=("float64", "float32")),
        Case(builtins.round, (At(1.2345), 2), name="digits", dtypes=("float64",)),
        Case(builtins.round, (_numpy_scalar(1.2345), 2), name="numpy scalar", dtypes=("float64", "float32")),
        Case(float, (Arg(REALS, None),), dtypes=("float64",)),
        Case(float, (At(np.asarray(0.25)),), name="0-d array", dtypes=("float64", "float32")),
        Case(operator.getitem, ((1.5, 2.5, -1.0), 1), dtypes=("float64",)),
        Case(operator.getitem, ((1.5, 2, np.array([1.0, -1.0])), slice(0, 3, 2)), name="slice", dtypes=("float64",)),
        Case(operator.getitem, ([1.5, 2.5, -1.0], -1), name="list", dtypes=("float64",)),
        Case(operator.getitem, ({"a": 1.5, "b": np.array([2.0, 3.0])}, "b"), name="dict", dtypes=("float64",)),
        Case(operator.add, ((1.5, 2.0), (3.0, np.array([1.0, 2.0]))), name="tuples", dtypes=("float64",)),
        Case(operator.add, ([1.5], [2.0, -3.0]), name="lists", dtypes=("float64",)),
        Case(operator.mul, ((1.5, -2.0), 3), name="repeated", dtypes=("float64",)),
        Case(operator.mul, (2, [1.5, 0.5]), name="repeated", dtypes=("float64",)),
    ]
    return cases


register_cases("python_operators", *_cases())
