"""Gradients and Hessian-vector products of generalized linear models over a dask cluster.

The three losses that dask-glm fits (logistic, normal and Poisson regression)
are written here as a user would, with numpy's functions on the arrays
(``np.dot``, ``np.logaddexp``, ``np.sum``). ``X`` and ``y`` are dask arrays
of ``--rows`` rows (a million by default) in chunks spread over a
``dask.distributed.LocalCluster`` of two workers; the coefficients ``beta``
are a small numpy array. The reference engines differentiate the losses:
every rule computes in dask, lazily, so the gradient and the Hessian-vector
products are dask arrays, computed on the cluster when asked. They equal
dask-glm's hand-written ``pointwise_gradient`` and ``hessian``, and
a gradient descent driven by the engine's gradient reaches the coefficients
of dask-glm's own ``gradient_descent``.

dask-glm's ``pointwise_loss`` computes ``X.dot(beta)``, a dask method that
makes ``beta`` a dask array of its own (``da.from_array``): the engine
cannot follow a value dask takes in, and says so naming the call, rather
than return a zero gradient. ``np.dot(X, beta)`` or ``X @ beta`` is followed.

Run: python examples/distributed_glm.py [--rows 1000000] [--features 5]
(needs ``pip install 'chainrules[dask]'``; benchmarks/bench_distributed.py times
the gradient against dask-glm's.)
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import dask
import dask.array as da
import numpy as np
from dask.distributed import Client, LocalCluster
from dask_glm.algorithms import gradient_descent as dask_glm_gradient_descent
from dask_glm.families import Logistic, Normal, Poisson

import chainrules  # noqa: F401 - registers the rules
import chainrules.engines as ad


def logistic_loss(beta: Any, X: Any, y: Any) -> Any:
    """The negative log-likelihood of logistic regression: sum(log(1 + exp(Xb))) - y.Xb."""
    Xb = np.dot(X, beta)
    return np.sum(np.logaddexp(0.0, Xb)) - np.dot(y, Xb)


def normal_loss(beta: Any, X: Any, y: Any) -> Any:
    """The residual sum of squares of linear regression."""
    return np.sum((y - np.dot(X, beta)) ** 2)


def poisson_loss(beta: Any, X: Any, y: Any) -> Any:
    """The negative log-likelihood of Poisson regression, without its constant: sum(exp(Xb) - y Xb)."""
    Xb = np.dot(X, beta)
    return np.sum(np.exp(Xb) - y * Xb)


FAMILIES: dict[str, tuple[Callable[..., Any], Any]] = {
    "logistic": (logistic_loss, Logistic),
    "normal": (normal_loss, Normal),
    "poisson": (poisson_loss, Poisson),
}


def make_data(rows: int, features: int, family: str, chunk: int, seed: int = 0) -> tuple[Any, Any, np.ndarray]:
    """A design ``X`` (dask, ``chunk`` rows a chunk), responses ``y`` of the family, and the true coefficients."""
    rng = da.random.default_rng(seed)
    X = rng.normal(size=(rows, features), chunks=(chunk, features)) / np.sqrt(features)
    beta = np.linspace(-1.0, 1.0, features)
    Xb = X @ beta
    if family == "logistic":
        y = (rng.uniform(size=rows, chunks=chunk) < 1 / (1 + da.exp(-Xb))).astype(float)
    elif family == "normal":
        y = Xb + rng.normal(size=rows, chunks=chunk)
    else:
        y = rng.poisson(da.exp(Xb)).astype(float)
    return X.persist(), y.persist(), beta


def gradient_of(loss: Callable[..., Any], X: Any, y: Any) -> Callable[[np.ndarray], Any]:
    """``beta -> gradient of loss(beta, X, y)``, a lazy dask array."""
    return lambda beta: ad.gradient(lambda b: loss(b, X, y), beta)[0]


def hvp_of(loss: Callable[..., Any], X: Any, y: Any) -> Callable[[np.ndarray, np.ndarray], Any]:
    """``(beta, v) -> H(beta) v``, forward over reverse, a lazy dask array."""
    return lambda beta, v: ad.hvp(lambda b: loss(b, X, y), (beta,), (v,))[1][0]


def gradient_descent(
    loss: Callable[..., Any], X: Any, y: Any, features: int, max_iter: int = 100, tol: float = 1e-14
) -> np.ndarray:
    """Gradient descent with dask-glm's backtracking line search (Armijo), driven by the engine's gradient."""
    value_and_gradient = ad.value_and_gradient
    beta = np.zeros(features)
    step, backtrack = 1.0, 0.1
    value, (grad,) = dask.compute(*value_and_gradient(lambda b: loss(b, X, y), beta))
    for _ in range(max_iter):
        for _ in range(100):  # shrink the step until the loss falls enough
            candidate = beta - step * grad
            new_value = float(dask.compute(loss(candidate, X, y))[0])
            if value - new_value >= 0.1 * step * float(grad @ grad):
                break
            step *= backtrack
        else:
            return beta
        beta, change = candidate, (value - new_value) / max(value, new_value)
        value, (grad,) = dask.compute(*value_and_gradient(lambda b: loss(b, X, y), beta))
        if change < tol:
            break
        step *= 1.25
        backtrack = 0.5
    return beta


def pointwise_loss_refused(name: str, family: Any, X: Any, y: Any, beta: np.ndarray) -> bool:
    """Whether the engine refuses dask-glm's own ``pointwise_loss`` (``X.dot(beta)`` takes ``beta`` in as a dask
    chunk), printing the error that names the call; a gradient it gave would be checked against dask-glm's."""
    try:
        grad = ad.gradient(lambda b: family.pointwise_loss(b, X, y), beta)[0]
    except TypeError as err:
        print(f"{name}: dask-glm's own pointwise_loss: {str(err).split(';')[0]}")
        return True
    assert relative_error(*dask.compute(grad, family.pointwise_gradient(beta, X, y))) < 1e-10
    return False


def relative_error(a: Any, b: Any) -> float:
    a, b = np.asarray(a), np.asarray(b)
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


def main(rows: int, features: int, chunk: int, fit_rows: int) -> dict[str, dict[str, float]]:
    report: dict[str, dict[str, float]] = {}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster):
            for name, (loss, family) in FAMILIES.items():
                X, y, beta_true = make_data(rows, features, name, chunk)
                beta = beta_true * 0.5
                v = np.cos(np.arange(features, dtype=float))

                grad = gradient_of(loss, X, y)(beta)
                assert isinstance(grad, da.Array), "the gradient stays a lazy dask array"
                hv = hvp_of(loss, X, y)(beta, v)
                ours_grad, ours_hv = dask.compute(grad, hv)
                theirs_grad = dask.compute(family.pointwise_gradient(beta, X, y))[0]
                theirs_hv = dask.compute(family.hessian(X.dot(beta), X))[0] @ v
                entry = {
                    "gradient": relative_error(ours_grad, theirs_grad),
                    "hvp": relative_error(ours_hv, theirs_hv),
                }
                entry["pointwise_loss refused"] = float(pointwise_loss_refused(name, family, X, y, beta))
                Xf, yf = X[:fit_rows], y[:fit_rows]
                start = time.perf_counter()
                ours = gradient_descent(loss, Xf, yf, features)
                entry["fit seconds"] = time.perf_counter() - start
                theirs = dask.compute(
                    dask_glm_gradient_descent(Xf, yf, family=family, normalize=False, max_iter=100, tol=1e-14)
                )[0]
                entry["fit"] = relative_error(ours, theirs)
                report[name] = entry
                print(
                    f"{name}: gradient {entry['gradient']:.1e}, hvp {entry['hvp']:.1e} from dask-glm's; "
                    f"gradient descent {entry['fit']:.1e} from dask-glm's coefficients"
                )
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=5)
    parser.add_argument("--chunk", type=int, default=125_000)
    parser.add_argument("--fit-rows", type=int, default=100_000)
    args = parser.parse_args()
    main(args.rows, args.features, args.chunk, args.fit_rows)
