"""Declared checks of ``chainrules.rules.scipy.fft``, mirroring its modules."""
