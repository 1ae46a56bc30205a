"""python_rule's path for floats and ints against its general path: the same outputs, cotangents and tangents."""

from __future__ import annotations

import itertools
import math
import operator
import warnings
from typing import Any

import numpy as np
import pytest

import chainrules  # noqa: F401 - registers the rules
from chainrules.rules.numpy.elementwise import UNARY
from chainrules.rules.python import math as python_math
from chainrules.rules.python import operators as python_operators
from chainrules.rules.python._numbers import general_python_rules
from chainrules_core import NoTangent, Thunk, ZeroTangent, frule, rrule, unthunk


def _entries() -> list[tuple[Any, int, Any, Any, Any]]:
    """``(f, arity, partials, numpy_rrule, numpy_frule)`` for each primal whose table entry is one function."""
    entries = []
    for table, arity in ((python_operators.OPERATOR_BINARY, 2), (python_operators.OPERATOR_UNARY, 1)):
        for f, ufunc in table.items():
            partials, _ = python_operators._partials(ufunc)
            ones = [1.0] * arity
            if callable(partials):
                entries.append((f, arity, partials, rrule.find(ufunc, *ones), frule.find(ufunc, *ones)))
    for f, ufunc in python_math.MATH_UNARY.items():
        entries.append((f, 1, python_math.unary_partials(f, ufunc), None, None))
    for f, partials in python_math.MATH_SPECIAL.items():
        entries.append((f, 1, partials, None, None))
    for f, partials in python_math.MATH_BINARY_PARTIALS.items():
        entries.append((f, 2, partials, None, None))
    entries.append((math.remainder, 2, python_math.remainder_partials, None, None))
    entries.append((math.log, 1, UNARY[np.log], None, None))
    entries.append((math.log, 2, python_math.log_base, None, None))
    return entries


ENTRIES = _entries()
FLOATS = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -3.75, 1e-300, 1e300, math.inf, -math.inf, math.nan]
NUMBERS = [*FLOATS, 0, 1, -2, 3, True, 1.5 + 2j, np.float64(0.5)]
PAIRED = [0.0, -0.0, 0.5, -1.0, 2.0, 1e300, math.inf, math.nan, 0, -2, 1j, np.float32(2.0)]


def _seeds() -> list[Any]:
    return [1.0, -0.5, 0.0, math.inf, np.float64(2.0), ZeroTangent(), Thunk(lambda: 1.5)]


def _outcome(fn: Any, *args: Any) -> Any:
    """What ``fn(*args)`` returns, thunks forced, or the type of what it raises."""
    try:
        return _forced(fn(*args))
    except Exception as error:
        return type(error)


def _forced(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_forced(v) for v in value)
    return unthunk(value)


def _same(a: Any, b: Any) -> bool:
    """Equal values of the same type: nan equals nan and the sign of a zero counts."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (float, complex, np.floating, np.complexfloating)):
        return all(
            (x == y and math.copysign(1.0, x) == math.copysign(1.0, y)) or (x != x and y != y)
            for x, y in ((complex(a).real, complex(b).real), (complex(a).imag, complex(b).imag))
        )
    return a == b


def _compare(f: Any, general: Any, args: tuple[Any, ...]) -> None:
    general_rrule, general_frule = general
    fast, slow = _outcome(rrule, f, *args), _outcome(general_rrule, f, *args)
    if isinstance(fast, type) or fast is None:
        assert fast == slow, (f, args, fast, slow)
        return
    assert _same(fast[0], slow[0]), (f, args, fast[0], slow[0])
    fast_pullback, slow_pullback = rrule(f, *args)[1], general_rrule(f, *args)[1]
    for seed in _seeds():
        got, want = _outcome(fast_pullback, seed), _outcome(slow_pullback, seed)
        assert _same(got, want), (f, args, seed, got, want)
    for tangents in itertools.product([1.0, -2.0, 0.0, ZeroTangent(), np.float64(0.5)], repeat=len(args)):
        tangents = (NoTangent(), *tangents)
        got, want = _outcome(frule, tangents, f, *args), _outcome(general_frule, tangents, f, *args)
        assert _same(got, want), (f, args, tangents, got, want)


@pytest.mark.parametrize(
    "f, arity, partials, numpy_rrule, numpy_frule",
    ENTRIES,
    ids=[f"{f.__name__}-{arity}" for f, arity, *_ in ENTRIES],
)
def test_the_float_path_gives_what_the_general_path_gives(f, arity, partials, numpy_rrule, numpy_frule):
    """Every float and int input (zeros of both signs, infinities, nan, huge and tiny values), and the inputs
    that leave the float path (bools, complex numbers, numpy scalars): primal, cotangents for every kind of
    seed, tangents, and the errors raised, are those of the general path."""
    general = general_python_rules(partials, numpy_rrule=numpy_rrule, numpy_frule=numpy_frule)
    points = [(x,) for x in NUMBERS] if arity == 1 else list(itertools.product(PAIRED, repeat=2))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in points:
            _compare(f, general, args)


def test_the_float_path_is_taken():
    """Floats and ints get the specialised closures; the general path's pullback has another name."""
    assert rrule(operator.mul, 0.5, 2)[1].__code__.co_name == "mul_pullback"
    assert rrule(operator.mul, 0.5, 2)[1].__code__ is not rrule(operator.mul, 0.5, True)[1].__code__
    assert rrule(math.sin, 0.5)[1].__code__ is not rrule(math.sin, np.float32(0.5))[1].__code__


def test_the_python_sign_takes_numpy_scalars_whose_comparisons_are_numpy_bools() -> None:
    from chainrules.rules.python._numbers import PY

    values = [np.float64(-2.0), np.float32(0.0), np.array(3.0), -0.0, 5.0]
    assert [PY.sign(v) for v in values] == [-1.0, 0.0, 1.0, 0.0, 1.0]
    assert math.isnan(PY.sign(np.float64("nan")))
