"""Programs that give functions their followed values by keyword: the derivatives of the positional calls."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import chainrules.engines as ad
from chainrules_core import HasReverseMode, NoTangent, frule, rrule, unthunk
from tests.engines.programs import check_program, check_second_order

RNG = np.random.default_rng(1)
X = RNG.standard_normal((3, 4))
V = RNG.standard_normal(4)
W = RNG.standard_normal(4)

# (keyword program, positional program, arguments)
PROGRAMS: list[tuple[Any, Any, tuple[Any, ...]]] = [
    (lambda x: np.sum(a=x * x), lambda x: np.sum(x * x), (X,)),
    (lambda x: np.sum(a=np.sin(x), axis=1)[0], lambda x: np.sum(np.sin(x), axis=1)[0], (X,)),
    (lambda x: np.mean(a=x * x, axis=0)[1], lambda x: np.mean(x * x, axis=0)[1], (X,)),
    (lambda v, w: np.dot(a=v, b=w), lambda v, w: np.dot(v, w), (V, W)),
    (lambda v, w: np.dot(b=w, a=np.tanh(v)), lambda v, w: np.dot(np.tanh(v), w), (V, W)),
    (lambda v: np.linalg.norm(x=v), lambda v: np.linalg.norm(v), (V,)),
    (lambda x: np.linalg.norm(x=x, ord="fro"), lambda x: np.linalg.norm(x, ord="fro"), (X,)),
]
IDS = ["sum", "sum-axis", "mean-axis", "dot", "dot-reordered", "norm", "norm-fro"]


def _close(a: tuple[Any, ...], b: tuple[Any, ...]) -> None:
    assert len(a) == len(b)
    for u, v in zip(a, b):
        np.testing.assert_allclose(unthunk(u), unthunk(v), rtol=1e-12)


@pytest.mark.parametrize(("by_keyword", "positional", "args"), PROGRAMS, ids=IDS)
def test_gradient(by_keyword: Any, positional: Any, args: tuple[Any, ...]) -> None:
    _close(ad.gradient(by_keyword, *args), ad.gradient(positional, *args))


@pytest.mark.parametrize(("by_keyword", "positional", "args"), PROGRAMS, ids=IDS)
def test_forward_and_back(by_keyword: Any, positional: Any, args: tuple[Any, ...]) -> None:
    y, back = ad.forward(by_keyword, *args)
    y_pos, back_pos = ad.forward(positional, *args)
    np.testing.assert_allclose(y, y_pos)
    _close(back(2.0), back_pos(2.0))


@pytest.mark.parametrize(("by_keyword", "positional", "args"), PROGRAMS, ids=IDS)
def test_jvp(by_keyword: Any, positional: Any, args: tuple[Any, ...]) -> None:
    tangents = tuple(RNG.standard_normal(np.shape(a)) for a in args)
    y, y_dot = ad.jvp(by_keyword, args, tangents)
    y_pos, y_dot_pos = ad.jvp(positional, args, tangents)
    np.testing.assert_allclose(y, y_pos)
    np.testing.assert_allclose(unthunk(y_dot), unthunk(y_dot_pos), rtol=1e-12)


def test_a_ufunc_given_its_input_by_keyword_raises_naming_it() -> None:
    with pytest.raises(TypeError, match="tanh"):  # numpy's own refusal, before the engine sees the call
        ad.gradient(lambda v: np.sum(np.tanh(x=v)), V)
    with pytest.raises(TypeError, match=r"np\.tanh: x= names an input of the ufunc np\.tanh"):
        ad.gradient(lambda v: np.sum(ad.lift(np.tanh)(x=v)), V)
    with pytest.raises(TypeError, match=r"np\.tanh: x= names an input of the ufunc np\.tanh"):
        ad.jvp(lambda v: np.sum(ad.lift(np.tanh)(x=v)), (V,), (W,))


# ----- a followed value by keyword after positional arguments: moved to its position in the rule -----


def scaled_sine(x: Any, w: float = 1.0) -> Any:
    """A function of the user's, with rules of its own."""
    return w * np.sin(x)


@rrule.register(scaled_sine)
def _rrule_scaled_sine(f: Any, x: Any, w: float = 1.0) -> Any:
    def scaled_sine_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = unthunk(out_bar)
        return NoTangent(), out_bar * w * np.cos(x), np.sum(out_bar * np.sin(x))

    return f(x, w), scaled_sine_pullback


@frule.register(scaled_sine)
def _frule_scaled_sine(tangents: tuple[Any, ...], f: Any, x: Any, w: float = 1.0) -> Any:
    _, x_dot, *w_dot = tangents
    out_dot = w * np.cos(x) * x_dot
    return f(x, w), out_dot + np.sin(x) * w_dot[0] if w_dot else out_dot


def shifted_square(x: Any, shift: float = 0.0, w: float = 1.0) -> Any:
    """A function whose rule is config-aware (it asks for reverse mode), with a default between x and w."""
    return w * (x - shift) ** 2


@rrule.register(shifted_square, config=True, requires=(HasReverseMode,))
def _rrule_shifted_square(config: Any, f: Any, x: Any, shift: float = 0.0, w: float = 1.0) -> Any:
    def shifted_square_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = unthunk(out_bar)
        d = 2 * w * (x - shift) * out_bar
        return NoTangent(), d, -np.sum(d), np.sum(out_bar * (x - shift) ** 2)

    return f(x, shift, w), shifted_square_pullback


@frule.register(shifted_square)
def _frule_shifted_square(tangents: tuple[Any, ...], f: Any, x: Any, shift: float = 0.0, w: float = 1.0) -> Any:
    _, x_dot, shift_dot, w_dot = tangents
    return f(x, shift, w), 2 * w * (x - shift) * (x_dot - shift_dot) + (x - shift) ** 2 * w_dot


def smooth_clip(x: Any, *, w: float) -> Any:
    """No rule: its own code runs on the followed values, keyword-only argument and all."""
    return np.sum(np.tanh(w * x))


Y = np.array([0.2, -1.3, 2.1, 0.8])  # at least 0.3 from the bounds below: the clips are smooth here

# (name, keyword program, positional program, arguments)
MOVED: list[tuple[str, Any, Any, tuple[Any, ...]]] = [
    (
        "clip(x, lo, a_max=hi)",
        lambda x, lo, hi: np.sum(np.clip(x, lo, a_max=hi) ** 2 * x),
        lambda x, lo, hi: np.sum(np.clip(x, lo, hi) ** 2 * x),
        (Y, -0.5, 1.5),
    ),
    (
        "clip(x, a_min=lo, a_max=hi)",
        lambda x, lo, hi: np.sum(np.clip(x, a_min=lo, a_max=hi) ** 3),
        lambda x, lo, hi: np.sum(np.clip(x, lo, hi) ** 3),
        (Y, -0.5, 1.5),
    ),
    (
        "clip(x, a_max=hi, a_min=lo): the keywords in another order",
        lambda x, lo, hi: np.clip(x * 2.0, a_max=hi, a_min=lo).sum() * hi,
        lambda x, lo, hi: np.clip(x * 2.0, lo, hi).sum() * hi,
        (Y, -0.5, 1.5),
    ),
    (
        "clip(x, lo, a_max=np.array([...])): numpy's array of followed scalars by keyword",
        lambda x, lo, hi: np.sum(np.clip(x, lo, a_max=np.array([hi, 2.0 * hi, hi, hi * hi])) ** 2),
        lambda x, lo, hi: np.sum(np.clip(x, lo, np.array([hi, 2.0 * hi, hi, hi * hi])) ** 2),
        (Y, -0.5, 1.5),
    ),
    (
        "clip(x, min=lo): numpy 2.1's keyword-only bound, which stands for a_min",
        lambda x, lo, hi: np.sum(np.clip(x, min=lo) ** 2 * hi),
        lambda x, lo, hi: np.sum(np.clip(x, lo, None) ** 2 * hi),
        (Y, -0.5, 1.5),
    ),
    (
        "clip(x, max=hi)",
        lambda x, lo, hi: np.sum(np.clip(x * lo, max=hi) ** 3),
        lambda x, lo, hi: np.sum(np.clip(x * lo, None, hi) ** 3),
        (Y, -0.5, 1.5),
    ),
    (
        "clip(x, max=hi, min=lo)",
        lambda x, lo, hi: np.sum(np.clip(x, max=hi, min=lo) ** 2),
        lambda x, lo, hi: np.sum(np.clip(x, lo, hi) ** 2),
        (Y, -0.5, 1.5),
    ),
    ("dot(v, b=w)", lambda v, w: np.dot(v, b=np.tanh(w)), lambda v, w: np.dot(v, np.tanh(w)), (V, W)),
    (
        "lift(g)(x, w=w): the user's rule",
        lambda x, w: np.sum(ad.lift(scaled_sine)(x, w=w) ** 2),
        lambda x, w: np.sum(ad.lift(scaled_sine)(x, w) ** 2),
        (Y, 0.7),
    ),
    (
        "lift(g)(x, w=w): a config-aware rule, a default before w",
        lambda x, w: np.sum(ad.lift(shifted_square)(x, w=w) * x),
        lambda x, w: np.sum(ad.lift(shifted_square)(x, 0.0, w) * x),
        (Y, 0.7),
    ),
    (
        "pow(x, exp=p)",
        lambda x, p: ad.lift(pow)(x, exp=p) * p,
        lambda x, p: np.power(x, p) * p,
        (1.7, 2.5),
    ),
    (
        "no rule: a keyword-only argument of the function's own code",
        lambda x, w: ad.lift(smooth_clip)(x, w=w),
        lambda x, w: np.sum(np.tanh(w * x)),
        (Y, 0.7),
    ),
]
MOVED_IDS = [m[0] for m in MOVED]


@pytest.mark.parametrize(("name", "by_keyword", "positional", "args"), MOVED, ids=MOVED_IDS)
def test_a_followed_keyword_is_differentiated_as_the_positional_call(
    name: str, by_keyword: Any, positional: Any, args: tuple[Any, ...]
) -> None:
    """Both engines against finite differences, and the same numbers as the positional call."""
    check_program(by_keyword, args)
    _close(ad.gradient(by_keyword, *args), ad.gradient(positional, *args))
    tangents = tuple(RNG.standard_normal(np.shape(a)) if np.ndim(a) else 0.5 for a in args)
    y_dot, y_dot_pos = ad.jvp(by_keyword, args, tangents)[1], ad.jvp(positional, args, tangents)[1]
    np.testing.assert_allclose(unthunk(y_dot), unthunk(y_dot_pos), rtol=1e-12)


@pytest.mark.parametrize(("name", "by_keyword", "positional", "args"), MOVED, ids=MOVED_IDS)
def test_a_followed_keyword_at_second_order(name: str, by_keyword: Any, positional: Any, args: tuple[Any, ...]) -> None:
    """Forward over reverse and reverse over reverse against finite differences; the Hessian of the positional
    call."""
    check_second_order(by_keyword, args)
    h, h_pos = ad.hessian(by_keyword, *args), ad.hessian(positional, *args)
    for row, row_pos in zip(h, h_pos):
        _close(row, row_pos)


def test_a_keyword_the_rule_has_no_position_for_is_refused_naming_it() -> None:
    """A keyword-only parameter (np.var's mean) or an argument by keyword only: never dropped."""
    engines = (lambda f, *a: ad.gradient(f, *a), lambda f, *a: ad.jvp(f, a, a))
    for engine in engines:
        with pytest.raises(TypeError, match=r"mean is not a positional parameter of its [fr]rule.*np\.var takes mean"):
            engine(lambda x, m: np.var(x, mean=m), Y, np.ones(1))
        with pytest.raises(TypeError, match=r"np\.sum\(\.\.\., where=\.\.\.\) gets a followed value as its mask"):
            engine(lambda x, m: np.sum(x, where=m), Y, np.ones(4))
        with pytest.raises(TypeError, match=r"np\.multiply\(\.\.\., out=\.\.\.\) writes into a followed value"):
            engine(lambda x, m: np.sum(np.multiply(x, 2.0, out=m)), Y, np.ones(4))
        with pytest.raises(TypeError, match=r"x2= names an input of the ufunc np\.power"):
            engine(lambda x, p: np.sum(ad.lift(np.power)(x, x2=p)), Y, 2.0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda x, m: np.sum(np.clip(x, a_min=m)), "missing 1 required positional argument: 'a_max'"),
        (lambda x, m: np.sum(np.clip(x, a_max=m)), "missing 1 required positional argument: 'a_min'"),
    ],
    ids=["a_min", "a_max"],
)
def test_a_call_numpy_refuses_is_refused_as_numpy_refuses_it(call: Any, message: str) -> None:
    """np.clip takes both bounds or neither: with a_min alone (or a_max, whose a_min is then numpy's sentinel) the
    engines raise numpy's own TypeError, as the call does without them."""
    with pytest.raises(TypeError, match=message):
        call(Y, 0.5)
    with pytest.raises(TypeError, match=message):
        ad.gradient(call, Y, 0.5)
    with pytest.raises(TypeError, match=message):
        ad.jvp(call, (Y, 0.5), (Y, 1.0))


def test_a_position_before_the_keyword_without_a_value_is_refused_naming_both() -> None:
    def weighted_power(x: Any, p: float, w: float = 1.0) -> Any:
        return w * x**p

    @rrule.register(weighted_power)
    def _rrule_weighted_power(f: Any, x: Any, p: float, w: float = 1.0) -> Any:
        raise AssertionError("not reached")

    with pytest.raises(TypeError, match=r"weighted_power: w= holds a followed value.*argument p before it has no"):
        ad.gradient(lambda x, w: ad.lift(weighted_power)(x, w=w), 2.0, 3.0)


def test_parameters_by_keyword_outside_and_inside_a_pass() -> None:
    """A parameter is followed only by a running reverse pass: outside one, it is its value."""
    lo = ad.param(-0.5)
    assert np.array_equal(np.clip(Y, lo, a_max=ad.param(1.5)), np.clip(Y, -0.5, 1.5))
    y, back = ad.forward(lambda x: np.sum(np.clip(x, lo, a_max=ad.param(1.5))), Y)
    assert y == pytest.approx(np.sum(np.clip(Y, -0.5, 1.5)))
    back(1.0)
    assert lo.grad == 1.0  # the one entry below the lower bound
