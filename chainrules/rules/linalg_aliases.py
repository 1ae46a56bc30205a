"""The array-API functions of ``numpy.linalg`` (numpy 2): vecdot, cross, diagonal, trace, matrix_transpose.

Each works on the last axes (``axis=-1`` for vectors, the last two for
matrices) where its namesake in ``numpy`` takes axes as arguments; the
rules are those of the namesakes: ``vecdot(x1, x2) = sum(conj(x1) * x2)``
is antiholomorphic in ``x1`` (``x1_bar = conj(g) x2``), ``cross`` is
bilinear (the scalar triple product gives its adjoints), ``diagonal``,
``trace`` and ``matrix_transpose`` are linear. Broadcast operands get their
cotangents summed back to their shapes. A numpy without these functions
registers nothing here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, ProjectTo, Thunk, frule, named_after, rrule, unbroadcast, unthunk

from ._arrays import diagonal_adjoint, real_dtype_of
from ._linalg_common import as_array, cross_cotangents, mT, vecdot_cotangents
from ._makers import linear_in_first_rule, output_tangent

Cotangents = Callable[[np.ndarray, np.ndarray, np.ndarray, int], tuple[np.ndarray, np.ndarray]]


def _vector_product_rule(f: Any, cotangents: Cotangents) -> None:
    """Register the rules of ``f(x1, x2, *, axis=-1)``, linear in each operand (conjugate-linear allowed).

    The pushforward is ``f(x1_dot, x2) + f(x1, x2_dot)``; the pullback
    forces ``cotangents(x1, x2, out_bar, axis)`` once, when a thunk of it is.
    """

    def _rrule_vector_product(f: Any, x1: Any, x2: Any, **kwargs: Any) -> Any:
        if not kwargs.keys() <= {"axis"}:
            return None
        out = f(x1, x2, **kwargs)
        axis = kwargs.get("axis", -1)
        project_1, project_2 = ProjectTo(x1), ProjectTo(x2)
        a1, a2 = as_array(x1), as_array(x2)

        def vector_product_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
            g = np.asarray(unthunk(out_bar))
            both = Thunk(lambda: cotangents(a1, a2, g, axis))
            x1_bar = Thunk(lambda: project_1(unbroadcast(x1, unthunk(both)[0])))
            x2_bar = Thunk(lambda: project_2(unbroadcast(x2, unthunk(both)[1])))
            return NoTangent(), _unless_constant(project_1, x1_bar), _unless_constant(project_2, x2_bar)

        return out, vector_product_pullback

    def _frule_vector_product(tangents: tuple[Any, ...], f: Any, x1: Any, x2: Any, **kwargs: Any) -> Any:
        if not kwargs.keys() <= {"axis"}:
            return None
        out = f(x1, x2, **kwargs)
        x1_dot, x2_dot = unthunk(tangents[1]), unthunk(tangents[2])
        terms = []
        if not isinstance(x1_dot, AbstractZero) and not ProjectTo(x1).is_no_tangent:
            terms.append(f(x1_dot, x2, **kwargs))
        if not isinstance(x2_dot, AbstractZero) and not ProjectTo(x2).is_no_tangent:
            terms.append(f(x1, x2_dot, **kwargs))
        return out, output_tangent(out, terms)

    rrule.register(f)(named_after(f, _rrule_vector_product))
    frule.register(f)(named_after(f, _frule_vector_product))


def _unless_constant(project: Any, bar: Any) -> Any:
    return NoTangent() if project.is_no_tangent else bar


def _diagonal_adjoint(out_bar: Any, x: Any, *, offset: int = 0) -> Any:
    dtype = real_dtype_of(x)
    assert dtype is not None
    return diagonal_adjoint(out_bar, np.shape(x), dtype, offset, -2, -1)


def _trace_adjoint(out_bar: Any, x: Any, *, offset: int = 0, dtype: Any = None) -> Any:
    return _diagonal_adjoint(np.asarray(out_bar)[..., None], x, offset=offset)


def _matrix_transpose_adjoint(out_bar: Any, x: Any) -> Any:
    return mT(np.asarray(out_bar))


if hasattr(np.linalg, "vecdot"):
    _vector_product_rule(np.linalg.vecdot, vecdot_cotangents)
    _vector_product_rule(np.linalg.cross, cross_cotangents)
    linear_in_first_rule(np.linalg.diagonal, _diagonal_adjoint)
    linear_in_first_rule(np.linalg.trace, _trace_adjoint)
    linear_in_first_rule(np.linalg.matrix_transpose, _matrix_transpose_adjoint)
