"""The functions without rules, each with the reason: the one list, checked against the registry.

``candidates.txt`` beside this module names the functions a user may
expect rules for: those the other frameworks differentiate (JAX, PyTorch,
autograd, ChainRules.jl) and the tiers the project set itself. Each of
them has rules, is registered as non-differentiable, or is listed in
``UNSUPPORTED`` below with the reason. ``tests/rules/test_unsupported.py``
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
USER_FUNCTIONS = "it calls the user's functions"
FREQUENCIES = "the frequencies k / (n d) are smooth in d: an engine differentiates numpy's arithmetic on d"

UNSUPPORTED: dict[str, str] = {
    # numpy: in place
    "numpy.ndarray.__setitem__": f"{IN_PLACE}; chainrules.functional.setitem is the form with rules",
    "operator.setitem": f"{IN_PLACE}; chainrules.functional.setitem is the form with rules",
    "numpy.put_along_axis": IN_PLACE,
    "numpy.put": IN_PLACE,
    "numpy.place": IN_PLACE,
    "numpy.putmask": IN_PLACE,
    "numpy.copyto": IN_PLACE,
    "numpy.fill_diagonal": IN_PLACE,
    "operator.delitem": "it deletes an item of a container in place and returns None",
    # numpy: user functions
    "numpy.piecewise": f"{USER_FUNCTIONS} on masked pieces",
    "numpy.fromfunction": f"{USER_FUNCTIONS} on integer index arrays; no argument is differentiable",
    # numpy: sets and counts
    "numpy.intersect1d": "not written yet",
    "numpy.union1d": "not written yet",
    "numpy.setdiff1d": "not written yet",
    "numpy.setxor1d": "not written yet",
    "numpy.bincount": "not written yet",
    "numpy.histogram": "its counts are integers and its edges come from the data's range; not written yet",
    "numpy.fft.fftfreq": FREQUENCIES,
    "numpy.fft.rfftfreq": FREQUENCIES,
    # scipy
    "scipy.linalg.schur": "not written yet",
    # scipy.fft
    "scipy.fft.fft": "not written yet",
    "scipy.fft.ifft": "not written yet",
    "scipy.fft.fft2": "not written yet",
    "scipy.fft.ifft2": "not written yet",
    "scipy.fft.fftn": "not written yet",
    "scipy.fft.ifftn": "not written yet",
    "scipy.fft.rfft": "not written yet",
    "scipy.fft.irfft": "not written yet",
    "scipy.fft.rfft2": "not written yet",
    "scipy.fft.irfft2": "not written yet",
    "scipy.fft.rfftn": "not written yet",
    "scipy.fft.irfftn": "not written yet",
    "scipy.fft.hfft": "not written yet",
    "scipy.fft.ihfft": "not written yet",
    "scipy.fft.hfft2": "not written yet",
    "scipy.fft.ihfft2": "not written yet",
    "scipy.fft.hfftn": "not written yet",
    "scipy.fft.ihfftn": "not written yet",
    "scipy.fft.dct": "not written yet",
    "scipy.fft.idct": "not written yet",
    "scipy.fft.dst": "not written yet",
    "scipy.fft.idst": "not written yet",
    "scipy.fft.dctn": "not written yet",
    "scipy.fft.idctn": "not written yet",
    "scipy.fft.dstn": "not written yet",
    "scipy.fft.idstn": "not written yet",
    "scipy.fft.fht": "not written yet",
    "scipy.fft.ifht": "not written yet",
    "scipy.fft.fhtoffset": "not written yet",
    "scipy.fft.fftshift": "not written yet",
    "scipy.fft.ifftshift": "not written yet",
    "scipy.fft.fftfreq": "not written yet",
    "scipy.fft.rfftfreq": "not written yet",
    # python
    "operator.iadd": "not written yet",
    "operator.isub": "not written yet",
    "operator.imul": "not written yet",
    "operator.itruediv": "not written yet",
    "operator.ipow": "not written yet",
    "operator.imatmul": "not written yet",
    "operator.imod": "not written yet",
    "operator.concat": "not written yet",
    "operator.itemgetter": "not written yet",
    "operator.attrgetter": "not written yet",
    "builtins.divmod": "not written yet",
    "builtins.complex": "not written yet",
    "builtins.sorted": "not written yet",
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
    """Whether ``f`` has a registration in either registry: rules, or non-differentiable."""
    return bool(rrule.records_for(f) or frule.records_for(f))


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
