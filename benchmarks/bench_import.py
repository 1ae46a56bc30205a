"""Import time: ``import chainrules`` against ``import numpy``, each in a fresh process.

Every round starts one interpreter per module, alternating, and times only
the import statement inside it (``time.perf_counter`` around it), so the
interpreter's own start-up is left out. Bytecode caches are written first,
as a user's installation has them. The table gives the median over the
rounds, and the ratio to numpy's median; it also checks, once, which
optional or test-only modules ``import chainrules`` loaded (it should load
none of them).

Run: python benchmarks/bench_import.py [rounds]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys

from timing import format_time, table

MODULES = ("numpy", "chainrules_core", "chainrules", "chainrules.checks")
"""numpy is the baseline; ``chainrules.checks`` adds the declared cases and the harness (checks only)."""

NEVER = ("chainrules_core.testing", "chainrules.engines", "pytest", "hypothesis", "scipy", "torch", "jax", "autograd")
"""What ``import chainrules`` must not import."""

_TIMED = "import sys, time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's installation has its bytecode cached
    return env


def import_time(module: str) -> float:
    """Seconds that ``import module`` takes in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", _TIMED.format(module=module)],
        capture_output=True,
        text=True,
        check=True,
        env=_environment(),
    )
    return float(out.stdout)


def loaded_by_chainrules() -> list[str]:
    code = f"import sys, chainrules; print(' '.join(m for m in {NEVER!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=_environment())
    return out.stdout.split()


def main(rounds: int = 15) -> None:
    for module in MODULES:
        import_time(module)  # write the bytecode caches
    times: dict[str, list[float]] = {m: [] for m in MODULES}
    for _ in range(rounds):
        for module in MODULES:
            times[module].append(import_time(module))
    baseline = statistics.median(times["numpy"])
    rows = []
    for module in MODULES:
        median = statistics.median(times[module])
        rows.append((f"import {module}", format_time(median), f"{median / baseline:.2f}"))
    print(table(("statement", f"median of {rounds} fresh processes", "ratio to numpy"), rows))
    extra = loaded_by_chainrules()
    print(f"\nimport chainrules also loaded: {', '.join(extra) if extra else 'none of ' + ', '.join(NEVER)}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
