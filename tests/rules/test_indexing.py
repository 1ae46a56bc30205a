import pytest

from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("indexing"))
def test_rule(case, dtype, mode):
    """Every declared case of the indexing passes the harness."""
    case.run(dtype, mode)
