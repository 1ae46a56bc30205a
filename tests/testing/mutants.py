"""The mutation suite's table: small functions, their correct rules, and wrong variants of those rules.

Every subject is a small function with a correct ``rrule`` and ``frule``;
every mutant is one plausible mistake in one of them, with the mode it
breaks and the check of the harness that must reject it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    InplaceableThunk,
    NoTangent,
    ProjectTo,
    Tangent,
    Thunk,
    ZeroTangent,
    unbroadcast,
    unthunk,
)
from chainrules_core.testing import no_tangent


@dataclass(frozen=True)
class Mutant:
    """One wrong rule: the mode it is written for and the check that must reject it."""

    mode: str
    check: str
    rule: Callable[..., Any]


@dataclass(frozen=True)
class Subject:
    """A function, how to make its inputs, its correct rules and their mutants."""

    name: str
    make: Callable[[], tuple[Any, tuple[Any, ...]]]  # a fresh (f, args): rules registered for f apply to it alone
    rrule: Callable[..., Any]
    frule: Callable[..., Any]
    mutants: dict[str, Mutant]
    options: dict[str, Any] = field(default_factory=dict)


def fresh(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A new function computing ``fn``, so that rules registered for it apply to it alone."""

    @functools.wraps(fn)
    def copy(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return copy


def rng() -> np.random.Generator:
    return np.random.default_rng(7)


def scaled(rule: Callable[..., Any], index: int, factor: complex) -> Callable[..., Any]:
    """``rule`` with the cotangent of argument ``index`` (0 is ``f``) multiplied by ``factor``."""

    def wrong(f: Any, *args: Any, **kwargs: Any) -> Any:
        y, pullback = rule(f, *args, **kwargs)

        def scaled_pullback(out_bar: Any) -> Any:
            cotangents = list(pullback(out_bar))
            cotangents[index] = unthunk(cotangents[index]) * factor
            return tuple(cotangents)

        return y, scaled_pullback

    return wrong


def replaced(rule: Callable[..., Any], index: int, value: Callable[[Any], Any]) -> Callable[..., Any]:
    """``rule`` with the cotangent of argument ``index`` replaced by ``value(cotangent)``."""

    def wrong(f: Any, *args: Any, **kwargs: Any) -> Any:
        y, pullback = rule(f, *args, **kwargs)

        def replaced_pullback(out_bar: Any) -> Any:
            cotangents = list(pullback(out_bar))
            cotangents[index] = value(unthunk(cotangents[index]))
            return tuple(cotangents)

        return y, replaced_pullback

    return wrong


def pushed(rule: Callable[..., Any], value: Callable[[Any], Any]) -> Callable[..., Any]:
    """``rule`` (an frule) with its output tangent replaced by ``value(tangent)``."""

    def wrong(tangents: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
        y, y_dot = rule(tangents, f, *args, **kwargs)
        return y, value(y_dot)

    return wrong


def off_primal(rule: Callable[..., Any], forward: bool) -> Callable[..., Any]:
    """``rule`` returning a primal off by one part in a million."""
    if forward:
        return lambda tangents, f, *args: (rule(tangents, f, *args)[0] * (1 + 1e-6), rule(tangents, f, *args)[1])
    return lambda f, *args: (rule(f, *args)[0] * (1 + 1e-6), rule(f, *args)[1])


# ----- an elementwise function: x * sin(x) -----


def x_sin(x: Any) -> Any:
    return x * np.sin(x)


def x_sin_partial(x: Any) -> Any:
    return np.sin(x) + x * np.cos(x)


def rrule_x_sin(f: Any, x: Any) -> Any:
    project_x = ProjectTo(x)

    def x_sin_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        return NoTangent(), project_x(out_bar * np.conj(x_sin_partial(x)))

    return f(x), x_sin_pullback


def frule_x_sin(tangents: Any, f: Any, x: Any) -> Any:
    _, x_dot = tangents
    return f(x), x_sin_partial(x) * x_dot


def rrule_x_sin_dropped_term(f: Any, x: Any) -> Any:
    return f(x), lambda out_bar: (NoTangent(), unthunk(out_bar) * x * np.cos(x))


def frule_x_sin_dropped_term(tangents: Any, f: Any, x: Any) -> Any:
    return f(x), x * np.cos(x) * tangents[1]


def rrule_x_sin_mutates_seed(f: Any, x: Any) -> Any:
    def x_sin_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        out_bar *= x_sin_partial(x)
        return NoTangent(), out_bar

    return f(x), x_sin_pullback


def rrule_x_sin_mutates_input(f: Any, x: Any) -> Any:
    def x_sin_pullback(out_bar: Any) -> Any:
        x_bar = unthunk(out_bar) * x_sin_partial(x)
        x[0] = 0.0  # reuses the input as scratch space
        return NoTangent(), x_bar

    return f(x), x_sin_pullback


def rrule_x_sin_no_f_cotangent(f: Any, x: Any) -> Any:
    return f(x), lambda out_bar: (unthunk(out_bar) * x_sin_partial(x),)


def rrule_x_sin_bad_inplace_thunk(f: Any, x: Any) -> Any:
    def x_sin_pullback(out_bar: Any) -> Any:
        value = Thunk(lambda: unthunk(out_bar) * x_sin_partial(x))
        return NoTangent(), InplaceableThunk(lambda acc: acc + 2 * unthunk(value), value)

    return f(x), x_sin_pullback


def rrule_x_sin_drops_thunked_seed(f: Any, x: Any) -> Any:
    def x_sin_pullback(out_bar: Any) -> Any:
        seed = out_bar if isinstance(out_bar, np.ndarray) else np.zeros_like(x)
        return NoTangent(), seed * x_sin_partial(x)

    return f(x), x_sin_pullback


def rrule_x_sin_rejects_zero_seed(f: Any, x: Any) -> Any:
    def x_sin_pullback(out_bar: Any) -> Any:
        return NoTangent(), unthunk(out_bar).astype(x.dtype) * x_sin_partial(x)

    return f(x), x_sin_pullback


def rrule_x_sin_raises(f: Any, x: Any) -> Any:
    def x_sin_pullback(out_bar: Any) -> Any:
        return NoTangent(), unthunk(out_bar) @ np.diag(x_sin_partial(x))[:-1, :]

    return f(x), x_sin_pullback


def frule_x_sin_rejects_zero_tangent(tangents: Any, f: Any, x: Any) -> Any:
    return f(x), x_sin_partial(x) * tangents[1].astype(x.dtype)


def frule_x_sin_mutates_tangent(tangents: Any, f: Any, x: Any) -> Any:
    x_dot = tangents[1]
    if isinstance(x_dot, AbstractZero):
        return f(x), x_dot
    x_dot *= x_sin_partial(x)
    return f(x), x_dot


ELEMENTWISE = Subject(
    "elementwise x*sin(x)",
    lambda: (fresh(x_sin), (rng().normal(size=5),)),
    rrule_x_sin,
    frule_x_sin,
    {
        "factor 1.01": Mutant("rrule", "pullback", scaled(rrule_x_sin, 1, 1.01)),
        "sign flip": Mutant("rrule", "pullback", scaled(rrule_x_sin, 1, -1)),
        "dropped term": Mutant("rrule", "pullback", rrule_x_sin_dropped_term),
        "ZeroTangent for a differentiable argument": Mutant(
            "rrule", "pullback", replaced(rrule_x_sin, 1, lambda c: ZeroTangent())
        ),
        "NoTangent where a cotangent is owed": Mutant(
            "rrule", "pullback", replaced(rrule_x_sin, 1, lambda c: NoTangent())
        ),
        "wrong primal": Mutant("rrule", "primal", off_primal(rrule_x_sin, forward=False)),
        "pullback modifies its seed": Mutant("rrule", "mutation", rrule_x_sin_mutates_seed),
        "pullback modifies its input": Mutant("rrule", "mutation", rrule_x_sin_mutates_input),
        "no cotangent for f": Mutant("rrule", "cotangent count", rrule_x_sin_no_f_cotangent),
        "in-place thunk adds twice": Mutant("rrule", "thunked cotangent", rrule_x_sin_bad_inplace_thunk),
        "thunked seed read as zero": Mutant("rrule", "thunked seed", rrule_x_sin_drops_thunked_seed),
        "ZeroTangent seed rejected": Mutant("rrule", "zero seed", rrule_x_sin_rejects_zero_seed),
        "pullback raises": Mutant("rrule", "pullback", rrule_x_sin_raises),
        "frule factor 1.01": Mutant("frule", "pushforward", pushed(frule_x_sin, lambda t: 1.01 * t)),
        "frule sign flip": Mutant("frule", "pushforward", pushed(frule_x_sin, lambda t: -t)),
        "frule dropped term": Mutant("frule", "pushforward", frule_x_sin_dropped_term),
        "frule ZeroTangent output": Mutant("frule", "pushforward", pushed(frule_x_sin, lambda t: ZeroTangent())),
        "frule wrong primal": Mutant("frule", "primal", off_primal(frule_x_sin, forward=True)),
        "frule ZeroTangent input rejected": Mutant("frule", "zero tangent", frule_x_sin_rejects_zero_tangent),
        "frule modifies its tangent": Mutant("frule", "mutation", frule_x_sin_mutates_tangent),
    },
)


# ----- a matrix product -----


def matmul(A: Any, B: Any) -> Any:
    return A @ B


def rrule_matmul(f: Any, A: Any, B: Any) -> Any:
    project_A, project_B = ProjectTo(A), ProjectTo(B)

    def matmul_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        return NoTangent(), project_A(out_bar @ B.conj().T), project_B(A.conj().T @ out_bar)

    return A @ B, matmul_pullback


def frule_matmul(tangents: Any, f: Any, A: Any, B: Any) -> Any:
    _, A_dot, B_dot = tangents
    return A @ B, A_dot @ B + A @ B_dot


def rrule_matmul_transposed(f: Any, A: Any, B: Any) -> Any:
    def matmul_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        return NoTangent(), out_bar @ B, A.conj().T @ out_bar

    return A @ B, matmul_pullback


def rrule_matmul_swapped(f: Any, A: Any, B: Any) -> Any:
    y, pullback = rrule_matmul(f, A, B)

    def matmul_pullback(out_bar: Any) -> Any:
        f_bar, A_bar, B_bar = pullback(out_bar)
        return f_bar, B_bar, A_bar

    return y, matmul_pullback


def rrule_matmul_no_conj(f: Any, A: Any, B: Any) -> Any:
    def matmul_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        return NoTangent(), out_bar @ B.T, A.conj().T @ out_bar

    return A @ B, matmul_pullback


def frule_matmul_transposed(tangents: Any, f: Any, A: Any, B: Any) -> Any:
    _, A_dot, B_dot = tangents
    return A @ B, A_dot.T @ B + A @ B_dot


def frule_matmul_dropped_term(tangents: Any, f: Any, A: Any, B: Any) -> Any:
    return A @ B, tangents[1] @ B


def frule_matmul_swapped(tangents: Any, f: Any, A: Any, B: Any) -> Any:
    _, B_dot, A_dot = tangents
    return A @ B, A_dot @ B + A @ B_dot


MATMUL = Subject(
    "matrix product A @ B",
    lambda: (fresh(matmul), (rng().normal(size=(3, 3)), rng().normal(size=(3, 3)) + 1)),
    rrule_matmul,
    frule_matmul,
    {
        "transposed matrix": Mutant("rrule", "pullback", rrule_matmul_transposed),
        "swapped argument order": Mutant("rrule", "pullback", rrule_matmul_swapped),
        "frule transposed matrix": Mutant("frule", "pushforward", frule_matmul_transposed),
        "frule dropped term": Mutant("frule", "pushforward", frule_matmul_dropped_term),
        "frule swapped argument order": Mutant("frule", "pushforward", frule_matmul_swapped),
    },
)


def complex_matrices() -> tuple[Any, ...]:
    r = rng()
    return tuple(r.normal(size=(3, 3)) + 1j * r.normal(size=(3, 3)) for _ in range(2))


COMPLEX_MATMUL = Subject(
    "complex matrix product A @ B",
    lambda: (fresh(matmul), complex_matrices()),
    rrule_matmul,
    frule_matmul,
    {"missing conjugate": Mutant("rrule", "pullback", rrule_matmul_no_conj)},
)


# ----- a holomorphic function: z**3 -----


def cube(z: Any) -> Any:
    return z**3


def rrule_cube(f: Any, z: Any) -> Any:
    project_z = ProjectTo(z)

    def cube_pullback(out_bar: Any) -> Any:
        return NoTangent(), project_z(unthunk(out_bar) * np.conj(3 * z**2))

    return z**3, cube_pullback


def frule_cube(tangents: Any, f: Any, z: Any) -> Any:
    return z**3, 3 * z**2 * tangents[1]


def rrule_cube_no_conj(f: Any, z: Any) -> Any:
    return z**3, lambda out_bar: (NoTangent(), unthunk(out_bar) * 3 * z**2)


def rrule_cube_real_part(f: Any, z: Any) -> Any:
    return z**3, lambda out_bar: (NoTangent(), np.real(unthunk(out_bar) * np.conj(3 * z**2)))


def frule_cube_conj(tangents: Any, f: Any, z: Any) -> Any:
    return z**3, np.conj(3 * z**2) * tangents[1]


HOLOMORPHIC = Subject(
    "holomorphic z**3",
    lambda: (fresh(cube), (rng().normal(size=4) + 1j * rng().normal(size=4),)),
    rrule_cube,
    frule_cube,
    {
        "missing conjugate": Mutant("rrule", "pullback", rrule_cube_no_conj),
        "real cotangent for a complex input": Mutant("rrule", "cotangent types", rrule_cube_real_part),
        "frule conjugated derivative": Mutant("frule", "pushforward", frule_cube_conj),
    },
)


# ----- a reduction over an axis, and a broadcast product -----


def sum_squares(x: Any, axis: int = 0) -> Any:
    return np.sum(x**2, axis=axis)


def rrule_sum_squares(f: Any, x: Any, axis: int = 0) -> Any:
    project_x = ProjectTo(x)

    def sum_squares_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), ZeroTangent()
        out_bar = np.expand_dims(out_bar, axis)
        return NoTangent(), project_x(2 * np.conj(x) * out_bar)

    return f(x, axis=axis), sum_squares_pullback


def frule_sum_squares(tangents: Any, f: Any, x: Any, axis: int = 0) -> Any:
    return f(x, axis=axis), np.sum(2 * x * tangents[1], axis=axis)


def rrule_sum_squares_wrong_axis(f: Any, x: Any, axis: int = 0) -> Any:
    return f(x, axis=axis), lambda out_bar: (NoTangent(), 2 * x * np.expand_dims(unthunk(out_bar), 1 - axis))


def frule_sum_squares_wrong_axis(tangents: Any, f: Any, x: Any, axis: int = 0) -> Any:
    return f(x, axis=axis), np.sum(2 * x * tangents[1], axis=1 - axis)


REDUCTION = Subject(
    "reduction sum(x**2, axis=0)",
    lambda: (fresh(sum_squares), (rng().normal(size=(3, 3)),)),
    rrule_sum_squares,
    frule_sum_squares,
    {
        "cotangent broadcast along the wrong axis": Mutant("rrule", "pullback", rrule_sum_squares_wrong_axis),
        "frule summed on the wrong axis": Mutant("frule", "pushforward", frule_sum_squares_wrong_axis),
    },
    {"fkwargs": {"axis": 0}},
)


def scale_rows(x: Any, b: Any) -> Any:
    return x * b


def rrule_scale_rows(f: Any, x: Any, b: Any) -> Any:
    project_x, project_b = ProjectTo(x), ProjectTo(b)

    def scale_rows_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        x_bar, b_bar = unbroadcast(x, out_bar * np.conj(b)), unbroadcast(b, out_bar * np.conj(x))
        return NoTangent(), project_x(x_bar), project_b(b_bar)

    return x * b, scale_rows_pullback


def frule_scale_rows(tangents: Any, f: Any, x: Any, b: Any) -> Any:
    _, x_dot, b_dot = tangents
    return x * b, x_dot * b + x * b_dot


BROADCAST = Subject(
    "broadcast product x * b",
    lambda: (fresh(scale_rows), (rng().normal(size=(3, 3)), rng().normal(size=3))),
    rrule_scale_rows,
    frule_scale_rows,
    {
        "cotangent summed on the wrong axis": Mutant(
            "rrule",
            "pullback",
            lambda f, x, b: (x * b, lambda o: (NoTangent(), unthunk(o) * b, np.sum(unthunk(o) * x, axis=1))),
        ),
        "broadcast cotangent not summed": Mutant(
            "rrule", "cotangent types", lambda f, x, b: (x * b, lambda o: (NoTangent(), o * b, o * x))
        ),
    },
)


# ----- a callable object with fields -----


class Affine:
    """``tanh(w * x + b)``, with fields that have no tangent: a name, a count and the activation."""

    def __init__(self, w: Any, b: float) -> None:
        self.w = w
        self.b = b
        self.name = "affine"
        self.n = 3
        self.activation = np.tanh

    def __call__(self, x: Any) -> Any:
        return self.activation(self.w * x + self.b)


def affine_pullback_parts(f: Any, x: Any, out: Any, out_bar: Any) -> tuple[Any, Any, Any]:
    """The cotangents of ``w``, ``b`` and ``x``."""
    z_bar = unthunk(out_bar) * (1 - out**2)
    if isinstance(z_bar, AbstractZero):
        return z_bar, z_bar, z_bar
    return z_bar * x, float(np.sum(z_bar)), z_bar * f.w


def rrule_affine(f: Any, x: Any) -> Any:
    out = f(x)
    project_x, project_w = ProjectTo(x), ProjectTo(f.w)

    def affine_pullback(out_bar: Any) -> Any:
        w_bar, b_bar, x_bar = affine_pullback_parts(f, x, out, out_bar)
        return Tangent(type(f), w=project_w(w_bar), b=b_bar), project_x(x_bar)

    return out, affine_pullback


def frule_affine(tangents: Any, f: Any, x: Any) -> Any:
    f_dot, x_dot = tangents
    out = f(x)
    w_dot, b_dot = (ZeroTangent(), ZeroTangent()) if isinstance(f_dot, AbstractZero) else (f_dot.w, f_dot.b)
    return out, (1 - out**2) * (w_dot * x + f.w * x_dot + b_dot)


def affine_with_self(make_self: Callable[[Any, Any, Any, Any], Any]) -> Callable[..., Any]:
    """An rrule for ``Affine`` whose self cotangent is ``make_self(type, w_bar, b_bar, f)``."""

    def wrong(f: Any, x: Any) -> Any:
        out = f(x)

        def affine_pullback(out_bar: Any) -> Any:
            w_bar, b_bar, x_bar = affine_pullback_parts(f, x, out, out_bar)
            return make_self(type(f), w_bar, b_bar, f), x_bar

        return out, affine_pullback

    return wrong


def frule_affine_ignores_self(tangents: Any, f: Any, x: Any) -> Any:
    out = f(x)
    return out, (1 - out**2) * f.w * tangents[1]


AFFINE = Subject(
    "callable object tanh(w*x + b)",
    lambda: (type("Affine", (Affine,), {})(rng().normal(size=3), 0.3), (rng().normal(size=3),)),
    rrule_affine,
    frule_affine,
    {
        "wrong self tangent": Mutant(
            "rrule", "pullback", affine_with_self(lambda P, w_bar, b_bar, f: Tangent(P, w=w_bar / f.w, b=b_bar))
        ),
        "self tangent missing a field": Mutant(
            "rrule", "pullback", affine_with_self(lambda P, w_bar, b_bar, f: Tangent(P, w=w_bar))
        ),
        "NoTangent for an object with fields": Mutant(
            "rrule", "pullback", affine_with_self(lambda P, w_bar, b_bar, f: NoTangent())
        ),
        "self tangent of another type": Mutant(
            "rrule", "cotangent types", affine_with_self(lambda P, w_bar, b_bar, f: Tangent(dict, {"w": w_bar}))
        ),
        "tangent for an integer field": Mutant(
            "rrule", "cotangent types", affine_with_self(lambda P, w_bar, b_bar, f: Tangent(P, w=w_bar, b=b_bar, n=1.0))
        ),
        "misspelled field": Mutant(
            "rrule", "cotangent types", affine_with_self(lambda P, w_bar, b_bar, f: Tangent(P, weight=w_bar, b=b_bar))
        ),
        "frule ignores the object's tangent": Mutant("frule", "pushforward", frule_affine_ignores_self),
    },
)


# ----- float32 -----


def tanh32(x: Any) -> Any:
    return np.tanh(x)


def rrule_tanh32(f: Any, x: Any) -> Any:
    out = np.tanh(x)
    project_x = ProjectTo(x)
    return out, lambda out_bar: (NoTangent(), project_x(unthunk(out_bar) * (1 - out**2)))


def frule_tanh32(tangents: Any, f: Any, x: Any) -> Any:
    out = np.tanh(x)
    return out, (1 - out**2) * tangents[1]


def rrule_tanh32_in_float64(f: Any, x: Any) -> Any:
    out = np.tanh(x)
    return out, lambda out_bar: (NoTangent(), unthunk(out_bar) * (1 - np.tanh(x.astype(np.float64)) ** 2))


FLOAT32 = Subject(
    "float32 tanh",
    lambda: (fresh(tanh32), (rng().normal(size=4).astype(np.float32),)),
    rrule_tanh32,
    frule_tanh32,
    {
        "float64 cotangent for a float32 input": Mutant("rrule", "cotangent types", rrule_tanh32_in_float64),
        "complex cotangent for a real input": Mutant(
            "rrule", "cotangent types", replaced(rrule_tanh32, 1, lambda c: c.astype(np.complex64))
        ),
        "cotangent of the wrong shape": Mutant(
            "rrule", "cotangent types", replaced(rrule_tanh32, 1, lambda c: c.reshape(1, -1))
        ),
        "frule float64 tangent for a float32 output": Mutant(
            "frule", "tangent type", pushed(frule_tanh32, lambda t: np.asarray(t, dtype=np.float64))
        ),
    },
)


# ----- a tuple output, a tuple input -----


def sin_cos(x: Any) -> Any:
    return np.sin(x), np.cos(x)


def rrule_sin_cos(f: Any, x: Any) -> Any:
    project_x = ProjectTo(x)

    def sin_cos_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), ZeroTangent()
        sin_bar, cos_bar = out_bar
        return NoTangent(), project_x(np.cos(x) * sin_bar - np.sin(x) * cos_bar)

    return sin_cos(x), sin_cos_pullback


def frule_sin_cos(tangents: Any, f: Any, x: Any) -> Any:
    x_dot = tangents[1]
    return sin_cos(x), Tangent(tuple, np.cos(x) * x_dot, -np.sin(x) * x_dot)


def rrule_sin_cos_swapped(f: Any, x: Any) -> Any:
    def sin_cos_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), ZeroTangent()
        sin_bar, cos_bar = out_bar
        return NoTangent(), np.cos(x) * cos_bar - np.sin(x) * sin_bar

    return sin_cos(x), sin_cos_pullback


def rrule_sin_cos_zero_entry(f: Any, x: Any) -> Any:
    def sin_cos_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), ZeroTangent()
        sin_bar, cos_bar = out_bar
        return NoTangent(), np.cos(x) * sin_bar.astype(x.dtype) - np.sin(x) * cos_bar.astype(x.dtype)

    return sin_cos(x), sin_cos_pullback


def frule_sin_cos_swapped(tangents: Any, f: Any, x: Any) -> Any:
    x_dot = tangents[1]
    return sin_cos(x), Tangent(tuple, -np.sin(x) * x_dot, np.cos(x) * x_dot)


TUPLE_OUTPUT = Subject(
    "tuple output (sin x, cos x)",
    lambda: (fresh(sin_cos), (rng().normal(size=3),)),
    rrule_sin_cos,
    frule_sin_cos,
    {
        "outputs' cotangents swapped": Mutant("rrule", "pullback", rrule_sin_cos_swapped),
        "ZeroTangent entry rejected": Mutant("rrule", "zero entry in a tuple seed", rrule_sin_cos_zero_entry),
        "frule outputs swapped": Mutant("frule", "pushforward", frule_sin_cos_swapped),
    },
)


def pair_product(pair: Any) -> Any:
    return pair[0] * pair[1]


def rrule_pair_product(f: Any, pair: Any) -> Any:
    a, b = pair
    project_pair = ProjectTo(pair)

    def pair_product_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        return NoTangent(), project_pair(Tangent(tuple, out_bar * np.conj(b), out_bar * np.conj(a)))

    return a * b, pair_product_pullback


def frule_pair_product(tangents: Any, f: Any, pair: Any) -> Any:
    a, b = pair
    pair_dot = tangents[1]
    if isinstance(pair_dot, AbstractZero):
        return a * b, pair_dot
    a_dot, b_dot = pair_dot
    return a * b, a_dot * b + a * b_dot


TUPLE_INPUT = Subject(
    "tuple input pair[0] * pair[1]",
    lambda: (fresh(pair_product), ((rng().normal(size=3), rng().normal(size=3) + 2),)),
    rrule_pair_product,
    frule_pair_product,
    {
        "plain tuple cotangent for a tuple": Mutant(
            "rrule",
            "cotangent types",
            lambda f, pair: (f(pair), lambda o: (NoTangent(), (unthunk(o) * pair[1], unthunk(o) * pair[0]))),
        ),
    },
)


# ----- arguments without tangents -----


def int_power(x: Any, n: int) -> Any:
    return x**n


def rrule_int_power(f: Any, x: Any, n: int) -> Any:
    project_x = ProjectTo(x)
    return x**n, lambda out_bar: (NoTangent(), project_x(unthunk(out_bar) * n * x ** (n - 1)), NoTangent())


def frule_int_power(tangents: Any, f: Any, x: Any, n: int) -> Any:
    return x**n, n * x ** (n - 1) * tangents[1]


INT_ARGUMENT = Subject(
    "integer power x**n",
    lambda: (fresh(int_power), (rng().normal(size=3), 3)),
    rrule_int_power,
    frule_int_power,
    {
        "ZeroTangent for an int": Mutant(
            "rrule", "non-differentiable argument", replaced(rrule_int_power, 2, lambda c: ZeroTangent())
        ),
        "float cotangent for an int": Mutant(
            "rrule", "non-differentiable argument", replaced(rrule_int_power, 2, lambda c: 0.0)
        ),
    },
)


def scaled_by(x: Any, c: float) -> Any:
    return c * x


def rrule_scaled_by(f: Any, x: Any, c: float) -> Any:
    project_x = ProjectTo(x)
    return c * x, lambda out_bar: (NoTangent(), project_x(c * unthunk(out_bar)), NoTangent())


def frule_scaled_by(tangents: Any, f: Any, x: Any, c: float) -> Any:
    return c * x, c * tangents[1]


MARKED_ARGUMENT = Subject(
    "a float marked no_tangent",
    lambda: (fresh(scaled_by), (rng().normal(size=3), no_tangent(2.5))),
    rrule_scaled_by,
    frule_scaled_by,
    {
        "cotangent for a marked argument": Mutant(
            "rrule",
            "non-differentiable argument",
            lambda f, x, c: (c * x, lambda o: (NoTangent(), c * unthunk(o), float(np.sum(unthunk(o) * x)))),
        ),
    },
)


# ----- Python floats -----


PYTHON_FLOATS = Subject(
    "Python floats x * y",
    lambda: (fresh(scale_rows), (1.5, -0.75)),
    rrule_scale_rows,
    frule_scale_rows,
    {
        "shape-(1,) cotangent for a Python float": Mutant(
            "rrule", "cotangent types", replaced(rrule_scale_rows, 1, lambda c: np.array([c]))
        ),
        "float32 cotangent for a Python float": Mutant(
            "rrule", "cotangent types", replaced(rrule_scale_rows, 2, lambda c: np.float32(c))
        ),
    },
)


SUBJECTS = (
    ELEMENTWISE,
    MATMUL,
    COMPLEX_MATMUL,
    HOLOMORPHIC,
    REDUCTION,
    BROADCAST,
    AFFINE,
    FLOAT32,
    TUPLE_OUTPUT,
    TUPLE_INPUT,
    INT_ARGUMENT,
    MARKED_ARGUMENT,
    PYTHON_FLOATS,
)

MUTANTS = [(subject, name) for subject in SUBJECTS for name in subject.mutants]
