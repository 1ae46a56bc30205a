"""Rules for optional libraries, registered when the library itself is imported.

The rules for ``scipy.special`` live in ``scipy/special/`` and need the
``scipy.special`` functions as their keys, but ``import chainrules`` must not
import scipy (it would take most of the import time). ``when_imported(name,
action)`` runs ``action`` once ``name`` is imported: at once if it already
is, else right after the program first imports it, through a finder on
``sys.meta_path`` that wraps that one module's loader. This is the analogue
of Julia's package extensions.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import pkgutil
import sys
import threading
import types
from collections.abc import Callable, Sequence
from typing import Any

Action = Callable[[], None]

_lock = threading.Lock()
_pending: dict[str, list[Action]] = {}


def when_imported(name: str, action: Action) -> None:
    """Run ``action()`` once the module ``name`` has been imported (now, if it already is)."""
    with _lock:
        if name not in sys.modules:
            _pending.setdefault(name, []).append(action)
            if _FINDER not in sys.meta_path:
                sys.meta_path.insert(0, _FINDER)
            return
    action()


def import_package(package: str) -> None:
    """Import ``package`` and every module and subpackage in it whose name does not start with ``_``, in name order.

    What each rules package (``chainrules.rules.numpy`` ...) and each checks package runs: a new family module is
    found by its file alone.
    """
    module = importlib.import_module(package)
    for info in sorted(pkgutil.iter_modules(module.__path__), key=lambda info: info.name):
        if info.name.startswith("_"):
            continue
        if info.ispkg:
            import_package(f"{package}.{info.name}")
        else:
            importlib.import_module(f"{package}.{info.name}")


def _run_pending(name: str) -> None:
    with _lock:
        actions = _pending.pop(name, [])
        if not _pending and _FINDER in sys.meta_path:
            sys.meta_path.remove(_FINDER)
    for action in actions:
        action()


class _AfterImport:  # a loader (importlib.abc.Loader's protocol; importing importlib.abc costs 5 ms)
    """A module's own loader, followed by the actions waiting for that module."""

    def __init__(self, loader: Any, name: str) -> None:
        self._loader = loader
        self._name = name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self._loader.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: types.ModuleType) -> None:
        self._loader.exec_module(module)
        _run_pending(self._name)

    def __getattr__(self, attribute: str) -> Any:  # get_source, is_package, ...: the wrapped loader's
        return getattr(self._loader, attribute)


class _Finder:  # a meta path finder (importlib.abc.MetaPathFinder's protocol)
    """Finds nothing itself: it asks the other finders and wraps the loader of a module someone waits for."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _pending:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _AfterImport(spec.loader, fullname)
                return spec
        return None


_FINDER = _Finder()
