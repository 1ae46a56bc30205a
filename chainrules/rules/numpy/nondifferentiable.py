"""Functions with no derivative: comparisons, predicates, integer-valued and index-valued functions.

Their outputs are booleans, integers, indices, or floats that are
piecewise constant in a way no cotangent can use (``spacing``, the size of
an ulp): the tangent of the output and the cotangent of every
argument are ``NoTangent()``. Rounding to floats (``floor`` of an array,
``round``) has a zero derivative instead; see ``elementwise``.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from chainrules_core import non_differentiable

from .._makers import NUMERIC

NUMPY = (
    # comparisons and predicates
    np.equal,
    np.not_equal,
    np.less,
    np.less_equal,
    np.greater,
    np.greater_equal,
    np.isclose,
    np.allclose,
    np.array_equal,
    np.array_equiv,
    np.isfinite,
    np.isinf,
    np.isnan,
    np.isnat,
    np.isneginf,
    np.isposinf,
    np.isreal,
    np.iscomplex,
    np.isrealobj,
    np.iscomplexobj,
    np.isscalar,
    np.isin,
    np.signbit,
    np.all,
    np.any,
    # logical and bitwise arithmetic
    np.logical_and,
    np.logical_or,
    np.logical_xor,
    np.logical_not,
    np.bitwise_and,
    np.bitwise_or,
    np.bitwise_xor,
    np.invert,
    np.left_shift,
    np.right_shift,
    np.gcd,
    np.lcm,
    # integer-valued, index-valued, and piecewise constant with float values
    np.floor_divide,
    np.argmax,
    np.argmin,
    np.spacing,
)
if hasattr(np, "bitwise_count"):  # numpy 2
    NUMPY += (np.bitwise_count,)

INDICES = (
    np.nanargmax,
    np.nanargmin,
    np.linalg.matrix_rank,
    np.result_type,
    np.tril_indices,
    np.triu_indices,
    np.diag_indices,
    np.ravel_multi_index,
    np.unravel_index,
    np.ix_,
    np.broadcast_shapes,
)
"""Indices, ranks, shapes and dtypes computed from their arguments."""

MATH = (
    math.floor,  # these three return ints
    math.ceil,
    math.trunc,
    math.isclose,
    math.isfinite,
    math.isinf,
    math.isnan,
    math.ulp,
    math.factorial,
    math.comb,
    math.perm,
    math.gcd,
    math.lcm,
    math.isqrt,
)

OPERATOR = (
    operator.eq,
    operator.ne,
    operator.lt,
    operator.le,
    operator.gt,
    operator.ge,
    operator.not_,
    operator.truth,
    operator.is_,
    operator.is_not,
    operator.contains,
    operator.countOf,
    operator.indexOf,
    operator.length_hint,
    operator.index,
)
"""Boolean or integer results whatever the arguments."""

OPERATOR_ON_NUMBERS = (
    operator.floordiv,
    operator.ifloordiv,
    operator.and_,
    operator.or_,
    operator.xor,
    operator.lshift,
    operator.rshift,
)
"""Integer-valued on numbers and arrays only: ``|`` merges dicts and sets, which have tangents."""

non_differentiable(
    *NUMPY, *INDICES, *MATH, *OPERATOR, operator.invert, operator.inv, builtins.len, type[int], type[bool]
)
non_differentiable(*OPERATOR_ON_NUMBERS, arg_types=(NUMERIC, NUMERIC))
