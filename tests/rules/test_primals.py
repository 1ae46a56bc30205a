"""A rule's primal is the function's value, bit for bit, on every declared case; chainrules/checks/primals.py lists
the exceptions and their bounds."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from chainrules.checks.primals import INEXACT_PRIMALS, InexactPrimal
from chainrules.cli import planned_runs
from chainrules_core import fast_paths, frule, rrule
from chainrules_core.testing import rand_tangent
from chainrules_core.testing.cases import Case
from chainrules_core.testing.tangents import PrimalAndTangent

Declared = tuple[Case, str, tuple[str, ...]]


def _declared() -> dict[str, list[Declared]]:
    """``(case, dtype, modes)`` of every declared case by family, as ``python -m chainrules check`` plans them."""
    modes: dict[tuple[str, int, str], list[str]] = {}
    cases: dict[tuple[str, int, str], Case] = {}
    for run in planned_runs(None):
        key = (run.family, id(run.case), run.dtype)
        cases[key] = run.case
        modes.setdefault(key, []).append(run.mode)
    families: dict[str, list[Declared]] = {}
    for key, case in cases.items():
        families.setdefault(key[0], []).append((case, key[2], tuple(modes[key])))
    return families


DECLARED = _declared()

SHORTCUT = {
    id(record.primal)
    for registry in (rrule, frule)
    for record in registry.records()
    if record.fast_path is not None or record.exact_paths
}
"""The primals with a fast path: the others answer the same with fast paths on and off, and run once."""


# ----- comparing -----


def _ulps(got: np.ndarray, want: np.ndarray) -> float:
    """The largest difference of two real float arrays of finite entries, in units in the last place of ``want``."""
    if not want.size:
        return 0.0
    return float(np.max(np.abs(got - want) / np.spacing(np.abs(want))))


def _real_difference(got: np.ndarray, want: np.ndarray, ulps: float) -> str | None:
    nan = np.isnan(want)
    if not np.array_equal(nan, np.isnan(got)):
        return "NaN at other entries"
    got, want = got[~nan], want[~nan]
    finite = np.isfinite(want)
    if not np.array_equal(got[~finite], want[~finite]) or not np.isfinite(got[finite]).all():
        return "infinities at other entries"
    got, want = got[finite], want[finite]
    if ulps == 0.0 and np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want)):
        return None
    worst = _ulps(got, want)
    if worst == 0.0 and ulps == 0.0:
        return "zeros of the other sign"
    return None if worst <= ulps else f"values {worst:.3g} ulps apart"


def _array_difference(got: np.ndarray, want: np.ndarray, ulps: float) -> str | None:
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"{got.dtype} {got.shape} where f gives {want.dtype} {want.shape}"
    if want.dtype.kind == "c":
        return _real_difference(got.real, want.real, ulps) or _real_difference(got.imag, want.imag, ulps)
    if want.dtype.kind == "f":
        return _real_difference(got, want, ulps)
    if want.dtype.kind == "O":
        return _entries_difference(list(got.ravel()), list(want.ravel()), ulps)
    return None if np.array_equal(got, want) else "other values"


def _entries_difference(got: list[Any] | tuple[Any, ...], want: list[Any] | tuple[Any, ...], ulps: float) -> str | None:
    if len(got) != len(want):
        return f"{len(got)} entries where f gives {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        problem = difference(g, w, ulps)
        if problem:
            return f"entry {k}: {problem}"
    return None


def difference(got: Any, want: Any, ulps: float = 0.0) -> str | None:
    """What tells the rule's primal ``got`` from ``f``'s value ``want``: the type, the dtype, the shape, or a value
    (bit for bit, or within ``ulps``); ``None`` where nothing does."""
    if type(got) is not type(want):
        return f"a {type(got).__name__} where f gives a {type(want).__name__}"
    if isinstance(want, (np.ndarray, np.generic, float, complex)):
        return _array_difference(np.asarray(got), np.asarray(want), ulps)
    if isinstance(want, (tuple, list)):
        return _entries_difference(got, want, ulps)
    if isinstance(want, dict):
        if list(got) != list(want):
            return f"keys {list(got)} where f gives {list(want)}"
        return _entries_difference(list(got.values()), list(want.values()), ulps)
    if hasattr(want, "__dict__"):
        return difference(vars(got), vars(want), ulps)
    return None if got == want else f"{got!r} where f gives {want!r}"


def test_difference_sees_every_bit():
    """The comparison tells apart what ``np.array_equal`` would not: a zero's sign, a type, a scalar's kind."""
    assert difference(np.array([0.0, np.nan]), np.array([0.0, np.nan])) is None
    assert difference(np.array([-0.0]), np.array([0.0])) == "zeros of the other sign"
    assert difference(np.float64(1.0), 1.0) == "a float64 where f gives a float"
    assert difference(np.array([1.0 + np.spacing(1.0)]), np.array([1.0])) == "values 1 ulps apart"
    assert difference(np.array([1.0 + np.spacing(1.0)]), np.array([1.0]), ulps=1.0) is None
    assert difference((np.float64(1.0), np.array([2.0j])), (np.float64(1.0), np.array([-2.0j]))) is not None


# ----- running the declared cases -----


def _strided(a: np.ndarray) -> np.ndarray:
    base = np.zeros((*a.shape[:-1], 2 * a.shape[-1]), dtype=a.dtype)
    base[..., ::2] = a
    return base[..., ::2]


def _layouts(args: tuple[Any, ...]) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """The arguments as made (C order), then each array argument in Fortran order and strided, one at a time."""
    yield "C order", args
    for k, a in enumerate(args):
        if isinstance(a, np.ndarray) and a.ndim and a.size:
            forms = {"strided": _strided(a)}
            if sum(n > 1 for n in a.shape) >= 2:
                forms["Fortran order"] = np.asfortranarray(a)
            for name, made in forms.items():
                yield f"argument {k + 1} {name}", (*args[:k], made, *args[k + 1 :])


def _primal(case: Case, mode: str, args: tuple[Any, ...], tangents: tuple[Any, ...]) -> Any:
    head = (case.options["config"],) if "config" in case.options else ()
    if mode == "rrule":
        result = rrule(*head, case.f, *args, **case.kwargs)
    else:
        result = frule(*head, tangents, case.f, *args, **case.kwargs)
    if result is None:
        raise AssertionError("no rule answered the call")
    return result[0]


def primal_differences(
    case: Case, dtype: str, modes: tuple[str, ...], exceptions: tuple[InexactPrimal, ...] = INEXACT_PRIMALS
) -> Iterator[tuple[str, str | None]]:
    """``(where, difference)`` of the case's rules against ``f`` in each layout and mode, with fast paths on and off
    where ``f`` has one (held to the bound of the entry of ``exceptions`` that covers it, if any)."""
    made = case.make_args(np.random.default_rng(0), dtype)
    args = tuple(a.primal if isinstance(a, PrimalAndTangent) else a for a in made)
    rng = np.random.default_rng(1)
    tangents = tuple(a.tangent if isinstance(a, PrimalAndTangent) else rand_tangent(a, rng) for a in (case.f, *made))
    for layout, call in _layouts(args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = case.f(*call, **case.kwargs)
            for fast in (True, False) if id(case.f) in SHORTCUT or id(type(case.f)) in SHORTCUT else (True,):
                entry = next((e for e in exceptions if e.covers(case, fast)), None)
                with fast_paths(fast):
                    for mode in modes:
                        where = f"{mode}, {layout}, fast paths {'on' if fast else 'off'}"
                        try:
                            got = _primal(case, mode, call, tangents)
                        except Exception as err:  # a rule that fails where f answers is a difference too
                            yield where, f"{type(err).__name__}: {err}"
                            continue
                        yield where, difference(got, want, 0.0 if entry is None else entry.ulps)


@pytest.mark.parametrize("family", sorted(DECLARED))
def test_the_primal_is_the_function_s_value(family: str) -> None:
    """Every declared case of the family: the rules' primal is ``f``'s value, in every layout, fast paths on and off."""
    failures = [
        f"{case.label} [{dtype}] {where}: {problem}"
        for case, dtype, modes in DECLARED[family]
        for where, problem in primal_differences(case, dtype, modes)
        if problem
    ]
    assert not failures, f"{len(failures)} primals differ from f's:\n" + "\n".join(failures[:30])


@pytest.mark.parametrize("entry", INEXACT_PRIMALS, ids=lambda e: f"{e.function} {e.cases}")
def test_every_exception_covers_declared_cases_that_differ(entry: InexactPrimal) -> None:
    """An entry names declared cases whose primal is not ``f``'s bit for bit: one whose rule became exact goes."""
    covered = [
        (case, dtype, modes)
        for declared in DECLARED.values()
        for case, dtype, modes in declared
        if entry.covers(case, fast=True)
    ]
    assert covered, f"{entry.function}: no declared case is named {entry.cases!r}"
    inexact = [
        where
        for case, dtype, modes in covered
        for where, problem in primal_differences(case, dtype, modes, exceptions=())
        if problem
    ]
    assert inexact, f"{entry.function} {entry.cases}: every primal is f's value; remove the entry"
