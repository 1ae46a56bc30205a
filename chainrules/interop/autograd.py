"""autograd: functions whose derivatives come from ``rrule`` and ``frule``.

``wrap(f)`` gives an autograd primitive with a VJP through ``rrule`` and a
JVP through ``frule``: ``grad``, ``elementwise_grad``, ``jacobian``,
``value_and_grad`` and ``make_jvp`` work on it, and so do their compositions
for second derivatives (``hessian``, ``grad(grad)``, ``make_jvp(grad)``),
which the engines of ``chainrules.engines`` compute from the rule's pullback
and pushforward; third derivatives raise.

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

from ._common import Call, unflatten_output, with_name_of, with_path
from ._second_order import jvp_of, pullback_function, pushforward_function, vjp_of

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
        wanted = [i + 1 in argnums for i in range(len(values))]
        again = any(isbox(v) for v in values)  # an outer derivative follows the operands: a second derivative
        pullback = None if again else evaluation(ans, call, values)

        def vjp(out_bar: Any) -> tuple[Any, ...]:
            seeds = [out_bar] if call.kind is None else list(out_bar)
            if again or any(isbox(s) for s in seeds):
                cotangents = list(_pullback_primitive(call, tuple(wanted), len(values), *values, *seeds))
            else:
                cotangents = call.pullback(pullback, values, seeds, wanted, conjugate=True)
            return tuple(vspace(args[i]).zeros() if cotangents[i - 1] is None else cotangents[i - 1] for i in argnums)

        return vjp

    def jvp_maker(
        argnums: Sequence[int], dots: Sequence[Any], ans: Any, args: Sequence[Any], kwargs: dict[str, Any]
    ) -> Any:
        call, *values = args
        all_dots: list[Any] = [None] * len(values)
        for i, dot in zip(argnums, dots):
            all_dots[i - 1] = dot
        outputs = [ans] if call.kind is None else list(ans)
        if any(isbox(v) for v in [*values, *dots]):  # a second derivative
            tangents = list(_pushforward_primitive(call, len(values), *values, *all_dots))
        else:
            evaluation(ans, call, values)
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

    return with_path(with_name_of(wrapped, f), f)


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


# ----- second derivatives: the pullback and the pushforward as primitives, differentiated by the engines -----


def _filled(found: Sequence[Any], like: Sequence[Any]) -> tuple[Any, ...]:
    """``found`` with each ``None`` (a zero) as zeros of the shape of the matching entry of ``like``."""
    return tuple(np.zeros(np.shape(x), dtype=np.result_type(x, 1.0)) if t is None else t for t, x in zip(found, like))


@primitive
def _pullback_primitive(call: Call, wanted: tuple[bool, ...], n: int, *arrays: Any) -> tuple[Any, ...]:
    """The pullback of ``call`` (autograd's conjugate convention) at the operands ``arrays[:n]`` for the seeds
    ``arrays[n:]``: one cotangent per operand."""
    cotangents = pullback_function(call, wanted, conjugate=True)(*arrays)
    return _filled(cotangents, arrays[:n])


@primitive
def _pushforward_primitive(call: Call, n: int, *arrays: Any) -> tuple[Any, ...]:
    """The pushforward of ``call`` at the operands ``arrays[:n]`` along the tangents ``arrays[n:]``: one tangent
    per output entry."""
    tangents = pushforward_function(call)(*arrays)
    return _filled(tangents, call.primal(list(arrays[:n])) if any(t is None for t in tangents) else tangents)


def _second_vjp(g_of: Callable[..., Any], head: int, conjugate: bool) -> Callable[..., Any]:
    """The VJP maker of a derivative primitive: the engines' reverse pass over its numpy function."""

    def vjp_maker(argnums: Sequence[int], ans: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        call, arrays = args[0], list(args[head:])
        _refuse_boxes(call, arrays)

        def vjp(seeds: Any) -> tuple[Any, ...]:
            _refuse_boxes(call, list(seeds))
            bars = vjp_of(call, g_of(args), arrays, list(seeds), conjugate)
            return tuple(vspace(args[i]).zeros() if bars[i - head] is None else bars[i - head] for i in argnums)

        return vjp

    return vjp_maker


def _second_jvp(g_of: Callable[..., Any], head: int) -> Callable[..., Any]:
    """The JVP maker of a derivative primitive: the engines' forward pass over its numpy function."""

    def jvp_maker(
        argnums: Sequence[int], dots: Sequence[Any], ans: Any, args: Sequence[Any], kwargs: dict[str, Any]
    ) -> Any:
        call, arrays = args[0], list(args[head:])
        _refuse_boxes(call, [*arrays, *dots])
        all_dots: list[Any] = [None] * len(arrays)
        for i, dot in zip(argnums, dots):
            all_dots[i - head] = dot
        tangents = jvp_of(call, g_of(args), arrays, all_dots)
        return tuple(vspace(o).zeros() if t is None else t for t, o in zip(tangents, ans))

    return jvp_maker


def _pullback_of(args: Sequence[Any]) -> Any:
    return pullback_function(args[0], args[1], conjugate=True)


def _pushforward_of(args: Sequence[Any]) -> Any:
    return pushforward_function(args[0])


defvjp_argnums(_pullback_primitive, _second_vjp(_pullback_of, 3, conjugate=True))
defjvp_argnums(_pullback_primitive, _second_jvp(_pullback_of, 3))
defvjp_argnums(_pushforward_primitive, _second_vjp(_pushforward_of, 2, conjugate=True))
defjvp_argnums(_pushforward_primitive, _second_jvp(_pushforward_of, 2))


def _refuse_boxes(call: Call, values: Sequence[Any]) -> None:
    """Raise when a second derivative's inputs are themselves being differentiated: a third derivative."""
    if any(isbox(v) for v in values):
        raise NotImplementedError(
            f"{call.name}: third derivatives through chainrules.interop.autograd are not available (second "
            f"derivatives come from the engines differentiating its pullback or pushforward once)"
        )
