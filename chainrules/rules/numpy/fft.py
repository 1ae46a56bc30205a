"""Discrete Fourier transforms: ``np.fft``'s complex, real and Hermitian transforms, fftshift and ifftshift.

Every transform is linear, so its pushforward is the same call on the
tangent, ``f(x_dot, ...)``. Its pullback is the adjoint under
``Re(conj(a) b)``, written as transforms, never as a matrix: numpy computes
every transform as a sequence of 1-d transforms (``fftn`` one per axis, the
last axis first; ``rfftn`` an ``rfft`` then ``fft``s; ``irfftn`` ``ifft``s then
an ``irfft``), and the pullback applies their adjoints in the reverse order.

* Norms. The unnormalized DFT matrix ``F`` is symmetric, so ``F^H = conj(F)``
  is ``n`` times the inverse DFT: the adjoint of a transform under one norm is
  the opposite transform under the opposite norm (``"backward"`` and
  ``"forward"`` swap, ``"ortho"`` stays; ``None`` is ``"backward"``).
* ``n`` and ``s``. numpy crops or zero-pads the input to ``n`` before
  transforming; the adjoint zero-pads or crops the cotangent back.
* Real transforms. ``rfft`` keeps the ``n // 2 + 1`` bins of a Hermitian
  spectrum; every bin but the zero bin (and, for even ``n``, the Nyquist bin
  ``n / 2``) stands for itself and its mirror. ``irfft`` reads those bins back,
  counts the others twice, and reads only the real part of the zero and Nyquist
  bins: its pullback is an ``rfft`` with those other bins doubled, and is real at
  the zero and Nyquist bins (the output does not depend on their imaginary
  parts). ``rfft``'s pullback is an ``irfft`` with them halved. ``hfft`` is
  ``irfft`` of the conjugate and ``ihfft`` the conjugate of ``rfft``, each
  with the norm swapped.
* A real input of a complex transform gets the real part of the adjoint
  (projection); an integer input gets ``NoTangent()``. ``out=`` gets no rule
  (``None``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from .._arrays import bind_options
from .._makers import linear_in_first_rule


class Step(NamedTuple):
    """One 1-d transform of a call: its kind, length ``n``, axis (non-negative), input length ``m``, norm."""

    kind: str
    n: int
    axis: int
    m: int
    norm: str


_OPPOSITE = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


def _along(axis: int, ndim: int, index: slice) -> tuple[slice, ...]:
    return (slice(None),) * axis + (index,) + (slice(None),) * (ndim - axis - 1)


def _fit(x: np.ndarray, m: int, axis: int) -> np.ndarray:
    """``x`` cropped or zero-padded to length ``m`` along ``axis``: the adjoint of padding or cropping to ``n``."""
    n = x.shape[axis]
    if n > m:
        return x[_along(axis, x.ndim, slice(m))]
    if n < m:
        widths = [(0, 0)] * x.ndim
        widths[axis] = (0, m - n)
        return np.pad(x, widths)
    return x


def _mirrored(n: int, axis: int, ndim: int) -> tuple[slice, ...]:
    """The bins of a half spectrum of length ``n`` that stand for two bins: ``1 .. (n - 1) // 2``."""
    return _along(axis, ndim, slice(1, (n + 1) // 2))


# ----- the adjoints of numpy's 1-d transforms -----
# The real ones after JAX, jax/_src/lax/fft.py (_rfft_transpose, _irfft_transpose:
# a mask of 1 at the zero and Nyquist bins, 2 elsewhere) and PyTorch,
# FunctionsManual.cpp (fft_r2c_backward, fft_c2r_backward: bins 1 .. n - (n // 2 + 1)
# counted twice).


def _fft_adjoint(out_bar: Any, step: Step) -> np.ndarray:
    """``x_bar = F^H out_bar``, scaled per norm: an unnormalized ``ifft`` for ``"backward"``."""
    return _fit(np.fft.ifft(out_bar, axis=step.axis, norm=_OPPOSITE[step.norm]), step.m, step.axis)


def _ifft_adjoint(out_bar: Any, step: Step) -> np.ndarray:
    return _fit(np.fft.fft(out_bar, axis=step.axis, norm=_OPPOSITE[step.norm]), step.m, step.axis)


def _rfft_adjoint(out_bar: Any, step: Step) -> np.ndarray:
    """``x_bar = Re(F^H pad(out_bar))``: an ``irfft`` of the seed with its mirrored bins halved.

    >>> _rfft_adjoint(np.array([0.0, 1.0, 0.0]), Step("rfft", n=4, axis=0, m=4, norm="backward"))
    array([ 1.,  0., -1.,  0.])
    """
    halved = np.array(out_bar, copy=True)
    halved[_mirrored(step.n, step.axis, halved.ndim)] /= 2
    return _fit(np.fft.irfft(halved, step.n, step.axis, _OPPOSITE[step.norm]), step.m, step.axis)


def _irfft_adjoint(out_bar: Any, step: Step) -> np.ndarray:
    """``a_bar = F out_bar`` on the half spectrum with its mirrored bins doubled; real at bins 0 and ``n / 2``.

    >>> _irfft_adjoint(np.array([1.0, 0.0, 0.0, 0.0]), Step("irfft", n=4, axis=0, m=3, norm="backward"))
    array([0.25+0.j, 0.5 +0.j, 0.25+0.j])
    """
    a_bar = np.fft.rfft(np.real(out_bar), axis=step.axis, norm=_OPPOSITE[step.norm])  # the output is real
    a_bar[_mirrored(step.n, step.axis, a_bar.ndim)] *= 2
    return _fit(a_bar, step.m, step.axis)


def _hfft_adjoint(out_bar: Any, step: Step) -> np.ndarray:
    """``hfft(a) = irfft(conj(a))`` with the norm swapped; ``conj`` is its own adjoint."""
    return np.conj(_irfft_adjoint(out_bar, step._replace(norm=_OPPOSITE[step.norm])))


def _ihfft_adjoint(out_bar: Any, step: Step) -> np.ndarray:
    """``ihfft(x) = conj(rfft(x))`` with the norm swapped."""
    return _rfft_adjoint(np.conj(out_bar), step._replace(norm=_OPPOSITE[step.norm]))


_ADJOINTS: dict[str, Callable[[Any, Step], np.ndarray]] = {
    "fft": _fft_adjoint,
    "ifft": _ifft_adjoint,
    "rfft": _rfft_adjoint,
    "irfft": _irfft_adjoint,
    "hfft": _hfft_adjoint,
    "ihfft": _ihfft_adjoint,
}

_HALF_OUTPUT = ("rfft", "ihfft")
_HALF_INPUT = ("irfft", "hfft")


def _steps(shape: Sequence[int], calls: Sequence[tuple[str, int | None, int]], norm: str | None) -> list[Step]:
    """The 1-d transforms ``(kind, n, axis)`` that numpy applies in order, with each one's lengths resolved.

    An ``n`` of None is the transform's default for the length it meets:
    that length, or ``2 (m - 1)`` for a half-spectrum input.

    >>> _steps((3, 5), [("rfft", None, -1), ("fft", 4, 0)], None)
    [Step(kind='rfft', n=5, axis=1, m=5, norm='backward'), Step(kind='fft', n=4, axis=0, m=3, norm='backward')]
    """
    current = list(shape)
    found = []
    for kind, n, axis in calls:
        axis = axis % len(current)
        m = current[axis]
        if n is None:
            n = 2 * (m - 1) if kind in _HALF_INPUT else m
        found.append(Step(kind, n, axis, m, norm or "backward"))
        current[axis] = n // 2 + 1 if kind in _HALF_OUTPUT else n
    return found


def _pull_back(out_bar: Any, plan: list[Step]) -> Any:
    for step in reversed(plan):
        out_bar = _ADJOINTS[step.kind](out_bar, step)
    return out_bar


def _writes_no_output(x: Any, *args: Any, **kwargs: Any) -> bool:
    """No rule for ``out=``, the fourth option of every transform (the primal would write a buffer)."""
    return (args[3] if len(args) > 3 else kwargs.get("out")) is None


_ONE_D = ("n", "axis", "norm", "out")
_N_D = ("s", "axes", "norm", "out")


def _one_d(kind: str) -> Callable[..., Any]:
    def adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        options = bind_options(_ONE_D, args, kwargs, axis=-1)
        return _pull_back(out_bar, _steps(np.shape(x), [(kind, options["n"], options["axis"])], options["norm"]))

    return adjoint


def _nd_calls(kind: str, shape: Sequence[int], s: Any, axes: Any) -> list[tuple[str, int | None, int]]:
    """The 1-d transforms of an n-d call, as numpy resolves ``s`` and ``axes`` (numpy.fft._cook_nd_args)."""
    if axes is None:
        axes = range(-len(shape if s is None else s), 0)
    axes = [int(a) for a in axes]
    if s is None:
        lengths: list[int | None] = [shape[a] for a in axes]
        if kind == "irfft" and axes:
            lengths[-1] = 2 * (shape[axes[-1]] - 1)
    else:
        lengths = [shape[a] if n == -1 else n for n, a in zip(s, axes)]
    calls = list(zip(lengths, axes))
    if kind == "rfft":  # rfft along the last axis, then fft along the others, last first
        return [("rfft", *calls[-1]), *(("fft", *c) for c in reversed(calls[:-1]))]
    if kind == "irfft":  # ifft along all axes but the last, first first, then irfft along the last
        return [*(("ifft", *c) for c in calls[:-1]), ("irfft", *calls[-1])]
    return [(kind, *c) for c in reversed(calls)]


def _n_d(kind: str, default_axes: tuple[int, ...] | None) -> Callable[..., Any]:
    def adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        options = bind_options(_N_D, args, kwargs, axes=default_axes)
        shape = np.shape(x)
        calls = _nd_calls(kind, shape, options["s"], options["axes"])
        return _pull_back(out_bar, _steps(shape, calls, options["norm"]))

    return adjoint


for _f, _kind in [
    (np.fft.fft, "fft"),
    (np.fft.ifft, "ifft"),
    (np.fft.rfft, "rfft"),
    (np.fft.irfft, "irfft"),
    (np.fft.hfft, "hfft"),
    (np.fft.ihfft, "ihfft"),
]:
    linear_in_first_rule(_f, _one_d(_kind), applies=_writes_no_output)

for _f, _kind, _axes in [
    (np.fft.fftn, "fft", None),
    (np.fft.ifftn, "ifft", None),
    (np.fft.fft2, "fft", (-2, -1)),
    (np.fft.ifft2, "ifft", (-2, -1)),
    (np.fft.rfftn, "rfft", None),
    (np.fft.irfftn, "irfft", None),
    (np.fft.rfft2, "rfft", (-2, -1)),
    (np.fft.irfft2, "irfft", (-2, -1)),
]:
    linear_in_first_rule(_f, _n_d(_kind, _axes), applies=_writes_no_output)


# ----- fftshift, ifftshift: rolls by n // 2, each the other's adjoint -----


def _fftshift_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return np.fft.ifftshift(out_bar, bind_options(("axes",), args, kwargs)["axes"])


def _ifftshift_adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
    return np.fft.fftshift(out_bar, bind_options(("axes",), args, kwargs)["axes"])


linear_in_first_rule(np.fft.fftshift, _fftshift_adjoint)
linear_in_first_rule(np.fft.ifftshift, _ifftshift_adjoint)
