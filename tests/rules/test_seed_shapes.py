"""Seeds and tangents of another shape than their value's are refused by every kind of rule, naming the function and
both shapes; the forms of a 0-d seed all give the same cotangents. (Every declared case checks this through the
harness's ``wrong_shape`` probe; these are the calls that once gave numbers for another question.)"""

from __future__ import annotations

import math
import operator
import re
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import chainrules  # noqa: F401 - registers the rules
from chainrules_core import NoTangent, Thunk, ZeroTangent, frule, rrule, unthunk

X3 = np.array([0.5, 1.5, -0.5])
M = np.array([[2.0, 0.5], [0.25, 1.5]])

SEEDS = [
    (np.sin, (X3,), np.ones(1)),
    (np.exp, (X3,), np.ones((3, 1))),
    (np.sum, (X3,), np.ones(1)),
    (np.linalg.det, (M,), np.ones(1)),
    (np.dot, (M, M[0]), np.ones((1,))),
    (math.sin, (0.5,), np.ones(1)),
    (operator.mul, (0.5, 2.0), np.ones(1)),
    (np.add, (X3, 1.0), np.ones(1)),
    (np.multiply, (X3, X3), np.ones((1, 3))),
    (np.logaddexp, (X3, X3), np.ones(1)),
]


@pytest.mark.parametrize(("f", "args", "seed"), SEEDS, ids=lambda v: getattr(v, "__name__", ""))
def test_a_seed_that_only_broadcasts_to_the_output_is_refused(f: Any, args: tuple[Any, ...], seed: Any) -> None:
    out, pullback = rrule(f, *args)
    message = f"a seed of shape {seed.shape} for an output of shape {np.shape(out)}"
    with pytest.raises(ValueError, match=re.escape(message)):
        pullback(seed)
    with pytest.raises(ValueError, match=re.escape(message)):
        pullback(Thunk(lambda: seed))  # a thunk is unthunked, then checked
    bars = pullback(np.ones(np.shape(out)))  # the output's own shape still works
    assert len(bars) == len(args) + 1 and not any(isinstance(b, ZeroTangent) for b in bars[1:])


@pytest.mark.parametrize(("f", "args", "seed"), SEEDS, ids=lambda v: getattr(v, "__name__", ""))
def test_a_tangent_that_only_broadcasts_to_its_argument_is_refused(f: Any, args: tuple[Any, ...], seed: Any) -> None:
    position = next(k for k, a in enumerate(args) if isinstance(a, (float, np.ndarray)))
    wrong = np.ones((1,) * max(np.ndim(args[position]), 1) if np.size(args[position]) > 1 else (1,))
    tangents = [np.zeros_like(a) if isinstance(a, np.ndarray) else 0.0 for a in args]
    tangents[position] = wrong
    message = f"a tangent of shape {wrong.shape} for argument {position + 1} of shape {np.shape(args[position])}"
    with pytest.raises(ValueError, match=re.escape(message)):
        frule((NoTangent(), *tangents), f, *args)


@pytest.mark.parametrize("f", [np.logaddexp, np.logaddexp2])
def test_the_forms_of_a_zero_d_seed_give_the_same_cotangents(f: Any) -> None:
    """logaddexp of 0-d arrays: a 0-d array seed went into ``out=`` of a numpy scalar and raised."""
    x = np.array(1e17)
    _, pullback = rrule(f, x, x)
    results = [pullback(seed) for seed in (np.array(1.0), np.float64(1.0), 1.0)]
    for bars in results:
        assert all(type(b) is np.ndarray and b.shape == () for b in bars[1:])
        np.testing.assert_array_equal([unthunk(b) for b in bars[1:]], [0.5, 0.5])


def test_every_declared_case_of_this_package_probes_wrong_shapes() -> None:
    """The package's cases are filed with ``wrong_shape=True`` (``chainrules.checks._register``), counted in a
    fresh process that holds no case but theirs."""
    code = (
        "import chainrules.checks\n"
        "from chainrules_core.testing import registered_cases\n"
        "found = registered_cases()\n"
        "print(len(found), sorted({family for family, case in found if not case.wrong_shape}))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    count, without = result.stdout.split(" ", 1)
    assert int(count) > 1000 and without.strip() == "[]"
