"""Rules for the math module."""

import pytest

from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("python_math"))
def test_rule(case, dtype, mode):
    """Every declared case of the math family passes the harness."""
    case.run(dtype, mode)
