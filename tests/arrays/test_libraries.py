"""Every in-scope declared case on every array library: numpy's numbers, in that library's arrays.

The cases are the ones the rule modules declare (``chainrules.checks``),
not a list written here; ``chainrules.checks.libraries`` says which are in
scope and which calls a library refuses. A library that is not installed is
skipped with the reason; CuPy needs a GPU.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import chainrules.checks  # noqa: F401 - registers the rules and their declared cases
from chainrules.checks.libraries import REFUSAL_COUNT, REFUSALS, in_scope, refusal_for
from chainrules.testing.libraries import LIBRARIES, compare_on
from chainrules_core.naming import function_name
from chainrules_core.testing import registered_cases


def _has_array(case: object, dtype: str) -> bool:
    """Whether the case has an array argument, or a list or tuple of arrays (``concatenate``'s)."""
    args = case.make_args(np.random.default_rng(0), dtype)  # type: ignore[attr-defined]
    return any(
        isinstance(a, np.ndarray) or (isinstance(a, (list, tuple)) and any(isinstance(b, np.ndarray) for b in a))
        for a in args
    )


def _params() -> list[object]:
    """One parameter per (case, dtype, mode, library) for the libraries installed; one skipped parameter for each
    library that is not."""
    available = [name for name, library in LIBRARIES.items() if library.available()]
    params: list[object] = [
        pytest.param(
            None, None, None, name, id=f"{name}-not-installed", marks=pytest.mark.skip(LIBRARIES[name].why_not())
        )
        for name in LIBRARIES
        if name not in available
    ]
    for _, case in registered_cases():
        if not in_scope(case.f):
            continue
        for dtype, mode in case.expand():
            if not _has_array(case, dtype):
                continue
            for library in available:
                params.append(pytest.param(case, dtype, mode, library, id=f"{library}-{case.label}-{dtype}-{mode}"))
    return params


PARAMS = _params()


@pytest.mark.parametrize(("case", "dtype", "mode", "library_name"), PARAMS)
def test_case_on_library(case, dtype, mode, library_name):
    library = LIBRARIES[library_name]
    args = case.make_args(np.random.default_rng(0), dtype)
    why = refusal_for(case.f, library_name, dtype, case.label)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's own warnings at the declared points
        if why is None:
            compare_on(library, case.f, *args, mode=mode, fkwargs=dict(case.kwargs))
            return
        with pytest.raises(TypeError) as raised:
            compare_on(library, case.f, *args, mode=mode, fkwargs=dict(case.kwargs))
    message = str(raised.value)
    assert function_name(case.f) in message, message


def test_every_refusal_is_counted_and_matches_a_case():
    assert len(REFUSALS) == REFUSAL_COUNT
    labels = {(function_name(case.f), case.label) for _, case in registered_cases()}
    for refusal in REFUSALS:
        assert refusal.library in ("", *LIBRARIES), refusal  # "": every library
        assert any(name == refusal.function and refusal.cases in label for name, label in labels), refusal


def test_scope_holds_the_standard_functions():
    names = {function_name(case.f) for _, case in registered_cases() if in_scope(case.f)}
    assert len(names) >= 120, len(names)
    assert re.search("np.linalg.solve", " ".join(sorted(names)))


_X = np.array([[0.5, -1.5, 2.0], [3.0, 0.0, -0.25]])
_Y = np.array([[1.0, -1.5, 0.5], [2.0, 1.0, -3.0]])
NON_DIFFERENTIABLE = [
    *((f, (_X, _Y), {}) for f in (np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal)),
    *((f, (_X,), {}) for f in (np.isfinite, np.isinf, np.isnan, np.signbit, np.argsort, np.count_nonzero)),
    *((f, (_X > 0,), {}) for f in (np.all, np.any, np.logical_not)),
    *((f, (_X > 0, _Y > 0), {}) for f in (np.logical_and, np.logical_or, np.logical_xor)),
    (np.argmax, (_X,), {"axis": 1}),
    (np.argmin, (_X,), {"axis": 0}),
    (np.floor_divide, (_X, _Y), {}),
    (np.searchsorted, (np.array([-1.0, 0.5, 2.0, 4.0]), np.array([0.0, 3.0, -2.0])), {}),
    (np.linalg.matrix_rank, (np.array([[1.0, 2.0], [2.0, 4.0]]),), {}),
]


@pytest.mark.parametrize("library_name", [name for name in LIBRARIES if LIBRARIES[name].available()] or ["none"])
@pytest.mark.parametrize(("f", "args", "kwargs"), NON_DIFFERENTIABLE, ids=lambda v: getattr(v, "__name__", ""))
def test_non_differentiable_functions_compute_in_the_library(f, args, kwargs, library_name):
    """A function without a derivative gives its output in the input's library (its rules are generic) and no
    tangent, on every library (dask's matrix_rank refuses by name)."""
    if library_name == "none":
        pytest.skip("no array library other than numpy is installed")
    library = LIBRARIES[library_name]
    for mode in ("rrule", "frule"):
        if (function_name(f), library_name) in NON_DIFFERENTIABLE_REFUSED:
            with pytest.raises(TypeError, match=re.escape(function_name(f))):
                compare_on(library, f, *args, mode=mode, fkwargs=kwargs)
        else:
            compare_on(library, f, *args, mode=mode, fkwargs=kwargs)


NON_DIFFERENTIABLE_REFUSED = {("np.linalg.matrix_rank", "dask")}
"""numpy's matrix_rank of a dask array asks dask's svd for singular values alone (compute_uv=False), which it
does not take."""
