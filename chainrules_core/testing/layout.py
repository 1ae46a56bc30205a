"""Layouts: a value of any supported structure as a flat real vector, and back.

The harness works on vectors: a primal becomes a float64 vector (complex
entries as their real and imaginary parts, so ℂ is ℝ²), and a tangent of that
primal becomes a vector in the same layout. Inner products of such vectors
are ``Re(conj(a) * b)``, the inner product the complex convention is the
adjoint under. Integers, booleans, strings and anything else without a
tangent space occupy no entries.
"""

from __future__ import annotations

import functools
import math
import types
from typing import Any

import numpy as np

from ..projection import has_no_tangent_space
from ..tangent_types import (
    AbstractThunk,
    AbstractZero,
    NoTangent,
    NotImplementedTangent,
    Tangent,
    ZeroTangent,
    backing,
    primal_type,
    unthunk,
)
from ..tangent_types.tangent import construct, field_names, is_namedtuple

Vector = np.ndarray[Any, np.dtype[np.float64]]

_EMPTY: Vector = np.zeros(0)


def dot(a: Vector, b: Vector) -> float:
    """``<a, b>`` of two real vectors.

    Summed by ``einsum`` rather than BLAS: a multithreaded BLAS dot product
    of 1e5 entries can take 10 ms rather than 0.05 ms on a machine whose
    cores are busy, and the harness takes a dozen of them per check.
    """
    return float(np.einsum("i,i->", a, b))


def _promoted(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The double-precision dtype of the same kind: finite differences run in it."""
    return np.dtype(np.complex128) if dtype.kind == "c" else np.dtype(np.float64)


class Layout:
    """How one value maps to and from a real vector."""

    size: int = 0

    def to_vec(self, x: Any) -> Vector:
        raise NotImplementedError

    def from_vec(self, v: Vector, promote: bool) -> Any:
        """A value of this layout holding ``v``; in double precision if ``promote``."""
        raise NotImplementedError

    def tangent_to_vec(self, t: Any) -> Vector:
        """The tangent ``t`` of a value of this layout as a vector (zeros stand for zero tangents)."""
        raise NotImplementedError

    def vec_to_tangent(self, v: Vector) -> Any:
        """The tangent, of the types a rule should return, that holds ``v``."""
        raise NotImplementedError

    def problems(self, t: Any, where: str, cotangent: bool = True) -> list[str]:
        """What is wrong with ``t`` as a tangent of this layout's value: type, shape, dtype.

        A cotangent (``cotangent=True``) of a tuple must be ``Tangent(tuple, ...)``:
        engines add cotangents, and plain tuples concatenate when added. A
        pushforward may return a plain tuple for a tuple output.
        """
        raise NotImplementedError

    def constants(self, x: Any) -> list[Any]:
        """The entries of ``x`` that occupy no place in the vector (ints, strings ...), in order."""
        raise NotImplementedError

    def entry_name(self, k: int) -> str:
        """Where entry ``k`` of the vector lives in the value, as an index suffix: ``[1, 2].imag``."""
        raise NotImplementedError

    def magnitudes(self) -> Vector:
        """``|x|`` entry by entry (1 where ``x`` is 0): the scale of a relative direction."""
        raise NotImplementedError

    @property
    def differentiable(self) -> bool:
        """Whether the value has a tangent space; an empty float array has one, of dimension 0."""
        return self.size > 0


def _zero_or_none(t: Any, size: int) -> Vector | None:
    """Zeros for zero tangents; ``None`` when ``t`` carries values."""
    if isinstance(t, AbstractZero):
        return np.zeros(size)
    if isinstance(t, NotImplementedTangent):
        raise TypeError(f"a not-implemented tangent ({t.info}) has no value")
    return None


def _shape_fix(cotangent: bool) -> str:
    if cotangent:
        return "; unbroadcast(x, x_bar) sums a broadcast cotangent back to the shape of x and projects it"
    return "; a tangent has its primal's shape"


def _dtype_fix(cotangent: bool) -> str:
    return "; ProjectTo(x)(x_bar) casts it to the dtype of x" if cotangent else "; ProjectTo(y)(y_dot) casts it"


def _real_part_fix(cotangent: bool) -> str:
    return "project it to its real part (ProjectTo(x)(x_bar) does)" if cotangent else "project it to its real part"


def _real_parts(a: np.ndarray[Any, Any]) -> Vector:
    flat = np.asarray(a).ravel()
    if flat.dtype.kind == "c":
        return np.concatenate([flat.real, flat.imag]).astype(np.float64)
    return flat.astype(np.float64)


def _magnitudes(a: np.ndarray[Any, Any]) -> Vector:
    m = np.abs(np.asarray(a, dtype=np.complex128 if np.iscomplexobj(a) else np.float64)).ravel()
    m = np.where((m == 0) | ~np.isfinite(m), 1.0, m)
    return np.concatenate([m, m]) if np.iscomplexobj(a) else m


class _Opaque(Layout):
    """A value with no tangent space: ints, bools, strings, functions, anything unknown."""

    size = 0

    def __init__(self, value: Any) -> None:
        self.value = value

    def to_vec(self, x: Any) -> Vector:
        return _EMPTY

    def from_vec(self, v: Vector, promote: bool) -> Any:
        return self.value

    def tangent_to_vec(self, t: Any) -> Vector:
        return _EMPTY

    def vec_to_tangent(self, v: Vector) -> Any:
        return NoTangent()

    def problems(self, t: Any, where: str, cotangent: bool = True) -> list[str]:
        if isinstance(t, NoTangent):
            return []
        return [f"{where}: expected NoTangent() for a non-differentiable {type(self.value).__name__}, got {_show(t)}"]

    def magnitudes(self) -> Vector:
        return _EMPTY

    def constants(self, x: Any) -> list[Any]:
        return [x]

    def entry_name(self, k: int) -> str:
        raise IndexError(k)


class _Scalar(Layout):
    """A Python float or complex, or a numpy scalar of a float or complex dtype."""

    def __init__(self, x: Any) -> None:
        self.python = type(x) in (float, complex)
        self.dtype = np.dtype(type(x)) if self.python else x.dtype
        self.is_complex = self.dtype.kind == "c"
        self.size = 2 if self.is_complex else 1
        self.value = x

    def to_vec(self, x: Any) -> Vector:
        return _real_parts(np.asarray(x))

    def from_vec(self, v: Vector, promote: bool) -> Any:
        value = complex(v[0], v[1]) if self.is_complex else float(v[0])
        if self.python:
            return value
        return (_promoted(self.dtype) if promote else self.dtype).type(value)

    def tangent_to_vec(self, t: Any) -> Vector:
        zero = _zero_or_none(t, self.size)
        if zero is not None:
            return zero
        a = np.asarray(t)
        if a.size != 1:
            raise ValueError(f"a tangent of shape {a.shape} for a scalar")
        value = complex(a.reshape(()))
        return np.array([value.real, value.imag] if self.is_complex else [value.real])

    def vec_to_tangent(self, v: Vector) -> Any:
        return self.from_vec(v, promote=False)

    def problems(self, t: Any, where: str, cotangent: bool = True) -> list[str]:
        if isinstance(t, (AbstractZero, NotImplementedTangent)):
            return []
        kind = "complex" if self.is_complex else "real"
        if np.ndim(t) != 0:
            fix = _shape_fix(cotangent) if np.ndim(t) > 0 else ""
            return [f"{where}: expected a {kind} scalar for a {_type_name(self.value)}, got {_show(t)}{fix}"]
        got = np.asarray(t).dtype
        if not self.is_complex and got.kind == "c":
            return [f"{where}: a complex tangent for a real {_type_name(self.value)}: {_real_part_fix(cotangent)}"]
        if got.kind not in "fc":
            return [f"{where}: expected a {kind} scalar, got {_show(t)}"]
        if got != self.dtype:
            return [f"{where}: dtype {got} for a {_type_name(self.value)} (dtype {self.dtype}){_dtype_fix(cotangent)}"]
        return []

    def magnitudes(self) -> Vector:
        return _magnitudes(np.asarray(self.value))

    def constants(self, x: Any) -> list[Any]:
        return []

    def entry_name(self, k: int) -> str:
        return ("", ".imag")[k] if self.is_complex else ""


class _Array(Layout):
    """A numpy array of a float or complex dtype."""

    def __init__(self, x: np.ndarray[Any, Any]) -> None:
        self.dtype = x.dtype
        self.shape = x.shape
        self.is_complex = self.dtype.kind == "c"
        self.size = math.prod(self.shape) * (2 if self.is_complex else 1)
        self.value = x

    def to_vec(self, x: Any) -> Vector:
        return _real_parts(np.asarray(x))

    def from_vec(self, v: Vector, promote: bool) -> Any:
        n = math.prod(self.shape)
        values = v
        if self.is_complex:  # not v[:n] + 1j * v[n:]: 1j * nan is nan + nanj, which would spoil the real part
            values = np.empty(n, dtype=np.complex128)
            values.real, values.imag = v[:n], v[n:]
        return np.asarray(values).reshape(self.shape).astype(_promoted(self.dtype) if promote else self.dtype)

    def tangent_to_vec(self, t: Any) -> Vector:
        zero = _zero_or_none(t, self.size)
        if zero is not None:
            return zero
        a = np.asarray(t)
        if a.size != math.prod(self.shape):
            raise ValueError(f"a tangent of shape {a.shape} for an array of shape {self.shape}")
        if self.is_complex:
            a = a.astype(np.complex128)
        elif a.dtype.kind == "c":
            a = a.real
        return _real_parts(a.reshape(self.shape))

    def vec_to_tangent(self, v: Vector) -> Any:
        return self.from_vec(v, promote=False)

    def problems(self, t: Any, where: str, cotangent: bool = True) -> list[str]:
        if isinstance(t, (AbstractZero, NotImplementedTangent)):
            return []
        if not isinstance(t, np.ndarray):  # a numpy scalar is not a 0-d array: engines add it to one differently
            fix = "; ProjectTo(x)(x_bar) makes it one" if isinstance(t, np.generic) else ""
            return [f"{where}: expected an ndarray of shape {self.shape} and dtype {self.dtype}, got {_show(t)}{fix}"]
        found = []
        if t.shape != self.shape:
            found.append(f"{where}: shape {t.shape} for a primal of shape {self.shape}{_shape_fix(cotangent)}")
        if t.dtype != self.dtype:
            if t.dtype.kind == "c" and not self.is_complex:
                fix = f": {_real_part_fix(cotangent)}"
            else:
                fix = _dtype_fix(cotangent)
            found.append(f"{where}: dtype {t.dtype} for a primal of dtype {self.dtype}{fix}")
        return found

    def magnitudes(self) -> Vector:
        return _magnitudes(self.value)

    @property
    def differentiable(self) -> bool:
        return True

    def constants(self, x: Any) -> list[Any]:
        return []

    def entry_name(self, k: int) -> str:
        n = math.prod(self.shape)
        index = ", ".join(map(str, np.unravel_index(k % n, self.shape))) if self.shape else ""
        part = (".imag" if k >= n else ".real") if self.is_complex else ""
        return f"[{index}]{part}"


class _Composite(Layout):
    """Shared by the structured layouts: a list of children laid end to end."""

    children: list[tuple[Any, Layout]]
    value: Any

    def _setup(self, children: list[tuple[Any, Layout]]) -> None:
        self.children = children
        self.size = sum(layout.size for _, layout in children)

    @property
    def differentiable(self) -> bool:
        return any(layout.differentiable for _, layout in self.children)

    def _split(self, v: Vector) -> list[Vector]:
        parts, start = [], 0
        for _, layout in self.children:
            parts.append(v[start : start + layout.size])
            start += layout.size
        return parts

    def _child_values(self, x: Any) -> list[Any]:
        raise NotImplementedError

    def _child_tangents(self, t: Any) -> list[Any]:
        raise NotImplementedError

    def to_vec(self, x: Any) -> Vector:
        pieces = [layout.to_vec(v) for (_, layout), v in zip(self.children, self._child_values(x))]
        return np.concatenate(pieces) if pieces else _EMPTY

    def tangent_to_vec(self, t: Any) -> Vector:
        zero = _zero_or_none(unthunk(t), self.size)
        if zero is not None:
            return zero
        tangents = self._child_tangents(unthunk(t))
        pieces = [layout.tangent_to_vec(unthunk(c)) for (_, layout), c in zip(self.children, tangents)]
        return np.concatenate(pieces) if pieces else _EMPTY

    def magnitudes(self) -> Vector:
        pieces = [layout.magnitudes() for _, layout in self.children]
        return np.concatenate(pieces) if pieces else _EMPTY

    def constants(self, x: Any) -> list[Any]:
        found: list[Any] = []
        for (_, layout), v in zip(self.children, self._child_values(x)):
            found += layout.constants(v)
        return found

    def entry_name(self, k: int) -> str:
        for key, layout in self.children:
            if k < layout.size:
                label = f".{key}" if isinstance(self, _Fields) and not self.is_mapping else f"[{key!r}]"
                return label + layout.entry_name(k)
            k -= layout.size
        raise IndexError(k)

    def _child_problems(self, t: Any, where: str, label: str, cotangent: bool) -> list[str]:
        found: list[str] = []
        for (key, layout), c in zip(self.children, self._child_tangents(t)):
            found += layout.problems(unthunk(c), f"{where}{label.format(key)}", cotangent)
        return found

    def _zero_problems(self, t: Any, where: str) -> list[str] | None:
        """The verdict on a zero or not-implemented ``t``, or on any ``t`` when nothing is differentiable."""
        if isinstance(t, (AbstractZero, NotImplementedTangent)):
            return [] if self.differentiable or isinstance(t, NoTangent) else _opaque_problem(t, where, self.value)
        if not self.differentiable:
            return _opaque_problem(t, where, self.value)
        return None


class _Sequence(_Composite):
    """A tuple or a list: tangents ``Tangent(tuple, ...)`` or ``Tangent(list, ...)``."""

    def __init__(self, x: tuple[Any, ...] | list[Any], seen: set[int]) -> None:
        self.cls = type(x)
        self.value = x
        self._setup([(i, _layout(v, seen)) for i, v in enumerate(x)])

    def _child_values(self, x: Any) -> list[Any]:
        return list(x)

    def _child_tangents(self, t: Any) -> list[Any]:
        values = list(backing(t)) if isinstance(t, Tangent) else list(t)
        if len(values) != len(self.children):
            raise ValueError(f"a tangent of {len(values)} elements for a {self.cls.__name__} of {len(self.children)}")
        return values

    def from_vec(self, v: Vector, promote: bool) -> Any:
        items = [layout.from_vec(p, promote) for (_, layout), p in zip(self.children, self._split(v))]
        return list(items) if issubclass(self.cls, list) else tuple(items)

    def vec_to_tangent(self, v: Vector) -> Any:
        if not self.differentiable:
            return NoTangent()
        items = [layout.vec_to_tangent(p) for (_, layout), p in zip(self.children, self._split(v))]
        return Tangent(list if issubclass(self.cls, list) else tuple, *items)

    def problems(self, t: Any, where: str, cotangent: bool = True) -> list[str]:
        verdict = self._zero_problems(t, where)
        if verdict is not None:
            return verdict
        is_list = issubclass(self.cls, list)
        if isinstance(t, Tangent):
            if not issubclass(primal_type(t), (tuple, list)):
                return [f"{where}: a Tangent({primal_type(t).__name__}) for a {self.cls.__name__}"]
        elif isinstance(t, (tuple, list)) and cotangent:
            kind = "list" if is_list else "tuple"
            return [
                f"{where}: a plain {type(t).__name__} as the cotangent of a {kind}; return Tangent({kind}, ...) "
                f"(ProjectTo(x) builds it): plain {type(t).__name__}s concatenate when an engine adds cotangents"
            ]
        elif not isinstance(t, (tuple, list)):
            expected = "Tangent(list, ...)" if is_list else "Tangent(tuple, ...)"
            return [f"{where}: expected {expected} for a {self.cls.__name__}, got {_show(t)}"]
        try:
            return self._child_problems(t, where, "[{}]", cotangent)
        except ValueError as err:
            return [f"{where}: {err}"]


class _Fields(_Composite):
    """A dict, dataclass, namedtuple, bound method, partial or object with attributes."""

    def __init__(self, x: Any, names: list[Any], seen: set[int]) -> None:
        self.cls = type(x)
        self.value = x
        self.is_mapping = isinstance(x, dict)
        values = [x[k] for k in names] if self.is_mapping else [getattr(x, k) for k in names]
        self._setup([(k, _layout(v, seen)) for k, v in zip(names, values)])

    def _child_values(self, x: Any) -> list[Any]:
        if self.is_mapping:
            return [x[k] for k, _ in self.children]
        return [getattr(x, k) for k, _ in self.children]

    def _child_tangents(self, t: Any) -> list[Any]:
        data = backing(t) if isinstance(t, Tangent) else t
        if not isinstance(data, dict):
            raise TypeError(f"a {type(t).__name__} for a {self.cls.__name__}")
        return [data.get(k, NoTangent()) for k, _ in self.children]

    def from_vec(self, v: Vector, promote: bool) -> Any:
        values = {k: layout.from_vec(p, promote) for (k, layout), p in zip(self.children, self._split(v))}
        if self.is_mapping:
            new = dict(self.value)
            new.update(values)
            return new
        changed = {k: values[k] for k, layout in self.children if layout.differentiable}
        return construct(self.value, changed) if changed else self.value

    def vec_to_tangent(self, v: Vector) -> Any:
        if not self.differentiable:
            return NoTangent()
        fields = {
            k: layout.vec_to_tangent(p)
            for (k, layout), p in zip(self.children, self._split(v))
            if layout.differentiable
        }
        return Tangent(self.cls, fields) if self.is_mapping else Tangent(self.cls, **fields)

    def problems(self, t: Any, where: str, cotangent: bool = True) -> list[str]:
        verdict = self._zero_problems(t, where)
        if verdict is not None:
            return verdict
        if isinstance(t, Tangent):
            if not issubclass(self.cls, primal_type(t)):
                return [f"{where}: a Tangent({primal_type(t).__name__}) for a {self.cls.__name__}"]
        elif not (self.is_mapping and isinstance(t, dict)):
            return [f"{where}: expected a Tangent({self.cls.__name__}, ...), got {_show(t)}"]
        elif cotangent:
            return [
                f"{where}: a plain dict as the cotangent of a dict; return Tangent(dict, ...) (ProjectTo(x) builds it)"
            ]
        data = backing(t) if isinstance(t, Tangent) else t
        known = {k for k, _ in self.children}
        unknown = [k for k in data if k not in known]
        if unknown:
            what = "keys" if self.is_mapping else "fields"
            return [f"{where}: {', '.join(map(repr, unknown))} not among the {what} of the {self.cls.__name__}"]
        return self._child_problems(t, where, "[{!r}]" if self.is_mapping else ".{}", cotangent)


class _TangentValue(_Composite):
    """A ``Tangent`` as a value, the input of a function of tangents: its entries laid end to end."""

    def __init__(self, x: Tangent, seen: set[int]) -> None:
        self.cls = primal_type(x)
        self.kind = x._Tangent__kind
        self.value = x
        data = backing(x)
        self.positional = isinstance(data, tuple)
        items = list(enumerate(data)) if self.positional else list(data.items())
        self._setup([(k, _layout(unthunk(v), seen)) for k, v in items])

    def _child_values(self, x: Any) -> list[Any]:
        data = backing(x)
        return [unthunk(data[k]) for k, _ in self.children]

    def _child_tangents(self, t: Any) -> list[Any]:
        if not isinstance(t, Tangent):
            raise TypeError(f"a {type(t).__name__} for a Tangent({self.cls.__name__})")
        data = backing(t)
        if self.positional:
            if len(data) != len(self.children):
                raise ValueError(f"a tangent of {len(data)} entries for a Tangent of {len(self.children)}")
            return list(data)
        return [data.get(k, ZeroTangent()) for k, _ in self.children]

    def _rebuild(self, items: list[Any]) -> Tangent:
        data = tuple(items) if self.positional else {k: v for (k, _), v in zip(self.children, items)}
        return Tangent._from_backing(self.cls, self.kind, data)

    def from_vec(self, v: Vector, promote: bool) -> Any:
        return self._rebuild([layout.from_vec(p, promote) for (_, layout), p in zip(self.children, self._split(v))])

    def vec_to_tangent(self, v: Vector) -> Any:
        if not self.differentiable:
            return NoTangent()
        return self._rebuild([layout.vec_to_tangent(p) for (_, layout), p in zip(self.children, self._split(v))])

    def problems(self, t: Any, where: str, cotangent: bool = True) -> list[str]:
        verdict = self._zero_problems(t, where)
        if verdict is not None:
            return verdict
        if not isinstance(t, Tangent) or primal_type(t) is not self.cls:
            return [f"{where}: expected a Tangent({self.cls.__name__}, ...) for a tangent of one, got {_show(t)}"]
        try:
            return self._child_problems(t, where, "[{!r}]", cotangent)
        except (TypeError, ValueError) as err:
            return [f"{where}: {err}"]


def _opaque_problem(t: Any, where: str, value: Any) -> list[str]:
    return _Opaque(value).problems(t, where)


def _field_names_of(x: Any) -> list[str] | None:
    if isinstance(x, types.MethodType):
        return ["__self__"]
    if isinstance(x, functools.partial):
        return ["func", "args"]
    names = field_names(type(x))
    if names is not None:
        return [name for name in names if hasattr(x, name)]
    if hasattr(x, "__dict__"):
        return list(vars(x))
    return None


def _layout(x: Any, seen: set[int]) -> Layout:
    if has_no_tangent_space(x) or isinstance(x, (AbstractZero, AbstractThunk)):
        return _Opaque(x)
    if isinstance(x, (float, complex)) or (isinstance(x, np.generic) and x.dtype.kind in "fc"):
        return _Scalar(x)
    if isinstance(x, np.ndarray):
        return _Array(x) if x.dtype.kind in "fc" else _Opaque(x)
    if id(x) in seen:
        return _Opaque(x)
    seen = seen | {id(x)}
    if isinstance(x, (tuple, list)) and not is_namedtuple(type(x)):
        return _Sequence(x, seen)
    if isinstance(x, dict):
        return _Fields(x, list(x), seen)
    if isinstance(x, Tangent):
        return _TangentValue(x, seen)
    names = _field_names_of(x)
    if names is None:
        return _Opaque(x)
    return _Fields(x, names, seen)


def layout_of(x: Any) -> Layout:
    """The layout of the value ``x``.

    >>> layout = layout_of((1.5, np.ones(2, dtype=np.complex64), 3))
    >>> layout.size, layout.to_vec((1.5, np.array([1 + 2j, 3j]), 3))
    (5, array([1.5, 1. , 0. , 2. , 3. ]))
    >>> layout.vec_to_tangent(np.arange(5.0))
    Tangent(tuple, 0.0, array([1.+3.j, 2.+4.j], dtype=complex64), NoTangent())
    """
    return _layout(x, set())


def kind_of(x: Any) -> str:
    """What ``x`` is, as a message says it: ``a Python float``, ``a numpy float64 of shape ()``, ``an ndarray of
    shape (3,) and dtype float32``, ``a list``.

    >>> kind_of(1.5), kind_of(np.float64(1.5)), kind_of(np.ones(3, dtype=np.float32)), kind_of([1.5])
    ('a Python float', 'a numpy float64 of shape ()', 'an ndarray of shape (3,) and dtype float32', 'a list')
    """
    if isinstance(x, np.ndarray):
        return f"an ndarray of shape {x.shape} and dtype {x.dtype}"
    if isinstance(x, np.generic):
        return f"a numpy {x.dtype} of shape ()"
    if isinstance(x, (bool, int, float, complex)):
        return f"a Python {type(x).__name__}"
    return f"a {type(x).__name__}"


def _type_name(x: Any) -> str:
    return f"np.{x.dtype}" if isinstance(x, np.generic) else type(x).__name__


def _show(t: Any) -> str:
    if isinstance(t, np.ndarray):
        return f"an ndarray of shape {t.shape} and dtype {t.dtype}"
    if isinstance(t, np.generic):
        return f"a numpy {t.dtype} scalar"
    text = repr(t)
    return f"{text[:60]}..." if len(text) > 60 else text
