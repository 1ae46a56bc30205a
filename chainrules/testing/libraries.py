"""A rule on other array libraries: the same call, with the library's arrays, must give its numpy numbers in that
library's arrays.

``compare_on(library, f, *args, mode=...)`` calls a rule with numpy arrays
(the reference, which finite differences check elsewhere) and again with the
same values as arrays of ``library`` (``LIBRARIES``: array-api-strict,
torch, JAX eagerly and under ``jax.jit``, dask; CuPy and torch on CUDA
where a GPU is), and checks that the
primal, the tangent and every cotangent are arrays of that library (dask's
still lazy) equal to numpy's to ``RTOL`` of the largest entry. Python
numbers, ints and the rest of the arguments are passed as they are. A
library that is not installed is reported by ``Library.available``; the
tests skip it with the reason. Outputs made of vectors that LAPACK defines
up to a phase each (``GAUGES``: eigenvectors, singular vectors, QR) are
compared in numpy's phases.

>>> import numpy as np
>>> strict = LIBRARIES["array_api_strict"]
>>> if strict.available():
...     report = compare_on(strict, np.sin, np.array([0.5, 1.5]), mode="rrule")
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, Tangent, backing, frule, primal_type, rrule, unthunk
from chainrules_core.arrays import is_complex_dtype, namespace_of
from chainrules_core.naming import function_name
from chainrules_core.testing.tangents import PrimalAndTangent, rand_tangent

RTOL = {"float64": 1e-10, "float32": 1e-5}
"""A rule on another library agrees with its numpy run to this, relative to the largest entry."""


@dataclass(frozen=True)
class Library:
    """How the tests make and read the arrays of one library."""

    name: str
    module: str
    """What must import for the library to be available."""
    convert: Callable[[np.ndarray[Any, Any]], Any]
    """A numpy array as an array of the library."""
    read: Callable[[Any], np.ndarray[Any, Any]]
    """An array of the library as a numpy array (computing a dask array)."""
    kind: Callable[[Any], bool]
    """Whether a value is an array of the library."""
    jit: bool = False
    """Whether the rule runs under ``jax.jit``: traced, with every array an abstract value."""
    setup: Callable[[], None] = field(default=lambda: None)
    device: Callable[[], bool] | None = None
    """For a library that needs a GPU: whether this machine has one for it."""

    def available(self) -> bool:
        installed = importlib.util.find_spec(self.module.split(".")[0]) is not None and _imports(self.module)
        return installed and (self.device is None or _answers(self.device))

    def why_not(self) -> str:
        if self.device is not None and importlib.util.find_spec(self.module.split(".")[0]) is not None:
            return f"{self.name} needs a GPU, and this machine has none that {self.module} can use"
        return f"{self.module} is not installed: pip install 'chainrules[all]'"


def _answers(probe: Callable[[], bool]) -> bool:
    try:
        return bool(probe())
    except Exception:  # a library without its driver raises its own errors: no device
        return False


def _imports(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def _torch() -> Any:
    return importlib.import_module("torch")


def _jax_setup() -> None:
    importlib.import_module("jax").config.update("jax_enable_x64", True)


def _jnp() -> Any:
    _jax_setup()
    return importlib.import_module("jax.numpy")


def _dask() -> Any:
    return importlib.import_module("dask.array")


def _strict() -> Any:
    return importlib.import_module("array_api_strict")


def _dask_convert(a: np.ndarray[Any, Any]) -> Any:
    chunks = tuple(max(1, (n + 1) // 2) for n in a.shape)  # two chunks along each axis: the work stays split
    return _dask().from_array(a, chunks=chunks)


def _is_dask(x: Any) -> bool:
    return type(x).__module__.startswith("dask.") and hasattr(x, "dask")


def _jax_library(name: str, jit: bool) -> Library:
    """JAX, its arrays computed eagerly or, with ``jit``, the rule traced inside ``jax.jit``."""
    return Library(
        name,
        "jax.numpy",
        lambda a: _jnp().asarray(a),
        lambda x: np.asarray(x),
        lambda x: type(x).__module__.startswith("jax"),
        jit=jit,
        setup=_jax_setup,
    )


LIBRARIES: dict[str, Library] = {
    "array_api_strict": Library(
        "array_api_strict",
        "array_api_strict",
        lambda a: _strict().asarray(a),
        lambda x: np.from_dlpack(x),
        lambda x: type(x).__module__.startswith("array_api_strict"),
    ),
    "torch": Library(
        "torch",
        "torch",
        lambda a: _torch().asarray(a),
        lambda x: x.detach().cpu().resolve_conj().numpy(),  # a lazy conjugate (torch.conj, ihfft) read as one
        lambda x: isinstance(x, _torch().Tensor),
    ),
    "jax": _jax_library("jax", jit=False),
    "jax.jit": _jax_library("jax.jit", jit=True),
    "dask": Library("dask", "dask.array", _dask_convert, lambda x: np.asarray(x.compute()), _is_dask),
    "cupy": Library(
        "cupy",
        "cupy",
        lambda a: importlib.import_module("cupy").asarray(a),
        lambda x: x.get(),
        lambda x: type(x).__module__.startswith("cupy"),
        device=lambda: importlib.import_module("cupy").cuda.runtime.getDeviceCount() > 0,
    ),
    "torch.cuda": Library(
        "torch.cuda",
        "torch",
        lambda a: _torch().asarray(a, device="cuda"),
        lambda x: x.detach().cpu().resolve_conj().numpy(),  # a lazy conjugate (torch.conj, ihfft) read as one
        lambda x: isinstance(x, _torch().Tensor) and x.device.type == "cuda",
        device=lambda: _torch().cuda.is_available(),
    ),
}
"""The libraries the rules are checked on, by the name the tests and the refusals table use."""


GAUGES: dict[Any, dict[int, tuple[int | None, ...]]] = {
    np.linalg.eigh: {2: (None, -2)},
    np.linalg.svd: {3: (-2, None, -1)},
    np.linalg.qr: {2: (-2, -1), 1: (-1,)},
}
"""Functions whose outputs hold vectors each defined up to a phase (a sign when real), which another library's
LAPACK may choose otherwise: per number of leaves of the output, the axis along which each leaf's vectors lie
(-2: columns, eigh's and the SVD's ``U``, QR's ``Q``; -1: rows, the SVD's ``Vh``, QR's ``R``), ``None`` for a
leaf without a gauge.

The library's vectors ``V D`` (``D`` a diagonal of unit phases, read off
numpy's ``V``) are turned back, ``V D D^H``, before the output and its
tangent are compared: the rules' tangents follow the gauge as the vectors do
(``V_dot D``). The pullback is given the seed turned to the library's
phases (``V_bar D``): the loss ``Re <V_bar D, V D>`` is numpy's, so the
cotangent of the input, which does not depend on the gauge, must be
numpy's. The phases are read per vector, so vectors of a repeated
eigenvalue or singular value (any rotation of a basis) are not compared
this way: the declared cases have none.
"""


def _mean_over_repeated(values: np.ndarray, seed: np.ndarray) -> np.ndarray:
    """``seed`` averaged over each group of ``values`` repeated up to ``sqrt(eps)`` of the largest."""
    w, g = np.asarray(values), np.asarray(seed)
    tol = np.sqrt(np.finfo(w.dtype).eps) * np.max(np.abs(w), axis=-1, keepdims=True)
    same = (np.abs(w[..., :, None] - w[..., None, :]) <= tol[..., None]).astype(g.dtype)
    return ((same @ g[..., None])[..., 0] / np.sum(same, axis=-1)).astype(g.dtype)


SEEDS: dict[Any, Callable[[Any, Any], Any]] = {
    np.linalg.eigvalsh: _mean_over_repeated,
    np.linalg.svdvals: _mean_over_repeated,
}
"""Functions whose pullback, at a repeated output value, depends on a basis LAPACK chooses unless the seed is
equal over the repeated values (a repeated eigenvalue: any basis of its eigenspace): ``(numpy's output, a
random seed) -> the seed`` that ``compare_on`` gives both runs, the same over each repeated group (the function
of such a seed is smooth there, its cotangent unique)."""


@dataclass
class LibraryReport:
    function: str
    library: str
    mode: str
    compared: int = 0
    """How many arrays were compared with numpy's."""


class LibraryMismatchError(AssertionError):
    """The rule on another library's arrays differs from its numpy run, or leaves the library."""


def compare_on(
    library: Library,
    f: Any,
    *args: Any,
    mode: str,
    fkwargs: dict[str, Any] | None = None,
    seed: int = 0,
) -> LibraryReport:
    """Run ``f``'s ``mode`` rule on numpy ``args`` and on the same values in ``library``'s arrays; compare.

    The seed (rrule) or the tangents (frule) are random, the same values in
    both runs. Raises ``LibraryMismatchError`` naming what differs: an output
    that is not an array of the library, a value off numpy's.
    """
    library.setup()
    args = tuple(a.primal if isinstance(a, PrimalAndTangent) else a for a in args)  # its own tangents: random
    kwargs = dict(fkwargs or {})
    rng = np.random.default_rng(seed + 7919)  # not the seed the arguments were drawn with: tangents other than them
    name = function_name(f)
    report = LibraryReport(name, library.name, mode)
    converted = tuple(_to_library(library, a) for a in args)
    if mode == "rrule":
        y, pullback = _rule(rrule(f, *args, **kwargs), name, "numpy")
        seed_value = rand_tangent(y, rng)
        if f in SEEDS:
            seed_value = SEEDS[f](y, seed_value)
        reference = (y, *pullback(seed_value))
        seed_converted = _to_library(library, unthunk(seed_value))
        gauge = _gauge(library, f, y)

        def run(*values: Any) -> Any:
            y, pullback = _rule(rrule(f, *values, **kwargs), name, library.name)
            if gauge is None:
                return (y, *pullback(seed_converted))
            phases = gauge(y)
            return (_turned(y, phases, back=True), *pullback(_turned(seed_converted, phases, back=False)))

    else:
        tangents = tuple(
            rand_tangent(a, rng) if isinstance(a, (np.ndarray, np.inexact, float, complex)) else NoTangent()
            for a in args
        )
        reference = _rule(frule((NoTangent(), *tangents), f, *args, **kwargs), name, "numpy")
        tangents_converted = tuple(_to_library(library, t) for t in tangents)
        gauge = _gauge(library, f, reference[0])

        def run(*values: Any) -> Any:
            y, y_dot = _rule(frule((NoTangent(), *tangents_converted), f, *values, **kwargs), name, library.name)
            if gauge is None:
                return y, y_dot
            phases = gauge(y)
            return _turned(y, phases, back=True), _turned(y_dot, phases, back=True)

    got = _jitted(run, converted) if library.jit else run(*converted)
    _compare(library, reference, got, report, name, "the result")
    return report


def _gauge(library: Library, f: Any, reference: Any) -> Callable[[Any], list[Any]] | None:
    """For a function of ``GAUGES``: the phases of the library's output against numpy's ``reference``, per leaf
    (``None`` for a leaf without a gauge), each of shape 1 along the axis its vectors lie along."""
    axes = GAUGES.get(f, {}).get(len(_leaves(reference)))
    if axes is None:
        return None
    references = [_to_library(library, leaf) for leaf in _leaves(reference)]

    def phases(out: Any) -> list[Any]:
        found: list[Any] = []
        for axis, want, got in zip(axes, references, _leaves(out)):
            if axis is None:
                found.append(None)
                continue
            xp = namespace_of(got)
            overlap = xp.sum(
                (xp.conj(want) if is_complex_dtype(xp, want.dtype) else want) * got, axis=axis, keepdims=True
            )
            size = xp.abs(overlap)  # 0 for a vector numpy's is zero (QR's zero rows of R): no phase to turn
            found.append(xp.where(size > 0, overlap / xp.where(size > 0, size, 1.0), 1.0))
        return found

    return phases


def _turned(value: Any, phases: list[Any], back: bool) -> Any:
    """``value`` (an output, its tangent or a seed) with each leaf of a gauge times its phases: their conjugates
    to turn the library's vectors to numpy's phases (``back``), the phases themselves to turn numpy's to the
    library's. The leaves as a list, or a seed as the structure it was."""
    if len(_leaves(value)) != len(phases):  # a zero for the whole output
        return value
    count = iter(phases)

    def turn(leaf: Any) -> Any:
        phase = next(count)
        if phase is None or isinstance(leaf, AbstractZero) or not hasattr(leaf, "shape"):
            return leaf
        xp = namespace_of(leaf)
        return leaf * (xp.conj(phase) if back and is_complex_dtype(xp, phase.dtype) else phase)

    if back:
        return [turn(leaf) for leaf in _leaves(value)]
    return _map_leaves(value, turn)


def _map_leaves(value: Any, fn: Callable[[Any], Any]) -> Any:
    """``value`` with ``fn`` applied to each leaf in ``_leaves``' order, its tuples, lists and ``Tangent``s kept."""
    value = unthunk(value)
    if isinstance(value, Tangent):
        data, P = backing(value), primal_type(value)
        if isinstance(data, dict):
            mapped = {k: _map_leaves(v, fn) for k, v in data.items()}
            return Tangent(P, mapped) if issubclass(P, dict) else Tangent(P, **mapped)
        return Tangent(P, *(_map_leaves(v, fn) for v in data))
    if isinstance(value, (list, tuple)):
        return (
            [_map_leaves(v, fn) for v in value] if isinstance(value, list) else tuple(_map_leaves(v, fn) for v in value)
        )
    return fn(value)


def _rule(result: Any, name: str, where: str) -> Any:
    if result is None:
        raise LibraryMismatchError(f"{name}: no rule for these arguments on {where}")
    return result


def _to_library(library: Library, value: Any) -> Any:
    """Every float or complex numpy array in ``value`` (through tuples, lists and ``Tangent``s) as the library's."""
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "fcbiu":
        return library.convert(np.asarray(value))  # a numpy scalar as a 0-d array: the library has no scalars
    if isinstance(value, Tangent):
        data, P = backing(value), primal_type(value)
        if isinstance(data, dict):
            converted = {k: _to_library(library, v) for k, v in data.items()}
            return Tangent(P, converted) if issubclass(P, dict) else Tangent(P, **converted)
        return Tangent(P, *(_to_library(library, v) for v in data))
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_to_library(library, v) for v in value)
    return value


def _leaves(value: Any) -> list[Any]:
    """The values of a result, in order: through tuples, lists and ``Tangent``s; thunks forced."""
    value = unthunk(value)
    if isinstance(value, Tangent):
        data = backing(value)
        return [leaf for v in (data.values() if isinstance(data, dict) else data) for leaf in _leaves(v)]
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _jitted(run: Callable[..., Any], converted: tuple[Any, ...]) -> Any:
    """``run`` under ``jax.jit``: its array arguments traced, the others fixed; its result's leaves returned."""
    jax = importlib.import_module("jax")
    is_array = [
        hasattr(a, "shape") and hasattr(a, "dtype") and not isinstance(a, (np.ndarray, np.generic, type))
        for a in converted
    ]
    arrays = [a for a, flag in zip(converted, is_array) if flag]
    kinds: list[Any] = []

    def traced(*values: Any) -> Any:
        it = iter(values)
        full = [next(it) if flag else a for a, flag in zip(converted, is_array)]
        leaves = _leaves(run(*full))
        kinds.clear()
        kinds.extend(None if _is_jax_value(v) else v for v in leaves)
        return [v if _is_jax_value(v) else None for v in leaves]

    out = jax.jit(traced)(*arrays)
    return [k if o is None else o for o, k in zip(out, kinds)]


def _is_jax_value(v: Any) -> bool:
    return type(v).__module__.startswith("jax")


def _compare(library: Library, reference: Any, got: Any, report: LibraryReport, name: str, where: str) -> None:
    want_leaves, got_leaves = _leaves(reference), _leaves(got)
    if len(want_leaves) != len(got_leaves):
        raise LibraryMismatchError(
            f"{name} on {library.name}: {len(got_leaves)} values where numpy gives {len(want_leaves)}"
        )
    for k, (want, value) in enumerate(zip(want_leaves, got_leaves)):
        where_k = "the primal" if k == 0 else f"value {k} of the result"
        if isinstance(want, (AbstractZero, NoTangent)) or want is None:
            if not (isinstance(value, AbstractZero) or value is None):
                raise LibraryMismatchError(
                    f"{name} on {library.name}: {where_k} is {type(value).__name__}, numpy's a zero"
                )
            continue
        if isinstance(want, (np.ndarray, np.generic)) and np.asarray(want).dtype.kind in "fc":
            if not library.kind(value):
                raise LibraryMismatchError(
                    f"{name} on {library.name}: {where_k} is a {type(value).__module__}.{type(value).__name__}, "
                    f"not an array of {library.name} (numpy's is {np.asarray(want).dtype}{np.shape(want)})"
                )
            _close(library, np.asarray(want), library.read(value), name, where_k)
            report.compared += 1
        elif isinstance(want, (float, complex)) and not isinstance(want, np.generic):
            number = library.read(value) if library.kind(value) else np.asarray(value)
            _close(library, np.asarray(want), np.asarray(number), name, where_k)
            report.compared += 1


def _close(library: Library, want: np.ndarray[Any, Any], got: np.ndarray[Any, Any], name: str, where: str) -> None:
    if got.shape != want.shape:
        raise LibraryMismatchError(f"{name} on {library.name}: {where} has shape {got.shape}, numpy's {want.shape}")
    single = (np.float32, np.complex64)  # either: a library may promote a float32 with an int64 to float32
    precision = "float32" if want.dtype in single or got.dtype in single else "float64"
    finite = np.isfinite(want)
    scale = float(np.max(np.abs(want[finite]), initial=0.0)) or 1.0
    same_nonfinite = np.array_equal(np.isnan(got), np.isnan(want)) and np.array_equal(
        got[np.isinf(want)], want[np.isinf(want)]
    )
    close = np.all(np.abs(got[finite] - want[finite]) <= RTOL[precision] * scale)
    if not (same_nonfinite and close):
        worst = float(np.max(np.abs(got[finite] - want[finite]), initial=0.0)) / scale
        raise LibraryMismatchError(
            f"{name} on {library.name}: {where} differs from numpy's by {worst:.2e} of its largest entry"
        )
