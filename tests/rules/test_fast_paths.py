"""Fast paths are one declared layer: in a section of their own at the bottom of each file, registered beside the
rule they shortcut, compared with it on every declared case, and nowhere else."""

from __future__ import annotations

import ast
import pathlib
import re

import numpy as np
import pytest

import chainrules.checks  # noqa: F401 - registers the rules and their declared cases
from chainrules_core import fast_paths, frule, rrule
from chainrules_core.testing import registered_cases

ROOT = pathlib.Path(__file__).resolve().parents[2]
RULE_FILES = sorted(
    [*(ROOT / "chainrules" / "rules").rglob("*.py"), ROOT / "chainrules_core" / "rule_definition.py"],
    key=str,
)
FAST_SECTION = re.compile(r"^# ----- fast paths\b")
"""The heading of the section that holds a file's fast paths, after its formulas."""


def _fast_section_line(source: str) -> int | None:
    for number, line in enumerate(source.splitlines(), start=1):
        if FAST_SECTION.match(line):
            return number
    return None


def _is_type_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"


def _exact_type_tests(tree: ast.AST) -> list[int]:
    """Lines comparing ``type(x)`` by identity, equality or membership (``type(x) is np.ndarray``)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            exact = (ast.Is, ast.IsNot, ast.In, ast.NotIn, ast.Eq, ast.NotEq)
            if any(_is_type_call(o) for o in operands) and any(isinstance(op, exact) for op in node.ops):
                lines.append(node.lineno)
    return lines


def _registrations(tree: ast.AST) -> list[int]:
    """Lines registering a rule (``rrule.register``, ``frule.register``), not a fast path."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "register":
            owner = node.func.value
            if isinstance(owner, ast.Name) and owner.id in ("rrule", "frule"):
                lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_exact_type_tests_sit_in_the_fast_path_section(path: pathlib.Path) -> None:
    """A test of an argument's exact type is a shortcut: it belongs to a fast path, declared below the formulas."""
    source = path.read_text()
    tree = ast.parse(source)
    start = _fast_section_line(source)
    outside = [line for line in _exact_type_tests(tree) if start is None or line < start]
    assert not outside, f"{path.relative_to(ROOT)}: exact-type tests outside '# ----- fast paths' at lines {outside}"


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_fast_path_section_registers_no_rule(path: pathlib.Path) -> None:
    """The formulas come first: below the heading a file declares fast paths only."""
    source = path.read_text()
    start = _fast_section_line(source)
    if start is None:
        return
    late = [line for line in _registrations(ast.parse(source)) if line > start]
    assert not late, f"{path.relative_to(ROOT)}: rules registered in the fast-path section at lines {late}"


def test_the_heading_is_spelled_one_way() -> None:
    """A near miss of the heading would hide a file's shortcuts from the tests above."""
    for path in RULE_FILES:
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if re.match(r"^#.*fast path", line, re.IGNORECASE) and not FAST_SECTION.match(line):
                assert not line.startswith("# -----"), f"{path.relative_to(ROOT)}:{number}: {line!r}"


def test_every_fast_path_has_declared_cases_that_compare_it_with_its_rule() -> None:
    """The declared cases run with fast paths on and off (``variants``): a primal with a fast path needs some."""
    declared = {id(case.f) for _, case in registered_cases()}
    uncovered = sorted(
        {
            getattr(record.primal, "__qualname__", repr(record.primal))
            for registry in (rrule, frule)
            for record in registry.records()
            if (record.fast_path is not None or record.exact_paths) and record.module.startswith("chainrules.rules")
            if id(record.primal) not in declared
        }
    )
    assert not uncovered, f"fast paths without declared cases: {uncovered}"


def test_fast_paths_off_gives_the_general_rule_the_same_numbers() -> None:
    """The switch reaches the shipped rules: tanh of an array runs its formula with fast paths off."""
    x = np.linspace(-3.0, 3.0, 7)
    _, pullback = rrule(np.tanh, x)
    assert pullback.__code__.co_filename.endswith("elementwise.py")  # the fast path's, beside the table
    on = pullback(np.ones(7))[1]
    with fast_paths(False):
        _, pullback = rrule(np.tanh, x)
        assert pullback.__code__.co_filename.endswith("rule_definition.py")  # scalar_rule's formula
        off = pullback(np.ones(7))[1]
    np.testing.assert_allclose(on, off, rtol=1e-14)
    np.testing.assert_allclose(off, 1 / np.cosh(x) ** 2, rtol=1e-14)


def _exact_float_pairs() -> list[object]:
    return sorted(
        {r.primal for r in rrule.records() if r.exact_paths and r.module.startswith("chainrules.rules")}, key=repr
    )


@pytest.mark.parametrize("f", _exact_float_pairs(), ids=repr)
def test_the_exact_float_paths_give_the_rule_s_numbers_for_every_seed_and_tangent(f: object) -> None:
    """The operators' paths for two floats exactly: a float seed, a numpy scalar or 0-d seed (the rule's own
    pullback), float and zero tangents, against the rule with fast paths off."""
    from chainrules_core import NoTangent, ZeroTangent

    x, y = 1.7, 0.6
    seeds = [0.5, np.float64(0.5), np.array(0.5)]
    tangent_sets = [(NoTangent(), 0.3, -1.1), (NoTangent(), 0.3, ZeroTangent()), (NoTangent(), ZeroTangent(), -1.1)]

    def run() -> list[object]:
        out, pullback = rrule(f, x, y)
        return [out, *(pullback(s) for s in seeds), *(frule(t, f, x, y) for t in tangent_sets)]

    on = run()
    assert all(r.exact_paths[0][0] == (float, float) for r in rrule.records_for(f) if r.exact_paths)
    with fast_paths(False):
        off = run()
    for a, b in zip(on, off):
        _same(a, b)


def _same(a: object, b: object) -> None:
    """The same value and type, numbers to rounding."""
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for u, v in zip(a, b):
            _same(u, v)
    elif isinstance(a, (float, np.ndarray, np.generic)):
        assert type(a) is type(b)
        np.testing.assert_allclose(a, b, rtol=1e-15)  # type: ignore[arg-type]
    else:
        assert a == b
