"""Reverse mode: a tape-based tracker that learns every derivative from ``rrule``.

``forward(f, *args)`` runs ``f`` on tracked copies of its arguments. Each
operation on a tracked value calls ``rrule`` and writes the pullback on a
tape; ``back(y_bar)`` calls the pullbacks in reverse order and accumulates
the cotangents. Nothing here knows a derivative: with no rule, an operation
on tracked values raises ``NoRuleError``.

>>> import math
>>> from chainrules_core import rrule, NoTangent
>>> def cube(x):
...     return x * x * x
>>> @rrule.register(cube)
... def _rrule_cube(f, x):
...     return cube(x), lambda out_bar: (NoTangent(), 3 * x**2 * out_bar)
>>> gradient(cube, 2.0)
(12.0,)
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    HasReverseMode,
    NoTangent,
    ProjectTo,
    RuleConfig,
    Tangent,
    Thunk,
    ZeroTangent,
    rrule,
    unthunk,
)
from chainrules_core.arrays import is_foreign_array, namespace_of

from ._box import Box
from ._calls import top_level_call, unit_seed
from ._passes import collector_paused, holds_boxes, pack, set_param_trace
from ._structure import Path, is_differentiable_leaf, part, rebuild, structural
from ._tape import (
    Param,
    ParamArray,
    ParamScalar,
    Tape,
    Tracked,
    TrackedArray,
    TrackedObject,
    TrackedScalar,
    _leaf_cotangent,
)

_CURRENT: contextvars.ContextVar[Tape | None] = contextvars.ContextVar("chainrules_tape", default=None)


class Tracker(RuleConfig, HasReverseMode):
    """The reverse engine's ``RuleConfig``: rules for higher-order functions call ``rrule_via_ad``.

    >>> y, pullback = Tracker().rrule_via_ad(lambda x: x, 2.0)
    >>> y, pullback(1.0)
    (2.0, (NoTangent(), 1.0))
    """

    def rrule_via_ad(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Callable[[Any], Any]]:
        """``(y, pullback)`` for ``f(*args, **kwargs)``; ``pullback(y_bar)`` returns ``(f_bar, *arg_bars)``."""
        return _run(f, args, kwargs, self, with_f=True)


# ----- parameters -----


def param(x: Any) -> Param:
    """A parameter holding ``x``: operations on it inside ``forward`` and ``gradient`` are recorded,
    and every backward pass adds its cotangent to ``.grad``.

    >>> from chainrules_core import scalar_rule
    >>> from chainrules.engines import lift
    >>> @lift
    ... def scale(w, x):
    ...     return w * x
    >>> scalar_rule(scale.__wrapped__, lambda out, w, x: (x, w))
    >>> w = param(2.0)
    >>> gradient(lambda x: scale(w, x), 3.0)
    (2.0,)
    >>> w.grad
    3.0
    >>> _ = gradient(lambda x: scale(w, x), 3.0)
    >>> w.grad
    6.0
    """
    if isinstance(x, np.ndarray) and x.dtype.kind in "fc":
        return ParamArray(np.array(x, copy=True))
    if is_foreign_array(x) and is_differentiable_leaf(x):
        return ParamArray(namespace_of(x).asarray(x, copy=True))
    if is_differentiable_leaf(x):
        return ParamScalar(x)
    raise TypeError(f"param: a parameter holds a float or complex number or array, not a {type(x).__name__}")


# ----- the API -----


def _collect(boxed: Any, bars: list[Any], not_implemented: bool = False) -> Any:
    """The cotangent of an argument, assembled from the slots of the values tracked in it.

    ``not_implemented``: a ``NotImplementedTangent`` reaching a value is its
    cotangent (``rrule_via_ad``) rather than an error (``forward``, ``gradient``).
    """

    def leaf(x: Any) -> Any:
        if type(x) is TrackedArray or type(x) is TrackedScalar:
            c, v = bars[x.slot], x.value
            if type(c) is np.ndarray and type(v) is np.ndarray and c.shape == v.shape and c.dtype == v.dtype:
                return c  # what project_onto returns
            return _leaf_cotangent(v, c, not_implemented)
        if isinstance(x, TrackedObject):
            own = bars[x.slot]
            fields = {name: _collect(v, bars, not_implemented) for name, v in x.fields.items()}
            fields = {name: c for name, c in fields.items() if not isinstance(c, AbstractZero)}
            total = Tangent(type(x.value), **fields) if fields else ZeroTangent()
            return total if own is None else unthunk(own) + total
        if isinstance(x, Tracked):
            return _leaf_cotangent(x.value, bars[x.slot], not_implemented)
        return NoTangent() if ProjectTo(x).is_no_tangent else ZeroTangent()

    if type(boxed) is list and boxed:
        cotangents = _array_cotangents(boxed, bars)  # a list of parameters: what structural gives, without its walk
        if cotangents is not None:
            return cotangents
    return structural(boxed, leaf)


def _array_cotangents(boxed: list[Any], bars: list[Any]) -> list[Any] | None:
    """The cotangents of a list of tracked arrays, each of its array's shape and dtype (a thunk forced); ``None``
    if ``boxed`` holds anything else or a cotangent needs more (a projection, a zero)."""
    cotangents = []
    for x in boxed:
        if type(x) is not TrackedArray:
            return None
        c = bars[x.slot]
        if type(c) is Thunk:
            c = c.unthunk()
        v = x.value
        if type(c) is not np.ndarray or c.shape != v.shape or c.dtype != v.dtype:
            return None
        cotangents.append(c)
    return cotangents


def _output_leaves(y: Any, path: Path, tape: Tape, found: list[tuple[Path, int]]) -> Any:
    """``y`` with its tracked values replaced by their primals, and where they were.

    A value of an outer pass that is still running is a constant here: it
    stays as it is, for the outer pass to follow.
    """
    if isinstance(y, Box):
        if y._trace is tape or (y._trace is None and isinstance(y, Tracked)):
            found.append((path, tape.slot_of(y)))  # type: ignore[arg-type]
            return y.value
        if y._trace.active and y._trace.level < tape.level:
            return y
        raise ValueError("reverse mode: the function returned a tracked value of another forward pass")
    if holds_boxes(y):
        return _output_leaves(pack(y), path, tape, found)
    if isinstance(y, dict):
        return {k: _output_leaves(v, (*path, k), tape, found) for k, v in y.items()}
    if isinstance(y, (list, tuple)):
        return rebuild(y, [_output_leaves(v, (*path, i), tape, found) for i, v in enumerate(y)])
    return y


def _run(
    f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], config: RuleConfig | None, with_f: bool
) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    outer = _CURRENT.get()
    if outer is not None and config is None:
        config = outer.config
    tape = Tape(config if config is not None else Tracker())
    token = _CURRENT.set(tape)
    tape.start()
    try:
        boxed_f = tape.track(f) if with_f else f
        boxed = tuple(tape.track(a) for a in args)
        y_boxed = top_level_call(boxed_f, boxed, kwargs, rrule)
        found: list[tuple[Path, int]] = []
        y = _output_leaves(y_boxed, (), tape, found)
    finally:
        tape.finish()
        _CURRENT.reset(token)

    def back(y_bar: Any) -> tuple[Any, ...]:
        seeds = [(slot, part(y_bar, path)) for path, slot in found]
        bars = tape.backward([(slot, c) for slot, c in seeds if not isinstance(c, AbstractZero)])
        for p, slot in tape.param_slots.values():
            p._accumulate_grad(bars[slot])
        arg_bars = tuple(_collect(b, bars, with_f) for b in boxed)
        return (_collect(boxed_f, bars, with_f), *arg_bars) if with_f else arg_bars

    return y, back


def forward(f: Callable[..., Any], *args: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """Run ``f(*args)`` on tracked arguments: ``(y, back)``, where ``back(y_bar)`` returns one cotangent per argument.

    Float and complex numbers and arrays are tracked, and so are those inside
    lists, tuples, dicts and objects with fields (an object's cotangent is a
    ``Tangent`` of its class). Ints, bools and anything without a tangent
    space get ``NoTangent()``; a tracked argument the output does not depend
    on gets ``ZeroTangent()``. When ``f`` itself has a rule it is used. ``back``
    may be called many times; each call also adds to the ``.grad`` of every
    ``param`` the pass used.

    >>> from chainrules_core import scalar_rule
    >>> def scale(x, a):
    ...     return a * x
    >>> scalar_rule(scale, lambda out, x, a: (a, x))
    >>> y, back = forward(scale, np.array([1.0, 2.0]), 3.0)
    >>> y, back(np.array([1.0, 1.0]))
    (array([3., 6.]), (array([3., 3.]), 3.0))
    """
    return _run(f, args, {}, None, with_f=False)


def gradient(f: Callable[..., Any], *args: Any) -> tuple[Any, ...]:
    """The gradient of a real scalar ``f`` with respect to each argument: one cotangent per argument.

    The seed is 1.0 in the output's type: a Python float for a Python float,
    a 0-d array of the output's dtype for a numpy scalar or 0-d array.

    >>> from chainrules_core import scalar_rule
    >>> def power(x, n):
    ...     return x**n
    >>> scalar_rule(power, lambda out, x, n: (n * x ** (n - 1), out * np.log(x)))
    >>> gradient(power, 3.0, 2)
    (6.0, NoTangent())
    """
    return value_and_gradient(f, *args)[1]


def value_and_gradient(f: Callable[..., Any], *args: Any) -> tuple[Any, tuple[Any, ...]]:
    """``(f(*args), gradient(f, *args))`` from one forward and one backward pass."""
    with collector_paused():  # until the tape is freed, so the collector never examines its records
        y, back = forward(f, *args)
        bars = back(unit_seed(y, f))
        del back
    return y, bars


set_param_trace(_CURRENT.get)
