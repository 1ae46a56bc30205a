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

from ._arrays import bind_options, is_given, kept_shape, reduced_axes
from ._makers import rule_in_first

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
        ddof = options["correction"] if is_given(options.get("correction")) else options["ddof"]
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
    options = bind_options(_ARGS, args, kwargs, axis=None, dtype=None, out=None, ddof=0, keepdims=False)
    refused = is_given(options["out"]) or is_given(options.get("mean")) or options.get("where", True) is not True
    return None if refused else options


def _spread_cotangent(s: _Spread, out_bar: Any) -> Any:
    deviation = s.deviation()
    return deviation * (np.reshape(np.real(out_bar), s.kept) * s.scale()).astype(deviation.dtype, copy=False)


def _spread_pushforward(s: _Spread, x_dot: Any) -> Any:
    inner = np.real(np.conjugate(s.deviation()) * x_dot)
    total = np.sum(inner, axis=s.axes, keepdims=True) * s.scale()
    return total if s.keepdims else total.reshape(s.out_shape)


for _f in (np.var, np.ndarray.var):
    rule_in_first(_f, parse=_options, prepare=_Spread, pullback=_spread_cotangent, pushforward=_spread_pushforward)
for _f in (np.std, np.ndarray.std):
    rule_in_first(_f, parse=_options, prepare=_Deviation, pullback=_spread_cotangent, pushforward=_spread_pushforward)
