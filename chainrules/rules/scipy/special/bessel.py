"""Rules for the Bessel functions of ``scipy.special``, in their argument.

* ``BESSEL``, of the argument only: ``j0``, ``j1``, ``y0``, ``y1``, ``i0``,
  ``i1``, ``i0e``, ``i1e``.
* ``BESSEL_ORDER``, of an order and an argument: ``jv`` (``jn``), ``yv``,
  ``yn``, ``iv``, ``kv``, ``kve``; and ``ive``, written from its 2×2 real
  Jacobian as ``exp(-|Re z|)`` is not holomorphic. The order gets
  ``NoTangent()`` when it is an integer (an int or an integer array, and
  always for ``yn``), a ``NotImplementedTangent`` naming it otherwise.

The derivatives are the recurrences of DLMF 10.6 and 10.29. Imported when
``scipy.special`` is.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

from chainrules_core import (
    AbstractZero,
    NoTangent,
    NotImplementedTangent,
    ProjectTo,
    checked_seed,
    checked_tangent,
    frule,
    not_implemented,
    rrule,
    scalar_rule,
    shape_of,
    sum_to_shape,
    value_shape,
)

from ..._makers import refused, tangent_from_terms


def _order(name: str) -> NotImplementedTangent:
    return not_implemented(f"scipy.special.{name}: the derivative in the order v")


# ----- d(out)/dx given the output and the input; `m` is numpy -----
BESSEL: dict[Any, Callable[..., Any]] = {
    special.j0: lambda m, out, x: -special.j1(x),  # DLMF 10.6.3
    special.j1: lambda m, out, x: (special.j0(x) - special.jv(2, x)) / 2,  # DLMF 10.6.1: 1/2 at 0
    special.y0: lambda m, out, x: -special.y1(x),
    special.y1: lambda m, out, x: (special.y0(x) - special.yv(2, x)) / 2,
    special.i0: lambda m, out, x: special.i1(x),  # DLMF 10.29.3
    special.i1: lambda m, out, x: (special.i0(x) + special.iv(2, x)) / 2,  # DLMF 10.29.1
    # i0e = exp(-|x|) i0: the kink of |x| at 0 gets sign(0) = 0, the central difference
    special.i0e: lambda m, out, x: special.i1e(x) - np.sign(x) * out,
    special.i1e: lambda m, out, x: (special.i0e(x) + special.ive(2, x)) / 2 - np.sign(x) * out,
}

# ----- partials in the order v and the argument z -----
BESSEL_ORDER: dict[Any, Callable[..., Any]] = {
    special.jv: lambda m, out, v, z: (_order("jv"), (special.jv(v - 1, z) - special.jv(v + 1, z)) / 2),
    special.yv: lambda m, out, v, z: (_order("yv"), (special.yv(v - 1, z) - special.yv(v + 1, z)) / 2),
    special.yn: lambda m, out, n, z: (NoTangent(), (special.yn(n - 1, z) - special.yn(n + 1, z)) / 2),
    special.iv: lambda m, out, v, z: (_order("iv"), (special.iv(v - 1, z) + special.iv(v + 1, z)) / 2),
    special.kv: lambda m, out, v, z: (_order("kv"), -(special.kv(v - 1, z) + special.kv(v + 1, z)) / 2),
    # kve = exp(z) kv, holomorphic: kve' = exp(z) (kv' + kv)
    special.kve: lambda m, out, v, z: (_order("kve"), out - (special.kve(v - 1, z) + special.kve(v + 1, z)) / 2),
}

for _f, _partials in (BESSEL | BESSEL_ORDER).items():
    scalar_rule(_f, functools.partial(_partials, np))


# ----- ive(v, z) = exp(-|Re z|) iv(v, z) -----


def _ive_partials(v: Any, z: Any, out: Any) -> tuple[Any, Any]:
    """``d`` and ``c`` with d ive = d dz + c Re(dz): d = (ive(v-1, z) + ive(v+1, z)) / 2, c = -sign(Re z) ive."""
    return (special.ive(v - 1, z) + special.ive(v + 1, z)) / 2, -np.sign(np.real(z)) * out


@rrule.register(special.ive)
def _rrule_ive(f: Any, v: Any, z: Any, *args: Any, **kwargs: Any) -> Any:
    if refused(2, (v, z, *args), kwargs):
        return None
    out = f(v, z, **kwargs)
    project_v, project_z = ProjectTo(v), ProjectTo(z)
    shape = value_shape(out)

    def ive_pullback(out_bar: Any) -> tuple[Any, Any, Any]:
        out_bar = checked_seed(f, out_bar, shape)
        v_bar = NoTangent() if project_v.is_no_tangent else _order("ive")
        if project_z.is_no_tangent:
            return NoTangent(), v_bar, NoTangent()
        d, c = _ive_partials(v, z, out)
        # the adjoint of dz -> d dz + c Re(dz) under Re(conj(a) b)
        z_bar = np.conjugate(d) * out_bar + np.real(np.conjugate(c) * out_bar)
        return NoTangent(), v_bar, project_z(sum_to_shape(z_bar, shape_of(z)))

    return out, ive_pullback


@frule.register(special.ive)
def _frule_ive(tangents: tuple[Any, ...], f: Any, v: Any, z: Any, *args: Any, **kwargs: Any) -> Any:
    if refused(2, (v, z, *args), kwargs):
        return None
    out = f(v, z, **kwargs)
    v_dot, z_dot = checked_tangent(f, tangents[1], v, 1), checked_tangent(f, tangents[2], z, 2)
    if not isinstance(v_dot, AbstractZero) and not ProjectTo(v).is_no_tangent:
        return out, _order("ive")
    terms = []
    if not isinstance(z_dot, AbstractZero) and not ProjectTo(z).is_no_tangent:
        d, c = _ive_partials(v, z, out)
        terms.append(d * z_dot + c * np.real(z_dot))
    return out, tangent_from_terms(out, terms)
