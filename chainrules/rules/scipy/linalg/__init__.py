"""Rules for ``scipy.linalg``, one module per family; imported when ``scipy.linalg`` is."""
