"""Reference AD engines built on the registry and nothing else.

* Reverse mode (``tracker``): a tape-based tracker. ``forward(f, *args)``
  returns ``(y, back)``; ``gradient(f, *args)`` the gradient of a scalar;
  ``param(x)`` a parameter whose gradient accumulates in ``.grad``.
* Forward mode (``dual``): dual numbers. ``jvp(f, primals, tangents)``
  and ``jacobian(f, *args)``.
* Derived rules (``derived``): ``derived_rrule(f)`` and ``derived_frule(f)``,
  the rules of a function without any, made by running the engines on its
  body (ChainRules' ``rrule_via_ad``).
* Second order (``second_order``): ``hvp(f, primals, tangents)`` and
  ``hessian(f, *args)``, forward over reverse or reverse over reverse. The
  engines nest in any order: each pass follows its own values, so
  ``jvp`` of a function that calls ``gradient`` differentiates it.

Every derivative comes from ``rrule`` or ``frule``: an operation on followed
values with no rule raises ``NoRuleError``. Numpy functions, ufuncs,
operators and array methods reach the registry by themselves; ``lift(f)``
makes any other function (``math.sin``, a Python function with a rule of its
own) do the same, and ``lifted(math)`` lifts a whole module.

>>> import chainrules.engines as ad
>>> from chainrules_core import scalar_rule
>>> def softplus(x):
...     return np.logaddexp(0.0, x)
>>> scalar_rule(softplus, lambda out, x: 1 / (1 + np.exp(-x)))
>>> ad.gradient(softplus, 0.0)
(0.5,)
>>> ad.jvp(softplus, (0.0,), (2.0,))[1]
np.float64(1.0)
"""

from chainrules_core import HasForwardMode, HasReverseMode

from . import _rules  # noqa: F401 - registers the rules of the engines' own operations
from ._box import is_tracked, lift, lifted, value
from ._passes import NoRuleError
from ._tape import Param, ParamArray, ParamScalar, Tape, Tracked, TrackedArray, TrackedObject, TrackedScalar
from .derived import derived_frule, derived_rrule
from .dual import Dual, DualArray, DualNumbers, DualObject, DualScalar, jacobian, jvp
from .second_order import hessian, hvp
from .tracker import Tracker, forward, gradient, param, value_and_gradient


class EngineConfig(Tracker, DualNumbers):
    """A ``RuleConfig`` with both capabilities: ``rrule_via_ad`` by the tracker, ``frule_via_ad`` by dual numbers.

    Pass it to the harness to check a rule for a higher-order function:
    ``test_rrule(functools.reduce, f, xs, config=EngineConfig())``.
    """


__all__ = [
    "Dual",
    "DualArray",
    "DualNumbers",
    "DualObject",
    "DualScalar",
    "EngineConfig",
    "HasForwardMode",
    "HasReverseMode",
    "NoRuleError",
    "Param",
    "ParamArray",
    "ParamScalar",
    "Tape",
    "Tracked",
    "TrackedArray",
    "TrackedObject",
    "TrackedScalar",
    "Tracker",
    "derived_frule",
    "derived_rrule",
    "forward",
    "gradient",
    "hessian",
    "hvp",
    "is_tracked",
    "jacobian",
    "jvp",
    "lift",
    "lifted",
    "param",
    "value",
    "value_and_gradient",
]
