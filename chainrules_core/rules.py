"""``frule`` and ``rrule``: the registries an AD engine asks for derivative rules.

The contract
============

Forward mode fuses the primal with its pushforward::

    y, y_dot = frule((f_dot, x_dot, w_dot), f, x, w, **kwargs)

Reverse mode returns the primal with a pullback closure::

    y, pullback = rrule(f, x, w, **kwargs)
    f_bar, x_bar, w_bar = pullback(y_bar)

* The pushforward takes one tangent per positional argument plus one for
  ``f`` itself, first; the pullback returns one cotangent per positional
  argument plus one for ``f``, first (``NoTangent()`` for a function without
  fields). Keyword arguments never get tangents.
* No rule for these arguments: both return ``None``. They raise only for
  misuse: a wrong number of tangents, an ``f`` that is not callable.
* A function returning a tuple has a tuple tangent; its pullback accepts a
  tuple cotangent whose entries may be ``ZeroTangent()``.
* An engine with a ``RuleConfig`` calls ``rrule(config, f, *args)`` and
  ``frule(config, tangents, f, *args)``. Rules registered with
  ``config=True`` receive the config first; a plain rule answers such a call
  too.

Registration
============

``@rrule.register(primal, *arg_types)`` registers a function that receives
``f`` first, exactly as the caller passed it (``frule``: the tangents tuple,
then ``f``). The key is the primal: a function, ufunc or builtin by identity;
a class for callable objects (every instance of it and of its subclasses);
``type[C]`` for the constructor ``C(...)`` itself. ``arg_types`` dispatch
through ``multipledispatch``; a rule without types answers any arguments that
no typed rule claims. Bound methods and ``functools.partial`` objects are
resolved to the rule of the underlying function and get a structural first
cotangent. Dispatch is cached per primal and argument types.
"""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, cast

from multipledispatch import Dispatcher

from .config import RuleConfig
from .naming import function_name
from .tangent_types import AbstractZero, NoTangent, Tangent, ZeroTangent

Rule = Callable[..., Any]
RuleKind = Literal["rule", "non_differentiable", "opt_out"]

_MISSING: Any = object()


def _opt_out_rule(*args: Any, **kwargs: Any) -> None:
    return None


@dataclass(frozen=True)
class RuleRecord:
    """One registration, as listed by ``RuleRegistry.records()``."""

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
    """``"rule"``; ``"non_differentiable"`` (registered by ``non_differentiable``); ``"opt_out"`` (no rule here)."""
    module: str = "?"
    """The module that made the registration (through helpers such as ``scalar_rule``, the one that called them)."""

    @property
    def opt_out(self) -> bool:
        """Whether this signature declares that there is no rule."""
        return self.kind == "opt_out"


def _registering_module() -> str:
    """The innermost calling module that is neither this package nor a private module (``_helpers``)."""
    frame = sys._getframe(2)
    while frame is not None:
        name = str(frame.f_globals.get("__name__", ""))
        if not name.startswith("chainrules_core") and not name.rsplit(".", 1)[-1].startswith("_"):
            return name
        frame = frame.f_back  # type: ignore[assignment]
    return "?"


class _Entry:
    """Every rule registered for one primal, and the dispatch cache over them."""

    __slots__ = ("_config_cache", "_plain_cache", "configured", "plain", "primal")

    def __init__(self, primal: Any) -> None:
        self.primal = primal
        self.plain: dict[tuple[Any, ...] | None, RuleRecord] = {}
        self.configured: dict[tuple[Any, ...] | None, list[RuleRecord]] = {}
        self._plain_cache: dict[tuple[type, ...], Rule | None] = {}
        self._config_cache: dict[tuple[type, tuple[type, ...]], Rule | None] = {}

    def add(self, record: RuleRecord) -> None:
        if record.config:
            same = self.configured.setdefault(record.arg_types, [])
            same[:] = [r for r in same if r.requires != record.requires] + [record]
        else:
            self.plain[record.arg_types] = record
        self._plain_cache.clear()
        self._config_cache.clear()

    def single_rule(self) -> Rule | None:
        """The rule when there is exactly one and it takes any arguments."""
        if not self.configured and len(self.plain) == 1 and None in self.plain:
            record = self.plain[None]
            return None if record.opt_out else record.rule
        return None

    def find(self, arg_types: tuple[type, ...], config: RuleConfig | None) -> tuple[Rule | None, bool]:
        """``(rule, takes_config)`` for these argument types, or ``(None, False)``."""
        if config is not None and self.configured:
            key = (type(config), arg_types)
            rule = self._config_cache.get(key, _MISSING)
            if rule is _MISSING:
                usable = [
                    r
                    for records in self.configured.values()
                    for r in records
                    if all(isinstance(config, cap) for cap in r.requires)
                ]
                rule = _select(usable, arg_types)
                self._config_cache[key] = rule
            if rule is not None:
                return rule, True
        rule = self._plain_cache.get(arg_types, _MISSING)
        if rule is _MISSING:
            rule = _select(list(self.plain.values()), arg_types)
            self._plain_cache[arg_types] = rule
        return rule, False

    def call_plain(self, f: Any, *args: Any, **kwargs: Any) -> Any:
        arg_types = tuple(map(type, args))
        rule = self._plain_cache.get(arg_types, _MISSING)
        if rule is _MISSING:
            rule, _ = self.find(arg_types, None)
        return None if rule is None else rule(f, *args, **kwargs)

    def call_plain_forward(self, tangents: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
        """``call_plain`` for frule's calling convention: the tangents come before ``f``."""
        arg_types = tuple(map(type, args))
        rule = self._plain_cache.get(arg_types, _MISSING)
        if rule is _MISSING:
            rule, _ = self.find(arg_types, None)
        return None if rule is None else rule(tangents, f, *args, **kwargs)


def _select(records: Sequence[RuleRecord], arg_types: tuple[type, ...]) -> Rule | None:
    """The most specific record matching ``arg_types``; an untyped one as fallback."""
    typed = [r for r in records if r.arg_types is not None]
    if typed:
        dispatcher = Dispatcher("rule")
        for record in typed:
            dispatcher.add(record.arg_types, record.rule)
        rule = dispatcher.dispatch(*arg_types)
        if rule is not None:
            return rule  # type: ignore[no-any-return]
    for record in records:
        if record.arg_types is None:
            return record.rule
    return None


def _all_zero(values: Sequence[Any]) -> AbstractZero | None:
    """``NoTangent()`` if every value is one, ``ZeroTangent()`` if every value is a zero, else ``None``."""
    if all(isinstance(v, AbstractZero) for v in values):
        return NoTangent() if all(isinstance(v, NoTangent) for v in values) else ZeroTangent()
    return None


def _zero_or_structural(P: type, **fields: Any) -> Any:
    """``Tangent(P, **fields)`` of the nonzero fields, or a zero when every field is a zero."""
    zero = _all_zero(list(fields.values()))
    if zero is not None:
        return zero
    return Tangent(P, **{k: v for k, v in fields.items() if not isinstance(v, AbstractZero)})


def _unbound(f: Any) -> Any | None:
    """The function behind a bound method of a builtin type (``x.sum`` -> ``ndarray.sum``)."""
    owner = getattr(f, "__self__", None)
    if owner is None or isinstance(owner, types.ModuleType) or isinstance(owner, type):
        return None
    return getattr(type(owner), getattr(f, "__name__", ""), None)


_BUILTIN_METHOD_TYPES = (types.BuiltinMethodType, types.MethodWrapperType)


class RuleRegistry:
    """State shared by ``frule`` and ``rrule``: the rules, keyed by primal."""

    mode = "rule"

    def __init__(self) -> None:
        self._by_id: dict[int, _Entry] = {}
        self._by_class: dict[type, _Entry] = {}
        self._class_cache: dict[type, _Entry | None] = {}
        self._fast: dict[int, Rule] = {}
        self._fast_types: dict[type, Rule] = {}  # callable objects' classes, filled as they are met
        self._records: dict[tuple[Any, ...], RuleRecord] = {}
        self._debug = False

    # ----- registration -----

    def register(
        self,
        primal: Any,
        *arg_types: Any,
        config: bool = False,
        requires: Sequence[type] = (),
        kind: RuleKind = "rule",
    ) -> Callable[[Rule], Rule]:
        """Decorator registering a rule for ``primal`` and, optionally, argument types.

        ``config=True`` registers a config-aware rule, which receives the
        engine's ``RuleConfig`` first and applies only when the config is an
        instance of every class in ``requires`` (e.g. ``HasReverseMode``).
        ``kind`` is what listings call the rule; ``non_differentiable`` sets it.
        The decorated function is returned unchanged, so registrations stack.
        """

        module = _registering_module()

        def decorator(rule: Rule) -> Rule:
            if not callable(rule):
                raise TypeError(f"{self.mode}.register({function_name(primal)}): the rule must be callable")
            record = RuleRecord(primal, arg_types or None, rule, config, tuple(requires), kind, module)
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
        module = _registering_module()
        self._add(RuleRecord(primal, arg_types, _opt_out_rule, False, (), "opt_out", module))
        self._add(RuleRecord(primal, arg_types, _opt_out_rule, True, (), "opt_out", module))

    def _add(self, record: RuleRecord) -> None:
        primal = record.primal
        if isinstance(primal, types.GenericAlias) and primal.__origin__ is type:
            (cls,) = primal.__args__  # type[C]: the constructor C(...), keyed by identity
            entry = self._by_id.get(id(cls)) or self._by_id.setdefault(id(cls), _Entry(cls))
        elif isinstance(primal, type):
            entry = self._by_class.get(primal) or self._by_class.setdefault(primal, _Entry(primal))
        else:
            entry = self._by_id.get(id(primal)) or self._by_id.setdefault(id(primal), _Entry(primal))
        entry.add(record)
        self._records.pop(_signature(record), None)  # a registration replaces one of the same signature
        self._records[_signature(record)] = record
        self._fast_types.clear()
        if isinstance(entry.primal, type) and entry is self._by_class.get(entry.primal):
            self._class_cache.clear()
        elif not self._debug:
            self._fast[id(entry.primal)] = self._fast_rule(entry)

    def _fast_rule(self, entry: _Entry) -> Rule:
        """What the entry points call for this primal: its one rule, or a dispatch on argument types."""
        single = entry.single_rule()
        return single if single is not None else self._plain_caller(entry)

    def _refresh_fast(self) -> None:
        self._fast.clear()  # cleared, never rebound: the entry points hold its .get
        self._fast_types.clear()
        self._class_cache.clear()
        if self._debug:
            return
        for key, entry in self._by_id.items():
            self._fast[key] = self._fast_rule(entry)

    def _plain_caller(self, entry: _Entry) -> Rule:
        """What the fast path calls for a primal whose rules dispatch on argument types."""
        return entry.call_plain

    def records(self) -> Iterator[RuleRecord]:
        """Every registration, oldest first."""
        return iter(list(self._records.values()))

    # ----- lookup -----

    def _entry_for(self, f: Any) -> _Entry | None:
        entry = self._by_id.get(id(f))
        if entry is not None:
            return entry
        cls = type(f)
        if cls in self._class_cache:
            return self._class_cache[cls]
        found = next((self._by_class[k] for k in cls.__mro__ if k in self._by_class), None)
        self._class_cache[cls] = found
        if found is not None and not self._debug:
            self._fast_types[cls] = self._fast_rule(found)
        return found

    def _lookup(self, f: Any, args: tuple[Any, ...], config: RuleConfig | None) -> tuple[Rule | None, bool]:
        if not callable(f):
            raise TypeError(f"{self.mode}: the primal must be callable, got {f!r} of type {type(f).__name__}")
        entry = self._entry_for(f)
        if entry is None:
            return None, False
        return entry.find(tuple(map(type, args)), config)

    def find(self, f: Any, *args: Any, config: RuleConfig | None = None) -> Rule | None:
        """The rule that a call with these arguments would use, without calling it; ``None`` if none.

        Bound methods and partials resolve to the rule of the function behind them.
        """
        rule, _ = self._lookup(f, args, config)
        if rule is _opt_out_rule:
            return None
        if rule is not None:
            return rule
        if type(f) is types.MethodType:
            return self.find(f.__func__, f.__self__, *args, config=config)
        if isinstance(f, _BUILTIN_METHOD_TYPES):
            func = _unbound(f)
            return None if func is None else self.find(func, f.__self__, *args, config=config)
        if type(f) is functools.partial:
            return self.find(f.func, *f.args, *args, config=config)
        return None

    def set_debug_mode(self, enabled: bool) -> None:
        """Check every rule's output shape and count, at a cost; see ``chainrules_core.set_debug_mode``."""
        self._debug = enabled
        self._refresh_fast()


def _signature(record: RuleRecord) -> tuple[Any, ...]:
    """What makes two registrations the same: the primal (by identity), the types, the config and capabilities."""
    primal = record.primal
    key = primal if isinstance(primal, types.GenericAlias) else id(primal)
    return (key, record.arg_types, record.config, record.requires)


class RRuleRegistry(RuleRegistry):
    """``rrule(f, *args, **kwargs) -> (y, pullback) | None``; see the module docstring."""

    mode = "rrule"

    def dispatch(self, f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The general path of ``rrule(f, *args, **kwargs)``."""
        if isinstance(f, RuleConfig):
            if not args:
                raise TypeError("rrule(config, f, *args): the primal f is missing")
            return self._call(f, args[0], args[1:], kwargs)
        return self._call(None, f, args, kwargs)

    def _call(self, config: RuleConfig | None, f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        rule, takes_config = self._lookup(f, args, config)
        if rule is not None:
            if takes_config:
                result = rule(config, f, *args, **kwargs)
                if result is None:
                    plain, _ = self._lookup(f, args, None)
                    result = None if plain is None else plain(f, *args, **kwargs)
            else:
                result = rule(f, *args, **kwargs)
            return self._checked(result, f, args) if self._debug and result is not None else result
        if type(f) is types.MethodType:
            return self._call_method(config, f, f.__func__, args, kwargs)
        if isinstance(f, _BUILTIN_METHOD_TYPES):
            func = _unbound(f)
            return None if func is None else self._call_method(config, f, func, args, kwargs)
        if type(f) is functools.partial:
            return self._call_partial(config, f, args, kwargs)
        return None

    def _call_method(
        self, config: RuleConfig | None, f: Any, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        result = self._call(config, func, (f.__self__, *args), kwargs)
        if result is None:
            return None
        y, pullback = result
        method_type = type(f)

        def bound_method_pullback(y_bar: Any) -> tuple[Any, ...]:
            func_bar, self_bar, *arg_bars = pullback(y_bar)
            fields = (
                {"__self__": self_bar}
                if method_type is not types.MethodType
                else {
                    "__func__": func_bar,
                    "__self__": self_bar,
                }
            )
            return (_zero_or_structural(method_type, **fields), *arg_bars)

        return y, bound_method_pullback

    def _call_partial(
        self, config: RuleConfig | None, f: functools.partial[Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        result = self._call(config, f.func, (*f.args, *args), {**f.keywords, **kwargs})
        if result is None:
            return None
        y, pullback = result
        n_bound = len(f.args)

        def partial_pullback(y_bar: Any) -> tuple[Any, ...]:
            func_bar, *arg_bars = pullback(y_bar)
            bound_bars = arg_bars[:n_bound]
            args_bar = _zero_or_structural_tuple(bound_bars)
            partial_bar = _zero_or_structural(functools.partial, func=func_bar, args=args_bar)
            return (partial_bar, *arg_bars[n_bound:])

        return y, partial_pullback

    def _checked(self, result: Any, f: Any, args: tuple[Any, ...]) -> Any:
        from .debug import checked_rrule_result

        return checked_rrule_result(result, f, args)


def _zero_or_structural_tuple(elems: Sequence[Any]) -> Any:
    zero = _all_zero(elems)
    return zero if zero is not None else Tangent(tuple, *elems)


class FRuleRegistry(RuleRegistry):
    """``frule((f_dot, *arg_dots), f, *args, **kwargs) -> (y, y_dot) | None``; see the module docstring."""

    mode = "frule"

    def _plain_caller(self, entry: _Entry) -> Rule:
        return entry.call_plain_forward

    def dispatch(self, tangents: Any, f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The general path of ``frule(tangents, f, *args, **kwargs)``."""
        if isinstance(tangents, RuleConfig):
            if f is _MISSING or not args:
                raise TypeError("frule(config, tangents, f, *args): the tangents or the primal f is missing")
            return self._call(tangents, f, args[0], args[1:], kwargs)
        if f is _MISSING:
            raise TypeError("frule(tangents, f, *args): the primal f is missing")
        return self._call(None, tangents, f, args, kwargs)

    def _call(
        self,
        config: RuleConfig | None,
        tangents: Any,
        f: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Any:
        if not isinstance(tangents, (tuple, list)):
            raise TypeError(
                f"frule for {function_name(f)}: tangents must be a tuple (f_dot, *arg_dots), "
                f"got a {type(tangents).__name__}"
            )
        if len(tangents) != len(args) + 1:
            raise ValueError(
                f"frule for {function_name(f)}: got {len(tangents)} tangents for {len(args)} arguments; "
                f"expected {len(args) + 1}, the first for the function itself"
            )
        tangents = tuple(tangents)
        rule, takes_config = self._lookup(f, args, config)
        if rule is not None:
            if takes_config:
                result = rule(config, tangents, f, *args, **kwargs)
                if result is None:
                    plain, _ = self._lookup(f, args, None)
                    result = None if plain is None else plain(tangents, f, *args, **kwargs)
            else:
                result = rule(tangents, f, *args, **kwargs)
            if self._debug and result is not None:
                from .debug import checked_frule_result

                checked_frule_result(result, f)
            return result
        f_dot, arg_dots = tangents[0], tangents[1:]
        if type(f) is types.MethodType or isinstance(f, _BUILTIN_METHOD_TYPES):
            func = f.__func__ if type(f) is types.MethodType else _unbound(f)
            if func is None:
                return None
            func_dot = _field(f_dot, "__func__")
            self_dot = _field(f_dot, "__self__")
            return self._call(config, (func_dot, self_dot, *arg_dots), func, (f.__self__, *args), kwargs)
        if type(f) is functools.partial:
            bound_dots = _field(f_dot, "args")
            if isinstance(bound_dots, AbstractZero):
                bound_dots = (bound_dots,) * len(f.args)
            call_tangents = (_field(f_dot, "func"), *bound_dots, *arg_dots)
            return self._call(config, call_tangents, f.func, (*f.args, *args), {**f.keywords, **kwargs})
        return None


def _field(tangent: Any, name: str) -> Any:
    """A field of a structural tangent; a zero stays that zero."""
    if isinstance(tangent, AbstractZero):
        return tangent
    return getattr(tangent, name)


class RRule(Protocol):
    """The type of ``rrule``: a function carrying its registry's methods."""

    registry: RRuleRegistry
    register: Callable[..., Callable[[Rule], Rule]]
    opt_out: Callable[..., None]
    records: Callable[[], Iterator[RuleRecord]]
    find: Callable[..., Rule | None]

    def __call__(self, f: Any, *args: Any, **kwargs: Any) -> Any: ...


class FRule(Protocol):
    """The type of ``frule``: a function carrying its registry's methods."""

    registry: FRuleRegistry
    register: Callable[..., Callable[[Rule], Rule]]
    opt_out: Callable[..., None]
    records: Callable[[], Iterator[RuleRecord]]
    find: Callable[..., Rule | None]

    def __call__(self, tangents: Any, f: Any = ..., *args: Any, **kwargs: Any) -> Any: ...


def _expose(function: Any, registry: RuleRegistry) -> None:
    # The entry points are plain functions, not objects with __call__: a
    # Python-level __call__ costs about 0.2 µs more per call, and an engine
    # calls rrule once per operation.
    function.registry = registry
    function.register = registry.register
    function.opt_out = registry.opt_out
    function.records = registry.records
    function.find = registry.find


def _make_rrule(registry: RRuleRegistry) -> RRule:
    fast_get = registry._fast.get
    type_get = registry._fast_types.get
    dispatch = registry.dispatch

    def rrule(f: Any, *args: Any, **kwargs: Any) -> Any:
        rule = fast_get(id(f)) or type_get(type(f))
        if rule is not None:
            return rule(f, *args, **kwargs) if kwargs else rule(f, *args)
        return dispatch(f, args, kwargs)

    rrule.__doc__ = _RRULE_DOC
    _expose(rrule, registry)
    return cast(RRule, rrule)


def _make_frule(registry: FRuleRegistry) -> FRule:
    fast_get = registry._fast.get
    type_get = registry._fast_types.get
    dispatch = registry.dispatch

    def frule(tangents: Any, f: Any = _MISSING, *args: Any, **kwargs: Any) -> Any:
        rule = fast_get(id(f)) or type_get(type(f))
        if rule is not None and type(tangents) is tuple and len(tangents) == len(args) + 1:
            return rule(tangents, f, *args, **kwargs) if kwargs else rule(tangents, f, *args)
        return dispatch(tangents, f, args, kwargs)

    frule.__doc__ = _FRULE_DOC
    _expose(frule, registry)
    return cast(FRule, frule)


_RRULE_DOC = """Reverse mode: ``y, pullback = rrule(f, *args, **kwargs)``, or ``None`` when no rule applies.

``pullback(y_bar)`` returns ``(f_bar, *arg_bars)``. ``rrule(config, f, *args)``
passes an engine's ``RuleConfig``. Register rules with ``@rrule.register(f)``.

>>> import math
>>> def double_sin(x):
...     return 2 * math.sin(x)
>>> @rrule.register(double_sin)
... def _rrule_double_sin(f, x):
...     def double_sin_pullback(y_bar):
...         return NoTangent(), 2 * math.cos(x) * y_bar
...     return f(x), double_sin_pullback
>>> y, pullback = rrule(double_sin, 0.0)
>>> y, pullback(1.0)
(0.0, (NoTangent(), 2.0))
>>> rrule(str.upper, "a") is None  # no rule registered for it
True
"""

_FRULE_DOC = """Forward mode: ``y, y_dot = frule((f_dot, *arg_dots), f, *args, **kwargs)``, or ``None``.

``frule(config, tangents, f, *args)`` passes an engine's ``RuleConfig``.
Register rules with ``@frule.register(f)``.

>>> import math
>>> def double_cos(x):
...     return 2 * math.cos(x)
>>> @frule.register(double_cos)
... def _frule_double_cos(tangents, f, x):
...     _, x_dot = tangents
...     return f(x), -2 * math.sin(x) * x_dot
>>> frule((NoTangent(), 1.0), double_cos, 0.0)
(2.0, -0.0)
"""

rrule = _make_rrule(RRuleRegistry())
frule = _make_frule(FRuleRegistry())
