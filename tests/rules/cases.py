"""Turn the checks each rule module declares into pytest parameters."""

from __future__ import annotations

import pytest

import chainrules.checks  # noqa: F401 - registers the rules and their declared cases
from chainrules_core.testing import registered_cases


def case_params(family: str) -> list[object]:
    """One pytest parameter per (case, dtype, mode) declared for ``family``."""
    params = [
        pytest.param(case, dtype, mode, id=f"{case.label}-{dtype}-{mode}")
        for _, case in registered_cases(family)
        for dtype, mode in case.expand()
    ]
    if not params:
        raise LookupError(f"no cases are registered for the family {family!r}")
    return params
