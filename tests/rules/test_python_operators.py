"""Rules for the operator module and the builtins."""

import pytest

from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("python_operators"))
def test_rule(case, dtype, mode):
    """Every declared case of the operator and builtins family passes the harness."""
    case.run(dtype, mode)
