"""Thunks: cotangents computed only if someone needs them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from .abstract_tangent import AbstractTangent


class AbstractThunk(AbstractTangent):
    """A tangent whose value is computed on demand by ``unthunk``.

    Any arithmetic with a thunk forces it, except addition to a zero, which
    returns the thunk untouched.
    """

    __slots__ = ()
    _precedence: ClassVar[int] = 2

    def unthunk(self) -> Any:
        raise NotImplementedError

    def __add__(self, other: Any) -> Any:
        return NotImplemented if self._defers_to(other) else self.unthunk() + other

    def __radd__(self, other: Any) -> Any:
        return other + self.unthunk()

    def __sub__(self, other: Any) -> Any:
        return NotImplemented if self._defers_to(other) else self.unthunk() - other

    def __rsub__(self, other: Any) -> Any:
        return other - self.unthunk()

    def __mul__(self, other: Any) -> Any:
        return NotImplemented if self._defers_to(other) else self.unthunk() * other

    def __rmul__(self, other: Any) -> Any:
        return other * self.unthunk()

    def __truediv__(self, other: Any) -> Any:
        return NotImplemented if self._defers_to(other) else self.unthunk() / other

    def __rtruediv__(self, other: Any) -> Any:
        return other / self.unthunk()

    def __matmul__(self, other: Any) -> Any:
        return NotImplemented if self._defers_to(other) else self.unthunk() @ other

    def __rmatmul__(self, other: Any) -> Any:
        return other @ self.unthunk()

    def __neg__(self) -> Any:
        return -self.unthunk()


_UNSET: Any = object()


class Thunk(AbstractThunk):
    """A cotangent computed by ``fn()`` the first time it is needed.

    The value is computed at most once and then shared: treat it as read-only.

    >>> calls = []
    >>> t = Thunk(lambda: calls.append(1) or 2.0)
    >>> calls
    []
    >>> unthunk(t), unthunk(t), calls
    (2.0, 2.0, [1])
    """

    __slots__ = ("_fn", "_value")

    def __init__(self, fn: Callable[[], Any]) -> None:
        if not callable(fn):
            raise TypeError(f"Thunk: fn must be a zero-argument callable, got {fn!r}")
        self._fn: Callable[[], Any] | None = fn
        self._value: Any = _UNSET

    def unthunk(self) -> Any:
        fn = self._fn
        if fn is not None:
            self._value = unthunk(fn())
            self._fn = None
        return self._value

    def __repr__(self) -> str:
        if self._fn is None:
            return f"Thunk(<value {self._value!r}>)"
        return f"Thunk({self._fn!r})"


class InplaceableThunk(AbstractThunk):
    """A thunk that can also add its value into an existing accumulator in place.

    ``add(acc)`` must add the value into ``acc`` in place and return ``acc``;
    ``val`` is a ``Thunk`` (or zero-argument callable) giving the value when
    no accumulator exists. ``accumulate`` picks the cheaper path.

    >>> import numpy as np
    >>> t = InplaceableThunk(lambda acc: np.add(acc, 1.0, out=acc), Thunk(lambda: np.ones(2)))
    >>> acc = np.zeros(2)
    >>> t.add(acc) is acc, acc
    (True, array([1., 1.]))
    >>> unthunk(t)
    array([1., 1.])
    """

    __slots__ = ("add", "val")

    def __init__(self, add: Callable[[Any], Any], val: AbstractThunk | Callable[[], Any]) -> None:
        if not callable(add):
            raise TypeError(f"InplaceableThunk: add must be callable, got {add!r}")
        self.add = add
        self.val: AbstractThunk = val if isinstance(val, AbstractThunk) else Thunk(val)

    def unthunk(self) -> Any:
        return self.val.unthunk()

    def __repr__(self) -> str:
        return f"InplaceableThunk({self.add!r}, {self.val!r})"


def unthunk(x: Any) -> Any:
    """Force ``x`` if it is a thunk; return anything else unchanged.

    >>> unthunk(Thunk(lambda: 3.0)), unthunk(3.0)
    (3.0, 3.0)
    """
    return x.unthunk() if isinstance(x, AbstractThunk) else x
