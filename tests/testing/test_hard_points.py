"""Correct rules pass with the default tolerances at hard points, and over shapes and dtypes drawn by hypothesis.

Hard points: magnitudes 1e-8 and 1e8, magnitudes 16 decades apart in one
array, float32, complex64 and complex128, matrices with condition number
1e6, explicit tangents at extreme inputs, structured and mixed outputs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chainrules_core import AbstractZero, NoTangent, ProjectTo, Tangent, ZeroTangent, frule, rrule, scalar_rule, unthunk
from chainrules_core.testing import test_frule, test_rrule, test_scalar, with_tangent

MODES = [test_rrule, test_frule]


def square(x: Any) -> Any:
    return x * x


def log(x: Any) -> Any:
    return np.log(x)


def sqrt(x: Any) -> Any:
    return np.sqrt(x)


def exp(x: Any) -> Any:
    return np.exp(x)


def sin(x: Any) -> Any:
    return np.sin(x)


def tanh(x: Any) -> Any:
    return np.tanh(x)


def multiply(x: Any, y: Any) -> Any:
    return x * y


def divide(x: Any, y: Any) -> Any:
    return x / y


scalar_rule(square, lambda out, x: 2 * x)
scalar_rule(log, lambda out, x: 1 / x)
scalar_rule(sqrt, lambda out, x: 0.5 / out)
scalar_rule(exp, lambda out, x: out)
scalar_rule(sin, lambda out, x: np.cos(x))
scalar_rule(tanh, lambda out, x: 1 - out * out)
scalar_rule(multiply, lambda out, x, y: (y, x))
scalar_rule(divide, lambda out, x, y: (1 / y, -out / y))


def inv(A: Any) -> Any:
    return np.linalg.inv(A)


@rrule.register(inv)
def _rrule_inv(f: Any, A: Any) -> Any:
    out = np.linalg.inv(A)
    project_A = ProjectTo(A)

    def inv_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), ZeroTangent()
        out_h = out.conj().T
        return NoTangent(), project_A(-out_h @ out_bar @ out_h)

    return out, inv_pullback


@frule.register(inv)
def _frule_inv(tangents: Any, f: Any, A: Any) -> Any:
    out = np.linalg.inv(A)
    return out, -out @ tangents[1] @ out


def solve(A: Any, b: Any) -> Any:
    return np.linalg.solve(A, b)


@rrule.register(solve)
def _rrule_solve(f: Any, A: Any, b: Any) -> Any:
    out = np.linalg.solve(A, b)
    project_A, project_b = ProjectTo(A), ProjectTo(b)

    def solve_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), ZeroTangent(), ZeroTangent()
        b_bar = np.linalg.solve(A.conj().T, out_bar)
        return NoTangent(), project_A(-np.outer(b_bar, out.conj())), project_b(b_bar)

    return out, solve_pullback


@frule.register(solve)
def _frule_solve(tangents: Any, f: Any, A: Any, b: Any) -> Any:
    _, A_dot, b_dot = tangents
    out = np.linalg.solve(A, b)
    rhs = b_dot - A_dot @ out
    return out, rhs if isinstance(rhs, AbstractZero) else np.linalg.solve(A, rhs)


def conditioned(n: int, cond: float, dtype: Any = np.float64, seed: int = 0) -> Any:
    """A random ``n x n`` matrix with singular values from 1 down to ``1 / cond``."""
    r = np.random.default_rng(seed)
    U, _ = np.linalg.qr(r.normal(size=(n, n)))
    V, _ = np.linalg.qr(r.normal(size=(n, n)))
    return (U @ np.diag(np.logspace(0, -np.log10(cond), n)) @ V).astype(dtype)


def stats(x: Any) -> Any:
    """A tuple output: a Python float, an array, and an int."""
    return float(np.sum(x)), x * x, int(np.argmax(x))


@rrule.register(stats)
def _rrule_stats(f: Any, x: Any) -> Any:
    project_x = ProjectTo(x)

    def stats_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), ZeroTangent()
        total_bar, square_bar, _ = out_bar
        return NoTangent(), project_x(total_bar * np.ones_like(x) + 2 * x * square_bar)

    return stats(x), stats_pullback


@frule.register(stats)
def _frule_stats(tangents: Any, f: Any, x: Any) -> Any:
    x_dot = tangents[1]
    if isinstance(x_dot, AbstractZero):
        return stats(x), x_dot
    return stats(x), Tangent(tuple, float(np.sum(x_dot)), 2 * x * x_dot, NoTangent())


def moments(x: Any) -> dict[str, Any]:
    """A dict output."""
    return {"mean": np.mean(x), "square": x * x}


@rrule.register(moments)
def _rrule_moments(f: Any, x: Any) -> Any:
    project_x = ProjectTo(x)

    def moments_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), ZeroTangent()
        return NoTangent(), project_x(out_bar["mean"] * np.ones_like(x) / x.size + 2 * x * out_bar["square"])

    return moments(x), moments_pullback


@frule.register(moments)
def _frule_moments(tangents: Any, f: Any, x: Any) -> Any:
    x_dot = tangents[1]
    return moments(x), Tangent(dict, {"mean": np.mean(x_dot), "square": 2 * x * x_dot})


def halves(x: Any) -> list[Any]:
    """A list output."""
    return [np.sin(x[:2]), x[2:] ** 2]


@rrule.register(halves)
def _rrule_halves(f: Any, x: Any) -> Any:
    project_x = ProjectTo(x)

    def halves_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), ZeroTangent()
        head_bar, tail_bar = out_bar
        head = np.cos(x[:2]) * head_bar + np.zeros(2)
        tail = 2 * x[2:] * tail_bar + np.zeros(x.size - 2)
        return NoTangent(), project_x(np.concatenate([head, tail]))

    return halves(x), halves_pullback


@frule.register(halves)
def _frule_halves(tangents: Any, f: Any, x: Any) -> Any:
    x_dot = tangents[1]
    if isinstance(x_dot, AbstractZero):
        return halves(x), x_dot
    return halves(x), [np.cos(x[:2]) * x_dot[:2], 2 * x[2:] * x_dot[2:]]


# ----- magnitudes -----

SIGNS = np.array([1.0, -1.0, 1.0, 1.0, -1.0])


@pytest.mark.parametrize("check", MODES, ids=["rrule", "frule"])
@pytest.mark.parametrize("magnitude", [1e-8, 1.0, 1e8])
@pytest.mark.parametrize(
    ("f", "positive"),
    [(square, False), (multiply, False), (divide, False), (log, True), (sqrt, True)],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_magnitudes(f: Callable[..., Any], positive: bool, magnitude: float, check: Callable[..., Any]) -> None:
    """Inputs of magnitude 1e-8 and 1e8 pass as inputs of magnitude 1 do."""
    x = magnitude * np.linspace(0.5, 2.0, 5) * (1.0 if positive else SIGNS)
    args = (x,) if f in (square, log, sqrt) else (x, magnitude * np.linspace(1.5, 0.7, 5))
    check(f, *args)


MIXED = np.array([1e-8, -3e-4, 1.0, 2.5e4, -1e8])


@pytest.mark.parametrize("check", MODES, ids=["rrule", "frule"])
@pytest.mark.parametrize("f", [square, multiply, divide, log, sqrt], ids=lambda f: f.__name__)
def test_mixed_magnitudes_in_one_array(f: Callable[..., Any], check: Callable[..., Any]) -> None:
    """Entries 16 decades apart in one array."""
    x = np.abs(MIXED) if f in (log, sqrt) else MIXED
    args = (x,) if f in (square, log, sqrt) else (x, MIXED[::-1].copy())
    check(f, *args)


@pytest.mark.parametrize("x", [1e-300, 1e-8, 1.0, 1e8, 1e300])
def test_explicit_tangents_at_extreme_inputs(x: float) -> None:
    """An explicit tangent of 1 at 1e-300 or 1e300 steps by the input's own scale."""
    test_scalar(log, x)
    test_scalar(sqrt, x)


def test_a_wrong_rule_is_caught_at_extreme_inputs() -> None:
    """Steps relative to the input also make wrong rules visible there."""

    def log_wrong(x: Any) -> Any:
        return np.log(x)

    scalar_rule(log_wrong, lambda out, x: 1.001 / x)
    for x in (1e-300, 1e-8, 1e8, 1e300):
        with pytest.raises(AssertionError, match=r"^\[pushforward\]"):
            test_scalar(log_wrong, x)


# ----- precisions -----


@pytest.mark.parametrize("check", MODES, ids=["rrule", "frule"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("f", [square, exp, sin, tanh, multiply, divide], ids=lambda f: f.__name__)
def test_dtypes(f: Callable[..., Any], dtype: Any, check: Callable[..., Any]) -> None:
    """float32, float64, complex64 and complex128 inputs pass with the default tolerances."""
    r = np.random.default_rng(3)
    x = r.normal(size=(2, 3))
    if np.dtype(dtype).kind == "c":
        x = x + 1j * r.normal(size=(2, 3))
    args = (x.astype(dtype),) if f in (square, exp, sin, tanh) else (x.astype(dtype), (x[0] + 2.0).astype(dtype))
    check(f, *args)


@pytest.mark.parametrize("z", [0.5 + 1.5j, -2.0 + 0.1j, np.complex64(1 - 1j)])
def test_complex_scalars(z: complex) -> None:
    """Both parts of the derivative of a holomorphic function at complex scalars."""
    test_scalar(exp, z)
    test_scalar(log, z)


# ----- near-singular inputs -----


@pytest.mark.parametrize("check", MODES, ids=["rrule", "frule"])
@pytest.mark.parametrize("cond", [1e2, 1e4, 1e6])
def test_inverse_of_an_ill_conditioned_matrix(cond: float, check: Callable[..., Any]) -> None:
    """``inv`` of a matrix with condition number up to 1e6, and ``solve`` with it."""
    A = conditioned(4, cond)
    check(inv, A)
    check(solve, A, np.linspace(-1.0, 1.0, 4))


@pytest.mark.parametrize("check", MODES, ids=["rrule", "frule"])
def test_inverse_in_single_and_complex_precision(check: Callable[..., Any]) -> None:
    """float32 and complex128 matrices with condition number 1e3."""
    check(inv, conditioned(3, 1e3, np.float32))
    check(inv, conditioned(3, 1e3) + 1j * conditioned(3, 10.0, seed=1))


# ----- structured outputs -----


@pytest.mark.parametrize("check", MODES, ids=["rrule", "frule"])
def test_tuple_output_with_a_float_and_an_int(check: Callable[..., Any]) -> None:
    """A tuple output holding a Python float, an array and an int."""
    report = check(stats, np.array([0.5, -1.5, 2.0]))
    if check is test_rrule:
        assert "zero entry in a tuple seed" in report.checks


@pytest.mark.parametrize("check", MODES, ids=["rrule", "frule"])
def test_dict_output(check: Callable[..., Any]) -> None:
    """A dict output; the pullback gets ``Tangent(dict, ...)`` seeds, some with a ``ZeroTangent()`` entry."""
    report = check(moments, np.array([0.5, -1.5, 2.0]))
    if check is test_rrule:
        assert "zero entry in a tuple seed" in report.checks


@pytest.mark.parametrize("check", MODES, ids=["rrule", "frule"])
def test_list_output(check: Callable[..., Any]) -> None:
    """A list output; its seeds are lists, some with a ``ZeroTangent()`` entry."""
    report = check(halves, np.array([0.5, -1.5, 2.0, 0.25]))
    if check is test_rrule:
        assert "zero entry in a tuple seed" in report.checks


# ----- hypothesis: shapes and dtypes -----

UNARY = [square, exp, sin, tanh]
DTYPES = ["float32", "float64", "complex64", "complex128"]
shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple)


def sample(shape: tuple[int, ...], dtype: str, seed: int) -> Any:
    r = np.random.default_rng(seed)
    x = r.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * r.normal(size=shape)
    return np.asarray(x).astype(dtype)


@settings(max_examples=40, deadline=None)
@given(
    f=st.sampled_from(UNARY),
    shape=shapes,
    dtype=st.sampled_from(DTYPES),
    seed=st.integers(0, 2**16),
    mode=st.sampled_from(MODES),
)
def test_unary_rules_over_shapes_and_dtypes(
    f: Callable[..., Any], shape: tuple[int, ...], dtype: str, seed: int, mode: Callable[..., Any]
) -> None:
    """Elementwise rules pass for any shape (0-d included), dtype and seed."""
    mode(f, sample(shape, dtype, seed), seed=seed)


@settings(max_examples=30, deadline=None)
@given(
    f=st.sampled_from([multiply, divide]),
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple),
    dtype=st.sampled_from(DTYPES),
    seed=st.integers(0, 2**16),
    mode=st.sampled_from(MODES),
)
def test_broadcasting_rules_over_shapes_and_dtypes(
    f: Callable[..., Any], shape: tuple[int, ...], dtype: str, seed: int, mode: Callable[..., Any]
) -> None:
    """Binary rules with the second argument broadcast along the leading axes."""
    x = sample(shape, dtype, seed)
    y = sample(shape[-1:], dtype, seed + 1)
    y = y + np.asarray(np.sign(y.real) * 0.5).astype(dtype)  # away from 0, for divide
    mode(f, x, y, seed=seed)


@settings(max_examples=20, deadline=None)
@given(
    n=st.integers(1, 5),
    log_cond=st.floats(0.0, 6.0),
    dtype=st.sampled_from(["float64", "complex128", "float32"]),
    seed=st.integers(0, 2**16),
    mode=st.sampled_from(MODES),
)
def test_inverse_over_sizes_and_conditioning(
    n: int, log_cond: float, dtype: str, seed: int, mode: Callable[..., Any]
) -> None:
    """``inv`` over sizes and condition numbers up to 1e6 (1e3 in float32)."""
    cond = 10 ** min(log_cond, 3.0) if dtype == "float32" else 10**log_cond
    A = conditioned(n, cond, seed=seed).astype(dtype)
    if np.dtype(dtype).kind == "c":
        A = A + 1j * conditioned(n, cond, seed=seed + 1) / 4
    mode(inv, A, seed=seed)


@pytest.mark.parametrize("check", MODES, ids=["rrule", "frule"])
def test_explicit_tangent_with_mixed_magnitudes(check: Callable[..., Any]) -> None:
    """An explicit tangent on inputs 16 decades apart: the step scale is their geometric mean."""
    x = np.abs(MIXED)
    check(square, with_tangent(x, np.ones(5) * 1e-2))
