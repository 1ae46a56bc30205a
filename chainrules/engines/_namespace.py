"""The Array API namespace of followed values: what ``x.__array_namespace__()`` answers inside a pass.

A program written for the Python Array API standard asks its arrays for their
namespace (``xp = array_api_compat.array_namespace(x)``) and computes with it
(``xp.sin(x)``, ``xp.sum(x, axis=0)``, ``xp.linalg.solve(a, b)``). For a
followed value that namespace is ``FollowedNamespace``: each function that
computes from arrays is numpy's function of the same standard name (numpy 2
follows the standard), which hands the call to the engine and so to the rule,
and the rule computes in the library of the values themselves (torch, JAX,
dask ...). Functions that make arrays (``zeros``, ``asarray``, ``arange``),
dtypes, constants and inspection (``isdtype``, ``finfo``) are the library's
own: they carry no derivative. ``asarray`` of a followed value is the value
itself, still followed.

>>> import numpy as np
>>> import chainrules.engines as ad
>>> def f(x):
...     xp = x.__array_namespace__()
...     return xp.sum(xp.sin(x) * xp.ones(x.shape))
>>> ad.gradient(f, np.array([0.0, 1.0]))[0]
array([1.        , 0.54030231])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core.array_api import FFT, LINALG, MAIN

from ._structure import Boxed, strip

CREATION = frozenset(
    "arange asarray empty empty_like eye from_dlpack full full_like linspace ones ones_like zeros zeros_like".split()
)
"""The standard's functions that make arrays: the library's own, constants to a pass."""

INSPECTION = frozenset("can_cast finfo iinfo isdtype result_type __array_namespace_info__".split())
"""The standard's functions that read dtypes and shapes: the library's own, given the primals."""


def _holds_followed(value: Any) -> bool:
    """Whether ``value``, or an entry of a list or tuple ``value``, is a followed value."""
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, Boxed) for v in value)
    return isinstance(value, Boxed)


class FollowedNamespace:
    """The Array API namespace of the values a pass follows, for arrays of the library whose namespace is
    ``library`` (numpy's, or ``array_api_compat``'s for torch, JAX, dask, CuPy)."""

    def __init__(self, library: Any, numpy_module: Any = np, names: frozenset[str] = frozenset(MAIN)) -> None:
        self._library = library
        self._numpy = numpy_module
        self._names = names

    @property
    def linalg(self) -> FollowedNamespace:
        return FollowedNamespace(getattr(self._library, "linalg", None), np.linalg, frozenset(LINALG))

    @property
    def fft(self) -> FollowedNamespace:
        return FollowedNamespace(getattr(self._library, "fft", None), np.fft, frozenset(FFT))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name != "__array_namespace_info__":
            raise AttributeError(name)
        if name in self._names:
            return self._computing(name)
        if name == "asarray":
            return self._asarray
        if name in CREATION or name in INSPECTION:
            made = getattr(self._library, name)
            return lambda *args, **kwargs: made(*strip(args), **strip(kwargs))
        if self._library is None:
            raise AttributeError(f"the namespace of followed values has no {name!r}")
        return getattr(self._library, name)  # dtypes, constants (pi, inf, newaxis)

    def _computing(self, name: str) -> Any:
        """The function ``name`` that computes from arrays: numpy's, which hands a call with a followed value to the
        engine and so to the rule; the library's own for a call of constants alone (numpy's would convert them)."""
        followed, own = getattr(self._numpy, name), getattr(self._library, name, None)

        def computing(*args: Any, **kwargs: Any) -> Any:
            if own is None or any(_holds_followed(a) for a in (*args, *kwargs.values())):
                return followed(*args, **kwargs)
            return own(*args, **kwargs)

        computing.__name__ = name
        return computing

    def _asarray(self, obj: Any, /, *, dtype: Any = None, device: Any = None, copy: Any = None) -> Any:
        """``asarray``: a followed value stays followed (cast by ``astype`` if a dtype is given); anything else is
        the library's array."""
        if isinstance(obj, Boxed):
            return obj if dtype is None else np.astype(obj, dtype)
        return self._library.asarray(strip(obj), dtype=dtype, device=device, copy=copy)

    def __repr__(self) -> str:
        return f"FollowedNamespace({getattr(self._library, '__name__', self._library)!r})"
