"""How the package names a function in its messages and listings."""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Sequence
from typing import Any

_PUBLIC_MODULES = {"_operator": "operator", "_functools": "functools"}


def function_name(f: Any) -> str:
    """``np.sin``, ``operator.add``, ``math.exp``, ``np.ndarray.sum``, ``mymodule.f``: a callable's public name.

    A callable object is named by its class, ``Affine(...)``; a partial by
    what it binds, ``functools.partial(mymodule.power_sum, p=3)``.

    >>> import math, operator
    >>> function_name(math.exp), function_name(operator.add)
    ('math.exp', 'operator.add')
    >>> import numpy as np
    >>> function_name(np.sin), function_name(np.linalg.solve), function_name(np.ndarray.sum)
    ('np.sin', 'np.linalg.solve', 'np.ndarray.sum')
    >>> import functools
    >>> function_name(functools.partial(np.power, 2.0)), function_name(functools.partial(max, key=abs))
    ('functools.partial(np.power, 2.0)', 'functools.partial(max, key=abs)')
    >>> function_name(type[functools.partial])  # the constructor
    'type[functools.partial]'
    """
    if isinstance(f, types.GenericAlias) and f.__origin__ is type and f.__args__:  # type[C]: C's constructor
        return f"type[{function_name(f.__args__[0])}]"
    if isinstance(f, functools.partial):
        bound = [_short(a) for a in f.args] + [f"{k}={_short(v)}" for k, v in f.keywords.items()]
        return f"functools.partial({', '.join([function_name(f.func), *bound])})"
    np: Any = sys.modules.get("numpy")
    if np is not None and isinstance(f, np.ufunc):
        ufunc_name = str(getattr(f, "__name__", ""))
        if getattr(np, ufunc_name, None) is f:
            return f"np.{ufunc_name}"
        special = sys.modules.get("scipy.special")
        return f"scipy.special.{ufunc_name}" if getattr(special, ufunc_name, None) is f else ufunc_name
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None)
    if name is None:
        return f"{type(f).__qualname__}(...)"
    module = getattr(f, "__module__", None) or getattr(getattr(f, "__objclass__", None), "__module__", None) or ""
    if module.startswith("numpy"):
        prefix = {"numpy.linalg": "np.linalg.", "numpy.fft": "np.fft."}.get(module, "np.")
        return prefix + str(name)
    if module in ("", "builtins", "__main__"):
        return str(name)
    module = _PUBLIC_MODULES.get(module, module)
    return f"{_public_module(module, name, f)}.{name}"


def _short(value: Any) -> str:
    """A short description of a bound argument: its repr when short, else its type (and an array's shape)."""
    if callable(value):
        return function_name(value)
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple) and shape:
        return f"<{type(value).__name__} of shape {shape}>"
    text = repr(value)
    return text if len(text) <= 24 else f"<{type(value).__name__}>"


def _public_module(module: str, name: str, f: Any) -> str:
    """``scipy.special`` rather than ``scipy.special._logsumexp`` when the public module exports ``f``."""
    parts = module.split(".")
    while len(parts) > 1 and parts[-1].startswith("_"):
        parent = sys.modules.get(".".join(parts[:-1]))
        exported = getattr(parent, name, None)
        if parent is None or (exported is not f and getattr(exported, "__wrapped__", None) is not f):  # a stand-in
            break
        parts.pop()
    return ".".join(parts)


def keywords_note(keywords: Sequence[str]) -> str:
    """`` (p was passed by keyword: keyword arguments get no cotangent)``, or ``""`` without keywords.

    >>> keywords_note(["p"]), keywords_note([])
    (' (p was passed by keyword: keyword arguments get no cotangent)', '')
    """
    if not keywords:
        return ""
    names = list(keywords)
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    verb = "was" if len(names) == 1 else "were"
    return f" ({listed} {verb} passed by keyword: keyword arguments get no cotangent)"


_PLURALS = {"family": "families", "entry": "entries"}


def plural(n: int, noun: str) -> str:
    """``1 run``, ``2 runs``, ``1 family``, ``3 families``.

    >>> plural(1, "family"), plural(2, "family"), plural(0, "run")
    ('1 family', '2 families', '0 runs')
    """
    return f"{n:,} {noun if n == 1 else _PLURALS.get(noun, noun + 's')}"
