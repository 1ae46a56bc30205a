"""Boxes: the values an engine follows through a program, and how their operations reach the registry.

A box wraps a primal value (``.value``). Every operation on a box is a call
of some primal function: ``a + b`` is ``operator.add`` (or ``np.add`` when a
numpy value is involved), ``np.sin(t)`` arrives through ``__array_ufunc__``,
``np.sum(t)`` through ``__array_function__``, ``t.sum()`` is
``np.ndarray.sum``. The box hands each such call to its engine, which asks the
registry for a rule. Both engines, reverse (``tracker.Tracked``) and forward
(``dual.Dual``), share this module; each supplies the hooks of ``Engine.call``
(``prepare``, ``ask``, ``record``).
"""

from __future__ import annotations

import builtins
import functools
import operator
import types
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import numpy as np

from chainrules_core.naming import function_name

from ._structure import CONTAINERS, Path, rebuild, type_name

Leaf = tuple[int, Path, "Box"]  # (position in (f, *args), path inside a container argument, box)


class NoRuleError(TypeError):
    """An operation on followed values has no rule, so the engine cannot differentiate it."""


class Engine:
    """What a box asks of its engine: run one call, recording or pushing forward its derivative."""

    name: ClassVar[str] = "engine"
    rule_name: ClassVar[str] = "rule"

    def call(
        self,
        primals: tuple[Any, ...],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        through: Callable[..., Any] | None,
    ) -> Any:
        """``primals[k](*args, **kwargs)`` for the first candidate ``k`` with a rule.

        With no rule, ``through(*args, **kwargs)`` runs the call on the boxes
        themselves (differentiating through a Python function); without
        ``through``, ``NoRuleError`` names the function and the argument types.
        """
        f, values, leaves = split(primals[0], args)
        if kwargs:
            refuse_boxed_kwargs(f, kwargs, self)
        context = self.prepare(leaves, args)
        if context is None:  # nothing to follow after all: plain values
            return f(*values, **kwargs)
        result = self.ask(context, f, values, kwargs)
        if result is not None:
            return self.record(context, f, values, result)
        for candidate in primals[1:]:
            result = self.ask(context, candidate, values, kwargs)
            if result is not None:
                return self.record(context, candidate, values, result)
        if through is None:
            through = opted_out_implementation(self.registry(), f, values)
        if through is not None:
            return through(*args, **kwargs)
        raise self.no_rule(f, values)

    def registry(self) -> Any:
        """``rrule`` or ``frule``."""
        raise NotImplementedError

    def prepare(self, leaves: list[Leaf], args: tuple[Any, ...]) -> Any:
        """What ``ask`` and ``record`` need about this call's boxes; ``None`` to run on plain values."""
        raise NotImplementedError

    def ask(self, context: Any, f: Any, values: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The registry's answer for ``f(*values, **kwargs)``: a rule's result, or ``None``."""
        raise NotImplementedError

    def record(self, context: Any, f: Any, values: tuple[Any, ...], result: Any) -> Any:
        """The boxed output of a call whose rule gave ``result``."""
        raise NotImplementedError

    def no_rule(self, f: Any, values: tuple[Any, ...]) -> NoRuleError:
        types_ = ", ".join(type_name(v) for v in values)
        return NoRuleError(
            f"{self.name}: no {self.rule_name} for {function_name(f)}({types_}); register one with "
            f"@{self.rule_name}.register({function_name(f)}), or compute this step outside the "
            "differentiated program"
        )


def opted_out_implementation(registry: Any, f: Any, values: tuple[Any, ...]) -> Callable[..., Any] | None:
    """The Python implementation of ``f`` to run on boxes when ``f`` opts out of its rule for ``values``.

    ``rrule.opt_out(f, *types)`` says that a broader rule does not apply to
    these argument types and that the engine should differentiate through
    ``f``. That is possible for a Python function, or a numpy function with a
    Python implementation; a builtin or a ufunc has none.
    """
    for record in registry.records():
        if (
            record.opt_out
            and record.primal is f
            and record.arg_types is not None
            and len(record.arg_types) == len(values)
            and all(isinstance(v, t) for v, t in zip(values, record.arg_types))
        ):
            implementation = getattr(f, "_implementation", None)
            if implementation is None and isinstance(f, types.FunctionType):
                implementation = f
            return implementation  # type: ignore[no-any-return]
    return None


# ----- arguments: boxes inside (f, *args) and their containers -----


def split(f: Any, args: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...], list[Leaf]]:
    """``f`` and ``args`` with every box replaced by its value, and where the boxes were.

    A leaf's position is 0 for ``f`` itself and ``i + 1`` for ``args[i]``;
    boxes inside lists, tuples and dicts carry the path to them.
    """
    leaves: list[Leaf] = []
    if isinstance(f, Box):
        leaves.append((0, (), f))
        f = f.value
    values = list(args)
    for i, a in enumerate(args):
        if isinstance(a, Box):
            values[i] = a.value
            leaves.append((i + 1, (), a))
        elif isinstance(a, CONTAINERS) and a:
            values[i] = _split_nested(a, i + 1, (), leaves)
    return f, tuple(values), leaves


def _split_nested(x: Any, position: int, path: Path, leaves: list[Leaf]) -> Any:
    if isinstance(x, Box):
        leaves.append((position, path, x))
        return x.value
    if isinstance(x, dict):
        found = len(leaves)
        items = {k: _split_nested(v, position, (*path, k), leaves) for k, v in x.items()}
        return items if len(leaves) > found else x
    if isinstance(x, (list, tuple)):
        found = len(leaves)
        elems = [_split_nested(v, position, (*path, i), leaves) for i, v in enumerate(x)]
        if len(leaves) == found:
            return x
        return rebuild(x, elems)
    return x


def has_box(x: Any) -> bool:
    """Whether ``x`` is a box or a list, tuple or dict holding one."""
    if isinstance(x, Box):
        return True
    if isinstance(x, dict):
        return any(has_box(v) for v in x.values())
    if isinstance(x, (list, tuple)):
        return any(has_box(v) for v in x)
    return False


def first_box(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Box | None:
    for a in (*args, *kwargs.values()):
        if isinstance(a, Box):
            return a
        if isinstance(a, CONTAINERS) and a:
            found = first_box(tuple(a.values()) if isinstance(a, dict) else tuple(a), {})
            if found is not None:
                return found
    return None


def refuse_boxed_kwargs(f: Any, kwargs: dict[str, Any], engine: Engine) -> None:
    for key, v in kwargs.items():
        if has_box(v):
            raise TypeError(
                f"{engine.name}: the keyword argument {key}= of {function_name(f)} holds a followed value; keyword "
                "arguments get no tangents, so pass it positionally"
            )


# ----- the box -----


def _numpy_first(args: tuple[Any, ...]) -> bool:
    for a in args:
        v = a.value if isinstance(a, Box) else a
        if isinstance(v, (np.ndarray, np.generic)):
            return True
    return False


def _operator(python_ops: tuple[Any, ...], numpy_op: Any, reflected: bool = False) -> Callable[..., Any]:
    """A dunder method calling the operator's primal: the Python operator first, numpy's for numpy values."""

    def method(self: Box, *other: Any) -> Any:
        args = (*other, self) if reflected else (self, *other)
        primals = (numpy_op, *python_ops) if _numpy_first(args) else (*python_ops, numpy_op)
        return self._engine.call(primals, args, {}, None)

    return method


# Functions whose outputs carry no derivative and need no rule: they only look at the primal.
_PRIMAL_QUERIES = frozenset(
    {np.shape, np.ndim, np.size, np.iscomplexobj, np.isrealobj, np.may_share_memory, np.shares_memory}
)

# ndarray methods that have a numpy function of the same meaning, used when the method has no rule.
_METHOD_FUNCTIONS: dict[str, Callable[..., Any]] = {
    name: getattr(np, name)
    for name in (
        "all any argmax argmin clip conj conjugate cumprod cumsum diagonal dot max mean min nonzero prod "
        "ravel repeat round squeeze std sum swapaxes take trace var"
    ).split()
}


def _shape_args(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """``a.reshape(2, 3)`` and ``a.transpose(1, 0)`` take their tuple unpacked; the functions take it whole."""
    return (args,) if len(args) > 1 else args


_VARARG_METHODS: dict[str, Callable[..., Any]] = {"reshape": np.reshape, "transpose": np.transpose}


class Box:
    """A value an engine follows. Subclasses set ``_engine`` and add what their engine records."""

    __slots__ = ("value",)
    _engine: ClassVar[Engine]

    def __init__(self, value: Any) -> None:
        self.value = value

    # ----- numpy defers to boxes -----

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        f = ufunc if method == "__call__" else getattr(ufunc, method)
        return self._engine.call((f,), inputs, kwargs, None)

    def __array_function__(self, func: Any, types_: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if func in _PRIMAL_QUERIES:
            _, values, _ = split(None, args)
            return func(*values, **kwargs)
        return self._engine.call((func,), args, kwargs, None)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        raise TypeError(
            f"{self._engine.name}: numpy tried to convert a {type(self).__name__} to a plain array, which would "
            "drop its derivative; use numpy functions on it (np.stack rather than np.array of a list), or .value "
            "for the primal alone"
        )

    def __float__(self) -> float:
        raise TypeError(
            f"{self._engine.name}: float() of a {type(self).__name__} would drop its derivative; functions of "
            "the math module convert their argument this way, so call them through chainrules.engines.lift "
            "(lift(math.sin)(x)) or use the numpy function; .value gives the primal alone"
        )

    def __complex__(self) -> complex:
        raise TypeError(
            f"{self._engine.name}: complex() of a {type(self).__name__} would drop its derivative; use "
            "chainrules.engines.lift(f) for functions that convert their argument, or .value for the primal"
        )

    def __int__(self) -> int:
        return int(self.value)  # an int has no tangent: nothing is lost

    def __index__(self) -> int:
        return operator.index(self.value)

    def __bool__(self) -> bool:
        return bool(self.value)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.value!r})"

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

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
        return self._engine.call((builtins.round, np.round), args, {}, None)

    # ----- methods of the primal: np.ndarray.sum and the like -----

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "value":
            raise AttributeError(name)
        method = getattr(type(self.value), name, None)
        if method is None or not callable(method):
            raise AttributeError(f"{type(self).__name__} of a {type(self.value).__name__} has no attribute {name!r}")
        return functools.partial(_call_method, self, name, method)


def _call_method(box: Box, name: str, method: Any, *args: Any, **kwargs: Any) -> Any:
    """``box.name(*args)``: the rule of ``type(value).name`` or, without one, of the numpy function."""
    function = _VARARG_METHODS.get(name)
    if function is not None:
        np_function: Callable[..., Any] | None = function
        args_for_function = _shape_args(args)
    else:
        np_function, args_for_function = _METHOD_FUNCTIONS.get(name), args

    def through(*boxed: Any, **kw: Any) -> Any:
        if np_function is None:
            raise box._engine.no_rule(method, split(None, boxed)[1])
        return np_function(box, *args_for_function, **kw)

    return box._engine.call((method,), (box, *args), kwargs, through)


class ArrayBox(Box):
    """What every array box has: numpy's attributes, indexing, iteration."""

    __slots__ = ()

    @property
    def shape(self) -> tuple[int, ...]:
        return self.value.shape  # type: ignore[no-any-return]

    @property
    def ndim(self) -> int:
        return self.value.ndim  # type: ignore[no-any-return]

    @property
    def size(self) -> int:
        return self.value.size  # type: ignore[no-any-return]

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.value.dtype  # type: ignore[no-any-return]

    @property
    def T(self) -> Any:  # noqa: N802 - numpy's name
        return self._engine.call((np.transpose,), (self,), {}, None)

    @property
    def real(self) -> Any:
        return self._engine.call((np.real,), (self,), {}, None)

    @property
    def imag(self) -> Any:
        return self._engine.call((np.imag,), (self,), {}, None)

    def __len__(self) -> int:
        return len(self.value)

    def __iter__(self) -> Iterator[Any]:
        for i in range(len(self.value)):
            yield self[i]

    def __getitem__(self, index: Any) -> Any:
        return self._engine.call((np.ndarray.__getitem__, operator.getitem), (self, index), {}, None)

    def __setitem__(self, index: Any, value: Any) -> None:
        raise TypeError(
            f"{self._engine.name}: a {type(self).__name__} cannot be assigned to in place; build a new array "
            "(np.where, np.concatenate, np.stack)"
        )


class ScalarBox(Box):
    """A followed Python number or numpy scalar."""

    __slots__ = ()

    @property
    def real(self) -> Any:
        return self._engine.call((np.real,), (self,), {}, None)

    @property
    def imag(self) -> Any:
        return self._engine.call((np.imag,), (self,), {}, None)


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

        return self._engine.call((self,), args, kwargs, through)

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

    return box._engine.call((func,), (box, *args), kwargs, through)


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

    @functools.wraps(f)
    def lifted(*args: Any, **kwargs: Any) -> Any:
        for a in args:
            if isinstance(a, Box):
                return a._engine.call(primals, args, kwargs, through)
        box = first_box(args, kwargs)
        if box is None:
            return f(*args, **kwargs)
        return box._engine.call(primals, args, kwargs, through)

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
