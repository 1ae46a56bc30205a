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
    args = case.make_args(np.random.default_rng(0), dtype)  # type: ignore[attr-defined]
    return any(isinstance(a, np.ndarray) for a in args)


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
