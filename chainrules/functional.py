"""Functional forms of numpy's in-place updates, for engines that cannot follow a mutation.

``x[index] = v`` changes ``x`` where it is; a reverse-mode engine that has
recorded ``x`` cannot undo that. It can instead record
``y = setitem(x, index, v)``, a new array, and use ``y`` wherever the program
uses ``x`` afterwards. ``setitem`` has an ``frule`` and an ``rrule``: the
cotangent of ``y`` goes to ``v`` (summed where ``v`` was broadcast) and to
``x`` everywhere except at ``index``, whose old values no longer matter.

>>> import numpy as np
>>> import chainrules
>>> from chainrules_core import rrule
>>> x = np.zeros(4)
>>> y, pullback = rrule(setitem, x, slice(1, 3), 5.0)
>>> y, x
(array([0., 5., 5., 0.]), array([0., 0., 0., 0.]))
>>> _, x_bar, _, v_bar = pullback(np.array([1.0, 2.0, 3.0, 4.0]))
>>> x_bar, v_bar
(array([1., 0., 0., 4.]), 5.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["setitem"]


def setitem(x: Any, index: Any, v: Any) -> np.ndarray[Any, Any]:
    """A copy of ``x`` with ``copy[index] = v``: ``x[index] = v`` without changing ``x``.

    ``v`` is broadcast and cast to ``x``'s dtype as numpy's assignment does;
    an index that repeats an entry keeps the last value written there.

    >>> setitem(np.arange(4.0), [0, 2], np.array([10.0, 20.0]))
    array([10.,  1., 20.,  3.])
    """
    y = np.array(x, copy=True)
    y[index] = v
    return y
