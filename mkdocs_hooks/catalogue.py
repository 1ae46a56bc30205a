"""The rule catalogue of the documentation site, generated from the registry when ``mkdocs build`` runs.

``mkdocs.yml`` names this file under ``hooks:``. At build time it imports
``chainrules`` (and scipy, when installed), reads every registration of
``frule`` and ``rrule`` and every declared case, and adds pages to the
build that are never written into ``docs/``:

* ``catalogue/index.md``: the families, with how many primals each holds;
* ``catalogue/<family>.md``: one section per registered primal (its own
  heading, so that the site's search finds it by name): its modes, the
  dtypes its declared cases run, the array libraries its rules run on, the
  file and line of its rule, the domains and non-smooth points of its
  cases, the refusals declared for it, the number of declared cases;
* ``catalogue/unsupported.md``: the functions without rules
  (``chainrules.checks.unsupported.UNSUPPORTED``), with the reasons;
* ``source/<path>.md``: each file a rule lives in, with numbered lines the
  catalogue links to.

``catalogue_pages()`` returns the pages as text, without mkdocs.
"""

from __future__ import annotations

import functools
import inspect
import re
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
"""The checkout: source links are paths relative to it."""

CATALOGUE = "catalogue"
SOURCE = "source"
DTYPE_ORDER = ("float64", "float32", "complex128")


@dataclass
class Entry:
    """What the catalogue says of one registered primal: its row of ``python -m chainrules rules``, and more."""

    row: Any
    """``chainrules.cli._PrimalRow``: name, modes, families, signatures, arrays, registrations."""
    cases: list[Any] = field(default_factory=list)
    location: tuple[str, int | None] | None = None
    library_refusals: list[Any] = field(default_factory=list)
    order2_refusals: list[Any] = field(default_factory=list)

    @property
    def name(self) -> str:
        return str(self.row.name)

    @property
    def family(self) -> str:
        return str(self.row.families[0])


def anchor(name: str) -> str:
    """The HTML id of a primal's section: ``np-linalg-svd`` for ``np.linalg.svd``."""
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "primal"


def family_page(family: str) -> str:
    return f"{CATALOGUE}/{family}.md"


def source_page(path: str) -> str:
    return f"{SOURCE}/{path.removesuffix('.py')}.md"


# ----- where a rule's formula is -----


def _module_file(module: str) -> str | None:
    """The checkout-relative path of a module of this project, or None for other modules."""
    try:
        import importlib

        file = getattr(importlib.import_module(module), "__file__", None)
    except Exception:
        return None
    return _relative(file)


def _relative(file: str | None) -> str | None:
    if not file:
        return None
    try:
        return Path(file).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return None


def _functions_within(rule: Any, depth: int = 3) -> Iterator[Any]:
    """``rule`` and the functions its closure holds (a maker's formula), breadth first."""
    seen: set[int] = set()
    level = [rule]
    for _ in range(depth + 1):
        following = []
        for obj in level:
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            obj = inspect.unwrap(obj) if callable(obj) else obj
            if isinstance(obj, functools.partial):
                following.append(obj.func)
                continue
            if isinstance(obj, types.MethodType):
                following.append(obj.__func__)
                continue
            if isinstance(obj, tuple | list):
                following.extend(obj)
                continue
            if isinstance(obj, dict):
                following.extend(obj.values())
                continue
            if not isinstance(obj, types.FunctionType):
                continue
            yield obj
            for cell in obj.__closure__ or ():
                try:
                    following.append(cell.cell_contents)
                except ValueError:  # an empty cell
                    continue
        level = following


def _short_names(name: str) -> list[str]:
    """The spellings a module may use for a primal: ``np.linalg.svd``, ``linalg.svd``, ``svd``."""
    parts = name.split(".")
    return [".".join(parts[i:]) for i in range(len(parts))]


def formula_location(record: Any, name: str) -> tuple[str, int | None] | None:
    """``(path, line)`` of the rule of ``record``: the function (or table entry) that holds its formula.

    A rule made by a helper (``scalar_rule``, a maker of ``_makers.py``) is
    a closure over the formula, which lives in the family's module: the
    first function within the rule defined in that module. A registration
    with no formula (``non_differentiable``, an opt-out) points at the first
    line of its module that names the primal.
    """
    module_file = _module_file(record.module)
    first_own = None
    for fn in _functions_within(record.rule):
        path = _relative(fn.__code__.co_filename)
        if path is None:
            continue
        if path == module_file:
            return path, fn.__code__.co_firstlineno
        first_own = first_own or (path, fn.__code__.co_firstlineno)
    if module_file is not None:
        lines = (ROOT / module_file).read_text().splitlines()
        for short in _short_names(name):
            pattern = re.compile(rf"(?<![\w.]){re.escape(short)}(?!\w)")
            for number, line in enumerate(lines, start=1):
                if pattern.search(line) and not line.lstrip().startswith(("#", "import", "from")):
                    return module_file, number
        return module_file, None
    return first_own


# ----- the entries -----


def _case_functions(case: Any) -> list[Any]:
    """What a case's function may be registered as: itself, its class (a callable object), the function behind
    a bound method or partial."""
    f = case.f
    found = [f]
    if isinstance(f, functools.partial):
        found.append(f.func)
    if isinstance(f, types.MethodType):
        found.append(f.__func__)
    if not isinstance(f, types.FunctionType | types.BuiltinFunctionType) and not isinstance(f, type):
        found.append(type(f))
    return found


def entries() -> list[Entry]:
    """One entry per registered primal (scipy's too when installed), sorted by family and name."""
    import chainrules.checks  # noqa: F401 - registers the declared cases
    from chainrules.checks.libraries import REFUSALS
    from chainrules.cli import _import_optional_libraries, primal_rows
    from chainrules.testing.second_order import registered_order2_refusals
    from chainrules_core.testing import registered_cases

    _import_optional_libraries()
    found = []
    by_id: dict[int, Entry] = {}
    for row in primal_rows():
        if all(family.startswith("chainrules.checks") for family in row.families):
            continue  # the functions of declared checks, not rules
        entry = Entry(row)
        record = next((r for r in row.records if r.kind == "rule"), row.records[0])
        entry.location = formula_location(record, entry.name)
        by_id[id(record.primal)] = entry
        found.append(entry)
    for _family, case in registered_cases():
        entry = next((by_id[id(f)] for f in _case_functions(case) if id(f) in by_id), None)
        if entry is not None:
            entry.cases.append(case)
    by_name = {entry.name: entry for entry in found}
    for refusal in REFUSALS:
        if refusal.function in by_name:
            by_name[refusal.function].library_refusals.append(refusal)
    for order2 in registered_order2_refusals():
        if id(order2.f) in by_id:
            by_id[id(order2.f)].order2_refusals.append(order2)
    return sorted(found, key=lambda e: (e.family, e.name))


# ----- the pages -----


def _code(text: str) -> str:
    return "`" + text.replace("`", "'") + "`"


def _domains(cases: list[Any]) -> list[str]:
    from chainrules_core.testing.cases import Arg, Domain

    names: list[str] = []

    def visit(spec: Any) -> None:
        primal = getattr(spec, "primal", None)
        if primal is not None:
            visit(primal)
        inner = getattr(spec, "spec", None)
        if inner is not None:
            visit(inner)
        if isinstance(spec, Arg) and isinstance(spec.domain, Domain):
            label = repr(spec.domain)
            if label not in names:
                names.append(label)

    for case in cases:
        for spec in case.args:
            visit(spec)
    return names


def _dtypes(cases: list[Any]) -> list[str]:
    found = {dtype for case in cases for dtype in case.valid_dtypes()}
    return [d for d in DTYPE_ORDER if d in found] + sorted(found - set(DTYPE_ORDER))


def _arrays_cell(arrays: str) -> str:
    if arrays == "any":
        return "every Array API library (numpy, torch, JAX, dask, CuPy, array-api-strict): see [arrays](../arrays.md)"
    if arrays == "numpy":
        return "numpy arrays only (another library's array gets a `TypeError`)"
    return "the Python and numpy values its function takes"


def _location_cell(entry: Entry) -> str:
    if entry.location is None:
        return "outside this project"
    path, line = entry.location
    text = f"{path}:{line}" if line else path
    target = "../" + source_page(path)
    if line:
        target += f"#__codelineno-0-{line}"
    return f"[{_code(text)}]({target})"


def _entry_text(entry: Entry) -> str:
    lines = [f"## {_code(entry.name)} {{ #{anchor(entry.name)} }}", ""]
    from chainrules.cli import _arrays_text, modes_text

    modes = modes_text(entry.row.modes)
    kinds = {r.kind for r in entry.row.records}
    status = []
    if "non_differentiable" in kinds:
        status.append("non-differentiable: its rules return `NoTangent()` for every argument")
    if "opt_out" in kinds:
        refused = [s.removeprefix("not ") for s in entry.row.signatures if s.startswith("not ")]
        status.append("opted out for " + ", ".join(refused))
    rows = [("modes", _code(modes))]
    if status:
        rows.append(("status", "; ".join(status)))
    kinks = [c for c in entry.cases if not c.smooth]
    count = f"{len(entry.cases)}"
    if kinks:
        count += f" ({len(kinks)} at non-smooth points)"
    rows.append(("declared cases", count if entry.cases else "none"))
    if entry.cases:
        rows.append(("dtypes", ", ".join(_dtypes(entry.cases)) or "none"))
        domains = _domains(entry.cases)
        if domains:
            rows.append(("domains", "; ".join(domains)))
    rows.append(("arrays", _arrays_cell(_arrays_text(entry.row))))
    rows.append(("rule", _location_cell(entry)))
    if len(entry.row.families) > 1:
        rows.append(("families", ", ".join(entry.row.families)))
    if entry.row.signatures != ["any"]:
        rows.append(("signatures", "; ".join(_code(s) for s in entry.row.signatures)))
    lines += [f"- **{key}**: {value}" for key, value in rows]
    notes = []
    for case in kinks:
        notes.append(f"non-smooth point checked at its convention: {_code(case.label)}")
    for refusal in entry.library_refusals:
        where = refusal.library or "every other library"
        dtypes = f" ({', '.join(refusal.dtypes)})" if refusal.dtypes else ""
        cases = f", cases {_code(refusal.cases)}" if refusal.cases else ""
        notes.append(f"refused on {where}{dtypes}{cases}: {refusal.why}")
    for refusal in entry.order2_refusals:
        notes.append(f"second order refused for {_code(refusal.label)}: {refusal.reason}")
    lines += [f"- {note}" for note in notes]
    return "\n".join(lines) + "\n"


def _family_text(family: str, group: list[Entry]) -> str:
    module = f"chainrules/rules/{family.replace('.', '/')}.py"
    source = ROOT / module
    if not source.exists():
        source = ROOT / module.removesuffix(".py") / "__init__.py"
    where = (
        f"Its rules are in [{_code(_relative(str(source)) or module)}](../{source_page(_relative(str(source)))})."
        if source.exists()
        else f"Its rules are registered by {_code(family)}."
    )
    head = [
        f"# {family}",
        "",
        f"{len(group)} primals, generated from the registry when the site was built. {where} "
        "*dtypes* are those the declared cases run (`python -m chainrules check`); *arrays* follows "
        "`python -m chainrules rules`.",
        "",
    ]
    return "\n".join(head) + "\n" + "\n".join(_entry_text(e) for e in group)


def _index_text(groups: dict[str, list[Entry]]) -> str:
    total = sum(len(g) for g in groups.values())
    lines = [
        "# Rule catalogue",
        "",
        f"Every registered primal ({total:,}), one page per family, generated from the registry "
        "(`chainrules_core.frule`, `chainrules_core.rrule`) and the declared cases "
        "(`chainrules_core.testing.registered_cases`) when this site was built. Search for a function by "
        "name (`svd`, `gammainc`). Functions without rules, and why: [unsupported](unsupported.md).",
        "",
        "| family | primals | declared cases |",
        "| --- | --- | --- |",
    ]
    for family, group in groups.items():
        cases = sum(len(e.cases) for e in group)
        lines.append(f"| [{family}]({family}.md) | {len(group)} | {cases} |")
    return "\n".join(lines) + "\n"


def _unsupported_text() -> str:
    from chainrules.checks.unsupported import UNSUPPORTED, candidates_without_rules

    present = set(candidates_without_rules())
    lines = [
        "# Functions without rules",
        "",
        "The functions a user may expect rules for (`chainrules/checks/candidates.txt`: those other frameworks "
        "differentiate) that have none, each with the reason (`chainrules.checks.unsupported.UNSUPPORTED`). "
        "A test holds this list and the registry together.",
        "",
    ]
    for name, reason in UNSUPPORTED.items():
        absent = "" if name in present else " (not in the installed libraries)"
        lines += [f"## {_code(name)} {{ #{anchor(name)} }}", "", reason + absent, ""]
    return "\n".join(lines)


def _source_text(path: str) -> str:
    code = (ROOT / path).read_text()
    return "\n".join(
        [
            "---",
            "search:",
            "  exclude: true",
            "---",
            "",
            f"# {path}",
            "",
            '```python linenums="1"',
            code.rstrip("\n"),
            "```",
            "",
        ]
    )


def catalogue_pages() -> dict[str, str]:
    """Every generated page: its path under the site's ``docs_dir`` and its Markdown."""
    groups: dict[str, list[Entry]] = {}
    for entry in entries():
        groups.setdefault(entry.family, []).append(entry)
    pages = {f"{CATALOGUE}/index.md": _index_text(groups), f"{CATALOGUE}/unsupported.md": _unsupported_text()}
    sources: set[str] = set()
    for family, group in groups.items():
        pages[family_page(family)] = _family_text(family, group)
        sources.update(e.location[0] for e in group if e.location is not None)
        module = ROOT / f"chainrules/rules/{family.replace('.', '/')}.py"
        package = ROOT / f"chainrules/rules/{family.replace('.', '/')}/__init__.py"
        sources.update(_relative(str(p)) for p in (module, package) if p.exists())
    for path in sorted(sources):
        pages[source_page(path)] = _source_text(path)
    return pages


def families() -> list[str]:
    """The family pages, in the catalogue's order (for the navigation)."""
    return sorted({e.family for e in entries()})


# ----- the mkdocs hooks -----

_PAGES: dict[str, str] = {}


def on_config(config: Any) -> Any:
    """Generate the pages, and list the catalogue's in the navigation under ``Rule catalogue``."""
    _PAGES.clear()
    _PAGES.update(catalogue_pages())
    family_pages = sorted(p for p in _PAGES if p.startswith(f"{CATALOGUE}/") and p.count("/") == 1)
    listed = [f"{CATALOGUE}/index.md"] + [
        p for p in family_pages if p not in (f"{CATALOGUE}/index.md", f"{CATALOGUE}/unsupported.md")
    ]
    listed.append(f"{CATALOGUE}/unsupported.md")
    for item in config["nav"] or []:
        if isinstance(item, dict) and "Rule catalogue" in item:
            item["Rule catalogue"] = [
                {"Families": p} if p.endswith("index.md") else {Path(p).stem: p}
                for p in listed
                if not p.endswith("unsupported.md")
            ] + [{"Functions without rules": f"{CATALOGUE}/unsupported.md"}]
    return config


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages to the build."""
    from mkdocs.structure.files import File

    for path, text in _PAGES.items():
        files.append(File.generated(config, path, content=text))
    return files


_ID = re.compile(r'\bid="([^"]+)"')


def on_page_content(html: str, page: Any, **kwargs: Any) -> str:
    """Make the numbered lines of a source page known as anchors (``#__codelineno-0-42``), which the
    highlighter adds after mkdocs has collected the page's anchors, so that links to them validate."""
    if page.file.src_uri.startswith(f"{SOURCE}/") and page.present_anchor_ids is not None:
        page.present_anchor_ids.update(_ID.findall(html))
    return html
