"""Declared checks of the gamma and zeta rules (``chainrules.rules.scipy.special.gamma``), when scipy is installed."""

from __future__ import annotations

import numpy as np

from chainrules.checks._tables import BINARY_SHAPES, REAL_DTYPES, UNARY_SHAPES, TableCheck, binary, unary
from chainrules.checks.scipy.special.logistic import point_cases, register_family
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing.cases import (
    ABOVE_ONE,
    POSITIVE,
    POSITIVE_REAL_ONLY,
    REALS,
    Arg,
    At,
    Case,
    Domain,
)

try:
    from scipy import special
except ImportError:  # scipy is optional: without it there is nothing to check
    special = None

UNIT_REAL_ONLY = Domain(0.0, 1.0, complex=False, name="(0, 1), real only")
COMPLEX = ("complex128",)
F64 = ("float64",)


def _table_checks() -> dict[object, TableCheck]:
    """Where the inputs of each entry of ``GAMMA`` live (the incomplete functions' shape parameters: ``_cases``)."""
    assert special is not None
    return {
        special.gamma: unary(POSITIVE),
        special.gammaln: unary(POSITIVE_REAL_ONLY),
        special.loggamma: unary(POSITIVE),
        special.rgamma: unary(REALS, points=(0.0, -1.0, -3.0)),  # the poles of Gamma, where 1/Gamma is 0
        special.digamma: unary(POSITIVE),
        special.beta: binary(POSITIVE_REAL_ONLY, POSITIVE_REAL_ONLY),
        special.betaln: binary(POSITIVE_REAL_ONLY, POSITIVE_REAL_ONLY),
        special.poch: binary(POSITIVE_REAL_ONLY, POSITIVE_REAL_ONLY),  # scipy's poch is real
    }


TABLE_CHECKS: dict[object, TableCheck] = {} if special is None else _table_checks()


INCOMPLETE = () if special is None else (special.gammainc, special.gammaincc, special.betainc)
"""In ``GAMMA``, with three or two arguments each: ``_incomplete_cases`` checks them."""

# (a, x) on each side of the switch between the series (x < a + 1) and the continued fraction, over JAX's
# positive ranges: small a, x near a, a large shape
GAMMA_POINTS = ((0.05, 0.5, 2.0, 2.0, 20.0, 20.0, 1e-3), (0.02, 3.0, 2.9, 3.1, 17.0, 25.0, 5.0))
# (a, b, x) on each side of x = (a + 1) / (a + b + 2), where I_x(a, b) = 1 - I_(1-x)(b, a) takes over
BETA_POINTS = ((0.3, 2.0, 2.0, 30.0, 0.5), (0.7, 3.0, 3.0, 5.0, 40.0), (0.2, 0.42, 0.44, 0.9, 0.01))


def _incomplete_cases() -> list[Case]:
    """gammainc, gammaincc and betainc in every argument, at random points and either side of the switch between
    series and continued fraction."""
    assert special is not None
    positive, unit = POSITIVE_REAL_ONLY, UNIT_REAL_ONLY
    cases = [
        Case(special.gammainc, (Arg(positive, None), Arg(positive, None)), dtypes=REAL_DTYPES),
        Case(special.gammainc, (Arg(positive, ()), Arg(positive, (3,))), dtypes=F64),
        Case(special.gammainc, (Arg(positive, (2, 1)), Arg(positive, (1, 3))), dtypes=F64),
        Case(special.gammaincc, (Arg(positive, (2, 3)), Arg(positive, ())), dtypes=REAL_DTYPES),
        Case(special.gammainc, tuple(At(np.array(p)) for p in GAMMA_POINTS), name="points", dtypes=F64),
        Case(special.gammaincc, tuple(At(np.array(p)) for p in GAMMA_POINTS), name="points", dtypes=F64),
        Case(special.betainc, (Arg(positive, None), Arg(positive, None), Arg(unit, None)), dtypes=REAL_DTYPES),
        Case(special.betainc, (Arg(positive, ()), Arg(positive, (3,)), Arg(unit, (2, 3))), dtypes=F64),
        Case(special.betainc, (Arg(positive, (2, 1)), Arg(positive, (3,)), Arg(unit, ())), dtypes=F64),
        Case(special.betainc, tuple(At(np.array(p)) for p in BETA_POINTS), name="points", dtypes=F64),
    ]
    return cases


def _cases() -> list[Case]:
    assert special is not None
    cases: list[Case] = []
    for f in (special.gamma, special.gammaln, special.digamma):
        cases += point_cases(f, (-2.5, -0.5, -1.2), name="negative")
    polygamma, multigammaln, zeta = special.polygamma, special.multigammaln, special.zeta
    factorial, comb = special.factorial, special.comb
    return [
        # factorial and comb (exact=False): smooth away from n = 0 (factorial) and k = 0, k = N (comb), where scipy's
        # values jump to 0
        Case(factorial, (Arg(POSITIVE_REAL_ONLY, (3,)),)),
        Case(factorial, (Arg(Domain(-4.0, -0.1, complex=False), (2,)),), name="zero for negative n"),
        Case(factorial, (Arg(Domain(-0.9, -0.1, complex=False), ()),), kwargs={"extend": "complex"}, name="complex"),
        Case(factorial, (np.array([3, 4]),), kwargs={"exact": True}, name="exact"),
        Case(comb, (Arg(Domain(5.0, 9.0, complex=False), (3,)), Arg(Domain(0.5, 4.0, complex=False), ()))),
        Case(
            comb,
            (Arg(Domain(2.0, 5.0, complex=False), None), Arg(Domain(0.5, 2.5, complex=False), None)),
            kwargs={"repetition": True},
        ),
        *cases,
        *_incomplete_cases(),
        *point_cases(special.digamma, (-2.5 + 0.5j, -0.3 + 1.0j, 0.2 - 2.0j), name="reflected", dtypes=COMPLEX),
        *[Case(polygamma, (n, Arg(POSITIVE_REAL_ONLY, s))) for n, (s,) in zip((0, 1, 2, 3), UNARY_SHAPES)],
        Case(polygamma, (np.array([[0], [2]]), Arg(POSITIVE_REAL_ONLY, (3,))), name="integer orders"),
        *point_cases(polygamma, (-2.5, -0.5), before=(1,), name="negative"),
        Case(multigammaln, (Arg(Domain(1.0, np.inf, complex=False), None), 3)),
        Case(multigammaln, (Arg(Domain(2.0, np.inf, complex=False), (2, 3)), 5)),
        Case(multigammaln, (Arg(Domain(0.0, np.inf, complex=False), (3,)),), kwargs={"d": 1}, name="keyword d"),
        *[Case(zeta, (Arg(ABOVE_ONE, s),)) for (s,) in UNARY_SHAPES],
        *point_cases(zeta, (-7.5, -3.5, -2.0, -0.5, 0.0, 0.5), name="continued", dtypes=("float64", "complex128")),
        *point_cases(zeta, (-4.5 + 2.0j, 0.5 + 14.0j, 3.0 - 20.0j), name="complex plane", dtypes=COMPLEX),
        # scipy's Hurwitz zeta (q given) is real: nan for complex x
        *[Case(zeta, (Arg(ABOVE_ONE, x), Arg(POSITIVE, q)), dtypes=REAL_DTYPES) for x, q in BINARY_SHAPES],
        Case(zeta, (Arg(ABOVE_ONE, (2, 3)),), kwargs={"q": 2.5}, name="keyword q", dtypes=REAL_DTYPES),
    ]


if special is not None:
    from chainrules.rules.scipy.special.gamma import GAMMA

    register_family(
        "scipy.special.gamma",
        GAMMA,
        TABLE_CHECKS,
        _cases(),
        elsewhere=(
            special.gammainc,
            special.gammaincc,
            special.betainc,
        ),
    )
    refuse_edges(
        "scipy.special.gamma",
        special.betainc,
        ("tiny", "subnormal"),
        "scipy's betainc is wrong for shape parameters near 0: betainc(0.3e-300, 0.7e-300, 0.2e-300) is 1.0, where "
        "I_x(a, b) tends to b / (a + b) = 0.7 (mpmath agrees), and it stays 1.0 as a moves: the finite differences "
        "see a constant",
    )
    refuse_edges(
        "scipy.special.gamma",
        special.rgamma,
        ("subnormal",),
        "scipy's rgamma(-1e-310) is -0.0 (Gamma overflows to -inf), not -1e-310: the finite differences across 0 "
        "see half of the slope 1 = (-1)^0 0! that the rule gives there",
    )
    refuse_edges(
        "scipy.special.gamma",
        special.zeta,
        ("tiny",),
        "scipy's complex zeta near 0 is wrong: zeta(1e-300 (0.5 + 14j)) has the imaginary part 1/56, moving with s "
        "at a rate of 1e298, where zeta(s) = -1/2 - s log(2 pi) / 2 + O(s²) (DLMF 25.6.11), as the rule has it",
    )
