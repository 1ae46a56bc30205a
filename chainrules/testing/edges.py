"""The edge sweep: every declared case moved to the edges of its domain, where rules most often break.

From each declared ``Case`` the sweep derives variants and checks each in
every mode the case declares (``python -m chainrules check --edges``; the
test suite runs every family):

========================  ===================================================================
kind                      variant
========================  ===================================================================
``empty``                 one axis of one array argument cut to length 0; or every axis, in
                          every argument, of one length (``(3, 4) @ (4, 5)`` becomes
                          ``(3, 0) @ (0, 5)``)
``zero batch``            a leading axis of length 0 on every floating argument of two or
                          more dimensions (``(0, 5, 5)``), and the same with empty matrices
                          (``(0, 0, 0)``)
``size 1``                as ``empty``, with length 1
``0-d``                   an array argument replaced by its first entry as a 0-d array; a
                          Python or numpy scalar by a 0-d array
``huge``                  every floating argument scaled by ``1e300`` (and ``-1e300``)
``tiny``, ``subnormal``   scaled by ``1e-300`` and by ``1e-310``
``inf``, ``nan``          the first entry of one floating argument set to ``inf``, ``-inf``
                          or ``nan``
========================  ===================================================================

Magnitudes scale only the arguments whose declared ``Domain`` holds the
scaled values (points ``At`` and ``Generated`` values, which carry no
domain, are scaled too: ties, zeros and bounds stay what they are); an
infinite entry of either sign goes only where the domain reaches that
infinity. The variants run in float64 (complex128 where the case is complex
only; a float32-only case gets no magnitudes, which are float64's); the
``empty`` and ``zero batch`` variants also in every other dtype the case
declares, since a dtype lost on an empty array is the typical fault there.
Shape variants that come out alike for two cases of one function run once.

The verdict on a variant:

* numpy raises for it: the rule raises an exception of the same class (or
  a subclass), or declines with ``None``;
* otherwise the rule's primal equals numpy's (NaNs where numpy's are), no
  rule, pushforward or pullback raises, and every tangent has its value's
  type, shape and dtype;
* inputs and outputs all finite at moderate magnitudes (shape variants):
  ``test_frule`` / ``test_rrule`` pass, so finite differences confirm the
  derivatives, and an empty output is judged by types alone;
* huge, tiny and subnormal inputs, and non-finite entries: finite
  differences along the finite entries, with steps relative to the inputs
  (a zero entry counts as of the size the others were scaled to), compared
  at the output entries that are finite. A central difference straddles a
  kink symmetrically, so ``logaddexp(x, x)`` at ``x = 1e300`` is held to
  ``(1/2, 1/2)`` just as at ``x = 1``. A partial below the smallest normal
  float64 is 0 to a rule (``1/x`` at ``1e300`` has the derivative
  ``-1e-600``), so a tangent may miss ``tiny * |dx|``. Where the differences
  cannot settle, or are blind (``sin(1e300)`` turns far below the smallest
  step: the rule's derivative would change the function by more than its
  size within it; an output that underflows to a constant), the verdict
  rests on the rules: no NaN where the output is finite, and the
  pushforward and the pullback agree (``<y_bar, J dx>`` from each). Such
  runs count as ``unsettled``;
* an infinite entry: the derivatives must also be the limit of the rule's
  own derivatives at ``±1e150`` and ``±1e300`` in that entry, wherever those
  two agree and the output itself tends to its value at infinity
  (``tanh'(inf) = 0``, ``d logaddexp(-inf, y)/dy = 1``; not ``nan_to_num``,
  which jumps there). A NaN where that limit exists is a failure.

A zero seed or tangent entry times an infinite or NaN partial is NaN in
IEEE arithmetic (as in every engine); such an entry is excused where a
seed or direction that is nowhere zero is not finite there either.

The variants run in a child process where the platform can fork: one that
does not return within ``HANG_TIMEOUT`` seconds fails (LAPACK's SVD spins
forever on an infinite entry), and the rest run on.

A rule that legitimately fails some variants says so beside its declared
cases with ``refuse_edges(family, f, kinds, reason)``; the sweep reports
those variants as ``refused`` with the reason, and a refusal that matches
no failing variant is itself a failure (when every case of its function
ran), so the list stays true.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from chainrules_core.naming import function_name
from chainrules_core.testing.cases import Case, registered_cases

from ._edge_variants import (
    _REFUSALS,
    EDGE_KINDS,
    HANG_TIMEOUT,
    MAGNITUDE_KINDS,
    NONFINITE_KINDS,
    SHAPE_KINDS,
    EdgeRefusal,
    EdgeVariant,
    _refusal,
    _signature,
    edge_variants,
    refuse_edges,
    registered_refusals,
)
from ._edge_verdicts import STATUSES, EdgeError, EdgeOutcome, run_variant

__all__ = [
    "EDGE_KINDS",
    "MAGNITUDE_KINDS",
    "NONFINITE_KINDS",
    "SHAPE_KINDS",
    "STATUSES",
    "EdgeError",
    "EdgeOutcome",
    "EdgeRefusal",
    "EdgeVariant",
    "edge_variants",
    "planned_variants",
    "refuse_edges",
    "registered_refusals",
    "run_edge_sweep",
    "run_variant",
    "stale_refusals",
    "summary_table",
    "sweep",
]

# ----- the sweep -----


def sweep(
    cases: Iterable[tuple[str, Case]],
    *,
    modes: Sequence[str] | None = None,
    kinds: Sequence[str] | None = None,
    seed: int = 0,
    progress: Callable[[int, int, EdgeOutcome], None] | None = None,
    exitfirst: bool = False,
    timeout: float = HANG_TIMEOUT,
) -> list[EdgeOutcome]:
    """Run the edge variants of ``(family, case)`` pairs, in the modes and kinds given (all by default).

    Where the platform can fork, the variants run in a child process: a
    variant that does not return within ``timeout`` seconds (LAPACK's SVD
    spins forever on an infinite entry) fails, and the rest run on in a new
    child, so that one input cannot stall the sweep.
    """
    planned = list(planned_variants(cases, modes=modes, kinds=kinds, seed=seed))
    done: list[EdgeOutcome] = []
    runner = _forked if hasattr(os, "fork") else _in_process
    for outcome in runner(planned, seed, timeout):
        done.append(outcome)
        if progress is not None:
            progress(len(done), len(planned), outcome)
        if exitfirst and outcome.failed:
            break
    return done


def _in_process(planned: Sequence[tuple[EdgeVariant, str]], seed: int, timeout: float) -> Iterator[EdgeOutcome]:
    for variant, mode in planned:
        yield run_variant(variant, mode, seed)


def _forked(planned: Sequence[tuple[EdgeVariant, str]], seed: int, timeout: float) -> Iterator[EdgeOutcome]:
    """``run_variant`` over ``planned`` in child processes, each outcome a line of JSON; a new child after a hang."""
    start = 0
    while start < len(planned):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: run from `start` on, report each outcome, never return into the caller
            os.close(read_end)
            quiet = os.open(os.devnull, os.O_WRONLY)  # LAPACK prints its complaints about NaNs to the terminal
            os.dup2(quiet, 1)
            os.dup2(quiet, 2)
            try:
                for k in range(start, len(planned)):
                    o = run_variant(*planned[k], seed)
                    os.write(write_end, (json.dumps([k, o.status, o.message, o.seconds]) + "\n").encode())
            finally:
                os._exit(0)
        os.close(write_end)
        lines = _lines(read_end, timeout)
        try:
            while start < len(planned):
                line = next(lines, None)
                variant, mode = planned[start]
                if line is None:
                    why = "did not return" if _hung(pid) else "ended the process"
                    message = f"the variant {why} within {timeout:g}s (numpy or the rule)"
                    yield EdgeOutcome(variant, mode, "FAIL", message, timeout)
                    start += 1
                    break
                k, status, message, seconds = json.loads(line)
                variant, mode = planned[k]
                yield EdgeOutcome(variant, mode, status, message, seconds)
                start = k + 1
        finally:
            os.close(read_end)
            _stop(pid)


def _lines(fd: int, timeout: float) -> Iterator[str]:
    """Lines read from ``fd``, until it ends or stays silent for ``timeout`` seconds."""
    buffer = b""
    while True:
        while b"\n" not in buffer:
            ready, _, _ = select.select([fd], [], [], timeout)
            chunk = os.read(fd, 1 << 16) if ready else b""
            if not chunk:
                return
            buffer += chunk
        line, buffer = buffer.split(b"\n", 1)
        yield line.decode()


def _hung(pid: int) -> bool:
    return os.waitpid(pid, os.WNOHANG) == (0, 0)


def _stop(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def planned_variants(
    cases: Iterable[tuple[str, Case]],
    *,
    modes: Sequence[str] | None = None,
    kinds: Sequence[str] | None = None,
    seed: int = 0,
) -> Iterator[tuple[EdgeVariant, str]]:
    """``(variant, mode)`` for every edge variant of the cases, duplicates across cases of one function dropped."""
    seen: set[Any] = set()
    for family, case in cases:
        for v in edge_variants(family, case, seed):
            if kinds and v.kind not in kinds:
                continue
            if v.kind in SHAPE_KINDS:
                key = (
                    id(case.f),
                    repr(case.kwargs),
                    repr(case.options),
                    v.kind,
                    v.dtype,
                    _signature(v.make_args(seed)),
                )
                if key in seen:
                    continue
                seen.add(key)
            for mode in case.modes:
                if modes and mode not in modes:
                    continue
                yield v, mode


def stale_refusals(outcomes: Sequence[EdgeOutcome], cases: Iterable[tuple[str, Case]]) -> list[EdgeRefusal]:
    """The refusals that explain no refused outcome, among those whose function had every case swept."""
    swept = {id(case) for _, case in cases}
    used = {id(r) for o in outcomes if o.status == "refused" for r in [_refusal(o.variant, o.mode)] if r is not None}
    stale = []
    for r in _REFUSALS:
        declared = [case for _, case in registered_cases(r.family) if case.f is r.f]
        if declared and all(id(case) in swept for case in declared) and id(r) not in used:
            stale.append(r)
    return stale


# ----- the command line: python -m chainrules check --edges -----


@dataclass
class _Tally:
    variants: set[int] = field(default_factory=set)
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def summary(outcomes: Sequence[EdgeOutcome]) -> dict[str, _Tally]:
    """Per family: the variants, the runs by status, the time."""
    tallies: dict[str, _Tally] = {}
    for o in outcomes:
        t = tallies.setdefault(o.variant.family, _Tally())
        t.variants.add(id(o.variant))
        t.counts[o.status] = t.counts.get(o.status, 0) + 1
        t.seconds += o.seconds
    return tallies


def summary_table(outcomes: Sequence[EdgeOutcome]) -> str:
    """A Markdown table: one row per family, and a total."""
    tallies = summary(outcomes)
    headers = ("family", "variants", "runs", *STATUSES, "time")
    rows: list[tuple[Any, ...]] = []
    for family, t in sorted(tallies.items()):
        rows.append(
            (family, len(t.variants), sum(t.counts.values()), *(t.counts.get(s, 0) for s in STATUSES), t.seconds)
        )
    total = ("total", *(sum(r[k] for r in rows) for k in range(1, len(headers))))
    cells = [[str(c) if not isinstance(c, float) else f"{c:.1f}s" for c in row] for row in [*rows, total]]
    widths = [max(len(h), *(len(r[k]) for r in cells)) for k, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(v.ljust(w) for v, w in zip(values, widths)) + " |"

    return "\n".join([line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, cells)])


def run_edge_sweep(
    cases: Iterable[tuple[str, Case]],
    *,
    modes: Sequence[str] | None = None,
    kinds: Sequence[str] | None = None,
    seed: int = 0,
    out: TextIO | None = None,
    err: TextIO | None = None,
    progress: bool = True,
    exitfirst: bool = False,
) -> int:
    """Sweep the edges of ``cases``; print a table per family, every failure and the refusals used; the exit status.

    A declared refusal that no variant needed fails the sweep, when every
    kind and mode of its function's cases ran.
    """
    out, err = out or sys.stdout, err or sys.stderr
    cases = list(cases)
    if not cases:
        print("no declared case matches these filters", file=out)
        return 1
    start = time.perf_counter()
    last = [start]

    def report(n: int, total: int, outcome: EdgeOutcome) -> None:
        now = time.perf_counter()
        if n == total or now - last[0] > 10:
            print(f"edges: {n}/{total} runs, {now - start:.0f}s", file=err, flush=True)
            last[0] = now

    print(f"sweeping the edges of {len(cases)} declared cases (seed {seed})", file=err)
    done = sweep(cases, modes=modes, kinds=kinds, seed=seed, progress=report if progress else None, exitfirst=exitfirst)
    print(summary_table(done), file=out)
    for o in done:
        if o.failed:
            lines = o.message.splitlines() or [""]
            detail = "\n    ".join(lines[:12] + (["..."] if len(lines) > 12 else []))
            where = f"[{o.variant.dtype}, {o.mode}] ({o.variant.family})"
            print(f"\nFAIL {o.variant.label} {where}\n    {detail}", file=out)
    used: dict[int, int] = {}
    for o in done:
        r = _refusal(o.variant, o.mode) if o.status == "refused" else None
        if r is not None:
            used[id(r)] = used.get(id(r), 0) + 1
    if used:
        print("\nrefused (declared beside the cases):", file=out)
    for r in _REFUSALS:
        if id(r) in used:
            scope = ", ".join(r.kinds) + (f" where {' and '.join(r.where)}" if r.where else "")
            print(f"  {function_name(r.f)} ({r.family}; {scope}): {used[id(r)]} runs. {r.reason}", file=out)
    stale = [] if (modes or kinds or exitfirst) else stale_refusals(done, cases)
    for r in stale:
        print(f"\nSTALE refusal of {function_name(r.f)} ({r.family}, {', '.join(r.kinds)}): {r.reason}", file=out)
    failed = sum(o.failed for o in done) + len(stale)
    print(f"\n{len(done)} runs in {time.perf_counter() - start:.1f}s; {failed} failed", file=out)
    return 1 if failed else 0
