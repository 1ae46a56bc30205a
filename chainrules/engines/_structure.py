"""Values and their structure: names for messages, containers, paths, and which values an engine follows."""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    Tangent,
    ZeroTangent,
    backing,
    field_names,
    is_namedtuple,
    primal_type,
    unthunk,
)
from chainrules_core.arrays import array_type_name, is_foreign_array, is_inexact_dtype, namespace_of
from chainrules_core.projection import has_no_tangent_space

Path = tuple[Any, ...]

CONTAINERS = (list, tuple, dict)


class Boxed:
    """The base of the engines' boxes: a value ``.value`` followed by one pass, ``._trace``."""

    __slots__ = ()
    value: Any
    _trace: Any


def primal(x: Any) -> Any:
    """The plain value inside ``x``: ``x`` itself unless it is a box, of any pass."""
    while isinstance(x, Boxed):
        x = x.value
    return x


_EVERY_PASS = object()


def strip(x: Any, trace: Any = _EVERY_PASS, ours: Callable[[Any], bool] | None = None) -> Any:
    """``x`` with boxes replaced by their values, inside lists, tuples and dicts too.

    By default every box becomes its plain value (``primal``); given a pass,
    only its boxes are unwrapped, one level (or those for which ``ours`` is true).
    """
    if isinstance(x, Boxed):
        if trace is _EVERY_PASS:
            return primal(x)
        return x.value if (x._trace is trace if ours is None else ours(x)) else x
    if isinstance(x, dict):
        items = {k: strip(v, trace, ours) for k, v in x.items()}
        return x if all(items[k] is v for k, v in x.items()) else items
    if isinstance(x, (list, tuple)):
        elems = [strip(v, trace, ours) for v in x]
        return x if all(e is v for e, v in zip(elems, x)) else rebuild(x, elems)
    return x


# ----- names, for messages -----


def type_name(v: Any) -> str:
    if isinstance(v, Boxed):
        return f"{type(v).__name__}[{type_name(v.value)}]"
    if isinstance(v, np.ndarray):
        return f"ndarray[{v.dtype}, {v.shape}]"
    if isinstance(v, np.generic):
        return f"np.{v.dtype}"
    if is_foreign_array(v):
        return f"{array_type_name(v)}[{v.dtype}, {tuple(v.shape)}]"
    if isinstance(v, (list, tuple)) and not is_namedtuple(type(v)):
        inner = ", ".join(type_name(x) for x in v[:3])
        return f"{type(v).__name__}[{inner}{', ...' if len(v) > 3 else ''}]"
    return type(v).__name__


# ----- containers and paths -----


def rebuild(x: list[Any] | tuple[Any, ...], elems: list[Any]) -> Any:
    """A list, tuple or namedtuple of the type of ``x`` holding ``elems``."""
    if type(x) is list:
        return elems
    if type(x) is tuple:
        return tuple(elems)
    if is_namedtuple(type(x)):
        return type(x)._make(elems)  # type: ignore[union-attr]
    return type(x)(elems)


def part(t: Any, path: Path) -> Any:
    """The piece of the structural (co)tangent ``t`` at ``path``; a zero stays that zero."""
    for key in path:
        t = unthunk(t)
        if isinstance(t, AbstractZero):
            return t
        if isinstance(t, Tangent) and is_namedtuple(primal_type(t)) and isinstance(key, int):
            t = getattr(t, primal_type(t)._fields[key])  # type: ignore[attr-defined]
        else:
            t = t[key]
    return t


def structural(x: Any, leaf: Callable[[Any], Any]) -> Any:
    """The (co)tangent of the container ``x`` whose leaves' (co)tangents ``leaf(item)`` gives.

    Tuples give ``Tangent(tuple, ...)``, namedtuples ``Tangent(P, field=...)``,
    lists lists and dicts ``Tangent(dict, ...)``, as ``ProjectTo`` does. A
    container whose entries are all zeros is a zero.
    """
    if isinstance(x, dict):
        entries = {k: structural(v, leaf) for k, v in x.items()}
        return _zero_or(entries.values(), lambda: Tangent(dict, entries))
    if isinstance(x, (list, tuple)):
        elems = [structural(v, leaf) for v in x]
        if type(x) is list:
            return _zero_or(elems, lambda: elems)
        if is_namedtuple(type(x)):
            fields = dict(zip(type(x)._fields, elems))  # type: ignore[attr-defined]
            return _zero_or(elems, lambda: Tangent(type(x), **fields))
        return _zero_or(elems, lambda: Tangent(tuple, *elems))
    return leaf(x)


def _zero_or(entries: Any, make: Callable[[], Any]) -> Any:
    entries = list(entries)
    if all(isinstance(e, AbstractZero) for e in entries):
        return NoTangent() if entries and all(isinstance(e, NoTangent) for e in entries) else ZeroTangent()
    return make()


# ----- which values an engine follows -----


def is_differentiable_leaf(x: Any) -> bool:
    """A float or complex number, numpy scalar or array, or another library's float or complex array (torch, JAX,
    dask ...): what becomes a box of its own."""
    if isinstance(x, (float, complex)):
        return True
    if isinstance(x, (np.ndarray, np.generic)):
        return x.dtype.kind in "fc"
    if isinstance(x, Boxed):
        return is_differentiable_leaf(primal(x))
    return is_foreign_array(x) and is_inexact_dtype(namespace_of(x), x.dtype)


def is_array_leaf(x: Any) -> bool:
    """Whether ``x`` (or the value a box holds) is an array: a numpy array or another library's."""
    x = primal(x)
    return isinstance(x, np.ndarray) or is_foreign_array(x)


def constant_tangent(x: Any) -> Any:
    """The tangent of an argument the program did not box: ``NoTangent()`` without a tangent space."""
    if has_no_tangent_space(x):
        return NoTangent()
    if isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind not in "fc":
        return NoTangent()
    if is_foreign_array(x) and not is_inexact_dtype(namespace_of(x), x.dtype):
        return NoTangent()
    return ZeroTangent()


def object_fields(x: Any) -> dict[str, Any] | None:
    """The fields of an object that an engine can open (dataclass, slots or ``__dict__``), else ``None``."""
    if has_no_tangent_space(x) or isinstance(x, (np.ndarray, np.generic, *CONTAINERS, AbstractZero, Boxed)):
        return None
    if is_foreign_array(x):  # an array of another library is a value, not an object with fields
        return None
    if callable(x) and isinstance(x, (types.MethodType, functools.partial, types.BuiltinMethodType)):
        return None
    names = field_names(type(x))  # a dataclass's fields, or those a class declares (``__chainrules_fields__``)
    if names is not None:
        return {n: getattr(x, n) for n in names if hasattr(x, n)}
    if hasattr(x, "__dict__"):
        return dict(vars(x))
    return None


def refuse_tangent_value(x: Any, engine: str) -> None:
    """A ``Tangent`` holding numbers is not followed (its entries would silently get zero derivatives): refuse it."""
    if isinstance(x, Tangent) and has_followable(
        tuple(backing(x).values()) if isinstance(backing(x), dict) else backing(x)
    ):
        raise TypeError(
            f"{engine}: an argument is a Tangent({primal_type(x).__name__}, ...); the engines follow numbers, arrays, "
            "lists, tuples, dicts and objects with fields, so pass its entries (chainrules_core.backing(t))"
        )


def has_followable(x: Any) -> bool:
    """Whether ``x`` holds anything differentiable an engine should follow."""
    if is_differentiable_leaf(x):
        return True
    if isinstance(x, dict):
        return any(has_followable(v) for v in x.values())
    if isinstance(x, (list, tuple)):
        return any(has_followable(v) for v in x)
    fields = object_fields(x)
    return fields is not None and any(has_followable(v) for v in fields.values())
