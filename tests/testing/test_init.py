"""The public surface of chainrules_core.testing: the harness, with the vocabulary in its submodules."""

from __future__ import annotations

import chainrules_core.testing as testing
from chainrules_core.testing import cases, finite_differences, layout, tangents, tolerances

EXPECTED = [
    "CheckOptions",
    "CheckReport",
    "FiniteDifferences",
    "no_tangent",
    "rand_tangent",
    "register_cases",
    "registered_cases",
    "test_frule",
    "test_rrule",
    "test_scalar",
    "with_tangent",
]


def test_all_is_the_harness() -> None:
    assert testing.__all__ == EXPECTED
    for name in testing.__all__:
        assert getattr(testing, name) is not None


def test_the_submodules_names_are_importable_from_the_package_too() -> None:
    """Names of ``cases``, ``finite_differences``, ``layout``, ``tangents`` and ``tolerances`` resolve here."""
    for module, names in [
        (cases, ["Case", "Arg", "At", "Generated", "Domain", "Nonzero", "REALS", "POSITIVE", "DTYPES", "MODES"]),
        (finite_differences, ["FDResult", "central_fdm", "forward_fdm", "backward_fdm"]),
        (layout, ["Layout", "layout_of"]),
        (tangents, ["PrimalAndTangent", "relative_tangent"]),
        (tolerances, ["RTOL", "PRIMAL_RTOL"]),
    ]:
        for name in names:
            assert getattr(testing, name) is getattr(module, name), name


def test_unknown_attribute() -> None:
    try:
        testing.no_such_name  # type: ignore[attr-defined]
    except AttributeError as err:
        assert "no_such_name" in str(err)
    else:
        raise AssertionError("expected AttributeError")
