"""Rules for ``scipy.special``: the logistic functions, ``logsumexp``, ``softmax`` and ``log_softmax``.

* ``SPECIAL``: ``expit``, ``logit``, ``log_expit``, ``softplus``.
* ``logsumexp``, ``softmax`` and ``log_softmax`` reduce or normalise along
  ``axis`` (all axes by default); their pullbacks broadcast the cotangent
  back and never form the Jacobian. ``logsumexp(..., return_sign=True)``
  gets no rule (``None``).

The other families live in ``scipy_special_erf``, ``scipy_special_gamma``,
``scipy_special_bessel``, ``scipy_special_integrals`` and
``scipy_special_elementary``. Imported when ``scipy.special`` is (``pip
install chainrules[scipy]``).
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
    ProjectTo,
    ZeroTangent,
    checked_seed,
    checked_tangent,
    cotangent_from_partial,
    frule,
    rrule,
    scalar_rule,
    shape_of,
    value_shape,
)
from chainrules_core.followed import follow, is_followed, primal_of

from ..._makers import Prepared, positional_options, rule_in_first

# ----- d(out)/dx given the output and the input; `m` is numpy -----
SPECIAL: dict[Any, Callable[..., Any]] = {
    special.expit: lambda m, out, x: out * special.expit(-x),  # not out (1 - out): 0 where expit rounds to 1
    special.logit: lambda m, out, x: m.where(m.isnan(out), out, 1 / (x * (1 - x))),  # +inf at 0 and 1; nan outside
    # log_expit = -softplus(-x) and softplus(x) = log(1 + exp(x)): their derivatives are expit(-x) and expit(x)
    special.log_expit: lambda m, out, x: special.expit(-x),
    special.softplus: lambda m, out, x: special.expit(x),
}

for _f, _partials in SPECIAL.items():
    scalar_rule(_f, functools.partial(_partials, np))


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """``axis`` (None, an int or a tuple, negative or not) as a tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return tuple(int(a) % ndim for a in axes) if ndim else ()


def _option(rest: tuple[Any, ...], kwargs: dict[str, Any], i: int, name: str, default: Any) -> Any:
    """Argument ``i`` after the first, given positionally or by ``name``."""
    return rest[i] if len(rest) > i else kwargs.get(name, default)


def _along_axis(rule: Any) -> Any:
    """``rule(out, t, axes)`` as ``rule_in_first`` calls it, with the axes of ``axis`` (all by default)."""

    def along_axis(c: Prepared, t: Any) -> Any:
        args, kwargs = c.options
        return rule(c.out, t, _axes(_option(args, kwargs, 0, "axis", None), np.ndim(c.x)))

    return along_axis


# softmax: J = diag(s) - s s^T, so x_bar = conj(s) (out_bar - sum(conj(s) out_bar)) along the axes.
def _softmax_push(s: Any, x_dot: Any, axes: tuple[int, ...]) -> Any:
    return s * (x_dot - np.sum(s * x_dot, axis=axes, keepdims=True))


def _softmax_pull(s: Any, out_bar: Any, axes: tuple[int, ...]) -> Any:
    c = np.conjugate(s)
    return c * (out_bar - np.sum(c * out_bar, axis=axes, keepdims=True))


# log_softmax: J = I - 1 s^T, so x_bar = out_bar - conj(s) sum(out_bar) along the axes, with s = exp(out).
def _log_softmax_push(out: Any, x_dot: Any, axes: tuple[int, ...]) -> Any:
    return x_dot - np.sum(np.exp(out) * x_dot, axis=axes, keepdims=True)


def _log_softmax_pull(out: Any, out_bar: Any, axes: tuple[int, ...]) -> Any:
    return out_bar - np.conjugate(np.exp(out)) * np.sum(out_bar, axis=axes, keepdims=True)


def _logsumexp_parts(a: Any, rest: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """``b``, ``keepdims``, the reduced axes, and the weights exp(a - out) (d out / d b; times b, d out / d a).

    The weights are a softmax, ``exp(a - max) / sum(b exp(a - max))``: not
    ``exp(a - out)``, which is 1 for both entries of ``[x, x]`` where
    ``out = x + log 2`` rounds to ``x`` (``|x| >= 1e16``).

    An engine's ``a`` and ``b`` (a second derivative) are followed through
    every step; the shift by the maximum is read off the plain values (the
    softmax does not depend on it).
    """
    axis, b = _option(rest, kwargs, 0, "axis", None), _option(rest, kwargs, 1, "b", None)
    keepdims = bool(_option(rest, kwargs, 2, "keepdims", False))
    if is_followed(a) or is_followed(b):
        shape = np.shape(primal_of(a)) if b is None else np.broadcast_shapes(shape_of(a), shape_of(b))
        values = a if shape_of(a) == shape else np.broadcast_to(a, shape)
    else:
        values = np.asarray(a) if b is None else np.broadcast_arrays(a, b)[0]
    plain = primal_of(values)
    axes = _axes(axis, np.ndim(plain))
    top = np.max(np.real(plain), axis=axes, keepdims=True, initial=-np.inf)
    e = np.exp(values - np.where(np.isfinite(top), top, 0.0))
    weights = e / np.sum(e if b is None else b * e, axis=axes, keepdims=True)
    return b, keepdims, axes, weights


def _rrule_logsumexp(f: Any, a: Any, *rest: Any, **kwargs: Any) -> Any:
    if _option(rest, kwargs, 3, "return_sign", False):
        return None
    out = follow(f, a, *rest, **kwargs)  # scipy's logsumexp converts a: one call an engine follows
    project_a = ProjectTo(a)
    project_b = ProjectTo(rest[1]) if len(rest) > 1 else None  # only a positional b gets a cotangent
    shape = value_shape(out)

    def logsumexp_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, shape)
        bars: list[Any] = [NoTangent()] * len(rest)
        b, keepdims, axes, weights = _logsumexp_parts(a, rest, kwargs)
        g = out_bar if keepdims else np.expand_dims(out_bar, axes)
        a_bar = cotangent_from_partial(project_a, shape_of(a), weights if b is None else weights * b, g)
        if project_b is not None:
            bars[1] = cotangent_from_partial(project_b, shape_of(b), weights, g)
        return NoTangent(), a_bar, *bars

    return out, logsumexp_pullback


def _frule_logsumexp(tangents: tuple[Any, ...], f: Any, a: Any, *rest: Any, **kwargs: Any) -> Any:
    if _option(rest, kwargs, 3, "return_sign", False):
        return None
    out = follow(f, a, *rest, **kwargs)  # scipy's logsumexp converts a: one call an engine follows
    a_dot = checked_tangent(f, tangents[1], a, 1)
    b_dot = checked_tangent(f, tangents[3], rest[1], 3) if len(rest) > 1 else ZeroTangent()
    b, keepdims, axes, weights = _logsumexp_parts(a, rest, kwargs)
    terms = []
    if not isinstance(a_dot, AbstractZero) and not ProjectTo(a).is_no_tangent:
        terms.append((weights if b is None else weights * b) * a_dot)
    if not isinstance(b_dot, AbstractZero) and not ProjectTo(b).is_no_tangent:
        terms.append(weights * b_dot)
    if not terms:
        return out, ProjectTo(out)(ZeroTangent())
    return out, ProjectTo(out)(np.sum(sum(terms[1:], terms[0]), axis=axes, keepdims=keepdims))


for _f, _push, _pull in (
    (special.softmax, _softmax_push, _softmax_pull),
    (special.log_softmax, _log_softmax_push, _log_softmax_pull),
):
    rule_in_first(_f, parse=positional_options(), cotangent=_along_axis(_pull), tangent=_along_axis(_push))
rrule.register(special.logsumexp)(_rrule_logsumexp)
frule.register(special.logsumexp)(_frule_logsumexp)
