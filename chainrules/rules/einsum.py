"""einsum: any subscripts numpy accepts, in the string or the interleaved form.

The subscripts are parsed once into integer labels (numpy's interleaved
form), with the dimensions an ellipsis stands for given labels of their own,
aligned from the right. ``einsum`` is linear in each operand, so the
pushforward sums ``einsum`` with one operand replaced by its tangent, and the
cotangent of operand ``k`` is ``einsum`` of the output cotangent with the
conjugates of the other operands, producing ``k``'s labels (autograd's
``grad_einsum``, conjugated for the complex convention). Three cases need
more than that one ``einsum``:

* a label repeated in operand ``k`` (a diagonal, a trace): the cotangent is
  computed per distinct label and written onto that diagonal of a zero array;
* a label only operand ``k`` has (summed within it): the cotangent is
  constant along it, a broadcast;
* a dimension of size 1 that broadcasting stretched: summed back to size 1.

``optimize=`` is passed to every ``einsum`` the rules call; calls with other
keywords (``out=``, ``dtype=``, ``casting=``, ``order=``) get no rule (``None``).
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

import numpy as np

from chainrules_core import AbstractZero, NoTangent, ProjectTo, Thunk, ZeroTangent, frule, rrule, unthunk

from ._bilinear import checked_seed

_LETTERS = string.ascii_uppercase + string.ascii_lowercase  # numpy's labels 0..51
_ALLOWED_KWARGS = frozenset({"optimize"})


@dataclass(frozen=True)
class _Spec:
    """Parsed einsum arguments: operands, one label list per operand, the output labels."""

    operands: tuple[np.ndarray, ...]
    inputs: tuple[tuple[int, ...], ...]
    output: tuple[int, ...]


def _parse_term(term: Any) -> list[Any]:
    """One operand's subscripts as a list of labels and ``...``."""
    if isinstance(term, str):
        labels: list[Any] = []
        rest = term.replace(" ", "")
        while rest:
            if rest.startswith("..."):
                labels.append(Ellipsis)
                rest = rest[3:]
            elif rest[0] in _LETTERS:
                labels.append(_LETTERS.index(rest[0]))
                rest = rest[1:]
            else:
                raise ValueError(f"einsum: invalid subscript character {rest[0]!r}")
        return labels
    return [Ellipsis if t is Ellipsis else int(t) for t in term]


def _parse(args: tuple[Any, ...]) -> _Spec:
    if isinstance(args[0], str):
        subscripts, operands = args[0], args[1:]
        if "->" in subscripts:
            lhs, rhs = subscripts.split("->")
            explicit: list[Any] | None = _parse_term(rhs)
        else:
            lhs, explicit = subscripts, None
        terms = [_parse_term(t) for t in lhs.split(",")]
    else:
        operands = args[0:-1:2] if len(args) % 2 else args[0::2]
        terms = [_parse_term(t) for t in args[1::2]][: len(operands)]
        explicit = _parse_term(args[-1]) if len(args) % 2 else None
    arrays = tuple(np.asarray(x) for x in operands)
    if len(terms) != len(arrays):
        raise ValueError(f"einsum: {len(terms)} subscript terms for {len(arrays)} operands")

    used = {label for term in terms for label in term if label is not Ellipsis}
    ellipsis_ranks = [x.ndim - (len(t) - 1) if Ellipsis in t else 0 for t, x in zip(terms, arrays)]
    rank = max(ellipsis_ranks, default=0)
    fresh = [label for label in range(len(_LETTERS)) if label not in used][:rank]
    if len(fresh) < rank:
        raise ValueError("einsum: too many labels to differentiate this call")

    def expand(term: list[Any], n: int) -> tuple[int, ...]:
        if Ellipsis not in term:
            return tuple(term)
        i = term.index(Ellipsis)
        return (*term[:i], *fresh[rank - n :], *term[i + 1 :])

    inputs = tuple(expand(t, n) for t, n in zip(terms, ellipsis_ranks))
    if explicit is None:
        counts: dict[int, int] = {}
        for term in terms:
            for label in term:
                if label is not Ellipsis:
                    counts[label] = counts.get(label, 0) + 1
        output = (*fresh, *sorted(label for label, c in counts.items() if c == 1))
    else:
        output = expand(explicit, rank)
    return _Spec(arrays, inputs, output)


def _interleaved(arrays: list[Any], labels: list[tuple[int, ...]], output: tuple[int, ...]) -> list[Any]:
    call: list[Any] = []
    for x, term in zip(arrays, labels):
        call += [x, list(term)]
    return [*call, list(output)]


def _operand_cotangent(spec: _Spec, k: int, g: np.ndarray, optimize: Any) -> np.ndarray:
    """The cotangent of operand ``k`` from the output cotangent ``g``."""
    x, labels = spec.operands[k], spec.inputs[k]
    distinct = list(dict.fromkeys(labels))
    size = {label: x.shape[labels.index(label)] for label in distinct}
    elsewhere: dict[int, int] = {label: n for label, n in zip(spec.output, g.shape)}
    for j, (y, term) in enumerate(zip(spec.operands, spec.inputs)):
        if j != k:
            for label, n in zip(term, y.shape):
                elsewhere[label] = max(elsewhere.get(label, 1), n)
    # Labels computed by the einsum; the others are summed within x alone (broadcast back)
    # or size 1 in x but stretched by broadcasting (summed by leaving them out).
    computed = [label for label in distinct if label in elsewhere and not (size[label] == 1 != elsewhere[label])]
    others = [y.conj() for j, y in enumerate(spec.operands) if j != k]
    other_labels = [term for j, term in enumerate(spec.inputs) if j != k]
    call = _interleaved([g, *others], [spec.output, *other_labels], tuple(computed))
    r = np.einsum(*call, optimize=optimize)
    r = r.reshape([r.shape[computed.index(label)] if label in computed else 1 for label in distinct])
    r = np.broadcast_to(r, [size[label] for label in distinct])
    if len(distinct) == len(labels):
        return r
    x_bar = np.zeros(x.shape, dtype=np.result_type(g, *others))
    np.einsum(x_bar, list(labels), distinct)[...] = r  # a writable view of the diagonal
    return x_bar


@rrule.register(np.einsum)
def _rrule_einsum(f: Any, *args: Any, **kwargs: Any) -> Any:
    if not kwargs.keys() <= _ALLOWED_KWARGS:
        return None
    optimize = kwargs.get("optimize", False)
    out = f(*args, **kwargs)
    spec = _parse(args)
    projects = [ProjectTo(a) for a in args]
    positions = _operand_positions(args)

    def einsum_pullback(out_bar: Any) -> tuple[Any, ...]:
        out_bar = unthunk(out_bar)
        if not isinstance(out_bar, AbstractZero):
            out_bar = checked_seed(f, out_bar, out)
        cotangents: list[Any] = [NoTangent()] * (len(args) + 1)
        for k, i in enumerate(positions):
            project = projects[i]
            if isinstance(out_bar, AbstractZero) or project.is_no_tangent:
                cotangents[i + 1] = project(ZeroTangent())
            else:
                cotangents[i + 1] = Thunk(_thunk_body(project, spec, k, out_bar, optimize))
        return tuple(cotangents)

    return out, einsum_pullback


def _thunk_body(project: Any, spec: _Spec, k: int, g: np.ndarray, optimize: Any) -> Any:
    return lambda: project(_operand_cotangent(spec, k, g, optimize))


def _operand_positions(args: tuple[Any, ...]) -> list[int]:
    """Where the operands are among the positional arguments."""
    if isinstance(args[0], str):
        return list(range(1, len(args)))
    n = len(args) // 2
    return [2 * i for i in range(n)]


@frule.register(np.einsum)
def _frule_einsum(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
    if not kwargs.keys() <= _ALLOWED_KWARGS:
        return None
    out = f(*args, **kwargs)
    project_out = ProjectTo(out)
    out_dot: Any = None
    for i in _operand_positions(args):
        x_dot = unthunk(tangents[i + 1])
        if isinstance(x_dot, AbstractZero) or ProjectTo(args[i]).is_no_tangent:
            continue
        term = f(*args[:i], x_dot, *args[i + 1 :], **kwargs)
        out_dot = term if out_dot is None else out_dot + term
    if out_dot is None:
        return out, project_out(ZeroTangent())
    return out, project_out(out_dot)
