"""The parts every check shares: parsed inputs, finite differences along them, comparisons, messages.

A comparison of a rule with a finite difference has three outcomes. The
values agree within ``rtol``: pass. They differ by more than that plus ``SAFETY`` times the estimated
finite-difference error: a mismatch, the rule is wrong. In between, the
verdict rests on the finite-difference error allowance: it passes when that
allowance is below ``INCONCLUSIVE`` of the terms compared, so that any rule
wrong by more than that is still caught, and is reported as inconclusive
otherwise, never silently passed.
"""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from ..config import RuleConfig
from ..keywords import keywords_as_positional
from ..naming import function_name, plural
from ..tangent_types import (
    NoTangent,
    ZeroTangent,
    unthunk,
)
from .finite_differences import RESOLUTION, FDResult, FiniteDifferences
from .layout import Layout, Vector, dot, layout_of
from .tangents import PrimalAndTangent, given_tangent, relative_tangent
from .tolerances import RTOL, lowest_precision

SAFETY = 10.0
"""How many times the estimated finite-difference error a difference may be."""

INCONCLUSIVE = 1e-3
"""The largest finite-difference error allowance, relative to the terms compared, a check may pass on."""


def without_harness(err: BaseException) -> BaseException:
    """``err`` with the leading frames of this package dropped from its traceback (keeping the innermost).

    The frames from the harness down to the rule or function that raised
    say nothing to the reader; the traceback then starts in their code.
    """
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None and _is_own(tb.tb_frame.f_globals.get("__name__", "")):
        tb = tb.tb_next
    return err.with_traceback(tb)


def _is_own(module: str) -> bool:
    return module == "chainrules_core" or module.startswith("chainrules_core.")


@dataclass
class CheckReport:
    """What a check did: its evaluations of the function, its worst relative error, the checks it made.

    A failure carries the report as it stood (``failure.report``): the evaluations so far, and the relative
    error of the comparison that failed. ``notes`` holds what the check found of another rule than its own:
    an rrule that finite differences prove wrong while ``test_frule`` passes, say; ``test_rrule`` reports it.
    """

    function: str
    mode: str
    evaluations: int = 0
    max_relative_error: float = 0.0
    checks: list[str] = field(default_factory=list)
    seed: int = 0
    notes: list[str] = field(default_factory=list)

    def merge(self, other: CheckReport) -> CheckReport:
        return CheckReport(
            self.function,
            f"{self.mode}+{other.mode}" if other.mode not in self.mode else self.mode,
            self.evaluations + other.evaluations,
            max(self.max_relative_error, other.max_relative_error),
            self.checks + [c for c in other.checks if c not in self.checks],
            self.seed,
            self.notes + [n for n in other.notes if n not in self.notes],
        )


@dataclass
class Setup:
    """The parsed inputs of one check: primals, tangents, layouts, the reference output, options."""

    mode: str
    f: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    tangents: list[Any]  # index 0 is f's own tangent
    layouts: list[Layout]
    names: list[str]
    y_ref: Any
    out_layout: Layout
    rtol: float
    atol: float
    fdm: FiniteDifferences
    promote: bool
    eps: float
    seed: int
    rng: np.random.Generator
    config: RuleConfig | None
    report: CheckReport
    base: list[Vector] = field(default_factory=list)
    few: bool = False
    """``evaluations="few"``: one finite difference along every argument at once, at one step."""

    @property
    def primals(self) -> list[Any]:
        return [self.f, *self.args]

    def fail(self, check: str, message: str) -> AssertionError:
        """The failure of ``check``: an ``AssertionError`` whose ``check`` attribute names it."""
        failure = AssertionError(f"[{check}] {self.report.function}: {message} (seed={self.seed})")
        failure.check = check  # type: ignore[attr-defined]
        failure.report = self.report  # type: ignore[attr-defined]
        return failure

    def of(self, what: str, i: int) -> str:
        """``the cotangent of argument 2 (w)``; ``the cotangent of f`` for the function itself (``f.W`` for a field)."""
        return f"{what} of {'f' if i == 0 else self.names[i]}"

    def differentiable(self, i: int) -> bool:
        return self.layouts[i].differentiable and not isinstance(self.tangents[i], NoTangent)

    def moving(self) -> list[int]:
        return [i for i in range(len(self.layouts)) if self.differentiable(i)]

    def direction(self, i: int) -> Vector:
        return self.layouts[i].tangent_to_vec(unthunk(self.tangents[i]))

    def vec(self, check: str, layout: Layout, t: Any, where: str, cotangent: bool = True) -> Vector:
        """A tangent a rule returned, unthunked, checked for type and read as a vector; a failure of ``check``."""
        t = self.call(check, f"unthunking {where}", unthunk, t)
        problems = layout.problems(t, where, cotangent)
        if problems:
            raise self.fail(check, "; ".join(problems))
        return layout.tangent_to_vec(t)

    def call(
        self,
        check: str,
        what: str | Callable[[], str],
        fn: Callable[..., Any],
        *args: Any,
        hint: Callable[[Exception], str] | None = None,
    ) -> Any:
        """``fn(*args)``, a call into the rule: an exception it raises fails ``check``, naming ``what`` raised.

        The exception is chained as the cause, its traceback starting at the
        first frame outside the harness; ``hint(err)`` adds to the message.
        """
        try:
            return fn(*args)
        except Exception as err:
            name = what if isinstance(what, str) else what()
            extra = hint(err) if hint is not None else ""
            raise self.fail(check, f"{name} raised {type(err).__name__}: {err}{extra}") from without_harness(err)


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


@dataclass(frozen=True)
class CheckOptions:
    """The options ``test_frule``, ``test_rrule`` and ``test_scalar`` share, passed to them as keywords."""

    fkwargs: dict[str, Any] | None = None
    """Keyword arguments of the call ``f(*args, **fkwargs)``; they get no tangents, unless ``args`` is empty: the
    keywords naming ``f``'s leading parameters are then its positional arguments, as ``rrule`` takes them."""
    rtol: float | None = None
    """Relative tolerance; by default ``RTOL`` of the lowest precision among the inputs and the output."""
    atol: float | None = None
    """Absolute tolerance; none by default."""
    fdm: FiniteDifferences | str | None = None
    """A ``FiniteDifferences``, or ``"central"`` (the default), ``"forward"`` or ``"backward"``."""
    seed: int = 0
    """Fixes the random directions and seeds; every failure names it."""
    config: RuleConfig | None = None
    """Passed to the rule as an engine's ``RuleConfig``."""
    promote: bool = True
    """Run finite differences in double precision; ``False`` runs them in the inputs' own precision."""
    jacobian: bool = False
    """First compare the full Jacobian entry by entry and list the entries that differ (O(n), for diagnosis)."""
    evaluations: str = "adaptive"
    """``"adaptive"``: one step (7 evaluations) per argument for ``test_rrule``, along all arguments at once for
    ``test_frule``, and the step search where that step's error could turn a verdict (``settle``); ``"few"``: one
    step along all arguments at once (about 6)."""
    variants: bool = False
    """Also call the rule with fast paths off, seeds, tangents and arguments in other layouts: the same numbers,
    nothing modified (``testing.variants``)."""
    wrong_shape: bool = False
    """Also call the pullback with a seed (the pushforward with a tangent) whose shape only broadcasts to the
    output's (the argument's): it must raise a ``ValueError`` naming the function and both shapes, as
    ``checked_seed`` and ``checked_tangent`` do. The rules this package ships promise it; a rule of yours may."""

    @classmethod
    def parse(cls, caller: str, options: dict[str, Any]) -> CheckOptions:
        """The options given to ``caller`` as keywords; a ``TypeError`` naming any unknown one."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise TypeError(
                f"{caller}: unknown option {', '.join(unknown)}; the options are {', '.join(sorted(known))} "
                f"(the function's own keyword arguments go in fkwargs=, e.g. fkwargs={{{unknown[0]!r}: ...}}; "
                "the arguments to differentiate, positionally)"
            )
        parsed = cls(**options)
        if parsed.evaluations not in ("adaptive", "few"):
            raise ValueError(f"{caller}: evaluations= takes 'adaptive' or 'few', not {parsed.evaluations!r}")
        return parsed


def setup(mode: str, f: Any, args: tuple[Any, ...], options: CheckOptions) -> Setup:
    """Parse the inputs of ``test_frule``/``test_rrule``; run ``f`` once for the reference output."""
    seed = options.seed
    rng = np.random.default_rng(seed)
    primals, given = [], []
    for x in (f, *args):
        is_pair = isinstance(x, PrimalAndTangent)
        primals.append(x.primal if is_pair else x)
        given.append(x.tangent if is_pair else None)
    f, *rest = primals
    if not callable(f):
        raise TypeError(f"test_{mode}: the function must be callable, got {f!r}")
    kwargs = dict(options.fkwargs or {})
    if not rest and kwargs:  # fkwargs={"a": x} alone: the call f(x), as rrule and frule take it
        moved, kwargs = keywords_as_positional(f, kwargs, f"test_{mode}")
        rest = list(moved)
        primals.extend(moved)
        given.extend([None] * len(moved))
    layouts = [layout_of(x) for x in primals]
    names = ["the function itself", *_argument_names(f, len(rest))]
    tangents = []
    for x, dx, layout, name in zip(primals, given, layouts, names):
        if dx is None:
            dx = relative_tangent(x, rng)
        elif not isinstance(dx, NoTangent):
            dx = given_tangent(x, dx, layout, f"the tangent given for {name}", f"test_{mode}({function_name(f)})")
        tangents.append(dx)
    fdm = options.fdm
    if isinstance(fdm, str):
        fdm = FiniteDifferences(fdm)  # type: ignore[arg-type]
    y_ref = f(*rest, **kwargs)
    precision = lowest_precision(*primals, y_ref)
    s = Setup(
        mode=mode,
        f=f,
        args=tuple(rest),
        kwargs=kwargs,
        tangents=tangents,
        layouts=layouts,
        names=names,
        y_ref=y_ref,
        out_layout=layout_of(y_ref),
        rtol=options.rtol if options.rtol is not None else RTOL[precision],
        atol=options.atol or 0.0,
        fdm=fdm or FiniteDifferences(),
        promote=options.promote,
        eps=float(np.finfo(np.float64 if options.promote else precision).eps),
        seed=seed,
        rng=rng,
        config=options.config,
        report=CheckReport(function_name(f), mode, evaluations=1, seed=seed),
        few=options.evaluations == "few",
    )
    s.base = [layout.to_vec(x) for layout, x in zip(layouts, primals)]
    return s


# ----- finite differences -----


def step_scale(s: Setup, directions: dict[int, Vector]) -> float | None:
    """How far the inputs may move along ``directions`` per unit step: ``|x| / |dx|``, averaged.

    The geometric mean over the entries that move, so that an explicit
    tangent of 1 at an input of 1e8 steps by about 1e8 and at 1e-300 by about
    1e-300. ``None`` when nothing moves.
    """
    ratios = []
    for i, d in directions.items():
        nonzero = d != 0
        ratios.append(s.layouts[i].magnitudes()[nonzero] / np.abs(d[nonzero]))
    r = np.concatenate(ratios) if ratios else np.zeros(0)
    return float(np.exp(np.mean(np.log(r)))) if r.size else None


def directional_fd(
    s: Setup, directions: dict[int, Vector], fdm: FiniteDifferences | None = None, provisional: bool = False
) -> FDResult:
    """The finite difference of ``f`` at the inputs moving along ``directions`` (index 0 is ``f``).

    ``provisional``: the one-step estimate first, with the step search as its ``refine`` (see
    ``FiniteDifferences.derivative``), for a check that settles its verdict on it or else refines it
    (``settle``); with ``evaluations="few"`` the one step is taken as it is.
    """
    scale = step_scale(s, directions)
    if scale is None or s.out_layout.size == 0:
        return FDResult(np.zeros(s.out_layout.size), 0.0, 0.0, 0)

    def phi(t: float) -> Vector:
        values = [
            layout.from_vec(b + t * directions[i] if i in directions else b, s.promote)
            for i, (layout, b) in enumerate(zip(s.layouts, s.base))
        ]
        g, *xs = values
        vec = s.out_layout.to_vec(g(*xs, **s.kwargs))
        if np.shape(vec) != (s.out_layout.size,):
            # a value of another type (scipy's logm turns complex where an eigenvalue crosses the negative real
            # axis, and returns no NaN): outside the domain at this step, as a NaN or a raised error would be
            raise ValueError(
                f"the output has {np.size(vec)} real entries here, the primal {s.out_layout.size}: it turned "
                "complex or real, or changed shape"
            )
        return vec

    one_step = s.few and fdm is None
    quick = provisional and not one_step
    result = _derivative(s, lambda: (fdm or s.fdm).derivative(phi, scale, s.eps, one_step, quick))
    s.report.evaluations += result.evaluations
    search = result.refine
    if search is None:
        return result

    searched: list[FDResult] = []

    def refine() -> FDResult:
        if not searched:  # once: every check refining this estimate gets the same search
            searched.append(_derivative(s, search))
            s.report.evaluations += searched[0].evaluations - result.evaluations  # it reuses the one step's
        return searched[0]

    return dataclasses.replace(result, refine=refine)


def _derivative(s: Setup, estimate: Callable[[], FDResult]) -> FDResult:
    """``estimate()``, its errors failing the check "finite differences"."""
    try:
        return estimate()
    except FloatingPointError as err:
        raise s.fail("finite differences", f"{err}; check that the inputs are inside the domain") from None
    except Exception as err:
        where = "at the inputs promoted to double precision (pass promote=False)" if s.promote else "near the inputs"
        message = f"the function raised {type(err).__name__} {where}: {err}"
        raise s.fail("finite differences", message) from without_harness(err)


def along(s: Setup, indices: list[int], provisional: bool = False) -> FDResult:
    """The finite difference along the tangents of the inputs ``indices`` (``provisional``: see ``directional_fd``)."""
    return directional_fd(s, {i: s.direction(i) for i in indices}, provisional=provisional)


# ----- comparisons -----


def _verdict(s: Setup, diff: float, scale: float, allowance: float, natural: float) -> str:
    """``"pass"``, ``"mismatch"`` or ``"inconclusive"``; see the module docstring.

    A derivative at the level of round-off (an exact zero computed as 1e-17)
    cannot be judged relatively; below ``RESOLUTION * natural`` the verdict
    is absolute, so such a rule passes while the error it could hide stays
    below ``INCONCLUSIVE * RESOLUTION`` of the output's size.
    """
    if not math.isfinite(diff):
        return "mismatch"
    agree = s.atol + s.rtol * scale
    if diff <= agree:
        return "pass"
    if diff > agree + allowance:
        return "mismatch"
    return "inconclusive" if allowance > INCONCLUSIVE * max(scale, RESOLUTION * natural) else "pass"


def _record(s: Setup, diff: float, scale: float) -> None:
    """Keep the worst ``diff / scale``, where ``scale`` is never below the resolution of the difference."""
    if scale > 0 and math.isfinite(diff):
        s.report.max_relative_error = max(s.report.max_relative_error, diff / scale)


Hint = str | Callable[[], str]
"""More to say when a check fails: a string, or a function computing it only then."""


def _text(hint: Hint) -> str:
    return hint() if callable(hint) else hint


def settle(
    s: Setup, fd: FDResult, measure: Callable[[FDResult], tuple[float, float, float]]
) -> tuple[FDResult, float, float, float]:
    """The finite difference a check takes its verdict on, with ``measure(fd)``: difference, scale, allowance.

    A provisional difference (``fd.refine``) decides only a pass that its
    whole error allowance cannot turn: the difference plus the allowance
    within the tolerance, so that any derivative within its error passes
    too. Every other verdict, a failure included, is taken on the step
    search's difference, which the rest of the check then uses.
    """
    diff, scale, allowance = measure(fd)
    if fd.refine is not None and not diff + allowance <= s.atol + s.rtol * scale:
        fd = fd.refine()
        diff, scale, allowance = measure(fd)
    return fd, diff, scale, allowance


def check_close(s: Setup, check: str, where: str, got: Vector, fd: FDResult, hint: Hint = "") -> FDResult:
    """``got`` against a finite difference, in the max norm; the difference used (a provisional one: ``settle``)."""
    if not np.all(np.isfinite(got)):
        raise s.fail(check, f"{where}: the tangent is not finite: {preview(got)}")
    size = _max_abs(got)

    def measure(fd: FDResult) -> tuple[float, float, float]:
        return _max_abs(got - fd.value), max(_max_abs(fd.value), size), SAFETY * fd.error

    fd, diff, scale, allowance = settle(s, fd, measure)
    expected = fd.value
    verdict = _verdict(s, diff, scale, allowance, fd.natural)
    _record(s, diff, max(scale, RESOLUTION * fd.natural))
    if verdict == "inconclusive":
        raise s.fail(check, inconclusive(where, fd.error, scale) + kink_hint(s))
    if verdict == "mismatch":
        worst = int(np.argmax(np.abs(got - expected)))
        tol = s.atol + s.rtol * scale + allowance
        raise s.fail(
            check,
            f"{where}: the tangent differs from finite differences by {diff:.3g} (tolerance {tol:.3g}); "
            f"worst at entry {worst}: rule {got[worst]:.10g}, finite differences {expected[worst]:.10g}\n"
            f"  rule:                {preview(got)}\n  finite differences:  {preview(expected)}"
            f"{_text(hint)}{kink_hint(s)}",
        )
    return fd


def check_inner(
    s: Setup, check: str, where: str, y_bar: Vector, fd: FDResult, x_bar: Vector, dx: Vector, hint: Hint = ""
) -> FDResult:
    """The identity ``<y_bar, J dx> == <x_bar, dx>`` with ``J dx`` from finite differences; the difference used
    (a provisional one: ``settle``)."""
    if not np.all(np.isfinite(x_bar)):
        raise s.fail(check, f"{where}: the cotangent is not finite: {preview(x_bar)}")
    rhs = dot(x_bar, dx)
    mass = float(np.sum(np.abs(y_bar)))
    fd, diff, scale, allowance = settle(s, fd, _inner_measure(y_bar, rhs, dot(np.abs(x_bar), np.abs(dx))))
    lhs = dot(y_bar, fd.value)
    verdict = _verdict(s, diff, scale, allowance, mass * fd.natural)
    _record(s, diff, max(scale, RESOLUTION * mass * fd.natural))
    if verdict == "inconclusive":
        raise s.fail(check, inconclusive(where, fd.error, _max_abs(fd.value)) + kink_hint(s))
    if verdict == "mismatch":
        tol = s.atol + s.rtol * scale + allowance
        raise s.fail(
            check,
            f"{where}: <y_bar, J dx> = {lhs:.10g} by finite differences but <x_bar, dx> = {rhs:.10g} "
            f"from the pullback{ratio(rhs, lhs)}; difference {diff:.3g}, tolerance {tol:.3g}\n"
            f"  cotangent:  {preview(x_bar)}\n  direction:  {preview(dx)}{_text(hint)}{kink_hint(s)}",
        )
    return fd


def _inner_measure(y_bar: Vector, rhs: float, rhs_scale: float) -> Callable[[FDResult], tuple[float, float, float]]:
    """``<y_bar, J dx>`` from a finite difference against a rule's ``rhs``: difference, scale, allowance."""
    mass = float(np.sum(np.abs(y_bar)))

    def measure(fd: FDResult) -> tuple[float, float, float]:
        lhs = dot(y_bar, fd.value)
        return abs(lhs - rhs), dot(np.abs(y_bar), np.abs(fd.value)) + rhs_scale, SAFETY * mass * fd.error

    return measure


def inner_mismatch(s: Setup, y_bar: Vector, fd: FDResult, rhs: float, rhs_scale: float) -> bool:
    """Whether a rule's ``rhs`` for ``<y_bar, J dx>`` differs from the finite difference ``fd``'s beyond the
    tolerance and its error: ``check_inner``'s mismatch, neither recorded nor raised (``rhs_scale`` is the sum of
    the absolute values of ``rhs``'s terms)."""
    fd, diff, scale, allowance = settle(s, fd, _inner_measure(y_bar, rhs, rhs_scale))
    return _verdict(s, diff, scale, allowance, float(np.sum(np.abs(y_bar))) * fd.natural) == "mismatch"


def agree(s: Setup, lhs: float, rhs: float, scale: float) -> bool:
    """Whether two values of an identity between two rules agree (no finite difference involved)."""
    return abs(lhs - rhs) <= s.atol + 10 * s.rtol * scale


def check_exact_inner(
    s: Setup, check: str, lhs: float, rhs: float, scale: float, message: str, hint: Hint = ""
) -> None:
    """An identity between two rules, with no finite difference involved."""
    diff = abs(lhs - rhs)
    _record(s, diff, scale)
    if not agree(s, lhs, rhs, scale):
        raise s.fail(check, f"{message}: {lhs:.10g} against {rhs:.10g}, difference {diff:.3g}{_text(hint)}")


def ratio(value: float, reference: float) -> str:
    """`` (ratio 1.01)``: ``value / reference``, when it is a number."""
    if reference == 0 or not math.isfinite(value / reference):
        return ""
    return f" (ratio {value / reference + 0.0:.6g})"  # + 0.0: no "-0"


def kink_hint(s: Setup) -> str:
    """A note naming inputs that sit exactly at 0 or tie with another entry, where many functions have kinks."""
    found: list[str] = []
    real = [i for i in s.moving() if i > 0 and not getattr(s.layouts[i], "is_complex", True)]

    def entry(i: int, k: Any) -> str:
        return f"{short_name(s.names[i])}{s.layouts[i].entry_name(int(k))}"

    for i in real:
        values = s.base[i]
        zeros = np.flatnonzero(values == 0)
        if zeros.size > 2:
            found.append(f"{zeros.size} entries of {short_name(s.names[i])} are exactly 0")
        found += [f"{entry(i, k)} is exactly 0" for k in zeros[: 2 if zeros.size <= 2 else 0]]
        order = np.argsort(values, kind="stable")
        ties = np.flatnonzero(values[order][1:] == values[order][:-1])
        if ties.size <= 2:  # a few ties, not an input built of equal entries
            found += [f"{entry(i, order[d])} and {entry(i, order[d + 1])} are equal (a tie)" for d in ties]
    for a, b in itertools.combinations(real, 2):
        if s.base[a].shape == s.base[b].shape:
            ties = np.flatnonzero(s.base[a] == s.base[b])
            if ties.size <= 2:
                found += [f"{entry(a, k)} and {entry(b, k)} are equal (a tie)" for k in ties]
    if not found:
        return ""
    return (
        f"\n  note: {'; '.join(found[:3])}: if the function has a kink there, finite differences give the "
        "central (average) slope, the convention of docs/conventions.md; a rule following another convention "
        "there passes with fdm='forward' or 'backward' (or move the input off the point)"
    )


def short_name(name: str) -> str:
    """``x`` for ``argument 1 (x)``."""
    return name[name.index("(") + 1 : -1] if "(" in name else name


def inconclusive(where: str, error: float, scale: float) -> str:
    return (
        f"{where}: inconclusive, finite differences did not settle (estimated error {error:.3g} against "
        f"values of size {scale:.3g}); the function may be non-smooth here or badly scaled: give an explicit "
        f"tangent with with_tangent, a one-sided fdm ('forward' or 'backward'), or move the input"
    )


def zero_hint(c: Any, name: str) -> str:
    """What to say when a zero cotangent fails the identity: the argument does change the output."""
    if isinstance(c, NoTangent):
        return (
            f"\n  the rule returned NoTangent() for {name}, but the output changes with it; NoTangent() means "
            "there is no tangent space (ints, strings, indices); return the cotangent"
        )
    if isinstance(c, ZeroTangent):
        return f"\n  the rule returned ZeroTangent() for {name}, but the output changes with it"
    return ""


def preview(v: Vector, n: int = 6) -> str:
    head = ", ".join(f"{x:.6g}" for x in v[:n])
    return f"[{head}{', ...' if v.size > n else ''}] ({plural(v.size, 'entry')})"


def short(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 80 else text[:77] + "..."


def _max_abs(v: Vector) -> float:
    return float(np.max(np.abs(v))) if v.size else 0.0
