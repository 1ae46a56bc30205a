"""The checks on values rather than derivatives: the types of tangents, the primal, and mutation."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..tangent_types import AbstractZero, InplaceableThunk, Tangent, backing, primal_type, unthunk
from .checks import Setup, _max_abs, preview
from .layout import Layout, Vector, kind_of, layout_of
from .tolerances import PRIMAL_RTOL, lowest_precision

_NUMBERS = (bool, int, float, complex, str, bytes, type(None), np.generic, np.ndarray)


def check_types(s: Setup, check: str, layout: Layout, t: Any, where: str, cotangent: bool = True) -> None:
    problems = layout.problems(t, where, cotangent)
    if problems:
        raise s.fail(check, "; ".join(problems))


def _scalar_like(x: Any) -> bool:
    return isinstance(x, (int, float, complex, np.generic)) or (isinstance(x, np.ndarray) and x.ndim == 0)


def check_primal(s: Setup, y: Any) -> None:
    """The rule's primal output has the type, shape, dtype and values of ``f``'s."""
    y_ref, layout = s.y_ref, s.out_layout
    same_type = type(y) is type(y_ref) or (
        _scalar_like(y) and _scalar_like(y_ref) and np.asarray(y).dtype == np.asarray(y_ref).dtype
    )
    if not same_type:
        raise s.fail("primal", f"the rule returned {kind_of(y)} but the function {kind_of(y_ref)}")
    for attr in ("shape", "dtype"):
        if hasattr(y_ref, attr) and getattr(y, attr, None) != getattr(y_ref, attr):
            if not hasattr(y, attr):  # a Python number has neither
                raise s.fail("primal", f"the rule returned {kind_of(y)}, f {kind_of(y_ref)}")
            raise s.fail("primal", f"{attr} {getattr(y, attr)} from the rule, {getattr(y_ref, attr)} from f")
    try:
        got, want = layout.to_vec(y), layout.to_vec(y_ref)
        constants_agree = equal_constants(layout.constants(y), layout.constants(y_ref))
    except (TypeError, ValueError, AttributeError, KeyError, IndexError) as err:
        raise s.fail("primal", f"the rule's output does not have the structure of f's: {err}") from None
    if not constants_agree:
        raise s.fail("primal", "the non-differentiable parts of the rule's output (ints, strings ...) differ from f's")
    rtol = PRIMAL_RTOL[lowest_precision(y_ref)]
    if got.shape != want.shape or not np.allclose(got, want, rtol=rtol, atol=rtol * _max_finite(want), equal_nan=True):
        raise s.fail("primal", f"the rule's primal {preview(got)} differs from f's {preview(want)}")


def _max_finite(v: Vector) -> float:
    finite = v[np.isfinite(v)]
    return float(np.max(np.abs(finite))) if finite.size else 0.0


def equal_constants(xs: list[Any], ys: list[Any]) -> bool:
    """Whether two lists of non-differentiable values agree; values of unknown types are not compared."""
    if len(xs) != len(ys):
        return False
    for a, b in zip(xs, ys):
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)):
                return False
        elif isinstance(a, _NUMBERS) and isinstance(b, _NUMBERS):
            if type(a) is not type(b) and not (_scalar_like(a) and _scalar_like(b)):
                return False
            if not bool(a == b):
                return False
    return True


def snapshot(values: Any) -> Any:
    """A deep copy of ``values`` to detect mutation; ``None`` entries where copying is impossible."""
    copies = []
    for v in values:
        try:
            copies.append(copy.deepcopy(v))
        except Exception:
            copies.append(None)
    return copies


def same(a: Any, b: Any) -> bool:
    """Whether ``b`` holds the values of ``a`` (arrays by value, structures by their vectors and constants)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
        )
    if isinstance(a, Tangent) or isinstance(b, Tangent):
        both = isinstance(a, Tangent) and isinstance(b, Tangent)
        return both and primal_type(a) is primal_type(b) and same(backing(a), backing(b))
    layout = layout_of(a)
    try:
        other = layout_of(b)
        vectors_agree = layout.size == other.size and bool(
            np.array_equal(layout.to_vec(a), other.to_vec(b), equal_nan=True)
        )
        return vectors_agree and equal_constants(layout.constants(a), other.constants(b))
    except (ValueError, TypeError, AttributeError, KeyError, IndexError):
        return False


def check_not_mutated(s: Setup, before: list[Any], after: list[Any], names: list[str]) -> None:
    for b, a, name in zip(before, after, names):
        if b is not None and not same(b, a):
            raise s.fail("mutation", f"the rule modified {name} in place")


def unthunk_checked(s: Setup, check: str, t: Any, primal: Any, where: str) -> Any:
    """Force a returned thunk, checking that an in-place thunk adds what it holds."""
    value = s.call(check, f"unthunking the cotangent of {where}", unthunk, t)
    if isinstance(t, InplaceableThunk) and isinstance(primal, np.ndarray) and primal.dtype.kind in "fc":
        acc = np.asarray(s.rng.standard_normal(primal.shape)).astype(primal.dtype)
        expected = acc + value
        got = s.call(check, f"the in-place add of the cotangent of {where}", t.add, acc.copy())
        if not np.allclose(got, expected, rtol=1e-6, atol=1e-12 * (1 + _max_abs(np.abs(expected).ravel()))):
            raise s.fail(check, f"{where}: the in-place add of an InplaceableThunk disagrees with its value")
    return value


def is_zero(t: Any) -> bool:
    return isinstance(t, AbstractZero)
