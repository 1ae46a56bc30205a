"""Tangent types, one concept per module."""

from .abstract_tangent import AbstractTangent
from .abstract_zero import AbstractZero, NoTangent, ZeroTangent
from .not_implemented import NotImplementedTangent, NotImplementedTangentError, not_implemented
from .tangent import (
    Tangent,
    backing,
    canonicalize,
    construct,
    declared_fields,
    field_names,
    is_namedtuple,
    primal_type,
)
from .thunks import AbstractThunk, InplaceableThunk, Thunk, unthunk

__all__ = [
    "AbstractTangent",
    "AbstractThunk",
    "AbstractZero",
    "InplaceableThunk",
    "NoTangent",
    "NotImplementedTangent",
    "NotImplementedTangentError",
    "Tangent",
    "Thunk",
    "ZeroTangent",
    "backing",
    "canonicalize",
    "construct",
    "declared_fields",
    "field_names",
    "is_namedtuple",
    "not_implemented",
    "primal_type",
    "unthunk",
]
