"""Programs that give numpy functions their followed data by keyword: the derivatives of the positional calls."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules.engines as ad
from chainrules_core import unthunk

RNG = np.random.default_rng(1)
X = RNG.standard_normal((3, 4))
V = RNG.standard_normal(4)
W = RNG.standard_normal(4)

# (keyword program, positional program, arguments)
PROGRAMS: list[tuple[Any, Any, tuple[Any, ...]]] = [
    (lambda x: np.sum(a=x * x), lambda x: np.sum(x * x), (X,)),
    (lambda x: np.sum(a=np.sin(x), axis=1)[0], lambda x: np.sum(np.sin(x), axis=1)[0], (X,)),
    (lambda x: np.mean(a=x * x, axis=0)[1], lambda x: np.mean(x * x, axis=0)[1], (X,)),
    (lambda v, w: np.dot(a=v, b=w), lambda v, w: np.dot(v, w), (V, W)),
    (lambda v, w: np.dot(b=w, a=np.tanh(v)), lambda v, w: np.dot(np.tanh(v), w), (V, W)),
    (lambda v: np.linalg.norm(x=v), lambda v: np.linalg.norm(v), (V,)),
    (lambda x: np.linalg.norm(x=x, ord="fro"), lambda x: np.linalg.norm(x, ord="fro"), (X,)),
]
IDS = ["sum", "sum-axis", "mean-axis", "dot", "dot-reordered", "norm", "norm-fro"]


def _close(a: tuple[Any, ...], b: tuple[Any, ...]) -> None:
    assert len(a) == len(b)
    for u, v in zip(a, b):
        np.testing.assert_allclose(unthunk(u), unthunk(v), rtol=1e-12)


@pytest.mark.parametrize(("by_keyword", "positional", "args"), PROGRAMS, ids=IDS)
def test_gradient(by_keyword: Any, positional: Any, args: tuple[Any, ...]) -> None:
    _close(ad.gradient(by_keyword, *args), ad.gradient(positional, *args))


@pytest.mark.parametrize(("by_keyword", "positional", "args"), PROGRAMS, ids=IDS)
def test_forward_and_back(by_keyword: Any, positional: Any, args: tuple[Any, ...]) -> None:
    y, back = ad.forward(by_keyword, *args)
    y_pos, back_pos = ad.forward(positional, *args)
    np.testing.assert_allclose(y, y_pos)
    _close(back(2.0), back_pos(2.0))


@pytest.mark.parametrize(("by_keyword", "positional", "args"), PROGRAMS, ids=IDS)
def test_jvp(by_keyword: Any, positional: Any, args: tuple[Any, ...]) -> None:
    tangents = tuple(RNG.standard_normal(np.shape(a)) for a in args)
    y, y_dot = ad.jvp(by_keyword, args, tangents)
    y_pos, y_dot_pos = ad.jvp(positional, args, tangents)
    np.testing.assert_allclose(y, y_pos)
    np.testing.assert_allclose(unthunk(y_dot), unthunk(y_dot_pos), rtol=1e-12)


def test_a_keyword_that_is_not_a_leading_argument_is_still_refused() -> None:
    with pytest.raises(TypeError, match=r"keyword argument b= of np\.dot holds a followed value"):
        ad.gradient(lambda v, w: np.dot(v, b=w), V, W)


def test_a_ufunc_given_its_input_by_keyword_raises_naming_it() -> None:
    with pytest.raises(TypeError, match="tanh"):  # numpy's own refusal, before the engine sees the call
        ad.gradient(lambda v: np.sum(np.tanh(x=v)), V)
    with pytest.raises(TypeError, match=r"np\.tanh: x= names an input of the ufunc np\.tanh"):
        ad.gradient(lambda v: np.sum(ad.lift(np.tanh)(x=v)), V)
    with pytest.raises(TypeError, match=r"np\.tanh: x= names an input of the ufunc np\.tanh"):
        ad.jvp(lambda v: np.sum(ad.lift(np.tanh)(x=v)), (V,), (W,))
