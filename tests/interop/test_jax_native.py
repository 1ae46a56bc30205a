"""chainrules.interop.jax's native path: generic rules traced by JAX, against JAX's own derivatives at two orders."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="JAX is optional: pip install 'chainrules[jax]'")

import jax.numpy as jnp  # noqa: E402

from chainrules.interop.jax import wrap  # noqa: E402
from chainrules_core import NoTangent, frule, function_name, rrule  # noqa: E402
from chainrules_core.arrays import namespace_of  # noqa: E402
from chainrules_core.testing import At, Case  # noqa: E402
from tests.interop.checking import (  # noqa: E402
    assert_close,
    declared_cases,
    entries,
    on_operands,
    operand_slots,
)


@pytest.fixture(autouse=True)
def _x64() -> Iterator[None]:
    with jax.enable_x64(True):
        yield


# A few functions per generic family, each with its first declared case at a random point (no ties, no kinks).
CHOSEN = {
    "numpy.elementwise": [np.sin, np.tanh, np.arccosh, np.sqrt, np.log1p],
    "numpy.reductions": [np.sum, np.prod, np.mean, np.max],
    "numpy.products": [np.matmul, np.tensordot, np.vecdot, np.linalg.outer],
    "numpy.linalg.dense": [np.linalg.solve, np.linalg.inv, np.linalg.det, np.linalg.slogdet, np.linalg.matrix_power],
}
COMPLEX = {np.sin, np.sqrt, np.sum, np.matmul, np.linalg.solve}


def _cases(dtype: str, only: set[Any] | None = None) -> list[Any]:
    params = []
    for family, functions in CHOSEN.items():
        cases = declared_cases(family)
        for f in functions:
            if only is not None and f not in only:
                continue
            case = next(
                c
                for c in cases
                if c.f is f and dtype in c.valid_dtypes() and not any(isinstance(a, At) for a in c.args)
            )
            params.append(pytest.param(case, id=f"{case.label}-{dtype}"))
    return params


def _counterpart(f: Any) -> Any:
    module = jnp.linalg if getattr(np.linalg, f.__name__, None) is f else jnp
    return getattr(module, f.__name__)


def _problem(case: Case, dtype: str) -> tuple[Any, Any, list[Any], Any]:
    """The wrapped function and JAX's, each of the operands; the operands; a real loss of the outputs."""
    rng = np.random.default_rng(1)
    given = case.make_args(rng, dtype)
    args = [getattr(a, "primal", a) for a in given]
    slots = operand_slots(given)
    ours = on_operands(wrap(case.f), args, slots, case.kwargs)
    theirs = on_operands(_counterpart(case.f), args, slots, case.kwargs)
    operands = [jnp.asarray(args[i] if j is None else args[i][j]) for i, j in slots]
    weights = [rng.normal(size=np.shape(o)) for o in entries(case.f(*args, **case.kwargs))]

    def loss(fn: Any) -> Any:
        return lambda *xs: sum(jnp.sum(jnp.real(o * w)) for o, w in zip(entries(fn(*xs)), weights))

    return ours, theirs, operands, loss


def _close(got: Any, expected: Any, what: str) -> None:
    got, expected = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(expected)
    assert_close(got, expected, 1e-10, [f"{what}, leaf {i}" for i in range(len(expected))])


@pytest.mark.parametrize("case", _cases("float64"))
def test_declared_case_to_second_order(case: Case) -> None:
    """Under jit: grad, jvp, vmap of grad, hessian (forward over reverse), jacrev of grad (reverse over reverse)."""
    ours, theirs, operands, loss = _problem(case, "float64")
    assert wrap(case.f).path == "native"
    argnums = tuple(range(len(operands)))
    dots = [jnp.asarray(np.random.default_rng(2).normal(size=o.shape)) for o in operands]
    batch = jnp.stack([operands[0], 0.9 * operands[0]])  # vmap over two first operands: batched by JAX's rules
    axes = (0,) + (None,) * (len(operands) - 1)

    def transforms(g: Any) -> Any:  # one jit, one compilation for all of them
        grad = jax.grad(loss(g), argnums=argnums)
        return jax.jit(
            lambda *xs: {
                "grad": grad(*xs),
                "jvp": jax.jvp(g, xs, tuple(dots)),
                "hessian": jax.hessian(loss(g), argnums=argnums)(*xs),
                "jacrev-grad": jax.jacrev(grad, argnums=argnums)(*xs),
                "vmap-grad": jax.vmap(grad, in_axes=axes)(batch, *xs[1:]),
            }
        )

    got, expected = transforms(ours)(*operands), transforms(theirs)(*operands)
    for name in expected:
        _close(got[name], expected[name], name)


@pytest.mark.parametrize("case", _cases("complex128", COMPLEX))
def test_complex_declared_case(case: Case) -> None:
    """A real loss of complex values: JAX's convention comes from JAX transposing the rule's pushforward."""
    ours, theirs, operands, loss = _problem(case, "complex128")
    argnums = tuple(range(len(operands)))
    dots = [o * (0.5 - 0.25j) for o in operands]
    grad = lambda g: jax.jit(jax.grad(loss(g), argnums=argnums))  # noqa: E731
    jvp = lambda g: jax.jit(lambda *xs: jax.jvp(g, xs, tuple(dots)))  # noqa: E731
    _close(grad(ours)(*operands), grad(theirs)(*operands), "grad")
    _close(jvp(ours)(*operands), jvp(theirs)(*operands), "jvp")


def test_third_order_and_no_callback() -> None:
    sin, total = wrap(np.sin), wrap(np.sum)
    x = jnp.array([0.1, 0.7, -1.2])
    third = lambda g: jax.jit(jax.jacfwd(jax.jacrev(jax.grad(g))))  # noqa: E731
    _close(third(lambda x: total(sin(x) ** 2))(x), third(lambda x: jnp.sum(jnp.sin(x) ** 2))(x), "third")
    jaxpr = str(jax.make_jaxpr(jax.hessian(lambda x: total(sin(x))))(x))
    assert "callback" not in jaxpr


# ----- a user's own rule, written with the input's namespace -----

SEEN: list[tuple[str, str]] = []


def doubled_sin(x: Any) -> Any:
    """``sin``, whose rules below deliberately give twice its derivative."""
    return namespace_of(x).sin(x)


@rrule.register(doubled_sin, generic=True)
def _rrule_doubled_sin(f: Any, x: Any) -> Any:
    xp = namespace_of(x)
    SEEN.append((type(x).__name__, xp.__name__))

    def doubled_sin_pullback(y_bar: Any) -> Any:
        return NoTangent(), 2 * y_bar * xp.cos(x)

    return xp.sin(x), doubled_sin_pullback


@frule.register(doubled_sin, generic=True)
def _frule_doubled_sin(tangents: Any, f: Any, x: Any) -> Any:
    xp = namespace_of(x)
    SEEN.append((type(x).__name__, xp.__name__))
    _, x_dot = tangents
    return xp.sin(x), 2 * xp.cos(x) * x_dot


def test_a_user_rule_shows_through() -> None:
    """Twice the derivative, in every transform: the rule ran, not JAX's derivative of sin; it saw tracers and
    jax.numpy as its namespace under jit and vmap."""
    fn = wrap(doubled_sin)
    assert fn.path == "native"
    x = jnp.array([0.3, -0.8])
    SEEN.clear()
    np.testing.assert_allclose(jax.jit(jax.grad(lambda x: fn(x).sum()))(x), 2 * jnp.cos(x), rtol=1e-14)
    np.testing.assert_allclose(jax.jvp(fn, (x,), (jnp.ones(2),))[1], 2 * jnp.cos(x), rtol=1e-14)
    np.testing.assert_allclose(jax.hessian(lambda x: fn(x).sum())(x), jnp.diag(-2 * jnp.sin(x)), rtol=1e-14)
    np.testing.assert_allclose(jax.jit(jax.vmap(jax.grad(fn)))(x), 2 * jnp.cos(x), rtol=1e-14)
    assert {name for _, name in SEEN} == {"jax.numpy"}
    assert {"DynamicJaxprTracer", "BatchTracer"} <= {kind for kind, _ in SEEN}


def test_paths() -> None:
    """native where every rule is generic; host for numpy's rules alone, or on request; derived without rules."""
    assert wrap(np.linalg.eig).path == "host"
    assert wrap(np.sin, path="host").path == "host"
    assert wrap(lambda x: x).path == "derived"
    with pytest.raises(ValueError, match="numpy arrays alone"):
        wrap(np.linalg.eig, path="native")
    with pytest.raises(ValueError, match="path must be"):
        wrap(np.sin, path="device")
    grad = jax.grad(lambda x: wrap(np.sin, path="host")(x).sum())(jnp.array([0.5]))
    np.testing.assert_allclose(grad, np.cos([0.5]), rtol=1e-15)


def test_a_rule_refusing_jax_arrays_goes_to_the_host() -> None:
    """np.fabs's rule is generic but JAX lacks fabs in the standard: the call goes to the host, and stays there."""
    fn = wrap(np.fabs)
    assert fn.path == "native"
    x = jnp.array([-0.5, 2.0])
    np.testing.assert_allclose(jax.jit(jax.grad(lambda x: fn(x).sum()))(x), [-1.0, 1.0])
    assert fn.path == "host", function_name(np.fabs)
    with pytest.raises(TypeError, match="has no rule for arrays of type jax"):
        wrap(np.fabs, path="native")(x)
