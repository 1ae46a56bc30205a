"""Debug mode: checks on every rule's output that are too costly to make always."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._settings import Setting, SettingChange
from .naming import function_name, keywords_note
from .tangent_types import AbstractTangent, AbstractThunk, AbstractZero

DEBUG_MODE = Setting("set_debug_mode", default=False)
"""Whether the registries check every rule's output; registries follow it (``DEBUG_MODE.follow``)."""


class set_debug_mode(SettingChange):  # noqa: N801 - used like a function, as torch.set_grad_enabled
    """Turn debug mode on or off now; as a context manager, restore the old state on exit.

    In debug mode ``rrule`` wraps every pullback to check that its seed has
    the output's shape (a scalar for a scalar output) and that it returns one
    cotangent per positional argument plus one for the function, each of its
    argument's shape; ``frule`` checks that each argument's tangent has the
    argument's shape and that the output's tangent has the output's. A wrong rule then fails where it is
    called, with the function and argument named. The checks cost about
    0.5 µs a call, so they are off by default; the harness in
    ``chainrules_core.testing`` makes them, and more, always.

    >>> from chainrules_core import debug_mode
    >>> with set_debug_mode(True):
    ...     debug_mode()
    True
    >>> debug_mode()
    False
    """

    setting = DEBUG_MODE
    name = "set_debug_mode"


def debug_mode() -> bool:
    """Whether debug mode is on."""
    return DEBUG_MODE.state


def _shape(x: Any) -> tuple[int, ...] | None:
    """The shape of an array or a number, ``()`` for a scalar; ``None`` for anything else (structures, zeros)."""
    if isinstance(x, (float, complex)):
        return ()
    if isinstance(x, AbstractTangent) or isinstance(x, int):
        return None
    shape = getattr(x, "shape", None)
    return shape if isinstance(shape, tuple) else None


def _shape_mismatch(primal: Any, tangent: Any, noun: str = "primal") -> str | None:
    """What is wrong with the shape of ``tangent`` for ``primal``, e.g. ``shape (3,) for a scalar primal``."""
    if isinstance(tangent, (AbstractZero, AbstractThunk)):
        return None
    primal_shape, tangent_shape = _shape(primal), _shape(tangent)
    if primal_shape is None or tangent_shape is None or primal_shape == tangent_shape:
        return None
    article = "an" if noun == "output" else "a"
    of = f"a scalar {noun}" if primal_shape == () else f"{article} {noun} of shape {primal_shape}"
    return f"shape {tangent_shape} for {of}"


def checked_rrule_result(
    result: Any, f: Any, args: tuple[Any, ...], keywords: Sequence[str] = ()
) -> tuple[Any, Callable[[Any], Any]]:
    """``result`` with its pullback wrapped in the debug-mode checks; ``keywords`` were passed by keyword."""
    if not (isinstance(result, tuple) and len(result) == 2 and callable(result[1])):
        raise TypeError(f"rrule for {function_name(f)} must return (y, pullback), got {result!r}")
    y, pullback = result
    expected = len(args) + 1

    def checked_pullback(y_bar: Any) -> tuple[Any, ...]:
        problem = _shape_mismatch(y, y_bar, "output")
        if problem is not None:
            raise ValueError(f"the pullback of {function_name(f)} was given a seed of {problem}")
        cotangents = pullback(y_bar)
        if not isinstance(cotangents, tuple) or len(cotangents) != expected:
            count = len(cotangents) if isinstance(cotangents, tuple) else f"a {type(cotangents).__name__}"
            raise ValueError(
                f"the pullback of {function_name(f)} returned {count} cotangents; expected {expected}: "
                f"one for the function itself, then one per positional argument{keywords_note(keywords)}"
            )
        for position, (arg, cotangent) in enumerate(zip(args, cotangents[1:]), start=1):
            problem = _shape_mismatch(arg, cotangent)
            if problem is not None:
                raise ValueError(
                    f"the pullback of {function_name(f)} returned, for argument {position}, a cotangent of {problem}"
                )
        return cotangents

    return y, checked_pullback


def check_frule_tangents(tangents: Sequence[Any], f: Any, args: tuple[Any, ...]) -> None:
    """Raise if an argument's tangent does not have the argument's shape."""
    for position, (arg, tangent) in enumerate(zip(args, tangents[1:]), start=1):
        problem = _shape_mismatch(arg, tangent)
        if problem is not None:
            raise ValueError(f"frule for {function_name(f)} was given, for argument {position}, a tangent of {problem}")


def checked_frule_result(result: Any, f: Any) -> None:
    """Raise if ``result`` is not ``(y, y_dot)`` with ``y_dot`` shaped like ``y``."""
    if not (isinstance(result, tuple) and len(result) == 2):
        raise TypeError(f"frule for {function_name(f)} must return (y, y_dot), got {result!r}")
    problem = _shape_mismatch(*result, "output")
    if problem is not None:
        raise ValueError(f"the pushforward of {function_name(f)} returned a tangent of {problem}")
