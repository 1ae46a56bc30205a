"""Every tier-1 array function of rule_coverage.md has both rules, so coverage cannot silently regress."""

import operator

import numpy as np
import pytest

import chainrules  # noqa: F401 - registers the rules
from chainrules_core import NoTangent, frule, rrule
from chainrules_core.testing import rand_tangent

X = np.arange(1.0, 7.0).reshape(2, 3)

TIER_ONE = [
    (np.sum, (X,)),
    (np.prod, (X,)),
    (np.mean, (X,)),
    (np.max, (X,)),
    (np.amax, (X,)),
    (np.min, (X,)),
    (np.amin, (X,)),
    (np.trace, (X,)),
    (np.var, (X,)),
    (np.std, (X,)),
    (np.cumsum, (X,)),
    (np.cumprod, (X,)),
    (np.diff, (X,)),
    (np.reshape, (X, (3, 2))),
    (np.ravel, (X,)),
    (np.ndarray.flatten, (X,)),
    (np.transpose, (X,)),
    (np.swapaxes, (X, 0, 1)),
    (np.moveaxis, (X, 0, 1)),
    (np.expand_dims, (X, 0)),
    (np.squeeze, (X,)),
    (np.broadcast_to, (X, (2, 2, 3))),
    (np.ndarray.astype, (X, np.float32)),
    (np.flip, (X,)),
    (np.roll, (X, 1)),
    (np.array, (X,)),
    (np.asarray, (X,)),
    (np.copy, (X,)),
    (np.full, ((2,), 1.5)),
    (np.concatenate, ([X, X],)),
    (np.stack, ([X, X],)),
    (np.vstack, ([X, X],)),
    (np.hstack, ([X, X],)),
    (np.split, (X, 2)),
    (np.tile, (X, 2)),
    (np.repeat, (X, 2)),
    (np.pad, (X, 1)),
    (np.where, (X > 2, X, 0.0)),
    (np.ndarray.__getitem__, (X, 0)),
    (operator.getitem, (X, (slice(None), [0, 0]))),
    (np.take, (X, [0, 1])),
    (np.take_along_axis, (X, np.zeros((2, 1), dtype=int), 1)),
    (np.diag, (X,)),
    (np.diagonal, (X,)),
    (np.tril, (X,)),
    (np.triu, (X,)),
    (np.sort, (X,)),
]

NON_DIFFERENTIABLE = [
    (np.argsort, (X,)),
    (np.argpartition, (X, 1)),
    (np.searchsorted, (np.array([1.0, 2.0]), 1.5)),
    (np.nonzero, (X,)),
    *([(np.unique_counts, (X,))] if hasattr(np, "unique_counts") else []),  # numpy >= 2.0
]


@pytest.mark.parametrize("f, args", TIER_ONE + NON_DIFFERENTIABLE, ids=lambda v: getattr(v, "__name__", ""))
def test_has_both_rules(f, args):
    """``rrule`` and ``frule`` both answer a plain call of each function."""
    assert rrule(f, *args) is not None
    assert frule((NoTangent(), *(rand_tangent(a, 0) for a in args)), f, *args) is not None
