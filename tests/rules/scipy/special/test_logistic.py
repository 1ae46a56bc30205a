"""Rules for scipy.special (optional: run when scipy is installed)."""

import numpy as np
import pytest

from chainrules_core import NoTangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params

special = pytest.importorskip("scipy.special", reason="scipy is an optional dependency")


@pytest.mark.parametrize("case, dtype, mode", case_params("scipy.special.logistic"))
def test_rule(case, dtype, mode):
    """Every declared case of the scipy.special family passes the harness."""
    case.run(dtype, mode)


def test_return_sign_gets_no_rule():
    assert rrule(special.logsumexp, np.ones(3), return_sign=True) is None


def test_softmax_cotangent_ignores_a_constant_shift():
    """softmax is invariant to adding a constant along its axis: that direction's cotangent is 0."""
    x = np.array([[0.5, -1.0, 2.0], [0.0, 0.3, -0.7]])
    _, pullback = rrule(special.softmax, x, axis=1)
    _, x_bar = pullback(np.random.default_rng(0).normal(size=(2, 3)))
    np.testing.assert_allclose(x_bar.sum(axis=1), 0.0, atol=1e-15)


@pytest.mark.parametrize("x", [1e16, -1e16, 1e300, -1e300])
def test_logsumexp_of_equal_entries_splits_evenly(x):
    """out = x + log 2 rounds to x at |x| >= 1e16: the weights come from a softmax, not from exp(a - out)."""
    a = np.full(2, x)
    np.testing.assert_array_equal(rrule(special.logsumexp, a)[1](1.0)[1], [0.5, 0.5])
    assert frule((NoTangent(), np.array([1.0, 0.0])), special.logsumexp, a)[1] == 0.5
    _, a_bar, _, b_bar = rrule(special.logsumexp, a, 0, np.array([1.0, 3.0]))[1](1.0)
    np.testing.assert_allclose(a_bar, [0.25, 0.75])
    np.testing.assert_allclose(b_bar, [0.25, 0.25])


@pytest.mark.parametrize("x", [1e16, 1e300])
def test_the_softplus_family_at_large_arguments(x):
    """Their derivatives are logistic functions: 1 and 0 far out, never a ratio that rounds."""
    for f, far_right, far_left in ((special.softplus, 1.0, 0.0), (special.log_expit, 0.0, 1.0)):
        assert rrule(f, x)[1](1.0)[1] == far_right and rrule(f, -x)[1](1.0)[1] == far_left
        assert frule((NoTangent(), 1.0), f, x)[1] == far_right


def test_logsumexp_gradient_is_softmax():
    x = np.array([1000.0, 1000.0, 999.0])  # stable where exp(x) overflows
    _, pullback = rrule(special.logsumexp, x)
    np.testing.assert_allclose(pullback(1.0)[1], special.softmax(x))


def test_logit_limits():
    with np.errstate(divide="ignore"):
        _, pullback = rrule(special.logit, np.array([0.0, 1.0]))
        assert np.all(pullback(np.ones(2))[1] == np.inf)
    assert rrule(special.logit, 0.5)[1](1.0) == (NoTangent(), 4.0)


# ----- limits: the edges of a domain and the conventions finite differences cannot reach -----


def _limits():
    from chainrules.checks.scipy.special import bessel, elementary, erf, gamma, integrals, logistic

    tables = (logistic, erf, gamma, bessel, integrals, elementary)
    return [(f, p, d) for t in tables for f, check in t.TABLE_CHECKS.items() for p, d in check.limits.items()]


LIMITS = _limits()


@pytest.mark.parametrize("dtype", ["float64", "float32", "python"])
@pytest.mark.parametrize("f, point, partials", LIMITS, ids=[f"{f.__name__}{p}" for f, p, _ in LIMITS])
def test_limit_points(f, point, partials, dtype):
    """Both rules return the declared partial in each argument, in the argument's type (inf with numpy's warning)."""
    args = list(point) if dtype == "python" else [np.asarray(x, dtype=dtype) for x in point]
    seed = 1.0 if dtype == "python" else np.ones((), dtype=dtype)
    with np.errstate(all="ignore"):
        _, pullback = rrule(f, *args)
        bars = pullback(seed)[1:]
        dots = []
        for i in range(len(args)):
            tangents = [seed if j == i else ZeroTangent() for j in range(len(args))]
            dots.append(frule((NoTangent(), *tangents), f, *args)[1])
    for bar, dot, expected in zip(bars, dots, partials):
        assert type(bar) is float if dtype == "python" else bar.dtype == np.dtype(dtype)
        np.testing.assert_allclose([float(bar), float(dot)], expected, rtol=1e-6)
