"""scipy.fft's discrete Fourier transforms: numpy.fft's own, the n-d Hermitian transforms, fftshift and ifftshift.

The transforms numpy.fft also has compute what numpy's do, so they share
numpy's rules (``chainrules.rules.numpy.fft``): the same plans of 1-d
transforms and the same adjoints, with scipy's options bound by name.

* ``hfft2``, ``hfftn``, ``ihfft2``, ``ihfftn`` (numpy has only the 1-d
  ones). ``hfftn(x, norm)`` is ``irfftn(conj(x))`` under the opposite norm,
  and ``ihfftn(x, norm)`` is ``conj(rfftn(x))`` under the opposite norm
  (scipy/fft/_pocketfft/basic.py); since ``ifft(conj(z))`` is ``conj(fft(z))``
  under the opposite norm, ``hfftn`` is ``fft`` along every axis but the last
  and then ``hfft`` along the last, and ``ihfftn`` is ``ihfft`` along the last
  axis and then ``ifft`` along the others: the plan numpy's rules already
  differentiate step by step.
* ``workers=`` passes through to the call (the pullback's transforms run on
  numpy's one thread). ``overwrite_x=True`` lets scipy destroy the input; the
  rules never take that leave: the output and its tangent are computed with
  ``overwrite_x=False``, as an engine may still need the argument and the
  caller's tangent (no rule changes its arguments).
* ``plan=``: scipy's own backend refuses any plan but ``None``, and a plan of
  another backend fits one transform of one shape, not the adjoint's: a call
  with a plan gets no rule (``None``).
* Complex input to a real transform: scipy raises, before any rule runs.
* ``fftshift`` and ``ifftshift`` roll by ``n // 2``; each is the other's adjoint.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scipy import fft

from chainrules_core import follow, is_followed

from ..._makers import linear_in_first_rule
from ...numpy.fft import Planner, n_d_plan, one_d_plan, shift_adjoint, transform_rules

ONE_D = ("n", "axis", "norm", "overwrite_x", "workers")
N_D = ("s", "axes", "norm", "overwrite_x", "workers")
OVERWRITE = 3
"""The position of ``overwrite_x`` among a transform's options after the signal."""


def without_plan(x: Any, *args: Any, **kwargs: Any) -> bool:
    """No rule for a call given a ``plan=`` (scipy's backend refuses one; another backend's fits the primal only)."""
    return kwargs.get("plan") is None


def not_overwriting(f: Callable[..., Any], position: int) -> Callable[..., Any]:
    """``f`` called with ``overwrite_x=False``, given by name or as the option at ``position``: the output and its
    tangent, computed from arguments that the rule must not overwrite."""

    def call(x: Any, *args: Any, **kwargs: Any) -> Any:
        if len(args) > position:
            args = (*args[:position], False, *args[position + 1 :])
        elif "overwrite_x" in kwargs:
            kwargs = {**kwargs, "overwrite_x": False}
        return follow(f, x, *args, **kwargs) if is_followed(x) else f(x, *args, **kwargs)

    call.__name__ = f"{f.__name__}_not_overwriting"
    return call


def _register(f: Callable[..., Any], kind: str, planner: Planner) -> None:
    """The rules of ``f``: numpy's transform ``kind``, planned by ``planner`` from scipy's options."""
    transform_rules(f, kind, planner, generic=False, applies=without_plan, call=not_overwriting(f, OVERWRITE))


for _f, _kind in [
    (fft.fft, "fft"),
    (fft.ifft, "ifft"),
    (fft.rfft, "rfft"),
    (fft.irfft, "irfft"),
    (fft.hfft, "hfft"),
    (fft.ihfft, "ihfft"),
]:
    _register(_f, _kind, one_d_plan(_kind, ONE_D))

for _f, _kind, _axes in [
    (fft.fft2, "fft", (-2, -1)),
    (fft.ifft2, "ifft", (-2, -1)),
    (fft.fftn, "fft", None),
    (fft.ifftn, "ifft", None),
    (fft.rfft2, "rfft", (-2, -1)),
    (fft.irfft2, "irfft", (-2, -1)),
    (fft.rfftn, "rfft", None),
    (fft.irfftn, "irfft", None),
    (fft.hfft2, "hfft", (-2, -1)),
    (fft.ihfft2, "ihfft", (-2, -1)),
    (fft.hfftn, "hfft", None),
    (fft.ihfftn, "ihfft", None),
]:
    _register(_f, _kind, n_d_plan(_kind, _axes, N_D))

linear_in_first_rule(fft.fftshift, shift_adjoint("ifftshift"))
linear_in_first_rule(fft.ifftshift, shift_adjoint("fftshift"))
