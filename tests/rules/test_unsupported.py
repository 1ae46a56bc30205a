"""The one list of functions without rules agrees with the registry, both ways."""

from __future__ import annotations

import pytest

from chainrules.checks.unsupported import UNSUPPORTED, candidates, candidates_without_rules, has_rules, resolve


def test_every_candidate_without_rules_is_listed_with_a_reason():
    missing = set(candidates_without_rules()) - set(UNSUPPORTED)
    assert not missing, f"candidates with no rule and no reason in chainrules.checks.unsupported: {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_a_listed_function_has_no_rules(name):
    """An entry whose function gained rules is stale: remove it."""
    assert name in candidates(), f"{name} is listed as unsupported but is not a candidate"
    assert UNSUPPORTED[name], name
    f = resolve(name)
    if f is None:
        pytest.skip(f"{name} is not in the installed libraries")
    assert not has_rules(f), f"{name} has rules now: remove it from UNSUPPORTED"


def test_candidates_are_unique():
    names = candidates()
    assert len(names) == len(set(names))
