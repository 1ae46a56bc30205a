"""The rule catalogue of the site (mkdocs_hooks/catalogue.py), generated from the registry: every primal, once.

The pages are generated here as ``mkdocs build`` generates them, without
mkdocs, so README's test command checks them too.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


_GENERATE = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("mkdocs_hooks_catalogue", sys.argv[1])
catalogue = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = catalogue  # for its dataclass
spec.loader.exec_module(catalogue)
from chainrules.cli import primal_rows
rows = [
    (row.name, catalogue.family_page(row.families[0]), catalogue.anchor(row.name))
    for row in primal_rows()
    if not all(f.startswith("chainrules.checks") for f in row.families)
]
print(json.dumps({"pages": dict(catalogue.catalogue_pages()), "rows": rows}))
"""
"""The catalogue generated in a process of its own, as ``mkdocs build`` does: the registry holds the project's
rules alone there, not those the other tests register."""


@pytest.fixture(scope="module")
def generated() -> dict[str, Any]:
    script = ROOT / "mkdocs_hooks" / "catalogue.py"
    result = subprocess.run(
        [sys.executable, "-c", _GENERATE, str(script)], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return json.loads(result.stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def pages(generated: dict[str, Any]) -> dict[str, str]:
    return generated["pages"]  # type: ignore[no-any-return]


def test_every_registered_primal_has_one_entry_in_its_family_page(generated: dict[str, Any]) -> None:
    rows, pages = generated["rows"], generated["pages"]
    assert len(rows) > 500
    headings = {page: re.findall(r"^## `(.+)` \{ #(\S+) \}$", text, re.M) for page, text in pages.items()}
    for name, page, anchor in rows:
        assert (name, anchor) in headings[page], (name, page)
    # the family pages, where each primal has one entry (the list without rules may name a refusing one again)
    families = [page for page in headings if page.count("/") == 1 and not page.endswith("/unsupported.md")]
    listed = [name for page in families for name, _ in headings[page]]
    assert len(listed) == len(set(listed))


def test_an_entry_says_modes_cases_dtypes_arrays_and_where_the_rule_is(pages: dict[str, str]) -> None:
    text = pages["catalogue/numpy.linalg.spectral.md"]
    entry = text[text.index("## `np.linalg.svd`") :].split("\n## ")[0]
    assert "- **modes**: `frule, rrule`" in entry
    assert re.search(r"- \*\*declared cases\*\*: \d+", entry)
    assert "- **dtypes**: float64, float32, complex128" in entry
    assert "every Array API library" in entry
    link = re.search(r"\[`chainrules/rules/numpy/linalg/spectral\.py:(\d+)`\]\(([^)]+)\)", entry)
    assert link is not None
    line = int(link.group(1))
    assert link.group(2) == f"../source/chainrules/rules/numpy/linalg/spectral.md#__codelineno-0-{line}"
    source = (ROOT / "chainrules/rules/numpy/linalg/spectral.py").read_text().splitlines()
    assert "svd" in source[line - 1]
    assert "source/chainrules/rules/numpy/linalg/spectral.md" in pages


def test_kinks_domains_and_non_differentiable_functions_are_noted(pages: dict[str, str]) -> None:
    assert "- **status**: non-differentiable" in pages["catalogue/numpy.nondifferentiable.md"]
    assert "non-smooth point checked at its convention" in pages["catalogue/numpy.linalg.spectral.md"]
    assert "- **domains**: positive" in pages["catalogue/numpy.elementwise.md"]


def test_the_functions_without_rules_are_listed_with_their_reasons(pages: dict[str, str]) -> None:
    from chainrules.checks.unsupported import UNSUPPORTED

    text = pages["catalogue/unsupported.md"]
    for name, reason in UNSUPPORTED.items():
        assert f"## `{name}`" in text and reason in text
