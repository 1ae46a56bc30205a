"""The mutation suite's log, and the kill-rate table printed at the end of the session."""

from __future__ import annotations

import pytest

_LOG = pytest.StashKey[list[tuple[str, str, str, str]]]()


@pytest.fixture
def mutation_log(request: pytest.FixtureRequest) -> list[tuple[str, str, str, str]]:
    """Where each mutant's test records ``(subject, mutant, mode, check that fired or "")``."""
    return request.config.stash.setdefault(_LOG, [])


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    log = config.stash.get(_LOG, [])
    if not log:
        return
    runs: dict[tuple[str, str, str], list[str]] = {}
    for subject, name, mode, fired in log:
        runs.setdefault((subject, name, mode), []).append(fired)
    caught = sum(1 for *_, fired in log if fired)
    terminalreporter.section("mutation suite: wrong rules caught by the harness")
    terminalreporter.write_line("| subject | wrong rule | mode | caught by | runs caught |")
    terminalreporter.write_line("| --- | --- | --- | --- | --- |")
    for (subject, name, mode), fired in runs.items():
        checks = ", ".join(sorted({check for check in fired if check})) or "MISSED"
        terminalreporter.write_line(
            f"| {subject} | {name} | {mode} | {checks} | {sum(map(bool, fired))}/{len(fired)} |"
        )
    terminalreporter.write_line(
        f"kill rate: {caught}/{len(log)} runs ({100 * caught / len(log):.0f}%) of {len(runs)} wrong rules"
    )
