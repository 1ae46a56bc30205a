"""Declared checks of scipy.fft's Fourier transforms (``chainrules.rules.scipy.fft.transforms``), when scipy is
installed.

numpy's cases (``chainrules.checks.numpy.fft``) check the plans and adjoints these transforms share with
numpy.fft over every norm, length parity, padding and cropping; here a few per function check scipy's options
(``workers=``, ``overwrite_x=``, positional options in scipy's order) and the n-d Hermitian transforms numpy lacks
over both parities of the real axis, padding, cropping, reversed axes and every norm. ``overwrite_x=True`` is
checked on a real signal of ``rfft``, which scipy copies: on a complex signal scipy may overwrite the harness's
own argument (``tests/rules/scipy/fft/test_transforms.py`` checks that the rules never do).
"""

from __future__ import annotations

from typing import Any

from chainrules.checks._register import register_shipped_cases
from chainrules.checks.numpy.fft import COMPLEX_INPUT, HALF_SPECTRUM_INPUT, REAL_INPUT, Spec, _cases, _x
from chainrules_core.testing.cases import DTYPES

try:
    from scipy import fft
except ImportError:  # scipy is optional: without it there is nothing to check
    fft = None

NORMS = ("backward", "ortho", "forward")


def _norms(shape: tuple[int, ...], **kwargs: Any) -> list[Spec]:
    return [((_x(*shape),), {**kwargs, "norm": norm}, "") for norm in NORMS]


_FORWARD_1D: list[Spec] = [
    ((_x(7),), {"workers": 2}, "odd length, two workers"),
    ((_x(5), 8, 0, "ortho", False, 1), {}, "padded, every option positional"),
    ((_x(9, 3),), {"n": 4, "axis": -2, "norm": "forward"}, "cropped, negative axis"),
]

_BACKWARD_1D: list[Spec] = [
    ((_x(5),), {"workers": 2}, "n = 2 (m - 1), even, two workers"),
    ((_x(4), 7, -1, "ortho", False, 1), {}, "padded to an odd n, every option positional"),
    ((_x(6, 3),), {"n": 4, "axis": 0, "norm": "forward"}, "cropped"),
]

_TWO_D: list[Spec] = [
    ((_x(3, 4),), {"workers": 2}, "two workers"),
    ((_x(2, 3, 5), (4, 3), (-1, 0), "ortho"), {}, "axes reversed, one padded, one cropped"),
]

_N_D: list[Spec] = [
    ((_x(2, 3, 4),), {"norm": "forward"}, "every axis"),
    ((_x(2, 3, 4),), {"s": (5, 2), "axes": (-1, 0)}, "axes reversed"),
]

# the n-d Hermitian transforms numpy lacks: hfft2, hfftn take a half spectrum, ihfft2, ihfftn a real signal

_HERMITIAN_N_D: list[Spec] = [
    ((_x(3, 4),), {}, "even last length"),
    ((_x(3, 4),), {"s": (3, 7)}, "odd last length"),
    ((_x(2, 3, 4),), {"s": (4, 10), "axes": (0, 2)}, "padded, even last length"),
    ((_x(4, 3, 2),), {"s": (3, 5), "axes": (-1, 0)}, "the real axis first, cropped"),
    *_norms((3, 4)),
]

_SHIFTS: list[Spec] = [
    ((_x(3, 5),), {}, "every axis"),
    ((_x(2, 3, 4), (0, -1)), {}, "axes positional"),
]

if fft is not None:
    register_shipped_cases(
        "scipy.fft.transforms",
        *_cases([fft.fft, fft.ifft], COMPLEX_INPUT, _FORWARD_1D),
        *_cases([fft.rfft, fft.ihfft], REAL_INPUT, _FORWARD_1D),
        *_cases([fft.rfft], REAL_INPUT, [((_x(6),), {"overwrite_x": True}, "overwrite_x")]),
        *_cases([fft.irfft, fft.hfft], HALF_SPECTRUM_INPUT, _BACKWARD_1D),
        *_cases([fft.fft2, fft.ifft2], COMPLEX_INPUT, _TWO_D),
        *_cases([fft.fftn, fft.ifftn], COMPLEX_INPUT, _N_D),
        *_cases([fft.rfft2, fft.rfftn], REAL_INPUT, _TWO_D),
        *_cases([fft.irfft2, fft.irfftn], HALF_SPECTRUM_INPUT, _TWO_D),
        *_cases([fft.hfft2, fft.hfftn], HALF_SPECTRUM_INPUT, _HERMITIAN_N_D),
        *_cases([fft.ihfft2, fft.ihfftn], REAL_INPUT, _HERMITIAN_N_D),
        *_cases([fft.fftshift, fft.ifftshift], DTYPES, _SHIFTS),
    )
