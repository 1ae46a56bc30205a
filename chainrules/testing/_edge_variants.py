"""Edge variants of declared cases, and the refusals declared beside them (see ``edges``)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from chainrules_core import NoTangent
from chainrules_core.naming import function_name
from chainrules_core.testing.cases import Arg, Case, Domain, Nonzero
from chainrules_core.testing.tangents import PrimalAndTangent

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
"""Derivatives below this are zero when deciding whether two values agree."""

TINY = float(np.finfo(np.float64).tiny)
"""The smallest normal float64: partial derivatives below it are 0 to the rules."""

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
            return type(x)(x * s)  # type: ignore[operator, arg-type]
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
    variants: list[EdgeVariant] = []
    seen: set[Any] = set()
    factor: list[float]
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


def _nonfinite_edits(
    case: Case, leaves: list[tuple[Path, Any]]
) -> list[tuple[str, str, dict[Path, Callable[[Any], Any]]]]:
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
