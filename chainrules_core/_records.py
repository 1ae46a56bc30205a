"""What the registry keeps for each primal: its registrations (``RuleRecord``), the rules resolved from them with
fast paths on and off (``_Rules``, ``_Entry``), and the choice among typed rules (``_select``)."""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from multipledispatch import Dispatcher

from .config import RuleConfig

Rule = Callable[..., Any]
RuleKind = Literal["rule", "non_differentiable", "opt_out", "refusal"]


class _Missing:
    """The default of a positional argument that a call must give (``frule``'s ``f``)."""

    def __repr__(self) -> str:
        return "<required>"


MISSING: Any = _Missing()


def _opt_out_rule(*args: Any, **kwargs: Any) -> None:
    return None


@dataclass(frozen=True)
class RuleRecord:
    """One registration, as listed by ``rrule.records()`` and ``frule.records()``."""

    primal: Any
    """The function, ufunc or builtin; a class for callable objects; ``type[C]`` for a constructor."""
    arg_types: tuple[Any, ...] | None
    """The dispatch signature, or ``None`` for a rule that takes any arguments."""
    rule: Rule
    config: bool
    """Whether the rule receives a ``RuleConfig`` first."""
    requires: tuple[type, ...]
    """Capability markers the config must have for the rule to apply."""
    kind: RuleKind = "rule"
    """``"rule"``; ``"non_differentiable"`` (registered by ``non_differentiable``); ``"opt_out"`` (no rule here);
    ``"refusal"`` (a function no rule can mirror, such as an in-place update: its rules raise ``TypeError``)."""
    module: str = "?"
    """The module that made the registration (through helpers such as ``scalar_rule``, the one that called them)."""
    fast_path: Rule | None = None
    """The fast path declared beside the rule (``rrule.fast_path``), called with the rule first; ``None`` if none."""
    exact_paths: tuple[tuple[tuple[type, ...], Rule], ...] = ()
    """The fast paths declared for exact argument types (``rrule.fast_path(..., exact=types)``): what a call whose
    arguments have exactly those types runs, with the rule first, in place of ``fast_path``."""
    generic: bool = False
    """Whether the rule runs on the arrays of every Array API library, not numpy's alone (``register(generic=)``)."""

    @property
    def opt_out(self) -> bool:
        """Whether this signature declares that there is no rule."""
        return self.kind == "opt_out"


def _signature(record: RuleRecord) -> tuple[Any, ...]:
    """What makes two registrations the same: the primal (by identity), the types, the config and capabilities."""
    return _signature_of(record.primal, record.arg_types, record.config, record.requires)


def _signature_of(
    primal: Any, arg_types: tuple[Any, ...] | None, config: bool, requires: tuple[type, ...]
) -> tuple[Any, ...]:
    return (primal if isinstance(primal, types.GenericAlias) else id(primal), arg_types, config, requires)


def _callable(record: RuleRecord, fast: bool, arg_types: tuple[type, ...] | None = None) -> Rule:
    """What a call that selects ``record`` runs: while fast paths are on, its fast path for exactly ``arg_types``
    if it has one, else its fast path, bound to the rule (``fast_path(rule, *call)``, as a bound method: no frame
    of its own); else the rule."""
    if fast:
        for exact, path in record.exact_paths:
            if exact == arg_types:
                return types.MethodType(path, record.rule)
        if record.fast_path is not None:
            return types.MethodType(record.fast_path, record.rule)
    return record.rule


class _Rules:
    """One primal's registrations at one moment, with the dispatch caches over them.

    Never changed once published (``_Entry.rules``), but for the caches,
    which only gain entries: a registration, and a turn of the fast-path
    switch (``fast``: whether the caches hold fast paths), publishes a new
    ``_Rules``.
    """

    __slots__ = ("config_cache", "configured", "fast", "plain", "plain_cache")

    def __init__(
        self,
        plain: dict[tuple[Any, ...] | None, RuleRecord],
        configured: dict[tuple[Any, ...] | None, tuple[RuleRecord, ...]],
        fast: bool = True,
    ) -> None:
        self.plain = plain
        self.configured = configured
        self.fast = fast
        self.plain_cache: dict[tuple[type, ...], Rule | None] = {}
        self.config_cache: dict[tuple[type, tuple[type, ...]], Rule | None] = {}

    def added(self, record: RuleRecord) -> _Rules:
        """These rules with ``record``, which replaces a registration of the same signature."""
        if record.config:
            same = self.configured.get(record.arg_types, ())
            kept = tuple(r for r in same if r.requires != record.requires)
            return _Rules(self.plain, {**self.configured, record.arg_types: (*kept, record)}, self.fast)
        return _Rules({**self.plain, record.arg_types: record}, self.configured, self.fast)

    def single_rule(self) -> Rule | None:
        """The rule when there is exactly one and it takes any arguments."""
        if not self.configured and len(self.plain) == 1 and None in self.plain:
            record = self.plain[None]
            return None if record.opt_out else _callable(record, self.fast)
        return None

    def find_plain(self, arg_types: tuple[type, ...]) -> Rule | None:
        rule = self.plain_cache.get(arg_types, MISSING)
        if rule is MISSING:
            rule = self.plain_cache[arg_types] = _select(list(self.plain.values()), arg_types, self.fast)
        return rule  # type: ignore[no-any-return]

    def find(self, arg_types: tuple[type, ...], config: RuleConfig | None) -> tuple[Rule | None, bool]:
        """``(rule, takes_config)`` for these argument types, or ``(None, False)``."""
        if config is not None and self.configured:
            key = (type(config), arg_types)
            rule = self.config_cache.get(key, MISSING)
            if rule is MISSING:
                usable = [
                    r
                    for records in self.configured.values()
                    for r in records
                    if all(isinstance(config, cap) for cap in r.requires)
                ]
                rule = self.config_cache[key] = _select(usable, arg_types, self.fast)
            if rule is not None:
                return rule, True
        rule = self.plain_cache.get(arg_types, MISSING)
        return (self.find_plain(arg_types) if rule is MISSING else rule), False


class _Entry:
    """Every rule registered for one primal: ``rules``, replaced as a whole by each registration.

    ``by_switch`` holds the rules as resolved with fast paths on and off (each with its own caches), so that the
    switch only points ``rules`` at the other one.
    """

    __slots__ = ("by_switch", "primal", "rules")

    def __init__(self, primal: Any, fast: bool) -> None:
        self.primal = primal
        self.by_switch = {True: _Rules({}, {}, True), False: _Rules({}, {}, False)}
        self.rules = self.by_switch[fast]

    def add(self, record: RuleRecord, fast: bool) -> None:
        self.by_switch = {on: rules.added(record) for on, rules in self.by_switch.items()}
        self.rules = self.by_switch[fast]


def _select(records: Sequence[RuleRecord], arg_types: tuple[type, ...], fast: bool) -> Rule | None:
    """What a call runs for the most specific record matching ``arg_types``, an untyped one as fallback (with its
    fast path if ``fast``)."""
    typed = [r for r in records if r.arg_types is not None]
    if typed:
        dispatcher = Dispatcher("rule")
        for record in typed:
            dispatcher.add(record.arg_types, record)
        chosen: RuleRecord | None = dispatcher.dispatch(*arg_types)
        if chosen is not None:
            return _callable(chosen, fast, arg_types)
    for record in records:
        if record.arg_types is None:
            return _callable(record, fast, arg_types)
    return None
