"""Discrete Fourier transforms: the declared cases, and what finite differences cannot show."""

import dataclasses
import warnings

import numpy as np
import pytest

from chainrules.testing.libraries import LIBRARIES, compare_on
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


# ----- dask: lazily, along axes held in one chunk; refused along split ones -----

needs_dask = pytest.mark.skipif(not LIBRARIES["dask"].available(), reason=LIBRARIES["dask"].why_not())


def _split_first_axis(a):
    """A dask array of ``a`` in two chunks along axis 0 and one along every other: the transforms below leave
    axis 0 alone."""
    import dask.array as da

    return da.from_array(a, chunks=(max(1, (a.shape[0] + 1) // 2), *a.shape[1:]))


def _signal(*shape):
    return np.random.default_rng(sum(shape)).standard_normal(shape)


def _spectrum(*shape):
    rng = np.random.default_rng(len(shape))
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


DASK_CASES = [
    (np.fft.fft, _signal(3, 6), {"n": 8, "norm": "ortho"}),
    (np.fft.fft, _spectrum(3, 7), {}),
    (np.fft.ifft, _spectrum(3, 7), {"n": 5}),
    (np.fft.rfft, _signal(3, 6), {}),
    (np.fft.rfft, _signal(3, 7), {"n": 4, "norm": "forward"}),
    (np.fft.irfft, _spectrum(3, 5), {}),
    (np.fft.irfft, _spectrum(3, 4), {"n": 7}),
    (np.fft.hfft, _spectrum(3, 5), {"norm": "ortho"}),
    (np.fft.ihfft, _signal(3, 6), {"n": 5}),
    (np.fft.fftn, _spectrum(2, 3, 4), {"s": (4, 5), "axes": (1, 2)}),
    (np.fft.fftn, _spectrum(2, 3, 4), {"s": (4, 5), "axes": (2, 2)}),
    (np.fft.ifftn, _spectrum(2, 3, 4), {"axes": (2, 1), "norm": "forward"}),
    (np.fft.rfftn, _signal(2, 3, 4), {"axes": (1, 2)}),
    (np.fft.rfftn, _signal(2, 3, 5), {"s": (4, 6), "axes": (2, 1)}),
    (np.fft.irfftn, _spectrum(2, 3, 4), {"s": (3, 6), "axes": (1, 2)}),
    (np.fft.irfftn, _spectrum(2, 3, 4), {"axes": (1, 1)}),
    (np.fft.fftshift, _signal(3, 5), {"axes": 1}),
    (np.fft.ifftshift, _signal(4, 6), {}),
]


@needs_dask
@pytest.mark.parametrize("mode", ["rrule", "frule"])
@pytest.mark.parametrize(
    "f, x, kwargs", DASK_CASES, ids=[f"{f.__name__}-{i}" for i, (f, _, _) in enumerate(DASK_CASES)]
)
def test_dask_transforms_lazily_along_an_axis_in_one_chunk(f, x, kwargs, mode):
    """An array split only along the axes a transform leaves alone: the output, the cotangent and the tangent stay
    dask arrays (nothing computed), numpy's numbers once computed; the seeds are split the same way."""
    library = dataclasses.replace(LIBRARIES["dask"], convert=_split_first_axis)
    assert compare_on(library, f, x, mode=mode, fkwargs=kwargs).compared >= 2


@needs_dask
@pytest.mark.parametrize(
    "f, kwargs, axis",
    [(np.fft.fft, {}, 1), (np.fft.irfft, {}, 1), (np.fft.fftn, {"axes": (0, 1)}, 0), (np.fft.rfftn, {}, 0)],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_dask_split_along_a_transformed_axis_is_refused(f, kwargs, axis):
    """Split along a transformed axis, the argument, its tangent and the output's cotangent are refused with a
    ``TypeError`` naming the function, the array type and the rechunking that lets it run; nothing is computed."""
    import dask.array as da

    x = np.linspace(0.5, 2.0, 24).reshape(4, 6) + 0.25j * (f in (np.fft.fft, np.fft.irfft, np.fft.fftn))
    if f is np.fft.rfftn:
        x = x.real
    split = da.from_array(x, chunks=(2, 3))
    whole = da.from_array(x, chunks=(2, 6) if axis == 1 else (4, 6))
    name = f"np.fft.{f.__name__}"
    for call in (lambda: rrule(f, split, **kwargs), lambda: frule((NoTangent(), whole), f, split, **kwargs)):
        with pytest.raises(TypeError, match=rf"{name}.*dask.*chunks along axis {axis}.*rechunk"):
            call()
    with pytest.raises(TypeError, match=rf"{name}.*dask.*the array has 2 chunks.*rechunk"):
        frule((NoTangent(), split), f, whole, **kwargs)
    out, pullback = rrule(f, whole, **kwargs)
    with pytest.raises(TypeError, match=rf"{name}.*dask.*the cotangent has 2 chunks.*rechunk"):
        pullback(da.from_array(np.ones(out.shape, out.dtype), chunks=tuple(max(1, n // 2) for n in out.shape)))
