"""Rules for numpy's functions, one module per family; ``linalg/`` holds ``numpy.linalg``'s, ``fft`` ``numpy.fft``'s."""
