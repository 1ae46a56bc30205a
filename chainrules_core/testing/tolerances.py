"""Default tolerances by floating-point precision.

Finite differences run in double precision whatever the inputs' dtype, so the
tolerance reflects the rule's own arithmetic: a float32 rule is compared with
an accurate derivative, not with a float32 finite difference. Comparisons are
relative to the magnitude of the terms compared (``sum |a_i| |b_i|`` for an
inner product), so there is no absolute tolerance by default: inputs of
magnitude 1e-8 are held to the same relative standard as inputs of 1.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .layout import layout_of

RTOL: dict[str, float] = {
    "float16": 1e-2,
    "float32": 1e-4,
    "float64": 1e-7,
}
"""Relative tolerance by the lowest precision among a check's inputs and outputs."""

PRIMAL_RTOL: dict[str, float] = {
    "float16": 1e-3,
    "float32": 1e-6,
    "float64": 1e-12,
}
"""Relative tolerance when comparing a rule's primal output with the function's own."""

_ORDER = ["float16", "float32", "float64"]


def _precision(dtype: np.dtype[Any]) -> str:
    if dtype.kind == "c":
        return "float32" if dtype.itemsize <= 8 else "float64"
    if dtype.kind == "f":
        return "float16" if dtype.itemsize <= 2 else "float32" if dtype.itemsize <= 4 else "float64"
    return "float64"


def lowest_precision(*values: Any) -> str:
    """The lowest floating-point precision found in ``values`` (``float64`` if none)."""
    found = "float64"
    for value in values:
        for dtype in _dtypes(value):
            p = _precision(dtype)
            if _ORDER.index(p) < _ORDER.index(found):
                found = p
    return found


def _dtypes(value: Any) -> list[np.dtype[Any]]:
    layout = layout_of(value)
    stack = [layout]
    found = []
    while stack:
        node = stack.pop()
        dtype = getattr(node, "dtype", None)
        if dtype is not None and not getattr(node, "python", False):
            found.append(dtype)
        stack.extend(child for _, child in getattr(node, "children", []))
    return found
