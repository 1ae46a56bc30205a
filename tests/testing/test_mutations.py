"""The mutation suite: deliberately wrong rules, each caught by the harness in the mode it breaks.

Every subject is a small function with a correct ``rrule`` and ``frule``;
every mutant is one plausible mistake in one of them. A mutant is registered
alone, for a fresh copy of its subject's function, so no other rule can
help the harness catch it: it must make ``test_rrule`` or ``test_frule`` fail
with the named check. The correct rules must pass both. The kill rate
(mutants caught / mutants) is printed at the end of the test session.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from chainrules_core import frule, rrule
from chainrules_core.testing import test_frule, test_rrule

from .mutants import MUTANTS, SUBJECTS, Subject, fresh


def register(f: Any, mode: str, rule: Callable[..., Any]) -> None:
    key = f if isinstance(f, type(fresh)) else type(f)
    (rrule if mode == "rrule" else frule).register(key)(rule)


# HARNESS_SEEDS=40 runs the suite with the harness seeded 0 to 39 instead of 0 alone.
SEEDS = range(int(os.environ.get("HARNESS_SEEDS", "1")))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("mode", ["rrule", "frule"])
@pytest.mark.parametrize("subject", SUBJECTS, ids=lambda s: s.name)
def test_correct_rules_pass(subject: Subject, mode: str, seed: int) -> None:
    """The correct rules of every subject pass the harness in both modes."""
    f, args = subject.make()
    register(f, "rrule", subject.rrule)
    register(f, "frule", subject.frule)
    check = test_rrule if mode == "rrule" else test_frule
    check(f, *args, seed=seed, **subject.options)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("subject", "name"), MUTANTS, ids=[f"{s.name}: {n}" for s, n in MUTANTS])
def test_wrong_rule_is_caught(
    subject: Subject, name: str, seed: int, mutation_log: list[tuple[str, str, str, str]]
) -> None:
    """Each mutant, registered alone, fails the harness in its mode with the named check."""
    mutant = subject.mutants[name]
    f, args = subject.make()
    register(f, mutant.mode, mutant.rule)
    check = test_rrule if mutant.mode == "rrule" else test_frule
    try:
        check(f, *args, seed=seed, **{**subject.options, **mutant.options})
    except AssertionError as failure:
        message = str(failure)
        fired = message[1 : message.index("]")] if message.startswith("[") else "?"
        mutation_log.append((subject.name, name, mutant.mode, fired))
        assert fired == mutant.check, message
        assert f"(seed={seed})" in message
        return
    mutation_log.append((subject.name, name, mutant.mode, ""))
    pytest.fail(f"the harness passed the wrong rule {name!r} for {subject.name}")


def test_the_docs_state_the_kill_rate() -> None:
    """docs/rule-authors.md reports the size of this suite and its kill rate."""
    text = " ".join((Path(__file__).parents[2] / "docs" / "rule-authors.md").read_text().split())
    n = len(MUTANTS)
    assert f"holds {len(SUBJECTS)} small functions with correct rules, and {n} deliberately wrong" in text
    assert f"{n} of {n} wrong rules are caught" in text
