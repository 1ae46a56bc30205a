"""The code of docs/arrays.md and docs/distributed.md runs, and the page lists every refusal the tests expect.

Their blocks need torch or dask, which README's test command does not
install: they run here, with the extras, and skip with the reason where a
library is missing.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from chainrules.checks.libraries import REFUSAL_COUNT, REFUSALS

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _blocks(page: str) -> list[tuple[str, str]]:
    text = (DOCS / page).read_text()
    return [
        (f"{page}:{text[: m.start()].count(chr(10)) + 1}", m.group(1))
        for m in re.finditer(r"```python\n(.*?)```", text, re.S)
    ]


BLOCKS = [block for page in ("arrays.md", "distributed.md") for block in _blocks(page)]


@pytest.mark.parametrize(("where", "code"), BLOCKS, ids=[where for where, _ in BLOCKS])
def test_code_block_runs(where, code):
    for module in re.findall(r"^(?:import|from) (\w+)", code, re.M):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{where} needs {module}, which is not installed")
    exec(compile(code, where, "exec"), {"__name__": "docs"})


def test_the_page_lists_every_refusal():
    text = (DOCS / "arrays.md").read_text()
    assert f"({REFUSAL_COUNT} entries" in text
    for refusal in REFUSALS:
        assert f"`{refusal.function}`" in text, refusal
