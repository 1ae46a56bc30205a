"""JAX: functions whose derivatives come from ``rrule`` and ``frule``, run on the host.

``wrap(f)`` gives a ``jax.custom_vjp`` for reverse mode (``grad``, ``vjp``,
``jacrev``); ``wrap(f, mode="forward")`` a ``jax.custom_jvp`` for forward
mode (``jvp``, ``jacfwd``, ``linearize``); ``wrap(f, mode="both")`` one
function for ``jvp`` and ``grad`` together, without ``vmap``. All of them
work under ``jax.jit``; the first two under ``jax.vmap`` too. Reverse mode
also gives reverse over reverse (``grad(grad(...))``, ``jacrev(jacrev(...))``):
its backward pass is a ``custom_vjp`` whose VJP the reverse engine of
``chainrules.engines`` computes from the rule's numpy code.

The rules are numpy code: under a transform they run through
``jax.pure_callback`` on the host, one batch entry at a time under ``vmap``.
Called on concrete arrays (no ``jit``, no ``vmap``), they run directly.

JAX's cotangent of a complex value is the conjugate of the one in
docs/conventions.md; the wrappers conjugate seeds and cotangents at the
boundary, so ``jax.grad`` sees JAX's own convention.
"""

from __future__ import annotations

import itertools
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_derivatives import SymbolicZero, linear_call

from chainrules_core import (
    AbstractZero,
    NoTangent,
    NotImplementedTangent,
    NotImplementedTangentError,
    Tangent,
    ZeroTangent,
    frule,
    rrule,
    unthunk,
)

from ._common import (
    Call,
    _Sequence,
    has_tangent_space,
    path_of,
    sequence_tangent,
    static_tangent,
    unflatten_output,
    with_name_of,
)
from ._second_order import pullback_function, vjp_of

__all__ = ["wrap"]

MODES = ("reverse", "forward", "both")


def wrap(f: Any, *, mode: str = "reverse", out_shape: Any = None, path: str | None = None) -> Callable[..., Any]:
    """A function on JAX arrays that computes ``f`` and differentiates it through its rules.

    ``mode="reverse"`` (``rrule``) supports ``grad``, ``vjp``, ``jacrev``;
    ``mode="forward"`` (``frule``) supports ``jvp``, ``jacfwd``,
    ``linearize``; ``mode="both"`` (both rules) supports ``jvp`` and
    ``grad`` but not ``vmap``. All support ``jit``; the first two ``vmap``.

    JAX array arguments (tracers included) are the operands; other
    arguments and keyword arguments pass through to ``f`` as they are and
    get no derivative. Under a transform the shapes of ``f``'s outputs must
    be known before it runs: they are found by running ``f`` once on
    placeholder arrays of the operands' shapes and dtypes, unless
    ``out_shape`` gives them: a ``jax.ShapeDtypeStruct`` (or a tuple of them)
    or a function of the arguments (operands as ``ShapeDtypeStruct``) that
    returns them.

    Where every rule of ``f`` is generic (it computes in its arrays' own
    namespace), the rules run on JAX's arrays and tracers themselves: the
    ``"native"`` path, a ``jax.custom_jvp`` whose JVP is the ``frule``,
    traced by JAX. ``jit``, ``vmap``, ``grad``, ``jvp``, ``jacfwd``,
    ``jacrev``, ``hessian`` and higher orders then all work whatever
    ``mode`` says, and ``out_shape`` is not needed. ``path="host"`` keeps the
    host path for such a function; ``path="native"`` insists on the native
    one (``ValueError`` where a rule of ``f`` is numpy's alone). The
    wrapper's ``path`` attribute says which it took.

    >>> import jax
    >>> import jax.numpy as jnp
    >>> import chainrules  # registers the rules for numpy
    >>> from chainrules.interop.jax import wrap
    >>> sin = wrap(np.sin)
    >>> jax.jit(jax.grad(lambda x: sin(x).sum()))(jnp.zeros(3))
    Array([1., 1., 1.], dtype=float32)
    >>> jax.jvp(wrap(np.sin, mode="forward"), (jnp.zeros(2),), (jnp.ones(2),))[1]
    Array([1., 1.], dtype=float32)
    """
    if mode not in MODES:
        raise ValueError(f"wrap: mode must be one of {', '.join(map(repr, MODES))}, got {mode!r}")
    if path not in (None, "native", "host"):
        raise ValueError(f"wrap: path must be None, 'native' or 'host', got {path!r}")
    chosen = path_of(f, native=path != "host")
    if path == "native" and chosen != "native":
        raise ValueError(
            f"wrap: {f!r} cannot take the native path: "
            + ("it has no rules" if chosen == "derived" else "a rule of it is written for numpy arrays alone")
        )
    build = {"reverse": _reverse, "forward": _forward, "both": _both}[mode]

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if wrapped.path == "native":  # type: ignore[attr-defined]
            call, operands = Call.split(f, args, kwargs, _is_array)
            try:
                return unflatten_output(_native(call)(*operands), call.kind)
            except TypeError as err:
                if path == "native" or not _is_refusal(err):
                    raise
                wrapped.path = "host"  # type: ignore[attr-defined]  # a rule that does not run on JAX's arrays
        call, operands = Call.split(f, args, kwargs, _is_array)
        return unflatten_output(build(call, out_shape)(*operands), call.kind)

    wrapped = with_name_of(wrapped, f)
    wrapped.path = chosen  # type: ignore[attr-defined]
    return wrapped


def _is_refusal(err: TypeError) -> bool:
    """Whether ``err`` is a generic rule refusing JAX's arrays (``chainrules_core.arrays.refusal``): a function the
    Python Array API standard lacks (``np.fabs``), or an option it lacks."""
    return "has no rule for arrays of type jax" in str(err)


# ----- arrays and shapes -----


def _is_array(x: Any) -> bool:
    return isinstance(x, jax.Array)


def _traced(arrays: Sequence[Any]) -> bool:
    return any(isinstance(a, jax.core.Tracer) for a in arrays)


def _struct(shape: Sequence[int], dtype: Any) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(tuple(shape), jax.dtypes.canonicalize_dtype(dtype))


def _placeholder(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Values in (0.25, 0.75), plus ``n`` times the identity on square matrices (invertible, positive definite).

    Complex placeholders get imaginary parts in (0.25, 0.75) too: a function whose output dtype depends on the
    values (``real_if_close``) then declares the complex dtype, which holds a real result as well.
    """
    dtype = np.dtype(dtype)
    if dtype.kind not in "fc":
        return np.ones(shape, dtype=dtype)
    rng = np.random.default_rng(0)
    values = rng.uniform(0.25, 0.75, size=shape)
    if dtype.kind == "c":
        values = values + 1j * rng.uniform(0.25, 0.75, size=shape)
    if len(shape) >= 2 and shape[-1] == shape[-2]:
        values = values + shape[-1] * np.eye(shape[-1])
    return values.astype(dtype)


def _output_structs(call: Call, operands: Sequence[Any], out_shape: Any) -> list[jax.ShapeDtypeStruct]:
    """The outputs' shapes and dtypes, for a host callback: from ``out_shape``, or ``f`` run on placeholders."""
    if out_shape is not None:
        if callable(out_shape):
            _, args, kwargs = call.bind([jax.ShapeDtypeStruct(o.shape, o.dtype) for o in operands])
            out_shape = out_shape(*args, **kwargs)
        if isinstance(out_shape, (tuple, list)):
            call.kind, structs = type(out_shape), list(out_shape)
        else:
            call.kind, structs = None, [out_shape]
        call.n_outputs = len(structs)
        return [_struct(s.shape, s.dtype) for s in structs]
    placeholders = [_placeholder(o.shape, o.dtype) for o in operands]
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outputs = call.primal(placeholders)
    except Exception as err:
        raise RuntimeError(
            f"{call.name}: could not find the shapes of its outputs by running it on placeholder arrays "
            f"({type(err).__name__}: {err}); give them with wrap(..., out_shape=...)"
        ) from err
    return [_struct(o.shape, o.dtype) for o in outputs]


def _host(
    call: Call, fn: Callable[..., Sequence[Any]], structs: Sequence[jax.ShapeDtypeStruct], *arrays: Any
) -> tuple[Any, ...]:
    """``fn`` on the numpy values of ``arrays``, its results cast to ``structs``: a host callback under a transform."""

    def on_host(*values: Any) -> tuple[np.ndarray, ...]:
        results = fn(*(np.asarray(v) for v in values))
        return tuple(_cast(call, i, r, s) for i, (r, s) in enumerate(zip(results, structs)))

    if not structs:
        return ()
    if not _traced(arrays):
        return tuple(jnp.asarray(r) for r in on_host(*arrays))
    return tuple(jax.pure_callback(on_host, tuple(structs), *arrays, vmap_method="sequential"))


def _cast(call: Call, index: int, result: Any, struct: jax.ShapeDtypeStruct) -> np.ndarray:
    """A callback's result in the shape and dtype declared for it; refused where the cast would lose anything.

    A real result fits a complex declaration; a complex one does not fit a real one, nor does another shape.
    """
    result = np.asarray(result)
    kinds = result.dtype.kind, np.dtype(struct.dtype).kind
    if np.shape(result) != tuple(struct.shape) or (kinds[0] == "c" and kinds[1] != "c"):
        raise ValueError(
            f"{call.name}: result {index} of a host callback is ndarray[{result.dtype}, {result.shape}] where "
            f"ndarray[{struct.dtype}, {tuple(struct.shape)}] was declared (by out_shape, or by running it on "
            f"placeholder arrays): its output's shape or dtype depends on the values; give them with "
            f"wrap(..., out_shape=...)"
        )
    return result.astype(struct.dtype, copy=False)


def _zeros(structs: Sequence[jax.ShapeDtypeStruct], entries: Sequence[Any]) -> list[Any]:
    return [np.zeros(s.shape, s.dtype) if e is None else e for e, s in zip(entries, structs)]


# ----- the primal -----


def _primal(call: Call, out_shape: Any, operands: Sequence[Any]) -> tuple[Any, ...]:
    if not _traced(operands):  # concrete arrays: run f here
        return tuple(jnp.asarray(o) for o in call.primal([np.asarray(o) for o in operands]))
    structs = _output_structs(call, operands, out_shape)
    return _host(call, lambda *values: call.primal(values), structs, *operands)


def _is_differentiable(call: Call, operands: Sequence[Any]) -> list[bool]:
    """Which operands get a cotangent or tangent: positional float and complex arrays (keywords never do)."""
    n_positional = len(call.arg_slots)
    return [i < n_positional and has_tangent_space(o) for i, o in enumerate(operands)]


def _avals(arrays: Sequence[Any]) -> list[jax.ShapeDtypeStruct]:
    return [_struct(a.shape, a.dtype) for a in arrays]


def _is_zero(dot: Any) -> bool:
    return dot is None or isinstance(dot, SymbolicZero)


# ----- reverse mode: custom_vjp, the pullback run again from the saved inputs -----


def _reverse(call: Call, out_shape: Any) -> Any:
    @jax.custom_vjp
    def fn(*operands: Any) -> tuple[Any, ...]:
        return _primal(call, out_shape, operands)

    def fn_fwd(*operands: Any) -> Any:
        if sum(np.size(o) for o in operands) < KEEP_FROM:  # small: the backward pass runs the primal again
            return fn(*operands), (operands, None)
        *outputs, token = _primal_kept(call, out_shape, operands)
        return tuple(outputs), (operands, token)

    def fn_bwd(residuals: Any, seeds: Sequence[Any]) -> tuple[Any, ...]:
        operands, token = residuals
        return _differentiable_pullback(call, tuple(operands), seeds, token)

    fn.defvjp(fn_fwd, fn_bwd)
    return fn


KEEP_FROM = 65_536
"""The number of operand entries from which the forward pass keeps its pullback for the backward pass (``_Kept``).

Keeping it makes the backward callback depend on the forward one, so XLA no
longer drops the forward callback when only the gradient is used
(``jit(grad(...))``): one more host round trip (about 0.1 ms). Running the
primal again in the backward callback costs a pass over the data instead,
which is less below this size and more above it (docs/interop.md)."""


class _Kept:
    """The pullbacks of the forward passes whose backward pass has not run yet, by a token the forward pass
    returns as a residual: the backward pass's callback takes its pullback from here rather than running the
    primal again. A token not found (a backward pass run twice, or an entry pushed out by ``LIMIT`` newer ones)
    runs ``rrule`` again, so the token only ever saves time."""

    LIMIT = 8
    """The forward passes kept at most, the newest: a forward pass whose backward pass never runs holds memory
    only until eight more have run."""

    def __init__(self) -> None:
        self._entries: OrderedDict[int, Any] = OrderedDict()
        self._tokens = itertools.count(1)
        self._lock = threading.Lock()

    def keep(self, entry: Any) -> int:
        with self._lock:
            token = next(self._tokens) % 2**31
            self._entries[token] = entry
            while len(self._entries) > self.LIMIT:
                self._entries.popitem(last=False)
        return token

    def take(self, token: Any) -> Any:
        with self._lock:
            return self._entries.pop(int(token), None)


_KEPT = _Kept()


def _primal_kept(call: Call, out_shape: Any, operands: Sequence[Any]) -> tuple[Any, ...]:
    """The outputs and an ``int32`` token under which the host keeps the pullback (``_Kept``)."""

    def run(*values: Any) -> list[Any]:
        out, pullback = call.rrule(list(values))
        outputs = call.record(out)
        return [*outputs, np.int32(_KEPT.keep((pullback, [np.iscomplexobj(o) for o in outputs])))]

    if not _traced(operands):
        return tuple(jnp.asarray(r) for r in run(*(np.asarray(o) for o in operands)))
    structs = [*_output_structs(call, operands, out_shape), _struct((), np.int32)]

    @jax.custom_jvp
    def kept(*operands: Any) -> tuple[Any, ...]:
        return _host(call, run, structs, *operands)

    def no_forward_mode(operands: Any, dots: Any) -> Any:
        raise TypeError(
            f"{call.name}: the host path's reverse mode is not differentiable in forward mode (hessian, jacfwd of "
            f"jacrev) nor three times, as JAX refuses forward-mode autodiff of a custom_vjp; second derivatives: "
            f"jacrev(jacrev(...))"
        )

    kept.defjvp(no_forward_mode)
    return kept(*operands)  # type: ignore[no-any-return]


def _differentiable_pullback(
    call: Call, operands: tuple[Any, ...], seeds: Sequence[Any], token: Any = None
) -> tuple[Any, ...]:
    """``_pullback`` as a ``custom_vjp`` of the operands and the live seeds, whose own VJP the reverse engine
    computes on the host from the rule's numpy code: ``grad(grad(...))`` and ``jacrev(jacrev(...))``. ``token``
    names the pullback the forward pass kept (``_Kept``)."""
    wanted = _is_differentiable(call, operands)
    live = [not _is_zero(s) and has_tangent_space(s) for s in seeds]
    token = np.int32(0) if token is None else token

    def full(live_seeds: Sequence[Any]) -> list[Any]:
        given = iter(live_seeds)
        return [next(given) if is_live else None for is_live in live]

    @jax.custom_vjp
    def pull(ops: tuple[Any, ...], live_seeds: tuple[Any, ...], token: Any) -> tuple[Any, ...]:
        return _pullback(call, ops, full(live_seeds), token)

    def pull_fwd(ops: tuple[Any, ...], live_seeds: tuple[Any, ...], token: Any) -> Any:
        return pull(ops, live_seeds, token), (ops, live_seeds)

    def pull_bwd(residuals: Any, cotangents: Sequence[Any]) -> tuple[Any, Any, Any]:
        ops, live_seeds = residuals
        xs = [*ops, *live_seeds]
        inputs = [i for i, x in enumerate(xs) if has_tangent_space(x)]
        targets = [_struct(xs[i].shape, xs[i].dtype) for i in inputs]
        given = [c for c, w in zip(cotangents, wanted) if w]
        n = len(ops)
        g = pullback_function(call, wanted, conjugate=True)

        def again(*values: Any) -> list[Any]:
            seed_values = full(values[n : len(xs)])
            outer = iter(values[len(xs) :])
            outer_seeds = [next(outer) if w else None for w in wanted]
            bars = vjp_of(call, g, [*values[:n], *seed_values], outer_seeds, conjugate=True)
            bars = [*bars[:n], *(b for b, is_live in zip(bars[n:], live) if is_live)]
            return _zeros(targets, [bars[i] for i in inputs])

        results = iter(_host(call, again, targets, *xs, *given))
        bars = [next(results) if has_tangent_space(x) else np.zeros(np.shape(x), jax.dtypes.float0) for x in xs]
        return tuple(bars[:n]), tuple(bars[n:]), np.zeros((), jax.dtypes.float0)

    pull.defvjp(pull_fwd, pull_bwd)
    return pull(operands, tuple(s for s, is_live in zip(seeds, live) if is_live), token)


def _pullback(call: Call, operands: Sequence[Any], seeds: Sequence[Any], token: Any) -> tuple[Any, ...]:
    """The cotangents of the operands for ``seeds``, by the pullback the forward pass kept under ``token``, or by
    ``rrule`` on the host (the primal runs again there).

    Zero seeds and the ``float0`` seeds of integer outputs do not cross to the host.
    """
    wanted = _is_differentiable(call, operands)
    live = [not _is_zero(s) and has_tangent_space(s) for s in seeds]
    targets = [_struct(o.shape, o.dtype) for o, w in zip(operands, wanted) if w]
    n = len(operands)

    def pull(*values: Any) -> list[Any]:
        inputs, given = list(values[:n]), iter(values[n + 1 :])
        seed_values = [next(given) if is_live else None for is_live in live]
        kept = _KEPT.take(values[n])
        if kept is None:
            out, pullback = call.rrule(inputs)
            complex_outputs = [np.iscomplexobj(o) for o in call.record(out)]
        else:
            pullback, complex_outputs = kept
        seed_values = [_seed_for(s, c) for s, c in zip(seed_values, complex_outputs)]
        cotangents = call.pullback(pullback, inputs, seed_values, wanted, conjugate=True)
        return _zeros(targets, [c for c, w in zip(cotangents, wanted) if w])

    live_seeds = (s for s, is_live in zip(seeds, live) if is_live)
    results = iter(_host(call, pull, targets, *operands, token, *live_seeds))
    return tuple(next(results) if w else None for w in wanted)


def _seed_for(seed: Any, complex_output: bool) -> Any:
    """The seed of an output that came out real where a complex one was declared: its real part.

    The imaginary part of the declared output is identically zero there, so its seed contributes nothing.
    """
    if seed is not None and np.iscomplexobj(seed) and not complex_output:
        return np.real(seed)
    return seed


# ----- forward mode: custom_jvp through frule -----


def _forward(call: Call, out_shape: Any) -> Any:
    @jax.custom_jvp
    def fn(*operands: Any) -> tuple[Any, ...]:
        return _primal(call, out_shape, operands)

    def fn_jvp(operands: Sequence[Any], dots: Sequence[Any]) -> Any:
        out = fn(*operands)  # a callback of its own: jacfwd needs the primal apart from the tangent
        outputs = _avals(out)
        return out, _pushforward(call, operands, outputs, dots)

    fn.defjvp(fn_jvp, symbolic_zeros=True)
    return fn


def _live_dots(call: Call, operands: Sequence[Any], dots: Sequence[Any]) -> list[bool]:
    return [w and not _is_zero(d) for w, d in zip(_is_differentiable(call, operands), dots)]


def _output_tangents(outputs: Sequence[jax.ShapeDtypeStruct], tangents: Sequence[Any]) -> tuple[Any, ...]:
    """Tangents for every output: float0 zeros for integer outputs, zeros where the rule gave a zero."""
    result, given = [], iter(tangents)
    for o in outputs:
        if has_tangent_space(o):
            result.append(next(given))
        else:
            result.append(np.zeros(o.shape, dtype=jax.dtypes.float0))
    return tuple(result)


def _pushforward(
    call: Call, operands: Sequence[Any], outputs: Sequence[jax.ShapeDtypeStruct], dots: Sequence[Any]
) -> tuple[Any, ...]:
    """The output tangents for operand tangents ``dots`` (symbolic zeros skipped), by ``frule`` on the host."""
    live = _live_dots(call, operands, dots)
    targets = [o for o in outputs if has_tangent_space(o)]
    if not any(live):  # every tangent is zero: so is the output's
        return _output_tangents(outputs, [jnp.zeros(t.shape, t.dtype) for t in targets])
    n = len(operands)

    def push(*values: Any) -> list[Any]:
        inputs, given = list(values[:n]), iter(values[n:])
        dot_values = [next(given) if is_live else None for is_live in live]
        tangents = call.pushforward(inputs, dot_values) or [None] * len(outputs)
        return _zeros(targets, [t for t, o in zip(tangents, outputs) if has_tangent_space(o)])

    live_dots = [d for d, is_live in zip(dots, live) if is_live]
    return _output_tangents(outputs, _host(call, push, targets, *operands, *live_dots))


# ----- both modes: custom_jvp whose pushforward JAX transposes through the pullback -----


def _both(call: Call, out_shape: Any) -> Any:
    @jax.custom_jvp
    def fn(*operands: Any) -> tuple[Any, ...]:
        return _primal(call, out_shape, operands)

    def fn_jvp(operands: Sequence[Any], dots: Sequence[Any]) -> Any:
        out = fn(*operands)
        outputs = _avals(out)
        live = _live_dots(call, operands, dots)
        if not any(live):
            return out, _pushforward(call, operands, outputs, dots)
        live_dots = tuple(d for d, is_live in zip(dots, live) if is_live)

        def push(residuals: Any, linear: Any) -> tuple[Any, ...]:
            full = iter(linear)
            return _pushforward(call, residuals, outputs, [next(full) if is_live else None for is_live in live])

        def pull(residuals: Any, seeds: Any) -> tuple[Any, ...]:
            cotangents = _pullback(call, residuals, seeds, np.int32(0))
            return tuple(c for c, is_live in zip(cotangents, live) if is_live)

        return out, linear_call(push, pull, tuple(operands), live_dots)

    fn.defjvp(fn_jvp, symbolic_zeros=True)
    return fn


# ----- native: the frule traced by JAX, a custom_jvp whose pushforward JAX transposes -----


def _native(call: Call, out_shape: Any = None) -> Any:
    """``f`` as a ``jax.custom_jvp`` of the operands whose JVP is ``f``'s frule run on JAX's arrays or tracers.

    The primal alone is the rrule's (its pullback is dead code that ``jit`` drops), or, for a function with only
    an frule, the frule's with zero tangents. JAX
    differentiates the frule's operations for higher orders, batches them under ``vmap``, and transposes the
    pushforward, linear in the tangents, for reverse mode.
    """

    @jax.custom_jvp
    def fn(*operands: Any) -> tuple[Any, ...]:
        return _native_primal(call, operands)

    def fn_jvp(operands: Sequence[Any], dots: Sequence[Any]) -> Any:
        if not any(_live_dots(call, operands, dots)):
            outputs = _native_primal(call, operands)
            return outputs, tuple(_native_tangents(call, outputs, ZeroTangent()))
        return _native_frule(call, operands, dots)

    fn.defjvp(fn_jvp, symbolic_zeros=True)
    return fn


def _native_primal(call: Call, operands: Sequence[Any]) -> tuple[Any, ...]:
    """The outputs, by ``f``'s rrule on JAX values, or by its frule with zero tangents where it has no rrule."""
    f, args, kwargs = call.bind(operands)
    result = rrule(f, *args, **kwargs) if rrule.has_rules(call.f) else None
    if result is None:
        return _native_frule(call, operands, [None] * len(operands), tangents=False)[0]
    return _native_outputs(call, result[0])


def _native_outputs(call: Call, out: Any) -> tuple[Any, ...]:
    """The output's entries as JAX arrays; the call remembers their container."""
    if isinstance(out, (tuple, list)):
        call.kind, entries = type(out), [jnp.asarray(o) for o in out]
    else:
        call.kind, entries = None, [jnp.asarray(out)]
    call.n_outputs = len(entries)
    return tuple(entries)


def _native_frule(
    call: Call, operands: Sequence[Any], dots: Sequence[Any], tangents: bool = True
) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The outputs, and with ``tangents`` their tangents, by ``f``'s frule on JAX values (``None`` or a symbolic
    zero in ``dots`` for a zero tangent; keyword operands never carry one)."""
    n_fields, n_args = len(call.fields), len(call.arg_slots)
    live = [not _is_zero(d) and has_tangent_space(o) for d, o in zip(dots, operands)]
    live[n_fields + n_args :] = [False] * (len(operands) - n_fields - n_args)
    f, args, kwargs = call.bind(operands)
    f_dot: Any = NoTangent()
    if n_fields and any(live[:n_fields]):
        f_dot = Tangent(type(call.f), **{n: d for n, d, w in zip(call.fields, dots, live) if w})
    arg_dots: list[Any] = [
        [static_tangent(e) for e in a] if isinstance(s, _Sequence) else static_tangent(a)
        for a, s in zip(args, call.args)
    ]
    for (i, j), d, v, w in zip(call.arg_slots, dots[n_fields:], operands[n_fields:], live[n_fields:]):
        tangent = d if w else static_tangent(v)
        if j is None:
            arg_dots[i] = tangent
        else:
            arg_dots[i][j] = tangent
    arg_dots = [sequence_tangent(s.kind, t) if isinstance(s, _Sequence) else t for t, s in zip(arg_dots, call.args)]
    result = frule((f_dot, *arg_dots), f, *args, **kwargs)
    if result is None:
        raise call.no_rule("frule", operands)
    out, out_dot = result
    entries = _native_outputs(call, out)
    return entries, tuple(_native_tangents(call, entries, out_dot)) if tangents else ()


def _native_tangents(call: Call, outputs: Sequence[Any], out_dot: Any) -> list[Any]:
    """One JAX tangent per output: zeros for a zero (``float0`` ones for an integer output), each in its
    output's shape and dtype; a ``NotImplementedTangent`` raises, naming the function."""
    out_dot = unthunk(out_dot)
    count = len(outputs)
    if isinstance(out_dot, AbstractZero):
        given: list[Any] = [ZeroTangent()] * count
    elif call.kind is None:
        given = [out_dot]
    else:
        given = [out_dot[i] for i in range(count)]
    result: list[Any] = []
    for i, (t, o) in enumerate(zip(given, outputs)):
        t = unthunk(t)
        if isinstance(t, NotImplementedTangent):
            where = "its output" if call.kind is None else f"output {i}"
            raise NotImplementedTangentError(f"{call.name}: the pushforward to {where} is not implemented: {t.info}")
        if not has_tangent_space(o):
            result.append(np.zeros(o.shape, dtype=jax.dtypes.float0))
        elif isinstance(t, AbstractZero):
            result.append(jnp.zeros(o.shape, o.dtype))
        else:
            result.append(_as_tangent_of(call, i, jnp.asarray(t), o))
    return result


def _as_tangent_of(call: Call, index: int, t: Any, output: Any) -> Any:
    """``t`` in ``output``'s dtype and shape: a real tangent of a complex output, or one of another precision,
    cast; a scalar broadcast. A complex tangent of a real output is refused."""
    if t.dtype != output.dtype:
        if jnp.iscomplexobj(t) and not jnp.iscomplexobj(output):
            raise TypeError(
                f"{call.name}: its frule gave a complex tangent ({t.dtype}) for its real output {index} "
                f"({output.dtype})"
            )
        t = t.astype(output.dtype)
    if t.shape != output.shape:
        t = jnp.broadcast_to(t, output.shape)
    return t
