"""How the mutation suite describes a subject and a wrong rule, and makers of wrong rules from right ones."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from chainrules_core import unthunk


@dataclass(frozen=True)
class Mutant:
    """One wrong rule: the mode it is written for, the check that must reject it and the options that check needs."""

    mode: str
    check: str
    rule: Callable[..., Any]
    options: dict[str, Any] = field(default_factory=dict)  # for the harness, beyond the subject's


@dataclass(frozen=True)
class Subject:
    """A function, how to make its inputs, its correct rules and their mutants."""

    name: str
    make: Callable[[], tuple[Any, tuple[Any, ...]]]  # a fresh (f, args): rules registered for f apply to it alone
    rrule: Callable[..., Any]
    frule: Callable[..., Any]
    mutants: dict[str, Mutant]
    options: dict[str, Any] = field(default_factory=dict)


def fresh(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A new function computing ``fn``, so that rules registered for it apply to it alone."""

    @functools.wraps(fn)
    def copy(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return copy


def rng() -> np.random.Generator:
    return np.random.default_rng(7)


def scaled(rule: Callable[..., Any], index: int, factor: complex) -> Callable[..., Any]:
    """``rule`` with the cotangent of argument ``index`` (0 is ``f``) multiplied by ``factor``."""

    def wrong(f: Any, *args: Any, **kwargs: Any) -> Any:
        y, pullback = rule(f, *args, **kwargs)

        def scaled_pullback(out_bar: Any) -> Any:
            cotangents = list(pullback(out_bar))
            cotangents[index] = unthunk(cotangents[index]) * factor
            return tuple(cotangents)

        return y, scaled_pullback

    return wrong


def replaced(rule: Callable[..., Any], index: int, value: Callable[[Any], Any]) -> Callable[..., Any]:
    """``rule`` with the cotangent of argument ``index`` replaced by ``value(cotangent)``."""

    def wrong(f: Any, *args: Any, **kwargs: Any) -> Any:
        y, pullback = rule(f, *args, **kwargs)

        def replaced_pullback(out_bar: Any) -> Any:
            cotangents = list(pullback(out_bar))
            cotangents[index] = value(unthunk(cotangents[index]))
            return tuple(cotangents)

        return y, replaced_pullback

    return wrong


def pushed(rule: Callable[..., Any], value: Callable[[Any], Any]) -> Callable[..., Any]:
    """``rule`` (an frule) with its output tangent replaced by ``value(tangent)``."""

    def wrong(tangents: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
        y, y_dot = rule(tangents, f, *args, **kwargs)
        return y, value(y_dot)

    return wrong


def off_primal(rule: Callable[..., Any], forward: bool) -> Callable[..., Any]:
    """``rule`` returning a primal off by one part in a million."""
    if forward:
        return lambda tangents, f, *args: (rule(tangents, f, *args)[0] * (1 + 1e-6), rule(tangents, f, *args)[1])
    return lambda f, *args: (rule(f, *args)[0] * (1 + 1e-6), rule(f, *args)[1])
