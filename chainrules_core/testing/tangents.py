"""Random tangents, and the way to give an argument an explicit tangent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..tangent_types import NoTangent, unthunk
from .layout import Layout, kind_of, layout_of


@dataclass(frozen=True)
class PrimalAndTangent:
    """An argument paired with the tangent the harness must use for it.

    Made by ``with_tangent(x, dx)``; ``with_tangent(x, NoTangent())`` marks an
    argument as non-differentiable (ChainRulesTestUtils writes ``x ⊢ dx``).
    """

    primal: Any
    tangent: Any


def with_tangent(x: Any, dx: Any) -> PrimalAndTangent:
    """Give ``x`` the explicit tangent ``dx`` in ``test_frule``/``test_rrule``.

    ``dx`` has ``x``'s type, shape and dtype; a zero number (``0.0``) holds
    any ``x`` constant, standing for the zero tangent of its shape and dtype.

    >>> from chainrules_core import NoTangent
    >>> with_tangent(2.0, 1.0).tangent, with_tangent(3.0, NoTangent()).tangent
    (1.0, NoTangent())
    """
    return PrimalAndTangent(x, dx)


def given_tangent(x: Any, dx: Any, layout: Layout, where: str, caller: str) -> Any:
    """The tangent ``with_tangent`` gave ``x``, checked: ``ValueError`` naming ``caller`` and ``where`` if it has
    not ``x``'s type, shape or dtype.

    A zero number is the zero tangent of ``x``, in ``x``'s shape and dtype
    (``with_tangent(x, 0.0)`` holds an array constant); any other number for
    an array or a structure is refused, with the fix.

    >>> x = np.ones(2, dtype=np.float32)
    >>> given_tangent(x, 0.0, layout_of(x), "the tangent of x", "test_rrule(f)")
    array([0., 0.], dtype=float32)
    >>> given_tangent(x, 0.5, layout_of(x), "the tangent of x", "test_rrule(f)")
    Traceback (most recent call last):
        ...
    ValueError: test_rrule(f): the tangent of x: the number 0.5 for an ndarray ...; give an array of its shape ...
    """
    value = unthunk(dx)
    problems = layout.problems(value, where, cotangent=False)
    if not problems:
        return dx
    number = isinstance(value, (int, float, complex, np.number)) and not isinstance(value, bool)
    if number and layout.differentiable:
        if value == 0:
            return layout.vec_to_tangent(np.zeros(layout.size))
        if isinstance(x, np.ndarray):
            fix = f"an array of its shape and dtype, np.full_like(x, {value!r})"
            problems = [f"{where}: the number {value!r} for {kind_of(x)}; give {fix}, or 0.0 to hold it constant"]
        elif not isinstance(x, (float, complex, np.generic)):
            fix = "a tangent of its structure (rand_tangent(x) makes one)"
            problems = [f"{where}: the number {value!r} for {kind_of(x)}; give {fix}, or 0.0 to hold it constant"]
    raise ValueError(f"{caller}: " + "; ".join(problems))


def no_tangent(x: Any) -> PrimalAndTangent:
    """Mark ``x`` as non-differentiable: its cotangent must be ``NoTangent()``."""
    return PrimalAndTangent(x, NoTangent())


def rand_tangent(x: Any, rng: np.random.Generator | int | None = None) -> Any:
    """A random tangent of ``x``: standard normal entries in ``x``'s structure and dtype.

    Floats get floats, float32 arrays float32 arrays, complex values complex
    tangents; tuples get ``Tangent(tuple, ...)``, dataclasses and objects
    ``Tangent(type, ...)`` of their differentiable fields; ints, bools and
    strings ``NoTangent()``.

    >>> t = rand_tangent(np.ones(3, dtype=np.float32), rng=0)
    >>> t.dtype, t.shape
    (dtype('float32'), (3,))
    >>> rand_tangent((1.0, 2), rng=0)
    Tangent(tuple, 0.1257302210933933, NoTangent())
    """
    layout = layout_of(x)
    return layout.vec_to_tangent(np.random.default_rng(rng).standard_normal(layout.size))


def relative_tangent(x: Any, rng: np.random.Generator) -> Any:
    """A random tangent scaled entry by entry to ``|x|`` (1 where ``x`` is 0).

    The harness perturbs along such directions so that one step size suits
    entries of any magnitude, and never steps out of a domain like ``x > 0``
    faster at small entries than at large ones.
    """
    layout = layout_of(x)
    return layout.vec_to_tangent(rng.standard_normal(layout.size) * layout.magnitudes())
