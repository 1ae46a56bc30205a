"""``ProjectTo``: map a candidate cotangent back onto the tangent space of a primal.

A rule builds the projector from the primal *before* its pullback runs and
applies it to each cotangent it returns. The projector restores what the
arithmetic may have changed: the dtype (float32 stays float32), the real
subspace (a complex cotangent for a real input keeps its real part), the
Python type (a Python float gets a Python float) and trivial dimensions. It
returns ``NoTangent()`` for primals that have no tangent space.

An AD engine's followed values (``chainrules_core.followed``) are projected
as the plain values they stand for: ``ProjectTo`` builds the projector from
``__chainrules_primal__``, and a projector applied to a followed value runs
as one operation of its engine (``__chainrules_call__``), so that nested
differentiation follows it.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import types
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from .arrays import device_of, has_unknown_shape, is_complex_dtype, is_foreign_array, is_inexact_dtype, namespace_of
from .followed import engine_call, is_followed, primal_of
from .naming import function_name
from .tangent_types import (
    AbstractTangent,
    AbstractThunk,
    AbstractZero,
    InplaceableThunk,
    NoTangent,
    NotImplementedTangent,
    Tangent,
    Thunk,
    backing,
    primal_type,
    unthunk,
)
from .tangent_types.tangent import declared_fields, is_namedtuple

_PASS_THROUGH = (AbstractZero, NotImplementedTangent)
_REAL_SCALAR_TYPES = frozenset({float, np.float64, np.float32, np.float16, int})


class Projector:
    """Maps a candidate cotangent onto the tangent space of one primal; built by ``ProjectTo``."""

    __slots__ = ()

    def __call__(self, dx: Any) -> Any:
        raise NotImplementedError

    def _lazy(self, dx: AbstractThunk) -> AbstractThunk:
        """Project a thunk without forcing it."""
        projected = Thunk(lambda: self(dx.unthunk()))
        return InplaceableThunk(dx.add, projected) if isinstance(dx, InplaceableThunk) else projected

    is_no_tangent: ClassVar[bool] = False
    """Whether every cotangent projects to ``NoTangent()``."""


def _wrapped(projector: Projector, dx: Any) -> Any:
    """``projector(dx)`` for an engine's followed value ``dx`` (``chainrules_core.followed``); ``None`` for any
    other value."""
    call = engine_call(dx)
    return None if call is None else call(dx, projector, dx)


class _NoTangentProjector(Projector):
    __slots__ = ()

    def __call__(self, dx: Any) -> Any:
        return NoTangent()

    is_no_tangent: ClassVar[bool] = True

    def __repr__(self) -> str:
        return "ProjectTo(NoTangent)"


class _IdentityProjector(Projector):
    """For primals whose tangent space this module does not know: no change."""

    __slots__ = ()

    def __call__(self, dx: Any) -> Any:
        return dx

    def __repr__(self) -> str:
        return "ProjectTo(<any>)"


def _foreign_number(dx: Any, what: str) -> Any:
    """The cotangent of a Python number from another library's array of one entry: a 0-d array of that library (its
    real part for a float), not a Python number, which would read it back to the host (and cannot, under
    ``jax.jit``)."""
    xp = namespace_of(dx)
    if not has_unknown_shape(dx):
        if math.prod(dx.shape) != 1:
            raise ValueError(f"ProjectTo: a cotangent of shape {tuple(dx.shape)} does not fit a {what} primal")
        if dx.shape != ():
            dx = xp.reshape(dx, ())
    return xp.real(dx) if what == "float" and is_complex_dtype(xp, dx.dtype) else dx


def _size_one_value(dx: Any, what: object) -> Any:
    """The single entry of a numpy scalar or a size-1 array; ``what`` names the primal in the error."""
    if np.size(dx) != 1:
        raise ValueError(f"ProjectTo: a cotangent of shape {np.shape(dx)} does not fit a {what} primal")
    return np.asarray(dx).reshape(())[()]


class _FloatProjector(Projector):
    __slots__ = ()

    def __call__(self, dx: Any) -> Any:
        if type(dx) in _REAL_SCALAR_TYPES:
            return float(dx)
        if isinstance(dx, _PASS_THROUGH):
            return dx
        if isinstance(dx, AbstractThunk):
            return self._lazy(dx)
        if isinstance(dx, (int, float, complex)):
            return float(dx.real)
        wrapped = _wrapped(self, dx)
        if wrapped is not None:
            return wrapped
        if is_foreign_array(dx):
            return _foreign_number(dx, "float")
        return float(np.real(_size_one_value(dx, "float")))

    def __repr__(self) -> str:
        return "ProjectTo(float)"


class _ComplexProjector(Projector):
    __slots__ = ()

    def __call__(self, dx: Any) -> Any:
        if isinstance(dx, _PASS_THROUGH):
            return dx
        if isinstance(dx, AbstractThunk):
            return self._lazy(dx)
        if isinstance(dx, (int, float, complex)):
            return complex(dx)
        wrapped = _wrapped(self, dx)
        if wrapped is not None:
            return wrapped
        if is_foreign_array(dx):
            return _foreign_number(dx, "complex")
        return complex(_size_one_value(dx, "complex"))

    def __repr__(self) -> str:
        return "ProjectTo(complex)"


def _cast(dx: np.ndarray[Any, Any] | np.generic, dtype: np.dtype[Any]) -> Any:
    if dx.dtype.kind == "c" and dtype.kind != "c":
        dx = dx.real
    return dx.astype(dtype, copy=False)


class _NumpyScalarProjector(Projector):
    """For numpy scalars such as ``np.float32(1.0)``: a numpy scalar of that dtype."""

    __slots__ = ("dtype", "type")

    def __init__(self, x: np.generic) -> None:
        self.dtype = x.dtype
        self.type = type(x)

    def __call__(self, dx: Any) -> Any:
        if type(dx) is self.type:
            return dx
        if isinstance(dx, _PASS_THROUGH):
            return dx
        if isinstance(dx, AbstractThunk):
            return self._lazy(dx)
        wrapped = _wrapped(self, dx)
        if wrapped is not None:
            return wrapped
        if is_foreign_array(dx):  # kept in its library, as a Python float's cotangent is
            return _foreign_number(dx, "complex" if self.dtype.kind == "c" else "float")
        value = np.asarray(_size_one_value(dx, self.dtype))
        return _cast(value, self.dtype)[()]

    def __repr__(self) -> str:
        return f"ProjectTo(np.{self.dtype})"


class _ArrayProjector(Projector):
    """For float and complex arrays: that dtype, that shape (up to trivial dimensions)."""

    __slots__ = ("dtype", "shape")

    def __init__(self, x: np.ndarray[Any, Any]) -> None:
        self.dtype = x.dtype
        self.shape = x.shape

    def __call__(self, dx: Any) -> Any:
        if type(dx) is np.ndarray:
            if dx.dtype is not self.dtype and dx.dtype != self.dtype:
                wrapped = _wrapped(self, dx) if dx.dtype.kind == "O" else None
                if wrapped is not None:
                    return wrapped
                dx = _cast(dx, self.dtype)
            if dx.shape != self.shape:
                dx = self._reshape(dx)
            return dx
        if isinstance(dx, _PASS_THROUGH):
            return dx
        if isinstance(dx, AbstractThunk):
            return self._lazy(dx)
        if isinstance(dx, (np.ndarray, np.generic, int, float, complex)):
            return self(np.asarray(dx))
        wrapped = _wrapped(self, dx)
        if wrapped is not None:
            return wrapped
        if is_foreign_array(dx):
            return _in_own_library(dx, self.dtype, self.shape)
        raise TypeError(f"ProjectTo: a {type(dx).__name__} is not a cotangent for an array of shape {self.shape}")

    def _reshape(self, dx: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        if dx.size == math.prod(self.shape) and _squeezed(dx.shape) == _squeezed(self.shape):
            return dx.reshape(self.shape)
        raise ValueError(f"ProjectTo: a cotangent of shape {dx.shape} does not fit a primal of shape {self.shape}")

    def __repr__(self) -> str:
        return f"ProjectTo(ndarray[{self.dtype}, {self.shape}])"


def _in_own_library(dx: Any, dtype: np.dtype[Any], shape: tuple[int, ...]) -> Any:
    """The cotangent of a numpy array that met another library's arrays (``np.dot(X, beta)`` with ``X`` a dask
    array): ``dx`` stays in its library, lazily for dask, with the numpy array's dtype and shape; converting it
    would compute it, or cross from the device to the host."""
    xp = namespace_of(dx)
    if is_complex_dtype(xp, dx.dtype) and dtype.kind != "c":
        dx = xp.real(dx)
    target = getattr(xp, dtype.name, None)
    if target is not None and dx.dtype != target:
        dx = xp.astype(dx, target)
    if tuple(dx.shape) != shape and not has_unknown_shape(dx):
        if math.prod(dx.shape) != math.prod(shape) or _squeezed(tuple(dx.shape)) != _squeezed(shape):
            raise ValueError(
                f"ProjectTo: a cotangent of shape {tuple(dx.shape)} does not fit a primal of shape {shape}"
            )
        dx = xp.reshape(dx, shape)
    return dx


def _squeezed(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(d for d in shape if d != 1)


class _ForeignArrayProjector(Projector):
    """For float and complex arrays of another library than numpy (torch, JAX, dask, CuPy, array-api-strict):
    that library, that dtype, that shape (up to trivial dimensions), computed with the array's own namespace.

    A Python number becomes an array of the library on the primal's device; a numpy array is refused (a rule
    that meets a foreign array must not cross to numpy), as is an array of a third library.
    """

    __slots__ = ("device", "dtype", "shape", "xp")

    def __init__(self, x: Any, xp: Any) -> None:
        self.xp = xp
        self.dtype = x.dtype
        self.shape = tuple(x.shape)
        self.device = device_of(x)

    def __call__(self, dx: Any) -> Any:
        if isinstance(dx, _PASS_THROUGH):
            return dx
        if isinstance(dx, AbstractThunk):
            return self._lazy(dx)
        xp = self.xp
        if isinstance(dx, (int, float, complex)) and not isinstance(dx, np.generic):
            dx = xp.asarray(dx, device=self.device)
        elif not is_foreign_array(dx):
            wrapped = _wrapped(self, dx)
            if wrapped is not None:
                return wrapped
            raise TypeError(
                f"ProjectTo: a {type(dx).__name__} is not a cotangent for an array of type {self._type_name()}"
            )
        if is_complex_dtype(xp, dx.dtype) and not is_complex_dtype(xp, self.dtype):
            dx = xp.real(dx)
        if dx.dtype != self.dtype:
            dx = xp.astype(dx, self.dtype)
        shape = tuple(dx.shape)
        if shape != self.shape and not has_unknown_shape(dx):
            if math.prod(shape) != math.prod(self.shape) or _squeezed(shape) != _squeezed(self.shape):
                raise ValueError(f"ProjectTo: a cotangent of shape {shape} does not fit a primal of shape {self.shape}")
            dx = xp.reshape(dx, self.shape)
        return dx

    def _type_name(self) -> str:
        return f"{self.xp.__name__} {self.dtype}"

    def __repr__(self) -> str:
        return f"ProjectTo({self.xp.__name__}[{self.dtype}, {self.shape}])"


def _make_foreign_array(x: Any) -> Projector:
    xp = namespace_of(x)
    return _ForeignArrayProjector(x, xp) if is_inexact_dtype(xp, x.dtype) else _NO_TANGENT


class _TupleProjector(Projector):
    __slots__ = ("elements", "output")

    def __init__(self, elements: tuple[Projector, ...], output: type) -> None:
        self.elements = elements
        self.output = output

    def __call__(self, dx: Any) -> Any:
        if isinstance(dx, _PASS_THROUGH):
            return dx
        if isinstance(dx, AbstractThunk):
            return self._lazy(dx)
        values = tuple(backing(dx)) if isinstance(dx, Tangent) else tuple(dx)
        if len(values) != len(self.elements):
            raise ValueError(
                f"ProjectTo: {len(values)} cotangents for a {self.output.__name__} of {len(self.elements)}"
            )
        projected = [p(v) for p, v in zip(self.elements, values)]
        return Tangent(self.output, *projected)

    def __repr__(self) -> str:
        return f"ProjectTo({self.output.__name__}[{', '.join(map(repr, self.elements))}])"


class _FieldsProjector(Projector):
    """For dicts, dataclasses, namedtuples and objects that declare their fields: a ``Tangent`` with each field
    projected."""

    __slots__ = ("fields", "primal_type")

    def __init__(self, P: type, fields: dict[Any, Projector]) -> None:
        self.primal_type = P
        self.fields = fields

    def __call__(self, dx: Any) -> Any:
        if isinstance(dx, _PASS_THROUGH):
            return dx
        if isinstance(dx, AbstractThunk):
            return self._lazy(dx)
        P = self.primal_type
        if isinstance(dx, Tangent):
            if not issubclass(P, primal_type(dx)) and not issubclass(primal_type(dx), P):
                raise TypeError(
                    f"ProjectTo: a Tangent({primal_type(dx).__name__}) is not a cotangent for a {P.__name__}"
                )
            items = dict(backing(dx))
        elif isinstance(dx, dict):
            items = dx
        else:
            raise TypeError(f"ProjectTo: a {type(dx).__name__} is not a cotangent for a {P.__name__}")
        projected = {k: self.fields[k](v) if k in self.fields else v for k, v in items.items()}
        if issubclass(P, dict):
            return Tangent(P, projected)
        return Tangent(P, **projected)

    def __repr__(self) -> str:
        return f"ProjectTo({self.primal_type.__name__}{self.fields!r})"


def _all_no_tangent(projectors: Any) -> bool:
    return all(p.is_no_tangent for p in projectors)


def _make_array(x: np.ndarray[Any, Any]) -> Projector:
    kind = x.dtype.kind
    if kind in "fc":
        return _ArrayProjector(x)
    if kind in "biuSUMmV":
        return _NO_TANGENT
    return _IDENTITY


def _make_numpy_scalar(x: np.generic) -> Projector:
    return _NumpyScalarProjector(x) if x.dtype.kind in "fc" else _NO_TANGENT


def _make_sequence(x: tuple[Any, ...] | list[Any]) -> Projector:
    elements = tuple(ProjectTo(v) for v in x)
    if _all_no_tangent(elements):
        return _NO_TANGENT
    return _TupleProjector(elements, list if isinstance(x, list) else tuple)


def _make_fields(P: type, fields: dict[Any, Any]) -> Projector:
    projectors = {k: ProjectTo(v) for k, v in fields.items()}
    if projectors and _all_no_tangent(projectors.values()):
        return _NO_TANGENT
    return _FieldsProjector(P, projectors)


NO_TANGENT_TYPES: tuple[type, ...] = (
    bool,
    int,
    str,
    bytes,
    type(None),
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.ModuleType,
    np.ufunc,
    np.dtype,
    slice,
    range,
    type(Ellipsis),
)
"""Values with no tangent space: their tangent is always ``NoTangent()``; ``has_no_tangent_space`` adds numpy's
random generators, without importing ``numpy.random`` for them."""


def has_no_tangent_space(x: Any) -> bool:
    """Whether ``x``'s tangent is always ``NoTangent()``: an int, a string, a function, a dtype, a random
    generator ...

    >>> has_no_tangent_space(3), has_no_tangent_space(np.random.default_rng(0)), has_no_tangent_space(3.0)
    (True, True, False)
    """
    if isinstance(x, NO_TANGENT_TYPES):
        return True
    random = sys.modules.get("numpy.random")  # without it imported, no generator exists
    return random is not None and isinstance(x, random.Generator)


def _make_generic(x: Any) -> Projector:
    if has_no_tangent_space(x):
        return _NO_TANGENT
    if isinstance(x, np.generic):  # before float and complex: np.float64 and np.complex128 subclass them
        return _make_numpy_scalar(x)
    if isinstance(x, float):
        return _FLOAT
    if isinstance(x, complex):
        return _COMPLEX
    if isinstance(x, np.ndarray):
        return _make_array(x)
    if is_namedtuple(type(x)):
        return _make_fields(type(x), x._asdict())
    if isinstance(x, (tuple, list)):
        return _make_sequence(x)
    if isinstance(x, dict):
        return _make_fields(type(x), x)
    declared = declared_fields(type(x))
    if declared is not None:  # an object that builds other values from these: its tangent has these alone
        return _make_fields(type(x), {name: getattr(x, name) for name in declared})
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return _make_fields(type(x), {f.name: getattr(x, f.name) for f in dataclasses.fields(x)})
    if is_followed(x):  # an engine's value: the projector of the value it stands for
        return ProjectTo(primal_of(x))
    if is_foreign_array(x):  # an array of another library: torch, JAX, dask, CuPy ...
        return _make_foreign_array(x)
    return _IDENTITY


_NO_TANGENT = _NoTangentProjector()
_IDENTITY = _IdentityProjector()
_FLOAT = _FloatProjector()
_COMPLEX = _ComplexProjector()

_MAKERS: dict[type, Callable[[Any], Projector]] = {
    float: lambda x: _FLOAT,
    int: lambda x: _NO_TANGENT,
    bool: lambda x: _NO_TANGENT,
    complex: lambda x: _COMPLEX,
    np.ndarray: _make_array,
    np.float64: _make_numpy_scalar,
    np.float32: _make_numpy_scalar,
    np.complex128: _make_numpy_scalar,
    np.complex64: _make_numpy_scalar,
    tuple: _make_sequence,
    list: _make_sequence,
}


def ProjectTo(x: Any) -> Projector:  # noqa: N802 - ChainRulesCore's name for it
    """The projector onto the tangent space of ``x``: ``ProjectTo(x)(dx)``.

    * ``bool``, ``int``, ``str``, ``None``, integer and bool arrays, plain
      functions: every cotangent becomes ``NoTangent()``.
    * Python ``float``: a Python float (the real part of a complex cotangent).
      Python ``complex``: a Python complex.
    * numpy arrays and scalars of a float or complex dtype: that dtype; real
      part for a real primal; trivial dimensions reshaped (``(3, 1)`` fits
      ``(3,)``); any other shape mismatch raises ``ValueError``.
    * tuples, dicts, dataclasses, namedtuples and objects that declare their
      fields (``__chainrules_fields__``): ``Tangent`` with each element
      projected (lists ``Tangent(list, ...)``, so that cotangents add entry by
      entry instead of concatenating).
    * zeros and not-implemented tangents pass through; thunks stay lazy.

    >>> import numpy as np
    >>> ProjectTo(np.ones(2, dtype=np.float32))(np.array([1 + 2j, 3 - 1j]))
    array([1., 3.], dtype=float32)
    >>> ProjectTo(1.5)(np.float64(2.0)), ProjectTo(3)(2.0)
    (2.0, NoTangent())
    >>> ProjectTo(np.zeros(3))(np.ones((3, 1))).shape
    (3,)
    """

    maker = _MAKERS.get(type(x))
    return maker(x) if maker is not None else _make_generic(x)


_INEXACT_SCALARS = frozenset({complex, np.float64, np.float32, np.float16, np.longdouble, np.complex128, np.complex64})


def fits(x: Any, dx: Any) -> bool:
    """Whether ``ProjectTo(x)(dx)`` is ``dx`` as it is: then a rule returns ``dx`` without building a projector.

    True for a cotangent of the primal's own type, and for arrays its dtype
    and shape, when that is a float, complex, numpy float or complex scalar,
    or float or complex array; false otherwise (project it).

    >>> import numpy as np
    >>> fits(np.ones(3), np.zeros(3)), fits(np.ones(3), np.zeros((3, 1))), fits(1.5, np.float64(2.0))
    (True, False, False)
    """
    t = type(x)
    if type(dx) is not t:
        return False
    if t is np.ndarray:
        return dx.shape == x.shape and dx.dtype == x.dtype and x.dtype.kind in "fc"
    return t is float or t in _INEXACT_SCALARS


def project_onto(x: Any, dx: Any) -> Any:
    """``ProjectTo(x)(dx)``, without building the projector when ``dx`` already ``fits`` ``x``.

    >>> import numpy as np
    >>> project_onto(np.ones(2, dtype=np.float32), np.array([1.0, 2.0])).dtype
    dtype('float32')
    """
    return dx if fits(x, dx) else ProjectTo(x)(dx)


def output_tangent(out: Any, out_dot: Any) -> Any:
    """An output's tangent from the sum ``out_dot`` of a rule's ``partial * x_dot`` terms: broadcast to the
    output's shape (a term may hold fewer dimensions, or be a Python number) and projected onto it, in the
    output's own array library.

    >>> import numpy as np
    >>> output_tangent(np.ones((2, 2)), np.array([1.0, 2.0]))
    array([[1., 2.],
           [1., 2.]])
    """
    if fits(out, out_dot) or isinstance(out_dot, _PASS_THROUGH):
        return out_dot
    shape = shape_of(out)
    if is_foreign_array(out):  # another library's output: its own broadcast, never numpy's
        xp = namespace_of(out)
        if not is_foreign_array(out_dot):
            out_dot = xp.asarray(out_dot, dtype=out.dtype, device=device_of(out))
        if tuple(out_dot.shape) != tuple(shape) and not has_unknown_shape(out):
            out_dot = xp.broadcast_to(out_dot, tuple(shape))
        return ProjectTo(out)(out_dot)
    if shape_of(out_dot) != shape:
        out_dot = np.broadcast_to(out_dot, shape)
    return ProjectTo(out)(out_dot)


def no_tangent_space(x: Any) -> bool:
    """``ProjectTo(x).is_no_tangent``, without building the projector of a float or a float or complex array.

    >>> import numpy as np
    >>> no_tangent_space(np.ones(2)), no_tangent_space(np.arange(2)), no_tangent_space(3)
    (False, True, True)
    """
    t = type(x)
    if t is float or (t is np.ndarray and x.dtype.kind in "fc"):
        return False
    return ProjectTo(x).is_no_tangent


def sum_to_shape(dx: Any, shape: tuple[int, ...]) -> Any:
    """Sum ``dx`` over the axes that broadcasting to it added or stretched from ``shape``.

    Leading axes are summed away; axes where ``shape`` has size 1 are summed
    with ``keepdims``. Zeros, thunks and anything without a shape pass through.

    >>> import numpy as np
    >>> sum_to_shape(np.ones((4, 2, 3)), (3, 2)).shape
    Traceback (most recent call last):
        ...
    ValueError: sum_to_shape: a cotangent of shape (4, 2, 3) cannot come from broadcasting shape (3, 2)
    >>> sum_to_shape(np.ones((4, 2, 3)), (2, 1))
    array([[12.],
           [12.]])
    >>> sum_to_shape(np.ones((2, 3)), ())
    array(6.)
    """
    dx_shape = getattr(dx, "shape", None)
    if dx_shape == shape or dx_shape is None or isinstance(dx, AbstractTangent):
        return dx
    dx_shape = tuple(dx_shape)  # torch.Size and the like as a tuple, for the cache's key
    shape = tuple(shape)
    key = (shape, dx_shape)
    axes = _AXES.get(key, _UNSEEN)
    if axes is _UNSEEN:
        if len(_AXES) >= 4096:
            _AXES.clear()
        lead = len(dx_shape) - len(shape)
        axes = _AXES[key] = _broadcast_axes(shape, dx_shape, lead) if lead >= 0 else None
    if axes is None:
        if math.prod(dx_shape) == math.prod(shape) and _squeezed(dx_shape) == _squeezed(shape):
            return dx  # only trivial dimensions differ: ProjectTo reshapes
        raise ValueError(f"sum_to_shape: a cotangent of shape {dx_shape} cannot come from broadcasting shape {shape}")
    if is_foreign_array(dx):  # another library's array: its own sum, never numpy's
        xp = namespace_of(dx)
        summed = xp.sum(dx, axis=axes, keepdims=True)
        return xp.reshape(summed, shape) if len(dx_shape) != len(shape) else summed
    # add.reduce is np.sum without its Python wrapper; a subclass keeps its own sum
    summed = (np.add.reduce if type(dx) is np.ndarray else np.sum)(dx, axis=axes, keepdims=True)
    return summed.reshape(shape) if len(dx_shape) != len(shape) else summed


_AXES: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, ...] | None] = {}
"""``sum_to_shape``'s axes per (shape, shape of the cotangent); cleared when it grows past 4096 entries."""
_UNSEEN: Any = object()


def _broadcast_axes(shape: tuple[int, ...], dx_shape: tuple[int, ...], lead: int) -> tuple[int, ...] | None:
    """The axes of ``dx_shape`` that broadcasting ``shape`` (``lead`` axes shorter) added or stretched; ``None`` if
    it cannot come from ``shape``."""
    axes = list(range(lead))
    for i, n in enumerate(shape):
        d = dx_shape[lead + i]
        if n != d:
            if n != 1:
                return None
            axes.append(lead + i)
    return tuple(axes)


def shape_of(x: Any) -> tuple[int, ...]:
    """``np.shape(x)``, without its cost for Python numbers.

    >>> shape_of(1.5), shape_of(np.ones((2, 3))), shape_of([[1.0], [2.0]])
    ((), (2, 3), (2, 1))
    """
    shape = getattr(x, "shape", None)
    if shape is not None:
        return shape  # type: ignore[no-any-return]
    return () if isinstance(x, (int, float, complex)) else np.shape(x)


def unbroadcast(x: Any, dx: Any) -> Any:
    """The cotangent of ``x`` from the cotangent ``dx`` of a result ``x`` was broadcast into.

    ``ProjectTo(x)(sum_to_shape(dx, np.shape(x)))``.

    >>> import numpy as np
    >>> unbroadcast(np.ones((1, 3), dtype=np.float32), np.ones((2, 3)))
    array([[2., 2., 2.]], dtype=float32)
    >>> unbroadcast(2.0, np.ones(3))
    3.0
    """
    if fits(x, dx):
        return dx
    if isinstance(dx, AbstractThunk):
        return ProjectTo(x)._lazy(Thunk(lambda: sum_to_shape(dx.unthunk(), shape_of(x))))
    return ProjectTo(x)(sum_to_shape(dx, shape_of(x)))


# ----- seeds and tangents of the wrong shape -----


def value_shape(x: Any) -> tuple[int, ...] | None:
    """The shape of a number or an array of any library (``()`` for a Python or numpy scalar); ``None`` for what
    has none to check: zeros, thunks, structured tangents, lists.

    >>> value_shape(1.5), value_shape(np.ones((2, 3))), value_shape(ZeroTangent())
    ((), (2, 3), None)
    """
    if isinstance(x, (float, complex, int)):
        return ()
    if isinstance(x, AbstractTangent):
        return None
    shape = getattr(x, "shape", None)
    if not isinstance(shape, tuple) or has_unknown_shape(x):  # dask's nan lengths: nothing to check
        return None
    return tuple(shape)


def checked_seed(f: Any, out_bar: Any, shape: tuple[int, ...] | None) -> Any:
    """``unthunk(out_bar)``, the seed of ``f``'s pullback, once it is known to have the output's ``shape``.

    A seed of another shape (one that only broadcasts to the output's, say)
    raises ``ValueError`` naming ``f`` and both shapes, rather than giving
    numbers for a different question; zeros and structured seeds pass as
    they are, and so does any seed of an output without a shape (``shape``
    ``None``: a list or a tuple, whose entries a rule checks itself). A 0-d
    array, a numpy scalar and a Python number are all seeds of a 0-d output.

    >>> checked_seed(np.sin, np.ones(3), (3,)).shape
    (3,)
    >>> checked_seed(np.sin, np.ones(1), (3,))
    Traceback (most recent call last):
        ...
    ValueError: np.sin: a seed of shape (1,) for an output of shape (3,)
    """
    if type(out_bar) is np.ndarray and out_bar.shape == shape:
        return out_bar
    out_bar = unthunk(out_bar)
    got = value_shape(out_bar)
    if got is not None and shape is not None and got != shape:
        raise ValueError(f"{function_name(f)}: a seed of shape {got} for an output of shape {shape}")
    return out_bar


def checked_tangent(f: Any, x_dot: Any, x: Any, position: int = 1) -> Any:
    """``unthunk(x_dot)``, the tangent of argument ``position`` (``x``) of ``f``, once it is known to have ``x``'s
    shape: ``ValueError`` naming ``f`` and both shapes otherwise; zeros and structured tangents pass.

    >>> checked_tangent(np.sin, np.ones((1, 3)), np.ones(3))
    Traceback (most recent call last):
        ...
    ValueError: np.sin: a tangent of shape (1, 3) for argument 1 of shape (3,)
    """
    if type(x_dot) is np.ndarray and type(x) is np.ndarray and x_dot.shape == x.shape:
        return x_dot
    x_dot = unthunk(x_dot)
    got = value_shape(x_dot)
    if got is not None:
        want = value_shape(x)
        if want is not None and got != want:
            raise ValueError(f"{function_name(f)}: a tangent of shape {got} for argument {position} of shape {want}")
        if isinstance(x, np.ndarray) and isinstance(x_dot, (float, complex, np.generic)):
            return np.asarray(x_dot)  # a number for a 0-d array: what a rule may hand to an ndarray method
    return x_dot
