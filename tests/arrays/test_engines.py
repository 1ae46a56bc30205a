"""The reference engines on other libraries' arrays: the same programs, the same derivatives, in the library.

Each program runs on numpy arrays and again on the same values as arrays of
torch, JAX, dask and array-api-strict: ``gradient``, ``forward``, ``jvp``,
``hessian`` and ``hvp`` must give numpy's numbers as arrays of that library
(dask's still lazy). Programs come in two styles: numpy's functions on the
arrays (``np.sum(np.sin(x) * w)``), and the Array API's, through the
namespace the arrays give (``xp = x.__array_namespace__()``). A value a
library takes in as its own (dask's ``X.dot(beta)``) raises naming the call.

array-api-strict runs the first-order passes alone: its operators raise
``TypeError`` for an operand of a type they do not know, where the others
return ``NotImplemented`` and let Python ask the other operand, so a pullback
that multiplies one of its arrays by an outer pass's value fails there (with
that ``TypeError``, never a wrong number).
"""

from __future__ import annotations

import importlib
import importlib.util

import numpy as np
import pytest

import chainrules.engines as ad
from chainrules.testing.libraries import LIBRARIES, RTOL

ENGINE_LIBRARIES = ["array_api_strict", "torch", "jax", "dask"]


def _library(name: str):
    library = LIBRARIES[name]
    if not library.available():
        pytest.skip(library.why_not())
    library.setup()
    return library


W = np.array([0.3, -1.2, 0.7, 2.0])
A = np.array([[2.0, 0.5, 0.0, 0.1], [0.5, 1.5, 0.2, 0.0], [0.0, 0.2, 1.0, 0.3]])


def numpy_style(x, a, w):
    """A loss from numpy's functions on the arrays: elementwise, a product, reductions, indexing, a norm."""
    z = np.matmul(a, np.tanh(x) * w)
    return np.sum(np.logaddexp(0.0, z)) + 0.5 * np.vecdot(x, x) + np.max(x) * np.mean(np.exp(-x)) + x[1] * z[0]


def array_api_style(x, a, w):
    """The same kind of loss through the namespace of the arrays: ``xp = x.__array_namespace__()``."""
    xp = x.__array_namespace__()
    z = xp.matmul(a, xp.tanh(x) * w)
    return xp.sum(xp.logaddexp(xp.zeros_like(z), z)) + xp.linalg.vector_norm(x) ** 2 + xp.prod(xp.cos(x[:2]))


PROGRAMS = {"numpy": numpy_style, "array_api": array_api_style}


def _close(library, want, got, what):
    assert library.kind(got), f"{what}: a {type(got).__module__}.{type(got).__name__}, not an array of {library.name}"
    got = library.read(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    scale = float(np.max(np.abs(want))) or 1.0
    assert np.max(np.abs(got - want)) <= RTOL["float64"] * scale, (what, got, want)


@pytest.mark.parametrize("style", sorted(PROGRAMS))
@pytest.mark.parametrize("name", ENGINE_LIBRARIES)
def test_gradient_hvp_and_hessian_on_library(name, style):
    library = _library(name)
    program = PROGRAMS[style]
    x = np.array([0.4, -0.3, 1.1, 0.2])
    v = np.array([1.0, 0.5, -0.25, 2.0])
    a, w = library.convert(A), library.convert(W)
    xl, vl = library.convert(x), library.convert(v)

    want = ad.gradient(lambda x: program(x, A, W), x)[0]
    got = ad.gradient(lambda x: program(x, a, w), xl)[0]
    if name == "dask":
        assert library.kind(got), "the gradient stays a lazy dask array"
    _close(library, want, got, "gradient")
    if name == "array_api_strict":
        with pytest.raises(TypeError):
            ad.hvp(lambda x: program(x, a, w), (xl,), (vl,))
        return

    want_hv = ad.hvp(lambda x: program(x, A, W), (x,), (v,))[1][0]
    got_hv = ad.hvp(lambda x: program(x, a, w), (xl,), (vl,))[1][0]
    _close(library, want_hv, got_hv, "hvp")
    want_rr = ad.hvp(lambda x: program(x, A, W), (x,), (v,), mode="reverse-over-reverse")[1][0]
    got_rr = ad.hvp(lambda x: program(x, a, w), (xl,), (vl,), mode="reverse-over-reverse")[1][0]
    _close(library, want_rr, got_rr, "hvp, reverse over reverse")

    _close(library, ad.hessian(lambda x: program(x, A, W), x), ad.hessian(lambda x: program(x, a, w), xl), "hessian")


@pytest.mark.parametrize("name", ENGINE_LIBRARIES)
def test_forward_and_jvp_of_an_array_output_on_library(name):
    library = _library(name)
    x = np.array([[0.4, -0.3], [1.1, 0.2]])
    t = np.array([[1.0, 0.5], [-0.25, 2.0]])
    s = np.array([[0.5, -1.0], [2.0, 0.25]])

    def f(x):
        return np.exp(np.matmul(x, x)) * np.sin(x) - np.sum(x, axis=0)

    xl, tl, sl = library.convert(x), library.convert(t), library.convert(s)
    y, back = ad.forward(f, x)
    yl, backl = ad.forward(f, xl)
    _close(library, y, yl, "forward's output")
    _close(library, back(s)[0], backl(sl)[0], "forward's cotangent")
    _close(library, ad.jvp(f, (x,), (t,))[1], ad.jvp(f, (xl,), (tl,))[1], "jvp")


def test_a_zero_dimensional_dask_output_is_a_scalar_output():
    library = _library("dask")
    x = np.array([0.5, 1.5, -2.0])
    xl = library.convert(x)
    y, (g,) = ad.value_and_gradient(lambda x: np.sum(np.sin(x)), xl)
    assert library.kind(y) and y.shape == () and library.kind(g)
    _close(library, np.cos(x), g, "gradient")


def test_a_numpy_argument_meeting_dask_arrays_gets_a_lazy_cotangent():
    library = _library("dask")
    X = library.convert(A)
    beta = np.array([0.1, -0.2, 0.3, 0.4])
    g = ad.gradient(lambda b: np.sum(np.exp(np.dot(X, b))), beta)[0]
    assert library.kind(g), "the cotangent of beta stays a dask array: converting it would compute it"
    _close(library, A.T @ np.exp(A @ beta), g, "gradient")


def test_dask_taking_a_followed_value_in_raises_naming_the_call():
    library = _library("dask")
    X = library.convert(A)
    with pytest.raises(TypeError, match=r"dask\.array\.core\.Array\.dot"):
        ad.gradient(lambda b: np.sum(X.dot(b)), np.ones(4))


@pytest.mark.skipif(importlib.util.find_spec("dask_glm") is None, reason="dask-glm is not installed")
def test_dask_glm_pointwise_loss_raises_rather_than_a_zero_gradient():
    library = _library("dask")
    families = importlib.import_module("dask_glm.families")
    X, y = library.convert(A), library.convert(np.array([1.0, 0.0, 1.0]))
    with pytest.raises(TypeError, match=r"Array\.dot"):
        ad.gradient(lambda b: families.Logistic.pointwise_loss(b, X, y), np.zeros(4))
