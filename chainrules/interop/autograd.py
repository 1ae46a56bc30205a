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

from autograd.extend import defjvp_argnums, defvjp_argnums, primitive, vspace
from autograd.tracer import isbox

from chainrules_core import function_name

from ._common import Call, named_after, unflatten_output

__all__ = ["wrap"]


def wrap(f: Any) -> Callable[..., Any]:
    """An autograd primitive that computes ``f`` and differentiates it through ``rrule`` and ``frule``.

    Positional arguments are differentiable where they are floats or
    complex numbers or arrays; keyword arguments pass through and get no
    derivative. A function returning a tuple returns a tuple here too.

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

    def traced(*args: Any, **kwargs: Any) -> Any:
        call, values = _split(f, args, kwargs)
        out, pullback = call.rrule(values)
        call.record(out)
        last.evaluation = (out, call, values, pullback)
        return out

    def evaluation(ans: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[Call, list[Any], Any]:
        """The evaluation that produced ``ans``: the one just made, or a new one if autograd asks later."""
        found, last.evaluation = getattr(last, "evaluation", None), None
        if found is not None and found[0] is ans:
            return found[1], found[2], found[3]
        call, values = _split(f, args, kwargs)
        out, pullback = call.rrule(values)
        call.record(out)
        return call, values, pullback

    def vjp_maker(argnums: Sequence[int], ans: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        _refuse_boxes(f, args)
        call, values, pullback = evaluation(ans, args, kwargs)
        wanted = [i in argnums for i in range(len(values))]

        def vjp(out_bar: Any) -> tuple[Any, ...]:
            seeds = [out_bar] if call.kind is None else list(out_bar)
            _refuse_boxes(f, seeds)
            cotangents = call.pullback(pullback, values, seeds, wanted, conjugate=True)
            return tuple(vspace(args[i]).zeros() if cotangents[i] is None else cotangents[i] for i in argnums)

        return vjp

    def jvp_maker(
        argnums: Sequence[int], dots: Sequence[Any], ans: Any, args: Sequence[Any], kwargs: dict[str, Any]
    ) -> Any:
        _refuse_boxes(f, [*args, *dots])
        call, values, _ = evaluation(ans, args, kwargs)
        all_dots: list[Any] = [None] * len(values)
        for i, dot in zip(argnums, dots):
            all_dots[i] = dot
        outputs = [ans] if call.kind is None else list(ans)
        tangents = call.pushforward(values, all_dots) or [None] * len(outputs)
        return unflatten_output([vspace(o).zeros() if t is None else t for t, o in zip(tangents, outputs)], call.kind)

    traced.__name__ = getattr(f, "__name__", type(f).__name__)
    wrapped_primitive = primitive(traced)
    defvjp_argnums(wrapped_primitive, vjp_maker)
    defjvp_argnums(wrapped_primitive, jvp_maker)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if any(isbox(a) for a in args):
            return wrapped_primitive(*args, **kwargs)
        return f(*args, **kwargs)

    return named_after(wrapped, f)


def _split(f: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> tuple[Call, list[Any]]:
    """Every positional argument is an operand (autograd boxes any of them); keywords stay in the call."""
    return Call.split(f, args, kwargs, lambda _: True, keyword_operands=False)


def _refuse_boxes(f: Any, values: Sequence[Any]) -> None:
    """Raise when a rule's inputs are themselves being differentiated: a second derivative."""
    if any(isbox(v) for v in values):
        raise NotImplementedError(
            f"{function_name(f)}: second derivatives through chainrules.interop.autograd are not available "
            f"(its pullback and pushforward run in numpy)"
        )
