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


class Fields:
    """How a bound method's or partial's structural tangent relates to the tangents of its parts."""

    __slots__ = ()

    def cotangent(self, func_bar: Any, leading_bars: Sequence[Any]) -> Any:
        """``f``'s cotangent, from those of the function behind it and of the leading arguments."""
        raise NotImplementedError

    def tangents(self, f_dot: Any, n_leading: int) -> tuple[Any, ...]:
        """``(func_dot, *leading_dots)``, read from ``f``'s tangent."""
        raise NotImplementedError


class _BoundMethod(Fields):
    """``obj.method``: the function defined in the class, with ``obj`` as the one leading argument."""

    __slots__ = ()

    def cotangent(self, func_bar: Any, leading_bars: Sequence[Any]) -> Any:
        return _zero_or_structural(types.MethodType, __func__=func_bar, __self__=leading_bars[0])

    def tangents(self, f_dot: Any, n_leading: int) -> tuple[Any, ...]:
        return _field(f_dot, "__func__"), _field(f_dot, "__self__")


class _BuiltinMethod(Fields):
    """``x.sum`` of a builtin type: ``type(x).sum``, which has no fields of its own, with ``x`` leading."""

    __slots__ = ("method_type",)

    def __init__(self, method_type: type) -> None:
        self.method_type = method_type

    def cotangent(self, func_bar: Any, leading_bars: Sequence[Any]) -> Any:
        return _zero_or_structural(self.method_type, __self__=leading_bars[0])

    def tangents(self, f_dot: Any, n_leading: int) -> tuple[Any, ...]:
        func_dot = f_dot if isinstance(f_dot, AbstractZero) else NoTangent()
        return func_dot, _field(f_dot, "__self__")


class _Partial(Fields):
    """``partial(func, *args, **keywords)``: ``args`` lead; keywords get no tangents."""

    __slots__ = ()

    def cotangent(self, func_bar: Any, leading_bars: Sequence[Any]) -> Any:
        zero = _all_zero(leading_bars)
        args_bar = zero if zero is not None else Tangent(tuple, *leading_bars)
        return _zero_or_structural(functools.partial, func=func_bar, args=args_bar)

    def tangents(self, f_dot: Any, n_leading: int) -> tuple[Any, ...]:
        args_dot = _field(f_dot, "args")
        if isinstance(args_dot, AbstractZero):
            return _field(f_dot, "func"), *(args_dot,) * n_leading
        return _field(f_dot, "func"), *args_dot


_METHOD = _BoundMethod()
_PARTIAL = _Partial()
_BUILTIN_METHODS = {cls: _BuiltinMethod(cls) for cls in (types.BuiltinMethodType, types.MethodWrapperType)}

Unwrapped = tuple[Any, tuple[Any, ...], dict[str, Any], Fields]
"""``(func, leading, keywords, fields)``: ``f(*args, **kwargs)`` is ``func(*leading, *args, **keywords)``."""


def unwrap(f: Any, kwargs: dict[str, Any]) -> Unwrapped | None:
    """``f`` as the function behind it, its leading arguments, the merged keywords and its ``Fields``.

    ``None`` when ``f`` is not a bound method or a partial.

    >>> import functools, operator
    >>> func, leading, keywords, fields = unwrap(functools.partial(operator.mul, 2.0), {})
    >>> func is operator.mul, leading, keywords
    (True, (2.0,), {})
    >>> fields.cotangent(NoTangent(), [3.0])
    Tangent(partial, args=Tangent(tuple, 3.0))
    """
    cls = type(f)
    if cls is types.MethodType:
        return f.__func__, (f.__self__,), kwargs, _METHOD
    if cls is functools.partial:
        return f.func, f.args, {**f.keywords, **kwargs} if f.keywords else kwargs, _PARTIAL
    fields = _BUILTIN_METHODS.get(cls)
    if fields is None:
        return None
    owner = f.__self__
    if owner is None or isinstance(owner, (types.ModuleType, type)):
        return None  # a builtin function, or a class method
    func = getattr(type(owner), f.__name__, None)
    return None if func is None else (func, (owner,), kwargs, fields)


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
