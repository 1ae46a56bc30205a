"""Rules for ``scipy.linalg``: ``solve_triangular``.

Imported when ``scipy.linalg`` is. ``solve_triangular(a, b, trans, lower, unit_diagonal)`` solves ``op(T) x = b``
where ``T`` is the triangle of ``a`` that ``lower`` names (with ones on the
diagonal when ``unit_diagonal``) and ``op`` is the identity, the transpose
(``trans=1`` or ``'T'``) or the conjugate transpose (``2``, ``'C'``). Only
that triangle is read, so the cotangent of ``a`` lives on it (and not on the
diagonal when ``unit_diagonal``), as autograd's ``grad_solve_triangular``
projects it. The formulas are solve's (Giles 2008, section 2.3):
``b_bar = op(T)^-H x_bar`` and ``op(T)_bar = -b_bar x^H``.

``overwrite_b`` and ``check_finite`` are accepted; ``overwrite_b=True`` gets
no rule (``None``), as the primal would destroy ``b``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import linalg

from chainrules_core import AbstractZero, NoTangent, ProjectTo, ZeroTangent, frule, rrule, unbroadcast, unthunk

from ._linalg_common import adjoint, mT

_OPTIONS = ("trans", "lower", "unit_diagonal", "overwrite_b", "check_finite")
_TRANS = {0: 0, "N": 0, 1: 1, "T": 1, 2: 2, "C": 2}


def _options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    if len(args) > len(_OPTIONS) or not kwargs.keys() <= set(_OPTIONS):
        return None
    options = {"trans": 0, "lower": False, "unit_diagonal": False, "overwrite_b": False, **dict(zip(_OPTIONS, args))}
    options.update(kwargs)
    if options["overwrite_b"] or options["trans"] not in _TRANS:
        return None
    options["trans"] = _TRANS[options["trans"]]
    return options


def _triangle(x: np.ndarray, lower: bool, unit_diagonal: bool) -> np.ndarray:
    """The part of ``x`` that ``solve_triangular`` reads."""
    return np.tril(x, -1 if unit_diagonal else 0) if lower else np.triu(x, 1 if unit_diagonal else 0)


def _op(x: np.ndarray, trans: int) -> np.ndarray:
    return x if trans == 0 else mT(x) if trans == 1 else adjoint(x)


def _solve(f: Any, a: Any, rhs: np.ndarray, vector: bool, trans: int, options: dict[str, Any]) -> np.ndarray:
    """``op(T)^-1 rhs`` through ``f`` itself, for the same triangle and diagonal."""
    kwargs = {"lower": options["lower"], "unit_diagonal": options["unit_diagonal"], "trans": trans}
    if vector and rhs.ndim > 1:
        return f(a, rhs[..., None], **kwargs)[..., 0]
    return f(a, rhs, **kwargs)


def _solve_adjoint(f: Any, a: Any, rhs: np.ndarray, vector: bool, options: dict[str, Any]) -> np.ndarray:
    """``op(T)^-H rhs``: trans 0 <-> 2, and trans 1 through conjugates."""
    trans = options["trans"]
    if trans == 1:
        return np.conj(_solve(f, a, np.conj(rhs), vector, 0, options))
    return _solve(f, a, rhs, vector, 2 - trans, options)


def _rrule_solve_triangular(f: Any, a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    options = _options(args, kwargs)
    if options is None:
        return None
    x = f(a, b, *args, **kwargs)
    project_a = ProjectTo(a)
    vector = np.ndim(b) == 1
    extra = (NoTangent(),) * len(args)

    def solve_triangular_pullback(x_bar: Any) -> tuple[Any, ...]:
        x_bar = unthunk(x_bar)
        b_bar = _solve_adjoint(f, a, np.asarray(x_bar), vector, options)
        op_bar = -(b_bar[..., :, None] * x.conj()[..., None, :] if vector else b_bar @ adjoint(x))
        t_bar = _op(op_bar, options["trans"])  # the adjoint of op is op again
        a_bar = unbroadcast(a, _triangle(t_bar, options["lower"], options["unit_diagonal"]))
        return NoTangent(), project_a(a_bar), unbroadcast(b, b_bar), *extra

    return x, solve_triangular_pullback


def _frule_solve_triangular(tangents: tuple[Any, ...], f: Any, a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
    options = _options(args, kwargs)
    if options is None:
        return None
    x = f(a, b, *args, **kwargs)
    _, a_dot, b_dot = (unthunk(t) for t in tangents[:3])
    vector = np.ndim(b) == 1
    rhs: Any = None
    if not isinstance(b_dot, AbstractZero):
        rhs = np.asarray(b_dot)
    if not isinstance(a_dot, AbstractZero) and not ProjectTo(a).is_no_tangent:
        op_dot = _op(_triangle(np.asarray(a_dot), options["lower"], options["unit_diagonal"]), options["trans"])
        op_dot_x = (op_dot @ x[..., None])[..., 0] if vector else op_dot @ x
        rhs = -op_dot_x if rhs is None else rhs - op_dot_x
    if rhs is None:
        return x, ZeroTangent()
    return x, ProjectTo(x)(_solve(f, a, np.broadcast_to(rhs, x.shape), vector, options["trans"], options))


rrule.register(linalg.solve_triangular)(_rrule_solve_triangular)
frule.register(linalg.solve_triangular)(_frule_solve_triangular)
