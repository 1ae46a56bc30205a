"""Forward mode: dual numbers that learn every derivative from ``frule``.

A ``Dual`` pairs a value with its tangent. Each operation on duals calls
``frule`` with the tangents of its arguments and wraps the output with the
output's tangent, so ``jvp(f, primals, tangents)`` is one run of ``f``. With
no rule, an operation on duals raises ``NoRuleError``, as in reverse mode.

>>> from chainrules_core import scalar_rule
>>> def cube(x):
...     return x**3
>>> scalar_rule(cube, lambda out, x: 3 * x**2)
>>> jvp(cube, (2.0,), (1.0,))
(8.0, 12.0)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    HasForwardMode,
    NoTangent,
    RuleConfig,
    ZeroTangent,
    construct,
    frule,
    unthunk,
)
from chainrules_core.arrays import is_foreign_array, namespace_of

from ._box import ArrayBox, Box, ObjectBox, ScalarBox
from ._calls import top_level_call
from ._passes import GENERAL, MISS, Engine, Leaf, Trace, holds_boxes, objects_lost, pack
from ._structure import (
    constant_tangent,
    has_followable,
    is_array_leaf,
    is_differentiable_leaf,
    object_fields,
    part,
    primal,
    rebuild,
    refuse_tangent_value,
    structural,
    type_name,
)

_NO_TANGENT = NoTangent()
_ZERO = ZeroTangent()
_new = object.__new__


class DualNumbers(RuleConfig, HasForwardMode):
    """The forward engine's ``RuleConfig``: rules for higher-order functions call ``frule_via_ad``.

    >>> DualNumbers().frule_via_ad((NoTangent(), 1.0), lambda x: x, 2.0)
    (2.0, 1.0)
    """

    def frule_via_ad(
        self, tangents: tuple[Any, ...], f: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> tuple[Any, Any]:
        """``(y, y_dot)`` for ``f(*args, **kwargs)`` pushed forward along ``tangents = (f_dot, *arg_dots)``."""
        if len(tangents) != len(args) + 1:
            raise ValueError(
                f"frule_via_ad: got {len(tangents)} tangents for {len(args)} arguments; expected {len(args) + 1}, "
                "the first for the function itself"
            )
        return _push(f, tangents[0], args, tangents[1:], kwargs, self)


class _Pass(Trace):
    """One forward pass: the config its rules receive, and its level among nested passes."""

    __slots__ = ()

    def fast(self, token: Any, args: tuple[Any, ...]) -> Any:
        if not self.active:
            return MISS
        tangents = [_NO_TANGENT]
        values = []
        for a in args:
            if isinstance(a, Box):
                if a._trace is not self:
                    return MISS
                tangents.append(a.tangent)  # type: ignore[attr-defined]
                a = a.value
            elif type(a) is np.ndarray and a.dtype.hasobject:
                return MISS
            else:
                tangents.append(_ZERO if type(a) is float else constant_tangent(a))
            values.append(a)
        try:
            f, rule = self.engine.rules.get((token, *map(type, values)), GENERAL)
        except TypeError:  # an unhashable candidate
            return MISS
        if rule is None:
            return MISS
        return self._apply(f, rule, tuple(tangents), values)

    def unary(self, token: Any, a: Any) -> Any:
        if not self.active or not isinstance(a, Box) or a._trace is not self:
            return MISS
        x = a.value
        try:
            f, rule = self.engine.rules.get((token, type(x)), GENERAL)
        except TypeError:  # an unhashable candidate
            return MISS
        if rule is None:
            return MISS
        tangents = (_NO_TANGENT, a.tangent)  # type: ignore[attr-defined]
        t = type(tangents[1])
        if t is not np.ndarray and t is not float:
            return self._apply(f, rule, tangents, [x])
        result = rule(tangents, f, x)  # ``_apply`` for an array or float tangent, inline
        if result is None:
            return MISS
        return self._boxed(f, (x,), tangents, result)

    def binary(self, token: Any, a: Any, b: Any) -> Any:
        # ``fast`` for two operands, unrolled: each operand's tangent is read inline, with no loop or helper
        # call, on the path every arithmetic operator of a program takes.
        if not self.active:
            return MISS
        if isinstance(a, Box):
            if a._trace is not self:
                return MISS
            a_dot, a = a.tangent, a.value  # type: ignore[attr-defined]
        elif type(a) is np.ndarray and a.dtype.hasobject:
            return MISS
        else:
            a_dot = _ZERO if type(a) is float else constant_tangent(a)
        if isinstance(b, Box):
            if b._trace is not self:
                return MISS
            b_dot, b = b.tangent, b.value  # type: ignore[attr-defined]
        elif type(b) is np.ndarray and b.dtype.hasobject:
            return MISS
        else:
            b_dot = _ZERO if type(b) is float else constant_tangent(b)
        try:
            f, rule = self.engine.rules.get((token, type(a), type(b)), GENERAL)
        except TypeError:  # an unhashable candidate
            return MISS
        if rule is None:
            return MISS
        ta, tb = type(a_dot), type(b_dot)
        if ta is not float and ta is not np.ndarray and tb is not float and tb is not np.ndarray:
            return self._apply(f, rule, (_NO_TANGENT, a_dot, b_dot), [a, b])
        # ``_apply`` for a float or array tangent, inline: the rule runs, a float output with a float tangent is boxed
        result = rule((_NO_TANGENT, a_dot, b_dot), f, a, b)
        if result is None:
            return MISS
        y, y_dot = result
        if type(y) is float and type(y_dot) is float:  # _boxed's first case, without its frame: float arithmetic
            box = _new(DualScalar)
            box.value, box.tangent, box._trace = y, y_dot, self
            return box
        return self._boxed(f, (a, b), (_NO_TANGENT, a_dot, b_dot), result)

    def _boxed(self, f: Any, values: tuple[Any, ...], tangents: tuple[Any, ...], result: Any) -> Any:
        """``record``'s box of a rule's result: a float or real array with a tangent of its type, inline."""
        y, y_dot = result
        t = type(y)
        if (t is float and type(y_dot) is float) or (
            t is np.ndarray and type(y_dot) is np.ndarray and y.dtype.kind in "fc"
        ):
            box = _new(DualScalar if t is float else DualArray)
            box.value, box.tangent, box._trace = y, y_dot, self
            return box
        return self.engine.record((self, tangents), f, values, result)

    def _apply(self, f: Any, rule: Any, tangents: tuple[Any, ...], values: list[Any]) -> Any:
        """The dual output of ``f(*values)`` by ``rule`` (unused if all tangents are zeros); ``MISS`` if it declines."""
        for t in tangents:
            if not isinstance(t, AbstractZero):
                result = rule(tangents, f, *values)
                if result is None:
                    return MISS
                y, y_dot = result
                if type(y) is float and type(y_dot) is float:
                    return DualScalar(y, y_dot, self)
                return self.engine.record((self, tangents), f, values, result)  # type: ignore[arg-type]
        return self.engine.record((self, tangents), f, values, (f(*values), ZeroTangent()))  # type: ignore[arg-type]

    def _dual_arrays(self, xs: list[Any] | tuple[Any, ...], dxs: list[Any] | tuple[Any, ...]) -> list[Any] | None:
        """A dual per array of ``xs`` when they are all float or complex arrays with array tangents of their shapes
        (what ``dual`` gives each), else ``None``."""
        duals = []
        for x, dx in zip(xs, dxs):
            if type(x) is not np.ndarray or type(dx) is not np.ndarray or x.dtype.kind not in "fc":
                return None
            if dx.shape != x.shape:
                return None
            duals.append(DualArray(x, dx, self))
        return duals

    def dual(self, x: Any, dx: Any, where: str) -> Any:
        """``x`` followed with tangent ``dx``; ``x`` itself when the tangent is a zero."""
        if type(x) is np.ndarray and type(dx) is np.ndarray and x.dtype.kind in "fc" and dx.shape == x.shape:
            return DualArray(x, dx, self)  # an array parameter: what the checks below come to
        if (type(x) is list or type(x) is tuple) and type(dx) is type(x) and len(dx) == len(x):
            duals = self._dual_arrays(x, dx)  # a list of parameters: a box per array, in one pass
            if duals is not None:
                return duals if type(x) is list else tuple(duals)
        dx = unthunk(dx)
        if isinstance(dx, AbstractZero):
            return x
        if is_differentiable_leaf(x):
            value = primal(x)
            shape = tuple(getattr(value, "shape", ()))
            if hasattr(dx, "shape") and tuple(dx.shape) != shape and not isinstance(dx, np.generic):
                raise ValueError(f"forward mode: the tangent of {where} has shape {tuple(dx.shape)}, the value {shape}")
            return _dual(x, dx, self)
        if isinstance(x, dict):
            return {k: self.dual(v, part(dx, (k,)), f"{where}[{k!r}]") for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return rebuild(x, [self.dual(v, part(dx, (i,)), f"{where}[{i}]") for i, v in enumerate(x)])
        if has_followable(x):
            return DualObject(x, dx, self)
        refuse_tangent_value(x, "forward mode")
        return x

    def wrap(self, y: Any, y_dot: Any) -> Any:
        """The output ``y`` of a call, followed with its tangent ``y_dot``."""
        if isinstance(y_dot, NoTangent):
            return y
        if is_differentiable_leaf(y):
            if isinstance(y, Box) and y._trace is self:
                raise ValueError(
                    "forward mode: a rule returned a value this pass follows: a function it differentiated closes "
                    "over a dual number of this pass (met in another pass); pass that value as an argument instead"
                )
            return _dual(y, y_dot, self)
        if isinstance(y, (list, tuple)):
            y_dot = unthunk(y_dot)
            return rebuild(y, [self.wrap(v, unthunk(part(y_dot, (i,)))) for i, v in enumerate(y)])
        return y

    def unwrap(self, y: Any) -> tuple[Any, Any]:
        """``(value, tangent)`` of a program's output; a value of an outer pass is a constant here."""
        if isinstance(y, Box):
            if y._trace is self:
                return y.value, y.tangent  # type: ignore[attr-defined]
            if y._trace is not None and y._trace.active and y._trace.level < self.level:
                return y, ZeroTangent()
            raise ValueError("forward mode: the function returned a dual number of another pass")
        if holds_boxes(y):
            return self.unwrap(pack(y))
        if isinstance(y, dict):
            pairs = {k: self.unwrap(v) for k, v in y.items()}
            values = {k: p[0] for k, p in pairs.items()}
            return values, structural({k: _Tangent(p[1]) for k, p in pairs.items()}, _tangent_of)
        if isinstance(y, (list, tuple)):
            pairs_ = [self.unwrap(v) for v in y]
            values_ = rebuild(y, [p[0] for p in pairs_])
            return values_, structural(rebuild(y, [_Tangent(p[1]) for p in pairs_]), _tangent_of)
        return y, constant_tangent(y)


class _Tangent:
    """A tangent standing in a container while ``structural`` rebuilds it."""

    __slots__ = ("t",)

    def __init__(self, t: Any) -> None:
        self.t = t


def _tangent_of(x: Any) -> Any:
    return x.t if isinstance(x, _Tangent) else constant_tangent(x)


def _zero_like(x: Any) -> Any:
    """A materialised zero tangent for an argument inside a container; rules may add to it."""
    if isinstance(x, np.ndarray):
        return np.zeros_like(x)
    if isinstance(x, np.generic):
        return x.dtype.type(0)
    if is_foreign_array(x):
        return namespace_of(x).zeros_like(x)
    return 0j if isinstance(x, complex) else 0.0


def _container_tangent(arg: Any, trace: _Pass) -> Any:
    """The tangent of a list, tuple or dict argument holding duals of ``trace``."""

    def leaf(x: Any) -> Any:
        if isinstance(x, Dual) and x._trace is trace:
            t = x.tangent
            return _zero_like(primal(x)) if isinstance(t, AbstractZero) else t
        return _zero_like(primal(x)) if is_differentiable_leaf(x) else NoTangent()

    return structural(arg, leaf)


class ForwardEngine(Engine):
    name = "forward mode"
    rule_name = "frule"

    def registry(self) -> Any:
        return frule

    def prepare(self, trace: Any, leaves: list[Leaf], args: tuple[Any, ...]) -> Any:
        first = leaves[0]
        tangents = [first[2].tangent if first[0] == 0 else _NO_TANGENT]  # type: ignore[attr-defined]
        for a in args:
            if isinstance(a, Dual) and a._trace is trace:
                tangents.append(a.tangent)
            elif isinstance(a, (list, tuple, dict)) and a:
                tangents.append(_container_tangent(a, trace))
            else:
                tangents.append(constant_tangent(a))
        return trace, tuple(tangents)

    def ask(self, context: Any, f: Any, values: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        trace, tangents = context
        for t in tangents:
            if not isinstance(t, AbstractZero):
                return frule(trace.config, tangents, f, *values, **kwargs)
        return f(*values, **kwargs), ZeroTangent()  # every tangent is a zero: so is the output's, without the rule

    def apply(self, context: Any, rule: Any, f: Any, values: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        tangents = context[1]
        if all(isinstance(t, AbstractZero) for t in tangents):
            return f(*values, **kwargs), ZeroTangent()
        return rule(tangents, f, *values, **kwargs)

    def record(self, context: Any, f: Any, values: tuple[Any, ...], result: Any) -> Any:
        y, y_dot = result
        if type(y) is np.ndarray and y.dtype.kind in "fc" and type(y_dot) is np.ndarray:
            return DualArray(y, y_dot, context[0])
        if type(y) is np.ndarray and y.dtype.kind == "O":
            if holds_boxes(y):  # a rule computed on numpy's lists of boxes
                y = pack(y)
            elif not isinstance(unthunk(y_dot), AbstractZero):
                raise objects_lost(f, values, "forward mode")
        return context[0].wrap(y, unthunk(y_dot))


_FORWARD = ForwardEngine()
_Pass.engine = _FORWARD


class Dual(Box):
    """A value with its tangent, ``.value`` and ``.tangent``, in one forward pass (``._trace``)."""

    __slots__ = ("tangent",)
    _default_engine = _FORWARD

    def __init__(self, value: Any, tangent: Any, trace: _Pass) -> None:
        self.value = value
        self.tangent = tangent
        self._trace = trace


class DualArray(ArrayBox, Dual):
    """A numpy array with its tangent."""

    __slots__ = ()


class DualScalar(ScalarBox, Dual):
    """A Python number or numpy scalar with its tangent."""

    __slots__ = ()


class DualObject(ObjectBox, Dual):
    """An object with fields and its ``Tangent``: calls use its class's rule, or run on dual fields."""

    __slots__ = ("opened",)

    def __init__(self, value: Any, tangent: Any, trace: _Pass) -> None:
        super().__init__(value, tangent, trace)
        self.opened: Any = None

    def _open(self) -> Any:
        if self.opened is None:
            fields = object_fields(self.value) or {}
            t = self.tangent
            changes = {}
            for name, v in fields.items():
                v_dot = t if isinstance(t, AbstractZero) else getattr(t, name)
                dual = self._trace.dual(v, v_dot, f"field {name} of a {type(self.value).__name__}")
                if dual is not v:
                    changes[name] = dual
            self.opened = construct(self.value, changes) if changes else self.value
        return self.opened


def _dual(x: Any, dx: Any, trace: _Pass) -> Dual:
    return (DualArray if is_array_leaf(x) else DualScalar)(x, dx, trace)


def _push(
    f: Callable[..., Any],
    f_dot: Any,
    args: tuple[Any, ...],
    arg_dots: tuple[Any, ...],
    kwargs: dict[str, Any],
    config: RuleConfig | None,
) -> tuple[Any, Any]:
    run = _Pass(config if config is not None else DualNumbers())
    dual_f = run.dual(f, f_dot, "the function")
    duals = tuple(run.dual(x, dx, f"argument {i + 1}") for i, (x, dx) in enumerate(zip(args, arg_dots)))
    run.start()
    try:
        return run.unwrap(top_level_call(dual_f, duals, kwargs, frule))
    finally:
        run.finish()


def jvp(f: Callable[..., Any], primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
    """``(f(*primals), J @ tangents)``: the Jacobian-vector product in one run of ``f``.

    ``tangents`` holds one tangent per primal, of its type: an array of the
    same shape, a float, ``Tangent(P, ...)`` for an object with fields,
    ``ZeroTangent()`` for a constant. An output that does not depend on the
    inputs has a ``ZeroTangent()`` tangent.

    >>> from chainrules_core import scalar_rule
    >>> def mul(x, y):
    ...     return x * y
    >>> scalar_rule(mul, lambda out, x, y: (y, x))
    >>> jvp(mul, (np.array([1.0, 2.0]), 3.0), (np.array([1.0, 0.0]), 1.0))
    (array([3., 6.]), array([4., 2.]))
    """
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: {len(tangents)} tangents for {len(primals)} primals")
    return _push(f, NoTangent(), tuple(primals), tuple(tangents), {}, None)


def jacobian(f: Callable[..., Any], *args: Any) -> tuple[Any, ...]:
    """The Jacobian of ``f`` with respect to each argument, built from one ``jvp`` per input entry.

    For an output of shape ``S`` and an argument of shape ``T`` the Jacobian
    has shape ``S + T``. A complex argument is moved along its real axis
    (for a holomorphic ``f`` that gives ``f'(z)``). Arguments without a
    tangent space (ints, bools) get ``NoTangent()``.

    >>> from chainrules_core import scalar_rule
    >>> def square(x):
    ...     return x * x
    >>> scalar_rule(square, lambda out, x: 2 * x)
    >>> jacobian(square, np.array([1.0, 2.0]))
    (array([[2., 0.],
           [0., 4.]]),)
    """
    zeros = tuple(ZeroTangent() for _ in args)
    y = None
    jacobians: list[Any] = []
    for i, x in enumerate(args):
        if not is_differentiable_leaf(x):
            if has_followable(x):
                raise TypeError(f"jacobian: argument {i + 1} is a {type_name(x)}; give numbers or arrays")
            jacobians.append(NoTangent())
            continue
        basis = np.zeros(np.shape(x), dtype=np.result_type(x))
        columns = []
        for k in range(basis.size):
            e = basis.copy()
            e.flat[k] = 1
            direction = e if isinstance(x, np.ndarray) else e[()] if isinstance(x, np.generic) else e.item()
            y, y_dot = jvp(f, args, (*zeros[:i], direction, *zeros[i + 1 :]))
            columns.append(_materialize(y_dot, y, f))
        if not columns:
            y = f(*args)
            columns_array = np.zeros((0, *np.shape(y)))
        else:
            columns_array = np.stack(columns)
        jacobians.append(np.moveaxis(columns_array, 0, -1).reshape(np.shape(y) + np.shape(x)))
    return tuple(jacobians)


def _materialize(y_dot: Any, y: Any, f: Any) -> Any:
    if not is_differentiable_leaf(y):
        raise TypeError(f"jacobian: the function returned a {type_name(y)}; it must return a number or an array")
    if isinstance(y_dot, AbstractZero):
        return np.zeros(np.shape(y), dtype=np.result_type(y))
    return np.asarray(y_dot)
