"""scipy.fft's discrete cosine and sine transforms: dct, idct, dst, idst and their n-d forms, every type and norm.

Each transform is linear and real: along one axis, ``y = M x`` for a real
``n x n`` matrix ``M`` (``x`` first cropped or zero-padded to ``n``), applied
to the real and imaginary parts of a complex ``x`` alike. Its pushforward is
the same call on the tangent; its pullback is ``M^T`` (under ``Re(conj(a) b)``
a real matrix's adjoint is its transpose, on complex seeds too), and ``M^T``
is another transform of the family between diagonal weights on the first and
last entries. The n-d forms transform one axis after another, and their
pullbacks apply each axis's adjoint.

The matrices (scipy's definitions, scipy.fft.dct and scipy.fft.dst; Britanak,
Yip and Rao, *Discrete Cosine and Sine Transforms*, 2007, ch. 2). Let ``K_t``
be the unnormalized transform of type ``t`` (``norm="backward"``,
``orthogonalize=False``). Then

* ``M = s L K_t R``: ``s`` is the norm's scale, 1 (``"backward"``),
  ``1 / sqrt(2N)`` (``"ortho"``) or ``1 / (2N)`` (``"forward"``), with
  ``N = n - 1`` for DCT-I, ``n + 1`` for DST-I and ``n`` otherwise;
  ``L`` and ``R`` are the identity unless ``orthogonalize`` (the default with
  ``"ortho"``), which weights the first or last output (``L``) and input
  (``R``) by ``1/sqrt(2)`` or ``sqrt(2)``: DCT-I both ends of both,
  DCT-II ``y[0]``, DCT-III ``x[0]``, DST-II ``y[n-1]``, DST-III ``x[n-1]``.
* The transposes of the unnormalized transforms (the DCT-II/DCT-III duality:
  ``K_3 = K_2^T D`` with ``D = diag(1/2, 1, ..., 1)``, since DCT-III counts
  ``x[0]`` once and the others twice; DST-III counts ``x[n-1]`` once):
  ``K_1^T = W K_1 W^-1`` for DCT-I (``K_1 = A W``, ``A`` symmetric,
  ``W = diag(1/2, 1, ..., 1, 1/2)``), ``K_2^T = K_3 D^-1``, ``K_3^T = D K_2``,
  and DCT-IV, DST-I and DST-IV are symmetric.

So ``M^T = s R K_t^T L`` is ``K_t'`` (``t' = 1, 3, 2, 4`` for ``t = 1, 2, 3,
4``) with the weights ``s R Dl`` after it and ``Dr L`` before it, where
``K_t^T = Dl K_t' Dr``. With ``"ortho"`` and ``orthogonalize`` the weights
cancel and ``M^T = M^-1``, the inverse transform under the same norm.

``idct(x, type=t, norm=v)`` is ``dct(x, type=t')`` under the opposite norm,
with the same ``orthogonalize`` (scipy/fft/_pocketfft/realtransforms.py,
``_r2r`` with ``forward=False``), and the same for ``idst``: the inverse
transforms take the forward ones' rules through that identity.

scipy transforms a complex signal with ``orthogonalize`` at its default
(``norm == "ortho"``) whatever the call says; the rules differentiate what
scipy computes. ``overwrite_x=`` and ``workers=`` pass through as for the
Fourier transforms (``chainrules.rules.scipy.fft.transforms``): the rules
call scipy with ``overwrite_x=False``. An integer signal gets ``NoTangent()``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
from scipy import fft

from chainrules_core.arrays import namespace_of

from ..._arrays import bind_options
from ..._makers import linear_in_first_rule
from ...numpy.fft import fit_to
from .transforms import not_overwriting

_ROOT2 = math.sqrt(2.0)
_OPPOSITE = {"backward": "forward", "ortho": "ortho", "forward": "backward"}
_DUAL = {1: 1, 2: 3, 3: 2, 4: 4}
"""The type ``t'`` of the transposed transform, and of the inverse."""

Ends = tuple[float, float]
"""Weights on the first and the last entry along the transformed axis (one entry: both, multiplied)."""

_ONE: Ends = (1.0, 1.0)
_TRANSPOSE: dict[tuple[str, int], tuple[Ends, Ends]] = {
    ("dct", 1): ((0.5, 0.5), (2.0, 2.0)),
    ("dct", 2): (_ONE, (2.0, 1.0)),
    ("dct", 3): ((0.5, 1.0), _ONE),
    ("dst", 2): (_ONE, (1.0, 2.0)),
    ("dst", 3): ((1.0, 0.5), _ONE),
}
"""``(Dl, Dr)`` with ``K_t^T = Dl K_t' Dr``; the symmetric transforms are absent (identities)."""

_ORTHOGONALIZING: dict[tuple[str, int], tuple[Ends, Ends]] = {
    ("dct", 1): ((1 / _ROOT2, 1 / _ROOT2), (_ROOT2, _ROOT2)),
    ("dct", 2): ((1 / _ROOT2, 1.0), _ONE),
    ("dct", 3): (_ONE, (_ROOT2, 1.0)),
    ("dst", 2): ((1.0, 1 / _ROOT2), _ONE),
    ("dst", 3): (_ONE, (1.0, _ROOT2)),
}
"""``(L, R)``: the weights ``orthogonalize`` puts on the outputs and the inputs."""

_FUNCTIONS = {"dct": fft.dct, "dst": fft.dst}


class Axis(NamedTuple):
    """One axis of a call: its index (non-negative), the transform's length ``n``, the input's length ``m``."""

    axis: int
    n: int
    m: int


class Transform(NamedTuple):
    """The forward transform a call computes: kind (``"dct"``, ``"dst"``), type, norm, orthogonalize, axes."""

    kind: str
    type: int
    norm: str
    orthogonalize: bool
    axes: list[Axis]


def scale(kind: str, type: int, norm: str, n: int) -> float:
    """The norm's factor ``s``: 1, ``1 / sqrt(2N)`` or ``1 / (2N)``."""
    big_n = n - 1 if (kind, type) == ("dct", 1) else n + 1 if (kind, type) == ("dst", 1) else n
    return {"backward": 1.0, "ortho": 1.0 / math.sqrt(2 * big_n), "forward": 1.0 / (2 * big_n)}[norm]


def _ends(n: int, *weights: Ends) -> np.ndarray[Any, Any]:
    """A vector of ``n`` ones with each pair of ``weights`` on its first and last entries."""
    w = np.ones(n)
    for first, last in weights:
        w[0] *= first
        w[-1] *= last
    return w


def _weighted(xp: Any, a: Any, w: np.ndarray[Any, Any], axis: int) -> Any:
    """``a`` times ``w`` along ``axis``, in ``a``'s precision; ``a`` itself where ``w`` is all ones."""
    if np.all(w == 1.0):
        return a
    shape = [1] * a.ndim
    shape[axis] = w.shape[0]
    real = np.finfo(np.dtype(a.dtype)).dtype
    return a * xp.asarray(w.astype(real).reshape(shape))


def transposed(xp: Any, y: Any, kind: str, type: int, norm: str, orthogonalize: bool, along: Axis) -> Any:
    """``M^T y`` along one axis, cropped or zero-padded back to the input's length.

    >>> y = np.array([1.0, 0.0, 0.0])
    >>> transposed(np, y, "dct", 2, "backward", False, Axis(0, 3, 3)), fft.dct(np.eye(3), axis=0)[0]
    (array([2., 2., 2.]), array([2., 2., 2.]))
    """
    dl, dr = _TRANSPOSE.get((kind, type), (_ONE, _ONE))
    lo, ro = _ORTHOGONALIZING.get((kind, type), (_ONE, _ONE)) if orthogonalize else (_ONE, _ONE)
    n = along.n
    before = _weighted(xp, y, _ends(n, dr, lo), along.axis)
    z = _FUNCTIONS[kind](before, type=_DUAL[type], axis=along.axis, norm="backward", orthogonalize=False)
    after = _weighted(xp, z, scale(kind, type, norm, n) * _ends(n, ro, dl), along.axis)
    return fit_to(xp, after, along.m, along.axis)


_ONE_D = ("type", "n", "axis", "norm", "overwrite_x", "workers", "orthogonalize")
_N_D = ("type", "s", "axes", "norm", "overwrite_x", "workers", "orthogonalize")
OVERWRITE = 4
"""The position of ``overwrite_x`` among the options after the signal."""


def _n_d_axes(shape: Sequence[int], s: Any, axes: Any) -> list[Axis]:
    """The axes of an n-d call and their lengths, as scipy resolves ``s`` and ``axes`` (scipy.fft's
    ``_init_nd_shape_and_axes``): every axis, or the last ``len(s)``; ``-1`` in ``s`` keeps a length."""
    ndim = len(shape)
    if axes is None:
        axes = range(ndim - (ndim if s is None else len(s)), ndim)
    elif np.ndim(axes) == 0:
        axes = [axes]
    axes = [int(a) % ndim for a in axes]
    if s is None:
        s = [shape[a] for a in axes]
    elif np.ndim(s) == 0:
        s = [s]
    return [Axis(a, shape[a] if int(n) == -1 else int(n), shape[a]) for a, n in zip(axes, s)]


def _transform(kind: str, inverse: bool, n_d: bool) -> Callable[..., Transform]:
    """The forward transform a call of ``kind`` on ``x`` computes (an inverse's through ``t'`` and the opposite
    norm). scipy transforms a complex signal's real and imaginary parts with ``orthogonalize`` left at its default,
    whatever the call says (scipy/fft/_pocketfft/realtransforms.py, ``_r2r`` and ``_r2rn``, scipy 1.17): so do the
    rules."""

    def plan(x: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Transform:
        shape = np.shape(x)
        o = bind_options(_N_D if n_d else _ONE_D, args, kwargs, type=2, axis=-1)
        norm = o["norm"] or "backward"
        orthogonalize = o["orthogonalize"]
        if orthogonalize is None or np.iscomplexobj(x):
            orthogonalize = norm == "ortho"
        if n_d:
            along = _n_d_axes(shape, o["s"], o["axes"])
        else:
            axis = int(o["axis"]) % len(shape)
            along = [Axis(axis, shape[axis] if o["n"] is None else int(o["n"]), shape[axis])]
        t = int(o["type"])
        if inverse:
            return Transform(kind, _DUAL[t], _OPPOSITE[norm], bool(orthogonalize), along)
        return Transform(kind, t, norm, bool(orthogonalize), along)

    return plan


def _register(f: Callable[..., Any], kind: str, inverse: bool, n_d: bool) -> None:
    plan = _transform(kind, inverse, n_d)

    def adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        xp = namespace_of(out_bar)
        t = plan(x, args, kwargs)
        for along in t.axes:  # the axes' transforms commute
            out_bar = transposed(xp, out_bar, t.kind, t.type, t.norm, t.orthogonalize, along)
        return out_bar

    call = not_overwriting(f, OVERWRITE)
    linear_in_first_rule(f, adjoint, tangent=call, primal=call)


for _f, _kind, _inverse, _n_d in [
    (fft.dct, "dct", False, False),
    (fft.idct, "dct", True, False),
    (fft.dst, "dst", False, False),
    (fft.idst, "dst", True, False),
    (fft.dctn, "dct", False, True),
    (fft.idctn, "dct", True, True),
    (fft.dstn, "dst", False, True),
    (fft.idstn, "dst", True, True),
]:
    _register(_f, _kind, _inverse, _n_d)
