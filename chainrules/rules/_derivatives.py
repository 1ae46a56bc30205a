"""The derivative tables of the elementwise functions: written once for numpy, ``math``, ``operator`` and builtins.

Each entry gives the partial derivatives of one function as
``partials(m, out, *args)``: ``m`` is a namespace of elementary functions
under numpy's names (``numpy`` itself for arrays, ``PY`` for Python floats,
which is the ``math`` module's kernels), ``out`` the primal output, and the
result one partial per argument (a single value for a unary function). The
numpy rules feed the entries to ``scalar_rule``; the ``math``, ``operator``
and builtins entry points evaluate the same partials with Python arithmetic.

Each entry also declares where its inputs are valid: ``domains`` (one per
argument) from which the tests and ``python -m chainrules check`` draw
inputs; ``points``, non-smooth points where the rule's choice is the central
finite difference, so the harness confirms it there; and ``limits``, points
where the derivative is a limit that finite differences cannot reach (an
infinite slope, a jump), each with the partials the rule returns there.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from chainrules_core.testing import (
    ABOVE_ONE,
    NONZERO,
    NONZERO_REAL_ONLY,
    POSITIVE,
    REAL_ONLY,
    REALS,
    UNIT_INTERVAL,
    Domain,
)

INF = math.inf
NAN = math.nan
DEGREE = math.pi / 180
LN2 = math.log(2.0)
LN10 = math.log(10.0)


class PY:
    """numpy's names for the ``math`` kernels: the namespace the tables use for Python floats.

    Python arithmetic raises where numpy returns ``inf`` or ``nan`` (``0.5 / 0.0``,
    ``math.log(-1.0)``); ``python_partials`` then evaluates the entry with numpy.
    """

    sqrt = staticmethod(math.sqrt)
    exp = staticmethod(math.exp)
    log = staticmethod(math.log)
    sin = staticmethod(math.sin)
    cos = staticmethod(math.cos)
    sinh = staticmethod(math.sinh)
    cosh = staticmethod(math.cosh)
    floor = staticmethod(math.floor)
    isnan = staticmethod(math.isnan)
    trunc = staticmethod(math.trunc)
    greater = staticmethod(operator.gt)
    less = staticmethod(operator.lt)
    equal = staticmethod(operator.eq)

    @staticmethod
    def where(condition: Any, a: Any, b: Any) -> Any:
        return a if condition else b

    @staticmethod
    def sign(x: Any) -> Any:
        return x if x != x else float((x > 0) - (x < 0))

    @staticmethod
    def real(x: Any) -> Any:
        return x.real

    @staticmethod
    def iscomplexobj(x: Any) -> bool:
        return isinstance(x, complex)


@dataclass(frozen=True)
class Band(Domain):
    """A domain whose complex samples stay within ``imag`` of the real axis (off cuts along the imaginary axis)."""

    imag: float = 0.2

    def sample_complex(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        return np.asarray(self.sample(rng, shape) + 1j * rng.uniform(-self.imag, self.imag, size=shape))


Point = tuple[float, ...]


@dataclass(frozen=True)
class Elementwise:
    """The derivative of one elementwise function, and where its inputs are valid.

    ``partials`` is one function returning every partial, or a tuple of
    functions, one per argument, so that each is computed only when its
    argument needs it; ``lazy`` lists the arguments whose cotangents are
    then returned as thunks (``power``'s exponent, whose partial needs a
    logarithm and is usually not wanted). ``constant`` marks partials that
    do not depend on the point (``add``, ``negative``): the rule then scales
    the cotangent without evaluating anything.
    """

    partials: Callable[..., Any] | tuple[Callable[..., Any], ...]
    domains: tuple[Domain, ...]
    points: tuple[Point, ...] = ()
    limits: tuple[tuple[Point, Point], ...] = ()
    constant: bool = False
    lazy: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.lazy and callable(self.partials):
            raise ValueError("Elementwise: lazy cotangents need one partial function per argument")

    @property
    def arity(self) -> int:
        return len(self.domains)

    def evaluate(self, m: Any, out: Any, *args: Any) -> Any:
        """Every partial at ``args``: one value for a unary function, a tuple otherwise."""
        if callable(self.partials):
            return self.partials(m, out, *args)
        return tuple(p(m, out, *args) for p in self.partials)

    def bind_numpy(self) -> Callable[..., Any]:
        """The partials as ``scalar_rule`` takes them: ``(out, *args) -> partials``, in numpy's arithmetic.

        Python numbers become numpy scalars first, so that ``1 / x`` at 0 is
        ``inf`` with numpy's warning, as for arrays, rather than an exception.
        """
        return lambda out, *args: self.evaluate(np, out, *map(numpy_scalar, args))


def numpy_scalar(x: Any) -> Any:
    """A Python float or complex as a numpy scalar; anything else as it is."""
    t = type(x)
    return np.float64(x) if t is float else np.complex128(x) if t is complex else x


def python_partials(partials: Callable[..., Any], out: Any, args: tuple[Any, ...]) -> Any:
    """``partials(m, out, *args)`` at Python numbers: ``math`` arithmetic, numpy's ``inf``/``nan`` where that raises."""
    try:
        return partials(PY, out, *args)
    except (ArithmeticError, ValueError):
        return partials(np, np.float64(out), *(np.float64(a) for a in args))


def _unary(partials: Callable[..., Any], domain: Domain, **extra: Any) -> Elementwise:
    return Elementwise(partials, (domain,), **extra)


def _at(*values: float) -> Point:
    return values


def _sech2(m: Any, out: Any, x: Any) -> Any:
    """tanh' = sech²(x). 1 - tanh² (ChainRules.jl) loses every digit where tanh rounds to ±1 (|x| > 19) and
    1/cosh² overflows (autograd); for real x, 4e/(1 + e)² with e = exp(-2|x|) does neither."""
    if m.iscomplexobj(x):
        return 1 - out * out
    e = m.exp(-2 * abs(x))
    return 4 * e / ((1 + e) * (1 + e))


# d(out)/dx given the output `out` and the input `x`; holomorphic on complex inputs (scalar_rule conjugates).
# The formulas are the standard ones; those in terms of `out` follow ChainRules.jl (fastmath_able.jl).
UNARY: dict[Any, Elementwise] = {
    np.negative: _unary(lambda m, out, x: -1, REALS, constant=True),
    np.positive: _unary(lambda m, out, x: 1, REALS, constant=True),
    np.sqrt: _unary(lambda m, out, x: 0.5 / out, POSITIVE, limits=((_at(0.0), _at(INF)),)),  # +inf at 0
    np.cbrt: _unary(lambda m, out, x: 1 / (3 * out * out), NONZERO_REAL_ONLY, limits=((_at(0.0), _at(INF)),)),
    np.square: _unary(lambda m, out, x: 2 * x, REALS),
    np.reciprocal: _unary(lambda m, out, x: -out * out, NONZERO, limits=((_at(0.0), _at(-INF)),)),
    np.exp: _unary(lambda m, out, x: out, REALS),
    np.exp2: _unary(lambda m, out, x: LN2 * out, REALS),
    np.expm1: _unary(lambda m, out, x: m.exp(x), REALS),  # not out + 1, which cancels for x << 0
    np.log: _unary(lambda m, out, x: 1 / x, POSITIVE, limits=((_at(0.0), _at(INF)),)),
    np.log2: _unary(lambda m, out, x: 1 / (LN2 * x), POSITIVE, limits=((_at(0.0), _at(INF)),)),
    np.log10: _unary(lambda m, out, x: 1 / (LN10 * x), POSITIVE, limits=((_at(0.0), _at(INF)),)),
    np.log1p: _unary(
        lambda m, out, x: 1 / (x + 1), Domain(-1.0, INF, name="(-1, inf)"), limits=((_at(-1.0), _at(INF)),)
    ),
    np.sin: _unary(lambda m, out, x: m.cos(x), REALS),
    np.cos: _unary(lambda m, out, x: -m.sin(x), REALS),
    np.tan: _unary(lambda m, out, x: 1 + out * out, Domain(-1.2, 1.2, name="(-1.2, 1.2)")),  # poles at pi/2 + k pi
    # (1 - x)(1 + x), not 1 - x², which cancels near ±1
    np.arcsin: _unary(
        lambda m, out, x: 1 / m.sqrt((1 - x) * (1 + x)),
        UNIT_INTERVAL,
        limits=((_at(1.0), _at(INF)), (_at(-1.0), _at(INF))),
    ),
    np.arccos: _unary(
        lambda m, out, x: -1 / m.sqrt((1 - x) * (1 + x)),
        UNIT_INTERVAL,
        limits=((_at(1.0), _at(-INF)), (_at(-1.0), _at(-INF))),
    ),
    np.arctan: _unary(lambda m, out, x: 1 / (1 + x * x), Band(name="reals, near the real axis")),  # branch points ±i
    np.sinh: _unary(lambda m, out, x: m.cosh(x), REALS),
    np.cosh: _unary(lambda m, out, x: m.sinh(x), REALS),
    np.tanh: _unary(lambda m, out, x: _sech2(m, out, x), REALS),
    np.arcsinh: _unary(lambda m, out, x: 1 / m.sqrt(x * x + 1), Band(name="reals, near the real axis")),
    # sqrt(x - 1) * sqrt(x + 1), not sqrt(x * x - 1): the principal branch for complex x (ChainRules.jl)
    np.arccosh: _unary(
        lambda m, out, x: 1 / (m.sqrt(x - 1) * m.sqrt(x + 1)), ABOVE_ONE, limits=((_at(1.0), _at(INF)),)
    ),
    np.arctanh: _unary(
        lambda m, out, x: 1 / ((1 - x) * (1 + x)),
        UNIT_INTERVAL,
        limits=((_at(1.0), _at(INF)), (_at(-1.0), _at(INF))),
    ),
    np.deg2rad: _unary(lambda m, out, x: DEGREE, REAL_ONLY, constant=True),
    np.rad2deg: _unary(lambda m, out, x: 1 / DEGREE, REAL_ONLY, constant=True),
    # |x|' = sign(x), 0 at 0 (the central difference; ChainRules.jl, autograd and PyTorch agree). Real inputs:
    # the rule for complex ones is written from the real Jacobian in elementwise.py.
    np.absolute: _unary(lambda m, out, x: m.sign(x), REAL_ONLY, points=(_at(0.0),)),
}
UNARY[np.radians] = UNARY[np.deg2rad]
UNARY[np.degrees] = UNARY[np.rad2deg]
UNARY[np.fabs] = UNARY[np.absolute]


def _divide(m: Any, out: Any, x: Any, y: Any) -> Any:
    inv = 1 / y
    return inv, -out * inv


def _arctan2(m: Any, out: Any, y: Any, x: Any) -> Any:
    # numpy's argument order: arctan2(y, x). At the origin, where the angle jumps, 0 (ChainRules.jl).
    r2 = x * x + y * y
    r2 = m.where(r2 == 0, 1, r2)
    return x / r2, -y / r2


def hypot_partial(m: Any, out: Any, x: Any) -> Any:
    """d hypot(..., x, ...)/dx = x / out; 0 at the origin, where it is the central difference."""
    return x / m.where(out == 0, 1, out)


def _hypot(m: Any, out: Any, x: Any, y: Any) -> Any:
    r = m.where(out == 0, 1, out)
    return x / r, y / r


def _shares(m: Any, px: Any, py: Any, x: Any, y: Any) -> Any:
    # b**(x - out) is nan where x and out are the same infinity: the limit is 1, or 1/2 when x == y too.
    tie = m.where(m.equal(x, y), 0.5, 1.0)
    return m.where(m.isnan(px), tie, px), m.where(m.isnan(py), tie, py)


def _logaddexp(m: Any, out: Any, x: Any, y: Any) -> Any:
    return _shares(m, m.exp(x - out), m.exp(y - out), x, y)


def _logaddexp2(m: Any, out: Any, x: Any, y: Any) -> Any:
    return _shares(m, 2.0 ** (x - out), 2.0 ** (y - out), x, y)


def _remainder(m: Any, out: Any, x: Any, y: Any) -> Any:
    # numpy's floored remainder x - y floor(x / y). It jumps where x / y is an integer; there the rule keeps
    # the one-sided values 1 and -floor(x / y) (autograd and PyTorch do too; ChainRules.jl returns nan).
    return 1, -m.floor(x / y)


def _fmod(m: Any, out: Any, x: Any, y: Any) -> Any:
    # C's truncated remainder x - y trunc(x / y); jumps where x / y is an integer, as remainder.
    return 1, -m.trunc(x / y)


def _selection(wins: str, nan_taker: int) -> Callable[..., Any]:
    """Partials of maximum, minimum, fmax, fmin: 1 for the argument the output is, 0 for the other.

    ``wins`` names the comparison under which x is selected (``greater`` for
    a maximum; complex numbers compare lexicographically, as numpy orders
    them). Ties split evenly: the central difference (autograd and PyTorch;
    ChainRules.jl gives all to one). Where an argument is nan, argument
    ``nan_taker`` takes the whole cotangent: maximum and minimum return the
    nan (``nan_taker`` 0: a nan x), fmax and fmin the other argument (1: a nan y).
    """

    def partials(m: Any, out: Any, x: Any, y: Any) -> Any:
        px = (getattr(m, wins)(x, y) | m.isnan((x, y)[nan_taker])) + 0.5 * m.equal(x, y)
        return px, 1 - px

    return partials


_maximum, _minimum = _selection("greater", 0), _selection("less", 0)
_fmax, _fmin = _selection("greater", 1), _selection("less", 1)


def power_dx(m: Any, out: Any, x: Any, p: Any) -> Any:
    """d x**p / dx = p x**(p-1).

    At x == 0 this is the limit: 0 for p > 1, 1 for p == 1, +-inf for
    p < 1 (ChainRules.jl); for p == 0, where x**0 is constant, 0 (the
    exponent p - 1 is replaced by 1 so that 0 * 0**-1 does not make nan, as
    autograd does). Negative x with an integer-valued p is exact.
    """
    return p * x ** m.where(p == 0, 1, p - 1)


def power_dp(m: Any, out: Any, x: Any, p: Any) -> Any:
    """d x**p / dp = x**p log(x).

    At x == 0: 0 when Re(p) > 0 (0**p is 0 nearby), nan otherwise (0**p
    jumps from 0 to inf at p == 0), as ChainRules.jl. For real x < 0 the
    real power has no derivative in p: nan with numpy's warning for the log
    of a negative number (as numpy, JAX and PyTorch; ChainRules.jl takes the
    real part of the complex derivative).
    """
    at_zero = m.where(m.real(p) > 0, 0.0, NAN)
    return m.where(x == 0, at_zero, out * m.log(m.where(x == 0, 1, x)))


# d(out)/dx and d(out)/dy given the output and both inputs; scalar_rule unbroadcasts each to its argument.
BINARY: dict[Any, Elementwise] = {
    np.add: Elementwise(lambda m, out, x, y: (1, 1), (REALS, REALS), constant=True),
    np.subtract: Elementwise(lambda m, out, x, y: (1, -1), (REALS, REALS), constant=True),
    np.multiply: Elementwise(lambda m, out, x, y: (y, x), (REALS, REALS)),
    np.divide: Elementwise(_divide, (REALS, NONZERO), limits=((_at(1.0, 0.0), _at(INF, -INF)),)),
    np.power: Elementwise(
        (power_dx, power_dp),
        (POSITIVE, REALS),
        lazy=(1,),
        limits=(
            (_at(0.0, 2.0), _at(0.0, 0.0)),
            (_at(0.0, 1.0), _at(1.0, 0.0)),
            (_at(0.0, 0.0), _at(0.0, NAN)),
            (_at(0.0, 0.5), _at(INF, 0.0)),
            (_at(0.0, -1.0), _at(-INF, NAN)),
            (_at(-2.0, 3.0), _at(12.0, NAN)),
        ),
    ),
    np.maximum: Elementwise(_maximum, (REALS, REALS), points=(_at(1.0, 1.0), _at(-0.5, -0.5))),
    np.minimum: Elementwise(_minimum, (REALS, REALS), points=(_at(1.0, 1.0), _at(-0.5, -0.5))),
    np.arctan2: Elementwise(_arctan2, (REAL_ONLY, REAL_ONLY), limits=((_at(0.0, 0.0), _at(0.0, 0.0)),)),
    np.hypot: Elementwise(_hypot, (REAL_ONLY, REAL_ONLY), points=(_at(0.0, 0.0),)),
    np.logaddexp: Elementwise(
        _logaddexp,
        (REAL_ONLY, REAL_ONLY),
        limits=((_at(-INF, -INF), _at(0.5, 0.5)), (_at(INF, 1.0), _at(1.0, 0.0)), (_at(INF, INF), _at(0.5, 0.5))),
    ),
    np.remainder: Elementwise(
        _remainder,
        (REAL_ONLY, NONZERO_REAL_ONLY),
        limits=((_at(3.0, 1.5), _at(1.0, -2.0)), (_at(-3.0, 1.5), _at(1.0, 2.0))),
    ),
    # beyond the first tier: the same kernels with other conventions
    np.float_power: Elementwise((power_dx, power_dp), (POSITIVE, REALS), lazy=(1,)),
    np.fmax: Elementwise(_fmax, (REALS, REALS), points=(_at(1.0, 1.0),), limits=((_at(NAN, 1.0), _at(0.0, 1.0)),)),
    np.fmin: Elementwise(_fmin, (REALS, REALS), points=(_at(1.0, 1.0),), limits=((_at(1.0, NAN), _at(1.0, 0.0)),)),
    np.logaddexp2: Elementwise(_logaddexp2, (REAL_ONLY, REAL_ONLY), limits=((_at(-INF, -INF), _at(0.5, 0.5)),)),
    np.fmod: Elementwise(
        _fmod,
        (REAL_ONLY, NONZERO_REAL_ONLY),
        limits=((_at(3.0, 1.5), _at(1.0, -2.0)), (_at(-3.0, 1.5), _at(1.0, 2.0))),
    ),
}
