"""The tangent arithmetic table, entry by entry, in both operand orders."""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chainrules_core import (
    AbstractZero,
    NoTangent,
    NotImplementedTangent,
    NotImplementedTangentError,
    Tangent,
    Thunk,
    ZeroTangent,
    not_implemented,
    unthunk,
)

Z, N = ZeroTangent(), NoTangent()


@dataclass
class Point:
    x: float
    y: float


# Plain values a tangent meets, including numpy arrays and scalars on the left.
OTHERS = [2.5, 3, 1 + 2j, np.float64(2.5), np.float32(1.5), np.arange(3.0), np.ones((2, 2), dtype=np.float32)]


def same(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
    return type(a) is type(b) and a == b


class TestZeros:
    def test_singletons(self) -> None:
        assert ZeroTangent() is ZeroTangent() and NoTangent() is NoTangent()
        assert ZeroTangent() is not NoTangent()

    @pytest.mark.parametrize("x", OTHERS, ids=repr)
    def test_zero_is_the_additive_identity_in_both_orders(self, x: object) -> None:
        assert same(Z + x, x) and same(x + Z, x)
        assert same(N + x, x) and same(x + N, x)

    @pytest.mark.parametrize("x", OTHERS, ids=repr)
    def test_subtraction(self, x: object) -> None:
        assert same(x - Z, x) and same(Z - x, -x)  # type: ignore[operator]
        assert same(x - N, x) and same(N - x, -x)  # type: ignore[operator]

    @pytest.mark.parametrize("x", OTHERS, ids=repr)
    def test_zero_wins_multiplication_in_both_orders(self, x: object) -> None:
        for zero in (Z, N):
            assert zero * x is zero and x * zero is zero
            assert zero / x is zero

    @pytest.mark.parametrize("x", [np.ones((2, 2)), np.ones(2)], ids=repr)
    def test_matmul_with_zero(self, x: np.ndarray) -> None:
        assert Z @ x is Z and x @ Z is Z
        assert N @ x is N and x @ N is N

    def test_no_tangent_wins_addition_zero_tangent_wins_multiplication(self) -> None:
        assert N + Z is N and Z + N is N
        assert N - Z is N and Z - N is N
        assert N * Z is Z and Z * N is Z
        assert Z + Z is Z and N + N is N and Z * Z is Z and N * N is N

    def test_dividing_by_a_zero_tangent_raises(self) -> None:
        with pytest.raises(ZeroDivisionError, match="ZeroTangent"):
            1.0 / Z
        with pytest.raises(ZeroDivisionError):
            np.ones(2) / N

    def test_unary_and_structural_operations_return_the_zero(self) -> None:
        for zero in (Z, N):
            assert -zero is zero and +zero is zero
            assert zero.conj() is zero and zero.real is zero and zero.imag is zero and zero.T is zero
            assert zero[1:3] is zero and zero.sum(axis=0) is zero and zero.reshape(2, 3) is zero

    def test_zero_is_not_iterable(self) -> None:
        with pytest.raises(TypeError, match="not iterable"):
            a, b = Z

    def test_numpy_does_not_build_object_arrays(self) -> None:
        out = np.arange(3.0) + Z
        assert out.dtype == np.float64
        assert np.float64(1.0) * Z is Z
        assert np.add(np.ones(2), 0.0).dtype == np.float64


class TestThunks:
    def test_zero_plus_thunk_does_not_force_it(self) -> None:
        calls: list[int] = []
        t = Thunk(lambda: calls.append(1) or 2.0)
        assert Z + t is t and t + Z is t and N + t is t and t + N is t
        assert calls == []

    @pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv])
    @pytest.mark.parametrize("x", [2.0, np.arange(1.0, 4.0), np.float32(3.0)], ids=repr)
    def test_arithmetic_forces_the_thunk_in_both_orders(self, op: object, x: object) -> None:
        value = np.array([1.0, 2.0, 4.0])
        assert np.allclose(op(Thunk(lambda: value), x), op(value, x))  # type: ignore[operator]
        assert np.allclose(op(x, Thunk(lambda: value)), op(x, value))  # type: ignore[operator]

    def test_thunk_times_zero_is_zero_without_forcing(self) -> None:
        t = Thunk(lambda: pytest.fail("forced"))
        assert t * Z is Z and Z * t is Z and t * N is N

    def test_thunk_with_thunk(self) -> None:
        assert Thunk(lambda: 2.0) + Thunk(lambda: 3.0) == 5.0
        assert Thunk(lambda: 2.0) * Thunk(lambda: 3.0) == 6.0

    def test_negation_and_matmul(self) -> None:
        a = np.eye(2)
        assert np.array_equal(-Thunk(lambda: a), -a)
        assert np.array_equal(Thunk(lambda: a) @ a, a) and np.array_equal(a @ Thunk(lambda: a), a)

    def test_thunk_plus_tangent(self) -> None:
        t = Tangent(Point, x=1.0)
        assert Thunk(lambda: t) + t == Tangent(Point, x=2.0)
        assert t + Thunk(lambda: t) == Tangent(Point, x=2.0)


class TestStructural:
    def test_same_primal_type_adds_fieldwise(self) -> None:
        assert Tangent(Point, x=1.0) + Tangent(Point, y=2.0) == Tangent(Point, x=1.0, y=2.0)
        assert Tangent(tuple, 1.0, Z) + Tangent(tuple, 2.0, 3.0) == Tangent(tuple, 3.0, 3.0)
        assert Tangent(dict, {"a": 1.0}) + Tangent(dict, {"b": 2.0}) == Tangent(dict, {"a": 1.0, "b": 2.0})

    def test_different_primal_types_raise(self) -> None:
        with pytest.raises(TypeError, match=r"Tangent\(Point\) and Tangent\(tuple\)"):
            Tangent(Point, x=1.0) + Tangent(tuple, 1.0)

    def test_primal_plus_tangent_builds_a_primal(self) -> None:
        assert Point(1.0, 2.0) + Tangent(Point, x=0.5) == Point(1.5, 2.0)
        assert Tangent(Point, x=0.5) + Point(1.0, 2.0) == Point(1.5, 2.0)
        assert (1.0, 2.0) + Tangent(tuple, 1.0, Z) == (2.0, 2.0)
        assert {"a": 1.0} + Tangent(dict, {"a": 1.0}) == {"a": 2.0}
        assert Point(1.0, 2.0) - Tangent(Point, y=1.0) == Point(1.0, 1.0)

    def test_unrelated_primal_plus_tangent_raises(self) -> None:
        with pytest.raises(TypeError, match="cannot add Tangent"):
            1.0 + Tangent(Point, x=1.0)

    @pytest.mark.parametrize("s", [2, 2.0, np.float64(2.0), np.float32(2.0)], ids=repr)
    def test_scalar_scales_every_field_in_both_orders(self, s: object) -> None:
        t = Tangent(Point, x=1.0, y=np.array([1.0, 2.0]))
        for scaled in (s * t, t * s):
            assert scaled.x == 2.0 and np.array_equal(scaled.y, [2.0, 4.0])
        assert (t / s).x == 0.5

    def test_tangent_times_tangent_is_undefined(self) -> None:
        with pytest.raises(TypeError, match="scaled by a number"):
            Tangent(Point, x=1.0) * Tangent(Point, x=1.0)

    def test_tangent_times_array_is_undefined(self) -> None:
        with pytest.raises(TypeError):
            Tangent(Point, x=1.0) * np.ones(2)

    def test_scaling_keeps_thunks_lazy(self) -> None:
        t = Tangent(Point, x=Thunk(lambda: pytest.fail("forced")))
        scaled = 2.0 * t
        assert isinstance(scaled, Tangent)

    def test_negation(self) -> None:
        assert -Tangent(tuple, 1.0, Z) == Tangent(tuple, -1.0, Z)

    def test_zeros_and_tangents(self) -> None:
        t = Tangent(Point, x=1.0)
        assert Z + t is t and t + Z is t and N + t is t and t - Z is t
        assert Z * t is Z and t * N is N


class TestNotImplemented:
    ni = not_implemented("missing")

    @pytest.mark.parametrize("x", [*OTHERS, Z, N, Thunk(lambda: 1.0), Tangent(Point, x=1.0)], ids=repr)
    def test_wins_addition_in_both_orders(self, x: object) -> None:
        assert self.ni + x is self.ni and x + self.ni is self.ni

    def test_loses_multiplication_to_zeros(self) -> None:
        assert self.ni * Z is Z and Z * self.ni is Z and self.ni * N is N and N * self.ni is N

    @pytest.mark.parametrize("x", [*OTHERS, Thunk(lambda: 1.0), Tangent(Point, x=1.0)], ids=repr)
    def test_wins_multiplication_against_values(self, x: object) -> None:
        assert self.ni * x is self.ni and x * self.ni is self.ni

    def test_subtraction_and_division_raise(self) -> None:
        for bad in (lambda: self.ni - 1.0, lambda: 1.0 - self.ni, lambda: self.ni / 2.0, lambda: 2.0 / self.ni):
            with pytest.raises(NotImplementedTangentError, match="missing"):
                bad()
        with pytest.raises(NotImplementedTangentError):
            np.ones(2) - self.ni

    def test_first_of_two_wins(self) -> None:
        other = not_implemented("other")
        assert self.ni + other is self.ni and other + self.ni is other

    def test_is_not_pythons_not_implemented(self) -> None:
        assert isinstance(self.ni, NotImplementedTangent) and self.ni is not NotImplemented

    def test_cannot_be_added_into_a_primal(self) -> None:
        with pytest.raises(NotImplementedTangentError, match="field 'x'"):
            Point(1.0, 2.0) + Tangent(Point, x=self.ni)


# ----- algebraic laws over random tangents -----

floats = st.floats(-1e6, 1e6, allow_nan=False)
KINDS = ["float", "array", "point", "tuple"]


def values(kind: str) -> st.SearchStrategy[object]:
    if kind == "float":
        return floats
    if kind == "array":
        return st.lists(floats, min_size=3, max_size=3).map(np.array)
    if kind == "point":
        return st.builds(lambda x, y: Tangent(Point, x=x, y=y), floats, st.one_of(st.just(Z), floats))
    return st.builds(lambda a, b: Tangent(tuple, a, b), floats, floats)


def maybe_thunked(kind: str) -> st.SearchStrategy[object]:
    plain = values(kind)
    return st.one_of(plain, st.just(Z), plain.map(lambda v: Thunk(lambda: v)))


def dense(t: object, kind: str) -> np.ndarray:
    """The tangent as a vector, zeros materialised, so that laws compare numbers."""
    t = unthunk(t)
    size = {"float": 1, "array": 3, "point": 2, "tuple": 2}[kind]
    if isinstance(t, AbstractZero):
        return np.zeros(size)
    if kind == "point":
        return np.array([dense(t.x, "float")[0], dense(t.y, "float")[0]])  # type: ignore[attr-defined]
    if kind == "tuple":
        return np.array([dense(v, "float")[0] for v in t])  # type: ignore[attr-defined]
    return np.atleast_1d(np.asarray(t, dtype=float))


@st.composite
def same_kind(draw: st.DrawFn, n: int) -> tuple[str, list[object]]:
    kind = draw(st.sampled_from(KINDS))
    return kind, [draw(maybe_thunked(kind)) for _ in range(n)]


@settings(max_examples=80, deadline=None)
@given(same_kind(1))
def test_zero_is_the_identity(case: tuple[str, list[object]]) -> None:
    kind, (a,) = case
    assert np.array_equal(dense(Z + a, kind), dense(a, kind))
    assert np.array_equal(dense(a + Z, kind), dense(a, kind))


@settings(max_examples=80, deadline=None)
@given(same_kind(2))
def test_addition_commutes(case: tuple[str, list[object]]) -> None:
    kind, (a, b) = case
    assert np.array_equal(dense(a + b, kind), dense(b + a, kind))


@settings(max_examples=80, deadline=None)
@given(same_kind(3))
def test_addition_associates(case: tuple[str, list[object]]) -> None:
    kind, (a, b, c) = case
    assert np.allclose(dense((a + b) + c, kind), dense(a + (b + c), kind), rtol=1e-12, atol=1e-6)


@settings(max_examples=80, deadline=None)
@given(same_kind(2), floats)
def test_scaling_distributes(case: tuple[str, list[object]], s: float) -> None:
    kind, (a, b) = case
    assert np.allclose(dense(s * (a + b), kind), dense(s * a + s * b, kind), rtol=1e-12, atol=1e-3)
