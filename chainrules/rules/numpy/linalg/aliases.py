"""The array-API functions of ``numpy.linalg`` (numpy 2): ``trace`` here, the others beside their namesakes.

``numpy.linalg.trace`` sums the diagonal of the last two axes (``offset``,
``dtype``): linear, its pullback writes the seed on that diagonal (on another
library's arrays: the seed where the row index plus ``offset`` is the column
index, as the standard has no writes into an array). ``linalg.vecdot`` and
``linalg.cross`` are ruled in ``products`` with ``vecdot`` and ``cross``,
``linalg.diagonal`` in ``indexing``, ``linalg.matrix_transpose`` in
``shape``, ``linalg.multi_dot`` in ``linalg``. A numpy without these
functions registers nothing here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core.arrays import device_of, is_foreign_array, namespace_of

from ..._arrays import diagonal_adjoint, real_dtype_of
from ..._makers import linear_in_first_rule


def _trace_adjoint(out_bar: Any, x: Any, *, offset: int = 0, dtype: Any = None) -> Any:
    if is_foreign_array(out_bar):
        xp = namespace_of(out_bar)
        rows, columns = x.shape[-2:]
        device = device_of(out_bar)
        # the diagonal as a comparison of indices (dask's eye of more columns than rows computes nothing)
        on_diagonal = xp.expand_dims(xp.arange(rows, device=device), axis=-1) + offset == xp.arange(
            columns, device=device
        )
        return xp.where(on_diagonal, xp.expand_dims(xp.expand_dims(out_bar, axis=-1), axis=-1), 0.0)
    x_dtype = real_dtype_of(x)
    if x_dtype is None:
        raise TypeError(f"np.linalg.trace: the argument x of dtype {np.asarray(x).dtype} has no tangent space")
    return diagonal_adjoint(np.asarray(out_bar)[..., None], np.shape(x), x_dtype, offset, -2, -1)


if hasattr(np.linalg, "trace"):
    linear_in_first_rule(np.linalg.trace, _trace_adjoint, generic=True)
