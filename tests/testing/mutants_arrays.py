"""Mutants of rules for arrays: elementwise, matrix products, holomorphic, reductions and broadcasting."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    InplaceableThunk,
    NoTangent,
    ProjectTo,
    Thunk,
    ZeroTangent,
    unbroadcast,
    unthunk,
)

from .mutant_makers import Mutant, Subject, fresh, off_primal, pushed, replaced, rng, scaled

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
        "ZeroTangent seed rejected": Mutant(
            "rrule", "zero seed", rrule_x_sin_rejects_zero_seed, {"check_zero_seed": True}
        ),
        "pullback raises": Mutant("rrule", "pullback", rrule_x_sin_raises),
        "frule factor 1.01": Mutant("frule", "pushforward", pushed(frule_x_sin, lambda t: 1.01 * t)),
        "frule sign flip": Mutant("frule", "pushforward", pushed(frule_x_sin, lambda t: -t)),
        "frule dropped term": Mutant("frule", "pushforward", frule_x_sin_dropped_term),
        "frule ZeroTangent output": Mutant("frule", "pushforward", pushed(frule_x_sin, lambda t: ZeroTangent())),
        "frule wrong primal": Mutant("frule", "primal", off_primal(frule_x_sin, forward=True)),
        "frule ZeroTangent input rejected": Mutant(
            "frule", "zero tangent", frule_x_sin_rejects_zero_tangent, {"check_zero_tangents": True}
        ),
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


def frule_matmul_zero_if_any(tangents: Any, f: Any, A: Any, B: Any) -> Any:
    _, A_dot, B_dot = tangents
    if isinstance(A_dot, AbstractZero) or isinstance(B_dot, AbstractZero):
        return A @ B, ZeroTangent()  # a guard that drops the other argument's term
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
        "frule zero when one tangent is zero": Mutant("frule", "zero entry in the tangents", frule_matmul_zero_if_any),
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
        out_bar = np.expand_dims(unthunk(out_bar), axis)
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
