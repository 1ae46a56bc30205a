"""The frule/rrule registries: keys, dispatch, self tangents, configs, opt-outs and errors."""

from __future__ import annotations

import functools
import math
import numbers
import types

import numpy as np
import pytest

from chainrules_core import (
    HasForwardMode,
    HasReverseMode,
    NoTangent,
    RuleConfig,
    Tangent,
    ZeroTangent,
    frule,
    rrule,
)


class Multiplier:
    """The seed example: a callable object with a field."""

    def __init__(self, x: float) -> None:
        self.x = x

    def __call__(self, y: float) -> float:
        return self.x * y


@rrule.register(Multiplier)
def _rrule_multiplier(m: Multiplier, y: float) -> object:
    def multiplier_pullback(product_bar: float) -> tuple[object, object]:
        self_bar = Tangent(Multiplier, x=product_bar * np.conj(y))
        return self_bar, np.conj(m.x) * product_bar

    return m(y), multiplier_pullback


@frule.register(Multiplier)
def _frule_multiplier(tangents: tuple[object, ...], m: Multiplier, y: float) -> object:
    m_dot, y_dot = tangents
    return m(y), m_dot.x * y + m.x * y_dot  # type: ignore[attr-defined, operator]


def fused(a: float, b: float, c: float) -> float:
    return a * b + math.sin(c)


@rrule.register(fused)
def _rrule_fused(f: object, a: float, b: float, c: float) -> object:
    def fused_pullback(y_bar: float) -> tuple[object, ...]:
        return NoTangent(), b * y_bar, a * y_bar, math.cos(c) * y_bar

    return fused(a, b, c), fused_pullback


@frule.register(fused)
def _frule_fused(tangents: tuple[object, ...], f: object, a: float, b: float, c: float) -> object:
    _, a_dot, b_dot, c_dot = tangents
    return fused(a, b, c), b * a_dot + a * b_dot + math.cos(c) * c_dot  # type: ignore[operator]


class TestSeedExamples:
    def test_multiplier_rrule_returns_its_self_tangent(self) -> None:
        y, pullback = rrule(Multiplier(2.0), 3.0)
        m_bar, y_bar = pullback(1.0)
        assert y == 6.0 and m_bar == Tangent(Multiplier, x=3.0) and y_bar == 2.0

    def test_multiplier_frule(self) -> None:
        assert frule((Tangent(Multiplier, x=1.0), 0.5), Multiplier(2.0), 3.0) == (6.0, 4.0)

    def test_subclass_instances_use_the_class_rule(self) -> None:
        class Scaled(Multiplier):
            pass

        assert rrule(Scaled(2.0), 3.0)[1](1.0)[0] == Tangent(Multiplier, x=3.0)

    def test_directional_derivative(self) -> None:
        a, b, c = 2.0, 3.0, 0.5
        y, y_dot = frule((ZeroTangent(), 1.5, 0.4, -1.0), fused, a, b, c)
        assert y == fused(a, b, c)
        assert y_dot == pytest.approx(1.5 * b + 0.4 * a - math.cos(c))

    def test_partial_derivatives_from_basis_directions(self) -> None:
        grads = [frule((ZeroTangent(), *e), fused, 2.0, 3.0, 0.5)[1] for e in np.eye(3)]
        _, pullback = rrule(fused, 2.0, 3.0, 0.5)
        self_bar, *grad = pullback(1.0)
        assert self_bar is NoTangent() and grad == pytest.approx(grads)


class TestKeysAndDispatch:
    def test_no_rule_returns_none(self) -> None:
        assert rrule(lambda x: x, 1.0) is None
        assert frule((NoTangent(), 1.0), lambda x: x, 1.0) is None

    def test_rule_receives_f_as_passed(self) -> None:
        seen = []

        def g(x: float) -> float:
            return x

        @rrule.register(g)
        def _(f: object, x: float) -> object:
            seen.append(f)
            return x, lambda y_bar: (NoTangent(), y_bar)

        rrule(g, 1.0)
        assert seen == [g]

    def test_argument_types_dispatch_with_untyped_fallback(self) -> None:
        def h(x: object, y: object) -> None:
            return None

        @rrule.register(h, np.ndarray, numbers.Real)
        def _array_real(f: object, x: object, y: object) -> str:
            return "array, real"

        @rrule.register(h, numbers.Real, numbers.Real)
        def _real_real(f: object, x: object, y: object) -> str:
            return "real, real"

        @rrule.register(h)
        def _any(f: object, *args: object) -> str:
            return "any"

        assert rrule(h, np.ones(2), 2.0) == "array, real"
        assert rrule(h, np.ones(2), np.float32(2.0)) == "array, real"
        assert rrule(h, 1.0, 2) == "real, real"
        assert rrule(h, "a", 2) == "any"
        assert rrule(h, 1.0) == "any"

    def test_frule_dispatches_on_argument_types(self) -> None:
        def h(x: object) -> object:
            return x

        @frule.register(h, np.ndarray)
        def _array(tangents: object, f: object, x: object) -> str:
            return "array"

        assert frule((NoTangent(), np.ones(2)), h, np.ones(2)) == "array"
        assert frule((NoTangent(), 1.0), h, 1.0) is None

    def test_later_registration_replaces_and_invalidates_the_cache(self) -> None:
        def k(x: float) -> float:
            return x

        rrule.register(k, float)(lambda f, x: "first")
        assert rrule(k, 1.0) == "first"
        rrule.register(k, float)(lambda f, x: "second")
        assert rrule(k, 1.0) == "second"
        assert sum(1 for r in rrule.records() if r.primal is k) == 1

    def test_constructor_is_keyed_by_type_of_class(self) -> None:
        class Box:
            def __init__(self, v: float) -> None:
                self.v = v

            def __call__(self) -> float:
                return self.v

        @rrule.register(type[Box])
        def _(f: type, v: float) -> object:
            return Box(v), lambda box_bar: (NoTangent(), box_bar.v)

        box, pullback = rrule(Box, 2.0)
        assert box.v == 2.0 and pullback(Tangent(Box, v=3.0)) == (NoTangent(), 3.0)
        assert rrule(box) is None  # instances are not constructors

    def test_ufuncs_and_builtins_by_identity(self) -> None:
        # ufuncs of this test's own: numpy's have rules once chainrules is imported
        halve = np.frompyfunc(lambda x: x / 2, 1, 1)
        third = np.frompyfunc(lambda x: x / 3, 1, 1)

        @rrule.register(halve)
        def _(f: object, x: float) -> str:
            return "halve"

        assert rrule(halve, 1.0) == "halve"
        assert rrule(third, 1.0) is None

    def test_keyword_arguments_reach_the_rule(self) -> None:
        def kw(x: float, *, scale: float = 1.0) -> float:
            return scale * x

        @rrule.register(kw)
        def _(f: object, x: float, scale: float = 1.0) -> object:
            return f(x, scale=scale), lambda y_bar: (NoTangent(), scale * y_bar)

        assert rrule(kw, 2.0, scale=3.0)[1](1.0) == (NoTangent(), 3.0)
        with pytest.raises(ValueError, match="tangents"):
            frule((NoTangent(),), kw, 2.0, scale=3.0)

    def test_keywords_named_like_the_entry_points_parameters_reach_the_rule(self) -> None:
        """``f``, ``x`` and ``tangents`` are positional-only in ``rrule``/``frule``: such keywords are the primal's."""

        def weighted(v: float, *, x: float = 1.0, f: float = 1.0, tangents: float = 1.0) -> float:
            return v * x * f * tangents

        @rrule.register(weighted)
        def _(fn: object, v: float, **kwargs: float) -> object:
            return weighted(v, **kwargs), lambda y_bar: (NoTangent(), sorted(kwargs))

        @frule.register(weighted)
        def _frule(dots: tuple[object, ...], fn: object, v: float, **kwargs: float) -> object:
            return weighted(v, **kwargs), sorted(kwargs)

        y, pullback = rrule(weighted, 2.0, x=3.0, f=5.0)
        assert y == 30.0 and pullback(1.0) == (NoTangent(), ["f", "x"])
        assert frule((NoTangent(), 1.0), weighted, 2.0, x=3.0, tangents=7.0) == (42.0, ["tangents", "x"])
        assert rrule(weighted, 2.0)[1](1.0) == (NoTangent(), [])


class Model:
    def __init__(self, w: float) -> None:
        self.w = w

    def predict(self, x: float) -> float:
        return self.w * x


@rrule.register(Model.predict)
def _rrule_predict(f: object, model: Model, x: float) -> object:
    def predict_pullback(y_bar: float) -> tuple[object, ...]:
        return NoTangent(), Tangent(Model, w=x * y_bar), model.w * y_bar

    return model.predict(x), predict_pullback


@frule.register(Model.predict)
def _frule_predict(tangents: tuple[object, ...], f: object, model: Model, x: float) -> object:
    _, model_dot, x_dot = tangents
    w_dot = getattr(model_dot, "w", 0.0)
    return model.predict(x), w_dot * x + model.w * x_dot  # type: ignore[operator]


class TestCallablesWithFields:
    def test_bound_method_gets_a_method_tangent(self) -> None:
        model = Model(2.0)
        y, pullback = rrule(model.predict, 3.0)
        method_bar, x_bar = pullback(1.0)
        assert y == 6.0 and x_bar == 2.0
        assert method_bar == Tangent(types.MethodType, __self__=Tangent(Model, w=3.0))

    def test_bound_method_frule_reads_the_self_tangent(self) -> None:
        model = Model(2.0)
        method_dot = Tangent(types.MethodType, __self__=Tangent(Model, w=1.0))
        assert frule((method_dot, 0.0), model.predict, 3.0) == (6.0, 3.0)
        assert frule((ZeroTangent(), 1.0), model.predict, 3.0) == (6.0, 2.0)

    def test_builtin_bound_method_uses_the_unbound_rule(self) -> None:
        @rrule.register(float.__mul__)
        def _(f: object, x: float, y: float) -> object:
            def mul_pullback(out_bar: float) -> tuple[object, ...]:
                return NoTangent(), y * out_bar, x * out_bar

            return x * y, mul_pullback

        out, pullback = rrule((2.0).__mul__, 3.0)
        method_bar, y_bar = pullback(1.0)
        assert out == 6.0 and y_bar == 2.0
        assert method_bar == Tangent(types.MethodWrapperType, __self__=3.0)

    def test_partial_gets_a_partial_tangent(self) -> None:
        p = functools.partial(fused, 2.0, 3.0)
        y, pullback = rrule(p, 0.0)
        p_bar, c_bar = pullback(1.0)
        assert y == 6.0 and c_bar == 1.0
        assert p_bar == Tangent(functools.partial, args=Tangent(tuple, 3.0, 2.0))

    def test_partial_frule_and_keywords(self) -> None:
        p_dot = Tangent(functools.partial, args=Tangent(tuple, 1.0, ZeroTangent()))
        assert frule((p_dot, 0.0), functools.partial(fused, 2.0, 3.0), 0.0) == (6.0, 3.0)

    def test_partial_with_bound_keywords(self) -> None:
        def scaled(x: float, *, scale: float = 1.0) -> float:
            return scale * x

        @rrule.register(scaled)
        def _(f: object, x: float, scale: float = 1.0) -> object:
            return f(x, scale=scale), lambda y_bar: (NoTangent(), scale * y_bar)

        # keywords never get tangents, so nothing about the partial is differentiable here
        y, pullback = rrule(functools.partial(scaled, scale=3.0), 2.0)
        assert y == 6.0 and pullback(1.0) == (NoTangent(), 3.0)

    def test_nested_partial_of_a_bound_method(self) -> None:
        model = Model(2.0)
        y, pullback = rrule(functools.partial(model.predict), 3.0)
        p_bar, x_bar = pullback(1.0)
        assert x_bar == 2.0
        assert p_bar.func == Tangent(types.MethodType, __self__=Tangent(Model, w=3.0))

    def test_method_of_an_object_without_differentiable_fields(self) -> None:
        class Counter:
            def bump(self, x: float) -> float:
                return x + 1

        @rrule.register(Counter.bump)
        def _(f: object, self: Counter, x: float) -> object:
            return self.bump(x), lambda y_bar: (NoTangent(), NoTangent(), y_bar)

        assert rrule(Counter().bump, 1.0)[1](1.0) == (NoTangent(), 1.0)


class Tracer(RuleConfig, HasReverseMode):
    def rrule_via_ad(self, f: object, *args: object, **kwargs: object) -> tuple[object, object]:
        return rrule(f, *args, **kwargs)  # type: ignore[no-any-return]


class ForwardOnly(RuleConfig, HasForwardMode):
    pass


def apply_twice(g: object, x: float) -> float:
    return g(g(x))  # type: ignore[operator, no-any-return]


@rrule.register(apply_twice, config=True, requires=(HasReverseMode,))
def _rrule_apply_twice(config: RuleConfig, f: object, g: object, x: float) -> object:
    y1, back1 = config.rrule_via_ad(g, x)
    y2, back2 = config.rrule_via_ad(g, y1)

    def apply_twice_pullback(y_bar: float) -> tuple[object, ...]:
        g_bar2, y1_bar = back2(y_bar)
        g_bar1, x_bar = back1(y1_bar)
        return NoTangent(), g_bar1 + g_bar2, x_bar

    return y2, apply_twice_pullback


@rrule.register(apply_twice)
def _rrule_apply_twice_plain(f: object, g: object, x: float) -> str:
    return "plain"


class TestConfig:
    def test_config_rule_calls_back_into_the_engine(self) -> None:
        y, pullback = rrule(Tracer(), apply_twice, Multiplier(3.0), 2.0)
        f_bar, g_bar, x_bar = pullback(1.0)
        assert y == 18.0 and x_bar == 9.0
        assert g_bar == Tangent(Multiplier, x=2.0 * 3.0 + 6.0)

    def test_plain_call_gets_the_plain_rule(self) -> None:
        assert rrule(apply_twice, Multiplier(3.0), 2.0) == "plain"

    def test_config_without_the_capability_falls_back_to_the_plain_rule(self) -> None:
        assert rrule(ForwardOnly(), apply_twice, Multiplier(3.0), 2.0) == "plain"

    def test_plain_rule_answers_a_call_with_config(self) -> None:
        y, pullback = rrule(Tracer(), Multiplier(2.0), 3.0)
        assert y == 6.0

    def test_frule_with_config(self) -> None:
        assert frule(ForwardOnly(), (Tangent(Multiplier, x=1.0), 0.0), Multiplier(2.0), 3.0) == (6.0, 3.0)

    def test_config_rule_returning_none_falls_through(self) -> None:
        def q(x: float) -> float:
            return x

        rrule.register(q, config=True)(lambda config, f, x: None)
        rrule.register(q)(lambda f, x: "plain")
        assert rrule(Tracer(), q, 1.0) == "plain"

    def test_a_call_with_a_config_follows_registrations(self) -> None:
        """Until a config-aware rule is registered, a call with a config takes the plain rule; then the new one."""

        def r(x: float) -> float:
            return x

        rrule.register(r)(lambda f, x: "plain")
        frule.register(r)(lambda t, f, x: "plain")
        assert rrule(Tracer(), r, 1.0) == "plain" and frule(Tracer(), (NoTangent(), 1.0), r, 1.0) == "plain"
        rrule.register(r, config=True)(lambda config, f, x: "config")
        frule.register(r, config=True)(lambda config, t, f, x: "config")
        assert rrule(Tracer(), r, 1.0) == "config" and frule(Tracer(), (NoTangent(), 1.0), r, 1.0) == "config"
        assert rrule(r, 1.0) == "plain" and frule((NoTangent(), 1.0), r, 1.0) == "plain"

    def test_a_call_with_a_config_dispatches_on_types_and_classes(self) -> None:
        def typed(x: object) -> object:
            return x

        rrule.register(typed, float)(lambda f, x: "float")
        rrule.register(typed, str)(lambda f, x: "str")
        assert rrule(Tracer(), typed, 1.0) == "float" and rrule(Tracer(), typed, "a") == "str"
        assert rrule(Tracer(), typed, 1) is None
        assert rrule(Tracer(), Multiplier(2.0), 3.0)[0] == 6.0  # type: ignore[index]

        class Configured(Multiplier):
            pass

        rrule.register(Configured, config=True, requires=(HasReverseMode,))(lambda config, m, y: "config")
        rrule.register(Configured)(lambda m, y: "plain")
        assert rrule(Tracer(), Configured(2.0), 3.0) == "config"
        assert rrule(ForwardOnly(), Configured(2.0), 3.0) == "plain"
        assert rrule(Configured(2.0), 3.0) == "plain"

    def test_base_config_refuses_via_ad(self) -> None:
        with pytest.raises(NotImplementedError, match="reverse mode"):
            RuleConfig().rrule_via_ad(math.sin, 1.0)
        with pytest.raises(NotImplementedError, match="forward mode"):
            RuleConfig().frule_via_ad((NoTangent(), 1.0), math.sin, 1.0)


class TestOptOut:
    def test_opt_out_returns_none_for_that_signature_only(self) -> None:
        def s(x: object) -> object:
            return x

        rrule.register(s)(lambda f, x: "rule")
        rrule.opt_out(s, np.float32)
        assert rrule(s, 1.0) == "rule"
        assert rrule(s, np.float32(1.0)) is None
        assert rrule(Tracer(), s, np.float32(1.0)) is None

    def test_opt_out_needs_types(self) -> None:
        with pytest.raises(TypeError, match="argument types"):
            rrule.opt_out(math.sin)


class TestErrors:
    def test_non_callable_primal(self) -> None:
        with pytest.raises(TypeError, match="must be callable, got 3"):
            rrule(3, 1.0)
        with pytest.raises(TypeError, match="must be callable"):
            frule((NoTangent(), 1.0), "sin", 1.0)

    def test_wrong_number_of_tangents_names_the_function(self) -> None:
        with pytest.raises(ValueError, match=r"frule for .*fused: got 3 tangents for 3 arguments; expected 4"):
            frule((NoTangent(), 1.0, 1.0), fused, 1.0, 2.0, 3.0)

    def test_two_tangents_without_an_argument_are_refused(self) -> None:
        with pytest.raises(ValueError, match=r"frule for .*fused: got 2 tangents for 0 arguments; expected 1"):
            frule((NoTangent(), 1.0), fused)

    def test_tangents_must_be_a_tuple(self) -> None:
        with pytest.raises(TypeError, match="tangents must be a tuple"):
            frule(1.0, fused, 1.0, 2.0, 3.0)

    def test_missing_primal(self) -> None:
        with pytest.raises(TypeError, match="primal f is missing"):
            frule((NoTangent(),))
        with pytest.raises(TypeError, match="primal f is missing"):
            rrule(Tracer())

    def test_registering_a_non_callable(self) -> None:
        with pytest.raises(TypeError, match="rule must be callable"):
            rrule.register(math.sin)(3)  # type: ignore[arg-type]

    def test_a_primal_that_is_not_callable_is_refused_at_registration(self) -> None:
        with pytest.raises(TypeError, match=r"rrule.register\('sin'\): the primal must be a function, a class"):
            rrule.register("sin")

    def test_a_bound_method_is_refused_with_what_to_register(self) -> None:
        model = Model(1.0)
        with pytest.raises(TypeError, match=r"new object at each attribute access.*register the function .*predict"):
            rrule.register(model.predict)
        with pytest.raises(TypeError, match=r"register the function np.ndarray.sum .*or the class ndarray"):
            frule.register(np.ones(2).sum)
        assert not [r for r in rrule.records() if isinstance(r.primal, types.MethodType)]

    def test_argument_types_must_be_classes(self) -> None:
        with pytest.raises(TypeError, match=r"argument type 2 is 'float', not a class"):
            rrule.register(math.sin, float, "float")
        with pytest.raises(TypeError, match=r"argument type 1 is \(<class 'float'>, 3\)"):
            rrule.register(math.sin, (float, 3))
        with pytest.raises(TypeError, match=r"argument type 1 is 2.0"):
            rrule.opt_out(math.sin, 2.0)

    def test_requires_holds_capability_classes_of_config_aware_rules(self) -> None:
        with pytest.raises(TypeError, match=r"requires= takes a tuple of capability classes"):
            rrule.register(math.sin, config=True, requires=HasReverseMode)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"requires= holds .* \(a HasReverseMode\), not a class"):
            rrule.register(math.sin, config=True, requires=(HasReverseMode(),))  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"requires= applies to config-aware rules; pass config=True"):
            rrule.register(math.sin, requires=(HasReverseMode,))

    def test_the_last_registration_of_a_signature_wins(self) -> None:
        def k(x: float) -> float:
            return x

        for config in (False, True):
            for answer in ("first", "second"):
                rrule.register(k, float, config=config, requires=(HasReverseMode,) if config else ())(
                    lambda *args, answer=answer: answer
                )
        assert rrule(k, 1.0) == "second" and rrule(Tracer(), k, 1.0) == "second"
        assert [r.config for r in rrule.records() if r.primal is k] == [False, True]

    def test_records_list_registrations(self) -> None:
        records = [r for r in rrule.records() if r.primal is apply_twice]
        assert {(r.config, r.requires) for r in records} == {(True, (HasReverseMode,)), (False, ())}


class TestFind:
    def test_find_resolves_without_calling(self) -> None:
        assert rrule.find(fused, 1.0, 2.0, 3.0) is _rrule_fused
        assert frule.find(Multiplier(2.0), 3.0) is _frule_multiplier
        assert rrule.find(Model(1.0).predict, 2.0) is _rrule_predict
        assert rrule.find(functools.partial(fused, 1.0), 2.0, 3.0) is _rrule_fused
        assert rrule.find(lambda x: x, 1.0) is None

    def test_find_respects_opt_out(self) -> None:
        def t(x: object) -> object:
            return x

        rrule.register(t)(lambda f, x: "rule")
        rrule.opt_out(t, int)
        assert rrule.find(t, 1.0) is not None and rrule.find(t, 1) is None


def test_typed_frule_rules_dispatch_on_the_arguments() -> None:
    def typed_twice(x: object) -> object:
        return 2 * x  # type: ignore[operator]

    @frule.register(typed_twice, float)
    def _float(tangents: tuple[object, ...], f: object, x: float) -> object:
        return f(x), 2 * tangents[1]  # type: ignore[operator]

    @frule.register(typed_twice, np.ndarray)
    def _array(tangents: tuple[object, ...], f: object, x: np.ndarray) -> object:
        return f(x), 2 * tangents[1]  # type: ignore[operator]

    assert frule((NoTangent(), 1.0), typed_twice, 3.0) == (6.0, 2.0)
    assert frule((NoTangent(), np.ones(2)), typed_twice, np.ones(2))[1].tolist() == [2.0, 2.0]
    assert frule((NoTangent(), 1), typed_twice, 3) is None
