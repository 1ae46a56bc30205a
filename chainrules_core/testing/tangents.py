"""Random tangents, and the way to give an argument an explicit tangent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..tangent_types import NoTangent
from .layout import layout_of


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

    >>> from chainrules_core import NoTangent
    >>> with_tangent(2.0, 1.0).tangent, with_tangent(3.0, NoTangent()).tangent
    (1.0, NoTangent())
    """
    return PrimalAndTangent(x, dx)


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
