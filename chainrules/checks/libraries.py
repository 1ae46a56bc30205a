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

REFUSALS: tuple[Refusal, ...] = ARITHMETIC + ELEMENTWISE + LINALG
"""Every refusal the tests expect, beyond the functions the standard does not name."""

REFUSAL_COUNT = 23
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
    if standard_name(f) is None and library.split(".")[0] not in NUMPY_COMPATIBLE:
        return "the Python Array API standard has no such function"
    return None
