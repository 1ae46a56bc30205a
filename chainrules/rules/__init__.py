"""The rules, in folders by library, one module per family. Importing this package registers them all.

``numpy/`` (with ``numpy/linalg/``) and ``python/`` are imported at once;
``scipy/special/``, ``scipy/linalg/`` and ``scipy/fft/`` hold rules for
``scipy.special``, ``scipy.linalg`` and ``scipy.fft`` and are imported when
those are: at once if the
program has imported them already, else right after it does, so ``import
chainrules`` never imports scipy. A package imports every module in it, in
name order, so a new family needs no line anywhere. The modules export
nothing; their rules are reached through ``frule`` and ``rrule``, their
declared checks through ``chainrules.checks``. Each of scipy's public
namespaces is routed as it is imported (``chainrules.routing``), so that its
functions hand calls with followed values to the engines.
"""

import sys

from ..routing import LIBRARIES, route
from ._extensions import import_package, when_imported

import_package(f"{__name__}.numpy")
import_package(f"{__name__}.python")
for _library in LIBRARIES:  # before the rules, which are keyed by the stand-ins, as scipy's namespaces export them
    when_imported(_library, lambda library=_library: route(sys.modules[library]))
for _library in ("scipy.special", "scipy.linalg", "scipy.fft"):
    when_imported(_library, lambda library=_library: import_package(f"{__name__}.{library}"))
