"""Coverage: every public function of Python's ``math`` module is accounted for, with a rule or a reason for none.

A function Python adds to ``math``, or a rule that goes missing, fails here.
"""

import math
import sys

import numpy as np
import pytest

import chainrules  # noqa: F401 - registers the rules
from chainrules_core import NoTangent, frule, rrule

_INTEGER_VALUED = "non-differentiable: an integer, a bool or a float that only moves by whole steps"

STATUS = {
    **dict.fromkeys(
        (
            "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
            "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "pow", "fabs", "hypot", "dist",
            "degrees", "radians", "fmod", "remainder", "copysign", "ldexp", "frexp", "modf", "nextafter",
            "erf", "erfc", "gamma", "lgamma", "fsum", "prod",
        ),
        "rule",
    ),
    **dict.fromkeys(
        (
            "floor", "ceil", "trunc", "isfinite", "isinf", "isnan", "isclose", "factorial", "comb", "perm", "gcd",
            "lcm", "isqrt", "ulp",
        ),
        _INTEGER_VALUED,
    ),
    "sumprod": "no rule: Python 3.12's, not yet covered",
    "fma": "no rule: Python 3.13's, not yet covered",
}  # fmt: skip
"""Each public function of math: "rule" (frule and rrule), "non-differentiable: <why>", or "no rule: <why>"."""

NEWER = {"exp2": (3, 11), "cbrt": (3, 11), "sumprod": (3, 12), "fma": (3, 13)}
"""The functions of recent Pythons, and the version that added them."""


def _public() -> set[str]:
    return {name for name in dir(math) if not name.startswith("_") and callable(getattr(math, name))}


def _kinds(registry, f) -> set[str]:
    return {record.kind for record in registry.records() if record.primal is f}


def test_every_public_function_is_accounted_for():
    unknown = sorted(_public() - set(STATUS))
    assert not unknown, f"math functions neither ruled nor listed in {__name__}: {unknown}"


def test_every_listed_function_exists_or_is_newer():
    """The table holds real names of math (a typo would hide a missing rule)."""
    missing = sorted(set(STATUS) - _public())
    assert all(NEWER.get(name, (0, 0)) > sys.version_info[:2] for name in missing), missing


@pytest.mark.parametrize("name", sorted(n for n, s in STATUS.items() if s == "rule"))
def test_has_both_rules(name):
    f = getattr(math, name, None)
    if f is None:
        pytest.skip(f"this Python has no math.{name}")
    assert _kinds(rrule, f) == {"rule"} and _kinds(frule, f) == {"rule"}


@pytest.mark.parametrize("name", sorted(n for n, s in STATUS.items() if s.startswith("non-differentiable")))
def test_non_differentiable_is_declared(name):
    f = getattr(math, name, None)
    if f is None:
        pytest.skip(f"this Python has no math.{name}")
    assert _kinds(rrule, f) == {"non_differentiable"}


@pytest.mark.parametrize("name", sorted(n for n, s in STATUS.items() if s.startswith("no rule")))
def test_without_a_rule_gives_none(name):
    f = getattr(math, name, None)
    if f is None:
        pytest.skip(f"this Python has no math.{name}")
    args = ([1.0, 2.0], [3.0, 4.0]) if name == "sumprod" else (1.0, 2.0, 3.0)
    assert rrule(f, *args) is None
    assert frule((NoTangent(), *(np.ones_like(a) for a in args)), f, *args) is None
