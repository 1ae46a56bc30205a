"""Rules for the Bessel functions of scipy.special (optional: run when scipy is installed)."""

import numpy as np
import pytest

from chainrules_core import NoTangent, NotImplementedTangent, ZeroTangent, frule, rrule
from tests.rules.cases import case_params

special = pytest.importorskip("scipy.special", reason="scipy is an optional dependency")

ORDERED = [special.jv, special.yv, special.iv, special.kv, special.kve, special.ive]


@pytest.mark.parametrize("case, dtype, mode", case_params("scipy.special.bessel"))
def test_rule(case, dtype, mode):
    """Every declared case of the Bessel family passes the harness."""
    case.run(dtype, mode)


@pytest.mark.parametrize("f", ORDERED, ids=lambda f: f.__name__)
def test_the_order(f):
    """An integer order (an int, an integer array) gets NoTangent; a real one a NotImplementedTangent naming it."""
    x = np.array([0.5, 1.5])
    assert rrule(f, 2, x)[1](np.ones(2))[1] == NoTangent()
    assert rrule(f, np.array([0, 1]), x)[1](np.ones(2))[1] == NoTangent()
    v_bar = rrule(f, 1.5, x)[1](np.ones(2))[1]
    assert isinstance(v_bar, NotImplementedTangent)
    assert v_bar.info == f"scipy.special.{f.__name__}: the derivative in the order v"
    assert isinstance(frule((NoTangent(), 1.0, ZeroTangent()), f, 1.5, x)[1], NotImplementedTangent)
    assert frule((NoTangent(), ZeroTangent(), np.ones(2)), f, 1.5, x)[1].shape == (2,)


def test_yn_takes_an_integer_order_even_as_a_float():
    assert rrule(special.yn, 2.0, 1.5)[1](1.0)[1] == NoTangent()


def test_ive_is_not_holomorphic():
    """d ive = d dz - sign(Re z) ive Re(dz): along i the second term vanishes, so the derivative depends on dz's
    direction (and the pullback is the adjoint of that real-linear map)."""
    z = 1.0 + 0.5j
    _, along_one = frule((NoTangent(), ZeroTangent(), 1.0 + 0.0j), special.ive, 1, z)
    _, along_i = frule((NoTangent(), ZeroTangent(), 1.0j), special.ive, 1, z)
    d = (special.ive(0, z) + special.ive(2, z)) / 2
    assert along_one == pytest.approx(d - special.ive(1, z))
    assert along_i == pytest.approx(1j * d)
    _, _, z_bar = rrule(special.ive, 1, z)[1](1.0 + 0.0j)
    assert z_bar == pytest.approx(np.conj(d) - np.conj(special.ive(1, z)).real)


def test_output_buffers_get_no_rule():
    x, buffer = np.ones(2), np.empty(2)
    for f in (special.ive, special.jv):
        assert rrule(f, 1, x, out=buffer) is None
        assert rrule(f, 1, x, buffer) is None
        assert frule((NoTangent(), NoTangent(), x), f, 1, x, out=buffer) is None
