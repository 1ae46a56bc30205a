"""The rule makers: every closure they make is named after its primal, so a traceback names the function."""

from __future__ import annotations

import math
import operator
import traceback

import numpy as np
import pytest

import chainrules  # noqa: F401 - registers the rules
from chainrules_core import NoTangent, frule, rrule

X = np.array([[0.5, 1.5], [2.0, -1.0]])


@pytest.mark.parametrize(
    "f, args, name",
    [
        (np.sin, (X,), "sin"),  # scalar_rule
        (np.add, (X, 1.0), "add"),  # elementwise_linear_rule
        (np.floor, (X,), "floor"),  # zero_derivative_rule
        (math.sin, (0.5,), "sin"),  # python_rule
        (operator.mul, (0.5, 2.0), "mul"),
        (np.reshape, (X, (4,)), "reshape"),  # linear_in_first_rule
        (np.sum, (X,), "sum"),  # rule_in_first
        (np.matmul, (X, X), "matmul"),  # the products' maker
        (np.tensordot, (X, X, 1), "tensordot"),
    ],
)
def test_pullbacks_and_rules_carry_the_primal_name(f, args, name):
    _, pullback = rrule(f, *args)
    assert pullback.__name__ == f"{name}_pullback"
    assert rrule.find(f, *args).__name__ == f"_rrule_{name}"
    assert frule.find(f, *args).__name__ == f"_frule_{name}"


class _NoCosine:
    """An object numpy can take the sine of, but not the cosine: sin's derivative fails inside its formula."""

    def sin(self) -> float:
        return 0.0

    def cos(self) -> float:
        raise ArithmeticError("no cosine here")


def test_a_traceback_through_a_table_rule_names_the_function_then_its_formula():
    """One frame from the pullback to the formula in the family file."""
    _, pullback = rrule(np.sin, np.array([_NoCosine()], dtype=object))
    with pytest.raises(ArithmeticError) as info:
        pullback(np.ones(1))
    frames = traceback.extract_tb(info.tb)
    names = [(pathlib_name(frame.filename), frame.name) for frame in frames]
    at = names.index(("rule_definition.py", "sin_pullback"))
    assert names[at + 1] == ("elementwise.py", "<lambda>")


def pathlib_name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def test_renaming_changes_names_only():
    """The renamed rule shares the maker's code: same results, same closure cells."""
    (record,) = [r for r in rrule.records() if r.primal is np.exp and r.arg_types is None]
    assert record.rule.__name__ == "_rrule_exp"
    y, pullback = rrule(np.exp, 1.0)
    assert pullback(1.0) == (NoTangent(), y)
