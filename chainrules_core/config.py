"""``RuleConfig``: what an AD engine can do, for rules that call back into it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class HasReverseMode:
    """Capability marker: the engine's ``rrule_via_ad`` works."""


class HasForwardMode:
    """Capability marker: the engine's ``frule_via_ad`` works."""


class RuleConfig:
    """Base class of the configuration object an AD engine passes to rules.

    A rule for a higher-order function (``map``, ``functools.reduce``,
    ``np.apply_along_axis``) has to differentiate the user's function, which
    only the engine can do. The engine subclasses ``RuleConfig`` together with
    the capability markers it supports and calls ``rrule(config, f, *args)``;
    rules registered with ``config=True`` receive the config first.

    >>> class Tracer(RuleConfig, HasReverseMode):
    ...     def rrule_via_ad(self, f, *args, **kwargs):
    ...         return f(*args, **kwargs), lambda y_bar: (None,) * (len(args) + 1)
    >>> isinstance(Tracer(), HasReverseMode), isinstance(Tracer(), HasForwardMode)
    (True, False)
    """

    def rrule_via_ad(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
        """``(y, pullback)`` for ``f(*args, **kwargs)``, computed by the engine."""
        raise NotImplementedError(f"{type(self).__name__} cannot run reverse mode (rrule_via_ad)")

    def frule_via_ad(
        self, tangents: tuple[Any, ...], f: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> tuple[Any, Any]:
        """``(y, y_dot)`` for ``f(*args, **kwargs)`` pushed forward by the engine."""
        raise NotImplementedError(f"{type(self).__name__} cannot run forward mode (frule_via_ad)")
