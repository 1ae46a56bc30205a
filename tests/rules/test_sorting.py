import pytest

from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("sorting"))
def test_rule(case, dtype, mode):
    """Every declared case of the sorting passes the harness."""
    case.run(dtype, mode)
