"""docs/arrays.md lists every refusal the tests expect (tests/docs/test_code_blocks.py runs its code)."""

from __future__ import annotations

from pathlib import Path

from chainrules.checks.libraries import REFUSAL_COUNT, REFUSALS

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_page_lists_every_refusal():
    text = (DOCS / "arrays.md").read_text()
    assert f"({REFUSAL_COUNT} entries" in text
    for refusal in REFUSALS:
        assert f"`{refusal.function}`" in text, refusal
