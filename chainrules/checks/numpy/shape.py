"""Declared checks of the shape rules (``chainrules.rules.numpy.shape``)."""

from __future__ import annotations

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules_core.testing.cases import REALS, Arg, Case

_X = Arg(REALS, (2, 3, 4))

SHAPE_CASES = (
    Case(np.reshape, (_X, (4, 6))),
    Case(np.reshape, (_X, (6, -1), "F"), name="order F"),
    Case(np.reshape, (_X,), kwargs={"shape": (3, 8), "order": "A"}),
    Case(np.ndarray.reshape, (_X, 4, 6), name="method"),
    Case(np.ndarray.reshape, (_X, (24,)), kwargs={"order": "F"}, name="method"),
    Case(np.ravel, (_X,)),
    Case(np.ravel, (_X, "F")),
    Case(np.ravel, (_X,), kwargs={"order": "K"}),
    Case(np.ndarray.ravel, (_X,), name="method"),
    Case(np.ndarray.flatten, (_X,), name="method"),
    Case(np.ndarray.flatten, (_X, "F"), name="method"),
    Case(np.transpose, (_X,)),
    Case(np.transpose, (_X, (1, 2, 0))),
    Case(np.transpose, (_X,), kwargs={"axes": (-1, 0, 1)}),
    Case(np.ndarray.transpose, (_X, 2, 0, 1), name="method"),
    Case(np.ndarray.transpose, (_X, (0, 2, 1)), name="method"),
    Case(np.swapaxes, (_X, 0, -1)),
    Case(np.ndarray.swapaxes, (_X, 1, 2), name="method"),
    Case(np.moveaxis, (_X, 0, -1)),
    Case(np.moveaxis, (_X, (0, 1), (2, 0))),
    Case(np.expand_dims, (_X, 1)),
    Case(np.expand_dims, (_X, (0, -1))),
    Case(np.squeeze, (Arg(REALS, (1, 3, 1, 2)),)),
    Case(np.squeeze, (Arg(REALS, (1, 3, 1, 2)), 2)),
    Case(np.ndarray.squeeze, (Arg(REALS, (1, 3, 1, 2)), (0, 2)), name="method"),
    Case(np.broadcast_to, (Arg(REALS, (3, 1)), (2, 3, 4))),
    Case(np.broadcast_to, (Arg(REALS, ()), (2, 3))),
    Case(np.broadcast_to, (Arg(REALS, None), (3,)), name="python scalar"),
    Case(np.ndarray.astype, (_X, np.float32), dtypes=("float64", "float32"), name="to float32"),
    Case(np.ndarray.astype, (_X, np.float64), dtypes=("float64", "float32"), name="to float64"),
    Case(np.ndarray.astype, (_X, np.complex128), name="to complex"),
    Case(np.ndarray.astype, (_X, np.int64), dtypes=("float64", "float32"), name="to int"),
    Case(np.astype, (_X, np.float32), dtypes=("float64", "float32"), name="to float32"),
    Case(np.astype, (_X, np.float64), dtypes=("float64", "float32"), name="to float64"),
    Case(np.astype, (_X, np.complex128), name="to complex"),
    Case(np.astype, (_X, np.float64), dtypes=("complex128",), name="complex to real"),
    Case(np.astype, (_X, np.int64), dtypes=("float64", "float32"), name="to int"),
    Case(np.flip, (_X,)),
    Case(np.flip, (_X, 1)),
    Case(np.flip, (_X,), kwargs={"axis": (0, -1)}),
    Case(np.roll, (_X, 2)),
    Case(np.roll, (_X, -1, 1)),
    Case(np.roll, (_X, (1, 3), (0, 2))),
    Case(np.fliplr, (_X,)),
    Case(np.flipud, (Arg(REALS, (4,)),)),
    Case(np.rot90, (_X,)),
    Case(np.rot90, (_X, 3, (2, 0))),
    Case(np.rot90, (_X,), kwargs={"k": -2, "axes": (1, 2)}),
    Case(np.rollaxis, (_X, 2)),
    Case(np.rollaxis, (_X, 0, 3)),
    Case(np.rollaxis, (_X, -1, -2)),
    Case(np.atleast_1d, (Arg(REALS, None),), name="python scalar"),
    Case(np.atleast_2d, (Arg(REALS, (3,)),)),
    Case(np.atleast_3d, (Arg(REALS, ()), Arg(REALS, (3,)), Arg(REALS, (2, 3)), _X), name="several: a tuple"),
    Case(np.broadcast_arrays, (Arg(REALS, (3, 1)), Arg(REALS, (2, 1, 4)), Arg(REALS, None))),
    Case(np.broadcast_arrays, (Arg(REALS, (2, 3)),), name="one array"),
)
if hasattr(np, "matrix_transpose"):  # numpy >= 2.0
    SHAPE_CASES += (Case(np.matrix_transpose, (_X,)), Case(np.linalg.matrix_transpose, (Arg(REALS, (3, 2)),)))

register_shipped_cases("numpy.shape", *SHAPE_CASES)
