"""A tangent standing for a derivative that is knowingly not implemented."""

from __future__ import annotations

import sys
from typing import Any, ClassVar, NoReturn

from .abstract_tangent import AbstractTangent
from .abstract_zero import AbstractZero


class NotImplementedTangentError(NotImplementedError):
    """Raised when a not-implemented tangent is used where a value is required."""


class NotImplementedTangent(AbstractTangent):
    """A derivative that is known to be missing.

    It is named so that it never shadows Python's ``NotImplemented``. Build one
    with ``not_implemented(info)``, which records where it was made. It wins
    addition, loses multiplication against the zeros (so a missing partial
    multiplied by a zero seed is harmless) and raises on subtraction, division
    or anything else that needs its value.

    >>> t = not_implemented("d/dnu of a Bessel function")
    >>> (t + 1.0) is t, ZeroTangent() * t
    (True, ZeroTangent())
    """

    __slots__ = ("info", "line", "module")
    _precedence: ClassVar[int] = 5

    def __init__(self, info: str, module: str = "?", line: int = 0) -> None:
        self.info = info
        self.module = module
        self.line = line

    def __repr__(self) -> str:
        return f"NotImplementedTangent({self.info!r}, module={self.module!r}, line={self.line})"

    def _raise(self, *_: Any) -> NoReturn:
        raise NotImplementedTangentError(
            f"the derivative is not implemented ({self.module}, line {self.line}): {self.info}"
        )

    def __add__(self, other: Any) -> NotImplementedTangent:
        return self

    def __radd__(self, other: Any) -> Any:
        return other if isinstance(other, NotImplementedTangent) else self

    def __mul__(self, other: Any) -> Any:
        return other if isinstance(other, AbstractZero) else self

    __rmul__ = __mul__
    __matmul__ = __mul__
    __rmatmul__ = __mul__

    def __neg__(self) -> NotImplementedTangent:
        return self

    def conj(self) -> NotImplementedTangent:
        return self

    __sub__ = __rsub__ = __truediv__ = __rtruediv__ = _raise
    __float__ = __complex__ = __array__ = __iter__ = _raise


def not_implemented(info: str) -> NotImplementedTangent:
    """A ``NotImplementedTangent`` that records the caller's module and line.

    >>> t = not_implemented("derivative in the order")
    >>> t.info, t.line > 0
    ('derivative in the order', True)
    """
    frame = sys._getframe(1)
    return NotImplementedTangent(info, frame.f_globals.get("__name__", "?"), frame.f_lineno)
