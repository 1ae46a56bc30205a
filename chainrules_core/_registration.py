"""What a registration must be, checked before anything is registered: ``TypeError`` naming the mistake.

A rule is refused only where it can never be called: a primal or rule that is
not callable, a bound method (a new object at each access), argument types
that are not classes, or a rule whose signature takes none of the positional
argument counts a call of the primal can have. A rule that takes some of them
is a correct rule for those calls (ChainRules.jl registers one method per
signature); a call with a count the rule cannot take finds no rule
(``by_count``), as an unmatched signature does.

Reading signatures is the costly part (``inspect.signature`` parses the text
signatures of builtins), so the rules this package registers while it is
imported are checked by its tests (``check_signatures``), not at import.
"""

from __future__ import annotations

import inspect
import math
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any

from .naming import function_name

Counts = tuple[int, float]
"""``(fewest, most)`` positional arguments; ``most`` is ``math.inf`` where ``*args`` takes any number."""


def check_registration(
    caller: str, primal: Any, arg_types: tuple[Any, ...], config: bool, requires: Sequence[type]
) -> None:
    """Raise ``TypeError`` naming what is wrong with a registration, before anything is registered."""
    if not (callable(primal) or _is_constructor(primal)):
        raise TypeError(
            f"{caller}({primal!r}): the primal must be a function, a class or type[C], got a {type(primal).__name__}"
        )
    owner = getattr(primal, "__self__", None)
    if isinstance(primal, types.MethodType) or (
        isinstance(primal, types.BuiltinMethodType) and owner is not None and not isinstance(owner, types.ModuleType)
    ):
        cls = owner if isinstance(owner, type) else type(owner)
        func = getattr(primal, "__func__", None) or getattr(cls, primal.__name__, None)
        name = function_name(func) + (".__func__" if isinstance(owner, type) else "")  # a class method
        raise TypeError(
            f"{_where(caller, primal)}: a bound method is a new object at each attribute access, so a call "
            f"would never find a rule registered for this one; register the function {name} (a bound method "
            f"resolves to it, with its object first), or the class {cls.__name__} for its callable instances"
        )
    for position, t in enumerate(arg_types, start=1):
        members = t if isinstance(t, tuple) else (t,)
        if not members or not all(isinstance(m, type) for m in members):
            raise TypeError(
                f"{_where(caller, primal)}: argument type {position} is {t!r}, not a class; give a class "
                "(float, np.ndarray, numbers.Real) or a tuple of classes for a union"
            )
    if isinstance(requires, type) or not isinstance(requires, Sequence):
        raise TypeError(
            f"{_where(caller, primal)}: requires= takes a tuple of capability classes, e.g. (HasReverseMode,), "
            f"not {requires!r}"
        )
    for capability in requires:
        if not isinstance(capability, type):
            raise TypeError(
                f"{_where(caller, primal)}: requires= holds {capability!r} (a {type(capability).__name__}), not "
                "a class; give capability classes such as HasReverseMode, which the engine's RuleConfig subclasses"
            )
    if requires and not config:
        raise TypeError(f"{_where(caller, primal)}: requires= applies to config-aware rules; pass config=True too")


def check_rule_signature(
    caller: str, primal: Any, rule: Any, head: tuple[str, ...], arg_types: tuple[Any, ...]
) -> Counts | None:
    """Raise ``TypeError`` if ``rule`` can take no call ``rule(*head, f, *args)`` that ``primal`` can have.

    ``head`` names what comes before ``f``: nothing for an rrule, ``tangents``
    for an frule, ``config`` for a config-aware rule, ``rule`` for a fast
    path. With ``arg_types`` the call has that many arguments. Returns the
    counts of positional arguments the rule takes when they are fewer than
    the primal's calls can have (so the registry answers the others with no
    rule), else ``None``. A signature Python cannot read (some builtins) is
    taken to accept anything.

    >>> def g(x, w=1.0):
    ...     return w * x
    >>> check_rule_signature("rrule.register", g, lambda f, x, w: None, (), ())  # g(x, w): takes 2 of 1 to 2
    (2, 2)
    >>> check_rule_signature("rrule.register", g, lambda f, *args: None, (), ()) is None
    True
    >>> check_rule_signature("rrule.register", g, lambda f, x, w, v: None, (), ())  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    TypeError: rrule.register(...g): the rule '<lambda>' cannot be called as rule(f, x1, ...): it takes 3
    positional arguments after f, and a call of ...g has 1 or 2; ...
    """
    taken = _rule_counts(rule, len(head) + 1)
    if taken is None:
        return None
    fewest, most = taken
    if fewest < 0:  # it cannot take the head and f themselves
        raise _refusal(caller, primal, rule, head, None, "")
    if arg_types:
        n = len(arg_types)
        if not fewest <= n <= most:
            raise _refusal(caller, primal, rule, head, taken, f"its argument types give {n}")
        return None
    calls = positional_counts(primal)
    if calls is None:
        return None
    low, high = max(fewest, calls[0]), min(most, calls[1])
    if low > high:
        raise _refusal(caller, primal, rule, head, taken, f"a call of {_name(primal)} has {_counts_text(calls)}")
    return None if (fewest <= calls[0] and most >= calls[1]) else (low, high)


def positional_counts(primal: Any) -> Counts | None:
    """How many positional arguments a call of ``primal`` can have, ``(fewest, most)``; ``None`` where its
    signature cannot be read.

    A ufunc takes its inputs and, by position too, its outputs; a class of
    callable objects is called through ``__call__``; ``type[C]`` is the
    constructor ``C(...)``.

    >>> import numpy as np
    >>> positional_counts(np.add), positional_counts(np.sum)
    ((2, 3), (1, 7))
    """
    np: Any = sys.modules.get("numpy")
    if np is not None and isinstance(primal, np.ufunc):
        return primal.nin, primal.nin + primal.nout
    target = primal
    drop = 0
    if _is_constructor(primal):
        target = primal.__args__[0]
    elif isinstance(primal, type):  # its instances' __call__, without self
        target, drop = primal.__call__, 1
    try:
        parameters = list(inspect.signature(target).parameters.values())[drop:]
    except (TypeError, ValueError):
        return None
    return _counts(parameters)


def by_count(rule: Any, counts: Counts, skip: int) -> Callable[..., Any]:
    """``rule``, answering ``None`` (no rule) to a call whose positional arguments after the first ``skip`` (the
    head and ``f``) are not as many as it takes."""
    fewest, most = counts

    def rule_of_some_counts(*call: Any, **kwargs: Any) -> Any:
        if fewest <= len(call) - skip <= most:
            return rule(*call, **kwargs)
        return None

    rule_of_some_counts.__wrapped__ = rule  # type: ignore[attr-defined]
    rule_of_some_counts.__name__ = getattr(rule, "__name__", "rule")
    rule_of_some_counts.__qualname__ = getattr(rule, "__qualname__", rule_of_some_counts.__name__)
    rule_of_some_counts.__doc__ = getattr(rule, "__doc__", None)
    rule_of_some_counts.__module__ = getattr(rule, "__module__", __name__)
    return rule_of_some_counts


def _rule_counts(rule: Any, head: int) -> Counts | None:
    """The counts of positional arguments ``rule`` takes after its first ``head``; a negative fewest where it
    cannot take ``head`` itself."""
    code = getattr(rule, "__code__", None)
    if isinstance(rule, types.FunctionType) and code is not None:  # read off the code object: no inspect
        positional = code.co_argcount
        required = positional - len(rule.__defaults__ or ())
        most: float = math.inf if code.co_flags & inspect.CO_VARARGS else positional
        if most < head:
            return -1, most - head
        return max(required - head, 0), most - head
    try:
        parameters = list(inspect.signature(rule).parameters.values())
    except (TypeError, ValueError):
        return None
    fewest, most = _counts(parameters)
    if most < head:
        return -1, most - head
    return max(fewest - head, 0), most - head


def _counts(parameters: list[inspect.Parameter]) -> Counts:
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    fewest = sum(1 for p in positional if p.default is p.empty)
    most = math.inf if any(p.kind is p.VAR_POSITIONAL for p in parameters) else len(positional)
    return fewest, most


def _counts_text(counts: Counts) -> str:
    fewest, most = counts
    if most == math.inf:
        return f"{fewest} or more"
    if fewest == most:
        return str(fewest)
    if most == fewest + 1:
        return f"{fewest} or {int(most)}"
    return f"{fewest} to {int(most)}"


def _refusal(caller: str, primal: Any, rule: Any, head: tuple[str, ...], taken: Counts | None, why: str) -> TypeError:
    before = ", ".join([*head, "f"])
    if taken is None:
        takes = f"cannot take {before} first"
    else:
        count = _counts_text(taken)
        takes = f"takes {count} positional argument{'' if count == '1' else 's'} after {before}, and {why}"
    return TypeError(
        f"{caller}({_name(primal)}): the rule {getattr(rule, '__qualname__', rule)!r} cannot be called as "
        f"rule({before}, x1, ...): it {takes}; a rule receives {before} first, then one value per positional "
        "argument of the call (*args takes any number, and a parameter with a default makes it optional)"
    )


def _where(caller: str, primal: Any) -> str:
    return f"{caller}({function_name(primal)})"


def _is_constructor(primal: Any) -> bool:
    return isinstance(primal, types.GenericAlias) and primal.__origin__ is type


def _name(primal: Any) -> str:
    return function_name(primal)
