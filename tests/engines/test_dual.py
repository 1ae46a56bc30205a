"""The forward engine: every tangent from frule, jvp, jacobian, objects, errors."""

from __future__ import annotations

import functools
import operator
from typing import Any

import numpy as np
import pytest

import chainrules.engines as ad
from chainrules.engines import NoRuleError, dual, lift
from chainrules_core import NoTangent, RuleConfig, Tangent, ZeroTangent, frule
from tests.engines.programs import LOCAL, Layer, RuledLayer, check_program, polynomial


def test_jvp_of_a_constant_output_is_a_zero() -> None:
    y, y_dot = ad.jvp(lambda x, c: LOCAL.mul(c, 2.0), (1.0, 3.0), (1.0, ZeroTangent()))
    assert (y, y_dot) == (6.0, ZeroTangent())


def test_jvp_needs_one_tangent_per_primal() -> None:
    with pytest.raises(ValueError, match="2 tangents for 1 primals"):
        ad.jvp(polynomial, (1.0,), (1.0, 2.0))


def test_jvp_checks_tangent_shapes() -> None:
    with pytest.raises(ValueError, match=r"tangent of argument 1 has shape \(3,\)"):
        ad.jvp(polynomial, (np.ones(2),), (np.ones(3),))


def test_operation_without_rule_on_duals_raises() -> None:
    opaque = np.frompyfunc(lambda x: x, 1, 1)
    with pytest.raises(NoRuleError, match=r"forward mode: no frule for <lambda> \(vectorized\)\(float\)"):
        ad.jvp(lambda x: opaque(x), (1.0,), (1.0,))


def test_object_tangents() -> None:
    """An object's tangent is a Tangent of its class: with a rule it goes to the rule, without it to the fields."""
    rng = np.random.default_rng(0)
    w, b, x = rng.standard_normal((3, 3)), rng.standard_normal((3, 1)), rng.standard_normal((3, 2))
    t = Tangent(Layer, w=rng.standard_normal((3, 3)))
    _, traced = ad.jvp(lambda layer, x: layer(x), (Layer(w, b), x), (t, ZeroTangent()))
    _, ruled = ad.jvp(lambda layer, x: layer(x), (RuledLayer(w, b), x), (Tangent(RuledLayer, w=t.w), ZeroTangent()))
    np.testing.assert_allclose(traced, ruled, rtol=1e-12)
    np.testing.assert_allclose(traced, (1 - np.tanh(w @ x + b) ** 2) * (t.w @ x), rtol=1e-12)


def test_containers_in_and_out() -> None:
    primals = ([1.0, 2.0], {"c": 3.0})
    tangents = ([1.0, 0.0], Tangent(dict, {"c": 1.0}))

    def f(xs: Any, d: Any) -> Any:
        return (LOCAL.mul(xs[0], d["c"]), [LOCAL.mul(xs[1], xs[1]), 7.0])

    y, y_dot = ad.jvp(f, primals, tangents)
    assert y == (3.0, [4.0, 7.0])
    assert y_dot == Tangent(tuple, 4.0, [0.0, ZeroTangent()])


def test_jacobian_shapes_and_arguments() -> None:
    """An output of shape S and an argument of shape T give a Jacobian of shape S + T; ints get NoTangent()."""

    def f(a: Any, s: Any, n: int) -> Any:
        return LOCAL.mul(LOCAL.matmul(a, a), s)

    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    ja, js, jn = ad.jacobian(f, a, 0.5, 3)
    assert ja.shape == (2, 2, 2, 2) and js.shape == (2, 2) and jn == NoTangent()
    np.testing.assert_allclose(js, a @ a)
    np.testing.assert_allclose(ja[0, 1], 0.5 * np.array([[2.0, 5.0], [0.0, 2.0]]))  # d(a @ a)[0, 1] / da
    (jz,) = ad.jacobian(polynomial, 0.5 + 0.5j)
    assert jz == pytest.approx(9 * (0.5 + 0.5j) ** 2 - 4 * (0.5 + 0.5j) + 1)


def test_frule_via_ad_carries_the_function_tangent() -> None:
    """frule_via_ad pushes forward the tangent of a callable object's fields too."""
    w, b = np.eye(2), np.zeros((2, 1))
    x = np.ones((2, 1))
    y, y_dot = ad.DualNumbers().frule_via_ad((Tangent(Layer, b=np.ones((2, 1))), ZeroTangent()), Layer(w, b), x)
    np.testing.assert_allclose(y_dot, 1 - np.tanh(x) ** 2)
    with pytest.raises(ValueError, match="expected 2"):
        ad.DualNumbers().frule_via_ad((ZeroTangent(),), Layer(w, b), x)


def test_reduce_and_apply_along_axis_through_frule_via_ad() -> None:
    def step(acc: Any, x: Any) -> Any:
        return LOCAL.add(LOCAL.mul(0.5, acc), LOCAL.sin(x))

    check_program(lambda xs: lift(functools.reduce)(step, xs, 1.0), (np.array([0.3, -0.7, 1.1]),))
    rows = np.random.default_rng(1).standard_normal((2, 3))
    check_program(lambda a: np.apply_along_axis(lambda v: LOCAL.sum(LOCAL.exp(v)), 1, a), (rows,))


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Replace the forward engine's frule with one that records each primal and returns tangents of ones."""
    calls: list[Any] = []

    def spy_frule(config: RuleConfig, tangents: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(f, "__module__", None) == __name__:
            return None
        calls.append(f)
        y = f(*args, **kwargs)
        return y, np.ones_like(y)

    spy_frule.records = lambda: iter(())  # type: ignore[attr-defined]
    spy_frule.resolve = lambda f, arg_types: None  # type: ignore[attr-defined]  # every call takes the general path
    spy_frule.has_rules = lambda f: True  # type: ignore[attr-defined]
    monkeypatch.setattr(dual._FORWARD, "rules", {})  # the rules the engine found in the registry
    monkeypatch.setattr(dual, "frule", spy_frule)
    return calls


def test_operators_route_to_the_registry(spy: list[Any]) -> None:
    def f(x: Any, a: Any) -> Any:
        return (x * 2.0 - 1.0, np.tanh(a @ a)[0].sum())

    ad.jvp(f, (1.5, np.ones((2, 2))), (1.0, np.ones((2, 2))))
    assert spy[:2] == [operator.mul, operator.sub]
    assert spy[2:5] == [np.matmul, np.tanh, np.ndarray.__getitem__]
    assert spy[5] is np.ndarray.sum


def test_registered_frule_is_used_at_once() -> None:
    def h(x: Any) -> Any:
        return x

    with pytest.raises(NoRuleError):
        ad.jvp(lambda x: np.frompyfunc(h, 1, 1)(x), (1.0,), (1.0,))

    @frule.register(h)
    def _frule_h(tangents: Any, f: Any, x: Any) -> Any:
        return x, 5 * tangents[1]

    assert ad.jvp(h, (1.0,), (1.0,)) == (1.0, 5.0)


def test_an_frule_never_sees_tangents_that_are_all_zeros() -> None:
    """An operation whose tangents are all zeros gets a ``ZeroTangent()`` tangent without its frule."""
    calls: list[Any] = []

    def flat(x: Any) -> Any:
        return 0.0 * x

    @frule.register(flat)
    def _frule_flat(tangents: Any, f: Any, x: Any) -> Any:
        return flat(x), ZeroTangent()

    def double(x: Any) -> Any:
        return 2 * x

    @frule.register(double)
    def _frule_double(tangents: Any, f: Any, x: Any) -> Any:
        calls.append(tangents)
        return double(x), 2 * tangents[1]

    lifted_flat, lifted_double = lift(flat), lift(double)
    assert ad.jvp(lambda x: lifted_double(lifted_flat(x)), (1.5,), (1.0,)) == (0.0, ZeroTangent())
    assert calls == []
    assert ad.jvp(lambda x: lifted_double(x), (1.5,), (1.0,)) == (3.0, 2.0) and len(calls) == 1


def test_an_object_array_of_numbers_is_refused_rather_than_losing_the_tangent() -> None:
    weights = np.array([1, 2], dtype=object)  # numbers numpy keeps as Python objects
    with pytest.raises(TypeError, match=r"forward mode: np\.multiply\(.*\) returned an array of Python objects"):
        ad.jvp(lambda x: np.sum(x * weights), (np.array([2.0, 3.0]),), (np.ones(2),))
