"""Declared checks of ``chainrules.rules.scipy.linalg``, mirroring its modules."""
