"""Layouts: values of any supported structure as flat real vectors, tangents in the same layout, type problems."""

from __future__ import annotations

import collections
import dataclasses
import functools
from typing import Any

import numpy as np
import pytest

from chainrules_core import NoTangent, Tangent, Thunk, ZeroTangent, not_implemented
from chainrules_core.testing.layout import layout_of


@dataclasses.dataclass
class Point:
    x: float
    y: np.ndarray
    label: str = "p"


Pair = collections.namedtuple("Pair", "a b")


class Plain:
    def __init__(self) -> None:
        self.w = np.array([1.0, 2.0], dtype=np.float32)
        self.n = 3
        self.name = "plain"


class Slotted:
    __slots__ = ("c", "k")

    def __init__(self) -> None:
        self.c = 1.5 + 0.5j
        self.k = 2


VALUES = {
    "float": 1.5,
    "complex": 1.5 - 2j,
    "float32 scalar": np.float32(0.25),
    "float16 array": np.array([1.0, -2.0], dtype=np.float16),
    "float32 array": np.ones((2, 3), dtype=np.float32),
    "complex64 array": np.array([1 + 2j, 3j], dtype=np.complex64),
    "0-d array": np.array(2.0),
    "tuple": (1.0, np.arange(3.0), 4),
    "list": [np.ones(2), 2.5],
    "dict": {"a": 1.0, "b": np.arange(2.0), "c": "text"},
    "dataclass": Point(1.0, np.arange(2.0)),
    "namedtuple": Pair(1.0, np.arange(2.0)),
    "object": Plain(),
    "slots": Slotted(),
    "nested": {"pair": Pair((1.0, 2.0), [3.0]), "point": Point(0.5, np.zeros(1))},
    "tangent": Tangent(tuple, 1.0, np.ones(2), NoTangent()),
    "tangent of a dataclass": Tangent(Point, x=1.0, y=np.arange(2.0)),
    "tangent of a dict": Tangent(dict, {"a": np.ones(2, dtype=np.float32), "b": ZeroTangent()}),
}


@pytest.mark.parametrize("name", VALUES)
def test_vector_round_trip(name: str) -> None:
    """``from_vec(to_vec(x))`` rebuilds a value with the same vector and the same non-differentiable parts."""
    x = VALUES[name]
    layout = layout_of(x)
    v = layout.to_vec(x)
    assert v.dtype == np.float64 and v.shape == (layout.size,)
    again = layout.from_vec(v, promote=False)
    assert np.array_equal(layout.to_vec(again), v)
    assert type(again) is type(x)
    assert len(layout.constants(again)) == len(layout.constants(x))


@pytest.mark.parametrize("name", VALUES)
def test_tangent_round_trip(name: str) -> None:
    """``vec_to_tangent`` builds a tangent of the types a rule returns; ``tangent_to_vec`` reads it back."""
    x = VALUES[name]
    layout = layout_of(x)
    v = np.arange(1.0, layout.size + 1)
    t = layout.vec_to_tangent(v)
    assert np.array_equal(layout.tangent_to_vec(t), v)
    assert layout.problems(t, "t") == []


def test_sizes_count_complex_entries_twice_and_skip_constants() -> None:
    """ℂ is ℝ²; ints, strings and functions take no entries."""
    assert layout_of(1.0).size == 1
    assert layout_of(1j).size == 2
    assert layout_of(np.zeros((2, 3), dtype=np.complex128)).size == 12
    assert layout_of((1, "a", np.sin, np.arange(3), 2.0)).size == 1
    assert layout_of(Plain()).size == 2


def test_complex_values_are_real_parts_then_imaginary_parts() -> None:
    layout = layout_of(np.array([1 + 2j, 3 + 4j]))
    assert layout.to_vec(np.array([1 + 2j, 3 + 4j])).tolist() == [1.0, 3.0, 2.0, 4.0]
    assert layout.entry_name(1) == "[1].real" and layout.entry_name(2) == "[0].imag"


def test_entry_names_follow_the_structure() -> None:
    layout = layout_of({"w": np.zeros((2, 2)), "p": Point(1.0, np.zeros(1))})
    assert [layout.entry_name(k) for k in (0, 3, 4, 5)] == ["['w'][0, 0]", "['w'][1, 1]", "['p'].x", "['p'].y[0]"]


def test_promote_computes_in_double_precision() -> None:
    layout = layout_of((np.float32(1.0), np.ones(2, dtype=np.complex64), 1.0))
    promoted = layout.from_vec(np.arange(6.0), promote=True)
    assert promoted[0].dtype == np.float64 and promoted[1].dtype == np.complex128 and type(promoted[2]) is float
    kept = layout.from_vec(np.arange(6.0), promote=False)
    assert kept[0].dtype == np.float32 and kept[1].dtype == np.complex64


def test_objects_are_rebuilt_with_new_fields_and_the_same_constants() -> None:
    p = Plain()
    moved = layout_of(p).from_vec(np.array([5.0, 6.0]), promote=False)
    assert moved is not p and moved.w.tolist() == [5.0, 6.0] and moved.n == 3 and p.w.tolist() == [1.0, 2.0]


def test_zero_and_thunked_tangents_read_as_vectors() -> None:
    layout = layout_of((1.0, np.ones(2)))
    assert layout.tangent_to_vec(ZeroTangent()).tolist() == [0.0, 0.0, 0.0]
    assert layout.tangent_to_vec(Thunk(lambda: Tangent(tuple, 1.0, np.array([2.0, 3.0])))).tolist() == [1.0, 2.0, 3.0]
    assert layout.tangent_to_vec(Tangent(tuple, ZeroTangent(), Thunk(lambda: np.ones(2)))).tolist() == [0, 1, 1]


def test_missing_fields_of_a_tangent_are_zero() -> None:
    layout = layout_of(Point(1.0, np.ones(2)))
    assert layout.tangent_to_vec(Tangent(Point, y=np.array([1.0, 2.0]))).tolist() == [0.0, 1.0, 2.0]


def test_not_implemented_tangents_have_no_value() -> None:
    with pytest.raises(TypeError, match="not-implemented"):
        layout_of(1.0).tangent_to_vec(not_implemented("no formula"))


def test_magnitudes_are_one_where_the_value_is_zero() -> None:
    assert layout_of(np.array([0.0, -3.0, np.inf])).magnitudes().tolist() == [1.0, 3.0, 1.0]
    assert layout_of(np.array([3 + 4j])).magnitudes().tolist() == [5.0, 5.0]


def test_a_cycle_is_opaque() -> None:
    a: list[Any] = [1.0]
    a.append(a)
    assert layout_of(a).size == 1


def test_bound_methods_and_partials_expose_their_fields() -> None:
    method = Plain().__init__
    assert layout_of(method).size == 2
    part = functools.partial(np.multiply, 2.0)
    assert layout_of(part).size == 1
    assert layout_of(part).vec_to_tangent(np.array([1.0])) == Tangent(functools.partial, args=Tangent(tuple, 1.0))


# ----- problems: what is wrong with a tangent -----


def problems(x: Any, t: Any, cotangent: bool = True) -> str:
    return "; ".join(layout_of(x).problems(t, "t", cotangent))


@pytest.mark.parametrize(
    ("x", "t", "expected"),
    [
        (np.ones(3, dtype=np.float32), np.ones(3), "dtype float64 for a primal of dtype float32"),
        (np.ones(3), np.ones((1, 3)), "shape (1, 3) for a primal of shape (3,)"),
        (np.ones(3), np.ones(3, dtype=complex), "project it to its real part"),
        (np.ones(3, dtype=complex), np.ones(3), "dtype float64 for a primal of dtype complex128"),
        (np.ones(3), [1.0, 1.0, 1.0], "expected an ndarray of shape (3,)"),
        (1.5, np.array([1.0]), "expected a real scalar"),
        (1.5, np.float32(1.0), "dtype float32 for a float"),
        (1.5, 1, "expected a real scalar"),
        (1.5, 1j, "a complex tangent for a real float"),
        (1j, 1.0, "dtype float64 for a complex"),
        (np.float32(1.0), 1.0, "dtype float64 for a np.float32"),
        (3, ZeroTangent(), "expected NoTangent() for a non-differentiable int"),
        (True, 0.0, "expected NoTangent() for a non-differentiable bool"),
        ("s", ZeroTangent(), "expected NoTangent() for a non-differentiable str"),
        (np.arange(3), np.zeros(3), "expected NoTangent() for a non-differentiable ndarray"),
        ((1.0, 2.0), (1.0, 2.0), "a plain tuple as the cotangent of a tuple"),
        ((1.0, 2.0), [1.0, 2.0], "a plain list as the cotangent of a tuple"),
        ((1.0, 2.0), Tangent(tuple, 1.0), "a tangent of 1 elements for a tuple of 2"),
        ((1.0, 2), Tangent(tuple, 1.0, 0.0), "t[1]: expected NoTangent()"),
        ({"a": 1.0}, {"a": 1.0}, "a plain dict as the cotangent of a dict"),
        ({"a": 1.0}, Tangent(dict, {"b": 1.0}), "'b' not among the keys of the dict"),
        (Plain(), Tangent(Plain, weight=np.ones(2, dtype=np.float32)), "'weight' not among the fields of the Plain"),
        (Plain(), Tangent(Plain, n=1.0), "t.n: expected NoTangent() for a non-differentiable int"),
        (Plain(), Tangent(Point, x=1.0), "a Tangent(Point) for a Plain"),
        (Plain(), {"w": 1.0}, "expected a Tangent(Plain, ...)"),
        (Point(1.0, np.ones(2)), Tangent(Point, x=1.0, y=np.ones(3)), "t.y: shape (3,) for a primal of shape (2,)"),
        (Tangent(tuple, 1.0, 2.0), (1.0, 2.0), "expected a Tangent(tuple, ...) for a tangent of one"),
        (Tangent(tuple, 1.0, 2.0), Tangent(tuple, 1.0), "a tangent of 1 entries for a Tangent of 2"),
    ],
)
def test_problems_name_what_is_wrong(x: Any, t: Any, expected: str) -> None:
    assert expected in problems(x, t)


@pytest.mark.parametrize(
    ("x", "t"),
    [
        (np.ones(3, dtype=np.float32), np.ones(3, dtype=np.float32)),
        (np.ones(3), ZeroTangent()),
        (np.ones(3), NoTangent()),
        (np.ones(3), not_implemented("later")),
        (1.5, 2.0),
        (1.5, np.float64(2.0)),
        (1.5, np.array(2.0)),
        (1j, 2j),
        (3, NoTangent()),
        ((1.0, 2), Tangent(tuple, 1.0, NoTangent())),
        ([1.0, 2.0], Tangent(list, 1.0, 2.0)),
        ({"a": 1.0, "s": "x"}, Tangent(dict, {"a": 2.0})),
        (Plain(), Tangent(Plain, w=np.ones(2, dtype=np.float32))),
        (Plain(), Tangent(Plain, w=np.ones(2, dtype=np.float32), n=NoTangent())),
        (Pair(1.0, 2.0), Tangent(Pair, a=1.0)),
    ],
)
def test_valid_tangents_have_no_problems(x: Any, t: Any) -> None:
    assert problems(x, t) == ""


def test_a_pushforward_may_return_a_plain_tuple() -> None:
    """Only cotangents are added by engines; a plain tuple tangent of a tuple output is accepted."""
    assert problems((1.0, 2.0), (1.0, 2.0), cotangent=False) == ""
    assert problems([1.0, 2.0], [1.0, 2.0], cotangent=False) == ""
    assert problems({"a": 1.0}, {"a": 1.0}, cotangent=False) == ""


def test_constants_are_the_non_differentiable_leaves() -> None:
    constants = layout_of((1.0, 3, "s", [np.arange(2)])).constants((2.0, 4, "t", [np.arange(3)]))
    assert constants[:2] == [4, "t"] and np.array_equal(constants[2], np.arange(3))
