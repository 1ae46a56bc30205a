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

import functools
import gc
import itertools
import types
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import numpy as np

from chainrules_core import NoRuleError
from chainrules_core.keywords import keywords_as_positional, keywords_to_positions
from chainrules_core.naming import function_name

from ._structure import CONTAINERS, Boxed, Path, strip, type_name

Leaf = tuple[int, Path, Boxed]  # (position in (f, *args), path inside a container argument, box)


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


class collector_paused:  # noqa: N801 - used as a function, like contextlib's
    """Python's cyclic garbage collector paused (if it was on) inside the block; see ``Trace.start``.

    A class rather than a ``contextlib`` generator: entering and leaving cost a fifth as much, once per gradient.
    """

    __slots__ = ("paused",)

    def __enter__(self) -> None:
        self.paused = gc.isenabled()
        if self.paused:
            gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.paused:
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
            if isinstance(v, (Boxed, *CONTAINERS)) or (type(v) is np.ndarray and v.dtype.hasobject):
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
        if isinstance(f, _DESCRIPTORS) and values and isinstance(values[0], Boxed):
            rule = self.registry().find(f, *strip(values))
            return None if rule is None else self.apply(context, rule, method_caller(f), values, kwargs)
        result = self.ask(context, f, values, kwargs)
        if result is None and not isinstance(f, (types.MethodType, functools.partial)):
            rule = self.registry().find(f, *strip(values))
            if rule is not None:
                result = self.apply(context, rule, f, values, kwargs)
        return result

    def no_rule(self, f: Any, values: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> NoRuleError:
        types_ = ", ".join([type_name(v) for v in values] + [f"{k}=..." for k in kwargs or ()])
        buffers = [f"{k}=" for k in ("out", "where") if k in (kwargs or ())]
        why = (
            f" (a call with {' or '.join(buffers)} writes into or masks a buffer, which the rules do not: "
            "compute the result without it)"
            if buffers
            else ""
        )
        return NoRuleError(
            f"{self.name}: no {self.rule_name} for {function_name(f)}({types_}){why}; register one with "
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
            if isinstance(a, Boxed):
                trace = a._trace
                if trace is not None:
                    y = trace.unary(token, a) if len(args) == 1 else trace.fast(token, args)
                    if y is not MISS:
                        return y
                break
    if kwargs:
        if not args and not isinstance(primals[0], Boxed):  # np.sum(a=x): the call np.sum(x)
            args, kwargs = keywords_as_positional(primals[0], kwargs)
        names = followed_keywords(kwargs)
        if names:  # np.clip(x, lo, a_max=hi): the call np.clip(x, lo, hi)
            moved = keywords_moved(primals[0], args, kwargs, names, through)
            if moved is None:  # f has no rule and no position for them: its own code takes the keywords
                return through(*args, **kwargs)
            args, kwargs = moved
    f, values, leaves, trace = split(primals[0], args)
    if trace is _OBJECT_ARRAYS:  # numpy's np.array([x, y]) among the arguments: one boxed array each
        args = tuple(_packed(a) for a in args)
        f, values, leaves, trace = split(primals[0], args)
    if trace is None:  # nothing followed after all: parameters outside any pass
        return f(*values, **kwargs)
    engine = trace.engine
    if not trace.active:
        raise engine.finished(f, values)
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
    raise engine.no_rule(f, values, kwargs)


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
    if isinstance(f, Boxed):
        leaves.append((0, (), f))
        trace = f._trace
    values = list(args)
    for i, a in enumerate(args):
        if isinstance(a, Boxed):
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
        return (f.value if isinstance(f, Boxed) else f), tuple(strip(a, trace) for a in args), leaves, trace
    return (f.value if isinstance(f, Boxed) else f), tuple(values), leaves, trace


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

    def ours(box: Boxed) -> bool:
        t = box._trace if box._trace is not None else param_trace()
        return t is top or t is None  # a parameter outside any pass computes with its value

    leaves = [leaf for leaf in found if ours(leaf[2])]
    if isinstance(f, Boxed) and ours(f):
        f = f.value
    return f, tuple(strip(a, top, ours) for a in args), leaves, top


def _find_boxes(x: Any, position: int, path: Path, leaves: list[Leaf]) -> bool:
    """Collect the boxes inside the container ``x``; whether there were any."""
    found = False
    items = x.items() if isinstance(x, dict) else enumerate(x)
    for key, v in items:
        if isinstance(v, Boxed):
            leaves.append((position, (*path, key), v))
            found = True
        elif isinstance(v, CONTAINERS) and v:
            found |= _find_boxes(v, position, (*path, key), leaves)
    return found


def holds_boxes(a: Any) -> bool:
    """Whether ``a`` is an object array holding boxes: what numpy makes of ``np.array([x, y])``."""
    return type(a) is np.ndarray and a.dtype.kind == "O" and any(isinstance(v, Boxed) for v in a.flat)


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
        t = type(a)
        if t is np.ndarray:
            if a.dtype.kind == "O" and holds_boxes(a):
                return True
        elif (t is list or t is tuple) and has_object_array(a):
            return True
    return False


def _packed(a: Any) -> Any:
    """``a`` with its object arrays of boxes (numpy's ``np.array([x, y])``) as boxed arrays, in lists and tuples too."""
    if type(a) in (list, tuple):
        return type(a)(_packed(v) for v in a)
    return pack(a) if holds_boxes(a) else a


def has_box(x: Any) -> bool:
    """Whether ``x`` is a box or a list, tuple, dict or numpy's array of boxes holding one."""
    if isinstance(x, Boxed):
        return True
    if type(x) is np.ndarray:
        return x.dtype.hasobject and holds_boxes(x)
    if isinstance(x, dict):
        return any(has_box(v) for v in x.values())
    if isinstance(x, (list, tuple)):
        return any(has_box(v) for v in x)
    return False


def first_box(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Boxed | None:
    for a in (*args, *kwargs.values()):
        if isinstance(a, Boxed):
            return a
        if isinstance(a, CONTAINERS) and a:
            found = first_box(tuple(a.values()) if isinstance(a, dict) else tuple(a), {})
            if found is not None:
                return found
    return None


# ----- followed values by keyword: moved to their positions -----


def followed_keywords(kwargs: dict[str, Any]) -> list[str]:
    """The keyword arguments holding followed values (or numpy's arrays of them)."""
    return [k for k, v in kwargs.items() if has_box(v)]


def keywords_moved(
    f: Any, args: tuple[Any, ...], kwargs: dict[str, Any], names: list[str], through: Any
) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """The call with its followed keywords ``names`` at their positions in the rule of the innermost pass's engine.

    Keyword arguments get no tangent slot, so a followed one goes to its
    position in the rule the call resolves to (``keywords_to_positions``);
    one the rule has no position for is refused, naming it. ``None`` when
    ``f`` has no rule and its signature no position for one of them: then
    ``through`` runs ``f``'s own code on the call as written, and without it
    ``NoRuleError`` names ``f`` and the keyword.
    """
    trace = _innermost((f, *args, *kwargs.values()))
    if trace is None:  # parameters outside any pass: nothing is followed
        return args, {k: strip(v) for k, v in kwargs.items()}
    engine = trace.engine
    plain = strip(f)
    buffers = [k for k in names if k in ("out", "where")]
    if buffers and _numpy_call(plain):
        name = function_name(plain)
        if buffers[0] == "out":
            raise TypeError(
                f"{engine.name}: {name}(..., out=...) writes into a followed value, which no rule does: use the "
                f"array {name}(...) returns in place of the buffer"
            )
        raise TypeError(
            f"{engine.name}: {name}(..., where=...) gets a followed value as its mask, which no rule takes: "
            "compute the result without where= and select with np.where(mask, result, other)"
        )
    values = strip(args)
    args, kwargs = keywords_to_positions(
        engine.registry(), plain, args, kwargs, names, config=trace.config, values=values, caller=engine.name
    )
    if not followed_keywords(kwargs):
        return args, kwargs
    if through is None:
        raise engine.no_rule(plain, values, kwargs)
    return None


def _innermost(values: Any) -> Trace | None:
    """The innermost pass among the boxes in ``values`` (in lists, tuples, dicts and numpy's arrays of boxes)."""
    return max((t for t in _traces(values) if t is not None), key=lambda t: t.level, default=None)


def _traces(values: Any) -> Iterator[Trace | None]:
    for x in values:
        if isinstance(x, Boxed):
            yield x._trace if x._trace is not None else param_trace()
        elif isinstance(x, dict):
            yield from _traces(x.values())
        elif isinstance(x, (list, tuple)) or (type(x) is np.ndarray and x.dtype.hasobject):
            yield from _traces(x.flat if type(x) is np.ndarray else x)


def _numpy_call(f: Any) -> bool:
    """Whether ``f`` is numpy's function, ufunc or array method, whose ``out=`` and ``where=`` are buffers."""
    return function_name(f).startswith("np.") or isinstance(getattr(f, "__self__", None), np.ufunc)


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
