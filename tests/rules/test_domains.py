"""Outside its real domain, where an elementwise function's value is nan, so is its derivative, in both modes.

The convention is stated in docs/conventions.md ("Outside the domain"). The
table names each numpy function with a real domain and points outside it;
the sweep below takes every declared case of one real argument whose domain
is bounded (scipy's too, when it is installed) and checks the point half a
unit beyond each bound where the function is nan there.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest

import chainrules.checks  # noqa: F401 - registers the rules and their declared cases
from chainrules_core import NoTangent, frule, rrule
from chainrules_core.testing import registered_cases
from chainrules_core.testing.cases import Arg

OUTSIDE: dict[Any, tuple[float, ...]] = {
    np.sqrt: (-0.5,),
    np.log: (-0.5, -3.0),
    np.log2: (-0.5,),
    np.log10: (-0.5,),
    np.log1p: (-1.5,),
    np.arcsin: (-1.5, 1.5),
    np.arccos: (-1.5, 1.5),
    np.arccosh: (0.5, -2.0),
    np.arctanh: (-1.5, 1.5),
}
"""Points outside the real domain of each elementwise function with one."""


def derivatives(f: Any, x: Any) -> tuple[Any, Any]:
    """The frule's tangent along 1 and the rrule's cotangent of the seed 1 at ``x``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        y_dot = frule((NoTangent(), np.ones_like(x)), f, x)[1]
        y, pullback = rrule(f, x)
        x_bar = pullback(np.ones_like(y))[1]
    return y_dot, x_bar


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("f", list(OUTSIDE), ids=lambda f: f.__name__)
def test_the_derivative_outside_the_domain_is_nan(f: Any, dtype: str) -> None:
    x = np.array([*OUTSIDE[f], 0.5 if f is not np.arccosh else 2.0], dtype=dtype)  # the last one inside
    with np.errstate(invalid="ignore"):
        assert np.all(np.isnan(f(x)[:-1])) and np.isfinite(f(x)[-1])
    for derivative in derivatives(f, x):
        assert derivative.dtype == x.dtype
        assert np.all(np.isnan(derivative[:-1])) and np.isfinite(derivative[-1]), (f.__name__, derivative)
    for scalar in (x.dtype.type(OUTSIDE[f][0]), float(OUTSIDE[f][0])):
        assert all(np.isnan(d) for d in derivatives(f, scalar))


def test_complex_inputs_are_inside_the_domain() -> None:
    """The same points as complex numbers: the function and its derivative are finite (the principal branch)."""
    for f, points in OUTSIDE.items():
        z = np.asarray(points, dtype=complex)
        for derivative in derivatives(f, z):
            assert np.all(np.isfinite(derivative)), f.__name__


def undefined_points() -> list[Any]:
    """``(f, x)`` for each declared case of one real argument, beyond each bound of its domain, where f is nan.

    Where f is defined beyond the bound, the domain only keeps the checks off
    a kink or a pole, and there is nothing to check.
    """
    found = {}
    for _, case in registered_cases():
        (spec, *rest) = case.args or (None,)
        if rest or case.kwargs or not isinstance(spec, Arg) or spec.shape is None:
            continue
        for point in (spec.domain.low - 0.5, spec.domain.high + 0.5):
            x = np.array([point, point])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                undefined = math.isfinite(point) and bool(np.all(np.isnan(case.f(x))))
            if undefined:
                found.setdefault((id(case.f), point), pytest.param(case.f, x, id=f"{case.label} at {point}"))
    return list(found.values())


@pytest.mark.parametrize(("f", "x"), undefined_points())
def test_every_declared_domain_follows_the_convention(f: Any, x: Any) -> None:
    for derivative in derivatives(f, x):
        assert np.all(np.isnan(derivative)), derivative
