"""After the run: how many declared checks each framework compared against its own derivatives, and why the rest
were compared against the rule."""

from __future__ import annotations

from typing import Any

from tests.interop.checking import COMPARED, RULE_FUNCTIONS


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not COMPARED:
        return
    write = terminalreporter.write_line
    terminalreporter.section("interop: what the declared checks were compared against")
    for framework in sorted({name for name, _ in COMPARED}):
        counts = {reason: n for (name, reason), n in COMPARED.items() if name == framework}
        native = counts.pop("native", 0)
        write(
            f"{framework}: {native} (case, dtype, mode) checks against its own derivatives, "
            f"{sum(counts.values())} against the rule"
        )
        for reason, n in sorted(counts.items(), key=lambda item: -item[1]):
            write(f"  {n:5d}  {reason}: {_names(RULE_FUNCTIONS[framework, reason])}")


def _names(functions: set[str], shown: int = 8) -> str:
    names = sorted(functions)
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more
