"""Coverage: every public numpy ufunc is accounted for, and every first-tier function has both rules.

A ufunc numpy adds, or a rule that goes missing, fails here rather than
silently leaving engines without a derivative.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np
import pytest

import chainrules  # noqa: F401 - registers the rules
from chainrules_core import NoTangent, frule, rrule
from chainrules_core.testing import rand_tangent

TIER_ONE_UFUNCS = {
    # elementwise, one argument
    "negative", "positive", "absolute", "abs", "fabs", "sqrt", "cbrt", "square", "reciprocal",
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
    "arcsin", "asin", "arccos", "acos", "arctan", "atan", "sinh", "cosh", "tanh",
    "arcsinh", "asinh", "arccosh", "acosh", "arctanh", "atanh",
    "deg2rad", "radians", "rad2deg", "degrees",
    # rounding and sign: zero derivatives
    "sign", "floor", "ceil", "trunc", "rint",
    # complex
    "conjugate", "conj",
    # two arguments
    "add", "subtract", "multiply", "divide", "true_divide", "power", "pow", "maximum", "minimum",
    "arctan2", "atan2", "hypot", "logaddexp", "remainder", "mod",
}  # fmt: skip
"""The differentiable ufuncs of the first tier (rule_coverage: elementwise, rounding, complex, binary)."""

BEYOND_TIER_ONE_UFUNCS = {
    "float_power", "fmax", "fmin", "logaddexp2", "fmod", "copysign", "heaviside", "ldexp", "frexp", "modf", "divmod",
    "nextafter",
}  # fmt: skip
"""Second-tier ufuncs that have rules too."""

NON_DIFFERENTIABLE_UFUNCS = {
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "isfinite", "isinf", "isnan", "isnat", "signbit", "spacing",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_invert", "invert",
    "left_shift", "bitwise_left_shift", "right_shift", "bitwise_right_shift", "bitwise_count",
    "gcd", "lcm", "floor_divide",
}  # fmt: skip

WITHOUT_RULES_HERE = {
    "matmul": "products and linear algebra",
    "vecdot": "products and linear algebra",
    "matvec": "products and linear algebra",
    "vecmat": "products and linear algebra",
}
"""Ufuncs deliberately without a rule in the elementwise families, and why."""

TIER_ONE_FUNCTIONS = [np.round, np.around, np.clip, np.real, np.imag, np.angle]

TIER_ONE_PYTHON = [
    *(getattr(math, name) for name in (
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh",
        "atanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "pow", "fabs",
        "hypot", "degrees", "radians", "fsum", "prod",
    ) if hasattr(math, name)),
    operator.add, operator.sub, operator.mul, operator.truediv, operator.mod, operator.pow,
    operator.neg, operator.pos, operator.abs,
    builtins.sum, builtins.abs, builtins.pow, builtins.max, builtins.min, builtins.round, float,
]  # fmt: skip
"""The first tier of math, operator and builtins entry points (operator.matmul is numpy's matmul, elsewhere;
operator.getitem is checked with the containers it handles in test_python_operators)."""


def _public_ufuncs() -> dict[str, np.ufunc]:
    return {name: getattr(np, name) for name in dir(np) if isinstance(getattr(np, name), np.ufunc)}


def _sample_args(f: object) -> tuple[object, ...]:
    nin = getattr(f, "nin", 1)
    return (np.ones(3),) * nin


def test_every_public_ufunc_is_accounted_for():
    """A ufunc numpy adds must be given a rule or listed, with a reason, as without one."""
    known = TIER_ONE_UFUNCS | BEYOND_TIER_ONE_UFUNCS | NON_DIFFERENTIABLE_UFUNCS | set(WITHOUT_RULES_HERE)
    unknown = sorted(set(_public_ufuncs()) - known)
    assert not unknown, f"ufuncs neither ruled nor listed in tests/rules/test_coverage.py: {unknown}"


@pytest.mark.parametrize("name", sorted(TIER_ONE_UFUNCS | BEYOND_TIER_ONE_UFUNCS))
def test_differentiable_ufunc_has_both_rules(name):
    """Every differentiable ufunc of the first tier (and those beyond it with rules) has frule and rrule."""
    f = getattr(np, name, None)
    if f is None:
        pytest.skip(f"numpy {np.__version__} has no {name}")
    args = _sample_args(f)
    rule = rrule.find(f, *args)
    assert rule is not None, f"np.{name} has no rrule"
    assert frule.find(f, *args) is not None, f"np.{name} has no frule"
    assert _kind(f, rule) == "rule", f"np.{name} is differentiable"


@pytest.mark.parametrize("name", sorted(NON_DIFFERENTIABLE_UFUNCS))
def test_non_differentiable_ufunc_is_declared(name):
    """Comparisons, predicates and integer-valued ufuncs say so: NoTangent, not a missing rule."""
    f = getattr(np, name, None)
    if f is None:
        pytest.skip(f"numpy {np.__version__} has no {name}")
    assert _kind(f, rrule.find(f, *_sample_args(f))) == "non_differentiable"


def _kind(f: object, rule: object) -> str:
    """The kind of the registration of ``f`` that ``rule`` came from."""
    rule = getattr(rule, "__self__", rule)  # a fast path is bound to the rule it belongs to
    (kind,) = {record.kind for record in rrule.records() if record.primal is f and record.rule is rule}
    return kind


def _entry_point_args(f: object) -> tuple[object, ...]:
    if f is np.clip:
        return (np.ones(3), 0.0, 1.0)
    if f in TIER_ONE_FUNCTIONS:
        return (np.ones(3),)
    if f in (math.fsum, math.prod, builtins.sum, builtins.max, builtins.min):
        return ([1.5, 2.5],)
    binary = {math.atan2, math.pow, math.hypot, builtins.pow, builtins.round}
    binary |= {operator.add, operator.sub, operator.mul, operator.truediv, operator.mod, operator.pow}
    if f is builtins.round:
        return (1.5, 2)
    return (0.5, 2.5) if f in binary else (1.5,) if f is math.acosh else (0.5,)


@pytest.mark.parametrize("f", TIER_ONE_FUNCTIONS + TIER_ONE_PYTHON, ids=lambda f: getattr(f, "__name__", str(f)))
def test_first_tier_function_has_both_rules(f):
    """The numpy functions that are not ufuncs, and the math, operator and builtins entry points."""
    args = _entry_point_args(f)
    assert rrule(f, *args) is not None, f"{f} has no rrule for {args}"
    assert frule((NoTangent(), *(rand_tangent(a) for a in args)), f, *args) is not None, f"{f} has no frule"


def test_every_listed_ufunc_exists_or_is_newer():
    """The lists hold real numpy names (a typo would hide a missing rule)."""
    aliases_of_numpy2 = {"abs", "asin", "acos", "atan", "asinh", "acosh", "atanh", "atan2", "pow", "bitwise_count"}
    aliases_of_numpy2 |= {"bitwise_invert", "bitwise_left_shift", "bitwise_right_shift", "vecdot", "matvec", "vecmat"}
    listed = TIER_ONE_UFUNCS | BEYOND_TIER_ONE_UFUNCS | NON_DIFFERENTIABLE_UFUNCS | set(WITHOUT_RULES_HERE)
    missing = sorted(name for name in listed - set(_public_ufuncs()) if name not in aliases_of_numpy2)
    assert not missing, f"listed but not numpy ufuncs: {missing}"


def test_no_tangent_for_a_declared_non_differentiable_call():
    _, pullback = rrule(np.greater, np.ones(2), np.zeros(2))
    assert pullback(np.ones(2)) == (NoTangent(), NoTangent(), NoTangent())
