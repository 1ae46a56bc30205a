"""The declared cases pushed through a framework's ``wrap``, against the framework's own derivative.

Each framework's test module describes its framework with a ``Framework``
(how to make its arrays, take a VJP and a JVP, and which of its own ops
compute each numpy function); ``check_case`` does the rest, the same way
for all three.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from chainrules_core import (
    NoTangent,
    Tangent,
    ZeroTangent,
    backing,
    frule,
    function_name,
    is_namedtuple,
    rrule,
    unthunk,
)
from chainrules_core.testing import Case, PrimalAndTangent, registered_cases

FAMILIES = ("numpy.elementwise", "numpy.reductions", "numpy.products", "numpy.linalg.dense")
RTOL = {"float64": 1e-10, "complex128": 1e-10, "float32": 1e-4}


def declared_cases(family: str) -> list[Case]:
    """The cases the rules declare for ``family``."""
    # The declared checks register when chainrules.checks imports; before that package existed,
    # importing chainrules registered them with the rules.
    try:
        import chainrules.checks
    except ImportError:
        import chainrules  # noqa: F401
    return [case for _, case in registered_cases(family)]


def case_params(dtypes: Sequence[str], families: Sequence[str] | None = None) -> list[Any]:
    """One pytest parameter per (case, dtype) among ``dtypes`` (of ``FAMILIES`` by default): the case's modes run
    in one test."""
    families = FAMILIES if families is None else families
    params = [
        pytest.param(case, dtype, id=f"{case.label}-{dtype}")
        for family in families
        for case in declared_cases(family)
        for dtype in case.valid_dtypes()
        if dtype in dtypes
    ]
    if not params:
        raise LookupError(f"no cases are registered for {', '.join(families)}")
    return params


class NoDerivativeError(Exception):
    """Raised by a ``Framework``'s ``vjp`` or ``jvp`` when the framework has no derivative of its own for the call.

    Its message says why; the case is then compared against the rule.
    """


@dataclass
class Framework:
    """What ``check_case`` needs to know of a framework.

    ``vjp(fn, operands, seeds)`` returns the output entries and one
    cotangent per operand, ``jvp(fn, operands, dots)`` the output entries
    and their tangents, all as numpy arrays. ``counterpart(case, dtype,
    mode)`` is the framework's own version of the case's function, or a
    string saying why the rule is the reference in that mode ("rrule" or
    "frule") instead: no such op, or a derivative that is missing or
    knowingly different. ``conjugate`` says whether its cotangents of
    complex values are the conjugates of ours. Where the counterpart exists but the framework
    cannot differentiate it in one mode, ``vjp``/``jvp`` raise ``NoDerivativeError``.
    """

    name: str
    wrap: Callable[[Any, str], Any]
    array: Callable[[Any], Any]
    vjp: Callable[[Callable[..., Any], list[Any], list[Any]], tuple[list[Any], list[Any]]]
    jvp: Callable[[Callable[..., Any], list[Any], list[Any]], tuple[list[Any], list[Any]]]
    counterpart: Callable[[Case, str, str], Callable[..., Any] | str]
    conjugate: bool


COMPARED: Counter[tuple[str, str]] = Counter()
"""``(framework, reference)`` -> how many (case, dtype, mode) checks compared against it: "native" or a reason."""

RULE_FUNCTIONS: dict[tuple[str, str], set[str]] = {}
"""``(framework, reason)`` -> the functions compared against the rule for that reason."""


def no_counterpart(framework: str) -> str:
    """The reason for a function the framework's ops do not have."""
    return f"no counterpart in {framework}'s ops"


def differentiable(x: Any) -> bool:
    if isinstance(x, (float, complex)) and not isinstance(x, bool):
        return True
    return isinstance(x, np.ndarray) and x.dtype.kind in "fc"


def entries(out: Any) -> list[Any]:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def random_like(x: Any, rng: np.random.Generator) -> np.ndarray | None:
    """A random array of ``x``'s shape and dtype; ``None`` for integer and bool values."""
    x = np.asarray(x)
    if x.dtype.kind not in "fc":
        return None
    values = rng.normal(size=x.shape)
    if x.dtype.kind == "c":
        values = values + 1j * rng.normal(size=x.shape)
    return np.asarray(values).astype(x.dtype)


Slot = tuple[int, int | None]  # (argument, entry of a list or tuple argument or None)


def operand_slots(args: Sequence[Any]) -> list[Slot]:
    """Where the operands are: differentiable arguments, and the differentiable entries of list or tuple arguments.

    An argument given ``no_tangent`` is held fixed.
    """
    slots: list[Slot] = []
    for i, a in enumerate(args):
        if isinstance(a, PrimalAndTangent):
            if not isinstance(a.tangent, NoTangent):
                slots.append((i, None))
        elif isinstance(a, (list, tuple)):
            slots += [(i, j) for j, e in enumerate(a) if differentiable(e)]
        elif differentiable(a):
            slots.append((i, None))
    return slots


def _at(args: Sequence[Any], slot: Slot) -> Any:
    i, j = slot
    return args[i] if j is None else args[i][j]


def check_case(fw: Framework, case: Case, dtype: str, seed: int = 0) -> dict[str, str]:
    """Check the case's modes through ``fw.wrap``; return what each mode was compared against ("native" or a reason)."""
    rng = np.random.default_rng(seed)
    given = case.make_args(rng, dtype)
    args = [a.primal if isinstance(a, PrimalAndTangent) else a for a in given]
    slots = operand_slots(given)
    assert slots, f"{case.label}: no argument to differentiate"
    expected_out = case.f(*args, **case.kwargs)

    def on(g: Callable[..., Any]) -> Callable[..., Any]:
        return on_operands(g, args, slots, case.kwargs)

    def operands() -> list[Any]:
        return [fw.array(_at(args, s)) for s in slots]

    rtol = RTOL[dtype]
    outputs = entries(expected_out)
    labels = [f"output {i}" for i in range(len(outputs))]
    against = {}
    if "rrule" in case.modes:
        seeds = [random_like(o, rng) for o in outputs]
        out, got = fw.vjp(on(fw.wrap(case.f, "reverse")), operands(), seeds)
        assert_close(out, outputs, rtol, labels)
        native = fw.counterpart(case, dtype, "rrule")
        expected, reference = _native(fw.vjp, native, on, operands(), seeds, outputs, rtol, labels)
        if expected is None:
            expected = rule_vjp(case, args, slots, seeds, fw.conjugate)
        against["rrule"] = _record(fw, case, reference)
        assert_close(got, expected, rtol, [f"cotangent of {_slot_label(s)}" for s in slots])
    if "frule" in case.modes:
        dots = [
            _direction(given[i], _at(args, (i, j)), rng) if j is None else random_like(args[i][j], rng)
            for i, j in slots
        ]
        out, got = fw.jvp(on(fw.wrap(case.f, "forward")), operands(), [fw.array(d) for d in dots])
        assert_close(out, outputs, rtol, labels)
        native = fw.counterpart(case, dtype, "frule")
        tangents = [fw.array(d) for d in dots]
        expected, reference = _native(fw.jvp, native, on, operands(), tangents, outputs, rtol, labels)
        if expected is None:
            expected = rule_jvp(case, args, slots, dots)
        against["frule"] = _record(fw, case, reference)
        assert_close(got, expected, rtol, [f"tangent of {label}" for label in labels])
    return against


def on_operands(g: Callable[..., Any], args: Sequence[Any], slots: Sequence[Slot], kwargs: dict[str, Any]) -> Any:
    """``g`` as a function of the operands at ``slots`` of ``args`` (entries of list arguments too)."""

    def fn(*operands: Any) -> Any:
        full = [list(a) if isinstance(a, (list, tuple)) else a for a in args]
        for (i, j), o in zip(slots, operands):
            if j is None:
                full[i] = o
            else:
                full[i][j] = o
        full = [type(a)(f) if isinstance(a, (list, tuple)) else f for a, f in zip(args, full)]
        return g(*full, **kwargs)

    return fn


def _direction(spec: Any, x: Any, rng: np.random.Generator) -> Any:
    """The tangent a case gives an argument (``with_tangent``), else a random one."""
    return spec.tangent if isinstance(spec, PrimalAndTangent) else random_like(x, rng)


def _slot_label(slot: Slot) -> str:
    i, j = slot
    return f"argument {i + 1}" if j is None else f"entry {j} of argument {i + 1}"


def _record(fw: Framework, case: Case, reference: str) -> str:
    COMPARED[fw.name, reference] += 1
    if reference != "native":
        RULE_FUNCTIONS.setdefault((fw.name, reference), set()).add(function_name(case.f))
    return reference


def _native(
    transform: Callable[..., Any],
    native: Any,
    on: Callable[..., Any],
    operands: list[Any],
    directions: list[Any],
    outputs: list[Any],
    rtol: float,
    labels: list[str],
) -> tuple[list[Any] | None, str]:
    """The counterpart's cotangents or tangents, its output checked against numpy's, and "native";
    ``None`` and the reason where there is none."""
    if isinstance(native, str):
        return None, native
    try:
        out, result = transform(on(native), operands, directions)
    except NoDerivativeError as err:
        return None, str(err)
    assert_close(out, outputs, rtol, [f"{label} of the counterpart" for label in labels])
    return result, "native"


def rule_vjp(case: Case, args: Sequence[Any], slots: Sequence[Slot], seeds: list[Any], conjugate: bool) -> list[Any]:
    """The cotangents straight from ``rrule``, in the framework's complex convention."""
    conj = np.conjugate if conjugate else (lambda a: a)
    out, pullback = rrule(case.f, *args, **case.kwargs)
    given = [ZeroTangent() if s is None else conj(s) for s in seeds]
    if isinstance(out, (tuple, list)):
        kind = type(out)
        seed: Any = Tangent(kind, **dict(zip(kind._fields, given))) if is_namedtuple(kind) else Tangent(tuple, *given)
    else:
        seed = given[0]
    cotangents = pullback(seed)
    result = []
    for i, j in slots:
        c = unthunk(cotangents[i + 1])
        if j is not None and not isinstance(c, (ZeroTangent, NoTangent)):
            c = unthunk((backing(c) if isinstance(c, Tangent) else c)[j])
        zero = isinstance(c, (ZeroTangent, NoTangent))
        result.append(np.zeros(np.shape(_at(args, (i, j)))) if zero else conj(np.asarray(c)))
    return result


def rule_jvp(case: Case, args: Sequence[Any], slots: Sequence[Slot], dots: Sequence[Any]) -> list[Any]:
    tangents: list[Any] = [NoTangent()] * (1 + len(args))
    for i, a in enumerate(args):
        if isinstance(a, (list, tuple)):
            tangents[i + 1] = [ZeroTangent() if differentiable(e) else NoTangent() for e in a]
    for (i, j), d in zip(slots, dots):
        if j is None:
            tangents[i + 1] = d
        else:
            tangents[i + 1][j] = d
    tangents = [Tangent(tuple, *t) if isinstance(t, list) else t for t in tangents]
    out, out_dot = frule(tuple(tangents), case.f, *args, **case.kwargs)
    out_dot = unthunk(out_dot)
    pieces = [out_dot] if not isinstance(out, (tuple, list)) else [out_dot[i] for i in range(len(out))]
    return [
        np.zeros(np.shape(o)) if isinstance(unthunk(t), (ZeroTangent, NoTangent)) else np.asarray(unthunk(t))
        for t, o in zip(pieces, entries(out))
    ]


def assert_close(got: Sequence[Any], expected: Sequence[Any], rtol: float, labels: Sequence[str]) -> None:
    """Entry by entry: the same shape, and values within ``rtol`` of the largest (or of 1)."""
    assert len(got) == len(expected), f"{len(got)} results, expected {len(expected)}"
    for label, g, e in zip(labels, got, expected):
        g, e = np.asarray(g), np.asarray(e)
        assert g.shape == e.shape, f"{label}: shape {g.shape}, expected {e.shape}"
        scale = max(1.0, float(np.max(np.abs(e), initial=0.0)))
        np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol * scale, err_msg=label)
