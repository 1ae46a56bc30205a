"""Declared checks of ``chainrules.rules.numpy.linalg``, mirroring its modules."""
