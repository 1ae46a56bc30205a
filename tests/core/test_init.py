"""The public surface of chainrules_core."""

from __future__ import annotations

import subprocess
import sys

import chainrules_core

EXPECTED = [
    "AbstractTangent",
    "AbstractThunk",
    "AbstractZero",
    "HasForwardMode",
    "HasReverseMode",
    "InplaceableThunk",
    "NoTangent",
    "NotImplementedTangent",
    "NotImplementedTangentError",
    "ProjectTo",
    "Projector",
    "RuleConfig",
    "RuleRecord",
    "RuleRegistry",
    "Tangent",
    "Thunk",
    "ZeroTangent",
    "accumulate",
    "backing",
    "canonicalize",
    "construct",
    "cotangent_from_partial",
    "debug_mode",
    "field_names",
    "frule",
    "function_name",
    "is_inplaceable_destination",
    "is_namedtuple",
    "named_after",
    "non_differentiable",
    "not_implemented",
    "primal_type",
    "rrule",
    "scalar_rule",
    "set_debug_mode",
    "shape_of",
    "sum_to_shape",
    "unbroadcast",
    "unthunk",
]


def test_all_is_pinned_and_sorted() -> None:
    assert chainrules_core.__all__ == EXPECTED
    assert chainrules_core.__all__ == sorted(chainrules_core.__all__)


def test_every_name_resolves() -> None:
    for name in chainrules_core.__all__:
        assert getattr(chainrules_core, name) is not None


def test_import_does_not_load_numpy() -> None:
    code = "import sys, chainrules_core; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_unknown_attribute() -> None:
    try:
        chainrules_core.no_such_name  # type: ignore[attr-defined]
    except AttributeError as err:
        assert "no_such_name" in str(err)
    else:
        raise AssertionError("expected AttributeError")
