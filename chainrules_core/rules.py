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
  fields). Keyword arguments never get tangents, except in a call with no
  positional argument at all: ``rrule(np.sum, a=x)`` is ``rrule(np.sum, x)``,
  the keywords naming ``f``'s leading parameters moved to positions, in
  order up to the first not given (``chainrules_core.keywords``); the
  pullback then answers for each moved argument in its position.
* No rule for these arguments: both return ``None``. They raise only for
  misuse: a wrong number of tangents, an ``f`` that is not callable.
* A function returning a tuple has a tuple tangent; its pullback accepts a
  tuple cotangent whose entries may be ``ZeroTangent()``.
* An engine never calls a pullback with a whole ``ZeroTangent()`` seed, nor
  an frule whose tangents are all zeros: the cotangents, or the output
  tangent, are then zeros without asking the rule. Rules need no guard for
  that case; they do handle ``ZeroTangent()`` entries of a tuple seed and a
  ``ZeroTangent()`` tangent for some of the arguments.
* An engine with a ``RuleConfig`` calls ``rrule(config, f, *args)`` and
  ``frule(config, tangents, f, *args)``. Rules registered with
  ``config=True`` receive the config first; a plain rule answers such a call
  too, as fast as a call without a config.

A rule returns ``RRuleResult`` (``(y, pullback)``) or ``FRuleResult``
(``(y, y_dot)``); a ``Pullback`` maps a seed to the tuple of cotangents.

Registration
============

``@rrule.register(primal, *arg_types)`` registers a function that receives
``f`` first, exactly as the caller passed it (``frule``: the tangents tuple,
then ``f``). The key is the primal: a function, ufunc or builtin by identity;
a class for callable objects (every instance of it and of its subclasses);
``type[C]`` for the constructor ``C(...)`` itself. ``arg_types`` dispatch
through ``multipledispatch``; a rule without types answers any arguments that
no typed rule claims. ``@rrule.fast_path(primal, *arg_types)`` declares a
shortcut beside a registered rule, which ``chainrules_core.fast_paths`` turns
off. Bound methods and ``functools.partial`` objects are
resolved to the rule of the underlying function and get a structural first
cotangent. Dispatch is cached per primal and argument types.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeAlias, cast

from ._records import MISSING, Rule, RuleRecord
from ._registry import FRuleRegistry, RRuleRegistry, RuleRegistry
from .config import RuleConfig

Pullback: TypeAlias = Callable[[Any], tuple[Any, ...]]
"""``pullback(y_bar) -> (f_bar, *arg_bars)``: one cotangent for ``f``, then one per positional argument."""

RRuleResult: TypeAlias = tuple[Any, Pullback]
"""What an rrule returns: the primal output and its pullback."""

FRuleResult: TypeAlias = tuple[Any, Any]
"""What an frule returns: the primal output and its tangent."""


class _EntryPoint(Protocol):
    """A registry's methods, carried by its entry point."""

    registry: RuleRegistry
    register: Callable[..., Callable[[Rule], Rule]]
    opt_out: Callable[..., None]
    fast_path: Callable[..., Callable[[Rule], Rule]]
    records: Callable[[], Iterator[RuleRecord]]
    records_for: Callable[[Any], list[RuleRecord]]
    find: Callable[..., Rule | None]
    resolve: Callable[[Any, tuple[type, ...]], Rule | None]
    has_rules: Callable[[Any], bool]
    on_change: Callable[[Callable[[], object]], None]
    alias: Callable[[Any, Any], None]
    canonical: Callable[[Any], Any]


class RRule(_EntryPoint, Protocol):
    """The type of ``rrule``."""

    def __call__(self, f: Any, /, *args: Any, **kwargs: Any) -> RRuleResult | None: ...


class FRule(_EntryPoint, Protocol):
    """The type of ``frule``."""

    def __call__(self, tangents: Any, f: Any = ..., /, *args: Any, **kwargs: Any) -> FRuleResult | None: ...


def _expose(function: Any, registry: RuleRegistry) -> None:
    # The entry points are plain functions, not objects with __call__: a
    # Python-level __call__ costs about 0.2 µs more per call, and an engine
    # calls rrule once per operation.
    function.registry = registry
    function.register = registry.register
    function.opt_out = registry.opt_out
    function.fast_path = registry.fast_path
    function.records = registry.records
    function.records_for = registry.records_for
    function.find = registry.find
    function.resolve = registry.resolve
    function.has_rules = registry.has_rules
    function.on_change = registry.on_change
    function.alias = registry.alias
    function.canonical = registry.canonical


_RRuleFunction: TypeAlias = Callable[..., RRuleResult | None]
_FRuleFunction: TypeAlias = Callable[..., FRuleResult | None]


def _make_rrule(registry: RRuleRegistry) -> RRule:
    fast_get: Callable[[int], _RRuleFunction | None] = registry.fast.get
    type_get: Callable[[type], _RRuleFunction | None] = registry.fast_types.get
    config_fast_get: Callable[[int], _RRuleFunction | None] = registry.fast_with_config.get
    config_type_get: Callable[[type], _RRuleFunction | None] = registry.fast_types_with_config.get
    dispatch: _RRuleFunction = registry.dispatch

    def rrule(f: Any, x: Any = MISSING, /, *args: Any, **kwargs: Any) -> RRuleResult | None:
        """Reverse mode: ``y, pullback = rrule(f, *args, **kwargs)``, or ``None`` when no rule applies.

        ``pullback(y_bar)`` returns ``(f_bar, *arg_bars)``: one cotangent per positional argument; a call
        without any (``rrule(np.sum, a=x)``) is the call with its leading keywords moved to positions
        (``rrule(np.sum, x)``). ``rrule(config, f, *args)`` passes an engine's ``RuleConfig``. Register rules
        with ``@rrule.register(f)``.

        >>> import math
        >>> from chainrules_core import NoTangent
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
        # The first argument is a parameter of its own, so that a call of one argument passes it on as it is.
        rule = fast_get(id(f)) or type_get(type(f))
        if rule is not None:
            if kwargs:
                if x is MISSING:  # every argument by keyword: the general path moves the leading ones to positions
                    return dispatch(f, (), kwargs)
                return rule(f, x, *args, **kwargs)
            if args:
                return rule(f, x, *args)
            return rule(f) if x is MISSING else rule(f, x)
        if x is MISSING:
            return dispatch(f, (), kwargs)
        if isinstance(f, RuleConfig):  # rrule(config, g, *rest), g without config-aware rules
            rule = config_fast_get(id(x)) or config_type_get(type(x))
            if rule is not None:
                if not kwargs:
                    return rule(x, *args)
                if args:
                    return rule(x, *args, **kwargs)
        return dispatch(f, (x, *args), kwargs)

    _expose(rrule, registry)
    return cast(RRule, rrule)


def _make_frule(registry: FRuleRegistry) -> FRule:
    fast_get: Callable[[int], _FRuleFunction | None] = registry.fast.get
    type_get: Callable[[type], _FRuleFunction | None] = registry.fast_types.get
    config_fast_get: Callable[[int], _FRuleFunction | None] = registry.fast_with_config.get
    config_type_get: Callable[[type], _FRuleFunction | None] = registry.fast_types_with_config.get
    dispatch: _FRuleFunction = registry.dispatch

    def frule(tangents: Any, f: Any = MISSING, x: Any = MISSING, /, *args: Any, **kwargs: Any) -> FRuleResult | None:
        """Forward mode: ``y, y_dot = frule((f_dot, *arg_dots), f, *args, **kwargs)``, or ``None``.

        One tangent per positional argument; a call without any (``frule(tangents, np.sum, a=x)``) is the
        call with its leading keywords moved to positions, a tangent for each. ``frule(config, tangents, f,
        *args)`` passes an engine's ``RuleConfig``. Register rules with ``@frule.register(f)``.

        >>> import math
        >>> from chainrules_core import NoTangent
        >>> def double_cos(x):
        ...     return 2 * math.cos(x)
        >>> @frule.register(double_cos)
        ... def _frule_double_cos(tangents, f, x):
        ...     _, x_dot = tangents
        ...     return f(x), -2 * math.sin(x) * x_dot
        >>> frule((NoTangent(), 1.0), double_cos, 0.0)
        (2.0, -0.0)
        """
        # The first argument is a parameter of its own, so that a call of one argument passes it on as it is.
        rule = fast_get(id(f)) or type_get(type(f))
        if rule is not None and x is not MISSING and not args and not kwargs and type(tangents) is tuple:
            if len(tangents) == 2:  # f_dot and x_dot
                return rule(tangents, f, x)
        if x is MISSING:
            return dispatch(tangents, f, (), kwargs)
        args = (x, *args)
        if rule is not None and type(tangents) is tuple and len(tangents) == len(args) + 1:
            return rule(tangents, f, *args, **kwargs) if kwargs else rule(tangents, f, *args)
        if isinstance(tangents, RuleConfig):  # frule(config, tangents, g, *rest)
            g = args[0]
            rule = config_fast_get(id(g)) or config_type_get(type(g))
            if rule is not None and type(f) is tuple and len(f) == len(args):
                if not kwargs:
                    return rule(f, *args)
                if len(args) > 1:
                    return rule(f, *args, **kwargs)
        return dispatch(tangents, f, args, kwargs)

    _expose(frule, registry)
    return cast(FRule, frule)


rrule = _make_rrule(RRuleRegistry())
frule = _make_frule(FRuleRegistry())

__all__ = ["FRule", "FRuleResult", "Pullback", "RRule", "RRuleResult", "RuleRecord", "RuleRegistry", "frule", "rrule"]
