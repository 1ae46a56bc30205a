"""The package's face: one import for every name of the protocol, and one place for the version."""

import re
from pathlib import Path

import chainrules
import chainrules_core

ROOT = Path(__file__).resolve().parent.parent


def test_chainrules_re_exports_the_whole_protocol() -> None:
    missing = [
        name
        for name in chainrules_core.__all__
        if getattr(chainrules, name, None) is not getattr(chainrules_core, name)
    ]
    assert missing == []
    assert set(chainrules_core.__all__) <= set(chainrules.__all__)


def test_the_version_lives_in_chainrules_init() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^dynamic = \["version"\]', pyproject, re.MULTILINE)
    assert not re.search(r'^version = "', pyproject, re.MULTILINE)
    assert 'version = { attr = "chainrules.__version__" }' in pyproject
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.dev\d+|rc\d+)?", chainrules.__version__)


def test_the_changelog_has_an_entry_for_this_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text()
    release = chainrules.__version__.split(".dev")[0]
    heading = "## [Unreleased]" if ".dev" in chainrules.__version__ else f"## [{release}]"
    assert heading in changelog
    assert "## [0.1.0]" in changelog
