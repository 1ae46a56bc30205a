"""ProjectTo, sum_to_shape and unbroadcast."""

from __future__ import annotations

import collections
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from chainrules_core import (
    AbstractThunk,
    InplaceableThunk,
    NoTangent,
    ProjectTo,
    Tangent,
    Thunk,
    ZeroTangent,
    not_implemented,
    sum_to_shape,
    unbroadcast,
    unthunk,
)
from chainrules_core.projection import fits, no_tangent_space, project_onto

Z = ZeroTangent()


@dataclass
class Layer:
    w: np.ndarray
    n: int


Pair = collections.namedtuple("Pair", "a b")


class TestNumbers:
    def test_python_float_gets_python_float(self) -> None:
        project = ProjectTo(1.5)
        for dx in (
            2.0,
            np.float64(2.0),
            np.float32(2.0),
            np.array(2.0),
            np.array([2.0]),
            2,
            2 + 3j,
            np.complex128(2 + 1j),
        ):
            out = project(dx)
            assert type(out) is float and out == 2.0

    def test_python_float_rejects_arrays_of_several_entries(self) -> None:
        with pytest.raises(ValueError, match=r"shape \(2,\) does not fit a float primal"):
            ProjectTo(1.5)(np.ones(2))

    def test_python_complex_gets_python_complex(self) -> None:
        out = ProjectTo(1j)(np.float32(2.0))
        assert type(out) is complex and out == 2.0

    @pytest.mark.parametrize(
        "x", [True, np.bool_(True), 3, np.int64(3), "s", None, np.arange(3), np.ones(2, dtype=bool), len]
    )
    def test_non_differentiable_primals_get_no_tangent(self, x: object) -> None:
        assert ProjectTo(x)(1.0) is NoTangent()
        assert ProjectTo(x).is_no_tangent

    def test_numpy_scalars_keep_their_dtype(self) -> None:
        out = ProjectTo(np.float32(1.0))(np.float64(2.0) + 1j)
        assert type(out) is np.float32 and out == 2.0
        out = ProjectTo(np.complex64(1.0))(2.0)
        assert type(out) is np.complex64


class TestArrays:
    @pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64, np.complex128])
    def test_dtype_is_kept(self, dtype: type) -> None:
        out = ProjectTo(np.ones(3, dtype=dtype))(np.ones(3, dtype=np.complex128) * (1 + 1j))
        assert out.dtype == dtype
        assert np.allclose(out, 1 + 1j if np.dtype(dtype).kind == "c" else 1.0)

    def test_real_to_complex_embeds(self) -> None:
        out = ProjectTo(np.ones(2, dtype=np.complex128))(np.array([1.0, 2.0]))
        assert out.dtype == np.complex128 and np.array_equal(out, [1 + 0j, 2 + 0j])

    def test_no_copy_when_nothing_changes(self) -> None:
        dx = np.ones((2, 3))
        assert ProjectTo(np.zeros((2, 3)))(dx) is dx

    def test_trivial_dimensions_are_reshaped(self) -> None:
        assert ProjectTo(np.zeros(3))(np.ones((3, 1))).shape == (3,)
        assert ProjectTo(np.zeros((1, 3)))(np.ones(3)).shape == (1, 3)

    def test_real_shape_mismatch_raises(self) -> None:
        with pytest.raises(ValueError, match=r"shape \(3, 2\) does not fit a primal of shape \(2, 3\)"):
            ProjectTo(np.zeros((2, 3)))(np.ones((3, 2)))
        with pytest.raises(ValueError, match="does not fit"):
            ProjectTo(np.zeros(3))(1.0)

    def test_zero_dimensional_arrays_get_zero_dimensional_arrays(self) -> None:
        out = ProjectTo(np.array(1.0, dtype=np.float32))(2.0)
        assert type(out) is np.ndarray and out.shape == () and out.dtype == np.float32

    def test_not_a_cotangent(self) -> None:
        with pytest.raises(TypeError, match="is not a cotangent for an array"):
            ProjectTo(np.zeros(2))("text")


class TestStructures:
    def test_tuple_projects_elementwise_to_a_tangent(self) -> None:
        out = ProjectTo((1.0, np.ones(2, dtype=np.float32), 3))((np.float64(2.0), np.ones(2), 5.0))
        assert out == Tangent(tuple, 2.0, np.ones(2, dtype=np.float32), NoTangent())
        assert out[1].dtype == np.float32

    def test_list_projects_to_a_list_tangent(self) -> None:
        assert ProjectTo([1.0, 2.0])([1.0, 2.0 + 1j]) == Tangent(list, 1.0, 2.0)

    def test_list_cotangents_add_entry_by_entry(self) -> None:
        project = ProjectTo([1.0, 2.0])
        assert project([1.0, 2.0]) + project([3.0, 4.0]) == Tangent(list, 4.0, 6.0)

    def test_all_integer_structures_get_no_tangent(self) -> None:
        assert ProjectTo((1, 2, "a"))((1.0, 1.0, 1.0)) is NoTangent()

    def test_dataclass_and_namedtuple(self) -> None:
        out = ProjectTo(Layer(np.ones(2, dtype=np.float32), 3))(Tangent(Layer, w=np.ones(2), n=4.0))
        assert out.w.dtype == np.float32 and out.n is NoTangent()
        assert ProjectTo(Pair(1.0, 2))(Tangent(Pair, a=1j, b=1.0)) == Tangent(Pair, a=0.0, b=NoTangent())

    def test_an_object_that_declares_its_fields(self) -> None:
        """Projected field by field, as a dataclass; a field computed from them is no field of its tangent."""

        class Scaled:
            __chainrules_fields__ = ("w", "n")

            def __init__(self, w: np.ndarray, n: int) -> None:
                self.w, self.n, self.norm = w, n, np.linalg.norm(w)

        project = ProjectTo(Scaled(np.ones(2, dtype=np.float32), 3))
        out = project(Tangent(Scaled, w=np.array([1.0 + 1j, 2.0]), n=4.0))
        assert out.w.dtype == np.float32 and np.array_equal(out.w, [1.0, 2.0]) and out.n is NoTangent()
        with pytest.raises(TypeError, match="'norm' is not a field of Scaled"):
            project({"w": np.ones(2), "norm": 1.0})

    def test_dict(self) -> None:
        assert ProjectTo({"a": 1.0, "k": 1})({"a": 2 + 1j, "k": 3.0}) == Tangent(dict, {"a": 2.0, "k": NoTangent()})

    def test_wrong_structure(self) -> None:
        with pytest.raises(TypeError, match="not a cotangent for a Layer"):
            ProjectTo(Layer(np.ones(2), 3))(Tangent(Pair, a=1.0))
        with pytest.raises(ValueError, match="3 cotangents for a tuple of 2"):
            ProjectTo((1.0, 2.0))((1.0, 2.0, 3.0))

    def test_unknown_objects_pass_through(self) -> None:
        class Thing:
            pass

        dx = Tangent(Thing, a=1.0)
        assert ProjectTo(Thing())(dx) is dx


class TestPassThrough:
    @pytest.mark.parametrize("x", [1.5, 1j, np.ones(2), (1.0, 2.0), np.float32(1.0), {"a": 1.0}])
    def test_zeros_and_not_implemented_pass(self, x: object) -> None:
        ni = not_implemented("x")
        for dx in (Z, NoTangent(), ni):
            assert ProjectTo(x)(dx) is dx

    def test_thunks_stay_lazy(self) -> None:
        calls: list[int] = []
        project = ProjectTo(np.ones(2, dtype=np.float32))
        t = project(Thunk(lambda: calls.append(1) or np.ones(2)))
        assert calls == [] and unthunk(t).dtype == np.float32 and calls == [1]

    def test_inplaceable_thunks_keep_their_add(self) -> None:
        add = lambda acc: acc  # noqa: E731
        t = ProjectTo(np.ones(2))(InplaceableThunk(add, lambda: np.ones(2)))
        assert isinstance(t, InplaceableThunk) and t.add is add


PRIMALS = [
    1.5,
    1 + 2j,
    3,
    True,
    np.float64(1.5),
    np.float32(1.5),
    np.complex64(1 + 1j),
    np.int64(2),
    np.ones(3),
    np.ones((2, 1), dtype=np.float32),
    np.ones(3, dtype=np.complex128),
    np.ones((), dtype=np.float64),
    np.arange(3),
    np.ones(3).astype(">f8"),
    (1.0, 2),
    [1.0],
    None,
]
COTANGENTS = [
    2.0,
    2,
    1 - 1j,
    np.float64(2.0),
    np.float32(2.0),
    np.complex64(1 - 1j),
    np.full(3, 2.0),
    np.full(3, 2.0, dtype=np.float32),
    np.full(3, 1 - 1j),
    np.full((2, 1), 2.0),
    np.full((2, 1), 2.0, dtype=np.float32),
    np.full((), 2.0),
    np.arange(3),
    (2.0, 3.0),
    [2.0],
    ZeroTangent(),
    NoTangent(),
    Thunk(lambda: 2.0),
]


def _projection(x: object, dx: object) -> object:
    """``ProjectTo(x)(dx)``, or the type of the error it raises."""
    try:
        return ProjectTo(x)(dx)
    except (TypeError, ValueError) as error:
        return type(error)


class TestShortcuts:
    """What a rule may skip building a projector for: ``fits``, ``project_onto``, ``no_tangent_space``."""

    @pytest.mark.parametrize("x", PRIMALS, ids=repr)
    def test_no_tangent_space_is_the_projectors_answer(self, x: object) -> None:
        assert no_tangent_space(x) is ProjectTo(x).is_no_tangent

    @pytest.mark.parametrize("x", PRIMALS, ids=repr)
    def test_what_fits_projects_to_itself(self, x: object) -> None:
        for dx in COTANGENTS:
            want = _projection(x, dx)
            if fits(x, dx):
                assert type(want) is type(dx) and np.array_equal(want, dx), (x, dx)  # type: ignore[arg-type]
                assert project_onto(x, dx) is dx
            elif isinstance(want, type):
                with pytest.raises(want):
                    project_onto(x, dx)
            elif not isinstance(want, AbstractThunk):
                got = project_onto(x, dx)
                assert type(got) is type(want) and repr(got) == repr(want), (x, dx)

    def test_the_common_cases_fit(self) -> None:
        assert fits(1.5, 2.0) and fits(np.float32(1), np.float32(2)) and fits(np.ones(3), np.zeros(3))
        assert not fits(np.ones(3), np.zeros(3, dtype=np.float32)) and not fits(np.arange(3), np.arange(3))
        assert not fits(1.5, np.float64(2.0)) and not fits(np.ones(3), np.ones((3, 1)))


class TestNumpyScalarProjector:
    def test_a_scalar_of_its_type_comes_back_as_it_is(self) -> None:
        dx = np.float32(2.5)
        assert ProjectTo(np.float32(1.0))(dx) is dx

    def test_the_error_names_the_dtype(self) -> None:
        with pytest.raises(ValueError, match="does not fit a float32 primal"):
            ProjectTo(np.float32(1.0))(np.ones(3))


class TestSumToShape:
    @pytest.mark.parametrize(
        "shape, out_shape",
        [((), (2, 3)), ((3,), (2, 3)), ((1, 3), (2, 3)), ((2, 1), (2, 3)), ((1, 1), (4, 1)), ((2, 3), (2, 3))],
    )
    def test_matches_a_brute_force_sum(self, shape: tuple[int, ...], out_shape: tuple[int, ...]) -> None:
        rng = np.random.default_rng(0)
        x = rng.normal(size=shape)
        dx = rng.normal(size=out_shape)
        # d/dx of sum(dx * broadcast(x)) is the brute-force reference
        expected = np.zeros(shape)
        for index in np.ndindex(*out_shape):
            src = tuple(0 if s == 1 else i for s, i in zip(shape, index[len(out_shape) - len(shape) :]))
            expected[src] += dx[index]
        assert np.allclose(sum_to_shape(dx, np.shape(x)), expected)

    def test_incompatible_shape_raises(self) -> None:
        with pytest.raises(ValueError, match="cannot come from broadcasting"):
            sum_to_shape(np.ones((2, 3)), (2,))

    def test_an_array_subclass_keeps_its_own_sum(self) -> None:
        dx = np.ma.masked_array(np.ones((2, 3)), mask=[[True, False, False], [False, False, False]])
        summed = sum_to_shape(dx, (3,))
        assert isinstance(summed, np.ma.MaskedArray) and summed.tolist() == [1.0, 2.0, 2.0]

    def test_unbroadcast_python_float_and_dtype(self) -> None:
        assert unbroadcast(1.0, np.ones((2, 2))) == 4.0 and type(unbroadcast(1.0, np.ones(3))) is float
        assert unbroadcast(np.ones((1, 2), dtype=np.float32), np.ones((3, 2))).dtype == np.float32

    def test_unbroadcast_of_thunk_is_lazy(self) -> None:
        t = unbroadcast(np.ones(2), Thunk(lambda: np.ones((3, 2))))
        assert isinstance(t, Thunk) and np.array_equal(unthunk(t), [3.0, 3.0])


@st.composite
def broadcast_pair(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    out_shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, max_side=4))
    ndim = draw(st.integers(0, len(out_shape)))
    tail = out_shape[len(out_shape) - ndim :]
    shape = tuple(draw(st.sampled_from([1, d])) for d in tail)
    return shape, out_shape


@settings(max_examples=60, deadline=None)
@given(broadcast_pair(), st.sampled_from([np.float32, np.float64, np.complex128]))
def test_unbroadcast_is_the_adjoint_of_broadcasting(pair: tuple[tuple[int, ...], tuple[int, ...]], dtype: type) -> None:
    shape, out_shape = pair
    rng = np.random.default_rng(1)
    x = rng.normal(size=shape).astype(dtype)
    dy = rng.normal(size=out_shape)
    # <dy, broadcast(v)> == <unbroadcast(dy), v> for every v of the primal's shape
    v = rng.normal(size=shape)
    lhs = np.sum(dy * np.broadcast_to(v, out_shape))
    x_bar = unbroadcast(x, dy)
    assert np.shape(x_bar) == shape and np.asarray(x_bar).dtype == dtype
    assert np.isclose(np.sum(np.real(x_bar) * v), lhs, rtol=1e-5, atol=1e-5)
