"""Calls whose leading arguments come by keyword: ``np.sum(a=x)`` is the call ``np.sum(x)``.

numpy's functions, like Python's, accept their data by keyword, while rules
(and the engines that pair cotangents with arguments) count positional
arguments. A call that passes no positional argument at all therefore has
the keyword arguments that name its primal's leading positional-or-keyword
parameters moved to positions, in order, up to the first parameter not
given: ``np.sum(a=x, axis=0)`` is ``np.sum(x, 0)``, whose pullback
returns ``(f_bar, x_bar, NoTangent())``, and ``np.sum(a=x, keepdims=True)``
is ``np.sum(x, keepdims=True)`` (``axis`` is not given). The parameters come from ``inspect.signature``,
read once per primal. A primal without a signature (a builtin of C) is left
as it is; a keyword naming a positional-only parameter (a ufunc's inputs,
``math.sin``'s ``x``) is refused with a ``TypeError`` naming the function
and the keyword, as Python refuses the call itself.

A call with at least one positional argument is never changed: the entry
points look here only when ``args`` is empty and ``kwargs`` is not, off their
fast path.
"""

from __future__ import annotations

import functools
import inspect
import sys
from typing import Any

from .naming import function_name

_Parameters = tuple[tuple[str, ...], bool, tuple[str, ...] | None]
"""A primal's leading positional-or-keyword parameters, whether the first of them is required, and the
positional-only ones a keyword may not name (``None``: every keyword, for a ufunc, whose inputs are all
positional-only)."""

_NONE: _Parameters = ((), False, ())


def keywords_as_positional(
    f: Any, kwargs: dict[str, Any], caller: str | None = None
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``(args, kwargs)`` of the call ``f(**kwargs)`` with its leading arguments moved to positions.

    For a call that gives no positional argument: the keyword arguments that
    name ``f``'s leading positional-or-keyword parameters, in order up to the
    first one not given, become the positional arguments; the others stay
    keywords. ``caller`` (``"rrule"``) starts the message of the ``TypeError``
    raised for a keyword that names a positional-only parameter.

    A leading parameter without a default that is not given (``np.dot(b=y)``)
    raises a ``TypeError`` naming it, as Python refuses that call.

    >>> import numpy as np
    >>> keywords_as_positional(np.sum, {"a": [1.0, 2.0], "keepdims": True})
    (([1.0, 2.0],), {'keepdims': True})
    >>> keywords_as_positional(np.sum, {"a": [1.0, 2.0], "axis": 0})
    (([1.0, 2.0], 0), {})
    >>> keywords_as_positional(np.dot, {"b": 2.0, "a": 1.0})
    ((1.0, 2.0), {})
    >>> keywords_as_positional(np.tanh, {"x": 1.0}, "rrule")
    Traceback (most recent call last):
    TypeError: rrule for np.tanh: x= names an input of the ufunc np.tanh, which takes it by position only; ...
    """
    names, required, positional_only = _parameters(f)
    if positional_only is None or positional_only:
        refused = [k for k in kwargs if positional_only is None or k in positional_only]
        if refused:
            raise _positional_only(f, refused, caller)
    if not names or names[0] not in kwargs:
        if required:  # np.dot(b=y): Python refuses the call itself
            name = function_name(f)
            raise TypeError(
                f"{f'{caller} for ' if caller else ''}{name}: the argument {names[0]} is missing (got only "
                f"{', '.join(f'{k}=' for k in kwargs)}); pass it, by position or as {name}({names[0]}=...)"
            )
        return (), kwargs
    rest = dict(kwargs)
    args = []
    for name in names:
        if name not in rest:
            break
        args.append(rest.pop(name))
    return tuple(args), rest


def _parameters(f: Any) -> _Parameters:
    try:
        return _cached_parameters(f)
    except TypeError:  # an unhashable callable: read each time
        return _read_parameters(f)


@functools.lru_cache(maxsize=512)
def _cached_parameters(f: Any) -> _Parameters:
    return _read_parameters(f)


def _read_parameters(f: Any) -> _Parameters:
    np: Any = sys.modules.get("numpy")
    if np is not None and isinstance(f, np.ufunc):
        return (), False, None  # every input is positional-only, whether or not numpy gives a signature
    try:
        signature = inspect.signature(f)
    except (TypeError, ValueError):  # no signature: the call goes on as it is
        return _NONE
    parameters = list(signature.parameters.values())
    positional_only: tuple[str, ...]
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        positional_only = ()  # **kwargs takes a keyword of a positional-only name
    else:
        positional_only = tuple(p.name for p in parameters if p.kind is p.POSITIONAL_ONLY)
    names = []
    for p in parameters:
        if p.kind is not p.POSITIONAL_OR_KEYWORD:
            break  # a positional-only one first, *args or the keyword-only ones: nothing after it moves
        names.append(p.name)
    required = bool(names) and parameters[0].default is inspect.Parameter.empty
    return tuple(names), required, positional_only


def _positional_only(f: Any, refused: list[str], caller: str | None) -> TypeError:
    name = function_name(f)
    np: Any = sys.modules.get("numpy")
    ufunc = np is not None and isinstance(f, np.ufunc)
    what = "an input of the ufunc" if ufunc else "a positional-only argument of"
    prefix = f"{caller} for {name}: " if caller else f"{name}: "
    return TypeError(
        f"{prefix}{', '.join(f'{k}=' for k in refused)} names {what} {name}, which takes it by position only; "
        f"call {name}({refused[0]}) rather than {name}({refused[0]}={refused[0]})"
    )


__all__ = ["keywords_as_positional"]
