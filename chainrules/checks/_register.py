"""How this package files its declared cases: held to the promise of its rules."""

from __future__ import annotations

import dataclasses

from chainrules_core.testing import cases


def register_shipped_cases(family: str, *declared: cases.Case) -> None:
    """File ``declared`` under ``family``, each with ``wrong_shape=True``.

    Every rule this package ships refuses a seed or tangent whose shape only
    broadcasts to its value's (``checked_seed``, ``checked_tangent``), so
    each of its cases checks that too; a library's own cases choose
    (``chainrules_core.testing.register_cases``).
    """
    cases.register_cases(family, *(dataclasses.replace(case, wrong_shape=True) for case in declared))
