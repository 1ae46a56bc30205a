"""The rules, one module per family. Importing this package registers them all.

Every module in this package is imported, in name order: a new family needs
no line here. The modules export nothing; their rules are reached through
``frule`` and ``rrule``, their declared checks through
``chainrules_core.testing.registered_cases``.
"""

import importlib
import pkgutil

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")):
    importlib.import_module(f"{__name__}.{_module}")
