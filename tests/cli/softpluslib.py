"""A library's own rules, written as the README writes them: ``unthunk`` the seed, no shape code.

``python -m chainrules check --import softpluslib`` runs the cases it declares (tests/cli/test_cli.py); pytest
never imports it (tests/cli/conftest.py), so its cases stay out of the test session's registry.
"""

import numpy as np

from chainrules_core import NoTangent, frule, rrule, unthunk
from chainrules_core.testing import register_cases
from chainrules_core.testing.cases import REAL_ONLY, Arg, At, Case


def wsoftplus(x, w):
    """``w * log(1 + exp(x))``, entry by entry."""
    return w * np.logaddexp(0.0, x)


def _sigmoid(x):
    """The derivative of ``log(1 + exp(x))``, without overflow at large ``|x|``."""
    return 0.5 * (1 + np.tanh(0.5 * x))


@rrule.register(wsoftplus)
def _rrule_wsoftplus(f, x, w):
    softplus = np.logaddexp(0.0, x)

    def wsoftplus_pullback(out_bar):
        out_bar = unthunk(out_bar)
        return NoTangent(), w * _sigmoid(x) * out_bar, softplus * out_bar

    return w * softplus, wsoftplus_pullback


@frule.register(wsoftplus)
def _frule_wsoftplus(tangents, f, x, w):
    _, x_dot, w_dot = tangents
    softplus = np.logaddexp(0.0, x)
    return w * softplus, w * _sigmoid(x) * x_dot + softplus * w_dot


register_cases(
    "softpluslib",
    Case(wsoftplus, (Arg(REAL_ONLY, (3,)), Arg(REAL_ONLY, (3,)))),  # np.logaddexp takes no complex input
    Case(wsoftplus, (Arg(REAL_ONLY, None), Arg(REAL_ONLY, None))),  # Python floats
    Case(wsoftplus, (At([-30.0, 0.0, 30.0]), Arg(REAL_ONLY, (3,))), name="saturated", dtypes=("float64",)),
)
