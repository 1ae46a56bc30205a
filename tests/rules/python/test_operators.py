"""Rules for the operator module and the builtins."""

import builtins
import dataclasses
import operator

import numpy as np
import pytest

from chainrules_core import NoTangent, Tangent, ZeroTangent, frule, rrule, unthunk
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("python.operators"))
def test_rule(case, dtype, mode):
    """Every declared case of the operator and builtins family passes the harness."""
    case.run(dtype, mode)


# ----- types, fallbacks, containers -----


class Opaque:
    """An object with arithmetic the rules know nothing about."""

    def __add__(self, other):
        return self

    __mul__ = __add__


@pytest.mark.parametrize("f", [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow])
def test_python_floats_and_ints(f):
    """Floats get Python floats back; ints get NoTangent, as everywhere."""
    _, pullback = rrule(f, 1.5, 2.5)
    assert all(type(unthunk(b)) is float for b in pullback(1.0)[1:])
    _, x_bar, n_bar = rrule(f, 1.5, 2)[1](1.0)
    assert type(x_bar) is float and n_bar == NoTangent()
    assert type(frule((NoTangent(), 1.0, 0.5), f, 1.5, 2.5)[1]) is float


def test_numpy_and_complex_arguments_use_numpy_rules():
    x = np.array([1.0, 2.0], dtype=np.float32)
    _, pullback = rrule(operator.mul, x, 3.0)
    _, x_bar, y_bar = pullback(np.ones(2, dtype=np.float32))
    assert x_bar.dtype == np.float32 and type(y_bar) is float and y_bar == 3.0
    _, z_bar, w_bar = rrule(operator.mul, 1 + 2j, 3.0)[1](1.0)
    assert z_bar == 3.0 and w_bar == 1.0  # conj(3) * 1 and Re(conj(1 + 2j) * 1)


def test_a_complex_power_of_python_floats():
    """(-8.0) ** 0.5 is complex in Python: the numpy rule differentiates it, real cotangents for real inputs."""
    out, pullback = rrule(operator.pow, -4.0, 0.5)
    assert out == pytest.approx(2j)
    _, x_bar, p_bar = pullback(1.0)
    assert type(x_bar) is float and x_bar == pytest.approx((0.5 * (-4.0 + 0j) ** -0.5).real)


def test_other_types_get_no_rule():
    assert rrule(operator.add, Opaque(), 1.0) is None
    assert rrule(operator.mul, 2.0, Opaque()) is None
    assert rrule(operator.add, "a", "b") is None
    assert rrule(builtins.sum, (x for x in [1.0])) is None
    assert rrule(builtins.max, np.ones((2, 2))) is None  # rows compare ambiguously


def test_getitem_of_numpy_arrays_is_not_claimed_here():
    """x[i] on an array is indexing's rule; this family's getitem is for tuples, lists and dicts."""
    rule = rrule.find(operator.getitem, np.ones(3), 0)
    rule = getattr(rule, "__self__", rule)  # a fast path is bound to the rule it belongs to
    (record,) = [r for r in rrule.records() if r.primal is operator.getitem and r.rule is rule]
    assert record.module == "chainrules.rules.numpy.indexing"


def test_getitem_cotangents_are_structural():
    _, pullback = rrule(operator.getitem, (1.0, 2.0, 3), 1)
    assert pullback(5.0) == (NoTangent(), Tangent(tuple, ZeroTangent(), 5.0, NoTangent()), NoTangent())
    _, pullback = rrule(operator.getitem, {"a": 1.0, "b": 2.0}, "a")
    assert pullback(5.0)[1] == Tangent(dict, {"a": 5.0})


def test_round_to_an_int_has_no_tangent():
    out, out_dot = frule((NoTangent(), 1.0), builtins.round, 2.4)
    assert out == 2 and out_dot == NoTangent()
    assert rrule(builtins.round, 2.46, 1)[1](1.0) == (NoTangent(), 0.0, NoTangent())


def test_float_of_a_string_has_no_tangent():
    assert rrule(float, "1.5")[1](1.0) == (NoTangent(), NoTangent())
    out, pullback = rrule(float)
    assert out == 0.0 and pullback(1.0) == (NoTangent(),)
    assert frule((NoTangent(),), float) == (0.0, ZeroTangent())


def test_three_argument_pow_is_integer_arithmetic():
    out, pullback = rrule(builtins.pow, 3, 4, 5)
    assert out == 1 and pullback(1.0) == (NoTangent(),) * 4


def test_seeds_passed_on_are_read_only():
    """sum and getitem hand the seed itself to their arguments: as read-only views, not writable aliases."""
    seed = np.ones(3)
    _, xs_bar = rrule(builtins.sum, [np.zeros(3), np.zeros(3)])[1](seed)
    assert all(np.shares_memory(b, seed) and not b.flags.writeable for b in xs_bar)
    _, xs_bar, _ = rrule(operator.getitem, (np.zeros(3), 1.0), 0)[1](seed)
    assert not unthunk(xs_bar[0]).flags.writeable


# ----- in-place operators, divmod, complex, concat, getters -----

IN_PLACE = [operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.imod, operator.ipow]


@pytest.mark.parametrize("f", IN_PLACE + [operator.imatmul])
def test_in_place_operators_refuse_values_they_change(f):
    """An ndarray (a 0-d one too) is changed in place: the rule raises, names the operator and its out-of-place
    form, and leaves the array as it was."""
    x = np.ones((2, 2))
    out_of_place = f.__name__[1:]
    for call in (lambda: rrule(f, x, np.eye(2)), lambda: frule((NoTangent(), x, x), f, x, np.eye(2))):
        with pytest.raises(TypeError, match=rf"operator\.{f.__name__} .* operator\.{out_of_place}\b"):
            call()
    assert np.array_equal(x, np.ones((2, 2)))


def test_in_place_add_refuses_a_list_and_concatenates_tuples():
    with pytest.raises(TypeError, match=r"operator\.iadd changes its first argument"):
        rrule(operator.iadd, [1.0], [2.0])
    out, pullback = rrule(operator.iadd, (1.0,), (2.0, 3.0))
    assert out == (1.0, 2.0, 3.0)
    assert pullback((4.0, 5.0, 6.0)) == (NoTangent(), Tangent(tuple, 4.0), Tangent(tuple, 5.0, 6.0))


@pytest.mark.parametrize("f", IN_PLACE)
def test_in_place_operators_on_numbers_are_their_out_of_place_forms(f):
    out_of_place = getattr(operator, f.__name__[1:])
    for x, y in ((1.5, 0.75), (np.float32(1.5), np.float32(0.75)), (1.5 + 0.5j, 0.75)):
        if f is operator.imod and isinstance(x, complex):
            continue
        out, pullback = rrule(f, x, y)
        expected, expected_pullback = rrule(out_of_place, x, y)
        assert out == expected and type(out) is type(expected)
        assert [unthunk(b) for b in pullback(1.0)] == [unthunk(b) for b in expected_pullback(1.0)]
        assert frule((NoTangent(), 1.0, 0.5), f, x, y) == frule((NoTangent(), 1.0, 0.5), out_of_place, x, y)


def test_divmod_has_a_zero_quotient_derivative():
    out, pullback = rrule(builtins.divmod, 7.5, 2.0)
    assert out == (3.0, 1.5)
    assert pullback((1.0, 1.0)) == (NoTangent(), 1.0, -3.0)  # the quotient's seed moves nothing
    assert pullback(Tangent(tuple, 1.0, ZeroTangent())) == (NoTangent(), ZeroTangent(), ZeroTangent())
    assert frule((NoTangent(), 1.0, 1.0), builtins.divmod, 7.5, 2.0) == ((3.0, 1.5), Tangent(tuple, 0.0, -2.0))


def test_complex_of_real_parts_and_of_other_values():
    _, pullback = rrule(complex, 1.5, 2.0)
    assert pullback(3.0 + 4.0j) == (NoTangent(), 3.0, 4.0)  # the real and imaginary parts of the seed
    assert frule((NoTangent(), 1.0, 2.0), complex, 1.5, 2.0) == (1.5 + 2.0j, 1.0 + 2.0j)
    assert rrule(complex, 1 + 1j)[1](2j) == (NoTangent(), 2j)
    assert rrule(complex, "1+2j")[1](1.0) == (NoTangent(), NoTangent())
    assert rrule(complex, real=1.5, imag=2.0)[1](3.0 + 4.0j) == (NoTangent(), 3.0, 4.0)  # the positional call
    assert rrule(complex)[0] == 0j


def test_concat_of_arrays_is_not_claimed():
    """numpy arrays do not implement the sequence concatenation operator.concat calls: np.concatenate does."""
    assert rrule(operator.concat, np.ones(2), np.ones(2)) is None


@dataclasses.dataclass
class Box:
    width: float

    @property
    def area(self):
        return self.width**2


def test_getters_have_no_tangent_of_their_own():
    f = operator.itemgetter(0, 2)
    out, pullback = rrule(f, np.array([1.0, 2.0, 3.0]))
    assert out == (1.0, 3.0)
    f_bar, xs_bar = pullback(Tangent(tuple, ZeroTangent(), 2.0))
    assert f_bar == NoTangent() and np.array_equal(xs_bar, [0.0, 0.0, 2.0])
    _, pullback = rrule(operator.attrgetter("width"), Box(2.0))
    assert pullback(3.0) == (NoTangent(), Tangent(Box, width=3.0))


def test_computed_attributes_get_no_rule():
    """A property, a method or an array's .T is computed, not stored: no rule (an engine follows the code)."""
    assert rrule(operator.attrgetter("area"), Box(2.0)) is None
    assert rrule(operator.attrgetter("T"), np.ones((2, 2))) is None
    assert frule((NoTangent(), Tangent(Box, width=1.0)), operator.attrgetter("area"), Box(2.0)) is None
    assert rrule(operator.itemgetter(0), {1.0, 2.0}) is None


def test_entry_points_have_both_rules():
    """The coverage row of each operator and builtin entry point beyond the first tier."""
    calls = {
        builtins.divmod: (7.5, 2.0),
        complex: (1.5, 2.0),
        builtins.sorted: ([2.0, 1.0],),
        operator.concat: ((1.0,), (2.0,)),
        operator.itemgetter(0): ([1.0, 2.0],),
        operator.attrgetter("width"): (Box(2.0),),
        operator.imatmul: (np.eye(2), np.eye(2)),  # found, and it refuses the arrays it would change
        **{f: (1.5, 0.75) for f in IN_PLACE},
    }
    for f, args in calls.items():
        assert rrule.find(f, *args) is not None and frule.find(f, *args) is not None, f
