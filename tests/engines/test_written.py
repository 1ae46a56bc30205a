"""Programs as people write them: lists of followed values handed to numpy, casts, attributes, isinstance."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import chainrules.engines as ad
from chainrules_core import ZeroTangent
from tests.engines.programs import check_program, check_second_order, require_rules


@pytest.fixture(autouse=True)
def _rules() -> None:
    require_rules("arrays")
    require_rules("polynomial")


def both(f: Callable[..., Any], *args: Any) -> tuple[Any, Any]:
    """The gradient by the reverse engine and the jvps along each unit direction by the forward engine."""
    grads = ad.gradient(f, *args)
    pushed = []
    for i in range(len(args)):
        tangents = tuple(1.0 if j == i else 0.0 for j in range(len(args)))
        pushed.append(float(ad.jvp(f, args, tangents)[1]))
    return grads, tuple(pushed)


@pytest.mark.parametrize(
    ("name", "f", "args", "expected"),
    [
        ("np.array of scalars", lambda x, y: np.sum(np.array([x, y]) ** 2), (1.0, 2.0), (2.0, 4.0)),
        (
            "np.array of a nested list",
            lambda x, y: np.sum(np.array([[x, y], [y, 1.0]]) @ np.ones(2)),
            (1.0, 2.0),
            (1.0, 2.0),
        ),
        ("np.asarray of a scalar", lambda x, y: np.asarray(x) * y, (3.0, 2.0), (2.0, 3.0)),
        ("np.mean of a list", lambda x, y: np.mean([x, x + 2.0, y]), (1.0, 5.0), (2 / 3, 1 / 3)),
        ("np.stack of a tuple of scalars", lambda x, y: np.sum(np.stack((x, y * x))), (2.0, 3.0), (4.0, 2.0)),
        ("np.r_", lambda x, y: np.sum(np.r_[x, 2.0 * y, np.array([1.0, 1.0])] ** 2), (1.0, 1.5), (2.0, 12.0)),
        ("np.c_", lambda x, y: np.sum(np.c_[np.array([x, y]), np.array([y, y])]), (1.0, 2.0), (1.0, 3.0)),
        ("builtin sum and max of a list", lambda x, y: sum([x, y, 1.0]) * max([x, y]), (1.0, 2.0), (2.0, 6.0)),
    ],
)
def test_lists_of_scalars_handed_to_numpy(
    name: str, f: Any, args: tuple[Any, ...], expected: tuple[float, ...]
) -> None:
    grads, pushed = both(f, *args)
    assert grads == pytest.approx(expected, rel=1e-12)
    assert pushed == pytest.approx(expected, rel=1e-12)


# numpy's reductions of a list of followed scalars: an object array, reduced entry by entry
REDUCTIONS_OF_LISTS = [
    ("np.std of a list", lambda x, y, z: np.std([x, y * x, z])),
    ("np.var of a tuple", lambda x, y, z: np.var((x, y * x, z))),
    ("np.std with ddof", lambda x, y, z: np.std([x, np.sin(y), z], ddof=1)),
    ("np.var along an axis", lambda x, y, z: np.sum(np.var([[x, y], [z, x * y]], axis=0) ** 2)),
    ("np.std of numpy scalars", lambda x, y, z: np.std([np.sum(np.array([x, y])), np.float64(2.0), z * z])),
    ("np.nanvar", lambda x, y, z: np.nanvar([x, y * y, z])),
    ("np.mean", lambda x, y, z: np.mean([x, x * y, z]) ** 2),
    ("np.sum", lambda x, y, z: np.sum([x, x * y, z]) ** 2),
    ("np.prod", lambda x, y, z: np.prod([x, y, z * x])),
    ("np.max", lambda x, y, z: np.max([x * y, z]) * x),
]


@pytest.mark.parametrize(("name", "f"), REDUCTIONS_OF_LISTS, ids=[r[0] for r in REDUCTIONS_OF_LISTS])
def test_reductions_of_lists_of_scalars(name: str, f: Any) -> None:
    """Both engines, first and second order, against finite differences (no ties: the point is smooth)."""
    args = (1.2, 2.1, 4.3)
    check_program(f, args)
    check_second_order(f, args)


@pytest.mark.parametrize("reduce", [np.std, np.var])
@pytest.mark.parametrize("make", [list, tuple])
def test_std_and_var_of_lists_of_boxes_as_autograd_tests_them(reduce: Any, make: Any) -> None:
    """autograd's test_std_list_of_boxes and test_var_list_of_boxes: symmetric about the mean, a zero gradient."""

    def f(x: Any) -> Any:
        return reduce(make([x, x + 2]))

    assert ad.gradient(f, 0.0) == (0.0,)
    assert ad.jvp(f, (0.0,), (1.0,))[1] == 0.0
    assert ad.gradient(lambda x, y: np.var([x, y]), 1.0, 3.0) == (-1.0, 1.0)
    assert ad.hessian(lambda x, y: np.var([x, y]), 1.0, 3.0) == ((0.5, -0.5), (-0.5, 0.5))


def test_arrays_in_lists_and_asarray() -> None:
    """``np.asarray`` of a tracked array and ``np.array`` of tracked arrays: numpy computes entry by entry."""
    a, b = np.array([1.0, -2.0]), np.array([0.5, 3.0])

    def f(a: Any, b: Any) -> Any:
        m = np.array([a, b])  # a 2x2 object array of followed entries
        return np.sum(np.asarray(a) * np.tanh(m @ b))

    check_program(f, (a, b))
    check_program(lambda a, b: np.stack((a, b)) @ np.array([1.0, 2.0]), (a, b))


def test_object_arrays_returned_and_mixed_with_tracked_arrays() -> None:
    """An object array of followed entries is one array again wherever the engine meets it."""
    check_program(lambda x, y: np.array([x * y, y]), (2.0, 3.0))
    check_program(lambda x, w: np.array([x, 2.0 * x]) * w, (1.5, np.array([1.0, -1.0])))
    check_program(lambda x, w: np.concatenate([np.array([x, 2.0 * x]), w]) ** 2, (1.5, np.array([1.0, -1.0])))


def test_integer_casts_have_no_derivative_and_float_casts_are_refused() -> None:
    """``np.int64(x)``, ``int(x)`` and ``.astype(int)`` give plain ints (no tangent, nothing to lose);
    ``np.float64(x)`` and ``float(x)`` would drop the derivative and raise, naming the way that keeps it."""

    def f(x: Any) -> Any:
        n = np.int64(x) + int(x) + int(np.asarray(x).astype(np.int64))
        assert type(n) is np.int64
        return x * n

    assert ad.gradient(f, 2.5) == (6.0,)
    assert ad.jvp(f, (2.5,), (1.0,))[1] == pytest.approx(6.0)
    for engine in (lambda g: ad.gradient(g, 2.5), lambda g: ad.jvp(g, (2.5,), (1.0,))):
        with pytest.raises(TypeError, match=r"float\(\) of a \w+ would drop its derivative"):
            engine(lambda x: float(x) * 2.0)
        with pytest.raises(
            TypeError, match=r"to a plain float64 array \(np\.float64\(x\), .*would drop its derivative"
        ):
            engine(lambda x: np.float64(x) * 2.0)
        with pytest.raises(TypeError, match=r"to a plain float32 array .*x\.astype\(float32\) changes the dtype"):
            engine(lambda x: np.float32(x) * 2.0)
        with pytest.raises(TypeError, match=r"lift\(math\.sin\)"):
            engine(lambda x: math.sin(x))


def test_astype_keeps_the_derivative() -> None:
    check_program(lambda x: x.astype(np.float32) * 2.0, (np.array([1.0, 2.0]),), rtol=1e-5)
    check_program(lambda x: np.astype(x * 2.0, np.float64), (np.float64(1.5),))


def test_attributes_of_tracked_scalars() -> None:
    """``shape``, ``ndim``, ``size`` of a 0-d array; ``dtype`` of a numpy scalar, and none for a Python float."""
    seen = []

    def f(x: Any, y: Any) -> Any:
        seen.append((x.shape, x.ndim, x.size, x.dtype, y.shape, np.ndim(y), np.result_type(y)))
        with pytest.raises(AttributeError, match=r"of a float has no dtype, as a float has none; np\.result_type"):
            _ = y.dtype
        return x * y

    ad.gradient(f, np.float32(2.0), 3.0)
    ad.jvp(f, (np.float32(2.0), 3.0), (np.float32(1.0), 1.0))
    assert seen == [((), 0, 1, np.dtype(np.float32), (), 0, np.dtype(np.float64))] * 2


def test_isinstance_sees_through_with_value() -> None:
    """A tracked float is not a ``float``; ``ad.value`` gives its primal and ``ad.is_tracked`` tells them apart."""

    def f(x: Any, xs: list[Any]) -> Any:
        assert not isinstance(x, float) and isinstance(ad.value(x), float) and ad.is_tracked(x)
        assert ad.value(xs) == [1.0, 2.0] and not ad.is_tracked(ad.value(x))
        return x * xs[1]

    assert ad.gradient(f, 3.0, [1.0, 2.0]) == (2.0, [ZeroTangent(), 3.0])
    assert ad.jvp(f, (3.0, [1.0, 2.0]), (1.0, [0.0, 0.0]))[1] == 2.0
    assert ad.value(np.ones(2)) is not None and not ad.is_tracked(1.0)


def test_failures_name_the_function_and_the_argument_types() -> None:
    opaque = np.frompyfunc(lambda v: v, 1, 1)
    with pytest.raises(ad.NoRuleError, match=r"no rrule for <lambda> \(vectorized\)\(ndarray\[float64, \(2,\)\]\)"):
        ad.gradient(lambda x, y: np.sum(opaque(x * y)), np.ones(2), np.ones(2))
    with pytest.raises(
        ad.NoRuleError, match=r"reverse mode: no rrule for <lambda> \(vectorized\)\(DualScalar\[float\]\)"
    ):
        ad.jvp(lambda x: ad.gradient(lambda y: opaque(x * y), 1.0), (2.0,), (1.0,))


def test_a_tangent_as_an_argument_is_refused_rather_than_held_constant() -> None:
    from chainrules_core import Tangent

    t = Tangent(tuple, 1.0, 2.0)
    with pytest.raises(TypeError, match=r"forward mode: an argument is a Tangent\(tuple, ...\).*backing"):
        ad.jvp(lambda t: t[0] * 3.0, (t,), (Tangent(tuple, 1.0, 0.0),))
    with pytest.raises(TypeError, match=r"reverse mode: an argument is a Tangent\(tuple, ...\)"):
        ad.gradient(lambda t: t[0] * 3.0, t)
