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

An engine whose followed value comes by keyword (``np.clip(x, a_max=hi)``,
``g(x, w=mu)``) moves that keyword to its position in the rule the call
resolves to (``keywords_to_positions``): keyword arguments get no tangent
slot, so a followed one left a keyword would lose its derivative.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from ._callables import unwrap
from ._records import _opt_out_rule
from .naming import function_name

if TYPE_CHECKING:
    from ._registry import RuleRegistry
    from .config import RuleConfig
    from .rules import FRule, RRule

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


# ----- followed values by keyword: moved to the rule's positions -----

_EMPTY = inspect.Parameter.empty


class _Positions(NamedTuple):
    """A callable's positional parameters: their names in order, their defaults."""

    names: tuple[str, ...]
    defaults: tuple[Any, ...]
    """``inspect.Parameter.empty`` where a parameter has none."""
    more: bool
    """Whether it takes more positional arguments than it names (``*args``, or no signature to read)."""
    by_position_only: int
    """How many of the names are positional-only."""
    var_keyword: bool
    """Whether it takes ``**kwargs``, where a keyword of a positional-only name goes."""


_UNKNOWN = _Positions((), (), True, 0, True)
_UFUNC_KEYWORDS = frozenset({"out", "where", "axes", "axis", "keepdims", "casting", "order", "dtype", "subok"})
"""What a ufunc takes by keyword; any other keyword would name one of its inputs."""


def keywords_to_positions(
    entry_point: RRule | FRule,
    f: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    names: Collection[str],
    *,
    config: RuleConfig | None = None,
    values: tuple[Any, ...] | None = None,
    caller: str | None = None,
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``(args, kwargs)`` of the call ``f(*args, **kwargs)`` with the keyword arguments ``names`` at their positions.

    For an engine whose followed values come by keyword (``names``: the
    keywords holding them), as keyword arguments get no tangent slot. The
    positions are those of the rule that ``entry_point`` (``rrule`` or ``frule``)
    resolves for ``f(*values)`` with ``config`` (``values``: the positional
    arguments as dispatch sees them, the engine's primals; ``args`` by
    default): the parameters of the rule's signature after ``f`` (and the
    config, the tangents), read once per rule; where the rule takes
    ``*args``, the parameters of ``f``'s own signature continue them. The
    positions between the last positional argument and a moved keyword take
    the keyword arguments that name them, else their defaults (the rule's,
    else ``f``'s). For a bound method or a partial the rule is that of the
    function behind it.

    A keyword that names no such position, or one whose positions before it
    have neither an argument nor a default, raises a ``TypeError`` naming
    ``f`` and the keyword (``caller`` starts the message). When ``f`` has no
    rule for the call, ``f``'s own signature places the keywords, and those
    it cannot place stay keywords: the engine runs ``f``'s own code on them,
    or reports that there is no rule.

    >>> from chainrules_core import NoTangent, rrule
    >>> def scaled(x, w=1.0, p=2.0, *, bound=None):
    ...     return w * x**p
    >>> @rrule.register(scaled)
    ... def _rrule_scaled(f, x, w=1.0, *options, **kwargs):
    ...     p = options[0] if options else 2.0
    ...     pullback = lambda y_bar: (NoTangent(), y_bar * w * p * x ** (p - 1), y_bar * x**p, NoTangent())
    ...     return f(x, w, *options, **kwargs), pullback
    >>> keywords_to_positions(rrule, scaled, (2.0,), {"p": 3.0}, ["p"])  # w takes its default
    ((2.0, 1.0, 3.0), {})
    >>> keywords_to_positions(rrule, scaled, (2.0,), {"bound": 4.0}, ["bound"], caller="reverse mode")
    Traceback (most recent call last):
    TypeError: reverse mode: ...scaled(..., bound=...) passes a followed value by keyword, and bound is not a ...
    """
    if not names:
        return args, kwargs
    registry = entry_point.registry
    found = _rule_of(registry, f, args if values is None else values, config)
    primal = _positions_of(f)
    kwargs_names = list(names)
    aliases: Mapping[str, str] = {}
    declared: Mapping[str, Any] = {}
    if found is None:
        positions, strict = primal, False
    else:
        rule, skip, leading = found
        positions, strict = _combined(_rule_positions(rule, skip), primal, leading), True
        declaration: tuple[Mapping[str, str], Mapping[str, Any]] = getattr(rule, "__chainrules_keywords__", ({}, {}))
        aliases, declared = declaration
        if any(n in aliases for n in names):  # keyword-only names that stand for positions (np.clip's min=)
            names = [aliases.get(n, n) for n in names]
            kwargs = {aliases.get(k, k): v for k, v in kwargs.items()}
            positions = positions._replace(
                defaults=tuple(declared.get(n, d) for n, d in zip(positions.names, positions.defaults))
            )
    targets = []
    only = primal.names[: primal.by_position_only]
    for name in names:
        if (name in only and not primal.var_keyword) or _ufunc_input(f, name):
            raise _positional_only(f, [name], caller)
        index = positions.names.index(name) if name in positions.names and name not in only else -1
        if index >= len(args):
            targets.append(index)
        elif index >= 0:
            raise TypeError(f"{_prefix(f, caller)}got multiple values for the argument {name}")
        elif strict:
            raise _not_a_position(registry, f, name, primal, caller)
    if not targets:
        return args, kwargs
    if found is not None and any(n in aliases for n in kwargs_names):  # an alias's call: the positions after it
        while max(targets) + 1 < len(positions.names) and positions.names[max(targets) + 1] in declared:
            targets.append(max(targets) + 1)
    moved, rest = list(args), dict(kwargs)
    for i in range(len(args), max(targets) + 1):
        name, default = positions.names[i], positions.defaults[i]
        if name in rest:
            moved.append(rest.pop(name))
        elif default is not _EMPTY:
            moved.append(default)
        else:
            later = positions.names[min(j for j in targets if j > i)]
            raise TypeError(
                f"{_prefix(f, caller)}{later}= holds a followed value, which goes to its position, and the "
                f"argument {name} before it has no default: give {name} too, by position or by keyword"
            )
    return tuple(moved), rest


def keyword_positions(
    aliases: Mapping[str, str], defaults: Mapping[str, Any] | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare keyword-only names of a function that stand for positions of its rule (``keywords_to_positions``).

    ``aliases`` maps a keyword to the position it stands for; ``defaults``
    gives the value of a position left out between the arguments and a
    moved keyword, where the function's own default cannot be passed by
    position (numpy's ``clip(x, min=lo)`` is ``clip(x, lo, None)``, while its
    signature's default of ``a_max`` is a marker that ``clip`` refuses).

    >>> @keyword_positions({"min": "a_min", "max": "a_max"}, {"a_min": None, "a_max": None})
    ... def _rrule_clip(f, x, *bounds, **kwargs):
    ...     ...
    >>> _rrule_clip.__chainrules_keywords__
    ({'min': 'a_min', 'max': 'a_max'}, {'a_min': None, 'a_max': None})
    """

    def declare(rule: Callable[..., Any]) -> Callable[..., Any]:
        rule.__chainrules_keywords__ = (dict(aliases), dict(defaults or {}))  # type: ignore[attr-defined]
        return rule

    return declare


def _rule_of(
    registry: RuleRegistry, f: Any, values: tuple[Any, ...], config: RuleConfig | None
) -> tuple[Any, int, int] | None:
    """The rule function (never its fast path) that ``f(*values)`` runs, how many of its parameters come before the
    call's arguments (the config, the tangents, ``f``), and how many leading arguments a bound method or partial
    puts before them; ``None`` without a rule."""
    entry = registry._entry_for(f)
    if entry is not None:
        rule, takes_config = entry.by_switch[False].find(tuple(map(type, values)), config)
        if rule is not None and rule is not _opt_out_rule:
            return rule, takes_config + registry.head_size + 1, 0
    unwrapped = unwrap(f, {})
    if unwrapped is None:
        return None
    func, leading, _, _ = unwrapped
    found = _rule_of(registry, func, (*leading, *values), config)
    return None if found is None else (found[0], found[1], found[2] + len(leading))


def _combined(rule: _Positions, primal: _Positions, leading: int) -> _Positions:
    """The rule's positions (after ``leading`` ones a bound method or partial fills), continued by the primal's
    where the rule takes ``*args``; a position without a default of the rule's takes the primal's of that name."""
    names, defaults, more = rule.names[leading:], rule.defaults[leading:], rule.more
    primal_defaults = dict(zip(primal.names, primal.defaults))
    defaults = tuple(primal_defaults.get(n, _EMPTY) if d is _EMPTY else d for n, d in zip(names, defaults))
    if more:
        names, defaults = names + primal.names[len(names) :], defaults + primal.defaults[len(names) :]
        more = primal.more
    return _Positions(names, defaults, more, 0, rule.var_keyword)


def _rule_positions(rule: Any, skip: int) -> _Positions:
    try:
        return _cached_positions(rule, skip)
    except TypeError:  # an unhashable callable: read each time
        return _read_positions(rule, skip)


def _positions_of(f: Any) -> _Positions:
    np: Any = sys.modules.get("numpy")
    if np is not None and isinstance(f, np.ufunc):
        return _UNKNOWN  # every input positional-only, unnamed
    return _rule_positions(f, 0)


@functools.lru_cache(maxsize=512)
def _cached_positions(f: Any, skip: int) -> _Positions:
    return _read_positions(f, skip)


def _read_positions(f: Any, skip: int) -> _Positions:
    """The positional parameters of ``f`` after the first ``skip``."""
    try:
        parameters = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        return _UNKNOWN
    names: list[str] = []
    defaults: list[Any] = []
    more = False
    for p in parameters:
        if p.kind is p.VAR_POSITIONAL:
            more = True
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            break
        names.append(p.name)
        defaults.append(p.default)
    only = max(sum(1 for p in parameters if p.kind is p.POSITIONAL_ONLY) - skip, 0)
    var_keyword = any(p.kind is p.VAR_KEYWORD for p in parameters)
    return _Positions(tuple(names[skip:]), tuple(defaults[skip:]), more, only, var_keyword)


def _ufunc_input(f: Any, name: str) -> bool:
    """Whether ``name`` names an input of the ufunc ``f`` (what a ufunc takes by keyword is known)."""
    np: Any = sys.modules.get("numpy")
    return np is not None and isinstance(f, np.ufunc) and name not in _UFUNC_KEYWORDS


def _prefix(f: Any, caller: str | None) -> str:
    return f"{caller}: {function_name(f)}: " if caller else f"{function_name(f)}: "


def _not_a_position(registry: RuleRegistry, f: Any, name: str, primal: _Positions, caller: str | None) -> TypeError:
    """The refusal of a followed keyword that no position of the rule takes, saying how to pass it if it can be."""
    fname = function_name(f)
    if name in primal.names:
        shown = ", ".join(primal.names[: primal.names.index(name) + 1])
        how = f"pass it by position, {fname}({shown}), if its {registry.mode} takes that many arguments"
    else:
        how = (
            f"{fname} takes {name} by keyword only; call a function of your own that takes it by position and "
            f"has a rule, or keep {name} a constant (chainrules.engines.value)"
        )
    return TypeError(
        f"{caller + ': ' if caller else ''}{fname}(..., {name}=...) passes a followed value by keyword, and {name} "
        f"is not a positional parameter of its {registry.mode}; keyword arguments get no tangent, so its "
        f"derivative would be lost: {how}"
    )


__all__ = ["keyword_positions", "keywords_as_positional", "keywords_to_positions"]
