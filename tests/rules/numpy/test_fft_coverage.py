"""Coverage: every public function of ``numpy.fft`` is accounted for, with a rule or a reason for none.

A function numpy adds to ``numpy.fft``, or a rule that goes missing, fails here.
"""

import numpy as np
import pytest

import chainrules  # noqa: F401 - registers the rules
from chainrules.checks.unsupported import UNSUPPORTED
from chainrules_core import NoTangent, frule, rrule
from chainrules_core.testing import rand_tangent

STATUS = {
    "fft": "rule",
    "ifft": "rule",
    "fft2": "rule",
    "ifft2": "rule",
    "fftn": "rule",
    "ifftn": "rule",
    "rfft": "rule",
    "irfft": "rule",
    "rfft2": "rule",
    "irfft2": "rule",
    "rfftn": "rule",
    "irfftn": "rule",
    "hfft": "rule",
    "ihfft": "rule",
    "fftshift": "rule",
    "ifftshift": "rule",
    **{name: f"no rule: {UNSUPPORTED[f'numpy.fft.{name}']}" for name in ("fftfreq", "rfftfreq")},
}
"""Each public function of numpy.fft: "rule" (frule and rrule), or "no rule: <why>" (the reason
``chainrules.checks.unsupported`` gives)."""

_REAL = np.linspace(0.5, 3.0, 12).reshape(3, 4)
_SPECTRUM = _REAL + 0.5j


def _example(name):
    return _SPECTRUM if name in ("irfft", "irfft2", "irfftn", "hfft", "ifft", "ifft2", "ifftn") else _REAL


def test_every_public_function_is_accounted_for():
    """``numpy.fft.__all__`` and the table name the same functions."""
    public = set(np.fft.__all__)
    assert not public - set(STATUS), f"numpy.fft functions neither ruled nor listed: {sorted(public - set(STATUS))}"
    assert not set(STATUS) - public, f"listed but not in numpy.fft: {sorted(set(STATUS) - public)}"


@pytest.mark.parametrize("name", sorted(n for n, s in STATUS.items() if s == "rule"))
def test_has_both_rules(name):
    """A plain call has an rrule and an frule, registered as rules (not as non-differentiable)."""
    f = getattr(np.fft, name)
    x = _example(name)
    rule = rrule.find(f, x)
    assert rule is not None, f"np.fft.{name} has no rrule"
    answering = getattr(rule, "__self__", rule)  # a fast path is bound to the rule it belongs to
    assert {r.kind for r in rrule.records() if r.primal is f and r.rule is answering} == {"rule"}
    assert rrule(f, x) is not None
    assert frule((NoTangent(), rand_tangent(x, 0)), f, x) is not None, f"np.fft.{name} has no frule"


@pytest.mark.parametrize("name", sorted(n for n, s in STATUS.items() if s != "rule"))
def test_without_a_rule_says_why(name):
    """Functions without a rule give ``None`` (the engine differentiates through them) and have a reason."""
    assert STATUS[name].startswith("no rule: ")
    f = getattr(np.fft, name)
    assert rrule(f, 8, 0.1) is None
    assert frule((NoTangent(), NoTangent(), 1.0), f, 8, 0.1) is None
