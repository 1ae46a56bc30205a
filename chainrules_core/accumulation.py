"""Accumulating cotangents, in place where that is safe (ChainRulesCore's ``add!!``)."""

from __future__ import annotations

import sys
from typing import Any

from .tangent_types import InplaceableThunk


def is_inplaceable_destination(x: Any) -> bool:
    """Whether ``x`` can hold an in-place sum: a writeable numpy array.

    Read-only arrays, such as the broadcast views some pullbacks return, are not.

    >>> import numpy as np
    >>> is_inplaceable_destination(np.zeros(3)), is_inplaceable_destination(np.broadcast_to(1.0, (3,)))
    (True, False)
    """
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, np.ndarray) and bool(x.flags.writeable)


def accumulate(acc: Any, dx: Any) -> Any:
    """``acc + dx``, overwriting ``acc`` when it is a writeable array that can hold the sum.

    The caller must own ``acc``: it may be modified and returned. An
    ``InplaceableThunk`` adds itself into ``acc`` without materialising its value.

    >>> import numpy as np
    >>> acc = np.zeros(2)
    >>> accumulate(acc, np.ones(2)) is acc, acc
    (True, array([1., 1.]))
    >>> accumulate(1.0, 2.0)
    3.0
    """
    if is_inplaceable_destination(acc):
        if isinstance(dx, InplaceableThunk):
            return dx.add(acc)
        np = sys.modules["numpy"]
        if isinstance(dx, (np.ndarray, np.generic, int, float, complex)):
            if np.result_type(acc, dx) == acc.dtype and np.broadcast_shapes(acc.shape, np.shape(dx)) == acc.shape:
                return np.add(acc, dx, out=acc)
    return acc + dx
