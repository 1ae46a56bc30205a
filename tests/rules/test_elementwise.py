"""Rules for numpy's elementwise functions of one argument."""

import pytest

from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("elementwise"))
def test_rule(case, dtype, mode):
    """Every declared case of the elementwise family passes the harness."""
    case.run(dtype, mode)
