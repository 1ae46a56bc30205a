"""The verdict on one edge variant in one mode (see ``edges``)."""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from chainrules_core import NoTangent, NotImplementedTangent, frule, rrule, unthunk
from chainrules_core.testing.cases import Case
from chainrules_core.testing.checks import INCONCLUSIVE, SAFETY
from chainrules_core.testing.finite_differences import RESOLUTION, FiniteDifferences
from chainrules_core.testing.harness import test_frule, test_rrule
from chainrules_core.testing.layout import Layout, Vector, layout_of
from chainrules_core.testing.tangents import PrimalAndTangent
from chainrules_core.testing.tolerances import RTOL, lowest_precision

from ._edge_variants import (
    APPROACH,
    LIMIT_RTOL,
    MAGNITUDE_KINDS,
    NEGLIGIBLE,
    SHAPE_KINDS,
    TINY,
    EdgeVariant,
    _primal,
    _refusal,
    _signature,
)

Mask = np.ndarray[Any, np.dtype[np.bool_]]

# ----- the verdict on one variant -----


STATUSES = ("pass", "unsettled", "raises", "refused", "FAIL")
"""``pass``: finite differences (or, for empty outputs, types) confirm the rules; ``unsettled``: finite
differences cannot settle and the rules agree with each other; ``raises``: numpy raises for the input and the
rule raises the same or declines; ``refused``: a declared refusal; ``FAIL``: anything else."""


@dataclass
class EdgeOutcome:
    """What one variant did in one mode."""

    variant: EdgeVariant
    mode: str
    status: str
    message: str = ""
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return self.status == "FAIL"


class EdgeError(AssertionError):
    """A variant the rule gets wrong; the message says how."""


def run_variant(variant: EdgeVariant, mode: str, seed: int = 0) -> EdgeOutcome:
    """Check one variant in one mode; a failure matched by a declared refusal is ``refused``."""
    start = time.perf_counter()
    refusal = _refusal(variant, mode)
    if refusal is not None and not refusal.run:
        return EdgeOutcome(variant, mode, "refused", refusal.reason)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            status, message = _judge(variant, mode, seed)
    except AssertionError as err:
        status, message = "FAIL", str(err)
    except Exception as err:  # the harness or the variant itself broke: a failure to look at, not to hide
        status, message = "FAIL", f"{type(err).__name__}: {err}"
    if status == "FAIL" and refusal is not None:
        status, message = "refused", refusal.reason
    return EdgeOutcome(variant, mode, status, message, time.perf_counter() - start)


def _judge(v: EdgeVariant, mode: str, seed: int) -> tuple[str, str]:
    args = v.make_args(seed)
    primals = [_primal(a) for a in args]
    try:
        y_ref = v.case.f(*primals, **v.case.kwargs)
    except Exception as numpy_error:
        return _judge_rejected(v, mode, args, numpy_error)
    if v.kind in SHAPE_KINDS and _finite((primals, y_ref)):
        options = dict(v.case.options)
        if callable(options.get("output_tangent")):
            options["output_tangent"] = options["output_tangent"](y_ref)
        given = options.get("output_tangent")
        if given is not None and layout_of(y_ref).problems(unthunk(given), "", cotangent=False):
            del options["output_tangent"]  # a seed made for the declared shape: a random one fits the variant
        check = test_frule if mode == "frule" else test_rrule
        checks = {"variants": True, "wrong_shape": v.case.wrong_shape, **options}
        check(v.case.f, *args, fkwargs=dict(v.case.kwargs), seed=seed, **checks)
        return "pass", ""
    return _Derivatives(v, args, y_ref, seed).run(mode)


def _finite(x: Any) -> bool:
    return bool(np.all(np.isfinite(layout_of(x).to_vec(x))))


def _judge_rejected(v: EdgeVariant, mode: str, args: tuple[Any, ...], numpy_error: Exception) -> tuple[str, str]:
    """numpy raises for the variant: the rule must raise the same kind of exception, or decline."""
    primals = [v.case.f, *(_primal(a) for a in args)]
    expected = type(numpy_error).__name__
    try:
        if mode == "frule":
            tangents = tuple(layout_of(x).vec_to_tangent(np.zeros(layout_of(x).size)) for x in primals)
            result = _frule(v.case, tangents, primals)
        else:
            result = _rrule(v.case, primals)
    except Exception as err:
        if isinstance(err, type(numpy_error)):
            return "raises", f"{type(err).__name__}, as numpy"
        raise EdgeError(
            f"numpy raises {expected} ({numpy_error}); the {mode} raises {type(err).__name__}{_where(err)}: {err}"
        ) from None
    if result is None:
        return "raises", f"no {mode}; numpy raises {expected}"
    raise EdgeError(f"numpy raises {expected} ({numpy_error}), but the {mode} returns a result")


def _frule(case: Case, tangents: tuple[Any, ...], primals: Sequence[Any]) -> Any:
    f, *args = primals
    config = case.options.get("config")
    if config is not None:
        return frule(config, tangents, f, *args, **case.kwargs)
    return frule(tangents, f, *args, **case.kwargs)


def _rrule(case: Case, primals: Sequence[Any]) -> Any:
    f, *args = primals
    config = case.options.get("config")
    if config is not None:
        return rrule(config, f, *args, **case.kwargs)
    return rrule(f, *args, **case.kwargs)


def _where(err: BaseException) -> str:
    """`` (in file:line)`` of the innermost frame that raised ``err``."""
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return ""
    name = tb.tb_frame.f_code.co_filename.rsplit("/", 2)
    return f" (in {'/'.join(name[-2:])}:{tb.tb_lineno})"


def _max_abs(v: Vector) -> float:
    return float(np.max(np.abs(v))) if v.size else 0.0


def _verdict(diff: float, scale: float, allowance: float, natural: float, rtol: float) -> str:
    """As the harness's: ``pass``, ``mismatch``, or ``inconclusive`` when only the finite-difference error decides."""
    if not math.isfinite(diff):
        return "mismatch"
    if diff <= rtol * scale:
        return "pass"
    if diff > rtol * scale + allowance:
        return "mismatch"
    return "inconclusive" if allowance > INCONCLUSIVE * max(scale, RESOLUTION * natural) else "pass"


def _preview(v: Vector, n: int = 6) -> str:
    return "[" + ", ".join(f"{x:.6g}" for x in v[:n]) + (", ..." if v.size > n else "") + f"] ({v.size} entries)"


class _Derivatives:
    """The check of a variant with huge, tiny or non-finite values.

    Finite differences move the finite input entries along directions
    scaled to them (steps relative to the inputs) and watch the output
    entries that are finite; see the module docstring for the verdicts.
    A partial derivative below the smallest normal float64 is 0 as far as
    the rule can know (``1/x`` at ``1e300`` has the derivative ``-1e-600``),
    so a tangent may miss ``tiny * |dx|``, however much larger that is than
    the true ``J dx``. At huge and tiny magnitudes finite differences are
    blind to a derivative at which the function would change by more than
    its own size within the smallest step (``sin(1e300)``), and to any
    derivative of an output that underflows to a constant; there the
    verdict rests on the rules.
    """

    def __init__(self, v: EdgeVariant, args: tuple[Any, ...], y_ref: Any, seed: int) -> None:
        self.case = v.case
        options = self.case.options
        self.rtol = float(options.get("rtol") or RTOL["float64"])
        fdm = options.get("fdm")
        self.fdm: FiniteDifferences = FiniteDifferences(fdm) if isinstance(fdm, str) else fdm or FiniteDifferences()  # type: ignore[arg-type]
        self.rng = np.random.default_rng(seed)
        self.primals = [self.case.f, *(_primal(a) for a in args)]
        self.layouts: list[Layout] = [layout_of(x) for x in self.primals]
        self.base = [layout.to_vec(x) for layout, x in zip(self.layouts, self.primals)]
        marked = [False, *(isinstance(a, PrimalAndTangent) and isinstance(a.tangent, NoTangent) for a in args)]
        self.moving = [i for i, layout in enumerate(self.layouts) if layout.size and not marked[i]]
        given = [None, *(a.tangent if isinstance(a, PrimalAndTangent) else None for a in args)]
        self.magnitudes = v.kind in MAGNITUDE_KINDS
        self.directions: dict[int, Vector] = {}
        self.sizes: dict[int, Vector] = {}
        for i in self.moving:
            layout = self.layouts[i]
            # a zero entry counts as of the size of the others: 1, or the factor they were scaled by
            sizes = self.sizes[i] = np.where(self.base[i] == 0, v.factor, layout.magnitudes())
            if given[i] is not None:
                d = layout.tangent_to_vec(unthunk(given[i]))
            else:
                d = self.rng.standard_normal(layout.size) * sizes
            self.directions[i] = np.where(np.isfinite(self.base[i]), d, 0.0)
        self.y_ref, self.out_layout = y_ref, layout_of(y_ref)
        self.watched: Mask = np.isfinite(self.out_layout.to_vec(y_ref))
        self.primal_checked = False

    # -- calls into the rules --

    def _call(self, what: str, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except Exception as err:
            raise EdgeError(f"{what} raised {type(err).__name__}{_where(err)}: {err}") from err

    def _check_primal(self, y: Any) -> None:
        if self.primal_checked:
            return
        problem = _primal_problem(y, self.y_ref)
        if problem:
            raise EdgeError(f"the rule's primal {problem}")
        self.primal_checked = True

    def pushforward(self, primals: Sequence[Any], d: dict[int, Vector]) -> Vector:
        tangents = tuple(
            layout.vec_to_tangent(d[i]) if i in d else NoTangent() for i, layout in enumerate(self.layouts)
        )
        result = self._call("the frule", _frule, self.case, tangents, primals)
        if result is None:
            raise EdgeError("no frule for the variant, though numpy accepts it")
        y, y_dot = result
        self._check_primal(y)
        y_dot = self._call("unthunking the frule's tangent", unthunk, y_dot)
        problems = self.out_layout.problems(y_dot, "the output tangent", cotangent=False)
        if problems:
            raise EdgeError("; ".join(problems))
        return self.out_layout.tangent_to_vec(y_dot)

    def pullback(self, primals: Sequence[Any], seed: Vector) -> dict[int, Vector | None]:
        result = self._call("the rrule", _rrule, self.case, primals)
        if result is None:
            raise EdgeError("no rrule for the variant, though numpy accepts it")
        y, pullback = result
        self._check_primal(y)
        cotangents = self._call("the pullback", pullback, self.out_layout.vec_to_tangent(seed))
        if not isinstance(cotangents, tuple) or len(cotangents) != len(self.primals):
            raise EdgeError(f"the pullback returned {cotangents!r:.80}, not one cotangent per argument and f")
        found: dict[int, Vector | None] = {}
        for i in self.moving:
            c = self._call("unthunking a cotangent", unthunk, cotangents[i])
            if isinstance(c, NotImplementedTangent):
                found[i] = None
                continue
            problems = self.layouts[i].problems(c, f"the cotangent of argument {i}")
            if problems:
                raise EdgeError("; ".join(problems))
            found[i] = self.layouts[i].tangent_to_vec(c)
        return found

    def full_directions(self) -> dict[int, Vector]:
        """The directions with 1 at the non-finite input entries: every partial takes part."""
        return {i: np.where(np.isfinite(self.base[i]), d, 1.0) for i, d in self.directions.items()}

    def full_seed(self) -> Vector:
        """A seed that is nowhere zero: every output's partials take part."""
        return self.rng.standard_normal(self.out_layout.size) + 0.5

    # -- finite differences --

    def finite_difference(self, d: dict[int, Vector], watched: Mask) -> tuple[Vector, float, float] | None:
        """``J d`` at the ``watched`` outputs, or ``None`` where finite differences cannot settle it."""
        ratios = [self.sizes[i][v != 0] / np.abs(v[v != 0]) for i, v in d.items()]
        r = np.concatenate(ratios) if ratios else np.zeros(0)
        if not r.size or not watched.any():
            return np.zeros(int(watched.sum())), 0.0, 0.0
        layouts, base, kwargs = self.layouts, self.base, self.case.kwargs

        def phi(t: float) -> Vector:
            values = [
                layout.from_vec(b + t * d[i] if i in d else b, True) for i, (layout, b) in enumerate(zip(layouts, base))
            ]
            g, *xs = values
            out: Vector = self.out_layout.to_vec(g(*xs, **kwargs))[watched]
            return out

        try:
            fd = self.fdm.derivative(phi, float(np.exp(np.mean(np.log(r)))))
        except Exception:
            return None
        if not np.all(np.isfinite(fd.value)) or not math.isfinite(fd.error):
            return None
        return fd.value, fd.error, fd.natural

    def underflow(self, d: dict[int, Vector]) -> float:
        """What partials below the smallest normal float64, computed as 0, may miss of a tangent along ``d``."""
        return TINY * float(sum(np.sum(np.abs(v)) for v in d.values()))

    def blind(self, derivative: float, natural: float) -> bool:
        """Whether, at huge or tiny magnitudes, finite differences cannot see ``derivative``: the function
        would change by more than its own size within the smallest step (``natural`` is its size over the
        step scale; 0 where the output underflows to a constant)."""
        reach = 10 ** ((self.fdm.steps - 1) / 2) / self.fdm.max_step
        return self.magnitudes and derivative > natural * reach

    # -- the checks --

    def run(self, mode: str) -> tuple[str, str]:
        status = self.forward() if mode == "frule" else self.reverse()
        if any(np.isinf(self.base[i]).any() for i in self.moving):
            self.limits(mode)
        return status

    def forward(self) -> tuple[str, str]:
        y_dot = self.pushforward(self.primals, self.directions)
        watched = self.watched & ~self.excused_outputs(y_dot)
        fd = self.finite_difference(self.directions, watched)
        if fd is not None:
            value, error, natural = fd
            got = y_dot[watched]
            diff = max(_max_abs(got - value) - self.underflow(self.directions), 0.0)
            scale = max(_max_abs(value), _max_abs(got))
            verdict = (
                "blind"
                if self.blind(_max_abs(got), natural)
                else _verdict(diff, scale, SAFETY * error, natural, self.rtol)
            )
            if verdict == "pass":
                return "pass", ""
            if verdict == "mismatch":
                raise EdgeError(
                    f"the tangent at the finite outputs differs from finite differences by {diff:.3g}:\n"
                    f"  rule:                {_preview(got)}\n  finite differences:  {_preview(value)}"
                )
        return self.modes_agree(y_dot, watched)

    def excused_outputs(self, y_dot: Vector) -> Mask:
        """The watched outputs whose tangent is not finite for the IEEE reason (a zero direction times an
        infinite or undefined partial), as shown by a direction that is nowhere zero; a failure for others."""
        bad = self.watched & ~np.isfinite(y_dot)
        if not bad.any():
            return bad
        unexcused = bad & np.isfinite(self.pushforward(self.primals, self.full_directions()))
        if unexcused.any():
            k = int(np.argmax(unexcused))
            raise EdgeError(
                f"the tangent is {y_dot[k]} at the finite output entry {self.out_layout.entry_name(k)}, "
                "though every partial there is finite"
            )
        return bad

    def reverse(self) -> tuple[str, str]:
        seed = self.seed(self.watched)
        x_bars = self.pullback(self.primals, seed)
        d = self.excuse(x_bars, self.directions)
        fd = self.finite_difference(d, self.watched)
        terms = _terms(x_bars, d)
        rhs = float(sum(np.sum(t) for t in terms))
        if fd is not None:
            value, error, natural = fd
            s = seed[self.watched]
            lhs = float(s @ value)
            scale = float(np.abs(s) @ np.abs(value) + sum(np.sum(np.abs(t)) for t in terms))
            mass = float(np.sum(np.abs(s)))
            diff = max(abs(lhs - rhs) - mass * self.underflow(d), 0.0)
            verdict = (
                "blind"
                if self.blind(abs(rhs), mass * natural)
                else _verdict(diff, scale, SAFETY * mass * error, mass * natural, self.rtol)
            )
            if verdict == "pass":
                return "pass", ""
            if verdict == "mismatch":
                raise EdgeError(
                    f"<y_bar, J dx> = {lhs:.10g} by finite differences but <x_bar, dx> = {rhs:.10g} from the pullback"
                )
        y_dot = None
        if frule.find(self.case.f, *self.primals[1:], config=self.case.options.get("config")) is not None:
            y_dot = self.pushforward(self.primals, d)
        return self.modes_agree(y_dot, self.watched, x_bars, d, seed)

    def seed(self, watched: Mask) -> Vector:
        """A random seed on the ``watched`` outputs, or the case's own (a gauge-invariant seed), zero elsewhere."""
        given = self.case.options.get("output_tangent")
        seed = self.rng.standard_normal(self.out_layout.size)
        if given is not None:
            try:
                seed = self.out_layout.tangent_to_vec(unthunk(given(self.y_ref) if callable(given) else given))
            except Exception:
                pass
        return np.where(watched, np.nan_to_num(seed), 0.0)

    def excuse(self, x_bars: dict[int, Vector | None], d: dict[int, Vector]) -> dict[int, Vector]:
        """The directions without the entries whose cotangent is not finite for the IEEE reason; fails on others."""
        bad = {i: ~np.isfinite(x) & (d[i] != 0) for i, x in x_bars.items() if x is not None}
        kept = {i: v for i, v in d.items() if x_bars.get(i) is not None}
        if not any(b.any() for b in bad.values()):
            return kept
        full = self.pullback(self.primals, self.full_seed())
        for i, b in bad.items():
            x_full = full[i]
            unexcused = b & (np.isfinite(x_full) if x_full is not None else True)
            if unexcused.any():
                k = int(np.argmax(unexcused))
                raise EdgeError(
                    f"the cotangent of argument {i} is {x_bars[i][k]} at its finite entry "  # type: ignore[index]
                    f"{self.layouts[i].entry_name(k)}, though every partial there is finite"
                )
            kept[i] = np.where(b, 0.0, d[i])
        return kept

    def modes_agree(
        self,
        y_dot: Vector | None,
        watched: Mask,
        x_bars: dict[int, Vector | None] | None = None,
        d: dict[int, Vector] | None = None,
        seed: Vector | None = None,
    ) -> tuple[str, str]:
        """Where finite differences cannot settle: no NaN at the finite outputs, and the pushforward and the
        pullback give the same ``<y_bar, J dx>``."""
        if y_dot is not None and np.isnan(y_dot[watched]).any():
            raise EdgeError(f"NaN in the tangent at finite outputs: {_preview(y_dot[watched])}")
        config = self.case.options.get("config")
        if y_dot is None or rrule.find(self.case.f, *self.primals[1:], config=config) is None:
            return "unsettled", "finite differences cannot settle; no NaN at the finite outputs"
        if x_bars is None:
            seed = self.seed(watched)
            x_bars = self.pullback(self.primals, seed)
            d = self.excuse(x_bars, self.directions)
            y_dot = self.pushforward(self.primals, d)
        assert seed is not None and d is not None
        s = seed[watched]
        terms = _terms(x_bars, d)
        lhs, rhs = float(s @ y_dot[watched]), float(sum(np.sum(t) for t in terms))
        scale = float(np.abs(s) @ np.abs(y_dot[watched]) + sum(np.sum(np.abs(t)) for t in terms))
        if not (math.isfinite(lhs) and math.isfinite(rhs)):
            return "unsettled", "finite differences cannot settle; the rules are not finite there"
        tiny = float(np.finfo(lowest_precision(self.y_ref)).tiny)  # a tangent below it is 0 in the output's dtype
        underflow = float(np.sum(np.abs(s))) * (tiny + self.underflow(d))
        if abs(lhs - rhs) > 10 * self.rtol * scale + underflow:
            raise EdgeError(
                f"finite differences cannot settle here, and the modes disagree: <y_bar, frule tangent> = {lhs:.10g}, "
                f"<pullback, dx> = {rhs:.10g}"
            )
        return "unsettled", "finite differences cannot settle; frule and rrule agree"

    def limits(self, mode: str) -> None:
        """At infinite entries: the rule's derivatives are the limits of its own derivatives at ``±APPROACH``,
        wherever those agree and the output itself tends to its value at the infinite entry."""

        def near(h: float) -> list[Any]:
            vecs = [
                np.where(np.isinf(b), np.sign(b) * h, b) if i in self.directions else b for i, b in enumerate(self.base)
            ]
            return [layout.from_vec(b, False) for layout, b in zip(self.layouts, vecs)]

        points = [near(h) for h in APPROACH]
        y_ref = self.out_layout.to_vec(self.y_ref)
        try:
            y_near = self.out_layout.to_vec(self.case.f(*points[-1][1:], **self.case.kwargs))
        except Exception:
            return
        if y_near.shape != y_ref.shape:  # the output's shape jumps at the infinite entry (polydiv's trimming)
            return
        watched = self.watched & (np.abs(y_near - y_ref) <= LIMIT_RTOL * np.abs(y_ref) + NEGLIGIBLE)
        d, seed = self.full_directions(), self.seed(watched)

        def derivative(primals: Sequence[Any]) -> Vector:
            if mode == "frule":
                return self.pushforward(primals, d)[watched]
            bars = self.pullback(primals, seed)
            return np.concatenate([bars[i] for i in self.moving if bars[i] is not None] or [np.zeros(0)])

        (far, nearer), value = [derivative(p) for p in points], derivative(self.primals)
        agree = np.isfinite(far) & np.isfinite(nearer)
        agree &= np.abs(far - nearer) <= LIMIT_RTOL * np.maximum(np.abs(far), np.abs(nearer)) + NEGLIGIBLE
        missed = agree & ~(np.abs(value - nearer) <= LIMIT_RTOL * np.abs(nearer) + NEGLIGIBLE)
        if mode == "rrule" and missed.any():
            full = self.pullback(self.primals, self.full_seed())
            missed &= np.concatenate([np.isfinite(bar) for i in self.moving if (bar := full[i]) is not None])
        if missed.any():
            k = int(np.argmax(missed))
            what = "tangent" if mode == "frule" else "cotangent"
            raise EdgeError(
                f"at the infinite input the {what}'s entry {k} is {value[k]}, but the rule's own {what}s at "
                f"{APPROACH[0]:g} and {APPROACH[1]:g} tend to {nearer[k]:.10g}: the limit exists"
            )


def _terms(x_bars: dict[int, Vector | None], d: dict[int, Vector]) -> list[Vector]:
    """The entrywise products of cotangents and directions, where the directions move."""
    return [np.where(v != 0, x * v, 0.0) for i, v in d.items() if (x := x_bars.get(i)) is not None]


def _primal_problem(y: Any, y_ref: Any) -> str:
    """What differs between the rule's primal and numpy's: structure, shape, dtype, values (NaN where NaN)."""
    if _signature([y]) != _signature([y_ref]) and not (np.ndim(y) == np.ndim(y_ref) == 0):
        return f"has the structure {_signature([y])}, numpy's {_signature([y_ref])}"
    if getattr(y, "dtype", None) != getattr(y_ref, "dtype", None) and np.ndim(y_ref):
        return f"has dtype {y.dtype}, numpy's {y_ref.dtype}"
    layout = layout_of(y_ref)
    try:
        got, want = layout.to_vec(y), layout.to_vec(y_ref)
    except (TypeError, ValueError, AttributeError, KeyError, IndexError) as err:
        return f"does not have numpy's structure: {err}"
    finite = want[np.isfinite(want)]
    atol = 1e-12 * (float(np.max(np.abs(finite))) if finite.size else 0.0)
    if got.shape != want.shape or not np.allclose(got, want, rtol=1e-12, atol=atol, equal_nan=True):
        return f"{_preview(got)} differs from numpy's {_preview(want)}"
    return ""
