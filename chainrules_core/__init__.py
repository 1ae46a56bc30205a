"""chainrules_core: the frule/rrule protocol, tangent types, projection and rule helpers.

Importing this package does not import numpy; the numpy-facing helpers
(``ProjectTo``, ``unbroadcast``, ``scalar_rule`` ...) load it on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_getattr
from .accumulation import accumulate, is_inplaceable_destination
from .config import HasForwardMode, HasReverseMode, RuleConfig
from .debug import debug_mode, set_debug_mode
from .fast_paths import fast_paths, fast_paths_enabled
from .followed import NoRuleError, follow, is_followed, primal_of
from .rules import FRuleResult, Pullback, RRuleResult, RuleRecord, frule, rrule
from .tangent_types import (
    AbstractTangent,
    AbstractThunk,
    AbstractZero,
    InplaceableThunk,
    NoTangent,
    NotImplementedTangent,
    NotImplementedTangentError,
    Tangent,
    Thunk,
    ZeroTangent,
    backing,
    canonicalize,
    construct,
    field_names,
    is_namedtuple,
    not_implemented,
    primal_type,
    unthunk,
)

if TYPE_CHECKING:
    from .projection import (
        Projector,
        ProjectTo,
        checked_seed,
        checked_tangent,
        shape_of,
        sum_to_shape,
        unbroadcast,
        value_shape,
    )
    from .rule_definition import LinearAdjoint, cotangent_from_partial, named_after, non_differentiable, scalar_rule

# Loaded on first use, as they import numpy: name -> module.
_LAZY = {
    "ProjectTo": "projection",
    "Projector": "projection",
    "shape_of": "projection",
    "sum_to_shape": "projection",
    "unbroadcast": "projection",
    "checked_seed": "projection",
    "checked_tangent": "projection",
    "value_shape": "projection",
    "cotangent_from_partial": "rule_definition",
    "LinearAdjoint": "rule_definition",
    "named_after": "rule_definition",
    "non_differentiable": "rule_definition",
    "scalar_rule": "rule_definition",
    "function_name": "naming",  # importable here too, though not part of the public surface
}

__all__ = [  # noqa: RUF022 - grouped by role, as ChainRulesCore.jl groups its exports
    # the protocol: the entry points, what rules return, what registrations list
    "frule",
    "rrule",
    "FRuleResult",
    "Pullback",
    "RRuleResult",
    "RuleRecord",
    # rule configurations
    "RuleConfig",
    "HasForwardMode",
    "HasReverseMode",
    # rule-definition helpers
    "scalar_rule",
    "non_differentiable",
    "not_implemented",
    "cotangent_from_partial",
    "named_after",
    # nested differentiation: what rules do for an engine that differentiates them again
    "follow",
    "is_followed",
    "primal_of",
    "LinearAdjoint",
    "NoRuleError",
    # tangent types
    "AbstractTangent",
    "AbstractZero",
    "ZeroTangent",
    "NoTangent",
    "AbstractThunk",
    "Thunk",
    "InplaceableThunk",
    "Tangent",
    "NotImplementedTangent",
    "NotImplementedTangentError",
    # tangent operations and projection
    "unthunk",
    "canonicalize",
    "backing",
    "primal_type",
    "construct",
    "field_names",
    "is_namedtuple",
    "ProjectTo",
    "Projector",
    "shape_of",
    "sum_to_shape",
    "unbroadcast",
    "checked_seed",
    "checked_tangent",
    "value_shape",
    # accumulation
    "accumulate",
    "is_inplaceable_destination",
    # fast paths and debugging
    "fast_paths",
    "fast_paths_enabled",
    "debug_mode",
    "set_debug_mode",
]


__getattr__ = lazy_getattr(__name__, _LAZY)


def __dir__() -> list[str]:
    return sorted(__all__ + [name for name in globals() if name.startswith("__")])
