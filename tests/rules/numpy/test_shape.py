import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from chainrules_core import NoTangent, Tangent, ZeroTangent, frule, rrule
from chainrules_core.testing import REALS, Arg, Case, test_rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.shape"))
def test_rule(case, dtype, mode):
    """Every declared case of the shape family passes the harness."""
    case.run(dtype, mode)


@st.composite
def shape_calls(draw):
    """A shape function with arguments valid for a drawn shape."""
    shape = draw(array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4))
    ndim = len(shape)
    axis = st.integers(-ndim, ndim - 1)
    choice = draw(st.sampled_from(["reshape", "transpose", "swapaxes", "moveaxis", "expand_dims", "flip", "roll"]))
    if choice == "reshape":
        return shape, np.reshape, (tuple(reversed(shape)), draw(st.sampled_from("CFA")))
    if choice == "transpose":
        return shape, np.transpose, (tuple(draw(st.permutations(range(ndim)))),)
    if choice == "swapaxes":
        return shape, np.swapaxes, (draw(axis), draw(axis))
    if choice == "moveaxis":
        return shape, np.moveaxis, (draw(axis), draw(axis))
    if choice == "expand_dims":
        return shape, np.expand_dims, (draw(st.integers(-ndim - 1, ndim)),)
    if choice == "flip":
        return shape, np.flip, (draw(st.one_of(st.none(), axis)),)
    return shape, np.roll, (draw(st.integers(-5, 5)), draw(st.one_of(st.none(), axis)))


@settings(max_examples=40, deadline=None, database=None)
@given(shape_calls(), st.sampled_from(["float64", "float32", "complex128"]))
def test_shape_functions_on_generated_shapes(call, dtype):
    """Every shape function passes the harness in both modes on shapes hypothesis draws."""
    shape, f, args = call
    case = Case(f, (Arg(REALS, shape), *args), wrong_shape=True)
    case.run(dtype, "rrule")
    case.run(dtype, "frule")


def test_pullbacks_are_views_of_the_seed():
    """reshape, transpose, swapaxes, moveaxis and flip pull back without copying the seed."""
    x = np.ones((3, 4, 5))
    calls = [(np.reshape, (12, 5)), (np.transpose, (2, 0, 1)), (np.swapaxes, 0, 2), (np.moveaxis, 0, -1), (np.flip, 1)]
    for f, *args in calls:
        out, pullback = rrule(f, x, *args)
        seed = np.ones(out.shape)
        assert np.shares_memory(pullback(seed)[1], seed), f


def test_flip_gives_negative_strides_and_rules_accept_them():
    """flip's results are negative-stride views; rules downstream take them as inputs."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4))
    flipped, pullback = rrule(np.flip, x, 0)
    assert flipped.strides[0] < 0
    assert pullback(np.arange(12.0).reshape(3, 4))[1].strides[0] < 0
    for f, args in ((np.sum, (0,)), (np.reshape, ((4, 3),)), (np.ravel, ("F",)), (np.cumsum, (1,)), (np.sort, ())):
        test_rrule(f, flipped, *args)
    test_rrule(np.ravel, x[::-1, ::-2])


@pytest.mark.parametrize("order", ["K", "A"])
def test_ravel_of_a_strided_view_in_memory_order(order):
    """ravel(order='K') of a non-contiguous view reads memory order; its pullback is the exact adjoint."""
    rng = np.random.default_rng(1)
    base = rng.standard_normal((4, 6, 3))
    x = base[::-1, ::2].transpose(2, 0, 1)
    assert not x.flags.c_contiguous and not x.flags.f_contiguous
    out, pullback = rrule(np.ravel, x, order)
    assert np.array_equal(out, np.ravel(x, order))
    g = rng.standard_normal(out.shape)
    x_dot = np.empty_like(x)  # the same memory layout as x
    x_dot[...] = rng.standard_normal(x.shape)
    assert np.isclose(g @ np.ravel(x_dot, order), np.sum(pullback(g)[1] * x_dot))


def test_ravel_order_a_reads_the_tangent_as_the_primal_reads_x():
    """Regression: with order 'A' (or 'K') numpy picks the order from the array's layout; a Fortran-ordered
    tangent of a C-ordered x must still be read in C order, as x is."""
    x = np.arange(6.0).reshape(2, 3)
    t = np.asfortranarray(np.arange(6.0).reshape(2, 3) * 10)
    _, y_dot = frule((NoTangent(), t), np.ravel, x, order="A")
    assert np.array_equal(y_dot, np.ravel(t, order="C"))
    _, y_dot = frule((NoTangent(), t), np.ravel, x, order="K")
    assert np.array_equal(y_dot, np.ravel(t, order="C"))
    _, y_dot = frule((NoTangent(), t, NoTangent(), NoTangent()), np.reshape, x, (3, 2), "A")
    assert np.array_equal(y_dot, np.reshape(t, (3, 2), order="C"))
    _, y_dot = frule((NoTangent(), t, NoTangent()), np.reshape, x, (3, 2), order="A")
    assert np.array_equal(y_dot, np.reshape(t, (3, 2), order="C"))
    _, y_dot = frule((NoTangent(), t, NoTangent()), np.ndarray.flatten, x, "k")
    assert np.array_equal(y_dot, np.ravel(t, order="C"))
    _, y_dot = frule(
        (NoTangent(), np.ascontiguousarray(t), NoTangent()), np.ndarray.reshape, np.asfortranarray(x), 6, order="A"
    )
    assert np.array_equal(y_dot, np.reshape(t, 6, order="F"))


_LAYOUTS = {
    "C": lambda base: base[:, :4].copy(),
    "F": lambda base: np.asfortranarray(base[:, :4]),
    "strided": lambda base: base[:, ::2].transpose(2, 0, 1),
    "negative": lambda base: base[::-1, 1::2],
}


@pytest.mark.parametrize("order", ["K", "A", "k", "a", "f", None])
@pytest.mark.parametrize("layout", sorted(_LAYOUTS))
def test_ravel_tangent_and_cotangent_follow_x_layout(order, layout):
    """Whatever the layouts of x and of its tangent, the pushforward reads the tangent as the primal reads x (the
    tangent's values in x's layout, raveled) and the pullback is its adjoint."""
    rng = np.random.default_rng(2)
    make = _LAYOUTS[layout]
    x = make(rng.standard_normal((3, 8, 4)))
    t_as_x = make(rng.standard_normal((3, 8, 4)))  # the tangent's values laid out in memory as x
    for t in (np.ascontiguousarray(t_as_x), np.asfortranarray(t_as_x), t_as_x):
        out, y_dot = frule((NoTangent(), t), np.ravel, x, order=order)
        assert np.array_equal(out, np.ravel(x, order))
        assert np.array_equal(y_dot, np.ravel(t_as_x, order))
        g = rng.standard_normal(out.shape)
        assert np.isclose(g @ y_dot, np.sum(rrule(np.ravel, x, order)[1](g)[1] * t))


def test_ravel_k_of_a_followed_tangent_reads_x_memory_order():
    """A tangent an engine follows (nested differentiation) goes through the engine's calls, in x's memory order."""

    class Traced:
        def __init__(self, value):
            self.value = value

        def __chainrules_primal__(self):
            return self.value

        def __chainrules_call__(self, fn, *args, **kwargs):
            return Traced(fn(*[a.value if isinstance(a, Traced) else a for a in args], **kwargs))

    rng = np.random.default_rng(3)
    x = _LAYOUTS["strided"](rng.standard_normal((3, 8, 4)))
    t_as_x = _LAYOUTS["strided"](rng.standard_normal((3, 8, 4)))
    _, y_dot = frule((NoTangent(), Traced(np.ascontiguousarray(t_as_x))), np.ravel, x, order="K")
    assert isinstance(y_dot, Traced)
    assert np.array_equal(y_dot.value, np.ravel(t_as_x, order="K"))


def test_astype_to_an_integer_dtype_is_non_differentiable():
    """A cast to int has no tangent; a cast from complex to real keeps the real part."""
    x = np.array([1.5, 2.5])
    assert rrule(np.ndarray.astype, x, np.int64)[1](np.ones(2)) == (NoTangent(), NoTangent(), NoTangent())
    assert frule((NoTangent(), np.ones(2), NoTangent()), np.ndarray.astype, x, np.int32)[1] == NoTangent()
    z = np.array([1 + 2j])
    with pytest.warns(np.exceptions.ComplexWarning):
        out, pullback = rrule(z.astype, np.float64)
    assert pullback(np.array([3.0]))[0].__self__.dtype == np.complex128  # the bound method holds x


def test_broadcast_to_sums_over_the_new_axes():
    """broadcast_to's pullback sums over leading and stretched axes."""
    out, pullback = rrule(np.broadcast_to, np.ones((3, 1)), (2, 3, 4))
    assert np.array_equal(pullback(np.ones((2, 3, 4)))[1], np.full((3, 1), 8.0))


def test_several_arrays_give_a_tuple_whose_seed_may_hold_zeros():
    """atleast_*d and broadcast_arrays of several arrays: tuple tangents, ZeroTangent entries in the seed."""
    a, b = np.ones(3), np.ones((2, 1))
    out, pullback = rrule(np.atleast_2d, a, b)
    _, a_bar, b_bar = pullback(Tangent(tuple, np.full((1, 3), 2.0), ZeroTangent()))
    assert np.array_equal(a_bar, [2.0, 2.0, 2.0]) and b_bar == ZeroTangent()
    out, pullback = rrule(np.broadcast_arrays, a, b)
    _, a_bar, b_bar = pullback((ZeroTangent(), np.ones((2, 3))))
    assert a_bar == ZeroTangent() and np.array_equal(b_bar, [[3.0], [3.0]])
    out, out_dot = frule((NoTangent(), np.arange(3.0), ZeroTangent()), np.broadcast_arrays, a, b)
    assert isinstance(out_dot, Tangent) and np.array_equal(out_dot[0], np.tile(np.arange(3.0), (2, 1)))


def test_rot90_and_rollaxis_undo_themselves():
    """Pulling the output back through rot90 and rollaxis gives the input back (they permute entries)."""
    x = np.arange(24.0).reshape(2, 3, 4)
    for f, args in [(np.rot90, (3, (2, 0))), (np.rollaxis, (-1, -2)), (np.rollaxis, (0, 3))]:
        out, pullback = rrule(f, x, *args)
        assert np.array_equal(pullback(out)[1], x)


def test_reshape_in_fortran_order_is_refused_on_other_libraries():
    """The standard reads arrays in C order alone: order='F' raises a TypeError naming the function and the
    option, rather than reading the array in C order."""
    strict = pytest.importorskip("array_api_strict")
    x = strict.asarray(np.arange(6.0).reshape(2, 3))
    with pytest.raises(TypeError, match=r"np\.reshape has no rule .* order='F'"):
        rrule(np.reshape, x, (3, 2), order="F")
    out, pullback = rrule(np.transpose, x)  # axes not given: the standard's permute_dims with the axes reversed
    assert np.array_equal(np.from_dlpack(out), np.arange(6.0).reshape(2, 3).T)
    assert np.array_equal(np.from_dlpack(pullback(out)[1]), np.arange(6.0).reshape(2, 3))
