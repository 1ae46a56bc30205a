"""Declared checks of the scipy.linalg rules (``chainrules.rules.scipy_linalg``), when scipy is installed."""

from __future__ import annotations

from chainrules.checks._matrices import well_conditioned
from chainrules_core.testing.cases import REALS, Arg, Case, Generated, register_cases

try:
    from scipy import linalg
except ImportError:  # scipy is optional: without it there is nothing to check
    linalg = None


def _triangular(shape: tuple[int, ...], lower: bool) -> Generated:
    """Full matrices whose ``lower`` (upper) triangle is well conditioned; the other triangle must not matter."""
    label = f"{'lower' if lower else 'upper'} triangular{shape}".replace(" ", "")
    return Generated(well_conditioned(shape).make_value, label)


if linalg is not None:
    st = linalg.solve_triangular
    register_cases(
        "scipy_linalg",
        Case(st, (_triangular((3, 3), True), Arg(REALS, (3,))), kwargs={"lower": True}),
        Case(st, (_triangular((3, 3), False), Arg(REALS, (3, 2)))),
        *[
            Case(st, (_triangular((3, 3), True), Arg(REALS, (3, 2))), kwargs={"lower": True, "trans": t})
            for t in (1, 2, "T", "C")
        ],
        Case(st, (_triangular((3, 3), False), Arg(REALS, (3,))), kwargs={"trans": "C", "unit_diagonal": True}),
        Case(st, (_triangular((3, 3), True), Arg(REALS, (3,)), 0, True), name="options positional"),
        Case(st, (_triangular((2, 3, 3), True), Arg(REALS, (2, 3, 2))), kwargs={"lower": True}),
    )
