"""Rules for ``scipy.special``: ``expit``, ``logit``, ``logsumexp``, ``softmax``, ``log_softmax``.

Registered only when scipy imports (``pip install chainrules[scipy]``).
``logsumexp``, ``softmax`` and ``log_softmax`` reduce or normalise along
``axis`` (all axes by default); their pullbacks broadcast the cotangent back
and never form the Jacobian. ``logsumexp(..., return_sign=True)`` gets no
rule (``None``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, frule, rrule, scalar_rule, unthunk
from chainrules_core.projection import ProjectTo, shape_of
from chainrules_core.rule_definition import _conj as conj
from chainrules_core.testing import POSITIVE, REAL_ONLY, REALS, Arg, At, Case, Domain, register_cases

from ._cases import table_cases
from ._derivatives import Elementwise
from ._makers import pull, unary_rules, zero_of

try:
    from scipy import special
except ImportError:  # scipy is optional
    special = None

LOGIT_DOMAIN = Domain(0.0, 1.0, complex=False, name="(0, 1), real only")

SPECIAL: dict[str, Elementwise] = {
    # expit(x) expit(-x), not out (1 - out), which is 0 where expit rounds to 1 (x > 37)
    "expit": Elementwise(lambda m, out, x: out * special.expit(-x), (REAL_ONLY,)),
    # +inf at 0 and 1, where logit is -inf and +inf
    "logit": Elementwise(
        lambda m, out, x: 1 / (x * (1 - x)), (LOGIT_DOMAIN,), limits=(((0.0,), (np.inf,)), ((1.0,), (np.inf,)))
    ),
}
"""d(out)/dx of scipy's elementwise functions, by name."""


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
    """``rule(out, t, axes)`` as ``unary_rules`` calls it, with the axes of ``axis`` (all by default)."""

    def along_axis(x: Any, out: Any, t: Any, options: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return rule(out, t, _axes(_option(options, kwargs, 0, "axis", None), np.ndim(x)))

    return along_axis


# softmax: J = diag(s) - s s^T, so x_bar = conj(s) (out_bar - sum(conj(s) out_bar)) along the axes.
def _softmax_push(s: Any, x_dot: Any, axes: tuple[int, ...]) -> Any:
    return s * (x_dot - np.sum(s * x_dot, axis=axes, keepdims=True))


def _softmax_pull(s: Any, out_bar: Any, axes: tuple[int, ...]) -> Any:
    c = conj(s)
    return c * (out_bar - np.sum(c * out_bar, axis=axes, keepdims=True))


# log_softmax: J = I - 1 s^T, so x_bar = out_bar - conj(s) sum(out_bar) along the axes, with s = exp(out).
def _log_softmax_push(out: Any, x_dot: Any, axes: tuple[int, ...]) -> Any:
    return x_dot - np.sum(np.exp(out) * x_dot, axis=axes, keepdims=True)


def _log_softmax_pull(out: Any, out_bar: Any, axes: tuple[int, ...]) -> Any:
    return out_bar - conj(np.exp(out)) * np.sum(out_bar, axis=axes, keepdims=True)


def _logsumexp_parts(a: Any, rest: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> tuple[Any, ...]:
    """``b``, ``keepdims``, the reduced axes, and the weights exp(a - out) (d out / d b; times b, d out / d a)."""
    axis, b = _option(rest, kwargs, 0, "axis", None), _option(rest, kwargs, 1, "b", None)
    keepdims = bool(_option(rest, kwargs, 2, "keepdims", False))
    ndim = len(np.broadcast_shapes(np.shape(a), np.shape(b))) if b is not None else np.ndim(a)
    axes = _axes(axis, ndim)
    weights = np.exp(a - (out if keepdims else np.expand_dims(out, axes)))
    return b, keepdims, axes, weights


def _rrule_logsumexp(f: Any, a: Any, *rest: Any, **kwargs: Any) -> Any:
    if _option(rest, kwargs, 3, "return_sign", False):
        return None
    out = f(a, *rest, **kwargs)
    project_a = ProjectTo(a)
    project_b = ProjectTo(rest[1]) if len(rest) > 1 else None  # only a positional b gets a cotangent

    def logsumexp_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = unthunk(out_bar)
        bars: list[Any] = [NoTangent()] * len(rest)
        if isinstance(out_bar, AbstractZero):
            if project_b is not None:
                bars[1] = zero_of(project_b)
            return NoTangent(), zero_of(project_a), *bars
        b, keepdims, axes, weights = _logsumexp_parts(a, rest, kwargs, out)
        g = out_bar if keepdims else np.expand_dims(out_bar, axes)
        a_bar = pull(project_a, shape_of(a), weights if b is None else weights * b, g)
        if project_b is not None:
            bars[1] = pull(project_b, shape_of(b), weights, g)
        return NoTangent(), a_bar, *bars

    return out, logsumexp_pullback


def _frule_logsumexp(tangents: tuple[Any, ...], f: Any, a: Any, *rest: Any, **kwargs: Any) -> Any:
    if _option(rest, kwargs, 3, "return_sign", False):
        return None
    out = f(a, *rest, **kwargs)
    b, keepdims, axes, weights = _logsumexp_parts(a, rest, kwargs, out)
    terms = []
    a_dot = tangents[1]
    if not isinstance(a_dot, AbstractZero) and not ProjectTo(a).is_no_tangent:
        terms.append((weights if b is None else weights * b) * unthunk(a_dot))
    if len(rest) > 1 and not isinstance(tangents[3], AbstractZero) and not ProjectTo(b).is_no_tangent:
        terms.append(weights * unthunk(tangents[3]))
    if not terms:
        return out, zero_of(ProjectTo(out))
    return out, ProjectTo(out)(np.sum(sum(terms[1:], terms[0]), axis=axes, keepdims=keepdims))


if special is not None:
    for _name, _entry in SPECIAL.items():
        scalar_rule(getattr(special, _name), _entry.bind_numpy())
    unary_rules(special.softmax, _along_axis(_softmax_push), _along_axis(_softmax_pull))
    unary_rules(special.log_softmax, _along_axis(_log_softmax_push), _along_axis(_log_softmax_pull))
    rrule.register(special.logsumexp)(_rrule_logsumexp)
    frule.register(special.logsumexp)(_frule_logsumexp)


# ----- declared checks -----


def _cases() -> list[Case]:
    assert special is not None
    cases = []
    for name, entry in SPECIAL.items():
        cases += table_cases(getattr(special, name), entry)
    for f in (special.softmax, special.log_softmax):
        cases += [
            Case(f, (Arg(REALS, (4,)),)),
            Case(f, (Arg(REALS, (2, 3)),), kwargs={"axis": 1}),
            Case(f, (Arg(REALS, (2, 3)), 0), name="positional axis"),
            Case(f, (Arg(REALS, (2, 3, 2)),), kwargs={"axis": (0, -1)}),
            Case(f, (Arg(REALS, (2, 3)),), name="all axes"),
        ]
    lse = special.logsumexp
    cases += [
        Case(lse, (Arg(REALS, None),)),
        Case(lse, (Arg(REALS, (4,)),)),
        Case(lse, (Arg(REALS, (2, 3)),), kwargs={"axis": -1}),
        Case(lse, (Arg(REALS, (2, 3)), 0), kwargs={"keepdims": True}, name="positional axis"),
        Case(lse, (Arg(REALS, (2, 3, 2)),), kwargs={"axis": (0, 2)}),
        Case(lse, (Arg(REALS, (2, 3)), 1, Arg(POSITIVE, (3,))), name="weights", dtypes=("float64", "float32")),
        Case(lse, (Arg(REALS, (2, 3)),), kwargs={"b": np.array([0.5, 1.0, 2.0])}, name="keyword weights"),
        Case(special.logit, (At([0.01, 0.5, 0.99]),), name="near the ends", dtypes=("float64",)),
        Case(special.expit, (At([-30.0, 0.0, 30.0]),), name="saturated", dtypes=("float64", "float32")),
    ]
    return cases


if special is not None:
    register_cases("special", *_cases())
