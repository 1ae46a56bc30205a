"""The checks ``test_rrule`` makes of a pullback: cotangent count and types, the identity
``<y_bar, J dx> == <x_bar, dx>`` against finite differences, and the seeds an engine may send.

The identity is checked per argument (``evaluations="adaptive"``, the
default: a one-step finite difference, refined by the step search wherever
its error allowance could turn the verdict), or for all arguments at once
with one finite difference (``evaluations="few"``), which names the
argument only once it fails.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from ..naming import keywords_note
from ..tangent_types import NoTangent, NotImplementedTangent, Tangent, Thunk, ZeroTangent, backing, primal_type, unthunk
from .checks import Setup, along, check_inner, short, zero_hint
from .diagnosis import partial_keywords, pullback_by_part
from .finite_differences import FDResult
from .layout import Vector, _Composite
from .tangents import rand_tangent
from .values import check_types, is_zero, unthunk_checked

Pullback = Callable[[Any], Any]

Group = tuple[list[int], FDResult]
"""Arguments moved together, and the finite difference ``J dx`` along their directions."""


def seed(s: Setup, output_tangent: Any) -> Any:
    """The seed: ``output_tangent`` when given, checked against the output, else a random one."""
    if output_tangent is None:
        return rand_tangent(s.y_ref, s.rng)
    problems = s.out_layout.problems(unthunk(output_tangent), "output_tangent", cotangent=False)
    if problems:
        raise ValueError(f"test_rrule({s.report.function}): " + "; ".join(problems))
    return output_tangent


def check_cotangents(s: Setup, pullback: Pullback, y_bar: Any) -> tuple[list[Vector | None], list[Any]]:
    """Pull ``y_bar`` back: one cotangent per input, each of its input's type; ``(vectors, cotangents)``.

    A vector is ``None`` where the cotangent is not implemented.
    """
    raw = pull(s, pullback, y_bar, "pullback")
    s.report.checks.append("cotangent count")
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
    check_types(s, "cotangent types", s.layouts[i], c, s.of("the cotangent", i))
    return c


def pull(s: Setup, pullback: Pullback, seed: Any, check: str) -> tuple[Any, ...]:
    """``pullback(seed)``, checked to return one cotangent per argument and one for ``f``."""
    cotangents = s.call(check, lambda: f"for the seed {short(seed)}, the pullback", pullback, seed)
    if not isinstance(cotangents, tuple) or len(cotangents) != len(s.primals):
        count = len(cotangents) if isinstance(cotangents, tuple) else f"a {type(cotangents).__name__} of"
        too_many = isinstance(cotangents, tuple) and len(cotangents) > len(s.primals)
        note = keywords_note(partial_keywords(s.f, s.kwargs)) if too_many else ""
        raise s.fail(
            "cotangent count",
            f"the pullback returned {count} cotangents; expected {len(s.primals)}: "
            f"one for the function itself, then one per positional argument{note}",
        )
    return cotangents


# ----- the identity against finite differences -----


def _where(s: Setup, indices: list[int]) -> str:
    return s.names[indices[0]] if len(indices) == 1 else "all arguments at once"


def _directions(s: Setup, indices: list[int]) -> Vector:
    return np.concatenate([s.direction(i) for i in indices])


def check_pullback(
    s: Setup, pullback: Pullback, y_bar_vec: Vector, x_bars: list[Vector | None], cotangents: list[Any], coherent: bool
) -> list[Group]:
    """``<y_bar, J dx> == <x_bar, dx>`` for each moving input, or for all at once; the finite differences.

    ``coherent``: also for the seed ``J dx`` itself (not when the seed was given).
    """
    vectors = {i: x_bar for i in s.moving() if (x_bar := x_bars[i]) is not None}
    moving = list(vectors)
    if s.few and len(moving) > 1:
        groups = [(moving, along(s, moving))]
    else:  # one step per argument, the step search where it does not settle a check
        groups = [([i], along(s, [i], provisional=True)) for i in moving]
    checked: list[Group] = []
    for indices, fd in groups:
        if len(indices) == 1:
            (i,) = indices
            hint = zero_hint(cotangents[i], s.names[i]) or pullback_by_part(s, i, y_bar_vec, vectors[i])
            fd = check_inner(s, "pullback", s.names[i], y_bar_vec, fd, vectors[i], s.direction(i), hint)
            if coherent:
                fd = _check_coherent_seed(s, pullback, indices, fd)
            checked.append((indices, fd))
            continue
        try:
            x_bar = np.concatenate([vectors[i] for i in indices])
            check_inner(s, "pullback", _where(s, indices), y_bar_vec, fd, x_bar, _directions(s, indices))
            if coherent:
                _check_coherent_seed(s, pullback, indices, fd)
            checked.append((indices, fd))
        except AssertionError:  # check each argument alone, to name the one at fault
            s.few = False
            check_pullback(s, pullback, y_bar_vec, x_bars, cotangents, coherent)
            raise
    s.report.checks.append("pullback")
    return checked


def _check_coherent_seed(s: Setup, pullback: Pullback, indices: list[int], fd: FDResult) -> FDResult:
    """The identity for the seed ``y_bar = J dx``, where every term of ``<y_bar, J dx>`` is positive.

    A random seed makes the terms of the inner product cancel, so over ``n``
    entries a relative error of the cotangent shows only about ``1/sqrt(n)``
    as strongly; this seed shows it in full.
    """
    size = float(np.max(np.abs(fd.value))) if fd.value.size else 0.0
    if size == 0:
        return fd
    seed = s.out_layout.vec_to_tangent(fd.value / size)
    seed_vec = s.out_layout.tangent_to_vec(seed)
    cotangents = [unthunk(c) for c in pull(s, pullback, seed, "pullback")]
    if any(isinstance(cotangents[i], NotImplementedTangent) for i in indices):
        return fd
    x_bar = np.concatenate([s.vec("pullback", s.layouts[i], cotangents[i], s.of("the cotangent", i)) for i in indices])
    where = f"{_where(s, indices)}, with the seed y_bar = J dx"
    hint = zero_hint(cotangents[indices[0]], s.names[indices[0]]) if len(indices) == 1 else ""
    return check_inner(s, "pullback", where, seed_vec, fd, x_bar, _directions(s, indices), hint)


# ----- the seeds an engine may send -----


def check_thunked_seed(s: Setup, pullback: Pullback, y_bar: Any, x_bars: list[Vector | None]) -> None:
    """The seed wrapped in a ``Thunk`` gives the same cotangents."""
    thunked = pull(s, pullback, Thunk(lambda: copy.deepcopy(y_bar)), "thunked seed")
    for i, c in enumerate(thunked):
        c = unthunk(c)
        first = x_bars[i]
        if first is None or isinstance(c, NotImplementedTangent):
            continue
        again = s.vec("thunked seed", s.layouts[i], c, s.of("the cotangent", i))
        if not np.allclose(again, first, rtol=1e-12, atol=1e-12 * np.max(np.abs(first), initial=0.0)):
            raise s.fail("thunked seed", f"a thunked seed changed the cotangent of {s.names[i]}")
    s.report.checks.append("thunked seed")


def check_whole_zero_seed(s: Setup, pullback: Pullback) -> None:
    """A whole ``ZeroTangent()`` seed gives zero cotangents (``check_zero_seed=True``)."""
    for i, c in enumerate(pull(s, pullback, ZeroTangent(), "zero seed")):
        c = unthunk(c)
        if isinstance(c, NotImplementedTangent) or is_zero(c):
            continue
        if np.any(s.vec("zero seed", s.layouts[i], c, s.of("the cotangent", i)) != 0):
            raise s.fail("zero seed", f"a ZeroTangent() seed gave a non-zero cotangent for {s.names[i]}")
    s.report.checks.append("zero seed")


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


def check_partial_seeds(s: Setup, pullback: Pullback, y_bar: Any, groups: list[Group]) -> None:
    """Structured outputs: a seed with ``ZeroTangent()`` for one entry gives the matching cotangents."""
    layout = s.out_layout
    if not isinstance(layout, _Composite) or sum(child.size > 0 for _, child in layout.children) < 2:
        return
    check = "zero entry in a tuple seed"
    offsets = np.cumsum([0] + [child.size for _, child in layout.children])
    full = layout.tangent_to_vec(y_bar)
    for j, (key, child) in enumerate(layout.children):
        seed = _with_zero_entry(y_bar, key) if child.size else None
        if seed is None:
            continue
        masked = full.copy()
        masked[offsets[j] : offsets[j + 1]] = 0
        cotangents = [unthunk(c) for c in pull(s, pullback, seed, check)]
        for indices, fd in groups:
            if any(isinstance(cotangents[i], NotImplementedTangent) for i in indices):
                continue
            x_bar = np.concatenate(
                [s.vec(check, s.layouts[i], cotangents[i], s.of("the cotangent", i)) for i in indices]
            )
            where = f"{_where(s, indices)}, with output entry {key!r} seeded by ZeroTangent()"
            check_inner(s, check, where, masked, fd, x_bar, _directions(s, indices))
    s.report.checks.append(check)
