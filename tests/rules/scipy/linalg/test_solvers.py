"""scipy.linalg's solvers: solve_triangular, solve, inv, det, solve_banded, block_diag (with scipy installed)."""

import numpy as np
import pytest

from chainrules_core import NoTangent, frule, rrule
from tests.rules.cases import case_params

scipy_linalg = pytest.importorskip("scipy.linalg", reason="scipy is an optional dependency")


@pytest.mark.parametrize("case, dtype, mode", case_params("scipy.linalg.solvers"))
def test_rule(case, dtype, mode):
    """Every declared case of the scipy.linalg solvers passes the harness."""
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


@pytest.mark.parametrize(
    "assume_a, unread",
    [
        ("diagonal", lambda x: x - np.diag(np.diag(x))),
        ("tridiagonal", lambda x: np.triu(x, 2) + np.tril(x, -2)),
        ("upper triangular", lambda x: np.tril(x, -1)),
        ("pos", lambda x: np.triu(x, 1)),
    ],
)
def test_solve_cotangent_lives_on_the_entries_read(assume_a, unread):
    """solve(assume_a=...) reads part of a: the rest gets a zero cotangent."""
    a = np.random.default_rng(1).normal(size=(4, 4)) + 8 * np.eye(4)
    _, pullback = rrule(scipy_linalg.solve, a, np.ones(4), assume_a=assume_a, lower=True)
    assert np.all(unread(pullback(np.ones(4))[1]) == 0)


def test_solve_banded_corners_get_zero():
    """The places of ab that store no matrix entry get a zero cotangent; a 1-D b keeps its shape."""
    rng = np.random.default_rng(2)
    ab = rng.normal(size=(4, 5))
    ab[2] += 8.0
    _, pullback = rrule(scipy_linalg.solve_banded, (1, 2), ab, np.ones(5))
    _, l_and_u_bar, ab_bar, b_bar = pullback(np.ones(5))
    assert l_and_u_bar == NoTangent() and b_bar.shape == (5,)
    assert ab_bar[0, 0] == ab_bar[0, 1] == ab_bar[1, 0] == ab_bar[3, 4] == 0  # the corners: u = 2 above, l = 1 below


def test_det_at_a_singular_matrix_is_the_adjugate():
    """scipy's det uses numpy's rule: finite at a singular matrix."""
    _, pullback = rrule(scipy_linalg.det, np.array([[1.0, 2.0], [2.0, 4.0]]))
    np.testing.assert_allclose(pullback(1.0)[1], [[4.0, -2.0], [-2.0, 1.0]], atol=1e-12)


@pytest.mark.parametrize(
    "f, args, kwargs",
    [
        ("solve_triangular", (np.eye(2), np.ones(2)), {"overwrite_b": True}),
        ("solve", (np.eye(2), np.ones(2)), {"overwrite_a": True}),
        ("solve", (np.eye(2), np.ones(2)), {"assume_a": "no such structure"}),
        ("inv", (np.eye(2),), {"overwrite_a": True}),
        ("inv", (np.eye(2),), {"assume_a": "diagonal"}),
        ("det", (np.eye(2),), {"overwrite_a": True}),
        ("solve_banded", ((0, 0), np.ones((1, 2)), np.ones(2)), {"overwrite_ab": True}),
        ("solve_banded", ((0.0, 0), np.ones((1, 2)), np.ones(2)), {}),
    ],
)
def test_calls_without_a_rule(f, args, kwargs):
    """Options the rules cannot honour get no rule (None), in both modes."""
    f = getattr(scipy_linalg, f)
    assert rrule(f, *args, **kwargs) is None
    tangents = (NoTangent(), *(np.ones_like(np.asarray(x, dtype=float)) for x in args))
    assert frule(tangents, f, *args, **kwargs) is None


def test_inv_diagonal_keeps_the_off_diagonal_entries():
    """Why inv(assume_a='diagonal') has no rule: scipy returns a's off-diagonal entries beside 1 / diag(a)."""
    a = np.array([[2.0, 1.0], [3.0, 4.0]])
    out = scipy_linalg.inv(a, assume_a="diagonal")
    if out[0, 1] == 0 and out[1, 0] == 0:
        pytest.skip("this scipy inverts the diagonal matrix it reads: inv(assume_a='diagonal') can get a rule")
    np.testing.assert_allclose(out, [[0.5, 1.0], [3.0, 0.25]])


def test_block_diag_of_python_scalars_and_lists():
    """block_diag's arguments keep their types: a Python float gets a float, a list a Tangent(list)."""
    out, pullback = rrule(scipy_linalg.block_diag, 1.0, [2.0, 3.0])
    _, x_bar, y_bar = pullback(np.arange(6.0).reshape(2, 3))
    assert x_bar == 0.0 and type(x_bar) is float
    assert list(y_bar) == [4.0, 5.0]


@pytest.mark.parametrize("a", [np.array(2.0), np.array([[2.0]])], ids=["0-d", "1x1"])
def test_solve_with_a_matrix_of_one_entry_divides(a):
    """scipy's solve divides b by a matrix of one entry, whatever b's rows: so do the rules."""
    b = np.array([3.0, -1.0, 4.0])
    x, pullback = rrule(scipy_linalg.solve, a, b, assume_a="pos")
    np.testing.assert_allclose(x, b / 2.0)
    _, a_bar, b_bar = pullback(np.ones(3))
    assert a_bar.shape == a.shape and b_bar.shape == b.shape
    np.testing.assert_allclose(b_bar, np.full(3, 0.5))
    np.testing.assert_allclose(a_bar, np.full(a.shape, -np.sum(b) / 4.0))
    _, x_dot = frule((NoTangent(), np.ones(a.shape), np.zeros(3)), scipy_linalg.solve, a, b)
    np.testing.assert_allclose(x_dot, -b / 4.0)


def test_solve_triangular_tangent_that_overflows_is_not_an_error():
    """The primal checks its inputs; a tangent's right-hand side that overflows gives inf or nan, not ValueError."""
    a = np.triu(np.full((3, 3), 1e300))
    b = np.full(3, 1e300)
    with np.errstate(over="ignore", invalid="ignore"):
        x, x_dot = frule((NoTangent(), a, b), scipy_linalg.solve_triangular, a, b, unit_diagonal=True)
    assert x_dot.shape == x.shape
    assert not np.all(np.isfinite(x_dot))
