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
from collections.abc import Callable
from typing import Any

import numpy as np

from ..config import RuleConfig
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
from .finite_differences import FDResult, FiniteDifferences
from .jacobian import jacobian_check
from .layout import Vector, _Composite
from .tangents import PrimalAndTangent, rand_tangent

__all__ = ["INCONCLUSIVE", "SAFETY", "CheckReport", "test_frule", "test_rrule", "test_scalar"]


def _call_frule(s: Setup, tangents: tuple[Any, ...]) -> Any:
    if s.config is not None:
        return frule(s.config, tangents, s.f, *s.args, **s.kwargs)
    return frule(tangents, s.f, *s.args, **s.kwargs)


def _call_rrule(s: Setup) -> Any:
    if s.config is not None:
        return rrule(s.config, s.f, *s.args, **s.kwargs)
    return rrule(s.f, *s.args, **s.kwargs)


def _watched(s: Setup) -> tuple[list[Any], list[str]]:
    """The values a rule must not modify, and their names: the inputs, ``f``, the keywords, the tangents."""
    tangent_names = [f"the tangent of {name}" for name in s.names]
    return [*s.primals, s.kwargs, *s.tangents], [*s.names, "the keyword arguments", *tangent_names]


# ----- frule -----


_WHOLE_ZERO = False  # interim


def test_frule(
    f: Callable[..., Any],
    *args: Any,
    fkwargs: dict[str, Any] | None = None,
    rtol: float | None = None,
    atol: float | None = None,
    fdm: FiniteDifferences | str | None = None,
    seed: int = 0,
    config: RuleConfig | None = None,
    promote: bool = True,
    jacobian: bool = False,
) -> CheckReport:
    """Check ``frule`` for ``f(*args, **fkwargs)`` against finite differences.

    Arguments are perturbed along random directions scaled to their entries
    (or the tangent given with ``with_tangent``); a callable object ``f`` with
    fields is perturbed too. Checks: the primal equals ``f(*args)``; the
    tangent has the output's type, shape and dtype and matches the finite
    difference entry by entry; ``ZeroTangent()`` tangents give a zero tangent;
    neither the inputs nor ``f`` are modified; where an ``rrule`` exists the
    two agree. ``jacobian=True`` first compares the full Jacobian, entry by
    entry, and lists the entries that differ (O(n) evaluations, for
    diagnosis).

    Finite differences run in double precision (``promote=False`` runs them
    in the inputs' own precision); ``rtol`` defaults by the lowest precision
    among the inputs and the output (``RTOL``); ``fdm`` is a
    ``FiniteDifferences`` or one of ``"central"``, ``"forward"``,
    ``"backward"``; ``seed`` fixes the random directions; ``config`` is passed
    to the rule as an engine's ``RuleConfig``.

    >>> from chainrules_core import scalar_rule
    >>> def cube(x):
    ...     return x**3
    >>> scalar_rule(cube, lambda out, x: 3 * x**2)
    >>> test_frule(cube, np.array([0.5, -2.0])).mode
    'frule'
    """
    s = setup("frule", f, args, fkwargs, rtol, atol, fdm, seed, promote, config)
    watched, watched_names = _watched(s)
    before = snapshot(watched)
    tangents = tuple(s.tangents)
    result = s.call("rule", "the frule", _call_frule, s, tangents)
    if result is None:
        raise s.fail("rule exists", f"no frule for argument types {[type(a).__name__ for a in s.args]}")
    if not (isinstance(result, tuple) and len(result) == 2):
        raise s.fail("protocol", f"frule must return (y, y_dot), got {short(result)}")
    y, y_dot = result
    check_not_mutated(s, before, watched, watched_names)
    check_primal(s, y)
    if jacobian:
        jacobian_check(s, lambda single: _call_frule(s, single)[1], None)
    y_dot = s.call("tangent type", "unthunking the output tangent", unthunk, y_dot)
    check_types(s, "tangent type", s.out_layout, y_dot, "the output tangent", cotangent=False)
    s.report.checks.append("tangent type")

    moving = s.moving()
    y_dot_vec = s.out_layout.tangent_to_vec(y_dot)
    _check_pushforward(s, moving, y_dot_vec)
    s.report.checks.append("pushforward")

    zeros = tuple(ZeroTangent() if i in moving else t for i, t in enumerate(tangents))
    if not _WHOLE_ZERO:
        zeros = tangents
    zero = s.call("zero tangent", "the frule, given ZeroTangent() tangents,", _call_frule, s, zeros)
    if not (isinstance(zero, tuple) and len(zero) == 2):
        raise s.fail("zero tangent", f"given ZeroTangent() tangents, the frule returned {short(zero)}")
    zero_vec = s.vec("zero tangent", s.out_layout, zero[1], "the output tangent for ZeroTangent() inputs", False)
    if _WHOLE_ZERO and np.any(zero_vec != 0):
        raise s.fail("zero tangent", f"ZeroTangent() inputs gave a non-zero tangent {preview(zero_vec)}")
    s.report.checks.append("zero tangent")

    if rrule.find(s.f, *s.args, config=s.config) is not None:
        _check_frule_against_rrule(s, moving, y_dot_vec)
    check_not_mutated(s, before, watched, watched_names)
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
        return
    except AssertionError as joint_failure:
        if len(moving) < 2:
            raise
        failure = joint_failure
    total, error, natural = np.zeros_like(y_dot_vec), 0.0, 0.0
    for i in moving:
        single = tuple(t if j == i or j not in moving else ZeroTangent() for j, t in enumerate(s.tangents))
        result = s.call("pushforward", f"the frule along {s.names[i]} alone", _call_frule, s, single)
        fd = along(s, [i])
        alone = s.vec("pushforward", s.out_layout, result[1], f"the output tangent along {s.names[i]} alone", False)
        check_close(s, "pushforward", f"along {s.names[i]} alone", alone, fd)
        total, error, natural = total + fd.value, error + fd.error, max(natural, fd.natural)
    try:
        summed = FDResult(total, error, 0.0, 0, natural)
        check_close(s, "pushforward", "the output (the sum of each argument's)", y_dot_vec, summed)
    except AssertionError:
        raise failure from None


def _zero_output_hint(s: Setup, y_dot_vec: Vector) -> str:
    if y_dot_vec.size and not np.any(y_dot_vec):
        return "\n  the frule's tangent is zero, but the output changes along the inputs' tangents"
    return ""


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


def test_rrule(
    f: Callable[..., Any],
    *args: Any,
    fkwargs: dict[str, Any] | None = None,
    output_tangent: Any = None,
    rtol: float | None = None,
    atol: float | None = None,
    fdm: FiniteDifferences | str | None = None,
    seed: int = 0,
    config: RuleConfig | None = None,
    promote: bool = True,
    jacobian: bool = False,
) -> CheckReport:
    """Check ``rrule`` for ``f(*args, **fkwargs)`` against finite differences.

    Checks: the primal equals ``f(*args)``; the pullback returns one cotangent
    per argument plus one for ``f``; ``NoTangent()`` (not ``ZeroTangent()``)
    for non-differentiable arguments (ints, bools, strings, those marked with
    ``no_tangent``); each cotangent has its input's type, shape and dtype;
    ``<y_bar, J dx_i> == <x_bar_i, dx_i>`` for every argument ``i`` with
    ``J dx_i`` from finite differences, for a random seed and for the seed
    ``J dx_i`` itself; a thunked seed gives the same result; a
    ``ZeroTangent()`` seed, and tuple seeds with ``ZeroTangent()`` entries, are
    accepted; in-place thunks agree with their value; neither the inputs, nor
    ``f``, nor the seed are modified; where an ``frule`` exists the two agree.

    ``output_tangent`` replaces the random seed (and the seed ``J dx_i``): pass
    one where only some seeds are valid, such as a gauge-invariant seed for
    eigenvectors. The other options are those of ``test_frule``.

    >>> from chainrules_core import scalar_rule
    >>> def scaled_sin(x, a):
    ...     return a * np.sin(x)
    >>> scalar_rule(scaled_sin, lambda out, x, a: (a * np.cos(x), np.sin(x)))
    >>> test_rrule(scaled_sin, np.array([0.1, 0.2], dtype=np.float32), 2.0).checks[:2]
    ['cotangent count', 'cotangent types']
    """
    s = setup("rrule", f, args, fkwargs, rtol, atol, fdm, seed, promote, config)
    watched, watched_names = _watched(s)
    before = snapshot(watched)
    result = s.call("rule", "the rrule", _call_rrule, s)
    if result is None:
        raise s.fail("rule exists", f"no rrule for argument types {[type(a).__name__ for a in s.args]}")
    if not (isinstance(result, tuple) and len(result) == 2 and callable(result[1])):
        raise s.fail("protocol", f"rrule must return (y, pullback), got {short(result)}")
    y, pullback = result
    check_primal(s, y)
    given_seed = output_tangent is not None
    if given_seed:
        problems = s.out_layout.problems(unthunk(output_tangent), "output_tangent", cotangent=False)
        if problems:
            raise ValueError(f"test_rrule({s.report.function}): " + "; ".join(problems))
    y_bar = output_tangent if given_seed else rand_tangent(s.y_ref, s.rng)
    y_bar_before = snapshot([y_bar])
    y_bar_vec = s.out_layout.tangent_to_vec(unthunk(y_bar))

    raw = _pull(s, pullback, y_bar, "pullback")
    s.report.checks.append("cotangent count")
    _check_unmodified(s, before, watched, watched_names, y_bar_before[0], y_bar)
    cotangents = [_checked_cotangent(s, i, c) for i, c in enumerate(raw)]
    x_bars = [None if c is None else s.layouts[i].tangent_to_vec(c) for i, c in enumerate(cotangents)]
    s.report.checks.append("cotangent types")
    if jacobian:
        jacobian_check(s, None, pullback)

    jvps: dict[int, FDResult] = {}
    for i in s.moving():
        if x_bars[i] is None:
            continue
        jvps[i] = along(s, [i])
        hint = zero_hint(cotangents[i], s.names[i])
        check_inner(s, "pullback", s.names[i], y_bar_vec, jvps[i], x_bars[i], s.direction(i), hint)  # type: ignore[arg-type]
        if not given_seed:
            _check_coherent_seed(s, pullback, i, jvps[i])
    s.report.checks.append("pullback")

    thunked = _pull(s, pullback, Thunk(lambda: copy.deepcopy(y_bar)), "thunked seed")
    for i, c in enumerate(thunked):
        c = unthunk(c)
        if x_bars[i] is not None and not isinstance(c, NotImplementedTangent):
            again, first = s.vec("thunked seed", s.layouts[i], c, f"the cotangent of {s.names[i]}"), x_bars[i]
            assert first is not None
            if not np.allclose(again, first, rtol=1e-12, atol=1e-12 * np.max(np.abs(first), initial=0.0)):
                raise s.fail("thunked seed", f"a thunked seed changed the cotangent of {s.names[i]}")
    s.report.checks.append("thunked seed")

    zero_seeded = _pull(s, pullback, ZeroTangent(), "zero seed") if _WHOLE_ZERO else ()
    for i, c in enumerate(zero_seeded):
        c = unthunk(c)
        if isinstance(c, NotImplementedTangent) or is_zero(c):
            continue
        if np.any(s.vec("zero seed", s.layouts[i], c, f"the cotangent of {s.names[i]}") != 0):
            raise s.fail("zero seed", f"a ZeroTangent() seed gave a non-zero cotangent for {s.names[i]}")
    s.report.checks.append("zero seed")

    if isinstance(s.out_layout, _Composite) and isinstance(y_bar, (Tangent, list)):
        _check_partial_seeds(s, pullback, y_bar, jvps)

    if frule.find(s.f, *s.args, config=s.config) is not None:
        _check_rrule_against_frule(s, y_bar_vec, x_bars)
    _check_unmodified(s, before, watched, watched_names, y_bar_before[0], y_bar)
    s.report.checks.append("inputs not mutated")
    return s.report


def _check_unmodified(
    s: Setup, before: list[Any], watched: list[Any], names: list[str], y_bar_before: Any, y_bar: Any
) -> None:
    check_not_mutated(s, before, watched, names)
    if y_bar_before is not None and not same(y_bar_before, y_bar):
        raise s.fail("mutation", "the pullback modified its seed y_bar in place")


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


def test_scalar(
    f: Callable[..., Any],
    x: Any,
    *,
    fkwargs: dict[str, Any] | None = None,
    rtol: float | None = None,
    atol: float | None = None,
    fdm: FiniteDifferences | str | None = None,
    seed: int = 0,
) -> CheckReport:
    """Check both rules of a scalar function at ``x`` along every basis direction.

    For a real ``x`` the tangent and the seed are 1; for a complex ``x`` the
    tangents 1 and 1j and, for a complex output, the seeds 1 and 1j, so both
    the real and the imaginary parts of the derivative are checked.

    >>> from chainrules_core import scalar_rule
    >>> def square(z):
    ...     return z * z
    >>> scalar_rule(square, lambda out, z: 2 * z)
    >>> test_scalar(square, 0.5 + 1.5j).function.endswith("square")
    True
    """
    y = f(x, **(fkwargs or {}))
    directions = [1.0, 1j] if isinstance(x, complex) or np.iscomplexobj(x) else [1.0]
    seeds = [1.0, 1j] if isinstance(y, complex) or np.iscomplexobj(y) else [1.0]
    options = {"fkwargs": fkwargs, "rtol": rtol, "atol": atol, "fdm": fdm, "seed": seed}
    report: CheckReport | None = None
    for d in directions:
        dx = _like(x, d)
        r = test_frule(f, PrimalAndTangent(x, dx), **options)  # type: ignore[arg-type]
        report = r if report is None else report.merge(r)
        for seed_value in seeds:
            r = test_rrule(f, PrimalAndTangent(x, dx), output_tangent=_like(y, seed_value), **options)  # type: ignore[arg-type]
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
