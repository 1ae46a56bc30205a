"""Programs both engines differentiate, and the finite differences they are compared with.

Each program is written once against an ``ops`` namespace: ``LOCAL`` holds
primitives defined here with rules of their own (so the engines are tested
whatever numpy rules are registered), ``NUMPY`` the numpy functions
themselves, whose rules come from ``chainrules.rules``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np
import pytest

import chainrules.engines as ad
from chainrules.engines import lift, lifted
from chainrules_core import AbstractZero, NoTangent, ProjectTo, Tangent, ZeroTangent, frule, rrule, scalar_rule, unthunk
from chainrules_core.testing import FiniteDifferences
from chainrules_core.testing.layout import layout_of

# ----- local primitives with rules of their own -----


def _matmul(a: Any, b: Any) -> Any:
    return a @ b


@rrule.register(_matmul)
def _rrule_matmul(f: Any, a: Any, b: Any) -> Any:
    project_a, project_b = ProjectTo(a), ProjectTo(b)

    def matmul_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), ZeroTangent(), ZeroTangent()
        return NoTangent(), project_a(out_bar @ np.conj(b).T), project_b(np.conj(a).T @ out_bar)

    return a @ b, matmul_pullback


@frule.register(_matmul)
def _frule_matmul(tangents: tuple[Any, ...], f: Any, a: Any, b: Any) -> Any:
    _, a_dot, b_dot = (unthunk(t) for t in tangents)
    out_dot: Any = ZeroTangent()
    if not isinstance(a_dot, AbstractZero):
        out_dot = out_dot + a_dot @ b
    if not isinstance(b_dot, AbstractZero):
        out_dot = out_dot + a @ b_dot
    return a @ b, out_dot


def _total(x: Any) -> Any:
    return np.sum(x)


@rrule.register(_total)
def _rrule_total(f: Any, x: Any) -> Any:
    project_x = ProjectTo(x)

    def total_pullback(out_bar: Any) -> tuple[Any, Any]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), ZeroTangent()
        return NoTangent(), project_x(np.broadcast_to(out_bar, np.shape(x)))

    return np.sum(x), total_pullback


@frule.register(_total)
def _frule_total(tangents: tuple[Any, ...], f: Any, x: Any) -> Any:
    x_dot = unthunk(tangents[1])
    return np.sum(x), ZeroTangent() if isinstance(x_dot, AbstractZero) else np.sum(x_dot)


def _mean(x: Any) -> Any:
    return np.mean(x)


@rrule.register(_mean)
def _rrule_mean(f: Any, x: Any) -> Any:
    project_x = ProjectTo(x)
    n = np.size(x)

    def mean_pullback(out_bar: Any) -> tuple[Any, Any]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), ZeroTangent()
        return NoTangent(), project_x(np.broadcast_to(out_bar / n, np.shape(x)))

    return np.mean(x), mean_pullback


@frule.register(_mean)
def _frule_mean(tangents: tuple[Any, ...], f: Any, x: Any) -> Any:
    x_dot = unthunk(tangents[1])
    return np.mean(x), ZeroTangent() if isinstance(x_dot, AbstractZero) else np.mean(x_dot)


def _add(a: Any, b: Any) -> Any:
    return a + b


def _sub(a: Any, b: Any) -> Any:
    return a - b


def _mul(a: Any, b: Any) -> Any:
    return a * b


def _tanh(x: Any) -> Any:
    return np.tanh(x)


def _softplus(x: Any) -> Any:
    return np.logaddexp(0.0, x)


def _sin(x: Any) -> Any:
    return np.sin(x)


def _exp(x: Any) -> Any:
    return np.exp(x)


def _square(x: Any) -> Any:
    return x * x


for _f, _partials in [
    (_add, lambda out, a, b: (1.0, 1.0)),
    (_sub, lambda out, a, b: (1.0, -1.0)),
    (_mul, lambda out, a, b: (b, a)),
    (_tanh, lambda out, x: 1 - out**2),
    (_softplus, lambda out, x: 1 / (1 + np.exp(-x))),
    (_sin, lambda out, x: np.cos(x)),
    (_exp, lambda out, x: out),
    (_square, lambda out, x: 2 * x),
]:
    scalar_rule(_f, _partials)

LOCAL = SimpleNamespace(
    matmul=lift(_matmul),
    add=lift(_add),
    sub=lift(_sub),
    mul=lift(_mul),
    tanh=lift(_tanh),
    softplus=lift(_softplus),
    sin=lift(_sin),
    exp=lift(_exp),
    square=lift(_square),
    sum=lift(_total),
    mean=lift(_mean),
)

NUMPY = SimpleNamespace(
    matmul=np.matmul,
    add=np.add,
    sub=np.subtract,
    mul=np.multiply,
    tanh=np.tanh,
    softplus=lambda x: np.logaddexp(0.0, x),
    sin=np.sin,
    exp=np.exp,
    square=np.square,
    sum=np.sum,
    mean=np.mean,
)

_V, _M = np.ones(2), np.ones((2, 2))

# The primitives each program reaches when written with numpy, math and operator, and arguments to probe them.
PRIMITIVES: dict[str, list[tuple[Any, tuple[Any, ...]]]] = {
    "polynomial": [(np.multiply, (3.0, _V)), (np.add, (_V, _V)), (np.subtract, (_V, _V)), (np.square, (_V,))],
    "network": [
        (np.matmul, (_M, _M)),
        (np.add, (_M, _M)),
        (np.tanh, (_M,)),
        (np.logaddexp, (0.0, _M)),
        (np.subtract, (_M, _M)),
        (np.square, (_M,)),
        (np.mean, (_M,)),
    ],
    "math_operator": [
        (operator.mul, (0.5, 0.5)),
        (operator.add, (0.5, 0.5)),
        (operator.truediv, (0.5, 0.5)),
        (operator.pow, (0.5, 2)),
        (math.sin, (0.5,)),
        (math.exp, (0.5,)),
        (math.hypot, (0.5, 0.5)),
    ],
    "object": [(np.matmul, (_M, _M)), (np.add, (_M, _M)), (np.tanh, (_M,)), (np.sum, (_M,))],
    "linalg": [
        (np.linalg.eigh, (_M,)),
        (np.linalg.slogdet, (_M,)),
        (np.linalg.svd, (_M,)),
        (np.linalg.inv, (_M,)),
        (np.matmul, (_M, _M)),
        (np.einsum, ("ij,jk->ik", _M, _M)),
        (np.linalg.norm, (_M,)),
        (np.sum, (_M,)),
    ],
    "arrays": [
        (np.concatenate, ([_M, _M],)),
        (np.ndarray.reshape, (_M, 4)),
        (np.transpose, (_M,)),
        (np.ndarray.__getitem__, (_M, 0)),
        (np.ndarray.sum, (_M,)),
        (np.stack, ([_V, _V],)),
        (np.mean, (_M,)),
        (np.cumsum, (_V,)),
    ],
}


def missing_rules(program: str) -> list[str]:
    """The primitives of ``program`` that lack an rrule or an frule."""
    return [
        getattr(f, "__name__", repr(f))
        for f, probe in PRIMITIVES[program]
        if rrule.find(f, *probe) is None or frule.find(f, *probe) is None
    ]


def elementwise_rules_registered() -> bool:
    """Whether the elementwise family (ufuncs, ``math``, ``operator``) is part of this checkout."""
    return rrule.find(np.sin, _V) is not None and rrule.find(operator.add, 0.5, 0.5) is not None


def require_rules(program: str) -> None:
    """Skip while the elementwise family is not part of the checkout; once it is, a missing rule fails."""
    missing = missing_rules(program)
    if not missing:
        return
    if not elementwise_rules_registered():
        pytest.skip(f"the elementwise rules are not part of this checkout yet (needed: {', '.join(missing)})")
    pytest.fail(f"rules the {program} program needs are not registered: {', '.join(missing)}")


# ----- the programs -----


def polynomial(x: Any, ops: Any = LOCAL) -> Any:
    """``3 x^3 - 2 x^2 + x``, elementwise."""
    x2 = ops.square(x)
    return ops.add(ops.sub(ops.mul(3.0, ops.mul(x2, x)), ops.mul(2.0, x2)), x)


def network(thetas: list[Any], ws: list[Any], x: Any, ops: Any = LOCAL) -> Any:
    """``x_{i+1} = layer_i(theta_i, w_i, x_i)`` with tanh layers and a softplus output layer."""
    last = len(ws) - 1
    for i, (theta, w) in enumerate(zip(thetas, ws)):
        activation = ops.softplus if i == last else ops.tanh
        x = activation(ops.add(ops.matmul(w, x), theta))
    return x


def network_loss(thetas: list[Any], ws: list[Any], x: Any, target: Any, ops: Any = LOCAL) -> Any:
    """The mean squared error of the network's output."""
    return ops.mean(ops.square(ops.sub(network(thetas, ws, x, ops), target)))


def make_network(rng: np.random.Generator, width: int = 6, layers: int = 8, batch: int = 5) -> dict[str, Any]:
    """An 8-layer network with a batch of inputs and targets; weights scaled to keep tanh unsaturated."""
    return {
        "thetas": [0.1 * rng.standard_normal((width, 1)) for _ in range(layers)],
        "ws": [rng.standard_normal((width, width)) / math.sqrt(width) for _ in range(layers)],
        "x": rng.standard_normal((width, batch)),
        "target": 0.5 + 0.1 * rng.standard_normal((width, batch)),
    }


def array_program(a: Any, b: Any) -> Any:
    """Joining, reshaping, indexing and reducing (numpy's own rules) around local elementwise primitives."""
    c = np.concatenate([a, b], axis=0)
    s = c.reshape(2, 6).T
    v = s[1:4].sum(axis=1)
    w = np.stack([v, v[::-1]])
    m = np.mean(s, axis=0)
    return LOCAL.add(LOCAL.sum(LOCAL.mul(w, w)), LOCAL.sum(LOCAL.mul(m, np.cumsum(m))))


def linalg_program(a: Any) -> Any:
    """Factorizations with tuple outputs (namedtuples among them), products and norms."""
    s = np.einsum("ij,kj->ik", a, a)  # a @ a.T: symmetric, without needing elementwise rules
    eigenvalues = np.linalg.eigh(s).eigenvalues
    _, logdet = np.linalg.slogdet(a)
    singular = np.linalg.svd(a, compute_uv=False)
    inverse = np.linalg.inv(a) @ a.T
    return LOCAL.add(
        LOCAL.add(np.sum(eigenvalues), logdet),
        LOCAL.add(np.sum(singular), LOCAL.add(np.linalg.norm(inverse, axis=1)[0], inverse.trace())),
    )


def math_operator_program(x: float, y: float) -> Any:
    """A scalar program of the ``math`` and ``operator`` modules; ``lifted(math)`` lets the engines see math calls."""
    m = lifted(math)
    r = m.hypot(x, y)
    return operator.add(operator.mul(m.sin(x), m.exp(operator.truediv(y, r))), operator.pow(x, 2))


@dataclass
class Layer:
    """A callable object with fields: ``tanh(w @ x + b)``."""

    w: Any
    b: Any
    ops: ClassVar[Any] = LOCAL

    def __call__(self, x: Any) -> Any:
        return self.ops.tanh(self.ops.add(self.ops.matmul(self.w, x), self.b))


class RuledLayer(Layer):
    """A ``Layer`` whose class has rules, so the engines call them rather than its code."""


@rrule.register(RuledLayer)
def _rrule_ruled_layer(layer: RuledLayer, x: Any) -> Any:
    w, b = layer.w, layer.b
    out = np.tanh(w @ x + b)
    project_b = ProjectTo(b)

    def ruled_layer_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return ZeroTangent(), ZeroTangent()
        z_bar = out_bar * (1 - out**2)
        b_bar = project_b(np.sum(z_bar, axis=1, keepdims=True) if np.ndim(b) == 2 else z_bar)
        return Tangent(RuledLayer, w=z_bar @ x.T, b=b_bar), w.T @ z_bar

    return out, ruled_layer_pullback


@frule.register(RuledLayer)
def _frule_ruled_layer(tangents: tuple[Any, ...], layer: RuledLayer, x: Any) -> Any:
    layer_dot, x_dot = (unthunk(t) for t in tangents)
    out = np.tanh(layer.w @ x + layer.b)
    z_dot = 0.0
    if not isinstance(layer_dot, AbstractZero):
        z_dot = z_dot + unthunk(layer_dot.w) @ x + unthunk(layer_dot.b)
    if not isinstance(x_dot, AbstractZero):
        z_dot = z_dot + layer.w @ x_dot
    return out, (1 - out**2) * z_dot


class Model:
    """An object whose method is the program: a bound method with fields on ``self``."""

    def __init__(self, scale: float, shift: Any) -> None:
        self.scale = scale
        self.shift = shift

    def energy(self, x: Any, ops: Any = LOCAL) -> Any:
        return ops.sum(ops.mul(self.scale, ops.square(ops.sub(x, self.shift))))


# ----- finite differences through the harness -----


def fd_jvp(f: Any, args: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[np.ndarray, Any]:
    """``J @ tangents`` of ``f`` at ``args`` by the harness's finite differences, as a real vector."""
    layouts = [layout_of(a) for a in args]
    base = [layout.to_vec(a) for layout, a in zip(layouts, args)]
    steps = [layout.tangent_to_vec(t) for layout, t in zip(layouts, tangents)]
    out_layout = layout_of(f(*args))

    def phi(t: float) -> np.ndarray:
        moved = [layout.from_vec(b + t * d, True) for layout, b, d in zip(layouts, base, steps)]
        return out_layout.to_vec(f(*moved))

    return FiniteDifferences().derivative(phi).value, out_layout


def inner(a: Any, b: Any, of: Any) -> float:
    """``<a, b>`` for two (co)tangents of the value ``of``, complex entries as ℝ²."""
    layout = layout_of(of)
    return float(layout.tangent_to_vec(a) @ layout.tangent_to_vec(b))


def random_tangent(x: Any, rng: np.random.Generator) -> Any:
    layout = layout_of(x)
    return layout.vec_to_tangent(rng.standard_normal(layout.size))


def check_program(f: Callable[..., Any], args: tuple[Any, ...], seed: int = 0, rtol: float = 1e-6) -> None:
    """Reverse against forward mode by the inner-product identity, forward mode against finite differences."""
    rng = np.random.default_rng(seed)
    y, back = ad.forward(f, *args)
    np.testing.assert_allclose(np.asarray(y), np.asarray(f(*args)), rtol=1e-12)
    y_bar = random_tangent(y, rng)
    x_bars = back(y_bar)
    assert len(x_bars) == len(args)
    tangents = tuple(random_tangent(a, rng) for a in args)
    y_fwd, y_dot = ad.jvp(f, args, tangents)
    np.testing.assert_allclose(np.asarray(y_fwd), np.asarray(y), rtol=1e-12)
    fd, out_layout = fd_jvp(f, args, tangents)
    y_dot_vec = out_layout.tangent_to_vec(y_dot)
    scale = np.max(np.abs(fd))
    np.testing.assert_allclose(y_dot_vec, fd, rtol=rtol, atol=rtol * scale)
    lhs = float(out_layout.tangent_to_vec(y_bar) @ y_dot_vec)
    rhs = sum(inner(x_bar, dx, a) for x_bar, dx, a in zip(x_bars, tangents, args))
    identity_rtol = 1e-10 if rtol <= 1e-6 else rtol  # reverse and forward agree to rounding in float64
    assert lhs == pytest.approx(rhs, rel=identity_rtol, abs=identity_rtol * scale)


def check_second_order(f: Callable[..., Any], args: tuple[Any, ...], seed: int = 0, rtol: float = 1e-6) -> None:
    """``<u, H v>`` of a real scalar ``f`` by ``hvp`` in both modes, against nested finite differences along random
    directions ``u`` and ``v`` (the derivative along ``v`` of the derivative along ``u``)."""
    rng = np.random.default_rng(seed)
    layouts = [layout_of(a) for a in args]
    base = [layout.to_vec(a) for layout, a in zip(layouts, args)]
    us = [rng.standard_normal(layout.size) for layout in layouts]
    vs = [rng.standard_normal(layout.size) for layout in layouts]

    def along_u(t: float) -> np.ndarray:
        def phi(s: float) -> np.ndarray:
            moved = [layout.from_vec(b + s * u + t * v, True) for layout, b, u, v in zip(layouts, base, us, vs)]
            return np.atleast_1d(np.asarray(f(*moved), dtype=float))

        return FiniteDifferences().derivative(phi).value  # type: ignore[no-any-return]

    want = float(FiniteDifferences().derivative(along_u).value[0])
    tangents = tuple(layout.vec_to_tangent(v) for layout, v in zip(layouts, vs))
    for mode in ("forward-over-reverse", "reverse-over-reverse"):
        _, hv = ad.hvp(f, args, tangents, mode=mode)
        got = sum(float(layout.tangent_to_vec(unthunk(h)) @ u) for layout, h, u in zip(layouts, hv, us))
        assert got == pytest.approx(want, rel=rtol, abs=rtol * max(1.0, abs(want))), mode
