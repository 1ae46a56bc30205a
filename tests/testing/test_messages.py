"""What a failure tells its reader: the short report in pytest, the rule and argument at fault, the fix."""

from __future__ import annotations

import functools
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import chainrules_core
from chainrules_core import (
    AbstractZero,
    HasReverseMode,
    NoTangent,
    ProjectTo,
    RuleConfig,
    Tangent,
    ZeroTangent,
    frule,
    rrule,
    scalar_rule,
    unthunk,
)
from chainrules_core.testing import test_frule, test_rrule, test_scalar
from chainrules_core.testing.jacobian import MAX_INPUT

X = np.array([0.3, -1.2, 2.0, 0.7])
W = np.array([1.5, 0.5, -2.0, 1.0])


def fresh(fn: Any) -> Any:
    """A new function computing ``fn``, for rules registered in one test only."""

    @functools.wraps(fn)
    def copy(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return copy


def failure(check: Any, *args: Any, **kwargs: Any) -> AssertionError:
    with pytest.raises(AssertionError) as info:
        check(*args, **kwargs)
    return info.value


def weighted_sin(x: Any, w: Any) -> Any:
    return w * np.sin(x)


def weighted_sin_rules(rrule_factor: float = 1.0, frule_factor: float = 1.0) -> Any:
    """A fresh ``weighted_sin`` with hand-written rules, wrong in ``w`` by the factors given."""
    f = fresh(weighted_sin)

    @rrule.register(f)
    def _(g: Any, x: Any, w: Any) -> Any:
        def weighted_sin_pullback(out_bar: Any) -> Any:
            out_bar = unthunk(out_bar)
            return NoTangent(), out_bar * w * np.cos(x), rrule_factor * out_bar * np.sin(x)

        return g(x, w), weighted_sin_pullback

    @frule.register(f)
    def _(tangents: Any, g: Any, x: Any, w: Any) -> Any:
        _, x_dot, w_dot = tangents
        return g(x, w), w * np.cos(x) * x_dot + frule_factor * np.sin(x) * w_dot

    return f


# ----- in pytest -----

WRONG_RULE_TEST = """
import numpy as np
from chainrules_core import NoTangent, rrule, unthunk
from chainrules_core.testing import test_rrule


def softplus(x):
    return np.logaddexp(0.0, x)


@rrule.register(softplus)
def _rrule_softplus(f, x):
    def softplus_pullback(out_bar):
        return NoTangent(), 1.01 * unthunk(out_bar) / (1 + np.exp(-x))

    return f(x), softplus_pullback


def test_softplus():
    test_rrule(softplus, np.array([0.5, -1.0, 2.0]))
"""


def test_a_wrong_rule_fails_in_pytest_with_a_short_report(tmp_path: Path) -> None:
    """Between pytest's FAILURES banner and its summary: the test's line and the message, no harness source."""
    (tmp_path / "test_wrong.py").write_text(WRONG_RULE_TEST)
    root = Path(chainrules_core.__file__).parent.parent
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_wrong.py"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(root), "PATH": ""},
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = result.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if "FAILURES" in line)
    end = next(i for i, line in enumerate(lines) if "short test summary" in line)
    report = lines[start + 1 : end]
    assert result.returncode == 1 and len(report) <= 40, result.stdout
    assert any("AssertionError: [pullback]" in line and "(ratio 1.01)" in line for line in report)
    assert not any("chainrules_core" in line for line in report), "\n".join(report)


def test_a_failure_is_raised_from_the_check_and_names_it() -> None:
    f = fresh(np.sin)
    scalar_rule(f, lambda out, x: 1.01 * np.cos(x))
    err = failure(test_rrule, f, X)
    assert err.check == "pullback"  # type: ignore[attr-defined]
    frames = traceback.extract_tb(err.__traceback__)
    assert [frame.name for frame in frames[1:]] == ["run"], frames  # the check's own frame, then nothing


def test_an_exception_in_the_rule_keeps_its_traceback_from_the_rule_on() -> None:
    f = fresh(np.sin)

    @rrule.register(f)
    def _rrule_broken(g: Any, x: Any) -> Any:
        return {}["missing"]

    err = failure(test_rrule, f, X)
    cause = err.__cause__
    assert isinstance(cause, KeyError)
    assert traceback.extract_tb(cause.__traceback__)[0].name == "_rrule_broken"


# ----- which rule, which argument, which field -----


def test_test_frule_passes_beside_a_wrong_rrule_and_notes_the_argument() -> None:
    """Finite differences prove the rrule wrong: test_rrule fails for it, test_frule passes and says so."""
    f = weighted_sin_rules(rrule_factor=1.01)
    assert str(failure(test_rrule, f, X, W)).startswith("[pullback]")
    with pytest.warns(UserWarning, match=r"\[frule and rrule agree\] .*the rrule is wrong for argument 2 \(w\)"):
        report = test_frule(f, X, W)
    [note] = report.notes
    assert "finite differences along each confirm it, and the frule's tangent agrees with them" in note
    assert "(ratio 1.01)" in note and "argument 1 (x)" not in note and "test_rrule reports it" in note
    assert "frule and rrule agree" not in report.checks and report.max_relative_error < 1e-6


def test_test_rrule_passes_beside_a_wrong_frule_and_notes_the_argument() -> None:
    f = weighted_sin_rules(frule_factor=-1.0)
    assert str(failure(test_frule, f, X, W)).startswith("[pushforward]")
    with pytest.warns(UserWarning, match="the frule is wrong for argument 2"):
        report = test_rrule(f, X, W)
    assert "(ratio -1)" in report.notes[0] and "test_frule reports it" in report.notes[0]


@pytest.mark.parametrize(
    ("check", "factors", "blamed"), [(test_frule, (1.01, 1.0), "rrule"), (test_rrule, (1.0, -1.0), "frule")]
)
def test_a_disagreement_finite_differences_cannot_settle_fails_and_names_the_other_rule(
    monkeypatch: pytest.MonkeyPatch, check: Any, factors: tuple[float, float], blamed: str
) -> None:
    """Where finite differences cannot tell the other rule wrong (noise, a step that does not settle), the
    disagreement itself fails, blaming the rule the check has not confirmed."""
    from chainrules_core.testing import diagnosis

    monkeypatch.setattr(diagnosis, "inner_mismatch", lambda *args: False)
    f = weighted_sin_rules(*factors)
    message = str(failure(check, f, X, W))
    confirmed = "the frule's tangent" if blamed == "rrule" else "the pullback"
    assert message.startswith("[frule and rrule agree]")
    assert f"{confirmed} agrees with finite differences (checked above), so the {blamed} is wrong" in message
    assert "for argument 2 (w):" in message and f"test_{blamed} checks it" in message


class Affine:
    def __init__(self, weights: Any, bias: Any) -> None:
        self.weights, self.bias = weights, bias

    def __call__(self, x: Any) -> Any:
        return self.weights @ x + self.bias


def affine_rules(cls: type, forget_bias: bool) -> None:
    @rrule.register(cls)
    def _(a: Any, x: Any) -> Any:
        def affine_pullback(out_bar: Any) -> Any:
            out_bar = unthunk(out_bar)
            bias_bar = ZeroTangent() if forget_bias else out_bar
            return Tangent(cls, weights=np.outer(out_bar, x), bias=bias_bar), a.weights.T @ out_bar

        return a(x), affine_pullback

    @frule.register(cls)
    def _(tangents: Any, a: Any, x: Any) -> Any:
        a_dot, x_dot = tangents
        weights_dot = getattr(a_dot, "weights", ZeroTangent())
        bias_dot = ZeroTangent() if forget_bias else getattr(a_dot, "bias", ZeroTangent())
        return a(x), weights_dot @ x + a.weights @ x_dot + bias_dot


@pytest.mark.parametrize("check", [test_rrule, test_frule], ids=["rrule", "frule"])
def test_a_wrong_field_of_an_object_is_named_with_its_ratio(check: Any) -> None:
    cls = type("Affine", (Affine,), {})
    affine_rules(cls, forget_bias=True)
    a = cls(np.array([[1.0, -2.0, 0.5], [0.3, 1.0, 2.0]]), np.array([0.5, -1.0]))
    message = str(failure(check, a, X[:3]))
    assert "Affine(...)" in message and "by part: field weights: right (ratio 1); field bias: wrong (ratio " in message


class Average:
    """``weights @ x / total``, keeping ``total = sum(weights)``, computed from the weights when built."""

    def __init__(self, weights: Any) -> None:
        self.weights = weights
        self.total = np.sum(weights)

    def __call__(self, x: Any) -> Any:
        return self.weights @ x / self.total


def average_rules(cls: type) -> None:
    """The rules of ``Average``, right for the weights alone: ``total`` moves with them."""

    @rrule.register(cls)
    def _(a: Any, x: Any) -> Any:
        out = a(x)

        def average_pullback(out_bar: Any) -> Any:
            out_bar = unthunk(out_bar)
            return Tangent(cls, weights=(x - out) / a.total * out_bar), a.weights / a.total * out_bar

        return out, average_pullback

    @frule.register(cls)
    def _(tangents: Any, a: Any, x: Any) -> Any:
        a_dot, x_dot = tangents
        out = a(x)
        weights_dot = getattr(a_dot, "weights", ZeroTangent())
        return out, (weights_dot @ (x - out) + a.weights @ x_dot) / a.total


@pytest.mark.parametrize("check", [test_rrule, test_frule], ids=["rrule", "frule"])
def test_a_field_computed_from_the_others_is_named_with_what_to_declare(check: Any) -> None:
    """Taken for a field of its own, ``total`` is moved alone, and a right rule looks wrong in every field."""
    cls = type("Average", (Average,), {})
    average_rules(cls)
    message = str(failure(check, cls(np.array([1.0, 2.0, 0.5])), X[:3]))
    assert "field weights: wrong" in message and "field total: wrong (ratio 0)" in message
    assert "the rule gives nothing for total and gets the other fields wrong: if total is computed from the " in message
    assert "declare the fields it is built from, __chainrules_fields__ = ('weights',)" in message


@pytest.mark.parametrize("check", [test_rrule, test_frule], ids=["rrule", "frule"])
def test_declared_fields_are_the_ones_moved(check: Any) -> None:
    """Declared, the weights alone move, and the Average is built again from them: the same rules pass."""
    cls = type("Average", (Average,), {"__chainrules_fields__": ("weights",)})
    average_rules(cls)
    report = check(cls(np.array([1.0, 2.0, 0.5])), X[:3], variants=True)
    assert report.max_relative_error < 1e-8


def test_a_misnamed_field_of_the_function_itself_reads_as_a_field_of_f() -> None:
    cls = type("Affine", (Affine,), {})

    @rrule.register(cls)
    def _(a: Any, x: Any) -> Any:
        def affine_pullback(out_bar: Any) -> Any:
            return Tangent(cls, weights=np.outer(out_bar, x)[:1], bias=out_bar), a.weights.T @ out_bar

        return a(x), affine_pullback

    message = str(failure(test_rrule, cls(np.ones((2, 3)), np.zeros(2)), X[:3]))
    assert "the cotangent of f.weights: shape (1, 3) for a primal of shape (2, 3); unbroadcast(x, x_bar)" in message


# ----- keyword arguments and partials -----


def power_sum(x: Any, w: Any, p: int) -> Any:
    return np.sum(w * x**p)


@rrule.register(power_sum)
def _rrule_power_sum(f: Any, x: Any, w: Any, p: int) -> Any:
    def power_sum_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        return NoTangent(), out_bar * w * p * x ** (p - 1), out_bar * x**p, NoTangent()  # p counted always

    return f(x, w, p), power_sum_pullback


def test_a_cotangent_for_a_keyword_argument_is_explained() -> None:
    test_rrule(power_sum, X, W, 3)
    message = str(failure(test_rrule, functools.partial(power_sum, p=3), X, W))
    assert message.startswith("[cotangent count] functools.partial(tests.testing.test_messages.power_sum, p=3):")
    assert "returned 4 cotangents; expected 3" in message
    assert "(p was passed by keyword: keyword arguments get no cotangent)" in message
    assert "(p was passed by keyword" in str(failure(test_rrule, power_sum, X, W, fkwargs={"p": 3}))


def test_scalar_rule_declines_keyword_arguments_and_the_harness_says_so() -> None:
    def smooth_relu(x: Any, beta: float = 1.0) -> Any:
        return np.logaddexp(0.0, beta * x) / beta

    def partials(out: Any, x: Any, beta: float) -> Any:
        sigmoid = 1 / (1 + np.exp(-beta * x))
        return sigmoid, (x * sigmoid - out) / beta

    scalar_rule(smooth_relu, partials)
    assert rrule(smooth_relu, 0.3, beta=3.0) is None and frule((NoTangent(), 1.0), smooth_relu, 0.3, beta=3.0) is None
    message = str(failure(test_rrule, smooth_relu, 0.3, fkwargs={"beta": 3.0}))
    assert message.startswith("[rule exists]") and "declining this call with the keyword arguments beta" in message
    test_scalar(smooth_relu, 0.3, 3.0)


def test_test_scalar_checks_every_argument() -> None:
    def scaled_exp(x: Any, a: Any) -> Any:
        return a * np.exp(x)

    scalar_rule(scaled_exp, lambda out, x, a: (out, 1.01 * np.exp(x)))
    message = str(failure(test_scalar, scaled_exp, 0.3, 2.0))
    assert "argument 2 (a)" in message

    def int_power(x: Any, n: int) -> Any:
        return x**n

    scalar_rule(int_power, lambda out, x, n: (n * x ** (n - 1), NoTangent()))
    assert test_scalar(int_power, 1.5 - 0.5j, 3).checks.count("pullback") == 1  # the int is left alone


# ----- rules that cannot take the call -----


@pytest.mark.parametrize(
    ("mode", "rule", "expected"),
    [
        ("frule", lambda f, x, w, tangents: (f(x, w), 0.0), "the rule <lambda>(f, x, w, tangents) may have the wrong"),
        ("frule", lambda tangents, f, x, w: (lambda _, x_dot: (f(x, w), x_dot))(*tangents), "here 3 tangents"),
    ],
    ids=["jax-style frule", "too few tangents unpacked"],
)
def test_a_rule_with_the_wrong_signature_is_told_the_right_one(mode: str, rule: Any, expected: str) -> None:
    f = fresh(weighted_sin)
    (rrule if mode == "rrule" else frule).register(f)(rule)
    message = str(failure(test_rrule if mode == "rrule" else test_frule, f, X, W))
    assert message.startswith("[rule]") and expected in message
    called_as = "rule(f, *args, **kwargs)" if mode == "rrule" else "rule((f_dot, *arg_dots), f, *args, **kwargs)"
    assert called_as in message


def test_a_rule_that_cannot_take_the_call_is_refused_when_registered() -> None:
    """An rrule without room for ``f`` never reaches the harness: registration names the call it cannot take."""
    f = fresh(weighted_sin)
    refusal = r"cannot be called as rule\(f, x1, \.\.\.\): it takes 1 positional argument after f, and a call .* has 2"
    with pytest.raises(TypeError, match=refusal):
        rrule.register(f)(lambda x, w: (x, None))


def test_an_error_deep_in_a_rule_gets_no_signature_hint() -> None:
    f = fresh(weighted_sin)

    def helper(x: Any) -> Any:
        raise ValueError("bad input")

    rrule.register(f)(lambda g, x, w: helper(x))
    assert "called as" not in str(failure(test_rrule, f, X, W))


# ----- why no rule applies -----


def test_no_rule_names_a_config_aware_rule() -> None:
    class Reverse(RuleConfig, HasReverseMode):
        pass

    f = fresh(np.sin)
    rrule.register(f, config=True, requires=(HasReverseMode,))(
        lambda config, g, x: (np.sin(x), lambda out_bar: (NoTangent(), unthunk(out_bar) * np.cos(x)))
    )
    message = str(failure(test_rrule, f, X))
    assert "a config-aware rule exists (requires HasReverseMode): pass config=" in message
    assert "which RuleConfig lacks" in str(failure(test_rrule, f, X, config=RuleConfig()))
    test_rrule(f, X, config=Reverse())


def test_no_rule_names_the_registered_types() -> None:
    f = fresh(np.sin)
    rrule.register(f, np.ndarray)(lambda g, x: None)
    assert "rules are registered for argument types (ndarray)" in str(failure(test_rrule, f, 0.5))
    assert "none is registered for" in str(failure(test_rrule, fresh(np.sin), X))


# ----- hints -----


def test_a_cotangent_of_the_wrong_shape_or_dtype_is_told_the_fix() -> None:
    f = fresh(weighted_sin)

    @rrule.register(f)
    def _(g: Any, x: Any, w: Any) -> Any:
        return g(x, w), lambda out_bar: (NoTangent(), out_bar * w * np.cos(x), out_bar * np.sin(x))

    message = str(failure(test_rrule, f, X.astype(np.float32), 2.0))
    assert "expected a real scalar for a float, got an ndarray of shape (4,)" in message
    assert "unbroadcast(x, x_bar) sums a broadcast cotangent back to the shape of x" in message
    g = fresh(np.sin)
    rrule.register(g)(lambda h, x: (np.sin(x), lambda out_bar: (NoTangent(), np.cos(x).astype(np.float64) * out_bar)))
    assert "ProjectTo(x)(x_bar) casts it to the dtype of x" in str(failure(test_rrule, g, X.astype(np.float32)))


def test_a_rule_wrong_at_a_kink_gets_a_note() -> None:
    relu = fresh(lambda x: np.maximum(x, 0.0))
    scalar_rule(relu, lambda out, x: (x > 0).astype(float))
    for check in (test_rrule, test_frule):
        message = str(failure(check, relu, np.array([0.5, 0.0, -1.0])))
        assert "note: x[1] is exactly 0: if the function has a kink there" in message
        assert "fdm='forward'" in message and "docs/conventions.md" in message
    maximum = fresh(np.maximum)
    scalar_rule(maximum, lambda out, x, y: ((x > y) * 1.0, (x <= y) * 1.0))
    message = str(failure(test_rrule, maximum, np.array([1.0, 2.0]), np.array([1.0, 0.5])))
    assert "x1[0] and x2[0] are equal (a tie)" in message


def test_no_note_for_inputs_built_of_equal_entries() -> None:
    f = fresh(np.sin)
    scalar_rule(f, lambda out, x: 1.01 * np.cos(x))
    assert "note:" not in str(failure(test_rrule, f, np.ones(10)))


def test_jacobian_refuses_large_inputs_before_computing_anything() -> None:
    calls = []

    def total(x: Any) -> Any:
        calls.append(1)
        return np.sum(x)

    scalar_rule(total, lambda out, x: np.ones_like(x))
    with pytest.raises(ValueError, match=r"has 100,000 entries .* for arguments of up to 2,000 entries"):
        test_rrule(total, np.ones(100_000), jacobian=True)
    with pytest.raises(ValueError, match=r"three 3,000 x 3,000 matrices"):
        test_frule(fresh(np.sin), np.ones(MAX_INPUT + 1000), jacobian=True)
    assert len(calls) == 1  # the reference output only


# ----- few evaluations -----


@pytest.mark.parametrize("check", [test_rrule, test_frule], ids=["rrule", "frule"])
def test_few_evaluations_for_large_inputs(check: Any) -> None:
    f = weighted_sin_rules()
    x, w = np.linspace(-2.0, 2.0, 100_000), np.linspace(0.5, 1.5, 100_000)
    report = check(f, x, w, evaluations="few")
    assert report.evaluations <= 8 and "frule and rrule agree" in report.checks
    assert check(f, x.astype(np.float32), w.astype(np.float32), evaluations="few").evaluations <= 8


@pytest.mark.parametrize("check", [test_rrule, test_frule], ids=["rrule", "frule"])
def test_few_evaluations_still_catch_a_small_error_and_name_the_argument(check: Any) -> None:
    g = fresh(weighted_sin)
    scalar_rule(g, lambda out, x, w: (w * np.cos(x), 1.001 * np.sin(x)))
    message = str(failure(check, g, np.linspace(-2.0, 2.0, 1000), np.linspace(0.5, 1.5, 1000), evaluations="few"))
    assert "argument 2 (w)" in message


def test_few_evaluations_fall_back_to_the_search_where_one_step_is_not_enough() -> None:
    """A function that varies much faster than its input's scale: the one-step estimate is too rough."""

    def fast_sin(x: Any) -> Any:
        return np.sin(1000 * x)

    scalar_rule(fast_sin, lambda out, x: 1000 * np.cos(1000 * x))
    report = test_rrule(fast_sin, np.array([1.0, 2.0]), evaluations="few")
    assert report.evaluations > 8


def test_evaluations_takes_two_values() -> None:
    with pytest.raises(ValueError, match="evaluations= takes 'adaptive' or 'few', not 'fast'"):
        test_rrule(np.sin, X, evaluations="fast")


def test_the_zero_tangent_of_an_object_has_no_fields() -> None:
    """``ZeroTangent().weights`` raises with what to do; ``getattr(t, "weights", ZeroTangent())`` is the idiom."""
    with pytest.raises(AttributeError, match="stands for a zero of any structure"):
        ZeroTangent().weights
    assert getattr(ZeroTangent(), "weights", ZeroTangent()) is ZeroTangent()
    assert not hasattr(ZeroTangent(), "shape") and isinstance(ZeroTangent()[0], AbstractZero)
    assert ProjectTo(np.ones(2))(ZeroTangent()) is not None


def test_an_frule_takes_no_tangent_for_a_constant_argument() -> None:
    """An engine may send NoTangent() or ZeroTangent() for an argument it holds constant: both are the zero."""
    f = fresh(weighted_sin)

    @frule.register(f)
    def _(tangents: Any, g: Any, x: Any, w: Any) -> Any:
        _, x_dot, w_dot = tangents
        if isinstance(w_dot, NoTangent):
            raise TypeError("w has no tangent")
        return g(x, w), w * np.cos(x) * x_dot + np.sin(x) * w_dot

    message = str(failure(test_frule, f, X, W))
    assert message.startswith("[zero entry in the tangents]") and "given NoTangent() for argument 2 (w)" in message
