"""accumulate and is_inplaceable_destination."""

from __future__ import annotations

import numpy as np

from chainrules_core import InplaceableThunk, Tangent, Thunk, ZeroTangent, accumulate, is_inplaceable_destination


def test_destinations() -> None:
    assert is_inplaceable_destination(np.zeros(2))
    assert not is_inplaceable_destination(np.broadcast_to(1.0, (2,)))
    assert not is_inplaceable_destination(1.0)
    assert not is_inplaceable_destination((1.0,))


def test_in_place_when_the_sum_fits() -> None:
    acc = np.zeros(3)
    assert accumulate(acc, np.ones(3)) is acc and np.array_equal(acc, np.ones(3))
    assert accumulate(acc, 1.0) is acc and np.array_equal(acc, np.full(3, 2.0))


def test_out_of_place_when_it_does_not() -> None:
    acc = np.zeros(3, dtype=np.float32)
    out = accumulate(acc, np.ones(3, dtype=np.complex128))
    assert out is not acc and out.dtype == np.complex128 and np.all(acc == 0)
    acc = np.zeros((1, 3))
    out = accumulate(acc, np.ones((2, 3)))
    assert out.shape == (2, 3) and np.all(acc == 0)
    readonly = np.broadcast_to(np.zeros(3), (3,))
    assert accumulate(readonly, np.ones(3)) is not readonly


def test_inplaceable_thunk_adds_without_materialising() -> None:
    t = InplaceableThunk(lambda acc: np.add(acc, 1.0, out=acc), Thunk(lambda: (_ for _ in ()).throw(AssertionError)))
    acc = np.zeros(2)
    assert accumulate(acc, t) is acc and np.array_equal(acc, [1.0, 1.0])


def test_falls_back_to_addition() -> None:
    assert accumulate(1.0, 2.0) == 3.0
    assert accumulate(ZeroTangent(), 2.0) == 2.0
    assert accumulate(Tangent(tuple, 1.0), Tangent(tuple, 2.0)) == Tangent(tuple, 3.0)
    assert np.array_equal(accumulate(1.0, InplaceableThunk(lambda a: a, lambda: np.ones(2))), [2.0, 2.0])
