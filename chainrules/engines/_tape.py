"""The reverse engine's record: the tape, its backward pass, and the values it tracks.

``Tape`` holds one forward pass: a node per call (its pullback and the
slots of its inputs and outputs) and a slot per tracked value;
``Tape.backward`` runs the pullbacks in reverse order and accumulates the
cotangents in the slots. ``Tracked`` boxes (``TrackedArray``,
``TrackedScalar``, ``TrackedObject``, the ``Param`` parameters) carry a
primal value and its slot; ``ReverseEngine`` is what ``_passes.call`` asks to
find a call's rule and record it. ``tracker`` holds the public functions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractThunk,
    AbstractZero,
    InplaceableThunk,
    NoTangent,
    NotImplementedTangent,
    NotImplementedTangentError,
    RuleConfig,
    ZeroTangent,
    accumulate,
    construct,
    rrule,
    unthunk,
)
from chainrules_core.naming import function_name
from chainrules_core.projection import no_tangent_space, project_onto

from ._box import ArrayBox, Box, ObjectBox, ScalarBox
from ._passes import (
    GENERAL,
    MISS,
    Engine,
    Leaf,
    Trace,
    holds_boxes,
    nested_passes_running,
    objects_lost,
    pack,
)
from ._structure import (
    Path,
    has_followable,
    is_array_leaf,
    is_differentiable_leaf,
    object_fields,
    part,
    primal,
    rebuild,
    refuse_tangent_value,
    structural,
)

_NO_TANGENT, _ZERO = NoTangent(), ZeroTangent()
_new = object.__new__
_REAL_SCALARS = frozenset({float, np.float64, np.float32})
"""Outputs boxed as scalars at once (a reduction's numpy float too)."""


# ----- the tape -----


# One recorded call: (f, pullback, inputs, nargs, outputs, skeleton). ``inputs`` is a tuple of the slots
# of (f, *args), ``None`` where a value is not tracked, or, when tracked values sit inside container
# arguments, a list of (position in (f, *args), path inside the argument, slot); ``outputs`` is the
# output's slot, or for a list or tuple output a dict from paths to slots with ``skeleton`` the output
# itself (``None`` for one output). A tuple rather than a class: a node is made per operation, and
# tuples are the cheapest to make.
_Inputs = tuple[int | None, ...] | list[tuple[int, Path, int]]
_Node = tuple[Any, Callable[[Any], Any], _Inputs, int, Any, Any]


class Tape(Trace):
    """The record of one forward pass: its nodes, and one cotangent slot per tracked value."""

    __slots__ = ("nodes", "param_slots", "shapes")

    def __init__(self, config: RuleConfig) -> None:
        super().__init__(config)
        self.nodes: list[_Node] = []
        self.shapes: list[tuple[int, ...] | None] = []
        self.param_slots: dict[int, tuple[Param, int]] = {}

    def new_slot(self, value: Any) -> int:
        shapes = self.shapes
        if type(value) is np.ndarray:
            shapes.append(value.shape)
        elif is_differentiable_leaf(value):
            shapes.append(tuple(getattr(primal(value), "shape", ())))
        else:
            shapes.append(None)
        return len(shapes) - 1

    def slot_of(self, box: Tracked) -> int:
        if box._trace is self:
            return box.slot
        # a parameter: it joins every tape that uses it
        entry = self.param_slots.get(id(box))
        if entry is None:
            entry = self.param_slots[id(box)] = (box, self.new_slot(box.value))  # type: ignore[arg-type]
        return entry[1]

    def track(self, x: Any) -> Any:
        """``x`` with every differentiable value in it tracked as a new leaf of this tape.

        A value of an outer pass is tracked too: this tape follows it, and the
        outer pass follows what this one computes with it.
        """
        if type(x) is np.ndarray and x.dtype.kind in "fc":
            shapes = self.shapes
            shapes.append(x.shape)
            return TrackedArray(x, self, len(shapes) - 1)
        if (type(x) is list or type(x) is tuple) and x:
            boxes = self._track_arrays(x)  # a list of parameters: a box per array, in one pass
            if boxes is not None:
                return boxes if type(x) is list else tuple(boxes)
        if is_differentiable_leaf(x):
            return _tracked(x, self, self.new_slot(x))
        if isinstance(x, dict):
            return {k: self.track(v) for k, v in x.items()} if has_followable(x) else x
        if isinstance(x, (list, tuple)):
            return rebuild(x, [self.track(v) for v in x]) if has_followable(x) else x
        if isinstance(x, Box) or not has_followable(x):
            refuse_tangent_value(x, "reverse mode")
            return x
        return TrackedObject(x, self, self.new_slot(x))

    def _track_arrays(self, xs: list[Any] | tuple[Any, ...]) -> list[Any] | None:
        """A box per array of ``xs`` when they are all float or complex arrays, else ``None`` (nothing tracked)."""
        shapes = self.shapes
        first = len(shapes)
        boxes = []
        for v in xs:
            if type(v) is not np.ndarray or v.dtype.kind not in "fc":
                del shapes[first:]
                return None
            boxes.append(TrackedArray(v, self, len(shapes)))
            shapes.append(v.shape)
        return boxes

    def fast(self, token: Any, args: tuple[Any, ...]) -> Any:
        if not self.active:
            return MISS
        slots: list[int | None] = [None]
        values = []
        for a in args:
            if isinstance(a, Box):
                if a._trace is not self:
                    return MISS
                slots.append(a.slot)  # type: ignore[attr-defined]
                a = a.value
            elif type(a) is np.ndarray and a.dtype.hasobject:
                return MISS
            else:
                slots.append(None)
            values.append(a)
        try:
            f, rule = _rule_of((token, *map(type, values)), GENERAL)
        except TypeError:  # an unhashable candidate
            return MISS
        if rule is None:
            return MISS
        result = rule(f, *values)
        if result is None:
            return MISS
        return self.record(f, result[1], tuple(slots), len(values), result[0])

    def unary(self, token: Any, a: Any) -> Any:
        if not self.active or not isinstance(a, Box) or a._trace is not self:
            return MISS
        x = a.value
        try:
            f, rule = _rule_of((token, type(x)), GENERAL)
        except TypeError:  # an unhashable candidate
            return MISS
        if rule is None:
            return MISS
        result = rule(f, x)
        if result is None:
            return MISS
        y, pullback = result
        if type(y) is np.ndarray and y.dtype.kind in "fc":  # record's common case, inline
            shapes = self.shapes
            slot = len(shapes)
            shapes.append(y.shape)
            self.nodes.append((f, pullback, (None, a.slot), 1, slot, None))  # type: ignore[attr-defined]
            return TrackedArray(y, self, slot)
        return self.record(f, pullback, (None, a.slot), 1, y)  # type: ignore[attr-defined]

    def binary(self, token: Any, a: Any, b: Any) -> Any:
        # ``fast`` for two operands, unrolled: each operand's slot is read inline, with no loop or helper
        # call, on the path every arithmetic operator of a program takes.
        if not self.active:
            return MISS
        if isinstance(a, Box):
            if a._trace is not self:
                return MISS
            slot_a, a = a.slot, a.value  # type: ignore[attr-defined]
        elif type(a) is np.ndarray and a.dtype.hasobject:
            return MISS
        else:
            slot_a = None
        if isinstance(b, Box):
            if b._trace is not self:
                return MISS
            slot_b, b = b.slot, b.value  # type: ignore[attr-defined]
        elif type(b) is np.ndarray and b.dtype.hasobject:
            return MISS
        else:
            slot_b = None
        try:
            f, rule = _rule_of((token, type(a), type(b)), GENERAL)
        except TypeError:  # an unhashable candidate
            return MISS
        if rule is None:
            return MISS
        result = rule(f, a, b)
        if result is None:
            return MISS
        y, pullback = result
        t = type(y)
        if t is float:
            shapes = self.shapes
            slot = len(shapes)
            shapes.append(())
            self.nodes.append((f, pullback, (None, slot_a, slot_b), 2, slot, None))
            box = _new(TrackedScalar)  # TrackedScalar(y, self, slot), without a frame for __init__
            box.value, box._trace, box.slot = y, self, slot
            return box
        if t is np.ndarray and y.dtype.kind in "fc":
            shapes = self.shapes
            slot = len(shapes)
            shapes.append(y.shape)
            self.nodes.append((f, pullback, (None, slot_a, slot_b), 2, slot, None))
            array_box = _new(TrackedArray)
            array_box.value, array_box._trace, array_box.slot = y, self, slot
            return array_box
        return self.record(f, pullback, (None, slot_a, slot_b), 2, y)

    def record(self, f: Any, pullback: Callable[[Any], Any], inputs: _Inputs, nargs: int, y: Any) -> Any:
        """Box the outputs ``y`` of a call and write the call on the tape."""
        if type(y) in _REAL_SCALARS:
            shapes = self.shapes
            slot = len(shapes)
            shapes.append(())
            self.nodes.append((f, pullback, inputs, nargs, slot, None))
            return TrackedScalar(y, self, slot)
        if type(y) is np.ndarray:
            if y.dtype.kind not in "fc":
                if not holds_boxes(y):
                    if y.dtype.kind == "O":
                        raise objects_lost(f, (), "reverse mode")
                    return y
                return self.record(f, pullback, inputs, nargs, pack(y))  # a rule computed on numpy's lists of boxes
            shapes = self.shapes
            slot = len(shapes)
            shapes.append(y.shape)
            self.nodes.append((f, pullback, inputs, nargs, slot, None))
            return TrackedArray(y, self, slot)
        if is_differentiable_leaf(y):
            if isinstance(y, Box) and y._trace is self:
                raise self._closure_error(f)
            slot = self.new_slot(y)
            self.nodes.append((f, pullback, inputs, nargs, slot, None))
            return _tracked(y, self, slot)
        if isinstance(y, (list, tuple)) and has_followable(y):
            outputs: dict[Path, int] = {}
            boxed = self._track_outputs(y, (), outputs)
            self.nodes.append((f, pullback, inputs, nargs, outputs, y))
            return boxed
        return y

    def _closure_error(self, f: Any) -> ValueError:
        return ValueError(
            f"reverse mode: the rule of {function_name(f)} returned a value this pass follows: a function it "
            "differentiated closes over a tracked value of this pass (met in another forward pass); pass that "
            "value as an argument instead"
        )

    def _track_outputs(self, y: Any, path: Path, outputs: dict[Path, int]) -> Any:
        if is_differentiable_leaf(y):
            slot = outputs[path] = self.new_slot(y)
            return _tracked(y, self, slot)
        if isinstance(y, (list, tuple)):
            return rebuild(y, [self._track_outputs(v, (*path, i), outputs) for i, v in enumerate(y)])
        return y

    def backward(self, seeds: list[tuple[int, Any]]) -> list[Any]:
        """Run every pullback in reverse order from ``seeds``; the cotangent of each slot (``None``: none)."""
        shapes = self.shapes
        n = len(shapes)
        bars: list[Any] = [None] * n
        owned = [False] * n
        for slot, seed in seeds:
            self._add(bars, owned, slot, seed, None, 0)
        for f, pullback, inputs, nargs, outputs, skeleton in reversed(self.nodes):
            if skeleton is None:
                out_bar = bars[outputs]
                if out_bar is None:
                    continue  # nothing reached this output: skip the pullback
                bars[outputs] = None
                if type(out_bar) is not float and isinstance(out_bar, AbstractThunk):
                    out_bar = out_bar.unthunk()
                    if isinstance(out_bar, AbstractZero):
                        continue  # a zero seed: the inputs' cotangents are zeros, without the pullback
            else:
                out_bar = _gather(outputs, skeleton, bars)
                if out_bar is None:
                    continue
            cotangents = pullback(out_bar)
            if type(cotangents) is not tuple or len(cotangents) != nargs + 1:
                raise _count_error(f, cotangents, nargs)
            if type(inputs) is tuple:
                if nargs == 2 and type(cotangents[1]) is float and type(cotangents[2]) is float:
                    # the loop below for two float cotangents, unrolled (no zip, no loop: 7% of a program on
                    # floats, benchmarks/bench_programs.py): the path of every float operator
                    _, slot_a, slot_b = inputs
                    _, ca, cb = cotangents
                    if slot_a is not None:
                        old = bars[slot_a]
                        if old is None or type(old) is float:
                            bars[slot_a] = ca if old is None else old + ca
                        else:
                            self._add(bars, owned, slot_a, ca, f, 0)
                    if slot_b is not None:
                        old = bars[slot_b]
                        if old is None or type(old) is float:
                            bars[slot_b] = cb if old is None else old + cb
                        else:
                            self._add(bars, owned, slot_b, cb, f, 0)
                    continue
                for slot, c in zip(inputs, cotangents):
                    if slot is None:
                        continue
                    old = bars[slot]
                    t = type(c)
                    if t is float:
                        if old is None:
                            bars[slot] = c
                            continue
                        if type(old) is float:
                            bars[slot] = old + c
                            continue
                    elif t is np.ndarray:
                        if c.shape != shapes[slot]:
                            self._add(bars, owned, slot, c, f, _position(cotangents, c))  # raises
                    elif c is None or isinstance(c, AbstractZero):
                        continue
                    if old is None:
                        bars[slot] = c  # not ours: it may be a view of the seed or a read-only broadcast
                    else:
                        self._add(bars, owned, slot, c, f, 0)
                continue
            for position, path, slot in inputs:
                c = cotangents[position]
                if path:
                    c = part(c, path)
                if c is None or isinstance(c, AbstractZero):
                    continue
                if bars[slot] is None and (type(c) is not np.ndarray or c.shape == shapes[slot]):
                    bars[slot] = c
                else:
                    self._add(bars, owned, slot, c, f, position)
        return bars

    def _add(self, bars: list[Any], owned: list[bool], slot: int, c: Any, f: Any, position: int) -> None:
        """Add ``c`` into ``bars[slot]``, in place once the slot holds an array of its own."""
        shape = self.shapes[slot]
        if type(c) is np.ndarray and shape is not None and c.shape != shape:
            source = "the seed" if position == 0 else f"the pullback of {function_name(f)} (argument {position})"
            raise ValueError(f"reverse mode: {source} gave a cotangent of shape {c.shape} for a value of shape {shape}")
        old = bars[slot]
        if old is None:
            bars[slot] = c
            return
        if not owned[slot]:
            old = unthunk(old)
            if isinstance(old, np.ndarray):
                old = old.copy()
            owned[slot] = True
        if isinstance(c, AbstractThunk) and (not isinstance(c, InplaceableThunk) or nested_passes_running()):
            c = c.unthunk()  # in-place addition is for plain arrays; an outer pass may follow these values
        bars[slot] = accumulate(old, c)


def _position(cotangents: tuple[Any, ...], c: Any) -> int:
    """Where ``c`` is among a pullback's cotangents, for a message."""
    return next(i for i, v in enumerate(cotangents) if v is c)


def _count_error(f: Any, cotangents: Any, nargs: int) -> ValueError:
    count = len(cotangents) if isinstance(cotangents, tuple) else f"a {type(cotangents).__name__} of"
    return ValueError(
        f"reverse mode: the pullback of {function_name(f)} returned {count} cotangents; "
        f"expected {nargs + 1}: one for the function itself, then one per argument"
    )


def _gather(outputs: dict[Path, int], skeleton: Any, bars: list[Any]) -> Any:
    """The cotangent of a list or tuple output, ``None`` if nothing reached it; frees the output slots."""
    if all(bars[slot] is None for slot in outputs.values()):
        return None
    out_bar = _output_cotangent(skeleton, (), outputs, bars)
    for slot in outputs.values():
        bars[slot] = None
    return out_bar


def _output_cotangent(y: Any, path: Path, outputs: dict[Path, int], bars: list[Any]) -> Any:
    slot = outputs.get(path)
    if slot is not None:
        c = bars[slot]
        return ZeroTangent() if c is None else c
    if isinstance(y, (list, tuple)):
        elems = [_output_cotangent(v, (*path, i), outputs, bars) for i, v in enumerate(y)]
        return structural(rebuild(y, elems), lambda c: c)
    return NoTangent()


# ----- tracked values -----


class ReverseEngine(Engine):
    name = "reverse mode"
    rule_name = "rrule"

    def registry(self) -> Any:
        return rrule

    def prepare(self, trace: Any, leaves: list[Leaf], args: tuple[Any, ...]) -> Any:
        inputs = []
        flat = True
        for position, path, box in leaves:
            inputs.append((position, path, box.slot if box._trace is trace else trace.slot_of(box)))  # type: ignore[attr-defined]
            flat = flat and not path
        if not flat:
            return trace, inputs
        slots: list[int | None] = [None] * (len(args) + 1)
        for position, _, slot in inputs:
            slots[position] = slot
        return trace, tuple(slots)

    def ask(self, context: Any, f: Any, values: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        config = context[0].config
        return rrule(config, f, *values, **kwargs) if kwargs else rrule(config, f, *values)

    def apply(self, context: Any, rule: Any, f: Any, values: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return rule(f, *values, **kwargs)

    def record(self, context: Any, f: Any, values: tuple[Any, ...], result: Any) -> Any:
        tape, inputs = context
        y, pullback = result
        return tape.record(f, pullback, inputs, len(values), y)


_REVERSE = ReverseEngine()
Tape.engine = _REVERSE
_rule_of = _REVERSE.rules.get  # the engine's cache, which the registry clears in place


class Tracked(Box):
    """A value recorded on a tape: its primal ``.value``, its tape ``._trace`` and cotangent ``slot``."""

    __slots__ = ("slot",)
    _default_engine = _REVERSE

    def __init__(self, value: Any, tape: Tape | None, slot: int) -> None:
        self.value = value
        self._trace = tape
        self.slot = slot


class TrackedArray(ArrayBox, Tracked):
    """A tracked numpy array: numpy functions, ufuncs, operators and methods on it are recorded."""

    __slots__ = ()


class TrackedScalar(ScalarBox, Tracked):
    """A tracked Python float or complex, or numpy scalar."""

    __slots__ = ()


class TrackedObject(ObjectBox, Tracked):
    """A tracked object with fields: calls and methods use its class's rules, or run on tracked fields."""

    __slots__ = ("fields", "opened")

    def __init__(self, value: Any, tape: Tape, slot: int) -> None:
        super().__init__(value, tape, slot)
        self.opened: Any = None
        self.fields: dict[str, Any] = {}

    def _open(self) -> Any:
        if self.opened is None:
            tape = self._trace
            assert tape is not None
            fields = object_fields(self.value) or {}
            self.fields = {name: tape.track(v) for name, v in fields.items() if has_followable(v)}
            self.opened = construct(self.value, self.fields) if self.fields else self.value
        return self.opened


class Param(Tracked):
    """A parameter: tracked on every tape that uses it, its gradient accumulating in ``.grad``."""

    __slots__ = ("grad",)

    def __init__(self, value: Any) -> None:
        super().__init__(value, None, -1)
        self.grad: Any = None

    def zero_grad(self) -> None:
        """Forget the accumulated gradient."""
        self.grad = None

    def _accumulate_grad(self, c: Any) -> None:
        c = _leaf_cotangent(self.value, c)
        if isinstance(c, AbstractZero):
            return
        if self.grad is None:
            self.grad = c.copy() if isinstance(c, np.ndarray) else c
        else:
            self.grad = accumulate(self.grad, c)


class ParamArray(TrackedArray, Param):
    """A tracked array parameter; see ``param``."""

    __slots__ = ()


class ParamScalar(TrackedScalar, Param):
    """A tracked scalar parameter; see ``param``."""

    __slots__ = ()


def _tracked(value: Any, tape: Tape, slot: int) -> Tracked:
    if is_array_leaf(value):
        return TrackedArray(value, tape, slot)
    return TrackedScalar(value, tape, slot)


def _leaf_cotangent(value: Any, c: Any, not_implemented: bool = False) -> Any:
    """The cotangent ``c`` that reached a tracked input, projected onto its value.

    A ``NotImplementedTangent`` raises, naming the derivative that is missing;
    with ``not_implemented=True`` (a pullback of ``rrule_via_ad``, which
    answers for every argument as a rule does) it is returned as it is.
    """
    if c is None:
        return _NO_TANGENT if no_tangent_space(value) else _ZERO
    if type(c) is not np.ndarray and type(c) is not float:
        c = unthunk(c)
        if isinstance(c, NotImplementedTangent):
            if not_implemented:
                return c
            raise NotImplementedTangentError(f"reverse mode: a derivative needed here is not implemented: {c.info}")
    return project_onto(value, c)
