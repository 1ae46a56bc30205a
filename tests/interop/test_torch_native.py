"""chainrules.interop.torch's native path: generic rules run on the tensors themselves, and torch differentiates
the rules' own operations, to any order.

The first-order checks of every declared case of the families in both modes are test_torch.py's
``test_declared_case``: the generic functions among them take this path (``test_the_families_take_the_native_path``
says which). Here: second and third derivatives against torch's own, torch.func, vmap, torch.compile, devices, and
proof that the rule ran rather than torch's derivative of the primal.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is optional: pip install 'chainrules[torch]'")
pytest.importorskip("array_api_compat", reason="the native path needs array_api_compat: 'chainrules[array-api]'")

import scipy.special  # noqa: E402

from chainrules.interop import torch as interop  # noqa: E402
from chainrules_core import NoTangent, Tangent, frule, rrule  # noqa: E402
from chainrules_core.arrays import namespace_of  # noqa: E402
from chainrules_core.testing import PrimalAndTangent  # noqa: E402
from chainrules_core.testing.cases import At  # noqa: E402
from tests.interop import rules  # noqa: E402
from tests.interop.checking import FAMILIES, _at, declared_cases, entries, on_operands, operand_slots  # noqa: E402
from tests.interop.torch_ops import counterpart  # noqa: E402

F64 = torch.float64
TOL = {"rtol": 1e-10, "atol": 1e-12}


# ----- user rules written with the input's namespace -----

SEEN: list[Any] = []
"""What ``doubled_sin``'s rule received, call by call."""


def doubled_sin(x: Any) -> Any:
    """sin, whose rules deliberately give twice its derivative: what reaches torch is the rule's."""
    return np.sin(x)


@rrule.register(doubled_sin, generic=True)
def _rrule_doubled_sin(f: Any, x: Any) -> Any:
    xp = namespace_of(x)
    SEEN.append(x)

    def doubled_sin_pullback(y_bar: Any) -> Any:
        return NoTangent(), 2 * y_bar * xp.cos(x)

    return xp.sin(x), doubled_sin_pullback


@frule.register(doubled_sin, generic=True)
def _frule_doubled_sin(tangents: Any, f: Any, x: Any) -> Any:
    xp = namespace_of(x)
    return xp.sin(x), 2 * xp.cos(x) * tangents[1]


class Scale:
    """``a * x`` with a learnable field ``a``, its rule written for any array library."""

    def __init__(self, a: Any) -> None:
        self.a = a

    def __call__(self, x: Any) -> Any:
        return self.a * x


@rrule.register(Scale, generic=True)
def _rrule_scale(s: Scale, x: Any) -> Any:
    xp = namespace_of(x)

    def scale_pullback(y_bar: Any) -> Any:
        return Tangent(Scale, a=xp.sum(y_bar * x, axis=1, keepdims=True)), s.a * y_bar

    return s.a * x, scale_pullback


def without_rules(x: Any) -> Any:
    return np.sin(x) * x


def test_the_path_is_native_where_every_rule_is_generic() -> None:
    assert interop.wrap(np.sin).path == "native"
    assert interop.wrap(np.linalg.solve).path == "native"
    assert interop.wrap(doubled_sin).path == "native"
    assert interop.module(Scale(np.ones((2, 1)))).path == "native"
    assert interop.wrap(scipy.special.gamma).path == "host"  # numpy's alone
    assert interop.wrap(rules.scale_shift).path == "host"  # a user rule registered without generic=True
    assert interop.wrap(without_rules).path == "derived"


def test_the_families_take_the_native_path() -> None:
    """Most declared functions of the families compared in test_torch.py are generic: those run natively there."""
    functions = {case.f for family in FAMILIES for case in declared_cases(family)}
    native = {f for f in functions if interop.wrap(f).path == "native"}
    assert len(native) >= 0.7 * len(functions), sorted(map(str, functions - native))
    assert {np.sin, np.tanh, np.sum, np.matmul, np.linalg.solve, np.linalg.det} <= native


# ----- the rule ran, on the tensors as they are -----


def test_tensors_reach_the_rule_as_they_are_and_the_rule_shows_through() -> None:
    """The rule gets the tensor itself; its deliberate factor 2 shows in both modes and at second order."""
    x = torch.tensor([0.3, -1.2, 2.0], dtype=F64, requires_grad=True)
    f = interop.wrap(doubled_sin)
    SEEN.clear()
    (g,) = torch.autograd.grad(f(x).sum(), x, create_graph=True)
    assert all(isinstance(seen, torch.Tensor) for seen in SEEN)
    torch.testing.assert_close(g, 2 * torch.cos(x), **TOL)
    (h,) = torch.autograd.grad(g.sum(), x)
    torch.testing.assert_close(h, -2 * torch.sin(x), **TOL)  # torch differentiated the rule's pullback
    _, tangent = torch.func.jvp(f, (x.detach(),), (torch.ones(3, dtype=F64),))
    torch.testing.assert_close(tangent, 2 * torch.cos(x.detach()), **TOL)
    hessian = torch.func.hessian(lambda t: f(t).sum())(x.detach())
    torch.testing.assert_close(hessian, torch.diag(-2 * torch.sin(x.detach())), **TOL)


def test_any_device_is_accepted_by_construction() -> None:
    """Nothing crosses to numpy: tensors on the meta device (shapes without values) go through, derivatives too.
    (CUDA tensors take the same path: this machine has no GPU.)"""
    x = torch.empty(4, 3, dtype=F64, device="meta", requires_grad=True)
    a = torch.empty(4, 4, dtype=F64, device="meta")
    y = interop.wrap(np.linalg.solve)(a, interop.wrap(np.tanh)(x))
    assert y.device.type == "meta" and y.shape == (4, 3)
    (g,) = torch.autograd.grad(y.sum(), x)
    assert g.device.type == "meta" and g.shape == (4, 3)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
def test_cuda_tensors_stay_on_their_device() -> None:
    x = torch.linspace(-1, 1, 5, dtype=F64, device="cuda", requires_grad=True)
    (g,) = torch.autograd.grad(interop.wrap(np.sin)(x).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    assert g.device.type == "cuda"
    torch.testing.assert_close(h, -torch.sin(x.detach()), **TOL)


def test_a_call_the_rule_refuses_takes_the_host_path() -> None:
    """np.einsum's rule refuses torch (the standard has no einsum): the call runs on the host, with the same
    derivatives."""
    einsum = interop.wrap(np.einsum)
    assert einsum.path == "native"
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=F64, requires_grad=True)
    b = torch.tensor([0.5, -1.0], dtype=F64)
    (g,) = torch.autograd.grad(einsum("ij,j->i", a, b).sum(), a)
    torch.testing.assert_close(g, b.expand(2, 2), **TOL)


def test_a_module_of_a_generic_rule_learns_natively() -> None:
    layer = interop.module(Scale(np.array([[1.0], [2.0]])))
    x = torch.ones(2, 3, dtype=F64)
    layer(x).sum().backward()
    torch.testing.assert_close(layer.a.grad, torch.tensor([[3.0], [3.0]], dtype=F64), **TOL)


# ----- higher derivatives: torch's own, to any order -----


def test_grad_of_grad_of_sin_is_torchs() -> None:
    """The pullback closes over nothing computed in forward: torch.func.grad(grad(...)) is -sin, not 0."""
    sin = interop.wrap(np.sin)
    for x in (0.3, -1.1, 2.5):
        t = torch.tensor(x, dtype=F64)
        assert torch.func.grad(torch.func.grad(sin))(t).item() == pytest.approx(-math.sin(x), rel=1e-12)
        assert torch.func.grad(torch.func.grad(torch.func.grad(sin)))(t).item() == pytest.approx(-math.cos(x))


THIRD = [
    pytest.param(interop.wrap(np.tanh), torch.tanh, id="tanh"),
    pytest.param(interop.wrap(np.exp), torch.exp, id="exp"),
    pytest.param(lambda v: interop.wrap(np.logaddexp)(v, v * v), lambda v: torch.logaddexp(v, v * v), id="logaddexp"),
    pytest.param(lambda v: interop.wrap(np.prod)(v, axis=0), lambda v: torch.prod(v, 0), id="prod"),
    pytest.param(
        lambda v: interop.wrap(np.linalg.solve)(v + 3 * torch.eye(2, dtype=F64), v[0]),
        lambda v: torch.linalg.solve(v + 3 * torch.eye(2, dtype=F64), v[0]),
        id="solve",
    ),
    pytest.param(interop.wrap(np.linalg.det), torch.linalg.det, id="det"),
]


def _close_to_either(got: Any, same: Any, reverse: Any) -> None:
    """``got`` against torch's same composition of transforms; where torch's forward mode of linalg.solve and det
    under vmap is off (its reverse over forward disagrees with its reverse over reverse, by 0.1 and 6 here), against
    torch's reverse mode alone."""
    if not torch.allclose(same, reverse, **TOL):
        torch.testing.assert_close(got, same if torch.allclose(got, same, **TOL) else reverse, **TOL)
    else:
        torch.testing.assert_close(got, same, **TOL)


@pytest.mark.parametrize(("wrapped", "native"), THIRD)
def test_second_and_third_derivatives_equal_torchs(wrapped: Any, native: Any) -> None:
    """Every composition of jacrev and jacfwd two and three deep (forward over forward aside), and hessian, against
    the same composition of torch's own ops (see ``_close_to_either`` for linalg.solve and det)."""
    x = torch.tensor([[0.1, 0.2], [-0.7, 1.3]], dtype=F64)
    jr, jf = torch.func.jacrev, torch.func.jacfwd
    second, third = jr(jr(native))(x), jr(jr(jr(native)))(x)
    hessian = torch.func.hessian
    _close_to_either(
        hessian(lambda v: wrapped(v).sum())(x),
        hessian(lambda v: native(v).sum())(x),
        jr(jr(lambda v: native(v).sum()))(x),
    )
    for transform in (lambda g: jr(jr(g)), lambda g: jf(jr(g)), lambda g: jr(jf(g))):
        _close_to_either(transform(wrapped)(x), transform(native)(x), second)
    for transform in (
        lambda g: jr(jr(jr(g))),
        lambda g: jf(jr(jr(g))),
        lambda g: jr(jf(jr(g))),
        lambda g: jr(jr(jf(g))),
    ):
        _close_to_either(transform(wrapped)(x), transform(native)(x), third)


def test_gradgradcheck_at_every_order_asked() -> None:
    x = torch.tensor([0.3, -0.8, 1.7], dtype=F64, requires_grad=True)
    for f in (np.sin, np.tanh, np.arctan):
        assert torch.autograd.gradcheck(interop.wrap(f), (x,))
        assert torch.autograd.gradgradcheck(interop.wrap(f), (x,))
    z = torch.tensor([0.3 + 0.2j, -0.8 + 1j], dtype=torch.complex128, requires_grad=True)
    assert torch.autograd.gradgradcheck(interop.wrap(np.exp), (z,))


def test_forward_over_forward_raises_rather_than_a_silent_zero() -> None:
    x = torch.tensor([0.1, 0.2], dtype=F64)
    with pytest.raises(NotImplementedError, match="forward mode over forward mode"):
        torch.func.jacfwd(torch.func.jacfwd(interop.wrap(np.sin)))(x)


# ----- the declared cases of the families at second order, against torch's own ops -----


def _second_order_cases(per_family: int = 5) -> list[Any]:
    params = []
    for family in FAMILIES:
        picked = 0
        for case in declared_cases(family):
            if picked == per_family:
                break
            if (
                "rrule" in case.modes
                and "float64" in case.valid_dtypes()
                and not any(isinstance(a, At) for a in case.args)
                and interop.wrap(case.f).path == "native"
                and callable(counterpart(case, "float64", "rrule"))
            ):
                params.append(pytest.param(case, id=case.label))
                picked += 1
    return params


def _hvp_reverse(fn: Any, xs: list[Any], seeds: list[Any], us: list[Any]) -> list[Any]:
    """Reverse over reverse: the gradient of <vjp(seeds), us>."""
    xs = [x.detach().clone().requires_grad_() for x in xs]
    outs = entries(fn(*xs))
    total = sum((o * s).sum() for o, s in zip(outs, seeds) if s is not None)
    grads = torch.autograd.grad(total, xs, create_graph=True, allow_unused=True)
    inner = sum((g * u).sum() for g, u in zip(grads, us) if g is not None)
    if not isinstance(inner, torch.Tensor) or not inner.requires_grad:
        return [torch.zeros_like(x) for x in xs]
    second = torch.autograd.grad(inner, xs, allow_unused=True)
    return [torch.zeros_like(x) if g is None else g for g, x in zip(second, xs)]


def _hvp_forward(fn: Any, xs: list[Any], seeds: list[Any], us: list[Any]) -> list[Any]:
    """Forward over reverse: torch.func.jvp of the vjp."""

    def grads(*ys: Any) -> Any:
        out, vjp_fn = torch.func.vjp(lambda *zs: tuple(entries(fn(*zs))), *ys)
        return vjp_fn(tuple(torch.zeros_like(o) if s is None else s for o, s in zip(out, seeds)))

    return list(torch.func.jvp(grads, tuple(xs), tuple(us))[1])


@pytest.mark.parametrize("case", _second_order_cases())
def test_declared_case_second_order_equals_torchs(case: Any) -> None:
    """Second derivatives (Hessian-vector products, reverse over reverse and forward over reverse) of a few declared
    cases per family, through the native path, against the same computation in torch's own ops."""
    rng = np.random.default_rng(1)
    given = case.make_args(rng, "float64")
    args = [a.primal if isinstance(a, PrimalAndTangent) else a for a in given]
    slots = operand_slots(given)
    wrapped = on_operands(interop.wrap(case.f), args, slots, case.kwargs)
    native = on_operands(counterpart(case, "float64", "rrule"), args, slots, case.kwargs)
    xs = [torch.from_numpy(np.array(_at(args, s), dtype=np.float64)) for s in slots]
    outs = entries(native(*xs))
    seeds = [torch.from_numpy(rng.normal(size=tuple(o.shape))) if o.is_floating_point() else None for o in outs]
    us = [torch.from_numpy(rng.normal(size=tuple(x.shape))) for x in xs]
    for hvp in (_hvp_reverse, _hvp_forward):
        for got, expected in zip(hvp(wrapped, xs, seeds, us), hvp(native, xs, seeds, us)):
            torch.testing.assert_close(got, expected, **TOL)


# ----- vmap: the rules' operations batch -----


def test_vmap_runs_the_rule_once_on_the_batch() -> None:
    """One call of the rule for the whole batch (a batched tensor), not one per entry."""
    f = interop.wrap(doubled_sin)
    batch = torch.linspace(-2, 2, 12, dtype=F64).reshape(4, 3)
    SEEN.clear()
    out = torch.func.vmap(f)(batch)
    assert len(SEEN) == 1
    torch.testing.assert_close(out, torch.sin(batch), **TOL)
    SEEN.clear()
    grads = torch.func.vmap(torch.func.grad(lambda v: f(v).sum()))(batch)
    torch.testing.assert_close(grads, 2 * torch.cos(batch), **TOL)
    assert len(SEEN) <= 2  # the forward pass, and the backward's rerun for the graph torch.func.grad keeps


def test_vmap_of_jacrev_jacfwd_and_hessian_of_solve_equal_torchs() -> None:
    """Batched natively, against torch's reverse mode entry by entry."""
    rng = np.random.default_rng(3)
    a = torch.from_numpy(rng.normal(size=(3, 3)) + 3 * np.eye(3))
    batch = torch.from_numpy(rng.normal(size=(5, 3)))
    solve = interop.wrap(np.linalg.solve)
    jr = torch.func.jacrev
    jacobians = torch.stack([jr(torch.linalg.solve, argnums=(0, 1))(a, b)[1] for b in batch])
    for transform in (jr, torch.func.jacfwd):
        got = torch.func.vmap(transform(solve, argnums=(0, 1)), in_dims=(None, 0))(a, batch)[1]
        torch.testing.assert_close(got, jacobians, **TOL)
    hessians = torch.stack([jr(jr(lambda b: torch.linalg.solve(a, b**3).sum()))(b) for b in batch])
    got = torch.func.vmap(torch.func.hessian(lambda b: solve(a, b**3).sum()))(batch)
    torch.testing.assert_close(got, hessians, **TOL)


# ----- torch.compile: one graph, no break -----

_sin, _tanh, _sum, _logaddexp, _solve = (
    interop.wrap(f) for f in (np.sin, np.tanh, np.sum, np.logaddexp, np.linalg.solve)
)
"""Wrapped once, outside the compiled functions (wrap reads the registry, which Dynamo does not trace)."""

COMPILED = [
    pytest.param(lambda t: (2 * _sin(t)).sum(), lambda t: (2 * torch.sin(t)).sum(), id="sin"),
    pytest.param(
        lambda t: _sum(_tanh(t) ** 2, axis=0).sum(), lambda t: torch.sum(torch.tanh(t) ** 2, 0).sum(), id="tanh-sum"
    ),
    pytest.param(lambda t: _logaddexp(t, t * t).sum(), lambda t: torch.logaddexp(t, t * t).sum(), id="logaddexp"),
    pytest.param(
        lambda t: _solve(t @ t.T + 3 * torch.eye(3, dtype=F64), t[:, 0]).sum(),
        lambda t: torch.linalg.solve(t @ t.T + 3 * torch.eye(3, dtype=F64), t[:, 0]).sum(),
        id="solve",
    ),
]


@pytest.mark.parametrize(("fn", "native"), COMPILED)
def test_torch_compile_traces_without_a_graph_break(fn: Any, native: Any) -> None:
    import torch._dynamo

    x = torch.tensor([[0.1, 0.2, 0.4], [-0.7, 1.3, 0.5], [0.9, -0.2, 0.3]], dtype=F64)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(fn)(x)
    assert (explained.graph_count, explained.graph_break_count) == (1, 0), explained.break_reasons
    compiled = torch.compile(fn, fullgraph=True, backend="aot_eager")
    x1, x2 = x.clone().requires_grad_(), x.clone().requires_grad_()
    (got,) = torch.autograd.grad(compiled(x1), x1)
    (expected,) = torch.autograd.grad(native(x2), x2)
    torch.testing.assert_close(got, expected, **TOL)


def test_torch_compile_with_inductor() -> None:
    compiled = torch.compile(lambda t: _sin(t).sum(), fullgraph=True)
    x = torch.linspace(-1, 1, 7, dtype=F64, requires_grad=True)
    (g,) = torch.autograd.grad(compiled(x), x)
    torch.testing.assert_close(g, torch.cos(x.detach()), **TOL)


def _softclip(x: Any) -> Any:
    return x / np.sqrt(1 + x * x)


@rrule.register(_softclip, generic=True)
def _rrule_softclip(f: Any, x: Any) -> Any:
    xp = namespace_of(x)
    r = 1 / xp.sqrt(1 + x * x)
    return x * r, lambda y_bar: (NoTangent(), y_bar * r**3)


@frule.register(_softclip, generic=True)
def _frule_softclip(tangents: Any, f: Any, x: Any) -> Any:
    xp = namespace_of(x)
    r = 1 / xp.sqrt(1 + x * x)
    return x * r, tangents[1] * r**3


def test_the_user_rule_of_rule_authors_md_takes_the_native_path() -> None:
    """docs/rule-authors.md's softclip: native, its second derivative torch's derivative of the pullback."""
    from chainrules.testing.libraries import LIBRARIES, compare_on

    assert interop.wrap(_softclip).path == "native"
    second = torch.func.grad(torch.func.grad(lambda t: interop.wrap(_softclip)(t).sum()))
    x = 1.0
    assert float(second(torch.tensor(x, dtype=torch.float64))) == pytest.approx(-3 * x / (1 + x * x) ** 2.5, rel=1e-12)
    for mode in ("rrule", "frule"):
        assert compare_on(LIBRARIES["torch"], _softclip, np.array([0.5, -2.0]), mode=mode).compared == 2
