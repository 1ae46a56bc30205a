"""numpy's functions given their data by keyword: the rules answer as for the positional call."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules  # noqa: F401 - registers the rules
from chainrules_core import NoTangent, frule, rrule, unthunk
from chainrules_core.testing import test_frule, test_rrule

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
V = RNG.standard_normal(4)
W = RNG.standard_normal(4)

# (function, the keyword call's arguments, the positional call's arguments and keywords): every keyword that
# names a leading parameter, in order up to the first not given, becomes a position, with a cotangent of its own
CALLS: list[tuple[Any, dict[str, Any], tuple[Any, ...], dict[str, Any]]] = [
    (np.sum, {"a": X}, (X,), {}),
    (np.sum, {"a": X, "axis": 1}, (X, 1), {}),
    (np.sum, {"a": X, "keepdims": True}, (X,), {"keepdims": True}),  # axis not given: keepdims stays
    (np.mean, {"a": X, "axis": 0}, (X, 0), {}),
    (np.dot, {"a": V, "b": W}, (V, W), {}),
    (np.dot, {"b": W, "a": V}, (V, W), {}),
    (np.linalg.norm, {"x": V}, (V,), {}),
    (np.linalg.norm, {"x": X, "ord": "fro"}, (X, "fro"), {}),
]
IDS = [f"{f.__name__}({', '.join(kw)})" for f, kw, _, _ in CALLS]


def _values(cotangents: tuple[Any, ...]) -> list[Any]:
    return [unthunk(c) for c in cotangents]


@pytest.mark.parametrize(("f", "by_keyword", "args", "kwargs"), CALLS, ids=IDS)
def test_rrule_of_a_keyword_call_is_the_positional_call(f: Any, by_keyword: Any, args: Any, kwargs: Any) -> None:
    y, pullback = rrule(f, **by_keyword)
    y_pos, pullback_pos = rrule(f, *args, **kwargs)
    np.testing.assert_allclose(y, y_pos)
    seed = np.ones_like(y_pos)
    bars, bars_pos = _values(pullback(seed)), _values(pullback_pos(seed))
    assert len(bars) == len(bars_pos) == 1 + len(args)
    assert bars[0] == NoTangent()
    for bar, bar_pos in zip(bars[1:], bars_pos[1:]):
        if isinstance(bar_pos, NoTangent):  # an option moved to a position: axis, ord
            assert isinstance(bar, NoTangent)
        else:
            np.testing.assert_allclose(bar, bar_pos)


@pytest.mark.parametrize(("f", "by_keyword", "args", "kwargs"), CALLS, ids=IDS)
def test_frule_of_a_keyword_call_is_the_positional_call(f: Any, by_keyword: Any, args: Any, kwargs: Any) -> None:
    tangents = (
        NoTangent(),
        *(RNG.standard_normal(a.shape) if isinstance(a, np.ndarray) else NoTangent() for a in args),
    )
    y, y_dot = frule(tangents, f, **by_keyword)
    y_pos, y_dot_pos = frule(tangents, f, *args, **kwargs)
    np.testing.assert_allclose(y, y_pos)
    np.testing.assert_allclose(unthunk(y_dot), unthunk(y_dot_pos))


def test_a_ufunc_given_its_input_by_keyword_raises_naming_it() -> None:
    with pytest.raises(TypeError, match=r"np\.tanh: x= names an input of the ufunc np\.tanh"):
        rrule(np.tanh, x=V)
    with pytest.raises(TypeError, match=r"np\.tanh: x= names an input of the ufunc np\.tanh"):
        frule((NoTangent(), V), np.tanh, x=V)
    with pytest.raises(TypeError, match="tanh"):
        np.tanh(x=V)  # numpy's own refusal


def test_the_harness_checks_a_call_whose_data_come_in_fkwargs() -> None:
    test_rrule(np.sum, fkwargs={"a": X, "axis": 1})
    test_frule(np.dot, fkwargs={"b": W, "a": V})
    test_rrule(np.linalg.norm, fkwargs={"x": V})


def test_the_harness_says_where_the_function_s_keywords_go() -> None:
    with pytest.raises(TypeError, match=r"test_rrule: unknown option a; .* go in fkwargs="):
        test_rrule(np.sum, a=X)
    with pytest.raises(TypeError, match=r"test_rrule for np\.tanh: x= names an input of the ufunc"):
        test_rrule(np.tanh, fkwargs={"x": V})
