"""Discrete Fourier transforms: the declared cases, and what finite differences cannot show."""

import warnings

import numpy as np
import pytest

from chainrules_core import NoTangent, ZeroTangent, frule, rrule
from chainrules_core.testing import test_frule, test_rrule
from tests.rules.cases import case_params

ONE_D = [np.fft.fft, np.fft.ifft, np.fft.rfft, np.fft.irfft, np.fft.hfft, np.fft.ihfft]
N_D = [np.fft.fft2, np.fft.ifft2, np.fft.fftn, np.fft.ifftn, np.fft.rfft2, np.fft.irfft2, np.fft.rfftn, np.fft.irfftn]


@pytest.mark.parametrize("case, dtype, mode", case_params("numpy.fft"))
def test_rule(case, dtype, mode):
    """Every declared case of the fft family passes the harness."""
    case.run(dtype, mode)


@pytest.mark.parametrize("n", [8, 9])
def test_irfft_reads_only_the_real_part_of_the_zero_and_nyquist_bins(n):
    """The imaginary parts of bin 0 (and of bin n / 2 for even n) do not reach the output: their cotangent is 0."""
    z = np.array([1.0 + 0.5j, 2.0 - 1.0j, 0.5 + 2.0j, -1.0 + 1.0j, 3.0 - 2.0j])
    ignored = [0, 4] if n % 2 == 0 else [0]
    real_there = z.copy()
    real_there[ignored] = z[ignored].real
    out, pullback = rrule(np.fft.irfft, z, n)
    np.testing.assert_allclose(out, np.fft.irfft(real_there, n), atol=1e-14)
    z_bar = pullback(np.linspace(-1.0, 2.0, n))[1]
    assert np.all(z_bar[ignored].imag == 0)
    assert np.all(z_bar[1:4].imag != 0)
    if n % 2:
        assert z_bar[4].imag != 0, "for odd n the last bin is not a Nyquist bin: its imaginary part is read"
    z_dot = np.zeros(5, complex)
    z_dot[ignored] = 1j
    _, out_dot = frule((NoTangent(), z_dot), np.fft.irfft, z, n=n)
    np.testing.assert_allclose(out_dot, 0.0, atol=1e-15)


def test_rfft_pullback_counts_the_mirrored_bins_once():
    """rfft's pullback is the real part of the inverse transform of the seed padded to n: no doubling survives."""
    for n in (6, 7):
        x = np.linspace(-1.0, 1.0, n)
        seed = np.arange(1.0, n // 2 + 2) * (1.0 - 0.5j)
        _, pullback = rrule(np.fft.rfft, x)
        padded = np.concatenate([seed, np.zeros(n - len(seed))])
        np.testing.assert_allclose(pullback(seed)[1], n * np.fft.ifft(padded).real, atol=1e-13)


@pytest.mark.parametrize("f", ONE_D + N_D, ids=lambda f: f.__name__)
def test_out_gets_no_rule(f):
    """``out=``, by keyword or as the fourth option, gets ``None`` from both rules and writes nothing."""
    x = np.linspace(0.5, 2.0, 12).reshape(3, 4)
    buffer = np.empty_like(f(x), dtype=f(x).dtype)
    buffer.fill(7)
    assert rrule(f, x, out=buffer) is None
    assert frule((NoTangent(), np.ones_like(x)), f, x, out=buffer) is None
    options = (None, -1, None) if f in ONE_D else (None, (0, 1), None)
    assert rrule(f, x, *options, buffer) is None
    assert np.all(buffer == 7)
    assert rrule(f, x, out=None) is not None


@pytest.mark.parametrize("f", [np.fft.fft, np.fft.rfftn, np.fft.fftshift], ids=lambda f: f.__name__)
def test_integer_input_gets_no_tangent(f):
    """An integer signal has no tangent space: ``NoTangent()`` back; a zero tangent forward."""
    x = np.arange(6).reshape(2, 3)
    out, pullback = rrule(f, x)
    seed = np.ones(out.shape, out.dtype)
    assert pullback(seed) == (NoTangent(), NoTangent())
    out_dot = frule((NoTangent(), NoTangent()), f, x)[1]
    assert out_dot == (NoTangent() if out.dtype.kind == "i" else ZeroTangent())


def test_dtypes_are_kept():
    """float32 in: complex64 out, float32 cotangent; complex64 in: complex64 cotangent."""
    x = np.linspace(0.0, 1.0, 6, dtype=np.float32)
    out, pullback = rrule(np.fft.rfft, x)
    assert out.dtype == np.complex64 and pullback(np.ones(4, np.complex64))[1].dtype == np.float32
    z = out.astype(np.complex64)
    out, pullback = rrule(np.fft.irfft, z, 7)
    assert out.dtype == np.float32 and pullback(np.ones(7, np.float32))[1].dtype == np.complex64


def test_deprecated_forms_of_s_follow_numpy():
    """``s`` without ``axes`` (the last ``len(s)`` axes) and ``None`` in ``s`` (the 1-d default), read as numpy does."""
    x = np.linspace(-1.0, 1.0, 24).reshape(2, 3, 4) + 0.3j
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for f, kwargs in [
            (np.fft.fftn, {"s": (4, 5)}),
            (np.fft.irfftn, {"s": (2, 5)}),
            (np.fft.fft2, {"s": (None, 6)}),
            (np.fft.irfftn, {"s": (3, None), "axes": (0, 2)}),
        ]:
            test_rrule(f, x, fkwargs=kwargs)
            test_frule(f, x, fkwargs=kwargs)
