"""Process-wide settings that registries follow: debug mode and fast paths.

A ``Setting`` holds one on/off state and calls a method of every registry
that follows it, now and at every change. A ``SettingChange`` subclass is
what users call (``set_debug_mode``, ``fast_paths``): it changes the setting
at once and, used as a context manager, restores the old state on exit, as
``torch.set_grad_enabled`` does.
"""

from __future__ import annotations

import weakref
from types import TracebackType
from typing import Any, ClassVar


class Setting:
    """One on/off state; ``follow(registry)`` calls ``registry.<method>(state)`` now and whenever it changes."""

    def __init__(self, method: str, default: bool) -> None:
        self.method = method
        self.state = default
        self._followers: weakref.WeakSet[Any] = weakref.WeakSet()

    def follow(self, registry: Any) -> None:
        self._followers.add(registry)
        getattr(registry, self.method)(self.state)

    def set(self, enabled: bool) -> None:
        if enabled == self.state:
            return
        self.state = enabled
        for registry in list(self._followers):
            getattr(registry, self.method)(enabled)


class SettingChange:
    """A change of ``setting``, made at once; as a context manager, undone on exit."""

    setting: ClassVar[Setting]
    name: ClassVar[str]

    def __init__(self, enabled: bool) -> None:
        if not isinstance(enabled, bool):
            raise TypeError(f"{self.name}(enabled): enabled must be True or False, got {enabled!r}")
        self._previous = self.setting.state
        self.setting.set(enabled)

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.setting.set(self._previous)
