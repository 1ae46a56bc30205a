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

import copy
import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from ..rules import frule, rrule
from ..tangent_types import (
    NoTangent,
    NotImplementedTangent,
    Tangent,
    Thunk,
    ZeroTangent,
    backing,
    primal_type,
    unthunk,
)
from .checks import (
    INCONCLUSIVE,
    SAFETY,
    CheckOptions,
    CheckReport,
    Setup,
    along,
    check_close,
    check_exact_inner,
    check_inner,
    check_not_mutated,
    check_primal,
    check_types,
    is_zero,
    preview,
    same,
    setup,
    short,
    snapshot,
    unthunk_checked,
    zero_hint,
)
from .finite_differences import FDResult
from .jacobian import jacobian_check
from .layout import Vector, _Composite
from .tangents import PrimalAndTangent, rand_tangent

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
    watched = _Watched(s)
    tangents = tuple(s.tangents)
    result = s.call("rule", "the frule", _call_frule, s, tangents)
    if result is None:
        raise s.fail("rule exists", f"no frule for argument types {[type(a).__name__ for a in s.args]}")
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
    return s.report


def _check_pushforward(s: Setup, moving: list[int], y_dot_vec: Vector) -> None:
    """The tangent against one finite difference along every tangent at once.

    When that fails, each argument is checked alone, which names the one
    whose tangent is mishandled; when each passes alone, the tangent is
    compared with the sum of their finite differences, which are more
    accurate than one difference along directions of very different scales.
    """
    try:
        check_close(s, "pushforward", "the output", y_dot_vec, along(s, moving), _zero_output_hint(s, y_dot_vec))
        s.report.checks.append("pushforward")
        return
    except AssertionError as joint_failure:
        if len(moving) < 2:
            raise
        failure = joint_failure
    total, error, natural = np.zeros_like(y_dot_vec), 0.0, 0.0
    for i in moving:
        fd = along(s, [i])
        alone = _pushed(s, "pushforward", _zero_except(s, moving, i), f"along {s.names[i]} alone")
        check_close(s, "pushforward", f"along {s.names[i]} alone", alone, fd)
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
    as a callable object's fields held constant. The pushforward is linear in
    the tangents, so this costs ``m`` frule calls and no evaluation of ``f``.
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
    result = s.call("frule and rrule agree", "the rrule", _call_rrule, s)
    if result is None:
        return
    seed_vec = s.rng.standard_normal(s.out_layout.size)
    size = float(np.max(np.abs(y_dot_vec))) if y_dot_vec.size else 0.0
    if size > 0:
        seed_vec = seed_vec + y_dot_vec / size
    y_bar = s.out_layout.vec_to_tangent(seed_vec)
    cotangents = s.call("frule and rrule agree", "the pullback", result[1], y_bar)
    if not isinstance(cotangents, tuple) or len(cotangents) != len(s.primals):
        return  # test_rrule reports this
    y_bar_vec = s.out_layout.tangent_to_vec(y_bar)
    lhs = float(y_bar_vec @ y_dot_vec)
    rhs, scale = 0.0, float(np.abs(y_bar_vec) @ np.abs(y_dot_vec))
    for i in moving:
        c = unthunk(cotangents[i])
        if isinstance(c, NotImplementedTangent):
            return
        terms = s.vec("frule and rrule agree", s.layouts[i], c, f"the cotangent of {s.names[i]}") * s.direction(i)
        rhs += float(np.sum(terms))
        scale += float(np.sum(np.abs(terms)))
    check_exact_inner(s, "frule and rrule agree", lhs, rhs, scale, "<y_bar, frule tangent> against the pullback's")
    s.report.checks.append("frule and rrule agree")


# ----- rrule -----


@_with_options
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
    watched = _Watched(s)
    result = s.call("rule", "the rrule", _call_rrule, s)
    if result is None:
        raise s.fail("rule exists", f"no rrule for argument types {[type(a).__name__ for a in s.args]}")
    if not (isinstance(result, tuple) and len(result) == 2 and callable(result[1])):
        raise s.fail("protocol", f"rrule must return (y, pullback), got {short(result)}")
    y, pullback = result
    check_primal(s, y)
    y_bar = _seed(s, output_tangent)
    watched.watch_seed(y_bar)

    x_bars, cotangents = _check_cotangents(s, pullback, y_bar, watched)
    if opts.jacobian:
        jacobian_check(s, None, pullback)
    y_bar_vec = s.out_layout.tangent_to_vec(unthunk(y_bar))
    jvps = _check_pullback(s, pullback, y_bar_vec, x_bars, cotangents, coherent=output_tangent is None)
    _check_thunked_seed(s, pullback, y_bar, x_bars)
    if check_zero_seed:
        _check_zero_seed(s, pullback)
    if isinstance(s.out_layout, _Composite) and isinstance(y_bar, (Tangent, list)):
        _check_partial_seeds(s, pullback, y_bar, jvps)
    if frule.find(s.f, *s.args, config=s.config) is not None:
        _check_rrule_against_frule(s, y_bar_vec, x_bars)
    watched.check(s)
    s.report.checks.append("inputs not mutated")
    return s.report


def _seed(s: Setup, output_tangent: Any) -> Any:
    """The seed: ``output_tangent`` when given, checked against the output, else a random one."""
    if output_tangent is None:
        return rand_tangent(s.y_ref, s.rng)
    problems = s.out_layout.problems(unthunk(output_tangent), "output_tangent", cotangent=False)
    if problems:
        raise ValueError(f"test_rrule({s.report.function}): " + "; ".join(problems))
    return output_tangent


def _check_cotangents(
    s: Setup, pullback: Callable[[Any], Any], y_bar: Any, watched: _Watched
) -> tuple[list[Vector | None], list[Any]]:
    """Pull ``y_bar`` back: one cotangent per input, each of its input's type; ``(vectors, cotangents)``.

    A vector is ``None`` where the cotangent is not implemented.
    """
    raw = _pull(s, pullback, y_bar, "pullback")
    s.report.checks.append("cotangent count")
    watched.check(s)
    cotangents = [_checked_cotangent(s, i, c) for i, c in enumerate(raw)]
    x_bars = [None if c is None else s.layouts[i].tangent_to_vec(c) for i, c in enumerate(cotangents)]
    s.report.checks.append("cotangent types")
    return x_bars, cotangents


def _checked_cotangent(s: Setup, i: int, c: Any) -> Any:
    """The cotangent of argument ``i``, unthunked and checked for type; ``None`` when not implemented."""
    name = s.names[i]
    c = unthunk_checked(s, "thunked cotangent", c, s.primals[i], name)
    if isinstance(c, NotImplementedTangent):
        return None
    if not s.differentiable(i) and not isinstance(c, NoTangent):
        raise s.fail(
            "non-differentiable argument",
            f"{name} is not differentiable, so its cotangent must be NoTangent(), got {short(c)}",
        )
    check_types(s, "cotangent types", s.layouts[i], c, f"the cotangent of {name}")
    return c


def _check_pullback(
    s: Setup,
    pullback: Callable[[Any], Any],
    y_bar_vec: Vector,
    x_bars: list[Vector | None],
    cotangents: list[Any],
    coherent: bool,
) -> dict[int, FDResult]:
    """``<y_bar, J dx_i> == <x_bar_i, dx_i>`` for each moving input ``i``; the finite differences ``J dx_i``.

    ``coherent``: also for the seed ``J dx_i`` itself (not when the seed was given).
    """
    jvps: dict[int, FDResult] = {}
    for i in s.moving():
        x_bar = x_bars[i]
        if x_bar is None:
            continue
        jvps[i] = along(s, [i])
        hint = zero_hint(cotangents[i], s.names[i])
        check_inner(s, "pullback", s.names[i], y_bar_vec, jvps[i], x_bar, s.direction(i), hint)
        if coherent:
            _check_coherent_seed(s, pullback, i, jvps[i])
    s.report.checks.append("pullback")
    return jvps


def _check_coherent_seed(s: Setup, pullback: Callable[[Any], Any], i: int, fd: FDResult) -> None:
    """The identity for the seed ``y_bar = J dx_i``, where every term of ``<y_bar, J dx_i>`` is positive.

    A random seed makes the terms of the inner product cancel, so over ``n``
    entries a relative error of the cotangent shows only about ``1/sqrt(n)``
    as strongly; this seed shows it in full.
    """
    size = float(np.max(np.abs(fd.value))) if fd.value.size else 0.0
    if size == 0:
        return
    seed = s.out_layout.vec_to_tangent(fd.value / size)
    seed_vec = s.out_layout.tangent_to_vec(seed)
    cotangents = _pull(s, pullback, seed, "pullback")
    c = unthunk(cotangents[i])
    if isinstance(c, NotImplementedTangent):
        return
    x_bar = s.vec("pullback", s.layouts[i], c, f"the cotangent of {s.names[i]}")
    where = f"{s.names[i]}, with the seed y_bar = J dx"
    check_inner(s, "pullback", where, seed_vec, fd, x_bar, s.direction(i), zero_hint(c, s.names[i]))


def _check_thunked_seed(s: Setup, pullback: Callable[[Any], Any], y_bar: Any, x_bars: list[Vector | None]) -> None:
    """The seed wrapped in a ``Thunk`` gives the same cotangents."""
    thunked = _pull(s, pullback, Thunk(lambda: copy.deepcopy(y_bar)), "thunked seed")
    for i, c in enumerate(thunked):
        c = unthunk(c)
        first = x_bars[i]
        if first is None or isinstance(c, NotImplementedTangent):
            continue
        again = s.vec("thunked seed", s.layouts[i], c, f"the cotangent of {s.names[i]}")
        if not np.allclose(again, first, rtol=1e-12, atol=1e-12 * np.max(np.abs(first), initial=0.0)):
            raise s.fail("thunked seed", f"a thunked seed changed the cotangent of {s.names[i]}")
    s.report.checks.append("thunked seed")


def _check_zero_seed(s: Setup, pullback: Callable[[Any], Any]) -> None:
    """A whole ``ZeroTangent()`` seed gives zero cotangents (``check_zero_seed=True``)."""
    for i, c in enumerate(_pull(s, pullback, ZeroTangent(), "zero seed")):
        c = unthunk(c)
        if isinstance(c, NotImplementedTangent) or is_zero(c):
            continue
        if np.any(s.vec("zero seed", s.layouts[i], c, f"the cotangent of {s.names[i]}") != 0):
            raise s.fail("zero seed", f"a ZeroTangent() seed gave a non-zero cotangent for {s.names[i]}")
    s.report.checks.append("zero seed")


def _pull(s: Setup, pullback: Callable[[Any], Any], seed: Any, check: str) -> tuple[Any, ...]:
    cotangents = s.call(check, lambda: f"for the seed {short(seed)}, the pullback", pullback, seed)
    if not isinstance(cotangents, tuple) or len(cotangents) != len(s.primals):
        count = len(cotangents) if isinstance(cotangents, tuple) else f"a {type(cotangents).__name__} of"
        raise s.fail(
            "cotangent count",
            f"the pullback returned {count} cotangents; expected {len(s.primals)}: "
            "one for the function itself, then one per argument",
        )
    return cotangents


def _with_zero_entry(y_bar: Any, key: Any) -> Any:
    """``y_bar`` with its entry ``key`` replaced by ``ZeroTangent()``; ``None`` if it has no such entry."""
    if isinstance(y_bar, list):
        return [ZeroTangent() if k == key else e for k, e in enumerate(y_bar)]
    data = backing(y_bar)
    if isinstance(data, tuple):
        return Tangent(primal_type(y_bar), *[ZeroTangent() if k == key else e for k, e in enumerate(data)])
    if key not in data:
        return None
    changed = {**data, key: ZeroTangent()}
    P = primal_type(y_bar)
    return Tangent(P, changed) if issubclass(P, dict) else Tangent(P, **changed)


def _check_partial_seeds(s: Setup, pullback: Callable[[Any], Any], y_bar: Any, jvps: dict[int, FDResult]) -> None:
    """Structured outputs: a seed with ``ZeroTangent()`` for one entry gives the matching cotangents."""
    layout = s.out_layout
    assert isinstance(layout, _Composite)
    if sum(child.size > 0 for _, child in layout.children) < 2:
        return
    offsets = np.cumsum([0] + [child.size for _, child in layout.children])
    full = layout.tangent_to_vec(y_bar)
    for j, (key, child) in enumerate(layout.children):
        seed = _with_zero_entry(y_bar, key) if child.size else None
        if seed is None:
            continue
        masked = full.copy()
        masked[offsets[j] : offsets[j + 1]] = 0
        cotangents = _pull(s, pullback, seed, "zero entry in a tuple seed")
        for i, fd in jvps.items():
            c = unthunk(cotangents[i])
            if isinstance(c, NotImplementedTangent):
                continue
            x_bar = s.vec("zero entry in a tuple seed", s.layouts[i], c, f"the cotangent of {s.names[i]}")
            where = f"{s.names[i]}, with output entry {key!r} seeded by ZeroTangent()"
            check_inner(s, "zero entry in a tuple seed", where, masked, fd, x_bar, s.direction(i))
    s.report.checks.append("zero entry in a tuple seed")


def _check_rrule_against_frule(s: Setup, y_bar_vec: Vector, x_bars: list[Vector | None]) -> None:
    tangents = tuple(s.tangents)
    result = s.call("frule and rrule agree", "the frule", _call_frule, s, tangents)
    if result is None:
        return
    y_dot_vec = s.vec("frule and rrule agree", s.out_layout, result[1], "the frule's output tangent", False)
    lhs = float(y_bar_vec @ y_dot_vec)
    rhs, scale = 0.0, float(np.abs(y_bar_vec) @ np.abs(y_dot_vec))
    for i in s.moving():
        x_bar = x_bars[i]
        if x_bar is None:
            return
        dx = s.direction(i)
        rhs += float(x_bar @ dx)
        scale += float(np.abs(x_bar) @ np.abs(dx))
    check_exact_inner(s, "frule and rrule agree", lhs, rhs, scale, "<y_bar, frule tangent> against the pullback's")
    s.report.checks.append("frule and rrule agree")


# ----- scalars -----


@_with_options
def test_scalar(f: Callable[..., Any], x: Any, **options: Any) -> CheckReport:
    """Check both rules of a scalar function at ``x`` along every basis direction.

    For a real ``x`` the tangent and the seed are 1; for a complex ``x`` the
    tangents 1 and 1j and, for a complex output, the seeds 1 and 1j, so both
    the real and the imaginary parts of the derivative are checked. The
    options are those of ``test_frule``.

    >>> from chainrules_core import scalar_rule
    >>> def square(z):
    ...     return z * z
    >>> scalar_rule(square, lambda out, z: 2 * z)
    >>> test_scalar(square, 0.5 + 1.5j).function.endswith("square")
    True
    """
    y = f(x, **(CheckOptions.parse("test_scalar", options).fkwargs or {}))
    directions = [1.0, 1j] if isinstance(x, complex) or np.iscomplexobj(x) else [1.0]
    seeds = [1.0, 1j] if isinstance(y, complex) or np.iscomplexobj(y) else [1.0]
    report: CheckReport | None = None
    for d in directions:
        dx = _like(x, d)
        r = test_frule(f, PrimalAndTangent(x, dx), **options)
        report = r if report is None else report.merge(r)
        for seed_value in seeds:
            r = test_rrule(f, PrimalAndTangent(x, dx), output_tangent=_like(y, seed_value), **options)
            report = report.merge(r)
    assert report is not None
    return report


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
