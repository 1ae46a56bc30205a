"""Declared checks of ``chainrules.rules.python``, mirroring its modules."""
