"""The declared checks of every rules family: importing this package registers them.

Its folders mirror ``chainrules.rules``: each module builds the ``Case``s of
one family (the function, where its arguments live, the dtypes and modes to
run) and files them with ``chainrules.checks._register.register_shipped_cases``,
which holds each to refusing seeds and tangents of the wrong shape
(``Case.wrong_shape``), as every rule this package ships does.
``python -m chainrules check`` and the test suite import this package and
run every case through ``test_frule`` and ``test_rrule``; ``import
chainrules`` alone never builds a case nor imports the harness.

>>> import chainrules.checks
>>> from chainrules_core.testing import registered_cases
>>> len(registered_cases("numpy.elementwise")) > 100
True
"""

import chainrules  # noqa: F401 - the rules the cases check
from chainrules.rules._extensions import import_package

import_package(__name__)
