"""Declared cases: domains, argument specs, dtypes and modes, the registry, and running a case."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from chainrules_core import NoTangent, checked_seed, rrule, scalar_rule
from chainrules_core.testing import cases as cases_module
from chainrules_core.testing import no_tangent, register_cases, registered_cases, with_tangent
from chainrules_core.testing.cases import (
    ABOVE_ONE,
    NONZERO,
    POSITIVE,
    POSITIVE_REAL_ONLY,
    PROBABILITY,
    REAL_ONLY,
    REALS,
    UNIT_INTERVAL,
    Arg,
    At,
    Case,
    Domain,
    Generated,
    families,
)
from chainrules_core.testing.tangents import PrimalAndTangent


def scaled_log(x: Any, a: Any) -> Any:
    return a * np.log(x)


scalar_rule(scaled_log, lambda out, x, a: (a / x, np.log(x)))


@pytest.mark.parametrize(
    ("domain", "low", "high"),
    [(POSITIVE, 0.0, np.inf), (UNIT_INTERVAL, -1.0, 1.0), (PROBABILITY, 0.0, 1.0), (ABOVE_ONE, 1.0, np.inf)],
)
def test_samples_stay_inside_their_domain(domain: Domain, low: float, high: float) -> None:
    x = domain.sample(np.random.default_rng(0), (1000,))
    assert np.all(x > low) and np.all(x < high)


def test_samples_keep_away_from_the_ends_of_an_interval() -> None:
    x = UNIT_INTERVAL.sample(np.random.default_rng(0), (1000,))
    assert np.all(np.abs(x) <= 0.8)


def test_nonzero_samples_keep_their_margin() -> None:
    x = NONZERO.sample(np.random.default_rng(0), (1000,))
    assert np.all(np.abs(x) >= 0.3) and np.any(x < 0) and np.any(x > 0)


def test_complex_samples_have_an_imaginary_part() -> None:
    z = POSITIVE.sample_complex(np.random.default_rng(0), (10,))
    assert z.dtype == np.complex128 and np.all(z.imag != 0) and np.all(z.real > 0)


def test_arguments_take_the_case_dtype() -> None:
    rng = np.random.default_rng(0)
    assert Arg(REALS, (2, 3)).make(rng, "float32").dtype == np.float32
    assert Arg(REALS, (2,)).make(rng, "complex128").dtype == np.complex128
    assert type(Arg(POSITIVE, None).make(rng, "float64")) is float
    assert type(Arg(POSITIVE, None).make(rng, "complex128")) is complex


def test_points_are_cast_or_kept_as_python_scalars() -> None:
    rng = np.random.default_rng(0)
    assert At(0.0).make(rng, "float32") == 0.0 and type(At(0.0).make(rng, "float32")) is float
    assert At(0.0).make(rng, "complex128") == 0j
    point = At([1.0, 2.0]).make(rng, "float32")
    assert point.dtype == np.float32 and point.tolist() == [1.0, 2.0]


def test_generated_arguments() -> None:
    spd = Generated(lambda rng, dtype: (np.eye(2) * 2).astype(dtype), "spd")
    case = Case(np.linalg.inv, (spd,))
    (A,) = case.make_args(np.random.default_rng(0), "float32")
    assert A.dtype == np.float32 and "spd" in case.label


def test_no_tangent_specs_and_literals() -> None:
    case = Case(scaled_log, (Arg(POSITIVE, (3,)), no_tangent(Arg(REALS, None))))
    x, a = case.make_args(np.random.default_rng(0), "float64")
    assert isinstance(a, PrimalAndTangent) and a.tangent == NoTangent() and type(a.primal) is float
    assert case.make_args(np.random.default_rng(0), "float64")[0].tolist() == x.tolist()
    assert "⊢NoTangent" in case.label
    literal = Case(np.sum, (Arg(REALS, (2, 2)), 1))
    assert literal.make_args(np.random.default_rng(0), "float64")[1] == 1


def test_explicit_tangents_take_the_case_dtype() -> None:
    case = Case(scaled_log, (with_tangent(At([1.0, 2.0]), np.ones(2)), with_tangent(At(2.0), np.ones(()))))
    x, a = case.make_args(np.random.default_rng(0), "float32")
    assert x.tangent.dtype == np.float32 and type(a.primal) is float and a.tangent.dtype == np.float64
    z, _ = case.make_args(np.random.default_rng(0), "complex128")
    assert z.tangent.dtype == np.complex128
    case.run("float32", "frule")


def test_valid_dtypes_follow_the_domains() -> None:
    assert Case(np.log, (Arg(POSITIVE, (2,)),)).valid_dtypes() == ("float64", "float32", "complex128")
    assert Case(np.floor, (Arg(REAL_ONLY, (2,)),)).valid_dtypes() == ("float64", "float32")
    assert Case(np.log, (Arg(POSITIVE_REAL_ONLY, None),)).valid_dtypes() == ("float64",)
    assert Case(np.log, (Arg(POSITIVE, None),)).valid_dtypes() == ("float64", "complex128")
    assert Case(np.log, (no_tangent(Arg(REAL_ONLY, (2,))),)).valid_dtypes() == ("float64", "float32")


def _square(x: Any) -> Any:
    return x * x


@rrule.register(_square)
def _rrule_square(f: Any, x: Any) -> Any:
    """Right for real numbers only: the pullback forgets the conjugate that the complex convention takes."""
    return x * x, lambda y_bar: (NoTangent(), 2 * x * checked_seed(f, y_bar, np.shape(x)))


def test_a_failing_complex_run_hints_at_real_only() -> None:
    case = Case(_square, (Arg(REALS, (3,)),), modes=("rrule",))
    case.run("float64", "rrule")
    with pytest.raises(AssertionError, match="draw its arguments from REAL_ONLY") as failure:
        case.run("complex128", "rrule")
    assert failure.value.check  # still the harness's failure, naming its check
    assert Case(_square, (Arg(REAL_ONLY, (3,)),), modes=("rrule",)).valid_dtypes() == (
        "float64",
        "float32",
    )


def test_expand_lists_every_dtype_and_mode() -> None:
    case = Case(np.log, (Arg(POSITIVE, (2,)),), dtypes=("float64", "complex128"), modes=("rrule",))
    assert list(case.expand()) == [("float64", "rrule"), ("complex128", "rrule")]


def test_labels() -> None:
    case = Case(np.sum, (Arg(REALS, (2, 3)),), kwargs={"axis": 0}, name="rows")
    assert case.label == "np.sum((2,3);axis=0) rows"
    assert Case(scaled_log, (Arg(POSITIVE, (2,)), At(2.0))).label.startswith("tests.testing.test_cases.scaled_log")


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
@pytest.mark.parametrize("mode", ["frule", "rrule"])
def test_run_a_case(dtype: str, mode: str) -> None:
    case = Case(scaled_log, (Arg(POSITIVE, (3,)), Arg(REALS, None)))
    if dtype in case.valid_dtypes():
        report = case.run(dtype, mode, seed=2)
        assert report.mode == mode and report.seed == 2


def test_a_case_with_a_callable_output_tangent() -> None:
    seen = []

    def seed(out: Any) -> Any:
        seen.append(out.shape)
        return np.ones_like(out)

    Case(scaled_log, (Arg(POSITIVE, (3,)), At(2.0)), options={"output_tangent": seed}).run("float64", "rrule")
    assert seen == [(3,)]


def test_a_failing_case_names_its_seed() -> None:
    def wrong_log(x: Any) -> Any:
        return np.log(x)

    scalar_rule(wrong_log, lambda out, x: 1.01 / x)
    with pytest.raises(AssertionError, match=r"\(seed=9\)$"):
        Case(wrong_log, (Arg(POSITIVE, (3,)),)).run("float64", "rrule", seed=9)


def test_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cases_module, "_REGISTRY", {})
    case = Case(scaled_log, (Arg(POSITIVE, (2,)), At(1.5)))
    register_cases("harness-selftest", case)
    assert registered_cases() == [("harness-selftest", case)]
    assert registered_cases("harness-selftest") == [("harness-selftest", case)]
    assert families() == ["harness-selftest"]
    assert registered_cases("no-such-family") == []
