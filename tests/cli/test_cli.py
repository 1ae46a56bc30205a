"""python -m chainrules rules / check."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import chainrules
import chainrules_core.testing
from chainrules import cli
from chainrules_core import NoTangent, rrule
from chainrules_core.testing.cases import REALS, Arg, Case

HEADERS = ["case", "dtype", "mode", "status", "evals", "worst error", "time"]
FAMILY_HEADERS = ["family", "primals", "runs", "passed", "failed", "worst error", "time"]


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.split("|")[1:-1]]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(list(argv), out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def test_rules_lists_primals_with_modes_family_and_types() -> None:
    status, out, _ = run("rules", "reduce")
    assert status == 0
    line = next(row for row in out.splitlines() if row.startswith("| functools.reduce"))
    assert cells(line)[1:] == ["frule, rrule (config)", "numpy.higher_order", "any", ""]
    sin = next(row for row in run("rules", "np.sin")[1].splitlines() if row.startswith("| np.sin "))
    det = next(row for row in run("rules", "np.linalg.eig")[1].splitlines() if row.startswith("| np.linalg.eig "))
    assert cells(sin)[-1] == "any" and cells(det)[-1] == "numpy"  # generic rules, and numpy's alone


def test_rules_shows_non_differentiable_and_typed_rules() -> None:
    def count(x: Any) -> Any:
        return len(x)

    def typed(x: Any) -> Any:
        return x

    from chainrules_core import non_differentiable

    non_differentiable(count)
    rrule.register(typed, np.ndarray)(lambda f, x: (x, lambda y_bar: (NoTangent(), y_bar)))
    _, out, _ = run("rules", "*test_rules_shows*")
    assert "non-differentiable" in next(r for r in out.splitlines() if ".count " in r)
    assert "(ndarray)" in next(r for r in out.splitlines() if ".typed " in r)


def test_rules_pattern_that_matches_nothing_fails() -> None:
    status, out, _ = run("rules", "no-such-primal-anywhere")
    assert status == 1 and "no registered primal" in out


def test_check_summarises_the_families() -> None:
    """By default: one row per family, then the totals; no row per run."""
    status, out, err = run("check", "apply_along_axis", "--dtype", "float64,float32", "--no-progress")
    assert status == 0
    lines = out.splitlines()
    assert cells(lines[0]) == FAMILY_HEADERS
    family = cells(lines[2])
    assert family[:5] == ["numpy.higher_order", "1", "12", "12", "0"] and float(family[5]) < 1e-6
    assert lines[-2].startswith("12 runs of 1 family in ") and lines[-1] == "12 passed, 0 failed"
    assert "checking 12 runs of 3 declared cases" in err and "complex128" not in out


def test_check_verbose_lists_every_run() -> None:
    status, out, err = run("check", "reduce", "--mode", "rrule", "--seed", "3", "--verbose")
    assert status == 0
    lines = out.splitlines()
    assert cells(lines[0]) == HEADERS
    assert "| frule |" not in out and "| rrule |" in out
    assert max(len(line) for line in lines) <= 100


def test_check_progress_off_a_terminal_is_quiet_for_a_short_run() -> None:
    """Off a terminal, a progress line comes every few seconds of a long run; a short run prints none."""
    status, _, err = run("check", "np.tanh", "--dtype", "float64")
    assert status == 0 and err.splitlines() == ["checking 8 runs of 4 declared cases (seed 0)"]


def test_check_fails_on_a_wrong_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wrong rule makes check exit 1, list it as FAIL and print the harness's message."""

    def wrong(x: Any) -> Any:
        return x * x

    rrule.register(wrong)(lambda f, x: (x * x, lambda y_bar: (NoTangent(), 3 * x * y_bar)))
    cases = [("mine", Case(wrong, (Arg(REALS, (3,)),), dtypes=("float64",), modes=("rrule",)))]
    monkeypatch.setattr(chainrules_core.testing, "registered_cases", lambda: cases)
    status, out, _ = run("check", "--no-progress")
    assert status == 1
    assert cells(out.splitlines()[2])[:5] == ["mine", "1", "1", "0", "1"]
    assert float(cells(out.splitlines()[2])[5]) > 0.1  # every run failed: the error they failed on
    assert "\nFAIL " in out and "[rrule]" not in out and "[float64, rrule] (mine)\n    [pullback]" in out
    assert out.splitlines()[-2:] == [out.splitlines()[-2], "0 passed, 1 failed"]
    assert out.splitlines()[-2].startswith("1 run of 1 family in ")
    status, out, _ = run("check", "--no-progress", "--verbose", "--failures-only", "-x")
    assert status == 1 and out.count("| FAIL ") == 1


def test_check_with_a_pattern_that_matches_nothing_fails() -> None:
    status, out, _ = run("check", "no-such-case", "--no-progress")
    assert status == 1 and "no declared case" in out


def test_version_is_the_package_s(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        cli.main(["--version"])
    assert exit.value.code == 0
    assert capsys.readouterr().out == f"chainrules {chainrules.__version__}\n"


def test_check_says_which_families_it_skipped_and_why(monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli.skipped_families() == {}  # scipy is installed with the tests
    monkeypatch.setitem(sys.modules, "scipy.linalg", None)  # as if scipy.linalg were not installed
    status, out, _ = run("check", "np.tanh", "--no-progress", "--dtype", "float64")
    assert status == 0
    last = out.splitlines()[-1]
    families = sorted(f"scipy.linalg.{p.stem}" for p in Path(cli.__file__).parent.glob("rules/scipy/linalg/[!_]*.py"))
    assert last.startswith(f"skipped {len(families)} families (scipy.linalg.factorizations, scipy.linalg.matfuncs, ")
    assert last.endswith("): scipy is not installed (pip install 'chainrules[scipy]')")
    assert cli.skipped_families()["scipy.linalg"] == families


def test_bad_mode_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as exit_info:
        run("check", "--mode", "sideways")
    assert exit_info.value.code == 2


def test_module_entry_point() -> None:
    """python -m chainrules runs the command line."""
    result = subprocess.run(
        [sys.executable, "-m", "chainrules", "check", "reduce", "--dtype", "float64", "--no-progress"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1].endswith("passed, 0 failed")


def test_every_shipped_rule_has_a_family() -> None:
    """Rules made by helpers are listed under the family that registered them, not the helper's module."""
    import pkgutil

    import chainrules.rules

    families = {
        m.name.removeprefix("chainrules.rules.")
        for m in pkgutil.walk_packages(chainrules.rules.__path__, "chainrules.rules.")
        if not m.ispkg and not any(part.startswith("_") for part in m.name.split("."))
    }
    listing = "from chainrules import cli\nfor row in cli.primal_rows():\n    print(row.name, *row.families)"
    result = subprocess.run(  # a fresh process: only the shipped rules
        [sys.executable, "-c", listing], capture_output=True, text=True, check=True
    )
    rows = [line.split() for line in result.stdout.splitlines()]
    assert len(rows) > 100
    families.add("chainrules_core.rule_definition")  # LinearAdjoint, a rule of the core's own
    for name, *listed in rows:
        assert set(listed) <= families, (name, listed)


def test_a_closed_pipe_is_not_an_error() -> None:
    """``python -m chainrules rules | head -1`` ends quietly."""
    result = subprocess.run(
        f"{sys.executable} -m chainrules rules | head -1", shell=True, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert result.stdout.startswith("| primal")
    assert "Traceback" not in result.stderr


def documented_module(name: str) -> str:
    """The code block of docs/rule-authors.md that starts with ``# name``."""
    text = (Path(__file__).parents[2] / "docs" / "rule-authors.md").read_text()
    start = text.index(f"```python\n# {name}\n") + len("```python\n")
    return text[start : text.index("```", start)]


def run_in(folder: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``python -m chainrules ...`` from ``folder``, with this checkout's packages."""
    root = Path(__file__).parents[2]
    return subprocess.run(
        [sys.executable, "-m", "chainrules", *argv],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        check=False,
    )


def test_import_a_library_and_check_its_declared_cases(tmp_path: Path) -> None:
    """docs/rule-authors.md's worked example: a library's rules and cases through --import."""
    (tmp_path / "mylib.py").write_text(documented_module("mylib.py"))
    result = run_in(tmp_path, "check", "--import", "mylib", "--no-progress")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert cells(lines[2])[:5] == ["mylib", "2", "9", "9", "0"]
    assert lines[-2].startswith("9 runs of 1 family in ") and lines[-1] == "9 passed, 0 failed"
    result = run_in(tmp_path, "rules", "--import", "mylib", "mylib")
    rows = [cells(line) for line in result.stdout.splitlines()[2:4]]
    assert rows == [
        ["mylib.softplus", "frule, rrule", "mylib", "any", ""],
        ["mylib.weighted_power", "rrule", "mylib", "any", ""],
    ]
    assert result.stdout.splitlines()[-1] == "2 primals"


USER_MODULE = Path(__file__).with_name("softpluslib.py")


def test_a_library_s_correct_rules_pass_with_no_shape_code(tmp_path: Path) -> None:
    """Rules as the README writes them (``unthunk``, no check of a seed's shape) pass ``check --import``."""
    (tmp_path / "softpluslib.py").write_text(USER_MODULE.read_text())
    result = run_in(tmp_path, "check", "--import", "softpluslib", "--no-progress")
    assert result.returncode == 0, result.stdout + result.stderr
    assert cells(result.stdout.splitlines()[2])[:5] == ["softpluslib", "1", "8", "8", "0"]


def test_a_planted_error_fails_its_rule_alone_naming_the_argument(tmp_path: Path) -> None:
    """A factor 2 in the rrule's cotangent of w fails the rrule runs, naming w; the frule runs, whose rule is
    right, pass: one wrong rule, one failure per case and dtype."""
    right = "softplus * out_bar\n"
    source = USER_MODULE.read_text()
    assert source.count(right) == 1
    (tmp_path / "softpluslib.py").write_text(source.replace(right, "2 * softplus * out_bar\n"))
    result = run_in(tmp_path, "check", "--import", "softpluslib", "--no-progress", "--verbose")
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    runs = [cells(line) for line in out.splitlines() if line.startswith("| softpluslib.wsoftplus")]
    assert {(mode, status) for _, _, mode, status, *_ in runs} == {("frule", "pass"), ("rrule", "FAIL")}
    assert all(float(row[5]) > 0.1 for row in runs if row[3] == "FAIL")  # the error each failed on
    assert out.count("\nFAIL ") == 4 and out.count("[pullback] softpluslib.wsoftplus: argument 2 (w):") == 4
    assert "(ratio 2)" in out and "argument 1 (x)" not in out and out.splitlines()[-1] == "4 passed, 4 failed"


def test_the_worst_error_of_a_family_whose_every_run_fails(tmp_path: Path) -> None:
    """Where no run passed, the family's worst error is the failed runs'."""
    source = USER_MODULE.read_text().replace("softplus * out_bar\n", "2 * softplus * out_bar\n")
    (tmp_path / "softpluslib.py").write_text(source.replace("+ softplus * w_dot", "+ 2 * softplus * w_dot"))
    result = run_in(tmp_path, "check", "--import", "softpluslib", "--no-progress")
    assert result.returncode == 1, result.stdout + result.stderr
    family = cells(result.stdout.splitlines()[2])
    assert family[:5] == ["softpluslib", "1", "8", "0", "8"] and float(family[5]) > 0.1


def test_an_import_that_declares_no_case_fails(tmp_path: Path) -> None:
    """A CI job whose --import declares nothing checks nothing: it fails, naming the module, in both sweeps."""
    (tmp_path / "empty_rules.py").write_text("import numpy as np\n")
    for extra in ((), ("--edges",)):
        result = run_in(tmp_path, "check", "--import", "empty_rules", "--no-progress", *extra)
        assert result.returncode == 1, result.stdout + result.stderr
        assert "--import empty_rules declared no case" in result.stderr


def test_an_import_that_fails_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("import numpy as np\nraise ValueError('not today')\n")
    status, out, err = run("check", "--import", "no_such_module_anywhere")
    assert status == 2 and "--import no_such_module_anywhere: ModuleNotFoundError" in err
    result = run_in(tmp_path, "rules", "--import", "broken")
    assert result.returncode == 2 and "--import broken: ValueError: not today (at " in result.stderr


def test_a_directory_named_chainrules_in_the_way_is_named(tmp_path: Path) -> None:
    """From the folder holding a clone named chainrules, Python imports the clone's folder as a namespace package."""
    shadow = types.ModuleType("chainrules")
    shadow.__file__ = None
    shadow.__path__ = [str(tmp_path / "chainrules")]
    message = cli.shadowing_problem(shadow)
    assert message is not None and f"shadowed by the directory {tmp_path / 'chainrules'}" in message
    assert cli.shadowing_problem(chainrules) is None


def test_rules_fit_100_columns_and_escape_bars() -> None:
    status, out, _ = run("rules")
    assert status == 0 and max(len(line) for line in out.splitlines()) <= 100
    assert all(line.count("|") - line.count("\\|") == 6 for line in out.splitlines() if line.startswith("|"))
    status, out, _ = run("rules", "operator.pow")
    assert "(Number | ndarray | generic, Number | ndarray | generic)" in out  # in full below a short table


def test_labels_show_values_not_reprs() -> None:
    from chainrules_core.testing import registered_cases

    status, out, _ = run("check", "*dtype=float64*", "--mode", "rrule", "-v", "--no-progress")
    assert status == 0 and "dtype=float64" in out and "<class" not in out and "np.float64(" not in out
    labels = [case.label for _, case in registered_cases()]
    reprs = re.compile(r"np\.float64\(|<class|array\(\[")
    assert not [label for label in labels if reprs.search(label)]


def test_plurals() -> None:
    status, out, err = run("check", "np.tanh", "--dtype", "float64", "--mode", "rrule", "--no-progress")
    assert "1 family in" in out and "4 runs of 4 declared cases" in err
    status, out, err = run("check", "np.tanh(scalar)", "--dtype", "float64", "--mode", "rrule", "--no-progress")
    assert "1 run of 1 family" in out and "checking 1 run of 1 declared case" in err


def test_no_private_helper_is_listed_as_a_primal() -> None:
    """Every listed primal is a public name: no part of it starts with a single underscore."""
    listing = "from chainrules import cli\nfor row in cli.primal_rows():\n    print(row.name)"
    result = subprocess.run([sys.executable, "-c", listing], capture_output=True, text=True, check=True)
    names = result.stdout.split()
    private = [n for n in names if any(p.startswith("_") and not p.startswith("__") for p in n.split("."))]
    assert len(names) > 100 and not private, private
