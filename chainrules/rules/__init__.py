"""The rules, one module per family. Importing this package registers them all.

Every module in this package is imported, in name order: a new family needs
no line here. A module named ``scipy_<sub>`` (``scipy_special``,
``scipy_linalg``) holds rules for ``scipy.<sub>`` and is imported when
``scipy.<sub>`` is: at once if the program has imported it already, else
right after it does, so ``import chainrules`` never imports scipy. The
modules export nothing; their rules are reached through ``frule`` and
``rrule``, their declared checks through ``chainrules.checks``.
"""

import importlib
import pkgutil

from ._extensions import when_imported

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")):
    if _module.startswith("scipy_"):
        _library = "scipy." + _module.split("_")[1]
        when_imported(_library, lambda module=_module: importlib.import_module(f"{__name__}.{module}"))
    else:
        importlib.import_module(f"{__name__}.{_module}")
