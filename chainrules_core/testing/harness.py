"""``test_frule``, ``test_rrule`` and ``test_scalar``: finite-difference checks of rules.

Each check perturbs the inputs along a direction and compares the rule with a
finite difference of the function itself. The pushforward is compared entry
by entry with the directional difference; the pullback through the identity
``<y_bar, J dx> == <J^T y_bar, dx>``, one argument at a time, so a check costs
a fixed number of evaluations of the function whatever the input size. A
failure is an ``AssertionError`` that names the check, the argument and the
values involved, and the seed that reproduces it.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ..naming import function_name
from ..rules import frule, rrule
from ..tangent_types import (
    NoTangent,
    NotImplementedTangent,
    Tangent,
    ZeroTangent,
    unthunk,
)
from .checks import (
    INCONCLUSIVE,
    SAFETY,
    CheckOptions,
    CheckReport,
    Setup,
    agree,
    along,
    check_close,
    check_exact_inner,
    preview,
    setup,
    short,
    without_harness,
)
from .diagnosis import (
    blame,
    no_rule_message,
    other_rule_wrong,
    pushforward_by_part,
    signature_hint,
)
from .finite_differences import FDResult
from .jacobian import check_jacobian_size, jacobian_check
from .layout import Vector, dot
from .pullback import (
    check_cotangents,
    check_partial_seeds,
    check_pullback,
    check_thunked_seed,
    check_whole_zero_seed,
    seed,
)
from .tangents import PrimalAndTangent
from .values import check_not_mutated, check_primal, check_types, same, snapshot
from .variants import check_frule_variants, check_rrule_variants, check_wrong_seed, check_wrong_tangent

__all__ = ["INCONCLUSIVE", "SAFETY", "CheckOptions", "CheckReport", "test_frule", "test_rrule", "test_scalar"]


def _with_options(check: Callable[..., CheckReport]) -> Callable[..., CheckReport]:
    """Show the ``CheckOptions`` in ``check``'s signature, for ``help()``; ``check`` takes them as ``**options``."""
    own = inspect.signature(check)
    parameters = [p for p in own.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    for option in dataclasses.fields(CheckOptions):
        keyword = inspect.Parameter.KEYWORD_ONLY
        parameters.append(inspect.Parameter(option.name, keyword, default=option.default, annotation=option.type))
    check.__signature__ = own.replace(parameters=parameters)  # type: ignore[attr-defined]
    return check


_Check = TypeVar("_Check", bound=Callable[..., CheckReport])


def _failing_here(check: _Check) -> _Check:
    """``check`` raising its failures from its own frame, which pytest hides (``__tracebackhide__``).

    A failure's message says everything the harness knows, so the frames of
    the harness that found it are dropped; an exception from the rule or
    the function keeps its traceback from their first frame on.
    """

    @functools.wraps(check)
    def run(*args: Any, **kwargs: Any) -> CheckReport:
        __tracebackhide__ = True
        try:
            return check(*args, **kwargs)
        except AssertionError as failure:
            if getattr(failure, "check", None) is None:  # an assert in the user's code
                raise without_harness(failure)  # noqa: B904 - the same exception, with a shorter traceback
            raise failure.with_traceback(None)  # noqa: B904
        except Exception as err:
            raise without_harness(err)  # noqa: B904

    return run  # type: ignore[return-value]


def _call_frule(s: Setup, tangents: tuple[Any, ...]) -> Any:
    if s.config is not None:
        return frule(s.config, tangents, s.f, *s.args, **s.kwargs)
    return frule(tangents, s.f, *s.args, **s.kwargs)


def _call_rrule(s: Setup) -> Any:
    if s.config is not None:
        return rrule(s.config, s.f, *s.args, **s.kwargs)
    return rrule(s.f, *s.args, **s.kwargs)


class _Watched:
    """The values a rule must not modify (the inputs, ``f``, the keywords, the tangents), as they were."""

    def __init__(self, s: Setup) -> None:
        self.values = [*s.primals, s.kwargs, *s.tangents]
        self.names = [*s.names, "the keyword arguments", *(f"the tangent of {name}" for name in s.names)]
        self.before = snapshot(self.values)
        self.seed: Any = None
        self.seed_before: Any = None

    def watch_seed(self, y_bar: Any) -> None:
        self.seed, self.seed_before = y_bar, snapshot([y_bar])[0]

    def check(self, s: Setup) -> None:
        check_not_mutated(s, self.before, self.values, self.names)
        if self.seed_before is not None and not same(self.seed_before, self.seed):
            raise s.fail("mutation", "the pullback modified its seed y_bar in place")


# ----- frule -----


@_with_options
@_failing_here
def test_frule(f: Callable[..., Any], *args: Any, check_zero_tangents: bool = False, **options: Any) -> CheckReport:
    """Check ``frule`` for ``f(*args, **fkwargs)`` against finite differences.

    Arguments are perturbed along random directions scaled to their entries
    (or the tangent given with ``with_tangent``); a callable object ``f`` with
    fields is perturbed too. Checks: the primal equals ``f(*args)``; the
    tangent has the output's type, shape and dtype and matches the finite
    difference entry by entry; with ``ZeroTangent()`` for one argument at a
    time the tangents add up as they must; neither the inputs nor ``f`` are
    modified; where an ``rrule`` exists the two agree.

    Engines never call an frule whose tangents are all zeros, so that is not
    required; ``check_zero_tangents=True`` also checks that such a call gives
    a zero tangent, for rules meant for callers that make it.

    The options (``CheckOptions``): ``fkwargs`` for ``f``; ``rtol`` and
    ``atol`` (by default ``RTOL`` of the lowest precision among the inputs
    and the output); ``fdm``, a ``FiniteDifferences`` or one of
    ``"central"``, ``"forward"``, ``"backward"``; ``seed`` for the random
    directions; ``config``, passed to the rule as an engine's ``RuleConfig``;
    ``promote=False`` to run finite differences in the inputs' own precision
    rather than double; ``jacobian=True`` to first compare the full Jacobian,
    entry by entry, listing the entries that differ (O(n) evaluations, for
    diagnosis).

    >>> from chainrules_core import scalar_rule
    >>> def cube(x):
    ...     return x**3
    >>> scalar_rule(cube, lambda out, x: 3 * x**2)
    >>> test_frule(cube, np.array([0.5, -2.0])).mode
    'frule'
    """
    opts = CheckOptions.parse("test_frule", options)
    s = setup("frule", f, args, opts)
    if opts.jacobian:
        check_jacobian_size(s)
    watched = _Watched(s)
    tangents = tuple(s.tangents)
    call = (tangents, s.f, *s.args) if s.config is None else (s.config, tangents, s.f, *s.args)
    hint = signature_hint(s, call)
    result = s.call("rule", "the frule", _call_frule, s, tangents, hint=hint)
    if result is None:
        raise s.fail("rule exists", no_rule_message(s))
    if not (isinstance(result, tuple) and len(result) == 2):
        raise s.fail("protocol", f"frule must return (y, y_dot), got {short(result)}")
    y, y_dot = result
    watched.check(s)
    check_primal(s, y)
    if opts.jacobian:
        jacobian_check(s, lambda single: _call_frule(s, single)[1], None)
    y_dot = s.call("tangent type", "unthunking the output tangent", unthunk, y_dot)
    check_types(s, "tangent type", s.out_layout, y_dot, "the output tangent", cotangent=False)
    s.report.checks.append("tangent type")

    moving = s.moving()
    y_dot_vec = s.out_layout.tangent_to_vec(y_dot)
    _check_pushforward(s, moving, y_dot_vec)
    _check_zero_tangent_entries(s, moving, y_dot_vec)
    if check_zero_tangents:
        _check_zero_tangents(s, moving)
    if rrule.find(s.f, *s.args, config=s.config) is not None:
        _check_frule_against_rrule(s, moving, y_dot_vec)
    watched.check(s)
    s.report.checks.append("inputs not mutated")
    if opts.variants:
        check_frule_variants(s, tangents, y_dot_vec)
    if opts.wrong_shape:
        check_wrong_tangent(s, tangents)
    return s.report


def _check_pushforward(s: Setup, moving: list[int], y_dot_vec: Vector) -> None:
    """The tangent against one finite difference along every tangent at once.

    That difference is taken at one step, refined by the step search
    wherever its error could turn the verdict (``settle``). When the check
    fails, each argument is checked alone, with the step search, which
    names the one whose tangent is mishandled; when each passes alone, the
    tangent is compared with the sum of their finite differences, which are
    more accurate than one difference along directions of very different
    scales.
    """
    try:
        fd = along(s, moving, provisional=True)
        check_close(s, "pushforward", "the output", y_dot_vec, fd, _zero_output_hint(s, y_dot_vec))
        s.report.checks.append("pushforward")
        return
    except AssertionError as joint_failure:
        if len(moving) < 2:
            raise
        failure = joint_failure
    total, error, natural = np.zeros_like(y_dot_vec), 0.0, 0.0
    for i in moving:
        fd = along(s, [i])
        where = f"along {s.names[i]} alone"
        alone = _pushed(s, "pushforward", _zero_except(s, moving, i), where)
        by_part = pushforward_by_part(s, i, lambda tangents: _pushed(s, "pushforward", tangents, where))  # noqa: B023
        check_close(s, "pushforward", where, alone, fd, by_part)
        total, error, natural = total + fd.value, error + fd.error, max(natural, fd.natural)
    try:
        summed = FDResult(total, error, 0.0, 0, natural)
        check_close(s, "pushforward", "the output (the sum of each argument's)", y_dot_vec, summed)
    except AssertionError:
        raise failure from None
    s.report.checks.append("pushforward")


def _zero_except(s: Setup, moving: list[int], i: int) -> tuple[Any, ...]:
    """The tangents with ``ZeroTangent()`` for every moving input but ``i``."""
    return tuple(t if j == i or j not in moving else ZeroTangent() for j, t in enumerate(s.tangents))


def _pushed(s: Setup, check: str, tangents: tuple[Any, ...], where: str) -> Vector:
    """The frule's output tangent for ``tangents``, as a vector; a failure of ``check`` names ``where``."""
    result = s.call(check, f"the frule, {where},", _call_frule, s, tangents)
    if not (isinstance(result, tuple) and len(result) == 2):
        raise s.fail(check, f"{where}, the frule returned {short(result)}")
    return s.vec(check, s.out_layout, result[1], f"the output tangent {where}", False)


def _zero_output_hint(s: Setup, y_dot_vec: Vector) -> str:
    if y_dot_vec.size and not np.any(y_dot_vec):
        return "\n  the frule's tangent is zero, but the output changes along the inputs' tangents"
    return ""


def _check_zero_tangent_entries(s: Setup, moving: list[int], y_dot_vec: Vector) -> None:
    """``ZeroTangent()`` for one input at a time: the ``m`` tangents add up to ``(m - 1) * y_dot``.

    An engine passes ``ZeroTangent()`` for an input it does not follow, such
    as a callable object's fields held constant, or ``NoTangent()``; so the
    last input is given ``NoTangent()`` too, which must act as the zero. The
    pushforward is linear in the tangents, so this costs ``m + 1`` frule
    calls and no evaluation of ``f``.
    """
    if len(moving) < 2:
        return
    check = "zero entry in the tangents"
    total, scale = np.zeros_like(y_dot_vec), (len(moving) - 1) * np.abs(y_dot_vec)
    for i in moving:
        tangents = tuple(ZeroTangent() if j == i else t for j, t in enumerate(s.tangents))
        pushed = _pushed(s, check, tangents, f"given ZeroTangent() for {s.names[i]}")
        total, scale = total + pushed, scale + np.abs(pushed)
    expected = (len(moving) - 1) * y_dot_vec
    diff = float(np.max(np.abs(total - expected), initial=0.0))
    if not diff <= s.atol + 10 * s.rtol * float(np.max(scale, initial=0.0)):
        raise s.fail(
            check,
            f"with ZeroTangent() for one input at a time, the frule's tangents add up to {preview(total)}, not "
            f"{len(moving) - 1} times its tangent along all inputs {preview(expected)}: a ZeroTangent() tangent "
            "is mishandled",
        )
    last, zero_vec = moving[-1], pushed  # the loop's last tangent: ZeroTangent() for moving[-1]
    with_none = tuple(NoTangent() if j == last else t for j, t in enumerate(s.tangents))
    none_vec = _pushed(s, check, with_none, f"given NoTangent() for {s.names[last]}")
    if not np.allclose(none_vec, zero_vec, rtol=1e-12, atol=1e-12 * float(np.max(np.abs(zero_vec), initial=0.0))):
        raise s.fail(
            check,
            f"given NoTangent() for {s.names[last]}, the frule's tangent {preview(none_vec)} differs from the one "
            f"given ZeroTangent() {preview(zero_vec)}: an engine may send either for an input it holds constant",
        )
    s.report.checks.append(check)


def _check_zero_tangents(s: Setup, moving: list[int]) -> None:
    """``ZeroTangent()`` for every moving input gives a zero tangent (``check_zero_tangents=True``)."""
    zeros = tuple(ZeroTangent() if i in moving else t for i, t in enumerate(s.tangents))
    zero_vec = _pushed(s, "zero tangent", zeros, "given ZeroTangent() tangents")
    if np.any(zero_vec != 0):
        raise s.fail("zero tangent", f"ZeroTangent() inputs gave a non-zero tangent {preview(zero_vec)}")
    s.report.checks.append("zero tangent")


def _check_frule_against_rrule(s: Setup, moving: list[int], y_dot_vec: Vector) -> None:
    """``<y_bar, frule(dx)> == sum_i <pullback(y_bar)_i, dx_i>``, for a seed along ``y_dot`` plus a random one."""
    check = "frule and rrule agree"
    result = s.call(check, "the rrule", _call_rrule, s)
    if result is None:
        return
    seed_vec = s.rng.standard_normal(s.out_layout.size)
    size = float(np.max(np.abs(y_dot_vec))) if y_dot_vec.size else 0.0
    if size > 0:
        seed_vec = seed_vec + y_dot_vec / size
    y_bar = s.out_layout.vec_to_tangent(seed_vec)
    cotangents = s.call(check, "the pullback", result[1], y_bar)
    if not isinstance(cotangents, tuple) or len(cotangents) != len(s.primals):
        return  # test_rrule reports this
    y_bar_vec = s.out_layout.tangent_to_vec(y_bar)
    x_bars: dict[int, Vector] = {}
    for i in moving:
        c = unthunk(cotangents[i])
        if isinstance(c, NotImplementedTangent):
            return
        x_bars[i] = s.vec(check, s.layouts[i], c, s.of("the cotangent", i))
    _check_agreement(s, "frule", y_bar_vec, y_dot_vec, x_bars)


def _check_agreement(s: Setup, checked: str, y_bar_vec: Vector, y_dot_vec: Vector, x_bars: dict[int, Vector]) -> None:
    """``<y_bar, y_dot> == sum_i <x_bar_i, dx_i>``; on failure, the rule other than ``checked`` is blamed.

    The ``checked`` rule has passed its own check against finite
    differences. Where they also prove the other rule wrong, that rule's own
    check fails for it, so this one does not: one wrong rule is one failure.
    What it found goes to the report's notes, and to a warning.
    """
    check = "frule and rrule agree"
    lhs = dot(y_bar_vec, y_dot_vec)
    rhs, scale = 0.0, dot(np.abs(y_bar_vec), np.abs(y_dot_vec))
    for i, x_bar in x_bars.items():
        dx = s.direction(i)
        rhs += dot(x_bar, dx)
        scale += dot(np.abs(x_bar), np.abs(dx))

    def frule_tangent(i: int) -> Vector:
        return _pushed(s, check, _zero_except(s, list(x_bars), i), f"along {s.names[i]} alone")

    if not agree(s, lhs, rhs, scale):
        wrong = other_rule_wrong(s, checked, frule_tangent, y_bar_vec, x_bars)
        if wrong is not None:
            note = f"[{check}] {s.report.function}: {wrong} (seed={s.seed})"
            s.report.notes.append(note)
            warnings.warn(note, stacklevel=5)  # the caller of test_frule or test_rrule
            return
    hint = blame(s, checked, frule_tangent, y_bar_vec, x_bars)
    check_exact_inner(s, check, lhs, rhs, scale, "<y_bar, frule tangent> against the pullback's", hint)
    s.report.checks.append(check)


# ----- rrule -----


@_with_options
@_failing_here
def test_rrule(
    f: Callable[..., Any], *args: Any, output_tangent: Any = None, check_zero_seed: bool = False, **options: Any
) -> CheckReport:
    """Check ``rrule`` for ``f(*args, **fkwargs)`` against finite differences.

    Checks: the primal equals ``f(*args)``; the pullback returns one cotangent
    per argument plus one for ``f``; ``NoTangent()`` (not ``ZeroTangent()``)
    for non-differentiable arguments (ints, bools, strings, those marked with
    ``no_tangent``); each cotangent has its input's type, shape and dtype;
    ``<y_bar, J dx_i> == <x_bar_i, dx_i>`` for every argument ``i`` with
    ``J dx_i`` from finite differences, for a random seed and for the seed
    ``J dx_i`` itself; a thunked seed gives the same result; tuple seeds with
    ``ZeroTangent()`` entries give the matching cotangents; in-place thunks
    agree with their value; neither the inputs, nor ``f``, nor the seed are
    modified; where an ``frule`` exists the two agree.

    Engines never call a pullback with a whole ``ZeroTangent()`` seed, so
    that is not required; ``check_zero_seed=True`` also checks that such a
    seed gives zero cotangents, for rules meant for callers that send it.

    ``output_tangent`` replaces the random seed (and the seed ``J dx_i``): pass
    one where only some seeds are valid, such as a gauge-invariant seed for
    eigenvectors. The options are those of ``test_frule``.

    >>> from chainrules_core import scalar_rule
    >>> def scaled_sin(x, a):
    ...     return a * np.sin(x)
    >>> scalar_rule(scaled_sin, lambda out, x, a: (a * np.cos(x), np.sin(x)))
    >>> test_rrule(scaled_sin, np.array([0.1, 0.2], dtype=np.float32), 2.0).checks[:2]
    ['cotangent count', 'cotangent types']
    """
    opts = CheckOptions.parse("test_rrule", options)
    s = setup("rrule", f, args, opts)
    if opts.jacobian:
        check_jacobian_size(s)
    watched = _Watched(s)
    hint = signature_hint(s, (s.f, *s.args) if s.config is None else (s.config, s.f, *s.args))
    result = s.call("rule", "the rrule", _call_rrule, s, hint=hint)
    if result is None:
        raise s.fail("rule exists", no_rule_message(s))
    if not (isinstance(result, tuple) and len(result) == 2 and callable(result[1])):
        raise s.fail("protocol", f"rrule must return (y, pullback), got {short(result)}")
    y, pullback = result
    check_primal(s, y)
    y_bar = seed(s, output_tangent)
    watched.watch_seed(y_bar)

    x_bars, cotangents = check_cotangents(s, pullback, y_bar)
    watched.check(s)
    if opts.jacobian:
        jacobian_check(s, None, pullback)
    y_bar_vec = s.out_layout.tangent_to_vec(unthunk(y_bar))
    groups = check_pullback(s, pullback, y_bar_vec, x_bars, cotangents, coherent=output_tangent is None)
    check_thunked_seed(s, pullback, y_bar, x_bars)
    if check_zero_seed:
        check_whole_zero_seed(s, pullback)
    if isinstance(y_bar, (Tangent, list)):
        check_partial_seeds(s, pullback, y_bar, groups)
    if frule.find(s.f, *s.args, config=s.config) is not None:
        _check_rrule_against_frule(s, y_bar_vec, x_bars)
    watched.check(s)
    s.report.checks.append("inputs not mutated")
    if opts.variants:
        check_rrule_variants(s, y_bar, x_bars)
    if opts.wrong_shape:
        check_wrong_seed(s, y_bar)
    return s.report


def _check_rrule_against_frule(s: Setup, y_bar_vec: Vector, x_bars: list[Vector | None]) -> None:
    tangents = tuple(s.tangents)
    result = s.call("frule and rrule agree", "the frule", _call_frule, s, tangents)
    if result is None:
        return
    y_dot_vec = s.vec("frule and rrule agree", s.out_layout, result[1], "the frule's output tangent", False)
    checked: dict[int, Vector] = {}
    for i in s.moving():
        x_bar = x_bars[i]
        if x_bar is None:
            return
        checked[i] = x_bar
    _check_agreement(s, "rrule", y_bar_vec, y_dot_vec, checked)


# ----- scalars -----


@_with_options
@_failing_here
def test_scalar(f: Callable[..., Any], *xs: Any, **options: Any) -> CheckReport:
    """Check both rules of a scalar function at ``xs``, along every basis direction of each argument.

    Each argument is moved alone (the others get a zero tangent): for a real
    argument the tangent is 1, for a complex one 1 and 1j; the seeds are 1,
    and 1j too for a complex output. So every partial derivative is checked,
    real and imaginary parts. Ints and bools are left alone. The options are
    those of ``test_frule``.

    >>> from chainrules_core import scalar_rule
    >>> def square(z):
    ...     return z * z
    >>> scalar_rule(square, lambda out, z: 2 * z)
    >>> test_scalar(square, 0.5 + 1.5j).function.endswith("square")
    True
    >>> def scaled_exp(x, a):
    ...     return a * np.exp(x)
    >>> scalar_rule(scaled_exp, lambda out, x, a: (out, np.exp(x)))
    >>> test_scalar(scaled_exp, 0.3, 2.0).mode
    'frule+rrule'
    """
    if not xs:
        raise TypeError("test_scalar(f, *xs): give the point, one value per argument")
    y = f(*xs, **(CheckOptions.parse("test_scalar", options).fkwargs or {}))
    seeds = [1.0, 1j] if _is_complex(y) else [1.0]
    report: CheckReport | None = None
    for j, x in enumerate(xs):
        if isinstance(x, (bool, int, np.integer)):
            continue
        for d in [1.0, 1j] if _is_complex(x) else [1.0]:
            args = [
                a if isinstance(a, (bool, int, np.integer)) else PrimalAndTangent(a, _like(a, d if k == j else 0))
                for k, a in enumerate(xs)
            ]
            r = test_frule(f, *args, **options)
            report = r if report is None else report.merge(r)
            for seed_value in seeds:
                report = report.merge(test_rrule(f, *args, output_tangent=_like(y, seed_value), **options))
    if report is None:
        raise TypeError(f"test_scalar({function_name(f)}): no argument is a float or complex number")
    return report


def _is_complex(x: Any) -> bool:
    return isinstance(x, complex) or bool(np.iscomplexobj(x))


def _like(x: Any, value: complex) -> Any:
    """``value`` in the scalar type of ``x``."""
    if isinstance(x, np.generic):
        return x.dtype.type(value if x.dtype.kind == "c" else value.real)
    if isinstance(x, np.ndarray):
        return np.asarray(value if x.dtype.kind == "c" else value.real, dtype=x.dtype)
    return complex(value) if isinstance(x, complex) else float(value.real)


# Named after ChainRulesTestUtils' functions; pytest must not collect them where they are imported.
test_frule.__test__ = False  # type: ignore[attr-defined]
test_rrule.__test__ = False  # type: ignore[attr-defined]
test_scalar.__test__ = False  # type: ignore[attr-defined]
