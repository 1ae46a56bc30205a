"""A numpy function without rules, wrapped for each framework: its rules derived by the reference engines.

``f(A, x) = tanh(solve(A, x))`` has no rule; its primitives have. Each
adapter marks it ``path == "derived"`` and differentiates it in every mode
the framework offers, to second order, against the same function written in
the framework's own operations.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

import numpy as np
import pytest

import chainrules  # noqa: F401 - registers the rules
import chainrules.engines as ad
from chainrules_core import NoTangent, frule, rrule

A = np.array([[2.0, 0.5], [0.3, 1.5]])
X = np.array([0.4, -0.2])


def solve_tanh(a, x):
    """No rule of its own: numpy's primitives, which have theirs."""
    return np.tanh(np.linalg.solve(a, x))


@dataclass
class Affine:
    """A callable object without rules: its fields learn through derived rules."""

    w: np.ndarray
    b: np.ndarray

    def __call__(self, x):
        return np.tanh(x @ self.w + self.b)


def needs(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is optional: pip install 'chainrules[{module}]'")


# ----- the engines' helpers -----


def test_derived_rules_registered_for_a_function_trace_its_body():
    def local(a, x):
        return np.tanh(np.linalg.solve(a, x))

    rrule.register(local)(ad.derived_rrule(local))
    frule.register(local)(ad.derived_frule(local))
    y, pullback = rrule(local, A, X)
    g = np.array([1.0, -2.0])
    s = 1 - y**2
    x_bar = np.linalg.solve(A.T, s * g)
    np.testing.assert_allclose(pullback(g)[2], x_bar, rtol=1e-13)
    np.testing.assert_allclose(pullback(g)[1], -np.outer(x_bar, np.linalg.solve(A, X)), rtol=1e-13)
    assert pullback(g)[0] == NoTangent()
    x_dot = np.array([0.5, 1.0])
    np.testing.assert_allclose(frule((NoTangent(), 0 * A, x_dot), local, A, X)[1], s * np.linalg.solve(A, x_dot))
    # second order through the registered derived rules: the engines nest over them
    h = ad.hessian(lambda x: np.sum(local(A, x)), X)
    np.testing.assert_allclose(h, ad.hessian(lambda x: np.sum(solve_tanh(A, x)), X), rtol=1e-12)


def test_a_rule_that_runs_the_engines_on_its_own_function_is_refused_at_once():
    def looping(a, x):
        return np.tanh(np.linalg.solve(a, x))

    @rrule.register(looping)
    def _rrule_looping(f, a, x):
        return ad.forward(looping, a, x)

    with pytest.raises(RecursionError, match=r"looping's rule runs the engines on looping itself.*derived_rrule"):
        rrule(looping, A, X)


def test_a_callable_object_gets_a_cotangent_for_its_fields():
    obj = Affine(np.array([[0.5, -0.2], [0.1, 0.3]]), np.array([0.1, -0.1]))
    x = np.array([[1.0, 2.0], [0.5, -1.0]])
    y, pullback = ad.derived_rrule()(obj, x)
    g = np.ones_like(y)
    f_bar, x_bar = pullback(g)
    pre_bar = (1 - y**2) * g
    np.testing.assert_allclose(f_bar.w, x.T @ pre_bar, rtol=1e-13)
    np.testing.assert_allclose(f_bar.b, pre_bar.sum(axis=0), rtol=1e-13)
    np.testing.assert_allclose(x_bar, pre_bar @ obj.w.T, rtol=1e-13)


# ----- torch -----


def test_torch():
    needs("torch")
    import torch

    from chainrules.interop.torch import module, wrap

    wrapped = wrap(solve_tanh)
    assert wrapped.path == "derived" and wrap(np.sin).path == "native" and wrap(np.linalg.eig).path == "host"
    a = torch.tensor(A, requires_grad=True)
    x = torch.tensor(X, requires_grad=True)

    def reference(a, x):
        return torch.tanh(torch.linalg.solve(a, x))

    wrapped(a, x).sum().backward()
    a2, x2 = a.detach().clone().requires_grad_(), x.detach().clone().requires_grad_()
    reference(a2, x2).sum().backward()
    torch.testing.assert_close(x.grad, x2.grad, rtol=1e-12, atol=0)
    torch.testing.assert_close(a.grad, a2.grad, rtol=1e-12, atol=0)
    assert torch.autograd.gradcheck(wrapped, (a, x))
    assert torch.autograd.gradgradcheck(wrapped, (a, x))
    fixed = a.detach()
    ours = torch.func.hessian(lambda x: wrapped(fixed, x).sum())(x.detach())
    torch.testing.assert_close(ours, torch.func.hessian(lambda x: reference(fixed, x).sum())(x.detach()))
    tangent = torch.tensor([0.5, 1.0], dtype=torch.float64)
    ours = torch.func.jvp(lambda x: wrapped(fixed, x), (x.detach(),), (tangent,))[1]
    torch.testing.assert_close(ours, torch.func.jvp(lambda x: reference(fixed, x), (x.detach(),), (tangent,))[1])

    # a callable object without rules, its fields learned by torch.optim
    m = module(Affine(np.array([[0.5, -0.2], [0.1, 0.3]]), np.array([0.1, -0.1])))
    assert m.path == "derived"
    xs = torch.tensor([[1.0, 2.0], [0.5, -1.0]], dtype=torch.float64)
    ys = torch.tensor([[0.2, 0.1], [-0.3, 0.4]], dtype=torch.float64)
    w = m.w.detach().clone().requires_grad_()
    b = m.b.detach().clone().requires_grad_()
    ((m(xs) - ys) ** 2).sum().backward()
    ((torch.tanh(xs @ w + b) - ys) ** 2).sum().backward()
    torch.testing.assert_close(m.w.grad, w.grad)
    torch.testing.assert_close(m.b.grad, b.grad)
    optimizer = torch.optim.SGD(m.parameters(), lr=0.1)
    losses = []
    for _ in range(20):
        optimizer.zero_grad()
        loss = ((m(xs) - ys) ** 2).sum()
        loss.backward()
        optimizer.step()
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0], losses


# ----- JAX -----


def test_jax():
    needs("jax")
    import jax
    import jax.numpy as jnp

    from chainrules.interop.jax import wrap

    with jax.enable_x64(True):
        _jax_checks(jax, jnp, wrap)


def _jax_checks(jax, jnp, wrap):
    wrapped = wrap(solve_tanh)
    assert wrapped.path == "derived"

    def reference(a, x):
        return jnp.tanh(jnp.linalg.solve(a, x))

    def loss(x):
        return wrapped(A, x).sum()

    def reference_loss(x):
        return reference(A, x).sum()

    np.testing.assert_allclose(jax.grad(loss)(X), jax.grad(reference_loss)(X), rtol=1e-12)
    np.testing.assert_allclose(jax.jit(jax.grad(loss))(X), jax.grad(reference_loss)(X), rtol=1e-12)
    xs = jnp.stack([X, 2 * X, -X])
    np.testing.assert_allclose(jax.vmap(jax.grad(loss))(xs), jax.vmap(jax.grad(reference_loss))(xs), rtol=1e-12)
    forward = wrap(solve_tanh, mode="forward")
    t = jnp.array([0.5, 1.0])
    ours = jax.jvp(lambda x: forward(A, x), (X,), (t,))[1]
    np.testing.assert_allclose(ours, jax.jvp(lambda x: reference(A, x), (X,), (t,))[1], rtol=1e-12)


# ----- autograd -----


def test_autograd():
    needs("autograd")
    import autograd
    import autograd.numpy as anp

    from chainrules.interop.autograd import wrap

    wrapped = wrap(solve_tanh)
    assert wrapped.path == "derived"

    def loss(x):
        return anp.sum(wrapped(A, x))

    def reference_loss(x):
        return anp.sum(anp.tanh(anp.linalg.solve(A, x)))

    np.testing.assert_allclose(autograd.grad(loss)(X), autograd.grad(reference_loss)(X), rtol=1e-12)
    np.testing.assert_allclose(autograd.hessian(loss)(X), autograd.hessian(reference_loss)(X), rtol=1e-12)
    t = np.array([0.5, 1.0])
    ours = autograd.make_jvp(lambda x: wrapped(A, x))(X)(t)[1]  # autograd has no JVP of its own solve
    np.testing.assert_allclose(ours, (1 - solve_tanh(A, X) ** 2) * np.linalg.solve(A, t), rtol=1e-12)


# ----- a body that passes a followed bound by keyword and reduces a list of scalars -----

C = np.array([0.2, -1.3, 2.1, 0.8])  # at least 0.3 from the bounds: the clip is smooth here


def clipped_spread(x, lo, hi):
    """No rule of its own: a bound by keyword (moved to its position in clip's rule) and the spread of a list of
    followed scalars (numpy's object array, reduced entry by entry)."""
    c = np.clip(x, lo, a_max=hi)
    return np.std([np.sum(c * x), np.sum(c**2), np.sum(np.sin(x))])


def test_keywords_and_lists_of_scalars_in_a_derived_body():
    needs("torch")
    needs("jax")
    import jax
    import jax.numpy as jnp
    import torch

    from chainrules.interop.jax import wrap as wrap_jax
    from chainrules.interop.torch import wrap as wrap_torch

    def torch_reference(x, lo, hi):
        c = torch.clamp(x, lo, hi)
        return torch.std(torch.stack([torch.sum(c * x), torch.sum(c**2), torch.sum(torch.sin(x))]), correction=0)

    wrapped = wrap_torch(clipped_spread)
    assert wrapped.path == "derived"
    args = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (C, -0.5, 1.5)]
    assert torch.autograd.gradcheck(wrapped, args)
    assert torch.autograd.gradgradcheck(wrapped, args)
    ours = torch.autograd.grad(wrapped(*args), args)
    torch.testing.assert_close(ours, torch.autograd.grad(torch_reference(*args), args), rtol=1e-12, atol=0)

    def jax_reference(x, lo, hi):
        c = jnp.clip(x, lo, hi)
        return jnp.std(jnp.stack([jnp.sum(c * x), jnp.sum(c**2), jnp.sum(jnp.sin(x))]))

    with jax.enable_x64(True):
        values = (jnp.asarray(C), jnp.asarray(-0.5), jnp.asarray(1.5))
        ours = jax.grad(wrap_jax(clipped_spread), argnums=(0, 1, 2))(*values)
        want = jax.grad(jax_reference, argnums=(0, 1, 2))(*values)
        for got, expected in zip(ours, want):
            np.testing.assert_allclose(got, expected, rtol=1e-12)
