"""The functions without rules, each with the reason: the one list, checked against the registry.

``candidates.txt`` beside this module names the functions a user may
expect rules for: those the other frameworks differentiate (JAX, PyTorch,
autograd, ChainRules.jl) and the tiers the project set itself. Each of
them has rules, is registered as non-differentiable, or is listed in
``UNSUPPORTED`` below with the reason (rules that refuse every call, as
numpy's in-place updates' do, count as none). ``tests/rules/test_unsupported.py``
holds the two sides together: a candidate without rules that is missing
here fails, and so does an entry here whose function has gained rules.

>>> from chainrules.checks.unsupported import UNSUPPORTED, candidates_without_rules
>>> sorted(candidates_without_rules()) == sorted(UNSUPPORTED)
True
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import chainrules  # noqa: F401 - the rules the registry holds
from chainrules_core import frule, rrule

IN_PLACE = "numpy changes an argument in place and returns None, so no rule can mirror the call"


def _in_place(name: str) -> str:
    return f"{IN_PLACE}; its rules refuse with a TypeError naming chainrules.functional.{name}, the form with rules"


USER_FUNCTIONS = "it calls the user's functions"
FREQUENCIES = "the frequencies k / (n d) are smooth in d: an engine differentiates numpy's arithmetic on d"

UNSUPPORTED: dict[str, str] = {
    # in place: rules that refuse (TypeError), naming the functional form, which has rules
    "numpy.ndarray.__setitem__": _in_place("setitem"),
    "operator.setitem": _in_place("setitem") + " (on arrays; on lists and dicts, no rule)",
    "numpy.put_along_axis": _in_place("put_along_axis"),
    "numpy.put": _in_place("put"),
    "numpy.place": _in_place("place"),
    "numpy.putmask": _in_place("putmask"),
    "numpy.copyto": _in_place("copyto"),
    "numpy.fill_diagonal": _in_place("fill_diagonal"),
    "operator.delitem": "it deletes an item of a container in place and returns None",
    # numpy: user functions
    "numpy.fromfunction": f"{USER_FUNCTIONS} on integer index arrays; no argument is differentiable",
    # numpy: counts
    "numpy.histogram": "its counts are integers and its edges come from the data's range; not written yet",
    "numpy.fft.fftfreq": FREQUENCIES,
    "numpy.fft.rfftfreq": FREQUENCIES,
    # scipy
    # scipy.fft
    "scipy.fft.fhtoffset": (
        "it picks fht's offset from dln, mu and bias (piecewise smooth, through a round), and fht has no "
        "derivative in its offset to pass one on to"
    ),
    "scipy.fft.fftfreq": FREQUENCIES,
    "scipy.fft.rfftfreq": FREQUENCIES,
}
"""Each candidate function without rules (by qualified name), and why."""


def candidates() -> list[str]:
    """The qualified names in ``candidates.txt``, in its order."""
    text = (Path(__file__).with_name("candidates.txt")).read_text()
    lines = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return [line for line in lines if line]


def resolve(name: str) -> Any:
    """The object a qualified name denotes (``numpy.linalg.svd``, ``builtins.sorted``), or None if it is missing.

    The longest importable module prefix is imported, and the rest is read
    off it as attributes, so a name in a newer release resolves to None.
    """
    parts = name.split(".")
    for split in range(len(parts), 0, -1):
        try:
            owner: Any = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for part in parts[split:]:
            owner = getattr(owner, part, None)
            if owner is None:
                return None
        return owner
    return None


def has_rules(f: Any) -> bool:
    """Whether ``f`` has a registration in either registry: rules, or non-differentiable (not rules that refuse
    every call, ``kind == "refusal"``: numpy's in-place updates)."""
    return any(r.kind != "refusal" for registry in (rrule, frule) for r in registry.records_for(f))


def candidates_without_rules() -> list[str]:
    """The candidates present in the installed libraries that have no registration.

    scipy's families register when ``scipy`` is importable; without scipy
    its candidates resolve to None and are left out.
    """
    missing = []
    for name in candidates():
        f = resolve(name)
        if f is not None and not has_rules(f):
            missing.append(name)
    return missing
