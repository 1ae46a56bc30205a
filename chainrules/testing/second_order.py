"""Second-order checks: a rule's pullback (or pushforward) must itself be differentiable, and right.

An engine that nests (a Hessian by forward over reverse, a gradient of a
gradient) runs a rule's pullback on its own followed values: the pullback is
then a function to differentiate like any other,

    P(x, y_bar) = pullback_x(y_bar)      (rrule; for frule: P(x, dx) = J(x) dx),

linear in the seed and usually not in the inputs. ``test_rrule_order2`` asks
an engine for the derivative of ``P`` along one direction of every input and
of the seed, and compares it with a finite difference of ``P`` along the same
direction: forward over reverse entry by entry, reverse over reverse through
the identity ``<w, dP d> == <dP* w, d>``. Like the first-order checks, a check
costs a fixed number of evaluations whatever the input size.

The engine is a ``RuleConfig`` with ``frule_via_ad`` (forward) and
``rrule_via_ad`` (reverse), passed in as ``engine=``; by default the
reference engines of ``chainrules.engines``. Typical failures name what the pullback does that an
engine cannot follow: an in-place update of an array, ``np.add.at``, a
conversion with ``float()`` or ``np.asarray``.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from chainrules_core import (
    HasForwardMode,
    HasReverseMode,
    NoTangent,
    NotImplementedTangent,
    RuleConfig,
    Tangent,
    backing,
    frule,
    primal_type,
    rrule,
    unthunk,
)
from chainrules_core.naming import function_name, plural
from chainrules_core.testing.checks import CheckOptions, CheckReport, Setup, along, check_close, check_inner, setup
from chainrules_core.testing.layout import Vector
from chainrules_core.testing.tangents import PrimalAndTangent, rand_tangent

__all__ = [
    "OVER",
    "Order2Refusal",
    "order2_refusal",
    "order2_summary",
    "refuse_order2",
    "registered_order2_refusals",
    "run_case_order2",
    "stale_order2_refusals",
    "test_frule_order2",
    "test_rrule_order2",
]

OVER = ("forward", "reverse")
"""The outer modes a second-order check differentiates a rule with: forward over it, reverse over it."""


def _default_engine() -> RuleConfig:
    """The reference engines (``chainrules.engines``), imported when a check needs them."""
    from chainrules.engines import EngineConfig

    return EngineConfig()


def test_rrule_order2(
    f: Callable[..., Any],
    *args: Any,
    output_tangent: Any = None,
    engine: RuleConfig | None = None,
    over: Sequence[str] = OVER,
    **options: Any,
) -> CheckReport:
    """Check that the pullback of ``rrule`` for ``f`` at ``args`` is differentiable, against finite differences.

    The pullback is taken as a function ``P(f, *args, y_bar)`` of the inputs
    and the seed; ``engine`` differentiates it (forward over reverse and
    reverse over reverse, as ``over`` says) along a random direction of every
    differentiable input and of the seed (the seed stays fixed when
    ``output_tangent`` gives it), and finite differences of ``P`` check the
    result. Arguments marked with ``no_tangent`` and not-implemented
    cotangents are left out. The options are those of ``test_rrule``.

    >>> from chainrules_core import scalar_rule
    >>> def cube(x):
    ...     return x**3
    >>> scalar_rule(cube, lambda out, x: 3 * x**2)
    >>> test_rrule_order2(cube, np.array([0.5, -2.0])).checks
    ['second order: forward over reverse', 'second order: reverse over reverse']
    """
    opts = CheckOptions.parse("test_rrule_order2", options)
    first = setup("rrule", f, args, opts)
    own = _call(rrule, opts, first.kwargs, (), first.primals[0], first.args)
    y_bar = output_tangent if output_tangent is not None else rand_tangent(first.y_ref, first.rng)
    if own is None:
        raise first.fail("rule exists", f"no rrule for argument types {[type(a).__name__ for a in first.args]}")
    cotangents = own[1](y_bar)
    keep = [i for i in first.moving() if not isinstance(unthunk(cotangents[i]), NotImplementedTangent)]

    def pullback_map(*inputs: Any) -> tuple[Any, ...]:
        *primals, seed = inputs
        result = _call(rrule, opts, first.kwargs, (), primals[0], tuple(primals[1:]))
        if result is None:
            raise TypeError("the rrule answers None (no rule) when an engine follows its arguments")
        bars = result[1](_restore(seed, y_bar))
        return tuple(_plain(bars[i]) for i in keep)

    seed = _plain(y_bar)  # engines follow the values inside tuples and dicts, not inside a Tangent
    seed_arg = PrimalAndTangent(seed, NoTangent()) if output_tangent is not None else seed
    names = [*first.names, "the seed y_bar"]
    return _check_map(first, "pullback", pullback_map, (f, *args, seed_arg), names, opts, engine, over)


def test_frule_order2(
    f: Callable[..., Any],
    *args: Any,
    engine: RuleConfig | None = None,
    over: Sequence[str] = OVER,
    **options: Any,
) -> CheckReport:
    """Check that the pushforward of ``frule`` for ``f`` at ``args`` is differentiable, against finite differences.

    The pushforward is taken as a function ``P(f, *args, *tangents)`` of the
    inputs and their tangents, and checked as ``test_rrule_order2`` checks a
    pullback: ``engine`` differentiates it (forward over forward, reverse over
    forward) along a random direction of every differentiable input and
    tangent, against finite differences of ``P``.

    >>> from chainrules_core import scalar_rule
    >>> def cube(x):
    ...     return x**3
    >>> scalar_rule(cube, lambda out, x: 3 * x**2)
    >>> test_frule_order2(cube, 1.5).checks
    ['second order: forward over forward', 'second order: reverse over forward']
    """
    opts = CheckOptions.parse("test_frule_order2", options)
    first = setup("frule", f, args, opts)
    moving = first.moving()
    n = len(first.primals)

    def pushforward_map(*inputs: Any) -> Any:
        primals, dots = inputs[:n], inputs[n:]
        tangents = [NoTangent()] * n
        for i, d in zip(moving, dots):
            tangents[i] = _restore(d, first.tangents[i])
        result = _call(frule, opts, first.kwargs, (tuple(tangents),), primals[0], tuple(primals[1:]))
        if result is None:
            raise TypeError("the frule answers None (no rule) when an engine follows its arguments")
        return _plain(result[1])

    if _call(frule, opts, first.kwargs, (tuple(first.tangents),), first.primals[0], first.args) is None:
        raise first.fail("rule exists", f"no frule for argument types {[type(a).__name__ for a in first.args]}")
    dots = [_plain(first.tangents[i]) for i in moving]  # engines follow tuples and dicts, not a Tangent's entries
    names = [*first.names, *(f"the tangent of {first.names[i]}" for i in moving)]
    return _check_map(first, "pushforward", pushforward_map, (f, *args, *dots), names, opts, engine, over)


def _call(
    registry: Any, opts: CheckOptions, kwargs: dict[str, Any], head: tuple[Any, ...], f: Any, args: tuple[Any, ...]
) -> Any:
    """The rule's result for ``f(*args)``, arguments followed by an engine included.

    A followed value does not match rules registered for argument types
    (``operator.add`` on numbers); the rule that its plain value would get is
    called on it then.
    """
    config = (opts.config,) if opts.config is not None else ()
    followed = args and hasattr(type(args[0]), "__chainrules_primal__")
    result = None
    if not (followed and isinstance(f, _DESCRIPTORS)):
        result = registry(*config, *head, f, *args, **kwargs)
    if result is None:
        rule = registry.find(_primal(f), *(_primal(a) for a in args))
        if rule is not None:
            result = rule(*head, _method_caller(f) if followed else f, *args, **kwargs)
    return result


_DESCRIPTORS = (types.MethodDescriptorType, types.WrapperDescriptorType)


def _method_caller(f: Any) -> Any:
    """A method descriptor (``np.ndarray.sum``) as a function calling the method of its first argument.

    The descriptor refuses an engine's followed value; the value's own method follows the call.
    """
    if not isinstance(f, _DESCRIPTORS):
        return f

    def method(x: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(x, f.__name__)(*args, **kwargs)

    method.__chainrules_method__ = f  # type: ignore[attr-defined]  # what an engine calls it by
    return method


def _primal(x: Any) -> Any:
    """The plain value an engine's followed value stands for (see ``ProjectTo``); ``x`` itself otherwise."""
    primal = getattr(type(x), "__chainrules_primal__", None)
    if primal is not None:
        return primal(x)
    if isinstance(x, (list, tuple)) and any(hasattr(type(v), "__chainrules_primal__") for v in x):
        return type(x)(_primal(v) for v in x) if type(x) in (list, tuple) else x
    return x


def _plain(t: Any) -> Any:
    """A (co)tangent with its ``Tangent`` wrappers opened into tuples and dicts, which engines follow."""
    t = unthunk(t)
    if isinstance(t, Tangent):
        data = backing(t)
        return tuple(_plain(v) for v in data) if isinstance(data, tuple) else {k: _plain(v) for k, v in data.items()}
    if isinstance(t, (list, tuple)):
        return type(t)(_plain(v) for v in t) if type(t) in (list, tuple) else t
    return t


def _restore(plain: Any, like: Any) -> Any:
    """``plain`` (from ``_plain``) with the ``Tangent`` wrappers of ``like`` put back."""
    like = unthunk(like)
    if isinstance(like, Tangent):
        data = backing(like)
        if isinstance(data, tuple):
            items: Any = tuple(_restore(p, d) for p, d in zip(plain, data))
        else:
            items = {k: _restore(plain[k], d) for k, d in data.items()}
        return Tangent._from_backing(primal_type(like), like._Tangent__kind, items)
    if isinstance(like, (list, tuple)) and type(like) in (list, tuple):
        return type(like)(_restore(p, d) for p, d in zip(plain, like))
    return plain


def _check_map(
    first: Setup,
    what: str,
    fn: Callable[..., Any],
    inputs: tuple[Any, ...],
    names: list[str],
    opts: CheckOptions,
    engine: RuleConfig | None,
    over: Sequence[str],
) -> CheckReport:
    """Differentiate ``fn(*inputs)``, the rule's ``what``, with ``engine`` along random directions; check by FD."""
    mode = first.mode
    unknown = sorted(set(over) - set(OVER))
    if unknown or not over:
        raise ValueError(f"test_{mode}_order2: over takes {' and '.join(OVER)}, got {', '.join(map(repr, over))}")
    if engine is None:
        engine = opts.config if _can_differentiate(opts.config) else _default_engine()
    s = setup(mode, fn, inputs, dataclasses.replace(opts, fkwargs=None, config=None))
    s.names = [f"the {what}", *names]
    s.report = dataclasses.replace(first.report, mode=f"{mode} order 2", checks=[], evaluations=1)
    moving = [i for i in s.moving() if i > 0]
    if not moving or s.out_layout.size == 0:
        s.report.checks.append("second order: nothing moves")
        return s.report
    fd = along(s, moving)
    inner = "reverse" if mode == "rrule" else "forward"
    if "forward" in over and isinstance(engine, HasForwardMode):
        _forward_over(s, engine, fn, moving, fd, f"second order: forward over {inner}", what)
    if "reverse" in over and isinstance(engine, HasReverseMode):
        _reverse_over(s, engine, fn, moving, fd, f"second order: reverse over {inner}", what)
    return s.report


def _vector(s: Setup, check: str, layout: Any, t: Any, where: str) -> Vector:
    """A tangent an engine computed, as a vector; engines give lists for lists and zeros for constants."""
    t = unthunk(t)
    try:
        return layout.tangent_to_vec(t)  # type: ignore[no-any-return]
    except (TypeError, ValueError, AttributeError, KeyError, IndexError) as err:
        raise s.fail(check, f"{where}: {type(err).__name__}: {err}") from None


def _can_differentiate(config: Any) -> bool:
    return config is not None and (hasattr(config, "frule_via_ad") or hasattr(config, "rrule_via_ad"))


def _forward_over(s: Setup, engine: Any, fn: Any, moving: list[int], fd: Any, check: str, what: str) -> None:
    tangents = tuple(s.tangents[i] if i in moving else NoTangent() for i in range(1, len(s.primals)))
    _, dot = s.call(
        check,
        f"the engine pushing forward through the {what}",
        engine.frule_via_ad,
        (NoTangent(), *tangents),
        fn,
        *s.args,
    )
    got = _vector(s, check, s.out_layout, dot, f"the derivative of the {what}")
    check_close(s, check, f"the derivative of the {what} along the inputs' directions", got, fd)
    s.report.checks.append(check)


def _reverse_over(s: Setup, engine: Any, fn: Any, moving: list[int], fd: Any, check: str, what: str) -> None:
    _, back = s.call(check, f"the engine recording the {what}", engine.rrule_via_ad, fn, *s.args)
    w = s.rng.standard_normal(s.out_layout.size)
    w_tangent = s.out_layout.vec_to_tangent(w)
    bars = s.call(check, f"the engine pulling back through the {what}", back, w_tangent)
    x_bars, dxs = [], []
    for i in moving:
        c = unthunk(bars[i])
        x_bars.append(_vector(s, check, s.layouts[i], c, f"the cotangent of {s.names[i]}"))
        dxs.append(s.direction(i))
    w_vec: Vector = s.out_layout.tangent_to_vec(w_tangent)
    check_inner(
        s, check, f"the {what}'s derivative, pulled back", w_vec, fd, np.concatenate(x_bars), np.concatenate(dxs)
    )
    s.report.checks.append(check)


# Named after the first-order checks; pytest must not collect them where they are imported.
test_rrule_order2.__test__ = False  # type: ignore[attr-defined]
test_frule_order2.__test__ = False  # type: ignore[attr-defined]


def run_case_order2(case: Any, dtype: str, mode: str, seed: int = 0) -> CheckReport:
    """Run a declared ``Case`` (``chainrules_core.testing.cases``) at second order in one dtype and mode."""
    args = case.make_args(np.random.default_rng(seed), dtype)
    options = dict(case.options)
    output_tangent = options.pop("output_tangent", None)
    if mode == "frule":
        return test_frule_order2(case.f, *args, fkwargs=dict(case.kwargs), seed=seed, **options)
    if callable(output_tangent):
        primals = [a.primal if isinstance(a, PrimalAndTangent) else a for a in args]
        output_tangent = output_tangent(case.f(*primals, **case.kwargs))
    return test_rrule_order2(
        case.f, *args, output_tangent=output_tangent, fkwargs=dict(case.kwargs), seed=seed, **options
    )


# ----- refusals: second derivatives out of reach at smooth points, declared beside the cases -----


@dataclass(frozen=True)
class Order2Refusal:
    """Runs of ``f``'s declared cases whose second-order check its rules do not pass, and why.

    ``where``: substrings that the case's label must all contain; ``modes``
    and ``dtypes`` (every dtype when empty): the runs refused. A refused run
    still runs: one that fails is reported as ``refused`` with the reason, and
    a refusal none of whose runs fails is itself a failure, so the list
    stays true. Points where ``f`` is not twice differentiable are not
    refused but declared with ``Case(..., smooth=False)``, and left out.
    """

    family: str
    f: Any
    reason: str
    where: tuple[str, ...] = ()
    modes: tuple[str, ...] = ("frule", "rrule")
    dtypes: tuple[str, ...] = ()

    def matches(self, family: str, case: Any, dtype: str, mode: str) -> bool:
        return (
            self.f is case.f
            and family == self.family
            and mode in self.modes
            and (not self.dtypes or dtype in self.dtypes)
            and all(part in case.label for part in self.where)
        )

    @property
    def label(self) -> str:
        where = f" ({', '.join(self.where)})" if self.where else ""
        return f"{function_name(self.f)}{where}"


_ORDER2_REFUSALS: list[Order2Refusal] = []


def refuse_order2(
    family: str,
    f: Any,
    reason: str,
    *,
    where: str | Sequence[str] = (),
    modes: Sequence[str] = ("frule", "rrule"),
    dtypes: Sequence[str] = (),
) -> None:
    """Declare, beside ``f``'s cases, the runs of ``check --order 2`` its rules refuse, and why.

    >>> refuse_order2("numpy.x", np.cbrt, "an example", where="never matches")
    >>> [r.label for r in registered_order2_refusals("numpy.x")]
    ['np.cbrt (never matches)']
    >>> _ORDER2_REFUSALS.pop().reason
    'an example'
    """
    unknown = set(modes) - {"frule", "rrule"}
    if unknown or not reason:
        problem = f"unknown modes {sorted(unknown)}" if unknown else "a reason is required"
        raise ValueError(f"refuse_order2({function_name(f)}): {problem}")
    parts = (where,) if isinstance(where, str) else tuple(where)
    _ORDER2_REFUSALS.append(Order2Refusal(family, f, reason, parts, tuple(modes), tuple(dtypes)))


def registered_order2_refusals(family: str | None = None) -> list[Order2Refusal]:
    """The declared refusals of ``check --order 2`` (of one family)."""
    return [r for r in _ORDER2_REFUSALS if family in (None, r.family)]


def order2_refusal(family: str, case: Any, dtype: str, mode: str) -> Order2Refusal | None:
    """The refusal declared for this run of a declared case at second order, if any."""
    return next((r for r in _ORDER2_REFUSALS if r.matches(family, case, dtype, mode)), None)


def stale_order2_refusals(runs: Sequence[Any]) -> list[Order2Refusal]:
    """Declared second-order refusals that matched runs here, none of which failed: no longer true.

    Judged only for a refusal every declared case of whose function ran in
    every dtype and mode it names, so that a filter cannot make one look stale.
    """
    from chainrules_core.testing import registered_cases

    ran = {(id(r.case), r.dtype, r.mode) for r in runs}
    by_refusal: dict[int, tuple[Any, list[Any]]] = {}
    for r in runs:
        if r.refusal is not None:
            by_refusal.setdefault(id(r.refusal), (r.refusal, []))[1].append(r)
    stale = []
    for refusal, matched in by_refusal.values():
        if any(r.status == "refused" for r in matched):
            continue
        complete = all(
            (id(case), dtype, mode) in ran
            for family, case in registered_cases()
            for dtype, mode in case.expand()
            if case.smooth and refusal.matches(family, case, dtype, mode)
        )
        if complete:
            stale.append(refusal)
    return stale


def order2_summary(done: Sequence[Any], left_out: int, out: TextIO) -> int:
    """What ``check --order 2`` left out and refused, printed to ``out``; the number of stale refusals (each a
    failure). ``done``: the command line's runs (``case``, ``dtype``, ``mode``, ``status``, ``refusal``)."""
    if left_out:
        print(
            f"\nleft out {plural(left_out, 'run')} at declared non-smooth points (kinks, ties, zeros of norms: "
            "Case(..., smooth=False)), where no second derivative exists",
            file=out,
        )
    refused = [r for r in done if r.status == "refused"]
    if refused:
        share = 100 * len(refused) / len(done)
        print(
            f"\nrefused {len(refused):,} of {plural(len(done), 'smooth run')} ({share:.1f}%), "
            "declared with refuse_order2 beside the cases:",
            file=out,
        )
        by_refusal: dict[int, tuple[Any, list[Any]]] = {}
        for r in refused:
            by_refusal.setdefault(id(r.refusal), (r.refusal, []))[1].append(r)
        for refusal, group in by_refusal.values():
            modes = ", ".join(sorted({r.mode for r in group}))
            print(f"  {refusal.label} [{modes}], {plural(len(group), 'run')}: {refusal.reason}", file=out)
    stale = stale_order2_refusals(done)
    for refusal in stale:
        print(
            f"\nFAIL refuse_order2 of {refusal.label} ({refusal.family}): every run it refuses passes; "
            "remove the refusal",
            file=out,
        )
    return len(stale)
