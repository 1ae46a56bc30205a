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
* Other array libraries. The rules of the standard's transforms (``fft``,
  ``ifft``, ``fftn``, ``ifftn``, ``rfft``, ``irfft``, ``rfftn``, ``irfftn``,
  ``hfft``, ``ihfft``, ``fftshift``, ``ifftshift``) run on any Array API
  library, with its ``xp.fft``: numpy's real input of a complex transform is
  cast to complex (the standard's wants complex), and an n-d call whose axes
  repeat one (the standard leaves it unspecified) runs as numpy's sequence of
  1-d transforms. The halved and doubled bins of the real transforms'
  adjoints are concatenated slices (numpy scales its own fresh buffer in
  place). dask transforms along an axis held in one chunk only: an array
  split along a transformed axis (the argument, its tangent or the output's
  cotangent) is refused with a ``TypeError`` that says how to rechunk it,
  rather than rechunked behind the user's back. ``fft2``, ``ifft2``, ``rfft2``
  and ``irfft2``, which the standard does not name, stay numpy's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from chainrules_core.arrays import array_api_compat, device_of, is_complex_dtype, namespace_of, real_part, refusal

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

_NUMPY = {
    "fft": np.fft.fft,
    "ifft": np.fft.ifft,
    "rfft": np.fft.rfft,
    "irfft": np.fft.irfft,
    "hfft": np.fft.hfft,
    "ihfft": np.fft.ihfft,
}
_REAL_INPUT = ("rfft", "ihfft")
"""The transforms of a real signal; the standard's others want a complex one."""


def _along(axis: int, ndim: int, index: slice) -> tuple[slice, ...]:
    return (slice(None),) * axis + (index,) + (slice(None),) * (ndim - axis - 1)


def fit_to(xp: Any, x: Any, m: int, axis: int) -> Any:
    """``x`` cropped or zero-padded to length ``m`` along ``axis``: the adjoint of padding or cropping to ``n``."""
    n = x.shape[axis]
    if n > m:
        return x[_along(axis, x.ndim, slice(m))]
    if n < m:
        shape = list(x.shape)
        shape[axis] = m - n
        return xp.concat([x, xp.zeros(tuple(shape), dtype=x.dtype, device=device_of(x))], axis=axis)
    return x


def _mirrored(n: int, axis: int, ndim: int) -> tuple[slice, ...]:
    """The bins of a half spectrum of length ``n`` that stand for two bins: ``1 .. (n - 1) // 2``."""
    return _along(axis, ndim, slice(1, (n + 1) // 2))


def _scaled_mirrored(xp: Any, a: Any, n: int, axis: int, factor: float) -> Any:
    """``a`` with its mirrored bins (``_mirrored``) times ``factor``: a fresh array, ``a`` untouched."""
    end = (n + 1) // 2
    if end <= 1:
        return a
    pieces = [a[_along(axis, a.ndim, slice(0, 1))], a[_along(axis, a.ndim, slice(1, end))] * factor]
    if a.shape[axis] > end:
        pieces.append(a[_along(axis, a.ndim, slice(end, None))])
    return xp.concat(pieces, axis=axis)


# ----- one 1-d transform in a namespace; dask's chunks -----


def _transform(xp: Any, kind: str, a: Any, n: int | None, axis: int, norm: str) -> Any:
    """The 1-d transform ``kind`` of ``a`` in ``xp``: numpy's own, or the standard's with its input dtype."""
    if xp is np:
        return _NUMPY[kind](a, n, axis, norm)
    return getattr(xp.fft, kind)(_whole(_as_input(xp, kind in _REAL_INPUT, a), axis), n=n, axis=axis, norm=norm)


def _as_input(xp: Any, real: bool, a: Any) -> Any:
    """``a`` in the dtype the standard's transform takes: real floating for a real one, complex for the others
    (numpy casts a real or integer signal itself)."""
    if real:
        return a if xp.isdtype(a.dtype, "real floating") else xp.astype(a, xp.float64)
    if is_complex_dtype(xp, a.dtype):
        return a
    return xp.astype(a, xp.complex64 if a.dtype == xp.float32 else xp.complex128)


def _dask_chunks(a: Any) -> Any:
    """``a.chunks`` for a dask array, ``None`` for any other."""
    return a.chunks if array_api_compat().is_dask_array(a) else None


def _whole(a: Any, axis: int) -> Any:
    """A dask array the rule made (a zero-padded cotangent) in one chunk along ``axis``, as dask transforms."""
    chunks = _dask_chunks(a)
    return a if chunks is None or len(chunks[axis]) == 1 else a.rechunk({axis: -1})


def _refuse_split(f: Any, a: Any, plan: list[Step], what: str) -> None:
    """The ``TypeError`` for a dask array split along an axis ``plan`` transforms: rechunking is the caller's call
    (it gathers that axis into memory), not the rule's."""
    chunks = _dask_chunks(a)
    split = [] if chunks is None else sorted({s.axis for s in plan if len(chunks[s.axis]) > 1})
    if split:
        where = ", ".join(f"{len(chunks[axis])} chunks along axis {axis}" for axis in split)
        whole = ", ".join(f"{axis}: -1" for axis in split)
        raise refusal(
            f,
            a,
            f"dask transforms along an axis held in one chunk, and {what} has {where}: "
            f"rechunk it first, .rechunk({{{whole}}})",
        )


# ----- the adjoints of numpy's 1-d transforms -----
# The real ones after JAX, jax/_src/lax/fft.py (_rfft_transpose, _irfft_transpose:
# a mask of 1 at the zero and Nyquist bins, 2 elsewhere) and PyTorch,
# FunctionsManual.cpp (fft_r2c_backward, fft_c2r_backward: bins 1 .. n - (n // 2 + 1)
# counted twice).


def _fft_adjoint(xp: Any, out_bar: Any, step: Step) -> Any:
    """``x_bar = F^H out_bar``, scaled per norm: an unnormalized ``ifft`` for ``"backward"``."""
    return fit_to(xp, _transform(xp, "ifft", out_bar, None, step.axis, _OPPOSITE[step.norm]), step.m, step.axis)


def _ifft_adjoint(xp: Any, out_bar: Any, step: Step) -> Any:
    return fit_to(xp, _transform(xp, "fft", out_bar, None, step.axis, _OPPOSITE[step.norm]), step.m, step.axis)


def _rfft_adjoint(xp: Any, out_bar: Any, step: Step) -> Any:
    """``x_bar = Re(F^H pad(out_bar))``: an ``irfft`` of the seed with its mirrored bins halved.

    >>> _rfft_adjoint(np, np.array([0.0, 1.0, 0.0]), Step("rfft", n=4, axis=0, m=4, norm="backward"))
    array([ 1.,  0., -1.,  0.])
    """
    if xp is np:  # numpy halves its own copy in place: one buffer, not three slices and their concatenation
        halved = np.array(out_bar, copy=True)
        halved[_mirrored(step.n, step.axis, halved.ndim)] /= 2
    else:
        halved = _scaled_mirrored(xp, out_bar, step.n, step.axis, 0.5)
    return fit_to(xp, _transform(xp, "irfft", halved, step.n, step.axis, _OPPOSITE[step.norm]), step.m, step.axis)


def _irfft_adjoint(xp: Any, out_bar: Any, step: Step) -> Any:
    """``a_bar = F out_bar`` on the half spectrum with its mirrored bins doubled; real at bins 0 and ``n / 2``.

    >>> _irfft_adjoint(np, np.array([1.0, 0.0, 0.0, 0.0]), Step("irfft", n=4, axis=0, m=3, norm="backward"))
    array([0.25+0.j, 0.5 +0.j, 0.25+0.j])
    """
    a_bar = _transform(xp, "rfft", real_part(xp, out_bar), None, step.axis, _OPPOSITE[step.norm])  # a real output
    if xp is np:  # numpy doubles its fresh buffer in place
        a_bar[_mirrored(step.n, step.axis, a_bar.ndim)] *= 2
    else:
        a_bar = _scaled_mirrored(xp, a_bar, step.n, step.axis, 2.0)
    return fit_to(xp, a_bar, step.m, step.axis)


def _conj(xp: Any, a: Any) -> Any:
    return xp.conj(a) if xp is np or is_complex_dtype(xp, a.dtype) else a


def _hfft_adjoint(xp: Any, out_bar: Any, step: Step) -> Any:
    """``hfft(a) = irfft(conj(a))`` with the norm swapped; ``conj`` is its own adjoint."""
    return xp.conj(_irfft_adjoint(xp, out_bar, step._replace(norm=_OPPOSITE[step.norm])))


def _ihfft_adjoint(xp: Any, out_bar: Any, step: Step) -> Any:
    """``ihfft(x) = conj(rfft(x))`` with the norm swapped."""
    return _rfft_adjoint(xp, _conj(xp, out_bar), step._replace(norm=_OPPOSITE[step.norm]))


_ADJOINTS: dict[str, Callable[[Any, Any, Step], Any]] = {
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


def _writes_no_output(x: Any, *args: Any, **kwargs: Any) -> bool:
    """No rule for ``out=``, the fourth option of every transform (the primal would write a buffer)."""
    return (args[3] if len(args) > 3 else kwargs.get("out")) is None


_ONE_D = ("n", "axis", "norm", "out")
_N_D = ("s", "axes", "norm", "out")

Planner = Callable[[Sequence[int], tuple[Any, ...], dict[str, Any]], list[Step]]
"""The 1-d transforms of one call, from its input's shape and its other arguments."""


def one_d_plan(kind: str, names: Sequence[str] = _ONE_D) -> Planner:
    """The planner of a 1-d transform whose options after the signal are ``names`` (numpy's, or scipy's)."""

    def plan(shape: Sequence[int], args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Step]:
        options = bind_options(names, args, kwargs, axis=-1)
        return _steps(shape, [(kind, options["n"], options["axis"])], options["norm"])

    return plan


def _nd_calls(kind: str, shape: Sequence[int], s: Any, axes: Any) -> list[tuple[str, int | None, int]]:
    """The 1-d transforms of an n-d call, as numpy resolves ``s`` and ``axes`` (numpy.fft._cook_nd_args)."""
    if axes is None:
        axes = range(-len(shape if s is None else s), 0)
    axes = [int(a) for a in axes]
    if s is None:
        lengths: list[int | None] = [shape[a] for a in axes]
        if kind in _HALF_INPUT and axes:
            lengths[-1] = 2 * (shape[axes[-1]] - 1)
    else:
        lengths = [shape[a] if n == -1 else n for n, a in zip(s, axes)]
    calls = list(zip(lengths, axes))
    if kind == "rfft":  # rfft along the last axis, then fft along the others, last first
        return [("rfft", *calls[-1]), *(("fft", *c) for c in reversed(calls[:-1]))]
    if kind == "irfft":  # ifft along all axes but the last, first first, then irfft along the last
        return [*(("ifft", *c) for c in calls[:-1]), ("irfft", *calls[-1])]
    # scipy's hfftn(x, norm) is irfftn(conj(x)) under the opposite norm, and ifft(conj(z)) = conj(fft(z)) under
    # the opposite norm: fft along all axes but the last, then hfft along the last. ihfftn(x) = conj(rfftn(x))
    # under the opposite norm: ihfft along the last axis, then ifft along the others.
    if kind == "hfft":
        return [*(("fft", *c) for c in calls[:-1]), ("hfft", *calls[-1])]
    if kind == "ihfft":
        return [("ihfft", *calls[-1]), *(("ifft", *c) for c in reversed(calls[:-1]))]
    return [(kind, *c) for c in reversed(calls)]


def n_d_plan(kind: str, default_axes: tuple[int, ...] | None, names: Sequence[str] = _N_D) -> Planner:
    """The planner of an n-d transform whose options after the signal are ``names`` (numpy's, or scipy's)."""

    def plan(shape: Sequence[int], args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Step]:
        options = bind_options(names, args, kwargs, axes=default_axes)
        return _steps(shape, _nd_calls(kind, shape, options["s"], options["axes"]), options["norm"])

    return plan


# ----- the rules: the output on another library's arrays, and the pullback -----


def _applied(xp: Any, kind: str, a: Any, plan: list[Step]) -> Any:
    """The transform of ``a`` that ``plan`` spells, in ``xp``: one n-d call of the library over distinct axes
    (its real axis last), or numpy's 1-d transforms one after another."""
    if len(plan) > 1 and len({s.axis for s in plan}) == len(plan):
        real = {"rfft": plan[0], "irfft": plan[-1]}.get(kind)
        ordered = [s for s in plan if s is not real] + ([real] if real is not None else [])
        a = _as_input(xp, kind == "rfft", a)
        lengths, axes = [s.n for s in ordered], [s.axis for s in ordered]
        return getattr(xp.fft, kind + "n")(a, s=lengths, axes=axes, norm=plan[0].norm)
    for step in plan:
        a = _transform(xp, step.kind, a, step.n, step.axis, step.norm)
    return a


def transform_rules(
    f: Any,
    kind: str,
    planner: Planner,
    generic: bool,
    applies: Callable[..., bool] = _writes_no_output,
    call: Callable[..., Any] | None = None,
) -> None:
    """Register the rules of the transform ``f``, of ``kind``, whose 1-d steps ``planner`` spells.

    ``applies`` says which calls get rules (numpy's: no ``out=``); ``call`` computes the output and its tangent
    where calling ``f`` would not do (scipy's ``overwrite_x=True`` would overwrite the argument).
    """

    def in_library(xp: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        plan = planner(tuple(x.shape), args, kwargs)
        if plan and plan[0].kind in _REAL_INPUT and is_complex_dtype(xp, x.dtype):
            raise refusal(f, x, "numpy's real transforms refuse a complex signal")
        _refuse_split(f, x, plan, "the array")
        return _applied(xp, kind, x, plan)

    def adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        xp = np if isinstance(out_bar, np.ndarray) else namespace_of(out_bar)  # a numpy seed answered at once
        plan = planner(np.shape(x), args, kwargs)
        if xp is not np:
            _refuse_split(f, out_bar, plan, "the cotangent")
        for step in reversed(plan):
            out_bar = _ADJOINTS[step.kind](xp, out_bar, step)
        return out_bar

    linear_in_first_rule(
        f,
        adjoint,
        tangent=call,
        primal=call,
        applies=applies,
        generic=generic,
        foreign=in_library if generic else None,
    )


for _f, _kind in [
    (np.fft.fft, "fft"),
    (np.fft.ifft, "ifft"),
    (np.fft.rfft, "rfft"),
    (np.fft.irfft, "irfft"),
    (np.fft.hfft, "hfft"),
    (np.fft.ihfft, "ihfft"),
]:
    transform_rules(_f, _kind, one_d_plan(_kind), generic=True)

for _f, _kind, _axes, _generic in [
    (np.fft.fftn, "fft", None, True),
    (np.fft.ifftn, "ifft", None, True),
    (np.fft.fft2, "fft", (-2, -1), False),
    (np.fft.ifft2, "ifft", (-2, -1), False),
    (np.fft.rfftn, "rfft", None, True),
    (np.fft.irfftn, "irfft", None, True),
    (np.fft.rfft2, "rfft", (-2, -1), False),
    (np.fft.irfft2, "irfft", (-2, -1), False),
]:
    transform_rules(_f, _kind, n_d_plan(_kind, _axes), generic=_generic)


# ----- fftshift, ifftshift: rolls by n // 2, each the other's adjoint -----


def shift_adjoint(opposite: str) -> Callable[..., Any]:
    def adjoint(out_bar: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        xp = np if isinstance(out_bar, np.ndarray) else namespace_of(out_bar)  # a numpy seed answered at once
        return getattr(xp.fft, opposite)(out_bar, axes=args[0] if args else kwargs.get("axes"))

    return adjoint


linear_in_first_rule(np.fft.fftshift, shift_adjoint("ifftshift"), generic=True)
linear_in_first_rule(np.fft.ifftshift, shift_adjoint("fftshift"), generic=True)
