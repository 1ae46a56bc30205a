"""Statistics: var and std, and their ``ndarray`` methods.

``var = sum(|x - mean|²) / (N - ddof)`` over the reduced axes, so
``d var = 2 Re(conj(x - mean) dx) / (N - ddof)`` (the mean's own variation
cancels because the deviations sum to zero) and the pullback is
``2 (x - mean) var_bar / (N - ddof)``; complex inputs give a real output.
``std = sqrt(var)`` divides that by ``2 std``; where ``std == 0`` the
derivative does not exist and the rules give 0, as PyTorch does. ``N <= ddof``
gives inf or nan, with numpy's warnings, as the primal does.

``ddof`` and ``correction`` are integers without tangents. ``out=``,
``where=`` and ``mean=`` get no rule (``None``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from chainrules_core.testing import REALS, Arg, At, Case, register_cases

from ._arrays import bind, given, kept_shape, reduced_axes, unary_rule
from .reductions import AXIS_GRID, SHAPE

_ARGS = ("axis", "dtype", "out", "ddof", "keepdims")


class _Spread:
    """One call of var or std: the deviations from the mean and the divisor ``N - ddof``."""

    is_std = False

    def __init__(self, x: Any, options: dict[str, Any], out: Any) -> None:
        self.x = x
        shape = np.shape(x)
        self.axes = reduced_axes(options["axis"], len(shape))
        self.kept = kept_shape(shape, self.axes)
        self.keepdims = bool(options["keepdims"])
        ddof = options["correction"] if given(options.get("correction")) else options["ddof"]
        n = math.prod(shape[a] for a in self.axes)
        self.divisor = np.float64(max(n - ddof, 0))  # numpy clips the degrees of freedom at 0
        self.out_shape = np.shape(out)
        self.out = np.reshape(out, self.kept)

    def deviation(self) -> Any:
        values = np.asarray(self.x)
        return values - np.mean(values, axis=self.axes, keepdims=True)

    def scale(self) -> Any:
        """d(out)/d(var) times 2 / (N - ddof): the factor in front of the deviations."""
        if not self.is_std:
            return 2 / self.divisor
        std = self.out
        safe = np.where(std == 0, 1, std)
        return np.where(std == 0, 0, 1 / (self.divisor * safe))


class _Deviation(_Spread):
    is_std = True


def _options(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    options = bind(_ARGS, args, kwargs, axis=None, dtype=None, out=None, ddof=0, keepdims=False)
    refused = given(options["out"]) or given(options.get("mean")) or options.get("where", True) is not True
    return None if refused else options


def _spread_cotangent(s: _Spread, out_bar: Any) -> Any:
    deviation = s.deviation()
    return deviation * (np.reshape(np.real(out_bar), s.kept) * s.scale()).astype(deviation.dtype, copy=False)


def _spread_pushforward(s: _Spread, x_dot: Any) -> Any:
    inner = np.real(np.conjugate(s.deviation()) * x_dot)
    total = np.sum(inner, axis=s.axes, keepdims=True) * s.scale()
    return total if s.keepdims else total.reshape(s.out_shape)


for _f in (np.var, np.ndarray.var):
    unary_rule(_f, _options, _Spread, _spread_cotangent, _spread_pushforward)
for _f in (np.std, np.ndarray.std):
    unary_rule(_f, _options, _Deviation, _spread_cotangent, _spread_pushforward)


# ----- declared checks -----

register_cases(
    "statistics",
    *(Case(f, (Arg(REALS, SHAPE),), kwargs=kw) for f in (np.var, np.std) for kw in AXIS_GRID),
    *(Case(f, (Arg(REALS, (3, 4)),), kwargs={"axis": 1, "ddof": 1}, name="ddof") for f in (np.var, np.std)),
    *(Case(f, (Arg(REALS, (3, 4)), 0, None, None, 2), name="positional ddof") for f in (np.var, np.std)),
    *(Case(f, (Arg(REALS, (3, 4)),), kwargs={"correction": 1}, name="correction") for f in (np.var, np.std)),
    Case(np.var, (Arg(REALS, (3, 4)),), kwargs={"axis": 0, "dtype": np.float64}, dtypes=("float32",), name="dtype"),
    Case(np.ndarray.var, (Arg(REALS, SHAPE), (0, 2)), name="method"),
    Case(np.ndarray.std, (Arg(REALS, SHAPE), -1), name="method"),
    Case(np.std, (At([[1.0, 2.0, 4.0], [3.0, -1.0, 0.5]]),), kwargs={"axis": 1}, name="fixed point"),
)
