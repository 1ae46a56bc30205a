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

numpy's other in-place updates have their functional forms here too, each
taking numpy's arguments and returning the new array: ``put``, ``place``,
``putmask``, ``copyto``, ``fill_diagonal`` and ``put_along_axis``. An engine
that meets ``np.put(x, ind, v)`` records ``x = put(x, ind, v)``: the name is
rebound to the new array, which every later use reads. Their rules send the
seed to the entries the output holds: to ``x``'s entries that were kept, and
to the values written (summed where numpy repeats a value; zero for a value
overwritten by a later write to the same entry, as numpy's last write wins).
``rrule`` and ``frule`` of numpy's in-place functions themselves raise a
``TypeError`` that names the form to use.

>>> x = np.arange(4.0)
>>> y, pullback = rrule(put, x, [1, 1, 3], np.array([10.0, 20.0, 30.0]))
>>> y
array([ 0., 20.,  2., 30.])
>>> pullback(np.ones(4))[1:]
(array([1., 0., 1., 0.]), NoTangent(), array([0., 1., 1.]))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core import is_followed

__all__ = ["copyto", "fill_diagonal", "place", "put", "put_along_axis", "putmask", "setitem"]


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


def _updated(update: Any, x: Any, *args: Any, **kwargs: Any) -> np.ndarray[Any, Any]:
    """A copy of ``x`` (C order) after ``update(copy, *args, **kwargs)``, numpy's in-place function.

    A value an engine follows (nested differentiation) comes in as numpy's
    object array of it (``np.asarray``), and the copy too is then an object
    array, so that numpy moves the followed entries instead of dispatching
    the in-place call to the engine. C order: numpy's ``put_along_axis`` with
    ``axis=None`` writes through ``arr.flat``, a view of a C-ordered array alone.
    """
    followed = [is_followed(a) for a in (x, *args)]
    if any(followed):
        args = tuple(np.asarray(a) if f else a for a, f in zip(args, followed[1:]))
        y = np.array(x, dtype=object, copy=True, order="C")
    else:
        y = np.array(x, copy=True, order="C")
    update(y, *args, **kwargs)
    return y


def put(a: Any, ind: Any, v: Any, mode: str = "raise") -> np.ndarray[Any, Any]:
    """A copy of ``a`` after ``np.put(copy, ind, v, mode)``: the flat entries ``ind`` replaced by ``v``.

    ``v`` is repeated as needed to match ``ind``; where ``ind`` repeats an
    entry, the value written last is kept.

    >>> put(np.zeros(4), [0, 3], np.array([1.0, 2.0]))
    array([1., 0., 0., 2.])
    """
    return _updated(np.put, a, ind, v, mode=mode)


def place(arr: Any, mask: Any, vals: Any) -> np.ndarray[Any, Any]:
    """A copy of ``arr`` after ``np.place(copy, mask, vals)``: the entries where ``mask`` holds take ``vals`` in
    order, repeated as needed.

    >>> place(np.zeros(4), [True, False, True, True], np.array([1.0, 2.0]))
    array([1., 0., 2., 1.])
    """
    return _updated(np.place, arr, mask, vals)


def putmask(a: Any, mask: Any, values: Any) -> np.ndarray[Any, Any]:
    """A copy of ``a`` after ``np.putmask(copy, mask, values)``: the entry at flat position ``i`` takes
    ``values[i % values.size]`` where ``mask`` holds.

    >>> putmask(np.zeros(4), [True, False, True, True], np.array([1.0, 2.0]))
    array([1., 0., 1., 2.])
    """
    return _updated(np.putmask, a, mask, values)


def copyto(dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> np.ndarray[Any, Any]:
    """A copy of ``dst`` after ``np.copyto(copy, src, casting, where)``: ``src`` (broadcast) where ``where`` holds.

    >>> copyto(np.zeros(3), 5.0, where=[True, False, True])
    array([5., 0., 5.])
    """
    return _updated(np.copyto, dst, src, casting=casting, where=where)


def fill_diagonal(a: Any, val: Any, wrap: bool = False) -> np.ndarray[Any, Any]:
    """A copy of ``a`` after ``np.fill_diagonal(copy, val, wrap)``: the main diagonal takes ``val``, repeated as
    needed.

    >>> fill_diagonal(np.zeros((2, 2)), np.array([1.0, 2.0]))
    array([[1., 0.],
           [0., 2.]])
    """
    return _updated(np.fill_diagonal, a, val, wrap=wrap)


def put_along_axis(arr: Any, indices: Any, values: Any, axis: Any) -> np.ndarray[Any, Any]:
    """A copy of ``arr`` after ``np.put_along_axis(copy, indices, values, axis)``.

    >>> put_along_axis(np.zeros((2, 3)), np.array([[2], [0]]), np.array([[1.0], [2.0]]), axis=1)
    array([[0., 0., 1.],
           [2., 0., 0.]])
    """
    return _updated(np.put_along_axis, arr, indices, values, axis)
