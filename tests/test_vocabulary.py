"""One vocabulary: "pullback" names the protocol's closure only, and every public name means one thing."""

from __future__ import annotations

import ast
import collections
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("chainrules", "chainrules_core")
RULE_CODE = [*sorted((ROOT / "chainrules" / "rules").rglob("*.py")), ROOT / "chainrules_core" / "rule_definition.py"]

SHARED_BY_DESIGN = {"wrap", "__dir__", "__getattr__"}
"""Names several modules define for one concept: each framework adapter's ``wrap``, a package's module hooks."""


def _functions(tree: ast.AST) -> list[tuple[ast.FunctionDef, bool]]:
    """Every function with whether it is a closure (defined inside another function, not a class)."""
    found: list[tuple[ast.FunctionDef, bool]] = []

    def visit(node: ast.AST, inside_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef):
                found.append((child, inside_function))
                visit(child, True)
            elif isinstance(child, ast.ClassDef):
                visit(child, False)
            else:
                visit(child, inside_function)

    visit(tree, False)
    return found


def test_a_pullback_in_the_rules_is_the_protocols_closure() -> None:
    """``*_pullback`` is the closure a rule returns, of one seed; a formula of a cotangent is ``*_cotangent``, and a
    function that makes a pullback ``*_pullback_of``."""
    wrong = []
    for path in RULE_CODE:
        for function, closure in _functions(ast.parse(path.read_text())):
            name = function.name
            if "pullbacks" in name:
                wrong.append(f"{path.relative_to(ROOT)}:{function.lineno}: {name} (a formula: *_cotangents)")
            elif name == "pullback" or name.endswith("_pullback"):
                positional = [*function.args.posonlyargs, *function.args.args]
                if not closure or len(positional) != 1 or function.args.vararg:
                    wrong.append(f"{path.relative_to(ROOT)}:{function.lineno}: {name} is not a closure of one seed")
    assert wrong == []


def test_a_public_name_is_defined_once() -> None:
    """A public function or class of one name in two modules would mean two things (``named_after`` did)."""
    where = collections.defaultdict(list)
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.parse(path.read_text()).body:
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                    where[node.name].append(str(path.relative_to(ROOT)))
    twice = {name: paths for name, paths in where.items() if len(paths) > 1 and name not in SHARED_BY_DESIGN}
    assert twice == {}


def test_no_module_is_named_after_a_sibling_plus_s() -> None:
    """``_box.py`` beside ``_boxes.py`` read as one thing twice: sibling modules have distinct names."""
    for package in PACKAGES:
        for folder in [ROOT / package, *(p for p in (ROOT / package).rglob("*") if p.is_dir())]:
            stems = {p.stem.lstrip("_") for p in folder.glob("*.py")}
            assert not {s for s in stems if f"{s}s" in stems}, folder
