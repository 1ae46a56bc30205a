"""Functions with rules of their own, one per feature the adapters must carry over: the same for every framework."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules_core import NoTangent, Tangent, Thunk, ZeroTangent, frule, not_implemented, rrule, unthunk

SEEN: list[Any] = []


def observed(x: Any) -> Any:
    """``+x``; its rule records the array it receives, and its pullback returns the seed itself."""
    return np.positive(x)


@rrule.register(observed)
def _rrule_observed(f: Any, x: Any) -> Any:
    SEEN.append(x)

    def observed_pullback(out_bar: Any) -> Any:
        return NoTangent(), out_bar

    return f(x), observed_pullback


def scale_shift(x: Any, a: Any, *, shift: float = 0.0) -> Any:
    """``a * x + shift``: two arguments and a keyword."""
    return a * x + shift


@rrule.register(scale_shift)
def _rrule_scale_shift(f: Any, x: Any, a: Any, *, shift: float = 0.0) -> Any:
    def scale_shift_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        return NoTangent(), a * out_bar, np.sum(x * out_bar).astype(np.result_type(a))

    return f(x, a, shift=shift), scale_shift_pullback


@frule.register(scale_shift)
def _frule_scale_shift(tangents: Any, f: Any, x: Any, a: Any, *, shift: float = 0.0) -> Any:
    _, x_dot, a_dot = tangents
    return f(x, a, shift=shift), a * x_dot + a_dot * x


def sin_cos(x: Any) -> tuple[Any, Any]:
    """A tuple output."""
    return np.sin(x), np.cos(x)


@rrule.register(sin_cos)
def _rrule_sin_cos(f: Any, x: Any) -> Any:
    s, c = np.sin(x), np.cos(x)

    def sin_cos_pullback(out_bar: Any) -> Any:
        s_bar, c_bar = unthunk(out_bar)
        return NoTangent(), c * s_bar - s * c_bar

    return (s, c), sin_cos_pullback


@frule.register(sin_cos)
def _frule_sin_cos(tangents: Any, f: Any, x: Any) -> Any:
    s, c = np.sin(x), np.cos(x)
    x_dot = tangents[1]
    return (s, c), Tangent(tuple, c * x_dot, -s * x_dot)


def masked_scale(x: Any, w: Any) -> Any:
    """``w * x``, whose rule says ``w`` has no tangent (``NoTangent``) and gives ``x`` a ``ZeroTangent`` where asked."""
    return w * x


@rrule.register(masked_scale)
def _rrule_masked_scale(f: Any, x: Any, w: Any) -> Any:
    def masked_scale_pullback(out_bar: Any) -> Any:
        return NoTangent(), ZeroTangent(), NoTangent()

    return f(x, w), masked_scale_pullback


FORCED: list[int] = []


def lazy_square(x: Any) -> Any:
    """``x ** 2``, whose cotangent is a thunk; ``FORCED`` counts how often it runs."""
    return x**2


@rrule.register(lazy_square)
def _rrule_lazy_square(f: Any, x: Any) -> Any:
    def lazy_square_pullback(out_bar: Any) -> Any:
        def x_bar() -> Any:
            FORCED.append(1)
            return 2 * np.conj(x) * unthunk(out_bar)

        return NoTangent(), Thunk(x_bar)

    return f(x), lazy_square_pullback


def bessel_like(x: Any, order: Any) -> Any:
    """A function whose derivative in ``order`` is knowingly missing."""
    return np.cos(order * x)


@rrule.register(bessel_like)
def _rrule_bessel_like(f: Any, x: Any, order: Any) -> Any:
    def bessel_like_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        return NoTangent(), -order * np.sin(order * x) * out_bar, not_implemented("d/dorder of bessel_like")

    return f(x, order), bessel_like_pullback


@frule.register(bessel_like)
def _frule_bessel_like(tangents: Any, f: Any, x: Any, order: Any) -> Any:
    _, x_dot, order_dot = tangents
    if not isinstance(order_dot, ZeroTangent):
        return f(x, order), not_implemented("d/dorder of bessel_like")
    return f(x, order), -order * np.sin(order * x) * x_dot


def forward_only(x: Any) -> Any:
    """A function with an frule and no rrule."""
    return np.exp(x)


@frule.register(forward_only)
def _frule_forward_only(tangents: Any, f: Any, x: Any) -> Any:
    out = np.exp(x)
    return out, out * tangents[1]


class Affine:
    """``w @ x + b``: a callable object whose fields learn."""

    def __init__(self, w: Any, b: Any) -> None:
        self.w = w
        self.b = b
        self.name = "affine"

    def __call__(self, x: Any) -> Any:
        return self.w @ x + self.b


@rrule.register(Affine)
def _rrule_affine(layer: Affine, x: Any) -> Any:
    def affine_pullback(out_bar: Any) -> Any:
        out_bar = unthunk(out_bar)
        w_bar = np.outer(out_bar, x) if np.ndim(x) == 1 else out_bar @ x.T
        b_bar = out_bar if np.ndim(x) == 1 else np.sum(out_bar, axis=1, keepdims=True)
        return Tangent(Affine, w=w_bar, b=b_bar), layer.w.T @ out_bar

    return layer(x), affine_pullback


@frule.register(Affine)
def _frule_affine(tangents: Any, layer: Affine, x: Any) -> Any:
    layer_dot, x_dot = tangents
    out_dot = layer.w @ x_dot
    if isinstance(layer_dot, Tangent):
        out_dot = out_dot + layer_dot.w @ x + layer_dot.b
    return layer(x), out_dot


def strict_arccosh(x: Any) -> Any:
    """``arccosh``, refusing arguments below 1 rather than returning nan."""
    if np.any(np.asarray(x) < 1):
        raise ValueError("strict_arccosh: x must be at least 1")
    return np.arccosh(x)


@rrule.register(strict_arccosh)
def _rrule_strict_arccosh(f: Any, x: Any) -> Any:
    def strict_arccosh_pullback(out_bar: Any) -> Any:
        return NoTangent(), unthunk(out_bar) / np.sqrt(x**2 - 1)

    return f(x), strict_arccosh_pullback
