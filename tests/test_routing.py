"""scipy's routed namespaces: calls with followed values reach the rules, or name the function that has none."""

from __future__ import annotations

import importlib
import inspect
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("scipy")

import scipy.cluster.hierarchy
import scipy.cluster.vq
import scipy.differentiate
import scipy.fft
import scipy.fftpack
import scipy.integrate
import scipy.interpolate
import scipy.linalg
import scipy.ndimage
import scipy.odr
import scipy.optimize
import scipy.signal
import scipy.signal.windows
import scipy.sparse
import scipy.sparse.csgraph
import scipy.sparse.linalg
import scipy.spatial
import scipy.spatial.distance
import scipy.spatial.transform
import scipy.special
import scipy.stats

import chainrules.engines as ad
from chainrules import NoRuleError, NoTangent, frule, rrule
from chainrules.routing import LIBRARIES, routed, unrouted

A = np.array([[0.3, 0.2, 0.0], [0.1, -0.2, 0.4], [0.0, 0.3, 0.1]])
P = np.array([1.0, 0.5, 2.0])


def central_difference(f, x, h=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


@pytest.mark.parametrize(
    "loss",
    [
        lambda a: np.sum(scipy.linalg.expm(a)),
        lambda a: np.sum(scipy.linalg.solve(a + 2 * np.eye(3), np.ones(3))),
        lambda a: np.sum(scipy.fft.dct(a[0]) ** 2),
        lambda a: scipy.special.logsumexp(a),
    ],
    ids=["expm", "solve", "dct", "logsumexp"],
)
def test_a_function_with_rules_is_differentiated_from_plain_calls_by_both_engines(loss) -> None:
    (grad,) = ad.gradient(loss, A)
    np.testing.assert_allclose(grad, central_difference(loss, A), rtol=1e-6, atol=1e-8)
    direction = np.arange(9.0).reshape(3, 3) / 10
    _, derivative = ad.jvp(loss, (A,), (direction,))
    np.testing.assert_allclose(derivative, np.sum(grad * direction), rtol=1e-10)


def test_a_hessian_reaches_the_rules_of_routed_functions_at_second_order() -> None:
    def loss(a):
        return np.sum(scipy.linalg.expm(a) ** 2)

    hessian = ad.hessian(loss, A)  # one argument: its Hessian itself
    assert hessian.shape == (3, 3, 3, 3)
    for i in np.ndindex(A.shape):
        e = np.zeros_like(A)
        e[i] = 1e-5
        column = (ad.gradient(loss, A + e)[0] - ad.gradient(loss, A - e)[0]) / 2e-5
        np.testing.assert_allclose(hessian[i], column, rtol=1e-5, atol=1e-7)


# One function per namespace, called on a followed value, that has no rule: the error names it.
NO_RULE = {
    "scipy.integrate.solve_ivp": lambda p: scipy.integrate.solve_ivp(lambda t, y: -p[0] * y, (0, 1), [1.0]).y[0, -1],
    "scipy.integrate.quad": lambda p: scipy.integrate.quad(lambda x: np.exp(-p[0] * x**2), 0, 1)[0],
    "scipy.integrate.odeint": lambda p: scipy.integrate.odeint(lambda y, t: -p[0] * y, 1.0, [0, 1])[-1, 0],
    "scipy.optimize.root": lambda p: scipy.optimize.root(lambda z: z**3 + p[0] * z - p[1], 1.0).x[0],
    "scipy.optimize.minimize": lambda p: scipy.optimize.minimize(lambda z: np.sum((z - p) ** 2), np.zeros(3)).fun,
    "scipy.optimize.brentq": lambda p: scipy.optimize.brentq(lambda z: z - p[0], -5, 5),
    "scipy.interpolate.CubicSpline.__init__": lambda p: scipy.interpolate.CubicSpline(np.arange(3.0), p)(0.3),
    "scipy.interpolate.make_interp_spline": lambda p: scipy.interpolate.make_interp_spline(np.arange(3.0), p, k=2)(0.7),
    "scipy.ndimage.gaussian_filter": lambda p: np.sum(scipy.ndimage.gaussian_filter(p, 1.0)),
    "scipy.ndimage.map_coordinates": lambda p: np.sum(scipy.ndimage.map_coordinates(np.eye(4), [[p[0]], [p[1]]])),
    "scipy.sparse.linalg.spsolve": lambda p: np.sum(scipy.sparse.linalg.spsolve(scipy.sparse.csc_matrix(np.eye(3)), p)),
    "scipy.sparse.linalg.cg": lambda p: np.sum(scipy.sparse.linalg.cg(np.eye(3), p)[0]),
    "scipy.sparse.csr_matrix.__matmul__": lambda p: np.sum(scipy.sparse.csr_matrix(np.eye(3)) @ p),
    "scipy.stats.norm.logpdf": lambda p: scipy.stats.norm.logpdf(1.0, loc=p[0]),
    "scipy.stats.multivariate_normal.logpdf": lambda p: scipy.stats.multivariate_normal.logpdf(np.zeros(3), p),
    "scipy.spatial.distance.pdist": lambda p: np.sum(scipy.spatial.distance.pdist(np.outer(p, p))),
    "scipy.spatial.KDTree.__init__": lambda p: np.sum(scipy.spatial.KDTree(np.outer(p, p)).query(np.zeros(3))[0]),
    "scipy.spatial.transform.Rotation.from_rotvec": lambda p: np.sum(
        scipy.spatial.transform.Rotation.from_rotvec(p).as_matrix()
    ),
    "scipy.signal.sosfilt": lambda p: np.sum(scipy.signal.sosfilt([[p[0], 0, 0, 1, 0, 0]], np.ones(4))),
    "scipy.signal.windows.kaiser": lambda p: np.sum(scipy.signal.windows.kaiser(5, p[0])),
    "scipy.linalg.eig_banded": lambda p: np.sum(scipy.linalg.eig_banded(p[None, :])[0]),
    "scipy.fftpack.dct": lambda p: np.sum(scipy.fftpack.dct(p)),
    "scipy.cluster.vq.whiten": lambda p: np.sum(scipy.cluster.vq.whiten(np.outer(p, p))),
    "scipy.cluster.hierarchy.linkage": lambda p: np.sum(scipy.cluster.hierarchy.linkage(np.outer(p, p))),
    "scipy.odr.ODR.run": lambda p: (
        scipy.odr.ODR(scipy.odr.RealData(P, 2 * P), scipy.odr.Model(lambda b, x: b[0] * x), beta0=[p[0]]).run().beta[0]
    ),
    "scipy.differentiate.derivative": lambda p: scipy.differentiate.derivative(lambda x: np.sin(x * p[0]), 1.0).df,
    "scipy.sparse.csgraph.shortest_path": lambda p: np.sum(scipy.sparse.csgraph.shortest_path(np.outer(p, p))),
}


@pytest.mark.parametrize("name", list(NO_RULE))
def test_a_function_without_a_rule_raises_no_rule_error_naming_it(name: str) -> None:
    loss = NO_RULE[name]
    assert np.isfinite(loss(P))  # the plain call works
    pattern = "^" + re.escape(name) + " has no rule, and its code cannot run"
    for differentiate in (lambda: ad.gradient(loss, P), lambda: ad.jvp(loss, (P,), (np.ones(3),))):
        with pytest.raises(NoRuleError, match=pattern):
            differentiate()


def test_a_call_that_fails_on_plain_values_too_keeps_its_own_error() -> None:
    """Followed values are not to blame for an error the call makes without them."""
    with pytest.raises(ValueError, match="f\\(a\\) and f\\(b\\) must have different signs"):
        ad.gradient(lambda p: scipy.optimize.brentq(lambda z: z * z + 1.0, -1.0, 1.0) + p[0], P)
    with pytest.raises(RuntimeError, match="sequence argument must have length equal to input rank"):
        ad.gradient(lambda p: np.sum(scipy.ndimage.gaussian_filter(p, [1.0, 2.0])), P)


def test_every_public_function_of_every_routed_namespace_is_a_stand_in() -> None:
    for library in LIBRARIES:
        module = importlib.import_module(library)
        names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
        for name in names:
            value = getattr(module, name, None)
            if isinstance(value, (type, np.ufunc)) or not callable(value) or not hasattr(value, "__name__"):
                continue
            if str(getattr(unrouted(value), "__module__", "")).startswith("scipy"):
                assert unrouted(value) is not value, f"{library}.{name} is not routed"


def test_a_stand_in_keeps_the_signature_documentation_and_pickles_as_its_public_name() -> None:
    expm = scipy.linalg.expm
    original = unrouted(expm)
    assert original is not expm and routed(original) is expm and routed(expm) is expm
    assert inspect.signature(expm) == inspect.signature(original)
    assert expm.__doc__ == original.__doc__ and expm.__name__ == "expm"
    assert pickle.loads(pickle.dumps(expm)) is expm
    np.testing.assert_array_equal(expm(A), original(A))


def test_a_stand_in_is_an_alias_of_its_function_in_the_registries() -> None:
    expm = scipy.linalg.expm
    assert rrule.canonical(unrouted(expm)) is expm and rrule.canonical(expm) is expm
    y, pullback = rrule(expm, A)
    np.testing.assert_array_equal(y, rrule(unrouted(expm), A)[0])
    assert [r.primal for r in rrule.records_for(expm)] == [r.primal for r in rrule.records_for(unrouted(expm))]

    def halve_all(x):
        return scipy.special.logsumexp(x) / 2

    stand_in = scipy.integrate.trapezoid  # no rule yet: one registered for the stand-in is the function's
    try:
        rrule.register(stand_in)(lambda f, y: (f(y), lambda out_bar: (NoTangent(), np.full(len(y), out_bar))))
        assert rrule.has_rules(unrouted(stand_in)) and rrule.records_for(unrouted(stand_in))[-1].primal is stand_in
        assert ad.gradient(lambda y: stand_in(y), P)[0].tolist() == [1.0, 1.0, 1.0]
        assert frule((NoTangent(), P), stand_in, P) is None
    finally:
        rrule.register(stand_in)(lambda f, *args, **kwargs: None)  # no rule again for the other tests
    assert halve_all(P) == scipy.special.logsumexp(P) / 2


def test_a_reference_taken_before_routing_keeps_scipys_function_and_lift_reaches_its_rule() -> None:
    code = (
        "import numpy as np, scipy.linalg\n"
        "from scipy.linalg import expm\n"
        "import chainrules, chainrules.engines as ad\n"
        "a = np.array([[0.1, 0.2], [0.0, 0.3]])\n"
        "print(expm is not scipy.linalg.expm)\n"
        "try:\n"
        "    ad.gradient(lambda a: np.sum(expm(a)), a)\n"
        "except Exception as err:\n"
        "    print(type(err).__name__)\n"
        "g = ad.gradient(lambda a: np.sum(ad.lift(expm)(a)), a)[0]\n"
        "print(np.allclose(g, ad.gradient(lambda a: np.sum(scipy.linalg.expm(a)), a)[0]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "ValueError", "True"], out.stdout + out.stderr


def test_routing_happens_when_the_namespace_is_imported_after_chainrules() -> None:
    code = (
        "import chainrules, sys\n"
        "assert 'scipy' not in sys.modules\n"
        "from scipy.linalg import expm\n"
        "from chainrules.routing import unrouted\n"
        "print(unrouted(expm) is not expm)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True"], out.stdout + out.stderr
