"""The same call, other forms: a rule must give the same numbers whatever path or memory layout it meets.

``test_frule`` and ``test_rrule`` with ``variants=True`` (the declared cases
run with it) call the rule again, beside the call finite differences
checked, with

* fast paths off (``chainrules_core.fast_paths``): the general rule alone;
* each array seed or tangent as a strided view, Fortran-ordered and
  read-only, and a 0-d seed as a 0-d array, a numpy scalar and a Python
  number;
* each array argument as a strided view, Fortran-ordered and read-only,
  wherever ``f`` itself gives the same numbers on it;

and compares the results with the first call's: the primal, the tangent or
every cotangent, their types and, to ``SAME_RTOL`` of the largest entry,
their values. No variant may change an argument, a seed or a tangent (a
read-only one raises where a rule writes into it). Each costs one call of
the rule: O(1) in the input size.

With ``wrong_shape=True`` (the declared cases of this package run with it),
a seed or tangent whose shape only broadcasts to the output's (or the
argument's) must be refused: ``ValueError`` naming the function and both
shapes, never a number (``check_wrong_seed``, ``check_wrong_tangent``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..fast_paths import fast_paths
from ..rules import frule, rrule
from ..tangent_types import AbstractZero, NoTangent, Tangent, Thunk, backing, primal_type, unthunk
from .checks import Setup, preview, short
from .layout import Layout, Vector, kind_of
from .tolerances import lowest_precision
from .values import check_not_mutated, snapshot

SAME_RTOL: dict[str, float] = {"float16": 1e-2, "float32": 1e-5, "float64": 1e-12}
"""Two paths of one rule agree to this, relative to the largest entry: a fast path may round otherwise."""

VARIANTS = ("fast paths off", "strided", "Fortran-ordered", "read-only", "0-d array", "numpy scalar", "Python number")
"""The forms a variant check tries."""


# ----- the forms of one value -----


def _strided(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any] | None:
    """``a``'s values in a view with a step of 2 along its last axis; ``None`` for a 0-d or empty array."""
    if a.ndim == 0 or a.size == 0:
        return None
    base = np.zeros((*a.shape[:-1], 2 * a.shape[-1]), dtype=a.dtype)
    view = base[..., ::2]
    view[...] = a
    return view


def _fortran(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any] | None:
    """``a`` in Fortran order; ``None`` where that is C order too (fewer than two axes longer than 1)."""
    if sum(n > 1 for n in a.shape) < 2:
        return None
    return np.asfortranarray(a)


def _read_only(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    view = a.copy()
    view.setflags(write=False)
    return view


_ARRAY_FORMS: dict[str, Callable[[np.ndarray[Any, Any]], np.ndarray[Any, Any] | None]] = {
    "strided": _strided,
    "Fortran-ordered": _fortran,
    "read-only": _read_only,
}


def _scalar_forms(v: Any) -> dict[str, Any]:
    """A 0-d value (array, numpy or Python scalar) as each of the three."""
    if not isinstance(v, (float, complex, np.generic, np.ndarray)):
        return {}
    a = np.asarray(v)
    if a.ndim or a.dtype.kind not in "fc":
        return {}
    python = complex(a) if a.dtype.kind == "c" else float(a)
    return {"0-d array": a.copy(), "numpy scalar": a.dtype.type(a), "Python number": python}


def _forms(t: Any) -> Iterator[tuple[str, Any]]:
    """``(form, t in it)`` for every form that differs from ``t``: arrays in other layouts, 0-d values as other
    scalars; in a tuple or list (a ``Tangent`` too), one entry at a time."""
    t = unthunk(t)
    if isinstance(t, np.ndarray) and t.ndim:
        for name, make in _ARRAY_FORMS.items():
            made = make(t)
            if made is not None:
                yield name, made
        return
    for name, value in _scalar_forms(t).items():
        if type(value) is not type(t) or (isinstance(value, np.ndarray) and not isinstance(t, np.ndarray)):
            yield name, value
    if isinstance(t, Tangent) and primal_type(t) in (tuple, list):
        entries = list(backing(t))
        for k, entry in enumerate(entries):
            for name, value in _forms(entry):
                yield f"{name} entry {k}", Tangent(primal_type(t), *entries[:k], value, *entries[k + 1 :])
    elif isinstance(t, (tuple, list)):
        for k, entry in enumerate(t):
            for name, value in _forms(entry):
                yield f"{name} entry {k}", type(t)([*t[:k], value, *t[k + 1 :]])


def _wrong_shape(t: Any) -> Any:
    """An array that broadcasts to ``t``'s shape without having it (``(1, 1)`` for ``(2, 3)``, ``(1,)`` for a
    scalar); ``None`` for an empty value or one without a shape."""
    t = unthunk(t)
    if isinstance(t, (float, complex, np.generic)) or (isinstance(t, np.ndarray) and t.dtype.kind in "fc"):
        a = np.asarray(t)
        if a.size == 0:
            return None
        shape = (1,) * a.ndim if a.size > 1 else (1,) * (a.ndim + 1)
        return np.ones(shape, dtype=a.dtype)
    return None


# ----- comparing -----


def _agree(
    s: Setup, layout: Layout, got: Any, want: Vector, what: str, check: str, where: str, cotangent: bool
) -> None:
    """``got`` has ``layout``'s types and the values of the vector ``want``, to ``SAME_RTOL``."""
    got_vec = s.vec(check, layout, got, f"{where}, {what}", cotangent)
    rtol = SAME_RTOL[lowest_precision(*s.primals, s.y_ref)]
    scale = float(np.max(np.abs(want[np.isfinite(want)]), initial=0.0))
    same_nan = np.array_equal(np.isnan(got_vec), np.isnan(want))
    finite = np.isfinite(want) & np.isfinite(got_vec)
    close = np.all(np.abs(got_vec[finite] - want[finite]) <= rtol * scale)
    same_inf = np.array_equal(got_vec[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    if not (same_nan and close and same_inf):
        raise s.fail(check, f"{where}: {what} is {preview(got_vec)}, but {preview(want)} in the first call")


def _primal_agrees(s: Setup, y: Any) -> bool:
    try:
        got = s.out_layout.to_vec(y)
    except (TypeError, ValueError, AttributeError, KeyError, IndexError):
        return False
    want = s.out_layout.to_vec(s.y_ref)
    rtol = SAME_RTOL[lowest_precision(s.y_ref)]
    scale = float(np.max(np.abs(want[np.isfinite(want)]), initial=0.0))
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=0, atol=rtol * scale, equal_nan=True))


def _argument_forms(s: Setup) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """``(label, args)`` with one array argument in another layout."""
    for k, a in enumerate(s.args):
        if isinstance(a, np.ndarray) and a.ndim:
            for name, make in _ARRAY_FORMS.items():
                made = make(a)
                if made is not None:
                    yield f"{s.names[k + 1]} {name}", (*s.args[:k], made, *s.args[k + 1 :])


def _call(s: Setup, mode: str, args: tuple[Any, ...], tangents: tuple[Any, ...] | None = None) -> Any:
    head = () if s.config is None else (s.config,)
    if mode == "rrule":
        return rrule(*head, s.f, *args, **s.kwargs)
    return frule(*head, tangents, s.f, *args, **s.kwargs)


# ----- rrule -----


def check_rrule_variants(s: Setup, y_bar: Any, x_bars: list[Vector | None]) -> None:
    """The pullback of ``y_bar`` in every variant gives the cotangents ``x_bars`` of the first call."""
    check = "variants"

    def pulled(where: str, args: tuple[Any, ...], seed: Any) -> None:
        watched = [*args, seed]
        before = snapshot(watched)
        result = s.call(check, f"{where}: the rrule", _call, s, "rrule", args)
        if result is None:
            raise s.fail(check, f"{where}: the rrule answered None")
        y, pullback = result
        if not _primal_agrees(s, y):
            raise s.fail(check, f"{where}: the primal {short(y)} differs from the first call's {short(s.y_ref)}")
        bars = s.call(check, f"{where}: the pullback", pullback, seed)
        for i, (bar, want) in enumerate(zip(bars, x_bars)):
            if want is not None:
                _agree(s, s.layouts[i], bar, want, s.of("the cotangent", i), check, where, True)
        check_not_mutated(s, before, watched, [*(f"{where}: {n}" for n in s.names[1:]), f"{where}: the seed"])

    with fast_paths(False):
        pulled("with fast paths off", s.args, y_bar)
    for form, value in _forms(y_bar):
        pulled(f"a {form} seed", s.args, value)
    for label, args in _argument_forms(s):
        if _primal_agrees(s, s.f(*args, **s.kwargs)):
            pulled(label, args, y_bar)
    s.report.checks.append(check)


def check_wrong_seed(s: Setup, y_bar: Any) -> None:
    """A seed that only broadcasts to the output's shape: ``ValueError`` naming the function and both shapes."""
    y_bar = unthunk(y_bar)
    if isinstance(y_bar, (Tangent, tuple, list)):
        if isinstance(y_bar, Tangent) and primal_type(y_bar) not in (tuple, list):
            return
        entries = list(backing(y_bar) if isinstance(y_bar, Tangent) else y_bar)
        k = next((k for k, e in enumerate(entries) if _wrong_shape(e) is not None), None)
        if k is None:
            return
        right, wrong = unthunk(entries[k]), _wrong_shape(entries[k])
        changed = [*entries[:k], wrong, *entries[k + 1 :]]
        bad = Tangent(primal_type(y_bar), *changed) if isinstance(y_bar, Tangent) else type(y_bar)(changed)
    else:
        wrong = _wrong_shape(y_bar)
        if wrong is None:
            return
        right, bad = y_bar, wrong
    _, pullback = s.call("wrong shape", "the rrule", _call, s, "rrule", s.args)
    what = f"a seed of shape {wrong.shape} for an output {_of_shape(right)}"
    _refused(s, lambda: pullback(bad), what, wrong, np.shape(right))


def _of_shape(x: Any) -> str:
    """``of shape (3,)``; ``(a Python float)`` for a value without a shape."""
    return f"of shape {x.shape}" if hasattr(x, "shape") else f"({kind_of(x)})"


def _refused(s: Setup, call: Callable[[], Any], what: str, wrong: np.ndarray[Any, Any], want: tuple[int, ...]) -> None:
    try:
        call()
    except ValueError as err:
        message = str(err)
        missing = [text for text in (s.report.function, str(wrong.shape), str(tuple(want))) if text not in message]
        if missing:
            raise s.fail(
                "wrong shape", f"{what} raised ValueError({message!r}), which does not name {', '.join(missing)}"
            ) from None
        s.report.checks.append("wrong shape")
        return
    except Exception as err:
        raise s.fail("wrong shape", f"{what} raised {type(err).__name__}: {err}; expected a ValueError") from err
    raise s.fail("wrong shape", f"{what} was accepted; a rule refuses it with a ValueError naming both shapes")


# ----- frule -----


def check_frule_variants(s: Setup, tangents: tuple[Any, ...], y_dot_vec: Vector) -> None:
    """The pushforward of ``tangents`` in every variant gives the output tangent ``y_dot_vec`` of the first call."""
    check = "variants"

    def pushed(where: str, args: tuple[Any, ...], dots: tuple[Any, ...]) -> None:
        watched = [*args, *dots]
        before = snapshot(watched)
        result = s.call(check, f"{where}: the frule", _call, s, "frule", args, dots)
        if result is None:
            raise s.fail(check, f"{where}: the frule answered None")
        y, y_dot = result
        if not _primal_agrees(s, y):
            raise s.fail(check, f"{where}: the primal {short(y)} differs from the first call's {short(s.y_ref)}")
        _agree(s, s.out_layout, y_dot, y_dot_vec, "the output tangent", check, where, False)
        names = [*(f"{where}: {n}" for n in s.names[1:]), *(f"{where}: the tangent of {n}" for n in s.names)]
        check_not_mutated(s, before, watched, names)

    with fast_paths(False):
        pushed("with fast paths off", s.args, tangents)
    for k, t in enumerate(tangents):
        for form, value in _forms(t) if not isinstance(t, (AbstractZero, NoTangent)) else ():
            pushed(f"a {form} tangent of {s.names[k]}", s.args, (*tangents[:k], value, *tangents[k + 1 :]))
    for label, args in _argument_forms(s):
        if _primal_agrees(s, s.f(*args, **s.kwargs)):
            pushed(label, args, tangents)
    s.report.checks.append(check)


def check_wrong_tangent(s: Setup, tangents: tuple[Any, ...]) -> None:
    """A tangent that only broadcasts to its argument's shape, for each argument in turn: ``ValueError`` naming the
    function and both shapes."""
    for k in range(1, len(tangents)):
        if not s.differentiable(k) or isinstance(tangents[k], Thunk):
            continue
        wrong = _wrong_shape(tangents[k])
        if wrong is not None and isinstance(s.primals[k], (np.ndarray, float, complex, np.generic)):
            bad = (*tangents[:k], wrong, *tangents[k + 1 :])
            what = f"a tangent of shape {wrong.shape} for {s.names[k]} {_of_shape(s.primals[k])}"
            _refused(s, functools.partial(_call, s, "frule", s.args, bad), what, wrong, np.shape(s.primals[k]))
