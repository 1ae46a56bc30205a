"""A callable object with a field, its rrule and frule, and the derivative with respect to its own field.

Run: python examples/multiplier.py
"""

from __future__ import annotations

import numpy as np

from chainrules_core import NoTangent, Tangent, ZeroTangent, frule, rrule


class Multiplier:
    """``Multiplier(x)(y) == x * y``: the function has a field, ``x``."""

    def __init__(self, x: float) -> None:
        self.x = x

    def __call__(self, y: float) -> float:
        return self.x * y


@rrule.register(Multiplier)
def _rrule_multiplier(m: Multiplier, y: float) -> tuple[float, object]:
    def multiplier_pullback(product_bar: float) -> tuple[Tangent, float]:
        self_bar = Tangent(Multiplier, x=product_bar * np.conj(y))
        return self_bar, np.conj(m.x) * product_bar

    return m(y), multiplier_pullback


@frule.register(Multiplier)
def _frule_multiplier(tangents: tuple[object, object], m: Multiplier, y: float) -> tuple[float, float]:
    m_dot, y_dot = tangents
    x_dot = 0.0 if isinstance(m_dot, (ZeroTangent, NoTangent)) else m_dot.x
    return m(y), x_dot * y + m.x * y_dot


def main() -> None:
    m = Multiplier(2.0)
    product, pullback = rrule(m, 3.0)
    m_bar, y_bar = pullback(1.0)
    print(f"Multiplier(2.0)(3.0) = {product}")
    print(f"gradient with respect to the field x: {m_bar.x}, with respect to y: {y_bar}")
    _, product_dot = frule((Tangent(Multiplier, x=1.0), 0.5), m, 3.0)
    print(f"directional derivative along (x_dot=1.0, y_dot=0.5): {product_dot}")


if __name__ == "__main__":
    main()
