"""The edge sweep: every declared case moved to the edges of its domain, where rules most often break.

From each declared ``Case`` the sweep derives variants and checks each in
every mode the case declares:

========================  ===================================================================
kind                      variant
========================  ===================================================================
``empty``                 one axis of one array argument cut to length 0; or every axis, in
                          every argument, of one length (``(3, 4) @ (4, 5)`` becomes
                          ``(3, 0) @ (0, 5)``)
``zero batch``            a leading axis of length 0 on every argument of two or more
                          dimensions (``(0, 5, 5)``), and the same with empty matrices
                          (``(0, 0, 0)``)
``size 1``                as ``empty``, with length 1
``0-d``                   an array argument replaced by its first entry as a 0-d array; a
                          Python scalar by a 0-d array
``huge``                  every floating argument scaled by ``1e300`` (and ``-1e300``)
``tiny``, ``subnormal``   scaled by ``1e-300`` and by ``1e-310``
``inf``, ``nan``          the first entry of one floating argument set to ``inf``, ``-inf``
                          or ``nan``
========================  ===================================================================

Magnitudes scale only the arguments whose declared ``Domain`` holds the
scaled values (points ``At`` and ``Generated`` values, which carry no
domain, are scaled too: ties, zeros and bounds stay what they are); an
infinite entry of either sign goes only where the domain reaches that
infinity. The shape and magnitude variants run in float64 (complex128
where the case is complex only); the ``empty`` and ``zero batch`` variants
also in every other dtype the case declares, since a dtype lost on an empty
array is the typical fault there.

The verdict on a variant:

* numpy raises for it: the rule raises an exception of the same class (or
  a subclass), or declines with ``None``;
* otherwise the rule's primal equals numpy's (NaNs where numpy's are), no
  rule, pushforward or pullback raises, and every tangent has its value's
  type, shape and dtype;
* inputs and outputs all finite at moderate magnitudes (shape variants):
  ``test_frule`` / ``test_rrule`` pass, so finite differences confirm the
  derivatives, and an empty output is judged by types alone;
* huge, tiny and subnormal inputs, and non-finite entries: finite
  differences along the finite entries, with steps relative to the inputs,
  compared at the output entries that are finite. A central difference
  straddles a kink symmetrically, so ``logaddexp(x, x)`` at ``x = 1e300``
  is held to ``(1/2, 1/2)`` just as at ``x = 1``. Where the differences
  cannot settle (``sin(1e300)``, whose period is far below the step; an
  output that overflows), the verdict rests on the rules alone: no NaN
  where the output is finite, and the pushforward and the pullback agree
  (``<y_bar, J dx>`` from each). Such runs count as ``unsettled``;
* an infinite entry: the derivatives must also be the limit of the rule's
  own derivatives at ``±1e150`` and ``±1e300`` in that entry, wherever those
  two agree (``tanh'(inf) = 0``, ``d logaddexp(-inf, y)/dy = 1``). A NaN
  where that limit exists is a failure.

A zero seed entry times an infinite partial is NaN in IEEE arithmetic (as
in every engine); a cotangent entry that is not finite is excused where
the pullback of a seed that is nowhere zero is not finite there either.

A rule that legitimately fails some variants says so beside its declared
cases with ``refuse_edges(family, f, kinds, reason)``; the sweep reports
those variants as ``refused`` with the reason, and a refusal that matches
no failing variant is itself a failure, so the list stays true.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import select
import signal
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

from ..naming import function_name
from ..rules import frule, rrule
from ..tangent_types import NoTangent, NotImplementedTangent, unthunk
from .cases import Arg, Case, Domain, Nonzero, _make
from .checks import INCONCLUSIVE, RESOLUTION, SAFETY
from .finite_differences import FiniteDifferences
from .harness import test_frule, test_rrule
from .layout import Layout, Vector, layout_of
from .tangents import PrimalAndTangent
from .tolerances import RTOL, lowest_precision

__all__ = [
    "EDGE_KINDS",
    "EdgeOutcome",
    "EdgeRefusal",
    "EdgeVariant",
    "edge_variants",
    "refuse_edges",
    "registered_refusals",
    "run_edge_sweep",
    "run_variant",
    "stale_refusals",
    "sweep",
]

SHAPE_KINDS = ("empty", "zero batch", "size 1", "0-d")
MAGNITUDE_KINDS = ("huge", "tiny", "subnormal")
NONFINITE_KINDS = ("inf", "nan")
EDGE_KINDS = SHAPE_KINDS + MAGNITUDE_KINDS + NONFINITE_KINDS

SCALES = {"huge": (1e300, -1e300), "tiny": (1e-300,), "subnormal": (1e-310,)}
"""The factors of the magnitude variants."""

APPROACH = (1e150, 1e300)
"""Where the limit at an infinite entry is read from the rule's own derivatives."""

LIMIT_RTOL = 1e-6
"""How closely the derivatives at ``APPROACH`` must agree to define a limit, and the rule at infinity must meet it."""

HANG_TIMEOUT = 30.0
"""Seconds a variant may run before the sweep counts it as hung (numpy and the rule together)."""

NEGLIGIBLE = 1e-100

TINY = float(np.finfo(np.float64).tiny)
"""The smallest normal float64: partial derivatives below it are 0 to the rules."""
"""Derivatives below this are zero when deciding whether two values agree."""

Path = tuple[int, ...]
"""Where a value sits in the arguments: its position, then its index inside a list or tuple argument."""


# ----- variants -----


@dataclass(frozen=True)
class EdgeVariant:
    """One edge variant of a declared case: the case's arguments, made at a seed in ``dtype``, then edited."""

    family: str
    case: Case
    kind: str
    detail: str
    dtype: str
    edit: Callable[[tuple[Any, ...]], tuple[Any, ...]] = field(repr=False, compare=False)
    factor: float = 1.0
    """The magnitude the values were scaled by (1 for the other kinds)."""

    @property
    def label(self) -> str:
        return f"{self.case.label} [{self.kind}: {self.detail}]"

    def make_args(self, seed: int = 0) -> tuple[Any, ...]:
        return self.edit(self.case.make_args(np.random.default_rng(seed), self.dtype))


def _primal(a: Any) -> Any:
    return a.primal if isinstance(a, PrimalAndTangent) else a


def _leaves(args: Sequence[Any]) -> Iterator[tuple[Path, Any]]:
    """The arrays and Python numbers among the arguments (inside list and tuple arguments too), with their paths."""
    for i, a in enumerate(args):
        a = _primal(a)
        if isinstance(a, (list, tuple)) and not hasattr(a, "_fields"):
            for j, b in enumerate(a):
                if _is_leaf(b):
                    yield (i, j), b
        elif _is_leaf(a):
            yield (i,), a


def _is_leaf(x: Any) -> bool:
    return isinstance(x, (np.ndarray, float, complex)) or (isinstance(x, np.generic) and x.dtype.kind in "fc")


def _is_floating(x: Any) -> bool:
    return isinstance(x, (float, complex)) or (isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind in "fc")


def _edited(args: tuple[Any, ...], *, changes: dict[Path, Callable[[Any], Any]], tangents: bool) -> tuple[Any, ...]:
    """``args`` with ``changes[path]`` applied to the value at each path.

    An explicit tangent (``with_tangent``) of the value's shape changes with
    it when ``tangents``, else stays; one that no longer fits is dropped, and
    ``no_tangent`` marks are kept.
    """
    out = list(args)
    for path, change in changes.items():
        given = out[path[0]]
        primal = _primal(given)
        if len(path) == 2:
            items = list(primal)
            items[path[1]] = change(items[path[1]])
            new = type(primal)(items)
        else:
            new = change(primal)
        if not isinstance(given, PrimalAndTangent):
            out[path[0]] = new
        elif isinstance(given.tangent, NoTangent):
            out[path[0]] = PrimalAndTangent(new, given.tangent)
        else:
            fits = len(path) == 1 and np.shape(given.tangent) == np.shape(primal)
            tangent = (change(given.tangent) if tangents else given.tangent) if fits else None
            fits = tangent is not None and np.shape(tangent) == np.shape(new)
            out[path[0]] = PrimalAndTangent(new, tangent) if fits else new
    return tuple(out)


def _cut(axes: Sequence[int], length: int) -> Callable[[Any], Any]:
    def cut(x: Any) -> Any:
        index = tuple(slice(0, length) if k in axes else slice(None) for k in range(np.ndim(x)))
        return np.array(np.asarray(x)[index])

    return cut


def _first_entry(x: Any) -> Any:
    return np.array(np.asarray(x).reshape(-1)[0])


def _batched(empty_matrices: bool) -> Callable[[Any], Any]:
    def batch(x: Any) -> Any:
        shape = (0,) * (x.ndim + 1) if empty_matrices else (0, *x.shape)
        return np.zeros(shape, dtype=x.dtype)

    return batch


def _scaled(s: float) -> Callable[[Any], Any]:
    def scale(x: Any) -> Any:
        if isinstance(x, (float, complex, np.generic)):
            return type(x)(x * s)
        return np.asarray(x) * np.asarray(s, dtype=x.dtype)

    return scale


def _with_first(value: float) -> Callable[[Any], Any]:
    def put(x: Any) -> Any:
        if isinstance(x, (float, complex, np.generic)):
            return type(x)(value)
        x = np.array(x)
        x.reshape(-1)[0] = value
        return x

    return put


def _domain(case: Case, path: Path) -> Domain | None:
    """The declared domain of the value at ``path``; ``None`` for points, generated values and literals."""
    spec = _primal(case.args[path[0]]) if path[0] < len(case.args) else None
    return spec.domain if isinstance(spec, Arg) and len(path) == 1 else None


def _inside(domain: Domain, x: Any) -> bool:
    v = np.real(np.asarray(x, dtype=np.complex128 if np.iscomplexobj(x) else np.float64))
    inside = bool(np.all((v > domain.low) & (v < domain.high)))
    if isinstance(domain, Nonzero):
        inside = inside and bool(np.all(np.abs(v) >= domain.margin))
    return inside


def _edge_dtype(case: Case) -> str | None:
    valid = case.valid_dtypes()
    for dtype in ("float64", "complex128"):
        if dtype in valid:
            return dtype
    return valid[0] if valid else None


def edge_variants(family: str, case: Case, seed: int = 0) -> list[EdgeVariant]:
    """Every edge variant of ``case`` (see the module docstring), without duplicates."""
    dtype = _edge_dtype(case)
    if dtype is None:
        return []
    args = case.make_args(np.random.default_rng(seed), dtype)
    leaves = list(_leaves(args))
    found = [*_shape_edits(leaves), *_nonfinite_edits(case, leaves)]
    if np.dtype(dtype).itemsize * (2 if np.dtype(dtype).kind == "f" else 1) >= 16:  # the factors are float64's
        found += _magnitude_edits(case, leaves)
    variants, seen = [], set()
    for kind, detail, changes, *factor in found:
        dtypes = case.valid_dtypes() if kind in ("empty", "zero batch") else (dtype,)
        for dt in dtypes:
            keep = kind not in NONFINITE_KINDS
            edit = functools.partial(_edited, changes=changes, tangents=keep)
            v = EdgeVariant(family, case, kind, detail, dt, edit, *factor)
            key = (kind, dt, _signature(v.make_args(seed))) if kind in SHAPE_KINDS else (kind, dt, detail)
            if key not in seen:
                seen.add(key)
                variants.append(v)
    return variants


def _name(path: Path) -> str:
    return f"argument {path[0] + 1}" + (f"[{path[1]}]" if len(path) > 1 else "")


def _shape_edits(leaves: list[tuple[Path, Any]]) -> list[tuple[str, str, dict[Path, Callable[[Any], Any]]]]:
    arrays = [(p, x) for p, x in leaves if isinstance(x, np.ndarray)]
    edits: list[tuple[str, str, dict[Path, Callable[[Any], Any]]]] = []
    lengths = sorted({n for _, x in arrays for n in x.shape if n > 1})
    for length, kind in ((0, "empty"), (1, "size 1")):
        for p, x in arrays:
            for k, n in enumerate(x.shape):
                if n > length and not (length == 1 and n == 1):
                    edits.append((kind, f"{_name(p)} axis {k}", {p: _cut((k,), length)}))
        for n in lengths:
            changes = {p: _cut([k for k, m in enumerate(x.shape) if m == n], length) for p, x in arrays if n in x.shape}
            edits.append((kind, f"every axis of length {n}", changes))
    matrices = [p for p, x in arrays if x.ndim >= 2 and x.dtype.kind in "fc"]
    if matrices:
        edits.append(("zero batch", "(0, ...)", {p: _batched(False) for p in matrices}))
        edits.append(("zero batch", "(0, 0, ...)", {p: _batched(True) for p in matrices}))
    for p, x in leaves:
        if isinstance(x, np.ndarray) and x.ndim >= 1 and x.size:
            edits.append(("0-d", f"{_name(p)} its first entry", {p: _first_entry}))
        elif not isinstance(x, np.ndarray):
            edits.append(("0-d", f"{_name(p)} as a 0-d array", {p: np.asarray}))
    return edits


def _magnitude_edits(case: Case, leaves: list[tuple[Path, Any]]) -> list[tuple[Any, ...]]:
    floating = [(p, x) for p, x in leaves if _is_floating(x) and np.size(x)]
    edits: list[tuple[Any, ...]] = []
    for kind, factors in SCALES.items():
        for s in factors:
            changes = {}
            for p, x in floating:
                domain = _domain(case, p)
                if domain is None or _inside(domain, np.asarray(x) * s):
                    changes[p] = _scaled(s)
            if changes:
                edits.append((kind, f"x {s:g}", changes, abs(s)))
    return edits


def _nonfinite_edits(case: Case, leaves: list[tuple[Path, Any]]) -> list[tuple[str, str, dict[Path, Callable[[Any], Any]]]]:
    edits = []
    for p, x in leaves:
        if not _is_floating(x) or not np.size(x):
            continue
        domain = _domain(case, p)
        for value in (math.inf, -math.inf, math.nan):
            if domain is not None and math.isinf(value) and value not in (domain.low, domain.high):
                continue
            kind = "nan" if math.isnan(value) else "inf"
            edits.append((kind, f"{_name(p)} entry 0 = {value}", {p: _with_first(value)}))
    return edits


def _signature(args: Sequence[Any]) -> tuple[Any, ...]:
    def describe(a: Any) -> Any:
        a = _primal(a)
        if isinstance(a, np.ndarray):
            return ("array", a.shape, a.dtype.str)
        if isinstance(a, (list, tuple)):
            return tuple(describe(b) for b in a)
        if isinstance(a, (float, complex)):
            return type(a).__name__
        return repr(a)[:200]

    return tuple(describe(a) for a in args)


# ----- refusals -----


@dataclass(frozen=True)
class EdgeRefusal:
    """Variants of ``f``'s cases that its rules do not handle, and why.

    ``kinds`` lists the edge kinds refused; ``where``, if given, substrings
    of which the variant's label must contain all (``"axis 1"``, ``"entry 0 = nan"``);
    ``modes`` the modes refused; ``cases``, if given, a predicate on the
    declared case. ``run=False`` keeps the variants from running at all, for
    inputs numpy itself cannot evaluate (it loops forever).
    """

    family: str
    f: Any
    kinds: tuple[str, ...]
    reason: str
    where: tuple[str, ...] = ()
    modes: tuple[str, ...] = ("frule", "rrule")
    run: bool = True
    cases: Callable[[Case], bool] | None = None

    def matches(self, variant: EdgeVariant, mode: str) -> bool:
        return (
            self.f is variant.case.f
            and variant.kind in self.kinds
            and mode in self.modes
            and all(part in variant.label for part in self.where)
            and self.family == variant.family
            and (self.cases is None or self.cases(variant.case))
        )


_REFUSALS: list[EdgeRefusal] = []


def refuse_edges(
    family: str,
    f: Any,
    kinds: Sequence[str],
    reason: str,
    *,
    where: str | Sequence[str] = (),
    modes: Sequence[str] = ("frule", "rrule"),
    run: bool = True,
    cases: Callable[[Case], bool] | None = None,
) -> None:
    """Declare, beside ``f``'s cases, the edge variants its rules refuse and the reason (see ``EdgeRefusal``)."""
    unknown = set(kinds) - set(EDGE_KINDS)
    if unknown:
        raise ValueError(f"refuse_edges({function_name(f)}): unknown edge kinds {sorted(unknown)}; see EDGE_KINDS")
    parts = (where,) if isinstance(where, str) else tuple(where)
    _REFUSALS.append(EdgeRefusal(family, f, tuple(kinds), reason, parts, tuple(modes), run, cases))


def registered_refusals(family: str | None = None) -> list[EdgeRefusal]:
    return [r for r in _REFUSALS if family in (None, r.family)]


def _refusal(variant: EdgeVariant, mode: str) -> EdgeRefusal | None:
    return next((r for r in _REFUSALS if r.matches(variant, mode)), None)


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


class EdgeFailure(AssertionError):
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
        seed = options.get("output_tangent")
        if seed is not None and layout_of(y_ref).problems(unthunk(seed), "", cotangent=False):
            del options["output_tangent"]  # a seed made for the declared shape: a random one fits the variant
        check = test_frule if mode == "frule" else test_rrule
        check(v.case.f, *args, fkwargs=dict(v.case.kwargs), seed=seed, **options)
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
        raise EdgeFailure(
            f"numpy raises {expected} ({numpy_error}); the {mode} raises {type(err).__name__}{_where(err)}: {err}"
        ) from None
    if result is None:
        return "raises", f"no {mode}; numpy raises {expected}"
    raise EdgeFailure(f"numpy raises {expected} ({numpy_error}), but the {mode} returns a result")


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
        self.fdm = FiniteDifferences(fdm) if isinstance(fdm, str) else fdm or FiniteDifferences()
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
        self.watched = np.isfinite(self.out_layout.to_vec(y_ref))
        self.primal_checked = False

    # -- calls into the rules --

    def _call(self, what: str, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except Exception as err:
            raise EdgeFailure(f"{what} raised {type(err).__name__}{_where(err)}: {err}") from err

    def _check_primal(self, y: Any) -> None:
        if self.primal_checked:
            return
        problem = _primal_problem(y, self.y_ref)
        if problem:
            raise EdgeFailure(f"the rule's primal {problem}")
        self.primal_checked = True

    def pushforward(self, primals: Sequence[Any], d: dict[int, Vector]) -> Vector:
        tangents = tuple(layout.vec_to_tangent(d[i]) if i in d else NoTangent() for i, layout in enumerate(self.layouts))
        result = self._call("the frule", _frule, self.case, tangents, primals)
        if result is None:
            raise EdgeFailure("no frule for the variant, though numpy accepts it")
        y, y_dot = result
        self._check_primal(y)
        y_dot = self._call("unthunking the frule's tangent", unthunk, y_dot)
        problems = self.out_layout.problems(y_dot, "the output tangent", cotangent=False)
        if problems:
            raise EdgeFailure("; ".join(problems))
        return self.out_layout.tangent_to_vec(y_dot)

    def pullback(self, primals: Sequence[Any], seed: Vector) -> dict[int, Vector | None]:
        result = self._call("the rrule", _rrule, self.case, primals)
        if result is None:
            raise EdgeFailure("no rrule for the variant, though numpy accepts it")
        y, pullback = result
        self._check_primal(y)
        cotangents = self._call("the pullback", pullback, self.out_layout.vec_to_tangent(seed))
        if not isinstance(cotangents, tuple) or len(cotangents) != len(self.primals):
            raise EdgeFailure(f"the pullback returned {cotangents!r:.80}, not one cotangent per argument and f")
        found: dict[int, Vector | None] = {}
        for i in self.moving:
            c = self._call("unthunking a cotangent", unthunk, cotangents[i])
            if isinstance(c, NotImplementedTangent):
                found[i] = None
                continue
            problems = self.layouts[i].problems(c, f"the cotangent of argument {i}")
            if problems:
                raise EdgeFailure("; ".join(problems))
            found[i] = self.layouts[i].tangent_to_vec(c)
        return found

    def full_directions(self) -> dict[int, Vector]:
        """The directions with 1 at the non-finite input entries: every partial takes part."""
        return {i: np.where(np.isfinite(self.base[i]), d, 1.0) for i, d in self.directions.items()}

    def full_seed(self) -> Vector:
        """A seed that is nowhere zero: every output's partials take part."""
        return self.rng.standard_normal(self.out_layout.size) + 0.5

    # -- finite differences --

    def finite_difference(self, d: dict[int, Vector], watched: Vector) -> tuple[Vector, float, float] | None:
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
            return self.out_layout.to_vec(g(*xs, **kwargs))[watched]

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
            verdict = "blind" if self.blind(_max_abs(got), natural) else _verdict(
                diff, scale, SAFETY * error, natural, self.rtol
            )
            if verdict == "pass":
                return "pass", ""
            if verdict == "mismatch":
                raise EdgeFailure(
                    f"the tangent at the finite outputs differs from finite differences by {diff:.3g}:\n"
                    f"  rule:                {_preview(got)}\n  finite differences:  {_preview(value)}"
                )
        return self.modes_agree(y_dot, watched)

    def excused_outputs(self, y_dot: Vector) -> Vector:
        """The watched outputs whose tangent is not finite for the IEEE reason (a zero direction times an
        infinite or undefined partial), as shown by a direction that is nowhere zero; a failure for others."""
        bad = self.watched & ~np.isfinite(y_dot)
        if not bad.any():
            return bad
        unexcused = bad & np.isfinite(self.pushforward(self.primals, self.full_directions()))
        if unexcused.any():
            k = int(np.argmax(unexcused))
            raise EdgeFailure(
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
            verdict = "blind" if self.blind(abs(rhs), mass * natural) else _verdict(
                diff, scale, SAFETY * mass * error, mass * natural, self.rtol
            )
            if verdict == "pass":
                return "pass", ""
            if verdict == "mismatch":
                raise EdgeFailure(
                    f"<y_bar, J dx> = {lhs:.10g} by finite differences but <x_bar, dx> = {rhs:.10g} from the pullback"
                )
        y_dot = None
        if frule.find(self.case.f, *self.primals[1:], config=self.case.options.get("config")) is not None:
            y_dot = self.pushforward(self.primals, d)
        return self.modes_agree(y_dot, self.watched, x_bars, d, seed)

    def seed(self, watched: Vector) -> Vector:
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
        """The directions without the entries whose cotangent is not finite for the IEEE reason; a failure for others."""
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
                raise EdgeFailure(
                    f"the cotangent of argument {i} is {x_bars[i][k]} at its finite entry "  # type: ignore[index]
                    f"{self.layouts[i].entry_name(k)}, though every partial there is finite"
                )
            kept[i] = np.where(b, 0.0, d[i])
        return kept

    def modes_agree(
        self,
        y_dot: Vector | None,
        watched: Vector,
        x_bars: dict[int, Vector | None] | None = None,
        d: dict[int, Vector] | None = None,
        seed: Vector | None = None,
    ) -> tuple[str, str]:
        """Where finite differences cannot settle: no NaN at the finite outputs, and the pushforward and the
        pullback give the same ``<y_bar, J dx>``."""
        if y_dot is not None and np.isnan(y_dot[watched]).any():
            raise EdgeFailure(f"NaN in the tangent at finite outputs: {_preview(y_dot[watched])}")
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
            raise EdgeFailure(
                f"finite differences cannot settle here, and the modes disagree: <y_bar, frule tangent> = {lhs:.10g}, "
                f"<pullback, dx> = {rhs:.10g}"
            )
        return "unsettled", "finite differences cannot settle; frule and rrule agree"

    def limits(self, mode: str) -> None:
        """At infinite entries: the rule's derivatives are the limits of its own derivatives at ``±APPROACH``,
        wherever those agree and the output itself tends to its value at the infinite entry."""

        def near(h: float) -> list[Any]:
            vecs = [np.where(np.isinf(b), np.sign(b) * h, b) if i in self.directions else b for i, b in enumerate(self.base)]
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
            missed &= np.concatenate([np.isfinite(full[i]) for i in self.moving if full[i] is not None])
        if missed.any():
            k = int(np.argmax(missed))
            what = "tangent" if mode == "frule" else "cotangent"
            raise EdgeFailure(
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


# ----- the sweep -----


def sweep(
    cases: Iterable[tuple[str, Case]],
    *,
    modes: Sequence[str] | None = None,
    kinds: Sequence[str] | None = None,
    seed: int = 0,
    sample: int = 1,
    progress: Callable[[int, int, EdgeOutcome], None] | None = None,
    exitfirst: bool = False,
    timeout: float = HANG_TIMEOUT,
) -> list[EdgeOutcome]:
    """Run the edge variants of ``(family, case)`` pairs; every ``sample``-th variant (by a stable hash) if > 1.

    Where the platform can fork, the variants run in a child process: a
    variant that does not return within ``timeout`` seconds (LAPACK's SVD
    spins forever on an infinite entry) fails, and the rest run on in a new
    child, so that one input cannot stall the sweep.
    """
    planned = list(planned_variants(cases, modes=modes, kinds=kinds, seed=seed, sample=sample))
    done: list[EdgeOutcome] = []
    runner = _forked if hasattr(os, "fork") else _in_process
    for outcome in runner(planned, seed, timeout):
        done.append(outcome)
        if progress is not None:
            progress(len(done), len(planned), outcome)
        if exitfirst and outcome.failed:
            break
    return done


def _in_process(planned: Sequence[tuple[EdgeVariant, str]], seed: int, timeout: float) -> Iterator[EdgeOutcome]:
    for variant, mode in planned:
        yield run_variant(variant, mode, seed)


def _forked(planned: Sequence[tuple[EdgeVariant, str]], seed: int, timeout: float) -> Iterator[EdgeOutcome]:
    """``run_variant`` over ``planned`` in child processes, each outcome a line of JSON; a new child after a hang."""
    start = 0
    while start < len(planned):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: run from `start` on, report each outcome, never return into the caller
            os.close(read_end)
            quiet = os.open(os.devnull, os.O_WRONLY)  # LAPACK prints its complaints about NaNs to the terminal
            os.dup2(quiet, 1)
            os.dup2(quiet, 2)
            try:
                for k in range(start, len(planned)):
                    o = run_variant(*planned[k], seed)
                    os.write(write_end, (json.dumps([k, o.status, o.message, o.seconds]) + "\n").encode())
            finally:
                os._exit(0)
        os.close(write_end)
        lines = _lines(read_end, timeout)
        try:
            while start < len(planned):
                line = next(lines, None)
                variant, mode = planned[start]
                if line is None:
                    why = "did not return" if _hung(pid) else "ended the process"
                    message = f"the variant {why} within {timeout:g}s (numpy or the rule)"
                    yield EdgeOutcome(variant, mode, "FAIL", message, timeout)
                    start += 1
                    break
                k, status, message, seconds = json.loads(line)
                yield EdgeOutcome(*planned[k], status, message, seconds)
                start = k + 1
        finally:
            os.close(read_end)
            _stop(pid)


def _lines(fd: int, timeout: float) -> Iterator[str]:
    """Lines read from ``fd``, until it ends or stays silent for ``timeout`` seconds."""
    buffer = b""
    while True:
        while b"\n" not in buffer:
            ready, _, _ = select.select([fd], [], [], timeout)
            chunk = os.read(fd, 1 << 16) if ready else b""
            if not chunk:
                return
            buffer += chunk
        line, buffer = buffer.split(b"\n", 1)
        yield line.decode()


def _hung(pid: int) -> bool:
    return os.waitpid(pid, os.WNOHANG) == (0, 0)


def _stop(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def planned_variants(
    cases: Iterable[tuple[str, Case]],
    *,
    modes: Sequence[str] | None = None,
    kinds: Sequence[str] | None = None,
    seed: int = 0,
    sample: int = 1,
) -> Iterator[tuple[EdgeVariant, str]]:
    """``(variant, mode)`` for every edge variant of the cases, duplicates across cases of one function dropped."""
    seen: set[Any] = set()
    for family, case in cases:
        for v in edge_variants(family, case, seed):
            if kinds and v.kind not in kinds:
                continue
            if v.kind in SHAPE_KINDS:
                key = (id(case.f), repr(case.kwargs), repr(case.options), v.kind, v.dtype, _signature(v.make_args(seed)))
                if key in seen:
                    continue
                seen.add(key)
            for mode in case.modes:
                if modes and mode not in modes:
                    continue
                if sample > 1 and int(hashlib.md5(f"{v.label}|{v.dtype}|{mode}".encode()).hexdigest(), 16) % sample:
                    continue
                yield v, mode


def stale_refusals(outcomes: Sequence[EdgeOutcome], families: Iterable[str]) -> list[EdgeRefusal]:
    """The refusals of ``families`` that explain no refused outcome: no longer true, to be removed."""
    used = {id(r) for o in outcomes if o.status == "refused" for r in [_refusal(o.variant, o.mode)] if r is not None}
    wanted = set(families)
    return [r for r in _REFUSALS if r.family in wanted and id(r) not in used]


# ----- the command line: python -m chainrules check --edges -----


@dataclass
class _Tally:
    variants: set[int] = field(default_factory=set)
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def summary(outcomes: Sequence[EdgeOutcome]) -> dict[str, _Tally]:
    """Per family: the variants, the runs by status, the time."""
    tallies: dict[str, _Tally] = {}
    for o in outcomes:
        t = tallies.setdefault(o.variant.family, _Tally())
        t.variants.add(id(o.variant))
        t.counts[o.status] = t.counts.get(o.status, 0) + 1
        t.seconds += o.seconds
    return tallies


def summary_table(outcomes: Sequence[EdgeOutcome]) -> str:
    """A Markdown table: one row per family, and a total."""
    tallies = summary(outcomes)
    headers = ("family", "variants", "runs", *STATUSES, "time")
    rows = []
    for family, t in sorted(tallies.items()):
        rows.append((family, len(t.variants), sum(t.counts.values()), *(t.counts.get(s, 0) for s in STATUSES), t.seconds))
    total = ("total", *(sum(r[k] for r in rows) for k in range(1, len(headers))))
    cells = [[str(c) if not isinstance(c, float) else f"{c:.1f}s" for c in row] for row in [*rows, total]]
    widths = [max(len(h), *(len(r[k]) for r in cells)) for k, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(v.ljust(w) for v, w in zip(values, widths)) + " |"

    return "\n".join([line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, cells)])


def run_edge_sweep(
    cases: Iterable[tuple[str, Case]],
    *,
    modes: Sequence[str] | None = None,
    kinds: Sequence[str] | None = None,
    seed: int = 0,
    out: TextIO | None = None,
    err: TextIO | None = None,
    progress: bool = True,
    exitfirst: bool = False,
    refusals: bool = False,
) -> int:
    """Sweep the edges of ``cases``, print a table per family and every failure; the exit status.

    A declared refusal that no variant needed fails the sweep when every
    kind and mode ran. ``refusals`` also lists each refused variant with its reason.
    """
    out, err = out or sys.stdout, err or sys.stderr
    cases = list(cases)
    start = time.perf_counter()
    last = [start]

    def report(n: int, total: int, outcome: EdgeOutcome) -> None:
        now = time.perf_counter()
        if n == total or now - last[0] > 10:
            print(f"edges: {n}/{total} runs, {now - start:.0f}s", file=err, flush=True)
            last[0] = now

    done = sweep(cases, modes=modes, kinds=kinds, seed=seed, progress=report if progress else None, exitfirst=exitfirst)
    print(summary_table(done), file=out)
    for o in done:
        if o.failed or (refusals and o.status == "refused"):
            lines = o.message.splitlines() or [""]
            detail = "\n    ".join(lines[:12] + (["..."] if len(lines) > 12 else []))
            print(f"\n{o.status} {o.variant.label} [{o.variant.dtype}, {o.mode}] ({o.variant.family})\n    {detail}", file=out)
    stale = [] if (modes or kinds or exitfirst) else stale_refusals(done, {family for family, _ in cases})
    for r in stale:
        print(f"\nSTALE refusal of {function_name(r.f)} ({r.family}, {', '.join(r.kinds)}): {r.reason}", file=out)
    failed = sum(o.failed for o in done) + len(stale)
    print(f"\n{len(done)} runs in {time.perf_counter() - start:.1f}s; {failed} failed", file=out)
    return 1 if failed else 0
