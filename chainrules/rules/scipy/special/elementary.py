"""Rules for the functions of ``scipy.special`` built from elementary ones: ``xlogy``, ``xlog1py``, ``entr``,
``rel_entr``, ``kl_div``, ``boxcox``, ``boxcox1p``, ``exp10``, ``cbrt``, ``lambertw``.

``ELEMENTARY``, through ``scalar_rule``, in every argument; ``lambertw(z,
k, tol)`` through ``bound_rule``, in ``z`` (the branch ``k`` and the
tolerance ``tol`` get ``NoTangent()``). The conventions at ``x == 0``, where
scipy defines ``0 log y = 0``, are on each entry. Imported when
``scipy.special`` is.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

from chainrules_core import NoTangent, scalar_rule

from ..._makers import bound_rule
from ...numpy.elementwise import LN10, UNARY


def _x_log_partials(x: Any, y: Any, edge: float, log: Callable[[Any], Any]) -> tuple[Any, Any]:
    """The partials of x log(y - edge): log(y - edge) and x / (y - edge), with scipy's 0 at x == 0.

    At x == 0 the function is 0 for every y, so d/dy is 0 there: x / (y - edge)
    gives it, and its own derivative in x, 1 / (y - edge), is right for an
    engine differentiating the partials. Where also y <= edge (y == edge for
    complex y), x log(y - edge) is nan or -inf for every x != 0 and there is
    no d/dx: 0, as PyTorch (derivatives.yaml, xlogy), the derivative along
    x == 0, and 0 for d/dy.
    """
    bad = (x == 0) & ((y == edge) if np.iscomplexobj(y) else (y <= edge))
    safe_y = np.where(bad, edge + 1, y)
    dx = np.where(bad, 0.0, log(safe_y))
    dy = np.where(bad, 0.0, x / (safe_y - edge))
    return dx, dy


_H_SERIES = tuple((n + 1) / math.factorial(n + 2) for n in range(8, -1, -1))
"""(n + 1) / (n + 2)!, n = 8..0, highest first for ``np.polyval``: the Taylor series of h below."""


def _boxcox_lambda_partial(lmbda: Any, log_x: Any) -> Any:
    """d/dlmbda (exp(lmbda L) - 1) / lmbda = L² h(lmbda L), h(t) = (t e^t - expm1(t)) / t²; L²/2 at lmbda = 0.

    h cancels for small t: there its series (the Taylor series of exp), the same at t = 0 as the limit.
    At an infinite t or L (x at inf or at its lower end, or an infinite lmbda) the limit is 1 / lmbda²
    where t = -inf (h(t) ~ 1 / t²: x^lmbda tends to 0, the function to -1 / lmbda) and +inf otherwise
    (h > 0 grows as e^t / t; L²/2 at lmbda = 0).
    """
    with np.errstate(invalid="ignore", divide="ignore"):  # 0 * inf at lmbda = 0, 1 / 0 beside it: replaced
        t = lmbda * log_x
        small = np.abs(t) < 0.1
        infinite = np.isinf(t) | np.isinf(log_x)
        t_far = np.where(small | infinite, 1.0, t)
        h = np.where(small, np.polyval(_H_SERIES, t), (t_far * np.exp(t_far) - np.expm1(t_far)) / (t_far * t_far))
        to_minus_inf = t == -np.inf
        safe = np.where(to_minus_inf, lmbda, 1.0)  # no 1 / 0 where it is not used: an engine differentiates both
        at_infinity = np.where(to_minus_inf, 1 / (safe * safe), np.inf)
    return np.where(infinite, at_infinity, log_x * log_x * h)


def _boxcox_partials(m: Any, out: Any, x: Any, lmbda: Any) -> tuple[Any, Any]:
    # (x^lmbda - 1) / lmbda, log(x) at lmbda == 0 (scipy): d/dx = x^(lmbda - 1)
    return np.power(x, lmbda - 1), _boxcox_lambda_partial(lmbda, np.log(x))


def _boxcox1p_partials(m: Any, out: Any, x: Any, lmbda: Any) -> tuple[Any, Any]:
    return np.power(1 + x, lmbda - 1), _boxcox_lambda_partial(lmbda, np.log1p(x))


# ----- partial derivatives given the output and the inputs; `m` is numpy -----
ELEMENTARY: dict[Any, Callable[..., Any]] = {
    special.xlogy: lambda m, out, x, y: _x_log_partials(x, y, 0.0, np.log),
    special.xlog1py: lambda m, out, x, y: _x_log_partials(x, y, -1.0, np.log1p),
    special.entr: lambda m, out, x: -(np.log(x) + 1),  # -x log x: +inf at 0, nan for x < 0 (where entr is -inf)
    # x log(x / y), as scipy computes it: at x == 0 (y > 0) d/dx is -inf, d/dy 0
    special.rel_entr: lambda m, out, x, y: (np.log(x / y) + 1, -x / y),
    special.kl_div: lambda m, out, x, y: (np.log(x / y), 1 - x / y),  # x log(x / y) - x + y
    special.boxcox: _boxcox_partials,
    special.boxcox1p: _boxcox1p_partials,
    special.exp10: lambda m, out, x: LN10 * out,
    special.cbrt: UNARY[np.cbrt],
}

for _f, _partials in ELEMENTARY.items():
    scalar_rule(_f, functools.partial(_partials, np))


def _lambertw_partials(out: Any, z: Any, *options: Any) -> tuple[Any, ...]:
    # W' = W / (z (1 + W)) = exp(-W) / (1 + W) (DLMF 4.13.4), on every branch: 1 at z = 0 on the principal one,
    # inf at the branch point -1/e. The branch k and the tolerance tol are not differentiated.
    return np.exp(-out) / (1 + out), NoTangent(), NoTangent()


bound_rule(special.lambertw, _lambertw_partials, ("z", "k", "tol"))
