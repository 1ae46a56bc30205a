"""What the rules for scipy.linalg share, without importing scipy.

The modules ``scipy_linalg*`` import it rather than each other: they are
imported while ``scipy.linalg`` itself is (see ``_extensions``), and one of
them may be part way through its own import then.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from chainrules_core.followed import engine_call

from ...numpy.linalg._common import adjoint, mT


def call_options(
    names: Sequence[str],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    defaults: dict[str, Any],
    refused: Sequence[str] = (),
    positional: int | None = None,
) -> dict[str, Any] | None:
    """The options of a call after its array arguments, by name; ``None`` when the call gets no rule.

    No rule for a keyword the function does not take, more positional
    options than it has (``positional`` of the ``names`` when the rest are
    keyword-only), or a ``refused`` option set true (``overwrite_a=True``).
    """
    if len(args) > (len(names) if positional is None else positional) or not kwargs.keys() <= set(names):
        return None
    options = {**defaults, **dict(zip(names, args)), **kwargs}
    return None if any(options.get(name) for name in refused) else options


def follow_pair(fn: Callable[..., Any], pair: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(pair, *args, **kwargs)`` for a function whose first argument is a pair (``lu_solve``'s ``(lu, piv)``,
    ``cho_solve``'s ``(c, lower)``): ``follow``'s call, when an engine follows an entry of the pair or an argument.

    scipy converts them with ``np.asarray``; the engine follows the call as one, with ``fn``'s rules.
    """
    for v in (*pair, *args) if isinstance(pair, tuple | list) else (pair, *args):
        call = engine_call(v)
        if call is not None:
            return call(v, fn, pair, *args, **kwargs)
    return fn(pair, *args, **kwargs)


def as_matrix(x: Any) -> Any:
    """A 0-d array (or its tangent) as the 1 x 1 matrix scipy takes it for; anything else as it is."""
    return np.reshape(x, (1, 1)) if np.ndim(x) == 0 else x


def returning(value: Any) -> Callable[..., Any]:
    """A stand-in for a primal that returns scipy's ``value``: numpy's rule functions then differentiate it."""
    return lambda *args, **kwargs: value


def op(x: np.ndarray, trans: int) -> np.ndarray:
    """``x``, its transpose (``trans=1``) or its conjugate transpose (``2``); its own adjoint."""
    return x if trans == 0 else mT(x) if trans == 1 else adjoint(x)


def solve_adjoint(solve: Callable[[np.ndarray, int], np.ndarray], rhs: np.ndarray, trans: int) -> np.ndarray:
    """``op(M)^-H rhs`` from ``solve(rhs, t) = op_t(M)^-1 rhs``: trans 0 <-> 2, and trans 1 through conjugates."""
    if trans == 1:
        return np.conj(solve(np.conj(rhs), 0))
    return solve(rhs, 2 - trans)
