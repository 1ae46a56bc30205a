"""scalar_rule and non_differentiable."""

from __future__ import annotations

import numpy as np
import pytest

from chainrules_core import NoTangent, Thunk, ZeroTangent, follow, frule, non_differentiable, rrule, scalar_rule


def cube(x: object) -> object:
    return np.power(x, 3)


def scale_add(x: object, y: object) -> object:
    return 2 * x + y * y  # type: ignore[operator]


def holo(z: object) -> object:
    return np.exp(z)


scalar_rule(cube, lambda out, x: 3 * x * x)
scalar_rule(scale_add, lambda out, x, y: (2.0, 2 * y))
scalar_rule(holo, lambda out, z: out)


def test_python_floats_in_python_floats_out() -> None:
    y, pullback = rrule(cube, 2.0)
    _, x_bar = pullback(1.0)
    assert type(x_bar) is float and x_bar == 12.0
    assert frule((NoTangent(), 1.0), cube, 2.0) == (8.0, 12.0)


def test_elementwise_on_arrays_with_broadcasting() -> None:
    x = np.ones((2, 3), dtype=np.float32)
    y = np.arange(3.0)
    out, pullback = rrule(scale_add, x, y)
    _, x_bar, y_bar = pullback(np.ones((2, 3)))
    assert x_bar.dtype == np.float32 and np.array_equal(x_bar, np.full((2, 3), 2.0))
    assert y_bar.shape == (3,) and np.array_equal(y_bar, 2 * 2 * y)


def test_pushforward_broadcasts_to_the_output_shape() -> None:
    x, y = np.ones((2, 3)), 1.5
    out, out_dot = frule((NoTangent(), ZeroTangent(), 1.0), scale_add, x, y)
    assert out_dot.shape == (2, 3) and np.all(out_dot == 3.0)


def test_pullback_conjugates_the_partial() -> None:
    z = 0.3 + 0.4j
    _, pullback = rrule(holo, z)
    _, z_bar = pullback(1.0 + 0j)
    assert z_bar == pytest.approx(np.conj(np.exp(z)))


def test_real_input_gets_the_real_part() -> None:
    _, pullback = rrule(holo, np.array([0.5]))
    _, x_bar = pullback(np.array([1.0 + 2.0j]))
    assert x_bar.dtype == np.float64 and x_bar[0] == pytest.approx(np.exp(0.5))


def test_integer_arguments_get_no_tangent() -> None:
    _, pullback = rrule(scale_add, 1.0, 3)
    assert pullback(1.0) == (NoTangent(), 2.0, NoTangent())
    assert frule((NoTangent(), NoTangent(), 1.0), scale_add, 1.0, 3)[1] is ZeroTangent()


def test_all_integer_output_tangent_is_no_tangent() -> None:
    assert frule((NoTangent(), 1.0), cube, 2)[1] is NoTangent()


def test_zero_and_thunk_seeds() -> None:
    _, pullback = rrule(scale_add, 1.0, 2)
    assert pullback(ZeroTangent()) == (NoTangent(), ZeroTangent(), NoTangent())
    assert pullback(Thunk(lambda: 1.0)) == pullback(1.0)


def test_partials_are_not_evaluated_without_a_cotangent() -> None:
    calls: list[int] = []

    def traced(x: float) -> float:
        return x

    scalar_rule(traced, lambda out, x: calls.append(1) or 1.0)
    _, pullback = rrule(traced, 1.0)
    pullback(ZeroTangent())
    assert calls == []
    frule((NoTangent(), ZeroTangent()), traced, 1.0)
    assert calls == []


def test_partials_are_not_evaluated_for_arguments_without_tangents() -> None:
    calls: list[int] = []

    def traced2(x: object) -> object:
        return x

    scalar_rule(traced2, lambda out, x: calls.append(1) or 1.0)
    assert rrule(traced2, np.array([1, 2]))[1](np.ones(2)) == (NoTangent(), NoTangent())
    assert calls == []


def test_partials_that_are_not_callable_are_refused_at_registration() -> None:
    def twice(x: float) -> float:
        return 2 * x

    with pytest.raises(TypeError, match=r"scalar_rule\(.*twice\): partials must be callable, got 2.0"):
        scalar_rule(twice, 2.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"scalar_rule\(.*twice\): floats must be callable, got 'x'"):
        scalar_rule(twice, lambda out, x: 2.0, floats="x")  # type: ignore[arg-type]
    assert rrule.find(twice, 1.0) is None  # nothing registered


def test_out_and_where_keywords_get_no_rule() -> None:
    buffer = np.empty(2)
    assert rrule(cube, np.ones(2), out=buffer) is None
    assert frule((NoTangent(), np.ones(2)), cube, np.ones(2), where=True) is None


def test_ufunc_output_buffers_passed_positionally_get_no_rule() -> None:
    double = np.frompyfunc(lambda x: 2 * x, 1, 1)
    scalar_rule(double, lambda out, x: 2)
    buffer = np.empty(2, dtype=object)
    assert rrule(double, np.ones(2), buffer) is None
    assert frule((NoTangent(), np.ones(2), np.ones(2)), double, np.ones(2), buffer) is None
    assert rrule(double, 1.5)[1](1.0) == (NoTangent(), 2.0)


def test_non_differentiable() -> None:
    def argmax_of(x: object) -> int:
        return int(np.argmax(x))

    non_differentiable(argmax_of)
    y, pullback = rrule(argmax_of, np.array([1.0, 3.0]))
    assert y == 1 and pullback(1.0) == (NoTangent(), NoTangent())
    assert frule((NoTangent(), np.ones(2)), argmax_of, np.array([1.0, 3.0])) == (1, NoTangent())


def real_partial(x: object) -> object:
    return np.sin(x)


def complex_partial(x: object) -> object:
    return np.sin(x)


def constant_partial(x: object) -> object:
    return np.sin(x)


def product(x: object, y: object) -> object:
    return np.multiply(x, y)


scalar_rule(real_partial, lambda out, x: np.cos(x))
scalar_rule(complex_partial, lambda out, x: (1 + 2j) * np.cos(x))
scalar_rule(constant_partial, lambda out, x: 0.5)
scalar_rule(product, lambda out, x, y: (y, x))

ARGUMENTS = [
    0.5,
    3,
    0.5 + 0.25j,
    np.float64(0.5),
    np.float32(0.5),
    np.linspace(0.1, 0.9, 6),
    np.linspace(0.1, 0.9, 6).astype(np.float32),
    np.linspace(0.1, 0.9, 6).reshape(2, 3) + 0.5j,
    np.full((), 0.5),
    np.arange(6),
]


def _seeds_for(out: object) -> list[object]:
    shape = np.shape(out)
    return [
        np.ones(shape),
        np.full(shape, 1.0 - 2.0j),
        np.ones(shape, dtype=np.float32),
        1.5 if shape == () else np.ones(shape),
        Thunk(lambda: np.full(shape, 2.0)),
    ]


def _reference(args: tuple[object, ...], partials: tuple[object, ...], seed: object) -> tuple[object, ...]:
    """The cotangents as ``cotangent_from_partial`` makes them: projector, shape, conjugate, projection."""
    from chainrules_core import ProjectTo, cotangent_from_partial, shape_of, unthunk

    seed = unthunk(seed)
    return tuple(cotangent_from_partial(ProjectTo(x), shape_of(x), p, seed) for x, p in zip(args, partials))


@pytest.mark.parametrize("x", ARGUMENTS, ids=repr)
def test_pullbacks_give_what_cotangent_from_partial_gives(x: object) -> None:
    """The shortcuts for floats, numpy floats and float arrays change nothing: every argument and seed type,
    real, complex and constant partials, as cotangent_from_partial projects them."""
    z = 0.5 if np.ndim(x) == 0 else np.linspace(1.0, 2.0, np.size(x)).reshape(np.shape(x))
    cases = [
        (real_partial, (x,), lambda: (np.cos(x),)),
        (complex_partial, (x,), lambda: ((1 + 2j) * np.cos(x),)),
        (constant_partial, (x,), lambda: (0.5,)),
        (product, (x, z), lambda: (z, x)),
        (product, (z, x), lambda: (x, z)),
    ]
    for f, args, partials in cases:
        out, pullback = rrule(f, *args)
        numpy_args = tuple(np.float64(a) if type(a) is float else a for a in args)
        for seed in _seeds_for(out):
            got = pullback(seed)[1:]
            want = _reference(args, partials() if numpy_args == args else _numpy_partials(f, numpy_args), seed)
            for g, w in zip(got, want):
                assert type(g) is type(w) and np.shape(g) == np.shape(w), (f, args, seed, g, w)
                assert np.asarray(g).dtype == np.asarray(w).dtype and np.array_equal(g, w), (f, args, seed, g, w)


def _numpy_partials(f: object, args: tuple[object, ...]) -> tuple[object, ...]:
    (x, *rest) = args
    if f is product:
        return (rest[0], x)
    return {real_partial: (np.cos(x),), complex_partial: ((1 + 2j) * np.cos(x),), constant_partial: (0.5,)}[f]


def test_follow_finds_an_engine_through_the_items_of_a_list() -> None:
    import math

    from chainrules.engines import gradient

    # math.fsum converts its items with float(): follow hands the call to the engine that follows one of them
    def total(x: float, y: float) -> object:
        return follow(math.fsum, [x, 2.0, y * y])

    assert total(1.0, 3.0) == 12.0
    assert gradient(total, 1.0, 3.0) == (1.0, 6.0)
