"""The mutation suite's table: small functions, their correct rules, and wrong variants of those rules.

Every subject is a small function with a correct ``rrule`` and ``frule``;
every mutant is one plausible mistake in one of them, with the mode it
breaks and the check of the harness that must reject it. The subjects live
in ``mutants_arrays`` and ``mutants_structures``.
"""

from __future__ import annotations

from .mutant_makers import Mutant, Subject, fresh
from .mutants_arrays import BROADCAST, COMPLEX_MATMUL, ELEMENTWISE, HOLOMORPHIC, MATMUL, REDUCTION
from .mutants_structures import (
    AFFINE,
    FLOAT32,
    INT_ARGUMENT,
    MARKED_ARGUMENT,
    PYTHON_FLOATS,
    TUPLE_INPUT,
    TUPLE_OUTPUT,
)

SUBJECTS = (
    ELEMENTWISE,
    MATMUL,
    COMPLEX_MATMUL,
    HOLOMORPHIC,
    REDUCTION,
    BROADCAST,
    AFFINE,
    FLOAT32,
    TUPLE_OUTPUT,
    TUPLE_INPUT,
    INT_ARGUMENT,
    MARKED_ARGUMENT,
    PYTHON_FLOATS,
)

MUTANTS = [(subject, name) for subject in SUBJECTS for name in subject.mutants]

__all__ = ["MUTANTS", "SUBJECTS", "Mutant", "Subject", "fresh"]
