"""Rules for ``scipy.special``, one module per family; imported when ``scipy.special`` is."""
