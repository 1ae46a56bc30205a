"""Declared checks of ``chainrules.rules.numpy``, mirroring its modules."""
