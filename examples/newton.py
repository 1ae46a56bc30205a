"""Newton's method with Hessians from the engines: the Rosenbrock function, converging quadratically.

    f(x) = sum_i 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2,      minimum f(1, ..., 1) = 0

Each step solves ``H(x) p = -g(x)`` with the gradient from the reverse engine
and the Hessian from forward over reverse (``chainrules.engines.hessian``:
one run of the program on dual numbers per column, whose tape the reverse
engine walks back with dual numbers). A backtracking line search keeps the
early steps safe; near the minimum every step is a full Newton step and the
error is squared at each one.

Run: python examples/newton.py
"""

from __future__ import annotations

from typing import Any

import numpy as np

import chainrules  # noqa: F401 - registers the rules
import chainrules.engines as ad


def rosenbrock(x: Any) -> Any:
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def newton(f: Any, x: np.ndarray, steps: int = 50, tol: float = 1e-12) -> list[tuple[np.ndarray, float]]:
    """Minimise ``f`` from ``x``; the iterates with the norm of their gradient."""
    history = []
    for _ in range(steps):
        value, (g,) = ad.value_and_gradient(f, x)
        history.append((x, float(np.linalg.norm(g))))
        if history[-1][1] < tol:
            break
        h = ad.hessian(f, x)
        p = np.linalg.solve(h, -g)
        if g @ p >= 0:  # not a descent direction far from the minimum: fall back to the gradient
            p = -g
        t = 1.0
        while f(x + t * p) > value + 1e-4 * t * (g @ p) and t > 1e-10:
            t /= 2
        x = x + t * p
    return history


def main() -> None:
    x0 = np.array([-1.2, 1.0])  # the classic start, on the far side of the curved valley
    history = newton(rosenbrock, x0)
    print("step  |x - 1|      |gradient|")
    for k, (x, g) in enumerate(history):
        print(f"{k:4d}  {np.linalg.norm(x - 1.0):.3e}  {g:.3e}")
    x = history[-1][0]
    print(f"minimum at {np.array2string(x, precision=12)} after {len(history) - 1} Newton steps")


if __name__ == "__main__":
    main()
