"""A function wrapped by chainrules.interop against the framework's own op, in PyTorch, JAX and autograd.

For each framework, op and size, the framework's own op is the baseline: the
table gives its time for the value and gradient of ``sum(op(x))`` and the
wrapped op's time as a ratio to it, then the same for a JVP (forward mode;
autograd has none for ``solve``). JAX's functions are compiled with
``jax.jit`` first, so its ratios include the host round trip of the
callbacks and, in reverse mode, the second evaluation of the primal.

``sin`` runs on vectors of 1e2 and 1e6 entries, ``solve`` on n×n systems
with one right-hand side (n = 8 and 512), everything in float64, on one
thread (BLAS, PyTorch's intra-op threads). A framework that is not installed
is skipped.

Run: python benchmarks/bench_interop.py [torch] [jax] [autograd] [torch-native] [jax-native]

``torch-native`` compares the native path with hand-written ``autograd.Function`` s (``torch_native``).

JAX's native path (``jax-native``): ``jax.jit(jax.grad(...))`` of ``sum(sin(x))``
with ``np.sum`` and ``np.sin`` both wrapped (their rules are generic: traced by
JAX, no callback) against the same in ``jax.numpy``, at 1e2 and 1e6 entries;
beside it, the host path (``path="host"``) against a hand-written
``jax.custom_vjp`` of two bare ``jax.pure_callback`` (``np.sin``, then
``np.cos`` times the seed), the host round trip's floor, under ``jit(grad)`` and under ``jit(value_and_grad)``
(under ``grad`` alone XLA drops the bare forward callback as dead code, which a rule's backward pass, whose
``rrule`` computes the primal, cannot match).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import importlib.util  # noqa: E402 - after the thread settings, which the libraries read when imported
import sys  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

import chainrules  # noqa: E402, F401 - registers the rules

from timing import best_time, format_time, table  # noqa: E402

ROUNDS = 3
SIZES = {"sin": (100, 1_000_000), "solve": (8, 512)}


def _inputs(op: str, n: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(0)
    if op == "sin":
        return (rng.normal(size=n),)
    return (rng.normal(size=(n, n)) + n * np.eye(n), rng.normal(size=n))


def _torch() -> dict[str, Callable[..., Any]]:
    import torch

    from chainrules.interop.torch import wrap

    torch.set_num_threads(1)
    ops = {"sin": (np.sin, torch.sin), "solve": (np.linalg.solve, torch.linalg.solve)}

    def calls(op: str, arrays: tuple[np.ndarray, ...]) -> dict[str, Callable[[], Any]]:
        ours, theirs = wrap(ops[op][0]), ops[op][1]
        leaves = [torch.from_numpy(a).requires_grad_() for a in arrays]
        dots = [torch.ones_like(leaf) for leaf in leaves]

        def gradient(g: Any) -> Callable[[], Any]:
            return lambda: torch.autograd.grad(g(*leaves).sum(), leaves)

        def jvp(g: Any) -> Callable[[], Any]:
            plain = [leaf.detach() for leaf in leaves]
            return lambda: torch.func.jvp(g, tuple(plain), tuple(dots))

        return {"grad": gradient(theirs), "grad wrapped": gradient(ours), "jvp": jvp(theirs), "jvp wrapped": jvp(ours)}

    return calls


def _jax() -> dict[str, Callable[..., Any]]:
    import jax
    import jax.numpy as jnp

    from chainrules.interop.jax import wrap

    jax.config.update("jax_enable_x64", True)
    ops = {"sin": (np.sin, jnp.sin), "solve": (np.linalg.solve, jnp.linalg.solve)}

    def calls(op: str, arrays: tuple[np.ndarray, ...]) -> dict[str, Callable[[], Any]]:
        values = [jnp.asarray(a) for a in arrays]
        dots = [jnp.ones_like(v) for v in values]
        argnums = tuple(range(len(values)))

        def gradient(g: Any) -> Callable[[], Any]:
            step = jax.jit(jax.value_and_grad(lambda *xs: g(*xs).sum(), argnums=argnums))
            return lambda: jax.block_until_ready(step(*values))

        def jvp(g: Any) -> Callable[[], Any]:
            step = jax.jit(lambda *xs: jax.jvp(g, xs, tuple(dots)))
            return lambda: jax.block_until_ready(step(*values))

        native = ops[op][1]
        return {
            "grad": gradient(native),
            "grad wrapped": gradient(wrap(ops[op][0])),
            "jvp": jvp(native),
            "jvp wrapped": jvp(wrap(ops[op][0], mode="forward")),
        }

    return calls


def _autograd() -> dict[str, Callable[..., Any]]:
    import autograd
    import autograd.numpy as anp

    from chainrules.interop.autograd import wrap

    ops = {"sin": (np.sin, anp.sin), "solve": (np.linalg.solve, anp.linalg.solve)}

    def calls(op: str, arrays: tuple[np.ndarray, ...]) -> dict[str, Callable[[], Any]]:
        argnum = tuple(range(len(arrays)))

        def gradient(g: Any) -> Callable[[], Any]:
            step = autograd.value_and_grad(lambda *xs: anp.sum(g(*xs)), argnum=argnum)
            return lambda: step(*arrays)

        def jvp(g: Any) -> Callable[[], Any]:
            return lambda: autograd.make_jvp(g, argnum=argnum)(*arrays)(tuple(np.ones_like(a) for a in arrays))

        found = {"grad": gradient(ops[op][1]), "grad wrapped": gradient(wrap(ops[op][0]))}
        if op == "sin":  # autograd has no forward mode for its linalg functions
            found.update({"jvp": jvp(ops[op][1]), "jvp wrapped": jvp(wrap(ops[op][0]))})
        return found

    return calls


FRAMEWORKS = {"torch": _torch, "jax": _jax, "autograd": _autograd}


# ----- torch's native path against hand-written autograd.Functions -----


def torch_native() -> None:
    """The issue's targets for torch, as a new user measures them (``.sum().backward()``, one thread, float64):

    - ``wrap(np.sin)`` (native path) against a hand-written ``autograd.Function`` calling ``torch.sin`` and
      ``torch.cos``, at 100 and 1e6 entries (target: within 1.5×);
    - the host path's fixed cost, ``wrap(scipy.special.expit)`` against a hand-written Function doing the same numpy
      round trip (``scipy.special.expit`` forward, ``y (1 - y)`` backward), at 100 entries.
    """
    import scipy.special
    import torch

    from chainrules.interop.torch import wrap

    torch.set_num_threads(1)

    class Sin(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return torch.sin(x)

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return g * torch.cos(x)

    class Expit(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            y = torch.from_numpy(scipy.special.expit(x.detach().numpy()))
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (y,) = ctx.saved_tensors
            y = y.numpy()
            return torch.from_numpy(g.numpy() * (y * (1 - y)))

    pairs = {"sin (native)": (Sin.apply, wrap(np.sin)), "expit (host)": (Expit.apply, wrap(scipy.special.expit))}
    rows = []
    for name, (hand, wrapped) in pairs.items():
        for n in (100, 1_000_000) if "native" in name else (100,):
            x = torch.from_numpy(np.random.default_rng(0).normal(size=n)).requires_grad_()

            def step(g: Any, x: Any = x) -> Callable[[], Any]:
                def run() -> None:
                    x.grad = None
                    g(x).sum().backward()

                return run

            best = {"hand": float("inf"), "wrapped": float("inf")}
            for _ in range(ROUNDS):
                for label, g in (("hand", hand), ("wrapped", wrapped)):
                    best[label] = min(best[label], best_time(step(g), min_time=0.1, repeat=3))
            rows.append(
                [
                    name,
                    wrapped.path,
                    f"{n:,}",
                    format_time(best["hand"]),
                    format_time(best["wrapped"]),
                    f"{best['wrapped'] / best['hand']:.2f}",
                ]
            )
    headers = ["op", "path", "n", "hand-written Function", "wrapped", "wrapped / hand-written"]
    print(table(headers, rows))


def jax_native() -> None:
    """jit(grad) of a wrapped sum of sin: native against jax.numpy, host against bare callbacks."""
    import jax
    import jax.numpy as jnp

    from chainrules.interop.jax import wrap

    jax.config.update("jax_enable_x64", True)
    sin, total = wrap(np.sin), wrap(np.sum)
    host_sin = wrap(np.sin, path="host")
    assert sin.path == total.path == "native" and host_sin.path == "host"

    @jax.custom_vjp
    def bare_sin(x: Any) -> Any:
        return jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="sequential")

    def bare_fwd(x: Any) -> Any:
        return bare_sin(x), x

    def bare_bwd(x: Any, g: Any) -> Any:
        out = jax.ShapeDtypeStruct(x.shape, x.dtype)
        return (jax.pure_callback(lambda x, g: np.cos(x) * g, out, x, g, vmap_method="sequential"),)

    bare_sin.defvjp(bare_fwd, bare_bwd)
    losses = {
        "jnp": lambda x: jnp.sum(jnp.sin(x)),
        "native": lambda x: total(sin(x)),
        "bare callbacks": lambda x: jnp.sum(bare_sin(x)),
        "host": lambda x: jnp.sum(host_sin(x)),
    }
    rows = []
    for n in SIZES["sin"]:
        x = jnp.asarray(_inputs("sin", n)[0])
        steps = {label: jax.jit(jax.grad(loss)) for label, loss in losses.items()}
        for label in ("bare callbacks", "host"):  # the value too: XLA keeps the forward callbacks
            steps[f"{label}, value"] = jax.jit(jax.value_and_grad(losses[label]))
        for step in steps.values():
            result = step(x)
            np.testing.assert_allclose(result[1] if isinstance(result, tuple) else result, jnp.cos(x), rtol=1e-12)
        best = {label: float("inf") for label in steps}
        for _ in range(3 * ROUNDS):  # interleaved, the best of each: the programs are the same, the noise is not
            for label, step in steps.items():
                call = lambda step=step, x=x: jax.block_until_ready(step(x))  # noqa: E731
                best[label] = min(best[label], best_time(call, min_time=0.1, repeat=3))
        rows.append(
            [
                f"{n:,}",
                format_time(best["jnp"]),
                f"{best['native'] / best['jnp']:.2f}",
                format_time(best["bare callbacks"]),
                f"{best['host'] / best['bare callbacks']:.2f}",
                format_time(best["bare callbacks, value"]),
                f"{best['host, value'] / best['bare callbacks, value']:.2f}",
            ]
        )
    headers = [
        "n",
        "jnp: jit(grad)",
        "native / jnp",
        "bare callbacks: jit(grad)",
        "host / bare callbacks",
        "bare callbacks: jit(value_and_grad)",
        "host / bare callbacks",
    ]
    print(table(headers, rows))


def main(frameworks: list[str]) -> None:
    rows = []
    if "jax-native" in frameworks:
        frameworks = [f for f in frameworks if f != "jax-native"]
        if importlib.util.find_spec("jax") is None:
            print("jax: not installed, skipped")
        else:
            jax_native()
    for name in frameworks:
        if importlib.util.find_spec(name) is None:
            print(f"{name}: not installed, skipped")
            continue
        calls_for = FRAMEWORKS[name]()
        for op, sizes in SIZES.items():
            for n in sizes:
                calls = calls_for(op, _inputs(op, n))
                best = {label: float("inf") for label in calls}
                for _ in range(ROUNDS):
                    for label, call in calls.items():
                        best[label] = min(best[label], best_time(call, min_time=0.05, repeat=2))
                row = [name, op, f"{n:,}"]
                for mode in ("grad", "jvp"):
                    if mode in best:
                        row += [format_time(best[mode]), f"{best[mode + ' wrapped'] / best[mode]:.2f}"]
                    else:
                        row += ["", ""]
                rows.append(row)
    if not rows:
        return
    headers = ["framework", "op", "n", "own: value and grad", "wrapped / own", "own: jvp", "wrapped / own"]
    print(table(headers, rows))


if __name__ == "__main__":
    asked = sys.argv[1:] or [*FRAMEWORKS, "jax-native", "torch-native"]
    frameworks = [name for name in asked if name in FRAMEWORKS or name == "jax-native"]
    if frameworks:
        main(frameworks)
    if "torch-native" in asked and importlib.util.find_spec("torch") is not None:
        torch_native()
