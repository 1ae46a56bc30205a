"""The boxes themselves: numpy defers to them, and each of their operations is a call of its primal.

``Box`` is the value an engine follows (``_passes`` holds the passes, the engine
and ``call``, which hands every operation to the innermost pass); ``ArrayBox``,
``ScalarBox`` and ``ObjectBox`` add what arrays, numbers and objects with
fields answer without a call. ``lift`` makes a function the engines cannot see
(``math.sin``, a Python function with a rule) go through the registry.
"""

from __future__ import annotations

import builtins
import functools
import math
import operator
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import numpy as np

from chainrules_core import AbstractTangent
from chainrules_core.arrays import device_of, is_foreign_array, namespace_of

from ._namespace import FollowedNamespace
from ._passes import (
    MISS,
    Engine,
    _entries,
    _object_array,
    _to_python,
    call,
    first_box,
    split,
)
from ._structure import Boxed, primal, strip

# ----- the box -----


def _numpy_first(args: tuple[Any, ...]) -> bool:
    """Whether an operator's numpy function comes first: for numpy values and other libraries' arrays, whose rules
    are numpy's functions' (the Python operators' rules are for numbers and numpy arrays)."""
    for a in args:
        v = a.value if isinstance(a, Box) else a
        if isinstance(v, (np.ndarray, np.generic)) or is_foreign_array(v):
            return True
    return False


def _operator(python_ops: tuple[Any, ...], numpy_op: Any, reflected: bool = False) -> Callable[..., Any]:
    """A dunder method calling the operator's primal: the Python operator first, numpy's for numpy values."""
    python_first, numpy_first = (*python_ops, numpy_op), (numpy_op, *python_ops)
    token = object()  # the candidates in the engines' caches; the argument types decide their order

    def general(self: Box, other: tuple[Any, ...]) -> Any:
        if other and isinstance(other[0], AbstractTangent):
            return NotImplemented  # tangent types implement their own arithmetic with any value
        args = (*other, self) if reflected else (self, *other)
        return call(numpy_first if _numpy_first(args) else python_first, args, {}, None, token)

    def unary(self: Box) -> Any:
        trace = self._trace
        if trace is not None:
            y = trace.unary(token, self)
            if y is not MISS:
                return y
        return general(self, ())

    # The cache holds no entry for a tangent type as ``other``: ``general`` refuses those first.
    def binary(self: Box, other: Any, *rest: Any) -> Any:
        trace = self._trace
        if trace is not None and not rest:
            y = trace.binary(token, other, self) if reflected else trace.binary(token, self, other)
            if y is not MISS:
                return y
        return general(self, (other, *rest))

    return binary if python_ops[0] in _BINARY_OPERATORS else unary


_BINARY_OPERATORS = frozenset(
    {
        operator.add,
        operator.sub,
        operator.mul,
        operator.truediv,
        operator.floordiv,
        operator.mod,
        builtins.divmod,
        operator.pow,
        operator.matmul,
        operator.lt,
        operator.le,
        operator.gt,
        operator.ge,
        operator.eq,
        operator.ne,
    }
)


# Functions whose outputs carry no derivative and need no rule: they only look at the primal.
_PRIMAL_QUERIES = frozenset(
    {
        np.shape,
        np.ndim,
        np.size,
        np.iscomplexobj,
        np.isrealobj,
        np.may_share_memory,
        np.shares_memory,
        np.result_type,
        np.min_scalar_type,
        np.can_cast,
    }
)

# ndarray methods that have a numpy function of the same meaning, used when the method has no rule.
_METHOD_FUNCTIONS: dict[str, Callable[..., Any]] = {
    name: getattr(np, name)
    for name in (
        "all any argmax argmin clip conj conjugate cumprod cumsum diagonal dot max mean min nonzero prod "
        "ravel repeat round squeeze std sum swapaxes take trace var"
    ).split()
}


def _python_implementation(func: Any) -> Callable[..., Any] | None:
    """The Python code of a numpy function (``np.atleast_1d``, ``np.vstack``), run on boxes when it has no rule."""
    implementation = getattr(func, "_implementation", None)
    return implementation if isinstance(implementation, types.FunctionType) else None


def _shape_args(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """``a.reshape(2, 3)`` and ``a.transpose(1, 0)`` take their tuple unpacked; the functions take it whole."""
    return (args,) if len(args) > 1 else args


_VARARG_METHODS: dict[str, Callable[..., Any]] = {"reshape": np.reshape, "transpose": np.transpose}

_DTYPE_KINDS_WITHOUT_TANGENTS = "biu"
_ASTYPE = getattr(np, "astype", None)


def _to_object(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether the arguments of ``astype`` after the array ask for the object dtype."""
    dtype = args[0] if args else kwargs.get("dtype")
    return dtype is object or (dtype is not None and np.dtype(dtype).kind == "O")


class Box(Boxed):
    """A value an engine follows. Subclasses add what their engine records; ``trace`` is the pass."""

    __slots__ = ("_trace", "value")

    def __init__(self, value: Any, trace: Any) -> None:
        self.value = value
        self._trace = trace

    @property
    def _engine(self) -> Engine:
        return self._trace.engine if self._trace is not None else type(self)._default_engine

    _default_engine: ClassVar[Engine]

    # ----- numpy defers to boxes -----

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method == "__call__":
            trace = self._trace
            if not kwargs and trace is not None:
                n = len(inputs)
                if n == 1:
                    y = trace.unary(ufunc, inputs[0])
                elif n == 2:
                    y = trace.binary(ufunc, inputs[0], inputs[1])
                else:
                    y = trace.fast(ufunc, inputs)
                if y is not MISS:
                    return y
            return call((ufunc,), inputs, kwargs, None, ufunc)
        return call((getattr(ufunc, method),), inputs, kwargs, None)

    def __array_function__(self, func: Any, types_: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if func in _PRIMAL_QUERIES:
            return func(*strip(args), **kwargs)
        if func is _ASTYPE and args and args[0] is self and _to_object(args[1:], kwargs):
            return self.__array__(object)
        if not kwargs and self._trace is not None:
            y = self._trace.fast(func, args)
            if y is not MISS:
                return y
        return call((func,), args, kwargs, _python_implementation(func), func)

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> Any:
        """``x.astype(dtype)``: a cast the engine follows; to ``object``, an object array of boxes."""
        if _to_object((dtype,), {}):
            return self.__array__(object)
        method = getattr(type(self.value), "astype", None)
        if method is None:
            raise AttributeError(f"{type(self).__name__} of a {type(self.value).__name__} has no attribute 'astype'")
        return call((method, _ASTYPE), (self, dtype, *args), kwargs, None)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        """What numpy makes of a box it converts: an object array of boxes, or a plain array without a tangent.

        ``np.array([x, y])`` and ``np.asarray(x)`` get an object array whose
        entries are boxes of Python numbers; numpy then computes on it entry by
        entry, and the engine turns it back into one boxed array when it meets
        it. A conversion to an integer or bool dtype has no derivative to lose,
        like ``int(x)``; one to a float or complex dtype would drop it and is
        refused.
        """
        if dtype is None or dtype is object or np.dtype(dtype).kind == "O":
            return self._object_array()
        dtype = np.dtype(dtype)
        if dtype.kind in _DTYPE_KINDS_WITHOUT_TANGENTS:
            return np.asarray(primal(self), dtype=dtype)
        raise TypeError(
            f"{self._engine.name}: numpy converts a {type(self).__name__} to a plain {dtype} array (np.{dtype}(x), "
            f"np.asarray(x, dtype=...)), which would drop its derivative; x.astype({dtype}) changes the dtype of "
            "a numpy value and keeps it, chainrules.engines.value(x) gives the primal alone"
        )

    def _object_array(self) -> np.ndarray[Any, Any]:
        raise NotImplementedError

    def __float__(self) -> float:
        raise TypeError(
            f"{self._engine.name}: float() of a {type(self).__name__} would drop its derivative (so would "
            "np.float64(x)); functions of the math module convert their argument this way, so call them through "
            "chainrules.engines.lift (lift(math.sin)(x)) or use the numpy function; chainrules.engines.value(x) "
            "gives the primal alone"
        )

    def __complex__(self) -> complex:
        raise TypeError(
            f"{self._engine.name}: complex() of a {type(self).__name__} would drop its derivative; use "
            "chainrules.engines.lift(f) for functions that convert their argument, or chainrules.engines.value(x) "
            "for the primal"
        )

    def __int__(self) -> int:
        return int(primal(self))  # an int has no tangent: nothing is lost

    def __index__(self) -> int:
        return operator.index(primal(self))

    def __bool__(self) -> bool:
        return bool(primal(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.value!r})"

    def __format__(self, spec: str) -> str:
        return format(primal(self), spec)

    def __chainrules_primal__(self) -> Any:
        return primal(self)

    # ----- other array libraries -----

    def __array_namespace__(self, api_version: str | None = None) -> Any:
        """The Array API namespace of a followed value (``FollowedNamespace``): its functions reach the rules,
        which compute in the library of the value itself."""
        return FollowedNamespace(namespace_of(primal(self)))

    def __dask_tokenize__(self) -> Any:
        """dask names every array it makes from a value (``da.from_array``, ``X.dot(beta)``) by this token; a
        followed value made into a dask array would be held as a constant and its derivative silently lost."""
        raise _absorbed(self, "dask", "turned it into a dask array (dask.array.from_array)")

    def __chainrules_call__(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` as one operation with ``fn``'s rules (a projector, a linear map, a rule's primal).

        A Python function without a rule runs on the boxes, as with ``lift``.
        """
        fn = getattr(fn, "__chainrules_method__", fn)
        return call((fn,), args, kwargs, fn if isinstance(fn, types.FunctionType) else None)

    __hash__ = None  # type: ignore[assignment]  # == is elementwise

    # ----- operators: each one a call of its primal -----

    __add__ = _operator((operator.add,), np.add)
    __radd__ = _operator((operator.add,), np.add, reflected=True)
    __sub__ = _operator((operator.sub,), np.subtract)
    __rsub__ = _operator((operator.sub,), np.subtract, reflected=True)
    __mul__ = _operator((operator.mul,), np.multiply)
    __rmul__ = _operator((operator.mul,), np.multiply, reflected=True)
    __truediv__ = _operator((operator.truediv,), np.true_divide)
    __rtruediv__ = _operator((operator.truediv,), np.true_divide, reflected=True)
    __floordiv__ = _operator((operator.floordiv,), np.floor_divide)
    __rfloordiv__ = _operator((operator.floordiv,), np.floor_divide, reflected=True)
    __mod__ = _operator((operator.mod,), np.remainder)
    __rmod__ = _operator((operator.mod,), np.remainder, reflected=True)
    __divmod__ = _operator((builtins.divmod,), np.divmod)
    __rdivmod__ = _operator((builtins.divmod,), np.divmod, reflected=True)
    __pow__ = _operator((operator.pow,), np.power)
    __rpow__ = _operator((operator.pow,), np.power, reflected=True)
    __matmul__ = _operator((operator.matmul,), np.matmul)
    __rmatmul__ = _operator((operator.matmul,), np.matmul, reflected=True)
    __neg__ = _operator((operator.neg,), np.negative)
    __pos__ = _operator((operator.pos,), np.positive)
    __abs__ = _operator((builtins.abs, operator.abs), np.absolute)
    __lt__ = _operator((operator.lt,), np.less)
    __le__ = _operator((operator.le,), np.less_equal)
    __gt__ = _operator((operator.gt,), np.greater)
    __ge__ = _operator((operator.ge,), np.greater_equal)
    __eq__ = _operator((operator.eq,), np.equal)  # type: ignore[assignment]
    __ne__ = _operator((operator.ne,), np.not_equal)  # type: ignore[assignment]

    def __round__(self, ndigits: int | None = None) -> Any:
        args = (self,) if ndigits is None else (self, ndigits)
        return call((builtins.round, np.round), args, {}, None)

    # ----- methods of the primal: np.ndarray.sum and the like -----

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "value":
            raise AttributeError(name)
        value = primal(self)  # in a nested pass, the plain value under every engine's box
        method = getattr(type(value), name, None)
        if method is None and isinstance(value, (float, complex)):  # a Python number answers as np.float64
            method = getattr(np.result_type(value).type, name, None)
        if method is not None and callable(method):
            return functools.partial(_call_method, self, name, method)
        ufunc = getattr(np, name, None)
        if isinstance(ufunc, np.ufunc):  # numpy's loops over object arrays call x.sin(), x.exp(), ...
            return functools.partial(ufunc, self)
        what = f"{type(self).__name__} of a {type(primal(self)).__name__}"
        if name == "dtype":
            raise AttributeError(
                f"a {what} has no dtype, as a {type(primal(self)).__name__} has none; np.result_type(x) gives it"
            )
        raise AttributeError(f"{what} has no attribute {name!r}")


def _call_method(box: Box, name: str, method: Any, *args: Any, **kwargs: Any) -> Any:
    """``box.name(*args)``: the rule of ``type(value).name`` or, without one, of the numpy function."""
    vararg = name in _VARARG_METHODS
    np_function = _VARARG_METHODS.get(name) or _METHOD_FUNCTIONS.get(name)

    def through(_: Any, *rest: Any, **kw: Any) -> Any:  # the call as the engine hands it on (keywords moved)
        if np_function is None:
            raise box._engine.no_rule(method, split(None, (box, *rest))[1])
        return np_function(box, *(_shape_args(rest) if vararg else rest), **kw)

    return call((method,), (box, *args), kwargs, through, method)


_GETITEM = (np.ndarray.__getitem__, operator.getitem)


class ArrayBox(Box):
    """What every array box has: numpy's attributes (the Array API's too: ``device``, ``mT``), indexing,
    iteration."""

    __slots__ = ()

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(getattr(primal(self), "shape", None) or np.shape(primal(self)))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def device(self) -> Any:
        value = primal(self)
        return "cpu" if isinstance(value, np.ndarray) else device_of(value)

    @property
    def mT(self) -> Any:  # noqa: N802 - the standard's name
        return call((np.matrix_transpose,), (self,), {}, None, np.matrix_transpose)

    @property
    def dtype(self) -> np.dtype[Any]:
        return primal(self).dtype  # type: ignore[no-any-return]

    @property
    def T(self) -> Any:  # noqa: N802 - numpy's name
        return call((np.transpose,), (self,), {}, None, np.transpose)

    @property
    def real(self) -> Any:
        return call((np.real,), (self,), {}, None, np.real)

    @property
    def imag(self) -> Any:
        return call((np.imag,), (self,), {}, None, np.imag)

    def __len__(self) -> int:
        return len(primal(self))

    def __iter__(self) -> Iterator[Any]:
        for i in range(len(self)):
            yield self[i]

    def __getitem__(self, index: Any) -> Any:
        return call(_GETITEM, (self, index), {}, None, _GETITEM)

    def __setitem__(self, index: Any, value: Any) -> None:
        raise TypeError(
            f"{self._engine.name}: a {type(self).__name__} cannot be assigned to in place; build a new array "
            "(x = chainrules.functional.setitem(x, index, v), np.where, np.concatenate)"
        )

    def _object_array(self) -> np.ndarray[Any, Any]:
        return _object_array(call((_entries,), (self,), {}, None), self.shape)


class ScalarBox(Box):
    """A followed Python number or numpy scalar.

    ``shape``, ``ndim`` and ``size`` are those of a 0-d array. ``dtype`` is
    that of a numpy scalar; a tracked Python float has none, as a float has
    none (``np.result_type(x)`` answers for both). numpy's own code sees none
    on either: it asks a scalar that an object array's reduction gave
    (``np.var([x, y])``) only to cast it back, ``ret.dtype.type(ret / n)``, a
    conversion to a plain number that would drop the derivative; without a
    dtype it computes ``ret / n``, the same number, on the followed value.
    """

    __slots__ = ()

    shape = ()
    ndim = 0
    size = 1

    @property
    def dtype(self) -> np.dtype[Any]:
        value = primal(self)
        if isinstance(value, np.generic) and not str(sys._getframe(1).f_globals.get("__name__")).startswith("numpy."):
            return value.dtype
        raise AttributeError(
            f"a {type(self).__name__} of a {type(value).__name__} has no dtype, as a {type(value).__name__} has "
            "none; np.result_type(x) gives it for any value"
        )

    @property
    def real(self) -> Any:
        return call((np.real,), (self,), {}, None, np.real)

    @property
    def imag(self) -> Any:
        return call((np.imag,), (self,), {}, None, np.imag)

    def __getitem__(self, index: Any) -> Any:
        if not isinstance(primal(self), np.generic):
            raise TypeError(f"'{type(self).__name__}' of a {type(primal(self)).__name__} is not subscriptable")
        return np.reshape(self, (1,))[0, ...][index]  # a numpy scalar indexes as a 0-d array: x[..., None]

    def _object_array(self) -> np.ndarray[Any, Any]:
        number = self if isinstance(primal(self), (float, complex)) else call((_to_python,), (self,), {}, None)
        return _object_array([number], ())


class ObjectBox(Box):
    """A followed object with fields: its calls and methods use their rules, or run on its opened copy.

    The opened copy is the object with each differentiable field replaced by a
    box, so a call without a rule runs the object's own code on boxes.
    Subclasses implement ``_open``.
    """

    __slots__ = ()

    def _open(self) -> Any:
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        def through(*boxed: Any, **kw: Any) -> Any:
            return self._open()(*boxed, **kw)

        return call((self,), args, kwargs, through)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "value":
            raise AttributeError(name)
        attr = getattr(self.value, name)
        if isinstance(attr, types.MethodType) and attr.__self__ is self.value:
            return functools.partial(_call_object_method, self, attr.__func__)
        return getattr(self._open(), name)


def _call_object_method(box: ObjectBox, func: Any, *args: Any, **kwargs: Any) -> Any:
    def through(_self: Any, *boxed: Any, **kw: Any) -> Any:
        return func(box._open(), *boxed, **kw)

    return call((func,), (box, *args), kwargs, through)


def value(x: Any) -> Any:
    """The plain value of ``x``: a followed value's primal, in every pass; lists, tuples and dicts are opened.

    Use it for what needs the primal alone, such as ``isinstance``: a tracked
    float is not a ``float``, but its value is.

    >>> import chainrules.engines as ad
    >>> seen = []
    >>> def f(x):
    ...     seen.append((isinstance(x, float), isinstance(ad.value(x), float), ad.is_tracked(x)))
    ...     return x * x
    >>> ad.gradient(f, 3.0), seen
    ((6.0,), [(False, True, True)])
    """
    return strip(x)


def is_tracked(x: Any) -> bool:
    """Whether ``x`` is a value some pass follows (a tracked value or a dual number)."""
    return isinstance(x, Box)


def _absorbed(box: Box, library: str, what: str) -> TypeError:
    """The error for a library that takes a followed value in as its own array: it names the library's call and
    where the program made it."""
    call_name, where = _library_call(library)
    return TypeError(
        f"{box._engine.name}: {call_name}{where} was given a followed value and {what}, which would hold it as a "
        "constant and lose its derivative; compute with numpy's functions or operators on the arrays instead "
        "(np.dot(X, beta), X @ beta, np.sum(x)), which the engine follows into their rules"
    )


def _library_call(library: str) -> tuple[str, str]:
    """The outermost call into ``library`` on the stack (``dask.array.core.Array.dot``) and `` (called at
    file:line)`` for the frame that made it."""
    frame = sys._getframe(2)
    outermost = None
    while frame is not None:
        module = str(frame.f_globals.get("__name__", ""))
        if module.split(".")[0] == library:
            outermost = frame
        elif outermost is not None:
            code = outermost.f_code
            name = f"{outermost.f_globals.get('__name__')}.{getattr(code, 'co_qualname', code.co_name)}"
            return name, f" (called at {frame.f_code.co_filename}:{frame.f_lineno})"
        frame = frame.f_back
    return f"a function of {library}", ""


# ----- calling any function on boxes -----

_BUILTIN_CALLABLES = (
    types.BuiltinFunctionType,
    types.BuiltinMethodType,
    types.MethodDescriptorType,
    types.WrapperDescriptorType,
    types.MethodWrapperType,
    np.ufunc,
)


def lift(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` made visible to the engines: a call with followed arguments uses ``f``'s rule.

    Numpy functions, operators and methods of followed values reach the
    registry by themselves; a function of the ``math`` module, or a Python
    function with a rule of its own, does not (Python runs it directly). The
    lifted function asks the registry on every call, so a rule registered
    later is used at once; a Python function without a rule runs on the
    followed values, its operations recorded one by one; a builtin without a
    rule raises ``NoRuleError``. Without followed arguments it simply runs.

    >>> import math
    >>> lift(math.sin)(0.0)
    0.0
    """
    if getattr(f, "__chainrules_lifted__", None) is not None:
        return f

    through = None if isinstance(f, _BUILTIN_CALLABLES) else f
    primals = (f,)
    try:
        token = primals if hash(f) is not None else None
    except TypeError:  # an unhashable callable object: always the general path
        token = None

    @functools.wraps(f)
    def lifted(*args: Any, **kwargs: Any) -> Any:
        for a in args:
            if isinstance(a, Box):
                trace = a._trace
                if token is not None and trace is not None and not kwargs:
                    y = trace.unary(token, a) if len(args) == 1 else trace.fast(token, args)
                    if y is not MISS:
                        return y
                return call(primals, args, kwargs, through, token)
        if first_box(args, kwargs) is None:
            return f(*args, **kwargs)
        return call(primals, args, kwargs, through, token)

    lifted.__chainrules_lifted__ = f  # type: ignore[attr-defined]
    return lifted


class lifted:  # noqa: N801 - a namespace, used like a module
    """The functions of a module, each wrapped with ``lift``: ``m = lifted(math); m.sin(x)``.

    >>> import math
    >>> m = lifted(math)
    >>> m.hypot(3.0, 4.0), m.pi
    (5.0, 3.141592653589793)
    """

    def __init__(self, module: Any) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._module, name)
        return lift(attr) if callable(attr) and not isinstance(attr, type) else attr

    def __repr__(self) -> str:
        return f"lifted({getattr(self._module, '__name__', self._module)!r})"
