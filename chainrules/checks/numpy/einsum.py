"""Declared checks of the einsum rules (``chainrules.rules.numpy.einsum``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.testing.edges import refuse_edges
from chainrules_core.testing.cases import REALS, Arg, Case


def _einsum_case(subscripts: Any, *shapes: tuple[int, ...], name: str = "") -> Case:
    return Case(np.einsum, (subscripts, *(Arg(REALS, s) for s in shapes)), name=name)


def _interleaved_case(*parts: Any, name: str) -> Case:
    args = tuple(Arg(REALS, p) if isinstance(p, tuple) else p for p in parts)
    return Case(np.einsum, args, name=name)


register_shipped_cases(
    "numpy.einsum",
    _einsum_case("ij,jk->ik", (3, 4), (4, 2)),
    _einsum_case("ij,jk", (3, 4), (4, 2), name="implicit output"),
    _einsum_case("ba,aB", (3, 4), (4, 2), name="implicit output orders upper case first"),
    _einsum_case("ij->ji", (3, 4)),
    _einsum_case("ij->", (3, 4)),
    _einsum_case("ij->i", (3, 4)),
    _einsum_case("ii->i", (3, 3), name="diagonal"),
    _einsum_case("ii", (3, 3), name="trace, implicit"),
    _einsum_case("iij->ji", (3, 3, 2), name="diagonal of a stack"),
    _einsum_case("ij,ij->ij", (3, 4), (3, 4)),
    _einsum_case("ij,ij->ij", (1, 4), (3, 4), name="a size-1 label broadcast"),
    _einsum_case("i,i", (4,), (4,)),
    _einsum_case("i,j->ij", (3,), (4,)),
    _einsum_case("ij,jk,kl->il", (2, 3), (3, 4), (4, 2), name="three operands"),
    _einsum_case("i,i,i->", (4,), (4,), (4,)),
    _einsum_case("ij,i->j", (3, 4), (3,)),
    _einsum_case("...ij,...jk->...ik", (2, 1, 3, 4), (5, 4, 2), name="ellipsis broadcasting"),
    _einsum_case("...i,...i->...", (3, 4), (4,), name="ellipsis of different ranks"),
    _einsum_case("...ii->...i", (2, 3, 3), name="ellipsis and a diagonal"),
    _einsum_case("i...->...", (3, 2, 2), name="sum over a leading label"),
    _einsum_case("...", (2, 3), name="implicit ellipsis output"),
    _einsum_case("a b, b c -> a c", (2, 3), (3, 2), name="spaces"),
    _einsum_case("ij,->ij", (2, 3), (), name="0-d operand"),
    _interleaved_case((3, 4), [0, 1], (4, 2), [1, 2], [0, 2], name="interleaved"),
    _interleaved_case((2, 3, 4), [Ellipsis, 0, 1], (4,), [1], name="interleaved with ellipsis, implicit"),
    Case(np.einsum, ("ij,jk->ik", Arg(REALS, (3, 4)), Arg(REALS, (4, 2))), kwargs={"optimize": True}),
    Case(
        np.einsum,
        ("ij,jk,kl->il", Arg(REALS, (2, 3)), Arg(REALS, (3, 4)), Arg(REALS, (4, 2))),
        kwargs={"optimize": "greedy"},
    ),
)

refuse_edges(
    "numpy.einsum",
    np.einsum,
    ("empty",),
    "numpy reads a label repeated in one operand with the sizes 0 and n as of size n (it does not raise), so the "
    "output is not a function of the empty operand",
    where="diagonal",
)
