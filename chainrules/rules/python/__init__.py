"""Rules for Python's ``math`` and ``operator`` modules and builtins, from the same derivative tables as numpy's."""
