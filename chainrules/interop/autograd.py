"""autograd: functions whose derivatives come from ``rrule`` and ``frule``.

``wrap(f)`` gives an autograd primitive with a VJP through ``rrule`` and a
JVP through ``frule``: ``grad``, ``elementwise_grad``, ``jacobian``,
``value_and_grad`` and ``make_jvp`` work on it. Second derivatives raise.

In reverse mode the primal runs once: the forward pass calls ``rrule`` and
the VJP uses its pullback. In forward mode the primal runs twice (the
forward pass, then ``frule``). Called without autograd's boxes, the wrapper
calls ``f`` directly.

autograd's cotangent of a complex value is the conjugate of the one in
docs/conventions.md; the VJP conjugates at the boundary.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from autograd.builtins import SequenceBox
from autograd.extend import defjvp_argnums, defvjp_argnums, primitive, vspace
from autograd.tracer import isbox

from chainrules_core import function_name

from ._common import Call, named_after, unflatten_output

__all__ = ["wrap"]


def wrap(f: Any) -> Callable[..., Any]:
    """An autograd primitive that computes ``f`` and differentiates it through ``rrule`` and ``frule``.

    Positional arguments are differentiable where they are floats or
    complex numbers or arrays, and so are the entries of a list or tuple
    argument (``multi_dot``'s arrays); keyword arguments pass through and get
    no derivative. A function returning a tuple returns a tuple here too.

    >>> import autograd
    >>> import autograd.numpy as anp
    >>> import chainrules  # registers the rules for numpy
    >>> from chainrules.interop.autograd import wrap
    >>> solve = wrap(np.linalg.solve)
    >>> a = np.array([[2.0, 1.0], [1.0, 3.0]])
    >>> autograd.grad(lambda b: anp.sum(solve(a, b)))(np.array([1.0, 2.0]))
    array([0.4, 0.2])
    >>> autograd.make_jvp(wrap(np.sin))(np.zeros(2))(np.ones(2))[1]
    array([1., 1.])
    """
    last = threading.local()  # the evaluation the VJP or JVP maker, called right after it, picks up

    def traced(call: Call, *values: Any) -> Any:
        out, pullback = call.rrule(list(values))
        call.record(out)
        out = _known_to_autograd(out, call.kind)
        last.evaluation = (out, pullback)
        return out

    def evaluation(ans: Any, call: Call, values: Sequence[Any]) -> Any:
        """The pullback of the evaluation that produced ``ans``: the one just made, or a new one if asked later."""
        found, last.evaluation = getattr(last, "evaluation", None), None
        if found is not None and found[0] is ans:
            return found[1]
        out, pullback = call.rrule(list(values))
        call.record(out)
        return pullback

    def vjp_maker(argnums: Sequence[int], ans: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        call, *values = args
        _refuse_boxes(f, values)
        pullback = evaluation(ans, call, values)
        wanted = [i + 1 in argnums for i in range(len(values))]

        def vjp(out_bar: Any) -> tuple[Any, ...]:
            seeds = [out_bar] if call.kind is None else list(out_bar)
            _refuse_boxes(f, seeds)
            cotangents = call.pullback(pullback, values, seeds, wanted, conjugate=True)
            return tuple(vspace(args[i]).zeros() if cotangents[i - 1] is None else cotangents[i - 1] for i in argnums)

        return vjp

    def jvp_maker(
        argnums: Sequence[int], dots: Sequence[Any], ans: Any, args: Sequence[Any], kwargs: dict[str, Any]
    ) -> Any:
        call, *values = args
        _refuse_boxes(f, [*values, *dots])
        evaluation(ans, call, values)
        all_dots: list[Any] = [None] * len(values)
        for i, dot in zip(argnums, dots):
            all_dots[i - 1] = dot
        outputs = [ans] if call.kind is None else list(ans)
        tangents = call.pushforward(values, all_dots) or [None] * len(outputs)
        return unflatten_output([vspace(o).zeros() if t is None else t for t, o in zip(tangents, outputs)], call.kind)

    traced.__name__ = getattr(f, "__name__", type(f).__name__)
    wrapped_primitive = primitive(traced)
    defvjp_argnums(wrapped_primitive, vjp_maker)
    defjvp_argnums(wrapped_primitive, jvp_maker)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        call, operands = Call.split(f, args, kwargs, _is_operand, keyword_operands=False, spread=_is_boxed_sequence)
        if any(isbox(o) for o in operands):
            return wrapped_primitive(call, *operands)
        return f(*args, **kwargs)

    return named_after(wrapped, f)


def _is_operand(x: Any) -> bool:
    """Every positional argument but a list or tuple (autograd boxes any of them); keywords stay in the call."""
    return not isinstance(x, (list, tuple))


def _is_boxed_sequence(x: Any) -> bool:
    """A list or tuple argument being differentiated, or holding an entry that is: its entries become operands."""
    return isinstance(x, SequenceBox) or (isinstance(x, (list, tuple)) and any(isbox(e) for e in x))


def _known_to_autograd(out: Any, kind: Any) -> Any:
    """``out`` with integer and bool scalars (``frexp``'s exponent of a float) as 0-d arrays: autograd has no
    vector space for ``int`` or ``np.int32``, and they get no derivative either way."""

    def known(o: Any) -> Any:
        return np.asarray(o) if isinstance(o, (int, np.integer, np.bool_)) else o

    if kind is None:
        return known(out)
    return unflatten_output([known(o) for o in out], kind)


def _refuse_boxes(f: Any, values: Sequence[Any]) -> None:
    """Raise when a rule's inputs are themselves being differentiated: a second derivative."""
    if any(isbox(v) for v in values):
        raise NotImplementedError(
            f"{function_name(f)}: second derivatives through chainrules.interop.autograd are not available "
            f"(its pullback and pushforward run in numpy)"
        )
