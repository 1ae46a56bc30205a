"""What a failure says beyond the mismatch: why no rule applies, the signature a rule is called with, which
field of an argument is wrong, and which of two disagreeing rules is at fault.

Everything here runs only once a check has failed, so it may cost more rule
calls and finite differences than the check itself.
"""

from __future__ import annotations

import functools
import inspect
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

from .._callables import unwrap
from ..rules import frule, rrule
from ..tangent_types import ZeroTangent, declared_fields
from .checks import SAFETY, Setup, agree, along, directional_fd, inner_mismatch, ratio
from .layout import Vector, _Composite, _Fields, _Sequence, dot

_CALLED_AS = {
    "rrule": "an rrule is called as rule(f, *args, **kwargs) and returns (y, pullback)",
    "frule": "an frule is called as rule((f_dot, *arg_dots), f, *args, **kwargs) and returns (y, y_dot)",
}


def _registry(mode: str) -> Any:
    return rrule if mode == "rrule" else frule


# ----- no rule -----


def no_rule_message(s: Setup) -> str:
    """Why ``frule``/``rrule`` returned ``None`` for this call, as far as the registrations tell."""
    registry = _registry(s.mode)
    types = [type(a).__name__ for a in s.args]
    message = f"no {s.mode} for argument types {types}"
    records = [r for r in registry.records_for(s.f) if r.kind != "opt_out"]
    if not records:
        return f"{message}: none is registered for {s.report.function}"
    configured = [r for r in records if r.config]
    if configured and not [r for r in records if not r.config]:
        needs = sorted({c.__name__ for r in configured for c in r.requires})
        needed = f" (requires {', '.join(needs)})" if needs else ""
        if s.config is None:
            return f"{message}: a config-aware rule exists{needed}: pass config=, an engine's RuleConfig"
        missing = sorted({c.__name__ for r in configured for c in r.requires if not isinstance(s.config, c)})
        if missing:
            return (
                f"{message}: the config-aware rule requires {', '.join(missing)}, which {type(s.config).__name__} lacks"
            )
    if registry.find(s.f, *s.args, config=s.config) is not None:
        keywords = f" with the keyword arguments {', '.join(s.kwargs)}" if s.kwargs else ""
        return (
            f"{message}: the rule registered for these arguments returned None, declining this call{keywords} "
            "(the rules scalar_rule makes decline keyword arguments, out= and where=)"
        )
    signatures = sorted({_signature(r.arg_types) for r in records if r.arg_types is not None})
    if signatures:
        return f"{message}: rules are registered for argument types {'; '.join(signatures)}"
    return message


def _signature(arg_types: tuple[Any, ...]) -> str:
    def name(t: Any) -> str:
        return " | ".join(name(u) for u in t) if isinstance(t, tuple) else str(t.__name__)

    return "(" + ", ".join(name(t) for t in arg_types) + ")"


# ----- the signature of a rule -----


def signature_hint(s: Setup, call: tuple[Any, ...]) -> Callable[[Exception], str]:
    """A hint for an exception raised when calling the rule: the signature it is called with.

    Given when the rule's signature cannot take the call, or when a
    ``TypeError`` or ``ValueError`` is raised in the rule's own body (a
    tuple of tangents where ``f`` was expected, tangents unpacked into too
    few names).
    """

    def hint(err: Exception) -> str:
        if not isinstance(err, (TypeError, ValueError)):
            return ""
        rule = _registry(s.mode).find(s.f, *s.args, config=s.config)
        if rule is None:
            return ""
        try:
            signature = inspect.signature(rule)
        except (TypeError, ValueError):
            return ""
        binds = _binds(signature, call, s.kwargs)
        unwrapped = unwrap(s.f, s.kwargs)  # a bound method or a partial reaches its function's rule
        if not binds and unwrapped is not None:
            func, leading, keywords, _ = unwrapped
            head = call[: next(i for i, value in enumerate(call) if value is s.f)]
            binds = _binds(signature, (*head, func, *leading, *s.args), keywords)
        raised_in_rule = _raised_in(err, rule)
        if binds and not raised_in_rule:
            return ""
        n = len(s.args)
        tangents = f"{n + 1} tangents, one for f then one per argument" if s.mode == "frule" else ""
        here = f"; here {tangents}" if tangents else ""
        cause = "cannot take this call" if not binds else "may have the wrong signature"
        return f"\n  the rule {getattr(rule, '__name__', 'rule')}{signature} {cause}: {_CALLED_AS[s.mode]}{here}"

    return hint


def _binds(signature: inspect.Signature, call: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    try:
        signature.bind(*call, **kwargs)
    except TypeError:
        return False
    return True


def _raised_in(err: BaseException, rule: Any) -> bool:
    """Whether ``err`` was raised in the body of ``rule`` itself, not in a function it called."""
    code = getattr(rule, "__code__", None)
    frames = traceback.extract_tb(err.__traceback__)
    return (
        code is not None
        and bool(frames)
        and frames[-1].name == code.co_name
        and frames[-1].filename == code.co_filename
    )


# ----- the fields of a structured argument -----


def _parts(s: Setup, i: int) -> list[tuple[str, slice]]:
    """The named blocks of argument ``i``'s vector: an object's fields, a tuple's entries, a dict's keys."""
    layout = s.layouts[i]
    if not isinstance(layout, _Composite):
        return []
    blocks, start = [], 0
    for key, child in layout.children:
        if child.size:
            if isinstance(layout, _Fields):
                label = f"key {key!r}" if layout.is_mapping else f"field {key}"
            else:
                label = f"entry {key}" if isinstance(layout, _Sequence) else f"{key}"
            blocks.append((label, slice(start, start + child.size)))
        start += child.size
    return blocks if len(blocks) > 1 else []


def pullback_by_part(s: Setup, i: int, y_bar: Vector, x_bar: Vector) -> Callable[[], str]:
    """The identity ``<y_bar, J dx> == <x_bar, dx>`` along each field of argument ``i`` alone, as lines."""

    def lines() -> str:
        found: list[str] = []
        wrong: list[str] = []
        omitted: list[str] = []
        for label, block in _parts(s, i):
            dx = np.zeros_like(s.direction(i))
            dx[block] = s.direction(i)[block]
            fd = directional_fd(s, {i: dx})
            lhs, rhs = dot(y_bar, fd.value), dot(x_bar[block], dx[block])
            scale = dot(np.abs(y_bar), np.abs(fd.value)) + dot(np.abs(x_bar[block]), np.abs(dx[block]))
            tol = s.atol + s.rtol * scale + SAFETY * float(np.sum(np.abs(y_bar))) * fd.error
            verdict = "right" if abs(lhs - rhs) <= tol else "wrong"
            found.append(f"{label}: {verdict}{ratio(rhs, lhs) or f' (<x_bar, dx> = {rhs:.6g}, expected {lhs:.6g})'}")
            if verdict == "wrong":
                (wrong if np.any(x_bar[block]) else omitted).append(label)
        return f"\n  by part: {'; '.join(found)}{_derived_hint(s, i, wrong, omitted)}" if found else ""

    return lines


def pushforward_by_part(s: Setup, i: int, pushed: Callable[[tuple[Any, ...]], Vector]) -> Callable[[], str]:
    """The tangent along each field of argument ``i`` alone against finite differences, as lines."""

    def lines() -> str:
        found: list[str] = []
        wrong: list[str] = []
        omitted: list[str] = []
        layout = s.layouts[i]
        for label, block in _parts(s, i):
            dx = np.zeros_like(s.direction(i))
            dx[block] = s.direction(i)[block]
            tangents = tuple(
                layout.vec_to_tangent(dx) if j == i else t if j not in s.moving() else ZeroTangent()
                for j, t in enumerate(s.tangents)
            )
            got, fd = pushed(tangents), directional_fd(s, {i: dx})
            tol = s.atol + s.rtol * float(np.max(np.abs(fd.value), initial=0.0)) + SAFETY * fd.error
            verdict = "right" if float(np.max(np.abs(got - fd.value), initial=0.0)) <= tol else "wrong"
            size = dot(fd.value, fd.value)
            scaled = f" (ratio {dot(got, fd.value) / size:.6g})" if size > 0 else ""
            found.append(f"{label}: {verdict}{scaled}")
            if verdict == "wrong":
                (wrong if np.any(got) else omitted).append(label)
        return f"\n  by part: {'; '.join(found)}{_derived_hint(s, i, wrong, omitted)}" if found else ""

    return lines


def _derived_hint(s: Setup, i: int, wrong: list[str], omitted: list[str]) -> str:
    """What to do when the rule leaves out fields of an object and gets the others wrong: the typical signature
    of a field computed from the others when the object is built (a cache), which the harness moves alone."""
    layout = s.layouts[i]
    if not (wrong and omitted and isinstance(layout, _Fields)) or layout.is_mapping:
        return ""
    if declared_fields(layout.cls) is not None or not hasattr(layout.value, "__dict__"):
        return ""
    cached = [label.removeprefix("field ") for label in omitted]
    built_from = tuple(key for key, _ in layout.children if key not in cached)
    return (
        f"\n  the rule gives nothing for {', '.join(cached)} and gets the other fields wrong: if "
        f"{' and '.join(cached)} {'is' if len(cached) == 1 else 'are'} computed from the other fields when the "
        f"{layout.cls.__name__} is built, declare the fields it is built from, __chainrules_fields__ = {built_from!r} "
        '(docs/rule-authors.md, "Objects that compute values from their fields")'
    )


# ----- two rules that disagree -----


def _differing(
    s: Setup, frule_tangent: Callable[[int], Vector], y_bar: Vector, x_bars: dict[int, Vector]
) -> list[tuple[int, Vector, float, float]]:
    """The arguments along which the two rules differ: ``(i, frule's tangent, <y_bar, it>, <x_bar_i, dx_i>)``."""
    found = []
    for i, x_bar in x_bars.items():
        dx, pushed = s.direction(i), frule_tangent(i)
        lhs, rhs = dot(y_bar, pushed), dot(x_bar, dx)
        if not agree(s, lhs, rhs, dot(np.abs(x_bar), np.abs(dx)) + abs(lhs)):
            found.append((i, pushed, lhs, rhs))
    return found


def _blame_text(s: Setup, checked: str, differing: list[tuple[int, Vector, float, float]], proven: bool) -> str:
    other = "rrule" if checked == "frule" else "frule"
    confirmed = "the frule's tangent" if checked == "frule" else "the pullback"
    wrong = [
        f"{s.names[i]}: <y_bar, J dx> = {lhs:.10g} by the frule, <x_bar, dx> = {rhs:.10g} by the "
        f"pullback{ratio(rhs if checked == 'frule' else lhs, lhs if checked == 'frule' else rhs)}"
        for i, _, lhs, rhs in differing
    ]
    where = f" for {'; '.join(wrong)}" if wrong else ""
    if proven:
        return (
            f"the {other} is wrong{where}: finite differences along each confirm it, and {confirmed} agrees with "
            f"them; test_{other} reports it"
        )
    return (
        f"\n  {confirmed} agrees with finite differences (checked above), so the {other} is wrong{where}; "
        f"test_{other} checks it against finite differences"
    )


def blame(
    s: Setup, checked: str, frule_tangent: Callable[[int], Vector], y_bar: Vector, x_bars: dict[int, Vector]
) -> Callable[[], str]:
    """Which rule is wrong, and for which argument, when the frule and the rrule disagree.

    ``checked`` is the rule already confirmed against finite differences;
    ``frule_tangent(i)`` is the frule's tangent along argument ``i`` alone
    and ``x_bars[i]`` the pullback's cotangent of ``y_bar`` for it.
    """
    return lambda: _blame_text(s, checked, _differing(s, frule_tangent, y_bar, x_bars), proven=False)


def other_rule_wrong(
    s: Setup, checked: str, frule_tangent: Callable[[int], Vector], y_bar: Vector, x_bars: dict[int, Vector]
) -> str | None:
    """When the frule and the rrule disagree: what is wrong, if the rule other than ``checked`` is, else ``None``.

    The other rule is wrong where its ``<y_bar, J dx_i>`` differs from a
    finite difference along each argument ``i`` on which the two rules
    differ: its own check reports that, and ``checked``'s check need not fail
    for it. Where finite differences cannot tell (the two differ by less
    than their error), the disagreement stays a failure of both.
    """
    differing = _differing(s, frule_tangent, y_bar, x_bars)
    for i, pushed, by_frule, by_pullback in differing:
        if checked == "frule":
            value, value_scale = by_pullback, dot(np.abs(x_bars[i]), np.abs(s.direction(i)))
        else:
            value, value_scale = by_frule, dot(np.abs(y_bar), np.abs(pushed))
        if not inner_mismatch(s, y_bar, along(s, [i]), value, value_scale):
            return None
    return _blame_text(s, checked, differing, proven=True) if differing else None


def partial_keywords(f: Any, kwargs: dict[str, Any]) -> list[str]:
    """The keyword arguments of a call of ``f``: those given, and those a ``functools.partial`` binds."""
    bound = list(f.keywords) if isinstance(f, functools.partial) else []
    return bound + [k for k in kwargs if k not in bound]
