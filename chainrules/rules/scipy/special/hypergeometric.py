"""Rules for the hypergeometric functions of ``scipy.special``: ``hyp1f1(a, b, x)`` and ``hyp2f1(a, b, c, x)``.

In ``x`` by the shifted function (DLMF 13.3.15, 15.5.1); in the parameters
by their series differentiated term by term
(``_parameters.hypergeometric_series``), through ``hyp1f1_dparam`` and
``hyp2f1_dparam``, functions with rules of their own (second derivatives by
the same series), so that an engine differentiating a pullback follows one
call. Imported when ``scipy.special`` is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scipy import special

from chainrules_core import scalar_rule

from ..._makers import bound_rule
from . import _parameters
from ._parameters import hyp1f1_dparam, hyp2f1_dparam


def _hyp1f1_partials(out: Any, a: Any, b: Any, x: Any) -> tuple[Any, Any, Any]:
    # d/dx M(a, b, x) = (a / b) M(a + 1, b + 1, x) (DLMF 13.3.15): scipy's hyp1f1 is a ufunc an engine follows
    return hyp1f1_dparam(0, a, b, x), hyp1f1_dparam(1, a, b, x), a / b * special.hyp1f1(a + 1, b + 1, x)


def _hyp2f1_partials(out: Any, a: Any, b: Any, c: Any, x: Any) -> tuple[Any, Any, Any, Any]:
    # d/dx F(a, b; c; x) = (a b / c) F(a + 1, b + 1; c + 1; x) (DLMF 15.5.1)
    in_x = a * b / c * special.hyp2f1(a + 1, b + 1, c + 1, x)
    return (*(hyp2f1_dparam(k, a, b, c, x) for k in range(3)), in_x)


HYPERGEOMETRIC: dict[Any, Callable[..., Any]] = {
    special.hyp1f1: _hyp1f1_partials,
    special.hyp2f1: _hyp2f1_partials,
}

for _f, _partials in HYPERGEOMETRIC.items():
    scalar_rule(_f, _partials)

# the derivatives in the parameters, steps of the pullbacks above (k, which parameter, is an integer): rules without
# fast paths, which the second-order checks of hyp1f1 and hyp2f1 differentiate and tests hold to mpmath
bound_rule(hyp1f1_dparam, _parameters.hyp1f1_dparam_partials, ("k", "a", "b", "x"))
bound_rule(hyp2f1_dparam, _parameters.hyp2f1_dparam_partials, ("k", "a", "b", "c", "x"))
