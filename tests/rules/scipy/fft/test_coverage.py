"""Coverage: every public function of ``scipy.fft`` is accounted for: rules, a reason for none
(``chainrules.checks.unsupported``), or not a function of numbers.

A function scipy adds to ``scipy.fft``, or a rule that goes missing, fails here.
"""

import numpy as np
import pytest

from chainrules.checks.unsupported import UNSUPPORTED
from chainrules_core import NoTangent, frule, rrule
from chainrules_core.testing import rand_tangent

fft = pytest.importorskip("scipy.fft", reason="scipy is an optional dependency")

RULES = {
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
    "hfft2": "rule",
    "ihfft2": "rule",
    "hfftn": "rule",
    "ihfftn": "rule",
    "fftshift": "rule",
    "ifftshift": "rule",
    "dct": "rule (every type, norm and orthogonalize)",
    "idct": "rule (every type, norm and orthogonalize)",
    "dst": "rule (every type, norm and orthogonalize)",
    "idst": "rule (every type, norm and orthogonalize)",
    "dctn": "rule (every type, norm and orthogonalize)",
    "idctn": "rule (every type, norm and orthogonalize)",
    "dstn": "rule (every type, norm and orthogonalize)",
    "idstn": "rule (every type, norm and orthogonalize)",
    "fht": "rule (in a; NotImplementedTangent in dln, mu, offset, bias)",
    "ifht": "rule (in a; NotImplementedTangent in dln, mu, offset, bias)",
}
"""Each scipy.fft function with rules, with its limits in brackets."""

NOT_NUMERIC = {
    "next_fast_len": "an integer length",
    "prev_fast_len": "an integer length",
    "set_backend": "backend control",
    "skip_backend": "backend control",
    "set_global_backend": "backend control",
    "register_backend": "backend control",
    "get_workers": "thread control",
    "set_workers": "thread control",
}

WITHOUT_RULES = {name: UNSUPPORTED[f"scipy.fft.{name}"] for name in ("fhtoffset", "fftfreq", "rfftfreq")}

_REAL = np.linspace(0.5, 3.0, 12).reshape(3, 4)


def _args(name):
    if name in ("fht", "ifht"):
        return (_REAL, 0.1, 0.5)
    return (_REAL + 0.5j if name.startswith(("irfft", "hfft", "ifft")) else _REAL,)


def test_every_public_function_is_accounted_for():
    """``scipy.fft.__all__`` and the three tables name the same functions, once each."""
    listed = [*RULES, *NOT_NUMERIC, *WITHOUT_RULES]
    assert len(listed) == len(set(listed))
    public = set(fft.__all__)
    assert not public - set(listed), f"scipy.fft functions not accounted for: {sorted(public - set(listed))}"
    assert not set(listed) - public, f"listed but not in scipy.fft: {sorted(set(listed) - public)}"


@pytest.mark.parametrize("name", sorted(RULES))
def test_has_both_rules(name):
    f = getattr(fft, name)
    args = _args(name)
    assert rrule(f, *args) is not None, f"scipy.fft.{name} has no rrule"
    tangents = (NoTangent(), rand_tangent(args[0], 0), *(0.0,) * (len(args) - 1))
    assert frule(tangents, f, *args) is not None, f"scipy.fft.{name} has no frule"


@pytest.mark.parametrize("name", sorted(WITHOUT_RULES))
def test_without_a_rule_gives_none(name):
    f = getattr(fft, name)
    assert rrule(f, 8, 0.1) is None
    assert frule((NoTangent(), NoTangent(), 1.0), f, 8, 0.1) is None
