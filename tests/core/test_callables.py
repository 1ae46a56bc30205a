"""Bound methods and partials seen through: the function behind them, leading arguments, keywords, fields."""

from __future__ import annotations

import functools
import operator
import types

from chainrules_core import NoTangent, Tangent, ZeroTangent
from chainrules_core._callables import unwrap


class Model:
    def __init__(self, w: float) -> None:
        self.w = w

    def predict(self, x: float) -> float:
        return self.w * x

    @classmethod
    def make(cls) -> Model:
        return cls(1.0)


def test_a_bound_method_is_its_class_function_with_the_object_first() -> None:
    model = Model(2.0)
    func, leading, keywords, fields = unwrap(model.predict, {"k": 1})  # type: ignore[misc]
    assert func is Model.predict and leading == (model,) and keywords == {"k": 1}
    assert fields.cotangent(NoTangent(), [Tangent(Model, w=3.0)]) == Tangent(
        types.MethodType, __self__=Tangent(Model, w=3.0)
    )
    assert fields.cotangent(NoTangent(), [ZeroTangent()]) == ZeroTangent()
    assert fields.tangents(Tangent(types.MethodType, __self__=1.0), 1) == (ZeroTangent(), 1.0)


def test_a_builtin_method_is_its_type_function() -> None:
    func, leading, _, fields = unwrap((2.0).__mul__, {})  # type: ignore[misc]
    assert func is float.__mul__ and leading == (2.0,)
    assert fields.cotangent(NoTangent(), [3.0]) == Tangent(types.MethodWrapperType, __self__=3.0)
    assert fields.tangents(Tangent(types.MethodWrapperType, __self__=1.0), 1) == (NoTangent(), 1.0)
    assert fields.tangents(ZeroTangent(), 1) == (ZeroTangent(), ZeroTangent())


def test_a_partial_leads_with_its_arguments_and_merges_keywords() -> None:
    p = functools.partial(operator.mul, 2.0)
    func, leading, keywords, fields = unwrap(p, {})  # type: ignore[misc]
    assert func is operator.mul and leading == (2.0,) and keywords == {}
    assert fields.tangents(ZeroTangent(), 1) == (ZeroTangent(), ZeroTangent())
    assert fields.tangents(Tangent(functools.partial, args=Tangent(tuple, 1.0)), 1) == (ZeroTangent(), 1.0)
    _, _, keywords, _ = unwrap(functools.partial(sorted, key=abs), {"reverse": True})  # type: ignore[misc]
    assert keywords == {"key": abs, "reverse": True}


def test_a_class_method_leads_with_its_class() -> None:
    func, leading, _, _ = unwrap(Model.make, {})  # type: ignore[misc]
    assert func is Model.__dict__["make"].__func__ and leading == (Model,)


def test_functions_and_builtins_are_not_unwrapped() -> None:
    assert unwrap(len, {}) is None
    assert unwrap(Model.predict, {}) is None
    assert unwrap(dict.fromkeys, {}) is None
    assert unwrap(operator.mul, {}) is None
