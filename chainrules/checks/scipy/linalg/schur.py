"""Declared checks of scipy.linalg's schur (``chainrules.rules.scipy.linalg.schur``), with scipy.

As for eig (``chainrules/checks/numpy/linalg/eig.py``): the raw ``T`` and ``Z`` are checked for real input and
``output='real'``, with real eigenvalues and with 2 x 2 blocks, where ``Z`` is real and its gauge a locally
constant sign; every dtype and both outputs go through ``schur_invariants``, a function of the decomposition
that no column phase of ``Z`` affects, whose rules are composed here from schur's own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.checks._register import register_shipped_cases
from chainrules.checks.numpy.linalg.eig import _SMALL_STEPS, _diagonalizable, _rotations
from chainrules.rules._arrays import tuple_entries
from chainrules.rules._makers import checked_entries
from chainrules.testing.edges import refuse_edges
from chainrules_core import AbstractZero, NoTangent, ProjectTo, ZeroTangent, checked_tangent, frule, rrule
from chainrules_core.testing.cases import Case

try:
    from scipy import linalg
except ImportError:  # scipy is optional: without it there is nothing to check
    linalg = None


def _weights(z: np.ndarray) -> np.ndarray:
    return np.arange(1, z.shape[-1] + 1).astype(z.dtype)


def schur_invariants(a: Any, *, output: str = "complex") -> tuple[np.ndarray, ...]:
    """``diag(T), abs(T)**2, Z diag(c) Z^H, abs(Z)**2`` for ``T, Z = schur(a, output)`` and ``c = 1, 2, ..., n``.

    ``Z -> Z D``, ``T -> D^H T D`` (``D`` diagonal unitary) changes none of them.

    >>> d, t2, weighed, z2 = schur_invariants(np.array([[2.0, 1.0], [0.0, 1.0]]), output="real")
    >>> d, t2
    (array([2., 1.]), array([[4., 1.],
           [0., 1.]]))
    """
    assert linalg is not None
    t, z = linalg.schur(a, output=output)
    return _invariants(t, z)


def _invariants(t: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, ...]:
    return np.diagonal(t).copy(), np.abs(t) ** 2, (z * _weights(z)) @ z.conj().T, np.abs(z) ** 2


def _invariants_dot(t: np.ndarray, z: np.ndarray, t_dot: Any, z_dot: Any) -> tuple[Any, ...]:
    weighed_dot = (z_dot * _weights(z)) @ z.conj().T
    return (
        np.diagonal(t_dot).copy(),
        2 * np.real(t.conj() * t_dot),
        weighed_dot + weighed_dot.conj().T,
        2 * np.real(z.conj() * z_dot),
    )


@rrule.register(schur_invariants)
def _schur_invariants_rrule(f: Any, a: Any, *, output: str = "complex") -> Any:
    assert linalg is not None
    rule = rrule(linalg.schur, a, output=output)
    if rule is None:  # no rule for schur's call (a stack): none for this function of it
        return None
    (t, z), pullback = rule
    out = _invariants(t, z)
    shapes = [o.shape for o in out]

    def schur_invariants_pullback(out_bar: Any) -> tuple[Any, ...]:
        d_bar, t2_bar, weighed_bar, z2_bar = checked_entries(f, out_bar, 4, shapes)
        t_bar = np.zeros_like(t)
        z_bar = np.zeros_like(z)
        if not isinstance(d_bar, AbstractZero):
            t_bar = t_bar + np.diag(d_bar)
        if not isinstance(t2_bar, AbstractZero):
            t_bar = t_bar + 2 * t2_bar * t
        if not isinstance(weighed_bar, AbstractZero):  # d(Z C Z^H) = dZ C Z^H + Z C dZ^H
            z_bar = z_bar + (weighed_bar + weighed_bar.conj().T) @ z * _weights(z)
        if not isinstance(z2_bar, AbstractZero):
            z_bar = z_bar + 2 * z2_bar * z
        return NoTangent(), pullback((t_bar, z_bar))[1]

    return out, schur_invariants_pullback


@frule.register(schur_invariants)
def _schur_invariants_frule(tangents: tuple[Any, ...], f: Any, a: Any, *, output: str = "complex") -> Any:
    assert linalg is not None
    a_dot = checked_tangent(f, tangents[1], a, 1)
    rule = frule((NoTangent(), a_dot), linalg.schur, a, output=output)
    if rule is None:
        return None
    (t, z), parts_dot = rule
    out = _invariants(t, z)
    if isinstance(parts_dot, AbstractZero):
        return out, ZeroTangent()
    t_dot, z_dot = tuple_entries(parts_dot, 2)
    return out, tuple(ProjectTo(o)(d) for o, d in zip(out, _invariants_dot(t, z, t_dot, z_dot)))


def _label(case: Case) -> str:
    return getattr(case.args[0], "label", "")


_RAW = ("float64",)
"""The raw T and Z: float64 only. The finite differences of a float32 case evaluate schur in float64, whose Z may
take the other sign in a column than sgees's; the invariants, which no sign affects, run in float32 too."""

if linalg is not None:
    register_shipped_cases(
        "scipy.linalg.schur",
        Case(
            linalg.schur,
            (_diagonalizable((4, 4), np.linspace(-2.0, 3.0, 4), "real eigenvalues"),),
            dtypes=_RAW,
            options=_SMALL_STEPS,
        ),
        Case(
            linalg.schur,
            (_diagonalizable((3, 3), [-1.0, 0.5, 2.0], "real eigenvalues"),),
            kwargs={"output": "real", "check_finite": False},
            dtypes=_RAW,
            options=_SMALL_STEPS,
        ),
        *(
            Case(
                schur_invariants,
                (_diagonalizable((4, 4), np.linspace(-2.0, 3.0, 4), "real eigenvalues"),),
                kwargs={"output": output},
                options=_SMALL_STEPS,
            )
            for output in ("complex", "real")
        ),
        # complex input: the complex form, whatever output says
        Case(
            schur_invariants,
            (_diagonalizable((3, 3), [1.0 + 1.0j, -1.0, 2.0 - 0.5j], "complex eigenvalues"),),
            kwargs={"output": "real"},
            dtypes=("complex128",),
            options=_SMALL_STEPS,
        ),
        # complex eigenvalues of a real matrix: the real form's 2 x 2 blocks, raw, and both forms' invariants
        # (float32's sgees may order the pairs otherwise than the float64 schur the finite differences evaluate)
        Case(linalg.schur, (_rotations((4, 4), [(1.0, 1.0), (-1.0, 2.0)]),), dtypes=_RAW, options=_SMALL_STEPS),
        Case(linalg.schur, (_rotations((3, 3), [(0.5, 1.5)]),), dtypes=_RAW, options=_SMALL_STEPS),
        *(
            Case(
                schur_invariants,
                (_rotations((4, 4), [(1.0, 1.0), (-1.0, 2.0)]),),
                kwargs={"output": output},
                dtypes=("float64", "complex128"),
                options=_SMALL_STEPS,
            )
            for output in ("complex", "real")
        ),
    )

    refuse_edges(
        "scipy.linalg.schur",
        linalg.schur,
        ("inf",),
        "with check_finite=False, LAPACK's Schur form of a matrix with an infinite entry is nan (its QR iteration "
        "meets inf - inf), so the rules' tangent is nan where their tangents at large finite entries have a limit; "
        "scipy raises ValueError with check_finite=True",
        modes=("frule",),
        cases=lambda case: case.kwargs.get("check_finite") is False,
    )

    for _f in (linalg.schur, schur_invariants):
        refuse_edges(
            "scipy.linalg.schur",
            _f,
            ("tiny", "subnormal"),
            "LAPACK standardizes a real form's 2 x 2 block (xLANV2) from products of its entries, which underflow "
            "at magnitudes of 1e-300: it then takes another branch (other rotations, or real eigenvalues), so the "
            "finite differences see another function than the scale-free rule",
            cases=lambda case: _label(case).startswith("complexpairs") and case.kwargs.get("output", "real") == "real",
        )
