"""The declared checks of every rules family: importing this package registers them.

Each module builds the ``Case``s of one family of ``chainrules.rules`` (the
function, where its arguments live, the dtypes and modes to run) and files
them with ``chainrules_core.testing.register_cases``. ``python -m chainrules
check`` and the test suite import this package and run every case through
``test_frule`` and ``test_rrule``; ``import chainrules`` alone never builds a
case nor imports the harness.

>>> import chainrules.checks
>>> from chainrules_core.testing import registered_cases
>>> len(registered_cases("elementwise")) > 100
True
"""

import importlib
import pkgutil

import chainrules  # noqa: F401 - the rules the cases check

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")):
    importlib.import_module(f"{__name__}.{_module}")
