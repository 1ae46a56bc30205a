"""The fixed cost of the shipped rules: scalar calls, Python-float programs and small arrays against the floor.

Run: python benchmarks/bench_rules.py [--quick] [--sections 1,2,3,4]

Every figure is a ratio measured in one process, the candidate alternating
with its baseline in rounds, on the process's CPU clock; a cell reads
``median (quartiles)`` of the per-round ratios.

1. One call on a float: the shipped rule through ``rrule``/``frule``, and
   the rule ``rrule.find`` returns called directly (as an engine that caches
   rules would), against a closure-based rule written by hand (no registry,
   no projection).
2. The Horner polynomial of degree 500 in Python floats (500 multiplies and
   500 adds), differentiated by calling the rules of ``operator.mul`` and
   ``operator.add`` without an engine, through ``rrule``/``frule`` and as
   found once: the cost per operation above the hand-written derivative, and
   the ratio to bare closure rules.
3. Per primitive: ``y, pb = rrule(f, *args); pb(g)`` (thunks forced) against
   the numpy primal plus its hand-written gradient, at 10, 1e3 and 1e6
   elements; the geometric mean over the primitives of a size.
4. Peak memory of a pullback against the hand-written gradient (tracemalloc).
"""

from __future__ import annotations

import math
import operator
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

import chainrules  # noqa: F401 - registers the rules
from chainrules_core import NoTangent, frule, rrule, unthunk

from timing import Paired, format_time, geometric_mean, peak_bytes, table

QUICK = "--quick" in sys.argv
SECTIONS = sys.argv[sys.argv.index("--sections") + 1].split(",") if "--sections" in sys.argv else "1234"
ROUNDS = 5 if QUICK else 9
_NT = NoTangent()


# ----- 1. one call on a float -----


def _bare_sin_rrule(x: Any) -> Any:
    def pullback(g: Any) -> Any:
        return _NT, g * np.cos(x)

    return np.sin(x), pullback


def _bare_sin_frule(tangents: Any, x: Any) -> Any:
    return np.sin(x), np.cos(x) * tangents[1]


def _bare_math_sin_rrule(x: float) -> Any:
    def pullback(g: float) -> Any:
        return _NT, g * math.cos(x)

    return math.sin(x), pullback


def _bare_math_sin_frule(tangents: Any, x: float) -> Any:
    return math.sin(x), math.cos(x) * tangents[1]


def _bare_mul(f: Any, a: float, b: float) -> Any:
    return a * b, lambda g: (_NT, g * b, g * a)


def _bare_add(f: Any, a: float, b: float) -> Any:
    return a + b, lambda g: (_NT, g, g)


def _bare_mul_frule(tangents: Any, f: Any, a: float, b: float) -> Any:
    return a * b, tangents[1] * b + a * tangents[2]


def _bare_add_frule(tangents: Any, f: Any, a: float, b: float) -> Any:
    return a + b, tangents[1] + tangents[2]


def scalar_calls() -> str:
    """Each call through the registry, and through the rule it resolves to (what an engine caching rules calls)."""
    x, y, g = 0.5, 1.5, 1.0
    t1, t2 = (_NT, 1.0), (_NT, 1.0, 0.0)

    def reverse(f: Any, *args: Any) -> tuple[Callable[[], Any], Callable[[], Any]]:
        rule = rrule.find(f, *args)
        return lambda: rrule(f, *args)[1](g), lambda: rule(f, *args)[1](g)

    def forward(tangents: Any, f: Any, *args: Any) -> tuple[Callable[[], Any], Callable[[], Any]]:
        rule = frule.find(f, *args)
        return lambda: frule(tangents, f, *args), lambda: rule(tangents, f, *args)

    cases: list[tuple[str, tuple[Callable[[], Any], Callable[[], Any]], Callable[[], Any], str]] = [
        ("frule((NoTangent(), 1.0), np.sin, 0.5)", forward(t1, np.sin, x), lambda: _bare_sin_frule(t1, x), "3"),
        ("rrule(np.sin, 0.5) and its pullback", reverse(np.sin, x), lambda: _bare_sin_rrule(x)[1](g), "2"),
        ("frule((NoTangent(), 1.0), math.sin, 0.5)", forward(t1, math.sin, x), lambda: _bare_math_sin_frule(t1, x), ""),
        ("rrule(math.sin, 0.5) and its pullback", reverse(math.sin, x), lambda: _bare_math_sin_rrule(x)[1](g), ""),
        (
            "rrule(operator.mul, 0.5, 1.5) and its pullback",
            reverse(operator.mul, x, y),
            lambda: _bare_mul(operator.mul, x, y)[1](g),
            "",
        ),
        (
            "rrule(operator.add, 0.5, 1.5) and its pullback",
            reverse(operator.add, x, y),
            lambda: _bare_add(operator.add, x, y)[1](g),
            "",
        ),
        (
            "frule((NoTangent(), 1.0, 0.0), operator.mul, 0.5, 1.5)",
            forward(t2, operator.mul, x, y),
            lambda: _bare_mul_frule(t2, operator.mul, x, y),
            "",
        ),
    ]
    rows = []
    for label, (through_registry, found_once), bare, target in cases:
        p = Paired({"registry": through_registry, "rule": found_once, "bare": bare}, "bare", rounds=ROUNDS)
        rows.append(
            (
                label,
                p.spread("registry"),
                p.spread("rule"),
                format_time(p.median("registry")),
                format_time(p.median("bare")),
                target,
            )
        )
    headers = ["call", "ratio to a bare closure", "its rule called directly", "time", "bare closure", "target"]
    return table(headers, rows)


# ----- 2. Horner in Python floats, rules called by hand -----

HORNER_DEGREE = 500


def horner_by_hand(x: float, c: list[float]) -> tuple[float, float]:
    ps = []
    p = 0.0
    for ci in c:
        ps.append(p)
        p = p * x + ci
    p_bar, x_bar = 1.0, 0.0
    for q in reversed(ps):
        x_bar += p_bar * q
        p_bar *= x
    return p, x_bar


def horner_rules(x: float, c: list[float], mul: Any, add: Any) -> tuple[float, float]:
    """The gradient of Horner's scheme through rules ``mul(operator.mul, a, b)`` and ``add(operator.add, a, b)``."""
    pullbacks = []
    p = 0.0
    for ci in c:
        q, mul_pullback = mul(operator.mul, p, x)
        p, add_pullback = add(operator.add, q, ci)
        pullbacks.append((mul_pullback, add_pullback))
    p_bar, x_bar = 1.0, 0.0
    for mul_pullback, add_pullback in reversed(pullbacks):
        q_bar = add_pullback(p_bar)[1]
        _, p_bar, x_bar_term = mul_pullback(q_bar)
        x_bar += x_bar_term
    return p, x_bar


def horner_forward_by_hand(x: float, c: list[float]) -> tuple[float, float]:
    p, p_dot = 0.0, 0.0
    for ci in c:
        p, p_dot = p * x + ci, p_dot * x + p
    return p, p_dot


def horner_frules(x: float, c: list[float], mul: Any, add: Any) -> tuple[float, float]:
    p, p_dot = 0.0, 0.0
    for ci in c:
        q, q_dot = mul((_NT, p_dot, 1.0), operator.mul, p, x)
        p, p_dot = add((_NT, q_dot, 0.0), operator.add, q, ci)
    return p, p_dot


def horner() -> str:
    rng = np.random.default_rng(3)
    c = [float(v) for v in rng.uniform(-1, 1, HORNER_DEGREE) / 50]
    x = 0.9
    ops = 2 * HORNER_DEGREE
    # the rules an engine that caches them per primal and argument types would call: no dispatch per call
    mul, add = rrule.find(operator.mul, x, x), rrule.find(operator.add, x, x)
    mul_f, add_f = frule.find(operator.mul, x, x), frule.find(operator.add, x, x)
    modes = {
        "gradient (rrule)": {
            "by hand": lambda: horner_by_hand(x, c),
            "rrule(f, ...)": lambda: horner_rules(x, c, rrule, rrule),
            "rules found once": lambda: horner_rules(x, c, mul, add),
            "bare": lambda: horner_rules(x, c, _bare_mul, _bare_add),
        },
        "derivative (frule)": {
            "by hand": lambda: horner_forward_by_hand(x, c),
            "rrule(f, ...)": lambda: horner_frules(x, c, frule, frule),
            "rules found once": lambda: horner_frules(x, c, mul_f, add_f),
            "bare": lambda: horner_frules(x, c, _bare_mul_frule, _bare_add_frule),
        },
    }
    rows = []
    for mode, cands in modes.items():
        want = cands["by hand"]()[1]
        for name, fn in cands.items():
            got = fn()[1]
            if not abs(got - want) <= 1e-12 * abs(want):
                raise AssertionError(f"Horner {mode}, {name}: {got} against {want} by hand")
        p = Paired(cands, "by hand", rounds=ROUNDS)
        base = p.median("by hand")
        for name in ("rrule(f, ...)", "rules found once", "bare"):
            label = name.replace("rrule", "rrule" if mode.startswith("gradient") else "frule")
            rows.append(
                (
                    f"{mode}: {label if name != 'bare' else 'bare closures'}",
                    format_time((p.median(name) - base) / ops),
                    p.spread(name, "bare"),
                    p.spread(name),
                )
            )
    headers = [
        f"Horner, degree {HORNER_DEGREE} ({ops} operations)",
        "per operation above by hand",
        "ratio to bare closures",
        "ratio to by hand",
    ]
    return table(headers, rows)


# ----- 3. per primitive -----


def _shape2(n: int) -> tuple[int, int]:
    return {10: (2, 5), 1_000: (25, 40), 1_000_000: (1000, 1000)}[n]


def primitives(n: int, rng: np.random.Generator) -> list[tuple[str, Callable[[], Any], Callable[[], Any]]]:
    """``(name, rule call, hand-written primal and gradient)`` for each primitive at ``n`` elements."""
    x = rng.uniform(-1.0, 1.0, n)
    r, c = _shape2(n)
    a2, b1, m2 = rng.standard_normal((r, c)), rng.standard_normal(c), rng.standard_normal((r, c))
    idx = rng.integers(0, n, n)
    half = n // 2
    xa, xb = x[:half].copy(), x[half:].copy()
    g_n, g_2 = rng.standard_normal(n), rng.standard_normal((r, c))
    g_c, g_r, g_0 = rng.standard_normal(c), rng.standard_normal(r), 0.7

    def rule(f: Any, *args: Any, seed: Any, **kwargs: Any) -> Callable[[], Any]:
        def call() -> Any:
            _, pullback = rrule(f, *args, **kwargs)
            return [unthunk(b) for b in pullback(seed)]

        return call

    def h_sin() -> Any:
        return np.sin(x), g_n * np.cos(x)

    def h_exp() -> Any:
        y = np.exp(x)
        return y, g_n * y

    def h_tanh() -> Any:
        y = np.tanh(x)
        return y, g_n * (1.0 - y * y)

    def h_mul() -> Any:
        return a2 * b1, (g_2 * b1, np.sum(g_2 * a2, axis=0))

    def h_sum() -> Any:
        return np.sum(m2, axis=0), np.broadcast_to(g_c, m2.shape)

    def h_mean() -> Any:
        return np.mean(m2), np.broadcast_to(g_0 / m2.size, m2.shape)

    def h_getitem() -> Any:
        return x[idx], np.bincount(idx, weights=g_n, minlength=x.size)

    def h_concat() -> Any:
        return np.concatenate([xa, xb]), (g_n[:half], g_n[half:])

    def h_cumsum() -> Any:
        return np.cumsum(x), np.cumsum(g_n[::-1])[::-1]

    def h_max() -> Any:
        y = np.max(m2, axis=0)
        mask = m2 == y
        return y, mask * (g_c / np.sum(mask, axis=0))

    def h_einsum() -> Any:
        return np.einsum("ij,ij->i", a2, m2), (g_r[:, None] * m2, g_r[:, None] * a2)

    return [
        ("sin", rule(np.sin, x, seed=g_n), h_sin),
        ("exp", rule(np.exp, x, seed=g_n), h_exp),
        ("tanh", rule(np.tanh, x, seed=g_n), h_tanh),
        ("multiply (r, c) * (c,)", rule(np.multiply, a2, b1, seed=g_2), h_mul),
        ("sum(x, axis=0)", rule(np.sum, m2, axis=0, seed=g_c), h_sum),
        ("mean(x)", rule(np.mean, m2, seed=g_0), h_mean),
        ("x[idx], n random ints", rule(operator.getitem, x, idx, seed=g_n), h_getitem),
        ("concatenate([a, b])", rule(np.concatenate, [xa, xb], seed=g_n), h_concat),
        ("cumsum(x)", rule(np.cumsum, x, seed=g_n), h_cumsum),
        ("max(x, axis=0)", rule(np.max, m2, axis=0, seed=g_c), h_max),
        ("einsum('ij,ij->i')", rule(np.einsum, "ij,ij->i", a2, m2, seed=g_r), h_einsum),
    ]


def _tanh_wide(n: int, rng: np.random.Generator) -> tuple[str, Callable[[], Any], Callable[[], Any]]:
    """tanh where two thirds of the entries have |x| > 3 (the sech² formula's other regime)."""
    x = rng.uniform(-9.0, 9.0, n)
    g = rng.standard_normal(n)

    def call() -> Any:
        _, pullback = rrule(np.tanh, x)
        return pullback(g)

    def by_hand() -> Any:
        y = np.tanh(x)
        return y, g * (1.0 - y * y)

    return "tanh, x in (-9, 9)", call, by_hand


def per_primitive() -> str:
    rng = np.random.default_rng(0)
    rows = []
    means = []
    for n in (10, 1_000, 1_000_000):
        cases = primitives(n, rng)
        if n == 1_000_000:
            cases = [c for c in cases if c[0] in ("tanh", "max(x, axis=0)")] + [_tanh_wide(n, rng)]
        ratios = []
        for name, call, by_hand in cases:
            p = Paired({"rule": call, "floor": by_hand}, "floor", rounds=ROUNDS, batch_time=0.05 if n > 1e5 else 0.02)
            extra = p.median("rule") - p.median("floor")
            rows.append((name, f"{n:.0e}", p.spread("rule"), format_time(p.median("floor")), format_time(extra)))
            ratios.append(p.ratio("rule"))
        if n < 1_000_000:
            means.append((f"{n:.0e}", f"{geometric_mean(ratios):.2f}", f"{min(ratios):.2f}", f"{max(ratios):.2f}"))
    primitive_table = table(["primitive", "n", "rule / floor", "floor", "rule − floor"], rows)
    mean_table = table(["n", "geometric mean of rule / floor", "min", "max"], means)
    return primitive_table + "\n\n" + mean_table


# ----- 4. memory -----


def memory() -> str:
    rng = np.random.default_rng(1)
    n = 1_000_000
    x = rng.uniform(-1.0, 1.0, n)
    wide = rng.uniform(-9.0, 9.0, n)
    a, b = rng.standard_normal((1000, 1000)), rng.standard_normal(1000)
    g, g2 = rng.standard_normal(n), rng.standard_normal((1000, 1000))
    rows = []
    for label, f, args, seed, by_hand in (
        ("sin", np.sin, (x,), g, lambda: g * np.cos(x)),
        ("tanh, x in (-1, 1)", np.tanh, (x,), g, lambda: g * (1.0 - np.tanh(x) ** 2)),
        ("tanh, x in (-9, 9)", np.tanh, (wide,), g, lambda: g * (1.0 - np.tanh(wide) ** 2)),
        ("multiply (r, c) * (c,)", np.multiply, (a, b), g2, lambda: (g2 * b, np.sum(g2 * a, axis=0))),
    ):
        _, pullback = rrule(f, *args)
        rule_peak = peak_bytes(lambda pullback=pullback, seed=seed: [unthunk(c) for c in pullback(seed)])
        rows.append((label, f"{rule_peak / 2**20:.1f} MiB", f"{peak_bytes(by_hand) / 2**20:.1f} MiB"))
    return table(["pullback at 1e6", "peak allocated by the pullback", "by the hand-written gradient"], rows)


def main() -> None:
    sections = (
        ("One call on a float, against a closure-based rule written by hand", scalar_calls),
        ("The Horner polynomial in Python floats, rules called without an engine", horner),
        ("Per primitive: rrule and pullback against the numpy primal plus its hand-written gradient", per_primitive),
        ("Peak memory (tracemalloc)", memory),
    )
    for number, (title, section) in enumerate(sections, 1):
        if str(number) not in SECTIONS:
            continue
        print(f"## {number}. {title}\n")
        print(section())
        print(flush=True)


if __name__ == "__main__":
    main()
