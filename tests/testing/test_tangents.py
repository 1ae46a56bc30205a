"""Random tangents, relative tangents, and explicit tangents for arguments."""

from __future__ import annotations

import dataclasses

import numpy as np

from chainrules_core import NoTangent, Tangent, backing
from chainrules_core.testing import no_tangent, rand_tangent, with_tangent
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
