"""scipy.linalg.solve_triangular, registered when scipy is installed."""

import numpy as np
import pytest

from chainrules_core import NoTangent, frule, rrule
from tests.rules.cases import case_params

scipy_linalg = pytest.importorskip("scipy.linalg", reason="scipy is an optional dependency")


@pytest.mark.parametrize("case, dtype, mode", case_params("scipy_linalg"))
def test_rule(case, dtype, mode):
    """Every declared case of solve_triangular passes the harness."""
    case.run(dtype, mode)


@pytest.mark.parametrize("lower, unit_diagonal", [(True, False), (False, False), (True, True)])
def test_cotangent_lives_on_the_triangle_read(lower, unit_diagonal):
    """The triangle not read, and the diagonal when unit_diagonal, get a zero cotangent."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3, 3)) + 3 * np.eye(3)
    _, pullback = rrule(scipy_linalg.solve_triangular, a, np.ones(3), lower=lower, unit_diagonal=unit_diagonal)
    a_bar = pullback(np.ones(3))[1]
    unread = np.triu(a_bar, 1) if lower else np.tril(a_bar, -1)
    assert np.all(unread == 0)
    if unit_diagonal:
        assert np.all(np.diagonal(a_bar) == 0)


def test_overwrite_b_gets_no_rule():
    """overwrite_b=True would destroy b, which the pullback does not need but the caller may: refused."""
    a, b = np.eye(2), np.ones(2)
    assert rrule(scipy_linalg.solve_triangular, a, b, overwrite_b=True) is None
    assert frule((NoTangent(), a, b), scipy_linalg.solve_triangular, a, b, overwrite_b=True) is None
