"""chainrules.interop.autograd: the declared cases against autograd's own derivatives, and each feature of wrap."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

autograd = pytest.importorskip("autograd", reason="autograd is optional: pip install 'chainrules[autograd]'")

import autograd.numpy as anp  # noqa: E402

# autograd warns when an output does not depend on an input (floor, sign, a zero derivative): expected here.
pytestmark = pytest.mark.filterwarnings("ignore:Output seems independent of input")

from chainrules.interop.autograd import wrap  # noqa: E402
from chainrules_core import NotImplementedTangentError  # noqa: E402
from chainrules_core.testing import Case  # noqa: E402
from tests.interop import rules  # noqa: E402
from tests.interop.checking import (  # noqa: E402
    Framework,
    NoDerivativeError,
    case_params,
    check_case,
    entries,
    no_counterpart,
)


def _complex(dtype: str) -> bool:
    return np.dtype(dtype).kind == "c"


BOTH = ("rrule", "frule")

# Where autograd's own derivative is missing, fails or differs, the case is compared against the rule:
# (why, in which modes, when). Where autograd defines no VJP or JVP at all, _vjp and _jvp say so themselves.
DIFFERS: list[tuple[str, tuple[str, ...], Callable[[Case, str], bool]]] = [
    ("prod divides by x: nan at a zero (the rule is exact)", BOTH, lambda c, d: c.f is np.prod and "zero" in c.name),
    (
        "det multiplies by inv(a): inf at a singular matrix",
        BOTH,
        lambda c, d: c.f is np.linalg.det and "singular" in c.name,
    ),
    (
        "sinc divides by x: nan at 0, where the limit is 0",
        BOTH,
        lambda c, d: c.f is np.sinc and "non-smooth" in c.name,
    ),
    ("sign has a zero derivative; complex z/|z| does not", BOTH, lambda c, d: c.f is np.sign and _complex(d)),
    ("slogdet drops the derivative of a complex sign", BOTH, lambda c, d: c.f is np.linalg.slogdet and _complex(d)),
    ("angle's VJP takes no deg argument", BOTH, lambda c, d: c.f is np.angle and len(c.args) > 1),
    ("trace's VJP takes only the offset", BOTH, lambda c, d: c.f in (np.trace, np.ndarray.trace) and len(c.args) > 2),
    ("outer's VJP assumes 1-d operands", BOTH, lambda c, d: c.f is np.outer and "flattens" in c.name),
    (
        "solve's VJP broadcasts no stacks",
        BOTH,
        lambda c, d: c.f is np.linalg.solve and ("stack" in c.name or "broad" in c.name),
    ),
    ("where= is ignored: the gradient reaches masked entries", BOTH, lambda c, d: "where" in c.kwargs),
    ("initial= is added to the JVP's tangent", BOTH, lambda c, d: "initial" in c.kwargs),
    ("a complex cotangent cannot accumulate into float32", BOTH, lambda c, d: d == "float32" and "dtype" in c.kwargs),
    (
        # a_bar = cross(b, g) with no unbroadcasting, and g has no vector axis for 2-vectors: a ValueError.
        "cross's VJP takes only 3-vectors of the same shape",
        ("rrule",),
        lambda c, d: c.f is np.cross and any(s in c.name for s in ("broadcast", "2-vector")),
    ),
    (
        # numpy's own multi_dot run on the boxes: unless the product is a scalar, an object array of them.
        "anp.linalg.multi_dot is no primitive: make_vjp and make_jvp take its object array of boxes as a constant",
        BOTH,
        lambda c, d: c.f is np.linalg.multi_dot and "scalar" not in c.name,
    ),
    (
        "nan_to_num's VJP and JVP take x alone: copy, nan, posinf or neginf is a TypeError",
        BOTH,
        lambda c, d: c.f is np.nan_to_num and (len(c.args) > 1 or bool(c.kwargs)),
    ),
]


def counterpart(case: Case, dtype: str, mode: str) -> Any:
    """``autograd.numpy``'s function of the same name, or why the rule is the reference instead."""
    for why, modes, applies in DIFFERS:
        if mode in modes and applies(case, dtype):
            return why
    f = case.f
    if f is operator.matmul:
        return operator.matmul
    name = f.__name__
    module = anp.linalg if getattr(np.linalg, name, None) is f else anp
    return getattr(module, name, no_counterpart("autograd"))


def _no_derivative(err: Exception, which: str) -> NoDerivativeError | None:
    """autograd's refusals: no VJP defined for a primitive, or no JVP (a KeyError on the JVP table in forward mode).

    The reason names no function: the count after the run lists them.
    """
    if (isinstance(err, NotImplementedError) and "not defined" in str(err)) or (
        isinstance(err, KeyError) and callable(err.args[0])
    ):
        return NoDerivativeError(f"autograd defines no {which}")
    return None


def _vjp(fn: Any, operands: list[Any], seeds: list[Any]) -> tuple[list[Any], list[Any]]:
    try:
        pullback, out = autograd.make_vjp(fn, argnum=tuple(range(len(operands))))(*operands)
    except (NotImplementedError, KeyError) as err:
        refusal = _no_derivative(err, "VJP")
        if refusal is None:
            raise
        raise refusal from err
    outs = entries(out)
    given = [np.zeros(np.shape(o)) if s is None else s for o, s in zip(outs, seeds)]
    seed = tuple(given) if isinstance(out, tuple) else given[0]
    return [np.asarray(o) for o in outs], [np.asarray(c) for c in pullback(seed)]


def _jvp(fn: Any, operands: list[Any], dots: list[Any]) -> tuple[list[Any], list[Any]]:
    try:
        out, out_dot = autograd.make_jvp(fn, argnum=tuple(range(len(operands))))(*operands)(tuple(dots))
    except (NotImplementedError, KeyError) as err:
        refusal = _no_derivative(err, "JVP")
        if refusal is None:
            raise
        raise refusal from err
    return [np.asarray(o) for o in entries(out)], [np.asarray(d) for d in entries(out_dot)]


AUTOGRAD = Framework(
    name="autograd",
    wrap=lambda f, mode: wrap(f),
    array=lambda x: x,
    vjp=_vjp,
    jvp=_jvp,
    counterpart=counterpart,
    conjugate=True,
)


@pytest.mark.parametrize(("case", "dtype"), case_params(("float64", "complex128", "float32")))
def test_declared_case(case: Case, dtype: str) -> None:
    """make_vjp and make_jvp of wrap(f) equal autograd's own, or the rule's where autograd has none."""
    check_case(AUTOGRAD, case, dtype)


def test_several_arguments_and_keywords() -> None:
    fn = wrap(rules.scale_shift)
    x_bar, a_bar = autograd.grad(lambda x, a: anp.sum(fn(x, a, shift=0.5)), argnum=(0, 1))(np.array([1.0, 2.0]), 3.0)
    assert x_bar.tolist() == [3.0, 3.0] and a_bar == 3.0
    assert fn(np.array([1.0, 2.0]), 3.0, shift=0.5).tolist() == [3.5, 6.5]


def test_tuple_outputs() -> None:
    x = np.array([0.3, 0.9])
    fn = wrap(rules.sin_cos)
    grad = autograd.grad(lambda x: anp.sum(fn(x)[0]) + 2 * anp.sum(fn(x)[1]))(x)
    np.testing.assert_allclose(grad, np.cos(x) - 2 * np.sin(x), rtol=1e-12)
    np.testing.assert_allclose(autograd.grad(lambda x: anp.sum(fn(x)[0]))(x), np.cos(x), rtol=1e-12)
    _, (_, c_dot) = autograd.make_jvp(fn)(x)(np.ones(2))
    np.testing.assert_allclose(c_dot, -np.sin(x), rtol=1e-12)


def test_zero_and_no_tangent_give_zeros() -> None:
    x_bar, w_bar = autograd.grad(lambda x, w: anp.sum(wrap(rules.masked_scale)(x, w)), argnum=(0, 1))(
        np.ones(2), np.ones(2)
    )
    assert x_bar.tolist() == [0.0, 0.0] and w_bar.tolist() == [0.0, 0.0]


def test_the_arrays_of_a_list_argument_are_operands() -> None:
    """A list of boxed arrays, or a list or tuple differentiated as a whole: each array gets its derivative."""
    rng = np.random.default_rng(8)
    a, b, c = (rng.normal(size=s) for s in [(2, 3), (3, 4), (4, 2)])
    fn = wrap(np.linalg.multi_dot)
    a_bar, b_bar = autograd.grad(lambda a, b: anp.sum(fn([a, b, c])), argnum=(0, 1))(a, b)
    np.testing.assert_allclose(a_bar, np.ones((2, 2)) @ (b @ c).T, rtol=1e-12)
    np.testing.assert_allclose(b_bar, a.T @ np.ones((2, 2)) @ c.T, rtol=1e-12)
    for container in (list, tuple):
        bars = autograd.grad(lambda xs: anp.sum(fn(xs)))(container([a, b, c]))
        assert type(bars) is container
        np.testing.assert_allclose(bars[1], b_bar, rtol=1e-12)
    _, dot = autograd.make_jvp(lambda b: fn([a, b, c]))(b)(np.ones_like(b))
    np.testing.assert_allclose(dot, a @ np.ones_like(b) @ c, rtol=1e-12)


def test_an_integer_output_gets_no_derivative() -> None:
    """frexp of a Python float: its int32 exponent (no vector space in autograd) comes back as a 0-d array."""
    fn = wrap(np.frexp)
    assert autograd.grad(lambda x: fn(x)[0])(3.0) == 0.25
    (mantissa, exponent), (mantissa_dot, exponent_dot) = autograd.make_jvp(fn)(3.0)(1.0)
    assert (mantissa, exponent, mantissa_dot, exponent_dot) == (0.75, 2, 0.25, 0)


def test_python_floats_stay_floats() -> None:
    grad = autograd.grad(wrap(np.sin))(0.5)
    assert type(grad) is float and grad == pytest.approx(np.cos(0.5), rel=1e-15)


def test_thunks_are_forced_once() -> None:
    rules.FORCED.clear()
    assert autograd.grad(lambda x: anp.sum(wrap(rules.lazy_square)(x)))(np.array([1.5]))[0] == 3.0
    assert rules.FORCED == [1]


def test_the_primal_runs_once_in_reverse_mode() -> None:
    rules.SEEN.clear()
    fn = wrap(rules.observed)
    autograd.grad(lambda x: anp.sum(fn(x)))(np.array([1.0, 2.0]))
    assert len(rules.SEEN) == 1


def test_not_implemented_tangent_raises_naming_function_and_argument() -> None:
    fn = wrap(rules.bessel_like)
    with pytest.raises(NotImplementedTangentError, match=r"bessel_like.*argument 2 \(order\).*d/dorder"):
        autograd.grad(lambda x, order: anp.sum(fn(x, order)), argnum=1)(np.array([0.5]), np.array([2.0]))
    grad = autograd.grad(lambda x: anp.sum(fn(x, np.array([2.0]))))(np.array([0.5]))
    np.testing.assert_allclose(grad, [-2 * np.sin(1.0)])


def test_a_missing_rule_raises_when_its_derivative_is_asked() -> None:
    fn = wrap(rules.forward_only)
    np.testing.assert_allclose(autograd.make_jvp(fn)(np.zeros(2))(np.ones(2))[1], [1.0, 1.0])
    with pytest.raises(LookupError, match="forward_only has no rrule"):
        autograd.grad(lambda x: anp.sum(fn(x)))(np.zeros(2))


SOLVE = (np.linalg.solve, anp.linalg.solve)
MATMUL = (np.matmul, anp.matmul)


@pytest.mark.parametrize(
    ("transform", "f", "native"),
    [
        pytest.param(lambda g: autograd.grad(lambda a, b: anp.sum(g(a, b)), argnum=(0, 1)), *SOLVE, id="grad"),
        pytest.param(lambda g: autograd.value_and_grad(lambda a, b: anp.sum(g(a, b))), *SOLVE, id="value_and_grad"),
        pytest.param(lambda g: autograd.jacobian(g, argnum=0), *SOLVE, id="jacobian"),
        pytest.param(lambda g: lambda a, b: autograd.elementwise_grad(lambda b: g(a, b))(b), *SOLVE, id="egrad"),
        pytest.param(lambda g: lambda a, b: autograd.make_jvp(g, argnum=(0, 1))(a, b)((a, b)), *MATMUL, id="make_jvp"),
    ],
)
def test_transforms(transform: Any, f: Any, native: Any) -> None:
    """Each transform of the wrapped function equals the same transform of autograd's own.

    (make_jvp uses matmul: autograd has no forward mode for its linalg functions.)
    """
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(3, 3)) + 3 * np.eye(3), rng.normal(size=(3,))
    got = transform(wrap(f))(a, b)
    expected = transform(native)(a, b)
    for g, e in zip(_leaves(got), _leaves(expected)):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)


def _leaves(x: Any) -> list[Any]:
    return [leaf for item in x for leaf in _leaves(item)] if isinstance(x, tuple) else [x]


SECOND = [
    pytest.param(lambda g: autograd.hessian(lambda x: anp.sum(g(x) ** 3)), id="hessian"),
    pytest.param(
        lambda g: autograd.grad(lambda x: anp.sum(autograd.grad(lambda y: anp.sum(g(y) ** 3))(x))), id="grad-grad"
    ),
    pytest.param(
        lambda g: lambda x: autograd.make_jvp(autograd.grad(lambda y: anp.sum(g(y) ** 3)))(x)(x)[1], id="jvp-grad"
    ),
    pytest.param(lambda g: autograd.grad(lambda x: anp.sum(autograd.make_jvp(g)(x)(x)[1] ** 3)), id="grad-jvp"),
]


@pytest.mark.parametrize("second", SECOND)
def test_second_derivatives_equal_autograds(second: Any) -> None:
    """Each composition of two derivatives: the engines differentiate the pullback or pushforward (sin in both
    modes; solve, which autograd has no forward mode for, in reverse over reverse)."""
    x = np.array([0.1, 0.2, -0.7])
    np.testing.assert_allclose(second(wrap(np.sin))(x), second(anp.sin)(x), rtol=1e-10, atol=1e-12)
    a = np.random.default_rng(3).normal(size=(3, 3)) + 3 * np.eye(3)
    if "jvp" not in str(second):
        got = autograd.hessian(lambda b: anp.sum(wrap(np.linalg.solve)(a, b) ** 3))(x)
        np.testing.assert_allclose(got, autograd.hessian(lambda b: anp.sum(anp.linalg.solve(a, b) ** 3))(x), rtol=1e-10)


def test_complex_second_derivatives_in_autograds_convention() -> None:
    """The conjugations at the boundary hold at second order: both compositions equal autograd's own sin's."""
    z, c = np.array([0.3 + 0.2j, -0.5 + 1j]), np.array([1.0 - 0.5j, 0.3 + 2j])
    for build in (
        lambda sin: autograd.grad(lambda z: anp.real(anp.sum(autograd.grad(lambda w: _energy(sin, w))(z) * c))),
        lambda sin: lambda z: autograd.make_jvp(autograd.grad(lambda w: _energy(sin, w)))(z)(c)[1],
    ):
        np.testing.assert_allclose(build(wrap(np.sin))(z), build(anp.sin)(z), rtol=1e-10, atol=1e-12)


def _energy(sin: Any, w: Any) -> Any:
    return anp.real(anp.sum(sin(w) * anp.conj(sin(w))))


def test_third_derivatives_raise() -> None:
    with pytest.raises(NotImplementedError, match=r"np\.sin: third derivatives"):
        autograd.grad(autograd.grad(autograd.grad(wrap(np.sin))))(0.3)
