"""Registration refuses only what can never be called; a rule that takes some of a primal's calls is registered."""

from __future__ import annotations

import functools
import math
import operator
import subprocess
import sys

import numpy as np
import pytest

from chainrules_core import NoTangent, frule, rrule
from chainrules_core._registration import check_rule_signature, positional_counts


def _identity_rule(f: object, *args: object) -> tuple[object, object]:
    return f(*args), lambda out_bar: (NoTangent(), *(out_bar for _ in args))  # type: ignore[operator]


def test_a_rule_for_the_calls_that_give_a_defaulted_argument_registers_and_answers_them() -> None:
    def g(x: float, w: float = 1.0) -> float:
        return w * x

    @rrule.register(g)
    def _rrule_g(f: object, x: float, w: float) -> tuple[float, object]:
        return g(x, w), lambda out_bar: (NoTangent(), w * out_bar, x * out_bar)

    y, pullback = rrule(g, 2.0, 3.0)
    assert y == 6.0 and pullback(1.0) == (NoTangent(), 3.0, 2.0)
    assert rrule(g, 2.0) is None  # g(x): a call the rule does not take finds no rule, as in ChainRules.jl


def test_a_rule_with_defaults_takes_the_calls_within_its_counts() -> None:
    def g(x: float, w: float = 1.0, v: float = 0.0) -> float:
        return w * x + v

    rrule.register(g)(lambda f, x, w=1.0: (f(x, w), lambda out_bar: (NoTangent(), w * out_bar, x * out_bar)))
    assert rrule(g, 2.0)[0] == 2.0
    assert rrule(g, 2.0, 3.0)[1](1.0) == (NoTangent(), 3.0, 2.0)
    assert rrule(g, 2.0, 3.0, 1.0) is None


@pytest.mark.parametrize(
    ("primal_signature", "rule"),
    [
        ("x, *rest", lambda f, x, y, z: None),  # *args: any number from 1
        ("x, *, w", lambda f, x: None),  # keyword-only parameters take no position
        ("x, w=1.0", lambda f, *args: None),
        ("x, /, y", lambda f, x, y, *, axis=None: None),
        ("x, y=1.0", lambda f, x, y, *, mode: None),  # a required keyword-only parameter: calls that give it
    ],
)
def test_signatures_that_share_a_count_register(primal_signature: str, rule: object) -> None:
    namespace: dict[str, object] = {}
    exec(f"def p({primal_signature}):\n    return x", namespace)
    rrule.register(namespace["p"])(rule)


def test_a_rule_whose_counts_meet_none_of_the_calls_is_refused_naming_both() -> None:
    def g(x: float, w: float = 1.0) -> float:
        return w * x

    with pytest.raises(TypeError, match=r"it takes 3 positional arguments after f, and a call of .*g has 1 or 2"):
        rrule.register(g)(lambda f, x, w, v: None)
    with pytest.raises(TypeError, match=r"cannot be called as rule\(f, x1, \.\.\.\): it cannot take f first"):
        rrule.register(g)(lambda: None)
    with pytest.raises(TypeError, match=r"cannot be called as rule\(tangents, f, x1, \.\.\.\)"):
        frule.register(g)(lambda tangents: None)
    with pytest.raises(TypeError, match=r"cannot be called as rule\(config, f, x1, \.\.\.\)"):
        rrule.register(g, config=True)(lambda f: None)
    with pytest.raises(TypeError, match=r"takes 1 positional argument after f, and a call of np.add has 2 or 3"):
        rrule.register(np.add)(lambda f, x: None)
    with pytest.raises(TypeError, match=r"takes 1 positional argument after f, and its argument types give 2"):
        rrule.register(g, float, float)(lambda f, x: None)
    rrule.register(g)(lambda f, x, w: (x, None))
    with pytest.raises(TypeError, match=r"cannot be called as rule\(rule, f, x1, \.\.\.\)"):
        rrule.fast_path(g)(lambda f, x: None)


def test_a_ufunc_takes_its_outputs_by_position_too() -> None:
    assert positional_counts(np.add) == (2, 3)
    assert positional_counts(np.divmod) == (2, 4)
    # a rule for np.add that takes out= by position covers every call
    assert check_rule_signature("rrule.register", np.add, lambda f, x, y, out=None: None, (), ()) is None


class Scale:
    def __init__(self, a: float = 2.0) -> None:
        self.a = a

    def __call__(self, x: float, w: float = 1.0) -> float:
        return self.a * w * x


def test_classes_and_their_constructors_register_by_their_calls_and_are_named_as_written() -> None:
    rrule.register(type[Scale])(lambda f, a: (f(a), lambda out_bar: (NoTangent(), out_bar.a)))
    rrule.register(Scale)(lambda s, x: (s(x), lambda out_bar: (NoTangent(), s.a * out_bar)))
    assert rrule(Scale, 3.0)[0].a == 3.0
    assert rrule(Scale(), 5.0)[1](1.0) == (NoTangent(), 2.0)
    assert rrule(Scale(), 5.0, 2.0) is None  # the instance's call with w: not a call the rule takes
    refusal = r"rrule.register\(type\[.*Scale\]\): the rule .* a call of type\[.*Scale\] has 0 or 1"
    with pytest.raises(TypeError, match=refusal):
        rrule.register(type[Scale])(lambda f, a, b: None)


def test_builtins_without_a_signature_and_partials_register() -> None:
    """A signature Python cannot read accepts any rule that takes ``f``; a partial takes its remaining arguments.

    (Registering for ``max`` itself would change it for every test: registration's check is called directly.)
    """
    assert positional_counts(max) is None and positional_counts(getattr) is None  # no signature Python can read
    assert check_rule_signature("rrule.register", max, _identity_rule, (), ()) is None
    assert check_rule_signature("rrule.register", getattr, lambda f, obj, name, *default: None, (), ()) is None
    assert positional_counts(math.atan2) == (2, 2)  # a builtin with a text signature is read
    with pytest.raises(TypeError, match=r"a call of math\.atan2 has 2"):
        check_rule_signature("rrule.register", math.atan2, lambda f, x: None, (), ())
    own_max = functools.partial(max)  # a callable whose signature cannot be read, registered by identity
    rrule.register(own_max)(lambda f, *args: (f(*args), lambda out_bar: (NoTangent(), *(0.0 for _ in args))))
    assert rrule(own_max, 1.0, 2.0)[0] == 2.0
    half = functools.partial(operator.mul, 0.5)
    rrule.register(half)(lambda f, x: (f(x), lambda out_bar: (NoTangent(), 0.5 * out_bar)))
    assert rrule(half, 4.0)[1](1.0) == (NoTangent(), 0.5)
    with pytest.raises(TypeError, match=r"takes 2 positional arguments after f, and a call of .*partial.* has 1"):
        rrule.register(half)(lambda f, x, y: None)


def test_a_bound_method_stays_refused_naming_the_function_to_register() -> None:
    with pytest.raises(TypeError, match=r"register the function .*Scale.__call__"):
        rrule.register(Scale().__call__)
    with pytest.raises(TypeError, match=r"register the function np.ndarray.sum"):
        rrule.register(np.ones(2).sum)


def test_a_primal_or_rule_that_is_not_callable_is_refused() -> None:
    with pytest.raises(TypeError, match=r"the primal must be a function, a class or type\[C\], got a float"):
        rrule.register(1.5)
    with pytest.raises(TypeError, match=r"the rule must be callable"):
        rrule.register(np.sin)(None)


def test_every_rule_of_the_package_can_take_a_call_of_its_primal() -> None:
    """The package's own registrations are read here rather than at import (they would double its time)."""
    import chainrules  # noqa: F401 - registers the rules

    for library in ("scipy.special", "scipy.linalg", "scipy.fft"):  # their rules register as they are imported
        pytest.importorskip(library)
    refusals = rrule.registry.check_signatures() + frule.registry.check_signatures()
    assert not refusals, "\n".join(refusals)


def test_importing_the_package_reads_no_signature() -> None:
    """Only numpy's own modules, loaded as the rules name its functions, read signatures at import."""
    code = (
        "import inspect, sys\n"
        "calls = []\n"
        "original = inspect.signature\n"
        "def counted(f, *args, **kwargs):\n"
        "    caller = sys._getframe(1).f_globals.get('__name__', '')\n"
        "    calls.extend([caller] if caller.startswith('chainrules') else [])\n"
        "    return original(f, *args, **kwargs)\n"
        "inspect.signature = counted\n"
        "import chainrules\n"
        "print(len(calls), *calls)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0"], out.stdout
