"""scipy.fft's Fourier transforms (with scipy installed): the declared cases, and the options the harness cannot
exercise."""

import numpy as np
import pytest

from chainrules_core import NoTangent, frule, rrule
from tests.rules.cases import case_params

fft = pytest.importorskip("scipy.fft", reason="scipy is an optional dependency")

_Z = np.linspace(0.5, 3.0, 12).reshape(3, 4) * (1.0 - 0.5j)


@pytest.mark.parametrize("case, dtype, mode", case_params("scipy.fft.transforms"))
def test_rule(case, dtype, mode):
    """Every declared case of scipy's Fourier transforms passes the harness."""
    case.run(dtype, mode)


@pytest.mark.parametrize("f", [fft.fft, fft.ifftn, fft.irfft, fft.hfft2], ids=lambda f: f.__name__)
def test_overwrite_x_never_overwrites(f):
    """``overwrite_x=True``, by name or positionally, leaves the argument and its tangent as they were, and gives
    scipy's output and numpy's rules' cotangent."""
    z, z_dot = _Z.copy(), _Z[::-1].copy()
    out, pullback = rrule(f, z, overwrite_x=True)
    options = (None, -1 if f in (fft.fft, fft.irfft) else None, None, True)
    _, out_dot = frule((NoTangent(), z_dot, *(NoTangent(),) * 4), f, z, *options)
    np.testing.assert_array_equal(z, _Z)
    np.testing.assert_array_equal(z_dot, _Z[::-1])
    np.testing.assert_allclose(out, f(_Z.copy()), atol=1e-12)
    np.testing.assert_allclose(out_dot, f(_Z[::-1].copy()), atol=1e-12)
    seed = np.ones_like(out)
    np.testing.assert_allclose(pullback(seed)[1], rrule(f, _Z)[1](seed)[1], atol=1e-12)


@pytest.mark.parametrize("f", [fft.fft, fft.fftn, fft.ihfft2], ids=lambda f: f.__name__)
def test_a_plan_gets_no_rule(f):
    """``plan=`` (which scipy's own backend refuses) gets ``None`` from both rules."""
    x = _Z.real
    assert rrule(f, x, plan=object()) is None
    assert frule((NoTangent(), x), f, x, plan=object()) is None
    assert rrule(f, x, plan=None) is not None


@pytest.mark.parametrize(
    "scipy_f, numpy_f, x",
    [(fft.fft, np.fft.fft, _Z), (fft.irfftn, np.fft.irfftn, _Z), (fft.ihfft, np.fft.ihfft, _Z.real)],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_shares_numpys_rules(scipy_f, numpy_f, x):
    """A transform numpy.fft also has gives numpy's cotangent and tangent."""
    out, pullback = rrule(scipy_f, x, norm="ortho")
    seed = np.cos(np.arange(out.size)).reshape(out.shape) * (1 + 1j if np.iscomplexobj(out) else 1)
    np.testing.assert_allclose(pullback(seed)[1], rrule(numpy_f, x, norm="ortho")[1](seed)[1], atol=1e-12)
    tangent = frule((NoTangent(), x[::-1]), scipy_f, x, norm="ortho")[1]
    np.testing.assert_allclose(tangent, frule((NoTangent(), x[::-1]), numpy_f, x, norm="ortho")[1], atol=1e-12)


def test_integer_signal_gets_no_tangent():
    x = np.arange(6).reshape(2, 3)
    out, pullback = rrule(fft.hfftn, x)
    assert pullback(np.ones_like(out)) == (NoTangent(), NoTangent())
