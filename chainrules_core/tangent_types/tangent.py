"""``Tangent``: the structural tangent of a tuple, dict, dataclass, namedtuple or object."""

from __future__ import annotations

import copy
import dataclasses
import functools
import numbers
import sys
import types
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

from .abstract_tangent import AbstractTangent
from .abstract_zero import AbstractZero, ZeroTangent
from .not_implemented import NotImplementedTangent, NotImplementedTangentError
from .thunks import AbstractThunk, Thunk, unthunk

_POSITIONAL, _NAMED, _MAPPING = 0, 1, 2


def is_namedtuple(cls: type) -> bool:
    """Whether ``cls`` is a namedtuple class (a tuple subclass with ``_fields``).

    >>> from collections import namedtuple
    >>> is_namedtuple(namedtuple("Point", "x y")), is_namedtuple(tuple)
    (True, False)
    """
    return issubclass(cls, tuple) and hasattr(cls, "_fields")


_FIELD_NAMES: dict[type, tuple[str, ...] | None] = {}


def field_names(cls: type) -> tuple[str, ...] | None:
    """The fields of instances of ``cls`` when the type alone tells them, else ``None``.

    The fields a class declares in ``__chainrules_fields__`` (``declared_fields``);
    else those of dataclasses, namedtuples, classes with ``__slots__`` (and no
    ``__dict__``), bound methods (``__func__``, ``__self__``) and
    ``functools.partial`` (``func``, ``args``, ``keywords``); ``None`` for
    classes whose instances carry a ``__dict__``, whose fields only an
    instance knows.

    >>> import functools
    >>> field_names(functools.partial), field_names(dict)
    (('func', 'args', 'keywords'), None)
    """
    try:
        return _FIELD_NAMES[cls]
    except KeyError:
        names = _FIELD_NAMES[cls] = _find_field_names(cls)
        return names


def declared_fields(cls: type) -> tuple[str, ...] | None:
    """The independent fields a class declares, ``__chainrules_fields__``; ``None`` if it declares none.

    An object that computes values from its fields when it is built (a
    spline's coefficients from its knots and values, a factorization from
    a matrix) declares the fields it is built from: its tangents have those
    alone, and an instance with new values for them is built by calling the
    class with them as keyword arguments, ``cls(**fields)``, which computes
    the rest again (``construct``, ``primal + Tangent``, and the harness's
    perturbations). A subclass inherits the declaration.

    >>> class Mean:
    ...     __chainrules_fields__ = ("values",)
    ...     def __init__(self, values):
    ...         self.values, self.mean = values, sum(values) / len(values)
    >>> declared_fields(Mean), field_names(Mean), declared_fields(dict)
    (('values',), ('values',), None)
    >>> construct(Mean([1.0, 2.0]), {"values": [3.0, 5.0]}).mean
    4.0
    """
    names = getattr(cls, "__chainrules_fields__", None)
    if names is None:
        return None
    if isinstance(names, str) or not all(isinstance(name, str) for name in names):
        raise TypeError(
            f"{cls.__name__}.__chainrules_fields__ must be a tuple of field names, such as ('knots', 'values'); "
            f"got {names!r}"
        )
    return tuple(names)


def _find_field_names(cls: type) -> tuple[str, ...] | None:
    declared = declared_fields(cls)
    if declared is not None:
        return declared
    if dataclasses.is_dataclass(cls):
        return tuple(f.name for f in dataclasses.fields(cls))
    if is_namedtuple(cls):
        return tuple(cls._fields)  # type: ignore[attr-defined]
    if cls is types.MethodType:
        return ("__func__", "__self__")
    if cls is functools.partial:
        return ("func", "args", "keywords")
    slots: list[str] = []
    for klass in cls.__mro__[:-1]:
        declared = klass.__dict__.get("__slots__")
        if declared is None:
            return None  # instances of this class carry a __dict__
        declared = (declared,) if isinstance(declared, str) else tuple(declared)
        if "__dict__" in declared:
            return None
        slots.extend(name for name in declared if name != "__weakref__")
    if slots:
        return tuple(slots)
    return None


class Tangent(AbstractTangent):
    """The tangent of a structured primal of type ``P``.

    * ``Tangent(P, **fields)`` for a dataclass, namedtuple, callable object or
      any object with attributes; a field that is not given is ``ZeroTangent()``.
    * ``Tangent(tuple, *elems)`` for a tuple (``list`` likewise).
    * ``Tangent(dict, mapping)`` for a dict.

    Fields are read as attributes (``t.x``), tuple elements and dict entries by
    indexing (``t[0]``, ``t["key"]``); thunks are forced when read, use
    ``backing(t)`` for the raw values. Two tangents of the same ``P`` add field by
    field; a primal plus a tangent builds a new primal with the fields moved;
    a number scales every field.

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Point:
    ...     x: float
    ...     y: float
    >>> t = Tangent(Point, x=1.0)
    >>> t.x, t.y
    (1.0, ZeroTangent())
    >>> t + Tangent(Point, y=2.0)
    Tangent(Point, x=1.0, y=2.0)
    >>> Point(3.0, 4.0) + 2 * t
    Point(x=5.0, y=4.0)
    >>> Tangent(tuple, 1.0, 2.0)[1]
    2.0
    """

    __slots__ = ("__backing", "__kind", "__primal")
    _precedence: ClassVar[int] = 1

    def __init__(self, primal_type: type, *elems: Any, **fields: Any) -> None:
        if (primal_type is list or primal_type is tuple) and not fields:  # the common case, without the checks
            object.__setattr__(self, "_Tangent__primal", primal_type)
            object.__setattr__(self, "_Tangent__kind", _POSITIONAL)
            object.__setattr__(self, "_Tangent__backing", elems)
            return
        if not isinstance(primal_type, type):
            raise TypeError(f"Tangent: the first argument must be the primal type, got {primal_type!r}")
        P = primal_type
        kind: int
        data: Any
        if issubclass(P, Mapping):
            if (elems and fields) or len(elems) > 1 or (elems and not isinstance(elems[0], Mapping)):
                raise TypeError(f"Tangent({P.__name__}, ...) takes one mapping or keyword entries")
            kind, data = _MAPPING, dict(elems[0]) if elems else dict(fields)
        elif elems:
            if fields:
                raise TypeError(f"Tangent({P.__name__}, ...) takes elements or fields, not both")
            if is_namedtuple(P):
                positional_names = field_names(P) or ()
                if len(elems) != len(positional_names):
                    raise TypeError(
                        f"Tangent({P.__name__}, ...): {len(elems)} elements for the "
                        f"{len(positional_names)} fields {positional_names}"
                    )
                kind, data = _NAMED, dict(zip(positional_names, elems))
            elif issubclass(P, (tuple, list)):
                kind, data = _POSITIONAL, tuple(elems)
            else:
                raise TypeError(f"Tangent({P.__name__}, ...): fields of a {P.__name__} are given by name")
        elif issubclass(P, (tuple, list)) and not is_namedtuple(P):
            kind, data = _POSITIONAL, ()
        else:
            names = field_names(P)
            if names is not None:
                unknown = [name for name in fields if name not in names]
                if unknown:
                    raise TypeError(
                        f"Tangent({P.__name__}, ...): {', '.join(map(repr, unknown))} "
                        f"{'is not a field' if len(unknown) == 1 else 'are not fields'} "
                        f"of {P.__name__} (fields: {', '.join(names)})"
                    )
            kind, data = _NAMED, fields
        object.__setattr__(self, "_Tangent__primal", P)
        object.__setattr__(self, "_Tangent__kind", kind)
        object.__setattr__(self, "_Tangent__backing", data)

    @classmethod
    def _from_backing(cls, P: type, kind: int, data: Any) -> Tangent:
        new = object.__new__(cls)
        object.__setattr__(new, "_Tangent__primal", P)
        object.__setattr__(new, "_Tangent__kind", kind)
        object.__setattr__(new, "_Tangent__backing", data)
        return new

    # ----- access -----

    def __getattr__(self, name: str) -> Any:
        if self.__kind == _NAMED:
            data = self.__backing
            if name in data:
                return unthunk(data[name])
            names = field_names(self.__primal)
            if names is not None and name in names:
                return ZeroTangent()
            if names is None and not (name.startswith("__") and name.endswith("__")):
                return ZeroTangent()
        raise AttributeError(f"Tangent({self.__primal.__name__}) has no field {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Tangent is immutable; build a new one")

    def __getitem__(self, key: Any) -> Any:
        kind, data = self.__kind, self.__backing
        if kind == _POSITIONAL:
            value = data[key]
            return tuple(map(unthunk, value)) if isinstance(key, slice) else unthunk(value)
        if kind == _MAPPING:
            return unthunk(data[key]) if key in data else ZeroTangent()
        if isinstance(key, int):
            names = field_names(self.__primal)
            if names is None:
                raise TypeError(f"Tangent({self.__primal.__name__}) has no field order; index it by name")
            key = names[key]
        return getattr(self, key)

    def __len__(self) -> int:
        if self.__kind == _NAMED:
            names = field_names(self.__primal)
            return len(names) if names is not None else len(self.__backing)
        return len(self.__backing)

    def __iter__(self) -> Iterator[Any]:
        kind = self.__kind
        if kind == _POSITIONAL:
            return map(unthunk, self.__backing)
        if kind == _MAPPING:
            return iter(self.__backing)
        if is_namedtuple(self.__primal):
            return (getattr(self, name) for name in field_names(self.__primal) or ())
        raise TypeError(f"Tangent({self.__primal.__name__}) is not iterable, as {self.__primal.__name__} is not")

    def __repr__(self) -> str:
        name = self.__primal.__name__
        data = self.__backing
        if self.__kind == _POSITIONAL:
            inner = ", ".join(map(repr, data))
        elif self.__kind == _MAPPING:
            inner = repr(data)
        else:
            inner = ", ".join(f"{k}={v!r}" for k, v in data.items())
        return f"Tangent({name}{', ' if inner else ''}{inner})"

    def __reduce__(self) -> tuple[Callable[..., Tangent], tuple[Any, ...]]:
        return Tangent._from_backing, (self.__primal, self.__kind, self.__backing)

    # ----- equality -----

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tangent):
            return NotImplemented
        if self.__primal is not other.__primal or self.__kind != other.__kind:
            return False
        a, b = self.__backing, other.__backing
        if self.__kind == _POSITIONAL:
            return len(a) == len(b) and all(map(_values_equal, a, b))
        zero = ZeroTangent()
        return all(_values_equal(a.get(k, zero), b.get(k, zero)) for k in {**a, **b})

    def __hash__(self) -> int:
        data = self.__backing
        if self.__kind == _POSITIONAL:
            return hash((self.__primal, tuple(map(unthunk, data))))
        items = frozenset((k, unthunk(v)) for k, v in data.items() if not isinstance(v, AbstractZero))
        return hash((self.__primal, items))

    # ----- arithmetic -----

    def __add__(self, other: Any) -> Any:
        if self._defers_to(other):
            return NotImplemented
        if isinstance(other, Tangent):
            return self._add_tangent(other)
        return self.__radd__(other)

    def __radd__(self, other: Any) -> Any:
        if isinstance(other, self.__primal):
            return _add_to_primal(other, self)
        raise TypeError(
            f"cannot add Tangent({self.__primal.__name__}) to a {type(other).__name__}: "
            f"a tangent adds to a tangent of the same primal type or to a {self.__primal.__name__}"
        )

    def __sub__(self, other: Any) -> Any:
        if self._defers_to(other):
            return NotImplemented
        if isinstance(other, Tangent):
            return self._add_tangent(-other)
        raise TypeError(f"cannot subtract a {type(other).__name__} from Tangent({self.__primal.__name__})")

    def __rsub__(self, other: Any) -> Any:
        return (-self).__radd__(other)

    def __neg__(self) -> Tangent:
        return _map_tangent(lambda v: -v, self)

    def __mul__(self, other: Any) -> Any:
        if self._defers_to(other):
            return NotImplemented
        if isinstance(other, numbers.Number):
            return _map_tangent(lambda v: v * other, self)
        raise TypeError(
            f"Tangent({self.__primal.__name__}) can be scaled by a number, not multiplied by a {type(other).__name__}"
        )

    def __rmul__(self, other: Any) -> Any:
        if isinstance(other, numbers.Number):
            return _map_tangent(lambda v: other * v, self)
        return self.__mul__(other)

    def __truediv__(self, other: Any) -> Any:
        if self._defers_to(other):
            return NotImplemented
        if isinstance(other, numbers.Number):
            return _map_tangent(lambda v: v / other, self)
        raise TypeError(f"Tangent({self.__primal.__name__}) can be divided by a number, not a {type(other).__name__}")

    def _add_tangent(self, other: Tangent) -> Tangent:
        P, Q = self.__primal, other.__primal
        if P is not Q or self.__kind != other.__kind:
            raise TypeError(
                f"cannot add Tangent({P.__name__}) and Tangent({Q.__name__}): tangents of different primal types"
            )
        a, b = self.__backing, other.__backing
        if self.__kind == _POSITIONAL:
            if len(a) != len(b):
                raise ValueError(f"cannot add Tangent({P.__name__}) of {len(a)} and {len(b)} elements")
            return Tangent._from_backing(P, _POSITIONAL, tuple(x + y for x, y in zip(a, b)))
        summed = dict(a)
        for key, value in b.items():
            summed[key] = summed[key] + value if key in summed else value
        return Tangent._from_backing(P, self.__kind, summed)


def backing(t: Tangent) -> Any:
    """The raw storage of ``t``: a tuple, or a dict of fields or entries.

    Values are returned as stored, thunks unforced.

    >>> backing(Tangent(tuple, 1.0, 2.0))
    (1.0, 2.0)
    """
    return t._Tangent__backing


def primal_type(t: Tangent) -> type:
    """The primal type ``P`` of ``Tangent(P, ...)``.

    >>> primal_type(Tangent(dict, {"a": 1.0}))
    <class 'dict'>
    """
    return t._Tangent__primal  # type: ignore[no-any-return]


def canonicalize(t: Tangent) -> Tangent:
    """``t`` with every field of its primal type present, the missing ones ``ZeroTangent()``.

    >>> import collections
    >>> Point = collections.namedtuple("Point", "x y")
    >>> canonicalize(Tangent(Point, y=1.0))
    Tangent(Point, x=ZeroTangent(), y=1.0)
    """
    P, kind, data = primal_type(t), t._Tangent__kind, backing(t)
    names = field_names(P)
    if kind != _NAMED or names is None:
        return t
    zero = ZeroTangent()
    return Tangent._from_backing(P, kind, {name: data.get(name, zero) for name in names})


def _map_tangent(fn: Callable[[Any], Any], t: Tangent) -> Tangent:
    """Apply ``fn`` to every value of ``t``, keeping thunks lazy."""

    def apply(v: Any) -> Any:
        if isinstance(v, AbstractThunk):
            return Thunk(lambda: fn(v.unthunk()))
        return fn(v)

    P, kind, data = primal_type(t), t._Tangent__kind, backing(t)
    if kind == _POSITIONAL:
        return Tangent._from_backing(P, kind, tuple(map(apply, data)))
    return Tangent._from_backing(P, kind, {k: apply(v) for k, v in data.items()})


def _values_equal(a: Any, b: Any) -> bool:
    a, b = unthunk(a), unthunk(b)
    if isinstance(a, AbstractZero) or isinstance(b, AbstractZero):
        return isinstance(a, AbstractZero) and isinstance(b, AbstractZero)
    if isinstance(a, Tangent) or isinstance(b, Tangent):
        return a == b  # type: ignore[no-any-return]
    np = sys.modules.get("numpy")
    if np is not None and (isinstance(a, np.ndarray) or isinstance(b, np.ndarray)):
        return bool(np.array_equal(a, b))
    return bool(a == b)


def _add_value(primal_value: Any, tangent_value: Any, name: Any, P: type) -> Any:
    if isinstance(tangent_value, NotImplementedTangent):
        raise NotImplementedTangentError(
            f"cannot add a not-implemented tangent to field {name!r} of a {P.__name__}: {tangent_value.info}"
        )
    return primal_value + tangent_value


def _add_to_primal(primal: Any, t: Tangent) -> Any:
    """Build a new primal with the fields of ``primal`` moved by ``t``."""
    P, kind, data = primal_type(t), t._Tangent__kind, backing(t)
    cls = type(primal)
    if kind == _POSITIONAL:
        if len(primal) != len(data):
            raise ValueError(f"cannot add Tangent({P.__name__}) of {len(data)} elements to one of {len(primal)}")
        moved = [_add_value(p, d, i, P) for i, (p, d) in enumerate(zip(primal, data))]
        return cls(moved)
    if kind == _MAPPING:
        new = copy.copy(primal) if isinstance(primal, dict) else dict(primal)
        for key, value in data.items():
            new[key] = _add_value(new[key], value, key, P) if key in new else value
        return new
    changes = {
        name: _add_value(getattr(primal, name), value, name, P)
        for name, value in data.items()
        if not isinstance(value, AbstractZero)
    }
    return construct(primal, changes) if changes else primal


def construct(primal: Any, changes: dict[str, Any]) -> Any:
    """A copy of the object ``primal`` with the fields in ``changes`` replaced.

    A class that declares its fields (``declared_fields``) is called with
    them; namedtuples, bound methods and partials are rebuilt, dataclasses go
    through ``dataclasses.replace`` when every changed field is an ``__init__``
    argument, and any other object is copied and its attributes set.
    """
    cls = type(primal)
    declared = declared_fields(cls)
    if declared is not None:  # what the class's own __init__ raises, it raises as it is
        return _rebuilt(primal, declared, changes)
    try:
        if is_namedtuple(cls):
            return primal._replace(**changes)
        if cls is types.MethodType:
            return types.MethodType(changes.get("__func__", primal.__func__), changes.get("__self__", primal.__self__))
        if cls is functools.partial:
            return functools.partial(
                changes.get("func", primal.func), *changes.get("args", primal.args), **primal.keywords
            )
        if dataclasses.is_dataclass(cls):
            init = {f.name for f in dataclasses.fields(cls) if f.init}
            if init.issuperset(changes):
                return dataclasses.replace(primal, **changes)
        new = copy.copy(primal)
        for name, value in changes.items():
            object.__setattr__(new, name, value)
        return new
    except (TypeError, AttributeError, ValueError) as err:
        raise TypeError(
            f"could not build a {cls.__name__} with new values for the fields {sorted(changes)}: {err}"
        ) from err


def _rebuilt(primal: Any, declared: tuple[str, ...], changes: dict[str, Any]) -> Any:
    """``type(primal)(**fields)``: the declared fields of ``primal``, with ``changes``."""
    cls = type(primal)
    computed = [name for name in changes if name not in declared]
    missing = [name for name in declared if name not in changes and not hasattr(primal, name)]
    if computed or missing:
        problem = (
            f"{', '.join(map(repr, computed))} {'is' if len(computed) == 1 else 'are'} not among them"
            if computed
            else f"the {cls.__name__} has no attribute {', '.join(map(repr, missing))}"
        )
        raise TypeError(
            f"could not build a {cls.__name__} with new values for the fields {sorted(changes)}: it declares "
            f"__chainrules_fields__ = {declared!r}, and {problem}; the class is called with those fields as keyword "
            "arguments, which build the rest"
        )
    return cls(**{name: changes[name] if name in changes else getattr(primal, name) for name in declared})
