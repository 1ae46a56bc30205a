"""The ``python`` code blocks of the pages that are not doctests run, each on its own.

Their blocks need torch, JAX, autograd or dask, which README's test command
does not install: they run in ``.ci/run``, with the extras, and skip with
the reason where a library is missing.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = ("arrays.md", "distributed.md", "engines.md", "interop.md")
RUN_ELSEWHERE = {
    "rule-authors.md": "tests/cli/test_cli.py and tests/interop/test_torch_native.py run its blocks",
    "architecture.md": "its one block quotes a line of a table in chainrules/rules/numpy/elementwise.py",
}


def _blocks(page: str) -> list[tuple[str, str]]:
    text = (DOCS / page).read_text()
    return [
        (f"{page}:{text[: m.start()].count(chr(10)) + 1}", m.group(1))
        for m in re.finditer(r"```python\n(.*?)```", text, re.S)
        if not m.group(1).lstrip().startswith(">>>")  # doctests, which pytest runs as such
    ]


BLOCKS = [block for page in PAGES for block in _blocks(page)]


@pytest.mark.parametrize(("where", "code"), BLOCKS, ids=[where for where, _ in BLOCKS])
def test_code_block_runs(where: str, code: str) -> None:
    for module in re.findall(r"^(?:import|from) (\w+)", code, re.M):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{where} needs {module}, which is not installed")
    exec(compile(code, where, "exec"), {"__name__": "docs"})


def test_every_page_with_code_blocks_runs_them() -> None:
    """A page whose ``python`` blocks are not doctests is listed here, or they would never run."""
    pages = {path.name for path in DOCS.glob("*.md") if re.search(r"```python\n(?!\s*>>>)", path.read_text())}
    assert pages == set(PAGES) | set(RUN_ELSEWHERE)
