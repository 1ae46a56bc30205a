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
    caught = sum(1 for *_, fired in log if fired)
    terminalreporter.section("mutation suite: wrong rules caught by the harness")
    terminalreporter.write_line("| subject | wrong rule | mode | caught by |")
    terminalreporter.write_line("| --- | --- | --- | --- |")
    for subject, name, mode, fired in log:
        terminalreporter.write_line(f"| {subject} | {name} | {mode} | {fired or 'MISSED'} |")
    terminalreporter.write_line(f"kill rate: {caught}/{len(log)} ({100 * caught / len(log):.0f}%)")
