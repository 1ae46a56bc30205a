"""Boxes: the values an engine follows through a program, and how their operations reach the registry.

A box wraps a primal value (``.value``) and belongs to one pass of an engine,
its ``trace``. Every operation on a box is a call of some primal function:
``a + b`` is ``operator.add`` (or ``np.add`` when a numpy value is involved),
``np.sin(t)`` arrives through ``__array_ufunc__``, ``np.sum(t)`` through
``__array_function__``, ``t.sum()`` is ``np.ndarray.sum``. ``call`` hands
each such call to the engine of the innermost pass among its arguments,
which asks the registry for a rule. Both engines, reverse
(``tracker.Tracked``) and forward (``dual.Dual``), share this module; each
supplies the hooks of ``Engine`` (``prepare``, ``ask``, ``record``).

Passes nest: a pass started while another runs has a higher level, and its
boxes may wrap the boxes of the outer pass. A call sees the boxes of the
innermost pass only; boxes of outer passes stay in the values handed to the
rule, so the rule's own arithmetic (its pullback included) is followed by the
outer pass. That is how derivatives of derivatives work, and the levels keep
the perturbations of two passes apart.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import gc
import itertools
import operator
import types
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import numpy as np

from chainrules_core import AbstractTangent
from chainrules_core.naming import function_name

from ._structure import CONTAINERS, Boxed, Path, primal, strip, type_name

Leaf = tuple[int, Path, "Box"]  # (position in (f, *args), path inside a container argument, box)


class NoRuleError(TypeError):
    """An operation on followed values has no rule, so the engine cannot differentiate it."""


# ----- passes -----

_LEVELS = itertools.count()
_RUNNING: list[Trace] = []  # the passes whose function is running, outermost first
_PAUSED: list[Trace] = []  # the pass that paused the garbage collector, while it runs


class Trace:
    """One pass of an engine: its level, whether its function still runs, the config its rules receive."""

    __slots__ = ("active", "config", "level", "nested")
    engine: ClassVar[Engine]

    def __init__(self, config: Any) -> None:
        self.config = config
        self.level = next(_LEVELS)
        self.active = False
        self.nested = False

    def start(self) -> None:
        """The pass's function starts running: operations on its boxes are followed.

        While the outermost pass runs, Python's cyclic garbage collector is
        paused (if it was on): every operation leaves a record (its pullback,
        its node) that lives until the backward pass, and the collector would
        examine each of them, over and over, for nothing (a quarter of the time
        of a program on Python floats). Reference counting frees everything
        else as usual; cycles the function leaves behind are collected once
        it returns.
        """
        self.nested = bool(_RUNNING)
        if not _RUNNING and gc.isenabled():
            gc.disable()
            _PAUSED.append(self)
        self.active = True
        _RUNNING.append(self)

    def finish(self) -> None:
        """The function returned: the pass's boxes are no longer followed."""
        self.active = False
        _RUNNING.remove(self)
        if _PAUSED and _PAUSED[0] is self:
            _PAUSED.clear()
            gc.enable()

    def fast(self, token: Any, args: tuple[Any, ...]) -> Any:
        """``call`` on a cache hit: the result, or ``MISS`` for the general path (see ``Engine.rules``)."""
        return MISS

    def unary(self, token: Any, a: Any) -> Any:
        """``fast`` for one argument."""
        return self.fast(token, (a,))

    def binary(self, token: Any, a: Any, b: Any) -> Any:
        """``fast`` for two arguments, the operators' case."""
        return self.fast(token, (a, b))


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused (if it was on) inside the block; see ``Trace.start``."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def nested_passes_running() -> bool:
    """Whether any pass is running: a pullback may then meet the boxes of one."""
    return bool(_RUNNING)


def param_trace() -> Trace | None:
    """The pass a parameter joins: the innermost running reverse pass (set by the tracker)."""
    return None


def set_param_trace(find: Callable[[], Trace | None]) -> None:
    global param_trace
    param_trace = find  # type: ignore[assignment]


# ----- the engine -----


class Engine:
    """What a box asks of its engine: run one call, recording or pushing forward its derivative.

    ``rules`` holds the rule of each common call, so that the next one skips
    the general path: the key is the call's candidates (``token``) and the
    types of its positional values, the entry ``(f, rule)``, the candidate
    and the rule that the registry resolves for those types (``rrule.resolve``),
    or ``(None, None)`` where the general path must answer. An entry is made
    for a call without keywords whose followed values are arguments
    themselves, all of the innermost pass, with no containers and no boxes of
    other passes among the values, answered by its first candidate; the
    registry clears the table whenever its rules change.
    """

    name: ClassVar[str] = "engine"
    rule_name: ClassVar[str] = "rule"

    def __init__(self) -> None:
        self.rules: dict[tuple[Any, ...], tuple[Any, Any]] = {}
        self.registry().on_change(self.rules.clear)

    def remember(self, token: Any, f: Any, values: tuple[Any, ...], leaves: list[Leaf], trace: Trace) -> None:
        """Make the entry of ``rules`` for a call that ``f``, its first candidate, answered."""
        for position, path, box in leaves:
            if path or not position or box._trace is not trace:
                return
        for v in values:
            if isinstance(v, (Box, *CONTAINERS)) or (type(v) is np.ndarray and v.dtype.hasobject):
                return
        key = (token, *map(type, values))
        try:
            if key not in self.rules:
                rule = self.registry().resolve(f, key[1:])
                self.rules[key] = GENERAL if rule is None else (f, rule)
        except TypeError:  # an unhashable candidate: no entry
            pass

    def registry(self) -> Any:
        """``rrule`` or ``frule``."""
        raise NotImplementedError

    def prepare(self, trace: Any, leaves: list[Leaf], args: tuple[Any, ...]) -> Any:
        """What ``ask`` and ``record`` need about this call's boxes of ``trace``."""
        raise NotImplementedError

    def ask(self, context: Any, f: Any, values: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The registry's answer for ``f(*values, **kwargs)``: a rule's result, or ``None``."""
        raise NotImplementedError

    def apply(self, context: Any, rule: Any, f: Any, values: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The result of the rule function ``rule`` itself for ``f(*values, **kwargs)``."""
        raise NotImplementedError

    def record(self, context: Any, f: Any, values: tuple[Any, ...], result: Any) -> Any:
        """The boxed output of a call whose rule gave ``result``."""
        raise NotImplementedError

    def ask_nested(self, context: Any, f: Any, values: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``ask`` for values that hold boxes of outer passes: the rule is chosen by their primals' types.

        Rules registered for argument types (``operator.add`` on numbers and
        arrays) do not match a box; the rule the plain values would get is
        called on the boxes instead.
        """
        if isinstance(f, _DESCRIPTORS) and values and isinstance(values[0], Box):
            rule = self.registry().find(f, *strip(values))
            return None if rule is None else self.apply(context, rule, method_caller(f), values, kwargs)
        result = self.ask(context, f, values, kwargs)
        if result is None and not isinstance(f, (types.MethodType, functools.partial)):
            rule = self.registry().find(f, *strip(values))
            if rule is not None:
                result = self.apply(context, rule, f, values, kwargs)
        return result

    def no_rule(self, f: Any, values: tuple[Any, ...]) -> NoRuleError:
        types_ = ", ".join(type_name(v) for v in values)
        return NoRuleError(
            f"{self.name}: no {self.rule_name} for {function_name(f)}({types_}); register one with "
            f"@{self.rule_name}.register({function_name(f)}), or compute this step outside the "
            "differentiated program"
        )

    def finished(self, f: Any, values: tuple[Any, ...]) -> ValueError:
        types_ = ", ".join(type_name(v) for v in values)
        return ValueError(
            f"{self.name}: {function_name(f)}({types_}) got a followed value of a pass that has returned (a value "
            "kept from an earlier pass, or a closure over a value of a pass that has finished); pass it as an "
            "argument instead"
        )


_DESCRIPTORS = (types.MethodDescriptorType, types.WrapperDescriptorType)
MISS: Any = object()  # what a fast path answers when the general path must
GENERAL = (None, None)  # an entry of Engine.rules for a call the general path answers


@functools.cache
def method_caller(descriptor: Any) -> Callable[..., Any]:
    """``descriptor`` (``np.ndarray.sum``) as a function that calls the method of its first argument.

    A rule for a method computes ``f(x, *args)``; on a box of an outer pass
    the descriptor itself refuses the box, while the box's method follows it.
    """
    name = descriptor.__name__

    def method(x: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(x, name)(*args, **kwargs)

    functools.update_wrapper(method, descriptor)
    method.__chainrules_method__ = descriptor  # type: ignore[attr-defined]
    return method


def call(
    primals: tuple[Any, ...], args: tuple[Any, ...], kwargs: dict[str, Any], through: Any, token: Any = None
) -> Any:
    """``primals[k](*args, **kwargs)`` for the first candidate ``k`` with a rule, by the innermost pass.

    With no rule, ``through(*args, **kwargs)`` runs the call on the boxes
    themselves (differentiating through a Python function); without
    ``through``, ``NoRuleError`` names the function and the argument types.
    ``token`` names the candidates in the engine's cache of rules (``Engine.rules``);
    without it the call takes the general path.
    """
    if token is not None and not kwargs:
        for a in args:
            if isinstance(a, Box):
                trace = a._trace
                if trace is not None:
                    y = trace.unary(token, a) if len(args) == 1 else trace.fast(token, args)
                    if y is not MISS:
                        return y
                break
    f, values, leaves, trace = split(primals[0], args)
    if trace is _OBJECT_ARRAYS:  # numpy's np.array([x, y]) among the arguments: one boxed array each
        args = tuple(_packed(a) for a in args)
        f, values, leaves, trace = split(primals[0], args)
    if trace is None:  # nothing followed after all: parameters outside any pass
        return f(*values, **kwargs)
    engine = trace.engine
    if not trace.active:
        raise engine.finished(f, values)
    if kwargs:
        refuse_boxed_kwargs(f, kwargs, engine)
    context = engine.prepare(trace, leaves, args)
    ask = engine.ask_nested if trace.nested else engine.ask
    result = ask(context, f, values, kwargs)
    if result is not None:
        if token is not None and not kwargs:
            engine.remember(token, f, values, leaves, trace)
        return engine.record(context, f, values, result)
    for candidate in primals[1:]:
        result = ask(context, candidate, values, kwargs)
        if result is not None:
            return engine.record(context, candidate, values, result)
    if through is None:
        through = opted_out_implementation(engine.registry(), f, values)
    if through is not None:
        return through(*args, **kwargs)
    raise engine.no_rule(f, values)


def opted_out_implementation(registry: Any, f: Any, values: tuple[Any, ...]) -> Callable[..., Any] | None:
    """The Python implementation of ``f`` to run on boxes when ``f`` opts out of its rule for ``values``.

    ``rrule.opt_out(f, *types)`` says that a broader rule does not apply to
    these argument types and that the engine should differentiate through
    ``f``. That is possible for a Python function, or a numpy function with a
    Python implementation; a builtin or a ufunc has none.
    """
    values = strip(values)
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


def split(f: Any, args: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...], list[Leaf], Trace | None]:
    """``f`` and ``args`` with the boxes of the innermost pass replaced by their values, where they were, the pass.

    A leaf's position is 0 for ``f`` itself and ``i + 1`` for ``args[i]``;
    boxes inside lists, tuples and dicts carry the path to them. Boxes of
    outer passes stay in the values.
    """
    leaves: list[Leaf] = []
    trace: Any = _NO_TRACE
    mixed = nested = False
    if isinstance(f, Box):
        leaves.append((0, (), f))
        trace = f._trace
    values = list(args)
    for i, a in enumerate(args):
        if isinstance(a, Box):
            leaves.append((i + 1, (), a))
            values[i] = a.value
            t = a._trace
            if t is not trace:
                mixed = trace is not _NO_TRACE
                trace = t
        elif type(a) is np.ndarray:
            if a.dtype.hasobject and holds_boxes(a):
                return f, args, leaves, _OBJECT_ARRAYS
        elif isinstance(a, CONTAINERS) and a:
            if type(a) is not dict and has_object_array(a):
                return f, args, leaves, _OBJECT_ARRAYS
            nested |= _find_boxes(a, i + 1, (), leaves)
    if not leaves:
        return f, args, leaves, None
    if nested:
        trace = leaves[0][2]._trace
        mixed = any(leaf[2]._trace is not trace for leaf in leaves)
    if mixed or trace is None:
        return _split_levels(f, args, leaves)
    if nested:
        return (f.value if isinstance(f, Box) else f), tuple(strip(a, trace) for a in args), leaves, trace
    return (f.value if isinstance(f, Box) else f), tuple(values), leaves, trace


_NO_TRACE = object()
_OBJECT_ARRAYS: Any = object()  # what split answers when an argument is numpy's array of boxes


def _split_levels(
    f: Any, args: tuple[Any, ...], found: list[Leaf]
) -> tuple[Any, tuple[Any, ...], list[Leaf], Trace | None]:
    """``split`` when boxes of several passes, or parameters, meet: the innermost pass's boxes are unwrapped."""
    top: Trace | None = None
    for _, _, box in found:
        t = box._trace if box._trace is not None else param_trace()
        if t is not None and (top is None or t.level > top.level):
            top = t

    def ours(box: Box) -> bool:
        t = box._trace if box._trace is not None else param_trace()
        return t is top or t is None  # a parameter outside any pass computes with its value

    leaves = [leaf for leaf in found if ours(leaf[2])]
    if isinstance(f, Box) and ours(f):
        f = f.value
    return f, tuple(strip(a, top, ours) for a in args), leaves, top


def _find_boxes(x: Any, position: int, path: Path, leaves: list[Leaf]) -> bool:
    """Collect the boxes inside the container ``x``; whether there were any."""
    found = False
    items = x.items() if isinstance(x, dict) else enumerate(x)
    for key, v in items:
        if isinstance(v, Box):
            leaves.append((position, (*path, key), v))
            found = True
        elif isinstance(v, CONTAINERS) and v:
            found |= _find_boxes(v, position, (*path, key), leaves)
    return found


def holds_boxes(a: Any) -> bool:
    """Whether ``a`` is an object array holding boxes: what numpy makes of ``np.array([x, y])``."""
    return type(a) is np.ndarray and a.dtype.kind == "O" and any(isinstance(v, Box) for v in a.flat)


def objects_lost(f: Any, values: tuple[Any, ...], mode: str) -> TypeError:
    """The error for a rule that computed an array of Python objects (``dtype=object``) from followed values.

    Such an array holds no boxes, so an engine cannot follow it: the derivative through it would be
    silently lost. Its operands were numbers in an object array (``np.array([1, 2], dtype=object)``).
    """
    called = function_name(f) + (f"({', '.join(type_name(v) for v in values)})" if values else "")
    return TypeError(
        f"{mode}: {called} returned an array of Python objects (dtype=object) from a followed "
        "value, which would lose its derivative; give it numbers in a float or complex array "
        "(np.asarray(a, dtype=float)) instead of an object array"
    )


def has_object_array(args: Any) -> bool:
    """Whether ``args`` or a list or tuple among them holds an object array of boxes."""
    for a in args:
        if type(a) is np.ndarray:
            if holds_boxes(a):
                return True
        elif type(a) in (list, tuple) and has_object_array(a):
            return True
    return False


def _packed(a: Any) -> Any:
    """``a`` with its object arrays of boxes (numpy's ``np.array([x, y])``) as boxed arrays, in lists and tuples too."""
    if type(a) in (list, tuple):
        return type(a)(_packed(v) for v in a)
    return pack(a) if holds_boxes(a) else a


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


# ----- object arrays: numpy's view of lists of boxes -----


def _entries(a: Any) -> list[Any]:
    """The entries of an array as a flat list of Python numbers (``a.ravel().tolist()``)."""
    return np.ravel(a).tolist()  # type: ignore[no-any-return]


def _from_entries(shape: tuple[int, ...], *entries: Any) -> Any:
    """The array of ``shape`` holding ``entries``: the inverse of ``_entries``."""
    return np.array(entries).reshape(shape)


def _to_python(x: Any) -> Any:
    """A numpy scalar or 0-d array as a Python number (``x.item()``)."""
    return np.asarray(x).item()


def pack(a: np.ndarray[Any, Any]) -> Any:
    """The object array ``a`` of boxes and numbers as one boxed array (one call of ``_from_entries``)."""
    return call((_from_entries,), (a.shape, *a.ravel().tolist()), {}, None)


def _object_array(entries: list[Any], shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    out = np.empty(len(entries), dtype=object)
    for i, e in enumerate(entries):
        out[i] = e
    return out.reshape(shape)


# ----- the box -----


def _numpy_first(args: tuple[Any, ...]) -> bool:
    for a in args:
        v = a.value if isinstance(a, Box) else a
        if isinstance(v, (np.ndarray, np.generic)):
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
        method = getattr(type(self.value), name, None)
        if method is None and isinstance(self.value, (float, complex)):  # a Python number answers as np.float64
            method = getattr(np.result_type(self.value).type, name, None)
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

    return call((method,), (box, *args), kwargs, through, method)


_GETITEM = (np.ndarray.__getitem__, operator.getitem)


class ArrayBox(Box):
    """What every array box has: numpy's attributes, indexing, iteration."""

    __slots__ = ()

    @property
    def shape(self) -> tuple[int, ...]:
        return np.shape(primal(self))

    @property
    def ndim(self) -> int:
        return np.ndim(primal(self))

    @property
    def size(self) -> int:
        return np.size(primal(self))

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
            "(np.where, np.concatenate, np.stack)"
        )

    def _object_array(self) -> np.ndarray[Any, Any]:
        return _object_array(call((_entries,), (self,), {}, None), self.shape)


class ScalarBox(Box):
    """A followed Python number or numpy scalar.

    ``shape``, ``ndim`` and ``size`` are those of a 0-d array. ``dtype`` is
    that of a numpy scalar; a tracked Python float has none, as a float has
    none (``np.result_type(x)`` answers for both), so that numpy computing on
    a list of them (``np.mean([x, y])``) keeps its result a Python number.
    """

    __slots__ = ()

    shape = ()
    ndim = 0
    size = 1

    @property
    def dtype(self) -> np.dtype[Any]:
        value = primal(self)
        if isinstance(value, np.generic):
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
