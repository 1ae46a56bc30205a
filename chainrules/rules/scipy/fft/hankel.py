"""scipy.fft's fast Hankel transforms ``fht(a, dln, mu, offset=0.0, bias=0.0)`` and ``ifht``: linear in ``a``.

Both are self-adjoint in ``a``, so the pullback is the same call on the seed.
scipy computes (scipy/fft/_fftlog_backend.py, ``fht`` and ``_fhtq``; Hamilton,
*Uncorrelated modes of the non-linear power spectrum*, MNRAS 312 (2000),
appendix B) ``fht(a) = E2 flip(irfft(u rfft(E1 a)))`` with the coefficients
``u`` (``1 / conj(u)`` for ``ifht``) and, for a nonzero bias, the diagonal
weights ``E1 = exp(-bias (j - jc) dln)`` and ``E2 = E1 exp(-bias offset)``
(``ifht``: their reciprocals, in the other order). ``irfft(u rfft(x))`` is a
circular convolution with the real kernel ``c = irfft(u, n)``, and flipping
it gives the matrix ``c[(n - 1 - i - j) mod n]``, symmetric in ``i`` and
``j``. So ``fht^T = E1 M E2 = fht``: ``E1 E2^-1`` and ``E1^-1 E2`` are the
scalars ``exp(±bias offset)`` and cancel.

The derivatives in ``dln``, ``mu``, ``offset`` and ``bias``, through the
coefficients' complex gamma-function ratio, are not implemented: their
cotangents are ``NotImplementedTangent``, and so is the output's tangent
when one of them moves. ``a`` is real (scipy refuses a complex one); the
transform runs along the last axis.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scipy import fft

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    ZeroTangent,
    checked_seed,
    follow,
    frule,
    named_after,
    not_implemented,
    rrule,
    value_shape,
)

from ..._makers import NO_TANGENT, checked_tangents

_PARAMETERS = ("dln", "mu", "offset", "bias")


def _parameter_cotangent(f: Any, name: str, value: Any) -> Any:
    """``NoTangent()`` for an integer parameter, else the derivative that is not implemented."""
    if ProjectTo(value).is_no_tangent:
        return NO_TANGENT
    return not_implemented(f"scipy.fft.{f.__name__}: the derivative in {name}")


def _register(f: Callable[..., Any]) -> None:
    def _rrule_hankel(f: Any, a: Any, *params: Any, **kwargs: Any) -> Any:
        out = follow(f, a, *params, **kwargs)
        project, shape = ProjectTo(a), value_shape(out)
        others = tuple(_parameter_cotangent(f, name, p) for name, p in zip(_PARAMETERS, params))

        def hankel_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = checked_seed(f, out_bar, shape)
            if project.is_no_tangent:  # an integer signal
                a_bar = NO_TANGENT
            elif isinstance(out_bar, AbstractZero):
                a_bar = project(out_bar)
            else:
                a_bar = project(follow(f, out_bar, *params, **kwargs))
            return (NO_TANGENT, a_bar, *others)

        return out, hankel_pullback

    def _frule_hankel(tangents: tuple[Any, ...], f: Any, a: Any, *params: Any, **kwargs: Any) -> Any:
        out = follow(f, a, *params, **kwargs)
        a_dot, *params_dot = checked_tangents(f, tangents, (a, *params))
        for name, p, p_dot in zip(_PARAMETERS, params, params_dot):
            if not isinstance(p_dot, (AbstractZero, NoTangent)) and not ProjectTo(p).is_no_tangent:
                return out, _parameter_cotangent(f, name, p)
        if isinstance(a_dot, AbstractZero) or ProjectTo(a).is_no_tangent:
            return out, ZeroTangent()
        return out, ProjectTo(out)(follow(f, a_dot, *params, **kwargs))

    rrule.register(f)(named_after(f, _rrule_hankel))
    frule.register(f)(named_after(f, _frule_hankel))


_register(fft.fht)
_register(fft.ifht)
