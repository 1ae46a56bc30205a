"""The namespace of a rule's arrays: numpy's own for numpy, the Python Array API standard's for every other library.

A rule written once runs on every array library that follows the Python
Array API standard (2024.12): it computes with ``xp = namespace_of(*args)``
(``xp.sin(x)``, ``xp.sum(x, axis=0)``) rather than with numpy. For numpy
arrays, numpy scalars and Python numbers ``namespace_of`` answers ``numpy``
itself, at once (numpy 2 follows the standard; its fast paths stay numpy's
own); for a torch tensor, a JAX array, a dask or CuPy array, an
array-api-strict array it answers ``array_api_compat.array_namespace`` of
them, imported then (``pip install chainrules[array-api]``). An engine's
followed values are numpy-like: they answer numpy's functions themselves.

>>> import numpy as np
>>> namespace_of(np.ones(2), 1.5) is np
True
>>> is_numpy_like(np.float32(1.0)), is_numpy_like([1.0])
(True, False)
"""

from __future__ import annotations

import importlib
import math
from types import ModuleType
from typing import Any

import numpy as np

from .followed import is_followed, primal_of
from .naming import function_name
from .tangent_types import AbstractTangent

_NUMPY_LIKE = (np.ndarray, np.generic, float, int, complex, bool)


def is_numpy_like(x: Any) -> bool:
    """Whether ``x`` is computed with numpy: a numpy array or scalar, a Python number, an engine's followed value."""
    return isinstance(x, _NUMPY_LIKE) or is_followed(x)


def is_foreign_array(x: Any) -> bool:
    """Whether ``x`` is an array of another library than numpy (it has a ``shape`` and a ``dtype``, and is no
    tangent type), or an engine's followed value that stands for one (a nested pass over torch tensors)."""
    if type(x) in _BY_TYPE:  # a type namespace_of has answered for
        return True
    if isinstance(x, _NUMPY_LIKE) or isinstance(x, (AbstractTangent, type)):  # np.float64 has shape and dtype
        return False
    if is_followed(x):
        return is_foreign_array(primal_of(x))
    return hasattr(x, "shape") and hasattr(x, "dtype")


def namespace_of(*values: Any) -> Any:
    """The namespace to compute with: numpy for numpy arrays, numpy scalars and Python numbers (and for no array
    at all), ``array_api_compat.array_namespace`` of the other arrays among ``values`` (lists, tuples and dicts
    searched one level down), and an engine's namespace (``__array_namespace__``) for the values an engine
    follows that stand for another library's arrays.

    Raises ``TypeError`` when arrays of two libraries meet, or when array_api_compat is not installed.
    """
    found = None
    for v in values:
        if isinstance(v, _NUMPY_LIKE):
            continue
        known = _BY_TYPE.get(type(v))
        if known is None or (found is not None and known is not found):
            break  # a list, a followed value, a type not seen yet, or two libraries: the full search
        found = known
    else:  # numpy's values alone (the common call, answered without building lists), or one library's seen before
        return np if found is None else found
    foreign = [v for v in _leaves(values) if is_foreign_array(v)]
    followed = next((v for v in foreign if is_followed(v)), None)
    if followed is not None:  # a nested pass: the engine's namespace hands each call to the engine
        return followed.__array_namespace__()
    if not foreign:
        return np
    compat = array_api_compat()
    try:
        namespace = compat.array_namespace(*foreign)
    except TypeError as err:
        kinds = ", ".join(sorted({array_type_name(v) for v in foreign}))
        raise TypeError(f"arrays of several libraries in one call ({kinds}): {err}") from None
    types = {type(v) for v in foreign}
    if len(types) == 1:  # array_namespace answers by the type: later calls read it from _BY_TYPE
        _BY_TYPE[types.pop()] = namespace
    return namespace


_BY_TYPE: dict[type, Any] = {}
"""The namespace of each array type ``namespace_of`` has met (``torch.Tensor``: ``array_api_compat.torch``)."""


def _leaves(values: tuple[Any, ...]) -> list[Any]:
    found: list[Any] = []
    for v in values:
        if isinstance(v, (list, tuple)):
            found.extend(v)
        elif isinstance(v, dict):
            found.extend(v.values())
        else:
            found.append(v)
    return found


_COMPAT: list[ModuleType] = []
"""``array_api_compat`` once imported: later calls read it here (no ``import_module``, which ``torch.compile``
refuses to trace)."""


def array_api_compat() -> ModuleType:
    """The ``array_api_compat`` module, imported on first use; ``TypeError`` saying how to install it if missing."""
    if _COMPAT:
        return _COMPAT[0]
    try:
        _COMPAT.append(importlib.import_module("array_api_compat"))
        return _COMPAT[0]
    except ImportError as err:
        raise TypeError(
            "the rules run on arrays of other libraries than numpy through array_api_compat: "
            "pip install 'chainrules[array-api]'"
        ) from err


def array_type_name(x: Any) -> str:
    """``torch.Tensor``, ``dask.array.Array``: a value's class, with its module's top package."""
    cls = type(x)
    return f"{cls.__module__.split('.')[0]}.{cls.__qualname__}"


def device_of(x: Any) -> Any:
    """The device ``x`` lives on (``None`` for numpy and Python values), for the arrays a rule creates."""
    if is_numpy_like(x) or not is_foreign_array(x):
        return None
    device = getattr(x, "device", None)
    if type(device).__module__ == "torch":  # a torch.device: the standard's attribute, read at once
        return device
    return array_api_compat().device(x)


def is_complex_dtype(xp: Any, dtype: Any) -> bool:
    """Whether ``dtype`` is complex, in the namespace ``xp``."""
    if xp is np:
        return bool(np.dtype(dtype).kind == "c")
    return _dtype_kind(xp, dtype) == "c"


def is_inexact_dtype(xp: Any, dtype: Any) -> bool:
    """Whether ``dtype`` is real or complex floating, in ``xp``: the dtypes with a tangent space."""
    if xp is np:
        return bool(np.dtype(dtype).kind in "fc")
    return _dtype_kind(xp, dtype) in ("f", "c")


_DTYPE_KINDS: dict[tuple[str, Any], str] = {}
"""numpy's kind letter of another library's dtype (``"f"``, ``"c"``, or ``"o"`` for any other), by the namespace's
name and the dtype, read once through the standard's ``isdtype``."""


def _dtype_kind(xp: Any, dtype: Any) -> str:
    name = getattr(xp, "__name__", None)  # a module; an engine's namespace object is asked each time
    if name is not None:
        try:
            return _DTYPE_KINDS[name, dtype]
        except (KeyError, TypeError):  # a dtype not seen yet, or one that does not hash
            pass
    kind = "c" if xp.isdtype(dtype, "complex floating") else "f" if xp.isdtype(dtype, "real floating") else "o"
    if name is not None:
        try:
            _DTYPE_KINDS[name, dtype] = kind
        except TypeError:
            pass
    return kind


def real_dtype(xp: Any, dtype: Any) -> Any:
    """The real dtype of the same precision as ``dtype`` (``float32`` for ``complex64``)."""
    if not is_complex_dtype(xp, dtype):
        return dtype
    return xp.float32 if dtype == xp.complex64 else xp.float64


def zeros_like(x: Any, shape: tuple[int, ...]) -> Any:
    """Zeros of ``x``'s ``shape``, in its library and on its device: numpy's float zeros for a numpy array or a
    number (a projector gives them ``x``'s type and dtype), the library's own in ``x``'s dtype otherwise."""
    if is_foreign_array(x):
        return namespace_of(x).zeros_like(x)
    return np.zeros(shape)


def as_arrays_like(out: Any, *values: Any) -> tuple[Any, ...]:
    """``values`` with each Python number an array of ``out``'s library, dtype and device (a 0-d array): another
    library's functions take arrays where numpy's take numbers too. Arrays pass as they are; so does every value
    when ``out`` is numpy's."""
    if not is_foreign_array(out):
        return values
    xp = namespace_of(out)
    device = device_of(out)
    return tuple(
        xp.asarray(v, dtype=out.dtype, device=device) if isinstance(v, (int, float, complex)) else v for v in values
    )


def real_part(xp: Any, x: Any) -> Any:
    """The real part of ``x``, itself if it is real (the standard's ``real`` wants a complex array)."""
    if xp is np or not hasattr(xp, "isdtype"):  # numpy, or the Python-number kernels of the scalar rules
        return xp.real(x)
    return xp.real(x) if is_complex_dtype(xp, x.dtype) else x


def broadcast_like(xp: Any, value: Any, like: Any) -> Any:
    """``xp.broadcast_to(value, like.shape)``. On dask, zeros in ``like``'s chunks plus ``value``: its
    ``broadcast_to`` would make one chunk (and every array it then meets would be gathered into one chunk to line
    up with it), or, given the chunks, a layer of its own that dask does not fuse with the elementwise steps
    around it (a reduction's seed broadcast back over a million rows costs a task per chunk more)."""
    single = all(n == 1 for n in getattr(value, "shape", ()))
    if single and hasattr(like, "dask") and not has_unknown_shape(like):
        return xp.zeros_like(like, dtype=getattr(value, "dtype", None)) + value
    return xp.broadcast_to(value, tuple(like.shape))


def has_unknown_shape(x: Any) -> bool:
    """Whether ``x``'s shape holds an unknown length (dask's ``nan`` for chunks it has not computed)."""
    shape = getattr(x, "shape", ())
    return any(n is None or (isinstance(n, float) and math.isnan(n)) for n in shape)


def first_foreign_array(values: tuple[Any, ...]) -> Any:
    """The first array of another library than numpy among ``values`` (lists and tuples searched one level down),
    or ``None``; numpy arrays and Python floats are passed over at once."""
    for v in values:
        t = type(v)
        if t is np.ndarray or t is float:
            continue
        if t is list or t is tuple:
            for w in v:
                if type(w) is not np.ndarray and is_foreign_array(w):
                    return w
        elif is_foreign_array(v):
            return v
    return None


def numpy_only(f: Any, rule: Any) -> Any:
    """``rule`` refusing another library's arrays with ``refusal``'s ``TypeError``: the registry wraps so the rules
    of numpy's functions that are not generic, which would convert such arrays to numpy (or compute a dask array)
    without a word."""

    def rule_for_numpy_arrays(*args: Any, **kwargs: Any) -> Any:
        foreign = first_foreign_array(args)
        if foreign is not None:
            raise refusal(f, foreign, "its rule is written for numpy arrays alone")
        return rule(*args, **kwargs)

    rule_for_numpy_arrays.__name__ = getattr(rule, "__name__", "rule")
    rule_for_numpy_arrays.__qualname__ = getattr(rule, "__qualname__", "rule")
    rule_for_numpy_arrays.__wrapped__ = rule  # type: ignore[attr-defined]
    return rule_for_numpy_arrays


def refusal(f: Any, x: Any, why: str = "") -> TypeError:
    """The ``TypeError`` a rule raises for an array library it cannot run on: it names the function and the type."""
    reason = f": {why}" if why else ""
    return TypeError(f"{function_name(f)} has no rule for arrays of type {array_type_name(x)}{reason}")
