"""What a registration must be, checked before anything is registered: ``TypeError`` naming the mistake."""

from __future__ import annotations

import inspect
import types
from collections.abc import Sequence
from typing import Any

from .naming import function_name


def check_registration(
    caller: str, primal: Any, arg_types: tuple[Any, ...], config: bool, requires: Sequence[type]
) -> None:
    """Raise ``TypeError`` naming what is wrong with a registration, before anything is registered."""
    is_constructor = isinstance(primal, types.GenericAlias) and primal.__origin__ is type
    if not (callable(primal) or is_constructor):
        raise TypeError(
            f"{caller}({primal!r}): the primal must be a function, a class or type[C], got a {type(primal).__name__}"
        )
    where = f"{caller}({function_name(primal)})"
    owner = getattr(primal, "__self__", None)
    if isinstance(primal, types.MethodType) or (
        isinstance(primal, types.BuiltinMethodType) and owner is not None and not isinstance(owner, types.ModuleType)
    ):
        cls = owner if isinstance(owner, type) else type(owner)
        func = getattr(primal, "__func__", None) or getattr(cls, primal.__name__, None)
        name = function_name(func) + (".__func__" if isinstance(owner, type) else "")  # a class method
        raise TypeError(
            f"{where}: a bound method is a new object at each attribute access, so a call would never find a "
            f"rule registered for this one; register the function {name} (a bound method resolves to it, "
            f"with its object first), or the class {cls.__name__} for its callable instances"
        )
    for position, t in enumerate(arg_types, start=1):
        members = t if isinstance(t, tuple) else (t,)
        if not members or not all(isinstance(m, type) for m in members):
            raise TypeError(
                f"{where}: argument type {position} is {t!r}, not a class; give a class (float, np.ndarray, "
                "numbers.Real) or a tuple of classes for a union"
            )
    if isinstance(requires, type) or not isinstance(requires, Sequence):
        raise TypeError(
            f"{where}: requires= takes a tuple of capability classes, e.g. (HasReverseMode,), not {requires!r}"
        )
    for capability in requires:
        if not isinstance(capability, type):
            raise TypeError(
                f"{where}: requires= holds {capability!r} (a {type(capability).__name__}), not a class; give "
                "capability classes such as HasReverseMode, which the engine's RuleConfig subclasses"
            )
    if requires and not config:
        raise TypeError(f"{where}: requires= applies to config-aware rules; pass config=True too")


def check_rule_signature(
    caller: str, primal: Any, rule: Any, head: tuple[str, ...], arg_types: tuple[Any, ...]
) -> None:
    """Raise ``TypeError`` if ``rule`` cannot be called as ``rule(*head, f, *args)`` for the arguments ``primal``
    requires (as many as ``arg_types`` when given), before anything is registered.

    ``head`` names what comes before ``f``: nothing for an rrule, ``tangents`` for an frule, ``config`` for a
    config-aware rule, ``rule`` for a fast path. A rule or primal whose signature Python cannot read (some
    builtins) is not checked.
    """
    try:
        signature = inspect.signature(rule)
    except (TypeError, ValueError):
        return
    count = len(arg_types) if arg_types else _required_positional(primal)
    call = [*head, "f", *(f"x{i}" for i in range(1, (count or 0) + 1))]
    try:
        if count is None:  # the primal's arguments are unknown: the rule must take what comes before them
            signature.bind_partial(*call)
        else:
            signature.bind(*call)
    except TypeError as err:
        shown = ", ".join(call)
        raise TypeError(
            f"{caller}({_name(primal)}): the rule {getattr(rule, '__qualname__', rule)!r} cannot be called as "
            f"rule({shown}) ({err}); a rule receives {', '.join([*head, 'the function'])} first, then one value "
            "per positional argument (*args takes any number)"
        ) from None


def _required_positional(primal: Any) -> int | None:
    """How many positional arguments a call of ``primal`` needs at least; ``None`` where its signature cannot be
    read."""
    target = primal
    if isinstance(primal, types.GenericAlias):  # type[C]: the constructor
        target = primal.__args__[0]
    elif isinstance(primal, type):  # a class of callable objects: its instances' __call__, without self
        target = primal.__call__
    try:
        parameters = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        return None
    if isinstance(primal, type) and not isinstance(primal, types.GenericAlias) and parameters:
        parameters = parameters[1:]
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in parameters if p.kind in positional and p.default is inspect.Parameter.empty)


def _name(primal: Any) -> str:
    return function_name(primal)
