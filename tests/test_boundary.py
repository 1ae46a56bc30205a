"""The boundary between chainrules and chainrules_core, and what ``import chainrules`` costs."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _private_imports_from_core(path: pathlib.Path) -> list[str]:
    """``from chainrules_core... import _name`` and imports of private core modules in one file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("chainrules_core"):
            module_parts = (node.module or "").split(".")
            names = [alias.name for alias in node.names]
            if any(part.startswith("_") for part in module_parts) or any(n.startswith("_") for n in names):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: from {node.module} import {', '.join(names)}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("chainrules_core") and any(p.startswith("_") for p in alias.name.split(".")):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: import {alias.name}")
    return found


def test_chainrules_uses_only_the_public_api_of_chainrules_core() -> None:
    """Everything chainrules needs to write its rules is public, so any other package can write them too."""
    found = [line for path in sorted((ROOT / "chainrules").rglob("*.py")) for line in _private_imports_from_core(path)]
    assert found == []


def test_the_boundary_check_sees_a_private_import(tmp_path: pathlib.Path) -> None:
    module = ROOT / "chainrules" / "_probe_for_the_boundary_test.py"
    module.write_text("from chainrules_core.rules import _Entry\nfrom chainrules_core._registry import x\n")
    try:
        assert len(_private_imports_from_core(module)) == 2
    finally:
        module.unlink()


NEVER_IMPORTED = ("chainrules_core.testing", "chainrules.engines", "pytest", "hypothesis", "scipy")


@pytest.mark.parametrize("module", NEVER_IMPORTED)
def test_import_chainrules_stays_lean(module: str) -> None:
    """``import chainrules`` registers rules and nothing else: no harness, no engines, no test tools, no scipy."""
    code = f"import sys, chainrules; print({module!r} in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"


def test_the_core_never_reaches_up_into_chainrules() -> None:
    """chainrules_core is the protocol: it names chainrules nowhere in its imports, static or by ``importlib``."""
    found = []
    for path in sorted((ROOT / "chainrules_core").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif (
                isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("chainrules.")
            ):
                names = [node.value]  # importlib.import_module("chainrules.engines")
            found += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in names if n.split(".")[0] == "chainrules"]
    assert found == []
