"""Rules for ``numpy.linalg``, one module per family."""
