"""Declared checks of ``chainrules.rules.scipy``, mirroring its modules."""
