"""Rules derived by the engines: ``rrule`` from the tracker, ``frule`` from the dual numbers (ChainRules'
``rrule_via_ad``).

A function without rules of its own, built from primitives that have them,
gets its rules by running the engines on its body: ``derived_rrule(f)`` is a
rule ``(f, *args, **kwargs) -> (y, pullback)`` whose pullback is the
tracker's backward pass, and ``derived_frule(f)`` one
``(tangents, f, *args, **kwargs) -> (y, y_dot)`` from a pass of dual numbers.
Register them as ``f``'s rules, or let the framework adapters
(``chainrules.interop``) use them for a function that has none. They trace
``f``'s body, never ``f``'s own rule, so registering them for ``f`` does not
recurse; and they nest, so a derived rule has derivatives of any order.

>>> import numpy as np
>>> from chainrules_core import NoTangent, frule, rrule
>>> def softsign(x):
...     return x / (1 + np.abs(x))
>>> _ = rrule.register(softsign)(derived_rrule(softsign))
>>> _ = frule.register(softsign)(derived_frule(softsign))
>>> y, pullback = rrule(softsign, np.array([1.0, -3.0]))
>>> pullback(np.ones(2))
(NoTangent(), array([0.25  , 0.0625]))
>>> frule((NoTangent(), np.ones(2)), softsign, np.array([1.0, -3.0]))[1]
array([0.25  , 0.0625])

A rule of ``f`` written by hand that runs the engines on ``f`` itself would
have the engine ask ``f``'s rule again, endlessly: the engines refuse that at
once, with a ``RecursionError`` that names ``f`` and these helpers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainrules_core import NoTangent

from ._box import ObjectBox
from .dual import _push
from .tracker import _run

Rule = Callable[..., Any]


def _body(f: Any, *args: Any, **kwargs: Any) -> Any:
    """``f(*args, **kwargs)`` by ``f``'s own code: a callable object with followed fields is opened first, so its
    ``__call__`` runs on them rather than its rule being asked."""
    if isinstance(f, ObjectBox):
        f = f._open()
    return f(*args, **kwargs)


def derived_rrule(f: Any = None) -> Rule:
    """The rrule of ``f`` (a function, or a callable object's class: its instances' fields get cotangents) made by
    the reverse engine on ``f``'s body: ``rule(f, *args, **kwargs) -> (y, pullback)``, ``pullback(y_bar)`` giving
    ``(f_bar, *arg_bars)``. Keyword arguments get no cotangent. ``f`` names the function in messages only."""

    def derived_rrule_of(f_: Any, *args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
        y, back = _run(_body, (f_, *args), kwargs, None, with_f=False)

        def derived_pullback(y_bar: Any) -> tuple[Any, ...]:
            f_bar, *arg_bars = back(y_bar)
            return (NoTangent() if callable_without_fields(f_) else f_bar, *arg_bars)

        return y, derived_pullback

    return derived_rrule_of


def derived_frule(f: Any = None) -> Rule:
    """The frule of ``f`` made by the forward engine on ``f``'s body: ``rule((f_dot, *arg_dots), f, *args,
    **kwargs) -> (y, y_dot)``."""

    def derived_frule_of(tangents: tuple[Any, ...], f_: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        if len(tangents) != len(args) + 1:
            raise ValueError(
                f"derived frule: {len(tangents)} tangents for {len(args)} arguments; expected {len(args) + 1}, "
                "the first for the function itself"
            )
        return _push(_body, NoTangent(), (f_, *args), tuple(tangents), kwargs, None)  # type: ignore[no-any-return]

    return derived_frule_of


def callable_without_fields(f: Any) -> bool:
    """Whether ``f`` is a plain function (or builtin), which has no tangent of its own."""
    import types

    return isinstance(f, (types.FunctionType, types.BuiltinFunctionType, types.MethodType))
