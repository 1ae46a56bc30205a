"""Declared checks: where each rule's inputs live, so tests and the command line share them.

A rule module declares, next to its rules, the ``Case``s that check them:
the function, how to make each argument (a ``Domain`` sampled at a shape, a
point ``At`` a given value, or a literal such as an axis), keyword
arguments, dtypes and modes. ``register_cases`` files them under a family;
the test suite and ``python -m chainrules check`` run every registered case
through ``test_frule`` and ``test_rrule``.

>>> import numpy as np
>>> case = Case(np.log, (Arg(POSITIVE, (2, 3)),))
>>> [(v.dtype, v.shape, bool(np.all(v > 0))) for v in case.make_args(np.random.default_rng(0), "float32")]
[(dtype('float32'), (2, 3), True)]
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..naming import function_name
from .harness import CheckReport, test_frule, test_rrule
from .tangents import PrimalAndTangent

DTYPES = ("float64", "float32", "complex128")
MODES = ("frule", "rrule")


@dataclass(frozen=True)
class Domain:
    """An open interval of the reals where a function is smooth, and whether complex inputs are valid.

    Real samples stay a tenth of the interval away from finite ends; complex
    samples add an imaginary part to a real sample, which keeps them off the
    usual branch cuts along the real axis outside the interval. Every domain
    generates complex inputs, for the ``complex128`` runs a ``Case``
    declares by default, unless ``complex=False``: ``REALS`` is the real line
    *and* the complex plane around it, ``REAL_ONLY`` the real line alone.
    """

    low: float = -math.inf
    high: float = math.inf
    complex: bool = True
    name: str = ""

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        lo, hi = self.low, self.high
        if math.isfinite(lo) and math.isfinite(hi):
            width = hi - lo
            return np.asarray(rng.uniform(lo + 0.1 * width, hi - 0.1 * width, size=shape))
        if math.isfinite(lo):
            return np.asarray(lo + np.exp(rng.normal(0.0, 0.5, size=shape)))
        if math.isfinite(hi):
            return np.asarray(hi - np.exp(rng.normal(0.0, 0.5, size=shape)))
        return np.asarray(rng.normal(0.0, 1.0, size=shape))

    def sample_complex(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        return np.asarray(self.sample(rng, shape) + 1j * rng.normal(0.0, 0.5, size=shape))

    def __repr__(self) -> str:
        return self.name or f"Domain({self.low}, {self.high})"


REALS = Domain(name="reals")
"""The real line, and complex numbers around it for complex dtypes; ``REAL_ONLY`` for real inputs only."""
POSITIVE = Domain(0.0, math.inf, name="positive")
UNIT_INTERVAL = Domain(-1.0, 1.0, name="(-1, 1)")
PROBABILITY = Domain(0.0, 1.0, name="(0, 1)")
ABOVE_ONE = Domain(1.0, math.inf, name="(1, inf)")
REAL_ONLY = Domain(complex=False, name="reals, real only")
"""The real line, without complex inputs: a ``Case`` on it skips its complex dtypes."""
POSITIVE_REAL_ONLY = Domain(0.0, math.inf, complex=False, name="positive, real only")


@dataclass(frozen=True)
class Nonzero(Domain):
    """Reals of magnitude at least ``margin``: away from a singularity or kink at 0."""

    margin: float = 0.3

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        magnitude = self.margin + np.abs(rng.normal(0.0, 1.0, size=shape))
        return np.where(rng.random(size=shape) < 0.5, -magnitude, magnitude)


NONZERO = Nonzero(name="nonzero")
NONZERO_REAL_ONLY = Nonzero(complex=False, name="nonzero, real only")


@dataclass(frozen=True)
class Arg:
    """An argument drawn from ``domain``: an array of ``shape``, or a Python scalar when ``shape`` is None."""

    domain: Domain = REALS
    shape: tuple[int, ...] | None = ()

    def make(self, rng: np.random.Generator, dtype: str) -> Any:
        dt = np.dtype(dtype)
        shape = () if self.shape is None else self.shape
        values = self.domain.sample_complex(rng, shape) if dt.kind == "c" else self.domain.sample(rng, shape)
        if self.shape is None:
            return complex(values) if dt.kind == "c" else float(values)
        return np.asarray(values).astype(dt)


@dataclass(frozen=True)
class At:
    """A fixed point (a non-smooth point, a tie, a zero), cast to the case's dtype."""

    value: Any

    def make(self, rng: np.random.Generator, dtype: str) -> Any:
        if isinstance(self.value, float):  # a Python scalar point stays a Python scalar
            return complex(self.value) if np.dtype(dtype).kind == "c" else self.value
        return np.asarray(self.value).astype(dtype)


@dataclass(frozen=True)
class Generated:
    """An argument made by ``make(rng, dtype)``: for inputs with structure (SPD matrices, permutations)."""

    make_value: Callable[[np.random.Generator, str], Any]
    label: str = "generated"

    def make(self, rng: np.random.Generator, dtype: str) -> Any:
        return self.make_value(rng, dtype)


ArgSpec = Any  # Arg | At | Generated | a literal passed as it is


@dataclass(frozen=True)
class Case:
    """One declared check of one rule.

    ``args`` holds one spec per positional argument: ``Arg``, ``At``,
    ``Generated``, ``no_tangent(spec)`` for a differentiable-looking argument
    the rule must treat as non-differentiable, or a literal. ``dtypes`` lists
    the dtypes to run (complex only where the domain allows), ``modes`` the
    rules to check, ``options`` extra keywords for the harness (``rtol``,
    ``fdm``, ``output_tangent`` ...). ``python_scalars`` cases with
    ``shape=None`` arguments run as Python floats and complex numbers.
    ``smooth=False`` declares a point where ``f`` is not twice
    differentiable (a kink, a tie, the zero of a norm): the first-order
    checks hold the rule to its convention there, and the second-order
    checks (``check --order 2``) leave the case out, since no second
    derivative exists to check. ``wrong_shape=True`` also holds the rule to
    refusing a seed or tangent of the wrong shape (the harness's option of
    that name): the rules this package ships promise it, and their cases
    declare it.
    """

    f: Callable[..., Any]
    args: tuple[ArgSpec, ...]
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    name: str = ""
    dtypes: tuple[str, ...] = DTYPES
    modes: tuple[str, ...] = MODES
    options: Mapping[str, Any] = field(default_factory=dict)
    smooth: bool = True
    wrong_shape: bool = False

    @property
    def label(self) -> str:
        """``np.sum((3,4);axis=0,dtype=float64) dtype``: the function, each argument's shape or value, the name."""
        f_name = function_name(self.f)
        shapes = ",".join(_spec_label(a) for a in self.args)
        kw = ",".join(f"{k}={value_label(v)}" for k, v in self.kwargs.items())
        parts = [f"{f_name}({shapes}{';' + kw if kw else ''})"]
        if self.name:
            parts.append(self.name)
        return _NUMPY_SCALAR.sub(r"\1", " ".join(parts))

    def valid_dtypes(self) -> tuple[str, ...]:
        """The declared dtypes the arguments' domains allow (no complex on a real-only domain)."""
        python_only = any(isinstance(a, Arg) and a.shape is None for a in self.args)
        allowed = []
        for dtype in self.dtypes:
            kind = np.dtype(dtype).kind
            if kind == "c" and any(isinstance(a, Arg) and not a.domain.complex for a in _specs(self.args)):
                continue
            if python_only and dtype not in ("float64", "complex128"):
                continue
            allowed.append(dtype)
        return tuple(allowed)

    def make_args(self, rng: np.random.Generator, dtype: str) -> tuple[Any, ...]:
        return tuple(_make(spec, rng, dtype) for spec in self.args)

    def run(self, dtype: str, mode: str, seed: int = 0, variants: bool = True) -> CheckReport:
        """Run this case through the harness in one dtype and one mode, and its variants (``testing.variants``):
        fast paths off, other layouts; with ``wrong_shape``, a seed or tangent of the wrong shape."""
        rng = np.random.default_rng(seed)
        args = self.make_args(rng, dtype)
        check = test_frule if mode == "frule" else test_rrule
        options = {"variants": variants, "wrong_shape": self.wrong_shape, **self.options}
        if callable(options.get("output_tangent")):
            options["output_tangent"] = options["output_tangent"](self.f(*_primals(args), **self.kwargs))
        try:
            return check(self.f, *args, fkwargs=dict(self.kwargs), seed=seed, **options)
        except Exception as failure:
            if np.dtype(dtype).kind == "c" and len(failure.args) == 1 and isinstance(failure.args[0], str):
                failure.args = (f"{failure.args[0]}\n{_real_only_hint(self.f)}",)
            raise

    def expand(self) -> Iterator[tuple[str, str]]:
        """Every (dtype, mode) this case runs in."""
        for dtype in self.valid_dtypes():
            for mode in self.modes:
                yield dtype, mode


def _real_only_hint(f: Callable[..., Any]) -> str:
    """What a failing complex run suggests: most often, a function defined for real numbers only."""
    return (
        f"hint: if {function_name(f)} is defined for real numbers only, draw its arguments from REAL_ONLY "
        "(or POSITIVE_REAL_ONLY, NONZERO_REAL_ONLY, Domain(..., complex=False); chainrules_core.testing.cases), "
        "and its cases skip complex dtypes; else its rule must follow the complex convention (docs/conventions.md)"
    )


def _make(spec: ArgSpec, rng: np.random.Generator, dtype: str) -> Any:
    if isinstance(spec, PrimalAndTangent):
        primal = _make(spec.primal, rng, dtype)
        return PrimalAndTangent(primal, _tangent_like(spec.tangent, primal))
    if isinstance(spec, Arg | At | Generated):
        return spec.make(rng, dtype)
    return spec


def _tangent_like(t: Any, primal: Any) -> Any:
    """An explicit array tangent in the dtype the primal was made in (a case runs in several dtypes)."""
    kinds = getattr(getattr(t, "dtype", None), "kind", ""), getattr(getattr(primal, "dtype", None), "kind", "")
    if kinds[0] in ("f", "c") and kinds[1] in ("f", "c") and not (kinds == ("c", "f")):
        return np.asarray(t).astype(primal.dtype) if isinstance(primal, np.ndarray) else primal.dtype.type(t)
    return t


def _specs(args: Sequence[ArgSpec]) -> Iterator[ArgSpec]:
    for a in args:
        yield a.primal if isinstance(a, PrimalAndTangent) else a


def _primals(args: Sequence[Any]) -> list[Any]:
    return [a.primal if isinstance(a, PrimalAndTangent) else a for a in args]


_NUMPY_SCALAR = re.compile(r"np\.(?:float|int|uint|complex|bool)(?:\d+|_)?\(([^()]*)\)")
"""``np.float64(1.0)`` in a label written by hand, to read ``1.0``."""


def value_label(value: Any) -> str:
    """A literal as a label shows it: ``float64`` for a dtype or a scalar type, ``0.5`` for a numpy scalar,
    ``[True,False]`` for a small array, ``<(3,4) array>`` for a larger one.

    >>> value_label(np.float64), value_label(np.dtype("float32")), value_label(np.float64(0.5))
    ('float64', 'float32', '0.5')
    >>> value_label(np.array([True, False])), value_label(np.ones((3, 4))), value_label((0, 2))
    ('[True,False]', '<(3,4) array>', '(0,2)')
    """
    if isinstance(value, type):
        return value.__name__
    if isinstance(value, np.dtype):
        return str(value)
    if isinstance(value, np.generic):
        return repr(value.item())
    if isinstance(value, np.ndarray):
        if value.size <= 4:
            return str(value.tolist()).replace(" ", "")
        return f"<{str(value.shape).replace(' ', '')} array>"
    if isinstance(value, (tuple, list)) and len(value) <= 4:
        inner = ",".join(value_label(v) for v in value) + ("," if len(value) == 1 and isinstance(value, tuple) else "")
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    if callable(value):
        return function_name(value).rsplit(".", 1)[-1]
    text = repr(value).replace(" ", "")
    return text if len(text) < 20 else text[:17] + "..."


def _spec_label(spec: ArgSpec) -> str:
    if isinstance(spec, PrimalAndTangent):
        given = "NoTangent" if type(spec.tangent).__name__ == "NoTangent" else "dx"  # with_tangent's explicit dx
        return f"{_spec_label(spec.primal)}⊢{given}"
    if isinstance(spec, Arg):
        return "scalar" if spec.shape is None else str(spec.shape).replace(" ", "")
    if isinstance(spec, At):
        values = np.asarray(spec.value)
        if values.size > 8:
            return f"at<{str(values.shape).replace(' ', '')} values>"
        return f"at {values.tolist()!r}".replace(" ", "")
    if isinstance(spec, Generated):
        return spec.label
    return value_label(spec)


_REGISTRY: dict[str, list[Case]] = {}


def register_cases(family: str, *cases: Case) -> None:
    """File ``cases`` under ``family``; the tests and ``python -m chainrules check`` run them."""
    _REGISTRY.setdefault(family, []).extend(cases)


def registered_cases(family: str | None = None) -> list[tuple[str, Case]]:
    """``(family, case)`` for every registered case, or those of one family."""
    return [(fam, case) for fam, cases in _REGISTRY.items() if family in (None, fam) for case in cases]


def families() -> list[str]:
    return list(_REGISTRY)
