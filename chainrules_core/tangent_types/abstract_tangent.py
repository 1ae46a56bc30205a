"""The root of the tangent types and the precedence that orders their arithmetic."""

from __future__ import annotations

from typing import Any, ClassVar


class AbstractTangent:
    """Base class of every tangent type this package defines.

    Binary arithmetic between tangent types is decided by the operand of
    higher precedence, following ChainRulesCore's table::

        NotImplementedTangent > NoTangent > ZeroTangent > thunks > Tangent > anything

    A method of the lower-precedence operand returns ``NotImplemented`` so that
    Python hands the operation to the reflected method of the other one.
    ``__array_ufunc__ = None`` makes numpy arrays and numpy scalars do the same
    instead of building object arrays.
    """

    __slots__ = ()
    __array_ufunc__ = None
    _precedence: ClassVar[int] = 0

    def _defers_to(self, other: Any) -> bool:
        """Whether ``other`` outranks ``self`` and so decides the operation."""
        return getattr(type(other), "_precedence", 0) > self._precedence
