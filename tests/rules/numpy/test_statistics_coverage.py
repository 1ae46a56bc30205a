"""Coverage: every numpy function of statistics, the NaN-skipping reductions and the elementwise long tail.

Each is listed with its status: "rule" (frule and rrule), "non-differentiable", or "no rule: <why>". A
function numpy adds to its statistics, histogram or NaN-function modules (or any public ``nan*`` name), or a
rule that goes missing, fails here.
"""

import numpy as np
import pytest

import chainrules  # noqa: F401 - registers the rules
from chainrules_core import NoTangent, frule, rrule
from chainrules_core.testing import rand_tangent

_HISTOGRAM = (
    "no rule: the counts are integers, piecewise constant in the samples; weighted counts are linear in the "
    "weights and density= divides by a bin width that moves with the data: not ruled yet"
)

STATUS = {
    # statistics (numpy's "Statistics" routines)
    "mean": "rule",
    "average": "rule",
    "var": "rule",
    "std": "rule",
    "ptp": "rule",
    "median": "rule",
    "percentile": "rule",
    "quantile": "rule",
    "cov": "rule",
    "corrcoef": "rule",
    "correlate": "rule",
    "convolve": "rule",
    "histogram": _HISTOGRAM,
    "histogram2d": _HISTOGRAM,
    "histogramdd": _HISTOGRAM,
    "histogram_bin_edges": "no rule: the edges follow the data's range and a bin-count estimator: not ruled yet",
    "bincount": "rule",
    "digitize": "non-differentiable",
    # differences, integrals, interpolation
    "cumulative_sum": "rule",
    "cumulative_prod": "rule",
    "ediff1d": "rule",
    "gradient": "rule",
    "trapezoid": "rule",
    "interp": "rule",
    "unwrap": "rule",
    # NaN-skipping reductions
    "nansum": "rule",
    "nanprod": "rule",
    "nanmean": "rule",
    "nanmax": "rule",
    "nanmin": "rule",
    "nanvar": "rule",
    "nanstd": "rule",
    "nanmedian": "rule",
    "nanpercentile": "rule",
    "nanquantile": "rule",
    "nancumsum": "rule",
    "nancumprod": "rule",
    "nanargmax": "non-differentiable",
    "nanargmin": "non-differentiable",
    "nan_to_num": "rule",
    # the elementwise long tail
    "sinc": "rule",
    "i0": "rule",
    "fix": "rule",
    "real_if_close": "rule",
    "copysign": "rule",
    "heaviside": "rule",
    "ldexp": "rule",
    "frexp": "rule",
    "modf": "rule",
    "divmod": "rule",
}
"""Each function: "rule", "non-differentiable", or "no rule: <why>" (rrule and frule answer None)."""

NEWER = {"cumulative_sum": "2.1.0", "cumulative_prod": "2.1.0"}
"""Functions of a later numpy than the oldest supported, with the version that added them."""

X = np.array([[1.0, 3.5, 2.0, 0.5], [4.0, -1.0, 2.5, 3.0], [0.5, 2.0, -2.0, 1.5]])
EXAMPLES = {
    "percentile": (X, 30.0),
    "quantile": (X, 0.3),
    "nanpercentile": (X, 30.0),
    "nanquantile": (X, 0.3),
    "correlate": (X[0], X[1, :2]),
    "convolve": (X[0], X[1, :2]),
    "cumulative_sum": (X[0],),
    "cumulative_prod": (X[0],),
    "interp": (np.array([0.5, 1.7]), np.array([0.0, 1.0, 2.0]), np.array([1.0, -1.0, 2.0])),
    "copysign": (X, -X),
    "heaviside": (X, 0.5 * X),
    "ldexp": (X, 2),
    "divmod": (X, 1.5),
    "histogram": (X.ravel(),),
    "histogram2d": (X[0], X[1]),
    "histogramdd": (X.T,),
    "histogram_bin_edges": (X.ravel(),),
    "bincount": (np.array([0, 1, 1, 3]), X[0]),
    "digitize": (X.ravel(), np.array([0.0, 1.0, 2.0])),
}


def _discovered() -> set[str]:
    """What numpy files under statistics, histograms and NaN functions, and every public ``nan*`` function."""
    names = {n for n in dir(np) if n.startswith("nan") and callable(getattr(np, n))}
    for module in ("numpy.lib._nanfunctions_impl", "numpy.lib._histograms_impl"):
        try:
            names |= set(__import__(module, fromlist=["__all__"]).__all__)
        except ImportError:  # numpy's private layout moves; the public names above still count
            pass
    return names


def _available(name: str) -> bool:
    return hasattr(np, name) or np.lib.NumpyVersion(np.__version__) < NEWER.get(name, "0.0.0")


def _args(name: str) -> tuple:
    return EXAMPLES.get(name, (X,))


def _kinds(f: object) -> set[str]:
    return {record.kind for record in rrule.records() if record.primal is f}


def test_every_function_of_these_families_is_listed():
    missing = sorted(_discovered() - set(STATUS))
    assert not missing, f"numpy functions of statistics or NaN handling neither ruled nor listed here: {missing}"


def test_every_listed_function_exists():
    unknown = sorted(name for name in STATUS if not _available(name))
    assert not unknown, f"listed but not numpy functions: {unknown}"


@pytest.mark.parametrize("name", sorted(n for n, s in STATUS.items() if s == "rule"))
def test_has_both_rules(name):
    """A plain call has an rrule and an frule, registered as rules (not as non-differentiable)."""
    if not hasattr(np, name):
        pytest.skip(f"numpy {np.__version__} has no {name}")
    f, args = getattr(np, name), _args(name)
    assert "rule" in _kinds(f), f"np.{name} has no rule"
    assert rrule(f, *args) is not None, f"np.{name} has no rrule for {args}"
    tangents = (NoTangent(), *(rand_tangent(a, 0) for a in args))
    assert frule(tangents, f, *args) is not None, f"np.{name} has no frule"


@pytest.mark.parametrize("name", sorted(n for n, s in STATUS.items() if s == "non-differentiable"))
def test_non_differentiable_is_declared(name):
    f, args = getattr(np, name), _args(name)
    assert _kinds(f) == {"non_differentiable"}
    assert all(bar == NoTangent() for bar in rrule(f, *args)[1](np.ones(np.shape(f(*args)))))


@pytest.mark.parametrize("name", sorted(n for n, s in STATUS.items() if s not in ("rule", "non-differentiable")))
def test_without_a_rule_says_why(name):
    """Functions without a rule answer None, so an engine differentiates through them or refuses, and say why."""
    assert STATUS[name].startswith("no rule: ")
    f, args = getattr(np, name), _args(name)
    assert rrule(f, *args) is None
    assert frule((NoTangent(), *(rand_tangent(a, 0) for a in args)), f, *args) is None
