"""Names available to every doctest: numpy as ``np`` and the public API of chainrules_core.

The tests run with one BLAS thread unless the environment says otherwise:
their matrices are small, and on a shared machine BLAS threads spinning
for them cost several times the work itself.
"""

import importlib.util
import os

import pytest

# Modules that import an optional library at the top are collected only where it is installed.
collect_ignore_glob = []
if importlib.util.find_spec("scipy") is None:
    collect_ignore_glob += [
        "chainrules/rules/scipy/*",
        "chainrules/checks/scipy/*",
        "docs/rules-scipy-*.md",
        "chainrules/routing.py",  # its examples route scipy.linalg
    ]
for _framework in ("torch", "jax", "autograd"):
    if importlib.util.find_spec(_framework) is None:
        collect_ignore_glob.append(f"chainrules/interop/{_framework}.py")

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

# After the thread settings, which numpy reads when it loads.
import numpy as np  # noqa: E402

import chainrules_core  # noqa: E402


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace: dict) -> None:
    doctest_namespace["np"] = np
    for name in chainrules_core.__all__:
        doctest_namespace[name] = getattr(chainrules_core, name)
