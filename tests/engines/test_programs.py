"""Both engines differentiate the same programs and agree with each other and with finite differences."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

import chainrules.engines as ad
from chainrules_core import Tangent, backing
from tests.engines.programs import (
    LOCAL,
    NUMPY,
    Layer,
    Model,
    RuledLayer,
    array_program,
    check_program,
    linalg_program,
    make_network,
    math_operator_program,
    network,
    network_loss,
    polynomial,
    require_rules,
)


@pytest.mark.parametrize("x", [0.7, np.array([0.3, -1.2, 2.0]), np.array([[0.5, -0.5]], dtype=np.float64)])
def test_polynomial(x: Any) -> None:
    """A polynomial of local primitives, on a Python float and on arrays."""
    check_program(polynomial, (x,))


def test_polynomial_numpy() -> None:
    """The same polynomial with numpy functions, whose rules come from the registry."""
    require_rules("polynomial")
    check_program(functools.partial(polynomial, ops=NUMPY), (np.array([0.3, -1.2, 2.0]),))


@pytest.mark.parametrize("ops", [LOCAL, NUMPY], ids=["local", "numpy"])
def test_network(ops: Any) -> None:
    """The 8-layer network: its loss with respect to every parameter, its output with respect to the input."""
    if ops is NUMPY:
        require_rules("network")
    net = make_network(np.random.default_rng(1))
    loss = functools.partial(network_loss, ops=ops)
    check_program(loss, (net["thetas"], net["ws"], net["x"], net["target"]))
    check_program(functools.partial(network, ops=ops), (net["thetas"], net["ws"], net["x"]), seed=2)


def test_network_jacobian_agrees_with_backpropagated_rows() -> None:
    """``jacobian`` from the forward engine equals the rows ``back(e_k)`` from the reverse engine."""
    net = make_network(np.random.default_rng(3), width=3, layers=8, batch=1)

    def f(x: Any) -> Any:
        return network(net["thetas"], net["ws"], x)

    x = net["x"]
    (jac,) = ad.jacobian(f, x)
    y, back = ad.forward(f, x)
    rows = []
    for k in range(y.size):
        e = np.zeros(y.shape)
        e.flat[k] = 1.0
        rows.append(back(e)[0].ravel())
    np.testing.assert_allclose(jac.reshape(y.size, x.size), np.array(rows), rtol=1e-12, atol=1e-14)


def test_array_program() -> None:
    """Shape, joining, indexing and reduction rules of numpy, differentiated by both engines."""
    require_rules("arrays")
    rng = np.random.default_rng(8)
    check_program(array_program, (rng.standard_normal((2, 3)), rng.standard_normal((2, 3))))
    check_program(array_program, (rng.standard_normal((2, 3)).astype(np.float32), np.zeros((2, 3))), rtol=1e-4)


def test_linalg_program() -> None:
    """Linear-algebra rules, tuple and namedtuple outputs seeded in part, through both engines."""
    require_rules("linalg")
    a = np.random.default_rng(9).standard_normal((3, 3)) + 2 * np.eye(3)
    check_program(linalg_program, (a,))


def test_math_operator_program() -> None:
    """A scalar program of ``math`` (through ``lifted(math)``) and ``operator`` functions."""
    require_rules("math_operator")
    check_program(math_operator_program, (0.8, -1.3))


@pytest.mark.parametrize("cls", [Layer, RuledLayer], ids=["differentiated through", "own rule"])
def test_callable_object_with_fields(cls: type) -> None:
    """Calling an object with fields: its cotangent is a ``Tangent`` of its class, with or without a rule."""
    rng = np.random.default_rng(4)
    layer = cls(rng.standard_normal((3, 3)), rng.standard_normal((3, 1)))

    def f(layer: Any, x: Any) -> Any:
        return LOCAL.sum(layer(x))

    x = rng.standard_normal((3, 2))
    check_program(f, (layer, x))
    layer_bar, _ = ad.gradient(f, layer, x)
    assert isinstance(layer_bar, Tangent)
    assert layer_bar.w.shape == (3, 3) and layer_bar.b.shape == (3, 1)


def test_ruled_and_traced_objects_agree() -> None:
    """The rule of ``RuledLayer`` and differentiating ``Layer``'s own code give the same cotangents."""
    rng = np.random.default_rng(5)
    w, b, x = rng.standard_normal((3, 3)), rng.standard_normal((3, 1)), rng.standard_normal((3, 2))

    def f(layer: Any, x: Any) -> Any:
        return LOCAL.sum(layer(x))

    traced = ad.gradient(f, Layer(w, b), x)
    ruled = ad.gradient(f, RuledLayer(w, b), x)
    np.testing.assert_allclose(traced[0].w, ruled[0].w, rtol=1e-12)
    np.testing.assert_allclose(traced[0].b, ruled[0].b, rtol=1e-12)
    np.testing.assert_allclose(traced[1], ruled[1], rtol=1e-12)


class Average:
    """``weights @ x / total``, with ``total`` computed from the weights when built: no field of its own."""

    __chainrules_fields__ = ("weights",)

    def __init__(self, weights: Any) -> None:
        self.weights = weights
        self.total = np.sum(weights)

    def __call__(self, x: Any) -> Any:
        return self.weights @ x / self.total


def test_an_object_is_built_again_from_the_fields_it_declares() -> None:
    """Both engines open it at its declared fields and build it from them, so ``total`` follows the weights."""
    w, x = np.array([1.0, 2.0, 0.5]), np.array([0.3, -1.2, 2.0])
    check_program(lambda a, x: a(x), (Average(w), x))
    a_bar, _ = ad.gradient(lambda a, x: a(x), Average(w), x)
    assert isinstance(a_bar, Tangent) and set(backing(a_bar)) == {"weights"}
    np.testing.assert_allclose(a_bar.weights, (x - w @ x / np.sum(w)) / np.sum(w), rtol=1e-12)


def test_bound_method() -> None:
    """A method of an argument, and a bound method as the program itself."""
    rng = np.random.default_rng(6)
    model = Model(1.5, rng.standard_normal(4))
    x = rng.standard_normal(4)
    check_program(lambda m, x: m.energy(x), (model, x))
    m_bar, x_bar = ad.gradient(lambda m, x: m.energy(x), model, x)
    np.testing.assert_allclose(m_bar.shift, -3.0 * (x - model.shift))
    assert m_bar.scale == pytest.approx(float(np.sum((x - model.shift) ** 2)))
    (x_bar_bound,) = ad.gradient(model.energy, x)
    np.testing.assert_allclose(x_bar_bound, x_bar)
    check_program(model.energy, (x,))


def test_complex_polynomial_uses_the_conjugate_convention() -> None:
    """A holomorphic program of a complex input: ``x_bar = conj(f'(z)) * y_bar``, ``y_dot = f'(z) x_dot``."""
    z = np.array([0.3 + 0.4j, -1.0 + 0.2j])
    derivative = 9 * z**2 - 4 * z + 1
    y, back = ad.forward(polynomial, z)
    (z_bar,) = back(np.ones(2, dtype=complex))
    np.testing.assert_allclose(z_bar, np.conj(derivative))
    _, y_dot = ad.jvp(polynomial, (z,), (np.ones(2, dtype=complex),))
    np.testing.assert_allclose(y_dot, derivative)
    check_program(polynomial, (z,))
