"""Type inference for one Python function: a type for every parameter and variable.

Python input is mostly unannotated, but the IR is typed (``f64``, ``i64``,
``bool``, ``array<elem, rank>``), so types come from annotations where given
and otherwise from how names are used, as DESIGN.md asks:

* a subscripted parameter (or one whose ``.shape``/``len`` is taken, or that is
  passed where a callee expects an array) is an array; its rank is the number
  of indices used (``a[i, j]`` and ``a[i][j]``: 2; ``n, m = A.shape``: exactly 2);
  its elements are ``i64`` when every element loaded from it is used in an
  integer context (an index, a ``range`` bound), otherwise ``f64``;
* a parameter used in an integer context is ``i64``, otherwise ``f64``;
* a local has the join of the types of the values assigned to it, computed to
  a fixpoint (int joined with float is float: the lowering casts);
* integer context flows backwards through assignments: when a local is used
  as an index, whatever is assigned to it is in integer context too.

Every variable gets exactly one type for the whole function (like Numba's
unification), which is what lets loop-carried values and branch results be
typed before their regions are lowered. Conflicts (an array and a scalar in
one name) are not reported here: lowering reports them at the assignment that
does not fit, so each problem gives one message. Only annotation problems are
diagnosed here, since lowering never looks at annotations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, TypeVar, Union

import libcst as cst

from ..diagnostics import Diagnostic
from ..ssa.ops import MATH_FNS
from ..ssa.mpi import Communicator
from ..ssa.types import BOOL, COMM, F64, I64, STR, ArrayType, ScalarType, Type, common_type
from . import py_intrinsics as lib
from .py_intrinsics import PAIRS, pair_part
from . import py_mpi
from .py_common import Locator
from .py_flow import (assigned_names, children, every_node, is_new_axis, is_shape_subscript, is_whole_slice,
                      subscript_chain, walk)
from .py_rank_uses import MAX_AXES
from .py_iter import EnumerateIter, ItemsIter, Iter, IterError, Leaf, RangeIter, leaves, read_iter
from .py_module import ModuleInfo, Number, evaluate_constant
from .py_strings import is_string, string_compared
from .py_numba_signatures import stated_types
from .py_params import bind_arguments, parameters
from .py_products import Product, guessed_ranks, product_operands, transposed_name
from .py_rank_free import RankFreeUses, param_uses
from .py_rank_uses import RankUses


@dataclass
class Signature:
    """What a caller needs to know of a user function."""

    name: str
    param_names: list[str]
    param_types: list[Type]
    defaults: list[Optional[Union[Number, str]]]  # (a string parameter's: its literal)
    result: Optional[Type]  # None: the function returns no value, or a tuple
    # Parameters whose kind or rank is assumed, not proven (see FunctionTypes.assumed).
    assumed: frozenset[str] = frozenset()
    # Those of them whose rank no generated code depends on (see FunctionTypes.rank_free).
    rank_free: frozenset[str] = frozenset()
    # A function that returns a tuple (``return s, t``): the type of each of its values.
    tuple_result: Optional[tuple[Type, ...]] = None
    # How many of the parameters may be passed by position: the rest are keyword-only
    # (``def f(x, *, scale=2.0)``). None: all of them.
    positional: Optional[int] = None
    numpy_params: frozenset[str] = frozenset()  # (FunctionTypes.numpy_params)
    number_params: frozenset[str] = frozenset()  # (FunctionTypes.number_params)


@dataclass
class FunctionTypes:
    """The result of inference: one type per parameter and variable."""

    params: list[Type]
    vars: dict[str, Type]
    result: Optional[Type]
    returns_array: bool = False
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # Callees whose result this function uses as an integer (an index, a range bound).
    int_demands: set[str] = field(default_factory=set)
    # Array parameters annotated with a shape ("f64[n]"): name -> extents as source text.
    shapes: dict[str, list[str]] = field(default_factory=dict)
    # Parameters whose kind or rank the code does not prove, in parameter order: name -> the
    # rank assumed (0: a number; a parameter the function never reads is taken for one). Where
    # the generated code depends on it, the entry gradient checks each at run time (the
    # pipeline makes them the gradient's "guards" attribute), so that a guess is never
    # silently wrong; C and CUDA output, whose signatures nothing checks, refuse them all.
    assumed: dict[str, int] = field(default_factory=dict)
    # The assumed parameters whose rank no generated Python depends on: arrays only reduced as a
    # whole (``np.sum(W)``), parameters never read. They need no check at run time.
    rank_free: frozenset[str] = frozenset()
    # The assumed parameters whose values reach a whole reduction other than a sum (``np.mean``,
    # ``np.max``) of a value typed a number (``np.mean((z - y) ** 2)`` with ``z = affine(x, a, c)``):
    # the IR has it as the number itself, which is the reduction only of a number. They stay
    # checked to be numbers, never served at any shape (``adjoint.shape_generic``): an array there
    # would make the mean's adjoint miss its 1 / n.
    reduced_numbers: frozenset[str] = frozenset()
    # ``return s, t``: one type per returned value (``result`` is then None). The IR function
    # has that many results, and its gradient one seed per value.
    tuple_result: Optional[tuple[Type, ...]] = None
    # The locals that are Python lists (typed as arrays of their items, one axis more).
    lists: frozenset[str] = frozenset()
    # The type of each ``sum(...)`` call (its accumulator) and of each list comprehension and
    # list literal (an array of the items, one axis more).
    node_types: dict[cst.CSTNode, Type] = field(default_factory=dict)
    # The types of the positional arguments of each call of a function of the file (None where
    # not known): what ``py_specialize`` types the callee's parameters from.
    call_args: dict[cst.Call, list[Optional[Type]]] = field(default_factory=dict)
    # Parameters typed from the callers' arguments (never assumed here) whose values reach NumPy
    # as an array's would (``np.sum(t)``): the caller's argument may be an array, and is a guess
    # there as if the caller had passed it to NumPy itself.
    numpy_params: frozenset[str] = frozenset()
    # The assumed parameters the code reads item by item (``for row in Z``, ``Z[i]``, ``a, b = Z``,
    # ``zip(Z, w)``): the rank decides what an item is, even where the IR keeps nothing of those
    # reads (``for row in Z: row -= m`` writes rows in place at rank 2 and is dead code at rank 1).
    # Never shape-generic: their rank check stays.
    read_by_item: frozenset[str] = frozenset()
    # Float parameters whose values reach what takes numbers only (``math.sin(y)``, an ``if``
    # test): a caller's argument there is a number, as if the caller had passed it there itself.
    number_params: frozenset[str] = frozenset()


@dataclass
class _ArrayAnnotation:
    elem: Optional[ScalarType]
    shape: Optional[list[str]] = None  # from "f64[n, m]": the extents, as source text
    rank: Optional[int] = None  # stated without extents (a Numba signature's "f8[:, :]")


# Element types of shape annotations ("f64[n]", "i64[n, 3]"): they say what C output needs.
_SHAPE_ELEMS = {"f64": F64, "float64": F64, "i64": I64, "int64": I64}


_NONE = "none"  # the annotation `-> None`
_TUPLES = {"builtins.tuple", "typing.Tuple"}


@dataclass
class _ArrayEvidence:
    rank_uses: set[int] = field(default_factory=set)
    min_rank: int = 0
    exact_rank: Optional[int] = None
    exact_assumed: bool = False  # exact_rank comes from a callee parameter whose rank is assumed
    # The indices of each subscript without slices (``a[i, j]``): an element access proves the rank.
    element_uses: list[list[cst.BaseExpression]] = field(default_factory=list)
    element_nodes: list[cst.Subscript] = field(default_factory=list)  # the subscripts of element_uses
    forced_elem: Optional[ScalarType] = None
    loads: set[int] = field(default_factory=set)
    int_loads: set[int] = field(default_factory=set)


@dataclass
class _Aug:
    """``name op= value``."""

    op: cst.BaseAugOp
    value: cst.BaseExpression


@dataclass
class _Item:
    """An item of the sequence ``seq`` (``for v in x``): an element, or a matrix's row."""

    seq: cst.BaseExpression


@dataclass
class _ListOf:
    """A list: ``[a, b]`` and ``[]`` (its items), a list comprehension, or ``name.append(v)``
    (one more item)."""

    items: list[cst.BaseExpression]


_Assigned = Union[cst.BaseExpression, Type, _Aug, _Item, _ListOf]

Comprehension = Union[cst.ListComp, cst.GeneratorExp]


def comprehension_clauses(node: Comprehension) -> list[cst.CompFor]:
    """The ``for ... in ... if ...`` clauses of a comprehension, outermost first."""
    out = []
    clause: Optional[cst.CompFor] = node.for_in
    while clause is not None:
        out.append(clause)
        clause = clause.inner_for_in
    return out


def _is_part(target: cst.BaseExpression) -> bool:
    """An assignment target that is a part of an array (``A[1, :]``, ``x[2:]``, ``A[...]``), which
    takes an array of its shape as well as a number."""
    return isinstance(target, cst.Subscript) and any(
        isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Ellipsis) or isinstance(e.slice, cst.Slice)
        for e in target.slice)


def join(a: Optional[Type], b: Optional[Type]) -> Optional[Type]:
    """The type that holds values of both; on an array/scalar conflict, the first wins."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    if isinstance(a, ArrayType) or isinstance(b, ArrayType):
        if isinstance(a, ArrayType) and isinstance(b, ArrayType) and a.rank == b.rank:
            return ArrayType(join(a.elem, b.elem), a.rank)  # type: ignore[arg-type]
        return a
    if a.is_float or b.is_float:
        return F64
    return I64  # int with bool


def arith_type(
    op: cst.CSTNode, a: Optional[Type], b: Optional[Type], exponent_literal: Optional[int] = None
) -> Optional[Type]:
    """The type of ``a <op> b`` under Python's rules (``/`` is always float); NumPy's for arrays."""
    if isinstance(a, ArrayType) or isinstance(b, ArrayType):
        if a is None or b is None:
            return None
        if isinstance(op, cst.MatrixMultiply):
            rank = _rank(a) + _rank(b) - 2
            return ArrayType(F64, rank) if rank > 0 else F64
        elems = [t.elem if isinstance(t, ArrayType) else t for t in (a, b)]
        float_op = isinstance(op, (cst.Divide, cst.DivideAssign, cst.Power, cst.PowerAssign))
        elem = F64 if float_op or any(e.is_float for e in elems) else I64
        return ArrayType(elem, max(_rank(a), _rank(b)))
    if isinstance(op, (cst.Divide, cst.DivideAssign)):
        return F64
    if a is None or b is None:
        return F64 if (a is not None and a.is_float) or (b is not None and b.is_float) else None
    if a.is_float or b.is_float:
        return F64
    if isinstance(op, (cst.Power, cst.PowerAssign)):
        # int ** int is an int only for a non-negative literal exponent (2 ** -1 is 0.5).
        return I64 if exponent_literal is not None and exponent_literal >= 0 else F64
    return I64


def _rank(t: Type) -> int:
    return t.rank if isinstance(t, ArrayType) else 0


def default_value(node: Optional[cst.BaseExpression], info: ModuleInfo) -> Optional[Union[Number, str, Communicator]]:
    """A parameter's default as the gradient keeps it: a number, a string literal's value, or a
    communicator (``comm=MPI.COMM_WORLD``)."""
    if is_string(node):
        return node.evaluated_value  # type: ignore[union-attr]
    comm = py_mpi.communicator_default(node, info)
    if comm is not None:
        return comm
    return evaluate_constant(node, info) if node is not None else None


def int_literal(node: cst.BaseExpression) -> Optional[int]:
    """The value of an integer literal, also a negated one (``-1``)."""
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = int_literal(node.expression)
        return -inner if inner is not None else None
    return None


def positional_args(call: cst.Call) -> list[cst.BaseExpression]:
    return [a.value for a in call.args if a.keyword is None and not a.star]


def nonzero_positions(node: cst.BaseExpression, info: "ModuleInfo", locals_: frozenset
                      ) -> Optional[tuple[cst.BaseExpression, int]]:
    """``np.where(m)[k]``, ``np.nonzero(m)[k]`` (one argument, a literal ``k``): the array ``m``
    and the axis whose positions of the nonzero entries the subscript reads; else None."""
    if not (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Call) and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)):
        return None
    call, k = node.value, int_literal(node.slice[0].slice.value)
    args = positional_args(call)
    if k is None or k < 0 or len(args) != 1 or len(call.args) != 1 \
            or info.canonical_name(call.func, locals_) not in ("numpy.where", "numpy.nonzero"):
        return None
    return args[0], k


def iterable_extremum(call: cst.Call, canonical: Optional[str]) -> bool:
    """``max(items)`` / ``min(items)``: Python's one-iterable form (two or more arguments compare
    the arguments themselves)."""
    return canonical in ("builtins.max", "builtins.min") and len(positional_args(call)) == 1 and \
        not any(a.star for a in call.args)


def keyword_arg(call: cst.Call, name: str) -> Optional[cst.BaseExpression]:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == name:
            return a.value
    return None


def bincount_args(call: cst.Call) -> tuple[Optional[cst.BaseExpression], Optional[cst.BaseExpression]]:
    """The weights and the minlength of ``np.bincount(idx, weights, minlength)``, each given
    positionally or by keyword; None where not given."""
    args = positional_args(call)
    return (args[1] if len(args) > 1 else keyword_arg(call, "weights"),
            args[2] if len(args) > 2 else keyword_arg(call, "minlength"))


# Library calls that are elementwise arithmetic on their operands (``np.add``, ``np.clip``).
_ELEMENTWISE_CALLS = ("add", "sub", "mul", "div", "neg", "pos", "reciprocal", "float_power", "clip", "power",
                      "square", "logit", *lib.ELEMENTWISE_SPECIAL)
# Whole reductions the IR takes a number to be its own value of, which only a sum is at any shape.
_WHOLE_OF_A_NUMBER = frozenset({"mean", "max_reduce", "min_reduce", "prod", "var", "std", "median", "average",
                                "percentile", "quantile"})
# Reductions and scans that need an array operand (``np.var``, ``np.cumsum``).
_STATISTICS = ("prod", "var", "std", "cumsum", "cumprod", "sort", "argsort", "running_max", "running_min", "median",
               "percentile", "quantile")


def method_of(node: cst.Call, locals_: frozenset, info: ModuleInfo) -> Optional[tuple[lib.Intrinsic, str]]:
    """``x.sum(...)`` with ``x`` a local: the intrinsic it stands for and the method's name."""
    func = node.func
    if not (isinstance(func, cst.Attribute) and func.attr.value in lib.METHODS):
        return None
    if info.canonical_name(func, locals_) is not None:
        return None  # a library function (np.sum), not a method
    return lib.METHODS[func.attr.value], func.attr.value


def appended_list(node: cst.Call) -> Optional[str]:
    """``name`` of a ``name.append(...)`` call."""
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value == "append" and isinstance(func.value, cst.Name):
        return func.value.value
    return None


def _is_true(node: Optional[cst.BaseExpression]) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def _einsum_terms(args: list[cst.BaseExpression]) -> Optional[tuple[list[str], str]]:
    """The terms and output of ``np.einsum``'s literal subscripts (implicit output made explicit)."""
    if not args or not isinstance(args[0], cst.SimpleString):
        return None
    subs = "".join(str(args[0].evaluated_value).split())
    if "->" not in subs:
        letters = subs.replace(",", "")
        subs += "->" + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    ins, _, out = subs.partition("->")
    return ins.split(","), out


def roll_pad_rank(op: str, node: cst.Call) -> int:
    """The least rank of the array ``np.roll``/``np.pad`` takes: one past the largest axis rolled,
    as many axes as ``np.pad`` gets pairs of widths for."""
    args = positional_args(node)
    if op == "roll":
        axis = args[2] if len(args) > 2 else keyword_arg(node, "axis")
        axes = [e.value for e in axis.elements] if isinstance(axis, (cst.Tuple, cst.List)) else [axis]
        return max([1] + [k + 1 for k in (int_literal(a) for a in axes if a is not None) if k is not None and k >= 0])
    widths = args[1] if len(args) > 1 else keyword_arg(node, "pad_width")
    if isinstance(widths, (cst.Tuple, cst.List)) and all(
            isinstance(e.value, (cst.Tuple, cst.List)) for e in widths.elements):
        return max(1, len(widths.elements))
    return 1


# The type of each part of a pair (``py_intrinsics.PAIRS``).
PART_TYPES: dict[str, Type] = {"detsign": F64, "logdet": F64, "eigvalsh": ArrayType(F64, 1),
                               "eigvecsh": ArrayType(F64, 2)}

# The stacking functions that take the items of a list comprehension, of a list's name or of an
# array (its rows, as NumPy iterates it) as well as a list written in the call (``py_linalg.stacked``).
STACKS_OF_ITEMS = ("stack", "vstack", "hstack", "column_stack", "concatenate")


def linalg_operand_ranks(op: str, args: list[cst.BaseExpression]) -> list[tuple[cst.BaseExpression, int]]:
    """The least rank each array argument of a ``py_linalg`` function must have."""
    if op in ("trace", "det", "inv", "slogdet", "cholesky", "tril", "triu", "eigh", "eigvalsh"):
        return [(args[0], 2)] if args else []
    if op == "solve":
        return list(zip(args, (2, 1)))
    if op == "einsum":
        terms = _einsum_terms(args)
        return [(a, len(t.replace(".", ""))) for a, t in zip(args[1:], terms[0]) if t.replace(".", "")] \
            if terms else []
    if op in ("stack", "concatenate", "hstack", "vstack", "column_stack"):
        seq = args[0] if args else None
        if isinstance(seq, cst.ListComp) and op in STACKS_OF_ITEMS:  # np.vstack([x ** k for k in ...])
            return [(seq.elt, 1)]
        return [(e.value, 1) for e in seq.elements] if isinstance(seq, (cst.List, cst.Tuple)) else []
    if op == "interp":  # np.interp(x, xp, fp): the points may be a number
        return [(a, 1) for a in args[1:3]]
    if op in ("tensordot", "kron"):
        return [(a, 1) for a in args[:2]]
    return [(a, 1) for a in args[:2 if op == "convolve" else 1]]  # norm, diag, convolve


def linalg_type(op: str, node: cst.Call, args: list[cst.BaseExpression],
                type_of: Callable[[cst.BaseExpression], Optional[Type]]) -> Optional[Type]:
    """The type of a ``py_linalg`` function's result, from its arguments' types."""
    if op in ("trace", "det"):
        return F64
    if op in ("cholesky", "tril", "triu"):
        return ArrayType(F64, 2)
    if op == "eigvalsh":
        return ArrayType(F64, 1)
    if op == "kron":  # of two vectors a vector, of two matrices a matrix
        ranks = [t.rank for t in (type_of(a) for a in args[:2]) if isinstance(t, ArrayType)]
        return ArrayType(F64, max(ranks)) if len(ranks) == 2 else None
    if op in PAIRS:
        return None  # a pair: its parts are typed where it is unpacked or indexed (PAIRS)
    if op == "einsum":
        terms = _einsum_terms(args)
        return (ArrayType(F64, len(terms[1])) if terms[1] else F64) if terms else None
    if op == "tensordot":  # the operands' axes but those it contracts
        left, right = (type_of(a) for a in args[:2]) if len(args) >= 2 else (None, None)
        given = keyword_arg(node, "axes") or (args[2] if len(args) > 2 else None)
        if not isinstance(left, ArrayType) or not isinstance(right, ArrayType):
            return None
        if given is None or int_literal(given) is not None:
            k = 2 if given is None else int_literal(given)
        elif isinstance(given, (cst.Tuple, cst.List)) and len(given.elements) == 2:
            first = given.elements[0].value
            k = len(first.elements) if isinstance(first, (cst.Tuple, cst.List)) else 1
        else:
            return None
        rank = left.rank + right.rank - 2 * (k or 0)
        return ArrayType(F64, rank) if rank > 0 else F64
    if op in ("stack", "concatenate", "hstack", "vstack", "column_stack"):
        seq = args[0] if args else None
        if seq is not None and not isinstance(seq, (cst.List, cst.Tuple)) and op in STACKS_OF_ITEMS:
            items = type_of(seq)  # the list: an array of one axis more than its items (an array: its rows)
            if not isinstance(items, ArrayType):
                return None
            if items.rank == 1:  # of numbers: NumPy takes each for an array of one element
                return ArrayType(items.elem, 2 if op in ("vstack", "column_stack") else 1)
            return _stacked_type(op, [ArrayType(items.elem, items.rank - 1)])
        if not isinstance(seq, (cst.List, cst.Tuple)) or not seq.elements:
            return None
        return _stacked_type(op, [type_of(e.value) for e in seq.elements])
    if op == "interp":  # a value per point: a number at a number
        points = type_of(args[0]) if args else None
        return ArrayType(F64, points.rank) if isinstance(points, ArrayType) else F64
    first = type_of(args[0]) if args else None
    if not isinstance(first, ArrayType):
        return None
    if op == "norm":
        if keyword_arg(node, "axis") is None or first.rank == 1:
            return F64
        return ArrayType(F64, first.rank - 1)
    if op == "diag":
        return ArrayType(F64, 2 if first.rank == 1 else 1)
    if op == "diagonal":
        return ArrayType(F64, 1)
    if op == "solve":
        b = type_of(args[1]) if len(args) > 1 else None
        return ArrayType(F64, b.rank) if isinstance(b, ArrayType) else None
    return ArrayType(F64, 2 if op == "inv" else 1)  # inv, convolve


def _stacked_type(op: str, items: list[Optional[Type]]) -> Optional[Type]:
    """``np.stack([x, y])`` & co., of items of these types."""
    arrays = [t for t in items if isinstance(t, ArrayType)]
    if not arrays:
        return None
    item = max(t.rank for t in arrays)
    rank = {"stack": item + 1, "vstack": 2, "column_stack": 2}.get(op, item)
    return ArrayType(common_type([t.elem for t in arrays]), rank)


def alloc_rank(shape: cst.BaseExpression) -> int:
    return len(shape.elements) if isinstance(shape, (cst.Tuple, cst.List)) else 1


def dtype_elem(info: ModuleInfo, node: Optional[cst.BaseExpression]) -> Optional[ScalarType]:
    """The element type a ``dtype=`` argument names (None: not one we support)."""
    if node is None:
        return F64
    canonical = info.canonical_name(node)
    if canonical in lib.FLOAT_NAMES:
        return F64
    if canonical in lib.INT_NAMES:
        return I64
    return None


def astype_elem(info: ModuleInfo, node: cst.BaseExpression) -> Optional[ScalarType]:
    """The element type ``x.astype(node)`` converts to: float, int or bool, by name or NumPy's
    (``np.float64``, ``"float64"``); None for any other."""
    if isinstance(node, cst.SimpleString):
        return {"float64": F64, "float": F64, "f8": F64, "int64": I64, "int": I64, "i8": I64,
                "bool": BOOL}.get(node.evaluated_value)  # type: ignore[arg-type]
    canonical = info.canonical_name(node)
    return BOOL if canonical in lib.BOOL_NAMES else dtype_elem(info, node)


R = TypeVar("R")


def _by_node(compute: Callable[[cst.BaseExpression], R]) -> Callable[[cst.BaseExpression], R]:
    """``compute`` worked out once per node (by identity, the nodes living as long as the function
    made here): a pass asking each operation of a long sum about its operands was quadratic."""
    found: dict[int, R] = {}

    def once(node: cst.BaseExpression) -> R:
        key = id(node)
        if key not in found:
            found[key] = compute(node)
        return found[key]

    return once


class _Inference:
    def __init__(self, fn: cst.FunctionDef, info: ModuleInfo, sigs: dict[str, Signature], locator: Locator,
                 int_result: bool, given: Optional[dict[str, Type]] = None,
                 call_sigs: Optional[dict[cst.Call, Signature]] = None):
        self.fn = fn
        # Parameter types the callers give (py_specialize): they replace what the body suggests.
        self.given = given or {}
        # The signatures of the specialized callees, by call: what each call returns.
        self.call_sigs = call_sigs or {}
        self.int_result = int_result
        # While a product's default guess of an operand's rank is recorded (``array_use``).
        self.defaulting = False
        self.info = info
        self.sigs = sigs
        self.locator = locator
        self.params = parameters(fn)
        self.param_names = [p.name.value for p in self.params]
        body = fn.body
        self.locals = frozenset(self.param_names) | frozenset(assigned_names([body]))
        self.int_names: set[str] = set()
        # Parameters compared with a string (``reduction == "mean"``, ``mode in ("a", "b")``) or
        # with one as their default: strings (STR), which the code may only compare.
        self.str_names: set[str] = {p.name.value for p in self.params if is_string(p.default)}
        # Communicators (py_mpi): parameters that default to one or whose methods the body calls,
        # locals bound to one; and the locals that hold an MPI request.
        self.comm_names: set[str] = py_mpi.communicator_params(fn, info, self.params) | {
            t.value for node in every_node(body) if isinstance(node, cst.Assign) and len(node.targets) == 1
            for t in [node.targets[0].target] if isinstance(t, cst.Name)
            and (info.canonical_name(node.value) or "") in py_mpi.COMMUNICATORS}
        self.arrays: dict[str, _ArrayEvidence] = {}
        self.assigns: dict[str, list[_Assigned]] = {}
        self.loop_depth = 0
        self.rebound_in_loops: set[str] = set()  # names assigned inside a loop's body
        self.declared: dict[str, Type] = {}
        self.returns: list[cst.BaseExpression] = []
        self.diagnostics: list[Diagnostic] = []
        self.int_demands: set[str] = set()
        # Arguments passed to callee parameters whose rank is assumed, or whose values reach NumPy
        # there (Signature.numpy_params): their values may be arrays.
        self.numpy_args: list[cst.BaseExpression] = []
        self.numpy_params: set[str] = set()  # (FunctionTypes.numpy_params: made by ``assumptions``)
        self.number_params: set[str] = set()  # (FunctionTypes.number_params: made by ``assumptions``)
        # The operands of elementwise expressions used as arrays (see array_use).
        self.array_operands: list[list[str]] = []
        # The names a comprehension binds, innermost last: their types where they are read.
        self.scopes: list[dict[str, Optional[Type]]] = []
        # The matrix products, by id: their operands' ranks are guessed once every use is seen
        # (``py_products``); those that are the left operand of another product; those whose
        # result must be an array (``py_rank_uses``).
        self.products: dict[int, Product] = {}
        self.left_products: set[int] = set()
        self.array_products: set[int] = set()
        self.number_products: set[int] = set()
        self.bilinear_transposes: set[int] = set()  # ``x.T`` nodes that begin a chain x.T @ A @ y
        # Types of expressions by id, while one pass reads every expression against one
        # ``types`` (``numpy_context``): an expression's type is asked at each of its
        # enclosing operations, quadratic in a long sum's length without it. None: no pass.
        self.type_memo: Optional[dict[int, Optional[Type]]] = None
        self.parents: Optional[dict[int, cst.CSTNode]] = None  # (meets_array: each node's parent, made once)

    # -- evidence -----------------------------------------------------------------
    def evidence(self, name: str) -> _ArrayEvidence:
        return self.arrays.setdefault(name, _ArrayEvidence())

    def record(self, name: str, value: _Assigned) -> None:
        self.assigns.setdefault(name, []).append(value)
        if self.loop_depth:
            self.rebound_in_loops.add(name)

    def children(self, node: cst.CSTNode) -> None:
        for c in children(node):
            if isinstance(c, cst.BaseExpression):
                self.expr(c, False)
            elif not isinstance(c, (cst.FunctionDef, cst.ClassDef)):
                self.children(c)

    def expr(self, node: cst.BaseExpression, int_ctx: bool) -> None:
        if isinstance(node, cst.Name):
            if int_ctx:
                self.int_names.add(node.value)
        elif isinstance(node, cst.Subscript):
            self.subscript(node, int_ctx, load=True)
        elif isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) \
                and node.value.value in self.comm_names:
            pass  # comm.rank, comm.size
        elif isinstance(node, cst.Attribute):
            if node.attr.value in ("shape", "size", "ndim") and isinstance(node.value, cst.Name):
                ev = self.evidence(node.value.value)
                ev.min_rank = max(ev.min_rank, 1)
            elif node.attr.value == "T" and isinstance(node.value, cst.Name):
                if id(node) not in self.bilinear_transposes:
                    self.array_use(node.value, 2)
            else:
                self.expr(node.value, False)
        elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):
            self.product(node, node.left, node.right)
            self.expr(node.left, False)
            self.expr(node.right, False)
        elif isinstance(node, cst.BinaryOperation):
            sub = int_ctx and not isinstance(node.operator, cst.Divide)
            self.expr(node.left, sub)
            self.expr(node.right, sub)
        elif isinstance(node, cst.UnaryOperation):
            self.expr(node.expression, int_ctx and not isinstance(node.operator, cst.Not))
        elif isinstance(node, cst.Comparison):
            self.str_names.update(string_compared(node))
            self.children(node)
        elif isinstance(node, cst.IfExp):
            self.expr(node.test, False)
            self.expr(node.body, int_ctx)
            self.expr(node.orelse, int_ctx)
        elif isinstance(node, cst.Call):
            self.call(node, int_ctx)
        elif isinstance(node, (cst.Tuple, cst.List)):
            for el in node.elements:
                self.expr(el.value, int_ctx)
        elif isinstance(node, (cst.ListComp, cst.GeneratorExp)):
            for clause in comprehension_clauses(node):
                try:
                    self.iterable(read_iter(clause.iter, lambda f: self.info.canonical_name(f, self.locals)))
                except IterError:
                    self.expr(clause.iter, False)  # lowering reports it
                for cond in clause.ifs:
                    self.expr(cond.test, False)
            self.expr(node.elt, False)
        elif not isinstance(node, cst.Lambda):
            self.children(node)

    def array_use(self, node: cst.BaseExpression, min_rank: int) -> None:
        """``node`` is used where only an array makes sense (``W @ x``, ``A.T``, ``np.sum(x)``).
        An elementwise expression there (``np.sum(x * x)``, ``np.sum(np.exp(x) - 1.0)``) is an
        array only if one of its operands is: where they are all parameters, the ones nothing
        else types are arrays (``array_operands``, once every use is seen)."""
        if isinstance(node, cst.Name) and node.value in self.locals:
            ev = self.evidence(node.value)
            if ev.min_rank >= min_rank:
                return
            ev.min_rank = min_rank
            # A local assigned another variable or a copy of one (W = W1, W, b = W1, b1 of an
            # unrolled loop, u = img.copy()), besides updates of itself (u = u + c * lap(u)): a
            # variable has one type for the whole function, so what it is used as, they are. A
            # product's default guess for a local's rank is no such use: h = x; h = np.tanh(h @ W
            # + b) says nothing of x's rank.
            values = self.assigns.get(node.value, [])
            sources = [_copied_name(v) for v in values]
            updates = [v for v, source in zip(values, sources) if source is None]
            if node.value in self.param_names or not values or (updates and self.defaulting):
                return
            if not all(_mentions(v, node.value) for v in updates):
                if len(values) == 1 and isinstance(values[0], cst.BaseExpression):
                    # k = np.exp(log_k); g(k) with g indexing k: the one value k is given is an
                    # array, which an elementwise expression is only if an operand is (probe round 8)
                    names = self.elementwise_operands(values[0])
                    if names:
                        self.array_operands.append(names)
                return
            for source in sources:
                if source is not None:
                    self.array_use(source, min_rank)
            return
        names = self.elementwise_operands(node)
        if names:
            self.array_operands.append(names)

    def item_use(self, node: cst.ListComp) -> None:
        """The items of a comprehension stacked as arrays (``np.vstack([x ** k for k in
        range(d)])``): each is used as an array, and of an elementwise item the operand that could
        make it one is (the names the comprehension binds to a range's integers are numbers)."""
        counters = set()
        for clause in comprehension_clauses(node):
            try:
                it = read_iter(clause.iter, lambda f: self.info.canonical_name(f, self.locals))
            except IterError:
                continue
            if isinstance(it, RangeIter) and isinstance(clause.target, cst.Name):
                counters.add(clause.target.value)
        names = self.elementwise_operands(node.elt)
        names = [n for n in names if n not in counters] if names is not None else None
        if names and len(names) == 1 and names[0] in self.locals:
            self.array_use(cst.Name(names[0]), 1)
        elif names:
            self.array_operands.append(names)

    def product(self, node: cst.BaseExpression, left: cst.BaseExpression, right: cst.BaseExpression) -> None:
        """A matrix product of ``left`` and ``right``: their ranks are guessed in
        ``resolve_products``, once every use is seen."""
        self.products[id(node)] = Product(node, left, right)
        if product_operands(left, lambda f: self.info.canonical_name(f, self.locals)) is not None:
            self.left_products.add(id(left))
        transposed = transposed_name(left)
        if transposed is not None and (id(node) in self.left_products or (
                isinstance(right, cst.Name) and right.value == transposed.value.value  # type: ignore[attr-defined]
                and right.value[:1].islower())):
            # x.T @ A @ x: a bilinear form's left vector, transposed the way the formula is
            # written (a vector's .T is itself): its .T proves no matrix; so is w.T @ w of a
            # lower-case w, the notation's squared norm
            self.bilinear_transposes.add(id(transposed))

    def resolve_products(self, annotations: dict) -> None:
        """The ranks of the operands of each matrix product (``py_products``): a parameter
        nothing else gives a rank takes the guessed one; one the code gives a rank needs only to
        be an array; any other operand takes the default (a matrix on the left, a vector on the
        right)."""
        params = set(self.param_names)
        defaulted = {p.name.value for p in self.params if p.default is not None}

        def unknown(e: cst.BaseExpression) -> bool:
            if not (isinstance(e, cst.Name) and e.value in params) or e.value in self.given \
                    or e.value in annotations:
                return False
            ev = self.arrays.get(e.value)
            return ev is None or (not ev.rank_uses and ev.exact_rank is None)

        def naming(e: cst.BaseExpression) -> bool:
            """A local that only ever names such parameters (``W`` of ``for W in [W1, W2]``,
            unrolled): it takes their guess, and passes it on to them."""
            values = self.assigns.get(e.value, []) if isinstance(e, cst.Name) and e.value not in params else []
            return bool(values) and all(isinstance(v, cst.Name) and unknown(v) for v in values)

        def derived(e: cst.BaseExpression) -> Optional[cst.Name]:
            """The parameter a local is computed from elementwise, alone, in its one assignment
            (``K = np.exp(-C / eps)``): the local takes the parameter's guess, and passes it on
            (probe p79: ``K @ v`` guessed ``K`` a matrix, but ``C`` stayed a vector)."""
            if not isinstance(e, cst.Name) or e.value in params:
                return None
            values = self.assigns.get(e.value, [])
            if len(values) != 1 or not isinstance(values[0], cst.BaseExpression):
                return None
            names = set(self.elementwise_operands(values[0]) or ()) - defaulted  # (-C / eps: eps a number)
            param = cst.Name(names.pop()) if len(names) == 1 else None
            return param if param is not None and unknown(param) else None

        def item_of(e: cst.BaseExpression) -> Optional[cst.Name]:
            """The parameter a loop variable is only ever an item of (``W`` of ``for W, b in
            zip(Ws, bs)``): it takes the item's guess, and the parameter one axis more (a stack
            of equal layers; the entry gradient checks the rank, and a list of unequal ones fails
            there as NumPy's asarray does)."""
            values = self.assigns.get(e.value, []) if isinstance(e, cst.Name) and e.value not in params else []
            seqs = {v.seq.value for v in values if isinstance(v, _Item) and isinstance(v.seq, cst.Name)}
            if len(seqs) != 1 or len(values) != sum(isinstance(v, _Item) for v in values):
                return None
            seq = cst.Name(seqs.pop())
            return seq if unknown(seq) else None

        def guessed(e: cst.BaseExpression) -> bool:
            return unknown(e) or naming(e) or derived(e) is not None or item_of(e) is not None

        for key, p in self.products.items():
            transposed = transposed_name(p.left)
            if transposed is not None and id(transposed) in self.bilinear_transposes:
                p = Product(p.node, transposed.value, p.right)  # x.T @ A of (x.T @ A) @ x: x's guess
            guess = guessed_ranks(p, guessed, key in self.array_products, key in self.left_products,
                                  key in self.number_products)
            for operand, rank, default in ((p.left, guess[0], 2), (p.right, guess[1], 1)):
                known_param = isinstance(operand, cst.Name) and operand.value in params
                self.defaulting = not guessed(operand) and not known_param
                self.array_use(operand, rank if guessed(operand) else 1 if known_param else default)
                self.defaulting = False
                source = derived(operand)
                if source is not None:
                    self.array_use(source, rank)
                seq = item_of(operand)
                if seq is not None:
                    self.array_use(seq, rank + 1)

    def matrix_use(self, node: cst.BaseExpression) -> None:
        """``node`` is used where only a matrix makes sense (``np.trace(A @ B)``): the operands
        of a matrix product or a transpose that makes it are matrices too."""
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):
            self.matrix_use(node.left)
            self.matrix_use(node.right)
        elif isinstance(node, cst.Attribute) and node.attr.value == "T":
            self.matrix_use(node.value)
        else:
            self.array_use(node, 2)

    def elementwise_operands(self, node: cst.BaseExpression) -> Optional[list[str]]:
        """The names an elementwise expression combines (numbers, ``+ - * /``, a power's base,
        unary minus, NumPy's elementwise functions), or None when anything else takes part."""
        if isinstance(node, (cst.Integer, cst.Float)):
            return []
        if isinstance(node, cst.Name):
            return [node.value]
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
            return self.elementwise_operands(node.expression)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Power):
            return self.elementwise_operands(node.left)
        if isinstance(node, cst.BinaryOperation) and isinstance(
                node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)):
            left, right = self.elementwise_operands(node.left), self.elementwise_operands(node.right)
            return None if left is None or right is None else left + right
        if isinstance(node, cst.Call) and all(a.keyword is None and not a.star for a in node.args):
            intr = lib.lookup(self.info.canonical_name(node.func, self.locals))
            if intr is None or intr.op not in MATH_FNS and intr.op not in _ELEMENTWISE_CALLS:
                return None
            out: list[str] = []
            for a in node.args:
                names = self.elementwise_operands(a.value)
                if names is None:
                    return None
                out += names
            return out
        return None

    def ranks_from_uses(self, annotations: dict) -> None:
        """The least rank each unannotated parameter's uses need (``py_rank_uses``): an array
        parameter gets at least that rank, and a parameter nothing else makes one becomes an
        array of that rank (still assumed, and checked, unless ``assumptions`` finds a proof)."""
        params = {p.name.value: p for p in self.params}
        # Each node's answer once: every operator of a long sum asks about its operands, and a
        # sum of a thousand terms is a chain a thousand deep (quadratic, asked afresh each time).
        known_numbers: dict[int, bool] = {}

        def is_number(e: cst.BaseExpression) -> bool:
            found = known_numbers.get(id(e))
            if found is None:
                found = known_numbers[id(e)] = number(e)
            return found

        def number(e: cst.BaseExpression) -> bool:
            if isinstance(e, (cst.Integer, cst.Float)) or is_shape_subscript(e):  # A.shape[0]: an integer
                return True
            if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
                return is_number(e.expression)
            if isinstance(e, cst.BinaryOperation) and not isinstance(e.operator, cst.MatrixMultiply):
                return is_number(e.left) and is_number(e.right)
            if isinstance(e, cst.Name):
                if e.value in self.int_names:
                    return True
                if e.value in params:
                    p = params[e.value]
                    return isinstance(annotations.get(e.value), ScalarType) or (
                        p.default is not None and isinstance(evaluate_constant(p.default, self.info), (int, float)))
                values = self.assigns.get(e.value, [])
                return bool(values) and all(isinstance(v, ScalarType) for v in values)
            if isinstance(e, (cst.Attribute, cst.Call)):
                name = self.info.canonical_name(e.func if isinstance(e, cst.Call) else e, self.locals) or ""
                return name in ("numpy.pi", "math.pi", "numpy.e", "math.e", "builtins.len") or (
                    isinstance(e, cst.Call) and name.startswith("math."))
            return False

        known = {name: ev.exact_rank for name, ev in self.arrays.items()
                 if name in self.param_names and ev.exact_rank is not None and not ev.exact_assumed}
        known.update({name: ann.rank if ann.rank is not None else len(ann.shape or [])
                      for name, ann in annotations.items() if isinstance(ann, _ArrayAnnotation)
                      and (ann.rank is not None or ann.shape is not None)})
        uses = RankUses(self.fn.body, self.param_names, self.assigns, is_number,
                        lambda f: self.info.canonical_name(f, self.locals), known)
        least = uses.run()
        self.array_products = uses.array_products
        self.number_products = uses.number_products
        for name, rank in least.items():
            if name in self.given or name in self.int_names or isinstance(annotations.get(name), ScalarType):
                continue
            ev = self.evidence(name)
            ev.min_rank = max(ev.min_rank, rank)

    def resolve_array_operands(self, annotations: dict) -> None:
        """Each elementwise expression used as an array whose operands are parameters, none of
        them known to be an array, and all but one known to be numbers (by an annotation, a
        default value or an integer use): that one is an array, since nothing else could make
        the expression one. Its rank is still assumed (``assumptions``). With two or more
        candidates (``np.sum((x - mu) ** 2)``) either may be the array: nothing is inferred,
        and lowering asks for an annotation."""
        params = {p.name.value: p for p in self.params}
        for names in self.array_operands:
            if any(n not in params for n in names) or any(n in self.arrays for n in names) \
                    or any(isinstance(annotations.get(n), _ArrayAnnotation) for n in names):
                continue  # an operand known to be an array makes the expression one
            free = [n for n in dict.fromkeys(names)
                    if annotations.get(n) is None and params[n].default is None and n not in self.int_names]
            if len(free) == 1:
                self.evidence(free[0]).min_rank = 1

    def subscript(self, node: cst.Subscript, int_ctx: bool, load: bool) -> None:
        if is_shape_subscript(node):
            base = node.value.value  # type: ignore[attr-defined]
            if isinstance(base, cst.Name):
                k = int_literal(node.slice[0].slice.value) if isinstance(node.slice[0].slice, cst.Index) else None
                ev = self.evidence(base.value)
                # an axis past the most NumPy arrays have proves nothing: refused where it is read
                ev.min_rank = max(ev.min_rank, (k + 1) if k is not None and 0 <= k < MAX_AXES else 1)
            else:
                self.expr(base, False)
            return
        base, indices = subscript_chain(node)
        indices = [i for i in indices if not is_new_axis(i)]  # x[:, None]: None adds an axis, indexes none
        if isinstance(base, cst.Name) and any(isinstance(i, cst.Ellipsis) for i in indices):
            self.evidence(base.value).min_rank = max(self.evidence(base.value).min_rank, len(indices) - 1)
        elif isinstance(base, cst.Name):
            ev = self.evidence(base.value)
            ev.rank_uses.add(len(indices))
            if all(isinstance(i, cst.BaseExpression) for i in indices):
                ev.element_uses.append(indices)  # type: ignore[arg-type]
                ev.element_nodes.append(node)
            if load:
                ev.loads.add(id(node))
                if int_ctx:
                    ev.int_loads.add(id(node))
        else:
            self.expr(base, False)
        if len(indices) > 1 and any(isinstance(i, cst.Call) and self.info.canonical_name(i.func, self.locals)
                                    == "numpy.arange" for i in indices):
            # logp[np.arange(n), labels]: the names beside an index array index with arrays too
            for idx in indices:
                self.array_param(idx, integers=True)
        for idx in indices:
            if isinstance(idx, cst.BaseExpression):
                self.expr(idx, True)
            elif isinstance(idx, cst.Slice):  # x[k:], x[:n - k]: a slice's bounds are integers
                for part in (idx.lower, idx.upper, idx.step):
                    if part is not None:
                        self.expr(part, True)
            else:
                self.children(idx)

    def array_param(self, node: cst.BaseExpression, integers: bool) -> None:
        """A parameter named at ``node`` is an array (of integers, where it indexes one)."""
        if isinstance(node, cst.Name) and node.value in self.param_names:
            ev = self.evidence(node.value)
            ev.min_rank = max(ev.min_rank, 1)
            if integers:
                ev.forced_elem = I64

    def call(self, node: cst.Call, int_ctx: bool) -> None:
        func = node.func
        args = positional_args(node)
        for a in node.args:
            if a.keyword is not None or a.star:
                self.expr(a.value, False)
        if any(a.star for a in node.args):
            return  # np.sum(*x): which parameter each value fills is unknown; lowering refuses it
        if isinstance(func, cst.Name) and func.value in self.info.functions and func.value not in self.locals:
            # The callee's instance for this call (py_specialize), typed from what the call gives it:
            # what its own body alone says may guess less (``h @ W + b`` with ``h`` a helper's
            # value it took for a number), and a parameter it guesses is one this call guesses too.
            sig = self.call_sigs.get(node) or self.sigs.get(func.value)
            if int_ctx:
                self.int_demands.add(func.value)
            if sig is not None:  # keyword arguments fill the parameters they name
                bound, _ = bind_arguments(node, sig.name, sig.param_names, sig.positional)
                pairs = [(i, a.value) for i, a in enumerate(bound) if a is not None]
            else:
                pairs = list(enumerate(args))
            for i, a in pairs:
                t = sig.param_types[i] if sig is not None and i < len(sig.param_types) else None
                assumed = sig is not None and i < len(sig.param_names) and sig.param_names[i] in sig.assumed
                if isinstance(t, ArrayType) and isinstance(a, cst.Name):
                    ev = self.evidence(a.value)
                    # A vector the callee only guessed, passed as a capitalized name (dense(X, W, b)
                    # with x @ W in dense): the caller's notation says a matrix (py_products), and
                    # the callee's instance is typed from what the call gives it.
                    matrix = assumed and t.rank == 1 and a.value[:1].isupper() \
                        and sig.param_names[i] not in sig.rank_free  # type: ignore[union-attr]
                    ev.exact_rank = 2 if matrix else t.rank
                    ev.exact_assumed = ev.exact_assumed or assumed
                    ev.forced_elem = t.elem
                    if a.value not in self.param_names:  # u = img.copy(); lap(u): img has u's axes
                        self.array_use(a, ev.exact_rank)
                elif isinstance(t, ArrayType):
                    # g(np.exp(log_h), k) where g takes an array: an elementwise value is one only
                    # if an operand is (probe p65b: log_h was taken for a number, and refused)
                    self.array_use(a, t.rank)
                if assumed or (sig is not None and i < len(sig.param_names) and sig.param_names[i] in sig.numpy_params):
                    self.numpy_args.append(a)
                self.expr(a, t is not None and t.is_int)
            return
        method = py_mpi.mpi_method(node, self.info, self.locals, self.comm_names)
        if method is not None or py_mpi.is_wait(node, self.info, self.locals, set(self.locals)):
            for a in node.args:
                if isinstance(a.value, cst.Name) and method is not None \
                        and (a.keyword.value if a.keyword else None) in (None, *py_mpi.buffer_args(method)) \
                        and method not in ("allreduce", "bcast") and a.value.value not in self.comm_names:
                    self.array_use(a.value, 1)
                self.expr(a.value, a.keyword is not None and a.keyword.value in py_mpi.INTEGER_ARGS)
            return
        appended = appended_list(node)
        if appended is not None and appended in self.locals and len(args) == 1:
            self.record(appended, _ListOf(args))  # lst.append(v): one more item
            self.expr(args[0], False)
            return
        canonical = self.info.canonical_name(func, self.locals)
        if canonical in (lib.RANGE, lib.PRANGE):  # their bounds are integers
            for a in args:
                self.expr(a, True)
            return
        if canonical == lib.BINCOUNT and args:
            self.array_param(args[0], integers=True)  # np.bincount(idx, ...)
        if canonical == lib.ADD_AT and len(args) == 3:
            # np.add.at(a, idx, v): a is an array; idx an integer array, or a tuple of them
            self.array_param(args[0], integers=False)
            for a in [e.value for e in args[1].elements] if isinstance(args[1], cst.Tuple) else [args[1]]:
                self.array_param(a, integers=True)
        if (canonical == "builtins.sum" or iterable_extremum(node, canonical)) and args \
                and isinstance(args[0], cst.Name) and args[0].value in self.param_names:
            # sum(x), max(x) of a parameter: its items are numbers, so it is a vector (a list
            # parameter would be too, and a matrix's rows are refused); the rank is assumed,
            # and checked at the gradient's entry.
            self.array_use(args[0], 1)
        method = method_of(node, self.locals, self.info)
        if method is not None:
            if method[1] == "dot" and len(args) == 1:
                self.product(node, func.value, args[0])  # type: ignore[attr-defined]
            else:
                self.array_use(func.value, 2 if method[1] == "transpose" else 1)  # type: ignore[attr-defined]
            self.expr(func.value, False)  # type: ignore[attr-defined]
            for a in args:
                self.expr(a, method[1] == "reshape")
            return
        intr = lib.lookup(canonical)
        if intr is None:
            if not isinstance(func, cst.Name) and canonical is None:
                self.expr(func, False)
            for a in args:
                self.expr(a, False)
            return
        if intr.op in ("len", "zeros_like", "empty_like") and args and isinstance(args[0], cst.Name):
            ev = self.evidence(args[0].value)
            ev.min_rank = max(ev.min_rank, 1)
            return
        if intr.op in ("zeros", "empty", "ones", "eye", "full") and args:
            self.expr(args[0], True)
            for a in args[1:]:  # np.full's value
                self.expr(a, False)
            return
        if intr.op in lib.MADE_ARRAYS:  # np.arange(n) counts; np.linspace(a, b, num): num does
            counts = intr.op in ("triu_indices", "tril_indices")  # (n, k, m: integers all)
            for k, a in enumerate(args):
                self.expr(a, counts or (intr.op == "arange" and len(args) == 1) or (intr.op == "linspace" and k == 2))
            for a in node.args:
                if a.keyword is not None:
                    self.expr(a.value, counts or a.keyword.value == "num")
            return
        if intr.op in ("roll", "pad") and args:
            self.array_use(args[0], roll_pad_rank(intr.op, node))
            for a in node.args[1:]:  # shifts and widths are integers; np.pad's constant a number
                keyword = a.keyword.value if a.keyword is not None else None
                if keyword not in ("axis", "mode"):
                    self.expr(a.value, keyword != "constant_values")
            return
        if intr.op == "full_like" and len(args) == 2:
            self.expr(args[1], False)
        if intr.op in ("sum", "mean", "max_reduce", "min_reduce", "transpose", "ones_like", "full_like",
                       "polyval", "flip") + _STATISTICS:
            self.array_use(args[0], 2 if intr.op == "transpose" else 1)  # (polyval's coefficients)
        elif intr.op == "searchsorted":  # in a vector
            self.array_use(args[0], 1)
        elif intr.op == "matmul" and len(args) == 2:
            self.product(node, args[0], args[1])
        elif intr.op in ("matmul", "outer"):
            self.array_use(args[0], 2 if intr.op == "matmul" else 1)
            if len(args) > 1:
                self.array_use(args[1], 1)
        elif intr.op in lib.LINALG_OPS:
            for a, rank in linalg_operand_ranks(intr.op, args):
                if args and isinstance(args[0], cst.ListComp) and a is args[0].elt:
                    self.item_use(args[0])
                    continue
                self.matrix_use(a) if rank == 2 else self.array_use(a, rank)
            terms = _einsum_terms(args) if intr.op == "einsum" else None
            for a, term in zip(args[1:], terms[0] if terms else ()):
                if isinstance(a, cst.Name) and a.value in self.param_names and "." not in term:
                    self.evidence(a.value).exact_rank = len(term)  # "ij,j->": NumPy refuses other ranks
        for a in args:
            self.expr(a, int_ctx and intr.keeps_int)

    # -- statements -----------------------------------------------------------------
    def stmt(self, s: cst.CSTNode) -> None:
        if isinstance(s, (cst.SimpleStatementLine, cst.IndentedBlock, cst.SimpleStatementSuite, cst.Else)):
            for c in children(s):
                self.stmt(c)
        elif isinstance(s, cst.Assign):
            for t in s.targets:
                self.bind(t.target, s.value)
        elif isinstance(s, cst.AnnAssign):
            if isinstance(s.target, cst.Name):
                t = self.annotation(s.annotation.annotation)
                if isinstance(t, ScalarType):
                    self.declared[s.target.value] = t
            if s.value is not None:
                self.bind(s.target, s.value)
        elif isinstance(s, cst.AugAssign):
            if isinstance(s.target, cst.Name):
                self.record(s.target.value, _Aug(s.operator, s.value))
            elif isinstance(s.target, cst.Subscript):
                self.subscript(s.target, False, load=True)
            self.expr(s.value, False)
        elif isinstance(s, cst.For):
            self.loop_targets(s.target, s.iter)
            self.loop_depth += 1
            self.stmt(s.body)
            self.loop_depth -= 1
            if s.orelse is not None:
                self.stmt(s.orelse)
        elif isinstance(s, (cst.While, cst.If)):
            self.expr(s.test, False)
            self.loop_depth += isinstance(s, cst.While)
            self.stmt(s.body)
            self.loop_depth -= isinstance(s, cst.While)
            if s.orelse is not None:
                self.stmt(s.orelse)
        elif isinstance(s, cst.Return):
            if s.value is not None:
                self.returns.append(s.value)
                self.expr(s.value, self.int_result)
        elif isinstance(s, cst.Expr):
            self.expr(s.value, False)
        elif not isinstance(s, (cst.FunctionDef, cst.ClassDef)):
            self.children(s)

    def loop_targets(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        """The names a loop binds (``py_iter``): integers from a range or enumerate's counter,
        items of the sequences it runs over."""
        try:
            it = read_iter(iterable, lambda f: self.info.canonical_name(f, self.locals))
            names = leaves(target, it)
        except IterError:
            self.expr(iterable, False)  # lowering reports it
            return
        for name, leaf in names:
            self.record(name.value, _Item(leaf.seq) if isinstance(leaf, ItemsIter) else I64)
        self.iterable(it)

    def iterable(self, it: Iter) -> None:
        if isinstance(it, RangeIter):
            self.expr(it.call, False)  # range's bounds are integers
        elif isinstance(it, ItemsIter):
            self.array_use(it.seq, 1)
            if isinstance(it.seq, cst.Name):  # its items are loads, as x[i] is
                self.evidence(it.seq.value).loads.add(id(it.seq))
            self.expr(it.seq, False)
        elif isinstance(it, EnumerateIter):
            if it.start is not None:
                self.expr(it.start, True)
            self.iterable(it.inner)
        else:
            for part in it.parts:
                self.iterable(part)

    def bind(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            if isinstance(value, cst.List):
                self.record(target.value, _ListOf([e.value for e in value.elements]))
            elif isinstance(value, cst.ListComp):
                self.record(target.value, _ListOf([value]))
            else:
                self.record(target.value, value)
            self.expr(value, False)
        elif isinstance(target, (cst.Tuple, cst.List)):
            elems = [e.value for e in target.elements]
            if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(elems):
                for t, v in zip(elems, value.elements):
                    self.bind(t, v.value)
            elif isinstance(value, cst.Attribute) and value.attr.value == "shape":
                if isinstance(value.value, cst.Name):
                    self.evidence(value.value.value).exact_rank = len(elems)
                for t in elems:
                    if isinstance(t, cst.Name):
                        self.record(t.value, I64)
            elif self.is_triangle_indices(value) and len(elems) == 2:  # i, j = np.triu_indices(n, 1)
                for t in elems:
                    if isinstance(t, cst.Name):
                        self.record(t.value, ArrayType(I64, 1))
                self.expr(value, False)
            elif self.pair_of(value) is not None and len(elems) == 2:  # sign, logdet = np.linalg.slogdet(K)
                for t, part in zip(elems, PAIRS[self.pair_of(value)]):  # (w, V = np.linalg.eigh(A))
                    if isinstance(t, cst.Name):
                        self.record(t.value, PART_TYPES[part])
                self.expr(value, False)
            else:
                sig = self.user_signature(value)
                if sig is not None and sig.tuple_result is not None and len(sig.tuple_result) == len(elems):
                    for t, ty in zip(elems, sig.tuple_result):  # s, c = helper(x)
                        if isinstance(t, cst.Name):
                            self.record(t.value, ty)
                elif sig is None and all(isinstance(t, cst.Name) for t in elems) and (
                        isinstance(value, cst.Name) or self.elementwise_operands(value)):
                    # x, y = state: an array's items (a tuple's are refused); a, b = np.exp(theta):
                    # the items of an elementwise value of arrays
                    self.array_use(value, 1)
                    for t in elems:
                        self.record(t.value, _Item(value))  # type: ignore[union-attr]
                self.expr(value, False)
        elif isinstance(target, cst.Subscript):
            self.subscript(target, False, load=False)
            self.expr(value, False)
            if self.picks_at_index_arrays(target):  # L[np.tril_indices(d)] = p: a value per index
                self.array_use(value, 1)
        else:
            self.expr(value, False)

    def propagate_int_context(self) -> None:
        """A local used as an integer makes what is assigned to it integer context too."""
        done: set[str] = set()
        while True:
            todo = [n for n in self.int_names if n not in done and n in self.assigns]
            if not todo:
                return
            for name in todo:
                done.add(name)
                for value in self.assigns[name]:
                    if isinstance(value, _Item) and isinstance(value.seq, cst.Name):
                        self.evidence(value.seq.value).int_loads.add(id(value.seq))  # an integer array
                    elif isinstance(value, cst.BaseExpression):
                        self.expr(value, True)
                    elif isinstance(value, _Aug) and not isinstance(value.op, cst.DivideAssign):
                        self.expr(value.value, True)

    # -- annotations -------------------------------------------------------------------
    def annotation(self, node: cst.BaseExpression) -> Union[Type, _ArrayAnnotation, str, None]:
        """The type an annotation names; unsupported ones are diagnosed and give None."""
        if isinstance(node, cst.SimpleString):
            try:
                inner = cst.parse_expression(node.evaluated_value)
            except cst.ParserSyntaxError:
                inner = None
            if inner is not None:
                shaped = self._shape_annotation(inner, node)
                return shaped if shaped is not None else self._annotation(inner, node)
        return self._annotation(node, node)

    def result_annotation(self, node: cst.BaseExpression) -> object:
        """What ``-> ...`` names: as ``annotation``, and ``tuple[float, int]`` (``typing.Tuple``
        too) as a Python tuple of what each element names."""
        if isinstance(node, cst.Subscript) and self.info.canonical_name(node.value) in _TUPLES:
            return tuple(self.annotation(e.slice.value) if isinstance(e.slice, cst.Index) else None
                         for e in node.slice)
        return self.annotation(node)

    def _shape_annotation(self, node: cst.BaseExpression, where: cst.CSTNode) -> Optional[_ArrayAnnotation]:
        """``"f64[n]"``, ``"f64[n, m]"``: an array with extents in the integer parameters."""
        if not (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name)
                and node.value.value in _SHAPE_ELEMS):
            return None
        extents = []
        for element in node.slice:
            if not isinstance(element.slice, cst.Index):
                self.diagnostics.append(self.locator.diagnostic(
                    where, "a shape annotation lists extents, not slices", hint='write "f64[n, m]"'))
                return _ArrayAnnotation(_SHAPE_ELEMS[node.value.value])
            extents.append(cst.Module([]).code_for_node(element.slice.value))
        return _ArrayAnnotation(_SHAPE_ELEMS[node.value.value], extents)

    def _annotation(self, node: cst.BaseExpression, where: cst.CSTNode) -> Union[Type, _ArrayAnnotation, str, None]:
        if isinstance(node, cst.Name) and node.value == "None":
            return _NONE
        if isinstance(node, cst.Subscript):
            canonical = self.info.canonical_name(node.value)
            if canonical in lib.NDARRAY_GENERIC and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
                elem_node = node.slice[0].slice.value
                elem_canonical = self.info.canonical_name(elem_node)
                if elem_canonical in lib.FLOAT_NAMES:
                    return _ArrayAnnotation(F64)
                if elem_canonical in lib.INT_NAMES:
                    return _ArrayAnnotation(I64)
                self.diagnostics.append(self.locator.diagnostic(
                    elem_node, "unsupported array element type in annotation",
                    hint="use NDArray[np.float64] or NDArray[np.int64]"))
                return None
        canonical = self.info.canonical_name(node)
        if canonical in lib.FLOAT_NAMES:
            return F64
        if canonical in lib.INT_NAMES:
            return I64
        if canonical in lib.BOOL_NAMES:
            return BOOL
        if canonical == "builtins.str":
            return STR
        if canonical in lib.ARRAY_NAMES or canonical in lib.NDARRAY_GENERIC:
            return _ArrayAnnotation(None)
        self.diagnostics.append(self.locator.diagnostic(
            where, "unsupported type annotation",
            hint="annotate with float, int, bool, np.ndarray or numpy.typing.NDArray[np.float64]"))
        return None

    # -- types of expressions ------------------------------------------------------------
    def expr_type(self, node: cst.BaseExpression, types: dict[str, Type]) -> Optional[Type]:
        memo = self.type_memo
        if memo is None or self.scopes:  # inside a comprehension its names bind: not memoized
            return self._expr_type(node, types)
        key = id(node)
        if key not in memo:
            memo[key] = self._expr_type(node, types)
        return memo[key]

    def picks_at_index_arrays(self, target: cst.Subscript) -> bool:
        """``a[idx] = v`` where an index is an array of integers the code evidently makes or names:
        ``np.arange(n)``, ``np.triu_indices(n)`` (whole), a name of an integer array."""
        for el in target.slice:
            index = el.slice.value if isinstance(el.slice, cst.Index) else None
            if isinstance(index, cst.Call) and self.info.canonical_name(index.func, self.locals) in (
                    "numpy.arange", *lib.TRIANGLE_INDICES):
                return True
            if isinstance(index, cst.Name):
                values = self.assigns.get(index.value, [])
                param = next((p for p in self.params if p.name.value == index.value), None)
                given = param.annotation.annotation if param is not None and param.annotation is not None else None
                if any(isinstance(v, ArrayType) and v.elem.is_int for v in values) or (
                        isinstance(given, cst.SimpleString) and "[" in given.evaluated_value
                        and _SHAPE_ELEMS.get(given.evaluated_value.split("[")[0].strip(), F64).is_int):
                    return True  # a parameter annotated "i64[n]"
        return False

    def is_triangle_indices(self, node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Call) and self.info.canonical_name(node.func, self.locals) in lib.TRIANGLE_INDICES

    def pair_of(self, node: cst.BaseExpression) -> Optional[str]:
        """The op of a call of a NumPy function that gives a pair (``PAIRS``), else None."""
        if not isinstance(node, cst.Call):
            return None
        intr = lib.lookup(self.info.canonical_name(node.func, self.locals))
        return intr.op if intr is not None and intr.op in PAIRS else None

    def _expr_type(self, node: cst.BaseExpression, types: dict[str, Type]) -> Optional[Type]:
        if isinstance(node, (cst.Subscript, cst.Attribute)) and self.pair_of(node.value) is not None:
            part = pair_part(self.pair_of(node.value), node)  # np.linalg.slogdet(K)[1], .logabsdet
            return PART_TYPES[part] if part is not None else None
        if isinstance(node, cst.Integer):
            return I64
        if isinstance(node, cst.Float):
            return F64
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return BOOL
            for scope in reversed(self.scopes):
                if node.value in scope:
                    return scope[node.value]
            if node.value in self.locals:
                return types.get(node.value)
            const = self.info.constants.get(node.value)
            if const is None:
                return F64 if self.info.canonical_name(node, self.locals) in lib.CONSTANTS else None
            return BOOL if isinstance(const, bool) else I64 if isinstance(const, int) else F64
        if isinstance(node, cst.BinaryOperation):
            exponent = int_literal(node.right) if isinstance(node.operator, cst.Power) else None
            left, right = self.expr_type(node.left, types), self.expr_type(node.right, types)
            if isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)) and _is_mask(left) and _is_mask(right) \
                    and (isinstance(left, ArrayType) or isinstance(right, ArrayType)):
                return ArrayType(BOOL, max(_rank(left), _rank(right)))  # (y > 0) & (y < 1): a mask
            return arith_type(node.operator, left, right, exponent)
        if isinstance(node, cst.UnaryOperation):
            if isinstance(node.operator, cst.Not):
                return BOOL
            t = self.expr_type(node.expression, types)
            if isinstance(node.operator, cst.BitInvert) and isinstance(t, ArrayType) and t.elem == BOOL:
                return t  # ~mask
            return I64 if t == BOOL else t
        if isinstance(node, cst.Comparison):
            ranks = [_rank(self.expr_type(x, types)) for x in [node.left] + [c.comparator for c in node.comparisons]]
            return ArrayType(BOOL, max(ranks)) if max(ranks) > 0 else BOOL
        if isinstance(node, cst.BooleanOperation):
            return BOOL
        if isinstance(node, cst.List):
            return self.list_type([e.value for e in node.elements], types)
        if isinstance(node, cst.ListComp):
            return self.list_type([node], types)
        if isinstance(node, cst.IfExp):
            return join(self.expr_type(node.body, types), self.expr_type(node.orelse, types))
        if isinstance(node, cst.Subscript):
            if is_shape_subscript(node):
                return I64
            if nonzero_positions(node, self.info, self.locals) is not None:
                return ArrayType(I64, 1)  # np.where(m)[0]: positions
            base, indices = subscript_chain(node)
            t = self.expr_type(base, types)
            if not isinstance(t, ArrayType):
                return None
            # Each index's type once (a[a[a[...]]] seventy deep: asked twice per level, 2 ** 70)
            plain = all(isinstance(i, cst.BaseExpression) for i in indices)
            its = [self.expr_type(i, types) for i in indices] if plain else []  # type: ignore[arg-type]
            if len(its) == 1 and isinstance(its[0], ArrayType):
                # x[x > 0]: the entries picked; A[z > 0]: the rows picked; p[label]: one element per
                # index; X[rows]: rows
                return ArrayType(t.elem, t.rank - its[0].rank + 1 if its[0].elem == BOOL else its[0].rank + t.rank - 1)
            if len(indices) > 1 and isinstance(indices[0], cst.BaseExpression) \
                    and all(is_whole_slice(i) for i in indices[1:]):
                first_type = self.expr_type(indices[0], types)
                if isinstance(first_type, ArrayType) and first_type.elem == BOOL:  # X[m, :]: the rows picked
                    return ArrayType(t.elem, t.rank - first_type.rank + 1)
            if len(indices) == 2 and is_whole_slice(indices[0]) and isinstance(indices[1], cst.BaseExpression) \
                    and t.rank == 2:
                picks = self.expr_type(indices[1], types)
                if isinstance(picks, ArrayType) and picks.rank == 1:  # X[:, idx], X[:, m]: columns
                    return ArrayType(t.elem, 2)
            if its and len(its) == t.rank:
                # logp[np.arange(n), labels]: one element per index, an index array per axis
                ranks = {i.rank for i in its if isinstance(i, ArrayType)}
                if len(ranks) == 1:
                    return ArrayType(t.elem, ranks.pop())
            first = indices[0] if indices else None
            if isinstance(first, cst.Name) and all(is_whole_slice(i) for i in indices[1:]):  # X[idx, :]: rows
                it = self.expr_type(first, types)
                if isinstance(it, ArrayType) and it.elem.is_int:
                    return ArrayType(t.elem, it.rank + t.rank - 1)
            added = sum(1 for i in indices if is_new_axis(i))  # x[:, None]: one axis more per None
            indices = [i for i in indices if not is_new_axis(i)]
            kept = added + sum(1 for i in indices if isinstance(i, cst.Slice)) + max(0, t.rank - len(indices))
            if any(isinstance(i, cst.Ellipsis) for i in indices):  # x[..., j]: '...' keeps the axes not named
                kept = added + sum(1 for i in indices if isinstance(i, cst.Slice)) + max(0, t.rank - len(indices) + 1)
            return ArrayType(t.elem, kept) if kept else t.elem
        if isinstance(node, cst.Attribute):
            if isinstance(node.value, cst.Name) and node.value.value in self.comm_names:
                return I64  # comm.rank, comm.size
            if (self.info.canonical_name(node, self.locals) or "") in py_mpi.COMMUNICATORS:
                return COMM
            if (self.info.canonical_name(node, self.locals) or "") in py_mpi.RANK_CONSTANTS:
                return I64
            if node.attr.value in ("size", "ndim"):
                return I64
            if node.attr.value == "T":
                t = self.expr_type(node.value, types)
                return t if isinstance(t, ArrayType) else None
            canonical = self.info.canonical_name(node, self.locals)
            return F64 if canonical in lib.CONSTANTS else None
        if isinstance(node, cst.Call):
            return self.call_type(node, types)
        return None

    def call_type(self, node: cst.Call, types: dict[str, Type]) -> Optional[Type]:
        func = node.func
        method = py_mpi.mpi_method(node, self.info, self.locals, self.comm_names)
        if method is not None:
            args = positional_args(node)
            return py_mpi.call_type(method, self.expr_type(args[0], types) if args else None)
        canonical = self.info.canonical_name(func, self.locals)
        if canonical == "builtins.sum":
            return self.sum_type(node, types)
        if iterable_extremum(node, canonical):
            return self.items_type(positional_args(node)[0], types)
        if canonical == lib.BINCOUNT:  # counts, or sums of the weights
            return ArrayType(F64 if bincount_args(node)[0] is not None else I64, 1)
        if isinstance(func, cst.Name) and func.value in self.info.functions and func.value not in self.locals:
            sig = self.call_sigs.get(node) or self.sigs.get(func.value)
            return sig.result if sig is not None else None
        intr = lib.lookup(self.info.canonical_name(func, self.locals))
        args = positional_args(node)
        method = method_of(node, self.locals, self.info)
        if method is not None:
            intr, args = method[0], [func.value, *args]  # type: ignore[attr-defined]
        if intr is None:
            return None
        op = intr.op
        if op in lib.NORM_FUNCTIONS:  # (loc= and scale= broadcast too)
            args = [a for a in lib.norm_args(node) if a is not None]
        if op in ("argmax", "argmin") and keyword_arg(node, "axis") is not None and args:
            t = self.expr_type(args[0], types)  # along an axis: an index per position of the others
            return ArrayType(I64, t.rank - 1) if isinstance(t, ArrayType) and t.rank > 1 else None
        if op in ("len", "int") or intr.int_result:
            return I64
        if op == "float":
            return F64
        if op == "bool":
            return BOOL
        if op in ("zeros", "empty"):
            elem = dtype_elem(self.info, keyword_arg(node, "dtype"))
            return ArrayType(elem or F64, alloc_rank(args[0])) if args else None
        if op in ("zeros_like", "empty_like", "ones_like", "full_like", "transpose", "array", "asarray", "roll", "pad",
                  "flip"):
            t = self.expr_type(args[0], types) if args else None
            return t if isinstance(t, ArrayType) else None
        if op in ("ones", "full"):
            return ArrayType(F64, alloc_rank(args[0])) if args else None
        if op in lib.MADE_ARRAYS:
            ints = op == "arange" and all(t is not None and t.is_int for t in (self.expr_type(a, types) for a in args))
            if op in ("triu_indices", "tril_indices"):
                return ArrayType(I64, 2)
            if op == "eye":  # np.eye(n, dtype=bool): a mask of the diagonal
                dtype = keyword_arg(node, "dtype")
                elem = BOOL if dtype is not None and self.info.canonical_name(dtype) in lib.BOOL_NAMES else \
                    dtype_elem(self.info, dtype)
                return ArrayType(elem or F64, 2)
            return ArrayType(I64 if ints else F64, 2 if op == "eye" else 1)
        arg_types = [self.expr_type(a, types) for a in args]
        if op == "argsort":  # the positions that sort a vector
            return ArrayType(I64, 1)
        if op == "searchsorted":  # a position per key: a number of a number
            t = arg_types[1] if len(arg_types) > 1 else None
            return ArrayType(I64, t.rank) if isinstance(t, ArrayType) else I64
        if op in ("running_max", "running_min"):  # of the vector's dtype, as NumPy keeps it
            t = arg_types[0] if arg_types else None
            return ArrayType(t.elem, t.rank) if isinstance(t, ArrayType) else None
        if op in ("cumsum", "cumprod", "sort"):  # (NumPy's running sums of booleans count)
            t = arg_types[0] if arg_types else None
            return ArrayType(I64 if op == "cumsum" and t.elem == BOOL else F64, t.rank) \
                if isinstance(t, ArrayType) else None
        if op == "polyval":  # at x: a number or an array of x's shape
            t = arg_types[1] if len(arg_types) == 2 else None
            return ArrayType(F64, t.rank) if isinstance(t, ArrayType) else F64
        if op in ("sum", "mean", "max_reduce", "min_reduce", "prod", "var", "std"):
            t = arg_types[0] if arg_types else None
            if not isinstance(t, ArrayType):
                return None
            elem = F64 if op in ("mean", "var", "std") else I64 if op in ("sum", "prod") and t.elem == BOOL \
                else t.elem  # (np.sum(x > 0) counts)
            axis = keyword_arg(node, "axis")
            if axis is None:
                return t if _is_true(keyword_arg(node, "keepdims")) else elem
            named = len(axis.elements) if isinstance(axis, cst.Tuple) else 1  # (axis=(0, 1))
            rank = t.rank if _is_true(keyword_arg(node, "keepdims")) else t.rank - named
            return ArrayType(elem, rank) if rank > 0 else elem
        if op == "count_nonzero":  # a count, of all the entries or along an axis
            t = arg_types[0] if arg_types else None
            axis = keyword_arg(node, "axis")
            if not isinstance(t, ArrayType) or axis is None:
                return I64
            rank = t.rank if _is_true(keyword_arg(node, "keepdims")) else \
                t.rank - (len(axis.elements) if isinstance(axis, cst.Tuple) else 1)
            return ArrayType(I64, rank) if rank > 0 else I64
        if op == "flatnonzero":  # positions
            return ArrayType(I64, 1)
        if op == "cross":  # a 3-vector, or one per row
            t = arg_types[0] if arg_types else None
            return ArrayType(F64, t.rank) if isinstance(t, ArrayType) else None
        if op in ("median", "percentile", "quantile"):  # of all the entries: a number (of one q)
            return F64
        if op == "astype":
            t = arg_types[0] if arg_types else None
            elem = astype_elem(self.info, args[1]) if len(args) > 1 else None
            return ArrayType(elem, t.rank) if isinstance(t, ArrayType) and elem is not None else None
        if op in ("ravel", "flatten"):
            t = arg_types[0] if arg_types else None
            return ArrayType(t.elem, 1) if isinstance(t, ArrayType) else None
        if op == "squeeze":  # with axis=, of known rank; else as lowering finds the extents of 1
            t = arg_types[0] if arg_types else None
            axis = keyword_arg(node, "axis") or (args[1] if len(args) > 1 else None)
            if not isinstance(t, ArrayType) or axis is None:
                return None
            rank = t.rank - (len(axis.elements) if isinstance(axis, cst.Tuple) else 1)
            return ArrayType(t.elem, rank) if rank > 0 else t.elem
        if op == "reshape" and len(args) >= 2:
            rank = len(args[1].elements) if len(args) == 2 and isinstance(args[1], (cst.Tuple, cst.List)) \
                else len(args) - 1
            t = arg_types[0]
            return ArrayType(t.elem, rank) if isinstance(t, ArrayType) else None
        if op in lib.LINALG_OPS:
            return linalg_type(op, node, args, lambda e: self.expr_type(e, types))
        if op in ("matmul", "outer") and len(arg_types) == 2:
            if not all(isinstance(t, ArrayType) for t in arg_types):
                return None
            rank = 2 if op == "outer" else _rank(arg_types[0]) + _rank(arg_types[1]) - 2
            return ArrayType(F64, rank) if rank > 0 else F64
        arrays = [t for t in arg_types if isinstance(t, ArrayType)]
        if arrays:
            if op == "where":
                return ArrayType(F64, max(_rank(t) for t in arg_types))
            return ArrayType(F64, max(t.rank for t in arrays))
        if op == "power" and len(args) == 2:
            return arith_type(cst.Power(), arg_types[0], arg_types[1], int_literal(args[1]))
        if op in ("div", "reciprocal", "float_power"):
            return F64
        if intr.keeps_int and arg_types and all(t is not None and not t.is_float for t in arg_types):
            return I64
        return F64

    def assigned_type(self, name: str, value: _Assigned, types: dict[str, Type]) -> Optional[Type]:
        if isinstance(value, Type):
            return value
        if isinstance(value, _Item):
            return self.item_type(value.seq, types)
        if isinstance(value, _ListOf):
            return self.list_type(value.items, types)
        if isinstance(value, _Aug):
            return arith_type(value.op, types.get(name), self.expr_type(value.value, types), int_literal(value.value))
        return self.expr_type(value, types)

    # -- the solution --------------------------------------------------------------------
    def run(self) -> FunctionTypes:
        annotations: dict[str, Union[Type, _ArrayAnnotation, str, None]] = {}
        for p in self.params:
            if p.annotation is not None:
                annotations[p.name.value] = self.annotation(p.annotation.annotation)
        for name, stated in stated_types(self.fn, self.info).items():  # @numba.njit("f8(f8[:], i8)")
            annotations.setdefault(name, _ArrayAnnotation(stated[0], rank=stated[1]) if isinstance(stated, tuple)
                                   else stated)
        self.shapes = {name: ann.shape for name, ann in annotations.items()
                       if isinstance(ann, _ArrayAnnotation) and ann.shape is not None}
        result_ann = self.result_annotation(self.fn.returns.annotation) if self.fn.returns is not None else None
        self.stmt(self.fn.body)
        self.propagate_int_context()
        self.ranks_from_uses(annotations)
        self.resolve_products(annotations)
        self.resolve_array_operands(annotations)

        types: dict[str, Type] = {}
        for name in self.param_names:
            types[name] = self.param_type(name, annotations.get(name))
        fixed = set(self.param_names) | set(self.declared)
        types.update(self.declared)
        self.local_types(types, fixed)
        # A parameter taken for a number that a loop rebinds to an array (v = v + dt * a): a
        # variable a loop carries has one type, the array's (its rank a guess, checked on entry).
        guessed = [n for n in self.param_names if n in self.rebound_in_loops and types[n] == F64
                   and annotations.get(n) is None and n not in self.given and n not in self.int_names
                   and n not in self.arrays and n not in self.str_names]
        rebound = {n: t for n in guessed if isinstance(t := self.joined_assigns(n, types), ArrayType)}
        if rebound:
            types.update(rebound)
            self.local_types(types, fixed)
        lists = frozenset(n for n, values in self.assigns.items()
                          if n not in self.param_names and any(isinstance(v, _ListOf) for v in values))
        for name in lists:
            if not isinstance(types.get(name), ArrayType):  # [] with nothing appended: of floats
                types[name] = ArrayType(F64, 1)
        for name in self.locals:
            types.setdefault(name, F64)  # never given a known type: lowering reports why
        node_types, call_args = self.node_types(types)

        params = [types[n] for n in self.param_names]
        assumed, rank_free, reduced = self.assumptions(types, annotations)
        by_item = self.read_by_item(frozenset(assumed))
        tuple_result = self.tuple_result(types, result_ann)
        if tuple_result is not None:
            return FunctionTypes(params, types, None, False, self.diagnostics, self.int_demands, self.shapes,
                                 assumed, rank_free, reduced, tuple_result, lists, node_types, call_args,
                                 frozenset(self.numpy_params), by_item, frozenset(self.number_params))
        result: Optional[Type] = None
        returned_array: Optional[Type] = None
        for r in self.returns:
            t = self.expr_type(r, types)
            if isinstance(t, ArrayType):
                returned_array = join(returned_array, t)
            elif not isinstance(r, cst.Tuple):
                result = join(result, t) or result
        returns_array = returned_array is not None
        if returned_array is not None:
            # The function returns an array (its gradient takes an array d_return): lowering
            # accepts it from one return at the function's end and reports any other return.
            result = returned_array
        if self.returns and result is None:
            result = F64
        if isinstance(result_ann, ScalarType) and self.returns and not returns_array:
            result = result_ann
        return FunctionTypes(params, types, result, returns_array, self.diagnostics, self.int_demands, self.shapes,
                             assumed, rank_free, reduced, None, lists, node_types, call_args,
                             frozenset(self.numpy_params), by_item, frozenset(self.number_params))

    def local_types(self, types: dict[str, Type], fixed: set[str]) -> None:
        """The types of the names not in ``fixed``, from what is assigned to them, to a fixed point."""
        for _ in range(100):
            changed = False
            for name in self.assigns:
                if name in fixed:
                    continue
                t = self.joined_assigns(name, types)
                if t is not None and types.get(name) != t:
                    types[name] = t
                    changed = True
            if not changed:
                break

    def joined_assigns(self, name: str, types: dict[str, Type]) -> Optional[Type]:
        t: Optional[Type] = None
        for v in self.assigns.get(name, []):
            t = join(t, self.assigned_type(name, v, types))
        return t

    def item_type(self, seq: cst.BaseExpression, types: dict[str, Type]) -> Optional[Type]:
        """The type of an item of the array or list ``seq``: an element, or a row."""
        if _iterated_tuple(seq):  # sum(p ** 2 for p in (a, b)): iterated as the list [a, b] is
            t = self.list_type([e.value for e in seq.elements], types)  # type: ignore[attr-defined]
        else:
            t = self.expr_type(seq, types)
        if not isinstance(t, ArrayType):
            return None
        return t.elem if t.rank == 1 else ArrayType(t.elem, t.rank - 1)

    def list_type(self, items: list[cst.BaseExpression], types: dict[str, Type]) -> Optional[Type]:
        """A list of ``items`` (an element a comprehension: its items): an array of one axis more."""
        t: Optional[Type] = None
        for item in items:
            t = join(t, self.comprehension_type(item, types) if isinstance(item, cst.ListComp)
                     else self.expr_type(item, types))
        if t is None:
            return None
        return ArrayType(t.elem, t.rank + 1) if isinstance(t, ArrayType) else ArrayType(t, 1)  # type: ignore

    def leaf_type(self, leaf: Leaf, types: dict[str, Type]) -> Optional[Type]:
        return self.item_type(leaf.seq, types) if isinstance(leaf, ItemsIter) else I64

    def comprehension_type(self, node: Comprehension, types: dict[str, Type]) -> Optional[Type]:
        """The type of the items a comprehension makes (its names typed by what they run over)."""
        scope: dict[str, Optional[Type]] = {}
        self.scopes.append(scope)
        try:
            for clause in comprehension_clauses(node):
                try:
                    it = read_iter(clause.iter, lambda f: self.info.canonical_name(f, self.locals))
                    names = leaves(clause.target, it)
                except IterError:
                    return None
                for name, leaf in names:
                    scope[name.value] = self.leaf_type(leaf, types)
            return self.expr_type(node.elt, types)
        finally:
            self.scopes.pop()

    def sum_type(self, node: cst.Call, types: dict[str, Type]) -> Optional[Type]:
        """``sum(items, start)``: an int when the items and the start are, else a float."""
        args = positional_args(node)
        if not args:
            return None
        t = self.items_type(args[0], types)
        start = self.expr_type(args[1], types) if len(args) > 1 else I64
        if isinstance(t, ArrayType) or t is None:
            return t
        return I64 if not t.is_float and start is not None and not start.is_float else F64

    def items_type(self, items: cst.BaseExpression, types: dict[str, Type]) -> Optional[Type]:
        """The type of the items of a comprehension or an iterable (a list, an array, a range, a
        shape)."""
        if isinstance(items, cst.Attribute) and items.attr.value == "shape":
            return I64
        if isinstance(items, (cst.ListComp, cst.GeneratorExp)):
            return self.comprehension_type(items, types)
        try:
            it = read_iter(items, lambda f: self.info.canonical_name(f, self.locals))
        except IterError:
            return None
        return self.leaf_type(it, types) if isinstance(it, (RangeIter, ItemsIter)) else None

    def node_types(self, types: dict[str, Type]
                   ) -> tuple[dict[cst.CSTNode, Type], dict[cst.Call, list[Optional[Type]]]]:
        """The types lowering needs of sums, list comprehensions and list literals, and the types
        of the arguments of each call of a function of the file (each computed with the names of
        the comprehensions around it in scope)."""
        out: dict[cst.CSTNode, Type] = {}
        call_args: dict[cst.Call, list[Optional[Type]]] = {}

        def visit(node: cst.CSTNode) -> None:
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and node is not self.fn:
                return
            t: Optional[Type] = None
            canonical = self.info.canonical_name(node.func, self.locals) if isinstance(node, cst.Call) else None
            if canonical == "builtins.sum":
                t = self.sum_type(node, types)  # type: ignore[arg-type]
            elif isinstance(node, cst.Call) and iterable_extremum(node, canonical):
                t = self.items_type(positional_args(node)[0], types)
            elif isinstance(node, cst.ListComp):
                t = self.list_type([node], types)
            elif isinstance(node, cst.List) or _iterated_tuple(node):
                t = self.list_type([e.value for e in node.elements], types)  # type: ignore[attr-defined]
            elif (isinstance(node, cst.Call) and isinstance(node.func, cst.Name)
                  and node.func.value in self.info.functions and node.func.value not in self.locals):
                fdef = self.info.functions[node.func.value]
                names = [q.name.value for q in parameters(fdef)]
                bound, _ = bind_arguments(node, node.func.value, names,
                                          len(fdef.params.params) if fdef.params.kwonly_params else None)
                # by parameter, keywords where they bind (None: a default, or what Python would refuse)
                call_args[node] = [self.expr_type(a.value, types) if a is not None else None for a in bound]
            if t is not None:
                out[node] = t
            if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
                scope: dict[str, Optional[Type]] = {}
                self.scopes.append(scope)
                for clause in comprehension_clauses(node):
                    visit(clause.iter)
                    try:
                        names = leaves(clause.target, read_iter(
                            clause.iter, lambda f: self.info.canonical_name(f, self.locals)))
                    except IterError:
                        names = []
                    for name, leaf in names:
                        scope[name.value] = self.leaf_type(leaf, types)
                    for cond in clause.ifs:
                        visit(cond.test)
                visit(node.elt)
                self.scopes.pop()
                return
            for c in children(node):
                visit(c)

        visit(self.fn.body)
        return out, call_args

    def returned_parts(self, r: cst.BaseExpression, types: dict[str, Type]) -> Optional[list[Optional[Type]]]:
        """The types of the values ``return r`` returns when it returns several: a tuple
        (``return s, t``) or a call of a function of the file that returns one; else None."""
        if isinstance(r, cst.Tuple):
            return [self.expr_type(e.value, types) for e in r.elements]
        sig = self.user_signature(r)
        return list(sig.tuple_result) if sig is not None and sig.tuple_result is not None else None

    def user_signature(self, node: cst.BaseExpression) -> Optional[Signature]:
        """The signature of the function of the file ``node`` calls, if it is such a call."""
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value not in self.locals:
            return self.call_sigs.get(node) or self.sigs.get(node.func.value)
        return None

    def tuple_result(self, types: dict[str, Type], annotation: object) -> Optional[tuple[Type, ...]]:
        """One type per returned value, where the function returns a tuple (each value's join
        over the returns; an annotation ``-> tuple[float, int]`` fixes its number types).
        Returns of another number of values are reported here: Python would return them, but
        a caller could not unpack them all the same way."""
        parts = [(r, self.returned_parts(r, types)) for r in self.returns]
        tuples = [(r, p) for r, p in parts if p is not None]
        if not tuples:
            return None
        width = len(tuples[0][1])
        for r, p in parts:
            if p is None or len(p) != width:
                got = "one value" if p is None else f"{len(p)} values"
                self.diagnostics.append(self.locator.diagnostic(
                    r, f"this return gives {got}, but the function returns {width} values elsewhere",
                    hint=f"return {width} values on every path"))
        out: list[Optional[Type]] = [None] * width
        for _, p in tuples:
            if len(p) == width:
                out = [join(a, b) for a, b in zip(out, p)]
        if isinstance(annotation, tuple) and len(annotation) == width:
            out = [a if isinstance(a, ScalarType) and not isinstance(t, ArrayType) else t
                   for a, t in zip(annotation, out)]
        return tuple(t if t is not None else F64 for t in out)

    # -- what the code does not prove -------------------------------------------------------
    def assumptions(self, types: dict[str, Type], annotations: dict
                    ) -> tuple[dict[str, int], frozenset[str], frozenset[str]]:
        """Parameters whose kind or rank is a guess: name -> the rank taken (0: a scalar); those of
        them whose rank no generated code depends on (``py_rank_free``); and those that reach a
        whole reduction of a number (``FunctionTypes.reduced_numbers``).

        An array parameter's rank is proven by a shape annotation, by ``n, m = A.shape``, by
        passing it where a callee proves the rank, or by an element access with as many
        integer indices as the rank taken (``A[i, j]``). A rank that only comes from
        whole-array use (``W @ x`` takes ``W`` as a matrix, ``np.sum(x)`` takes ``x`` as a
        vector) or from slices (``x[1:]``, ``A[:, j]``, which keep axes) is a guess.

        An unannotated float parameter is a guess when its value can reach a NumPy
        operation that would take an array just as well (``np.exp(x)``, ``W @ x + b``,
        through locals too): NumPy code cannot tell a scalar from an array there. One only
        used in scalar code (``math.exp(x)``, element loops) is not: an array there would
        fail in the primal or change its result's kind.

        A parameter the function never reads, with neither an annotation nor a default, is
        taken for a float: nothing at all tells its kind. No Python depends on it, but a C
        signature would (``double x`` for what the caller holds as an array).
        """
        out: dict[str, int] = {}
        context, scalar_only, gathering, reduced = self.numpy_context(types)
        uses = param_uses(self.fn.body, frozenset(self.param_names))
        unread = {p.name.value for p in self.params
                  if not uses[p.name.value] and p.annotation is None and p.default is None}
        for name in self.param_names:
            t = types[name]
            ann = annotations.get(name)
            if t.is_float and name in scalar_only:
                self.number_params.add(name)
            if name in self.given:
                if t.is_float and name in context and name not in scalar_only:
                    self.numpy_params.add(name)
                continue  # the callers' arguments give it
            if name in unread:
                out[name] = _rank(t)
                continue
            if isinstance(t, ArrayType):
                if isinstance(ann, _ArrayAnnotation) and (ann.shape or ann.rank):
                    continue
                ev = self.arrays.get(name) or _ArrayEvidence()
                if ev.exact_rank is not None and not ev.exact_assumed and ev.exact_rank == t.rank:
                    continue
                if ev.exact_rank is None and any(
                    len(indices) == t.rank and not any(isinstance(self.expr_type(i, types), ArrayType) for i in indices)
                    and not self.meets_array(node, types)
                    for indices, node in zip(ev.element_uses, ev.element_nodes)
                ):
                    continue  # a[i, j]: an element (slices and index arrays keep axes)
                out[name] = t.rank
            elif t.is_float and name not in annotations and name in context and name not in scalar_only:
                out[name] = 0
            elif t.is_int and name not in annotations and name in gathering and name not in scalar_only:
                out[name] = 0  # x[idx]: NumPy takes an array of integers there too (a gather)
        classify = RankFreeUses(self.info, self.locals, self.sigs, lambda e: self.expr_type(e, types))
        rank_free = frozenset(name for name, rank in out.items() if name not in reduced
                              and (name in unread or classify.rank_free(name, uses[name], number=rank == 0)))
        return out, rank_free, frozenset(name for name in out if name in reduced)

    def read_by_item(self, names: frozenset[str]) -> frozenset[str]:
        """Those of ``names`` (parameters) the code reads item by item (``FunctionTypes.read_by_item``):
        subscripted, iterated (also through ``zip``, ``enumerate``), or unpacked."""
        found = set()
        for name, paths in param_uses(self.fn.body, names).items():
            for path in paths:
                node, parent = path[-1], path[-2]
                call = path[-3] if isinstance(parent, cst.Arg) and len(path) > 2 else None
                if (isinstance(parent, cst.Subscript) and parent.value is node
                        or isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is node
                        or isinstance(parent, cst.Assign) and parent.value is node
                        and any(isinstance(t.target, (cst.Tuple, cst.List)) for t in parent.targets)
                        or isinstance(parent, (cst.StarredElement, cst.Arg)) and getattr(parent, "star", "") == "*"
                        or isinstance(call, cst.Call) and self.info.canonical_name(call.func, self.locals)
                        in ("builtins.zip", "builtins.enumerate", "builtins.list", "builtins.tuple")):
                    found.add(name)
                    break
        return frozenset(found)

    def meets_array(self, node: cst.Subscript, types: dict[str, Type]) -> bool:
        """Whether ``a[i]`` is an operand of elementwise arithmetic with an array (``X -
        mus[k]``), directly or through more of it: there a row of a matrix ``a`` would broadcast
        as well as a number, so the element access proves no rank (probe p13: a 2-D
        ``mus`` was taken for a vector, unchecked, and its gradient was wrong)."""
        if self.parents is None:
            self.parents = {id(c): n for n in walk(self.fn.body) for c in children(n)}
        child: cst.CSTNode = node
        parent = self.parents.get(id(child))
        while isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)) and not isinstance(
                getattr(parent, "operator", None), (cst.MatrixMultiply, cst.Not)):
            if isinstance(parent, cst.BinaryOperation):
                other = parent.right if parent.left is child else parent.left
                if isinstance(self.expr_type(other, types), ArrayType):
                    return True
            child, parent = parent, self.parents.get(id(parent))
        return False

    def at_index_array(self, target: cst.BaseExpression, types: dict[str, Type]) -> bool:
        """An assignment target indexed by an array (``y[idx]``, ``y[mask]``): several elements."""
        return isinstance(target, cst.Subscript) and any(
            isinstance(e.slice, cst.Index) and isinstance(self.expr_type(e.slice.value, types), ArrayType)
            for e in target.slice)

    def numpy_context(self, types: dict[str, Type]) -> tuple[set[str], set[str], set[str], set[str]]:
        """Names whose value reaches, elementwise, an operation that takes arrays as well as
        numbers; names whose value reaches one that takes numbers only (``math.exp``, ``max``,
        an ``if`` test), where an array would make the primal fail; integers that index
        arrays and count no range, which may be arrays of integers (``x[idx]``: a gather); and
        names whose value reaches a whole reduction of a number (``FunctionTypes.reduced_numbers``)."""
        self.type_memo = {}
        try:
            return self._numpy_context(types)
        finally:
            self.type_memo = None

    def _numpy_context(self, types: dict[str, Type]) -> tuple[set[str], set[str], set[str], set[str]]:
        names: set[str] = set()
        scalar_only: set[str] = set()
        indexing: set[str] = set()  # integers that index arrays (x[idx]: NumPy gathers for an array)
        made_lists = {n for n, values in self.assigns.items()  # (a list's item: one integer)
                      if n not in self.param_names and any(isinstance(v, _ListOf) for v in values)}
        counted: set[str] = set()  # integers that count a range (range(n): a number)
        reduced: set[str] = set()  # what reaches np.mean & co. of a number (FunctionTypes.reduced_numbers)

        @_by_node
        def flow(node: cst.BaseExpression) -> set[str]:
            """The names whose values flow elementwise into ``node``'s value (not to be changed)."""
            if isinstance(node, cst.Name):
                return {node.value} if node.value in self.locals else set()
            if isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, cst.MatrixMultiply):
                return flow(node.left) | flow(node.right)
            if isinstance(node, cst.UnaryOperation) and not isinstance(node.operator, cst.Not):
                return flow(node.expression)
            if isinstance(node, cst.IfExp):
                return flow(node.body) | flow(node.orelse)
            if isinstance(node, cst.Call) and self.takes_arrays(node) and self.elementwise_call(node):
                return set().union(*(flow(a) for a in positional_args(node)))
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) \
                    and node.func.value in self.info.functions and node.func.value not in self.locals:
                # A function of the file: its value may carry any argument elementwise (affine(x, a, c)
                # is a * x + c), so what it meets may take them for arrays (fuzz of outside code: a
                # and c were numbers whose adjoints came back unsummed where x was an array).
                return set().union(*(flow(a.value) for a in node.args if not a.star))
            return set()

        @_by_node
        def numpy_valued(node: cst.BaseExpression) -> bool:
            """Arithmetic with the value of an elementwise NumPy call of float variables
            (``K / (1 + np.exp(-r * t))``): an array wherever they are, so its other operands may be
            arrays too (not ``np.sin(u[k])``, of an element)."""
            if isinstance(node, cst.Call):
                return self.takes_arrays(node) and self.elementwise_call(node) and any(
                    not (types.get(n) is not None and types[n].is_int) for a in positional_args(node) for n in flow(a))
            if isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, cst.MatrixMultiply):
                return numpy_valued(node.left) or numpy_valued(node.right)
            if isinstance(node, cst.UnaryOperation):
                return numpy_valued(node.expression)
            return False

        def visit(node: cst.CSTNode) -> None:
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and node is not self.fn:
                return
            if isinstance(node, (cst.BinaryOperation, cst.Comparison)):
                if isinstance(self.expr_type(node, types), ArrayType) or numpy_valued(node):
                    names.update(flow(node) if isinstance(node, cst.BinaryOperation) else set().union(
                        flow(node.left), *(flow(c.comparator) for c in node.comparisons)))
            elif isinstance(node, cst.Call) and self.takes_arrays(node):
                names.update(*(flow(a) for a in positional_args(node)))
                intr = lib.ARRAY_FUNCTIONS.get(self.info.canonical_name(node.func, self.locals) or "")
                if intr is not None and intr.op in _WHOLE_OF_A_NUMBER and positional_args(node) \
                        and not isinstance(self.expr_type(positional_args(node)[0], types), ArrayType):
                    reduced.update(flow(positional_args(node)[0]))
            elif isinstance(node, cst.Call) and self.numbers_only(node):
                scalar_only.update(*(flow(a) for a in positional_args(node)))
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) \
                    and node.func.value in self.info.functions and node.func.value not in self.locals:
                # g(b) where g's parameter reaches math.sin: a number there, so here
                sig = self.call_sigs.get(node) or self.sigs.get(node.func.value)
                if sig is not None and sig.number_params:
                    bound, _ = bind_arguments(node, sig.name, sig.param_names, sig.positional)
                    scalar_only.update(*(flow(a.value) for i, a in enumerate(bound)
                                         if a is not None and sig.param_names[i] in sig.number_params))
            elif isinstance(node, (cst.If, cst.While, cst.IfExp)) and isinstance(node.test, cst.Comparison):
                test = node.test
                scalar_only.update(flow(test.left), *(flow(c.comparator) for c in test.comparisons))
            elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
                if isinstance(types.get(node.target.value), ArrayType):
                    names.update(flow(node.value))
            elif isinstance(node, (cst.Assign, cst.AugAssign)) and any(
                    _is_part(t) or self.at_index_array(t, types)
                    for t in ([node.target] if isinstance(node, cst.AugAssign) else [t.target for t in node.targets])):
                # A[1, :] += v, y[idx] += v (probe round 9: unchecked, an array's adjoint came back
                # summed), y[mask] = v: a run of numbers, or one number
                names.update(flow(node.value))
            if isinstance(node, cst.Subscript) and isinstance(self.expr_type(node.value, types), ArrayType) \
                    and not (isinstance(node.value, cst.Name) and node.value.value in made_lists):
                for element in node.slice:  # x[idx]: idx an integer, or an array of them (a gather)
                    if isinstance(element.slice, cst.Index):
                        indexing.update(n for n in flow(element.slice.value)
                                        if types.get(n) is not None and types[n].is_int)
            elif isinstance(node, cst.Call) and self.info.canonical_name(node.func, self.locals) == "builtins.range":
                counted.update(*(flow(a) for a in positional_args(node)))  # range(n): n is one number
            for c in children(node):
                visit(c)

        visit(self.fn.body)
        for a in self.numpy_args:
            names.update(flow(a))
            # An integer passed where the callee guesses a number (g(x, k) with h[k] in g: an array
            # of integers there is a gather): the guess is this function's too, and its entry checks
            # it (probe p65: through a helper, an array k went unchecked, and the adjoint's d_x[k] +=
            # g dropped the repeated indices).
            indexing.update(n for n in flow(a) if types.get(n) is not None and types[n].is_int)
        for found in (names, scalar_only, indexing, counted, reduced):
            todo = list(found)
            while todo:  # what is assigned to a name is where the name's value goes too
                for value in self.assigns.get(todo.pop(), []):
                    expr = value.value if isinstance(value, _Aug) else value
                    if isinstance(expr, cst.BaseExpression):
                        for n in flow(expr) - found:
                            found.add(n)
                            todo.append(n)
        return names, scalar_only, indexing - counted, reduced

    def numbers_only(self, node: cst.Call) -> bool:
        """A library call that fails on an array of more than one element (``math.exp``, ``max``)."""
        canonical = self.info.canonical_name(node.func, self.locals)
        return canonical is not None and (canonical.startswith("math.") or canonical in (
            "builtins.max", "builtins.min", "builtins.float", "builtins.int", "builtins.round"))

    def elementwise_call(self, node: cst.Call) -> bool:
        """A library call whose value has its arguments' shape (``np.exp``, ``np.where``), not a
        reduction or a product (``np.sum(x)`` is a number whatever ``x`` is: that it reaches
        ``max`` proves nothing of ``x``)."""
        canonical = self.info.canonical_name(node.func, self.locals)
        intr = lib.ARRAY_FUNCTIONS.get(canonical or "")
        return intr is None or intr.op == "where"

    def takes_arrays(self, node: cst.Call) -> bool:
        """A library call that maps arrays as readily as numbers (``np.exp``, ``abs``, SciPy's
        special functions: ``betaln(k + a, n - k + b)`` of arrays ``k`` and ``n`` is an array)."""
        canonical = self.info.canonical_name(node.func, self.locals)
        return canonical is not None and (canonical.startswith(("numpy.", "scipy.special.", "scipy.stats."))
                                          or canonical == "builtins.abs")

    def param_type(self, name: str, ann: Union[Type, _ArrayAnnotation, str, None]) -> Type:
        if isinstance(ann, ScalarType):
            return ann
        if name in self.comm_names:
            return COMM
        if ann is None and name in self.given:
            return self.given[name]
        if ann is None and name in self.str_names:
            return STR
        ev = self.arrays.get(name)
        if isinstance(ann, _ArrayAnnotation) or ev is not None:
            ev = ev or _ArrayEvidence()
            rank = ev.exact_rank or max([ev.min_rank, 1, *ev.rank_uses])
            if isinstance(ann, _ArrayAnnotation) and ann.shape:
                rank = len(ann.shape)
            elif isinstance(ann, _ArrayAnnotation) and ann.rank:
                rank = ann.rank
            if isinstance(ann, _ArrayAnnotation) and ann.elem is not None:
                elem = ann.elem  # what the annotation says, whatever a callee's body would take
            elif ev.forced_elem is not None:
                elem = ev.forced_elem
            elif ev.loads and ev.loads <= ev.int_loads:
                elem = I64
            else:
                elem = F64
            return ArrayType(elem, rank)
        return I64 if name in self.int_names else F64


def infer_types(fn: cst.FunctionDef, info: ModuleInfo, sigs: dict[str, Signature], locator: Locator,
                int_result: bool = False, given: Optional[dict[str, Type]] = None,
                call_sigs: Optional[dict[cst.Call, Signature]] = None) -> FunctionTypes:
    """Types of ``fn``; ``int_result``: a caller uses its result as an integer (so its returns are
    integer context, which is what makes ``def last(n): return n - 1`` usable as ``x[last(n)]``).
    ``sigs``: the callees' own signatures, by name (what their bodies say of their parameters);
    ``given``: parameter types its callers give (``py_specialize``); ``call_sigs``: the signature
    of the specialized callee of each call, which gives the call's result."""
    return _Inference(fn, info, sigs, locator, int_result, given, call_sigs).run()


def signature(fn: cst.FunctionDef, types: FunctionTypes, info: ModuleInfo) -> Signature:
    params = parameters(fn)
    names = [p.name.value for p in params]
    defaults = [default_value(p.default, info) for p in params]
    return Signature(fn.name.value, names, list(types.params), defaults, types.result, frozenset(types.assumed),
                     types.rank_free, types.tuple_result, len(fn.params.params) if fn.params.kwonly_params else None,
                     types.numpy_params, types.number_params)


def _is_mask(t: Optional[Type]) -> bool:
    """A boolean, or an array of them."""
    return t == BOOL or (isinstance(t, ArrayType) and t.elem == BOOL)


def _iterated_tuple(node: cst.CSTNode) -> bool:
    """A tuple of plain items written where a loop or a comprehension runs over it (``for p in
    (a, b)``): iterated as the list ``[a, b]`` is (``py_lists.items``)."""
    return isinstance(node, cst.Tuple) and bool(node.elements) and all(
        isinstance(e, cst.Element) for e in node.elements)


def _mentions(node: object, name: str) -> bool:
    """``node`` reads the variable ``name`` (``u + c * lap(u)`` of ``u``)."""
    return isinstance(node, cst.CSTNode) and any(
        isinstance(n, cst.Name) and n.value == name for n in every_node(node))


def _copied_name(v: object) -> Optional[cst.Name]:
    """``x`` of a value ``x``, ``x.copy()``, ``np.copy(x)``, ``np.array(x)``, ``np.asarray(x)``, or
    of such a value converted (``np.array(x).astype(float)``, which ``np.array(x, dtype=float)``
    is spelled): the same array's values (axes included); else None."""
    if isinstance(v, cst.Name):
        return v
    if not isinstance(v, cst.Call):
        return None
    args = [a.value for a in v.args if a.keyword is None]
    if isinstance(v.func, cst.Attribute) and v.func.attr.value == "astype" and len(v.args) == 1:
        return _copied_name(v.func.value)
    if isinstance(v.func, cst.Attribute) and v.func.attr.value == "copy" and not v.args \
            and isinstance(v.func.value, cst.Name):
        return v.func.value
    if isinstance(v.func, cst.Attribute) and v.func.attr.value in ("copy", "array", "asarray") \
            and isinstance(v.func.value, cst.Name) and v.func.value.value in ("np", "numpy") \
            and len(args) == 1 and isinstance(args[0], cst.Name):
        return args[0]
    return None
