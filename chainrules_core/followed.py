"""Followed values: what a rule needs to know so that an engine can differentiate it again (second order).

An engine that nests (a Hessian by forward over reverse, a gradient of a
gradient) runs rules on its own *followed* values, pullbacks included: the
outer pass records what the rule computes, as it would any other program.
Its values are objects of the engine's own classes (boxes, tracers), which
say so with two methods:

* ``__chainrules_primal__(self)`` returns the plain value it stands for;
* ``__chainrules_call__(self, fn, *args, **kwargs)`` computes
  ``fn(*args, **kwargs)``, some of whose arguments it follows, as one
  operation of its engine (with ``fn``'s own rules).

Most of what a rule computes an engine follows piece by piece: numpy's
functions and operators on its values reach it through numpy's protocols.
Three things it cannot follow, and a rule meant to be differentiated twice
avoids or routes through the helpers here:

* a step numpy does not hand to the engine: a write into an array
  (``out=``, ``a[i] = v``, ``np.add.at``), a scipy or ``math`` function
  that converts its argument with ``np.asarray`` or ``float``. Call it as
  ``follow(fn, *args)``: one operation of the engine, differentiated with
  ``fn``'s own rules (a list or tuple argument is followed when one of its
  items is: ``math.fsum``);
* a decision read off a value (an order, a mask, a rank, a branch): read it
  off ``primal_of(x)``, and compute what depends on ``x`` from ``x`` itself;
* a fast path (an exact-type test): a followed value is not an ndarray, so
  the general rule answers it.

``is_followed(x)`` tells whether a value is an engine's. ``LinearAdjoint``
(``chainrules_core.rule_definition``) is a pullback with rules of its own,
for a rule linear in its input. The reference engines of
``chainrules.engines`` implement the protocol, and
``chainrules.testing``'s second-order checks (``check --order 2``) test a
rule with them.

>>> class Traced:  # the smallest engine: it records which functions ran on its values
...     log: list = []
...     def __init__(self, value):
...         self.value = value
...     def __chainrules_primal__(self):
...         return self.value
...     def __chainrules_call__(self, fn, *args, **kwargs):
...         Traced.log.append(fn.__name__)
...         return Traced(fn(*[primal_of(a) for a in args], **kwargs))
>>> import math
>>> y = follow(math.sqrt, Traced(4.0))
>>> primal_of(y), Traced.log, is_followed(y), follow(math.sqrt, 4.0)
(2.0, ['sqrt'], True, 2.0)

The engines raise ``NoRuleError`` for an operation on followed values that
has no rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class NoRuleError(TypeError):
    """An operation on followed values has no rule, so the engine that follows them cannot differentiate it.

    Raised by the engines (``chainrules.engines``), by the adapters' derived path, and by a library function
    without a rule that receives followed values (``chainrules.routing``); the message names the function and
    how to go on.
    """


def engine_call(x: Any) -> Callable[..., Any] | None:
    """The ``__chainrules_call__`` of the engine that follows ``x``, or ``None``.

    An object array holding followed values (what numpy makes of a list of
    them) is followed by the class of the first one.
    """
    call = getattr(type(x), "__chainrules_call__", None)
    if call is None and getattr(getattr(x, "dtype", None), "kind", None) == "O" and hasattr(x, "flat"):
        call = next((c for v in x.flat if (c := getattr(type(v), "__chainrules_call__", None))), None)
    return call


def follow(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``, as one operation of the engine that follows an argument, if one does.

    For a step an engine cannot follow piece by piece: a function that
    converts its arguments (scipy's, ``math``'s), a write into an array. The
    engine differentiates the call with ``fn``'s own rules.
    """
    for a in args:
        call = engine_call(a)
        if call is None and type(a) in (list, tuple):  # math.fsum([followed, ...]): the items are followed
            a = next((v for v in a if engine_call(v) is not None), None)
            call = None if a is None else engine_call(a)
        if call is not None:
            return call(a, fn, *args, **kwargs)
    return fn(*args, **kwargs)


def is_followed(x: Any) -> bool:
    """Whether an engine follows ``x`` (nested differentiation runs the rules on such values)."""
    return hasattr(type(x), "__chainrules_call__")


def primal_of(x: Any) -> Any:
    """The plain value an engine's followed ``x`` stands for; ``x`` itself otherwise.

    For what a rule reads off its inputs without differentiating it: an
    order, a mask, a rank, a branch.
    """
    primal = getattr(type(x), "__chainrules_primal__", None)
    return x if primal is None else primal(x)
