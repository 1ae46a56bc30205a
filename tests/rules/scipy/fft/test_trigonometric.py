"""scipy.fft's cosine and sine transforms (with scipy installed): the declared cases, the matrices the adjoints are
derived from, and scipy's handling of a complex signal."""

import itertools

import numpy as np
import pytest

from chainrules_core import NoTangent, frule, rrule
from tests.rules.cases import case_params

fft = pytest.importorskip("scipy.fft", reason="scipy is an optional dependency")
trigonometric = pytest.importorskip("chainrules.rules.scipy.fft.trigonometric")

_KINDS = [(kind, t) for kind in ("dct", "dst") for t in (1, 2, 3, 4)]
_OPTIONS = list(itertools.product(("backward", "ortho", "forward"), (None, True, False)))


@pytest.mark.parametrize("case, dtype, mode", case_params("scipy.fft.trigonometric"))
def test_rule(case, dtype, mode):
    """Every declared case of the cosine and sine transforms passes the harness."""
    case.run(dtype, mode)


def _matrix(f, n, **kwargs):
    return f(np.eye(n), axis=0, **kwargs)


@pytest.mark.parametrize("kind, t", _KINDS)
def test_the_matrices_are_s_l_k_r(kind, t):
    """scipy's matrix is the unnormalized one scaled by the norm and weighted by ``orthogonalize``, as the module's
    derivation reads scipy's definitions; and the pullback is its transpose, for every norm and ``orthogonalize``."""
    f = getattr(fft, kind)
    for n in (2, 5, 6) if (kind, t) == ("dct", 1) else (1, 2, 5, 6):
        k = _matrix(f, n, type=t)
        for norm, orthogonalize in _OPTIONS:
            m = _matrix(f, n, type=t, norm=norm, orthogonalize=orthogonalize)
            lo, ro = trigonometric._ORTHOGONALIZING.get((kind, t), ((1.0, 1.0), (1.0, 1.0)))
            if not (norm == "ortho" if orthogonalize is None else orthogonalize):
                lo = ro = (1.0, 1.0)
            s = trigonometric.scale(kind, t, norm, n)
            model = s * trigonometric._ends(n, lo)[:, None] * k * trigonometric._ends(n, ro)[None, :]
            np.testing.assert_allclose(m, model, atol=1e-12, err_msg=f"{kind} {t} n={n} {norm} {orthogonalize}")
            _, pullback = rrule(f, np.ones(n), t, norm=norm, orthogonalize=orthogonalize)
            transposed = np.stack([pullback(e)[1] for e in np.eye(n)], axis=1)
            np.testing.assert_allclose(transposed, m.T, atol=1e-12)


@pytest.mark.parametrize("kind, t", [("dct", 2), ("dst", 3)])
def test_the_inverse_is_the_dual_type_under_the_opposite_norm(kind, t):
    """``idct(type=t, norm)`` is ``dct(type=t')`` under the opposite norm, with the same ``orthogonalize``."""
    inverse, forward = getattr(fft, "i" + kind), getattr(fft, kind)
    opposite = {"backward": "forward", "ortho": "ortho", "forward": "backward"}
    for norm, orthogonalize in _OPTIONS:
        np.testing.assert_allclose(
            _matrix(inverse, 5, type=t, norm=norm, orthogonalize=orthogonalize),
            _matrix(forward, 5, type=5 - t, norm=opposite[norm], orthogonalize=orthogonalize),
            atol=1e-12,
        )


def test_complex_signal_takes_the_default_orthogonalize():
    """scipy transforms a complex signal with ``orthogonalize`` at its default, whatever the call says: the rules
    differentiate that, and the pullback is the transpose of what scipy computed."""
    z = np.array([1.0 + 2.0j, -0.5 + 0.1j, 0.3 - 1.0j, 2.0 + 0.0j])
    out, pullback = rrule(fft.dct, z, 2, orthogonalize=True)
    np.testing.assert_allclose(out, fft.dct(z.real) + 1j * fft.dct(z.imag))
    np.testing.assert_allclose(pullback(z)[1], fft.dct(z * np.array([2.0, 1, 1, 1]), 3))  # K_2^T = K_3 D^-1
    _, tangent = frule((NoTangent(), z), fft.dct, z, orthogonalize=True)
    np.testing.assert_allclose(tangent, out)


def test_overwrite_x_never_overwrites():
    x, x_dot = np.linspace(0.0, 1.0, 6), np.linspace(1.0, 2.0, 6)
    out, _ = rrule(fft.idst, x, 2, None, -1, None, True)  # overwrite_x positional
    _, out_dot = frule((NoTangent(), x_dot), fft.dctn, x, overwrite_x=True)
    np.testing.assert_array_equal(x, np.linspace(0.0, 1.0, 6))
    np.testing.assert_array_equal(x_dot, np.linspace(1.0, 2.0, 6))
    np.testing.assert_allclose(out, fft.idst(np.linspace(0.0, 1.0, 6), 2))
    np.testing.assert_allclose(out_dot, fft.dctn(np.linspace(1.0, 2.0, 6)))
