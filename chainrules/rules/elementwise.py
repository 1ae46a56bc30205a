"""Rules for numpy's elementwise functions of one argument.

* The table ``UNARY`` in ``_derivatives``: ``sqrt``, ``exp``, ``log``, the
  trigonometric and hyperbolic functions and their inverses ... through
  ``scalar_rule``; the linear ones (``negative``, ``positive``,
  ``deg2rad``, ``rad2deg``) scale the cotangent.
* Written from the 2×2 real Jacobian, as they are not holomorphic:
  ``absolute`` (on complex input), ``conjugate``, ``real``, ``imag``,
  ``angle`` and ``sign`` on complex input.
* Zero derivatives of the input's dtype: ``floor``, ``ceil``, ``trunc``,
  ``rint``, ``round``/``around`` and ``sign`` on real input.

Calls with ``out=`` or ``where=`` (or a positional output buffer) get no
rule: ``frule`` and ``rrule`` return ``None``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, frule, rrule, scalar_rule, unthunk
from chainrules_core.projection import ProjectTo
from chainrules_core.testing import NONZERO, REAL_ONLY, REALS, Arg, At, Case, register_cases

from ._cases import UNARY_SHAPES, table_cases
from ._derivatives import UNARY
from ._makers import linear_rule, refused, unary_rules, zero_frule, zero_of, zero_rrule, zero_rule

_NUMPY2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"

for _f, _entry in UNARY.items():
    if _f is np.absolute:
        continue  # below: complex inputs need their own rule
    if _entry.constant:
        linear_rule(_f, _entry, nin=1)
    else:
        scalar_rule(_f, _entry.bind_numpy())


def _is_complex(x: Any) -> bool:
    return isinstance(x, complex) or np.iscomplexobj(x)


def _nonzero(r: Any) -> Any:
    """``r`` with its zeros replaced by ones: the denominator of a derivative that is 0 where ``r`` is."""
    return np.where(r == 0, 1, r)


# ----- absolute value: real and complex -----


def _unit(x: Any, out: Any) -> Any:
    """d|x| as a direction: sign(x) for real x, x/|x| for complex x; 0 at 0."""
    if _is_complex(x):
        return x / _nonzero(out)
    return UNARY[np.absolute].evaluate(np, out, x)


def _absolute_push(x: Any, out: Any, x_dot: Any, options: Any, kwargs: Any) -> Any:
    return np.real(np.conjugate(_unit(x, out)) * x_dot)


def _absolute_pull(x: Any, out: Any, out_bar: Any, options: Any, kwargs: Any) -> Any:
    return _unit(x, out) * np.real(out_bar)


unary_rules(np.absolute, _absolute_push, _absolute_pull, nin=1)


# ----- complex parts: conjugate, real, imag, angle, and sign of a complex number -----
# Linear over ℝ (conj, real, imag) or written from the 2×2 real Jacobian (angle, sign); each pullback is the
# adjoint of its pushforward under Re(conj(a) b). Real cotangents of complex inputs are embedded by ProjectTo.


def _conj(x: Any, out: Any, t: Any, options: Any, kwargs: Any) -> Any:
    return np.conjugate(t) if _is_complex(t) else t


def _real_part(x: Any, out: Any, t: Any, options: Any, kwargs: Any) -> Any:
    return np.real(t)


def _imag_push(x: Any, out: Any, x_dot: Any, options: Any, kwargs: Any) -> Any:
    return np.imag(x_dot)


def _imag_pull(x: Any, out: Any, out_bar: Any, options: Any, kwargs: Any) -> Any:
    return 1j * np.real(out_bar)


def _angle_scale(options: Any, kwargs: Any) -> float:
    deg = options[0] if options else kwargs.get("deg", False)
    return 180 / np.pi if deg else 1.0


def _angle_push(z: Any, out: Any, z_dot: Any, options: Any, kwargs: Any) -> Any:
    # d angle(z) = Im(conj(z) dz) / |z|²; 0 at z == 0, where the angle jumps (ChainRules.jl)
    r2 = np.real(z * np.conjugate(z))
    return _angle_scale(options, kwargs) * np.imag(np.conjugate(z) * z_dot) / _nonzero(r2)


def _angle_pull(z: Any, out: Any, out_bar: Any, options: Any, kwargs: Any) -> Any:
    r2 = np.real(z * np.conjugate(z))
    return (_angle_scale(options, kwargs) * np.real(out_bar)) * (1j * z / _nonzero(r2))


unary_rules(np.conjugate, _conj, _conj, nin=1)
unary_rules(np.real, _real_part, _real_part, nin=1)
unary_rules(np.imag, _imag_push, _imag_pull, nin=1)
unary_rules(np.angle, _angle_push, _angle_pull, nin=2)


def _sign_tangent(z: Any, out: Any, t: Any) -> Any:
    # sign(z) = z/|z| moves only along the circle: i sign(z) Im(conj(sign(z)) dz) / |z|, 0 at z == 0.
    # The map is self-adjoint under Re(conj(a) b), so the pullback has the same form (ChainRules.jl).
    return 1j * out * np.imag(np.conjugate(out) * t) / _nonzero(np.abs(z))


# ----- zero derivatives -----

for _f in (np.floor, np.ceil, np.trunc, np.rint):
    zero_rule(_f, nin=1)
zero_rule(np.round, nin=2)  # round(a, decimals): decimals is an int, NoTangent
zero_rule(np.around, nin=2)


@rrule.register(np.sign)
def _rrule_sign(f: Any, *args: Any, **kwargs: Any) -> Any:
    # Real input: piecewise constant, zeros (the jump at 0 too). Complex input since numpy 2: z/|z|.
    if refused(1, args, kwargs):
        return None
    if not (_NUMPY2 and _is_complex(args[0])):
        return zero_rrule(f, args, kwargs)
    (z,) = args
    out = f(z, **kwargs)
    project_z = ProjectTo(z)

    def sign_pullback(out_bar: Any) -> tuple[Any, Any]:
        out_bar = unthunk(out_bar)
        if isinstance(out_bar, AbstractZero):
            return NoTangent(), zero_of(project_z)
        return NoTangent(), project_z(_sign_tangent(z, out, out_bar))

    return out, sign_pullback


@frule.register(np.sign)
def _frule_sign(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
    if refused(1, args, kwargs):
        return None
    if not (_NUMPY2 and _is_complex(args[0])):
        return zero_frule(tangents, f, args, kwargs)
    (z,), (_, z_dot) = args, tangents
    out = f(z, **kwargs)
    if isinstance(z_dot, AbstractZero):
        return out, zero_of(ProjectTo(out))
    return out, ProjectTo(out)(_sign_tangent(z, out, unthunk(z_dot)))


# ----- declared checks -----

_ROUNDING_POINTS = (At([0.3, -1.7, 2.2]), At(1.25))
"""Away from the jumps at integers (and half-integers for rint/round), where finite differences cannot settle."""


def _cases() -> list[Case]:
    cases = []
    for f, entry in UNARY.items():
        cases += table_cases(f, entry)
    for shape in UNARY_SHAPES:
        cases.append(Case(np.absolute, (Arg(NONZERO, shape[0]),), name="complex", dtypes=("complex128",)))
        cases.append(Case(np.conjugate, (Arg(REALS, shape[0]),)))
        cases.append(Case(np.real, (Arg(REALS, shape[0]),)))
        cases.append(Case(np.imag, (Arg(REALS, shape[0]),)))
        cases.append(Case(np.angle, (Arg(NONZERO, shape[0]),)))
        cases.append(Case(np.sign, (Arg(NONZERO, shape[0]),)))
    cases.append(Case(np.absolute, (At(0.0),), name="non-smooth point", dtypes=("complex128",)))
    cases.append(Case(np.angle, (Arg(NONZERO, (2, 3)), True), name="degrees"))
    for f in (np.floor, np.ceil, np.trunc):
        cases += [Case(f, (point,), dtypes=("float64", "float32")) for point in _ROUNDING_POINTS]
        cases.append(Case(f, (Arg(REAL_ONLY, None),)))
    for f in (np.rint, np.round, np.around):
        cases += [Case(f, (point,)) for point in _ROUNDING_POINTS]
    cases.append(Case(np.round, (At([0.312, -1.777, 2.2]), 2), name="decimals"))
    return cases


register_cases("elementwise", *_cases())
