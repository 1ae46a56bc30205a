"""PyTorch: functions and modules whose derivatives come from ``rrule`` and ``frule``.

``wrap(f)`` gives a function on tensors; ``module(obj)`` an ``nn.Module``
whose parameters are the float array fields of a callable object. Which
way a call is differentiated is its ``path`` attribute:

- ``"native"``: every rule of ``f`` is generic (``register(generic=True)``).
  The tensors reach ``rrule`` and ``frule`` as they are, on their device,
  and torch records the rules' own operations: higher derivatives come from
  torch itself, to any order (``create_graph=True``, ``torch.func.hessian``,
  ``gradgradcheck``), ``torch.func.vmap`` batches the rules' operations
  (no loop), and ``torch.compile`` traces the rules. Forward mode over
  forward mode raises (torch runs a Function's ``jvp`` with forward
  gradients off). A call whose rule refuses tensors (``np.einsum``, complex
  ``np.maximum``: a ``TypeError``) takes the host path.
- ``"host"``: ``f`` runs in numpy on the CPU (tensors cross without a
  copy), with ``Tensor.backward``, ``torch.autograd.grad``, forward-mode AD
  and the transforms of ``torch.func``; second derivatives come from the
  engines of ``chainrules.engines`` differentiating the rule's pullback and
  pushforward (third derivatives raise). Under ``torch.compile`` the call
  runs eagerly, with a graph break; under ``vmap`` the rules run once per
  batch entry.
- ``"derived"``: a function without rules, differentiated by the engines on
  the host path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch.autograd import forward_ad

from chainrules_core import construct, field_names, rrule
from chainrules_core.arrays import array_api_compat

from ._common import Call, has_tangent_space, path_of, unflatten_output, with_name_of, with_path
from ._second_order import jvp_of, pullback_function, pushforward_function, vjp_of

__all__ = ["RuleModule", "module", "wrap"]


def _compile_helpers() -> None:
    """What ``torch.compile`` calls once while tracing a rule and keeps as a constant: how a numpy function's
    arguments bind to its signature (read through ``inspect``, which Dynamo does not trace)."""
    from chainrules_core import array_api

    torch._dynamo.assume_constant_result(array_api._binding)
    torch._dynamo.assume_constant_result(array_api._binding.__wrapped__)


_compile_helpers()


def wrap(f: Any) -> Any:
    """A function on tensors that computes ``f`` and differentiates it through ``rrule`` and ``frule``.

    ``f`` is any function with registered rules (``np.linalg.solve``,
    ``np.sin``, a function or callable object of your own). Where every rule
    of ``f`` is generic (``path == "native"``) tensor arguments reach the
    rules as they are, on their device, and torch differentiates the rules'
    operations to any order; otherwise (``"host"``) they reach ``f`` as
    numpy arrays sharing their memory. Other arguments and keyword
    arguments pass through unchanged and get no gradient, as do integer and
    bool tensors. The output is a tensor, or a tuple of tensors
    for a function returning a tuple.

    >>> import torch
    >>> import chainrules  # registers the rules for numpy
    >>> from chainrules.interop.torch import wrap
    >>> solve = wrap(np.linalg.solve)
    >>> a = torch.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=torch.float64, requires_grad=True)
    >>> b = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    >>> solve(a, b).sum().backward()
    >>> b.grad
    tensor([0.4000, 0.2000], dtype=torch.float64)
    >>> torch.func.jvp(wrap(np.sin), (torch.zeros(2),), (torch.ones(2),))[1]
    tensor([1., 1.])
    """

    if path_of(f, native=True) == "native":
        array_api_compat()  # imported now, not inside a call that torch.compile traces

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            return _apply_native(f, args, kwargs)

    else:

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            return _apply(f, args, kwargs)

    return with_path(with_name_of(wrapped, f), f, native=True)


def module(obj: Any, fields: Sequence[str] | None = None) -> RuleModule:
    """An ``nn.Module`` that calls ``obj`` and learns its float array fields through the rule's ``Tangent``.

    ``fields`` names the fields that become parameters; by default every
    field holding a float or complex array or a Python float. The parameters
    start as copies of the fields; ``RuleModule.current()`` returns ``obj``
    rebuilt with their present values.

    >>> import torch
    >>> from chainrules_core import Tangent, rrule
    >>> from chainrules.interop.torch import module
    >>> class Scale:
    ...     def __init__(self, a):
    ...         self.a = a
    ...     def __call__(self, x):
    ...         return self.a * x
    >>> @rrule.register(Scale)
    ... def _rrule_scale(s, x):
    ...     def scale_pullback(out_bar):
    ...         return Tangent(Scale, a=np.sum(out_bar * x, axis=1, keepdims=True)), s.a * out_bar
    ...     return s(x), scale_pullback
    >>> layer = module(Scale(np.array([[1.0], [2.0]])), fields=["a"])
    >>> layer(torch.ones(2, 3, dtype=torch.float64)).sum().backward()
    >>> layer.a.grad
    tensor([[3.],
            [3.]], dtype=torch.float64)
    """
    if fields is None:
        fields = _learnable_fields(obj)
    return RuleModule(obj, fields)


class RuleModule(torch.nn.Module):
    """A callable object with rules as an ``nn.Module``: its learnable fields are the parameters."""

    def __init__(self, obj: Any, fields: Sequence[str]) -> None:
        super().__init__()
        self._obj = obj
        self._fields = tuple(fields)
        self.path = path_of(obj, native=True)
        """How the module is differentiated: ``"native"`` by the object's generic rules on the tensors themselves,
        ``"host"`` by its rules in numpy, ``"derived"`` by the engines."""
        if not self._fields:
            raise ValueError(f"module: {type(obj).__name__} has no fields to learn")
        for name in self._fields:
            value = getattr(obj, name)
            if not has_tangent_space(value):
                raise TypeError(f"module: field {name!r} of {type(obj).__name__} is not a float array or number")
            if hasattr(self, name):
                raise ValueError(f"module: field {name!r} of {type(obj).__name__} clashes with an nn.Module attribute")
            self.register_parameter(name, torch.nn.Parameter(torch.from_numpy(np.array(value))))

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        params = [getattr(self, name) for name in self._fields]
        if self.path == "native":
            return _apply_native(self._obj, args, kwargs, self._fields, params)
        return _apply(self._obj, args, kwargs, self._fields, params)

    def current(self) -> Any:
        """The object with its fields set to copies of the parameters' present values."""
        return construct(self._obj, {name: _numpy(getattr(self, name)).copy() for name in self._fields})

    def extra_repr(self) -> str:
        return f"{type(self._obj).__name__}, fields={list(self._fields)}"


def _learnable_fields(obj: Any) -> list[str]:
    names = field_names(type(obj)) or tuple(vars(obj))
    return [name for name in names if has_tangent_space(getattr(obj, name, None))]


# ----- crossing between tensors and numpy -----


def _is_tensor(x: Any) -> bool:
    return isinstance(x, torch.Tensor)


def _numpy(t: torch.Tensor) -> np.ndarray:
    """The tensor's values as a numpy array sharing its memory (conjugate and negative views resolved first)."""
    t = t.detach()
    if t.is_conj():
        t = t.resolve_conj()
    if t.is_neg():
        t = t.resolve_neg()
    return t.numpy()


def _tensor(a: Any, dtype: Any = None, avoid: Sequence[Any] = ()) -> torch.Tensor:
    """A tensor on ``a``'s memory; a copy when that memory is read-only, reversed, or shared with ``avoid``.

    A rule may return a view of an input or of the seed (``np.positive``, a
    broadcast cotangent); the tensor must own its values, as torch may later
    write into it.
    """
    a = np.asarray(a)
    if dtype is not None and a.dtype != dtype:
        a = a.astype(dtype)
    elif (
        not a.flags.writeable
        or any(s < 0 for s in a.strides)
        or any(isinstance(b, np.ndarray) and np.may_share_memory(a, b) for b in avoid)
    ):
        a = a.copy()
    return torch.from_numpy(a)


def _check_device(call: Call, t: torch.Tensor, label: str | int) -> None:
    """Refuse a tensor off the CPU; ``label`` names it, or is the operand's index (named only if refused)."""
    if t.device.type != "cpu":
        name = call.operand_label(label) if isinstance(label, int) else label
        raise ValueError(
            f"{call.name} got a tensor on {t.device} for {name}: its rules run in numpy on the CPU; "
            f"move the tensor there with .cpu()"
        )


def _apply(f: Any, args: Sequence[Any], kwargs: dict[str, Any], fields: Sequence[str] = (), params: Any = ()) -> Any:
    """``f`` through ``_Rule``: numpy on the host. Under ``torch.compile`` the call runs eagerly, with a graph break
    (``_apply_compiled``); outside the transforms of ``torch.func``, through ``_RuleEager``."""
    if torch.compiler.is_compiling():
        return _apply_compiled(f, args, kwargs, fields, params)
    if not kwargs and not fields and not params and len(args) == 1 and type(args[0]) is torch.Tensor:  # f(x)
        call, operands = Call(f, [None], {}, [(0, None)], [], ()), [args[0]]
    else:
        call, operands = Call.split(f, args, kwargs, _is_tensor, fields, keyword_operands=False)
        operands = [*params, *operands]
    for index, t in enumerate(operands):
        _check_device(call, t, index)
    for key, value in kwargs.items():
        if isinstance(value, torch.Tensor):  # keyword arguments get no gradient: they cross as constants
            _check_device(call, value, f"keyword argument {key!r}")
            call.kwargs[key] = _numpy(value)
    if torch._C._are_functorch_transforms_active():
        *outputs, _, _ = _Rule.apply(call, *operands)
    else:
        outputs = _RuleEager.apply(call, *operands)
    return unflatten_output(list(outputs), call.kind)


@torch.compiler.disable  # numpy code: torch.compile runs the call eagerly, with a graph break
def _apply_compiled(
    f: Any, args: Sequence[Any], kwargs: dict[str, Any], fields: Sequence[str] = (), params: Any = ()
) -> Any:
    return _apply(f, args, kwargs, fields, params)


# ----- the autograd.Functions -----


class _Entry:
    """One evaluation of a rule: the numpy inputs, the pullback, and the outputs' shapes and dtypes."""

    __slots__ = ("outputs", "pullback", "values")

    def __init__(self, values: list[Any], pullback: Any, outputs: list[np.ndarray]) -> None:
        self.values = values
        self.pullback = pullback
        self.outputs = [(o.shape, o.dtype) for o in outputs]


def _select(values: Sequence[Any], dims: Sequence[Any], i: int) -> list[Any]:
    """Entry ``i`` of a batch: each tensor indexed along its batch dimension, the rest as they are."""
    return [v if d is None or v is None else v.select(d, i) for v, d in zip(values, dims)]


def _stack(rows: Sequence[Sequence[Any]]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """Per-entry results stacked along a new first dimension, with their ``out_dims`` (``None`` stays ``None``)."""
    columns = tuple(None if col[0] is None else torch.stack(list(col)) for col in zip(*rows))
    return columns, tuple(None if c is None else 0 for c in columns)


def _third_order(call: Call) -> NotImplementedError:
    return NotImplementedError(
        f"{call.name}: third derivatives through chainrules.interop.torch are not available (second derivatives "
        f"come from the engines differentiating its pullback or pushforward once)"
    )


class _Rule(torch.autograd.Function):
    """``f`` itself: the forward pass runs ``rrule`` and keeps the pullback.

    ``forward`` has no ``ctx`` (so that ``torch.func`` accepts the function);
    it returns the evaluation as a list of ``_Entry`` and an index tensor
    selecting the entry, which ``setup_context`` keeps. Under ``vmap`` the
    list holds one entry per batch entry and the index is batched, so the
    pullback and pushforward, run under the same ``vmap``, find their own.
    """

    @staticmethod
    def forward(call: Call, *operands: torch.Tensor) -> Any:
        values = [_numpy(t) for t in operands]
        out, pullback = call.rrule(values)
        outputs = call.record(out)
        tensors = [_tensor(o, avoid=values) for o in outputs]
        return (*tensors, [_Entry(values, pullback, outputs)], torch.zeros((), dtype=torch.int64))

    @staticmethod
    def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
        call, *operands = inputs
        *tensors, entries, index = output
        ctx.call, ctx.entries = call, entries
        ctx.mark_non_differentiable(index, *(t for t in tensors if not (t.is_floating_point() or t.is_complex())))
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(index, *operands)
        ctx.save_for_forward(index, *operands)

    @staticmethod
    def backward(ctx: Any, *seeds: Any) -> Any:
        index, *operands = ctx.saved_tensors
        wanted = ctx.needs_input_grad[1:]
        return (None, *_Pullback.apply(ctx.call, ctx.entries, wanted, index, *operands, *seeds[:-2]))

    @staticmethod
    def jvp(ctx: Any, _: Any, *dots: Any) -> Any:
        index, *operands = ctx.saved_tensors
        return (*_Pushforward.apply(ctx.call, ctx.entries, index, *operands, *dots), None, None)

    @staticmethod
    def vmap(info: Any, in_dims: Any, call: Call, *operands: Any) -> Any:
        rows, entries, indices = [], [], []
        for i in range(info.batch_size):
            *tensors, entry, index = _Rule.apply(call, *_select(operands, in_dims[1:], i))
            rows.append(tensors)
            indices.append(index + len(entries))
            entries.extend(entry)
        tensors, dims = _stack(rows)
        return (*tensors, entries, torch.stack(indices)), (*dims, None, 0)


def _keep_eager(ctx: Any, outputs: Sequence[torch.Tensor], operands: Sequence[torch.Tensor]) -> None:
    """What an eager Function's ``forward`` tells ``ctx``: its integer outputs have no gradient, a missing seed stays
    ``None``, and the operands are saved for ``backward`` (and for ``jvp`` when a dual level is open)."""
    integers = [t for t in outputs if not (t.is_floating_point() or t.is_complex())]
    if integers:
        ctx.mark_non_differentiable(*integers)
    ctx.set_materialize_grads(False)
    ctx.save_for_backward(*operands)
    if getattr(forward_ad, "_current_level", 0) >= 0:  # a dual level is open: jvp may be asked
        ctx.save_for_forward(*operands)


class _RuleEager(torch.autograd.Function):
    """``_Rule`` for a call outside the transforms of ``torch.func``, in the older form (``forward`` takes ``ctx``,
    which spares torch's ``inspect.signature`` of each call): the evaluation stays on ``ctx``, and a backward pass
    that records no graph calls the pullback itself; one that does (``create_graph=True``) goes through
    ``_Pullback``, whose engines give the second derivative."""

    @staticmethod
    def forward(ctx: Any, call: Call, *operands: torch.Tensor) -> Any:
        values = [_numpy(t) for t in operands]
        out, pullback = call.rrule(values)
        outputs = call.record(out)
        tensors = tuple(_tensor(o, avoid=values) for o in outputs)
        ctx.call, ctx.entries = call, [_Entry(values, pullback, outputs)]
        _keep_eager(ctx, tensors, operands)
        return tensors

    @staticmethod
    def backward(ctx: Any, *seeds: Any) -> Any:
        operands = ctx.saved_tensors
        wanted = ctx.needs_input_grad[1:]
        call, (entry,) = ctx.call, ctx.entries
        if torch.is_grad_enabled():  # a graph is wanted: the pullback as a function torch differentiates
            index = torch.zeros((), dtype=torch.int64)
            return (None, *_Pullback.apply(call, ctx.entries, wanted, index, *operands, *seeds))
        arrays = [None if s is None else _numpy(s) for s in seeds]
        seed = arrays[0]
        if (
            call.plain
            and call.kind is None
            and entry.pullback is not None
            and seed is not None
            and seed.dtype.kind == "f"
            and wanted[0]
        ):
            # f(x) with a real seed, the common call: an array cotangent of x's shape and dtype passes as it is
            (x,) = entry.values
            ct = entry.pullback(seed)[1]
            if type(ct) is np.ndarray and ct.shape == x.shape and ct.dtype == x.dtype:
                return None, _tensor(ct, avoid=[seed, x])
            entry = _Entry(entry.values, lambda _: (None, ct), [])  # anything else: the general way, as given
        cotangents = call.pullback(entry.pullback, entry.values, arrays, wanted)
        avoid = [*arrays, *entry.values]
        return (None, *(None if c is None else _tensor(c, v.dtype, avoid) for c, v in zip(cotangents, entry.values)))

    @staticmethod
    def jvp(ctx: Any, _: Any, *dots: Any) -> Any:
        index = torch.zeros((), dtype=torch.int64)
        return _Pushforward.apply(ctx.call, ctx.entries, index, *ctx.saved_tensors, *dots)


class _Derivative(torch.autograd.Function):
    """A pullback or pushforward of one ``_Rule`` evaluation, as a function of its own.

    ``vmap`` (``jacrev``, ``jacfwd``) can then loop over it. Its inputs after
    the ``HEAD`` non-tensor ones are the arrays of a numpy function
    (``function``: the operands, then the seeds or the tangents), which the
    engines differentiate when torch differentiates this again:
    ``backward`` is that function's vector-Jacobian product (``_Vjp``),
    ``jvp`` its Jacobian-vector product (``_Jvp``).
    """

    HEAD = 0

    @staticmethod
    def function(inputs: Any) -> Any:
        raise NotImplementedError

    @classmethod
    def setup_context(cls, ctx: Any, inputs: Any, output: Any) -> None:
        ctx.call, ctx.g = inputs[0], cls.function(inputs)
        arrays = inputs[cls.HEAD :]
        ctx.n = len(arrays)
        ctx.save_for_backward(*arrays)
        ctx.save_for_forward(*arrays)

    @classmethod
    def backward(cls, ctx: Any, *seeds: Any) -> Any:
        return (None,) * cls.HEAD + _Vjp.apply(ctx.call, ctx.g, ctx.n, *ctx.saved_tensors, *seeds)

    @classmethod
    def jvp(cls, ctx: Any, *dots: Any) -> Any:
        return _Jvp.apply(ctx.call, ctx.g, ctx.n, *ctx.saved_tensors, *dots[cls.HEAD :])


class _Pullback(_Derivative):
    """The pullback: seeds in, one gradient per operand out."""

    HEAD = 4  # call, entries, wanted, index

    @staticmethod
    def forward(call: Call, entries: list[_Entry], wanted: Sequence[bool], index: Any, *rest: Any) -> Any:
        entry = entries[int(index)]
        seeds = [None if s is None else _numpy(s) for s in rest[call.n_operands :]]
        cotangents = call.pullback(entry.pullback, entry.values, seeds, wanted)
        avoid = [*seeds, *entry.values]
        return tuple(None if c is None else _tensor(c, v.dtype, avoid) for c, v in zip(cotangents, entry.values))

    @staticmethod
    def function(inputs: Any) -> Any:
        return pullback_function(inputs[0], inputs[2])

    @staticmethod
    def vmap(info: Any, in_dims: Any, call: Call, entries: Any, wanted: Any, *rest: Any) -> Any:
        rows = [_Pullback.apply(call, entries, wanted, *_select(rest, in_dims[3:], i)) for i in range(info.batch_size)]
        return _stack(rows)


class _Pushforward(_Derivative):
    """The pushforward through ``frule``: operand tangents in, output tangents out."""

    HEAD = 3  # call, entries, index

    @staticmethod
    def forward(call: Call, entries: list[_Entry], index: Any, *rest: Any) -> Any:
        entry = entries[int(index)]
        dots = [None if d is None else _numpy(d) for d in rest[call.n_operands :]]
        tangents = call.pushforward(entry.values, dots) or [None] * len(entry.outputs)
        return tuple(
            None
            if dtype.kind not in "fc"
            else torch.zeros(shape, dtype=_torch_dtype(dtype))
            if t is None
            else _tensor(t, dtype, dots)
            for t, (shape, dtype) in zip(tangents, entry.outputs)
        )

    @staticmethod
    def function(inputs: Any) -> Any:
        return pushforward_function(inputs[0])

    @staticmethod
    def vmap(info: Any, in_dims: Any, call: Call, entries: Any, *rest: Any) -> Any:
        rows = [_Pushforward.apply(call, entries, *_select(rest, in_dims[2:], i)) for i in range(info.batch_size)]
        return _stack(rows)


class _Again(torch.autograd.Function):
    """A derivative of a ``_Derivative``'s numpy function ``g`` of ``n`` arrays, from the engines; differentiating
    it once more raises."""

    @staticmethod
    def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
        ctx.call = inputs[0]

    @staticmethod
    def backward(ctx: Any, *_: Any) -> Any:
        raise _third_order(ctx.call)

    @staticmethod
    def jvp(ctx: Any, *_: Any) -> Any:
        raise _third_order(ctx.call)

    @classmethod
    def vmap(cls, info: Any, in_dims: Any, call: Call, g: Any, n: int, *rest: Any) -> Any:
        return _stack([cls.apply(call, g, n, *_select(rest, in_dims[3:], i)) for i in range(info.batch_size)])


class _Vjp(_Again):
    """``g``'s vector-Jacobian product: its ``n`` inputs, then one seed per output, in; one gradient per input out."""

    @staticmethod
    def forward(call: Call, g: Any, n: int, *rest: Any) -> Any:
        xs = [None if t is None else _numpy(t) for t in rest[:n]]
        seeds = [None if t is None else _numpy(t) for t in rest[n:]]
        bars = vjp_of(call, g, xs, seeds)
        return tuple(None if b is None else _tensor(b, x.dtype, [*xs, *seeds]) for b, x in zip(bars, xs))


class _Jvp(_Again):
    """``g``'s Jacobian-vector product: its ``n`` inputs, then one tangent per input, in; one per output out."""

    @staticmethod
    def forward(call: Call, g: Any, n: int, *rest: Any) -> Any:
        xs = [None if t is None else _numpy(t) for t in rest[:n]]
        dots = [None if t is None else _numpy(t) for t in rest[n:]]
        tangents = jvp_of(call, g, xs, dots)
        return tuple(None if t is None else _tensor(t, avoid=[*xs, *dots]) for t in tangents)


def _torch_dtype(dtype: np.dtype) -> torch.dtype:
    return torch.from_numpy(np.empty(0, dtype=dtype)).dtype


# ----- the native path: generic rules on the tensors themselves -----


class _Cache:
    """The pullback of a ``_Native`` forward pass, kept for a backward pass that records no graph."""

    __slots__ = ("pullback",)

    def __init__(self) -> None:
        self.pullback: Any = None


def _apply_native(
    f: Any, args: Sequence[Any], kwargs: dict[str, Any], fields: Sequence[str] = (), params: Any = ()
) -> Any:
    """``f`` on the tensors themselves through ``_Native``; a call whose rule refuses torch's tensors (a
    ``TypeError``: ``np.einsum``, complex ``np.maximum``) takes the host path instead."""
    if not kwargs and not fields and len(args) == 1 and type(args[0]) is torch.Tensor:  # f(x), the common call
        call, operands = Call(f, [None], {}, [(0, None)], [], ()), [args[0]]
    else:
        call, operands = Call.split(f, args, kwargs, _is_tensor, fields, keyword_operands=False)
    for key, value in kwargs.items():
        if isinstance(value, torch.Tensor):  # keyword arguments get no gradient: they enter as constants
            call.kwargs[key] = value.detach()
    try:
        if torch.compiler.is_compiling():  # no jvp, and no pullback kept from the traced forward pass
            outputs = _NativeReverse.apply(call, None, *params, *operands)
        elif torch._C._are_functorch_transforms_active():
            outputs = _Native.apply(call, _Cache(), *params, *operands)
        else:  # the same without setup_context, whose apply costs an inspect.signature per call
            outputs = _NativeEager.apply(call, *params, *operands)
    except TypeError:
        if torch.compiler.is_compiling():
            raise
        return _apply(f, args, kwargs, fields, params)
    return unflatten_output(list(outputs), call.kind)


def _native_rrule(call: Call, operands: Sequence[Any]) -> tuple[Any, Any]:
    f, args, kwargs = call.bind(operands)
    result = rrule(f, *args, **kwargs)
    if result is None:
        raise call.no_rule("rrule", operands)
    return result  # type: ignore[no-any-return]


def _as_tensor(value: Any, like: torch.Tensor) -> torch.Tensor:
    """A rule's output as a tensor on ``like``'s device (a generic rule may return a Python or numpy number)."""
    if isinstance(value, torch.Tensor):
        return value
    return torch.as_tensor(np.asarray(value), device=like.device)


def _fitted(ct: Any, x: torch.Tensor) -> Any:
    """A cotangent or tangent as a tensor of ``x``'s dtype and device."""
    if ct is None:
        return None
    ct = _as_tensor(ct, x)
    if ct.dtype != x.dtype:
        if ct.is_complex() and not x.is_complex():
            ct = ct.real
        ct = ct.to(x.dtype)
    return ct


def _forward_over_forward() -> bool:
    """Whether a ``jvp`` runs under two forward-mode transforms of ``torch.func`` (``jvp`` of ``jvp``)."""
    stack = torch._C._functorch.get_interpreter_stack() or ()
    jvp = torch._C._functorch.TransformType.Jvp
    return sum(1 for interpreter in stack if interpreter.key() == jvp) > 1


class _NativeReverse(torch.autograd.Function):
    """``f`` through its generic rules, run on the tensors as they are, so that torch sees the rules' operations.

    ``forward`` runs ``rrule`` (without recording, as torch runs every
    forward) and keeps the pullback in the ``_Cache``. ``backward`` calls it
    when no graph is wanted; when one is (``create_graph=True``,
    ``torch.func.grad``, ``hessian``), it runs ``rrule`` again on the saved
    inputs, so that torch records the primal's and the pullback's operations
    from the inputs and differentiates them itself, to any order. ``jvp``
    runs ``frule`` on the saved inputs likewise. ``vmap`` runs the rules on
    batched tensors (``generate_vmap_rule``): the rules' torch operations
    batch, with no loop.
    """

    generate_vmap_rule = True

    @staticmethod
    def forward(call: Call, cache: _Cache | None, *operands: torch.Tensor) -> Any:
        out, pullback = _native_rrule(call, operands)
        if cache is not None:
            cache.pullback = pullback
        return _native_outputs(call, out, operands)

    @staticmethod
    def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
        call, cache, *operands = inputs
        ctx.call, ctx.cache = call, cache
        ctx.outputs = [(t.shape, t.dtype, t.device) for t in output]
        ctx.mark_non_differentiable(*(t for t in output if not (t.is_floating_point() or t.is_complex())))
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(*operands)
        ctx.save_for_forward(*operands)

    @staticmethod
    def backward(ctx: Any, *seeds: Any) -> Any:
        operands = ctx.saved_tensors
        pullback = None if ctx.cache is None else ctx.cache.pullback
        if pullback is None or torch.is_grad_enabled():  # a graph is wanted: record the rule from the inputs
            _, pullback = _native_rrule(ctx.call, operands)
        wanted = ctx.needs_input_grad[2:]
        cotangents = ctx.call.pullback(pullback, operands, seeds, wanted)
        return (None, None, *(_fitted(c, x) for c, x in zip(cotangents, operands)))


class _Native(_NativeReverse):
    """``_NativeReverse`` with forward mode (``jvp``): what runs eagerly. Under ``torch.compile`` the wrapped call
    uses ``_NativeReverse``, which Dynamo traces without a graph break (it refuses a Function with a ``jvp``)."""

    @staticmethod
    def jvp(ctx: Any, _call: Any, _cache: Any, *dots: Any) -> Any:
        return _native_jvp(ctx, dots)


def _native_jvp(ctx: Any, dots: Sequence[Any]) -> tuple[Any, ...]:
    """The output tangents of a native Function's saved call: ``frule`` on the saved inputs, traced by torch."""
    if _forward_over_forward():
        raise NotImplementedError(
            f"{ctx.call.name}: forward mode over forward mode (torch.func.jvp of jvp, jacfwd of jacfwd) is not "
            f"available: torch runs an autograd.Function's jvp with forward gradients off, so the outer "
            f"tangent would be a silent zero; use jacfwd(jacrev(...)) or torch.func.hessian"
        )
    operands = ctx.saved_tensors
    tangents = ctx.call.pushforward(operands, dots) or [None] * len(ctx.outputs)
    return tuple(
        torch.zeros(shape, dtype=dtype, device=device) if t is None else _as_tensor(t, operands[0]).to(dtype)
        for t, (shape, dtype, device) in zip(tangents, ctx.outputs)
    )


def _native_outputs(call: Call, out: Any, operands: Sequence[torch.Tensor]) -> tuple[torch.Tensor, ...]:
    """A rule's output as a tuple of tensors (``call`` records its container); an input returned as it is
    (``np.positive``) leaves as a view, as torch saves the inputs."""
    if type(out) is torch.Tensor:  # one output, the common case
        call.kind, call.n_outputs = None, 1
        return (out.view_as(out) if any(out is x for x in operands) else out,)
    like = operands[0] if operands else torch.empty(())
    outputs, call.kind = (list(out), type(out)) if isinstance(out, (tuple, list)) else ([out], None)
    call.n_outputs = len(outputs)
    tensors = [_as_tensor(o, like) for o in outputs]
    return tuple(t.view_as(t) if any(t is x for x in operands) else t for t in tensors)


class _NativeEager(torch.autograd.Function):
    """``_Native`` in the older form (``forward`` takes ``ctx``), for a call outside the transforms of
    ``torch.func``: torch's ``apply`` of a Function with ``setup_context`` binds its arguments through
    ``inspect.signature`` at every call."""

    @staticmethod
    def forward(ctx: Any, call: Call, *operands: torch.Tensor) -> Any:
        out, ctx.pullback = _native_rrule(call, operands)
        output = _native_outputs(call, out, operands)
        ctx.call = call
        ctx.outputs = [(t.shape, t.dtype, t.device) for t in output]
        _keep_eager(ctx, output, operands)
        return output

    @staticmethod
    def backward(ctx: Any, *seeds: Any) -> Any:
        operands = ctx.saved_tensors
        pullback = ctx.pullback
        if torch.is_grad_enabled():  # a graph is wanted: record the rule from the inputs
            _, pullback = _native_rrule(ctx.call, operands)
        call = ctx.call
        if call.kind is None and not call.fields and len(operands) == 1 == len(call.arg_slots):
            return (None, _one_cotangent(call, pullback, operands[0], seeds[0], ctx.needs_input_grad[1]))
        cotangents = call.pullback(pullback, operands, seeds, ctx.needs_input_grad[1:])
        return (None, *(_fitted(c, x) for c, x in zip(cotangents, operands)))

    @staticmethod
    def jvp(ctx: Any, _call: Any, *dots: Any) -> Any:
        return _native_jvp(ctx, dots)


def _one_cotangent(call: Call, pullback: Any, x: torch.Tensor, seed: Any, wanted: bool) -> Any:
    """``Call.pullback`` for the common call: one output, one positional operand (a seed of the output's dtype and
    a tensor cotangent of the operand's dtype and shape pass as they are)."""
    if seed is None or not wanted or not (seed.is_floating_point() or seed.is_complex()):
        return None
    ct = pullback(seed)[1]
    if type(ct) is not torch.Tensor:  # a thunk, a zero, a not-implemented tangent, a number: the general way
        return _fitted(call.pullback(lambda _: (None, ct), [x], [seed], [True])[0], x)
    if ct.shape != x.shape:
        raise ValueError(
            f"{call.name}: the pullback returned a cotangent of shape {tuple(ct.shape)} for "
            f"{call.operand_label(0)} of shape {tuple(x.shape)}"
        )
    return ct if ct.dtype == x.dtype else _fitted(ct, x)
