"""Coverage: the functions of ``scipy.special`` with rules, what each argument gets, and those without a rule.

A function that loses its rules, an argument whose derivative becomes (or stops being) not implemented, or a
function listed without a rule that gains one fails here.
"""

import numpy as np
import pytest

import chainrules  # noqa: F401 - registers the rules (scipy's when scipy.special is imported)
from chainrules.checks.unsupported import UNSUPPORTED
from chainrules_core import NoTangent, NotImplementedTangent, frule, rrule
from chainrules_core.testing import rand_tangent

special = pytest.importorskip("scipy.special", reason="scipy is an optional dependency")

_SHAPE, _ORDER = "shape parameter", "order"

RULES = {
    # logistic family
    "expit": ((0.5,), {}),
    "logit": ((0.3,), {}),
    "log_expit": ((0.5,), {}),
    "softplus": ((0.5,), {}),
    "logsumexp": ((np.array([0.5, 1.0]),), {}),
    "softmax": ((np.array([0.5, 1.0]),), {}),
    "log_softmax": ((np.array([0.5, 1.0]),), {}),
    # error functions
    "erf": ((0.5,), {}),
    "erfc": ((0.5,), {}),
    "erfinv": ((0.5,), {}),
    "erfcinv": ((0.5,), {}),
    "erfcx": ((0.5,), {}),
    "erfi": ((0.5,), {}),
    "dawsn": ((0.5,), {}),
    "ndtr": ((0.5,), {}),
    "ndtri": ((0.3,), {}),
    "log_ndtr": ((0.5,), {}),
    "owens_t": ((0.5, 1.5), {}),
    # gamma and zeta
    "gamma": ((0.5,), {}),
    "gammaln": ((0.5,), {}),
    "loggamma": ((0.5,), {}),
    "rgamma": ((0.5,), {}),
    "digamma": ((0.5,), {}),
    "psi": ((0.5,), {}),
    "polygamma": ((1, 0.5), {}),  # n is an integer: NoTangent
    "multigammaln": ((2.5, 3), {}),  # d is an integer: NoTangent
    "beta": ((0.5, 1.5), {}),
    "betaln": ((0.5, 1.5), {}),
    "gammainc": ((1.5, 0.7), {}),
    "gammaincc": ((1.5, 0.7), {}),
    "betainc": ((1.5, 2.5, 0.3), {}),
    "poch": ((2.5, 1.5), {}),
    "factorial": ((2.5,), {}),
    "comb": ((5.5, 2.5), {}),
    "zeta": ((3.0, 1.5), {}),
    # hypergeometric
    "hyp1f1": ((0.7, 1.3, 2.0), {}),
    "hyp2f1": ((0.7, 1.3, 2.1, 0.5), {}),
    # Bessel functions: a real order is not implemented, an integer one gets NoTangent
    "i0": ((0.5,), {}),
    "i1": ((0.5,), {}),
    "i0e": ((0.5,), {}),
    "i1e": ((0.5,), {}),
    "j0": ((0.5,), {}),
    "j1": ((0.5,), {}),
    "y0": ((0.5,), {}),
    "y1": ((0.5,), {}),
    "iv": ((1.5, 0.7), {0: (_ORDER, "v")}),
    "ive": ((1.5, 0.7), {0: (_ORDER, "v")}),
    "jv": ((1.5, 0.7), {0: (_ORDER, "v")}),
    "jn": ((2, 0.7), {}),
    "yv": ((1.5, 0.7), {0: (_ORDER, "v")}),
    "yn": ((2, 0.7), {}),
    "kv": ((1.5, 0.7), {0: (_ORDER, "v")}),
    "kve": ((1.5, 0.7), {0: (_ORDER, "v")}),
    # integrals
    "expi": ((0.5,), {}),
    "exp1": ((0.5,), {}),
    "expn": ((2, 0.5), {}),  # n is an integer: NoTangent
    "sici": ((0.5,), {}),
    "fresnel": ((0.5,), {}),
    "spence": ((0.5,), {}),
    "ellipk": ((0.5,), {}),
    "ellipe": ((0.5,), {}),
    # elementary
    "xlogy": ((0.5, 1.5), {}),
    "xlog1py": ((0.5, 1.5), {}),
    "entr": ((0.5,), {}),
    "rel_entr": ((0.5, 1.5), {}),
    "kl_div": ((0.5, 1.5), {}),
    "boxcox": ((0.5, 1.5), {}),
    "boxcox1p": ((0.5, 1.5), {}),
    "exp10": ((0.5,), {}),
    "cbrt": ((0.5,), {}),
    "lambertw": ((0.5,), {}),
}
"""Each ruled function: an example call's arguments, and the arguments whose derivative is not implemented (by
position: what they are and their name). Every other float argument gets a cotangent, every int NoTangent()."""

NO_RULE = {
    name.removeprefix("scipy.special."): reason
    for name, reason in UNSUPPORTED.items()
    if name.startswith("scipy.special.")
}
"""Functions of scipy.special without a rule, and why: the one list, ``chainrules.checks.unsupported``."""


@pytest.mark.parametrize("name", sorted(RULES))
def test_has_both_rules(name):
    """An rrule and an frule, registered as rules (not as non-differentiable), for the example call."""
    f = getattr(special, name)
    args, _ = RULES[name]
    rule = rrule.find(f, *args)
    assert rule is not None, f"scipy.special.{name} has no rrule"
    answering = getattr(rule, "__self__", rule)  # a fast path is bound to the rule it belongs to
    assert {r.kind for r in rrule.records() if r.primal is f and r.rule is answering} == {"rule"}
    tangents = [rand_tangent(a, 0) for a in args]
    assert frule((NoTangent(), *tangents), f, *args) is not None, f"scipy.special.{name} has no frule"


@pytest.mark.parametrize("name", sorted(RULES))
def test_each_argument_status(name):
    """Not-implemented arguments get a NotImplementedTangent naming them; ints NoTangent; the rest a float."""
    f = getattr(special, name)
    args, missing = RULES[name]
    out, pullback = rrule(f, *args)
    with np.errstate(all="ignore"):
        bars = pullback(rand_tangent(out, 0))[1:]
    for i, (arg, bar) in enumerate(zip(args, bars)):
        if i in missing:
            kind, parameter = missing[i]
            assert isinstance(bar, NotImplementedTangent), (name, i, bar)
            assert bar.info == f"scipy.special.{name}: the derivative in the {kind} {parameter}"
        elif isinstance(arg, int):
            assert bar == NoTangent(), (name, i, bar)
        else:
            assert isinstance(bar, (float, np.ndarray)), (name, i, bar)


def test_without_a_rule_says_why():
    """Each function listed without a rule (none today) has its reason, and no rule in either registry."""
    for name, reason in NO_RULE.items():
        assert reason, name
        f = getattr(special, name)
        assert not rrule.records_for(f) and not frule.records_for(f), name


def test_gammasgn_is_non_differentiable():
    """The sign of Gamma is piecewise constant: registered as non-differentiable, NoTangent in both modes."""
    assert {r.kind for r in rrule.records() if r.primal is special.gammasgn} == {"non_differentiable"}
    assert rrule(special.gammasgn, -0.5)[1](1.0) == (NoTangent(), NoTangent())
    assert frule((NoTangent(), 1.0), special.gammasgn, -0.5) == (-1.0, NoTangent())
