"""The second-order checks: a differentiable pullback passes, one that is wrong or cannot be followed fails, by name.

``python -m chainrules check --order 2`` runs every declared case, about a
minute: the last test here runs it whole and holds it at 0 failed, with
non-smooth points left out and the refusals declared beside the cases
(``refuse_order2``) within 2 % of the smooth runs. The tests before it run the
declared cases of a representative set of rules one by one, so that a failure
names its case.
"""

from __future__ import annotations

import functools
import io
import operator
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import chainrules.checks  # noqa: F401 - registers the rules and their declared cases
from chainrules import cli
from chainrules.testing.second_order import run_case_order2, test_frule_order2, test_rrule_order2
from chainrules_core import NoTangent, ProjectTo, frule, rrule, scalar_rule, unthunk
from chainrules_core.testing import registered_cases


def _smooth(x: Any) -> Any:
    return np.sin(x) * x


scalar_rule(_smooth, lambda out, x: np.cos(x) * x + np.sin(x))


def test_a_differentiable_pullback_passes_in_both_outer_modes() -> None:
    report = test_rrule_order2(_smooth, np.array([0.3, -1.1, 2.0]))
    assert report.checks == ["second order: forward over reverse", "second order: reverse over reverse"]
    assert report.mode == "rrule order 2" and report.function.endswith("_smooth")
    assert 0 < report.evaluations < 200  # a fixed number of evaluations, whatever the input size
    report = test_frule_order2(_smooth, np.linspace(-1.0, 1.0, 50))
    assert report.checks == ["second order: forward over forward", "second order: reverse over forward"]
    assert test_rrule_order2(_smooth, 0.7, over=("forward",)).checks == ["second order: forward over reverse"]


def _rounded(x: Any) -> Any:
    return x * x


@rrule.register(_rounded)
def _rrule_rounded(f: Any, x: Any) -> Any:
    frozen = np.round(x, 12)  # right to 12 digits, and a constant to any engine: its derivative is zero

    def rounded_pullback(out_bar: Any) -> tuple[Any, Any]:
        return NoTangent(), 2 * frozen * unthunk(out_bar)

    return x * x, rounded_pullback


def test_a_pullback_right_at_first_order_but_not_differentiable_fails() -> None:
    from chainrules_core.testing import test_rrule

    x = np.array([0.5, 1.5])
    test_rrule(_rounded, x)  # the first-order check cannot tell
    with pytest.raises(AssertionError, match=r"\[second order: forward over reverse\] .*_rounded: the derivative of"):
        test_rrule_order2(_rounded, x, over=("forward",))
    with pytest.raises(AssertionError, match=r"\[second order: reverse over reverse\] .*<w, dP d>|pulled back"):
        test_rrule_order2(_rounded, x, over=("reverse",))


def _scattered(x: Any) -> Any:
    return x[::-1] * 1.0


@rrule.register(_scattered)
def _rrule_scattered(f: Any, x: Any) -> Any:
    project = ProjectTo(x)

    def scattered_pullback(out_bar: Any) -> tuple[Any, Any]:
        x_bar = np.zeros(np.shape(x))
        x_bar[::-1] = unthunk(out_bar)  # in place: an engine cannot follow it
        return NoTangent(), project(x_bar)

    return _scattered(x), scattered_pullback


def test_an_in_place_pullback_fails_naming_what_happened() -> None:
    with pytest.raises(AssertionError, match=r"_scattered: the engine pushing forward through the pullback raised "):
        test_rrule_order2(_scattered, np.array([1.0, 2.0]), over=("forward",))


def _picky(x: Any) -> Any:
    return 2 * x


@rrule.register(_picky)
def _rrule_picky(f: Any, x: Any) -> Any:
    if not isinstance(x, (float, np.ndarray)):
        return None  # refuses what it does not know, engines' values included
    return 2 * x, lambda out_bar: (NoTangent(), 2 * out_bar)


@frule.register(_picky)
def _frule_picky(tangents: Any, f: Any, x: Any) -> Any:
    return 2 * x, 2 * tangents[1]


def test_a_rule_that_refuses_followed_values_is_named() -> None:
    with pytest.raises(AssertionError, match=r"the rrule answers None .* when an engine follows its arguments"):
        test_rrule_order2(_picky, 1.5)
    test_frule_order2(_picky, 1.5)


def test_options_are_checked() -> None:
    with pytest.raises(TypeError, match="test_rrule_order2: unknown option nonsense"):
        test_rrule_order2(_smooth, 1.0, nonsense=1)
    with pytest.raises(ValueError, match="over takes forward and reverse"):
        test_rrule_order2(_smooth, 1.0, over=("sideways",))


REPRESENTATIVE = [
    np.sin, np.exp, np.tanh, np.log1p, np.multiply, np.divide, np.power, np.arctan2, np.hypot, np.logaddexp,
    np.where, np.clip, np.sum, np.mean, np.prod, np.var, np.max, np.cumsum, np.matmul, np.einsum, np.dot,
    np.linalg.inv, np.linalg.solve, np.linalg.det, np.linalg.norm, np.linalg.cholesky, np.linalg.qr, np.linalg.eigh,
    np.take, operator.getitem, np.concatenate, np.stack, np.reshape, np.transpose, np.broadcast_to, np.pad,
    np.fft.fft, np.fft.rfft, np.tril, np.diag, operator.mul, operator.truediv, np.split, np.block, np.insert,
    np.gradient, np.trapezoid, np.cov, np.corrcoef, np.linalg.lstsq, np.i0, np.polydiv, np.polyfit,
]  # fmt: skip
"""Rules of every family that the suite checks at second order; the command line checks them all."""

NOT_SMOOTH = ("at a bound", "zero", "= 0", "singular", "degenerate")
"""Case names at points near which a representative test is not wanted (beside ``Case.smooth``)."""


KNOWN_FAILURES = {
    "np.linalg.lstsq(rank2(5,3),(5,2);rcond=0.1) rank deficient": "the singular value output at zero is a kink",
}
"""Declared cases of ``REPRESENTATIVE`` whose pullbacks are not differentiable yet (docs/engines.md lists them all)."""


def _representative() -> list[Any]:
    params = []
    for _, case in registered_cases():
        if not any(case.f is f for f in REPRESENTATIVE) or not case.smooth or any(w in case.name for w in NOT_SMOOTH):
            continue
        if case.label in KNOWN_FAILURES:
            continue
        for dtype, mode in case.expand():
            if dtype == "float64" or (dtype == "complex128" and mode == "rrule"):
                params.append(pytest.param(case, dtype, mode, id=f"{case.label}-{dtype}-{mode}"))
    return params


@pytest.mark.parametrize(("case", "dtype", "mode"), _representative())
def test_declared_cases_at_second_order(case: Any, dtype: str, mode: str) -> None:
    run_case_order2(case, dtype, mode)


EVERY_DTYPE_AND_MODE = [np.nan_to_num, np.linalg.pinv, np.polyval, np.nanmedian, np.quantile]
"""Rules checked at second order in every dtype and mode: rules that read a mask, an order or a dtype off their
inputs, where a followed value seen as numpy's array of objects loses its NaNs, its complex dtype or its
derivative, and the second derivative would come out wrong rather than fail."""


def _every_dtype_and_mode() -> list[Any]:
    return [
        pytest.param(case, dtype, mode, id=f"{case.label}-{dtype}-{mode}")
        for _, case in registered_cases()
        if any(case.f is f for f in EVERY_DTYPE_AND_MODE)
        and case.smooth
        and not any(word in case.name for word in NOT_SMOOTH)
        for dtype, mode in case.expand()
    ]


@pytest.mark.parametrize(("case", "dtype", "mode"), _every_dtype_and_mode())
def test_rules_reading_masks_and_orders_at_second_order(case: Any, dtype: str, mode: str) -> None:
    run_case_order2(case, dtype, mode)


def test_the_command_line_runs_the_second_order_checks() -> None:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["check", "np.tanh", "--order", "2", "--dtype", "float64", "--no-progress"], out=out, err=err)
    assert status == 0, out.getvalue()
    assert "passed, 0 failed" in out.getvalue()


# ----- non-smooth points left out, refusals declared beside the cases -----


def _kinked(x: Any) -> Any:
    return np.abs(x) * x


scalar_rule(_kinked, lambda out, x: 2 * np.abs(x))


def _checked(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    return cli.main([*argv, "--no-progress"], out=out, err=err), out.getvalue()


@pytest.fixture
def second_order_registry() -> Any:
    """Two families of this test's own cases, and the registries as they were afterwards."""
    from chainrules.testing import second_order
    from chainrules_core.testing import cases as cases_module
    from chainrules_core.testing import register_cases
    from chainrules_core.testing.cases import REAL_ONLY, Arg, At, Case

    before_refusals = list(second_order._ORDER2_REFUSALS)
    register_cases(
        "test.kinked",
        Case(_kinked, (Arg(REAL_ONLY, (3,)),), dtypes=("float64",)),
        Case(_kinked, (At([0.0, 1.0]),), name="at the kink", dtypes=("float64",), smooth=False),
    )
    register_cases("test.picky", Case(_picky, (Arg(REAL_ONLY, None),), dtypes=("float64",)))
    yield second_order
    second_order._ORDER2_REFUSALS[:] = before_refusals
    for family in ("test.kinked", "test.picky"):
        cases_module._REGISTRY.pop(family, None)


def test_declared_non_smooth_points_are_left_out_and_counted(second_order_registry: Any) -> None:
    status, out = _checked(["check", "test.kinked", "--order", "2"])
    assert status == 0, out
    assert "left out 2 runs at declared non-smooth points" in out
    assert "2 passed, 0 failed" in out
    status, out = _checked(["check", "test.kinked"])  # the first-order check still runs them
    assert status == 0 and "4 passed, 0 failed" in out, out


def test_a_refused_run_is_reported_with_its_reason_and_a_stale_refusal_fails(second_order_registry: Any) -> None:
    status, out = _checked(["check", "test.picky", "--order", "2"])
    assert status == 1 and "1 passed, 1 failed" in out, out  # the rrule answers None for followed values
    # declared: refused, with the reason and the share of the smooth runs
    second_order_registry.refuse_order2("test.picky", _picky, "answers None for followed values", modes=("rrule",))
    status, out = _checked(["check", "test.picky", "--order", "2"])
    assert status == 0, out
    assert "refused 1 of 2 smooth runs (50.0%)" in out and "answers None for followed values" in out
    assert "1 passed, 0 failed, 1 refused" in out
    # a refusal whose runs all pass is itself a failure
    second_order_registry.refuse_order2("test.kinked", _kinked, "not true")
    status, out = _checked(["check", "test.kinked", "--order", "2"])
    assert status == 1
    assert "FAIL refuse_order2 of" in out and "every run it refuses passes; remove the refusal" in out


def test_a_refusal_needs_a_reason_and_known_modes() -> None:
    from chainrules.testing import refuse_order2

    with pytest.raises(ValueError, match="a reason is required"):
        refuse_order2("test", np.sin, "")
    with pytest.raises(ValueError, match="unknown modes"):
        refuse_order2("test", np.sin, "why", modes=("sideways",))


_IN_PLACE_LIBRARY = """
import numpy as np

from chainrules_core import NoTangent, ProjectTo, checked_seed, rrule
from chainrules_core.testing import register_cases
from chainrules_core.testing.cases import REALS, Arg, Case


def reversed_copy(x):
    return x[::-1] * 1.0


@rrule.register(reversed_copy)
def _rrule_reversed_copy(f, x):
    project = ProjectTo(x)

    def reversed_copy_pullback(out_bar):
        x_bar = np.zeros(np.shape(x))
        x_bar[::-1] = checked_seed(f, out_bar, np.shape(x))  # in place: an engine cannot follow it
        return NoTangent(), project(x_bar)

    return f(x), reversed_copy_pullback


register_cases("in_place", Case(reversed_copy, (Arg(REALS, (3,)),), modes=("rrule",)))
"""


def test_the_command_line_names_a_pullback_an_engine_cannot_follow(tmp_path: Path) -> None:
    """A library's rule right at first order whose pullback writes in place: check --order 2 fails, naming it."""
    (tmp_path / "in_place_library.py").write_text(_IN_PLACE_LIBRARY)
    argv = ["--import", "in_place_library", "--dtype", "float64", "--no-progress"]
    run = functools.partial(subprocess.run, cwd=tmp_path, capture_output=True, text=True, check=False)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    result = run([sys.executable, "-m", "chainrules", "check", *argv], env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    result = run([sys.executable, "-m", "chainrules", "check", "--order", "2", "--failures-only", *argv], env=env)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "reversed_copy: the engine pushing forward through the pullback raised" in result.stdout


def test_every_declared_case_passes_at_second_order_or_is_declared() -> None:
    """``check --order 2`` over every declared case exits 0: each smooth run passes or is refused beside its case,
    with a reason, and the refusals stay within 2 % of the smooth runs; non-smooth points are left out and counted."""
    status, out = _checked(["check", "--order", "2"])
    assert status == 0, out[-20000:]
    summary = out.rsplit("\n", 3)[-2]
    passed, failed, refused = (
        int(n.replace(",", "")) for n in re.findall(r"([\d,]+) (?:passed|failed|refused)", summary)
    )
    assert failed == 0
    assert refused <= 0.02 * (passed + refused), summary
    assert re.search(r"left out [\d,]+ runs at declared non-smooth points", out)
