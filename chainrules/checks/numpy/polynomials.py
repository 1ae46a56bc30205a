"""Declared checks of the polynomial rules (``chainrules.rules.numpy.polynomials``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing import FiniteDifferences, with_tangent
from chainrules_core.testing.cases import NONZERO, REALS, Arg, At, Case, Generated

_P = Arg(REALS, (4,))
_X = Generated(lambda rng, dtype: np.linspace(-1.0, 1.0, 7).astype(dtype), "7 points in [-1, 1]")
_NEARBY = {"fdm": FiniteDifferences(max_step=1e-3)}
"""Steps that keep real roots real (a large step can merge two into a complex pair, which
changes the output's dtype and shape) and keep the eigenvalue solver's order of the roots."""
_REAL = ("float64", "float32")
_NOT_FLOAT32 = ("float64", "complex128")
"""numpy trims the remainder's leading zeros with an absolute tolerance of 1e-8, which float32
rounding exceeds: the remainder's length then differs from float64's, where finite differences run."""


def _coefficients(rng: np.random.Generator, dtype: str) -> list[Any]:
    """A Python list of coefficients, as users write them."""
    values = rng.standard_normal(3) + (1j * rng.standard_normal(3) if np.dtype(dtype).kind == "c" else 0)
    return [complex(v) if np.dtype(dtype).kind == "c" else float(v) for v in values]


register_shipped_cases(
    "numpy.polynomials",
    Case(np.polyval, (_P, Arg(REALS, (3,)))),
    Case(np.polyval, (Generated(_coefficients, "list"), Arg(REALS, None)), name="python scalars"),
    Case(np.polyval, (Arg(REALS, (3, 2)), Arg(REALS, (2,))), name="columns of coefficients"),
    Case(np.polyval, (_P, At([0.0, 1.0])), name="at zero"),
    Case(np.polyder, (Arg(REALS, (5,)),)),
    Case(np.polyder, (Arg(REALS, (5,)), 3)),
    Case(np.polyder, (Arg(REALS, (3,)), 4), name="past the degree"),
    Case(np.polyint, (_P,)),
    Case(np.polyint, (_P, 3)),
    Case(np.polyint, (_P, 2, Arg(REALS, (2,))), name="constants"),
    Case(np.polyint, (_P, 3, Arg(REALS, None)), name="one constant for every integration"),
    Case(np.polyint, (_P, 2), kwargs={"k": [1.0, 2.0]}, name="constants by keyword"),
    Case(np.polyadd, (_P, Arg(REALS, (2,)))),
    Case(np.polyadd, (Arg(REALS, None), Arg(REALS, (3,))), name="python scalar"),
    Case(np.polysub, (Arg(REALS, (2,)), _P)),
    Case(np.polymul, (Arg(REALS, (3,)), _P)),
    Case(np.polymul, (Arg(REALS, None), Arg(REALS, (2,))), name="python scalar"),
    Case(np.polydiv, (Arg(REALS, (5,)), Arg(NONZERO, (3,))), dtypes=_NOT_FLOAT32),
    Case(np.polydiv, (Arg(REALS, (3,)), Arg(NONZERO, (3,))), dtypes=_NOT_FLOAT32, name="same degree"),
    Case(np.polydiv, (Arg(REALS, (2,)), Arg(NONZERO, (4,))), name="divisor of higher degree"),
    Case(np.polydiv, (_P, Arg(NONZERO, None)), name="python scalar divisor"),
    Case(np.polyfit, (_X, Arg(REALS, (7,)), 2)),
    Case(np.polyfit, (_X, Arg(REALS, (7, 2)), 3), name="several columns"),
    Case(np.polyfit, (_X, Arg(REALS, (7,)), 1), kwargs={"w": np.linspace(0.5, 2.0, 7)}, name="weights"),
    Case(np.polyfit, (_X, Arg(REALS, (7,)), 6), name="interpolation"),
    Case(np.roots, (At(np.poly([1.0, 4.0, -6.0])),), options=_NEARBY, name="real roots"),
    # numpy orders a conjugate pair differently on either side of a real polynomial: real dtypes only
    Case(np.roots, (At([1.0, 0.5, 2.0, 1.0]),), dtypes=_REAL, options=_NEARBY, name="a complex pair"),
    Case(np.roots, (At([1.0, 0.5 + 1.0j, 2.0 - 0.5j, 1.0 + 0.3j]),), dtypes=("complex128",), options=_NEARBY),
    Case(
        np.roots,
        (with_tangent(At([0.0, 1.0, -5.0, 4.0, 0.0]), np.array([0.0, 1.0, 2.0, -1.0, 0.5])),),
        options=_NEARBY,
        name="a leading zero and a root at zero",
    ),
    Case(np.poly, (Arg(REALS, (3,)),)),
    # a complex input whose roots pair up with their conjugates gives a real output: not at a real root
    Case(np.poly, (At([2.0]),), dtypes=_REAL, name="one root"),
)

refuse_edges(
    "numpy.polynomials",
    np.polymul,
    ("empty", "inf", "nan"),
    "not handled: numpy strips leading zero coefficients of each factor (and of a tangent with a zero leading "
    "entry), so the rules' convolutions do not line up with its output",
)
refuse_edges(
    "numpy.polynomials",
    np.polydiv,
    ("inf", "huge"),
    "not handled: numpy trims the remainder's leading near-zeros, so its length depends on the values",
)
refuse_edges(
    "numpy.polynomials",
    np.polyfit,
    ("size 1", "huge"),
    "the rules decline (None) fits that are rank deficient: one point for degree 2, weighted Vandermonde "
    "columns of 1e300 whose scaled singular values fall below rcond",
)
