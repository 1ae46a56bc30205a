"""test_frule, test_rrule and test_scalar: each check fires with its name; reproducibility; cost; options."""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from chainrules_core import (
    AbstractZero,
    HasReverseMode,
    NoTangent,
    ProjectTo,
    RuleConfig,
    Tangent,
    Thunk,
    ZeroTangent,
    frule,
    non_differentiable,
    not_implemented,
    rrule,
    scalar_rule,
    unthunk,
)
from chainrules_core.testing import (
    CheckOptions,
    CheckReport,
    no_tangent,
    test_frule,
    test_rrule,
    test_scalar,
    with_tangent,
)


def fresh(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A new function computing ``fn``, for rules registered in one test only."""

    @functools.wraps(fn)
    def copy(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return copy


def sin_rules(f: Callable[..., Any]) -> Callable[..., Any]:
    scalar_rule(f, lambda out, x: np.cos(x))
    return f


X = np.array([0.3, -1.2, 2.0, 0.7])


def failure(check: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    with pytest.raises(AssertionError) as info:
        check(*args, **kwargs)
    return str(info.value)


# ----- the API -----


def test_the_checks_are_not_collected_by_pytest() -> None:
    assert test_frule.__test__ is False  # type: ignore[attr-defined]
    assert test_rrule.__test__ is False  # type: ignore[attr-defined]
    assert test_scalar.__test__ is False  # type: ignore[attr-defined]


def test_a_report_of_what_was_checked() -> None:
    f = sin_rules(fresh(np.sin))
    report = test_rrule(f, X)
    assert isinstance(report, CheckReport) and report.mode == "rrule" and report.function.endswith("sin")
    assert report.checks == [
        "cotangent count",
        "cotangent types",
        "pullback",
        "thunked seed",
        "frule and rrule agree",
        "inputs not mutated",
    ]
    assert 0 <= report.max_relative_error < 1e-9
    assert test_frule(f, X).checks == [
        "tangent type",
        "pushforward",
        "frule and rrule agree",
        "inputs not mutated",
    ]
    assert "zero seed" in test_rrule(f, X, check_zero_seed=True).checks
    assert "zero tangent" in test_frule(f, X, check_zero_tangents=True).checks


def test_the_options_are_one_definition_shown_in_each_signature() -> None:
    """``CheckOptions`` lists the shared options; each check's signature shows them, and refuses others."""
    shared = [option.name for option in dataclasses.fields(CheckOptions)]
    assert shared == [
        "fkwargs",
        "rtol",
        "atol",
        "fdm",
        "seed",
        "config",
        "promote",
        "jacobian",
        "evaluations",
        "variants",
        "wrong_shape",
    ]
    for check, own in [
        (test_frule, ["check_zero_tangents"]),
        (test_rrule, ["output_tangent", "check_zero_seed"]),
        (test_scalar, []),
    ]:
        parameters = list(inspect.signature(check).parameters)
        assert parameters[-len(shared) - len(own) :] == own + shared
    with pytest.raises(TypeError, match="test_rrule: unknown option rtoll; the options are atol, config"):
        test_rrule(np.sin, X, rtoll=1e-3)


def test_reports_merge() -> None:
    a = CheckReport("f", "frule", 10, 1e-9, ["pushforward"])
    b = CheckReport("f", "rrule", 20, 1e-8, ["pullback"])
    merged = a.merge(b)
    assert (merged.mode, merged.evaluations, merged.max_relative_error) == ("frule+rrule", 30, 1e-8)


# ----- each check, named in its failure -----


def test_no_rule() -> None:
    f = fresh(np.sin)
    assert failure(test_rrule, f, X).startswith("[rule exists]")
    assert failure(test_frule, f, X).startswith("[rule exists]")


def test_protocol() -> None:
    f = fresh(np.sin)
    rrule.register(f)(lambda g, x: np.sin(x))
    frule.register(f)(lambda t, g, x: np.sin(x))
    assert "rrule must return (y, pullback)" in failure(test_rrule, f, X)
    assert "frule must return (y, y_dot)" in failure(test_frule, f, X)


def test_an_exception_in_the_rule_is_a_named_failure_with_its_cause() -> None:
    f = fresh(np.sin)

    @rrule.register(f)
    def _(g: Any, x: Any) -> Any:
        raise KeyError("lookup")

    with pytest.raises(AssertionError) as info:
        test_rrule(f, X)
    assert str(info.value).startswith("[rule]") and "the rrule raised KeyError: 'lookup'" in str(info.value)
    assert isinstance(info.value.__cause__, KeyError)


def test_an_exception_in_the_pullback_names_the_seed() -> None:
    f = fresh(np.sin)
    rrule.register(f)(lambda g, x: (np.sin(x), lambda y_bar: 1 / 0))
    message = failure(test_rrule, f, X)
    assert message.startswith("[pullback]") and "for the seed array(" in message and "ZeroDivisionError" in message


def test_frule_and_rrule_agree() -> None:
    """A right frule next to a wrong rrule: test_frule sees the disagreement, and leaves the failure to
    test_rrule, since finite differences prove the rrule wrong."""
    f = fresh(np.sin)
    scalar_rule(f, lambda out, x: np.cos(x))
    rrule.register(f)(lambda g, x: (np.sin(x), lambda y_bar: (NoTangent(), 1.1 * unthunk(y_bar) * np.cos(x))))
    assert failure(test_rrule, f, X).startswith("[pullback]")
    with pytest.warns(UserWarning, match=r"^\[frule and rrule agree\] .*the rrule is wrong for argument 1 \(x\)"):
        assert test_frule(f, X).notes


def test_a_wrong_frule_is_seen_from_test_rrule() -> None:
    f = fresh(np.sin)
    scalar_rule(f, lambda out, x: np.cos(x))
    frule.register(f)(lambda t, g, x: (np.sin(x), 1.1 * np.cos(x) * t[1]))
    assert failure(test_frule, f, X).startswith("[pushforward]")
    with pytest.warns(UserWarning, match="the frule is wrong for argument 1"):
        assert test_rrule(f, X).notes


def test_finite_differences_outside_the_domain() -> None:
    f = fresh(np.log)
    scalar_rule(f, lambda out, x: 1 / x)
    with np.errstate(invalid="ignore"):
        message = failure(test_frule, f, np.array([-1.0, -2.0]))
    assert message.startswith("[finite differences]") and "inside the domain" in message


def test_a_function_that_cannot_run_in_double_precision() -> None:
    def only_float32(x: Any) -> Any:
        if x.dtype != np.float32:
            raise TypeError("float32 only")
        return 2 * x

    scalar_rule(only_float32, lambda out, x: 2.0)
    x = X.astype(np.float32)
    message = failure(test_frule, only_float32, x)
    assert message.startswith("[finite differences]") and "promote=False" in message
    test_frule(only_float32, x, promote=False)


def test_inconclusive_where_finite_differences_cannot_settle() -> None:
    """Noise of relative size 1e-4 in the function: no step resolves a 0.1% error, and the check says so."""

    def noisy(x: Any) -> Any:
        return x + 1e-4 * np.sin(1e12 * x)

    scalar_rule(noisy, lambda out, x: np.ones_like(x))
    message = failure(test_frule, noisy, X)
    assert message.startswith("[pushforward]") and "inconclusive" in message and "one-sided fdm" in message


def test_a_kink_needs_a_point_away_from_it_or_a_one_sided_difference() -> None:
    """``abs`` at 0 along a tangent of 1: the central difference is 0, the one-sided ones are +-1."""
    f = fresh(np.abs)
    scalar_rule(f, lambda out, x: np.sign(x))
    test_frule(f, with_tangent(np.array([0.0, 1.0]), np.array([1.0, 0.0])))
    test_frule(f, with_tangent(np.array([0.5, 1.0]), np.array([1.0, 0.0])), fdm="forward")
    assert failure(test_frule, f, with_tangent(np.array([0.0, 1.0]), np.array([1.0, 0.0])), fdm="forward")


def test_the_pullback_hint_for_a_zero_cotangent() -> None:
    f = fresh(np.sin)
    rrule.register(f)(lambda g, x: (np.sin(x), lambda y_bar: (NoTangent(), NoTangent())))
    message = failure(test_rrule, f, X)
    assert message.startswith("[pullback]") and "returned NoTangent() for argument 1" in message


def test_the_pushforward_hint_for_a_zero_tangent() -> None:
    f = fresh(np.sin)
    frule.register(f)(lambda t, g, x: (np.sin(x), ZeroTangent()))
    assert "the frule's tangent is zero" in failure(test_frule, f, X)


def test_the_pullback_names_the_ratio() -> None:
    f = fresh(np.sin)
    scalar_rule(f, lambda out, x: -np.cos(x))
    assert "(ratio -1)" in failure(test_rrule, f, X)


def test_the_argument_that_is_wrong_is_named() -> None:
    """A joint pushforward failure is traced to the argument whose tangent is mishandled."""

    def mul(x: Any, y: Any) -> Any:
        return x * y

    scalar_rule(mul, lambda out, x, y: (y, 1.5 * x))
    message = failure(test_frule, mul, X, X + 1)
    assert message.startswith("[pushforward]") and "along argument 2 (y) alone" in message
    assert "argument 2 (y)" in failure(test_rrule, mul, X, X + 1)


def test_a_tangent_that_is_not_linear_in_the_inputs() -> None:
    """Right along each argument alone, wrong along both: the joint failure stands."""

    def mul(x: Any, y: Any) -> Any:
        return x * y

    @frule.register(mul)
    def _(tangents: Any, f: Any, x: Any, y: Any) -> Any:
        _, x_dot, y_dot = tangents
        if isinstance(x_dot, AbstractZero) or isinstance(y_dot, AbstractZero):
            return x * y, x_dot * y + x * y_dot
        return x * y, x_dot * y

    assert "the output: the tangent differs" in failure(test_frule, mul, X, X + 1)


def test_non_differentiable_arguments() -> None:
    def power(x: Any, n: int) -> Any:
        return x**n

    @rrule.register(power)
    def _(f: Any, x: Any, n: int) -> Any:
        return x**n, lambda y_bar: (NoTangent(), n * x ** (n - 1) * unthunk(y_bar), ZeroTangent())

    message = failure(test_rrule, power, X, 3)
    assert message.startswith("[non-differentiable argument]") and "argument 2 (n)" in message
    assert "got ZeroTangent()" in message


def test_cotangent_types_name_the_argument_and_the_problem() -> None:
    f = fresh(np.sin)
    rrule.register(f)(lambda g, x: (np.sin(x), lambda y_bar: (NoTangent(), np.cos(x.astype(np.float64)) * y_bar)))
    message = failure(test_rrule, f, X.astype(np.float32))
    assert message.startswith("[cotangent types]")
    assert "the cotangent of argument 1 (x): dtype float64 for a primal of dtype float32" in message


def test_tangent_type_of_the_output() -> None:
    f = fresh(np.sin)
    frule.register(f)(lambda t, g, x: (np.sin(x), (np.cos(x) * t[1]).reshape(1, -1)))
    assert "the output tangent: shape (1, 4)" in failure(test_frule, f, X)


def test_primal_type_and_values() -> None:
    f = fresh(np.sin)
    rrule.register(f)(lambda g, x: (list(np.sin(x)), lambda y_bar: (NoTangent(), y_bar)))
    assert "the rule returned a list but the function an ndarray of shape (4,)" in failure(test_rrule, f, X)
    g = fresh(np.sin)
    rrule.register(g)(lambda h, x: (np.sin(x).astype(np.float32), lambda y_bar: (NoTangent(), y_bar)))
    assert "dtype float32 from the rule, float64 from f" in failure(test_rrule, g, X)
    h = fresh(np.sin)  # np.sin(0.5) is a numpy float64: a Python float has no shape, and says what it is
    rrule.register(h)(lambda k, x: (float(np.sin(x)), lambda y_bar: (NoTangent(), y_bar)))
    message = failure(test_rrule, h, 0.5)
    assert "[primal]" in message and "the rule returned a Python float, f a numpy float64 of shape ()" in message


def test_integer_parts_of_the_primal_are_compared() -> None:
    def argmax_and_max(x: Any) -> Any:
        return int(np.argmax(x)), float(np.max(x))

    frule.register(argmax_and_max)(lambda t, f, x: ((0, float(np.max(x))), Tangent(tuple, NoTangent(), 0.0)))
    message = failure(test_frule, argmax_and_max, X)
    assert message.startswith("[primal]") and "non-differentiable parts" in message


def test_mutation_of_the_keyword_arguments() -> None:
    def weighted(x: Any, weights: Any = None) -> Any:
        return np.sin(x) * weights

    @rrule.register(weighted)
    def _(f: Any, x: Any, weights: Any = None) -> Any:
        out = np.sin(x) * weights
        weights[0] = 0.0
        return out, lambda y_bar: (NoTangent(), unthunk(y_bar) * 0)

    message = failure(test_rrule, weighted, X, fkwargs={"weights": np.ones(4)})
    assert message.startswith("[mutation]") and "the keyword arguments" in message


def test_mutation_of_the_function_object() -> None:
    class Counter:
        def __init__(self) -> None:
            self.scale = 2.0

        def __call__(self, x: Any) -> Any:
            return self.scale * x

    @rrule.register(Counter)
    def _(f: Any, x: Any) -> Any:
        out = f(x)
        f.scale += 1.0

        def counter_pullback(y_bar: Any) -> Any:
            y_bar = unthunk(y_bar)
            return Tangent(Counter, scale=float(np.sum(y_bar * x))), 2.0 * y_bar

        return out, counter_pullback

    message = failure(test_rrule, Counter(), X)
    assert message.startswith("[mutation]") and "the function itself" in message


# ----- seeds and reproducibility -----


def test_the_seed_reproduces_a_failure() -> None:
    f = fresh(np.sin)
    scalar_rule(f, lambda out, x: 1.01 * np.cos(x))
    first = failure(test_rrule, f, X, seed=3)
    assert first.endswith("(seed=3)") and first == failure(test_rrule, f, X, seed=3)
    assert first != failure(test_rrule, f, X, seed=4)


def test_the_seed_reproduces_a_pass() -> None:
    f = sin_rules(fresh(np.sin))
    assert test_rrule(f, X, seed=5) == test_rrule(f, X, seed=5)
    assert test_rrule(f, X, seed=5).max_relative_error != test_rrule(f, X, seed=6).max_relative_error


# ----- cost -----


@pytest.mark.parametrize("check", [test_rrule, test_frule], ids=["rrule", "frule"])
def test_the_number_of_evaluations_does_not_grow_with_the_input(check: Callable[..., Any]) -> None:
    f = sin_rules(fresh(np.sin))
    counts = [check(f, np.linspace(-2.0, 2.0, n), seed=0).evaluations for n in (10, 1000, 100_000)]
    assert max(counts) <= 60, counts
    assert max(counts) - min(counts) <= 12, counts


# ----- inputs of every kind -----


class Affine:
    """``w * x + b`` with fields the harness must leave alone: a name, a count, a function."""

    def __init__(self, w: Any, b: float) -> None:
        self.w, self.b = w, b
        self.name, self.n, self.post = "affine", 2, np.negative

    def __call__(self, x: Any) -> Any:
        return self.post(self.w * x + self.b)


@rrule.register(Affine)
def _rrule_affine(f: Affine, x: Any) -> Any:
    project_x, project_w = ProjectTo(x), ProjectTo(f.w)

    def affine_pullback(out_bar: Any) -> Any:
        z_bar = -unthunk(out_bar)
        if isinstance(z_bar, AbstractZero):
            return NoTangent(), z_bar
        self_bar = Tangent(Affine, w=project_w(z_bar * x), b=float(np.sum(z_bar)))
        return self_bar, project_x(z_bar * f.w)

    return f(x), affine_pullback


@frule.register(Affine)
def _frule_affine(tangents: Any, f: Affine, x: Any) -> Any:
    f_dot, x_dot = tangents
    w_dot, b_dot = (ZeroTangent(), ZeroTangent()) if isinstance(f_dot, AbstractZero) else (f_dot.w, f_dot.b)
    return f(x), -(w_dot * x + f.w * x_dot + b_dot)


@pytest.mark.parametrize("check", [test_rrule, test_frule], ids=["rrule", "frule"])
def test_a_callable_object_with_fields(check: Callable[..., Any]) -> None:
    """The object's own tangent is checked; its string, int and function fields are left alone."""
    check(Affine(np.array([1.0, -2.0, 0.5, 3.0]), 0.25), X)
    check(Affine(np.array([1.0, -2.0, 0.5, 3.0], dtype=np.float32), 0.25), X.astype(np.float32))


def test_a_callable_object_marked_non_differentiable() -> None:
    """With ``no_tangent(f)`` the object's cotangent must be NoTangent()."""
    message = failure(test_rrule, no_tangent(Affine(X.copy(), 0.25)), X)
    assert message.startswith("[non-differentiable argument]") and "the function itself" in message


def test_partials_and_bound_methods() -> None:
    def mul(x: Any, y: Any) -> Any:
        return x * y

    scalar_rule(mul, lambda out, x, y: (y, x))
    test_rrule(functools.partial(mul, 2.5), X)
    test_frule(functools.partial(mul, X + 1), X)


def test_explicit_and_absent_tangents() -> None:
    f = sin_rules(fresh(np.sin))
    test_rrule(f, with_tangent(X, np.array([1.0, 0.0, 0.0, 0.0])))
    test_frule(f, with_tangent(X, ZeroTangent()))


def test_a_tangent_of_the_wrong_shape_is_refused() -> None:
    f = sin_rules(fresh(np.sin))
    with pytest.raises(ValueError, match=r"the tangent given for argument 1 \(x\): shape"):
        test_frule(f, with_tangent(X, np.ones(3)))
    with pytest.raises(ValueError, match="output_tangent: dtype float32"):
        test_rrule(f, X, output_tangent=np.ones(4, dtype=np.float32))


@pytest.mark.parametrize("check", [test_rrule, test_frule], ids=["rrule", "frule"])
def test_a_function_of_a_tangent(check: Callable[..., Any]) -> None:
    """A ``Tangent`` is a value like any other: its entries are perturbed and its cotangent is a ``Tangent``."""

    def energy(t: Any) -> Any:
        return t[0] ** 2 + np.sum(t[1] ** 2)

    @rrule.register(energy)
    def _(f: Any, t: Any) -> Any:
        def energy_pullback(out_bar: Any) -> Any:
            out_bar = unthunk(out_bar)
            return NoTangent(), Tangent(tuple, 2 * t[0] * out_bar, 2 * t[1] * out_bar, NoTangent())

        return energy(t), energy_pullback

    @frule.register(energy)
    def _(tangents: Any, f: Any, t: Any) -> Any:
        t_dot = tangents[1]
        if isinstance(t_dot, AbstractZero):
            return energy(t), t_dot
        return energy(t), 2 * t[0] * t_dot[0] + np.sum(2 * t[1] * t_dot[1])

    check(energy, Tangent(tuple, 1.5, np.array([0.5, -2.0]), NoTangent()))


def test_keyword_arguments_have_no_tangents() -> None:
    def scaled(x: Any, factor: float = 1.0) -> Any:
        return factor * np.sin(x)

    @rrule.register(scaled)
    def _(f: Any, x: Any, factor: float = 1.0) -> Any:
        return f(x, factor=factor), lambda y_bar: (NoTangent(), factor * np.cos(x) * unthunk(y_bar))

    @frule.register(scaled)
    def _(tangents: Any, f: Any, x: Any, factor: float = 1.0) -> Any:
        return f(x, factor=factor), factor * np.cos(x) * tangents[1]

    test_rrule(scaled, X, fkwargs={"factor": 3.0})
    test_frule(scaled, X, fkwargs={"factor": 3.0})


def test_non_differentiable_functions() -> None:
    def count_positive(x: Any) -> int:
        return int(np.sum(x > 0))

    non_differentiable(count_positive)
    assert test_rrule(count_positive, X).evaluations == 1
    test_frule(count_positive, X)


def test_a_not_implemented_cotangent_skips_its_argument_only() -> None:
    def mul(x: Any, y: Any) -> Any:
        return x * y

    @rrule.register(mul)
    def _(f: Any, x: Any, y: Any) -> Any:
        return x * y, lambda y_bar: (NoTangent(), unthunk(y_bar) * y, not_implemented("y"))

    test_rrule(mul, X, X + 1)

    @rrule.register(mul)
    def _(f: Any, x: Any, y: Any) -> Any:
        return x * y, lambda y_bar: (NoTangent(), unthunk(y_bar) * x, not_implemented("y"))

    message = failure(test_rrule, mul, X, X + 1)
    assert message.startswith("[pullback]") and "mul: argument 1 (x):" in message


def test_thunks_are_accepted_and_checked() -> None:
    f = fresh(np.sin)
    rrule.register(f)(lambda g, x: (np.sin(x), lambda y_bar: (NoTangent(), Thunk(lambda: unthunk(y_bar) * np.cos(x)))))
    test_rrule(f, X)


def test_config_reaches_the_rule() -> None:
    class Engine(RuleConfig, HasReverseMode):
        pass

    f = fresh(np.sin)

    @rrule.register(f, config=True, requires=(HasReverseMode,))
    def _(config: Any, g: Any, x: Any) -> Any:
        return np.sin(x), lambda y_bar: (NoTangent(), unthunk(y_bar) * np.cos(x))

    test_rrule(f, X, config=Engine())
    assert failure(test_rrule, f, X).startswith("[rule exists]")


def test_rtol_and_atol() -> None:
    f = fresh(np.sin)
    scalar_rule(f, lambda out, x: (1 + 1e-6) * np.cos(x))
    assert failure(test_rrule, f, X).startswith("[pullback]")
    test_rrule(f, X, rtol=1e-5)
    test_frule(f, X, atol=1e-5)


# ----- scalars -----


def test_scalar_real_and_complex() -> None:
    f = sin_rules(fresh(np.sin))
    assert test_scalar(f, 0.5).mode == "frule+rrule"
    report = test_scalar(f, 0.5 + 0.25j)
    assert report.checks.count("pullback") == 1 and report.evaluations > test_scalar(f, 0.5).evaluations


def test_scalar_non_holomorphic() -> None:
    """|z| from its 2x2 real Jacobian: real output, complex input."""

    def modulus(z: Any) -> Any:
        return abs(z)

    @rrule.register(modulus)
    def _(f: Any, z: Any) -> Any:
        out = abs(z)
        return out, lambda y_bar: (NoTangent(), ProjectTo(z)(np.real(unthunk(y_bar)) * z / out))

    @frule.register(modulus)
    def _(tangents: Any, f: Any, z: Any) -> Any:
        out, z_dot = abs(z), tangents[1]
        return out, z_dot if isinstance(z_dot, AbstractZero) else float(np.real(np.conj(z) * z_dot) / out)

    test_scalar(modulus, 3.0 - 4.0j)


def test_scalar_of_float32() -> None:
    f = sin_rules(fresh(np.sin))
    test_scalar(f, np.float32(0.5))
    test_scalar(f, np.complex64(0.5 - 1j))
