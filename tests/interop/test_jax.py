"""chainrules.interop.jax: the declared cases against JAX's own derivatives, and each feature of wrap."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="JAX is optional: pip install 'chainrules[jax]'")

import jax.numpy as jnp  # noqa: E402

import chainrules.interop.jax as interop_jax  # noqa: E402
from chainrules.interop.jax import wrap  # noqa: E402
from chainrules_core import NotImplementedTangentError, is_namedtuple  # noqa: E402
from chainrules_core.testing import At, Case  # noqa: E402
from tests.interop import rules  # noqa: E402
from tests.interop.checking import (  # noqa: E402
    Framework,
    case_params,
    check_case,
    declared_cases,
    entries,
    no_counterpart,
)


@pytest.fixture(autouse=True)
def _x64() -> Iterator[None]:
    """float64 and complex128 need JAX's 64-bit mode; float32 stays float32 in it."""
    with jax.enable_x64(True):
        yield


# Where JAX's own derivative differs from the rule's, the case is compared against the rule: (why, when).
DIFFERS: list[tuple[str, Callable[[Case, str], bool]]] = [
    # For complex z, sign(z) = z/|z| has a nonzero derivative.
    ("jnp.sign's derivative is zero everywhere", lambda c, d: c.f is np.sign and _complex(d)),
    (
        # The rules take 0, the central difference (docs/conventions.md).
        "jnp.abs'(0) is 1, the slope on the right",
        lambda c, d: c.f in (np.absolute, np.fabs) and "non-smooth" in c.name and not _complex(d),
    ),
]

# numpy functions that jax.numpy has under another name.
RENAMED = {operator.matmul: operator.matmul, np.fix: jnp.trunc}


def _complex(dtype: str) -> bool:
    return np.dtype(dtype).kind == "c"


def counterpart(case: Case, dtype: str, mode: str) -> Any:
    """``jax.numpy``'s function of the same name, or why the rule is the reference instead (in both modes)."""
    for why, applies in DIFFERS:
        if applies(case, dtype):
            return why
    f = case.f
    if f in RENAMED:
        return RENAMED[f]
    name = f.__name__
    module = jnp.linalg if getattr(np.linalg, name, None) is f else jnp
    return getattr(module, name, no_counterpart("jax"))


def _vjp(fn: Any, operands: list[Any], seeds: list[Any]) -> tuple[list[Any], list[Any]]:
    out, pullback = jax.vjp(fn, *operands)
    outs = entries(out)
    given = [
        np.zeros(o.shape, jax.dtypes.float0) if s is None else jnp.asarray(s, dtype=o.dtype)
        for o, s in zip(outs, seeds)
    ]
    seed = (type(out)(*given) if is_namedtuple(type(out)) else tuple(given)) if isinstance(out, tuple) else given[0]
    return [np.asarray(o) for o in outs], [np.asarray(c) for c in pullback(seed)]


def _jvp(fn: Any, operands: list[Any], dots: list[Any]) -> tuple[list[Any], list[Any]]:
    out, out_dot = jax.jvp(fn, tuple(operands), tuple(dots))
    tangents = [np.zeros(d.shape) if d.dtype == jax.dtypes.float0 else np.asarray(d) for d in entries(out_dot)]
    return [np.asarray(o) for o in entries(out)], tangents


def _jitted(transform: Any) -> Any:
    return lambda fn, operands, values: transform(jax.jit(fn), operands, values)


JAX = Framework(
    name="jax",
    wrap=lambda f, mode: wrap(f, mode=mode),
    array=jnp.asarray,
    vjp=_vjp,
    jvp=_jvp,
    counterpart=counterpart,
    conjugate=True,
)
JITTED = Framework(
    name="jax under jit",
    wrap=JAX.wrap,
    array=JAX.array,
    vjp=_jitted(_vjp),
    jvp=_jitted(_jvp),
    counterpart=counterpart,
    conjugate=True,
)


RULE_ONLY = Framework(
    name="jax, eagerly",
    wrap=lambda f, mode: wrap(f, mode=mode, path="host"),  # the host path; the native one is compiled below
    array=JAX.array,
    vjp=_vjp,
    jvp=_jvp,
    counterpart=lambda case, dtype, mode: "every case against the rule; jax.numpy under jit below",
    conjugate=True,
)


@pytest.mark.parametrize(("case", "dtype"), case_params(("float64", "complex128", "float32")))
def test_declared_case(case: Case, dtype: str) -> None:
    """jax.vjp of wrap(f) and jax.jvp of wrap(f, mode="forward") on the host path equal the rule's, in JAX's
    convention.

    Every case runs here, eagerly; JAX's own derivatives are compared below, natively for the generic rules, one
    case per function
    and dtype (JAX compiles each new function, shape and dtype: ~0.2 s apiece).
    """
    check_case(RULE_ONLY, case, dtype)


# Holomorphic elementwise functions share one complex path (conjugated partials); these stand for them.
COMPLEX_ELEMENTWISE = {np.sin, np.sqrt, np.log, np.absolute, np.angle, np.real, np.imag, np.conjugate, np.sign}


def _one_case_per_function() -> list[Any]:
    """The first case of each function in float64 and complex128, and every case at a fixed point in float64.

    Of the holomorphic elementwise functions, only those in ``COMPLEX_ELEMENTWISE`` run in complex128.
    """
    elementwise = {case.f for case in declared_cases("numpy.elementwise")} - COMPLEX_ELEMENTWISE
    seen, params = set(), []
    for param in case_params(("float64", "complex128")):
        case, dtype = param.values
        if dtype == "complex128" and case.f in elementwise:
            continue
        at_a_point = dtype == "float64" and any(isinstance(a, At) for a in case.args)
        if (case.f, dtype) not in seen or at_a_point:
            seen.add((case.f, dtype))
            params.append(param)
    return params


@pytest.mark.parametrize(("case", "dtype"), _one_case_per_function())
def test_declared_case_under_jit(case: Case, dtype: str) -> None:
    """Under jax.jit, where the generic rules are traced (the native path) and the others run in host callbacks,
    the derivatives equal JAX's own (or the rule's where
    JAX has no such function or disagrees): one case per function and dtype, and the fixed points."""
    check_case(JITTED, case, dtype)


# ----- wrap: arguments, outputs, tangents -----


def test_several_arguments_keywords_and_jit() -> None:
    x, a = jnp.array([1.0, 2.0]), jnp.array(3.0)
    fn = wrap(rules.scale_shift)
    loss = jax.jit(lambda x, a: fn(x, a, shift=0.5).sum())
    assert float(loss(x, a)) == 10.0
    x_bar, a_bar = jax.jit(jax.grad(loss, argnums=(0, 1)))(x, a)
    assert x_bar.tolist() == [3.0, 3.0] and float(a_bar) == 3.0


def test_python_scalars_and_numpy_arrays_are_constants() -> None:
    """Only JAX arrays are operands: a Python float or a numpy array passes to the rule as it is."""
    fn = wrap(rules.scale_shift)
    assert jax.grad(lambda x: fn(x, 2.0).sum())(jnp.ones(2)).tolist() == [2.0, 2.0]
    assert jax.grad(lambda a: fn(np.array([1.0, 4.0]), a).sum())(jnp.array(1.0)).tolist() == 5.0


@pytest.mark.parametrize("mode", ["reverse", "forward", "both"])
def test_tuple_outputs(mode: str) -> None:
    x = jnp.array([0.3, 0.9])
    fn = wrap(rules.sin_cos, mode=mode)
    if mode != "forward":
        grad = jax.jit(jax.grad(lambda x: fn(x)[0].sum() + 2 * fn(x)[1].sum()))(x)
        np.testing.assert_allclose(grad, jnp.cos(x) - 2 * jnp.sin(x), rtol=1e-12)
        np.testing.assert_allclose(jax.grad(lambda x: fn(x)[0].sum())(x), jnp.cos(x), rtol=1e-12)
    if mode != "reverse":
        (_, c_dot) = jax.jvp(fn, (x,), (jnp.ones(2),))[1]
        np.testing.assert_allclose(c_dot, -jnp.sin(x), rtol=1e-12)


def test_zero_and_no_tangent_give_zeros() -> None:
    """In JAX a float operand's ZeroTangent or NoTangent is a zero cotangent (the callback's shape is fixed)."""
    x_bar, w_bar = jax.grad(lambda x, w: wrap(rules.masked_scale)(x, w).sum(), argnums=(0, 1))(jnp.ones(2), jnp.ones(2))
    assert x_bar.tolist() == [0.0, 0.0] and w_bar.tolist() == [0.0, 0.0]


def test_integer_operands_get_float0_cotangents() -> None:
    x, n = jnp.array([1.0, 2.0]), jnp.array([3, 4])
    x_bar, n_bar = jax.jit(jax.grad(lambda x, n: wrap(np.multiply)(x, n).sum(), argnums=(0, 1), allow_int=True))(x, n)
    assert x_bar.tolist() == [3.0, 4.0] and n_bar.dtype == jax.dtypes.float0


def test_the_arrays_of_a_list_argument_are_operands() -> None:
    rng = np.random.default_rng(8)
    arrays = [jnp.asarray(rng.normal(size=s)) for s in [(2, 3), (3, 4), (4, 2)]]
    got = jax.jit(jax.grad(lambda xs: wrap(np.linalg.multi_dot)(xs).sum()))(arrays)
    expected = jax.grad(lambda xs: jnp.linalg.multi_dot(xs).sum())(arrays)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-12)
    a, b, c = arrays
    dot = jax.jvp(lambda b: wrap(np.linalg.multi_dot, mode="forward")((a, b, c)), (b,), (jnp.ones_like(b),))[1]
    np.testing.assert_allclose(dot, a @ jnp.ones_like(b) @ c, rtol=1e-12)


@pytest.mark.parametrize("mode", ["reverse", "forward", "both"])
def test_an_integer_output_of_a_tuple_gets_no_derivative(mode: str) -> None:
    """frexp's exponent: its seed (float0) does not reach the rule, its tangent is float0."""
    x = jnp.array([0.3, -1.7, 5.6])
    fn = wrap(np.frexp, mode=mode)
    slope = 2.0 ** -np.frexp(np.asarray(x))[1]
    if mode != "forward":
        np.testing.assert_allclose(jax.jit(jax.grad(lambda x: fn(x)[0].sum()))(x), slope, rtol=1e-15)
    if mode != "reverse":
        (_, exponent), (mantissa_dot, exponent_dot) = jax.jit(lambda x: jax.jvp(fn, (x,), (jnp.ones(3),)))(x)
        np.testing.assert_allclose(mantissa_dot, slope, rtol=1e-15)
        assert exponent.dtype == jnp.int32 and exponent_dot.dtype == jax.dtypes.float0


def test_an_output_whose_dtype_depends_on_the_values() -> None:
    """Under jit real_if_close declares its complex output (placeholders have imaginary parts): a nearly real input
    then gives real values in it, whose derivative is the real part. A lossy cast is refused, naming out_shape."""
    fn = wrap(np.real_if_close)
    z, nearly_real = jnp.array([1 + 2j, 3 - 1j]), jnp.array([1 + 0j, 3 + 0j])
    np.testing.assert_array_equal(jax.jit(fn)(z), z)
    assert jax.jit(fn)(nearly_real).dtype == jnp.complex128
    grad = jax.jit(jax.grad(lambda z: jnp.abs(fn(z)).sum()))(z)
    np.testing.assert_allclose(grad, jax.grad(lambda z: jnp.abs(z).sum())(z), rtol=1e-15)
    grad = jax.jit(jax.grad(lambda z: (fn(z) * jnp.array([2j, 3.0])).real.sum()))(nearly_real)
    np.testing.assert_allclose(grad, [0.0, 3.0], atol=1e-15)  # the imaginary part of the output is constant
    real = wrap(np.real_if_close, out_shape=lambda z: jax.ShapeDtypeStruct(z.shape, jnp.float64))
    with pytest.raises(Exception, match=r"real_if_close: result 0 .*complex128.*float64.*depends on the values"):
        jax.jit(real)(z)


def test_thunks_are_forced_once() -> None:
    rules.FORCED.clear()
    assert float(jax.grad(lambda x: wrap(rules.lazy_square)(x).sum())(jnp.array([1.5]))[0]) == 3.0
    assert rules.FORCED == [1]


def test_the_backward_pass_uses_the_pullback_the_forward_pass_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under jit(grad) the rule runs once per step: the backward pass's callback finds the forward pass's
    pullback (kept from KEEP_FROM entries on; here from any). A pullback asked twice (jax.vjp's function called
    again) runs the rule again, with the same result."""
    monkeypatch.setattr(interop_jax, "KEEP_FROM", 0)
    x = jnp.array([0.5, -1.0])
    step = jax.jit(jax.grad(lambda x: (wrap(rules.observed)(x) ** 2).sum()))
    step(x)  # compiled, and run once
    rules.SEEN.clear()
    np.testing.assert_array_equal(step(x), 2 * x)
    assert len(rules.SEEN) == 1
    rules.SEEN.clear()
    _, vjp = jax.vjp(jax.jit(wrap(rules.observed)), x)
    first, second = vjp(jnp.ones(2))[0], vjp(jnp.ones(2))[0]
    np.testing.assert_array_equal(first, second)
    assert len(rules.SEEN) == 2


def test_not_implemented_tangent_raises_naming_function_and_argument() -> None:
    fn = wrap(rules.bessel_like)
    with pytest.raises(NotImplementedTangentError, match=r"bessel_like.*argument 2 \(order\).*d/dorder"):
        jax.grad(lambda x, order: fn(x, order).sum(), argnums=1)(jnp.array([0.5]), jnp.array([2.0]))
    with pytest.raises(Exception, match=r"argument 2 \(order\)"):  # under jit, JAX re-raises the host's error
        jax.jit(jax.grad(lambda x, order: fn(x, order).sum()))(jnp.array([0.5]), jnp.array([2.0]))


def test_a_not_implemented_pushforward_raises_naming_the_function() -> None:
    fn = wrap(rules.bessel_like, mode="forward")
    with pytest.raises(NotImplementedTangentError, match=r"bessel_like: the pushforward.*d/dorder"):
        jax.jvp(fn, (jnp.array([0.5]), jnp.array([2.0])), (jnp.ones(1), jnp.ones(1)))


def test_not_implemented_tangent_of_a_constant_is_harmless() -> None:
    fn = wrap(rules.bessel_like)
    grad = jax.grad(lambda x: fn(x, np.array([2.0])).sum())(jnp.array([0.5]))
    np.testing.assert_allclose(grad, [-2 * np.sin(1.0)])
    dot = jax.jvp(
        lambda x: wrap(rules.bessel_like, mode="forward")(x, jnp.array([2.0])), (jnp.array([0.5]),), (jnp.ones(1),)
    )[1]
    np.testing.assert_allclose(dot, [-2 * np.sin(1.0)])


def test_a_missing_rule_raises_when_its_derivative_is_asked() -> None:
    """A function with only an frule: its value and forward mode work; reverse mode names the missing rrule."""
    x = jnp.array([0.0, 1.0])
    assert jax.jit(wrap(rules.forward_only))(x).tolist() == np.exp([0.0, 1.0]).tolist()
    np.testing.assert_allclose(jax.jvp(wrap(rules.forward_only, mode="forward"), (x,), (jnp.ones(2),))[1], np.exp(x))
    with pytest.raises(LookupError, match="forward_only has no rrule"):
        jax.grad(lambda x: wrap(rules.forward_only)(x).sum())(x)


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="mode must be one of"):
        wrap(np.sin, mode="sideways")


def test_outputs_that_placeholders_cannot_find_are_given_by_out_shape() -> None:
    """Under jit the output shapes come from running f on placeholders; an f that rejects them names out_shape."""
    x = jnp.array([2.0, 3.0])
    with pytest.raises(RuntimeError, match=r"strict_arccosh: could not find the shapes.*out_shape"):
        jax.jit(wrap(rules.strict_arccosh))(x)
    given = wrap(rules.strict_arccosh, out_shape=lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype))
    np.testing.assert_allclose(jax.jit(jax.grad(lambda x: given(x).sum()))(x), 1 / np.sqrt(x**2 - 1), rtol=1e-12)
    fixed = wrap(rules.strict_arccosh, out_shape=jax.ShapeDtypeStruct((2,), jnp.float64))
    np.testing.assert_allclose(jax.jit(fixed)(x), np.arccosh(x), rtol=1e-12)


# ----- transforms -----


def _solve_problem() -> tuple[Any, Any]:
    rng = np.random.default_rng(3)
    return jnp.asarray(rng.normal(size=(3, 3)) + 3 * np.eye(3)), jnp.asarray(rng.normal(size=(3,)))


def _sum_of(g: Any) -> Any:
    return lambda a, b: g(a, b).sum()


REVERSE = {
    "grad": lambda g: jax.grad(_sum_of(g), argnums=(0, 1)),
    "jit-grad": lambda g: jax.jit(jax.grad(_sum_of(g), argnums=(0, 1))),
    "vjp": lambda g: lambda a, b: jax.vjp(g, a, b)[1](jnp.ones(3)),
    "jacrev": lambda g: jax.jacrev(g, argnums=(0, 1)),
    "jit-jacrev": lambda g: jax.jit(jax.jacrev(g, argnums=(0, 1))),
    "vmap": lambda g: jax.vmap(g, in_axes=(None, 0)),
    "vmap-grad": lambda g: jax.vmap(jax.grad(_sum_of(g), argnums=(0, 1)), in_axes=(None, 0)),
    "jit-vmap-grad": lambda g: jax.jit(jax.vmap(jax.grad(_sum_of(g)), in_axes=(None, 0))),
}
FORWARD = {
    "jvp": lambda g: lambda a, b: jax.jvp(g, (a, b), (jnp.ones_like(a), jnp.ones_like(b))),
    "jit-jvp": lambda g: jax.jit(lambda a, b: jax.jvp(g, (a, b), (jnp.ones_like(a), jnp.ones_like(b)))),
    "linearize": lambda g: lambda a, b: jax.linearize(g, a, b)[1](jnp.ones_like(a), jnp.ones_like(b)),
    "jacfwd": lambda g: jax.jacfwd(g, argnums=(0, 1)),
    "jit-jacfwd": lambda g: jax.jit(jax.jacfwd(g, argnums=(0, 1))),
    "vmap-jacfwd": lambda g: jax.vmap(jax.jacfwd(g), in_axes=(None, 0)),
}
BOTH = {
    "vmap": REVERSE["vmap"],
    "grad": REVERSE["grad"],
    "jit-grad": REVERSE["jit-grad"],
    "vjp": REVERSE["vjp"],
    "jvp": FORWARD["jvp"],
    "jit-jvp": FORWARD["jit-jvp"],
    "linearize": FORWARD["linearize"],
}


def _transform_params() -> list[Any]:
    return [
        pytest.param(mode, name, transform, id=f"{mode}-{name}")
        for mode, table in (("reverse", REVERSE), ("forward", FORWARD), ("both", BOTH))
        for name, transform in table.items()
    ]


@pytest.mark.parametrize(("mode", "name", "transform"), _transform_params())
def test_transforms(mode: str, name: str, transform: Any) -> None:
    """Each transform of the wrapped solve equals the same transform of jnp.linalg.solve."""
    a, b = _solve_problem()
    if "vmap" in name:
        b = jnp.stack([b, -2 * b, 0.5 * b])
    got = transform(wrap(np.linalg.solve, mode=mode))(a, b)
    expected = transform(jnp.linalg.solve)(a, b)
    for g, e in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(expected)):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    ("mode", "transform", "message"),
    [
        pytest.param("reverse", lambda g, x: jax.jvp(g, (x,), (x,)), "forward-mode", id="reverse-jvp"),
        pytest.param("forward", lambda g, x: jax.grad(lambda x: g(x).sum())(x), "transpose", id="forward-grad"),
        pytest.param("both", lambda g, x: jax.vmap(jax.grad(lambda x: g(x).sum()))(x), "linear_call", id="both-vmap"),
        pytest.param("both", lambda g, x: jax.jacfwd(g)(x), "linear_call", id="both-jacfwd"),
        pytest.param(
            "reverse", lambda g, x: jax.hessian(lambda x: g(x).sum())(x), "forward-mode", id="reverse-hessian"
        ),
        # JAX itself fails here, with a bare AssertionError while transposing linear_call's transpose.
        pytest.param("both", lambda g, x: jax.grad(jax.grad(lambda x: g(x).sum()))(x[0]), None, id="both-second"),
        pytest.param(
            "reverse",
            lambda g, x: jax.grad(jax.grad(jax.grad(lambda x: g(x).sum())))(x[0]),
            "callbacks do not support JVP|nor three times",  # JAX's words below KEEP_FROM entries, ours above
            id="reverse-third",
        ),
    ],
)
def test_unsupported_transforms_raise(mode: str, transform: Any, message: str | None) -> None:
    """What a mode of the host path does not support fails loudly, never with a wrong value."""
    with pytest.raises(Exception, match=message):
        transform(wrap(np.sin, mode=mode, path="host"), jnp.array([0.1, 0.2]))


@pytest.mark.parametrize(
    ("second", "batched"),
    [
        pytest.param(
            lambda g: jax.grad(lambda x: jax.grad(lambda y: (g(y) ** 3).sum())(x).sum()), False, id="grad-grad"
        ),
        pytest.param(lambda g: jax.jacrev(jax.jacrev(g)), False, id="jacrev-jacrev"),
        pytest.param(lambda g: jax.jit(jax.jacrev(jax.grad(lambda y: (g(y) ** 3).sum()))), False, id="jit-jacrev-grad"),
        pytest.param(
            lambda g: jax.vmap(jax.grad(lambda x: jax.grad(lambda y: (g(y) ** 3).sum())(x).sum())),
            True,
            id="vmap-grad-grad",
        ),
    ],
)
def test_reverse_over_reverse_equals_jaxs(second: Any, batched: bool) -> None:
    """The pullback is a custom_vjp of its own, whose VJP the reverse engine computes from the rule's numpy code."""
    x = jnp.array([[0.1, 0.2, -0.7], [0.3, -1.1, 0.4]])
    np.testing.assert_allclose(second(wrap(np.sin))(x), second(jnp.sin)(x), rtol=1e-10, atol=1e-12)
    a = jnp.array(np.random.default_rng(3).normal(size=(3, 3)) + 3 * np.eye(3))
    b = x if batched else x[0]  # one right-hand side per batch entry
    got = second(lambda v: wrap(np.linalg.solve)(a, v))(b)
    np.testing.assert_allclose(got, second(lambda v: jnp.linalg.solve(a, v))(b), rtol=1e-10, atol=1e-12)


def test_complex_second_derivatives_follow_jax() -> None:
    z, c = jnp.array([0.3 + 0.2j, -0.5 + 1j]), jnp.array([1.0 - 0.5j, 0.3 + 2j])

    def build(sin: Any) -> Any:
        energy = lambda w: jnp.real(jnp.sum(sin(w) * jnp.conj(sin(w))))  # noqa: E731
        return jax.grad(lambda z: jnp.real(jnp.sum(jax.grad(energy)(z) * c)))

    np.testing.assert_allclose(build(wrap(np.sin))(z), build(jnp.sin)(z), rtol=1e-10, atol=1e-12)


def test_float32_without_x64() -> None:
    with jax.enable_x64(False):
        x = jnp.array([0.1, 0.2], dtype=jnp.float32)
        grad = jax.jit(jax.grad(lambda x: wrap(np.sin)(x).sum()))(x)
        dot = jax.jit(lambda x: jax.jvp(wrap(np.sin, mode="forward"), (x,), (jnp.ones_like(x),))[1])(x)
    assert grad.dtype == dot.dtype == jnp.float32
    np.testing.assert_allclose(grad, np.cos([0.1, 0.2]), rtol=1e-6)
    np.testing.assert_allclose(dot, np.cos([0.1, 0.2]), rtol=1e-6)


def test_complex_cotangents_follow_jax() -> None:
    """A real loss of a complex input: JAX's gradient convention, through the conjugation at the boundary."""
    z = jnp.array([1 + 2j, 0.5 - 1j])
    expected = jax.grad(lambda z: jnp.abs(jnp.sin(z)).sum())(z)
    for fn in (wrap(np.sin), wrap(np.sin, mode="both")):
        got = jax.jit(jax.grad(lambda z, fn=fn: jnp.abs(fn(z)).sum()))(z)
        np.testing.assert_allclose(got, expected, rtol=1e-12)
