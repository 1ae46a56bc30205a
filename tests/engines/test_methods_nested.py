"""Every ndarray method the engines accept works in every nested pass, as its numpy function does.

The method list is the engine's own: the methods of ``np.ndarray`` with
rules of their own, and those it answers through the numpy function of the
same meaning (``_METHOD_FUNCTIONS``, ``_VARARG_METHODS``). Each program
calls one method on a computed array (``(sin(x) * x).mean(axis=0)``) and is
differentiated twice, in every nesting (``hessian``, ``hvp`` in both modes,
``jacobian`` of ``gradient``, ``gradient`` of ``gradient``), against the same
program written with numpy's function (``np.mean(sin(x) * x, axis=0)``).
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

import chainrules.engines as ad
from chainrules.engines._box import _METHOD_FUNCTIONS, _VARARG_METHODS
from chainrules_core import rrule

_ONES = np.ones((3, 2))

# method name -> (positional arguments, keyword arguments, numpy's function of the same call)
CALLS = {
    "sum": ((), {"axis": 0}, np.sum),
    "mean": ((), {}, np.mean),
    "prod": ((), {"axis": 1}, np.prod),
    "max": ((), {"axis": 1}, np.max),
    "min": ((), {}, np.min),
    "std": ((), {"axis": 0}, np.std),
    "var": ((), {}, np.var),
    "cumsum": ((), {"axis": 1}, np.cumsum),
    "cumprod": ((), {"axis": 0}, np.cumprod),
    "diagonal": ((), {}, np.diagonal),
    "trace": ((), {}, np.trace),
    "ravel": ((), {}, np.ravel),
    "flatten": ((), {}, np.ravel),
    "copy": ((), {}, np.copy),
    "repeat": ((2,), {"axis": 0}, np.repeat),
    "reshape": ((3, 2), {}, lambda y, *shape: np.reshape(y, shape)),
    "transpose": ((1, 0), {}, lambda y, *axes: np.transpose(y, axes)),
    "swapaxes": ((0, 1), {}, np.swapaxes),
    "squeeze": ((), {}, np.squeeze),
    "take": (([0, 2, 2],), {"axis": 1}, np.take),
    "compress": (([True, False, True],), {"axis": 1}, lambda y, c, axis: np.compress(c, y, axis=axis)),
    "clip": ((-0.1, 0.4), {}, np.clip),
    "round": ((), {}, np.round),
    "conj": ((), {}, np.conj),
    "conjugate": ((), {}, np.conjugate),
    "dot": ((_ONES,), {}, np.dot),
    "astype": ((np.float64,), {}, np.astype),
    "__getitem__": (((slice(None), 1),), {}, operator.getitem),
}

# methods with integer or boolean outputs: read an array at what they give
SELECTIONS = {
    "argmax": (lambda y: y.ravel()[y.argmax()], lambda y: np.ravel(y)[np.argmax(y)]),
    "argmin": (lambda y: y[:, y.argmin(axis=1)], lambda y: y[:, np.argmin(y, axis=1)]),
    "argsort": (lambda y: y[0][y[0].argsort()], lambda y: y[0][np.argsort(y[0])]),
    "argpartition": (lambda y: y[1][y[1].argpartition(1)], lambda y: y[1][np.argpartition(y[1], 1)]),
    "nonzero": (lambda y: y[(y > 0.1).nonzero()], lambda y: y[np.nonzero(y > 0.1)]),
    "searchsorted": (
        lambda y: y[0][np.sort(y[0]).searchsorted(0.2) % 3],
        lambda y: y[0][np.searchsorted(np.sort(y[0]), 0.2) % 3],
    ),
    "all": (lambda y: y.sum() * (y > -5).all(), lambda y: np.sum(y) * np.all(y > -5)),
    "any": (lambda y: y.sum() * (y > 5).any(), lambda y: np.sum(y) * np.any(y > 5)),
}


def engine_methods() -> set[str]:
    """The ndarray methods the first-order engine accepts: those with rules, and those it maps to functions."""
    ruled = {
        r.primal.__name__
        for r in rrule.records()
        if getattr(r.primal, "__objclass__", None) is np.ndarray and r.kind != "refusal"
    }
    return ruled | set(_METHOD_FUNCTIONS) | set(_VARARG_METHODS)


def test_every_method_of_the_engine_is_checked_here():
    assert engine_methods() <= set(CALLS) | set(SELECTIONS)


def _programs(name: str):
    def inner(x):
        return np.sin(x) * x + 0.5

    def finish(y):
        return np.sum(y * y * y)

    if name in SELECTIONS:
        by_method, by_function = SELECTIONS[name]
        return (lambda x: finish(by_method(inner(x)))), (lambda x: finish(by_function(inner(x))))
    args, kwargs, function = CALLS[name]
    return (
        lambda x: finish(getattr(inner(x), name)(*args, **kwargs)),
        lambda x: finish(function(inner(x), *args, **kwargs)),
    )


X = np.array([[0.3, -0.7, 1.1], [0.9, 0.2, -0.4]])
V = np.array([[1.0, 0.5, -0.25], [2.0, -1.0, 0.75]])


@pytest.mark.parametrize("name", sorted(set(CALLS) | set(SELECTIONS)))
def test_method_at_order_two(name):
    by_method, by_function = _programs(name)
    np.testing.assert_allclose(ad.hessian(by_method, X), ad.hessian(by_function, X), rtol=1e-12, atol=1e-13)
    for mode in ("forward-over-reverse", "reverse-over-reverse"):
        got = ad.hvp(by_method, (X,), (V,), mode=mode)[1][0]
        want = ad.hvp(by_function, (X,), (V,), mode=mode)[1][0]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)
    jac_of_grad = ad.jacobian(lambda x: ad.gradient(by_method, x)[0], X)
    np.testing.assert_allclose(jac_of_grad, ad.jacobian(lambda x: ad.gradient(by_function, x)[0], X), atol=1e-12)

    def grad_norm(f):
        return lambda x: np.sum(ad.gradient(f, x)[0] ** 2)

    got = ad.gradient(grad_norm(by_method), X)[0]
    np.testing.assert_allclose(got, ad.gradient(grad_norm(by_function), X)[0], rtol=1e-12, atol=1e-12)
