"""The rules whose primal is not the function's value to the last bit, each with the reason: the one list.

A rule's primal is ``f(*args, **kwargs)`` itself: the same type, dtype and
shape, and the same numbers bit for bit (a zero's sign too; NaN where
NaN). ``tests/rules/test_primals.py`` holds every declared case to it, with
the arguments in each layout the harness's variants use (C order, Fortran
order, strided) and fast paths on and off, for ``rrule`` and ``frule``
alike. The cases of an entry below are held to its bound instead, and must
still differ somewhere (an entry whose rule became exact goes);
docs/conventions.md ("The primal") lists them for readers.

>>> from chainrules.checks.primals import INEXACT_PRIMALS
>>> [(entry.function, entry.cases, entry.ulps) for entry in INEXACT_PRIMALS]
[('np.logaddexp', 'softplus', 3.0)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chainrules_core.naming import function_name


@dataclass(frozen=True)
class InexactPrimal:
    """Declared cases of one function whose rule's primal differs from the function's value, and by how much."""

    function: str
    """The function as labels name it: ``np.logaddexp``."""
    cases: str
    """The name of the declared cases it covers (``Case.name``)."""
    ulps: float
    """The most an entry of the rule's primal differs from ``f``'s, in units in the last place of ``f``'s entry."""
    why: str
    fast_paths_only: bool = True
    """Whether only the fast path differs (with fast paths off the rule gives ``f``'s value, checked so)."""

    def covers(self, case: Any, fast: bool) -> bool:
        """Whether this entry excuses ``case``, run with fast paths on (``fast``) or off."""
        return function_name(case.f) == self.function and case.name == self.cases and (fast or not self.fast_paths_only)


INEXACT_PRIMALS: tuple[InexactPrimal, ...] = (
    InexactPrimal(
        "np.logaddexp",
        "softplus",
        3.0,
        why=(
            "softplus, logaddexp(0.0, z) of a float64 array of 256 entries or more, is numpy's formula "
            "max(z, 0) + log1p(exp(-|z|)) with numpy's vectorised exp and log1p, where numpy's logaddexp calls the "
            "C library's one entry at a time (0.4 of its time from a thousand entries on); about 4 % of the entries "
            "differ from numpy's, by at most 3 ulps of it at 3 million points from -745 to 40 (where they differ "
            "most, each is about 1.5 ulps from the exact value, on opposite sides)"
        ),
    ),
)
