"""Declared checks of the fft family: every transform, 1-d and n-d, every norm, padding and cropping.

Lengths are chosen so that both parities of ``n`` meet every real transform
(an even ``n`` has a Nyquist bin, an odd one does not), and so that ``n`` and
``s`` both pad and crop. Real transforms take real input; ``irfft``,
``irfftn``, ``irfft2`` and ``hfft`` take a half spectrum, complex (checked as
ℝ², imaginary parts of the zero and Nyquist bins included) or real.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing.cases import DTYPES, REALS, Arg, Case

NORMS = ("backward", "ortho", "forward", None)

COMPLEX_INPUT = (*DTYPES, "complex64")
REAL_INPUT = ("float64", "float32")
HALF_SPECTRUM_INPUT = ("complex128", "complex64", "float64")

Spec = tuple[tuple[Any, ...], dict[str, Any], str]


def _x(*shape: int) -> Arg:
    return Arg(REALS, shape)


def _cases(fs: Sequence[Callable[..., Any]], dtypes: tuple[str, ...], specs: Sequence[Spec]) -> list[Case]:
    """One case per function and spec ``(args, kwargs, name)``, in ``dtypes``."""
    return [Case(f, args, kwargs=kwargs, name=name, dtypes=dtypes) for f in fs for args, kwargs, name in specs]


def _norms(shape: tuple[int, ...], **kwargs: Any) -> list[Spec]:
    return [((_x(*shape),), {**kwargs, "norm": norm}, "") for norm in NORMS]


# ----- 1-d: fft, ifft, rfft, ihfft take a signal of length m and transform n points -----

_FORWARD_1D: list[Spec] = [
    ((_x(6),), {}, "even length"),
    ((_x(7),), {}, "odd length"),
    ((_x(5), 8), {}, "padded, n positional"),
    ((_x(4),), {"n": 7}, "padded to an odd length"),
    ((_x(9, 3),), {"n": 4, "axis": -2}, "cropped, negative axis"),
    ((_x(8, 3), 5, 0, "ortho"), {}, "cropped to an odd length, positional"),
    *_norms((2, 5), n=6),
]

# ----- 1-d: irfft, hfft take a half spectrum of length m and return n points -----

_BACKWARD_1D: list[Spec] = [
    ((_x(5),), {}, "n = 2 (m - 1), even"),
    ((_x(5), 9), {}, "n = 2 m - 1, odd, positional"),
    ((_x(4),), {"n": 11}, "half spectrum padded, odd n"),
    ((_x(4),), {"n": 12}, "half spectrum padded, even n"),
    ((_x(6, 3),), {"n": 4, "axis": -2}, "half spectrum cropped, even n, negative axis"),
    ((_x(6),), {"n": 5}, "half spectrum cropped, odd n"),
    ((_x(3, 5), None, 0, "ortho"), {}, "positional"),
    *_norms((2, 5)),
]

# ----- n-d complex: fft2, ifft2, fftn, ifftn -----

_TWO_D: list[Spec] = [
    ((_x(3, 4),), {}, ""),
    ((_x(2, 3, 5),), {"s": (4, 3)}, "one axis padded, one cropped"),
    ((_x(3, 4, 2),), {"axes": (0, -1)}, ""),
    ((_x(4, 3), (5, 2), (-1, 0), "ortho"), {}, "axes reversed, positional"),
    *_norms((3, 4)),
]

_N_D: list[Spec] = [
    ((_x(2, 3, 4),), {}, "every axis"),
    ((_x(2, 3, 4),), {"s": (5, 2), "axes": (-1, 0)}, "axes reversed"),
    ((_x(3, 4),), {"s": (4, 5), "axes": (0, 0)}, "one axis twice"),
    ((_x(2, 3, 4),), {"s": (-1, 6), "axes": (0, 2)}, "s = -1 keeps a length"),
    ((_x(2, 3, 4),), {"axes": (1,)}, "one axis"),
    ((_x(3, 4), (3, 5), (0, 1), "forward"), {}, "positional"),
    *_norms((3, 4)),
]

# ----- n-d real: rfft2, rfftn (real input); irfft2, irfftn (half spectrum input) -----

_REAL_TWO_D: list[Spec] = [
    ((_x(3, 4),), {}, "even last length"),
    ((_x(3, 5),), {}, "odd last length"),
    ((_x(2, 3, 4),), {"s": (2, 7)}, "cropped, padded to an odd length"),
    ((_x(4, 2, 5),), {"axes": (-1, 0)}, "the real transform along axis 0"),
    ((_x(3, 4), (4, 6), (0, 1), "ortho"), {}, "positional"),
    *_norms((3, 5)),
]

_REAL_N_D: list[Spec] = [
    ((_x(2, 3, 4),), {}, "every axis, even last length"),
    ((_x(2, 3, 5),), {}, "every axis, odd last length"),
    ((_x(2, 3, 4),), {"s": (4, 7), "axes": (0, -1)}, "padded"),
    ((_x(4, 3),), {"axes": (-1, 0)}, "the real transform along axis 0"),
    ((_x(3, 4),), {"axes": (1, 1)}, "one axis twice"),
    ((_x(2, 3, 4),), {"s": (-1, 5), "axes": (0, 2)}, "s = -1 keeps a length"),
    ((_x(3, 4), (2, 4), (0, 1), "forward"), {}, "positional"),
    *_norms((3, 4)),
]

_HALF_TWO_D: list[Spec] = [
    ((_x(3, 4),), {}, "even last length"),
    ((_x(3, 4),), {"s": (3, 7)}, "odd last length"),
    ((_x(2, 3, 4),), {"s": (4, 10)}, "padded, even last length"),
    ((_x(4, 3, 2),), {"axes": (-1, 0)}, "the real transform along axis 0"),
    ((_x(3, 4), (2, 5), (0, 1), "ortho"), {}, "cropped, positional"),
    *_norms((3, 4)),
]

_HALF_N_D: list[Spec] = [
    ((_x(2, 3, 4),), {}, "every axis"),
    ((_x(2, 3, 4),), {"s": (3, 5), "axes": (0, -1)}, "odd last length"),
    ((_x(3, 4),), {"s": (4, 8), "axes": (-1, 0)}, "the real transform along axis 0, padded"),
    ((_x(3, 4),), {"axes": (1, 1)}, "one axis twice"),
    ((_x(2, 3, 4),), {"s": (-1, 5), "axes": (0, 2)}, "s = -1 keeps a length"),
    ((_x(3, 4), (2, 3), (0, 1), "forward"), {}, "cropped, positional"),
    *_norms((3, 4)),
]

# ----- fftshift, ifftshift -----

_SHIFTS: list[Spec] = [
    ((_x(5),), {}, "odd length"),
    ((_x(4),), {}, "even length"),
    ((_x(3, 4),), {}, "every axis"),
    ((_x(3, 4),), {"axes": 0}, ""),
    ((_x(2, 3, 5), (0, -1)), {}, "axes positional"),
]

register_shipped_cases(
    "numpy.fft",
    *_cases([np.fft.fft, np.fft.ifft], COMPLEX_INPUT, _FORWARD_1D),
    *_cases([np.fft.rfft, np.fft.ihfft], REAL_INPUT, _FORWARD_1D),
    *_cases([np.fft.irfft, np.fft.hfft], HALF_SPECTRUM_INPUT, _BACKWARD_1D),
    *_cases([np.fft.fft2, np.fft.ifft2], COMPLEX_INPUT, _TWO_D),
    *_cases([np.fft.fftn, np.fft.ifftn], COMPLEX_INPUT, _N_D),
    *_cases([np.fft.rfft2], REAL_INPUT, _REAL_TWO_D),
    *_cases([np.fft.rfftn], REAL_INPUT, _REAL_N_D),
    *_cases([np.fft.irfft2], HALF_SPECTRUM_INPUT, _HALF_TWO_D),
    *_cases([np.fft.irfftn], HALF_SPECTRUM_INPUT, _HALF_N_D),
    *_cases([np.fft.fftshift, np.fft.ifftshift], DTYPES, _SHIFTS),
)

for _f in (np.fft.irfft, np.fft.hfft, np.fft.irfft2, np.fft.irfftn):
    refuse_edges(
        "numpy.fft",
        _f,
        ("empty", "zero batch"),
        "numpy's inverse real transforms of an empty half spectrum padded to n > 0 read uninitialised memory for "
        "the constant term (values such as 4.6e-310 that change from call to call)",
    )
