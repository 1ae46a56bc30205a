"""Rules for ``scipy.fft``, one module per family; imported when ``scipy.fft`` is."""
