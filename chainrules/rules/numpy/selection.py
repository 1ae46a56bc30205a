"""Selection and editing: insert, delete, compress, extract, choose, select, trim_zeros, and ``setitem``.

Each output entry is an entry of a value argument (or a constant), so the
rules come from ``entries_rule``: the tangent is gathered, the cotangent
scattered back, repeated reads add up. Indices, masks, conditions and
``choose``'s index array have no tangent.

* ``select``'s ``default`` is differentiable when passed positionally; its
  numpy default ``0`` and any keyword value are constants.
* ``trim_zeros`` keeps a slice whose bounds depend on which entries are
  zero. The kept entries get the seed; the trimmed zeros get a zero
  cotangent, and their tangents do not reach the output: moving one of them
  off zero would change the output's length, which has no derivative.
* ``chainrules.functional.setitem(x, index, v)`` is ``x[index] = v`` as a
  function returning the new array; see that module.

* ``chainrules.functional``'s ``put``, ``place``, ``putmask``, ``copyto``,
  ``fill_diagonal`` and ``put_along_axis`` are numpy's in-place updates of
  those names as functions returning the new array, with the same rules.

numpy's in-place updates themselves (``put``, ``place``, ``putmask``,
``put_along_axis``, ``fill_diagonal``, ``copyto``, ``ndarray.__setitem__``
and ``operator.setitem`` on arrays; ``ndarray.sort`` and ``ndarray.partition``) return ``None`` and change an argument:
their rules raise a ``TypeError`` naming the functional form (``np.sort``, ``np.partition``)
(``in_place_refusal``; see docs/rules-arrays.md).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from chainrules import functional
from chainrules.functional import setitem

from .._arrays import bind_options, is_given
from .._makers import in_place_refusal
from ._entries import entries_rule


def _without_out(names: tuple[str, ...]) -> Any:
    """``applies`` for a function whose arguments are ``names``: false when ``out=`` is given."""

    def applies(*args: Any, **kwargs: Any) -> bool:
        return not is_given(bind_options(names, args, kwargs).get("out"))

    return applies


entries_rule(np.insert, [(0, "arr"), (2, "values")])
entries_rule(np.delete, [(0, "arr")])
entries_rule(np.compress, [(1, "a")], applies=_without_out(("condition", "a", "axis", "out")))
entries_rule(np.ndarray.compress, [(0, "self")], applies=_without_out(("self", "condition", "axis", "out")))
entries_rule(np.extract, [(1, "arr")])
entries_rule(np.choose, [(1, "choices")], applies=_without_out(("a", "choices", "out", "mode")))
entries_rule(np.select, [(1, "choicelist"), (2, "default")], defaults={"default": 0})
entries_rule(setitem, [(0, "x"), (2, "v")])
entries_rule(functional.put, [(0, "a"), (2, "v")])
entries_rule(functional.place, [(0, "arr"), (2, "vals")])
entries_rule(functional.putmask, [(0, "a"), (2, "values")])
entries_rule(functional.copyto, [(0, "dst"), (1, "src")])
entries_rule(functional.fill_diagonal, [(0, "a"), (1, "val")])
entries_rule(functional.put_along_axis, [(0, "arr"), (2, "values")])

# numpy's in-place forms themselves: their rules raise TypeError naming the functional form
for _f, _instead in (
    (np.put, "x = chainrules.functional.put(x, ind, v)"),
    (np.place, "x = chainrules.functional.place(x, mask, vals)"),
    (np.putmask, "x = chainrules.functional.putmask(x, mask, values)"),
    (np.copyto, "x = chainrules.functional.copyto(x, src, ...)"),
    (np.fill_diagonal, "x = chainrules.functional.fill_diagonal(x, val)"),
    (np.put_along_axis, "x = chainrules.functional.put_along_axis(x, indices, values, axis)"),
    (np.ndarray.__setitem__, "x = chainrules.functional.setitem(x, index, v)"),
    (np.ndarray.sort, "x = np.sort(x, ...)"),
    (np.ndarray.partition, "x = np.partition(x, kth, ...)"),
):
    in_place_refusal(_f, _instead)
in_place_refusal(operator.setitem, "x = chainrules.functional.setitem(x, index, v)", np.ndarray, object, object)


# ----- trim_zeros: a slice with value-dependent bounds -----


def _trimmed(filt: Any, trim: str = "fb", axis: Any = None) -> tuple[slice, ...]:
    """The slices ``trim_zeros`` keeps: the bounding box of the nonzero entries along the trimmed axes.

    numpy's rule: an all-zero input keeps nothing along the trimmed axes;
    ``trim`` without 'f' (or 'b') keeps the front (or back).
    """
    x = np.asarray(filt)
    if axis is None:
        axes = set(range(x.ndim))
    else:
        axes = {int(a) % x.ndim for a in (axis if isinstance(axis, (tuple, list)) else (axis,))}
    nonzero = np.argwhere(x)
    if nonzero.size == 0:
        start: list[Any] = [0] * x.ndim
        stop: list[Any] = [0] * x.ndim
    else:
        start = nonzero.min(axis=0).tolist() if "f" in trim.lower() else [None] * x.ndim
        stop = (nonzero.max(axis=0) + 1).tolist() if "b" in trim.lower() else [None] * x.ndim
    return tuple(slice(start[k], stop[k]) if k in axes else slice(None) for k in range(x.ndim))


def _trim_zeros_source(f: Any, label_args: Any, label_kwargs: Any, args: Any, kwargs: Any, out: Any) -> Any:
    options = bind_options(("filt", "trim", "axis"), args, kwargs, trim="fb")
    return np.asarray(label_args[0])[_trimmed(options["filt"], options["trim"], options["axis"])]


entries_rule(np.trim_zeros, [(0, "filt")], source=_trim_zeros_source)
