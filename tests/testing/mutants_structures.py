"""Mutants of rules with structure: a callable object, float32, tuples, arguments without tangents, Python floats."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, ProjectTo, Tangent, ZeroTangent, unthunk
from chainrules_core.testing import no_tangent

from .mutant_makers import Mutant, Subject, fresh, pushed, replaced, rng
from .mutants_arrays import frule_scale_rows, rrule_scale_rows, scale_rows

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


def frule_affine_reads_a_zero(tangents: Any, f: Any, x: Any) -> Any:
    f_dot, x_dot = tangents
    out = f(x)
    return out, (1 - out**2) * (f_dot.w * x + f.w * x_dot + f_dot.b)  # f_dot may be ZeroTangent()


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
        "frule reads the fields of a ZeroTangent()": Mutant(
            "frule", "zero entry in the tangents", frule_affine_reads_a_zero
        ),
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
        sin_bar, cos_bar = unthunk(out_bar)
        return NoTangent(), project_x(np.cos(x) * sin_bar - np.sin(x) * cos_bar)

    return sin_cos(x), sin_cos_pullback


def frule_sin_cos(tangents: Any, f: Any, x: Any) -> Any:
    x_dot = tangents[1]
    return sin_cos(x), Tangent(tuple, np.cos(x) * x_dot, -np.sin(x) * x_dot)


def rrule_sin_cos_swapped(f: Any, x: Any) -> Any:
    def sin_cos_pullback(out_bar: Any) -> Any:
        sin_bar, cos_bar = unthunk(out_bar)
        return NoTangent(), np.cos(x) * cos_bar - np.sin(x) * sin_bar

    return sin_cos(x), sin_cos_pullback


def rrule_sin_cos_zero_entry(f: Any, x: Any) -> Any:
    def sin_cos_pullback(out_bar: Any) -> Any:
        sin_bar, cos_bar = unthunk(out_bar)
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
    a_dot, b_dot = tangents[1]
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
