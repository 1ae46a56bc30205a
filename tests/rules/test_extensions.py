"""Rules for scipy register when scipy is imported, before or after chainrules."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("scipy", reason="scipy is an optional dependency")

_CHECK = """
import numpy as np
from chainrules_core import rrule
from scipy import linalg, special
assert rrule(special.expit, 0.5) is not None, "scipy.special rules missing"
assert rrule(linalg.solve_triangular, np.eye(2), np.ones(2)) is not None, "scipy.linalg rules missing"
print("ok")
"""


@pytest.mark.parametrize(
    "before",
    ["import chainrules; import scipy.special, scipy.linalg", "import scipy.special, scipy.linalg; import chainrules"],
    ids=["chainrules first", "scipy first"],
)
def test_scipy_rules_register_in_either_import_order(before: str) -> None:
    code = before + "\n" + textwrap.dedent(_CHECK)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_one_scipy_submodule_brings_its_own_rules_only() -> None:
    code = "import sys, chainrules, scipy.special; print('chainrules.rules.scipy.special.logistic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_when_imported_runs_at_once_for_a_module_already_imported() -> None:
    from chainrules.rules._extensions import when_imported

    ran: list[str] = []
    when_imported("json", lambda: ran.append("json"))
    assert ran == ["json"]


def test_when_imported_waits_for_the_import() -> None:
    code = textwrap.dedent(
        """
        import sys
        from chainrules.rules import _extensions
        from chainrules.rules._extensions import when_imported
        ran = []
        when_imported("colorsys", lambda: ran.append(sys.modules["colorsys"].rgb_to_hsv is not None))
        assert ran == []
        import colorsys
        assert ran == [True], ran
        assert "colorsys" not in _extensions._pending
        print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


@pytest.mark.parametrize(
    "module",
    [
        "scipy.linalg.solvers",
        "scipy.linalg.factorizations",
        "scipy.linalg.matfuncs",
        "scipy.linalg.spectral",
        "scipy.special.logistic",
    ],
)
def test_a_scipy_rule_module_imported_first_brings_every_rule(module: str) -> None:
    """Importing one of these modules imports scipy, which imports its siblings while it is part way through."""
    code = f"import chainrules.rules.{module}\n" + textwrap.dedent(_CHECK)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
