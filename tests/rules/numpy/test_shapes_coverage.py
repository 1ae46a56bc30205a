"""Coverage: every numpy function of the shape, joining, selection, sorting, creation, product and
polynomial families is accounted for, with a rule, as non-differentiable, or with a reason for none.

A rule that goes missing fails here, and so does a function numpy adds to the modules these
families come from (``numpy.lib._shape_base_impl``, ``numpy.lib._polynomial_impl`` ...).
"""

import importlib
import operator
import warnings

import numpy as np
import pytest

import chainrules  # noqa: F401 - registers the rules
from chainrules import functional
from chainrules.checks.unsupported import UNSUPPORTED
from chainrules.functional import setitem
from chainrules_core import NoTangent, frule, rrule
from chainrules_core.testing import rand_tangent

X = np.arange(1.0, 7.0).reshape(2, 3)
V = np.array([1.0, -2.0, 3.0])
SQUARE = np.array([[2.0, 1.0], [0.5, 3.0]])


RULES = {
    # shapes
    "reshape": (np.reshape, (X, (3, 2))),
    "ravel": (np.ravel, (X,)),
    "ndarray.flatten": (np.ndarray.flatten, (X,)),
    "transpose": (np.transpose, (X,)),
    "permute_dims": (getattr(np, "permute_dims", np.transpose), (X,)),
    "matrix_transpose": (getattr(np, "matrix_transpose", None), (X,)),
    "linalg.matrix_transpose": (getattr(np.linalg, "matrix_transpose", None), (X,)),
    "swapaxes": (np.swapaxes, (X, 0, 1)),
    "moveaxis": (np.moveaxis, (X, 0, 1)),
    "rollaxis": (np.rollaxis, (X, 1)),
    "expand_dims": (np.expand_dims, (X, 0)),
    "squeeze": (np.squeeze, (X[None],)),
    "broadcast_to": (np.broadcast_to, (V, (2, 3))),
    "broadcast_arrays": (np.broadcast_arrays, (X, V)),
    "atleast_1d": (np.atleast_1d, (1.5,)),
    "atleast_2d": (np.atleast_2d, (V, X)),
    "atleast_3d": (np.atleast_3d, (X,)),
    "ndarray.astype": (np.ndarray.astype, (X, np.float32)),
    "astype": (getattr(np, "astype", None), (X, np.float32)),
    "flip": (np.flip, (X,)),
    "fliplr": (np.fliplr, (X,)),
    "flipud": (np.flipud, (X,)),
    "rot90": (np.rot90, (X,)),
    "roll": (np.roll, (X, 1)),
    # joining and splitting
    "concatenate": (np.concatenate, ([X, X],)),
    "concat": (getattr(np, "concat", np.concatenate), ([X, X],)),
    "stack": (np.stack, ([X, X],)),
    "vstack": (np.vstack, ([X, X],)),
    "hstack": (np.hstack, ([X, X],)),
    "dstack": (np.dstack, ([X, X],)),
    "column_stack": (np.column_stack, ([V, V],)),
    "row_stack": (getattr(np, "row_stack", None), ([X, X],)),
    "block": (np.block, ([[X, X]],)),
    "append": (np.append, (X, V)),
    "split": (np.split, (X, 3, 1)),
    "array_split": (np.array_split, (X, 2, 1)),
    "hsplit": (np.hsplit, (X, 3)),
    "vsplit": (np.vsplit, (X, 2)),
    "dsplit": (np.dsplit, (X[:, :, None].repeat(2, 2), 2)),
    "unstack": (getattr(np, "unstack", None), (X,)),
    "tile": (np.tile, (X, 2)),
    "repeat": (np.repeat, (X, 2)),
    "pad": (np.pad, (X, 1)),
    "resize": (np.resize, (X, (4, 4))),
    "trim_zeros": (np.trim_zeros, (np.array([0.0, 1.0, 0.0]),)),
    "insert": (np.insert, (V, 1, 5.0)),
    "delete": (np.delete, (V, 1)),
    # selection and indexing
    "where": (np.where, (X > 2, X, 0.0)),
    "ndarray.__getitem__": (np.ndarray.__getitem__, (X, 0)),
    "operator.getitem": (operator.getitem, (X, (slice(None), [0, 0]))),
    "take": (np.take, (X, [0, 1])),
    "take_along_axis": (np.take_along_axis, (X, np.zeros((2, 1), dtype=int), 1)),
    "choose": (np.choose, (np.array([0, 1, 0]), [V, 2 * V])),
    "compress": (np.compress, ([True, False], X, 0)),
    "ndarray.compress": (np.ndarray.compress, (X, [True, False], 0)),
    "extract": (np.extract, (X > 2, X)),
    "select": (np.select, ([X > 2], [X], 0.5)),
    "diag": (np.diag, (X,)),
    "diagflat": (np.diagflat, (V,)),
    "diagonal": (np.diagonal, (X,)),
    "linalg.diagonal": (getattr(np.linalg, "diagonal", None), (X,)),
    "tril": (np.tril, (X,)),
    "triu": (np.triu, (X,)),
    "chainrules.functional.setitem": (setitem, (X, 0, V)),
    "chainrules.functional.put": (functional.put, (X, [0, 4], V[:2])),
    "chainrules.functional.place": (functional.place, (X, X > 2, V)),
    "chainrules.functional.putmask": (functional.putmask, (X, X > 2, V)),
    "chainrules.functional.copyto": (functional.copyto, (X, V)),
    "chainrules.functional.fill_diagonal": (functional.fill_diagonal, (X, 1.5)),
    "chainrules.functional.put_along_axis": (
        functional.put_along_axis,
        (X, np.zeros((2, 1), dtype=int), V[:2, None], 1),
    ),
    # sorting
    "sort": (np.sort, (X,)),
    "partition": (np.partition, (V, 1)),
    "sort_complex": (np.sort_complex, (V,)),
    "unique": (np.unique, (V,)),
    "unique_values": (getattr(np, "unique_values", None), (V,)),
    "unique_counts": (getattr(np, "unique_counts", None), (V,)),
    "unique_inverse": (getattr(np, "unique_inverse", None), (V,)),
    "unique_all": (getattr(np, "unique_all", None), (V,)),
    "union1d": (np.union1d, (V, X)),
    "setdiff1d": (np.setdiff1d, (X, V)),
    "setxor1d": (np.setxor1d, (V, X + 0.5)),
    "intersect1d": (np.intersect1d, (V, X)),
    # creation
    "array": (np.array, (X,)),
    "asarray": (np.asarray, (X,)),
    "asanyarray": (np.asanyarray, (X,)),
    "require": (np.require, (X,)),
    "copy": (np.copy, (X,)),
    "ascontiguousarray": (np.ascontiguousarray, (X,)),
    "asfortranarray": (np.asfortranarray, (X,)),
    "full": (np.full, ((2,), 1.5)),
    "full_like": (np.full_like, (X, 1.5)),
    "linspace": (np.linspace, (0.5, 2.0, 4)),
    "logspace": (np.logspace, (0.5, 2.0, 4)),
    "geomspace": (np.geomspace, (0.5, 2.0, 4)),
    "meshgrid": (np.meshgrid, (V, V)),
    "vander": (np.vander, (V,)),
    # products
    "matmul": (np.matmul, (X, X.T)),
    "linalg.matmul": (getattr(np.linalg, "matmul", None), (X, X.T)),
    "dot": (np.dot, (X, V)),
    "vdot": (np.vdot, (V, V)),
    "inner": (np.inner, (X, V)),
    "outer": (np.outer, (V, V)),
    "linalg.outer": (getattr(np.linalg, "outer", None), (V, V)),
    "tensordot": (np.tensordot, (X, X, 2)),
    "linalg.tensordot": (getattr(np.linalg, "tensordot", None), (X, X)),
    "einsum": (np.einsum, ("ij,j", X, V)),
    "kron": (np.kron, (X, V)),
    "cross": (np.cross, (V, 2 * V + 1)),
    "linalg.cross": (getattr(np.linalg, "cross", None), (V, 2 * V + 1)),
    "vecdot": (getattr(np, "vecdot", None), (X, V)),
    "linalg.vecdot": (getattr(np.linalg, "vecdot", None), (X, V)),
    "matvec": (getattr(np, "matvec", None), (X, V)),
    "vecmat": (getattr(np, "vecmat", None), (V[:2], X)),
    "linalg.multi_dot": (np.linalg.multi_dot, ([X, X.T, SQUARE],)),
    # polynomials
    "polyval": (np.polyval, (V, 0.5)),
    "polyder": (np.polyder, (V,)),
    "polyint": (np.polyint, (V,)),
    "polyadd": (np.polyadd, (V, V[:2])),
    "polysub": (np.polysub, (V, V[:2])),
    "polymul": (np.polymul, (V, V[:2])),
    "polydiv": (np.polydiv, (V, V[:2])),
    "polyfit": (np.polyfit, (V, 2 * V, 1)),
    "roots": (np.roots, (np.array([1.0, -3.0, 2.0]),)),
    "poly": (np.poly, (V,)),
}
"""Functions with an frule and an rrule, each with a plain call to try them on."""

NON_DIFFERENTIABLE = {
    "shape": np.shape,
    "ndim": np.ndim,
    "size": np.size,
    "broadcast_shapes": np.broadcast_shapes,
    "argsort": np.argsort,
    "argpartition": np.argpartition,
    "lexsort": np.lexsort,
    "searchsorted": np.searchsorted,
    "digitize": np.digitize,
    "isin": np.isin,
    "nonzero": np.nonzero,
    "flatnonzero": np.flatnonzero,
    "argwhere": np.argwhere,
    "argmax": np.argmax,
    "argmin": np.argmin,
    "nanargmax": np.nanargmax,
    "nanargmin": np.nanargmin,
    "zeros": np.zeros,
    "ones": np.ones,
    "empty": np.empty,
    "zeros_like": np.zeros_like,
    "ones_like": np.ones_like,
    "empty_like": np.empty_like,
    "eye": np.eye,
    "identity": np.identity,
    "tri": np.tri,
    "indices": np.indices,
    "arange": np.arange,
    "ix_": np.ix_,
    "ravel_multi_index": np.ravel_multi_index,
    "unravel_index": np.unravel_index,
    "tril_indices": np.tril_indices,
    "triu_indices": np.triu_indices,
    "diag_indices": np.diag_indices,
    "tril_indices_from": np.tril_indices_from,
    "triu_indices_from": np.triu_indices_from,
    "diag_indices_from": np.diag_indices_from,
}
"""Functions registered as non-differentiable: their outputs are integers, shapes or constants."""

IN_PLACE = {
    "put_along_axis": functional.put_along_axis,
    "put": functional.put,
    "place": functional.place,
    "putmask": functional.putmask,
    "copyto": functional.copyto,
    "fill_diagonal": functional.fill_diagonal,
    "ndarray.__setitem__": setitem,
    "operator.setitem": setitem,
    "ndarray.sort": np.sort,
    "ndarray.partition": np.partition,
}
"""numpy's in-place updates, whose rules raise ``TypeError`` naming the form that returns a new array."""


def _qualified(name):
    return name if name.startswith("operator.") else f"numpy.{name}"


NO_RULE = {
    **{
        name: f"no rule: {UNSUPPORTED[_qualified(name)]}"
        for name in ("fromfunction",)  # the reasons are chainrules.checks.unsupported's
    },
    # not candidates (chainrules/checks/candidates.txt): no peer differentiates them
    "mask_indices": "no rule: it takes a size, a function and an offset, and returns integer indices",
    "poly1d": "no rule: a class; the polynomial functions refuse poly1d arguments (None)",
}
"""Functions without a rule: ``rrule`` and ``frule`` answer ``None``."""

OTHER_FAMILIES = {
    "apply_along_axis": "numpy.higher_order",
    "ediff1d": "statistics",
    "piecewise": "numpy.higher_order",
    "apply_over_axes": "higher-order functions (no rule)",
    "histogram2d": "statistics (no rule)",
}
"""Functions of the modules below that belong to other families."""

MODULES = (
    "numpy._core.shape_base",
    "numpy.lib._shape_base_impl",
    "numpy.lib._polynomial_impl",
    "numpy.lib._twodim_base_impl",
    "numpy._core.function_base",
    "numpy.lib._stride_tricks_impl",
    "numpy.lib._arraysetops_impl",
)
"""numpy's modules whose every public function belongs to these families (or is listed in OTHER_FAMILIES)."""


def _resolve(name):
    if name.startswith("chainrules.functional."):
        return getattr(functional, name.rsplit(".", 1)[1])
    owner = np
    for part in name.split("."):
        owner = {"linalg": np.linalg, "ndarray": np.ndarray, "operator": operator}.get(part) or getattr(
            owner, part, None
        )
        if owner is None:
            return None
    return owner


def test_tables_are_disjoint():
    """A function has one status."""
    names = [*RULES, *NON_DIFFERENTIABLE, *IN_PLACE, *NO_RULE, *OTHER_FAMILIES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("module", MODULES)
def test_every_function_of_the_families_is_listed(module):
    """numpy's public functions in these modules all appear in one of the tables."""
    try:
        public = set(importlib.import_module(module).__all__)
    except ImportError:
        pytest.skip(f"{module} is not in this numpy (numpy {np.__version__})")
    listed = {*RULES, *NON_DIFFERENTIABLE, *IN_PLACE, *NO_RULE, *OTHER_FAMILIES}
    missing = {name for name in public if hasattr(np, name)} - listed
    assert not missing, f"{module}: functions neither ruled nor listed: {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(RULES))
def test_has_both_rules(name):
    """A plain call has an rrule and an frule, registered as rules (not as non-differentiable)."""
    f, args = RULES[name]
    if f is None:
        pytest.skip(f"{name} is not in numpy {np.__version__}")
    rule = rrule.find(f, *args)
    assert rule is not None, f"{name} has no rrule"
    answering = getattr(rule, "__self__", rule)  # a fast path is bound to the rule it belongs to
    assert {r.kind for r in rrule.records() if r.primal is f and r.rule is answering} == {"rule"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # row_stack; 2-vectors in cross
        assert rrule(f, *args) is not None
        tangents = (NoTangent(), *(rand_tangent(a, 0) for a in args))
        assert frule(tangents, f, *args) is not None, f"{name} has no frule"


@pytest.mark.parametrize("name", sorted(NON_DIFFERENTIABLE))
def test_non_differentiable_are_registered_as_such(name):
    """Index-, shape- and constant-valued functions are registered as non-differentiable."""
    f = NON_DIFFERENTIABLE[name]
    assert "non_differentiable" in {r.kind for r in rrule.records() if r.primal is f}, f"{name} is not registered"


@pytest.mark.parametrize("name", sorted(NO_RULE))
def test_without_a_rule_says_why(name):
    """Functions without a rule have a reason, and no rule is registered for them."""
    assert NO_RULE[name].startswith("no rule: ")
    f = _resolve(name)
    if f is None:
        pytest.skip(f"{name} is not in numpy {np.__version__}")
    assert not [r for r in rrule.records() if r.primal is f]
    assert not [r for r in frule.records() if r.primal is f]


@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_in_place_updates_refuse_and_name_their_form(name):
    """``rrule`` and ``frule`` of an in-place update raise ``TypeError`` naming the function and the form to use;
    the form has both rules."""
    f = _resolve(name)
    x = X.copy()
    args = (x, 0, 1.5) if "setitem" in name else (x,)
    for call in (lambda: rrule(f, *args), lambda: frule((NoTangent(), *(NoTangent() for _ in args)), f, *args)):
        with pytest.raises(TypeError, match=name.rsplit(".", 1)[-1]) as raised:
            call()
        assert IN_PLACE[name].__name__ in str(raised.value)
    assert np.array_equal(x, X), "a refusal leaves the array alone"
    assert {r.kind for r in rrule.records_for(f)} == {"refusal"}
    if name != "operator.setitem":
        return
    assert rrule(f, [1.0, 2.0], 0, 3.0) is None, "operator.setitem refuses arrays alone: a list gets no rule"
