"""Helpers that write the frule and rrule of a whole class of functions at once."""

from __future__ import annotations

import math
import types
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import numpy as np

from .array_api import call_in, is_numpy_function
from .arrays import (
    as_arrays_like,
    first_foreign_array,
    is_complex_dtype,
    is_foreign_array,
    is_inexact_dtype,
    is_numpy_like,
    namespace_of,
    refusal,
)
from .followed import engine_call, follow, is_followed
from .naming import function_name
from .projection import (
    Projector,
    ProjectTo,
    checked_seed,
    checked_tangent,
    fits,
    no_tangent_space,
    output_tangent,
    shape_of,
    sum_to_shape,
    value_shape,
)
from .rules import frule, rrule
from .tangent_types import AbstractZero, NoTangent, ZeroTangent, unthunk

Partials = Callable[..., Any]
RuleFunction = TypeVar("RuleFunction", bound=Callable[..., Any])

_UFUNC_KEYWORDS = frozenset({"dtype", "casting", "order", "subok", "signature"})
"""A ufunc's keywords that leave its derivative alone; every other keyword makes ``scalar_rule``'s rules decline."""


def _conj(p: Any) -> Any:
    """The complex conjugate of a partial; a real one as it is."""
    if isinstance(p, (float, int)):
        return p
    if is_foreign_array(p):
        xp = namespace_of(p)
        return xp.conj(p) if is_complex_dtype(xp, p.dtype) else p
    dtype = getattr(p, "dtype", None)
    if dtype is None:  # a Python complex, or a value an AD engine follows (np.iscomplexobj sees through it)
        followed_complex = is_followed(p) and np.iscomplexobj(p)
        return np.conjugate(p) if isinstance(p, complex) or followed_complex else p
    if getattr(dtype, "kind", None) == "c":
        return np.conjugate(p)
    return p


def cotangent_from_partial(project: Projector, shape: tuple[int, ...], partial: Any, out_bar: Any) -> Any:
    """One argument's cotangent from its partial derivative: ``conj(partial) * out_bar``, unbroadcast and projected.

    The step ``scalar_rule``'s pullbacks take for each argument of an
    elementwise function: the product is summed back to the argument's
    ``shape`` (``sum_to_shape``) and projected (``project``, built from the
    argument by ``ProjectTo``); an argument without a tangent space gets
    ``NoTangent()``.

    >>> import numpy as np
    >>> x = np.ones((1, 2), dtype=np.float32)
    >>> cotangent_from_partial(ProjectTo(x), x.shape, 2j, np.ones((3, 2)))
    array([[0., 0.]], dtype=float32)
    >>> cotangent_from_partial(ProjectTo(1.5), (), np.float64(2.0), 0.5)
    1.0
    """
    if project.is_no_tangent:
        return NoTangent()
    return project(sum_to_shape(_conj(partial) * out_bar, shape))


def named_after(f: Any, rule: RuleFunction) -> RuleFunction:
    """A copy of ``rule`` named after the primal ``f``, and so are the closures it defines.

    For rule makers, which write one rule function for many primals: a
    traceback through the pullback of ``np.sin`` then reads ``sin_pullback``
    rather than the maker's generic name. ``rule`` is renamed ``_rrule_sin``
    (``_frule_sin``) when its name starts with ``_rrule``/``_frule``, and each
    function it defines whose name ends in ``_pullback`` or ``_pushforward``
    gets ``sin`` before that suffix. Only names change: the copy shares the
    code, defaults and closure cells, and costs nothing per call.

    >>> def make_rule():
    ...     def _rrule_any(f, x):
    ...         def any_pullback(out_bar):
    ...             return NoTangent(), out_bar
    ...         return f(x), any_pullback
    ...     return _rrule_any
    >>> rule = named_after(np.negative, make_rule())
    >>> rule.__name__, rule(np.negative, 1.0)[1].__name__
    ('_rrule_negative', 'negative_pullback')
    """
    name = _identifier(function_name(f).rsplit(".", 1)[-1])
    code = _renamed_code(rule.__code__, name)
    renamed = types.FunctionType(code, rule.__globals__, code.co_name, rule.__defaults__, rule.__closure__)
    renamed.__kwdefaults__ = rule.__kwdefaults__
    renamed.__doc__ = rule.__doc__
    renamed.__module__ = rule.__module__
    renamed.__qualname__ = code.co_qualname if hasattr(code, "co_qualname") else code.co_name
    return cast(RuleFunction, renamed)


_SUFFIXES = ("_pullback", "_pushforward")


def _renamed_code(code: types.CodeType, name: str) -> types.CodeType:
    consts = tuple(_renamed_code(c, name) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    new_name = code.co_name
    for prefix in ("_rrule", "_frule"):
        if new_name.startswith(prefix):
            new_name = f"{prefix}_{name}"
    for suffix in _SUFFIXES:
        if new_name.endswith(suffix):
            new_name = f"{name}{suffix}"
    if new_name == code.co_name and consts == code.co_consts:
        return code
    if hasattr(code, "co_qualname"):  # Python 3.11
        return code.replace(co_name=new_name, co_qualname=new_name, co_consts=consts)
    return code.replace(co_name=new_name, co_consts=consts)


def _identifier(text: str) -> str:
    """``text`` with every character that cannot stand in a Python name replaced by ``_``."""
    cleaned = "".join(c if c.isalnum() or c == "_" else "_" for c in text).strip("_")
    return cleaned or "primal"


def _python_numbers_as_numpy(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """The arguments the partials see: Python floats and complex numbers as numpy scalars, so that partials follow
    numpy (``1 / 0.0`` is inf), and numpy booleans as float64 (numpy has no ``-True``; their partials are never
    used, but a partial of another argument may read them: ``arctan2(y, x)``'s ``-y / r²``)."""
    if any(_is_python_number(a) or _is_numpy_bool(a) for a in args):
        return tuple([_as_numpy(a) if _is_python_number(a) or _is_numpy_bool(a) else a for a in args])
    return args


def _is_python_number(a: Any) -> bool:
    return isinstance(a, (float, complex)) and not isinstance(a, np.generic)


def _is_numpy_bool(a: Any) -> bool:
    return isinstance(a, (np.ndarray, np.generic)) and a.dtype.kind == "b"


def _as_numpy(a: Any) -> Any:
    if isinstance(a, (np.ndarray, np.generic)):  # booleans
        return a.astype(np.float64)
    return np.complex128(a) if isinstance(a, complex) else np.float64(a)


def _declined(nin: int | None, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """A call ``scalar_rule``'s rules decline: keyword arguments (for a ufunc, ``out=``, ``where=`` and keywords
    outside ``_UFUNC_KEYWORDS``), which the partials never see, or a ufunc given its output buffers positionally."""
    if kwargs and (nin is None or not kwargs.keys() <= _UFUNC_KEYWORDS):
        return True
    return nin is not None and len(args) > nin


def scalar_rule(
    f: Callable[..., Any],
    partials: Partials,
    *,
    floats: Partials | None = None,
    array_api: Callable[..., Any] | None = None,
) -> None:
    """Register ``frule`` and ``rrule`` for ``f`` from one definition of its partials.

    ``partials(out, *args)`` returns the partial derivative of ``f`` with
    respect to each positional argument (one value for a unary ``f``, a tuple
    otherwise), given the primal output ``out``. It is evaluated only when a
    tangent or cotangent needs it, with Python floats and complex numbers
    passed as numpy scalars (so ``1 / x`` at 0 is ``inf`` with numpy's
    warning, as for arrays). The rules work on Python numbers and
    elementwise on arrays: the pushforward is ``sum(p_i * x_dot_i)``; the
    pullback gives ``conj(p_i) * out_bar`` summed back to each argument's
    shape and projected onto it (``cotangent_from_partial``: a real input
    gets a real cotangent, a float32 input a float32 one, an int argument
    ``NoTangent()``). ``f`` is taken to be holomorphic in complex arguments.
    A partial may be ``not_implemented(info)``: that argument's cotangent is
    then the ``NotImplementedTangent``, and so is the output's tangent when
    that argument's tangent is not zero.
    The pullback is named after ``f`` (``hypot_pullback``).

    The partials see positional arguments only, so a call with keyword
    arguments gets no rule (``None``) rather than a pullback that ignores
    them: the engine then differentiates the call another way, or reports
    that there is no rule. A ufunc keeps its rule with ``dtype=``,
    ``casting=``, ``order=``, ``subok=`` and ``signature=``, but not with
    ``out=`` or ``where=``, nor with its output buffers as extra positional
    arguments. Pass such an option positionally, or write the rules by hand
    for a function that takes it by keyword.

    ``floats(out, x)``, optional, is the partial of a function of one
    argument at a Python float ``x`` in Python arithmetic (``math.cos(x)``
    rather than ``np.cos``): a call on a float then skips numpy's scalars.
    Where it raises ``ArithmeticError`` or ``ValueError`` (``1 / 0.0``,
    ``math.sqrt(-1.0)``) or gives anything but a real number, ``partials``
    answers on numpy scalars instead, so both give the same derivatives.

    ``array_api=partials_in`` makes the rules run on arrays of every library
    that follows the Python Array API standard (torch, JAX, dask, CuPy,
    array-api-strict): on such arrays the partials are ``partials_in(xp,
    out, *args)`` in their namespace ``xp``
    (``chainrules_core.arrays.namespace_of``), and the primal of a numpy
    function is the standard's function of the same meaning
    (``chainrules_core.array_api.call_in``), so nothing crosses to numpy;
    numpy arrays keep ``f`` and ``partials``. Without it, another library's
    arrays raise ``TypeError`` naming the function and the array type.

    The rules are the formula above, for any argument; Python floats and
    numpy arrays take fast paths registered beside them (the section at the
    bottom of this module), which give the same numbers and choose their
    pullback once per call. A seed (or a tangent) of another shape than the
    output's (or its argument's) raises ``ValueError``.

    >>> import math
    >>> def hypot(x, y):
    ...     return math.sqrt(x * x + y * y)
    >>> scalar_rule(hypot, lambda out, x, y: (x / out, y / out))
    >>> y, pullback = rrule(hypot, 3.0, 4.0)
    >>> y, pullback(1.0), pullback.__name__
    (5.0, (NoTangent(), 0.6, 0.8), 'hypot_pullback')
    >>> frule((NoTangent(), 1.0, 0.0), hypot, 3.0, 4.0)
    (5.0, 0.6)
    >>> rrule(hypot, 3.0, y=4.0) is None  # the partials would never see y
    True
    """

    for what, given in (("partials", partials), ("floats", floats), ("array_api", array_api)):
        if given is not None and not callable(given):
            raise TypeError(f"scalar_rule({function_name(f)}): {what} must be callable, got {given!r}")
    nin = getattr(f, "nin", None)  # a ufunc: more positional arguments are output buffers
    most = math.inf if nin is None else nin

    def evaluate(xp: Any, out: Any, args: tuple[Any, ...]) -> Any:
        """The partials at another library's ``args``, in its namespace ``xp`` (numpy's are called inline: one
        frame from a pullback to its formula)."""
        if array_api is None:
            raise refusal(f, next(a for a in args if is_foreign_array(a)), "its rule is written for numpy alone")
        return array_api(xp, out, *as_arrays_like(out, *args))

    def pullback_of(f: Any, out: Any, args: tuple[Any, ...], xp: Any = np) -> Callable[[Any], tuple[Any, ...]]:
        """The pullback of ``f(*args) == out``: each partial, conjugated, times the seed, unbroadcast and projected."""
        projects = [ProjectTo(a) for a in args]
        shapes, shape = [shape_of(a) for a in args], value_shape(out)
        constant = all(p.is_no_tangent for p in projects)

        def scalar_pullback(out_bar: Any) -> tuple[Any, ...]:
            out_bar = checked_seed(f, out_bar, shape)
            if isinstance(out_bar, AbstractZero) or constant:  # skip the partials: nothing needs them
                return (_NO_TANGENT, *(p(ZeroTangent()) for p in projects))
            ps = partials(out, *_python_numbers_as_numpy(args)) if xp is np else evaluate(xp, out, args)
            if len(args) == 1:
                ps = (ps,)
            bars = [cotangent_from_partial(pr, sh, p, out_bar) for pr, sh, p in zip(projects, shapes, ps)]
            return (_NO_TANGENT, *bars)

        return scalar_pullback

    def _rrule_scalar(f: Any, *args: Any, **kwargs: Any) -> Any:
        if (kwargs or len(args) > most) and _declined(nin, args, kwargs):
            return None
        xp = namespace_of(*args)
        out = call_in(xp, f, *args, **kwargs)
        return out, pullback_of(f, out, args, xp)

    def _frule_scalar(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        if (kwargs or len(args) > most) and _declined(nin, args, kwargs):
            return None
        xp = namespace_of(*args)
        out = call_in(xp, f, *args, **kwargs)
        dots = [checked_tangent(f, t, x, k) for k, (t, x) in enumerate(zip(tangents[1:], args), start=1)]
        active = [i for i, (x, dot) in enumerate(zip(args, dots)) if not isinstance(dot, AbstractZero)]
        active = [i for i in active if not no_tangent_space(args[i])]
        if not active:
            return out, ProjectTo(out)(ZeroTangent())
        ps = partials(out, *_python_numbers_as_numpy(args)) if xp is np else evaluate(xp, out, args)
        if len(args) == 1:
            ps = (ps,)
        out_dot = None
        for i in active:
            term = ps[i] * dots[i]
            out_dot = term if out_dot is None else out_dot + term
        return out, output_tangent(out, out_dot)

    pullback_of = named_after(f, pullback_of)
    rrule.register(f, generic=array_api is not None)(named_after(f, _rrule_scalar))
    frule.register(f, generic=array_api is not None)(named_after(f, _frule_scalar))
    rrule.fast_path(f)(named_after(f, _scalar_rrule_fast_path(f, partials, floats, most, pullback_of, array_api)))
    frule.fast_path(f)(named_after(f, _scalar_frule_fast_path(partials, floats)))


_NO_TANGENT = NoTangent()


def non_differentiable(*fs: Callable[..., Any], arg_types: Sequence[Any] | None = None) -> None:
    """Register rules saying that each of ``fs`` has no derivative.

    The output's tangent is ``NoTangent()`` and every input's cotangent is
    ``NoTangent()``: for functions with integer, boolean or index outputs.
    ``arg_types`` restricts the declaration to calls with those argument
    types (dispatched as ``rrule.register(f, *arg_types)``), so that other
    arguments keep their rules: ``operator.or_`` is integer-valued on numbers
    but merges dicts. ``rrule.records()`` lists these as ``kind ==
    "non_differentiable"``.

    >>> def count_positive(xs):
    ...     return sum(x > 0 for x in xs)
    >>> non_differentiable(count_positive)
    >>> frule((NoTangent(), [1.0, 1.0]), count_positive, [2.5, -1.0])
    (1, NoTangent())
    >>> rrule(count_positive, [2.5, -1.0])[1](1.0)
    (NoTangent(), NoTangent())
    >>> def halve(x):
    ...     return x // 2 if isinstance(x, int) else x / 2
    >>> non_differentiable(halve, arg_types=(int,))
    >>> rrule(halve, 3)[1](1.0), rrule(halve, 3.0)
    ((NoTangent(), NoTangent()), None)
    """
    signature = tuple(arg_types or ())
    for f in fs:
        generic = is_numpy_function(f)  # its primal computes in the arrays' library (``call_in``)
        rrule.register(f, *signature, kind="non_differentiable", generic=generic)(_non_differentiable_rrule)
        frule.register(f, *signature, kind="non_differentiable", generic=generic)(_non_differentiable_frule)


def _non_differentiable_rrule(f: Any, *args: Any, **kwargs: Any) -> Any:
    n = len(args) + 1

    def non_differentiable_pullback(out_bar: Any) -> tuple[Any, ...]:
        return (NoTangent(),) * n

    return _primal_in_namespace(f, args, kwargs), non_differentiable_pullback


def _non_differentiable_frule(tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
    return _primal_in_namespace(f, args, kwargs), NoTangent()


def _primal_in_namespace(f: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``f(*args, **kwargs)``; a numpy function of another library's arrays in that library (``call_in``)."""
    if first_foreign_array(args) is None:
        return f(*args, **kwargs)
    return call_in(namespace_of(*args), f, *args, **kwargs)


class LinearAdjoint:
    """The pullback of a function linear in its first argument, ``out_bar -> adjoint(out_bar, x, *args)``.

    A callable object with rules of its own, for a pullback that an engine
    differentiates again (a gradient of a gradient) where it could not follow
    ``adjoint`` piece by piece (it writes into an array, say): the map is
    linear, so its pushforward is itself and its pullback is the function's
    pushforward ``f(x_dot, *args, **kwargs)``, the adjoint of the adjoint.
    ``x`` only gives the adjoint its shape and dtype. A rule calls it as
    ``follow(LinearAdjoint(adjoint, f, x, args, kwargs), out_bar)``
    (``chainrules_core.followed``).

    >>> double = LinearAdjoint(lambda g, x: 2 * g, lambda t: 2 * t, 0.0, (), {})
    >>> double(1.5), rrule(double, 1.5)[1](1.0), frule((NoTangent(), 1.0), double, 1.5)
    (3.0, (NoTangent(), 2.0), (3.0, 2.0))
    """

    __slots__ = ("adjoint", "args", "f", "kwargs", "x")

    def __init__(self, adjoint: Callable[..., Any], f: Any, x: Any, args: tuple[Any, ...], kwargs: dict[str, Any]):
        self.adjoint, self.f, self.x, self.args, self.kwargs = adjoint, f, x, args, kwargs

    def __call__(self, out_bar: Any) -> Any:
        return self.adjoint(out_bar, self.x, *self.args, **self.kwargs)


@rrule.register(LinearAdjoint)
def _rrule_linear_adjoint(a: LinearAdjoint, out_bar: Any) -> Any:
    project = ProjectTo(out_bar)

    def linear_adjoint_pullback(x_bar_bar: Any) -> tuple[Any, Any]:
        return NoTangent(), project(_pushed(a, unthunk(x_bar_bar)))

    return follow(a, out_bar), linear_adjoint_pullback


@frule.register(LinearAdjoint)
def _frule_linear_adjoint(tangents: tuple[Any, Any], a: LinearAdjoint, out_bar: Any) -> Any:
    return follow(a, out_bar), follow(a, unthunk(tangents[1]))


def _pushed(a: LinearAdjoint, x_dot: Any) -> Any:
    """``a.f(x_dot, *a.args, **a.kwargs)``, as an engine's operation if one follows ``x_dot``; another library's
    array goes through ``a.f``'s rule, which computes in that library (numpy's ``f`` would refuse or convert it)."""
    if engine_call(x_dot) is None and is_foreign_array(x_dot):
        result = rrule(a.f, x_dot, *a.args, **a.kwargs)
        if result is not None:
            return result[0]
    return follow(a.f, x_dot, *a.args, **a.kwargs)


# ----- fast paths: scalar_rule's rules on Python floats and numpy arrays -----


_ABSENT: Any = object()
"""The default of the fast rrule's first argument: a call without arguments."""


def _scalar_rrule_fast_path(
    primal: Any,
    partials: Partials,
    floats: Partials | None,
    most: float,
    pullback_of: Callable[..., Any],
    array_api: Callable[..., Any] | None = None,
) -> Callable[..., Any]:
    """``scalar_rule``'s rrule for Python floats and numpy arrays: the pullback chosen once per call by the
    argument's type (a float's partial in Python arithmetic, a real array's product in the partial's own buffer),
    every seed it does not expect handed to the general pullback (``pullback_of``). The closures are named after
    ``primal`` once, by ``scalar_rule``, not at each call."""
    many_arguments = named_after(primal, _many_arguments)

    # The first argument is a parameter of its own: a call of one argument, the common one, is not repacked.
    def _rrule_scalar(rule: Any, f: Any, x: Any = _ABSENT, /, *rest: Any, **kwargs: Any) -> Any:
        if kwargs or x is _ABSENT:
            return rule(f, *rest, **kwargs) if x is _ABSENT else rule(f, x, *rest, **kwargs)
        if rest:
            if len(rest) >= most or not _numpy_only(x, rest):
                return rule(f, x, *rest)
            return many_arguments(f, (x, *rest), partials, pullback_of)
        tx = type(x)
        if tx is not float and tx is not np.ndarray and not is_numpy_like(x):
            if array_api is None or not is_foreign_array(x) or is_followed(x):
                return rule(f, x)  # the rule computes in the array's namespace, or refuses it
            xp = namespace_of(x)
            if is_complex_dtype(xp, x.dtype) or not is_inexact_dtype(xp, x.dtype):
                return rule(f, x)
            out = call_in(xp, f, x)

            def real_foreign_pullback(out_bar: Any) -> tuple[Any, Any]:
                # a seed of the input's type, dtype and shape: the partial times the seed is the cotangent itself
                if type(out_bar) is type(x) and out_bar.dtype == x.dtype and out_bar.shape == x.shape:
                    bar = array_api(xp, out, x) * out_bar
                    if type(bar) is type(x) and bar.dtype == x.dtype and bar.shape == x.shape:
                        return _NO_TANGENT, bar
                return pullback_of(f, out, (x,), xp)(out_bar)  # type: ignore[no-any-return]

            return out, real_foreign_pullback
        out = f(x)
        if tx is float:  # a float seed's cotangent in Python arithmetic where ``floats`` answers

            def float_pullback(out_bar: Any) -> tuple[Any, Any]:
                if type(out_bar) is float or type(out_bar) is np.float64:
                    if floats is not None:
                        try:
                            bar = floats(out, x) * out_bar
                        except (ArithmeticError, ValueError):  # numpy answers below: inf, nan
                            bar = None
                        if type(bar) is float:
                            return _NO_TANGENT, bar
                        if type(bar) is np.float64:
                            return _NO_TANGENT, float(bar)
                    bar = partials(out, np.float64(x)) * out_bar
                    if type(bar) is np.float64 or type(bar) is float:
                        return _NO_TANGENT, float(bar)
                return pullback_of(f, out, (x,))(out_bar)  # type: ignore[no-any-return]

            return out, float_pullback
        if type(x) is np.ndarray and x.dtype.kind == "f":  # a real seed of the output's shape into the partial
            shape = out.shape if type(out) is np.ndarray else ()

            def real_array_pullback(out_bar: Any) -> tuple[Any, Any]:
                if type(out_bar) is np.ndarray and out_bar.shape == shape and out_bar.dtype.kind == "f":
                    # A real product means a real partial, which needs no conjugate; one expression lets numpy
                    # write the product into the partial it has just made.
                    bar = partials(out, x) * out_bar
                    if type(bar) is np.ndarray and bar.dtype == x.dtype and bar.shape == x.shape:
                        return _NO_TANGENT, bar
                return pullback_of(f, out, (x,))(out_bar)  # type: ignore[no-any-return]

            return out, real_array_pullback
        return out, pullback_of(f, out, (x,))

    return _rrule_scalar


def _many_arguments(f: Any, args: tuple[Any, ...], partials: Partials, pullback_of: Callable[..., Any]) -> Any:
    """``f(*args)`` with a pullback that takes a numpy float or array seed of the output's shape itself (without
    projectors where a cotangent fits its argument already), every other seed through the general pullback."""
    out = f(*args)
    shape = out.shape if type(out) is np.ndarray else ()

    def scalar_pullback(out_bar: Any) -> tuple[Any, ...]:
        t = type(out_bar)
        if (t is np.ndarray and out_bar.shape == shape) or ((t is float or t is np.float64) and not shape):
            ps = partials(out, *_as_partial_arguments(args))
            return (_NO_TANGENT, *[_cotangent(a, p, out_bar) for a, p in zip(args, ps)])
        return pullback_of(f, out, args)(out_bar)  # type: ignore[no-any-return]

    return out, scalar_pullback


def _numpy_only(x: Any, rest: tuple[Any, ...]) -> bool:
    """Whether every argument is computed with numpy (a numpy array or scalar, a Python number): the fast paths'
    arguments; any other library's array goes to the rule."""
    for a in (x, *rest):
        t = type(a)
        if t is not np.ndarray and t is not float and t is not int and not is_numpy_like(a):
            return False
    return True


def _as_partial_arguments(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """``_python_numbers_as_numpy(args)``, which float and complex arrays, the common arguments, pass unchanged."""
    for a in args:
        t = type(a)
        if t is not np.ndarray or a.dtype.kind not in "fc":
            return _python_numbers_as_numpy(args)
    return args


def _cotangent(x: Any, partial: Any, out_bar: Any) -> Any:
    """``cotangent_from_partial(ProjectTo(x), shape_of(x), partial, out_bar)``; without a projector when it fits.

    A real partial needs no conjugate, and a product of ``x``'s dtype and
    shape (or a numpy float for a float ``x``) no summing or projection; a
    float broadcast into an array gets the sum of its products.
    """
    t = type(x)
    if t is float:
        if type(partial) is np.float64 or (type(partial) is np.ndarray and partial.dtype.kind == "f"):
            bar = partial * out_bar
            if type(bar) is np.float64:
                return float(bar)
            if type(bar) is np.ndarray and bar.dtype.kind == "f":
                return float(np.add.reduce(bar, axis=None))
            return ProjectTo(x)(sum_to_shape(bar, ()))
    elif t is np.ndarray and type(partial) is np.ndarray and partial.dtype.kind == "f" and x.dtype.kind == "f":
        bar = partial * out_bar
        if type(bar) is np.ndarray and bar.shape == x.shape and bar.dtype == x.dtype:
            return bar
        return ProjectTo(x)(sum_to_shape(bar, x.shape))
    return cotangent_from_partial(ProjectTo(x), shape_of(x), partial, out_bar)


def _scalar_frule_fast_path(partials: Partials, floats: Partials | None) -> Callable[..., Any]:
    """``scalar_rule``'s frule of one argument: a Python float's tangent in Python arithmetic where ``floats``
    answers, a float or array tangent of its argument's shape without projection where it fits."""

    def _frule_scalar(rule: Any, tangents: tuple[Any, ...], f: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != 1:
            return rule(tangents, f, *args, **kwargs)
        (x,), x_dot = args, tangents[1]
        tx, t_dot = type(x), type(x_dot)
        if tx is float and t_dot is float:
            out = f(x)
            if floats is not None and type(out) is np.float64:
                try:
                    product = floats(out, x) * x_dot
                except (ArithmeticError, ValueError):  # numpy answers: inf, nan
                    product = None
                if type(product) is float or type(product) is np.float64:
                    return out, np.float64(product)
            out_dot = partials(out, np.float64(x)) * x_dot
            if type(out_dot) is np.float64 and type(out) is np.float64:
                return out, out_dot  # what fits(out, out_dot) passes on as it is
            return out, output_tangent(out, out_dot)
        if tx is np.ndarray and t_dot is np.ndarray and x_dot.shape == x.shape and x.dtype.kind in "fc":
            out = f(x)
            out_dot = partials(out, x) * x_dot
            return out, out_dot if fits(out, out_dot) else output_tangent(out, out_dot)
        return rule(tangents, f, x)

    return _frule_scalar
