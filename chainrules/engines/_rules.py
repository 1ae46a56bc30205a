"""Rules for the engines' own operations: projecting a followed cotangent, and object arrays of boxes.

Nested differentiation runs rules on boxes of an outer pass, so a projector
may be handed a box (``ProjectTo(x)(dx)``): the projection is then an
operation of the outer pass like any other. A projector is linear; its
adjoint maps a cotangent of the primal's space back into the space of
``dx``, which is what ``ProjectTo(dx)`` does (the real part's adjoint embeds
a real cotangent in ℂ, a dtype cast's adjoint casts back, a reshape's
reshapes back).

``np.array([x, y])`` gives numpy an object array of boxes; the engines move
between such arrays and boxed arrays with ``_entries`` (the entries of an
array as Python numbers) and ``_from_entries`` (its inverse).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, Projector, ProjectTo, frule, rrule, unthunk

from ._box import lift
from ._passes import _entries, _from_entries, _to_python

_entries_of = lift(_entries)
_array_of = lift(_from_entries)
_python_of = lift(_to_python)


def _cast_like_rules(primal: Any, apply: Any, push: Any) -> None:
    """Rules of a map that changes only a value's type (a projection, a numpy scalar to a Python number).

    Its adjoint maps a cotangent of the output back into the space of the
    input, which is what ``ProjectTo(input)`` does; ``apply(f, x)`` computes
    the map and ``push(f, x_dot)`` its pushforward.
    """

    def _rrule_cast_like(f: Any, x: Any) -> Any:
        project_x = ProjectTo(x)

        def cast_like_pullback(out_bar: Any) -> tuple[Any, Any]:
            return NoTangent(), project_x(unthunk(out_bar))

        return apply(f, x), cast_like_pullback

    def _frule_cast_like(tangents: tuple[Any, Any], f: Any, x: Any) -> Any:
        return apply(f, x), push(f, unthunk(tangents[1]))

    rrule.register(primal)(_rrule_cast_like)
    frule.register(primal)(_frule_cast_like)


_cast_like_rules(Projector, lambda project, dx: project(dx), lambda project, dx_dot: project(dx_dot))
_cast_like_rules(_to_python, lambda f, x: _to_python(x), lambda f, x_dot: _python_of(x_dot))


def _zero_entry(x: Any) -> Any:
    return 0j if np.iscomplexobj(x) else 0.0


@rrule.register(_entries)
def _rrule_entries(f: Any, a: Any) -> Any:
    project_a = ProjectTo(a)
    shape = np.shape(a)
    zero = _zero_entry(a)

    def entries_pullback(out_bar: Any) -> tuple[Any, Any]:
        bars = [zero if isinstance(b, AbstractZero) else b for b in unthunk(out_bar)]
        return NoTangent(), project_a(_array_of(shape, *bars))

    return _entries(a), entries_pullback


@frule.register(_entries)
def _frule_entries(tangents: tuple[Any, Any], f: Any, a: Any) -> Any:
    return _entries(a), _entries_of(unthunk(tangents[1]))


@rrule.register(_from_entries)
def _rrule_from_entries(f: Any, shape: tuple[int, ...], *entries: Any) -> Any:
    projects = [ProjectTo(e) for e in entries]

    def from_entries_pullback(out_bar: Any) -> tuple[Any, ...]:
        bars = _entries_of(unthunk(out_bar))
        return (NoTangent(), NoTangent(), *(p(b) for p, b in zip(projects, bars)))

    return _from_entries(shape, *entries), from_entries_pullback


@frule.register(_from_entries)
def _frule_from_entries(tangents: tuple[Any, ...], f: Any, shape: tuple[int, ...], *entries: Any) -> Any:
    dots = [_zero_entry(e) if isinstance(t, AbstractZero) else unthunk(t) for e, t in zip(entries, tangents[2:])]
    y = _from_entries(shape, *entries)
    return y, ProjectTo(y)(_array_of(shape, *dots))
