"""Declared checks of scipy.fft's cosine and sine transforms (``chainrules.rules.scipy.fft.trigonometric``), when
scipy is installed.

``dct`` and ``dst`` run every type under every norm, and each type once with ``orthogonalize`` against its
norm's default (the weights on the first and last entries are where the types differ); lengths alternate in
parity and ``n`` pads and crops. The inverses share the forward transforms' adjoints through ``t'`` and the
opposite norm: each type once, norms rotating. Complex signals are checked as ℝ², where scipy leaves
``orthogonalize`` at its default.
"""

from __future__ import annotations

from typing import Any

from chainrules.checks._register import register_shipped_cases
from chainrules.checks.numpy.fft import _x
from chainrules_core.testing.cases import DTYPES, Case

try:
    from scipy import fft
except ImportError:  # scipy is optional: without it there is nothing to check
    fft = None

NORMS = ("backward", "ortho", "forward")
TYPES = (1, 2, 3, 4)


def _forward(f: Any) -> list[Case]:
    shapes = [(5,), (6,), (4, 3)]
    cases = [
        Case(f, (_x(*shapes[k % 3]), t), kwargs={"norm": norm, "axis": 0}, dtypes=DTYPES)
        for k, (t, norm) in enumerate((t, norm) for t in TYPES for norm in NORMS)
    ]
    cases += [
        Case(f, (_x(5), t), kwargs={"norm": "backward", "orthogonalize": True}, name="orthogonalized, backward")
        for t in TYPES
    ]
    cases += [
        Case(f, (_x(6), 3, 8, -1, "ortho"), kwargs={"orthogonalize": False}, name="padded, not orthogonalized"),
        Case(f, (_x(3, 7), 1), kwargs={"n": 4, "norm": "forward", "workers": 2}, name="cropped, two workers"),
    ]
    return cases


def _inverse(f: Any) -> list[Case]:
    return [
        Case(f, (_x(6), 1), kwargs={"norm": "ortho", "orthogonalize": False}),
        Case(f, (_x(5), 2), kwargs={"norm": "forward", "n": 7}, name="padded"),
        Case(f, (_x(3, 6), 3, None, 0), kwargs={"norm": "ortho"}, name="axis 0"),
        Case(f, (_x(4),), kwargs={"type": 4, "orthogonalize": True}, name="type by keyword"),
    ]


def _n_d(f: Any) -> list[Case]:
    return [
        Case(f, (_x(3, 4),), kwargs={"type": 1}),
        Case(f, (_x(2, 3, 4), 2, (3, 6), (0, 2), "ortho"), name="padded, positional"),
        Case(f, (_x(3, 4, 2),), kwargs={"type": 3, "s": (2, 3), "axes": (-1, 0), "norm": "forward"}, name="cropped"),
        Case(f, (_x(3, 5), 4), kwargs={"norm": "backward", "orthogonalize": True}),
    ]


if fft is not None:
    register_shipped_cases(
        "scipy.fft.trigonometric",
        *_forward(fft.dct),
        *_forward(fft.dst),
        *_inverse(fft.idct),
        *_inverse(fft.idst),
        *(case for f in (fft.dctn, fft.idctn, fft.dstn, fft.idstn) for case in _n_d(f)),
    )
