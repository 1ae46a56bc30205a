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
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..config import RuleConfig
from ..rules import frule, rrule
from ..tangent_types import (
    AbstractZero,
    InplaceableThunk,
    NoTangent,
    NotImplementedTangent,
    Tangent,
    Thunk,
    ZeroTangent,
    backing,
    unthunk,
)
from .finite_differences import FDResult, FiniteDifferences
from .layout import Layout, Vector, _Sequence, layout_of
from .tangents import PrimalAndTangent, rand_tangent, relative_tangent
from .tolerances import PRIMAL_RTOL, RTOL, lowest_precision

SAFETY = 10.0
"""How many times the estimated finite-difference error a difference may be."""

INCONCLUSIVE = 1e-2
"""A finite difference whose estimated error exceeds this fraction of the terms decides nothing."""


@dataclass
class CheckReport:
    """What a check did: how many times it evaluated the function and its worst relative error."""

    function: str
    mode: str
    evaluations: int = 0
    max_relative_error: float = 0.0
    checks: list[str] = field(default_factory=list)

    def merge(self, other: CheckReport) -> CheckReport:
        return CheckReport(
            self.function,
            f"{self.mode}+{other.mode}" if other.mode not in self.mode else self.mode,
            self.evaluations + other.evaluations,
            max(self.max_relative_error, other.max_relative_error),
            self.checks + other.checks,
        )


@dataclass
class _Setup:
    """The parsed inputs of one check: primals, tangents, layouts, options."""

    f: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    tangents: list[Any]  # index 0 is f's own tangent
    layouts: list[Layout]
    names: list[str]
    rtol: float
    atol: float
    fdm: FiniteDifferences
    promote: bool
    seed: int
    rng: np.random.Generator
    report: CheckReport

    @property
    def primals(self) -> list[Any]:
        return [self.f, *self.args]

    def fail(self, check: str, message: str) -> AssertionError:
        return AssertionError(f"[{check}] {self.report.function}: {message} (seed={self.seed})")

    def differentiable(self, i: int) -> bool:
        return self.layouts[i].differentiable and not isinstance(self.tangents[i], NoTangent)


def _describe(f: Any) -> str:
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None)
    if name is None:
        name = type(f).__qualname__ + " object"
    module = getattr(f, "__module__", None) or getattr(type(f), "__module__", "")
    return f"{module}.{name}" if module and module not in ("builtins", "__main__") else str(name)


def _argument_names(f: Any, n: int) -> list[str]:
    names = [f"argument {i}" for i in range(1, n + 1)]
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        return names
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for i in range(min(n, len(positional))):
        names[i] = f"argument {i + 1} ({positional[i].name})"
    return names


def _has_fields(f: Any) -> bool:
    return layout_of(f).differentiable


def _setup(
    mode: str,
    f: Any,
    args: tuple[Any, ...],
    fkwargs: dict[str, Any] | None,
    rtol: float | None,
    atol: float | None,
    fdm: FiniteDifferences | str | None,
    seed: int,
    promote: bool,
) -> _Setup:
    rng = np.random.default_rng(seed)
    primals, tangents = [], []
    for x in (f, *args):
        if isinstance(x, PrimalAndTangent):
            primals.append(x.primal)
            tangents.append(x.tangent)
        else:
            primals.append(x)
            tangents.append(None)
    for i, x in enumerate(primals):
        if tangents[i] is None:
            tangents[i] = relative_tangent(x, rng)
    f, *rest = primals
    if not callable(f):
        raise TypeError(f"test_{mode}: the function must be callable, got {f!r}")
    if isinstance(fdm, str):
        fdm = FiniteDifferences(fdm)  # type: ignore[arg-type]
    kwargs = dict(fkwargs or {})
    report = CheckReport(_describe(f), mode)
    return _Setup(
        f=f,
        args=tuple(rest),
        kwargs=kwargs,
        tangents=tangents,
        layouts=[layout_of(x) for x in primals],
        names=["the function itself", *_argument_names(f, len(rest))],
        rtol=rtol if rtol is not None else RTOL[lowest_precision(*primals, f(*rest, **kwargs))],
        atol=atol or 0.0,
        fdm=fdm or FiniteDifferences(),
        promote=promote,
        seed=seed,
        rng=rng,
        report=report,
    )


# ----- finite differences -----


def _directional_fd(s: _Setup, moving: list[int], out_layout: Layout) -> FDResult:
    """The finite difference of ``f`` along the tangents of the inputs in ``moving``."""
    base = [layout.to_vec(x) for layout, x in zip(s.layouts, s.primals)]
    steps = [s.layouts[i].tangent_to_vec(unthunk(s.tangents[i])) if i in moving else None for i in range(len(base))]

    def phi(t: float) -> Vector:
        values = [
            layout.from_vec(b if d is None else b + t * d, s.promote) for layout, b, d in zip(s.layouts, base, steps)
        ]
        g, *xs = values
        return out_layout.to_vec(g(*xs, **s.kwargs))

    try:
        result = s.fdm.derivative(phi)
    except FloatingPointError as err:
        raise s.fail("finite differences", f"{err}; check that the inputs are inside the domain") from None
    s.report.evaluations += result.evaluations
    return result


def _noise(y_vec: Vector, step: float) -> float:
    """The round-off floor of a finite difference of values of size ``y`` at step ``step``."""
    return 64 * np.finfo(np.float64).eps * (float(np.max(np.abs(y_vec))) if y_vec.size else 0.0) / step


# ----- comparisons -----


def _check_close(s: _Setup, check: str, where: str, got: Vector, fd: FDResult, y_vec: Vector) -> None:
    """``got`` against a finite difference, entry by entry."""
    expected = fd.value
    diff = float(np.max(np.abs(got - expected))) if got.size else 0.0
    scale = max(float(np.max(np.abs(expected))) if got.size else 0.0, float(np.max(np.abs(got))) if got.size else 0.0)
    noise = _noise(y_vec, fd.step)
    if not np.all(np.isfinite(got)):
        raise s.fail(check, f"{where}: the tangent is not finite: {_preview(got)}")
    if fd.error > INCONCLUSIVE * scale + noise:
        raise s.fail(check, _inconclusive(where, fd.error, scale))
    tol = s.atol + s.rtol * scale + SAFETY * fd.error + noise
    s.report.max_relative_error = max(s.report.max_relative_error, diff / scale if scale else 0.0)
    if diff > tol:
        worst = int(np.argmax(np.abs(got - expected)))
        raise s.fail(
            check,
            f"{where}: the tangent differs from finite differences by {diff:.3g} (tolerance {tol:.3g}); "
            f"worst at entry {worst}: rule {got[worst]:.10g}, finite differences {expected[worst]:.10g}\n"
            f"  rule:                {_preview(got)}\n  finite differences:  {_preview(expected)}",
        )


def _check_inner(
    s: _Setup,
    check: str,
    where: str,
    y_bar: Vector,
    fd: FDResult,
    x_bar: Vector,
    dx: Vector,
    y_vec: Vector,
) -> None:
    """The identity ``<y_bar, J dx> == <x_bar, dx>`` with ``J dx`` from finite differences."""
    lhs = float(y_bar @ fd.value)
    rhs = float(x_bar @ dx)
    if not np.all(np.isfinite(x_bar)):
        raise s.fail(check, f"{where}: the cotangent is not finite: {_preview(x_bar)}")
    scale = float(np.abs(y_bar) @ np.abs(fd.value) + np.abs(x_bar) @ np.abs(dx))
    mass = float(np.sum(np.abs(y_bar)))
    noise = mass * _noise(y_vec, fd.step)
    fd_error = mass * fd.error
    if fd_error > INCONCLUSIVE * float(np.abs(y_bar) @ np.abs(fd.value)) + noise:
        raise s.fail(check, _inconclusive(where, fd.error, float(np.max(np.abs(fd.value)))))
    tol = s.atol + s.rtol * scale + SAFETY * fd_error + noise
    s.report.max_relative_error = max(s.report.max_relative_error, abs(lhs - rhs) / scale if scale else 0.0)
    if abs(lhs - rhs) > tol:
        raise s.fail(
            check,
            f"{where}: <y_bar, J dx> = {lhs:.10g} by finite differences but <x_bar, dx> = {rhs:.10g} "
            f"from the pullback; difference {abs(lhs - rhs):.3g}, tolerance {tol:.3g}\n"
            f"  cotangent:  {_preview(x_bar)}\n  direction:  {_preview(dx)}",
        )


def _inconclusive(where: str, error: float, scale: float) -> str:
    return (
        f"{where}: finite differences did not settle (estimated error {error:.3g} against values of "
        f"size {scale:.3g}); the function may be non-smooth here or badly scaled: give an explicit "
        f"tangent with with_tangent, a one-sided fdm ('forward' or 'backward'), or move the input"
    )


def _preview(v: Vector, n: int = 6) -> str:
    head = ", ".join(f"{x:.6g}" for x in v[:n])
    return f"[{head}{', ...' if v.size > n else ''}] ({v.size} entries)"


def _check_types(s: _Setup, check: str, layout: Layout, t: Any, where: str) -> None:
    problems = layout.problems(t, where)
    if problems:
        raise s.fail(check, "; ".join(problems))


def _check_primal(s: _Setup, y: Any, y_ref: Any) -> Layout:
    layout = layout_of(y_ref)
    if type(y) is not type(y_ref) and not (isinstance(y, float) and isinstance(y_ref, float)):
        raise s.fail("primal", f"the rule returned a {type(y).__name__} but the function a {type(y_ref).__name__}")
    for attr in ("shape", "dtype"):
        if hasattr(y_ref, attr) and getattr(y, attr, None) != getattr(y_ref, attr):
            raise s.fail("primal", f"{attr} {getattr(y, attr, None)} from the rule, {getattr(y_ref, attr)} from f")
    got, want = layout.to_vec(y), layout.to_vec(y_ref)
    rtol = PRIMAL_RTOL[lowest_precision(y_ref)]
    if got.shape != want.shape or not np.allclose(got, want, rtol=rtol, atol=rtol * _max(want), equal_nan=True):
        raise s.fail("primal", f"the rule's primal {_preview(got)} differs from f's {_preview(want)}")
    return layout


def _max(v: Vector) -> float:
    finite = v[np.isfinite(v)]
    return float(np.max(np.abs(finite))) if finite.size else 0.0


def _snapshot(values: Any) -> Any:
    return copy.deepcopy(values)


def _check_not_mutated(s: _Setup, before: Any, after: Any, what: str) -> None:
    for i, (b, a) in enumerate(zip(before, after)):
        if not _same(b, a):
            name = what if len(before) == 1 else s.names[i]
            raise s.fail("mutation", f"the rule modified {name} in place")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
        )
    layout = layout_of(a)
    if layout.differentiable:
        try:
            return bool(np.array_equal(layout.to_vec(a), layout_of(b).to_vec(b), equal_nan=True))
        except (ValueError, TypeError):
            return False
    return True


def _unthunk_checked(s: _Setup, check: str, t: Any, primal: Any, where: str) -> Any:
    """Force a returned thunk, checking that an in-place thunk adds what it holds."""
    if isinstance(t, InplaceableThunk) and isinstance(primal, np.ndarray) and primal.dtype.kind in "fc":
        acc = np.asarray(s.rng.standard_normal(primal.shape)).astype(primal.dtype)
        expected = acc + unthunk(t)
        got = t.add(acc.copy())
        if not np.allclose(got, expected, rtol=1e-6, atol=1e-12):
            raise s.fail(check, f"{where}: the in-place add of an InplaceableThunk disagrees with its value")
    return unthunk(t)


# ----- frule -----


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
    the inputs are not modified; where an ``rrule`` exists the two agree.
    ``jacobian=True`` adds a full-Jacobian comparison that lists the entries
    that differ (O(n) evaluations, for diagnosis).

    >>> from chainrules_core import scalar_rule
    >>> def cube(x):
    ...     return x**3
    >>> scalar_rule(cube, lambda out, x: 3 * x**2)
    >>> test_frule(cube, np.array([0.5, -2.0])).mode
    'frule'
    """
    s = _setup("frule", f, args, fkwargs, rtol, atol, fdm, seed, promote)
    before = _snapshot((*s.primals[1:], s.kwargs))
    y_ref = s.f(*s.args, **s.kwargs)
    tangents = tuple(s.tangents)

    def call(t: tuple[Any, ...]) -> Any:
        if config is not None:
            return frule(config, t, s.f, *s.args, **s.kwargs)
        return frule(t, s.f, *s.args, **s.kwargs)

    result = call(tangents)
    if result is None:
        raise s.fail("rule exists", f"no frule for argument types {[type(a).__name__ for a in s.args]}")
    if not (isinstance(result, tuple) and len(result) == 2):
        raise s.fail("protocol", f"frule must return (y, y_dot), got {_short(result)}")
    y, y_dot = result
    out_layout = _check_primal(s, y, y_ref)
    y_dot = unthunk(y_dot)
    _check_types(s, "tangent type", out_layout, y_dot, "the output tangent")
    y_vec = out_layout.to_vec(y_ref)
    moving = [i for i in range(len(s.primals)) if s.differentiable(i)]
    fd = _directional_fd(s, moving, out_layout)
    try:
        _check_close(s, "pushforward", "the output", out_layout.tangent_to_vec(y_dot), fd, y_vec)
    except AssertionError:
        _blame_frule(s, call, out_layout, y_vec, moving)
        raise
    s.report.checks.append("pushforward")

    zero = call(tuple(ZeroTangent() if i in moving else t for i, t in enumerate(tangents)))
    zero_vec = out_layout.tangent_to_vec(unthunk(zero[1]))
    if np.any(zero_vec != 0):
        raise s.fail("zero tangent", f"ZeroTangent() inputs gave a non-zero tangent {_preview(zero_vec)}")
    s.report.checks.append("zero tangent")

    if rrule.find(s.f, *s.args) is not None:
        _check_agreement(s, out_layout, y_vec, out_layout.tangent_to_vec(y_dot))
    _check_not_mutated(s, before, (*s.primals[1:], s.kwargs), "the inputs")
    if jacobian:
        _jacobian_check(s, "frule", out_layout)
    return s.report


def _blame_frule(
    s: _Setup, call: Callable[[tuple[Any, ...]], Any], out_layout: Layout, y_vec: Vector, moving: list[int]
) -> None:
    """After a joint failure, find the argument whose tangent is mishandled."""
    for i in moving:
        single = tuple(t if j == i or j not in moving else ZeroTangent() for j, t in enumerate(s.tangents))
        y_dot = unthunk(call(single)[1])
        fd = _directional_fd(s, [i], out_layout)
        _check_close(s, "pushforward", f"along {s.names[i]} alone", out_layout.tangent_to_vec(y_dot), fd, y_vec)


def _check_agreement(s: _Setup, out_layout: Layout, y_vec: Vector, y_dot_vec: Vector) -> None:
    """frule and rrule agree: ``<y_bar, frule(dx)> == sum_i <pullback(y_bar)_i, dx_i>``."""
    _, pullback = rrule(s.f, *s.args, **s.kwargs)
    y_bar = out_layout.vec_to_tangent(s.rng.standard_normal(out_layout.size))
    cotangents = pullback(y_bar)
    if not isinstance(cotangents, tuple) or len(cotangents) != len(s.primals):
        return  # test_rrule reports this
    lhs = float(out_layout.tangent_to_vec(y_bar) @ y_dot_vec)
    rhs, scale = 0.0, abs(lhs)
    for i, (layout, t, c) in enumerate(zip(s.layouts, s.tangents, cotangents)):
        if not s.differentiable(i):
            continue
        term = layout.tangent_to_vec(unthunk(c)) * layout.tangent_to_vec(unthunk(t))
        rhs += float(np.sum(term))
        scale += float(np.sum(np.abs(term)))
    if abs(lhs - rhs) > s.atol + 10 * s.rtol * scale:
        raise s.fail(
            "frule and rrule agree",
            f"<y_bar, frule tangent> = {lhs:.10g} but the pullback gives {rhs:.10g}",
        )
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
    ``J dx_i`` from finite differences; a thunked seed gives the same result;
    a ``ZeroTangent()`` seed, and tuple seeds with ``ZeroTangent()`` entries,
    are accepted; in-place thunks agree with their value; neither the inputs
    nor the seed are modified; where an ``frule`` exists the two agree.

    >>> from chainrules_core import scalar_rule
    >>> def scaled_sin(x, a):
    ...     return a * np.sin(x)
    >>> scalar_rule(scaled_sin, lambda out, x, a: (a * np.cos(x), np.sin(x)))
    >>> test_rrule(scaled_sin, np.array([0.1, 0.2], dtype=np.float32), 2.0).checks[:2]
    ['cotangent count', 'cotangent types']
    """
    s = _setup("rrule", f, args, fkwargs, rtol, atol, fdm, seed, promote)
    before = _snapshot((*s.primals[1:], s.kwargs))
    y_ref = s.f(*s.args, **s.kwargs)
    result = rrule(config, s.f, *s.args, **s.kwargs) if config else rrule(s.f, *s.args, **s.kwargs)
    if result is None:
        raise s.fail("rule exists", f"no rrule for argument types {[type(a).__name__ for a in s.args]}")
    if not (isinstance(result, tuple) and len(result) == 2 and callable(result[1])):
        raise s.fail("protocol", f"rrule must return (y, pullback), got {_short(result)}")
    y, pullback = result
    out_layout = _check_primal(s, y, y_ref)
    y_vec = out_layout.to_vec(y_ref)
    y_bar = output_tangent if output_tangent is not None else rand_tangent(y_ref, s.rng)
    y_bar_before = _snapshot(y_bar)
    y_bar_vec = out_layout.tangent_to_vec(unthunk(y_bar))

    cotangents = _pull(s, pullback, y_bar, "cotangent count")
    s.report.checks.append("cotangent count")
    x_bars: list[Vector | None] = []
    for i, (layout, c) in enumerate(zip(s.layouts, cotangents)):
        c = _unthunk_checked(s, "thunked cotangent", c, s.primals[i], f"the cotangent of {s.names[i]}")
        if isinstance(c, NotImplementedTangent):
            x_bars.append(None)
            continue
        if isinstance(s.tangents[i], NoTangent) or not layout.differentiable:
            if not isinstance(c, NoTangent):
                raise s.fail(
                    "non-differentiable argument",
                    f"{s.names[i]} is not differentiable, so its cotangent must be NoTangent(), got {_short(c)}",
                )
        _check_types(s, "cotangent types", layout, c, f"the cotangent of {s.names[i]}")
        x_bars.append(layout.tangent_to_vec(c))
    s.report.checks.append("cotangent types")

    jvps: dict[int, FDResult] = {}
    for i in range(len(s.primals)):
        if not s.differentiable(i) or x_bars[i] is None:
            continue
        jvps[i] = _directional_fd(s, [i], out_layout)
        dx = s.layouts[i].tangent_to_vec(unthunk(s.tangents[i]))
        _check_inner(s, "pullback", s.names[i], y_bar_vec, jvps[i], x_bars[i], dx, y_vec)  # type: ignore[arg-type]
    s.report.checks.append("pullback")

    thunked = _pull(s, pullback, Thunk(lambda: copy.deepcopy(y_bar)), "thunked seed")
    for i, (layout, c) in enumerate(zip(s.layouts, thunked)):
        c = unthunk(c)
        if x_bars[i] is not None and not isinstance(c, NotImplementedTangent):
            again = layout.tangent_to_vec(c)
            if not np.allclose(again, x_bars[i], rtol=1e-12, atol=0, equal_nan=True):  # type: ignore[arg-type]
                raise s.fail("thunked seed", f"a thunked seed changed the cotangent of {s.names[i]}")
    s.report.checks.append("thunked seed")

    for i, c in enumerate(_pull(s, pullback, ZeroTangent(), "zero seed")):
        c = unthunk(c)
        if isinstance(c, NotImplementedTangent):
            continue
        vec = s.layouts[i].tangent_to_vec(c) if not isinstance(c, AbstractZero) else np.zeros(0)
        if np.any(vec != 0):
            raise s.fail("zero seed", f"a ZeroTangent() seed gave a non-zero cotangent for {s.names[i]}")
    s.report.checks.append("zero seed")

    if isinstance(out_layout, _Sequence) and len(out_layout.children) > 1:
        _check_partial_seeds(s, pullback, out_layout, y_bar, jvps, y_vec)

    if frule.find(s.f, *s.args) is not None:
        _check_rrule_against_frule(s, out_layout, y_bar_vec, x_bars)
    _check_not_mutated(s, before, (*s.primals[1:], s.kwargs), "the inputs")
    if not _same(y_bar_before, y_bar):
        raise s.fail("mutation", "the pullback modified its seed y_bar in place")
    if jacobian:
        _jacobian_check(s, "rrule", out_layout)
    return s.report


def _pull(s: _Setup, pullback: Callable[[Any], Any], seed: Any, check: str) -> tuple[Any, ...]:
    try:
        cotangents = pullback(seed)
    except Exception as err:
        if check == "cotangent count":
            raise
        raise s.fail(check, f"the pullback raised {type(err).__name__} for a seed {_short(seed)}: {err}") from err
    if not isinstance(cotangents, tuple) or len(cotangents) != len(s.primals):
        count = len(cotangents) if isinstance(cotangents, tuple) else f"a {type(cotangents).__name__} of"
        raise s.fail(
            check,
            f"the pullback returned {count} cotangents; expected {len(s.primals)}: "
            "one for the function itself, then one per argument",
        )
    return cotangents


def _check_partial_seeds(
    s: _Setup,
    pullback: Callable[[Any], Any],
    out_layout: _Sequence,
    y_bar: Any,
    jvps: dict[int, FDResult],
    y_vec: Vector,
) -> None:
    """Tuple outputs: a seed with ``ZeroTangent()`` for one entry gives the matching cotangents."""
    entries = list(backing(y_bar)) if isinstance(y_bar, Tangent) else list(y_bar)
    offsets = np.cumsum([0] + [layout.size for _, layout in out_layout.children])
    full = out_layout.tangent_to_vec(y_bar)
    for j in range(len(entries)):
        if out_layout.children[j][1].size == 0:
            continue
        seed = Tangent(tuple, *[ZeroTangent() if k == j else e for k, e in enumerate(entries)])
        masked = full.copy()
        masked[offsets[j] : offsets[j + 1]] = 0
        cotangents = _pull(s, pullback, seed, "zero entry in a tuple seed")
        for i, fd in jvps.items():
            c = unthunk(cotangents[i])
            dx = s.layouts[i].tangent_to_vec(unthunk(s.tangents[i]))
            where = f"{s.names[i]}, with output {j} seeded by ZeroTangent()"
            _check_inner(s, "zero entry in a tuple seed", where, masked, fd, s.layouts[i].tangent_to_vec(c), dx, y_vec)
    s.report.checks.append("zero entry in a tuple seed")


def _check_rrule_against_frule(s: _Setup, out_layout: Layout, y_bar_vec: Vector, x_bars: list[Vector | None]) -> None:
    result = frule(tuple(s.tangents), s.f, *s.args, **s.kwargs)
    if result is None:
        return
    y_dot_vec = out_layout.tangent_to_vec(unthunk(result[1]))
    lhs = float(y_bar_vec @ y_dot_vec)
    rhs, scale = 0.0, float(np.abs(y_bar_vec) @ np.abs(y_dot_vec))
    for i, x_bar in enumerate(x_bars):
        if x_bar is None or not s.differentiable(i):
            continue
        dx = s.layouts[i].tangent_to_vec(unthunk(s.tangents[i]))
        rhs += float(x_bar @ dx)
        scale += float(np.abs(x_bar) @ np.abs(dx))
    if abs(lhs - rhs) > s.atol + 10 * s.rtol * scale:
        raise s.fail(
            "frule and rrule agree",
            f"<y_bar, frule tangent> = {lhs:.10g} but sum_i <x_bar_i, dx_i> = {rhs:.10g} from the pullback",
        )
    s.report.checks.append("frule and rrule agree")


# ----- full Jacobian, for diagnosis -----


def _jacobian_check(s: _Setup, mode: str, out_layout: Layout) -> None:
    """Compare every entry of the rule's Jacobian with finite differences; list those that differ."""
    rows = out_layout.size
    differing: list[str] = []
    for i in range(len(s.primals)):
        if not s.differentiable(i):
            continue
        layout = s.layouts[i]
        fd_columns, rule_columns = [], []
        magnitudes = layout.magnitudes()
        for k in range(layout.size):
            e = np.zeros(layout.size)
            e[k] = magnitudes[k]
            saved = s.tangents[i]
            s.tangents[i] = layout.vec_to_tangent(e)
            fd_columns.append(_directional_fd(s, [i], out_layout).value / magnitudes[k])
            if mode == "frule":
                tangents = tuple(
                    s.tangents[j] if j == i else ZeroTangent() if s.differentiable(j) else s.tangents[j]
                    for j in range(len(s.primals))
                )
                y_dot = unthunk(frule(tangents, s.f, *s.args, **s.kwargs)[1])
                rule_columns.append(out_layout.tangent_to_vec(y_dot) / magnitudes[k])
            s.tangents[i] = saved
        fd_jac = np.array(fd_columns).T.reshape(rows, layout.size)
        if mode == "rrule":
            _, pullback = rrule(s.f, *s.args, **s.kwargs)
            rule_rows = []
            for j in range(rows):
                e = np.zeros(rows)
                e[j] = 1.0
                c = unthunk(pullback(out_layout.vec_to_tangent(e))[i])
                rule_rows.append(layout.tangent_to_vec(c))
            rule_jac = np.array(rule_rows).reshape(rows, layout.size)
        else:
            rule_jac = np.array(rule_columns).T.reshape(rows, layout.size)
        scale = max(float(np.max(np.abs(fd_jac))) if fd_jac.size else 0.0, 1e-300)
        bad = np.argwhere(np.abs(rule_jac - fd_jac) > 10 * s.rtol * scale + 1e-7 * scale)
        for j, k in bad[:10]:
            differing.append(
                f"  {s.names[i]}: d(output entry {j})/d(input entry {k}): rule {rule_jac[j, k]:.8g}, "
                f"finite differences {fd_jac[j, k]:.8g}"
            )
    s.report.checks.append("full Jacobian")
    if differing:
        raise s.fail("full Jacobian", "entries that differ:\n" + "\n".join(differing))


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
    report: CheckReport | None = None
    for d in directions:
        dx = _like(x, d)
        r = test_frule(f, PrimalAndTangent(x, dx), fkwargs=fkwargs, rtol=rtol, atol=atol, fdm=fdm, seed=seed)
        report = r if report is None else report.merge(r)
        for seed_value in seeds:
            r = test_rrule(
                f,
                PrimalAndTangent(x, dx),
                fkwargs=fkwargs,
                output_tangent=_like(y, seed_value),
                rtol=rtol,
                atol=atol,
                fdm=fdm,
                seed=seed,
            )
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


def _short(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 80 else text[:77] + "..."


# Named after ChainRulesTestUtils' functions; pytest must not collect them where they are imported.
test_frule.__test__ = False  # type: ignore[attr-defined]
test_rrule.__test__ = False  # type: ignore[attr-defined]
test_scalar.__test__ = False  # type: ignore[attr-defined]
