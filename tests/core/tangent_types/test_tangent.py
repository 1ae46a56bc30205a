"""Tangent: construction, field access, equality, canonicalize and primal reconstruction."""

from __future__ import annotations

import collections
import copy
import functools
import pickle
import types
from dataclasses import dataclass, field

import numpy as np
import pytest

from chainrules_core import (
    NoTangent,
    Tangent,
    Thunk,
    ZeroTangent,
    backing,
    canonicalize,
    construct,
    field_names,
    primal_type,
)
from chainrules_core.tangent_types import declared_fields

Z = ZeroTangent()
Pair = collections.namedtuple("Pair", "a b")


@dataclass
class Point:
    x: float
    y: float


@dataclass(frozen=True)
class Frozen:
    w: np.ndarray
    scale: float = 1.0
    cache: dict = field(default_factory=dict, init=False, compare=False)


class Plain:
    def __init__(self, w: float, b: float) -> None:
        self.w, self.b = w, b


class Slotted:
    __slots__ = ("u", "v")

    def __init__(self, u: float, v: float) -> None:
        self.u, self.v = u, v


class TestConstruction:
    def test_named_fields(self) -> None:
        t = Tangent(Point, x=1.0)
        assert t.x == 1.0 and t.y is Z and primal_type(t) is Point and backing(t) == {"x": 1.0}

    def test_tuple_elements(self) -> None:
        t = Tangent(tuple, 1.0, 2.0)
        assert t[0] == 1.0 and t[1] == 2.0 and len(t) == 2 and list(t) == [1.0, 2.0] and t[:1] == (1.0,)

    def test_dict_entries(self) -> None:
        t = Tangent(dict, {"a": 1.0})
        assert t["a"] == 1.0 and t["missing"] is Z and list(t) == ["a"]

    def test_namedtuple_positional_or_named(self) -> None:
        assert Tangent(Pair, 1.0, 2.0) == Tangent(Pair, a=1.0, b=2.0)
        assert list(Tangent(Pair, b=2.0)) == [Z, 2.0]
        assert Tangent(Pair, b=2.0)[1] == 2.0

    def test_unknown_field_is_rejected_when_fields_are_known(self) -> None:
        with pytest.raises(TypeError, match=r"'z' is not a field of Point \(fields: x, y\)"):
            Tangent(Point, z=1.0)
        with pytest.raises(TypeError, match="not a field of Slotted"):
            Tangent(Slotted, w=1.0)
        with pytest.raises(AttributeError, match="no field 'z'"):
            Tangent(Point, x=1.0).z

    def test_plain_objects_accept_any_field(self) -> None:
        t = Tangent(Plain, w=1.0)
        assert t.w == 1.0 and t.b is Z

    def test_misuse(self) -> None:
        with pytest.raises(TypeError, match="primal type"):
            Tangent(Point(1, 2), x=1.0)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="given by name"):
            Tangent(Point, 1.0, 2.0)
        with pytest.raises(TypeError, match="not both"):
            Tangent(tuple, 1.0, x=2.0)
        with pytest.raises(TypeError, match="3 elements for the 2 fields"):
            Tangent(Pair, 1.0, 2.0, 3.0)

    def test_immutable(self) -> None:
        with pytest.raises(AttributeError, match="immutable"):
            Tangent(Point, x=1.0).x = 2.0  # type: ignore[misc]

    def test_reading_a_field_forces_its_thunk_but_backing_does_not(self) -> None:
        t = Tangent(Point, x=Thunk(lambda: 3.0))
        assert isinstance(backing(t)["x"], Thunk)
        assert t.x == 3.0

    def test_dunder_lookups_do_not_become_fields(self) -> None:
        t = Tangent(Plain, w=1.0)
        assert not hasattr(t, "__array_interface__")
        assert copy.deepcopy(t) == t and copy.copy(t) == t

    def test_pickles(self) -> None:
        t = Tangent(Point, x=np.arange(3.0))
        assert pickle.loads(pickle.dumps(t)) == t

    def test_repr(self) -> None:
        assert repr(Tangent(Point, x=1.0)) == "Tangent(Point, x=1.0)"
        assert repr(Tangent(tuple, 1.0, Z)) == "Tangent(tuple, 1.0, ZeroTangent())"
        assert repr(Tangent(dict, {"a": 1})) == "Tangent(dict, {'a': 1})"

    def test_iteration_follows_the_primal(self) -> None:
        with pytest.raises(TypeError, match="not iterable"):
            iter(Tangent(Point, x=1.0))


class TestEquality:
    def test_equal_modulo_zeros(self) -> None:
        assert Tangent(Point, x=1.0) == Tangent(Point, x=1.0, y=Z)
        assert Tangent(Point, x=1.0) == Tangent(Point, x=1.0, y=NoTangent())
        assert Tangent(dict, {"a": 1.0}) == Tangent(dict, {"a": 1.0, "b": Z})

    def test_unequal(self) -> None:
        assert Tangent(Point, x=1.0) != Tangent(Point, x=2.0)
        assert Tangent(Point, x=1.0) != Tangent(Plain, x=1.0)
        assert Tangent(tuple, 1.0) != Tangent(tuple, 1.0, 2.0)
        assert Tangent(Point, x=0.0) != Tangent(Point)  # a numeric zero is not a zero tangent

    def test_arrays_compare_by_value(self) -> None:
        assert Tangent(Point, x=np.arange(3.0)) == Tangent(Point, x=np.arange(3.0))
        assert Tangent(Point, x=np.arange(3.0)) != Tangent(Point, x=np.arange(3.0) + 1)

    def test_hash_agrees_with_equality(self) -> None:
        assert hash(Tangent(Point, x=1.0)) == hash(Tangent(Point, x=1.0, y=Z))


class TestCanonicalize:
    def test_fills_every_field(self) -> None:
        assert backing(canonicalize(Tangent(Point, y=1.0))) == {"x": Z, "y": 1.0}
        assert backing(canonicalize(Tangent(Slotted, v=1.0))) == {"u": Z, "v": 1.0}

    def test_leaves_tuples_dicts_and_unknown_types(self) -> None:
        for t in (Tangent(tuple, 1.0), Tangent(dict, {"a": 1.0}), Tangent(Plain, w=1.0)):
            assert canonicalize(t) is t


class TestPrimalPlusTangent:
    def test_dataclass(self) -> None:
        assert Point(1.0, 2.0) + Tangent(Point, x=1.0, y=1.0) == Point(2.0, 3.0)

    def test_frozen_dataclass_with_non_init_field(self) -> None:
        moved = Frozen(np.ones(2)) + Tangent(Frozen, w=np.ones(2), scale=0.5)
        assert np.array_equal(moved.w, [2.0, 2.0]) and moved.scale == 1.5

    def test_namedtuple(self) -> None:
        assert Pair(1.0, 2.0) + Tangent(Pair, 1.0, Z) == Pair(2.0, 2.0)

    def test_tuple_and_list(self) -> None:
        assert (1.0, 2.0) + Tangent(tuple, 1.0, 1.0) == (2.0, 3.0)
        assert [1.0, 2.0] + Tangent(list, 1.0, 1.0) == [2.0, 3.0]

    def test_dict(self) -> None:
        primal = {"a": 1.0, "b": 2.0}
        assert primal + Tangent(dict, {"a": 1.0}) == {"a": 2.0, "b": 2.0}
        assert primal == {"a": 1.0, "b": 2.0}

    def test_plain_object_and_slots(self) -> None:
        moved = Plain(1.0, 2.0) + Tangent(Plain, b=1.0)
        assert (moved.w, moved.b) == (1.0, 3.0)
        slotted = Slotted(1.0, 2.0) + Tangent(Slotted, u=1.0)
        assert (slotted.u, slotted.v) == (2.0, 2.0)

    def test_original_is_not_modified(self) -> None:
        p = Plain(1.0, 2.0)
        p + Tangent(Plain, w=5.0)
        assert p.w == 1.0

    def test_nested(self) -> None:
        @dataclass
        class Layer:
            p: Point
            bias: float

        moved = Layer(Point(0.0, 0.0), 1.0) + Tangent(Layer, p=Tangent(Point, y=2.0))
        assert moved == Layer(Point(0.0, 2.0), 1.0)

    def test_bound_method_and_partial(self) -> None:
        p = Plain(1.0, 2.0)

        def scale(self: Plain, x: float) -> float:
            return self.w * x

        method = types.MethodType(scale, p)
        moved = method + Tangent(types.MethodType, __self__=Tangent(Plain, w=1.0))
        assert moved(3.0) == 6.0
        part = functools.partial(np.multiply, 2.0)
        assert (part + Tangent(functools.partial, args=Tangent(tuple, 1.0)))(2.0) == 6.0

    def test_wrong_length_tuple(self) -> None:
        with pytest.raises(ValueError, match="2 elements to one of 3"):
            (1.0, 2.0, 3.0) + Tangent(tuple, 1.0, 1.0)

    def test_failed_construction_names_the_type(self) -> None:
        class NoCopy:
            def __init__(self) -> None:
                self.w = 1.0

            def __copy__(self) -> None:
                raise TypeError("cannot copy")

        with pytest.raises(TypeError, match="could not build a NoCopy with new values for the fields"):
            NoCopy() + Tangent(NoCopy, w=1.0)


class Spread:
    """Values and their mean, computed from them when built: the mean is no field of its own."""

    __chainrules_fields__ = ("values", "name")

    def __init__(self, values: np.ndarray, name: str = "spread") -> None:
        if np.any(np.isnan(values)):
            raise ValueError("a NaN value")
        self.values, self.name = values, name
        self.mean = float(np.mean(values))


class TestDeclaredFields:
    def test_the_declared_fields_are_the_fields(self) -> None:
        assert declared_fields(Spread) == field_names(Spread) == ("values", "name")
        assert declared_fields(Plain) is None and declared_fields(Point) is None
        assert Tangent(Spread, values=np.ones(2)).name == Z
        with pytest.raises(TypeError, match=r"'mean' is not a field of Spread \(fields: values, name\)"):
            Tangent(Spread, mean=1.0)

    def test_an_instance_is_built_again_from_them(self) -> None:
        spread = Spread(np.array([1.0, 3.0]), name="s")
        moved = spread + Tangent(Spread, values=np.array([2.0, 4.0]))
        assert type(moved) is Spread and moved.mean == 5.0 and moved.name == "s" and spread.mean == 2.0
        assert construct(spread, {"values": np.zeros(2)}).mean == 0.0

    def test_what_init_raises_is_raised_as_it_is(self) -> None:
        with pytest.raises(ValueError, match="a NaN value"):
            construct(Spread(np.ones(2)), {"values": np.array([np.nan, 1.0])})

    def test_a_computed_field_or_a_missing_attribute_is_refused_by_name(self) -> None:
        with pytest.raises(TypeError, match=r"__chainrules_fields__ = \('values', 'name'\), and 'mean' is not among"):
            construct(Spread(np.ones(2)), {"mean": 2.0})

        class Forgetful(Spread):
            __chainrules_fields__ = ("values", "label")

        with pytest.raises(TypeError, match="the Forgetful has no attribute 'label'"):
            construct(Forgetful(np.ones(2)), {"values": np.zeros(2)})

    def test_a_declaration_that_is_not_a_tuple_of_names_is_refused(self) -> None:
        class Misdeclared:
            __chainrules_fields__ = "values"

        with pytest.raises(TypeError, match=r"Misdeclared.__chainrules_fields__ must be a tuple of field names"):
            declared_fields(Misdeclared)
