"""Callables with fields that the registries see through: bound methods and ``functools.partial``.

``obj.method(*args)`` calls ``type(obj).method(obj, *args)`` and
``partial(g, a, k=1)(*args)`` calls ``g(a, *args, k=1)``. A registry with no
rule for such an ``f`` asks for the rule of the function behind it, with the
bound arguments in front, and rebuilds ``f``'s structural tangent from the
tangents of those arguments: ``Tangent(MethodType, __self__=...)``,
``Tangent(partial, args=Tangent(tuple, ...))``.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Sequence
from typing import Any

from .tangent_types import AbstractZero, NoTangent, Tangent, ZeroTangent

_BUILTIN_METHOD_TYPES = (types.BuiltinMethodType, types.MethodWrapperType)


class Unwrapped:
    """``f`` seen as ``func(*leading, *args, **keywords)``, and how its tangent relates to theirs."""

    __slots__ = ("func", "keywords", "leading")

    def __init__(self, func: Any, leading: tuple[Any, ...], keywords: dict[str, Any]) -> None:
        self.func = func
        self.leading = leading
        self.keywords = keywords

    def cotangent(self, func_bar: Any, leading_bars: Sequence[Any]) -> Any:
        """``f``'s cotangent, from those of the function behind it and of the leading arguments."""
        raise NotImplementedError

    def tangents(self, f_dot: Any) -> tuple[Any, ...]:
        """``(func_dot, *leading_dots)``, read from ``f``'s tangent."""
        raise NotImplementedError


class _BoundMethod(Unwrapped):
    """``obj.method``: ``func`` is the function defined in the class, ``obj`` the one leading argument."""

    __slots__ = ()

    def cotangent(self, func_bar: Any, leading_bars: Sequence[Any]) -> Any:
        return _zero_or_structural(types.MethodType, __func__=func_bar, __self__=leading_bars[0])

    def tangents(self, f_dot: Any) -> tuple[Any, ...]:
        return _field(f_dot, "__func__"), _field(f_dot, "__self__")


class _BuiltinMethod(Unwrapped):
    """``x.sum`` of a builtin type: ``func`` is ``type(x).sum``, which has no fields of its own."""

    __slots__ = ("method_type",)

    def __init__(self, func: Any, leading: tuple[Any, ...], keywords: dict[str, Any], method_type: type) -> None:
        super().__init__(func, leading, keywords)
        self.method_type = method_type

    def cotangent(self, func_bar: Any, leading_bars: Sequence[Any]) -> Any:
        return _zero_or_structural(self.method_type, __self__=leading_bars[0])

    def tangents(self, f_dot: Any) -> tuple[Any, ...]:
        func_dot = f_dot if isinstance(f_dot, AbstractZero) else NoTangent()
        return func_dot, _field(f_dot, "__self__")


class _Partial(Unwrapped):
    """``partial(func, *leading, **keywords)``; keywords get no tangents."""

    __slots__ = ()

    def cotangent(self, func_bar: Any, leading_bars: Sequence[Any]) -> Any:
        zero = _all_zero(leading_bars)
        args_bar = zero if zero is not None else Tangent(tuple, *leading_bars)
        return _zero_or_structural(functools.partial, func=func_bar, args=args_bar)

    def tangents(self, f_dot: Any) -> tuple[Any, ...]:
        args_dot = _field(f_dot, "args")
        if isinstance(args_dot, AbstractZero):
            return _field(f_dot, "func"), *(args_dot,) * len(self.leading)
        return _field(f_dot, "func"), *args_dot


def unwrap(f: Any, kwargs: dict[str, Any]) -> Unwrapped | None:
    """``f`` as the function behind it with leading arguments, for a call with ``kwargs``; ``None`` if not such.

    >>> import functools, operator
    >>> u = unwrap(functools.partial(operator.mul, 2.0), {})
    >>> u.func is operator.mul, u.leading
    (True, (2.0,))
    >>> u.cotangent(NoTangent(), [3.0])
    Tangent(partial, args=Tangent(tuple, 3.0))
    """
    cls = type(f)
    if cls is types.MethodType:
        return _BoundMethod(f.__func__, (f.__self__,), kwargs)
    if cls is functools.partial:
        return _Partial(f.func, f.args, {**f.keywords, **kwargs})
    if isinstance(f, _BUILTIN_METHOD_TYPES):
        owner = f.__self__
        if owner is None or isinstance(owner, (types.ModuleType, type)):
            return None  # a builtin function, or a class method
        func = getattr(type(owner), f.__name__, None)
        return None if func is None else _BuiltinMethod(func, (owner,), kwargs, cls)
    return None


def _field(tangent: Any, name: str) -> Any:
    """A field of a structural tangent; a zero stays that zero."""
    if isinstance(tangent, AbstractZero):
        return tangent
    return getattr(tangent, name)


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
