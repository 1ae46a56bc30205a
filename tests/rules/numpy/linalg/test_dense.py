"""Linear algebra: inv, solve, det, slogdet."""

import numpy as np
import pytest

from chainrules_core import NoTangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.linalg.dense"))
def test_rule(case, dtype, mode):
    """Every declared case of the linalg family passes the harness."""
    case.run(dtype, mode)


def test_det_at_a_singular_matrix_is_finite_and_exact():
    """At a rank n - 1 matrix the cotangent is the (rank-one) adjugate, not nan."""
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    _, pullback = rrule(np.linalg.det, a)
    np.testing.assert_allclose(pullback(1.0)[1], [[4.0, -2.0], [-2.0, 1.0]], atol=1e-12)
    _, out_dot = frule((NoTangent(), np.array([[1.0, 0.0], [0.0, 0.0]])), np.linalg.det, a)
    assert out_dot == pytest.approx(4.0)


def test_det_at_rank_n_minus_2_has_a_zero_derivative():
    """Below rank n - 1 every cofactor vanishes: the cotangent and the tangent are zero."""
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [-1.0, -2.0, -3.0]])
    _, pullback = rrule(np.linalg.det, a)
    np.testing.assert_allclose(pullback(1.0)[1], np.zeros((3, 3)), atol=1e-12)
    _, out_dot = frule((NoTangent(), np.ones((3, 3))), np.linalg.det, a)
    assert abs(out_dot) < 1e-12


def test_det_of_a_stack_mixes_both_methods():
    """In a stack, singular matrices take the SVD route and the others the inverse."""
    rng = np.random.default_rng(0)
    good = rng.normal(size=(3, 3)) + 3 * np.eye(3)
    singular = np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 1.0]])
    _, pullback = rrule(np.linalg.det, np.stack([good, singular]))
    a_bar = pullback(np.ones(2))[1]
    np.testing.assert_allclose(a_bar[0], np.linalg.det(good) * np.linalg.inv(good).T)
    np.testing.assert_allclose(a_bar[1], [[4.0, -2.0, 0.0], [-2.0, 1.0, 0.0], [0.0, 0.0, 0.0]], atol=1e-12)


def test_det_second_derivative_of_a_stack_with_a_singular_matrix():
    """Each matrix of the stack is differentiated through its own route: the invertible identity's Hessian along
    ones is not the SVD's (whose derivative at repeated singular values is undefined), nor is the singular one's."""
    import chainrules.engines as ad

    a = np.stack([np.array([[2.0, 1.0, 3.0], [1.0, 0.5, 1.5], [0.0, 1.0, 1.0]]), np.eye(3)])
    direction = np.ones((2, 3, 3))

    def along(m):  # <adj(m)^T, direction>, the derivative of det along the direction
        return np.sum(rrule(np.linalg.det, m)[1](np.ones(2))[1] * direction)

    (hessian_along,) = ad.gradient(along, a)
    step, expected = 1e-6, np.empty_like(a)
    for index in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[index] = step
        expected[index] = (along(a + e) - along(a - e)) / (2 * step)
    np.testing.assert_allclose(hessian_along, expected, atol=1e-8)
    np.testing.assert_allclose(hessian_along[1], [[2.0, -1.0, -1.0], [-1.0, 2.0, -1.0], [-1.0, -1.0, 2.0]])


def test_det_second_derivative_at_a_singular_complex_matrix():
    """The adjugate of a followed complex matrix on the SVD route comes from its cofactors (the complex SVD's phase
    terms made the second derivative NaN or wrong there): the same Hessian along ones as a real singular matrix's,
    and, at a complex matrix of rank n - 1, the central differences of the derivative."""
    import chainrules.engines as ad

    def along(m):
        return np.sum(np.real(rrule(np.linalg.det, m)[1](np.ones((), dtype=m.dtype))[1]))

    for dtype in (float, complex):
        (hessian_along,) = ad.gradient(along, np.array([[1.0, 2.0], [2.0, 4.0]], dtype=dtype))
        np.testing.assert_allclose(hessian_along, [[1.0, -1.0], [-1.0, 1.0]], atol=1e-12)  # of a + d - b - c
    rng = np.random.default_rng(0)
    b = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    a = b @ (rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3)))  # rank 2
    direction = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    _, hessian_dot = ad.jvp(along, (a,), (direction,))
    step = 1e-6
    expected = (along(a + step * direction) - along(a - step * direction)) / (2 * step)
    np.testing.assert_allclose(hessian_dot, expected, rtol=1e-6)


def test_det_of_a_rank_deficient_matrix_without_a_zero_pivot_takes_the_rule_s_adjugate():
    """An LU kept from the primal (numpy's double-precision matrices) meets no exact zero pivot at a matrix of rank
    n - 1 built in floating point: the pullback still takes the adjugate's own way there, as the rule does."""
    from chainrules_core import fast_paths

    rng = np.random.default_rng(2)  # LAPACK's LU of this one has no zero pivot
    u, v = rng.normal(size=(6, 5)), rng.normal(size=(6, 5))
    a = u @ v.T
    out, pullback = rrule(np.linalg.det, a)
    with fast_paths(False):
        out_rule, pullback_rule = rrule(np.linalg.det, a)
    assert out == pytest.approx(out_rule, rel=1e-12, abs=0.0)
    a_bar = pullback(1.5)[1]
    np.testing.assert_allclose(a_bar, pullback_rule(1.5)[1], rtol=1e-12, atol=1e-12)
    w, s, vh = np.linalg.svd(a)  # the rank-one adjugate: s_1 ... s_5 det(W) det(Vh) vh[-1]^T w[:, -1]^T
    adj = np.prod(s[:-1]) * np.linalg.det(w) * np.linalg.det(vh) * np.outer(vh[-1], w[:, -1])
    np.testing.assert_allclose(a_bar, 1.5 * adj.T, atol=1e-10)


@pytest.mark.parametrize("f", [np.linalg.det, np.linalg.slogdet])
def test_det_and_slogdet_pullbacks_are_linear_in_a_seed_an_engine_follows(f):
    """At a plain matrix the pullback of a followed seed (nested differentiation) is the plain matrix it scales."""
    from chainrules.engines import gradient

    rng = np.random.default_rng(2)
    a, w = rng.normal(size=(4, 4)) + 3 * np.eye(4), rng.normal(size=(4, 4))
    _, pullback = rrule(f, a)
    scale = np.linalg.det(a) if f is np.linalg.det else 1.0
    if f is np.linalg.det:
        (d,) = gradient(lambda g: np.sum(pullback(g)[1] * w), 0.7)
    else:
        (d,) = gradient(lambda g: np.sum(pullback((0.0, g))[1] * w), 0.7)
    assert d == pytest.approx(np.sum(scale * np.linalg.inv(a).T * w), rel=1e-12)


def test_slogdet_sign_of_a_singular_matrix():
    """A rank-deficient matrix has sign 0 and logabsdet -inf; a seed on the sign alone gives a zero."""
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    (sign, logabsdet), pullback = rrule(np.linalg.slogdet, a)
    assert sign == 0.0 and logabsdet == -np.inf
    assert pullback((1.0, ZeroTangent()))[1] == ZeroTangent()
    with np.errstate(divide="ignore", invalid="ignore"):
        a_bar = pullback((ZeroTangent(), 1.0))[1]
    assert not np.all(np.isfinite(a_bar))  # d log|det| is unbounded at a singular matrix


def test_slogdet_sign_of_a_real_matrix_has_a_zero_tangent():
    """For real input the sign is locally constant: its tangent is ZeroTangent, its cotangent ignored."""
    a = np.array([[0.0, 1.0], [2.0, 0.5]])
    out, out_dot = frule((NoTangent(), np.eye(2)), np.linalg.slogdet, a)
    assert out.sign == -1.0
    assert out_dot.sign == ZeroTangent()
    assert out_dot.logabsdet == pytest.approx(np.trace(np.linalg.inv(a)))
    _, pullback = rrule(np.linalg.slogdet, a)
    np.testing.assert_allclose(pullback((5.0, 1.0))[1], np.linalg.inv(a).T)


@pytest.mark.parametrize("order", ["C", "F"])
def test_slogdet_of_a_complex_matrix_in_either_layout(order):
    """With t = tr(inv(A) dA): d logabsdet = Re t and d sign = sign i Im t, whatever the memory layout of A and dA
    (a reported wrong tangent for a Fortran-ordered one), and as finite differences give it."""
    rng = np.random.default_rng(3)
    a = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3)) + 3 * np.eye(3)
    a_dot = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))
    a, a_dot = np.asarray(a, order=order), np.asarray(a_dot, order=order)
    (sign, logabsdet), out_dot = frule((NoTangent(), a_dot), np.linalg.slogdet, a)
    t = np.trace(np.linalg.solve(np.ascontiguousarray(a), np.ascontiguousarray(a_dot)))
    assert out_dot.logabsdet == pytest.approx(t.real, rel=1e-12)
    assert out_dot.sign == pytest.approx(sign * 1j * t.imag, rel=1e-12)
    h = 1e-6
    plus, minus = np.linalg.slogdet(a + h * a_dot), np.linalg.slogdet(a - h * a_dot)
    assert out_dot.logabsdet == pytest.approx((plus[1] - minus[1]) / (2 * h), rel=1e-6)
    assert out_dot.sign == pytest.approx((plus[0] - minus[0]) / (2 * h), rel=1e-6)


def test_slogdet_accepts_any_form_of_tuple_cotangent():
    """A namedtuple Tangent, a plain tuple and a Tangent with a missing field all work."""
    from chainrules_core import Tangent

    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    out, pullback = rrule(np.linalg.slogdet, a)
    expected = np.linalg.inv(a).T
    np.testing.assert_allclose(pullback((0.0, 1.0))[1], expected)
    np.testing.assert_allclose(pullback(Tangent(type(out), logabsdet=1.0))[1], expected)
    np.testing.assert_allclose(pullback(Tangent(tuple, ZeroTangent(), 1.0))[1], expected)
    assert pullback(ZeroTangent())[1] == ZeroTangent()


def test_solve_with_a_vector_for_a_stack():
    """A 1-D right-hand side shared by a stack of matrices gets the sum of the stack's cotangents."""
    rng = np.random.default_rng(2)
    a = rng.normal(size=(4, 3, 3)) + 3 * np.eye(3)
    b = rng.normal(size=3)
    x, pullback = rrule(np.linalg.solve, a, b)
    x_bar = rng.normal(size=(4, 3))
    _, a_bar, b_bar = pullback(x_bar)
    expected_b = sum(np.linalg.solve(a[i].T, x_bar[i]) for i in range(4))
    np.testing.assert_allclose(b_bar, expected_b)
    np.testing.assert_allclose(a_bar[0], -np.outer(np.linalg.solve(a[0].T, x_bar[0]), x[0]))


@pytest.mark.parametrize("n", [2, 5, -1, -4])
def test_matrix_power_is_the_sum_of_its_terms(n):
    """d(A^n) = sum_k A^k dA A^(n-1-k), and for n < 0 the same through inv(A)."""
    rng = np.random.default_rng(4)
    a, a_dot = rng.normal(size=(3, 3)) / 2 + np.eye(3), rng.normal(size=(3, 3))
    b, b_dot = (a, a_dot) if n > 0 else (np.linalg.inv(a), -np.linalg.inv(a) @ a_dot @ np.linalg.inv(a))
    power = np.linalg.matrix_power
    expected = sum(power(b, k) @ b_dot @ power(b, abs(n) - 1 - k) for k in range(abs(n)))
    np.testing.assert_allclose(frule((NoTangent(), a_dot, NoTangent()), power, a, n)[1], expected)


def test_matrix_power_zero_and_non_integer_exponents():
    """A^0 = I has a zero derivative; a float exponent gets no rule (numpy refuses it)."""
    a = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    assert rrule(np.linalg.matrix_power, a, 0)[1](np.ones((2, 2), np.float32))[1] == ZeroTangent()
    assert rrule(np.linalg.matrix_power, a, 2.0) is None


def test_multi_dot_cotangent_follows_the_container():
    """A list of arrays gets a Tangent(list, ...), a tuple a Tangent(tuple, ...); out= gets no rule."""
    from chainrules_core import Tangent

    arrays = [np.ones((2, 3)), np.ones((3, 4)), np.ones(4)]
    for container in (list, tuple):
        _, pullback = rrule(np.linalg.multi_dot, container(arrays))
        bars = pullback(np.array([1.0, 2.0]))[1]
        assert isinstance(bars, Tangent) and len(bars) == 3
        np.testing.assert_allclose(bars[2], np.full(4, 9.0))  # (A1 A2)^T (1, 2): (1 + 2) * 3 for each entry
    assert rrule(np.linalg.multi_dot, arrays, out=np.zeros(2)) is None


def test_a_singular_matrix_gets_numpys_answers_whichever_lapack_factorises():
    """At a rank-deficient matrix numpy's LU meets an exact zero pivot where scipy's meets 2e-16: det's and slogdet's
    fast paths, which factorise with scipy, leave such a matrix to numpy, so det and slogdet give numpy's values;
    solve and inv raise numpy's LinAlgError (not a solution of entries near 1e16)."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((6, 5)) @ rng.standard_normal((6, 5)).T
    for f, args in ((np.linalg.solve, (a, np.ones(6))), (np.linalg.inv, (a,))):
        try:
            want = f(*args)
        except np.linalg.LinAlgError:  # numpy's LU met its zero pivot (it does with numpy's bundled OpenBLAS)
            with pytest.raises(np.linalg.LinAlgError):
                rrule(f, *args)
        else:
            np.testing.assert_array_equal(rrule(f, *args)[0], want)
    assert rrule(np.linalg.det, a)[0] == np.linalg.det(a)
    assert tuple(rrule(np.linalg.slogdet, a)[0]) == tuple(np.linalg.slogdet(a))


def _permuted_triangular(rng, n, complex_):
    """``P U``: its LU in any LAPACK is ``U`` exactly, with ``P``'s pivots (one nonzero below each pivot row)."""
    d = np.exp(rng.uniform(-3.0, 3.0, n)) * rng.choice([-1.0, 1.0], n)  # magnitudes whose logs add in any order
    upper = np.triu(rng.standard_normal((n, n)), 1)
    if complex_:
        d = d * np.exp(1j * rng.uniform(-np.pi, np.pi, n))
        upper = upper + 1j * np.triu(rng.standard_normal((n, n)), 1)
    u = upper + np.diag(d)
    return u[rng.permutation(n)], u


@pytest.mark.parametrize("complex_", [False, True], ids=["real", "complex"])
def test_det_and_slogdet_read_off_an_lu_as_numpy_reads_its_own(complex_):
    """``lu_slogdet`` and ``lu_det`` give numpy's ``slogdet`` and ``det`` bit for bit from the same LU: the C
    library's log of each pivot added in turn (not numpy's vectorised log, not a pairwise sum), the signs or phases
    multiplied in turn. At ``P U`` every LAPACK's LU is ``U`` itself, so this holds whichever LAPACK scipy has."""
    from chainrules.rules.numpy.linalg._common import lu_det, lu_factored, lu_slogdet

    pytest.importorskip("scipy")
    rng = np.random.default_rng(5)
    for n in [1, 2, 3, 8, 9, 17, 33, 50, 64] * 6:
        a, u = _permuted_triangular(rng, n, complex_)
        factored = lu_factored(a)
        np.testing.assert_array_equal(factored[0], u)
        sign, logabsdet = np.linalg.slogdet(a)
        got = lu_slogdet(factored)
        assert [type(v) for v in got] == [type(sign), type(logabsdet)]
        assert got[0] == sign and got[1] == logabsdet, (n, got, (sign, logabsdet))
        det = lu_det(factored)
        assert type(det) is type(np.linalg.det(a)) and det == np.linalg.det(a), n


@pytest.mark.parametrize("f", [np.linalg.inv, np.linalg.det, np.linalg.slogdet, np.linalg.solve])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_the_primal_is_numpys_bit_for_bit_at_every_size_and_layout(f, dtype):
    """``rrule(f, a)[0]`` and ``frule``'s are ``f(a)`` to the last bit in C order, Fortran order and strided, at the
    sizes where scipy's LU and numpy's part (8 x 8 and 50 x 50 for real matrices with numpy's and scipy's own
    OpenBLAS builds): the fast paths take numpy's value unless scipy's LAPACK is numpy's."""
    rng = np.random.default_rng(6)
    for n in (3, 8, 50):
        for _ in range(3):
            a = rng.standard_normal((n, n)) + (1j * rng.standard_normal((n, n)) if dtype == "complex128" else 0)
            wide = np.zeros((n, 2 * n), dtype=dtype)
            wide[:, ::2] = a
            for layout in (a, np.asfortranarray(a), wide[:, ::2]):
                args = (layout, rng.standard_normal(n).astype(dtype)) if f is np.linalg.solve else (layout,)
                want = f(*args)
                for got in (rrule(f, *args)[0], frule((NoTangent(), *map(np.ones_like, args)), f, *args)[0]):
                    assert type(got) is type(want)
                    np.testing.assert_array_equal(got, want, strict=True)
