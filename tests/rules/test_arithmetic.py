"""Rules for numpy's elementwise functions of two arguments and clip."""

import pytest

from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("arithmetic"))
def test_rule(case, dtype, mode):
    """Every declared case of the arithmetic family passes the harness."""
    case.run(dtype, mode)
