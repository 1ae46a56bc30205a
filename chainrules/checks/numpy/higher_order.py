"""Declared checks of the higher order rules (``chainrules.rules.numpy.higher_order``)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.engines import EngineConfig
from chainrules.testing.edges import refuse_edges
from chainrules.testing.second_order import refuse_order2
from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    Tangent,
    ZeroTangent,
    frule,
    rrule,
    scalar_rule,
    unthunk,
)
from chainrules_core.testing.cases import REALS, Arg, At, Case


def _damped_step(acc: Any, x: Any) -> Any:
    return 0.5 * acc + np.sin(x)


scalar_rule(_damped_step, lambda out, acc, x: (0.5, np.cos(x)))


class _Affine:
    """``_Affine(a, b)(acc, x) == a * acc + b * x``: a callable object with fields, and its rules."""

    def __init__(self, a: float, b: float) -> None:
        self.a = a
        self.b = b

    def __call__(self, acc: Any, x: Any) -> Any:
        return self.a * acc + self.b * x


@rrule.register(_Affine)
def _rrule_affine(step: _Affine, acc: Any, x: Any) -> Any:
    project_acc, project_x = ProjectTo(acc), ProjectTo(x)

    def affine_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return ZeroTangent(), ZeroTangent(), ZeroTangent()
        self_bar = Tangent(
            _Affine, a=float(np.real(np.sum(np.conj(acc) * out_bar))), b=float(np.real(np.sum(np.conj(x) * out_bar)))
        )
        return self_bar, project_acc(step.a * out_bar), project_x(step.b * out_bar)

    return step(acc, x), affine_pullback


@frule.register(_Affine)
def _frule_affine(tangents: tuple[Any, ...], step: _Affine, acc: Any, x: Any) -> Any:
    step_dot, acc_dot, x_dot = (unthunk(t) for t in tangents)
    out = step(acc, x)
    out_dot: Any = ZeroTangent()
    if not isinstance(step_dot, AbstractZero):
        out_dot = out_dot + step_dot.a * acc + step_dot.b * x
    if not isinstance(acc_dot, AbstractZero):
        out_dot = out_dot + step.a * acc_dot
    if not isinstance(x_dot, AbstractZero):
        out_dot = out_dot + step.b * x_dot
    return out, ProjectTo(out)(out_dot)


def _log_sum_exp(v: Any) -> Any:
    top = np.max(np.real(v))
    return top + np.log(np.sum(np.exp(v - top)))


@rrule.register(_log_sum_exp)
def _rrule_log_sum_exp(f: Any, v: Any) -> Any:
    out = _log_sum_exp(v)
    project_v = ProjectTo(v)

    def log_sum_exp_pullback(out_bar: Any) -> tuple[Any, Any]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), ZeroTangent()
        return NoTangent(), project_v(np.conj(np.exp(v - out)) * out_bar)

    return out, log_sum_exp_pullback


@frule.register(_log_sum_exp)
def _frule_log_sum_exp(tangents: tuple[Any, ...], f: Any, v: Any) -> Any:
    out = _log_sum_exp(v)
    v_dot = unthunk(tangents[1])
    if isinstance(v_dot, AbstractZero):
        return out, ZeroTangent()
    return out, np.sum(np.exp(v - out) * v_dot)


def _outer_self(v: Any) -> Any:
    return v[:, None] * v[None, :]


@rrule.register(_outer_self)
def _rrule_outer_self(f: Any, v: Any) -> Any:
    project_v = ProjectTo(v)

    def outer_self_pullback(out_bar: Any) -> tuple[Any, Any]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), ZeroTangent()
        return NoTangent(), project_v(out_bar @ np.conj(v) + out_bar.T @ np.conj(v))

    return _outer_self(v), outer_self_pullback


@frule.register(_outer_self)
def _frule_outer_self(tangents: tuple[Any, ...], f: Any, v: Any) -> Any:
    v_dot = unthunk(tangents[1])
    if isinstance(v_dot, AbstractZero):
        return _outer_self(v), ZeroTangent()
    return _outer_self(v), v_dot[:, None] * v[None, :] + v[:, None] * v_dot[None, :]


def _square(v: Any) -> Any:
    return v * v


def _scaled(v: Any, a: Any) -> Any:
    return a * v


def _centered(v: Any) -> Any:
    """Not elementwise: every entry of the piece moves every value."""
    return v - np.mean(v)


_ENGINES = {"config": EngineConfig()}
_LINE = At([-1.5, -0.3, 0.4, 1.2, 2.5])
_NEGATIVE = np.array([True, True, False, False, False])
_ABOVE_ONE = np.array([False, False, False, True, True])
_BELOW_ONE = np.array([True, True, True, False, False])
_POSITIVE = np.array([False, False, True, True, True])

register_shipped_cases(
    "numpy.higher_order",
    Case(functools.reduce, (_damped_step, Arg(REALS, (5,))), options=_ENGINES),
    Case(functools.reduce, (_damped_step, Arg(REALS, (4, 3))), name="rows", options=_ENGINES),
    Case(
        functools.reduce,
        (_damped_step, Arg(REALS, (4,)), Arg(REALS, ())),
        name="with initial",
        options=_ENGINES,
    ),
    Case(
        functools.reduce,
        (_Affine(0.7, -1.3), Arg(REALS, (5,))),
        name="callable object with fields",
        dtypes=("float64",),
        options=_ENGINES,
    ),
    Case(np.apply_along_axis, (_log_sum_exp, 1, Arg(REALS, (3, 4))), options=_ENGINES),
    Case(np.apply_along_axis, (_log_sum_exp, 0, Arg(REALS, (3, 4))), name="axis 0", options=_ENGINES),
    Case(
        np.apply_along_axis,
        (_outer_self, -1, Arg(REALS, (2, 3, 4))),
        name="matrix results",
        options=_ENGINES,
    ),
    Case(
        np.piecewise,
        (_LINE, [_NEGATIVE, _ABOVE_ONE], [np.sin, _square, 0.7]),
        name="otherwise a number",
        options=_ENGINES,
    ),
    Case(
        np.piecewise,
        (_LINE, [_BELOW_ONE, _POSITIVE], [np.sin, np.exp]),
        name="a later condition wins",
        options=_ENGINES,
    ),
    Case(
        np.piecewise, (_LINE, [_NEGATIVE], [_scaled, _scaled], Arg(REALS, ())), name="extra argument", options=_ENGINES
    ),
    Case(np.piecewise, (_LINE, _POSITIVE, [_centered, np.cos]), name="a piece not elementwise", options=_ENGINES),
    Case(
        np.piecewise,
        (Arg(REALS, (2, 3)), [np.array([[True, False, True], [False, False, True]])], [_square]),
        name="2-d, otherwise zero",
        options=_ENGINES,
    ),
    Case(np.piecewise, (At(np.array(0.3)), [True], [np.sin]), name="0-d", options=_ENGINES),
    Case(np.piecewise, (At(-0.3), [False], [np.sin, np.cos]), name="a number", options=_ENGINES),
)

refuse_edges(
    "numpy.higher_order",
    functools.reduce,
    ("huge",),
    "0.5 acc + sin(x) at 1e300: sin turns far below the finite-difference steps, which see the linear part only",
)
refuse_edges(
    "numpy.higher_order",
    np.apply_along_axis,
    ("empty",),
    "the rule declines (None) when the axis is empty: there is no slice to differentiate func1d at",
)

refuse_edges(
    "numpy.higher_order",
    np.piecewise,
    ("huge",),
    "sin, cos and exp of the pieces at 1e300: the finite-difference steps see nothing of sin and cos, and exp "
    "overflows",
)

refuse_order2(
    "numpy.higher_order",
    functools.reduce,
    "the step is a callable object with fields and rules of its own: nested inside another engine's pass, the "
    "engines give a wrong second derivative (0 along a field where finite differences read 0.43); a step "
    "function without fields passes",
    where="callable object with fields",
)
