"""Nested differentiation: every pairing of the engines, perturbation confusion, Hessians, and no silent zeros."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrules.engines as ad
from chainrules_core import NoTangent, ZeroTangent
from tests.engines.programs import require_rules


def _by_jvp(f: Callable[[Any], Any], x: float) -> Any:
    return ad.jvp(f, (x,), (1.0,))[1]


def _by_gradient(f: Callable[[Any], Any], x: float) -> Any:
    return ad.gradient(f, x)[0]


def _by_back(f: Callable[[Any], Any], x: float) -> Any:
    _, back = ad.forward(f, x)
    return back(1.0)[0]


def _by_jacobian(f: Callable[[Any], Any], x: float) -> Any:
    return ad.jacobian(f, x)[0][()]


DERIVATIVES = {"jvp": _by_jvp, "gradient": _by_gradient, "forward/back": _by_back, "jacobian": _by_jacobian}
PAIRS = list(itertools.product(DERIVATIVES, repeat=2))


@pytest.fixture(autouse=True)
def _rules() -> None:
    require_rules("polynomial")


@pytest.mark.parametrize(("outer", "inner"), PAIRS, ids=[f"{o} of {i}" for o, i in PAIRS])
def test_perturbation_confusion(outer: str, inner: str) -> None:
    """``d/dx (x * d/dy (x + y)) = 1`` at any point; an engine that confuses the two perturbations gives 2.

    Siskind and Pearlmutter, "Perturbation confusion and referential
    transparency" (2005): the inner derivative must not see the outer
    perturbation of ``x``, which it closes over.
    """
    d_outer, d_inner = DERIVATIVES[outer], DERIVATIVES[inner]
    for x in (0.0, 2.0, -3.5):
        assert d_outer(lambda x: x * d_inner(lambda y: x + y, 1.0), x) == pytest.approx(1.0)


@pytest.mark.parametrize(("outer", "inner"), PAIRS, ids=[f"{o} of {i}" for o, i in PAIRS])
def test_second_derivatives_of_every_pairing(outer: str, inner: str) -> None:
    """The second derivative of ``exp(sin(x)) * x**3`` by each engine over each; never a silent zero."""
    d_outer, d_inner = DERIVATIVES[outer], DERIVATIVES[inner]

    def f(x: Any) -> Any:
        return np.exp(np.sin(x)) * x**3

    x = 0.7
    e, s, c = np.exp(np.sin(x)), np.sin(x), np.cos(x)
    first = e * c * x**3 + 3 * e * x**2
    second = e * (c * c - s) * x**3 + 6 * e * c * x**2 + 6 * e * x
    assert d_inner(f, x) == pytest.approx(first, rel=1e-12)
    assert d_outer(lambda t: d_inner(f, t), x) == pytest.approx(second, rel=1e-12)


def test_third_derivative() -> None:
    """Three passes nested: ``d^3/dx^3 x^4 = 24 x``."""

    def third(x: Any) -> Any:
        return ad.jvp(lambda y: ad.gradient(lambda z: ad.jvp(lambda w: w**4, (z,), (1.0,))[1], y)[0], (x,), (1.0,))[1]

    assert third(2.0) == pytest.approx(48.0)


def test_a_closure_over_an_outer_value_is_followed_not_dropped() -> None:
    """The inner pass sees the outer value as a constant; the outer pass sees what the inner one computes with it."""

    def inner_gradient(w: Any) -> Any:
        return ad.gradient(lambda x: np.sum(w * x**2), np.array([1.0, 2.0]))[0]

    w = np.array([0.5, -1.5])
    y, y_dot = ad.jvp(inner_gradient, (w,), (np.array([1.0, 0.0]),))
    np.testing.assert_allclose(y, 2 * w * np.array([1.0, 2.0]))
    np.testing.assert_allclose(y_dot, [2.0, 0.0])
    (g,) = ad.gradient(lambda w: np.sum(inner_gradient(w)), w)
    np.testing.assert_allclose(g, [2.0, 4.0])


def test_values_of_a_finished_pass_are_refused() -> None:
    """A tracked value kept after its pass returned cannot take part in another: an error, not a zero."""
    kept: list[Any] = []

    def keep(x: Any) -> Any:
        kept.append(x)
        return x * 2.0

    ad.gradient(keep, 1.0)
    with pytest.raises(ValueError, match=r"np\.multiply\(float, float\) got a followed value of a pass that has"):
        ad.gradient(lambda y: kept[0] * y, 1.0)
    _, back = ad.jvp(lambda x: ad.forward(lambda y: x * y, 3.0), (2.0,), (1.0,))[0]
    with pytest.raises(ValueError, match="pass that has returned"):
        back(1.0)  # its pullbacks hold dual numbers of the jvp, which has returned


# ----- Hessians -----


def _rosenbrock(x: Any) -> Any:
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def _rosenbrock_hessian(x: np.ndarray) -> np.ndarray:
    n = x.size
    h = np.zeros((n, n))
    for i in range(n - 1):
        h[i, i] += 1200 * x[i] ** 2 - 400 * x[i + 1] + 2
        h[i, i + 1] = h[i + 1, i] = -400 * x[i]
        h[i + 1, i + 1] += 200
    return h


@pytest.mark.parametrize("mode", ["forward-over-reverse", "reverse-over-reverse"])
def test_hessian_of_rosenbrock(mode: Any) -> None:
    require_rules("arrays")
    x = np.array([-1.2, 1.0, 0.5, 2.0])
    np.testing.assert_allclose(ad.hessian(_rosenbrock, x, mode=mode), _rosenbrock_hessian(x), rtol=1e-12)


def test_hessian_of_several_arguments_and_hvp() -> None:
    """Blocks ``H[i][j]`` for each pair of arguments; ints get ``NoTangent()``; hvp agrees with the blocks."""

    def f(a: Any, b: Any, n: int) -> Any:
        return np.sum(a**2 * b) + n * np.sum(b**3)

    a, b = np.array([1.0, 2.0]), 0.5
    (h_aa, h_ab, h_an), (h_ba, h_bb, _), (h_na, _, _) = ad.hessian(f, a, b, 2)
    np.testing.assert_allclose(h_aa, 2 * b * np.eye(2))
    np.testing.assert_allclose(h_ab, 2 * a)
    np.testing.assert_allclose(h_ba, 2 * a)
    assert float(h_bb) == pytest.approx(2 * 6 * b)
    assert h_an == NoTangent() and h_na == NoTangent()
    v = (np.array([0.3, -1.0]), 2.0, ZeroTangent())
    for mode in ("forward-over-reverse", "reverse-over-reverse"):
        grads, hv = ad.hvp(f, (a, b, 2), v, mode=mode)
        np.testing.assert_allclose(grads[0], 2 * a * b)
        np.testing.assert_allclose(hv[0], h_aa @ v[0] + h_ab * v[1])
        assert float(hv[1]) == pytest.approx(h_ba @ v[0] + float(h_bb) * v[1])
        assert hv[2] == NoTangent()


def test_hessian_refuses_complex_and_unknown_arguments() -> None:
    with pytest.raises(TypeError, match="argument 1 is complex"):
        ad.hvp(lambda z: abs(z) ** 2, (1.0 + 1.0j,), (1.0,))
    with pytest.raises(TypeError, match="hessian: argument 1 is a str"):
        ad.hessian(lambda s: 1.0, "a")
    with pytest.raises(ValueError, match="mode must be one of"):
        ad.hvp(lambda x: x * x, (1.0,), (1.0,), mode="sideways")  # type: ignore[arg-type]
