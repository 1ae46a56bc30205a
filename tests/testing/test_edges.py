"""The edge sweep: the variants it derives, its verdicts on right and wrong rules, and every declared case."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

import chainrules.checks  # noqa: F401 - registers the declared cases and refusals
from chainrules.testing import edges as edges_module
from chainrules.testing.edges import (
    EDGE_KINDS,
    EdgeRefusal,
    edge_variants,
    planned_variants,
    run_edge_sweep,
    run_variant,
    stale_refusals,
    sweep,
)
from chainrules_core import NoTangent, ProjectTo, rrule, scalar_rule, unthunk
from chainrules_core.testing import registered_cases
from chainrules_core.testing.cases import NONZERO, POSITIVE, REALS, UNIT_INTERVAL, Arg, At, Case, families
from chainrules_core.testing.layout import layout_of


def _variants(case: Case, kind: str) -> list[Any]:
    return [v for v in edge_variants("test", case) if v.kind == kind]


def _shapes(variant: Any) -> tuple[Any, ...]:
    return tuple(np.shape(a) for a in variant.make_args() if isinstance(a, np.ndarray))


# ----- the variants -----


def test_empty_axes_one_at_a_time_and_linked() -> None:
    """Each axis of each array alone, and every axis of one length at once: (3, 0) @ (0, 5) keeps the product."""
    shapes = {_shapes(v) for v in _variants(Case(np.matmul, (Arg(REALS, (3, 4)), Arg(REALS, (4, 5)))), "empty")}
    assert {((0, 4), (4, 5)), ((3, 0), (4, 5)), ((3, 4), (0, 5)), ((3, 4), (4, 0)), ((3, 0), (0, 5))} <= shapes


def test_zero_batches_of_matrices() -> None:
    shapes = {_shapes(v) for v in _variants(Case(np.linalg.inv, (Arg(REALS, (5, 5)),)), "zero batch")}
    assert shapes == {((0, 5, 5),), ((0, 0, 0),)}


def test_size_one_and_zero_dimensional_variants() -> None:
    case = Case(np.sum, (Arg(REALS, (2, 3)),), kwargs={"axis": 0})
    assert {_shapes(v) for v in _variants(case, "size 1")} == {((1, 3),), ((2, 1),)}
    assert {_shapes(v) for v in _variants(case, "0-d")} == {((),)}
    scalar = _variants(Case(np.sin, (Arg(REALS, None),)), "0-d")[0].make_args()[0]
    assert isinstance(scalar, np.ndarray) and scalar.shape == ()


def test_empty_variants_run_in_every_declared_dtype() -> None:
    case = Case(np.sin, (Arg(REALS, (3,)),))
    assert {v.dtype for v in _variants(case, "empty")} == set(case.valid_dtypes())
    assert {v.dtype for v in _variants(case, "huge")} == {"float64"}


@pytest.mark.parametrize(
    ("domain", "factors"),
    [(REALS, {1e300, 1e-300, 1e-310}), (POSITIVE, {1e300, 1e-300, 1e-310}), (UNIT_INTERVAL, {1e-300, 1e-310})],
)
def test_magnitudes_stay_inside_the_declared_domain(domain: Any, factors: set[float]) -> None:
    case = Case(np.sin, (Arg(domain, (4,)),))
    found = [v for v in edge_variants("test", case) if v.kind in ("huge", "tiny", "subnormal")]
    assert {v.factor for v in found} == factors
    for v in found:
        x = v.make_args()[0]
        assert np.all((x > domain.low) & (x < domain.high))


def test_a_nonzero_domain_gets_no_tiny_magnitudes() -> None:
    found = {v.kind for v in edge_variants("test", Case(np.reciprocal, (Arg(NONZERO, (3,)),)))}
    assert "huge" in found and "tiny" not in found and "subnormal" not in found


def test_points_are_scaled_together() -> None:
    """Ties, zeros and bounds carry no domain: they are scaled, and stay ties, zeros and bounds."""
    case = Case(np.maximum, (At([1.0, 0.0]), At([1.0, 2.0])))
    huge = next(v for v in edge_variants("test", case) if v.detail == "x 1e+300")
    x, y = huge.make_args()
    assert x[0] == y[0] == 1e300 and x[1] == 0.0


def test_infinities_follow_the_domain_nans_go_everywhere() -> None:
    details = {v.detail for v in _variants(Case(np.log, (Arg(POSITIVE, (3,)),)), "inf")}
    assert details == {"argument 1 entry 0 = inf"}
    assert {v.detail for v in _variants(Case(np.log, (Arg(POSITIVE, (3,)),)), "nan")} == {"argument 1 entry 0 = nan"}
    assert len(_variants(Case(np.sin, (Arg(REALS, (3,)),)), "inf")) == 2


def test_explicit_tangents_follow_their_argument() -> None:
    """with_tangent(x, dx): dx is cut with x, scaled with x, and kept finite where x gets an infinite entry."""
    from chainrules_core.testing import with_tangent

    case = Case(np.sin, (with_tangent(At([1.0, 2.0]), np.array([3.0, 4.0])),))
    empty = _variants(case, "empty")[0].make_args()[0]
    assert empty.primal.shape == empty.tangent.shape == (0,)
    huge = next(v for v in edge_variants("test", case) if v.kind == "huge").make_args()[0]
    assert huge.tangent[0] == 3e300
    infinite = _variants(case, "inf")[0].make_args()[0]
    assert np.isinf(infinite.primal[0]) and np.all(np.isfinite(infinite.tangent))


def test_every_kind_is_known() -> None:
    kinds = {v.kind for v in edge_variants("test", Case(np.sin, (Arg(REALS, (2, 3)),)))}
    assert kinds == set(EDGE_KINDS)


def test_an_empty_float_array_has_a_tangent_space() -> None:
    """Its cotangent is an empty array of its dtype (not NoTangent()), as ProjectTo makes it."""
    layout = layout_of(np.zeros((0, 3), dtype=np.float32))
    assert layout.differentiable and layout.size == 0
    assert layout.problems(np.zeros((0, 3), dtype=np.float32), "x_bar") == []
    assert ProjectTo(np.zeros((0, 3)))(np.zeros((0, 3))).shape == (0, 3)


def test_a_complex_vector_with_a_nan_imaginary_part_keeps_its_real_part() -> None:
    layout = layout_of(np.array([1.0 + 2.0j]))
    z = layout.from_vec(np.array([3.0, np.nan]), promote=False)
    assert z[0].real == 3.0 and np.isnan(z[0].imag)


# ----- verdicts on planted rules -----


def shifted_softplus(x: Any, y: Any) -> Any:
    """logaddexp under another name, for rules written wrong on purpose."""
    return np.logaddexp(x, y)


scalar_rule(shifted_softplus, lambda out, x, y: (np.exp(x - out), np.exp(y - out)))  # rounds to 1 at |x| >= 1e16


def angle_of(y: Any, x: Any) -> Any:
    return np.arctan2(y, x)


scalar_rule(angle_of, lambda out, y, x: (x / (x * x + y * y), -y / (x * x + y * y)))  # inf / inf at y = inf


def first_of_cumulative_max(x: Any) -> Any:
    return np.maximum.accumulate(x)[..., :1]


@rrule.register(first_of_cumulative_max)
def _rrule_first(f: Any, x: Any) -> Any:
    top = int(np.argmax(x))  # the fault: argmax of an empty array raises

    def first_pullback(out_bar: Any) -> tuple[Any, Any]:
        x_bar = np.zeros_like(x)
        x_bar[..., 0] = unthunk(out_bar)[..., 0] * (top == 0)
        return NoTangent(), x_bar

    return f(x), first_pullback


def strict_inverse(a: Any) -> Any:
    return np.linalg.inv(a)


@rrule.register(strict_inverse)
def _rrule_strict_inverse(f: Any, a: Any) -> Any:
    if np.shape(a)[-1] != np.shape(a)[-2]:
        raise TypeError("not square")  # numpy raises LinAlgError: the wrong kind
    out = f(a)
    return out, lambda out_bar: (NoTangent(), -(out.T @ unthunk(out_bar) @ out.T))


def _outcomes(case: Case, kind: str, mode: str = "rrule", detail: str = "") -> list[Any]:
    return [run_variant(v, mode) for v in edge_variants("test", case) if v.kind == kind and detail in v.detail]


def test_a_correct_rule_passes_every_variant() -> None:
    case = Case(np.tanh, (Arg(REALS, (2, 3)),))
    for v in edge_variants("test", case):
        for mode in ("frule", "rrule"):
            outcome = run_variant(v, mode)
            assert not outcome.failed, (v.label, outcome.message)


def test_weights_that_round_to_one_fail_at_huge_ties() -> None:
    """exp(x - out) is 1 for both where out = x + log 2 rounds to x: finite differences see 1/2."""
    case = Case(shifted_softplus, (At([1.0, -2.0]), At([1.0, -2.0])))
    assert all(not o.failed for o in _outcomes(case, "tiny"))
    huge = _outcomes(case, "huge")
    assert huge and all(o.failed for o in huge)
    assert all(not o.failed for o in _outcomes(Case(np.logaddexp, (At([1.0, -2.0]), At([1.0, -2.0]))), "huge"))


def test_a_nan_where_the_limit_exists_fails() -> None:
    """-y / (x² + y²) is inf / inf at y = inf; the rule's own values at 1e150 and 1e300 tend to 0."""
    case = Case(angle_of, (Arg(REALS, (3,)), Arg(POSITIVE, (3,))))
    failed = [o for o in _outcomes(case, "inf", "frule", "argument 1") if o.failed]
    assert failed and "the limit exists" in failed[0].message
    assert all(not o.failed for o in _outcomes(Case(np.arctan2, case.args), "inf", "frule"))


def test_an_internal_error_is_located() -> None:
    outcomes = _outcomes(Case(first_of_cumulative_max, (Arg(REALS, (4,)),)), "empty")
    assert outcomes and all(o.failed for o in outcomes)
    assert "argmax" in outcomes[0].message


def test_numpy_and_the_rule_raise_alike() -> None:
    """numpy raises LinAlgError for a non-square matrix: its rule does too ('raises'); a TypeError fails."""
    assert {o.status for o in _outcomes(Case(np.linalg.inv, (Arg(REALS, (3, 3)),)), "empty")} == {"raises", "pass"}
    wrong = [o for o in _outcomes(Case(strict_inverse, (Arg(REALS, (3, 3)),)), "empty") if o.failed]
    assert wrong and "numpy raises LinAlgError" in wrong[0].message and "TypeError" in wrong[0].message


def test_finite_differences_that_cannot_settle_leave_the_rules_to_agree() -> None:
    """sin at 1e300 turns far below any step: the verdict is 'unsettled', on the two rules' agreement."""
    outcomes = _outcomes(Case(np.sin, (Arg(REALS, (3,)),)), "huge", "frule") + _outcomes(
        Case(np.sin, (Arg(REALS, (3,)),)), "huge", "rrule"
    )
    assert outcomes and {o.status for o in outcomes} == {"unsettled"}


def test_a_derivative_below_the_smallest_float_is_zero() -> None:
    """1/x at 1e300: the derivative -1e-600 is 0 in float64, whatever J dx would be along dx of 1e300."""
    assert all(not o.failed for o in _outcomes(Case(np.reciprocal, (Arg(NONZERO, (3,)),)), "huge", "frule"))


def test_refusals_are_reported_and_must_stay_true(monkeypatch: pytest.MonkeyPatch) -> None:
    case = Case(first_of_cumulative_max, (Arg(REALS, (4,)),))
    refusal = EdgeRefusal("test", first_of_cumulative_max, ("empty",), "argmax of nothing")
    monkeypatch.setattr(edges_module, "_REFUSALS", [refusal])
    from chainrules.testing import _edge_variants

    monkeypatch.setattr(_edge_variants, "_REFUSALS", [refusal])
    outcomes = _outcomes(case, "empty")
    assert {(o.status, o.message) for o in outcomes} == {("refused", "argmax of nothing")}
    stale = EdgeRefusal("test", np.tanh, ("huge",), "no longer true")
    monkeypatch.setattr(edges_module, "_REFUSALS", [stale])
    monkeypatch.setattr(_edge_variants, "_REFUSALS", [stale])
    monkeypatch.setattr(edges_module, "registered_cases", lambda family: [("test", Case(np.tanh, (Arg(REALS, (2,)),)))])
    tanh_case = Case(np.tanh, (Arg(REALS, (2,)),))
    assert stale_refusals([], [("test", tanh_case)]) == []  # the family's declared case was not swept
    monkeypatch.setattr(edges_module, "registered_cases", lambda family: [("test", tanh_case)])
    assert stale_refusals([], [("test", tanh_case)]) == [stale]


def slow_when_empty(x: Any) -> Any:
    if np.size(x) == 0:
        time.sleep(30)
    return 2.0 * x


scalar_rule(slow_when_empty, lambda out, x: 2.0)


def test_a_variant_that_does_not_return_fails_and_the_rest_run_on() -> None:
    case = Case(slow_when_empty, (Arg(REALS, (3,)),), dtypes=("float64",), modes=("rrule",))
    start = time.perf_counter()
    done = sweep([("test", case)], kinds=("empty", "size 1"), timeout=1.0)
    assert time.perf_counter() - start < 20
    hung = [o for o in done if o.failed]
    assert len(hung) == 1 and "did not return" in hung[0].message
    assert [o.status for o in done if o.variant.kind == "size 1"] == ["pass"]


def test_the_command_line_report(capsys: pytest.CaptureFixture[str]) -> None:
    import io

    out, err = io.StringIO(), io.StringIO()
    status = run_edge_sweep([("test", Case(np.tanh, (Arg(REALS, (3,)),)))], out=out, err=err, progress=False)
    assert status == 0
    assert "| family" in out.getvalue() and "0 failed" in out.getvalue()
    assert run_edge_sweep([], out=io.StringIO(), err=io.StringIO()) == 1


# ----- every declared case -----


@pytest.mark.parametrize("family", families())
def test_every_declared_case_at_its_edges(family: str) -> None:
    """Each family's cases at every edge variant, in every mode: no failure, and no refusal that explains none."""
    cases = registered_cases(family)
    done = sweep(cases)
    failures = [f"{o.variant.label} [{o.variant.dtype}, {o.mode}]: {o.message}" for o in done if o.failed]
    assert not failures, "\n".join(failures[:10])
    stale = stale_refusals(done, cases)
    assert not stale, [r.reason for r in stale]


def test_the_sweep_plans_variants_for_every_family() -> None:
    for family in families():
        assert any(True for _ in planned_variants(registered_cases(family))), family
