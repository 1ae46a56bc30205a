"""Linear-algebra pullbacks and pushforwards against their primal call.

For each function and size n, the primal ``f(*args)`` is the baseline; the
table gives the time of ``rrule`` (primal plus closure), of the pullback
(every cotangent forced), and of ``frule``, as ratios to it. A pullback is a
few primal-sized operations: matmul's is two matrix products (ratio ~2),
solve's a second solve plus an outer product (~1-2), cholesky's two
triangular solves that numpy can only do as general solves, svd's a few
matrix products on top of nothing (the decomposition is reused), eig's an
inverse and a few products, pinv's six products. einsum's
fixed cost (reading the subscripts, planning each operand's contraction)
shows at small n.

The BLAS runs on one thread and the four timings of a case are taken in
turns, round after round, keeping each one's best: on a shared machine the
ratios then compare like with like.

Run: python benchmarks/bench_linalg.py [n ...]

``--floor`` gives instead the gradients of ``solve`` (A and B n x n),
``inv``, ``cholesky``, ``det`` and ``slogdet`` (its ``logabsdet``; both with
a scalar seed) (``rrule`` and the pullback, every cotangent forced) as
ratios to the hand-written numpy primal plus gradient, defined as
perf_bench.py (docs/benchmarks.md) defines them (``det``'s and
``slogdet``'s, which it has not, in the same style: ``d = det(A)``,
``A_bar = g d inv(A)^T``), measured in alternation (``timing.Paired``, the
median and quartiles of per-round ratios). The rows of ``solve``, ``inv``
and ``det`` are followed by LAPACK's kernels run bare, in the same
alternation: ``det``'s as its rule runs them (``bare_det``: numpy's ``det``,
then ``getrf`` and ``getri`` for the pullback), and, for what a primal
that is not numpy's to the last bit would save, ``det`` read off the LU,
and ``solve``'s and ``inv``'s with one LU kept (``bare_solve``,
``bare_inv``: ``getrs``' solution and ``getri``'s inverse, not numpy's):

    python benchmarks/bench_linalg.py --floor [--rounds R] [n ...]   (default n: 128 512)
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import sys  # noqa: E402 - after the thread settings, which numpy reads when imported
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

import chainrules  # noqa: E402, F401 - registers the rules
from chainrules_core import NoTangent, frule, rrule, unthunk  # noqa: E402

from timing import best_time, format_time, mode_arguments, table  # noqa: E402

ROUNDS = 5


def _spd(rng: np.random.Generator, n: int) -> np.ndarray:
    b = rng.normal(size=(n, n))
    return b @ b.T + n * np.eye(n)


def _cases(n: int) -> list[tuple[str, Callable[..., Any], tuple[Any, ...], dict[str, Any]]]:
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(n, n)), rng.normal(size=(n, n))
    return [
        ("matmul", np.matmul, (a, b), {}),
        ("solve", np.linalg.solve, (a + n * np.eye(n), b), {}),
        ("cholesky", np.linalg.cholesky, (_spd(rng, n),), {}),
        ("svd", np.linalg.svd, (a,), {"full_matrices": False}),
        ("eig", np.linalg.eig, (a,), {}),
        ("pinv", np.linalg.pinv, (a[:, : n // 2],), {}),
        ("einsum ij,jk->ik", np.einsum, ("ij,jk->ik", a, b), {}),
        ("einsum ij,ij->i", np.einsum, ("ij,ij->i", a, b), {}),
    ]


def _force(cotangents: tuple[Any, ...]) -> None:
    for c in cotangents:
        unthunk(c)


def _seed(out: Any, rng: np.random.Generator) -> Any:
    if isinstance(out, tuple):
        return tuple(rng.normal(size=np.shape(o)) for o in out)
    return rng.normal(size=np.shape(out))


def _tangent(x: Any, rng: np.random.Generator) -> Any:
    return NoTangent() if isinstance(x, str) else rng.normal(size=np.shape(x))


# ----- against the hand-written floor: perf_bench.py's baselines, as it defines them (det's and slogdet's alike) -----


def _chol_grad(low: np.ndarray, gl: np.ndarray) -> np.ndarray:
    """The pullback of a Cholesky factorisation by hand (two triangular solves), symmetric."""
    from scipy.linalg import solve_triangular

    phi = np.tril(low.T @ gl)
    phi[np.diag_indices_from(phi)] *= 0.5
    inner = solve_triangular(low, phi.T, lower=True, trans="T", check_finite=False).T  # phi L^{-1}
    s = solve_triangular(low, inner, lower=True, trans="T", check_finite=False)  # L^{-T} phi L^{-1}
    return 0.5 * (s + s.T)


def h_solve(a: np.ndarray, b: np.ndarray, g: np.ndarray) -> Any:
    y = np.linalg.solve(a, b)
    gb = np.linalg.solve(a.T, g)
    return y, (-gb @ y.T, gb)


def h_inv(a: np.ndarray, g: np.ndarray) -> Any:
    ai = np.linalg.inv(a)
    return ai, (-(ai.T @ g @ ai.T),)


def h_det(a: np.ndarray, g: float) -> Any:
    d = np.linalg.det(a)
    return d, (g * d * np.linalg.inv(a).T,)


def h_slogdet(a: np.ndarray, g: float) -> Any:
    out = np.linalg.slogdet(a)
    return out, (g * np.linalg.inv(a).T,)


def bare_det(a: np.ndarray, g: float, numpy_primal: bool = True) -> Any:
    """``det`` and its gradient by LAPACK's kernels alone, as ``det``'s rule runs them (numpy's ``det`` for the
    primal, ``getrf``, ``getri`` on the factors, one scaling): what bounds the rule. ``numpy_primal=False`` reads
    the determinant off scipy's LU instead (the rule's way where scipy's LAPACK is numpy's build, one
    factorization fewer; elsewhere its last bits are not numpy's)."""
    from scipy.linalg import get_lapack_funcs

    getrf, getri, getri_lwork = get_lapack_funcs(("getrf", "getri", "getri_lwork"), (a,))
    lu, piv, _ = getrf(a)
    if numpy_primal:
        det = np.linalg.det(a)
    else:
        d = np.diagonal(lu)
        flips = np.count_nonzero(piv != np.arange(piv.size)) + np.count_nonzero(d < 0)
        det = (-1.0) ** flips * np.exp(np.sum(np.log(np.abs(d))))
    inv, _ = getri(lu, piv, lwork=int(getri_lwork(a.shape[0])[0].real), overwrite_lu=True)
    inv *= g * det
    return det, (inv.T,)


def bare_solve(a: np.ndarray, b: np.ndarray, g: np.ndarray) -> Any:
    """``solve``'s gradient by LAPACK's kernels alone with one LU kept: one ``getrf``, ``getrs`` for x and with
    ``A^T`` for ``B_bar``, one product. Not the rule's way: its x is not numpy's ``solve`` to the last bit (``gesv``
    splits its work otherwise), so the rule solves twice; this shows what that costs."""
    from scipy.linalg import get_lapack_funcs

    getrf, getrs = get_lapack_funcs(("getrf", "getrs"), (a,))
    lu, piv, _ = getrf(a)
    x, _ = getrs(lu, piv, b)
    gb, _ = getrs(lu, piv, g, trans=1)
    a_bar = gb @ x.T
    return x, (np.negative(a_bar, out=a_bar), gb)


def bare_inv(a: np.ndarray, g: np.ndarray) -> Any:
    """``inv``'s gradient by LAPACK's kernels alone (``getrf``, ``getri``) and the pullback's two products. Not the
    rule's way: ``getri``'s inverse is not numpy's ``inv`` (a solve with the identity) to the last bit, so the rule
    takes numpy's; this shows what that costs."""
    from scipy.linalg import get_lapack_funcs

    getrf, getri, getri_lwork = get_lapack_funcs(("getrf", "getri", "getri_lwork"), (a,))
    lu, piv, _ = getrf(a)
    inv, _ = getri(lu, piv, lwork=int(getri_lwork(a.shape[0])[0].real), overwrite_lu=True)
    a_bar = inv.T @ g @ inv.T
    return inv, (np.negative(a_bar, out=a_bar),)


def h_chol(a: np.ndarray, g: np.ndarray) -> Any:
    low = np.linalg.cholesky(a)
    return low, (_chol_grad(low, g),)


def _gradient(f: Callable[..., Any], *args: Any) -> Callable[[], Any]:
    """``rrule`` and the pullback of the seed ``args[-1]``, every cotangent forced."""

    def run() -> Any:
        _, pullback = rrule(f, *args[:-1])
        return _force(pullback(args[-1]))

    return run


def floor(sizes: list[int], rounds: int) -> None:
    from timing import Paired

    rows = []
    for n in sizes:
        rng = np.random.default_rng(0)
        a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
        a_well = a / np.sqrt(n) + 2.0 * np.eye(n)  # perf_bench's matrices
        c = rng.standard_normal((n, n))
        spd = c @ c.T / n + np.eye(n)
        g = rng.standard_normal((n, n))
        g_det = rng.standard_normal()
        pairs = {
            "solve(A, B)": (_gradient(np.linalg.solve, a_well, b, g), lambda: h_solve(a_well, b, g)),  # noqa: B023
            "inv": (_gradient(np.linalg.inv, a_well, g), lambda: h_inv(a_well, g)),  # noqa: B023
            "cholesky": (_gradient(np.linalg.cholesky, spd, g), lambda: h_chol(spd, g)),  # noqa: B023
            "det": (_gradient(np.linalg.det, a_well, g_det), lambda: h_det(a_well, g_det)),  # noqa: B023
            "slogdet": (
                _gradient(np.linalg.slogdet, a_well, (0.0, g_det)),
                lambda: h_slogdet(a_well, g_det),  # noqa: B023
            ),
        }
        bare = {
            "solve(A, B)": {"getrf + 2 getrs + product, x not numpy's": lambda: bare_solve(a_well, b, g)},  # noqa: B023
            "inv": {"getrf + getri + 2 products, inverse not numpy's": lambda: bare_inv(a_well, g)},  # noqa: B023
            "det": {
                "det + getrf + getri": lambda: bare_det(a_well, g_det),  # noqa: B023
                "getrf + getri, det off the LU": lambda: bare_det(a_well, g_det, numpy_primal=False),  # noqa: B023
            },
        }
        for name, (ours, hand) in pairs.items():
            kernels = bare.get(name, {})
            paired = Paired({"chainrules": ours, "hand": hand, **kernels}, "hand", rounds=rounds, batch_time=0.05)
            rows.append((f"{name} gradient", n, format_time(paired.median("hand")), paired.spread("chainrules")))
            rows.extend((f"{name}: bare {label}", n, "", paired.spread(label)) for label in kernels)
    print(table(["function", "n", "hand-written", "chainrules / hand-written (quartiles)"], rows))


def main(sizes: list[int]) -> None:
    rows = []
    for n in sizes:
        for name, f, args, kwargs in _cases(n):
            rng = np.random.default_rng(1)
            out, pullback = rrule(f, *args, **kwargs)
            seed = _seed(out, rng)
            tangents = (NoTangent(), *(_tangent(x, rng) for x in args))
            calls = {
                "primal": lambda f=f, args=args, kwargs=kwargs: f(*args, **kwargs),
                "rrule": lambda f=f, args=args, kwargs=kwargs: rrule(f, *args, **kwargs),
                "pullback": lambda pullback=pullback, seed=seed: _force(pullback(seed)),
                "frule": lambda f=f, args=args, kwargs=kwargs, t=tangents: frule(t, f, *args, **kwargs),
            }
            best = {name: float("inf") for name in calls}
            for _ in range(ROUNDS):
                for label, call in calls.items():
                    best[label] = min(best[label], best_time(call, min_time=0.05, repeat=2))
            primal, t_rrule, t_pullback, t_frule = best.values()
            rows.append(
                (
                    name,
                    n,
                    format_time(primal),
                    f"{t_rrule / primal:.2f}",
                    f"{t_pullback / primal:.2f}",
                    f"{t_frule / primal:.2f}",
                )
            )
    print(table(["function", "n", "primal", "rrule / primal", "pullback / primal", "frule / primal"], rows))


if __name__ == "__main__":
    given, rounds, sizes = mode_arguments(sys.argv[1:], "--floor")
    if given:
        floor(sizes or [128, 512], rounds)
    else:
        main(sizes or [64, 512])
