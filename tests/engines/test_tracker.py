"""The reverse engine: every derivative from rrule, the tape, accumulation, errors, parameters."""

from __future__ import annotations

import functools
import operator
from typing import Any

import numpy as np
import pytest

import chainrules.engines as ad
from chainrules.engines import NoRuleError, _tape, lift, tracker
from chainrules_core import (
    InplaceableThunk,
    NoTangent,
    NotImplementedTangent,
    NotImplementedTangentError,
    RuleConfig,
    Tangent,
    Thunk,
    ZeroTangent,
    rrule,
    unthunk,
)
from tests.engines.programs import LOCAL, check_program


def _opaque_ufunc() -> np.ufunc:
    """A ufunc no rule knows: a new object each time."""
    return np.frompyfunc(lambda x: x, 1, 1)


def test_operation_without_rule_on_plain_values_just_runs() -> None:
    """Functions without rules run when no tracked value reaches them."""
    opaque = _opaque_ufunc()

    def f(x: Any) -> Any:
        c = float(opaque(np.float64(2.0)))
        return LOCAL.mul(c, x)

    assert ad.gradient(f, 3.0) == (2.0,)


def test_operation_without_rule_on_tracked_values_raises() -> None:
    """The error names the function and the argument types."""
    opaque = _opaque_ufunc()
    with pytest.raises(NoRuleError, match=r"no rrule for <lambda> \(vectorized\)\(ndarray\[float64, \(3,\)\]\)"):
        ad.gradient(lambda x: LOCAL.sum(opaque(x)), np.ones(3))


def test_call_with_an_output_buffer_says_why_it_has_no_rule() -> None:
    """A ufunc given out= has no rule (rules never write into buffers): the message names the keyword and why."""

    def into_buffer(x: Any) -> Any:
        buffer = np.empty(3)
        np.divide(x, np.array([1, 2, 3]), out=buffer)
        return LOCAL.sum(buffer)

    with pytest.raises(
        NoRuleError,
        match=r"np\.divide\(ndarray\[float64, \(3,\)\], ndarray\[int64, \(3,\)\], out=\.\.\.\) "
        r"\(a call with out= writes into or masks a buffer",
    ):
        ad.gradient(into_buffer, np.ones(3))


def test_rule_registered_later_is_picked_up_at_once() -> None:
    """A rule registered between two passes is used by the second; re-registering replaces it."""
    opaque = _opaque_ufunc()

    def g(x: Any) -> Any:
        return opaque(x)

    lifted_g = lift(g)
    with pytest.raises(NoRuleError):
        ad.gradient(lambda x: lifted_g(x), 2.0)

    @rrule.register(g)
    def _rrule_g(f: Any, x: Any) -> Any:
        return x, lambda out_bar: (NoTangent(), 2 * out_bar)

    assert ad.gradient(lambda x: lifted_g(x), 2.0) == (2.0,)
    assert ad.gradient(g, 2.0) == (2.0,)

    @rrule.register(g)
    def _rrule_g_again(f: Any, x: Any) -> Any:
        return x, lambda out_bar: (NoTangent(), 3 * out_bar)

    assert ad.gradient(g, 2.0) == (3.0,)


class Multiplier:
    """A callable object with a field and a rule."""

    def __init__(self, a: float) -> None:
        self.a = a

    def __call__(self, y: float) -> float:
        return self.a * y


@rrule.register(Multiplier)
def _rrule_multiplier(m: Multiplier, y: float) -> Any:
    def multiplier_pullback(out_bar: Any) -> tuple[Any, Any]:
        return Tangent(Multiplier, a=out_bar * y), m.a * out_bar

    return m(y), multiplier_pullback


def test_callable_object_with_rule_gets_its_self_tangent() -> None:
    """The rule's first cotangent flows to the object's fields."""
    m_bar, y_bar = ad.gradient(lambda m, y: m(y), Multiplier(2.0), 3.0)
    assert m_bar == Tangent(Multiplier, a=3.0)
    assert y_bar == 2.0


def test_unused_and_integer_arguments() -> None:
    """An unused float gets ZeroTangent(), an int NoTangent()."""
    assert ad.gradient(lambda x, y, n: LOCAL.mul(x, x), 3.0, 1.0, 4) == (6.0, ZeroTangent(), NoTangent())


def test_containers_and_structured_outputs() -> None:
    """Lists, tuples and dicts of arguments, and tuple outputs seeded in part."""
    x = {"a": np.array([1.0, 2.0]), "b": (3.0, 2)}

    def f(x: Any) -> Any:
        return (LOCAL.mul(x["a"], x["b"][0]), LOCAL.sum(x["a"]))

    y, back = ad.forward(f, x)
    (x_bar,) = back(Tangent(tuple, np.ones(2), ZeroTangent()))
    np.testing.assert_allclose(x_bar["a"], [3.0, 3.0])
    assert x_bar["b"] == Tangent(tuple, 3.0, NoTangent())
    (x_bar,) = back((ZeroTangent(), 1.0))
    np.testing.assert_allclose(x_bar["a"], [1.0, 1.0])


# ----- accumulation -----


def _both(a: Any, b: Any) -> Any:
    return a + b


def test_accumulation_never_mutates_what_a_pullback_returned() -> None:
    """A pullback handing back its seed (or a read-only broadcast) twice: the engine copies before adding."""
    returned: list[Any] = []

    @rrule.register(_both)
    def _rrule_both(f: Any, a: Any, b: Any) -> Any:
        def both_pullback(out_bar: Any) -> tuple[Any, ...]:
            returned.append(out_bar)
            return NoTangent(), out_bar, np.broadcast_to(out_bar, np.shape(b))

        return a + b, both_pullback

    both = lift(_both)
    seed = np.array([1.0, 2.0])
    y, back = ad.forward(lambda x: both(x, x), np.array([0.5, 0.5]))
    (x_bar,) = back(seed)
    np.testing.assert_allclose(x_bar, [2.0, 4.0])
    np.testing.assert_allclose(seed, [1.0, 2.0])
    assert returned[0] is seed
    (x_bar,) = back(seed)  # a second backward pass from the same tape
    np.testing.assert_allclose(x_bar, [2.0, 4.0])


def _twice(x: Any) -> Any:
    return 2 * x


def test_inplaceable_thunks_add_in_place_and_thunks_wait() -> None:
    """An InplaceableThunk adds into the engine's own buffer; a Thunk nobody needs is never forced."""
    counts = {"add": 0, "value": 0, "unused": 0}

    @rrule.register(_twice)
    def _rrule_twice(f: Any, x: Any) -> Any:
        def add(acc: Any) -> Any:
            counts["add"] += 1
            return np.add(acc, 2.0, out=acc)

        def value() -> Any:
            counts["value"] += 1
            return np.full(np.shape(x), 2.0)

        return 2 * x, lambda out_bar: (NoTangent(), InplaceableThunk(add, Thunk(value)))

    twice = lift(_twice)
    (x_bar,) = ad.gradient(lambda x: LOCAL.add(LOCAL.sum(twice(x)), LOCAL.sum(twice(x))), np.ones(3))
    np.testing.assert_allclose(x_bar, [4.0, 4.0, 4.0])
    assert counts == {"add": 1, "value": 1, "unused": 0}

    def lazy(x: Any, c: Any) -> Any:
        return x * c

    @rrule.register(lazy)
    def _rrule_lazy(f: Any, x: Any, c: Any) -> Any:
        def unused() -> Any:
            counts["unused"] += 1
            return x

        return x * c, lambda out_bar: (NoTangent(), out_bar * c, Thunk(unused))

    assert ad.gradient(lambda x: lift(lazy)(x, 3.0), 2.0) == (3.0,)
    assert counts["unused"] == 0


def test_pullbacks_of_unused_outputs_are_not_called() -> None:
    """Zeros are skipped: a node whose output reaches nothing is never pulled back."""
    called = []

    def side(x: Any) -> Any:
        return x + 1.0

    @rrule.register(side)
    def _rrule_side(f: Any, x: Any) -> Any:
        def side_pullback(out_bar: Any) -> tuple[Any, Any]:
            called.append(out_bar)
            return NoTangent(), out_bar

        return x + 1.0, side_pullback

    def f(x: Any) -> Any:
        lift(side)(x)  # computed, not used
        return LOCAL.mul(x, 2.0)

    assert ad.gradient(f, 1.0) == (2.0,)
    assert called == []


# ----- errors -----


def test_wrong_count_pullback_names_the_function() -> None:
    def short(x: Any) -> Any:
        return x

    @rrule.register(short)
    def _rrule_short(f: Any, x: Any) -> Any:
        return x, lambda out_bar: (out_bar,)

    with pytest.raises(ValueError, match=r"pullback of .*short returned 1 cotangents; expected 2"):
        ad.gradient(short, 1.0)


def test_wrong_shape_cotangent_names_the_function() -> None:
    def flat(x: Any) -> Any:
        return x

    @rrule.register(flat)
    def _rrule_flat(f: Any, x: Any) -> Any:
        return x, lambda out_bar: (NoTangent(), np.ones(5))

    with pytest.raises(ValueError, match=r"pullback of .*flat \(argument 1\) gave a cotangent of shape \(5,\)"):
        ad.gradient(lambda x: LOCAL.sum(lift(flat)(x)), np.ones(3))


def test_gradient_seed_has_the_output_type() -> None:
    """1.0 for a Python float output, a 0-d array of the dtype for a numpy scalar output."""
    seeds: list[Any] = []

    def ident(x: Any) -> Any:
        return x

    @rrule.register(ident)
    def _rrule_ident(f: Any, x: Any) -> Any:
        def ident_pullback(out_bar: Any) -> tuple[Any, Any]:
            seeds.append(out_bar)
            return NoTangent(), out_bar

        return x, ident_pullback

    assert ad.gradient(ident, 2.0) == (1.0,)
    (g,) = ad.gradient(ident, np.float32(2.0))
    assert type(seeds[0]) is float
    assert isinstance(seeds[1], np.ndarray) and seeds[1].shape == () and seeds[1].dtype == np.float32
    assert g.dtype == np.float32


def test_gradient_needs_a_real_scalar() -> None:
    with pytest.raises(ValueError, match="real scalar"):
        ad.gradient(lambda x: LOCAL.mul(x, 2.0), np.ones(2))
    with pytest.raises(ValueError, match="real scalar"):
        ad.gradient(lambda x: LOCAL.mul(x, 2.0), 1.0 + 1.0j)


def test_values_of_two_passes_must_not_meet() -> None:
    """A closure over a tracked value, seen by a rule's inner pass, is refused rather than taken as a constant."""

    def outer(w: Any, xs: Any) -> Any:
        step = lift(lambda acc, x: LOCAL.add(LOCAL.mul(w, acc), x))
        return lift(functools.reduce)(step, xs, 0.0)

    with pytest.raises(ValueError, match="another forward pass"):
        ad.gradient(outer, 0.5, np.ones(3))
    # without a tracked sequence the reduction runs on the outer tape, closure included
    assert ad.gradient(lambda w: outer(w, np.ones(3)), 0.5) == (pytest.approx(1.0 + 2 * 0.5),)


def test_math_functions_refuse_tracked_values() -> None:
    import math

    with pytest.raises(TypeError, match=r"lift\(math\.sin\)"):
        ad.gradient(lambda x: math.sin(x), 1.0)


def test_tracked_values_print_like_their_values() -> None:
    shown = []

    def f(x: Any) -> Any:
        y = LOCAL.mul(x, 2.0)
        shown.append(f"{y:.2f} {y!r}")
        return y

    ad.gradient(f, 1.0)
    assert shown == ["2.00 TrackedScalar(2.0)"]


def test_tracked_arrays_are_not_modified_in_place() -> None:
    def f(x: Any) -> Any:
        x[0] = 1.0
        return x

    with pytest.raises(TypeError, match="cannot be assigned"):
        ad.forward(f, np.ones(2))


# ----- parameters -----


def test_parameters_accumulate_their_gradient() -> None:
    w = ad.param(np.array([1.0, 2.0]))

    def loss(x: Any) -> Any:
        return LOCAL.sum(LOCAL.mul(w, LOCAL.mul(w, x)))

    x = np.array([3.0, 4.0])
    (x_bar,) = ad.gradient(loss, x)
    np.testing.assert_allclose(x_bar, [1.0, 4.0])
    np.testing.assert_allclose(w.grad, 2 * w.value * x)
    ad.gradient(loss, x)
    np.testing.assert_allclose(w.grad, 4 * w.value * x)
    w.zero_grad()
    assert w.grad is None
    outside = LOCAL.mul(w, w)  # outside any pass a parameter computes plain values
    assert type(outside) is np.ndarray
    np.testing.assert_allclose(outside, [1.0, 4.0])


# ----- opt-out -----


def test_opt_out_differentiates_through_the_function() -> None:
    """A rule that opts out for floats: the engine runs the function's own code on tracked values."""
    used = []

    def cube(x: Any) -> Any:
        return LOCAL.mul(x, LOCAL.square(x))

    @rrule.register(cube)
    def _rrule_cube(f: Any, x: Any) -> Any:
        used.append(type(x))
        return x**3, lambda out_bar: (NoTangent(), 3 * x**2 * out_bar)

    rrule.opt_out(cube, float)
    assert ad.gradient(cube, 2.0) == (12.0,)
    (g,) = ad.gradient(lambda x: LOCAL.sum(lift(cube)(x)), np.array([2.0]))
    np.testing.assert_allclose(g, [12.0])
    assert used == [np.ndarray]


# ----- operators and numpy calls reach the registry -----


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, tuple[str, ...]]]:
    """Replace the tracker's rrule with one that records each primal and answers with a zero pullback."""
    calls: list[tuple[Any, tuple[str, ...]]] = []

    def spy_rrule(config: RuleConfig, f: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(f, "__module__", None) == __name__:
            return None  # the program itself is differentiated through
        if f is np.ndarray.sum:
            calls.append((f, ()))
            return None  # so the method falls back to np.sum
        calls.append((f, tuple(type(a).__name__ for a in args)))
        n = len(args)
        return f(*args, **kwargs), lambda out_bar: (NoTangent(),) + (ZeroTangent(),) * n

    spy_rrule.records = lambda: iter(())  # type: ignore[attr-defined]
    spy_rrule.resolve = lambda f, arg_types: None  # type: ignore[attr-defined]  # every call takes the general path
    spy_rrule.has_rules = lambda f: True  # type: ignore[attr-defined]
    monkeypatch.setattr(_tape._REVERSE, "rules", {})  # the rules the engine found in the registry
    monkeypatch.setattr(_tape, "rrule", spy_rrule)  # what the engine asks for a call's rule
    monkeypatch.setattr(tracker, "rrule", spy_rrule)  # what the pass asks for the function it runs
    return calls


def test_operators_route_to_the_registry(spy: list[tuple[Any, tuple[str, ...]]]) -> None:
    def f(x: Any, a: Any) -> Any:
        s = x + 1.0
        s = 2.0 - s
        s = s * x / x
        s = s**2
        s = -s
        s = abs(s)
        _ = s < 0.0
        v = a @ a
        v = a + v
        v = np.sin(v)
        v = np.sum(v)
        w = a.sum()
        first = a[0]
        return s + v + w + first + a.T[0, 0]

    ad.forward(f, 1.5, np.ones((2, 2)))
    primals = [p for p, _ in spy]
    assert primals[:8] == [
        operator.add,
        operator.sub,
        operator.mul,
        operator.truediv,
        operator.pow,
        operator.neg,
        abs,
        operator.lt,
    ]
    assert spy[1][1] == ("float", "float")  # 2.0 - s: reflected, in the order written
    assert primals[8:14] == [np.matmul, np.add, np.sin, np.sum, np.ndarray.sum, np.sum]
    assert primals[14] is np.ndarray.__getitem__
    assert np.transpose in primals


def test_numpy_scalars_route_to_numpy_first(spy: list[tuple[Any, tuple[str, ...]]]) -> None:
    ad.forward(lambda x, y: x * y, np.float64(2.0), 3.0)
    assert spy[0][0] is np.multiply


# ----- higher-order functions through RuleConfig -----


def test_reduce_through_rrule_via_ad() -> None:
    """functools.reduce's rule differentiates a step with no rule of its own by calling back into the tracker."""
    reduce = lift(functools.reduce)

    def step(acc: Any, x: Any) -> Any:
        return LOCAL.add(LOCAL.mul(0.5, acc), LOCAL.sin(x))

    def f(xs: Any) -> Any:
        return reduce(step, xs)

    xs = np.array([0.3, -0.7, 1.1, 0.4])
    check_program(f, (xs,))
    expected = np.array([0.125, 0.25 * np.cos(xs[1]), 0.5 * np.cos(xs[2]), np.cos(xs[3])])
    (g,) = ad.gradient(f, xs)
    np.testing.assert_allclose(g, expected)


def test_apply_along_axis_through_rrule_via_ad() -> None:
    """np.apply_along_axis reaches its config-aware rule through __array_function__."""

    def row_energy(v: Any) -> Any:
        return LOCAL.sum(LOCAL.square(LOCAL.sin(v)))

    def f(a: Any) -> Any:
        return LOCAL.sum(LOCAL.exp(np.apply_along_axis(row_energy, 1, a)))

    a = np.random.default_rng(7).standard_normal((3, 4))
    check_program(f, (a,))
    check_program(lambda a: np.apply_along_axis(row_energy, 0, a), (a,))


# ----- zero seeds -----


def test_a_pullback_never_sees_a_whole_zero_seed() -> None:
    """A node whose seed is a zero, even a thunk that turns out to be one, is skipped."""
    seeds: list[Any] = []

    def double(x: Any) -> Any:
        return 2 * x

    @rrule.register(double)
    def _rrule_double(f: Any, x: Any) -> Any:
        def double_pullback(out_bar: Any) -> Any:
            seeds.append(out_bar)
            return NoTangent(), 2 * unthunk(out_bar)

        return double(x), double_pullback

    def stop(y: Any) -> Any:
        return y

    @rrule.register(stop)
    def _rrule_stop(f: Any, y: Any) -> Any:
        return y, lambda out_bar: (NoTangent(), Thunk(lambda: ZeroTangent()))

    lifted_double, lifted_stop = lift(double), lift(stop)
    assert ad.gradient(lambda x: lifted_stop(lifted_double(x)), 1.5) == (ZeroTangent(),)
    y, back = ad.forward(lambda x: lifted_double(x), 1.5)
    assert back(ZeroTangent()) == (ZeroTangent(),)
    assert seeds == []
    assert ad.gradient(lambda x: lifted_double(x), 1.5) == (2.0,) and seeds == [1.0]


def test_an_object_array_of_numbers_is_refused_rather_than_losing_the_derivative() -> None:
    weights = np.array([1, 2], dtype=object)  # numbers numpy keeps as Python objects
    with pytest.raises(TypeError, match=r"reverse mode: np\.multiply returned an array of Python objects"):
        ad.gradient(lambda x: np.sum(x * weights), np.array([2.0, 3.0]))
    assert np.array_equal(ad.gradient(lambda x: np.sum(x * weights.astype(float)), np.array([2.0, 3.0]))[0], [1, 2])


def _half_known(v: Any, x: Any) -> Any:
    return v * np.sin(x)


@rrule.register(_half_known)
def _rrule_half_known(f: Any, v: Any, x: Any) -> Any:
    def half_known_pullback(out_bar: Any) -> tuple[Any, ...]:
        return NoTangent(), NotImplementedTangent("the derivative in v"), out_bar * v * np.cos(x)

    return _half_known(v, x), half_known_pullback


def test_rrule_via_ad_answers_a_not_implemented_cotangent_as_a_rule_does() -> None:
    # a rule of a higher-order function (or a second-order pass) asks for every argument's cotangent: the one not
    # implemented comes back as it is, the others as numbers
    y, pullback = ad.Tracker().rrule_via_ad(_half_known, 2.0, 0.5)
    _, v_bar, x_bar = pullback(1.0)
    assert isinstance(v_bar, NotImplementedTangent)
    assert x_bar == pytest.approx(2.0 * np.cos(0.5))
    # a gradient asked in v itself raises, naming the derivative
    with pytest.raises(NotImplementedTangentError, match="the derivative in v"):
        ad.gradient(_half_known, 2.0, 0.5)
