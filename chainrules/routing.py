"""Library functions that hand a call with followed values to the engine following them.

numpy's functions reach an engine by themselves: numpy asks the arguments
(``__array_ufunc__``, ``__array_function__``), and an engine's values answer.
scipy's do not: ``scipy.linalg.expm(A)`` converts ``A`` with ``np.asarray``,
and a followed ``A`` fails deep inside scipy (``setting an array element
with a sequence``) though ``expm`` has a rule. So when one of scipy's public
namespaces is imported, chainrules *routes* it: every public function in it,
and the public methods (with ``__init__`` and ``__call__``) of its public
classes, is replaced by a stand-in that looks at its arguments
(``routed``):

* with no followed value among them (the arguments, the items of a list,
  tuple or dict argument, keywords included), it calls the function: about
  0.1 µs more per call (``benchmarks/bench_routing.py``);
* with one, it hands the call to that value's engine
  (``__chainrules_call__``, ``chainrules_core.followed``), which uses the
  function's rules, so ``sla.expm(A)`` in a differentiated function is
  differentiated as ``rrule(scipy.linalg.expm, A)`` is;
* where the function has no rule and its own code cannot run on followed
  values either, it raises ``NoRuleError`` naming it
  (``scipy.integrate.solve_ivp``) and saying how to go on, where scipy's own
  error named neither it nor this package. A function whose code fails on
  the plain values too gets that error, as without differentiation.

The stand-in keeps the function's name, signature and documentation
(``__wrapped__``) and pickles as the public name. Rules are registered for
it, as the namespace exports it, and the function behind it is its alias in
the registries (``rrule.alias``): ``rrule`` answers either, and a rule
registered for one is the other's.

What it cannot reach: a reference taken before the namespace was routed
(``from scipy.linalg import expm`` before ``import chainrules``, where
scipy was imported first, keeps scipy's own function: import chainrules
first, or call ``chainrules.engines.lift(expm)``), and scipy's own calls
through its private modules (which a rule does not need: the function
whose rule runs is the one the user called).

>>> import scipy.linalg as sla
>>> import chainrules.engines as ad
>>> A = np.array([[0.1, 0.2], [0.0, 0.3]])
>>> sla.expm is routed(sla.expm), unrouted(sla.expm).__module__
(True, 'scipy.linalg._matfuncs')
>>> float(ad.gradient(lambda A: np.sum(sla.expm(A)), A)[0][0, 1]) > 0
True
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from chainrules_core import NoRuleError, frule, primal_of, rrule
from chainrules_core.followed import engine_call
from chainrules_core.naming import function_name

LIBRARIES = (
    "scipy.cluster.hierarchy",
    "scipy.cluster.vq",
    "scipy.differentiate",
    "scipy.fft",
    "scipy.fftpack",
    "scipy.integrate",
    "scipy.interpolate",
    "scipy.linalg",
    "scipy.ndimage",
    "scipy.odr",
    "scipy.optimize",
    "scipy.signal",
    "scipy.signal.windows",
    "scipy.sparse",
    "scipy.sparse.csgraph",
    "scipy.sparse.linalg",
    "scipy.spatial",
    "scipy.spatial.distance",
    "scipy.spatial.transform",
    "scipy.special",
    "scipy.stats",
)
"""The namespaces routed when they are imported (``chainrules.rules``)."""

OPERATORS = ("__init__", "__call__", "__matmul__", "__rmatmul__", "__mul__", "__rmul__", "__truediv__")
"""The special methods routed beside a class's public ones: construction, evaluation and products."""

_METHODS: dict[int, tuple[type, bool]] = {}
"""``id(function)`` of a routed method to its class and whether it is called on an instance (not static or class)."""

_ROUTED: dict[int, Callable[..., Any]] = {}
"""``id(function)`` to its stand-in, so that a function exported by two namespaces has one."""


class StandIn:
    """A routed function: it hands a call with followed values to their engine, and calls the function otherwise.

    It stands where the function stood and passes for it: its name,
    signature and documentation are the function's (``__wrapped__``), it
    compares equal to it and hashes as it does (so a table keyed by the
    function finds it), it binds as a method where the function did, and it
    pickles by the public name it is installed under.
    """

    def __init__(self, f: Callable[..., Any], module: str | None, name: str | None) -> None:
        self.__wrapped__ = f
        self.__chainrules_routed__ = f
        self.__name__ = name or getattr(f, "__name__", "routed")
        self.__qualname__ = name or getattr(f, "__qualname__", self.__name__)
        self.__module__ = module or getattr(f, "__module__", None) or __name__
        self.__doc__ = getattr(f, "__doc__", None)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        f = self.__wrapped__
        for a in args:
            if _LOOKED_AT.get(type(a)) is not False and _followed_in((a,)) is not None:
                return _hand_over(f, args, kwargs)
        if kwargs and _followed_in(kwargs.values()) is not None:
            return _hand_over(f, args, kwargs)
        try:
            return f(*args, **kwargs)
        except Exception as err:  # a followed value that came in another way: a function's closure, an object
            if isinstance(err, NoRuleError) or _reached(args, kwargs, err):
                named = _no_rule(f, args, err)
                if named is not None:
                    raise named from err
            raise

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return self if obj is None else types.MethodType(self, obj)

    def __eq__(self, other: object) -> bool:
        return other is self or other is self.__wrapped__ or self.__wrapped__ == other

    def __hash__(self) -> int:
        return hash(self.__wrapped__)

    def __repr__(self) -> str:
        return f"<routed {self.__wrapped__!r}>"

    def __reduce__(self) -> str:
        return self.__qualname__  # a global: the name it is installed under in its module


def routed(f: Callable[..., Any], module: str | None = None, name: str | None = None) -> Callable[..., Any]:
    """``f``'s stand-in (``StandIn``), which hands a call with followed values to their engine; made once per
    function.

    ``module`` and ``name`` are where the stand-in is installed (it pickles
    as ``module.name``); they default to ``f``'s own. A stand-in is its own
    stand-in.
    """
    if getattr(f, "__chainrules_routed__", None) is not None:
        return f
    made = _ROUTED.get(id(f))
    if made is not None:
        return made
    stand_in = StandIn(f, module, name)
    _ROUTED[id(f)] = stand_in
    for registry in (rrule, frule):  # rules are registered for the stand-in, as the namespace exports it
        registry.alias(f, stand_in)
    return stand_in


def unrouted(f: Any) -> Any:
    """The function behind a stand-in; anything else as it is."""
    return getattr(f, "__chainrules_routed__", f)


def route(module: types.ModuleType) -> int:
    """Route the public functions of ``module``, and the public methods of its public classes (``OPERATORS``
    too), that the library defines: returns how many it routed. Run once per namespace, when it is imported.

    A function the module takes from another library (numpy's) is left to that library; an extension type's
    methods, which cannot be replaced, are left as they are.
    """
    library = module.__name__.partition(".")[0]
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    count = 0
    for name in names:
        value = getattr(module, name, None)
        if _is_routable(value, library):
            setattr(module, name, routed(value, module.__name__, name))
            count += 1
        elif isinstance(value, type):
            if _ours(value, library) and not issubclass(value, BaseException):
                count += _route_class(value, library)
        elif _ours(type(value), library) and not isinstance(value, types.ModuleType):  # scipy.stats.norm
            count += _route_class(type(value), library)
    return count


def _route_class(cls: type, library: str) -> int:
    count = 0
    for owner in cls.__mro__:
        if not _ours(owner, library) or owner.__dict__.get("__chainrules_routed_class__") is owner:
            continue
        for name, value in list(owner.__dict__.items()):
            if name.startswith("_") and name not in OPERATORS:
                continue
            kind = type(value) if isinstance(value, (staticmethod, classmethod)) else None
            function = value.__func__ if kind is not None else value
            if not _is_routable(function, library):
                continue
            try:  # a static or class method stays one, around the stand-in of its function
                setattr(owner, name, routed(function) if kind is None else kind(routed(function)))
                _METHODS[id(function)] = (owner, kind is None)
            except (TypeError, AttributeError):  # an extension type: its methods stay
                break
            count += 1
        try:
            owner.__chainrules_routed_class__ = owner  # type: ignore[attr-defined]
        except (TypeError, AttributeError):
            pass
    return count


def _ours(value: Any, library: str) -> bool:
    return str(getattr(value, "__module__", "") or "").partition(".")[0] == library


def _is_routable(value: Any, library: str) -> bool:
    """A function of the library (Python's, a builtin, uarray's multimethods, Cython's), not a class, an object
    with methods (``scipy.stats.norm``) or a ufunc (numpy routes those), not yet routed."""
    if isinstance(value, (type, np.ufunc)) or not callable(value):
        return False
    if not isinstance(getattr(value, "__name__", None), str):
        return False
    return getattr(value, "__chainrules_routed__", None) is None and _ours(value, library)


# ----- a call with followed values -----

_SCANNED = {tuple, list, dict}
"""The argument types a stand-in looks inside. An array of objects holding followed values (what ``np.array``
makes of a list of them) is looked at only when the call fails (``_reached``)."""


_LOOKED_AT: dict[type, bool] = {}
"""A type to whether its values are followed or looked inside (``_SCANNED``); ``False`` for plain values. A type
answers ``hasattr`` for a missing attribute by raising and catching an ``AttributeError`` (0.3 µs); this answers
once per type."""


def _followed_in(values: Iterable[Any]) -> Any:
    """The first followed value among ``values``, inside lists, tuples, dicts and object arrays too; else ``None``."""
    for v in values:
        t = type(v)
        known = _LOOKED_AT.get(t)
        if known is None:
            known = _LOOKED_AT[t] = hasattr(t, "__chainrules_call__") or t in _SCANNED
        if not known:
            continue
        if t not in _SCANNED:
            return v
        if v:
            found = _followed_in(v.values() if t is dict else v)
            if found is not None:
                return found
    return None


def _hand_over(f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``f(*args, **kwargs)`` by the engine of a followed argument; ``NoRuleError`` where ``f`` has no rule and
    its code cannot run on followed values either."""
    value = _followed_in([*args, *kwargs.values()])
    call = engine_call(value)
    assert call is not None
    try:
        return call(value, f, *args, **kwargs)
    except Exception as err:
        if not isinstance(err, NoRuleError):
            try:
                f(*_primals(args), **{k: _primals((v,))[0] for k, v in kwargs.items()})
            except Exception as plain:
                raise plain from None  # the call fails without followed values too: its own error, not ours
        named = _no_rule(f, args, err)
        if named is None:
            raise
        raise named from err


def _no_rule(f: Any, args: tuple[Any, ...], err: Exception) -> NoRuleError | None:
    """``NoRuleError`` naming ``f`` as the user called it, for a call of ``f`` that failed on followed values;
    ``None`` where ``f`` has rules (the error is theirs: a rule's own, or the engine's for a mode without one)."""
    if rrule.has_rules(f) or frule.has_rules(f):
        return None
    name = display_name(f, args)
    reason = getattr(err, "reason", None) or f"{type(err).__name__}: {err}"  # the innermost function's error
    named = NoRuleError(
        f"{name} has no rule, and its code cannot run on followed values ({reason}); register one "
        f"(@rrule.register({name}) and @frule.register, docs/rule-authors.md), or compute this step outside the "
        "differentiated function"
    )
    named.reason = reason  # type: ignore[attr-defined]
    return named


def _reached(args: tuple[Any, ...], kwargs: dict[str, Any], err: BaseException) -> bool:
    """Whether followed values took part in a call that raised ``err`` without being among its arguments: held
    by a function the call was given (its closure or defaults), an object's fields, an array of objects, or a
    frame the error passed through."""
    if _holds_followed([*args, *kwargs.values()], 3):
        return True
    tb = err.__traceback__
    while tb is not None:
        if _holds_followed(list(tb.tb_frame.f_locals.values()), 2):
            return True
        tb = tb.tb_next
    return False


def _holds_followed(values: list[Any], depth: int) -> bool:
    """Whether a followed value is among ``values``, or held, ``depth`` steps deep, by a container, an array of
    objects, a function's closure or defaults, or an object's fields."""
    for v in values:
        t = type(v)
        if hasattr(t, "__chainrules_call__"):
            return True
        if depth == 0:
            continue
        if t is np.ndarray:
            if v.dtype.hasobject and _holds_followed(list(v.flat[:64]), 0):
                return True
            continue
        if t in _SCANNED:
            held = list(v.values() if t is dict else v)
        elif isinstance(v, types.FunctionType):
            held = [c.cell_contents for c in v.__closure__ or () if _filled(c)] + list(v.__defaults__ or ())
        elif hasattr(v, "__dict__") and not isinstance(v, (type, types.ModuleType, types.FunctionType)):
            held = list(vars(v).values())
        else:
            continue
        if _holds_followed(held, depth - 1):
            return True
    return False


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def _primals(values: tuple[Any, ...]) -> tuple[Any, ...]:
    """``values`` with every followed value, inside containers too, replaced by the plain value it stands for."""
    out = []
    for v in values:
        t = type(v)
        if t in (tuple, list):
            v = t(_primals(tuple(v)))
        elif t is dict:
            v = dict(zip(v, _primals(tuple(v.values()))))
        elif t is np.ndarray and v.dtype.hasobject and engine_call(v) is not None:
            v = np.array(_primals(tuple(v.flat))).reshape(v.shape)
        else:
            v = primal_of(v)
        out.append(v)
    return tuple(out)


def display_name(f: Any, args: tuple[Any, ...] = ()) -> str:
    """How a user wrote the call: ``scipy.linalg.cho_solve``; a method by its object's public name where it has
    one (``scipy.stats.norm.logpdf``), else by its class (``scipy.interpolate.CubicSpline.__call__``)."""
    f = unrouted(f)
    name = getattr(f, "__name__", None)
    method = _METHODS.get(id(f))
    if method is not None and name is not None:
        cls, on_instance = method
        if on_instance and args:  # named after its object
            return f"{_object_name(args[0])}.{name}"
        return f"{_public_module_of(cls)}.{cls.__name__}.{name}"
    stand_in = _ROUTED.get(id(f))
    return function_name(stand_in if stand_in is not None else f)


def _object_name(owner: Any) -> str:
    """``scipy.stats.norm`` for a distribution (by its ``name``), ``scipy.stats.norm(...)`` for a frozen one,
    else its class's public name: ``scipy.interpolate.CubicSpline``."""
    dist = getattr(owner, "dist", None)
    if _object_name(dist).endswith(f".{getattr(dist, 'name', None)}") if dist is not None else False:
        return f"{_object_name(dist)}(...)"
    cls = type(owner)
    module = _public_module_of(cls)
    public = getattr(owner, "name", None)
    if isinstance(public, str) and type(getattr(sys.modules.get(module), public, None)) is cls:
        return f"{module}.{public}"
    for value_name, value in vars(sys.modules.get(module, types)).items():
        if value is owner:
            return f"{module}.{value_name}"
    return f"{module}.{cls.__name__}"


def _public_module_of(cls: type) -> str:
    """The shortest module path that exports ``cls``: ``scipy.integrate`` for ``scipy.integrate._ivp.rk.RK45``,
    ``scipy.stats`` for ``norm_gen``; else its own module."""
    parts = cls.__module__.split(".")
    for end in range(1, len(parts)):
        module = sys.modules.get(".".join(parts[:end]))
        if module is not None and getattr(module, cls.__name__, None) is cls:
            return module.__name__
    for end in range(len(parts) - 1, 0, -1):  # not exported by name (norm_gen): the package its instances are in
        if not parts[end].startswith("_"):
            break
        parts = parts[:end]
    return ".".join(parts)


__all__ = ["LIBRARIES", "OPERATORS", "StandIn", "display_name", "route", "routed", "unrouted"]
