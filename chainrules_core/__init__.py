"""chainrules_core: the frule/rrule protocol, tangent types, projection and rule helpers.

Importing this package does not import numpy; the numpy-facing helpers
(``ProjectTo``, ``unbroadcast``, ``scalar_rule`` ...) load it on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .accumulation import accumulate, is_inplaceable_destination

# The protocol: registries, configuration, debugging.
from .config import HasForwardMode, HasReverseMode, RuleConfig
from .debug import debug_mode, set_debug_mode
from .naming import function_name
from .rules import RuleRecord, RuleRegistry, frule, rrule

# Tangent types and their operations.
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
    # Projection and rule-definition helpers: loaded on first use, as they import numpy.
    from .projection import Projector, ProjectTo, shape_of, sum_to_shape, unbroadcast
    from .rule_definition import cotangent_from_partial, named_after, non_differentiable, scalar_rule

_LAZY = {
    "ProjectTo": "projection",
    "Projector": "projection",
    "shape_of": "projection",
    "sum_to_shape": "projection",
    "unbroadcast": "projection",
    "cotangent_from_partial": "rule_definition",
    "named_after": "rule_definition",
    "non_differentiable": "rule_definition",
    "scalar_rule": "rule_definition",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'chainrules_core' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)


__all__ = [
    "AbstractTangent",
    "AbstractThunk",
    "AbstractZero",
    "HasForwardMode",
    "HasReverseMode",
    "InplaceableThunk",
    "NoTangent",
    "NotImplementedTangent",
    "NotImplementedTangentError",
    "ProjectTo",
    "Projector",
    "RuleConfig",
    "RuleRecord",
    "RuleRegistry",
    "Tangent",
    "Thunk",
    "ZeroTangent",
    "accumulate",
    "backing",
    "canonicalize",
    "construct",
    "cotangent_from_partial",
    "debug_mode",
    "field_names",
    "frule",
    "function_name",
    "is_inplaceable_destination",
    "is_namedtuple",
    "named_after",
    "non_differentiable",
    "not_implemented",
    "primal_type",
    "rrule",
    "scalar_rule",
    "set_debug_mode",
    "shape_of",
    "sum_to_shape",
    "unbroadcast",
    "unthunk",
]
