"""Helpers that write the frule and rrule of a whole class of functions at once."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .projection import Projector, ProjectTo, shape_of, sum_to_shape
from .rules import frule, rrule
from .tangent_types import AbstractZero, NoTangent, ZeroTangent, unthunk

Partials = Callable[..., Any]

_REFUSED_KWARGS = ("out", "where")


_REAL_SCALARS = frozenset({float, int, np.float64, np.float32, np.float16})


def _conj(p: Any) -> Any:
    if type(p) in _REAL_SCALARS:
        return p
    if isinstance(p, complex) or getattr(getattr(p, "dtype", None), "kind", None) == "c":
        return np.conjugate(p)
    return p


def cotangent_from_partial(project: Projector, shape: tuple[int, ...], partial: Any, out_bar: Any) -> Any:
    """One argument's cotangent from its partial derivative: ``conj(partial) * out_bar``, unbroadcast and projected.

    The step ``scalar_rule``'s pullbacks take for each argument of an
    elementwise function: the product is summed back to the argument's
    ``shape`` (``sum_to_shape``) and projected (``project``, built from the
    argument by ``ProjectTo``); an argument without a tangent space gets
    ``NoTangent()``.

    >>> import numpy as np
    >>> x = np.ones((1, 2), dtype=np.float32)
    >>> cotangent_from_partial(ProjectTo(x), x.shape, 2j, np.ones((3, 2)))
    array([[0., 0.]], dtype=float32)
    >>> cotangent_from_partial(ProjectTo(1.5), (), np.float64(2.0), 0.5)
    1.0
    """
    if project.is_no_tangent:
        return NoTangent()
    return project(sum_to_shape(_conj(partial) * out_bar, shape))


def _zero_cotangent(project: Projector) -> AbstractZero:
    return NoTangent() if project.is_no_tangent else ZeroTangent()


def scalar_rule(f: Callable[..., Any], partials: Partials) -> None:
    """Register ``frule`` and ``rrule`` for ``f`` from one definition of its partials.

    ``partials(out, *args)`` returns the partial derivative of ``f`` with
    respect to each positional argument (one value for a unary ``f``, a tuple
    otherwise), given the primal output ``out``. It is evaluated only when a
    tangent or cotangent needs it. The rules work on Python numbers and
    elementwise on arrays: the pushforward is ``sum(p_i * x_dot_i)``; the
    pullback gives ``conj(p_i) * out_bar`` summed back to each argument's
    shape and projected onto it (so a real input gets a real cotangent, a
    float32 input a float32 one, an int argument ``NoTangent()``). ``f`` is
    taken to be holomorphic in complex arguments.

    A call with ``out=`` or ``where=`` gets no rule (``None``): the engine
    must then differentiate the call another way or refuse it. So does a
    ufunc called with its output buffers as extra positional arguments.

    >>> import math
    >>> def hypot(x, y):
    ...     return math.sqrt(x * x + y * y)
    >>> scalar_rule(hypot, lambda out, x, y: (x / out, y / out))
    >>> y, pullback = rrule(hypot, 3.0, 4.0)
    >>> y, pullback(1.0)
    (5.0, (NoTangent(), 0.6, 0.8))
    >>> frule((NoTangent(), 1.0, 0.0), hypot, 3.0, 4.0)
    (5.0, 0.6)
    """

    nin = getattr(f, "nin", None)  # a ufunc: more positional arguments are output buffers

    @rrule.register(f)
    def _scalar_rrule(f: Any, *args: Any, **kwargs: Any) -> Any:
        if (kwargs and any(k in kwargs for k in _REFUSED_KWARGS)) or (nin is not None and len(args) > nin):
            return None
        out = f(*args, **kwargs)
        projects = [ProjectTo(x) for x in args]
        shapes = [shape_of(x) for x in args]
        unary = len(args) == 1

        if unary:
            (x,), (project,), (shape,) = args, projects, shapes

            def unary_pullback(out_bar: Any) -> tuple[Any, Any]:
                out_bar = unthunk(out_bar)
                if isinstance(out_bar, AbstractZero) or project.is_no_tangent:
                    return NoTangent(), _zero_cotangent(project)
                return NoTangent(), cotangent_from_partial(project, shape, partials(out, x), out_bar)

            return out, unary_pullback

        def scalar_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = unthunk(out_bar)
            if isinstance(out_bar, AbstractZero) or all(p.is_no_tangent for p in projects):
                return (NoTangent(), *map(_zero_cotangent, projects))
            ps = partials(out, *args)
            return (
                NoTangent(),
                *[cotangent_from_partial(pr, sh, p, out_bar) for pr, sh, p in zip(projects, shapes, ps)],
            )

        return out, scalar_pullback

    @frule.register(f)
    def _scalar_frule(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        if (kwargs and any(k in kwargs for k in _REFUSED_KWARGS)) or (nin is not None and len(args) > nin):
            return None
        out = f(*args, **kwargs)
        active = [
            i
            for i, (x, x_dot) in enumerate(zip(args, tangents[1:]))
            if not isinstance(x_dot, AbstractZero) and not ProjectTo(x).is_no_tangent
        ]
        project_out = ProjectTo(out)
        if not active:
            return out, _zero_cotangent(project_out)
        ps = (partials(out, *args),) if len(args) == 1 else partials(out, *args)
        out_dot = sum(ps[i] * unthunk(tangents[i + 1]) for i in active)
        if shape_of(out_dot) != shape_of(out):
            out_dot = np.broadcast_to(out_dot, shape_of(out))
        return out, project_out(out_dot)


def non_differentiable(*fs: Callable[..., Any], arg_types: Sequence[Any] | None = None) -> None:
    """Register rules saying that each of ``fs`` has no derivative.

    The output's tangent is ``NoTangent()`` and every input's cotangent is
    ``NoTangent()``: for functions with integer, boolean or index outputs.
    ``arg_types`` restricts the declaration to calls with those argument
    types (dispatched as ``rrule.register(f, *arg_types)``), so that other
    arguments keep their rules: ``operator.or_`` is integer-valued on numbers
    but merges dicts. ``rrule.records()`` lists these as ``kind ==
    "non_differentiable"``.

    >>> def count_positive(xs):
    ...     return sum(x > 0 for x in xs)
    >>> non_differentiable(count_positive)
    >>> frule((NoTangent(), [1.0, 1.0]), count_positive, [2.5, -1.0])
    (1, NoTangent())
    >>> rrule(count_positive, [2.5, -1.0])[1](1.0)
    (NoTangent(), NoTangent())
    >>> def halve(x):
    ...     return x // 2 if isinstance(x, int) else x / 2
    >>> non_differentiable(halve, arg_types=(int,))
    >>> rrule(halve, 3)[1](1.0), rrule(halve, 3.0)
    ((NoTangent(), NoTangent()), None)
    """
    types = tuple(arg_types or ())
    for f in fs:
        rrule.register(f, *types, kind="non_differentiable")(_non_differentiable_rrule)
        frule.register(f, *types, kind="non_differentiable")(_non_differentiable_frule)


def _non_differentiable_rrule(f: Any, *args: Any, **kwargs: Any) -> Any:
    n = len(args) + 1

    def non_differentiable_pullback(out_bar: Any) -> tuple[Any, ...]:
        return (NoTangent(),) * n

    return f(*args, **kwargs), non_differentiable_pullback


def _non_differentiable_frule(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
    return f(*args, **kwargs), NoTangent()
