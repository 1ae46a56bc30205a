"""The shape of the code: how the rules are written, counted from their source and from traced calls.

Counts, over ``chainrules/rules`` unless said otherwise:

* ``xp is np`` tests: comparisons of a namespace name (``xp``, ``m``) with ``np`` by ``is``/``is not``;
* foreign-array checks: calls of ``first_foreign_array`` and ``is_foreign_array``;
* reach-ins: calls of ``records_for`` (a rule chaining onto another's fast path by hand);
* the helper share: code lines (no blanks, comments, docstrings or imports) of top-level functions and classes
  that are neither registered rules (decorated with a registry's ``register`` or ``fast_path``), nor formula
  functions handed to a maker or a table at module level, against all code lines;
* hand-written rule bodies (functions decorated with ``register``, both packages): median and 90th percentile of
  the lines from the first statement after the docstring to the end;
* modules over 600 lines, in both packages;
* private names imported across packages (``from chainrules.x import _y`` or from a ``_module`` of another area);
* frames: the project's frames (and files) of ``rrule(np.sin, x)`` and its pullback with fast paths off, and of an
  engine gradient of ``sum(tanh(x * w) ** 2) / 2`` with ``w`` a Python float.

Run: python benchmarks/code_metrics.py
"""

from __future__ import annotations

import ast
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "chainrules" / "rules"
PACKAGES = (ROOT / "chainrules", ROOT / "chainrules_core")
NAMESPACES = {"xp", "m"}


def python_files(*roots: Path) -> list[Path]:
    return sorted(p for root in roots for p in root.rglob("*.py"))


def code_lines(node: ast.AST, source: list[str]) -> int:
    """Lines of ``node`` holding code: no blank lines, comments or docstrings."""
    docstrings: set[int] = set()
    for sub in ast.walk(node):
        body = getattr(sub, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                docstrings.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    count = 0
    for n in range(node.lineno, (node.end_lineno or node.lineno) + 1):  # type: ignore[attr-defined]
        text = source[n - 1].strip()
        if text and not text.startswith("#") and n not in docstrings:
            count += 1
    return count


def _is_registration(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return isinstance(target, ast.Attribute) and target.attr in ("register", "fast_path")


def _registered(func: ast.AST) -> bool:
    return any(_is_registration(d) for d in getattr(func, "decorator_list", []))


def namespace_tests(tree: ast.AST) -> int:
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and all(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
            names = {n.id for n in [node.left, *node.comparators] if isinstance(n, ast.Name)}
            count += "np" in names and bool(names & NAMESPACES)
    return count


def calls_of(tree: ast.AST, names: set[str]) -> int:
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            count += name in names
    return count


def module_level_names(tree: ast.Module) -> set[str]:
    """Names used by module-level statements other than definitions: what is handed to makers and tables."""
    used: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
            continue
        used.update(n.id for n in ast.walk(stmt) if isinstance(n, ast.Name))
    return used


def helper_share() -> tuple[int, int]:
    helpers = total = 0
    for path in python_files(RULES):
        source = path.read_text().splitlines()
        tree = ast.parse("\n".join(source))
        handed = module_level_names(tree)
        for stmt in tree.body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                continue
            lines = code_lines(stmt, source)
            total += lines
            if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) and not _registered(stmt) and stmt.name not in handed:
                helpers += lines
    return helpers, total


def rule_bodies() -> list[int]:
    lengths = []
    for path in python_files(*PACKAGES):
        source = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(source))):
            if not isinstance(node, ast.FunctionDef) or not any(
                isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr == "register"
                for d in node.decorator_list
            ):
                continue
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
                body = body[1:]
            if body:
                lengths.append((body[-1].end_lineno or body[-1].lineno) - body[0].lineno + 1)
    return lengths


def long_modules(limit: int = 600) -> list[tuple[str, int]]:
    out = []
    for path in python_files(*PACKAGES):
        n = len(path.read_text().splitlines())
        if n > limit:
            out.append((str(path.relative_to(ROOT)), n))
    return sorted(out, key=lambda item: -item[1])


def _area(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "chainrules" else parts[0]


def private_imports() -> list[str]:
    found = []
    for path in python_files(*PACKAGES, ROOT / "mkdocs_hooks"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom) or not node.module or node.level:
                continue
            if not node.module.startswith(("chainrules", "chainrules_core")) or _area(node.module) == _area(module):
                continue
            private_module = any(p.startswith("_") for p in node.module.split("."))
            private_names = [a.name for a in node.names if a.name.startswith("_")]
            if private_module or private_names:
                found.append(f"{module}: from {node.module} import {', '.join(a.name for a in node.names)}")
    return found


def traced(fn) -> tuple[int, int]:
    """Project frames entered while ``fn()`` runs, and the files they are in."""
    frames: list[str] = []
    root = str(ROOT)

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(root):
            frames.append(frame.f_code.co_filename)

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return len(frames), len(set(frames))


def frame_counts() -> dict[str, tuple[int, int]]:
    import numpy as np

    import chainrules  # noqa: F401 - the rules
    import chainrules.engines as ad
    from chainrules_core import fast_paths, rrule

    x = np.linspace(0.1, 1.0, 8)

    def sin_and_pullback() -> None:
        _, pullback = rrule(np.sin, x)
        pullback(np.ones(8))

    def program(w: float) -> object:
        return np.sum(np.tanh(x * w) ** 2) / 2

    with fast_paths(False):
        sin_and_pullback()
        sin = traced(sin_and_pullback)
    ad.gradient(program, 0.7)
    return {
        "rrule(np.sin, x) + pullback, fast paths off": sin,
        "engine gradient": traced(lambda: ad.gradient(program, 0.7)),
    }


def main() -> None:
    trees = [(p, ast.parse(p.read_text())) for p in python_files(RULES)]
    helpers, total = helper_share()
    bodies = rule_bodies()
    rows = [
        ("`xp is np` / `m is np` tests in rules", sum(namespace_tests(t) for _, t in trees)),
        (
            "foreign-array checks in rules",
            sum(calls_of(t, {"first_foreign_array", "is_foreign_array"}) for _, t in trees),
        ),
        ("records_for reach-ins in rules", sum(calls_of(t, {"records_for"}) for _, t in trees)),
        ("helper share of rule code", f"{helpers / total:.0%} ({helpers:,} of {total:,} code lines)"),
        (
            "hand-written rule bodies",
            f"n = {len(bodies)}, median {statistics.median(bodies):g}, "
            f"p90 {statistics.quantiles(bodies, n=10)[-1]:g} lines",
        ),
    ]
    for label, (frames, files) in frame_counts().items():
        rows.append((f"frames: {label}", f"{frames} in {files} files"))
    width = max(len(r[0]) for r in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
    print("\nmodules over 600 lines:", ", ".join(f"{p} ({n})" for p, n in long_modules()) or "none")
    imports = private_imports()
    print(f"\nprivate names or modules imported across packages: {len(imports)}")
    for line in imports:
        print("  " + line)


if __name__ == "__main__":
    main()
