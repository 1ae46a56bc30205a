"""Random tangents, relative tangents, and explicit tangents for arguments."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

import chainrules  # noqa: F401 - np.sin's rules
from chainrules_core import AbstractZero, NoTangent, Tangent, backing, frule, rrule, unthunk
from chainrules_core.testing import no_tangent, rand_tangent, test_frule, test_rrule, with_tangent
from chainrules_core.testing.tangents import PrimalAndTangent, relative_tangent


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: float
    width: int


def test_rand_tangent_keeps_types_and_dtypes() -> None:
    assert type(rand_tangent(1.0, 0)) is float
    assert type(rand_tangent(1j, 0)) is complex
    assert rand_tangent(np.float32(1.0), 0).dtype == np.float32
    t = rand_tangent(np.ones((2, 3), dtype=np.complex64), 0)
    assert t.dtype == np.complex64 and t.shape == (2, 3) and np.all(t.imag != 0)


def test_rand_tangent_of_structures() -> None:
    t = rand_tangent((1.0, 2, [np.ones(2)], {"a": 1.0}), 0)
    assert isinstance(t, Tangent) and t[1] == NoTangent()
    assert t[2] == Tangent(list, t[2][0]) and t[2][0].shape == (2,)
    assert isinstance(t[3], Tangent) and set(t[3]) == {"a"}
    layer = rand_tangent(Layer(np.ones(2), 0.5, 3), 0)
    assert isinstance(layer, Tangent) and set(backing(layer)) == {"w", "b"} and layer.w.shape == (2,)


def test_rand_tangent_of_values_without_tangents() -> None:
    for x in (3, True, "s", np.arange(3), None, np.sin):
        assert rand_tangent(x, 0) == NoTangent()


def test_rand_tangent_is_reproducible() -> None:
    x = np.ones(5)
    assert np.array_equal(rand_tangent(x, 7), rand_tangent(x, 7))
    assert not np.array_equal(rand_tangent(x, 7), rand_tangent(x, 8))
    rng = np.random.default_rng(1)
    assert not np.array_equal(rand_tangent(x, rng), rand_tangent(x, rng))


def test_relative_tangents_scale_with_the_entries() -> None:
    x = np.array([1e-8, 1.0, 1e8, 0.0])
    t = relative_tangent(x, np.random.default_rng(0))
    ratio = np.abs(t) / np.where(x == 0, 1.0, np.abs(x))
    assert np.allclose(ratio, np.abs(np.random.default_rng(0).standard_normal(4)))


def test_with_tangent_and_no_tangent() -> None:
    pair = with_tangent(np.ones(2), np.zeros(2))
    assert isinstance(pair, PrimalAndTangent) and pair.tangent.shape == (2,)
    assert no_tangent(2.0) == PrimalAndTangent(2.0, NoTangent())


def test_a_zero_number_holds_an_array_constant() -> None:
    """``with_tangent(x, 0.0)``: the zero tangent of ``x``'s shape and dtype, in both checks."""
    seen = []

    def scale(x: Any, w: Any) -> Any:
        return w * x

    @rrule.register(scale)
    def _(f: Any, x: Any, w: Any) -> Any:
        return w * x, lambda out_bar: (NoTangent(), w * unthunk(out_bar), np.sum(x * unthunk(out_bar)))

    @frule.register(scale)
    def _(tangents: Any, f: Any, x: Any, w: Any) -> Any:
        seen.append(tangents[1])
        return w * x, w * tangents[1] + x * tangents[2]

    x = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    for check in (test_rrule, test_frule):
        check(scale, with_tangent(x, 0.0), np.float32(2.0))
        check(scale, with_tangent(x, 0), with_tangent(np.float32(2.0), 0.0))  # an int zero, a float32 held too
    given = [t for t in seen if not isinstance(t, AbstractZero)]  # the harness also sends zeros of its own
    assert given and all(type(t) is np.ndarray and t.dtype == np.float32 and t.shape == (3,) for t in given)
    assert not any(t.any() for t in given)


def test_another_number_for_an_array_is_refused_with_the_fix() -> None:
    x = np.ones(5)
    with pytest.raises(ValueError) as info:
        test_rrule(np.sin, with_tangent(x, 0.5))
    message = str(info.value)
    assert message.startswith("test_rrule(np.sin): the tangent given for argument 1 (x): the number 0.5 for an ndarray")
    assert "give an array of its shape and dtype, np.full_like(x, 0.5), or 0.0 to hold it constant" in message
    with pytest.raises(ValueError, match="rand_tangent"):
        test_frule(lambda t: t[0] * t[1], with_tangent((x, 2.0), 1.0))
