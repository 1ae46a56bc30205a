"""Names available to every doctest: numpy as ``np`` and the public API of chainrules_core."""

import numpy as np
import pytest

import chainrules_core


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace: dict) -> None:
    doctest_namespace["np"] = np
    for name in chainrules_core.__all__:
        doctest_namespace[name] = getattr(chainrules_core, name)
