"""What routing costs a plain call: scipy's stand-ins (``chainrules.routing``) against scipy's own functions.

A routed function looks at its arguments for followed values before it
calls scipy's; on a call without any that is all it adds. Each row times the
stand-in and the function behind it in alternation (``timing.Paired``, CPU
time) and gives the difference per call and the ratio.

Run: python benchmarks/bench_routing.py [rounds]
"""

from __future__ import annotations

import functools
import sys

import numpy as np

import chainrules  # noqa: F401 - routes scipy's namespaces as they are imported
from chainrules.routing import unrouted

from timing import Paired, format_time, table


def rows(rounds: int) -> list[tuple[str, str, str, str]]:
    import scipy.integrate
    import scipy.linalg
    import scipy.special
    import scipy.stats

    rng = np.random.default_rng(0)
    a4 = rng.standard_normal((4, 4)) / 4
    y = rng.standard_normal(8)
    calls = {
        "scipy.linalg.expm(A), A 4×4": (scipy.linalg.expm, (a4,), {}),
        "scipy.special.logsumexp(x), 8 entries": (scipy.special.logsumexp, (y,), {}),
        "scipy.integrate.trapezoid(y, dx=0.5)": (scipy.integrate.trapezoid, (y,), {"dx": 0.5}),
        "scipy.stats.norm.logpdf(x, loc=0.1, scale=2.0)": (scipy.stats.norm.logpdf, (y,), {"loc": 0.1, "scale": 2.0}),
        "scipy.linalg.solve(A, b, assume_a='gen')": (scipy.linalg.solve, (a4, y[:4]), {"assume_a": "gen"}),
    }
    out = []
    for label, (routed, args, kwargs) in calls.items():
        plain = unrouted(getattr(routed, "__func__", routed))
        if plain is routed:
            raise SystemExit(f"{label}: not routed")
        bound = getattr(routed, "__self__", None)
        leading = () if bound is None else (bound,)
        candidates = {
            "scipy's": functools.partial(plain, *leading, *args, **kwargs),
            "routed": functools.partial(routed, *args, **kwargs),
        }
        paired = Paired(candidates, "scipy's", rounds=rounds)
        extra = max(paired.median("routed") - paired.median("scipy's"), 0.0)
        out.append((label, format_time(paired.median("scipy's")), format_time(extra), paired.spread("routed")))
    return out


def main(rounds: int = 15) -> None:
    print(table(("call", "scipy's function", "added by the stand-in", "ratio (quartiles)"), rows(rounds)))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
