"""The indexes of the documentation are complete: every page and every example is listed where readers look."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
GUIDES = sorted(path.name for path in DOCS.glob("*.md") if path.name != "index.md")


def test_docs_index_links_every_page() -> None:
    index = (DOCS / "index.md").read_text()
    assert [page for page in GUIDES if f"]({page})" not in index] == []


def test_readme_table_lists_every_page() -> None:
    readme = (ROOT / "README.md").read_text()
    table = "\n".join(line for line in readme.splitlines() if line.startswith("| docs/"))
    assert [page for page in GUIDES if f"docs/{page}" not in table] == []


def test_the_site_navigation_holds_every_page() -> None:
    nav = re.findall(r"^\s+- (?:[^:\n]+: )?(\S+\.md)$", (ROOT / "mkdocs.yml").read_text(), re.MULTILINE)
    pages = sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))
    assert sorted(set(nav) - {"catalogue/index.md"}) == pages  # the catalogue is generated at build time


def test_readme_lists_every_example() -> None:
    readme = (ROOT / "README.md").read_text()
    examples = sorted(path.name for path in (ROOT / "examples").glob("*.py"))
    assert [name for name in examples if f"`{name}`" not in readme] == []
    words = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    assert f"`examples/` holds {words[len(examples)]} short scripts" in readme
