import numpy as np
import pytest

from chainrules_core import NoTangent, Tangent, Thunk, ZeroTangent, frule, rrule
from tests.rules.cases import case_params


@pytest.mark.filterwarnings("ignore:`row_stack` alias is deprecated:DeprecationWarning")
@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.joining"))
def test_rule(case, dtype, mode):
    """Every declared case of the join and split family passes the harness."""
    case.run(dtype, mode)


def test_concatenate_cotangent_follows_the_container():
    """A list of arrays gets Tangent(list, ...) of views of the seed; a tuple gets Tangent(tuple, ...)."""
    a, b = np.ones((2, 3)), np.ones((1, 3), dtype=np.float32)
    seed = np.arange(9.0).reshape(3, 3)
    bar = rrule(np.concatenate, [a, b])[1](seed)[1]
    assert bar == Tangent(list, seed[:2], seed[2:]) and np.shares_memory(bar[0], seed)
    assert bar[1].dtype == np.float32 and np.array_equal(bar[1], [[6, 7, 8]])
    bar = rrule(np.concatenate, (a, b))[1](seed)[1]
    assert isinstance(bar, Tangent)


def test_concatenate_with_an_integer_array():
    """Integer entries of the list get NoTangent, the others their pieces."""
    bar = rrule(np.concatenate, [np.ones(2), np.arange(2)])[1](np.arange(4.0))[1]
    assert np.array_equal(bar[0], [0.0, 1.0]) and bar[1] == NoTangent()


def test_split_accepts_zero_and_thunked_entries():
    """split's pullback takes a list whose entries may be ZeroTangent or thunks, and fills one zero array."""
    x = np.ones((6, 2))
    out, pullback = rrule(np.split, x, 3)
    seed = [ZeroTangent(), Thunk(lambda: np.full((2, 2), 2.0)), np.ones((2, 2))]
    assert np.array_equal(pullback(seed)[1], [[0, 0], [0, 0], [2, 2], [2, 2], [1, 1], [1, 1]])
    assert np.array_equal(
        pullback(Tangent(tuple, ZeroTangent(), ZeroTangent(), np.ones((2, 2))))[1][4:], np.ones((2, 2))
    )
    assert pullback([ZeroTangent()] * 3)[1] == ZeroTangent()
    assert pullback(ZeroTangent())[1] == ZeroTangent()


def test_split_pushforward_is_a_list():
    """split's tangent is Tangent(list, ...) of the tangent's pieces."""
    out, out_dot = frule((NoTangent(), np.arange(4.0), NoTangent()), np.split, np.ones(4), 2)
    assert out_dot == Tangent(list, np.array([0.0, 1.0]), np.array([2.0, 3.0]))


def test_repeat_pullback_sums_runs():
    """repeat's pullback sums each run; an empty run gets zero."""
    out, pullback = rrule(np.repeat, np.ones(3), [2, 0, 3])
    assert np.array_equal(pullback(np.arange(5.0))[1], [1.0, 0.0, 9.0])


def test_tile_pullback_sums_tiles():
    """tile's pullback adds the tiles up."""
    out, pullback = rrule(np.tile, np.ones(2), (2, 3))
    assert np.array_equal(pullback(np.ones((2, 6)))[1], [6.0, 6.0])


def test_pad_modes():
    """Constant padding crops the seed; gather modes add the mirrored parts back; the rest get no rule."""
    x = np.arange(3.0)
    out, pullback = rrule(np.pad, x, 2, "reflect")
    assert np.array_equal(out, [2, 1, 0, 1, 2, 1, 0])
    assert np.array_equal(pullback(np.ones(7))[1], [2.0, 3.0, 2.0])
    out, pullback = rrule(np.pad, x, (1, 2), constant_values=9.0)
    assert np.shares_memory(pullback(seed := np.ones(6))[1], seed)
    assert rrule(np.pad, x, 1, "mean") is None
    assert rrule(np.pad, x, 1, "reflect", reflect_type="odd") is None
    assert rrule(np.pad, x, 1, mode="linear_ramp") is None


def test_out_is_refused():
    """concatenate and stack into ``out=`` get no rule."""
    assert rrule(np.concatenate, [np.ones(2), np.ones(2)], out=np.zeros(4)) is None
    assert rrule(np.stack, [np.ones(2), np.ones(2)], out=np.zeros((2, 2))) is None


@pytest.mark.parametrize("f", [np.concatenate, np.stack, np.vstack, np.hstack, np.dstack, np.column_stack])
def test_an_array_as_the_sequence_gets_an_array_cotangent(f):
    """numpy joins the first-axis slices of an array passed as the sequence: its cotangent is an array."""
    x = np.arange(12.0).reshape(3, 2, 2)
    out, pullback = rrule(f, x)
    x_bar = pullback(np.ones_like(out) * 2.0)[1]
    assert type(x_bar) is np.ndarray and x_bar.shape == x.shape and np.all(x_bar == 2.0)
    out, pullback = rrule(f, x.astype(np.float32))
    assert pullback(np.arange(out.size, dtype=np.float64).reshape(out.shape))[1].dtype == np.float32


def test_concatenate_of_0d_arrays_raises_numpys_error():
    """Zero-dimensional arrays cannot be concatenated: the rule raises numpy's ValueError, not its own."""
    with pytest.raises(ValueError, match="zero-dimensional arrays cannot be concatenated"):
        rrule(np.concatenate, [np.array(1.0), np.array(2.0)])
    with pytest.raises(ValueError, match="zero-dimensional arrays cannot be concatenated"):
        frule((NoTangent(), ZeroTangent()), np.concatenate, [np.array(1.0), np.array(2.0)])


def test_join_seed_of_the_wrong_shape_is_refused():
    """A seed that does not have the output's shape raises a ValueError rather than splitting wrongly, one with
    extra axes of size 1 too (it would broadcast into other numbers)."""
    out, pullback = rrule(np.concatenate, [np.ones(2), np.ones(3)])
    with pytest.raises(ValueError, match=r"np\.concatenate: a seed of shape \(4,\) for an output of shape \(5,\)"):
        pullback(np.ones(4))
    with pytest.raises(ValueError, match=r"a seed of shape \(5, 1\) for an output of shape \(5,\)"):
        pullback(np.arange(5.0)[:, None])
    assert np.array_equal(pullback(np.arange(5.0))[1][1], [2.0, 3.0, 4.0])


def test_block_cotangent_follows_the_nesting():
    """block's cotangent mirrors its nested lists; integer blocks get NoTangent."""
    a, b, c = np.ones((2, 2)), np.arange(2).reshape(2, 1), np.ones((1, 3))
    out, pullback = rrule(np.block, [[a, b], [c]])
    seed = np.arange(9.0).reshape(3, 3)
    bar = pullback(seed)[1]
    assert isinstance(bar, Tangent) and isinstance(bar[0], Tangent)
    assert np.array_equal(bar[0][0], seed[:2, :2]) and bar[0][1] == NoTangent()
    assert np.array_equal(bar[1][0], seed[2:])


def test_unstack_and_append():
    """unstack's pullback stacks the entries given (zeros elsewhere); append's splits the seed in two."""
    x = np.arange(6.0).reshape(2, 3)
    out, pullback = rrule(np.unstack, x, axis=1)
    assert len(out) == 3
    x_bar = pullback(Tangent(tuple, ZeroTangent(), np.ones(2), ZeroTangent()))[1]
    assert np.array_equal(x_bar, [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]])
    out, pullback = rrule(np.append, x, [7.0, 8.0])
    _, x_bar, values_bar = pullback(np.arange(8.0))
    assert np.array_equal(x_bar, np.arange(6.0).reshape(2, 3)) and values_bar == Tangent(list, 6.0, 7.0)


def test_resize_adds_the_cycles_up():
    """Each output entry k reads x.flat[k % x.size]: the pullback sums the repeats."""
    out, pullback = rrule(np.resize, np.array([1.0, 2.0]), 5)
    assert np.array_equal(out, [1.0, 2.0, 1.0, 2.0, 1.0])
    assert np.array_equal(pullback(np.arange(5.0))[1], [0.0 + 2.0 + 4.0, 1.0 + 3.0])


def _joins_of_sequences():
    """The declared joins whose arrays come in a list or a tuple (tests/arrays runs the cases with an array
    argument), in float64, on each installed library."""
    import chainrules.checks  # noqa: F401 - registers the declared cases
    from chainrules.checks.libraries import in_scope
    from chainrules.testing.libraries import LIBRARIES
    from chainrules_core.testing import registered_cases

    params = []
    for family, case in registered_cases():
        if family != "numpy.joining" or not in_scope(case.f):
            continue
        args = case.make_args(np.random.default_rng(0), "float64")
        if not isinstance(args[0], (list, tuple)):
            continue
        for dtype, mode in case.expand():
            if dtype == "float64":
                params += [
                    pytest.param(case, mode, name, id=f"{name}-{case.label}-{mode}")
                    for name, library in LIBRARIES.items()
                    if library.available()
                ]
    return params


@pytest.mark.parametrize(("case", "mode", "library"), _joins_of_sequences())
def test_joins_of_sequences_on_other_libraries(case, mode, library):
    """A list or tuple of another library's arrays: numpy's numbers in that library, the cotangent a Tangent of the
    container; a join the library does not have raises TypeError naming it."""
    from chainrules.checks.libraries import refusal_for
    from chainrules.testing.libraries import LIBRARIES, compare_on
    from chainrules_core.naming import function_name

    args = case.make_args(np.random.default_rng(0), "float64")
    if refusal_for(case.f, library, "float64", case.label) is None:
        compare_on(LIBRARIES[library], case.f, *args, mode=mode, fkwargs=dict(case.kwargs))
        return
    with pytest.raises(TypeError, match=function_name(case.f).replace(".", r"\.")):
        compare_on(LIBRARIES[library], case.f, *args, mode=mode, fkwargs=dict(case.kwargs))
