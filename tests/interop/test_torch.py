"""chainrules.interop.torch: the declared cases against PyTorch's own derivatives; each feature of wrap and module."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.special

torch = pytest.importorskip("torch", reason="PyTorch is optional: pip install 'chainrules[torch]'")

from chainrules.interop import torch as interop  # noqa: E402
from chainrules_core import NotImplementedTangentError, function_name  # noqa: E402
from chainrules_core.testing import PrimalAndTangent  # noqa: E402
from chainrules_core.testing.cases import At  # noqa: E402
from tests.interop import rules  # noqa: E402
from tests.interop.checking import (  # noqa: E402
    FAMILIES,
    Framework,
    _at,
    case_params,
    check_case,
    declared_cases,
    entries,
    on_operands,
    operand_slots,
)
from tests.interop.torch_ops import COUNTERPARTS, counterpart  # noqa: E402

F64 = torch.float64


def _tensor(x: Any) -> Any:
    return torch.from_numpy(np.array(x))


def _vjp(fn: Any, operands: list[Any], seeds: list[Any]) -> tuple[list[Any], list[Any]]:
    operands = [o.requires_grad_() for o in operands]
    out = entries(fn(*operands))
    pairs = [(o, torch.from_numpy(s)) for o, s in zip(out, seeds) if s is not None and o.requires_grad]
    grads: Any = [None] * len(operands)
    if pairs:
        grads = torch.autograd.grad([o for o, _ in pairs], operands, [s for _, s in pairs], allow_unused=True)
    cotangents = [torch.zeros_like(x) if g is None else g for g, x in zip(grads, operands)]
    return [o.numpy(force=True) for o in out], [c.numpy(force=True) for c in cotangents]


def _jvp(fn: Any, operands: list[Any], dots: list[Any]) -> tuple[list[Any], list[Any]]:
    out, out_dot = torch.func.jvp(fn, tuple(operands), tuple(dots))
    return [o.numpy() for o in entries(out)], [d.numpy(force=True) for d in entries(out_dot)]


TORCH = Framework(
    name="torch",
    wrap=lambda f, mode: interop.wrap(f),
    array=_tensor,
    vjp=_vjp,
    jvp=_jvp,
    counterpart=counterpart,
    conjugate=False,
)


@pytest.mark.parametrize(("case", "dtype"), case_params(("float64", "complex128", "float32")))
def test_declared_case(case: Any, dtype: str) -> None:
    """autograd.grad and torch.func.jvp of wrap(f) equal PyTorch's own, or the rule's where it has none."""
    check_case(TORCH, case, dtype)


def test_only_functions_pytorch_lacks_are_compared_against_the_rule_for_want_of_a_counterpart() -> None:
    """A declared function missing from torch_ops falls back to the rule; PyTorch must have no op of its name."""
    missing = {case.f for family in FAMILIES for case in declared_cases(family)} - COUNTERPARTS.keys()
    have = [
        function_name(f)
        for f in missing
        if hasattr(torch.linalg if getattr(np.linalg, f.__name__, None) is f else torch, f.__name__)
    ]
    assert not have, f"PyTorch has ops for {have}: add them to tests/interop/torch_ops.py"


# ----- wrap: arguments, outputs, tangents -----


def test_tensors_cross_without_copies_and_keep_their_dtype() -> None:
    """The rule sees the tensor's memory; float32 stays float32; neither output nor gradient aliases another tensor."""
    rules.SEEN.clear()
    x = torch.tensor([1.0, 2.0], dtype=torch.float32, requires_grad=True)
    y = interop.wrap(rules.observed)(x)
    assert np.shares_memory(rules.SEEN[0], x.detach().numpy())
    assert y.dtype == torch.float32
    seed = torch.ones(2, dtype=torch.float32)
    y.backward(seed)
    assert x.grad.dtype == torch.float32
    assert not np.shares_memory(x.grad.numpy(), seed.numpy())
    with torch.no_grad():
        y[0] = 10.0
    assert x[0].item() == 1.0


def test_several_arguments_and_keywords() -> None:
    """Two tensor arguments get gradients; a keyword argument passes through to the rule."""
    x = torch.tensor([1.0, 2.0], dtype=F64, requires_grad=True)
    a = torch.tensor(3.0, dtype=F64, requires_grad=True)
    y = interop.wrap(rules.scale_shift)(x, a, shift=0.5)
    assert y.tolist() == [3.5, 6.5]
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0] and a.grad.item() == 3.0


def test_tuple_outputs() -> None:
    """A tuple output is a tuple of tensors; seeding one entry gives the other a zero."""
    x = torch.tensor([0.3, 0.9], dtype=F64, requires_grad=True)
    s, c = interop.wrap(rules.sin_cos)(x)
    (s.sum() + 2 * c.sum()).backward()
    torch.testing.assert_close(x.grad, torch.cos(x) - 2 * torch.sin(x), rtol=1e-12, atol=0)
    x.grad = None
    s, _ = interop.wrap(rules.sin_cos)(x)
    s.sum().backward()
    torch.testing.assert_close(x.grad, torch.cos(x), rtol=1e-12, atol=0)
    _, (_, c_dot) = torch.func.jvp(interop.wrap(rules.sin_cos), (x.detach(),), (torch.ones(2, dtype=F64),))
    torch.testing.assert_close(c_dot, -torch.sin(x.detach()), rtol=1e-12, atol=0)


def test_zero_and_no_tangent_give_no_gradient() -> None:
    """ZeroTangent and NoTangent become PyTorch's "no gradient" (None), never an error."""
    x = torch.ones(2, dtype=F64, requires_grad=True)
    w = torch.ones(2, dtype=F64, requires_grad=True)
    interop.wrap(rules.masked_scale)(x, w).sum().backward()
    assert x.grad is None and w.grad is None
    y = torch.ones(2, dtype=F64, requires_grad=True)
    (interop.wrap(rules.masked_scale)(x, w) + y).sum().backward()
    assert y.grad.tolist() == [1.0, 1.0]


def test_integer_arguments_get_no_gradient() -> None:
    x = torch.tensor([1.0, 2.0], dtype=F64, requires_grad=True)
    n = torch.tensor([3, 4])
    interop.wrap(np.multiply)(x, n).sum().backward()
    assert x.grad.tolist() == [3.0, 4.0] and n.grad is None


def test_the_arrays_of_a_list_argument_are_operands() -> None:
    """multi_dot's list: each tensor in it gets a gradient and a tangent; a numpy array in it stays a constant."""
    rng = np.random.default_rng(8)
    a, b, c = (torch.from_numpy(rng.normal(size=s)) for s in [(2, 3), (3, 4), (4, 2)])
    fn, c_array = interop.wrap(np.linalg.multi_dot), c.numpy()
    got = torch.func.grad(lambda a, b: fn([a, b, c_array]).sum(), argnums=(0, 1))(a, b)
    expected = torch.func.grad(lambda a, b: torch.linalg.multi_dot([a, b, c]).sum(), argnums=(0, 1))(a, b)
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e, rtol=1e-12, atol=1e-12)
    dot = torch.func.jvp(lambda b: fn((a, b, c)), (b,), (torch.ones_like(b),))[1]
    torch.testing.assert_close(dot, a @ torch.ones_like(b) @ c, rtol=1e-12, atol=1e-12)


def test_thunks_are_forced_once() -> None:
    rules.FORCED.clear()
    x = torch.tensor([1.5], dtype=F64, requires_grad=True)
    interop.wrap(rules.lazy_square)(x).sum().backward()
    assert rules.FORCED == [1] and x.grad.item() == 3.0


def test_not_implemented_tangent_raises_naming_function_and_argument() -> None:
    x = torch.tensor([0.5], dtype=F64, requires_grad=True)
    order = torch.tensor([2.0], dtype=F64, requires_grad=True)
    y = interop.wrap(rules.bessel_like)(x, order)
    with pytest.raises(NotImplementedTangentError, match=r"bessel_like.*argument 2 \(order\).*d/dorder"):
        y.sum().backward()


def test_a_not_implemented_pushforward_raises_naming_the_function() -> None:
    x, order = torch.tensor([0.5], dtype=F64), torch.tensor([2.0], dtype=F64)
    fn = interop.wrap(rules.bessel_like)
    with pytest.raises(NotImplementedTangentError, match=r"bessel_like: the pushforward.*d/dorder"):
        torch.func.jvp(fn, (x, order), (torch.ones(1, dtype=F64), torch.ones(1, dtype=F64)))
    _, dot = torch.func.jvp(lambda x: fn(x, order), (x,), (torch.ones(1, dtype=F64),))
    torch.testing.assert_close(dot, -2 * torch.sin(2 * x))


def test_not_implemented_tangent_for_an_argument_without_gradient_is_harmless() -> None:
    x = torch.tensor([0.5], dtype=F64, requires_grad=True)
    interop.wrap(rules.bessel_like)(x, torch.tensor([2.0], dtype=F64)).sum().backward()
    assert x.grad.item() == pytest.approx(-2 * np.sin(1.0))


def test_a_tensor_off_the_cpu_is_refused_naming_its_device_on_the_host_path() -> None:
    """The host path runs numpy on the CPU (the native path takes any device: test_torch_native.py)."""
    gamma = interop.wrap(scipy.special.gamma)
    assert gamma.path == "host"
    with pytest.raises(ValueError, match=r"scipy\.special\.gamma got a tensor on meta for argument 1.*\.cpu\(\)"):
        gamma(torch.empty(3, device="meta"))
    with pytest.raises(ValueError, match=r"scale_shift got a tensor on meta for keyword argument 'shift'"):
        interop.wrap(rules.scale_shift)(torch.ones(3), torch.ones(3), shift=torch.empty((), device="meta"))


def test_tensor_keywords_pass_as_constants() -> None:
    x = torch.tensor([1.0, 2.0, 3.0], dtype=F64, requires_grad=True)
    interop.wrap(np.sum)(x, where=torch.tensor([True, False, True])).backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0]


def test_a_missing_rule_raises_when_its_derivative_is_asked() -> None:
    """A function with only an frule: the primal and forward mode work; reverse mode names the missing rrule."""
    x = torch.tensor([0.0, 1.0], dtype=F64, requires_grad=True)
    fn = interop.wrap(rules.forward_only)
    torch.testing.assert_close(torch.func.jvp(fn, (x.detach(),), (torch.ones(2, dtype=F64),))[1], torch.exp(x.detach()))
    with pytest.raises(LookupError, match="forward_only has no rrule"):
        fn(x).sum().backward()


# ----- transforms -----


def _solve_problem() -> tuple[Any, Any]:
    rng = np.random.default_rng(3)
    a = torch.from_numpy(rng.normal(size=(3, 3)) + 3 * np.eye(3))
    b = torch.from_numpy(rng.normal(size=(3,)))
    return a, b


solve = interop.wrap(np.linalg.solve)


def _sum_of(g: Any) -> Any:
    return lambda a, b: g(a, b).sum()


TRANSFORMS = {
    "grad": lambda g: torch.func.grad(_sum_of(g), argnums=(0, 1)),
    "vjp": lambda g: lambda a, b: torch.func.vjp(g, a, b)[1](torch.ones(3, dtype=F64)),
    "jvp": lambda g: lambda a, b: torch.func.jvp(g, (a, b), (torch.ones_like(a), torch.ones_like(b))),
    "jacrev": lambda g: torch.func.jacrev(g, argnums=(0, 1)),
    "jacfwd": lambda g: torch.func.jacfwd(g, argnums=(0, 1)),
}


@pytest.mark.parametrize("name", TRANSFORMS)
def test_torch_func_transforms(name: str) -> None:
    """Each torch.func transform of the wrapped solve equals the same transform of torch.linalg.solve."""
    a, b = _solve_problem()
    transform = TRANSFORMS[name]
    torch.testing.assert_close(transform(solve)(a, b), transform(torch.linalg.solve)(a, b), rtol=1e-10, atol=1e-12)


UNDER_VMAP = {
    "vmap": lambda g: g,
    "vmap-grad": lambda g: torch.func.grad(_sum_of(g)),
    "vmap-jacrev": torch.func.jacrev,
    "vmap-jacfwd": torch.func.jacfwd,
    "vmap-vmap": lambda g: torch.func.vmap(g, in_dims=(None, 0)),
}


@pytest.mark.parametrize("name", UNDER_VMAP)
def test_vmap_of_transforms(name: str) -> None:
    """vmap over the right-hand sides equals the transform of torch.linalg.solve applied to each in turn.

    (The reference is a loop: PyTorch's own vmap of jacfwd(torch.linalg.solve) over a batch of vectors
    disagrees with its per-vector jacfwd.)
    """
    a, b = _solve_problem()
    batch = torch.stack([b * k for k in (1.0, -2.0, 0.5)])
    if name == "vmap-vmap":
        batch = torch.stack([batch, 3 * batch])
    inner = UNDER_VMAP[name]
    got = torch.func.vmap(inner(solve), in_dims=(None, 0))(a, batch)
    expected = torch.stack([inner(torch.linalg.solve)(a, entry) for entry in batch])
    torch.testing.assert_close(got, expected, rtol=1e-10, atol=1e-12)


def test_torch_compile_runs_the_wrapped_call_eagerly() -> None:
    a, b = _solve_problem()
    b.requires_grad_()
    loss = torch.compile(lambda a, b: (2 * solve(a, b)).sum(), backend="eager")
    loss(a, b).backward()
    expected = torch.autograd.grad((2 * torch.linalg.solve(a, b)).sum(), b)[0]
    torch.testing.assert_close(b.grad, expected, rtol=1e-10, atol=1e-12)


def test_forward_mode_dual_tensors() -> None:
    import torch.autograd.forward_ad as fwad

    a, b = _solve_problem()
    with fwad.dual_level():
        out = solve(a, fwad.make_dual(b, torch.ones(3, dtype=F64)))
        tangent = fwad.unpack_dual(out).tangent
    torch.testing.assert_close(tangent, torch.linalg.solve(a, torch.ones(3, dtype=F64)), rtol=1e-10, atol=0)


@pytest.mark.parametrize(
    "second",
    [
        pytest.param(lambda g, x: torch.func.hessian(lambda x: g(x).sum())(x), id="hessian"),
        pytest.param(lambda g, x: torch.func.jacrev(torch.func.jacrev(g))(x), id="jacrev-jacrev"),
        pytest.param(lambda g, x: torch.func.jacfwd(torch.func.jacfwd(g))(x), id="jacfwd-jacfwd"),
        pytest.param(lambda g, x: torch.func.jacrev(torch.func.jacfwd(g))(x), id="jacrev-jacfwd"),
        pytest.param(lambda g, x: torch.func.jacfwd(torch.func.jacrev(g))(x), id="jacfwd-jacrev"),
    ],
)
def test_second_derivatives_equal_pytorchs(second: Any, request: Any) -> None:
    """Every torch.func composition of two derivatives: on the native path torch differentiates the rules' own
    operations, on the host path the engines differentiate the pullback or pushforward. Forward over forward is
    refused on the native path (torch runs a Function's jvp with forward gradients off)."""
    x = torch.tensor([[0.1, 0.2], [-0.7, 1.3]], dtype=F64)
    tanh, logaddexp, expit = interop.wrap(np.tanh), interop.wrap(np.logaddexp), interop.wrap(scipy.special.expit)
    assert (tanh.path, logaddexp.path, expit.path) == ("native", "native", "host")
    native_pairs = [(tanh, torch.tanh), (lambda v: logaddexp(v, v * v), lambda v: torch.logaddexp(v, v * v))]
    if request.node.callspec.id == "jacfwd-jacfwd":
        for wrapped, _ in native_pairs:
            with pytest.raises(NotImplementedError, match="forward mode over forward mode"):
                second(wrapped, x)
        native_pairs = []
    for wrapped, native in [*native_pairs, (expit, torch.sigmoid)]:
        torch.testing.assert_close(second(wrapped, x), second(native, x), rtol=1e-10, atol=1e-12)


def test_double_backward_through_a_gradient_taken_with_create_graph() -> None:
    """torch.autograd.grad(..., create_graph=True), then backward: the Hessian-vector product of solve."""
    a, b = (t.requires_grad_() for t in _solve_problem())
    a2, b2 = a.detach().clone().requires_grad_(), b.detach().clone().requires_grad_()
    u = torch.tensor([0.3, -1.0, 2.0], dtype=F64)
    for fn, (p, q) in ((solve, (a, b)), (torch.linalg.solve, (a2, b2))):
        ga, gb = torch.autograd.grad((fn(p, q) ** 2).sum(), (p, q), create_graph=True)
        (ga.sum() + gb @ u).backward()
    torch.testing.assert_close(a.grad, a2.grad, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(b.grad, b2.grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [F64, torch.complex128])
def test_second_derivatives_pass_gradgradcheck(dtype: Any) -> None:
    """Second derivatives by finite differences of the first, real and complex (PyTorch's conventions)."""
    a, b = (t.detach().to(dtype).requires_grad_() for t in _solve_problem())
    assert torch.autograd.gradgradcheck(solve, (a, b))
    assert torch.autograd.gradgradcheck(interop.wrap(np.sin), (b,))


def test_third_derivatives_raise_on_the_host_path() -> None:
    """Never a silent zero: past the second derivative the engines are not asked again (the native path has every
    order: test_torch_native.py)."""
    x = torch.tensor([0.1, 0.2], dtype=F64)
    expit = interop.wrap(scipy.special.expit)
    with pytest.raises(NotImplementedError, match=r"scipy\.special\.expit: third derivatives"):
        torch.func.jacrev(torch.func.jacrev(torch.func.jacrev(expit)))(x)
    with pytest.raises(NotImplementedError, match=r"scipy\.special\.expit: third derivatives"):
        torch.func.jacfwd(torch.func.jacfwd(torch.func.jacfwd(expit)))(x)


_NOT_SMOOTH = (At,)
"""Declared arguments at fixed points (kinks, ties, singular matrices): finite differences of the first
derivative mean nothing there, so the second-order sweep leaves them to the first-order checks."""


def _second_order_params() -> list[Any]:
    return [
        pytest.param(case, id=case.label)
        for family in FAMILIES
        for case in declared_cases(family)
        if "rrule" in case.modes
        and "float64" in case.valid_dtypes()
        and not any(isinstance(arg, _NOT_SMOOTH) for arg in case.args)
    ]


@pytest.mark.parametrize("case", _second_order_params())
def test_declared_case_second_order(case: Any) -> None:
    """gradgradcheck of wrap(f) at each smooth declared case (float64): the engines' derivative of the rule's pullback
    against finite differences of the pullback."""
    rng = np.random.default_rng(0)
    given = case.make_args(rng, "float64")
    args = [a.primal if isinstance(a, PrimalAndTangent) else a for a in given]
    slots = operand_slots(given)
    fn = on_operands(interop.wrap(case.f), args, slots, case.kwargs)
    operands = tuple(torch.from_numpy(np.array(_at(args, s), dtype=np.float64)).requires_grad_() for s in slots)
    assert torch.autograd.gradgradcheck(fn, operands)


# ----- module -----


def _affine() -> Any:
    rng = np.random.default_rng(4)
    return rules.Affine(rng.normal(size=(2, 3)), rng.normal(size=(2, 1)))


def test_module_parameters_are_the_fields_and_learn() -> None:
    """The float array fields become parameters (the string field does not); their gradients come from the Tangent."""
    layer = interop.module(_affine())
    assert [name for name, _ in layer.named_parameters()] == ["w", "b"]
    x = torch.from_numpy(np.random.default_rng(5).normal(size=(3, 4)))
    layer(x).square().sum().backward()
    w, b = layer.w.detach().clone().requires_grad_(), layer.b.detach().clone().requires_grad_()
    (w @ x + b).square().sum().backward()
    torch.testing.assert_close(layer.w.grad, w.grad, rtol=1e-12, atol=0)
    torch.testing.assert_close(layer.b.grad, b.grad, rtol=1e-12, atol=0)


def test_module_trains_with_an_optimizer_and_rebuilds_the_object() -> None:
    layer = interop.module(_affine())
    x = torch.from_numpy(np.random.default_rng(6).normal(size=(3, 8)))
    target = torch.zeros(2, 8, dtype=F64)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.05)
    losses = []
    for _ in range(50):
        optimizer.zero_grad()
        loss = (layer(x) - target).square().mean()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
    trained = layer.current()
    assert isinstance(trained, rules.Affine) and trained.name == "affine"
    np.testing.assert_array_equal(trained.w, layer.w.detach().numpy())


def test_module_forward_mode_through_functional_call() -> None:
    """jvp in the parameters: the frule receives a Tangent of the object."""
    layer = interop.module(_affine())
    x = torch.from_numpy(np.random.default_rng(7).normal(size=(3, 4)))
    params = dict(layer.named_parameters())
    dots = {name: torch.ones_like(p) for name, p in params.items()}
    _, out_dot = torch.func.jvp(lambda p: torch.func.functional_call(layer, p, (x,)), (params,), (dots,))
    torch.testing.assert_close(out_dot, torch.ones(2, 3, dtype=F64) @ x + 1.0, rtol=1e-12, atol=1e-12)


def test_module_refuses_fields_that_cannot_learn() -> None:
    with pytest.raises(TypeError, match="field 'name' of Affine is not a float array"):
        interop.module(_affine(), fields=["name"])
