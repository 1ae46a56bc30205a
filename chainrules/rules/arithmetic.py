"""Rules for numpy's elementwise functions of two arguments, with broadcasting, and ``clip``.

* The table ``BINARY`` in ``_derivatives``: ``multiply``, ``divide``,
  ``maximum``, ``minimum``, ``arctan2``, ``hypot``, ``logaddexp``,
  ``remainder`` through ``scalar_rule``; ``add`` and ``subtract`` pass the
  cotangent on (read-only) or negate it.
* ``power``: both arguments; the exponent's cotangent is a thunk, as it
  needs a logarithm and the exponent is usually a constant.
* ``clip(x, lo, hi)``, bounds scalars, arrays or None.

Each cotangent is summed back to its argument's shape and projected onto
it. Calls with ``out=`` or ``where=`` (or positional output buffers) get no
rule: ``frule`` and ``rrule`` return ``None``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, Thunk, frule, rrule, scalar_rule, unthunk
from chainrules_core.projection import ProjectTo, shape_of
from chainrules_core.testing import (
    NONZERO,
    REAL_ONLY,
    REALS,
    Arg,
    At,
    Case,
    Domain,
    register_cases,
    with_tangent,
)

from ._cases import REAL_DTYPES, away_from_multiples, table_cases
from ._derivatives import BINARY, power_dp, power_dx
from ._makers import linear_rule, pull, push, refused, zero_of

for _f, _entry in BINARY.items():
    if _f in (np.power, np.float_power):
        continue  # below
    if _entry.constant:
        linear_rule(_f, _entry, nin=2)
    else:
        scalar_rule(_f, _entry.bind_numpy())


# ----- power -----


def _power_args(x: Any, p: Any, out: Any) -> tuple[Any, Any]:
    """``x`` and ``p`` as the power saw them: a real base of a complex power is complex, so its log is too."""
    if np.iscomplexobj(out) and not np.iscomplexobj(x):
        x = np.asarray(x, dtype=np.result_type(out))
    return x, p


@rrule.register(np.power)
@rrule.register(np.float_power)
def _rrule_power(f: Any, *args: Any, **kwargs: Any) -> Any:
    if refused(2, args, kwargs):
        return None
    x, p = args
    out = f(x, p, **kwargs)
    project_x, project_p = ProjectTo(x), ProjectTo(p)
    shape_x, shape_p = shape_of(x), shape_of(p)

    def power_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), zero_of(project_x), zero_of(project_p)
        xc, pc = _power_args(x, p, out)
        x_bar = NoTangent() if project_x.is_no_tangent else pull(project_x, shape_x, power_dx(np, out, xc, pc), out_bar)
        if project_p.is_no_tangent:
            return NoTangent(), x_bar, NoTangent()
        p_bar = Thunk(lambda: pull(project_p, shape_p, power_dp(np, out, xc, pc), out_bar))
        return NoTangent(), x_bar, p_bar

    return out, power_pullback


@frule.register(np.power)
@frule.register(np.float_power)
def _frule_power(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
    if refused(2, args, kwargs):
        return None
    x, p = args
    _, x_dot, p_dot = tangents
    out = f(x, p, **kwargs)
    xc, pc = _power_args(x, p, out)
    terms = []
    if not isinstance(x_dot, AbstractZero) and not ProjectTo(x).is_no_tangent:
        terms.append(power_dx(np, out, xc, pc) * unthunk(x_dot))
    if not isinstance(p_dot, AbstractZero) and not ProjectTo(p).is_no_tangent:
        terms.append(power_dp(np, out, xc, pc) * unthunk(p_dot))
    return out, push(out, terms)


# ----- clip -----


def _clip_bounds(bounds: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """``(lo, hi)`` given positionally or as ``a_min``/``a_max`` (or numpy 2.1's ``min``/``max``); None if absent."""
    values = list(bounds) + [None] * (2 - len(bounds))
    for i, names in enumerate((("a_min", "min"), ("a_max", "max"))):
        for name in names:
            if values[i] is None and kwargs.get(name, np._NoValue) is not np._NoValue:
                values[i] = kwargs[name]
    return values[0], values[1]


def _clip_masks(x: Any, lo: Any, hi: Any) -> tuple[Any, Any, Any]:
    """Where the output follows x, lo and hi: ``clip`` is ``minimum(maximum(x, lo), hi)``.

    At a bound the output follows x (the subgradient 1, as ChainRules.jl and
    PyTorch; autograd gives 0). Where lo > hi numpy returns hi, so hi takes
    the cotangent there.
    """
    raised = x if lo is None else np.maximum(x, lo)
    below_hi = True if hi is None else raised <= hi
    x_mask = below_hi if lo is None else (x >= lo) & below_hi
    lo_mask = None if lo is None else (x < lo) & below_hi
    hi_mask = None if hi is None else raised > hi
    return x_mask, lo_mask, hi_mask


@rrule.register(np.clip)
def _rrule_clip(f: Any, x: Any, *bounds: Any, **kwargs: Any) -> Any:
    if refused(3, (x, *bounds), kwargs):
        return None
    out = f(x, *bounds, **kwargs)
    lo, hi = _clip_bounds(bounds, kwargs)
    args = (x, *bounds)
    projects = [ProjectTo(a) for a in args]
    shapes = [shape_of(a) for a in args]

    def clip_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return (NoTangent(), *map(zero_of, projects))
        masks = _clip_masks(x, lo, hi)
        return (NoTangent(), *(pull(pr, sh, m, out_bar) for pr, sh, m in zip(projects, shapes, masks)))

    return out, clip_pullback


@frule.register(np.clip)
def _frule_clip(tangents: tuple[Any, ...], f: Any, x: Any, *bounds: Any, **kwargs: Any) -> Any:
    if refused(3, (x, *bounds), kwargs):
        return None
    out = f(x, *bounds, **kwargs)
    lo, hi = _clip_bounds(bounds, kwargs)
    masks = _clip_masks(x, lo, hi)
    terms = [
        m * unthunk(t)
        for a, t, m in zip((x, *bounds), tangents[1:], masks)
        if not isinstance(t, AbstractZero) and not ProjectTo(a).is_no_tangent
    ]
    return out, push(out, terms)


# ----- declared checks -----

NEGATIVE = Domain(-math.inf, 0.0, name="negative")


def _cases() -> list[Case]:
    cases = []
    for f, entry in BINARY.items():
        if f not in (np.remainder, np.fmod):
            cases += table_cases(f, entry)
    for f in (np.maximum, np.minimum):
        cases.append(Case(f, (At([1.0, -0.5, 2.0]), At([1.0, 0.3, -2.0])), name="ties"))
    # remainder: inputs a quarter period from the jumps, where x / y is an integer
    divisors = [1.5, -2.0, 0.7]
    cases += [
        Case(np.remainder, (away_from_multiples(divisors, (2, 3)), At(divisors)), dtypes=REAL_DTYPES),
        Case(np.remainder, (away_from_multiples(1.3, None), At(1.3)), dtypes=("float64",)),
        Case(np.remainder, (away_from_multiples(-0.8, ()), At(-0.8)), dtypes=REAL_DTYPES),
        Case(np.remainder, (At([[0.4, 2.6, -3.3]]), At([[1.5], [-2.0]])), name="broadcast", dtypes=REAL_DTYPES),
        Case(np.fmod, (away_from_multiples(divisors, (2, 3)), At(divisors)), dtypes=REAL_DTYPES),
        Case(np.fmod, (away_from_multiples(1.3, None), At(1.3)), dtypes=("float64",)),
    ]
    # power: negative bases with integer exponents; the base 0 with exponents 0, 1, 2, 3
    for p in (2, 3, -1, np.array([2, 3, -2])):
        cases.append(Case(np.power, (Arg(NEGATIVE, (2, 3)), p), name="negative base"))
    cases.append(Case(np.power, (Arg(NEGATIVE, None), 3), name="negative base"))
    for p in (0, 1, 2, 3):
        cases.append(Case(np.power, (At([0.0, 0.5, -1.5]), p), name="base 0"))
        cases.append(Case(np.power, (At(0.0), p), name="base 0"))
    # clip: inside and outside, array bounds, keyword bounds, and at each bound with one-sided differences
    cases += [
        Case(np.clip, (Arg(REAL_ONLY, shape), At(-0.5), At(0.6)), dtypes=REAL_DTYPES)
        for shape in ((), (3,), (2, 3), None)
    ]
    cases += [
        Case(np.clip, (Arg(REAL_ONLY, (2, 3)), Arg(Domain(-1.5, -0.4, complex=False), (3,)), At(0.7))),
        Case(np.clip, (Arg(REAL_ONLY, (4,)), None, Arg(Domain(-0.2, 0.4, complex=False), (2, 1))), name="one bound"),
        Case(np.clip, (Arg(REAL_ONLY, (3,)), Arg(Domain(0.6, 0.9), ()), Arg(Domain(-0.9, -0.6), ())), name="lo > hi"),
        Case(np.clip, (Arg(REAL_ONLY, (2, 3)),), kwargs={"a_min": -0.5, "a_max": 0.4}, name="keyword bounds"),
    ]
    up, down = np.ones(()), -np.ones(())
    for options, x, lo, hi in (
        ({"fdm": "forward"}, [-0.5, 0.2], -0.5, 1.0),
        ({"fdm": "backward"}, [0.5, 0.2], -1.0, 0.5),
    ):
        at_lo = x[0] == lo
        args = (
            with_tangent(At(x), np.ones(2)),
            with_tangent(At(lo), down if at_lo else up),
            with_tangent(At(hi), up if at_lo else down),
        )
        cases.append(Case(np.clip, args, name="at a bound", dtypes=REAL_DTYPES, options=options))
    return [
        *cases,
        Case(np.multiply, (Arg(REALS, (2, 3)), Arg(NONZERO, (3,))), kwargs={"dtype": np.float32}, dtypes=REAL_DTYPES),
    ]


register_cases("arithmetic", *_cases())
