"""Second derivatives for the adapters: a pullback or pushforward of a wrapped call, differentiated by the engines.

The first derivatives of a wrapped call are numpy functions of numpy arrays:
its pullback, of the operands and the output seeds (``pullback_function``),
and its pushforward, of the operands and their tangents
(``pushforward_function``). A framework differentiating one of them again
gets their vector-Jacobian product from the reverse engine
(``chainrules.engines.forward``: reverse over reverse) and their
Jacobian-vector product from the forward engine (``chainrules.engines.jvp``:
forward over reverse, or forward over forward), which run the rules' numpy
code on their own values. A rule whose pullback the engines cannot follow
raises there, naming it; nothing becomes a silent zero.

Both take and give lists with ``None`` for a zero (or an operand without a
tangent space), as ``Call.pullback`` and ``Call.pushforward`` do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NotImplementedTangent,
    NotImplementedTangentError,
    ZeroTangent,
    rrule,
    unthunk,
)

from ._common import Call, conjugated, has_tangent_space, path_of

ArrayFunction = Callable[..., Sequence[Any]]
"""A numpy function of arrays (``None`` for a zero) returning a list of arrays (``None`` for a zero)."""


def pullback_function(call: Call, wanted: Sequence[bool], conjugate: bool = False) -> ArrayFunction:
    """The pullback of ``call`` as a function of its operands, then one seed per output entry (conjugated at both
    ends with ``conjugate``, as ``Call.pullback``)."""

    def pullback_of(*arrays: Any) -> list[Any]:
        values, seeds = list(arrays[: call.n_operands]), list(arrays[call.n_operands :])
        _, pullback = _rrule(call, values)
        return call.pullback(pullback, values, seeds, wanted, conjugate)

    return pullback_of


def _rrule(call: Call, values: list[Any]) -> tuple[Any, Any]:
    """``rrule`` of the call on values an engine follows; a rule registered for the primals' types (``operator.matmul``
    on arrays) is found by those types and run on the followed values."""
    from chainrules.engines import derived_rrule, value

    f, args, kwargs = call.bind(values)
    result = rrule(f, *args, **kwargs)
    if result is None:
        rule = rrule.find(f, *value(args))
        result = None if rule is None else rule(f, *args, **kwargs)
    if result is None and path_of(call.f) == "derived":
        result = derived_rrule(f)(f, *args, **kwargs)
    if result is None:
        raise call.no_rule("rrule", values)
    return result  # type: ignore[no-any-return]


def pushforward_function(call: Call) -> ArrayFunction:
    """The pushforward of ``call`` as a function of its operands, then one tangent per operand."""

    def pushforward_of(*arrays: Any) -> list[Any]:
        values, dots = list(arrays[: call.n_operands]), list(arrays[call.n_operands :])
        return call.pushforward(values, dots) or [None] * call.n_outputs

    return pushforward_of


def vjp_of(call: Call, g: ArrayFunction, xs: Sequence[Any], seeds: Sequence[Any], conjugate: bool = False) -> list[Any]:
    """The cotangent of each input of ``g`` at ``xs`` for one seed per output of ``g`` (reverse over ``g``).

    With ``conjugate``, seeds and cotangents are the conjugates of ours (JAX's and autograd's convention).
    """
    from chainrules.engines import forward

    if conjugate:
        return [conjugated(b, True) for b in vjp_of(call, g, xs, [conjugated(s, True) for s in seeds])]
    live = _live(xs)
    out, back = forward(_on(g, xs, live), *[xs[i] for i in live])
    y_bar = tuple(ZeroTangent() if s is None or o is None else s for s, o in zip(seeds, out))
    bars = back(y_bar) if any(not isinstance(b, AbstractZero) for b in y_bar) else ()
    result: list[Any] = [None] * len(xs)
    for i, b in zip(live, bars):
        result[i] = _array(call, b)
    return result


def jvp_of(call: Call, g: ArrayFunction, xs: Sequence[Any], dots: Sequence[Any]) -> list[Any]:
    """The tangent of each output of ``g`` at ``xs`` along one tangent per input (forward over ``g``).

    A zero tangent is a zero array of the output's shape and dtype where the
    output is a float or complex array, ``None`` where it is ``None``.
    """
    from chainrules.engines import jvp

    live = _live(xs)
    tangents = tuple(ZeroTangent() if dots[i] is None else dots[i] for i in live)
    out, out_dot = jvp(_on(g, xs, live), tuple(xs[i] for i in live), tangents)
    out_dot = unthunk(out_dot)
    result = []
    for k, o in enumerate(out):
        t = None if isinstance(out_dot, AbstractZero) else _array(call, out_dot[k])
        if t is None and o is not None and has_tangent_space(o):
            t = np.zeros(np.shape(o), dtype=np.asarray(o).dtype)
        result.append(t)
    return result


def _live(xs: Sequence[Any]) -> list[int]:
    """The inputs that vary: float and complex arrays (``None`` is a zero, held fixed)."""
    return [i for i, x in enumerate(xs) if x is not None and has_tangent_space(x)]


def _on(g: ArrayFunction, xs: Sequence[Any], live: list[int]) -> Callable[..., tuple[Any, ...]]:
    """``g`` as a function of its varying inputs, the others held at ``xs``."""

    def on_live(*values: Any) -> tuple[Any, ...]:
        full = list(xs)
        for i, v in zip(live, values):
            full[i] = v
        return tuple(g(*full))

    return on_live


def _array(call: Call, t: Any) -> Any:
    t = unthunk(t)
    if isinstance(t, NotImplementedTangent):
        raise NotImplementedTangentError(f"{call.name}: a second derivative is not implemented: {t.info}")
    return None if t is None or isinstance(t, AbstractZero) else np.asarray(t)
