"""What the adapters share: calling the rules of a wrapped function on numpy values, and reading what they return.

A framework hands its arrays over as numpy arrays; the rest of a call (Python
scalars, axes, keyword arguments) passes through untouched. ``Call`` remembers
which arguments were the framework's arrays (the operands), including the
entries of a list or tuple argument such as ``multi_dot``'s, and rebuilds the
call from their numpy values. Everything here speaks numpy; the framework
modules convert at the boundary.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from chainrules_core import (
    AbstractZero,
    NoTangent,
    NotImplementedTangent,
    NotImplementedTangentError,
    Tangent,
    ZeroTangent,
    backing,
    construct,
    frule,
    function_name,
    is_followed,
    is_namedtuple,
    rrule,
    unthunk,
)
from chainrules_core.arrays import is_foreign_array

# ----- names, for messages -----


def argument_label(f: Any, position: int) -> str:
    """``argument 2 (b)``: argument ``position`` (from 1) of ``f``, named where ``f`` has a signature."""
    label = f"argument {position}"
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        return label
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return f"{label} ({positional[position - 1].name})" if position <= len(positional) else label


def with_name_of(wrapped: Callable[..., Any], f: Any) -> Callable[..., Any]:
    """``wrapped`` with ``f``'s name and docstring (``functools.update_wrapper``), where ``f`` has them."""
    try:
        functools.update_wrapper(wrapped, f)
    except AttributeError:  # a callable object without __name__
        pass
    return wrapped


def type_names(values: Sequence[Any]) -> str:
    """``ndarray[float64, (3,)], int``: the types of a call's arguments, for a message."""
    return ", ".join(
        f"ndarray[{v.dtype}, {v.shape}]" if isinstance(v, np.ndarray) else type(v).__name__ for v in values
    )


# ----- values -----


def has_tangent_space(x: Any) -> bool:
    """Whether ``x`` is a float or complex number or array (integers, bools and the rest have no tangent space)."""
    if isinstance(x, (float, complex)) and not isinstance(x, bool):
        return True
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        return False
    if hasattr(dtype, "is_floating_point"):  # torch's dtype (torch.float64): its own flags say
        return bool(dtype.is_floating_point or dtype.is_complex)
    return np.dtype(dtype).kind in "fc"


def conjugated(a: Any, conjugate: bool) -> Any:
    """``conj(a)`` when ``conjugate`` and ``a`` is complex: JAX and autograd's cotangents are the conjugates of ours."""
    return np.conjugate(a) if conjugate and np.iscomplexobj(a) else a


# ----- outputs: one array or a flat tuple, namedtuple or list of them -----

Kind = type | None  # None for a single output, else the container type


def flatten_output(out: Any) -> tuple[list[Any], Kind]:
    """The output's entries as numpy arrays, and the container they came in (``None`` for a single array)."""
    if isinstance(out, (tuple, list)):
        return [np.asarray(o) for o in out], type(out)
    return [np.asarray(out)], None


def unflatten_output(entries: Sequence[Any], kind: Kind) -> Any:
    """The framework's output in the container the function returned (a namedtuple stays one)."""
    if kind is None:
        return entries[0]
    if is_namedtuple(kind):
        return kind(*entries)
    return kind(entries)


def seed_of(kind: Kind, seeds: Sequence[Any]) -> Any:
    """The cotangent a pullback expects for these per-entry seeds (``None`` entries are zeros).

    ``None`` when every seed is zero: the pullback is then skipped (the zero-seed contract).
    """
    if all(s is None for s in seeds):
        return None
    entries = [ZeroTangent() if s is None else s for s in seeds]
    if kind is None:
        return entries[0]
    if is_namedtuple(kind):
        return Tangent(kind, **dict(zip(kind._fields, entries)))  # type: ignore[attr-defined]
    return Tangent(tuple if issubclass(kind, tuple) else list, *entries)


def tangent_entries(f: Any, kind: Kind, count: int, out_dot: Any) -> list[Any]:
    """The pushforward's output tangent as one numpy array (or ``None`` for a zero) per output entry."""
    out_dot = unthunk(out_dot)
    if isinstance(out_dot, AbstractZero):
        return [None] * count
    entries = [out_dot] if kind is None else [out_dot[i] for i in range(count)]
    result = []
    for i, t in enumerate(entries):
        t = unthunk(t)
        if isinstance(t, NotImplementedTangent):
            where = "its output" if kind is None else f"output {i}"
            raise NotImplementedTangentError(
                f"{function_name(f)}: the pushforward to {where} is not implemented: {t.info}"
            )
        result.append(None if isinstance(t, AbstractZero) else _as_array(t))
    return result


def _as_array(t: Any) -> Any:
    """``t`` as a numpy array; a value an engine follows (its class names its ``__chainrules_primal__``) as it is,
    so that an engine differentiating the pushforward keeps following it, and another library's array too (the
    native path)."""
    return t if is_followed(t) or is_foreign_array(t) else np.asarray(t)


def static_tangent(x: Any) -> Any:
    """The tangent of an argument held fixed: ``ZeroTangent()`` where it has a tangent space, else ``NoTangent()``."""
    return ZeroTangent() if has_tangent_space(x) else NoTangent()


def sequence_entry(t: Any, index: int) -> Any:
    """Entry ``index`` of the cotangent of a list or tuple argument (a zero or a not-implemented tangent: itself)."""
    t = unthunk(t)
    if isinstance(t, (AbstractZero, NotImplementedTangent)):
        return t
    entries = backing(t) if isinstance(t, Tangent) else t
    if isinstance(entries, dict) or not isinstance(entries, (tuple, list)):
        raise TypeError(f"a cotangent of {type(t).__name__} for a list or tuple argument")
    return entries[index]


def sequence_tangent(kind: type, entries: Sequence[Any]) -> Any:
    """The tangent of a list or tuple argument from its entries' tangents: one zero where every entry's is."""
    if all(isinstance(e, AbstractZero) for e in entries):
        return ZeroTangent() if any(isinstance(e, ZeroTangent) for e in entries) else NoTangent()
    return Tangent(kind, *entries)


Slot = tuple[int, int | None]  # (position, entry of a list or tuple argument, or None for the argument itself)


# ----- a call of a wrapped function -----


PATHS = ("native", "host", "derived")
"""How a wrapped function is differentiated, as its ``path`` attribute says: ``"native"``, by its registered rules,
every one generic, run on the framework's own arrays (the framework records their operations); ``"host"``, by its
registered rules run in numpy; ``"derived"``, by rules the reference engines derive from its body (it has none of
its own)."""


def path_of(f: Any, native: bool = False) -> str:
    """``"host"`` for a function (or callable object) with registered rules, ``"derived"`` for one without; with
    ``native`` (an adapter that hands its own arrays to generic rules), ``"native"`` where ``f`` has an rrule and
    every registration of its rrules and frules is generic (``RuleRecord.generic``)."""
    if not (rrule.has_rules(f) or frule.has_rules(f)):
        return "derived"
    return "native" if native and all_generic(f) else "host"


def all_generic(f: Any) -> bool:
    """Whether ``f`` has an rrule and every rrule and frule registered for it is generic (opt-outs aside)."""
    reverse = [r for r in rrule.records_for(f) if not r.opt_out]
    forward = [r for r in frule.records_for(f) if not r.opt_out]
    return bool(reverse) and all(r.generic for r in (*reverse, *forward))


def with_path(wrapped: Any, f: Any, native: bool = False) -> Any:
    """``wrapped`` with its ``path`` attribute: how the adapter differentiates ``f`` (``PATHS``, ``path_of``)."""
    wrapped.path = path_of(f, native)
    return wrapped


class Call:
    """A wrapped function applied to one set of arguments, split into operands and the fixed rest.

    The operands are, in order: the fields of ``f`` that learn (``fields``,
    for a callable object), the positional arguments ``is_operand`` accepts,
    then the keyword arguments it accepts. Positional operands get cotangents;
    keyword arguments never do (they may still be operands so that a framework
    can trace them). ``kind`` records the output's container once the
    function has run.
    """

    __slots__ = ("arg_slots", "args", "f", "fields", "kind", "kwarg_slots", "kwargs", "n_outputs", "plain")

    def __init__(
        self,
        f: Any,
        args: list[Any],
        kwargs: dict[str, Any],
        arg_slots: list[Slot],
        kwarg_slots: list[str],
        fields: Sequence[str],
    ) -> None:
        self.f = f
        self.fields = tuple(fields)
        self.args = args
        self.kwargs = kwargs
        self.arg_slots = arg_slots
        self.kwarg_slots = kwarg_slots
        self.kind: Kind = None
        self.n_outputs = 0
        self.plain = not fields and not kwargs and len(args) == 1 and arg_slots == [(0, None)]
        """Whether the call is ``f(x)`` of one operand, the common call, which ``bind`` answers at once."""

    @classmethod
    def split(
        cls,
        f: Any,
        args: Sequence[Any],
        kwargs: dict[str, Any],
        is_operand: Callable[[Any], bool],
        fields: Sequence[str] = (),
        keyword_operands: bool = True,
        spread: Callable[[Any], bool] | None = None,
    ) -> tuple[Call, list[Any]]:
        """The call, and its positional then keyword operands (the fields' values come from the caller).

        A positional argument is an operand where ``is_operand`` accepts it;
        a list or tuple argument (``spread`` says which, by default those
        holding an operand) contributes its entries that ``is_operand``
        accepts. The call keeps everything but the operands, whose places
        ``bind`` fills. With ``keyword_operands=False`` keyword arguments stay
        in the call.
        """
        if spread is None:
            spread = functools.partial(_holds_operand, is_operand)
        args, kwargs = list(args), dict(kwargs)
        arg_slots: list[Slot] = []
        operands: list[Any] = []
        for i, a in enumerate(args):
            if spread(a):
                entries = [a[j] for j in range(len(a))]
                kind = tuple if isinstance(getattr(a, "_value", a), tuple) else list
                picked = [j for j, e in enumerate(entries) if is_operand(e)]
                operands += [entries[j] for j in picked]
                arg_slots += [(i, j) for j in picked]
                args[i] = _Sequence(kind, [None if j in picked else e for j, e in enumerate(entries)])
            elif is_operand(a):
                operands.append(a)
                arg_slots.append((i, None))
                args[i] = None
        kwarg_slots = [k for k, v in kwargs.items() if is_operand(v)] if keyword_operands else []
        operands += [kwargs[k] for k in kwarg_slots]
        for k in kwarg_slots:
            kwargs[k] = None
        return cls(f, args, kwargs, arg_slots, kwarg_slots, fields), operands

    @property
    def n_operands(self) -> int:
        return len(self.fields) + len(self.arg_slots) + len(self.kwarg_slots)

    def operand_label(self, index: int) -> str:
        """How a message names operand ``index``: a field, a positional argument or a keyword."""
        n_fields, n_args = len(self.fields), len(self.arg_slots)
        if index < n_fields:
            return f"field {self.fields[index]!r}"
        if index < n_fields + n_args:
            position, entry = self.arg_slots[index - n_fields]
            label = argument_label(self.f, position + 1)
            return label if entry is None else f"entry {entry} of {label}"
        return f"keyword argument {self.kwarg_slots[index - n_fields - n_args]!r}"

    @property
    def name(self) -> str:
        return function_name(self.f)

    def bind(self, values: Sequence[Any]) -> tuple[Any, list[Any], dict[str, Any]]:
        """``(f, args, kwargs)`` with the operands replaced by ``values`` (numpy arrays, in operand order)."""
        if self.plain:
            return self.f, [values[0]], {}
        n_fields, n_args = len(self.fields), len(self.arg_slots)
        f = construct(self.f, dict(zip(self.fields, values[:n_fields]))) if n_fields else self.f
        args = [a.entries[:] if isinstance(a, _Sequence) else a for a in self.args]
        for (i, j), v in zip(self.arg_slots, values[n_fields : n_fields + n_args]):
            if j is None:
                args[i] = v
            else:
                args[i][j] = v
        args = [a.kind(args[i]) if isinstance(a, _Sequence) else args[i] for i, a in enumerate(self.args)]
        kwargs = dict(self.kwargs)
        for k, v in zip(self.kwarg_slots, values[n_fields + n_args :]):
            kwargs[k] = v
        return f, args, kwargs

    def record(self, out: Any) -> list[Any]:
        """The output's entries as arrays; remembers its container."""
        entries, self.kind = flatten_output(out)
        self.n_outputs = len(entries)
        return entries

    def primal(self, values: Sequence[Any]) -> list[Any]:
        f, args, kwargs = self.bind(values)
        return self.record(f(*args, **kwargs))

    def rrule(self, values: Sequence[Any]) -> tuple[Any, Callable[[Any], Any] | None]:
        """The output and the pullback: ``f``'s rrule, or, for a function without any rule, the one the reverse
        engine derives from its body (``derived_rrule``); ``None`` for the pullback when ``f`` has an frule but
        no rrule here.

        Without an rrule the primal still runs, so forward mode works for a
        function with only an frule; asking for its pullback raises.
        """
        f, args, kwargs = self.bind(values)
        result = rrule(f, *args, **kwargs)
        if result is None and path_of(self.f) == "derived":
            from chainrules.engines import derived_rrule

            return derived_rrule(f)(f, *args, **kwargs)  # type: ignore[no-any-return]
        return (f(*args, **kwargs), None) if result is None else result

    def no_rule(self, which: str, values: Sequence[Any]) -> LookupError:
        _, args, _ = self.bind(values)
        return LookupError(f"{self.name} has no {which} for arguments ({type_names(args)})")

    def pullback(
        self,
        pullback: Callable[[Any], Any] | None,
        values: Sequence[Any],
        seeds: Sequence[Any],
        wanted: Sequence[bool],
        conjugate: bool = False,
    ) -> list[Any]:
        """One cotangent per operand: a numpy array, or ``None`` for a zero or an operand without a tangent.

        ``seeds`` holds one numpy array (or ``None`` for a zero) per output
        entry; the seed of an integer output is dropped. Thunks are forced once; a ``NotImplementedTangent`` for an
        operand in ``wanted`` raises, naming the function and the argument.
        """
        empty: list[Any] = [None] * self.n_operands
        seed = seed_of(self.kind, [conjugated(s, conjugate) if has_tangent_space(s) else None for s in seeds])
        if seed is None or not any(wanted):
            return empty
        if pullback is None:
            raise self.no_rule("rrule", values)
        cotangents = pullback(seed)
        n_fields = len(self.fields)
        raw = self._field_cotangents(cotangents[0]) if n_fields else []
        raw += [cotangents[i + 1] if j is None else sequence_entry(cotangents[i + 1], j) for i, j in self.arg_slots]
        result = []
        for index, (ct, value, want) in enumerate(zip(raw, values, wanted)):
            ct = unthunk(ct) if want else None
            if isinstance(ct, NotImplementedTangent):
                raise NotImplementedTangentError(
                    f"{self.name}: the derivative with respect to {self.operand_label(index)} "
                    f"is not implemented: {ct.info}"
                )
            if ct is None or isinstance(ct, AbstractZero):
                result.append(None)
                continue
            if np.shape(ct) != np.shape(value):
                raise ValueError(
                    f"{self.name}: the pullback returned a cotangent of shape {np.shape(ct)} for "
                    f"{self.operand_label(index)} of shape {np.shape(value)}"
                )
            result.append(conjugated(ct, conjugate))
        return result + [None] * len(self.kwarg_slots)

    def _field_cotangents(self, f_bar: Any) -> list[Any]:
        f_bar = unthunk(f_bar)
        if isinstance(f_bar, (AbstractZero, NotImplementedTangent)):
            return [f_bar] * len(self.fields)
        stored = backing(f_bar)
        return [stored.get(name, ZeroTangent()) for name in self.fields]

    def pushforward(self, values: Sequence[Any], dots: Sequence[Any]) -> list[Any] | None:
        """One tangent per output entry (numpy arrays, ``None`` for zeros), or ``None`` when every ``dot`` is zero.

        ``dots`` holds one numpy array or ``None`` per operand; keyword
        operands carry no tangent. Arguments held fixed get a zero tangent.
        """
        n_fields, n_args = len(self.fields), len(self.arg_slots)
        if all(d is None for d in dots[: n_fields + n_args]):
            return None
        f, args, kwargs = self.bind(values)
        f_dot: Any = NoTangent()
        if n_fields:
            f_dot = Tangent(type(self.f), **{n: d for n, d in zip(self.fields, dots) if d is not None})
        arg_dots: list[Any] = [
            [static_tangent(e) for e in a] if isinstance(s, _Sequence) else static_tangent(a)
            for a, s in zip(args, self.args)
        ]
        for (i, j), d, v in zip(self.arg_slots, dots[n_fields:], values[n_fields:]):
            tangent = static_tangent(v) if d is None else d
            if j is None:
                arg_dots[i] = tangent
            else:
                arg_dots[i][j] = tangent
        arg_dots = [sequence_tangent(s.kind, t) if isinstance(s, _Sequence) else t for t, s in zip(arg_dots, self.args)]
        result = frule((f_dot, *arg_dots), f, *args, **kwargs)
        if result is None and path_of(self.f) == "derived":
            from chainrules.engines import derived_frule

            result = derived_frule(f)((f_dot, *arg_dots), f, *args, **kwargs)
        if result is None:
            raise self.no_rule("frule", values)
        _, out_dot = result
        return tangent_entries(self.f, self.kind, self.n_outputs, out_dot)


class _Sequence:
    """A list or tuple argument with holes where its operands go."""

    __slots__ = ("entries", "kind")

    def __init__(self, kind: type, entries: list[Any]) -> None:
        self.kind = kind
        self.entries = entries


def _holds_operand(is_operand: Callable[[Any], bool], a: Any) -> bool:
    return isinstance(a, (list, tuple)) and any(is_operand(e) for e in a)
