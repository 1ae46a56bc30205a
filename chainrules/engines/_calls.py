"""What both engines do around a call: the top-level call, opt-outs, the unit seed."""

from __future__ import annotations

import contextvars
import types
from typing import Any

import numpy as np

from chainrules_core.arrays import device_of, is_foreign_array, namespace_of
from chainrules_core.naming import function_name

from ._box import ObjectBox, lift
from ._passes import has_object_array
from ._structure import primal

_ASKED: contextvars.ContextVar[tuple[Any, ...]] = contextvars.ContextVar("chainrules_asked", default=())
"""The functions whose own rules the engines are asking at the top level, innermost last."""


def top_level_call(f: Any, args: tuple[Any, ...], kwargs: dict[str, Any], registry: Any) -> Any:
    """``f(*args, **kwargs)`` on followed arguments, using ``f``'s own rule (from ``registry``) when it has one.

    A rule of ``f`` that runs an engine on ``f`` itself would be asked again, endlessly: ``RecursionError`` at
    once, naming ``f`` and the derived rules that trace its body.
    """
    if isinstance(f, ObjectBox):
        return f(*args, **kwargs)
    if type(f) is types.FunctionType and not kwargs and not registry.has_rules(f) and not has_object_array(args):
        return f(*args)  # what lift(f) does, without looking for the rule
    asked = _ASKED.get()
    if any(g is f for g in asked):
        name = getattr(f, "__name__", None) or function_name(f)
        raise RecursionError(
            f"{name}'s rule runs the engines on {name} itself ({function_name(f)}), and they would ask its rule "
            f"again, endlessly; register chainrules.engines.derived_rrule({name}) (and derived_frule), which "
            "trace its body, or run the engines on the body's own code"
        )
    token = _ASKED.set((*asked, f))
    try:
        return lift(f)(*args, **kwargs)
    finally:
        _ASKED.reset(token)


def unit_seed(y: Any, f: Any) -> Any:
    """1.0 in the type of the real scalar ``y``: a Python float, or a 0-d array of ``y``'s dtype, in ``y``'s library
    and on its device (a 0-d dask array is a scalar output: its seed a 0-d dask array).

    ``y`` may be a value an outer pass follows; the seed is a constant of its type.
    """
    y = primal(y)
    if isinstance(y, float):
        return 1.0
    if isinstance(y, (np.ndarray, np.generic)) and y.shape == () and y.dtype.kind == "f":
        return np.ones((), dtype=y.dtype)
    if is_foreign_array(y) and tuple(y.shape) == ():
        xp = namespace_of(y)
        if xp.isdtype(y.dtype, "real floating"):
            return xp.ones((), dtype=y.dtype, device=device_of(y))
    shaped = isinstance(y, np.ndarray) or is_foreign_array(y)
    what = f"an array of shape {tuple(y.shape)}" if shaped else f"a {type(y).__name__}"
    raise ValueError(
        f"gradient: {function_name(f)} returned {what}; a gradient needs a real scalar output (a float or a "
        "0-d float array): use forward(f, *args) and back(y_bar) for other outputs"
    )
