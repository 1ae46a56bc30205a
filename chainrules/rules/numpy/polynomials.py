"""Polynomials (numpy's ``poly*`` functions, coefficients highest degree first).

* ``polyval(p, x)``: ``d y = sum_k d p_k x^(n-1-k) + p'(x) d x``, both from
  the powers of ``x`` (no division, exact at ``x = 0``).
* ``polyder``, ``polyint``, ``polyadd``, ``polysub`` are linear in their
  coefficients (and ``polyint`` in its constants ``k``); ``polymul`` is a
  convolution, bilinear, whose adjoints are correlations.
* ``polydiv(u, v) = (q, r)`` with ``u = q v + r``: differentiating,
  ``d q v + d r = d u - q d v``, so ``(d q, d r)`` is the division of
  ``d u - q d v`` by the fixed ``v``, a linear map (a triangular Toeplitz
  solve for the quotient).
* ``polyfit``: the least-squares solution ``p`` of ``W V p ~ W y`` (``V``
  the Vandermonde matrix of ``x``, ``W`` the weights) has, for ``A = W V``
  of full column rank, ``d p = G A^H (d b - d A p) + G d A^H r`` with
  ``G = (A^H A)^-1``, ``b = W y`` and the residual ``r = b - A p``
  (differentiating the normal equations ``A^H A p = A^H b``; Golub and
  Pereyra 1973). The pullback is ``b_bar = A z`` and ``A_bar = r z^H - A z p^H``
  with ``z = G p_bar``. ``G`` is applied through the SVD of the
  column-scaled ``A``.
* ``roots(p)``: a simple root ``r`` of ``p`` moves by ``d r = -d p(r) / p'(r)``
  (the implicit function theorem on ``p(r) = 0``; Wilkinson 1963,
  "Rounding errors in algebraic processes"), the derivative of the
  companion matrix's eigenvalues.
* ``poly(r)``: ``d a = -sum_i d r_i prod_{j != i} (x - r_j)``, each product
  found by dividing ``a`` by ``x - r_i`` (synthetic division).

Refused (``None``): ``np.poly1d`` arguments, coefficient arrays of more than
one dimension (except ``polyval``'s ``p``), ``polyfit`` with ``full=True`` or
``cov=``, ``polyfit`` of a rank-deficient fit (numpy warns ``RankWarning``;
the least-squares solution then jumps with the rank), and ``poly`` of a
matrix. Non-smooth points: a repeated root has no derivative (``p'(r) = 0``:
``inf``/``nan`` with numpy's warnings); leading zero coefficients, which
``roots`` strips and ``polydiv`` trims from the remainder, change the
output's length when perturbed: their tangents do not reach the output and
their cotangents are zero.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    ProjectTo,
    ZeroTangent,
    checked_seed,
    checked_tangent,
    frule,
    named_after,
    rrule,
    sum_to_shape,
    value_shape,
)

from .._arrays import bind_options, instantiate_zeros, tuple_entries
from .._makers import linear_in_first_rule, tangent_from_terms
from ._bilinear import bilinear_rule
from .creation import vander_derivative
from .linalg._common import as_array


def _plain(*xs: Any) -> bool:
    """Whether every coefficient argument is a number or a 0-d or 1-d array-like (not a ``poly1d``)."""
    return not any(isinstance(x, np.poly1d) or np.ndim(x) > 1 for x in xs)


def _dense(f: Any, t: Any, x: Any, position: int) -> Any:
    """The tangent ``t`` of ``x`` (argument ``position`` of ``f``) as an array, zeros made explicit, once it is
    known to have ``x``'s shape."""
    return as_array(instantiate_zeros(checked_tangent(f, t, x, position), x))


# ----- polyval -----


class _Horner:
    """The powers of ``x`` that ``polyval(p, x)`` weights, and ``p'(x)``, for ``p`` of any number of dimensions."""

    def __init__(self, p: Any, x: Any) -> None:
        self.p, self.x = as_array(p), as_array(x)
        n = len(self.p)
        powers = [np.ones_like(self.x)] if n else []  # an empty p is the zero polynomial
        for _ in range(n - 1):
            powers.append(powers[-1] * self.x)
        self.powers = powers[::-1]  # powers[k] = x ** (n - 1 - k)
        terms = [(n - 1 - k) * self.p[k] * self.powers[k + 1] for k in range(n - 1)]
        self.slope = sum(terms[1:], terms[0]) if terms else np.zeros_like(self.x)


@rrule.register(np.polyval)
def _rrule_polyval(f: Any, p: Any, x: Any) -> Any:
    if isinstance(p, np.poly1d) or isinstance(x, np.poly1d):
        return None
    out = f(p, x)
    project_p, project_x = ProjectTo(p), ProjectTo(x)
    constant = ProjectTo(out).is_no_tangent
    shape = value_shape(out)

    def polyval_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = checked_seed(f, out_bar, shape)
        if constant or isinstance(out_bar, AbstractZero):
            return NoTangent(), project_p(ZeroTangent()), project_x(ZeroTangent())
        h = _Horner(p, x)
        p_bar = [_summed(np.conj(w) * out_bar, np.shape(h.p[k])) for k, w in enumerate(h.powers)]
        p_bar_array = np.stack(p_bar) if p_bar else np.zeros(np.shape(p))
        x_bar = _summed(np.conj(h.slope) * out_bar, np.shape(x))
        return NoTangent(), project_p(p_bar_array.reshape(np.shape(p))), project_x(x_bar)

    return out, polyval_pullback


def _summed(bar: Any, shape: tuple[int, ...]) -> Any:
    return sum_to_shape(as_array(bar), shape)


@frule.register(np.polyval)
def _frule_polyval(tangents: tuple[Any, ...], f: Any, p: Any, x: Any) -> Any:
    if isinstance(p, np.poly1d) or isinstance(x, np.poly1d):
        return None
    out = f(p, x)
    h = _Horner(p, x)
    terms = []
    p_dot, x_dot = checked_tangent(f, tangents[1], p, 1), checked_tangent(f, tangents[2], x, 2)
    if not isinstance(p_dot, AbstractZero) and not ProjectTo(p).is_no_tangent:
        p_dot = as_array(p_dot)
        terms += [p_dot[k] * w for k, w in enumerate(h.powers)]
    if not isinstance(x_dot, AbstractZero) and not ProjectTo(x).is_no_tangent:
        terms.append(h.slope * x_dot)
    return out, tangent_from_terms(out, terms)


# ----- polyder, polyint, polyadd, polysub: linear -----


def _polyder_adjoint(out_bar: Any, p: Any, *args: Any, **kwargs: Any) -> Any:
    """``polyder(p, m)[k] = p[k] d_k (d_k - 1) ... (d_k - m + 1)`` with ``d_k = n - 1 - k`` the degree of ``p[k]``."""
    m = int(bind_options(("m",), args, kwargs, m=1)["m"])
    n = np.size(p)
    kept = max(n - m, 0)
    degrees = np.arange(n - 1, n - 1 - kept, -1)
    weights = np.prod([degrees - j for j in range(m)], axis=0) if m else np.ones(kept)
    p_bar = np.zeros(n, dtype=np.result_type(out_bar, 1.0))
    p_bar[:kept] = np.asarray(out_bar) * weights
    return p_bar.reshape(np.shape(p))


linear_in_first_rule(np.polyder, _polyder_adjoint, applies=lambda p, *args, **kwargs: _plain(p))


@rrule.register(np.polyint)
def _rrule_polyint(f: Any, p: Any, *args: Any, **kwargs: Any) -> Any:
    """Each integration is ``y = concatenate((p / (len(p), ..., 1), [k_i]))``.

    Its adjoint splits ``k_i``'s cotangent off the end and divides the rest.
    A single ``k`` serves every integration (its cotangent is their sum);
    constants past the ``m``-th are unused.
    """
    options = bind_options(("m", "k"), args, kwargs, m=1)
    if not _plain(p):
        return None
    out = f(p, *args, **kwargs)
    m, k = int(options["m"]), options["k"]
    project_p = ProjectTo(p)
    project_k = ProjectTo(k) if len(args) > 1 else ProjectTo(None)  # k by keyword is a constant
    others = [project_k if i == 1 else ProjectTo(None) for i in range(len(args))]
    shape = value_shape(out)

    def polyint_pullback(out_bar: Any) -> tuple[Any, ...]:
        g = as_array(checked_seed(f, out_bar, shape))
        k_bars = []
        for step in reversed(range(m)):
            k_bars.append(g[-1])
            g = g[:-1] / np.arange(np.size(p) + step, 0, -1)
        k_bar: Any = ZeroTangent()
        if m and not project_k.is_no_tangent:
            k_bar = np.stack(k_bars[::-1])
            if np.size(k) == 1:
                k_bar = np.sum(k_bar).reshape(np.shape(k))
            else:
                k_bar = np.concatenate([k_bar, np.zeros(np.size(k) - m, k_bar.dtype)]).reshape(np.shape(k))
        bars = [project(k_bar) for project in others]
        return NoTangent(), project_p(g.reshape(np.shape(p))), *bars

    return out, polyint_pullback


@frule.register(np.polyint)
def _frule_polyint(tangents: tuple[Any, ...], f: Any, p: Any, *args: Any, **kwargs: Any) -> Any:
    if not _plain(p):
        return None
    out = f(p, *args, **kwargs)
    options = bind_options(("m", "k"), args, kwargs, m=1)
    k_dot = None
    if len(args) > 1 and options["k"] is not None and not ProjectTo(options["k"]).is_no_tangent:
        k_dot = _dense(f, tangents[3], options["k"], 3)
    p_dot = _dense(f, tangents[1], p, 1) if not ProjectTo(p).is_no_tangent else np.zeros(np.shape(p))
    return out, ProjectTo(out)(f(p_dot, int(options["m"]), k_dot))


def _register_padded_sum(f: Any, sign: int) -> None:
    """``polyadd``/``polysub``: the shorter operand is padded with leading zeros; each cotangent is the seed's tail."""

    def _rrule_padded_sum(f: Any, a1: Any, a2: Any) -> Any:
        if not _plain(a1, a2):
            return None
        out = f(a1, a2)
        projects = (ProjectTo(a1), ProjectTo(a2))
        shape = value_shape(out)

        def padded_sum_pullback(out_bar: Any) -> tuple[Any, ...]:
            g = as_array(checked_seed(f, out_bar, shape))
            tails = [g[len(g) - np.size(a) :].reshape(np.shape(a)) for a in (a1, a2)]
            return NoTangent(), projects[0](tails[0]), projects[1](sign * tails[1])

        return out, padded_sum_pullback

    def _frule_padded_sum(tangents: tuple[Any, ...], f: Any, a1: Any, a2: Any) -> Any:
        if not _plain(a1, a2):
            return None
        out = f(a1, a2)
        return out, ProjectTo(out)(f(_dense(f, tangents[1], a1, 1), _dense(f, tangents[2], a2, 2)))

    rrule.register(f)(named_after(f, _rrule_padded_sum))
    frule.register(f)(named_after(f, _frule_padded_sum))


_register_padded_sum(np.polyadd, 1)
_register_padded_sum(np.polysub, -1)


# ----- polymul: a convolution -----


def _polymul_cotangents(a: np.ndarray, b: np.ndarray, g: np.ndarray) -> Any:
    """``c = a * b`` (full convolution): ``a_bar = correlate(c_bar, b)``, which conjugates ``b``; likewise ``b_bar``."""

    def a_bar() -> np.ndarray:
        return np.correlate(g, np.atleast_1d(b), "valid").reshape(a.shape)

    def b_bar() -> np.ndarray:
        return np.correlate(g, np.atleast_1d(a), "valid").reshape(b.shape)

    return a_bar, b_bar


bilinear_rule(np.polymul, lambda a, b: _polymul_cotangents if _plain(a, b) else None)


# ----- polydiv: quotient and remainder -----


class _Division:
    """The division of any ``w`` of ``u``'s length by the fixed ``v``, linear in ``w``, and its adjoint.

    The quotient ``d q`` solves ``T d q = w[:nq]`` with ``T`` the lower
    triangular Toeplitz matrix of ``v`` (the first ``nq`` entries of
    ``d q * v``), and the remainder is ``w - d q * v``. ``nq < 1`` (``v``
    longer than ``u``): numpy's quotient is the constant ``[0]``.
    """

    def __init__(self, u: Any, v: Any, q: Any, r: Any) -> None:
        self.v = np.atleast_1d(v) + 0.0
        self.q = q
        self.length = np.size(u)
        self.nq = self.length - self.v.size + 1
        self.kept = np.size(r)  # numpy trims the remainder's leading (near) zeros
        lags = np.subtract.outer(np.arange(max(self.nq, 0)), np.arange(max(self.nq, 0)))
        padded = np.concatenate([self.v, np.zeros(max(self.nq, 0))])
        self.toeplitz = np.where(lags >= 0, padded[np.maximum(lags, 0)], 0)

    def apply(self, w: Any) -> tuple[Any, Any]:
        if self.nq < 1:
            return np.zeros(1, dtype=w.dtype), w[self.length - self.kept :]
        dq = np.linalg.solve(self.toeplitz, w[: self.nq])
        return dq, (w - np.convolve(dq, self.v))[self.length - self.kept :]

    def adjoint(self, q_bar: Any, r_bar: Any) -> Any:
        dtype = np.result_type(q_bar, r_bar, self.v)
        lead = np.zeros(self.length - self.kept, dtype)
        w_bar = np.concatenate([lead, np.broadcast_to(r_bar, (self.kept,)).astype(dtype)])  # built: may be followed
        if self.nq >= 1:
            y = q_bar - np.correlate(w_bar, self.v, "valid")
            solved = np.linalg.solve(self.toeplitz.conj().T, y)
            w_bar = w_bar + np.concatenate([solved, np.zeros(self.length - self.nq, dtype)])
        return w_bar


@rrule.register(np.polydiv)
def _rrule_polydiv(f: Any, u: Any, v: Any) -> Any:
    if not _plain(u, v):
        return None
    out = f(u, v)
    division = _Division(u, v, *out)
    project_u, project_v = ProjectTo(u), ProjectTo(v)
    shapes = [value_shape(o) for o in out]

    def polydiv_pullback(out_bar: Any) -> tuple[Any, ...]:
        seeds = [checked_seed(f, b, shape) for b, shape in zip(tuple_entries(out_bar, 2), shapes)]
        q_bar, r_bar = (0.0 if isinstance(b, AbstractZero) else b for b in seeds)
        w_bar = division.adjoint(np.broadcast_to(q_bar, np.shape(out[0])), r_bar)
        v_bar = -np.correlate(w_bar, division.q, "valid") if division.nq >= 1 else np.zeros(np.size(v))
        return NoTangent(), project_u(w_bar.reshape(np.shape(u))), project_v(v_bar.reshape(np.shape(v)))

    return out, polydiv_pullback


@frule.register(np.polydiv)
def _frule_polydiv(tangents: tuple[Any, ...], f: Any, u: Any, v: Any) -> Any:
    if not _plain(u, v):
        return None
    out = f(u, v)
    division = _Division(u, v, *out)
    u_dot, v_dot = checked_tangent(f, tangents[1], u, 1), checked_tangent(f, tangents[2], v, 2)
    w = np.atleast_1d(_dense(f, u_dot, u, 1) if not ProjectTo(u).is_no_tangent else np.zeros(np.size(u))) + 0.0
    if division.nq >= 1 and not ProjectTo(v).is_no_tangent:
        w = w - np.convolve(division.q, np.atleast_1d(_dense(f, v_dot, v, 2)))
    return out, ProjectTo(out)(division.apply(w))


# ----- polyfit: least squares -----


class _LeastSquares:
    """The fit ``polyfit`` computes, with what its derivative needs; ``rank_deficient`` when it has none."""

    def __init__(self, x: Any, y: Any, deg: Any, rcond: Any, w: Any) -> None:
        self.x, self.y = as_array(x) + 0.0, as_array(y) + 0.0
        order = int(deg) + 1
        self.weights = np.ones(self.x.size) if w is None else as_array(w) + 0.0
        self.a = np.vander(self.x, order) * self.weights[:, None]
        self.b = _weighted(self, self.y)
        scale = np.sqrt(np.sum(np.abs(self.a) ** 2, axis=0))
        self.scale = np.where(scale == 0, 1.0, scale)
        _, s, vh = np.linalg.svd(self.a / self.scale, full_matrices=False)
        rcond = self.x.size * np.finfo(self.x.dtype).eps if rcond is None else rcond
        self.rank_deficient = s.size < order or s[-1] <= rcond * s[0]
        self.inverse_gram = (vh.conj().T / s**2) @ vh  # (A_s^H A_s)^-1 of the scaled columns
        self.order = order

    def normal_solve(self, z: Any) -> Any:
        """``G z`` with ``G = (A^H A)^-1``: ``A = A_s D`` for the column scales ``D``."""
        scale = self.scale if np.ndim(z) == 1 else self.scale[:, None]
        return (self.inverse_gram @ (z / scale)) / scale

    def slope(self) -> Any:
        """``d A[i, j] / d x[i]``: the weighted derivative of the Vandermonde matrix."""
        return vander_derivative(self.x, self.order, False) * self.weights[:, None]


def _fitted(f: Any, x: Any, y: Any, deg: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``(fit, p, residual)`` for a call the rules handle; ``None`` for ``full=``, ``cov=`` or a rank-deficient fit."""
    options = bind_options(("rcond", "full", "w", "cov"), args, kwargs, full=False, cov=False)
    if options["full"] or options["cov"] is not False:
        return None
    p = f(x, y, deg, *args, **kwargs)  # first: numpy's checks of the arguments, and its exceptions
    fit = _LeastSquares(x, y, deg, options["rcond"], options["w"])
    if fit.rank_deficient:
        return None
    return fit, p, fit.b - fit.a @ p


def _weighted(fit: _LeastSquares, v: Any) -> Any:
    """``W v`` for a vector or the columns of a matrix."""
    return v * (fit.weights if np.ndim(v) == 1 else fit.weights[:, None])


@rrule.register(np.polyfit)
def _rrule_polyfit(f: Any, x: Any, y: Any, deg: Any, *args: Any, **kwargs: Any) -> Any:
    fitted = _fitted(f, x, y, deg, args, kwargs)
    if fitted is None:
        return None
    fit, p, residual = fitted
    project_x, project_y = ProjectTo(x), ProjectTo(y)
    others = (NoTangent(),) * (len(args) + 1)
    shape = value_shape(p)

    def polyfit_pullback(out_bar: Any) -> tuple[Any, ...]:
        z = fit.normal_solve(as_array(checked_seed(f, out_bar, shape)))
        az = fit.a @ z
        a_bar = _outer_sum(residual, z.conj()) - _outer_sum(az, p.conj())
        x_bar = np.sum(fit.slope().conj() * a_bar, axis=1)
        return NoTangent(), project_x(x_bar), project_y(_weighted(fit, az)), *others

    return p, polyfit_pullback


def _outer_sum(u: Any, v: Any) -> Any:
    """``u v^T`` for vectors, ``u @ v^T`` summed over columns for matrices (``y`` of several columns)."""
    return np.outer(u, v) if u.ndim == 1 else u @ v.T


@frule.register(np.polyfit)
def _frule_polyfit(tangents: tuple[Any, ...], f: Any, x: Any, y: Any, deg: Any, *args: Any, **kwargs: Any) -> Any:
    fitted = _fitted(f, x, y, deg, args, kwargs)
    if fitted is None:
        return None
    fit, p, residual = fitted
    x_dot, y_dot = checked_tangent(f, tangents[1], x, 1), checked_tangent(f, tangents[2], y, 2)
    rhs = np.zeros_like(p, dtype=np.result_type(p, fit.a))
    if not isinstance(y_dot, AbstractZero) and not ProjectTo(y).is_no_tangent:
        rhs = rhs + fit.a.conj().T @ _weighted(fit, as_array(y_dot))
    if not isinstance(x_dot, AbstractZero) and not ProjectTo(x).is_no_tangent:
        a_dot = fit.slope() * as_array(x_dot)[:, None]
        rhs = rhs - fit.a.conj().T @ (a_dot @ p) + a_dot.conj().T @ residual
    return p, ProjectTo(p)(fit.normal_solve(rhs))


# ----- roots and poly -----


class _Roots:
    """``d r_i = -d p(r_i) / p'(r_i)`` for the roots ``r`` of ``p`` with its leading zeros stripped."""

    def __init__(self, p: Any, out: Any) -> None:
        p = np.atleast_1d(p)
        nonzero = np.flatnonzero(p)
        self.lead = int(nonzero[0]) if nonzero.size else p.size
        trimmed = p[self.lead :]
        self.powers = np.vander(out, trimmed.size) if out.size else np.zeros((0, trimmed.size))
        self.slope = np.polyval(np.polyder(trimmed), out) if out.size else np.zeros(0)
        self.size = p.size


@rrule.register(np.roots)
def _rrule_roots(f: Any, p: Any) -> Any:
    if not _plain(p):
        return None
    out = f(p)
    roots = _Roots(p, out)
    project_p = ProjectTo(p)
    shape = value_shape(out)

    def roots_pullback(out_bar: Any) -> tuple[Any, ...]:
        g = as_array(checked_seed(f, out_bar, shape))
        moved = -(roots.powers.conj().T @ (g / roots.slope.conj()))
        p_bar = np.concatenate([np.zeros(roots.lead, dtype=np.result_type(g, out, 1.0)), moved])
        return NoTangent(), project_p(p_bar.reshape(np.shape(p)))

    return out, roots_pullback


@frule.register(np.roots)
def _frule_roots(tangents: tuple[Any, ...], f: Any, p: Any) -> Any:
    if not _plain(p):
        return None
    out = f(p)
    roots = _Roots(p, out)
    p_dot = np.atleast_1d(_dense(f, tangents[1], p, 1))[roots.lead :]
    return out, ProjectTo(out)(-(roots.powers @ p_dot) / roots.slope)


def _deflated(a: Any, r: Any) -> Any:
    """Row ``i`` is ``a / (x - r_i)`` (synthetic division, exact as ``r_i`` is a root of ``a``)."""
    n = r.size
    if not n:
        return np.empty((0, 0), dtype=np.result_type(a, r))
    columns = [np.broadcast_to(a[0], (n,)).astype(np.result_type(a, r))]
    for k in range(1, n):
        columns.append(a[k] + r * columns[-1])
    return np.stack(columns, axis=1)  # column by column, not written into: an engine may follow a and r


@rrule.register(np.poly)
def _rrule_poly(f: Any, seq_of_zeros: Any) -> Any:
    if isinstance(seq_of_zeros, np.poly1d) or np.ndim(seq_of_zeros) > 1:
        return None  # the characteristic polynomial of a matrix: through eigvals, no rule here
    out = f(seq_of_zeros)
    r = np.atleast_1d(seq_of_zeros)
    quotients = _deflated(np.atleast_1d(out), r)
    project = ProjectTo(seq_of_zeros)
    shape = value_shape(out)

    def poly_pullback(out_bar: Any) -> tuple[Any, ...]:
        g = np.atleast_1d(as_array(checked_seed(f, out_bar, shape)))
        return NoTangent(), project((-(quotients.conj() @ g[1:])).reshape(np.shape(seq_of_zeros)))

    return out, poly_pullback


@frule.register(np.poly)
def _frule_poly(tangents: tuple[Any, ...], f: Any, seq_of_zeros: Any) -> Any:
    if isinstance(seq_of_zeros, np.poly1d) or np.ndim(seq_of_zeros) > 1:
        return None
    out = f(seq_of_zeros)
    r = np.atleast_1d(seq_of_zeros)
    r_dot = np.atleast_1d(_dense(f, tangents[1], seq_of_zeros, 1))
    a_dot = np.concatenate([np.zeros(1, dtype=np.result_type(r_dot, out)), -(r_dot @ _deflated(np.atleast_1d(out), r))])
    return out, ProjectTo(out)(a_dot if np.ndim(out) else a_dot[0])
