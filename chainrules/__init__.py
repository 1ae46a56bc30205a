"""chainrules: derivative rules for numpy, ``math``, ``operator`` and builtins.

Importing this package registers every rule with the registries of
``chainrules_core``; reach a rule through them: ``rrule(np.sin, x)``.
"""

from chainrules_core import NoTangent, Tangent, ZeroTangent, fast_paths, fast_paths_enabled, frule, rrule

from . import rules  # noqa: F401 - registers the rules

__all__ = ["NoTangent", "Tangent", "ZeroTangent", "fast_paths", "fast_paths_enabled", "frule", "rrule"]
