"""Steps of rules that an engine follows as one operation: what nested differentiation needs of the rules.

An engine that nests (a Hessian by forward over reverse, a gradient of a
gradient) runs rules on its own followed values, pullbacks included, and
follows what they compute. Most steps it follows piece by piece; a step it
cannot (an array written in place, a scipy or ``math`` function that
converts its arguments) a rule takes through ``follow``: one call of a
function with rules of its own. ``LinearAdjoint`` is such a function: the
pullback of a rule linear in its first argument (``linear_in_first_rule``),
whose rules are registered here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import NoTangent, ProjectTo, frule, rrule, unthunk


def follow(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``, as one operation of the AD engine that follows an argument, if one does.

    Nested differentiation runs rules on an engine's values (see
    ``__chainrules_call__`` in ``chainrules_core.projection``). A step that the
    engine cannot follow piece by piece (a pullback writing into an array in
    place, a scipy or ``math`` function converting its argument) it follows
    as one call of a function with rules of its own.
    """
    for a in args:
        call = getattr(type(a), "__chainrules_call__", None)
        if call is None and type(a) is np.ndarray and a.dtype.kind == "O":  # numpy's array of such values
            call = next((c for v in a.flat if (c := getattr(type(v), "__chainrules_call__", None))), None)
        if call is not None:
            return call(a, fn, *args, **kwargs)
    return fn(*args, **kwargs)


def is_followed(x: Any) -> bool:
    """Whether an AD engine follows ``x`` (nested differentiation): its rules then run on such values."""
    return hasattr(type(x), "__chainrules_call__")


class LinearAdjoint:
    """The pullback of a function linear in its first argument, ``out_bar -> adjoint(out_bar, x, *args)``.

    A callable object with rules of its own, for a pullback that an AD engine
    follows (a gradient of a gradient): it is linear, so its pushforward is
    itself and its pullback is the function's pushforward ``f(x_dot, *args)``
    (the adjoint of the adjoint). ``x`` only gives the adjoint its shape and dtype.
    """

    __slots__ = ("adjoint", "args", "f", "kwargs", "x")

    def __init__(self, adjoint: Callable[..., Any], f: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any]):
        self.adjoint, self.f, self.x, self.args, self.kwargs = adjoint, f, x, args, kwargs

    def __call__(self, out_bar: Any) -> Any:
        return self.adjoint(out_bar, self.x, *self.args, **self.kwargs)


@rrule.register(LinearAdjoint)
def _rrule_linear_adjoint(a: LinearAdjoint, out_bar: Any) -> Any:
    project = ProjectTo(out_bar)

    def linear_adjoint_pullback(x_bar_bar: Any) -> tuple[Any, Any]:
        return NoTangent(), project(follow(a.f, unthunk(x_bar_bar), *a.args, **a.kwargs))

    return follow(a, out_bar), linear_adjoint_pullback


@frule.register(LinearAdjoint)
def _frule_linear_adjoint(tangents: tuple[Any, Any], a: LinearAdjoint, out_bar: Any) -> Any:
    return follow(a, out_bar), follow(a, unthunk(tangents[1]))


def primal_of(x: Any) -> Any:
    """The plain value an AD engine's followed ``x`` stands for (nested differentiation); ``x`` itself otherwise.

    For what a rule reads off its inputs without differentiating it: an
    order, a mask, a rank, a branch.
    """
    primal = getattr(type(x), "__chainrules_primal__", None)
    return x if primal is None else primal(x)
