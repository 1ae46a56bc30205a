"""Thunk, InplaceableThunk and unthunk."""

from __future__ import annotations

import numpy as np
import pytest

from chainrules_core import InplaceableThunk, Thunk, unthunk


def test_thunk_is_computed_once_on_demand() -> None:
    calls: list[int] = []
    t = Thunk(lambda: calls.append(1) or np.ones(2))
    assert calls == []
    first, second = unthunk(t), unthunk(t)
    assert first is second and calls == [1]


def test_nested_thunks_are_forced_through() -> None:
    assert unthunk(Thunk(lambda: Thunk(lambda: 4.0))) == 4.0


def test_thunk_usable_as_decorator() -> None:
    @Thunk
    def x_bar() -> float:
        return 2.0

    assert unthunk(x_bar) == 2.0


def test_unthunk_leaves_other_values() -> None:
    a = np.ones(2)
    assert unthunk(a) is a and unthunk(1.5) == 1.5


def test_inplaceable_thunk_both_paths_agree() -> None:
    delta = np.array([1.0, 2.0])
    t = InplaceableThunk(lambda acc: np.add(acc, delta, out=acc), lambda: delta.copy())
    acc = np.ones(2)
    assert t.add(acc) is acc
    assert np.array_equal(acc, np.ones(2) + unthunk(t))


def test_misuse_is_reported() -> None:
    with pytest.raises(TypeError, match="zero-argument callable"):
        Thunk(3.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="add must be callable"):
        InplaceableThunk(None, lambda: 1.0)  # type: ignore[arg-type]


def test_repr_shows_state() -> None:
    t = Thunk(lambda: 1.0)
    assert "lambda" in repr(t)
    unthunk(t)
    assert repr(t) == "Thunk(<value 1.0>)"
