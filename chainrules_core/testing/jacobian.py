"""The full-Jacobian comparison, for diagnosis: every entry of the rule's Jacobian against finite differences.

It costs one finite difference per input entry and one rule call per input
entry (``frule``) or output entry (``rrule``), so it is for finding which
entries of a failing rule are wrong, not for every run. Each column's
finite difference starts near the step the directional check chose, which
keeps it to a dozen evaluations.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from ..tangent_types import ZeroTangent
from .checks import SAFETY, Setup, directional_fd, short_name, step_scale

MAX_LISTED = 10
"""How many differing entries a failure lists."""

MAX_INPUT = 2_000
"""The largest argument, in entries, ``jacobian=True`` takes: it makes one finite difference per entry."""

MAX_ENTRIES = 1_000_000
"""The largest Jacobian block, output entries times an argument's entries, ``jacobian=True`` builds."""


def check_jacobian_size(s: Setup) -> None:
    """Refuse ``jacobian=True`` above ``MAX_INPUT`` or ``MAX_ENTRIES``, before computing anything."""
    out = s.out_layout.size
    for i in s.moving():
        n = s.layouts[i].size
        if n > MAX_INPUT or out * n > MAX_ENTRIES:
            raise ValueError(
                f"test_{s.mode}({s.report.function}, jacobian=True): {s.names[i]} has {n:,} entries and the output "
                f"{out:,}; the full Jacobian takes a finite difference per input entry (about {12 * n:,} "
                f"evaluations of f) and three {out:,} x {n:,} matrices ({24 * out * n / 1e9:.2g} GB): it is for "
                f"arguments of up to {MAX_INPUT:,} entries and {MAX_ENTRIES:,} Jacobian entries; check a smaller "
                "input, or drop jacobian=True"
            )


def jacobian_check(
    s: Setup, pushforward: Callable[[tuple[Any, ...]], Any] | None, pullback: Callable[[Any], Any] | None
) -> None:
    """Compare the rule's Jacobian with finite differences entry by entry; list the entries that differ.

    Pass ``pushforward(tangents) -> y_dot`` to read the rule's Jacobian by
    columns (frule), or ``pullback(y_bar)`` to read it by rows (rrule).
    """
    moving = s.moving()
    if not moving or s.out_layout.size == 0:
        return
    fdm = _column_method(s, moving)
    out = s.out_layout
    differing: list[str] = []
    count = 0
    for i in moving:
        layout = s.layouts[i]
        magnitudes = layout.magnitudes()
        fd_jac = np.zeros((out.size, layout.size))
        tol = np.zeros(layout.size)
        rule_jac = np.zeros((out.size, layout.size))
        for k in range(layout.size):
            e = np.zeros(layout.size)
            e[k] = magnitudes[k]
            fd = directional_fd(s, {i: e}, fdm)
            if not np.isfinite(fd.error):
                fd = directional_fd(s, {i: e})
            fd_jac[:, k] = fd.value / magnitudes[k]
            tol[k] = SAFETY * fd.error / magnitudes[k]
            if pushforward is not None:
                tangents = tuple(
                    layout.vec_to_tangent(e) if j == i else ZeroTangent() if j in moving else t
                    for j, t in enumerate(s.tangents)
                )
                y_dot = s.call("full Jacobian", "the frule", pushforward, tangents)
                rule_jac[:, k] = s.vec("full Jacobian", out, y_dot, "the output tangent", False) / magnitudes[k]
        if pullback is not None:
            for j in range(out.size):
                seed = np.zeros(out.size)
                seed[j] = 1.0
                cotangents = s.call("full Jacobian", "the pullback", pullback, out.vec_to_tangent(seed))
                rule_jac[j, :] = s.vec("full Jacobian", layout, cotangents[i], f"the cotangent of {s.names[i]}")
        column_scale = np.maximum(np.max(np.abs(fd_jac), axis=0), np.max(np.abs(rule_jac), axis=0))
        tol = tol + s.atol + s.rtol * column_scale
        with np.errstate(invalid="ignore"):
            bad = np.argwhere(~(np.abs(rule_jac - fd_jac) <= tol[None, :]))
        count += len(bad)
        for j, k in bad[: MAX_LISTED - len(differing)]:
            differing.append(
                f"  d(output{out.entry_name(j)})/d({_short_name(s, i)}{layout.entry_name(k)}): "
                f"rule {rule_jac[j, k]:.8g}, finite differences {fd_jac[j, k]:.8g}"
            )
    s.report.checks.append("full Jacobian")
    if count:
        more = f"\n  ... and {count - len(differing)} more" if count > len(differing) else ""
        raise s.fail("full Jacobian", f"{count} entries differ:\n" + "\n".join(differing) + more)


def _column_method(s: Setup, moving: list[int]) -> Any:
    """A short ladder of steps around the one a directional difference settles on."""
    directions = {i: s.direction(i) for i in moving}
    scale = step_scale(s, directions)
    if scale is None:
        return s.fdm
    probe = directional_fd(s, directions)
    if not probe.step or not np.isfinite(probe.error):
        return s.fdm
    return dataclasses.replace(s.fdm, max_step=10 * probe.step / scale, steps=4)


def _short_name(s: Setup, i: int) -> str:
    return "f" if i == 0 else short_name(s.names[i])
