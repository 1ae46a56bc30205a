"""Declared checks of ``chainrules.rules.scipy.special``, mirroring its modules."""
