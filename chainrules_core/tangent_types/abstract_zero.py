"""The two zero tangents: ``ZeroTangent`` and ``NoTangent``."""

from __future__ import annotations

from typing import Any, ClassVar, NoReturn, TypeVar

from .abstract_tangent import AbstractTangent

_Z = TypeVar("_Z", bound="AbstractZero")


class AbstractZero(AbstractTangent):
    """A tangent that acts as zero under addition and multiplication.

    Both subclasses are singletons. A propagator whose every input is an
    ``AbstractZero`` may be skipped: propagators are linear, so its output is
    zero too. Indexing, reshaping, summing, conjugating or transposing a zero
    gives the same zero, so rules need no special case for it.
    """

    __slots__ = ()
    _instance: ClassVar[AbstractZero | None] = None

    def __new__(cls: type[_Z]) -> _Z:
        instance = cls.__dict__.get("_instance")
        if instance is None:
            instance = super().__new__(cls)
            cls._instance = instance
        return instance

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __reduce__(self) -> tuple[type[AbstractZero], tuple[()]]:
        return type(self), ()

    def __copy__(self: _Z) -> _Z:
        return self

    def __deepcopy__(self: _Z, memo: Any) -> _Z:
        return self

    # A zero is its own negation, conjugate, transpose, slice and sum.
    def __neg__(self: _Z) -> _Z:
        return self

    def __pos__(self: _Z) -> _Z:
        return self

    def conj(self: _Z) -> _Z:
        return self

    conjugate = conj

    @property
    def real(self: _Z) -> _Z:
        return self

    @property
    def imag(self: _Z) -> _Z:
        return self

    @property
    def T(self: _Z) -> _Z:  # noqa: N802 - mirrors numpy's attribute name
        return self

    def __getitem__(self: _Z, index: Any) -> _Z:
        return self

    def sum(self: _Z, *args: Any, **kwargs: Any) -> _Z:
        return self

    def reshape(self: _Z, *args: Any, **kwargs: Any) -> _Z:
        return self

    def transpose(self: _Z, *args: Any) -> _Z:
        return self

    def __iter__(self) -> NoReturn:
        raise TypeError(
            f"{self!r} is not iterable: it stands for a zero of any structure; index it ({self!r}[i] is "
            f"{self!r}) or check for AbstractZero before unpacking a tangent (a pullback's whole seed is never "
            "one: engines skip such calls; an frule's output tangent may be one)"
        )

    def __getattr__(self, name: str) -> NoReturn:
        # Only reached for names the class lacks. Fields are not answered with a zero: code probing
        # `getattr(t, "shape", None)` or `hasattr(t, "dtype")` would then take a zero for an array.
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(
            f"{type(self).__name__}() has no field {name!r}: it stands for a zero of any structure, such as the "
            f"tangent of an object whose fields an engine holds constant; read a field with "
            f"getattr(t, {name!r}, ZeroTangent()), or check for AbstractZero first"
        )

    # Multiplying by a zero gives the zero: shared by both subclasses.
    def __truediv__(self: _Z, other: Any) -> Any:
        if self._defers_to(other):
            return NotImplemented
        return self

    def __rtruediv__(self, other: Any) -> NoReturn:
        raise ZeroDivisionError(f"cannot divide {other!r} by the tangent {self!r}")


class ZeroTangent(AbstractZero):
    """The additive identity of every tangent space; acts like ``0``.

    >>> import numpy as np
    >>> ZeroTangent() + 1.5
    1.5
    >>> np.ones(2) * ZeroTangent()
    ZeroTangent()
    """

    __slots__ = ()
    _precedence: ClassVar[int] = 3

    def __add__(self, other: Any) -> Any:
        if self._defers_to(other):
            return NotImplemented
        return other

    def __radd__(self, other: Any) -> Any:
        return other

    def __sub__(self, other: Any) -> Any:
        if self._defers_to(other):
            return NotImplemented
        return -other

    def __rsub__(self, other: Any) -> Any:
        return other

    def __mul__(self, other: Any) -> Any:
        if self._defers_to(other):
            return NotImplemented
        return self

    __rmul__ = __mul__
    __matmul__ = __mul__
    __rmatmul__ = __mul__


class NoTangent(AbstractZero):
    """The tangent of something with no tangent space: ints, bools, strings,
    indices, functions without fields.

    It is zero in arithmetic but says more than ``ZeroTangent``: not "the
    derivative is zero" but "there is nothing to differentiate". It wins
    addition against ``ZeroTangent``; ``ZeroTangent`` wins multiplication.

    >>> NoTangent() + ZeroTangent()
    NoTangent()
    >>> NoTangent() * ZeroTangent()
    ZeroTangent()
    >>> NoTangent() + 2.0
    2.0
    """

    __slots__ = ()
    _precedence: ClassVar[int] = 4

    def __add__(self, other: Any) -> Any:
        if self._defers_to(other):
            return NotImplemented
        return self if isinstance(other, AbstractZero) else other

    def __radd__(self, other: Any) -> Any:
        return self if isinstance(other, AbstractZero) else other

    def __sub__(self, other: Any) -> Any:
        if self._defers_to(other):
            return NotImplemented
        return self if isinstance(other, AbstractZero) else -other

    __rsub__ = __radd__

    def __mul__(self, other: Any) -> Any:
        if self._defers_to(other):
            return NotImplemented
        return other if isinstance(other, ZeroTangent) else self

    __rmul__ = __mul__
    __matmul__ = __mul__
    __rmatmul__ = __mul__
