"""Declared checks of scipy.fft's fast Hankel transforms (``chainrules.rules.scipy.fft.hankel``), when scipy is
installed.

``a`` is checked; ``dln``, ``mu``, ``offset`` and ``bias`` are held fixed (``no_tangent``): their derivatives are
not implemented, and ``tests/rules/scipy/fft/test_hankel.py`` checks that they say so. The bias and offset change
the diagonal weights around the self-adjoint core, so cases run without and with them, and at scipy's low-ringing
offset (``fhtoffset``).
"""

from __future__ import annotations

from chainrules.checks._register import register_shipped_cases
from chainrules.checks.numpy.fft import REAL_INPUT, _x
from chainrules_core.testing import no_tangent
from chainrules_core.testing.cases import Case

try:
    from scipy import fft
except ImportError:  # scipy is optional: without it there is nothing to check
    fft = None


if fft is not None:
    register_shipped_cases(
        "scipy.fft.hankel",
        *(
            Case(f, (_x(*shape), *(no_tangent(p) for p in params)), kwargs=kwargs, name=name, dtypes=REAL_INPUT)
            for f in (fft.fht, fft.ifht)
            for shape, params, kwargs, name in [
                ((8,), (0.1, 0.5), {}, ""),
                ((2, 7), (0.05, -0.3, 0.2, 0.4), {}, "offset and bias positional"),
                ((6,), (0.1, 1.5), {"offset": float(fft.fhtoffset(0.1, 1.5, bias=-0.2)), "bias": -0.2}, "low ringing"),
            ]
        ),
    )
