"""Fast paths: a rule's shortcut for the calls it knows, declared beside the general rule, and one switch for all.

A rule is its formula, written for any argument it accepts (the general
rule, registered with ``rrule.register``). A fast path is a second function
registered for the same primal and signature with ``rrule.fast_path``: it
receives the general rule first and answers the calls it has a shorter way
for (a numpy array of one real dtype, a Python float), handing every other
call to ``general``. While fast paths are on (the default) a call runs the
fast path; with them off it runs the general rule alone. Both must give the
same numbers: the declared checks (``python -m chainrules check``, the test
suite) run every case both ways and compare, so a fast path cannot drift
from the formula it shortcuts.

>>> import math
>>> from chainrules_core import NoTangent, rrule
>>> def cube(x):
...     return x**3
>>> @rrule.register(cube)
... def _rrule_cube(f, x):
...     return f(x), lambda y_bar: (NoTangent(), 3 * x**2 * y_bar)
>>> @rrule.fast_path(cube)
... def _rrule_cube_of_float(general, f, x):
...     if type(x) is not float:
...         return general(f, x)
...     square = x * x
...     return square * x, lambda y_bar: (NoTangent(), 3.0 * square * y_bar)
>>> rrule(cube, 2.0)[1](1.0)
(NoTangent(), 12.0)
>>> with fast_paths(False):
...     rrule(cube, 2.0)[1](1.0)  # the general rule alone
(NoTangent(), 12.0)
>>> fast_paths_enabled()
True
"""

from __future__ import annotations

from ._settings import Setting, SettingChange

FAST_PATHS = Setting("set_fast_paths", default=True)
"""Whether calls run the fast paths declared beside their rules; registries follow it (``FAST_PATHS.follow``)."""


class fast_paths(SettingChange):  # noqa: N801 - used like a function, as set_debug_mode and torch.set_grad_enabled
    """Turn every fast path on or off now; as a context manager, restore the old state on exit.

    With fast paths off, ``rrule`` and ``frule`` run each primal's general
    rule (its formula), never the shortcuts registered beside it with
    ``rrule.fast_path``/``frule.fast_path``. The switch is process-wide, as
    debug mode is; an engine that caches resolved rules hears of it through
    ``rrule.on_change``.

    >>> from chainrules_core import fast_paths_enabled
    >>> with fast_paths(False):
    ...     fast_paths_enabled()
    False
    >>> fast_paths_enabled()
    True
    """

    setting = FAST_PATHS
    name = "fast_paths"


def fast_paths_enabled() -> bool:
    """Whether calls run the fast paths registered beside their rules (the default), or the general rules alone."""
    return FAST_PATHS.state
