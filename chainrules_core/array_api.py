"""numpy's functions as the Python Array API standard (2024.12) names them, and numpy's calls as the standard's.

A rule written for any array library computes its primal with
``call_in(xp, f, *args, **kwargs)``: numpy's own call for numpy, and for
another library's namespace ``xp`` the standard's function of the same
meaning (``np.concatenate`` is ``xp.concat``, ``np.transpose`` is
``xp.permute_dims``, ``np.linalg.solve`` is ``xp.linalg.solve``) with
numpy's arguments bound to the standard's names. A numpy function the
standard does not name runs on the libraries that implement numpy's
functions themselves (dask and CuPy answer ``np.cumsum`` and ``np.einsum``
of their arrays with their own, lazily for dask). An option the standard
does not have (``out=``, ``where=``, ``order='F'``) and a function the
library lacks raise the ``TypeError`` of ``chainrules_core.arrays.refusal``,
naming the function and the array type, rather than crossing to numpy.

>>> import numpy as np
>>> standard_name(np.arcsin), standard_name(np.linalg.solve), standard_name(np.sinc)
('asin', 'linalg.solve', None)
"""

from __future__ import annotations

import functools
import importlib
import inspect
import types
from typing import Any

import numpy as np

from .arrays import array_type_name, is_foreign_array, refusal

MAIN = (
    "abs acos acosh add all any argmax argmin argsort asin asinh astype atan atan2 atanh bitwise_and "
    "bitwise_invert bitwise_left_shift bitwise_or bitwise_right_shift bitwise_xor broadcast_arrays broadcast_to "
    "ceil clip concat conj copysign cos cosh count_nonzero cumulative_prod cumulative_sum diff divide "
    "equal exp expand_dims expm1 flip floor floor_divide greater greater_equal hypot imag isfinite isin isinf isnan "
    "less less_equal log log10 log1p log2 logaddexp logical_and logical_not logical_or logical_xor matmul "
    "matrix_transpose max maximum mean meshgrid min minimum moveaxis multiply negative nextafter nonzero not_equal "
    "permute_dims positive pow prod real reciprocal remainder repeat reshape roll round searchsorted sign signbit "
    "sin sinh sort sqrt square squeeze stack std subtract sum take take_along_axis tan tanh tensordot tile tril "
    "triu trunc unique_all unique_counts unique_inverse unique_values unstack var vecdot where"
).split()
"""The functions of the standard's main namespace that compute from arrays (creation functions aside)."""

LINALG = (
    "cholesky cross det diagonal eigh eigvalsh inv matmul matrix_norm matrix_power matrix_rank matrix_transpose "
    "outer pinv qr slogdet solve svd svdvals tensordot trace vecdot vector_norm"
).split()
FFT = "fft fftn fftshift hfft ifft ifftn ifftshift ihfft irfft irfftn rfft rfftn".split()


def _table() -> dict[int, str]:
    names: dict[int, str] = {}
    for name in MAIN:
        if hasattr(np, name):
            names.setdefault(id(getattr(np, name)), name)
    for prefix, module, group in (("linalg.", np.linalg, LINALG), ("fft.", np.fft, FFT)):
        for name in group:
            if hasattr(module, name):
                names.setdefault(id(getattr(module, name)), prefix + name)
    return names


_NAMES = _table()
"""``id`` of a numpy function (numpy 2's aliases are the same objects: ``np.asin is np.arcsin``) -> its name."""

RENAMED = {"ddof": "correction", "a_min": "min", "a_max": "max", "rcond": "rtol"}
"""numpy's names of options the standard calls otherwise."""

POSITIONAL = {
    "where": 3,
    "matmul": 2,
    "tensordot": 2,
    "vecdot": 2,
    "take": 2,
    "take_along_axis": 2,
    "moveaxis": 3,
    "searchsorted": 2,
    "outer": 2,
    "cross": 2,
    "solve": 2,
    "matrix_power": 2,
}
"""How many leading arguments the standard takes positionally, where it is not one (elementwise: ``nin``)."""


def standard_name(f: Any) -> str | None:
    """The standard's name of numpy's ``f`` (``"linalg.solve"``), or ``None`` for a function it does not have."""
    return _NAMES.get(id(f))


def standard_function(xp: Any, f: Any) -> Any:
    """``xp``'s function for numpy's ``f``; ``None`` if the standard or ``xp`` lacks it."""
    name = standard_name(f)
    if name is None:
        return None
    target = xp
    for part in name.split("."):
        target = getattr(target, part, None)
        if target is None:
            return None
    return target


def call_in(xp: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
    """``f(*args, **kwargs)`` computed in ``xp``: numpy's call for numpy and for a function not numpy's, the
    standard's function for another library, or numpy's function where that library implements it itself
    (``implements``); otherwise the ``TypeError`` of ``refusal``."""
    if xp is np or not is_numpy_function(f):
        return f(*args, **kwargs)
    # A library's namespace is a module; an engine's (chainrules.engines) is not, has no name, and is not cached.
    library = getattr(xp, "__name__", None) if isinstance(xp, types.ModuleType) else None
    if library is not None and not kwargs and isinstance(f, np.ufunc):  # the standard's function, once found
        ufunc_target = _UFUNC_TARGETS.get((library, f.__name__))
        if ufunc_target is not None and len(args) == f.nin:
            try:
                return ufunc_target(*args)
            except (TypeError, RuntimeError, NotImplementedError):
                pass  # the general way below says why
    target = standard_function(xp, f)
    array = next((a for a in _flat(args) if is_foreign_array(a)), args[0] if args else None)
    if target is not None:
        positional, keywords = standard_arguments(f, args, kwargs)
        if keywords.get("dtype") is not None:
            keywords["dtype"] = dtype_in(xp, keywords["dtype"])
        try:
            result = target(*positional, **keywords)
        except (TypeError, RuntimeError, NotImplementedError) as err:
            name = standard_name(f) or ""
            if name in REAL_ONLY and any(_is_complex(xp, a) for a in _flat(args)):
                raise refusal(f, array, f"the standard defines {name} for real numbers only ({err})") from None
            if isinstance(err, TypeError):  # the library refuses these types (an int64 array with a float64 one)
                raise refusal(f, array, str(err)) from None
            raise
        if library is not None and isinstance(f, np.ufunc) and not kwargs:
            _UFUNC_TARGETS[(library, f.__name__)] = target
        return result
    if implements(array, f):
        try:
            return f(*args, **kwargs)
        except TypeError as err:  # an option numpy has and the library's function lacks (dask's nansum: where=)
            raise refusal(f, array, str(err)) from None
    standard = standard_name(f)
    why = (
        f"{getattr(xp, '__name__', xp)} has no {standard}"
        if standard
        else "the Python Array API standard has no such function"
    )
    raise refusal(f, array, why)


_UFUNC_TARGETS: dict[tuple[str, str], Any] = {}
"""The standard's function that answered a ufunc's call in a namespace, by their names
(``("array_api_compat.torch", "sin")``: ``torch.sin``), so that the next call of that ufunc with positional arrays
alone goes to it at once. Names, not the objects, so that ``torch.compile`` can read the keys."""


def dtype_in(xp: Any, dtype: Any) -> Any:
    """numpy's ``dtype`` (``np.float64``, ``"float32"``, ``np.dtype("c16")``) as ``xp``'s dtype of that name; a
    dtype numpy does not read (the library's own) as it is."""
    if xp is np or dtype is None:
        return dtype
    try:
        name = np.dtype(dtype).name
    except TypeError:
        return dtype
    return getattr(xp, name, dtype)


REAL_ONLY = frozenset(
    "atan2 ceil clip copysign floor floor_divide hypot logaddexp maximum minimum nextafter remainder signbit trunc "
    "max min argmax argmin sort argsort greater greater_equal less less_equal cumulative_max".split()
)
"""The standard's functions defined for real numbers only: a library may refuse complex arrays (torch and
array-api-strict do, JAX does not); the call then raises ``refusal``'s ``TypeError``."""


def _is_complex(xp: Any, a: Any) -> bool:
    return is_foreign_array(a) and bool(xp.isdtype(a.dtype, "complex floating"))


def is_numpy_function(f: Any) -> bool:
    """Whether ``f`` is numpy's (a ufunc, ``np.sum``, ``np.linalg.det``), which would convert another library's
    arrays to numpy unless that library takes the call over."""
    return isinstance(f, np.ufunc) or str(getattr(f, "__module__", "")).split(".")[0] == "numpy"


NUMPY_COMPATIBLE = {"dask": "dask.array", "cupy": "cupy"}
"""Libraries whose arrays answer numpy's functions with their own (``__array_function__`` and
``__array_ufunc__``), by top package: the module holding those functions."""


def implements(x: Any, f: Any) -> bool:
    """Whether ``x``'s library computes numpy's ``f`` of its arrays itself: one of ``NUMPY_COMPATIBLE`` with a
    function of ``f``'s name (dask would otherwise convert to numpy, with a warning); dask maps every ufunc over
    its chunks."""
    top = array_type_name(x).split(".")[0]
    module = NUMPY_COMPATIBLE.get(top)
    if module is None:
        return False
    if top == "dask" and isinstance(f, np.ufunc):
        return True
    return hasattr(importlib.import_module(module), getattr(f, "__name__", ""))


def standard_arguments(f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """numpy's ``args`` and ``kwargs`` for ``f`` as the standard's: the leading arrays positionally, every other
    option by its standard name, those left at numpy's default dropped; ``TypeError`` for one the standard does
    not take (``out=``, ``where=``, ``order=``)."""
    name = standard_name(f) or ""
    if isinstance(f, np.ufunc) and kwargs:  # dtype=, casting=, out=: the standard's functions take none
        array = next((a for a in _flat(args) if is_foreign_array(a)), None)
        options = ", ".join(f"{k}=" for k in kwargs)
        raise refusal(f, array, f"{options} has no counterpart in the Python Array API standard")
    count = getattr(f, "nin", None) or POSITIONAL.get(name.split(".")[-1], 1)
    plan = _binding(f, len(args), tuple(kwargs))
    if plan is None:  # a signature numpy does not expose, or a call it does not bind: the arguments as they are
        return args, kwargs
    values = [(key, _argument(args, kwargs, source), _DEFAULTS[default]) for key, source, default in plan]
    positional = tuple(value for _, value, _ in values[:count])
    keywords: dict[str, Any] = {}
    for key, value, default in values[count:]:
        if default is not _NO_DEFAULT and _same(value, default):
            continue
        if key in _NUMPY_ONLY_OPTIONS:
            array = next((a for a in _flat(args) if is_foreign_array(a)), None)
            raise refusal(f, array, f"{key}= has no counterpart in the Python Array API standard")
        keywords[RENAMED.get(key, key)] = value
    return positional, keywords


_NO_DEFAULT = object()
_DEFAULTS: list[Any] = [_NO_DEFAULT]
"""The parameters' defaults that ``_binding`` met, by the index its plans hold: a plan is then made of names and
numbers alone, and a tracer reading a default reads it from this list (``torch.compile`` guards on it there)."""


@functools.lru_cache(maxsize=2048)
def _binding(f: Any, n_args: int, keys: tuple[str, ...]) -> tuple[tuple[str, Any, int], ...] | None:
    """How a call of ``f`` with ``n_args`` positional arguments and keywords ``keys`` binds: for each argument
    given, in ``f``'s parameter order, its name, where it comes from (a position or a keyword) and its default's
    index in ``_DEFAULTS`` (0, ``_NO_DEFAULT``, for none); ``None`` where ``f`` exposes no signature or the call
    does not bind. Read once per kind of call, and free of the values, so that a tracer (``torch.compile``) can
    take it as a constant."""
    parameters = _parameters(f)
    if parameters is None:
        return None
    try:
        bound = inspect.Signature(parameters).bind(*range(n_args), **{k: k for k in keys})
    except TypeError:
        return None
    defaults = {p.name: (0 if p.default is inspect.Parameter.empty else _default_index(p.default)) for p in parameters}
    return tuple((key, source, defaults[key]) for key, source in bound.arguments.items())


def _default_index(default: Any) -> int:
    """``default``'s place in ``_DEFAULTS``, appended the first time."""
    for i, known in enumerate(_DEFAULTS):
        if known is default:
            return i
    _DEFAULTS.append(default)
    return len(_DEFAULTS) - 1


def _argument(args: tuple[Any, ...], kwargs: dict[str, Any], source: Any) -> Any:
    """The value ``_binding`` placed: a position, a keyword, the positions of ``*args`` or the keys of ``**kwargs``."""
    if isinstance(source, int):
        return args[source]
    if isinstance(source, str):
        return kwargs[source]
    if isinstance(source, tuple):
        return tuple(args[i] for i in source)
    return {k: kwargs[k] for k in source}


_NUMPY_ONLY_OPTIONS = frozenset({"out", "where", "order", "casting", "subok", "signature", "initial", "mode", "kind"})


def _same(value: Any, default: Any) -> bool:
    try:
        return bool(value is default or (type(value) is type(default) and value == default))
    except (TypeError, ValueError):
        return False


@functools.lru_cache(maxsize=512)
def _parameters(f: Any) -> list[inspect.Parameter] | None:
    try:
        return list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        return None


def _flat(args: tuple[Any, ...]) -> list[Any]:
    return [v for a in args for v in (a if isinstance(a, (list, tuple)) else (a,))]
