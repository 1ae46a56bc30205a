"""The dispatch machine behind ``frule`` and ``rrule``: registrations, lookup, caches and the general call path.

Rules are kept per primal (``_Entry``): by identity for functions, ufuncs and
builtins, by class for callable objects. The entry points try the fast tables
first: one dict lookup from ``id(f)`` (or ``type(f)``) to the rule, or to a
dispatcher on argument types when the primal has typed rules. Calls that
carry a ``RuleConfig`` use the same tables, minus the primals that have
config-aware rules. Everything else (bound methods, partials, config-aware
rules, debug mode) takes the general path, ``RuleRegistry.call``.

The two registries differ only in their calling convention: an rrule is
called as ``rule(f, *args)``, an frule as ``rule(tangents, f, *args)``. The
general path passes the arguments before ``f`` as ``head``.

Threads: registration holds a lock and publishes a primal's rules as a new
``_Rules`` (copy on write), so a lookup reads one consistent set of rules
and never iterates a dict that another thread changes. The fast tables are
changed one key at a time under the lock (the entry points hold their bound
``get``, so they are never rebound); a cache filled by a lookup lands in the
``_Rules`` it was computed from, and a class's fast-table entry is written
only if no registration happened meanwhile.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import types
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast

from ._callables import Unwrapped, unwrap
from ._records import (
    MISSING,
    Rule,
    RuleKind,
    RuleRecord,
    _Entry,
    _opt_out_rule,
    _Rules,
    _signature,
    _signature_of,
)
from ._registration import by_count, check_registration, check_rule_signature
from .config import RuleConfig
from .debug import DEBUG_MODE, check_frule_tangents, checked_frule_result, checked_rrule_result
from .fast_paths import FAST_PATHS
from .keywords import keywords_as_positional
from .naming import function_name


def _check_exact(caller: str, exact: Any, arg_types: tuple[Any, ...]) -> None:
    """Raise ``TypeError`` unless ``exact`` is a tuple of classes, one per argument, each under the signature's type."""
    if type(exact) is not tuple or not all(isinstance(t, type) for t in exact):
        raise TypeError(f"{caller}: exact= takes a tuple of classes, one per argument, not {exact!r}")
    if arg_types and (len(exact) != len(arg_types) or not all(issubclass(t, s) for t, s in zip(exact, arg_types))):
        raise TypeError(f"{caller}: the exact types {exact!r} do not fall under the signature {arg_types!r}")


def _registering_module() -> str:
    """The innermost calling module that is neither this package nor a private module (``_helpers``); a module
    of this package registering a rule of its own (``LinearAdjoint``) at import is that module."""
    frame = sys._getframe(2)
    while frame is not None:
        name = str(frame.f_globals.get("__name__", ""))
        if not name.startswith("chainrules_core") and not name.rsplit(".", 1)[-1].startswith("_"):
            return name
        if name.startswith("chainrules_core") and frame.f_code.co_name == "<module>":
            return name
        frame = frame.f_back  # type: ignore[assignment]
    return "?"


class RuleRegistry:
    """The rules of one mode, keyed by primal; ``RRuleRegistry`` and ``FRuleRegistry`` add the calling convention."""

    mode = "rule"
    head: tuple[str, ...] = ()
    """What a rule takes before ``f``: nothing for an rrule, the tangents for an frule."""
    head_size = 0

    def __init__(self) -> None:
        self._lock = threading.Lock()
        """Held by registrations and by lookups that write a class's fast-table entry."""
        self._by_id: dict[int, _Entry] = {}
        self._by_class: dict[type, _Entry] = {}
        self._class_cache: dict[type, _Entry | None] = {}
        """A class to the entry its instances use; a new dict after each registration for a class."""
        self._records: dict[tuple[Any, ...], RuleRecord] = {}
        self._debug = False
        # The fast tables, read by the entry points through their bound .get: changed key by key, never rebound.
        self.fast: dict[int, Rule] = {}
        """``id(primal)`` to what a call of it runs: its one rule, or a dispatcher on argument types."""
        self.fast_types: dict[type, Rule] = {}
        """The same for callable objects, by class; filled as instances are met."""
        self.fast_with_config: dict[int, Rule] = {}
        """``fast`` without the primals that have config-aware rules: what a call with a config may use."""
        self.fast_types_with_config: dict[type, Rule] = {}
        self._watchers: list[Callable[[], object]] = []
        self._canonical: dict[int, Any] = {}
        """``id(alias)`` to the primal whose rules its calls use (``alias``)."""
        self._aliases: dict[int, list[Any]] = {}
        """``id(primal)`` to its aliases, kept alive here."""
        self._unchecked: list[tuple[str, Any, Rule, tuple[str, ...], tuple[Any, ...]]] = []
        """The package's own registrations, whose signatures ``check_signatures`` reads."""
        self._fast_paths = True
        self._by_switch: dict[bool, tuple[dict[int, Rule], dict[int, Rule]]] = {True: ({}, {}), False: ({}, {})}
        """``fast`` and ``fast_with_config`` as they are with fast paths on and off."""
        DEBUG_MODE.follow(self)
        FAST_PATHS.follow(self)

    # ----- registration -----

    def register(
        self,
        primal: Any,
        *arg_types: Any,
        config: bool = False,
        requires: Sequence[type] = (),
        kind: RuleKind = "rule",
        generic: bool = False,
    ) -> Callable[[Rule], Rule]:
        """Decorator registering a rule for ``primal`` and, optionally, argument types.

        An rrule is called as ``rule(f, *args, **kwargs)``, an frule as
        ``rule((f_dot, *arg_dots), f, *args, **kwargs)``: ``f`` is the primal
        as the caller passed it (the instance, for a class), then one tangent
        per positional argument. ``primal`` is a function, ufunc or builtin
        (matched by identity), a class (for its callable instances) or
        ``type[C]`` (for the constructor ``C(...)``). ``arg_types`` are classes,
        or tuples of classes for a union, matched against the types of the
        positional arguments by ``multipledispatch``. ``config=True``
        registers a config-aware rule, which receives the engine's
        ``RuleConfig`` first and applies only when the config is an instance
        of every class in ``requires`` (e.g. ``HasReverseMode``). ``kind`` is
        what listings call the rule; ``non_differentiable`` sets it.
        ``generic=True`` declares that the rule runs on the arrays of every
        library that follows the Python Array API standard, not numpy's
        alone (``RuleRecord.generic``: what the adapters and the docs read);
        a rule of a numpy function that does not declare it refuses another
        library's arrays with a ``TypeError`` naming the function and the
        array type, rather than let numpy convert them.

        Registering the same signature (primal, argument types, config and
        ``requires``) again replaces the earlier rule: the last registration
        wins. The decorated function is returned unchanged, so registrations
        stack. A bad registration raises ``TypeError`` at once: a primal that
        is not callable, a bound method (a new object at each attribute
        access, so a call would never find it), argument types or
        ``requires`` entries that are not classes.

        >>> def halve(x):
        ...     return x / 2
        >>> @rrule.register(halve, float)
        ... def _rrule_halve(f, x):
        ...     return f(x), lambda y_bar: (NoTangent(), y_bar / 2)
        >>> rrule(halve, 3.0)[1](1.0)
        (NoTangent(), 0.5)
        >>> rrule(halve, 3) is None  # an int is not a float: no rule for it
        True
        """
        check_registration(f"{self.mode}.register", primal, arg_types, config, requires)
        primal = self.canonical(primal)
        module = _registering_module()

        def decorator(rule: Rule) -> Rule:
            if not callable(rule):
                raise TypeError(f"{self.mode}.register({function_name(primal)}): the rule must be callable")
            head = ("config",) * config + self.head
            stored = rule if generic or kind != "rule" else _for_numpy_arrays(primal, rule)
            if _is_own(module):  # read by the package's tests (check_signatures), not at import
                self._unchecked.append((f"{self.mode}.register", primal, rule, head, arg_types))
            else:
                counts = check_rule_signature(f"{self.mode}.register", primal, rule, head, arg_types)
                if counts is not None:  # it takes some of the primal's calls: the others find no rule
                    stored = by_count(stored, counts, len(head) + 1)
            record = RuleRecord(
                primal, arg_types or None, stored, config, tuple(requires), kind, module, generic=generic
            )
            self._add(record)
            return rule

        return decorator

    def opt_out(self, primal: Any, *arg_types: Any) -> None:
        """Declare that ``primal`` has no rule for ``arg_types``, although a broader signature does.

        The registry then returns ``None`` for such arguments and the engine
        differentiates through the function instead.
        """
        if not arg_types:
            raise TypeError(f"{self.mode}.opt_out({function_name(primal)}): give the argument types that opt out")
        check_registration(f"{self.mode}.opt_out", primal, arg_types, False, ())
        primal = self.canonical(primal)
        module = _registering_module()
        self._add(RuleRecord(primal, arg_types, _opt_out_rule, False, (), "opt_out", module))
        self._add(RuleRecord(primal, arg_types, _opt_out_rule, True, (), "opt_out", module))

    def fast_path(
        self,
        primal: Any,
        *arg_types: Any,
        config: bool = False,
        requires: Sequence[type] = (),
        exact: tuple[type, ...] | None = None,
    ) -> Callable[[Rule], Rule]:
        """Decorator declaring a fast path for the rule registered for ``primal`` with this signature.

        The fast path is called in the rule's place, with the rule first:
        ``fast(rule, f, *args, **kwargs)`` for an rrule,
        ``fast(rule, tangents, f, *args, **kwargs)`` for an frule (and the
        config before ``f``'s head for a config-aware rule). It answers the
        calls it has a shorter way for and returns ``rule(...)`` for every
        other one; both must give the same numbers, which the declared
        checks compare (``chainrules_core.fast_paths``). Register the rule
        first: its signature (``arg_types``, ``config``, ``requires``) names
        the rule the fast path belongs to. Registering that rule again drops
        the fast path, so a user's own rule is never bypassed by the one it
        replaced.

        ``exact``: the fast path serves only calls whose arguments have
        exactly these types (``type(x) is float``, no subclass), in place of
        the signature's other fast path, and is chosen when the rule is
        resolved for those types (``resolve``, the typed dispatch), so it
        tests no type itself. It must still hand anything else it meets (a
        seed or tangent of another type, an output it does not expect) to
        the rule. The types must fall under the signature's.

        >>> def halve(x):
        ...     return x / 2
        >>> @rrule.register(halve)
        ... def _rrule_halve(f, x):
        ...     return f(x), lambda y_bar: (NoTangent(), y_bar / 2)
        >>> @rrule.fast_path(halve)
        ... def _rrule_halve_of_float(rule, f, x):
        ...     if type(x) is not float:
        ...         return rule(f, x)
        ...     return 0.5 * x, lambda y_bar: (NoTangent(), 0.5 * y_bar)
        >>> rrule(halve, 3.0)[1](1.0)
        (NoTangent(), 0.5)
        >>> [r.fast_path is _rrule_halve_of_float for r in rrule.records_for(halve)]
        [True]
        """
        check_registration(f"{self.mode}.fast_path", primal, arg_types, config, requires)
        primal = self.canonical(primal)
        module = _registering_module()
        key = _signature_of(primal, arg_types or None, config, tuple(requires))
        if exact is not None:
            _check_exact(f"{self.mode}.fast_path({function_name(primal)})", exact, arg_types)

        def decorator(fast: Rule) -> Rule:
            if not callable(fast):
                raise TypeError(f"{self.mode}.fast_path({function_name(primal)}): the fast path must be callable")
            head = ("rule",) + ("config",) * config + self.head
            if _is_own(module):
                self._unchecked.append((f"{self.mode}.fast_path", primal, fast, head, exact or arg_types))
            else:
                check_rule_signature(f"{self.mode}.fast_path", primal, fast, head, exact or arg_types)
            with self._lock:
                record = self._records.get(key)
            if record is None or record.opt_out:
                raise TypeError(
                    f"{self.mode}.fast_path({function_name(primal)}): no rule is registered for this signature; "
                    f"register the general rule first ({self.mode}.register with the same argument types)"
                )
            if exact is None:
                self._add(dataclasses.replace(record, fast_path=fast))
            else:
                paths = tuple((t, p) for t, p in record.exact_paths if t != exact)
                self._add(dataclasses.replace(record, exact_paths=(*paths, (exact, fast))))
            return fast

        return decorator

    def _add(self, record: RuleRecord) -> None:
        primal = record.primal
        with self._lock:
            fast = self._fast_paths
            if isinstance(primal, types.GenericAlias) and primal.__origin__ is type:
                (cls,) = primal.__args__  # type[C]: the constructor C(...), keyed by identity
                entry = self._by_id.get(id(cls)) or self._by_id.setdefault(id(cls), _Entry(cls, fast))
            elif isinstance(primal, type):
                entry = self._by_class.get(primal) or self._by_class.setdefault(primal, _Entry(primal, fast))
            else:
                entry = self._by_id.get(id(primal)) or self._by_id.setdefault(id(primal), _Entry(primal, fast))
            entry.add(record, fast)
            self._records.pop(_signature(record), None)  # a registration replaces one of the same signature
            self._records[_signature(record)] = record
            if isinstance(entry.primal, type) and entry is self._by_class.get(entry.primal):
                self._class_cache = {}  # before the fast tables: a lookup that read the old one writes nothing
                self.fast_types.clear()
                self.fast_types_with_config.clear()
            else:
                self._make_fast(id(entry.primal), entry)
                for alias in self._aliases.get(id(entry.primal), ()):
                    self._by_id[id(alias)] = entry
                    self._make_fast(id(alias), entry)
            self._changed()

    def alias(self, alias: Any, primal: Any) -> None:
        """Make calls of ``alias`` use ``primal``'s rules, those registered now and later.

        For a stand-in that calls ``primal``: a wrapper installed in a
        module's place of a function (``chainrules.routing``). A rule then
        receives ``alias`` as ``f``, as the caller passed it; registering a
        rule for ``alias`` registers it for ``primal``; listings show
        ``primal``.

        >>> import functools
        >>> def halve(x):
        ...     return x / 2
        >>> @rrule.register(halve)
        ... def _rrule_halve(f, x):
        ...     return f(x), lambda y_bar: (NoTangent(), y_bar / 2)
        >>> stand_in = functools.wraps(halve)(lambda x: halve(x))
        >>> rrule.alias(stand_in, halve)
        >>> rrule(stand_in, 3.0)[1](1.0), rrule.canonical(stand_in) is halve
        ((NoTangent(), 0.5), True)
        """
        if not callable(alias):
            raise TypeError(f"{self.mode}.alias: the alias must be callable, got {alias!r}")
        primal = self.canonical(primal)
        with self._lock:
            self._canonical[id(alias)] = primal
            self._aliases.setdefault(id(primal), []).append(alias)
            entry = self._by_id.get(id(primal))
            if entry is not None:
                self._by_id[id(alias)] = entry
                self._make_fast(id(alias), entry)
            self._changed()

    def canonical(self, f: Any) -> Any:
        """The primal whose rules a call of ``f`` uses: ``f`` itself, or what ``f`` is an ``alias`` of."""
        return self._canonical.get(id(f), f)

    def check_signatures(self) -> list[str]:
        """The refusals that the package's own registrations would meet if they were checked as a user's are.

        ``register`` and ``fast_path`` read the signatures of a rule and its
        primal at once (``TypeError`` for a rule that can take none of the
        primal's calls), except for the rules this package registers while it
        is imported: reading a thousand signatures would double the import's
        time. Its tests call this instead, and expect an empty list.
        """
        with self._lock:
            pending = list(self._unchecked)
        refusals = []
        for caller, primal, rule, head, arg_types in pending:
            try:
                check_rule_signature(caller, primal, rule, head, arg_types)
            except TypeError as err:
                refusals.append(str(err))
        return refusals

    def records(self) -> Iterator[RuleRecord]:
        """Every registration, oldest first."""
        with self._lock:
            return iter(list(self._records.values()))

    def records_for(self, f: Any) -> list[RuleRecord]:
        """The registrations a call of ``f`` can use, for messages: its own, its class's, or those behind it.

        Behind a bound method or a partial are the function's; a primal
        without registrations gives an empty list.
        """
        f = self.canonical(f)
        primals: list[Any] = [f]
        if isinstance(f, type):
            primals.append(type[f])
        else:
            primals.extend(type(f).__mro__)
        unwrapped = unwrap(f, {})
        if unwrapped is not None:
            primals.append(unwrapped[0])
        keys = {p if isinstance(p, types.GenericAlias) else id(p) for p in primals}
        return [r for r in self.records() if _signature(r)[0] in keys]

    # ----- the fast tables -----

    def _make_fast(self, key: Any, entry: _Entry) -> None:
        """Put what a call of ``entry``'s primal runs, with fast paths on and off, into the tables kept for each
        (``_by_switch``), and into the live tables (``fast``, ``fast_with_config``) unless debug mode is on."""
        for on, rules in entry.by_switch.items():
            self._put(key, rules, *self._by_switch[on])
        if not self._debug:
            table, with_config = self._by_switch[self._fast_paths]
            self.fast[key] = table[key]
            if key in with_config:
                self.fast_with_config[key] = with_config[key]
            else:
                self.fast_with_config.pop(key, None)

    def _put(self, key: Any, rules: _Rules, table: dict[Any, Rule], with_config: dict[Any, Rule]) -> None:
        """Put what a call runs with ``rules`` into ``table``, and into ``with_config`` if a call with a config may."""
        rule = rules.single_rule() or self._typed_caller(rules)
        table[key] = rule
        if rules.configured:
            with_config.pop(key, None)
        else:
            with_config[key] = rule

    def _typed_caller(self, rules: _Rules) -> Rule:
        """What the fast path calls for a primal whose rules dispatch on argument types."""
        skip = self.head_size + 1
        cache_get = rules.plain_cache.get
        find_plain = rules.find_plain

        def dispatch_on_types(*call: Any, **kwargs: Any) -> Any:
            arg_types = tuple(map(type, call[skip:]))
            rule = cache_get(arg_types) or find_plain(arg_types)
            return None if rule is None else rule(*call, **kwargs)

        return dispatch_on_types

    def set_debug_mode(self, enabled: bool) -> None:
        """Check every rule's output shape and count, at a cost; see ``chainrules_core.set_debug_mode``."""
        with self._lock:
            self._debug = enabled
            for table in (self.fast, self.fast_types, self.fast_with_config, self.fast_types_with_config):
                table.clear()
            self._class_cache = {}
            if not enabled:
                self._restore_fast_tables()
            self._changed()

    def set_fast_paths(self, enabled: bool) -> None:
        """Resolve calls to the fast paths declared beside the rules, or to the rules alone; see
        ``chainrules_core.fast_paths``. Each primal keeps both resolutions, so a turn of the switch copies tables
        rather than resolving every primal again."""
        with self._lock:
            self._fast_paths = enabled
            for entry in (*self._by_id.values(), *self._by_class.values()):
                entry.rules = entry.by_switch[enabled]
            for table in (self.fast, self.fast_types, self.fast_with_config, self.fast_types_with_config):
                table.clear()
            self._class_cache = {}
            if not self._debug:
                self._restore_fast_tables()
            self._changed()

    def _restore_fast_tables(self) -> None:
        """The live tables of the primals known by identity, from those kept for the current state of the switch."""
        table, with_config = self._by_switch[self._fast_paths]
        self.fast.update(table)
        self.fast_with_config.update(with_config)

    # ----- resolving a rule once -----

    def resolve(self, f: Any, arg_types: tuple[type, ...]) -> Rule | None:
        """The rule that every call of ``f`` on positional arguments of ``arg_types`` runs, with or without a config.

        For an engine that caches the rule of each (primal, argument types)
        and calls it directly, as ``rule(*head, f, *args)``, until a callback
        of ``on_change`` runs. ``None`` when the types alone do not decide the
        rule: ``f`` has config-aware rules, debug mode is on, ``f`` is a bound
        method or a partial (resolved behind it on each call), or there is no
        rule, or an opt-out.

        >>> def halve(x):
        ...     return x / 2
        >>> @rrule.register(halve, float)
        ... def _rrule_halve(f, x):
        ...     return f(x), lambda y_bar: (NoTangent(), y_bar / 2)
        >>> rrule.resolve(halve, (float,)) is _rrule_halve, rrule.resolve(halve, (int,))
        (True, None)
        """
        if self._debug:
            return None
        entry = self._entry_for(f)
        if entry is None or entry.rules.configured:
            return None
        rule = entry.rules.find_plain(arg_types)
        return None if rule is _opt_out_rule else rule

    def has_rules(self, f: Any) -> bool:
        """Whether a call of ``f`` may find a rule: ``f``, its class, or what a bound method or partial wraps has some.

        >>> def double(x):
        ...     return 2 * x
        >>> rrule.has_rules(double)
        False
        >>> @rrule.register(double, float)
        ... def _rrule_double(f, x):
        ...     return f(x), lambda y_bar: (NoTangent(), 2 * y_bar)
        >>> rrule.has_rules(double), rrule.resolve(double, (int,)) is None
        (True, True)
        """
        return self._entry_for(f) is not None or unwrap(f, {}) is not None

    def on_change(self, callback: Callable[[], object]) -> None:
        """Call ``callback()`` after every registration and change of debug mode: what ``resolve`` gave may be stale."""
        with self._lock:
            self._watchers.append(callback)

    def _changed(self) -> None:
        for callback in self._watchers:
            callback()

    # ----- lookup -----

    def _entry_for(self, f: Any) -> _Entry | None:
        entry = self._by_id.get(id(f))
        if entry is not None:
            return entry
        cls = type(f)
        class_cache = self._class_cache
        cached: Any = class_cache.get(cls, MISSING)
        if cached is not MISSING:
            return cast("_Entry | None", cached)
        by_class = self._by_class
        found = next((by_class[k] for k in cls.__mro__ if k in by_class), None)
        with self._lock:
            if class_cache is self._class_cache:  # no registration for a class since the lookup began
                class_cache[cls] = found
                if found is not None and not self._debug:
                    self._put(cls, found.rules, self.fast_types, self.fast_types_with_config)
        return found

    def _lookup(self, f: Any, args: tuple[Any, ...], config: RuleConfig | None) -> tuple[Rule | None, bool]:
        if not callable(f):
            raise TypeError(f"{self.mode}: the primal must be callable, got {f!r} of type {type(f).__name__}")
        entry = self._entry_for(f)
        if entry is None:
            return None, False
        return entry.rules.find(tuple(map(type, args)), config)

    def find(self, f: Any, *args: Any, config: RuleConfig | None = None) -> Rule | None:
        """The rule that a call with these arguments would use, without calling it; ``None`` if none.

        Bound methods and partials resolve to the rule of the function behind them.
        """
        rule, _ = self._lookup(f, args, config)
        if rule is _opt_out_rule:
            return None
        if rule is not None:
            return rule
        unwrapped = unwrap(f, {})
        if unwrapped is None:
            return None
        func, leading, _, _ = unwrapped
        return self.find(func, *leading, *args, config=config)

    # ----- the general path -----

    def call(
        self, config: RuleConfig | None, head: tuple[Any, ...], f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """``rule(*head, f, *args, **kwargs)``: the config-aware rule, else the plain rule, else through ``f``.

        A config-aware rule that returns ``None`` declines: the plain rule
        answers instead. Without a rule for ``f`` itself, a bound method or a
        partial is resolved to the function behind it.
        """
        fast = (self.fast if config is None else self.fast_with_config).get(id(f))
        if fast is not None:  # what the entry points would call: the lookup below would find the same
            return fast(*head, f, *args, **kwargs)
        rule, takes_config = self._lookup(f, args, config)
        if rule is None:
            unwrapped = unwrap(f, kwargs)
            return None if unwrapped is None else self._through(config, head, unwrapped, args)
        if takes_config:
            result = rule(config, *head, f, *args, **kwargs)
            if result is None:
                rule = self._lookup(f, args, None)[0]
                result = None if rule is None else rule(*head, f, *args, **kwargs)
        else:
            result = rule(*head, f, *args, **kwargs)
        if self._debug and result is not None:
            return self._checked(result, f, args, kwargs)
        return result

    def _through(self, config: RuleConfig | None, head: tuple[Any, ...], u: Unwrapped, args: tuple[Any, ...]) -> Any:
        """The rule of the function behind a bound method or partial, its result in terms of ``f``."""
        raise NotImplementedError

    def _checked(self, result: Any, f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``result`` after the debug-mode checks."""
        raise NotImplementedError


class RRuleRegistry(RuleRegistry):
    """``rrule(f, *args, **kwargs) -> (y, pullback) | None``; see ``chainrules_core.rules``."""

    mode = "rrule"

    def dispatch(self, f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The general path of ``rrule(f, *args, **kwargs)`` and ``rrule(config, f, *args, **kwargs)``."""
        config = None
        if isinstance(f, RuleConfig):
            if not args:
                raise TypeError("rrule(config, f, *args): the primal f is missing")
            config, f, args = f, args[0], args[1:]
        if kwargs and not args:  # np.sum(a=x): the call np.sum(x)
            args, kwargs = keywords_as_positional(f, kwargs, self.mode)
        return self.call(config, (), f, args, kwargs)

    def _through(self, config: RuleConfig | None, head: tuple[Any, ...], u: Unwrapped, args: tuple[Any, ...]) -> Any:
        func, leading, keywords, fields = u
        result = self.call(config, head, func, (*leading, *args), keywords)
        if result is None:
            return None
        y, pullback = result
        n = len(leading)

        def unwrapped_pullback(y_bar: Any) -> tuple[Any, ...]:
            func_bar, *arg_bars = pullback(y_bar)
            return (fields.cotangent(func_bar, arg_bars[:n]), *arg_bars[n:])

        return y, unwrapped_pullback

    def _checked(self, result: Any, f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return checked_rrule_result(result, f, args, list(kwargs))


class FRuleRegistry(RuleRegistry):
    """``frule((f_dot, *arg_dots), f, *args, **kwargs) -> (y, y_dot) | None``; see ``chainrules_core.rules``."""

    mode = "frule"
    head = ("tangents",)
    head_size = 1

    def dispatch(self, tangents: Any, f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The general path of ``frule(tangents, f, *args, **kwargs)`` and ``frule(config, tangents, f, ...)``."""
        config = None
        if isinstance(tangents, RuleConfig):
            if f is MISSING or not args:
                raise TypeError("frule(config, tangents, f, *args): the tangents or the primal f is missing")
            config, tangents, f, args = tangents, f, args[0], args[1:]
        if f is MISSING:
            raise TypeError("frule(tangents, f, *args): the primal f is missing")
        if not isinstance(tangents, (tuple, list)):
            raise TypeError(
                f"frule for {function_name(f)}: tangents must be a tuple (f_dot, *arg_dots), "
                f"got a {type(tangents).__name__}"
            )
        if kwargs and not args:  # np.sum(a=x): the call np.sum(x), with a tangent for x
            args, kwargs = keywords_as_positional(f, kwargs, self.mode)
        if len(tangents) != len(args) + 1:
            raise ValueError(
                f"frule for {function_name(f)}: got {len(tangents)} tangents for {len(args)} arguments; "
                f"expected {len(args) + 1}, the first for the function itself"
            )
        if self._debug:
            check_frule_tangents(tangents, f, args)
        return self.call(config, (tuple(tangents),), f, args, kwargs)

    def _through(self, config: RuleConfig | None, head: tuple[Any, ...], u: Unwrapped, args: tuple[Any, ...]) -> Any:
        func, leading, keywords, fields = u
        ((f_dot, *arg_dots),) = head
        tangents = (*fields.tangents(f_dot, len(leading)), *arg_dots)
        return self.call(config, (tangents,), func, (*leading, *args), keywords)

    def _checked(self, result: Any, f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        checked_frule_result(result, f)
        return result


def _is_own(module: str) -> bool:
    """Whether a registration comes from this package (``chainrules`` or ``chainrules_core``)."""
    return module.partition(".")[0] in ("chainrules", "chainrules_core")


def _for_numpy_arrays(primal: Any, rule: Rule) -> Rule:
    """A rule of a numpy function that is not generic, made to refuse other libraries' arrays
    (``chainrules_core.arrays.numpy_only``); any other rule as it is. numpy is not imported for it: a function
    of numpy's exists only once numpy is."""
    if "numpy" not in sys.modules:
        return rule
    from .array_api import is_numpy_function
    from .arrays import numpy_only

    return cast(Rule, numpy_only(primal, rule)) if is_numpy_function(primal) else rule
