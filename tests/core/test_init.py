"""The public surface of chainrules_core."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import chainrules_core

EXPECTED_GROUPS = {
    "the protocol": ["frule", "rrule", "FRuleResult", "Pullback", "RRuleResult", "RuleRecord"],
    "rule configurations": ["RuleConfig", "HasForwardMode", "HasReverseMode"],
    "rule-definition helpers": [
        "scalar_rule",
        "non_differentiable",
        "not_implemented",
        "cotangent_from_partial",
        "named_after",
    ],
    "nested differentiation: what rules do for an engine that differentiates them again": [
        "follow",
        "is_followed",
        "primal_of",
        "LinearAdjoint",
        "NoRuleError",
    ],
    "tangent types": [
        "AbstractTangent",
        "AbstractZero",
        "ZeroTangent",
        "NoTangent",
        "AbstractThunk",
        "Thunk",
        "InplaceableThunk",
        "Tangent",
        "NotImplementedTangent",
        "NotImplementedTangentError",
    ],
    "tangent operations and projection": [
        "unthunk",
        "canonicalize",
        "backing",
        "primal_type",
        "construct",
        "field_names",
        "is_namedtuple",
        "ProjectTo",
        "Projector",
        "shape_of",
        "sum_to_shape",
        "unbroadcast",
        "checked_seed",
        "checked_tangent",
        "value_shape",
    ],
    "accumulation": ["accumulate", "is_inplaceable_destination"],
    "fast paths and debugging": ["fast_paths", "fast_paths_enabled", "debug_mode", "set_debug_mode"],
}


def test_all_is_pinned_in_groups_by_role() -> None:
    """``__all__`` lists the public names group by group, each group under a comment naming its role."""
    assert chainrules_core.__all__ == [name for group in EXPECTED_GROUPS.values() for name in group]
    source = Path(chainrules_core.__file__).read_text()
    for role in EXPECTED_GROUPS:
        assert f"    # {role}" in source, role


def test_internals_are_not_exported() -> None:
    """The registry class and the naming helper stay in their modules."""
    assert "RuleRegistry" not in chainrules_core.__all__ and "function_name" not in chainrules_core.__all__
    assert not hasattr(chainrules_core, "RuleRegistry")
    from chainrules_core.naming import function_name
    from chainrules_core.rules import RuleRegistry

    assert isinstance(chainrules_core.rrule.registry, RuleRegistry)
    assert chainrules_core.function_name is function_name  # type: ignore[attr-defined]


def test_dir_lists_the_lazy_names() -> None:
    """``dir()`` offers every public name, those loaded on first use included, and no imported helpers."""
    listed = dir(chainrules_core)
    assert set(chainrules_core.__all__) <= set(listed)
    assert {"ProjectTo", "scalar_rule", "unbroadcast"} <= set(listed)
    assert not {"Any", "TYPE_CHECKING", "importlib", "annotations"} & set(listed)


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
