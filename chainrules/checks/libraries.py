"""Which declared cases run on which array library, and the calls a library refuses: one committed, counted table.

The declared cases of every function the Python Array API standard names
(``chainrules_core.array_api.standard_name``), and of every other function
whose rules are generic (``RuleRecord.generic``), run on each library of
``chainrules.testing.libraries.LIBRARIES`` (tests/arrays): the numbers must
be numpy's, in that library's arrays. Two kinds of call raise the
``TypeError`` that names the function and the array type instead:

* a numpy function the standard does not name, on a library that does not
  answer numpy's functions itself (``chainrules_core.array_api.implements``:
  dask and CuPy do; torch, JAX and array-api-strict do not), by construction;
* the calls of ``REFUSALS``, each for a stated reason.

>>> len(REFUSALS) == REFUSAL_COUNT
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from chainrules_core import rrule
from chainrules_core.array_api import NUMPY_COMPATIBLE, standard_name
from chainrules_core.naming import function_name


@dataclass(frozen=True)
class Refusal:
    """A library that cannot run one function's rule (on some dtypes, on cases whose label holds ``cases``)."""

    function: str
    """The function as labels name it: ``np.linalg.det``."""
    library: str
    """A key of ``LIBRARIES`` (``dask``, ``jax.jit``, ``torch`` ...); empty for every library."""
    why: str
    dtypes: tuple[str, ...] = ()
    """The dtypes refused; all if empty."""
    cases: str = ""
    """A piece of the case's label; every case if empty."""

    def covers(self, function: str, library: str, dtype: str, label: str) -> bool:
        return (
            self.function == function
            and self.library in ("", library)
            and (not self.dtypes or dtype in self.dtypes)
            and self.cases in label
        )


_OPTIONS = "the option has no counterpart in the Python Array API standard"
_REAL_ONLY = "the standard defines it for real numbers only, and so does the library"
_MIXED_KINDS = "the library does not promote an integer array with a floating one (the standard leaves it undefined)"

ARITHMETIC = (
    Refusal("np.multiply", "", _OPTIONS, cases="dtype=float32"),
    Refusal("np.maximum", "array_api_strict", _REAL_ONLY, dtypes=("complex128",)),
    Refusal("np.maximum", "torch", _REAL_ONLY, dtypes=("complex128",)),
    Refusal("np.minimum", "array_api_strict", _REAL_ONLY, dtypes=("complex128",)),
    Refusal("np.minimum", "torch", _REAL_ONLY, dtypes=("complex128",)),
    Refusal("np.power", "array_api_strict", _MIXED_KINDS, cases="[2,3,-2]"),
)
ELEMENTWISE = (Refusal("np.round", "array_api_strict", _OPTIONS, cases="decimals"),)

_ONE_CHUNK = (
    "dask transforms along an axis held in one chunk, and the tests split every axis in two: the rule refuses "
    "rather than rechunk (which gathers the axis into memory); tests/rules/numpy/test_fft.py runs them lazily "
    "on arrays rechunked first"
)
FFT = tuple(
    Refusal(f"np.fft.{name}", "dask", _ONE_CHUNK)
    for name in ("fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft")
)

_C_ORDER = "the standard reads an array in C order alone: order= 'F' has no counterpart"
_LAYOUT = "order= 'A' and 'K' follow numpy's memory layout, which the standard does not have"
SHAPES = (
    Refusal("np.reshape", "", _C_ORDER, cases="order F"),
    Refusal("np.reshape", "", _LAYOUT, cases="order='A'"),
    Refusal("np.ravel", "dask", _C_ORDER, cases="'F')"),
    Refusal("np.ravel", "dask", _LAYOUT, cases="order='K'"),
    Refusal(
        "np.pad", "dask", "dask's pad gives a shorter output for a wrap wider than the array", cases="(3,5);mode='wrap'"
    ),
)
_UNIQUE_JIT = "the number of unique values depends on the values, which jax.jit traces without"
_UNIQUE_DASK = "dask knows the number of unique values only once it computes them (a nan length)"
_UNIQUE_COMPLEX = "torch's unique does not take complex numbers"
_UNIQUE = ("np.unique_values", "np.unique_counts", "np.unique_inverse", "np.unique_all")
SORTING = (
    Refusal("np.sort", "array_api_strict", _REAL_ONLY, dtypes=("complex128",)),
    Refusal("np.sort", "torch", _REAL_ONLY, dtypes=("complex128",)),
    *(Refusal(name, "jax.jit", _UNIQUE_JIT) for name in _UNIQUE),
    *(Refusal(name, "dask", _UNIQUE_DASK) for name in _UNIQUE),
    *(Refusal(name, "torch", _UNIQUE_COMPLEX, dtypes=("complex128",)) for name in _UNIQUE[1:]),
)

_MASKED = "where= and initial= have no counterpart in the Python Array API standard's reductions"
_NO_DTYPE = "the standard's mean, var and std take no dtype=, and the library's do not either"

REDUCTIONS = (
    # numpy's where= and initial= options: no library's standard namespace takes them, nor dask's NaN reductions
    *(Refusal(f"np.{name}", "", _MASKED, cases="where=") for name in ("sum", "mean", "prod", "nansum")),
    *(Refusal(f"np.{name}", "", _MASKED, cases="initial=") for name in ("sum", "prod", "max", "nanmax")),
    *(
        Refusal(f"np.{name}", lib, _REAL_ONLY, dtypes=("complex128",))
        for name in ("max", "min")
        for lib in ("array_api_strict", "torch")
    ),
    Refusal("np.var", "array_api_strict", _REAL_ONLY, dtypes=("complex128",)),
    Refusal("np.std", "array_api_strict", _REAL_ONLY, dtypes=("complex128",)),
    Refusal("np.mean", "array_api_strict", _NO_DTYPE, cases="dtype="),
    Refusal("np.var", "array_api_strict", _NO_DTYPE, cases="dtype="),
    Refusal("np.var", "torch", _NO_DTYPE, cases="dtype="),
    Refusal(
        "np.average",
        "dask",
        "dask's average takes weights of the input's shape or along one axis, not along several",
        cases="weights in axis order",
    ),
)

_DASK_LU = "dask's LU (inv, solve) takes single matrices in square chunks only; the arrays are split unevenly"
_DASK_SVD = "dask's SVD takes single matrices split along one axis only; the arrays are split along both"
LINALG = (
    Refusal("np.linalg.det", "dask", "dask has no det"),
    Refusal("np.linalg.slogdet", "dask", "dask has no slogdet"),
    Refusal("np.linalg.inv", "dask", _DASK_LU),
    Refusal("np.linalg.solve", "dask", _DASK_LU),
    Refusal("np.linalg.matrix_power", "dask", f"a negative power needs the inverse: {_DASK_LU}", cases=",-"),
    Refusal("np.linalg.matrix_norm", "dask", _DASK_SVD, cases="ord='nuc'"),
    Refusal("np.linalg.matrix_norm", "dask", _DASK_SVD, cases="ord=2)"),
    Refusal("np.linalg.matrix_norm", "dask", _DASK_SVD, cases="ord=-2)"),
    Refusal("np.linalg.cholesky", "dask", "dask's cholesky takes single matrices in square chunks only"),
    Refusal("np.linalg.qr", "dask", "dask's QR takes single matrices split along one axis only"),
    Refusal("np.linalg.eigh", "dask", "dask has no eigh"),
    Refusal("np.linalg.eigvalsh", "dask", "dask has no eigvalsh"),
    Refusal("np.linalg.svd", "dask", f"{_DASK_SVD}, and it computes no full_matrices"),
    Refusal("np.linalg.svdvals", "dask", f"{_DASK_SVD} (array_api_compat's svdvals asks it for full_matrices)"),
    Refusal("np.linalg.pinv", "", _OPTIONS, cases="hermitian=True"),
    Refusal("np.linalg.pinv", "dask", "dask has no pinv"),
)

_MASK_UNDER_JIT = "a boolean mask under jax.jit: the output's length depends on the mask's values"
INDEXING = (
    Refusal("np.ndarray.__getitem__", "jax.jit", _MASK_UNDER_JIT, cases="<(4,3) array>"),
    Refusal("np.ndarray.__getitem__", "jax.jit", _MASK_UNDER_JIT, cases="[True,False,True,True]"),
    Refusal(
        "np.ndarray.__getitem__",
        "dask",
        "a dask mask beside other indices: the number of its true places is not known until it is computed",
        cases="[True,False,True,True],2",
    ),
)

REFUSALS: tuple[Refusal, ...] = ARITHMETIC + ELEMENTWISE + FFT + SHAPES + SORTING + INDEXING + REDUCTIONS + LINALG
"""Every refusal the tests expect, beyond the functions the standard does not name."""

REFUSAL_COUNT = 72
"""``len(REFUSALS)``, pinned: a refusal is added or removed on purpose, and docs/arrays.md lists them."""


def in_scope(f: Any) -> bool:
    """Whether ``f``'s declared cases run on the other libraries: the standard names it, or its rules are generic."""
    if standard_name(f) is not None:
        return True
    return any(record.generic for record in rrule.records_for(f))


def refusal_for(f: Any, library: str, dtype: str, label: str) -> str | None:
    """Why ``library`` refuses this case of ``f`` (``None`` if it must run): a function the standard does not name
    on a library that does not take numpy's calls over, or an entry of ``REFUSALS``."""
    name = function_name(f)
    for refusal in REFUSALS:
        if refusal.covers(name, library, dtype, label):
            return refusal.why
    if standard_name(f) is None and f not in ARRAY_METHODS and library.split(".")[0] not in NUMPY_COMPATIBLE:
        return "the Python Array API standard has no such function"
    return None


ARRAY_METHODS = (np.ndarray.__getitem__,)
"""numpy's array methods whose counterparts the standard's arrays have (``x[index]``): in scope wherever their
rules are generic."""
