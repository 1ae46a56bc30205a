"""The command line: ``python -m chainrules rules [PATTERN]`` and ``python -m chainrules check [PATTERN]``.

``rules`` lists every registered primal with its modes, family and argument
types. ``check`` runs the finite-difference harness on every declared case
(the ones the test suite runs), shows progress, prints a summary by family
and the failures in full, and exits non-zero if any check fails. Both take
``--import MODULE`` to load a library's own rules and declared cases.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib
import importlib.util
import os
import sys
import time
import traceback
import types
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

import chainrules  # registers the rules
from chainrules_core import RuleRecord, frule, rrule
from chainrules_core.array_api import is_numpy_function
from chainrules_core.naming import function_name, plural

if TYPE_CHECKING:
    from chainrules_core.testing.cases import Case

_RULES_PACKAGE = "chainrules.rules."

OPTIONAL_LIBRARIES = ("scipy.special", "scipy.linalg")
"""Libraries whose rules register when they are imported: the commands import those that are installed."""

WIDTH = 100
"""The widest line a table may print."""


class UsageError(Exception):
    """A problem the command line reports in one line, with exit status 2."""


def _import_optional_libraries() -> dict[str, str]:
    """Import the optional libraries that are installed; why each of the others could not be, by name."""
    missing = {}
    for name in OPTIONAL_LIBRARIES:
        try:
            importlib.import_module(name)
        except ImportError as err:
            missing[name] = f"{type(err).__name__}: {err}"
    return missing


def skipped_families() -> dict[str, list[str]]:
    """The families whose library is not installed, by library: their rules and cases are not registered.

    Read off the files of ``chainrules/rules/<library>/``, without importing them.
    """
    import pkgutil

    skipped = {}
    for library in _import_optional_libraries():
        spec = importlib.util.find_spec(f"{_RULES_PACKAGE}{library}")
        where = list(spec.submodule_search_locations or []) if spec is not None else []
        skipped[library] = sorted(
            f"{library}.{info.name}" for info in pkgutil.iter_modules(where) if not info.name.startswith("_")
        )
    return skipped


def skipped_text(skipped: dict[str, list[str]]) -> str:
    """What ``check`` says of the families it could not run, and how to run them."""
    families = [family for group in skipped.values() for family in group]
    libraries = sorted({library.split(".")[0] for library in skipped})
    return (
        f"skipped {plural(len(families), 'family')} ({', '.join(families)}): {', '.join(libraries)} "
        f"{'is' if len(libraries) == 1 else 'are'} not installed (pip install 'chainrules[scipy]')"
    )


def shadowing_problem(package: types.ModuleType) -> str | None:
    """Why ``package`` is not the installed ``chainrules``: a directory of that name in the way, or ``None``.

    From the folder that holds a clone named ``chainrules``, Python takes the
    clone's directory for a namespace package and never runs the real
    ``chainrules/__init__.py``: no rule would be registered.
    """
    if getattr(package, "__file__", None) is not None:
        return None
    where = ", ".join(str(p) for p in getattr(package, "__path__", [])) or "a directory named chainrules"
    return (
        f"chainrules is shadowed by the directory {where}: Python imports that directory, which has no "
        "__init__.py, instead of the installed package; run the command from another directory"
    )


def import_modules(names: Sequence[str]) -> list[Case]:
    """Import each module ``--import`` names, from the current directory too; the cases they declare.

    ``UsageError`` names a module that cannot be imported, and why.
    """
    from chainrules_core.testing import registered_cases

    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())  # as `python -m` does; the installed `chainrules` script does not
    known = {id(case) for _, case in registered_cases()}
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as err:
            where = traceback.extract_tb(err.__traceback__)[-1]
            raise UsageError(
                f"--import {name}: {type(err).__name__}: {err} (at {where.filename}:{where.lineno})"
            ) from err
    return [case for _, case in registered_cases() if id(case) not in known]


# ----- names, families, patterns -----


def primal_name(primal: Any) -> str:
    """How a primal is shown: ``np.sin``, ``operator.add``, ``np.ndarray.sum``, ``type[Point]``, ``Multiplier``."""
    if isinstance(primal, types.GenericAlias):
        return f"type[{primal_name(primal.__args__[0])}]"
    return function_name(primal)


def _matches(pattern: str | None, *texts: str) -> bool:
    if not pattern:
        return True
    pattern = pattern.lower()
    if any(c in pattern for c in "*?["):
        return any(fnmatch.fnmatchcase(t.lower(), pattern) for t in texts)
    return any(pattern in t.lower() for t in texts)


def _family_from_module(module: str) -> str | None:
    """``numpy.elementwise`` for ``chainrules.rules.numpy.elementwise``; ``None`` for helpers (``_arrays``,
    ``numpy.linalg._common``) and other modules."""
    if not module.startswith(_RULES_PACKAGE):
        return None
    name = module[len(_RULES_PACKAGE) :]
    return None if any(part.startswith("_") for part in name.split(".")) else name


def rule_family(record: RuleRecord) -> str:
    """The family of a rule: the module under ``chainrules.rules`` that registered it, else that module."""
    return _family_from_module(record.module) or record.module


def _type_names(arg_types: Sequence[Any]) -> str:
    def name(t: Any) -> str:
        if isinstance(t, tuple):
            return " | ".join(name(u) for u in t)
        return getattr(t, "__name__", repr(t))

    return "(" + ", ".join(name(t) for t in arg_types) + ")"


# ----- rules -----


@dataclass
class _PrimalRow:
    name: str
    modes: dict[str, set[str]]
    families: list[str]
    signatures: list[str]
    generic: bool = False
    """Whether a rule of the primal runs on every Array API library (``RuleRecord.generic``)."""
    numpy: bool = False
    records: list[RuleRecord] = field(default_factory=list)
    """The registrations of the primal, frule's then rrule's."""


def _mode_label(mode: str, record: RuleRecord) -> str:
    if record.kind == "non_differentiable":
        return "non-differentiable"
    if record.kind == "opt_out":
        return f"{mode} opt-out"
    if record.kind == "refusal":
        return "refuses"
    return f"{mode} (config)" if record.config else mode


def primal_rows(pattern: str | None = None) -> list[_PrimalRow]:
    """One row per registered primal matching ``pattern``, in registration order."""
    rows: dict[Any, _PrimalRow] = {}
    for mode, registry in (("frule", frule), ("rrule", rrule)):
        for record in registry.records():
            key = record.primal if isinstance(record.primal, types.GenericAlias) else id(record.primal)
            row = rows.get(key)
            if row is None:
                row = rows[key] = _PrimalRow(primal_name(record.primal), {}, [], [])
                row.numpy = is_numpy_function(record.primal)
            row.records.append(record)
            row.generic = row.generic or record.generic
            row.modes.setdefault(mode, set()).add(_mode_label(mode, record))
            family = rule_family(record)
            if family not in row.families:
                row.families.append(family)
            signature = "any" if record.arg_types is None else _type_names(record.arg_types)
            if record.kind == "opt_out":
                signature = f"not {signature}"
            if signature not in row.signatures:
                row.signatures.append(signature)
    return [row for row in rows.values() if not _is_private(row.name) and _matches(pattern, row.name, *row.families)]


def _is_private(name: str) -> bool:
    """A primal of a private module (``chainrules.engines._passes._entries``): the machinery of other rules."""
    return any(part.startswith("_") and not part.startswith("__") for part in name.split("."))


def modes_text(modes: dict[str, set[str]]) -> str:
    """``frule, rrule``; ``rrule``; ``non-differentiable``; ``frule, rrule (config)``; ``frule, rrule; non-diff``."""
    labels = {label for group in modes.values() for label in group}
    plain = [m for m in ("frule", "rrule") if m in labels]
    configured = [m for m in ("frule", "rrule") if f"{m} (config)" in labels]
    parts = []
    if plain:
        parts.append(", ".join(plain))
    if configured:
        parts.append(", ".join(configured) + " (config)")
    parts += sorted(label for label in labels if label.endswith("opt-out"))
    if "non-differentiable" in labels:
        parts.append("non-diff" if parts else "non-differentiable")
    if "refuses" in labels:
        parts.append("refuses")
    return "; ".join(parts)


def _types_text(signatures: list[str]) -> str:
    """``any``, a short signature such as ``(ndarray)``, or how many there are (``rules PATTERN`` shows them)."""
    if len(signatures) == 1 and len(signatures[0]) <= 14:
        return signatures[0]
    return plural(len(signatures), "signature")


def _arrays_text(row: _PrimalRow) -> str:
    """``any`` for a primal whose rules run on every Array API library, ``numpy`` for a numpy function whose rules
    run on numpy's arrays alone, empty for the rest (``math``, ``operator``, scipy, a user's functions)."""
    return "any" if row.generic else "numpy" if row.numpy else ""


def list_rules(pattern: str | None, out: TextIO) -> int:
    _import_optional_libraries()
    rows = sorted(primal_rows(pattern), key=lambda r: (r.families[0], r.name))
    if not rows:
        print(f"no registered primal matches {pattern!r}" if pattern else "no rules are registered", file=out)
        return 1 if pattern else 0
    table = [
        (
            row.name,
            modes_text(row.modes),
            row.families[0] + (f" +{len(row.families) - 1}" if len(row.families) > 1 else ""),
            _types_text(row.signatures),
            _arrays_text(row),
        )
        for row in rows
    ]
    headers = ("primal", "modes", "family", "types", "arrays")
    print(table_text(headers, table, cut_first=(3, 2), keep_ends=(0, 2)), file=out)
    if len(rows) <= 10:  # a few rows: what the table summarised, in full
        for row in rows:
            if len(row.families) > 1 or _types_text(row.signatures) != row.signatures[0]:
                print(f"\n{row.name}: {', '.join(row.families)}; {'; '.join(row.signatures)}", file=out)
    print(f"\n{plural(len(rows), 'primal')}", file=out)
    return 0


# ----- check -----


@dataclass
class CheckRun:
    """The outcome of one (case, dtype, mode)."""

    family: str
    case: Case
    dtype: str
    mode: str
    status: str = "pending"
    evaluations: int = 0
    max_relative_error: float = 0.0
    seconds: float = 0.0
    message: str = ""
    order: int = 1
    refusal: Any = None
    """The ``Order2Refusal`` declared for this run (second order), if any: a failure is then ``refused``."""

    @property
    def failed(self) -> bool:
        return self.status not in ("pass", "refused")


def planned_runs(
    pattern: str | None,
    dtypes: Sequence[str] | None = None,
    modes: Sequence[str] | None = None,
    only: Sequence[Case] | None = None,
    order: int = 1,
) -> list[CheckRun]:
    """Every (case, dtype, mode) of the declared cases that matches the filters.

    ``only``: these cases (those ``--import`` declared) rather than every
    case of this package.
    """
    _import_optional_libraries()
    if only is None:
        import chainrules.checks  # noqa: F401 - registers the declared cases (and imports the harness)
    from chainrules_core.testing import registered_cases

    chosen = None if only is None else {id(case) for case in only}
    runs = []
    for family, case in registered_cases():
        if chosen is not None and id(case) not in chosen:
            continue
        if not _matches(pattern, case.label, family, function_name(case.f)):
            continue
        for dtype, mode in case.expand():
            if (dtypes and dtype not in dtypes) or (modes and mode not in modes):
                continue
            refusal = None
            if order == 2:
                from chainrules.testing.second_order import order2_refusal

                refusal = order2_refusal(family, case, dtype, mode)
            runs.append(CheckRun(family, case, dtype, mode, order=order, refusal=refusal))
    return runs


def run_one(run: CheckRun, seed: int) -> CheckRun:
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if run.order == 2:
                from chainrules.testing.second_order import run_case_order2

                report = run_case_order2(run.case, run.dtype, run.mode, seed)
            else:
                report = run.case.run(run.dtype, run.mode, seed)
    except AssertionError as err:
        run.status, run.message = "FAIL", str(err)
        report = getattr(err, "report", None)  # the harness's report as it stood at the failure
        if report is not None:
            run.evaluations, run.max_relative_error = report.evaluations, report.max_relative_error
    except Exception as err:  # a crash in a rule or in its inputs is a failure of the check too
        run.status, run.message = "ERROR", f"{type(err).__name__}: {err}"
    else:
        run.status = "pass"
        run.evaluations = report.evaluations
        run.max_relative_error = report.max_relative_error
    if run.refusal is not None and run.status != "pass":
        run.status = "refused"
    run.seconds = time.perf_counter() - start
    return run


class Progress:
    """A progress bar on a terminal; elsewhere (CI logs) a line every few seconds of a long run."""

    EVERY = 5.0
    """Seconds between two lines of progress off a terminal."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = total
        self.stream = stream
        self.interactive = stream.isatty()
        self.start = self.last = time.perf_counter()
        self.failed = 0

    def update(self, done: int, run: CheckRun) -> None:
        self.failed += run.failed
        now = time.perf_counter()
        final = done == self.total
        if self.interactive:
            if final or now - self.last > 0.1:
                width = 30
                filled = width * done // self.total
                bar = "#" * filled + "." * (width - filled)
                label = run.case.label[:40]
                text = f"\r[{bar}] {done}/{self.total} {now - self.start:5.1f}s {self.failed} failed  {label:<40}"
                self.stream.write(text + ("\n" if final else ""))
                self.stream.flush()
                self.last = now
        elif now - self.last >= self.EVERY:
            percent = 100 * done // self.total
            self.stream.write(
                f"check: {done}/{self.total} ({percent}%), {now - self.start:.0f}s, {self.failed} failed\n"
            )
            self.stream.flush()
            self.last = now


def run_checks(
    runs: Sequence[CheckRun], seed: int, progress: Progress | None, exitfirst: bool = False
) -> list[CheckRun]:
    done = []
    for i, run in enumerate(runs, start=1):
        done.append(run_one(run, seed))
        if progress is not None:
            progress.update(i, run)
        if exitfirst and run.failed:
            break
    return done


def runs_table(runs: Iterable[CheckRun]) -> str:
    """One row per run: ``--verbose``. A failed run shows the evaluations it made and the error it failed on."""
    rows = [
        (
            r.case.label,
            r.dtype,
            r.mode,
            r.status,
            r.evaluations if not r.failed else r.evaluations or "",
            _error_text(r.max_relative_error, measured=not r.failed),
            f"{r.seconds:.2f}s",
        )
        for r in runs
    ]
    return table_text(("case", "dtype", "mode", "status", "evals", "worst error", "time"), rows, cut_first=(0,))


def _error_text(error: float, measured: bool) -> str:
    """``3.3e-01``; ``-`` for failed runs that made no comparison (they failed on a type, or raised)."""
    return f"{error:.1e}" if measured or error > 0 else "-"


def families_table(runs: Sequence[CheckRun]) -> str:
    """One row per family: primals, runs, passes, failures (refusals, if any), worst error, time.

    The worst error is that of the runs that passed; where none did, that of the failed runs (each the error it
    failed on, or the worst before it).
    """
    by_family: dict[str, list[CheckRun]] = {}
    for r in runs:
        by_family.setdefault(r.family, []).append(r)
    any_refused = any(r.status == "refused" for r in runs)
    rows = []
    for family, group in by_family.items():
        passed = [r for r in group if r.status == "pass"]
        refused = sum(r.status == "refused" for r in group)
        worst = max((r.max_relative_error for r in passed or group), default=None)
        rows.append(
            (
                family,
                len({id(r.case.f) for r in group}),
                len(group),
                len(passed),
                sum(r.failed for r in group),
                *((refused,) if any_refused else ()),
                "" if worst is None else _error_text(worst, measured=bool(passed)),
                f"{sum(r.seconds for r in group):.1f}s",
            )
        )
    headers = ("family", "primals", "runs", "passed", "failed", *(("refused",) if any_refused else ()))
    return table_text((*headers, "worst error", "time"), rows)


def check(
    pattern: str | None,
    dtypes: Sequence[str] | None,
    modes: Sequence[str] | None,
    seed: int,
    out: TextIO,
    err: TextIO,
    failures_only: bool = False,
    exitfirst: bool = False,
    progress: bool = True,
    verbose: bool = False,
    only: Sequence[Case] | None = None,
    order: int = 1,
) -> int:
    runs = planned_runs(pattern, dtypes, modes, only, order)
    skipped = skipped_families() if only is None else {}
    left_out = 0
    if order == 2:  # no second derivative to check at a declared non-smooth point
        smooth = [r for r in runs if r.case.smooth]
        left_out, runs = len(runs) - len(smooth), smooth
    if not runs:
        if skipped:
            print(skipped_text(skipped), file=out)
        if pattern or dtypes or modes or left_out:
            print("no declared case matches these filters" + (" at a smooth point" if left_out else ""), file=out)
            return 1
        print("no cases are declared\n0 passed, 0 failed", file=out)
        return 0
    cases = len({id(r.case) for r in runs})
    print(f"checking {plural(len(runs), 'run')} of {plural(cases, 'declared case')} (seed {seed})", file=err)
    start = time.perf_counter()
    done = run_checks(runs, seed, Progress(len(runs), err) if progress else None, exitfirst)
    elapsed = time.perf_counter() - start
    failed = [r for r in done if r.failed]
    if verbose:
        shown = failed if failures_only else done
        if shown:
            print(runs_table(shown) + "\n", file=out)
    families = [r for r in done if r.failed or not failures_only]
    if families:
        print(families_table(families), file=out)
    for r in failed:
        lines = r.message.splitlines() or [""]
        hints = [line for line in lines[12:] if line.startswith("hint: ")]  # a long message keeps its hint
        detail = "\n    ".join(lines[:12] + (["..."] if len(lines) > 12 else []) + hints)
        print(f"\n{r.status} {r.case.label} [{r.dtype}, {r.mode}] ({r.family})\n    {detail}", file=out)
    if order == 2 and not exitfirst:
        from chainrules.testing.second_order import order2_summary

        stale = order2_summary(done, left_out, out)
    else:
        stale = 0
    count = len({r.family for r in done})
    print(f"\n{plural(len(done), 'run')} of {plural(count, 'family')} in {elapsed:.1f}s", file=out)
    refused = sum(r.status == "refused" for r in done)
    tail = f", {refused:,} refused" if refused else ""
    print(f"{len(done) - len(failed) - refused:,} passed, {len(failed):,} failed{tail}", file=out)
    if skipped:
        print(skipped_text(skipped), file=out)
    return 1 if failed or stale else 0


# ----- entry point -----


def _split_list(values: Sequence[str] | None) -> list[str] | None:
    if not values:
        return None
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m chainrules",
        description="Derivative rules for numpy and Python: list them, check them against finite differences.",
    )
    p.add_argument("--version", action="version", version=f"chainrules {chainrules.__version__}")
    commands = p.add_subparsers(dest="command", metavar="COMMAND")
    rules = commands.add_parser("rules", help="list every registered primal with its modes, family and argument types")
    rules.add_argument("pattern", nargs="?", help="a substring or glob of the primal's name or family")
    checker = commands.add_parser(
        "check", help="run the finite-difference harness on every declared case; non-zero exit on any failure"
    )
    checker.add_argument("pattern", nargs="?", help="a substring or glob of the case, its function or its family")
    checker.add_argument("--dtype", action="append", help="only these dtypes (repeat, or a comma-separated list)")
    checker.add_argument("--mode", action="append", help="only frule or rrule (repeat, or comma-separated)")
    checker.add_argument("--seed", type=int, default=0, help="the seed of inputs and directions (default 0)")
    checker.add_argument("-v", "--verbose", action="store_true", help="list every run, not only the families")
    checker.add_argument("--failures-only", action="store_true", help="list only families and runs that failed")
    checker.add_argument("-x", "--exitfirst", action="store_true", help="stop at the first failure")
    checker.add_argument("--no-progress", action="store_true", help="no progress output")
    checker.add_argument("--edges", action="store_true", help="sweep the edges of each case's domain (docs/cli.md)")
    checker.add_argument(
        "--order",
        type=int,
        choices=(1, 2),
        default=1,
        help="2: check that pullbacks and pushforwards are differentiable",
    )
    for command in (rules, checker):
        command.add_argument(
            "--import",
            dest="imports",
            action="append",
            metavar="MODULE",
            help="import MODULE first, for its rules and declared cases (repeatable); check then runs only "
            "the cases the imported modules declare",
        )
    return p


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run the command line; the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    p = parser()
    args = p.parse_args(argv)
    problem = shadowing_problem(chainrules)
    imported = None
    try:
        if problem is not None:
            raise UsageError(problem)
        if args.command in ("rules", "check") and args.imports:
            imported = import_modules(args.imports)
    except UsageError as usage:
        print(f"python -m chainrules: {usage}", file=err)
        return 2
    if args.command == "rules":
        return list_rules(args.pattern, out)
    if args.command == "check":
        if imported is not None and not imported:  # a CI job that checks nothing must not pass
            names = ", ".join(args.imports)
            print(
                f"python -m chainrules check: --import {names} declared no case, so there is nothing to check: "
                "declare them with chainrules_core.testing.register_cases (docs/rule-authors.md)",
                file=err,
            )
            return 1
        modes = _split_list(args.mode)
        if modes and not set(modes) <= {"frule", "rrule"}:
            p.error(f"--mode takes frule or rrule, not {', '.join(sorted(set(modes) - {'frule', 'rrule'}))}")
        if args.edges:
            from chainrules.testing.edges import run_edge_sweep

            runs = planned_runs(args.pattern, _split_list(args.dtype), modes, only=imported)
            cases = {id(r.case): (r.family, r.case) for r in runs}.values()
            progress = not args.no_progress
            return run_edge_sweep(cases, modes=modes, seed=args.seed, out=out, err=err, progress=progress)
        return check(
            args.pattern,
            _split_list(args.dtype),
            modes,
            args.seed,
            out,
            err,
            failures_only=args.failures_only,
            exitfirst=args.exitfirst,
            progress=not args.no_progress,
            verbose=args.verbose,
            only=imported,
            order=args.order,
        )
    p.print_help(out)
    return 0


def table_text(
    headers: Sequence[str],
    rows: Sequence[Sequence[Any]],
    width: int = WIDTH,
    cut_first: Sequence[int] = (),
    keep_ends: Sequence[int] = (),
) -> str:
    """A Markdown table with aligned columns, ``|`` escaped in cells, at most ``width`` characters a line.

    Where the natural widths exceed ``width``, columns are narrowed, their
    long cells ending in ``…``: those of ``cut_first`` in that order (each
    down to 12 characters), then the widest. The cells of ``keep_ends``
    columns lose their beginning instead (``…locals>.count``).
    """
    cells = [[str(c).replace("|", "\\|") for c in row] for row in rows]
    widths = [max([len(h)] + [len(row[i]) for row in cells]) for i, h in enumerate(headers)]
    excess = sum(widths) + 3 * len(headers) + 1 - width
    for i in cut_first:
        cut_by = min(max(excess, 0), max(widths[i] - max(len(headers[i]), 12), 0))
        widths[i] -= cut_by
        excess -= cut_by
    while excess > 0:
        widest = max(range(len(widths)), key=lambda i: widths[i])
        if widths[widest] <= max(len(headers[widest]), 8):
            break
        widths[widest] -= 1
        excess -= 1

    def cut(text: str, w: int, i: int) -> str:
        if len(text) <= w:
            return text
        return "…" + text[1 - w :] if i in keep_ends else text[: w - 1].removesuffix("\\") + "…"

    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(cut(v, w, i).ljust(w) for i, (v, w) in enumerate(zip(values, widths))) + " |"

    return "\n".join([line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, cells)])
