"""Lowering of Python expressions to SSA IR.

One ``ExprLowerer`` per function turns libcst expressions into values built
through a ``Builder``, with Python's semantics made explicit in the IR:

* int op float casts the int first; ``/`` is float division; ``//`` and ``%``
  on ints stay ints; ``float ** 2`` is ``pow`` with a float constant ``2.0``;
* comparisons unify their operand types; ``a < b < c`` evaluates ``b`` once;
* ``and``/``or`` and ``a if c else b`` are eager ops (``and``, ``or``,
  ``select``) only when skipping the right side could not matter (no loads,
  calls or operations that can fail, see ``py_flow.is_simple``); otherwise they
  become an ``if`` op, which keeps Python's short-circuit behaviour;
* subscripts become ``load`` with one index per dimension (``a[i][j]`` is
  ``a[i, j]``); a literal negative index counts from the end, as in Python;
* library calls become ``math.<fn>`` ops (arguments cast to float, except
  that abs/min/max keep ints), casts, ``dim`` or ``alloc``; calls to functions of
  the file become ``call`` ops.

Every op gets the location of the expression it comes from. Anything
unsupported raises ``Fail`` with a diagnostic pointing at the offending node.
Scalar arithmetic goes through ``ssa.build``, which folds the trivial cases.
"""

from __future__ import annotations

import sys

from dataclasses import dataclass, field
from typing import Callable, Optional, Union

import libcst as cst

from ..ssa import build
from ..ssa.attrs import NUMPY, NUMPY_OPS, SCIPY, SOURCE_EXTENT
from ..ssa.ir import Block, Builder, Value
from ..ssa.mathfns import MATH as MATH_TABLE
from ..ssa.mpi import Communicator
from ..ssa.types import BOOL, COMM, F64, I64, REQUEST, STR, ArrayType, ScalarType, Type, common_type
from . import py_arrays, py_comprehension, py_extents, py_linalg, py_lists, py_mpi, py_roll_pad, py_search
from . import py_intrinsics as lib
from .py_writers import written_params
from .custom_adjoints import NONE as NO_DERIVATIVES
from .custom_adjoints import CustomAdjoint, Derivatives, argument_kind, expected_python
from .py_common import Env, Fail, Locator, Poison, integer_array_hint
from .py_helper_shapes import RESULT_EXTENTS, HelperShapes
from .py_flow import children, every_node, is_new_axis, is_shape_subscript, is_simple, is_whole_slice, subscript_chain
from .py_module import ModuleInfo, dotted_source
from .py_mpi import PyMpi
from .py_params import bind_arguments
from .py_strings import is_string, string_set
from .py_types import (
    FunctionTypes,
    Signature,
    dtype_elem,
    int_literal,
    iterable_extremum,
    keyword_arg,
    method_of,
    nonzero_positions,
    positional_args,
)

ARITH_OPS: dict[type, str] = {
    cst.Add: "add", cst.Subtract: "sub", cst.Multiply: "mul", cst.Divide: "div",
    cst.FloorDivide: "floordiv", cst.Modulo: "mod", cst.Power: "pow",
}
AUG_OPS: dict[type, str] = {
    cst.AddAssign: "add", cst.SubtractAssign: "sub", cst.MultiplyAssign: "mul", cst.DivideAssign: "div",
    cst.FloorDivideAssign: "floordiv", cst.ModuloAssign: "mod", cst.PowerAssign: "pow",
}
COMPARE_OPS: dict[type, str] = {
    cst.LessThan: "lt", cst.LessThanEqual: "le", cst.GreaterThan: "gt",
    cst.GreaterThanEqual: "ge", cst.Equal: "eq", cst.NotEqual: "ne",
}

_UNSUPPORTED_EXPRESSIONS: dict[type, tuple[str, str]] = {
    cst.Lambda: ("a lambda is supported only bound to a name and called (f = lambda t: ...; f(x))",
                 "bind it to a name at the top level of the function's body, or define a function with def"),
    cst.ListComp: ("a list comprehension is supported as a list (v = [...]), in sum(...) and as the argument of a "
                   "NumPy function", "assign it to a name first"),
    cst.SetComp: ("set comprehensions are not supported", "write a for loop over range(...)"),
    cst.DictComp: ("dict comprehensions are not supported", "write a for loop over range(...)"),
    cst.GeneratorExp: ("a generator expression is supported only in sum(...)", "write a for loop"),
    cst.Yield: ("generators (yield) are not supported", "compute the values in a loop and store them in an array"),
    cst.Await: ("await is not supported", ""),
    cst.NamedExpr: ("assignment expressions (:=) are not supported", "assign the value in its own statement"),
    cst.List: ("a list literal is supported as a list (v = [...]), in sum(...) and as the argument of a NumPy "
               "function", "assign it to a name first"),
    cst.Dict: ("dict literals are not supported", "use scalar variables or NumPy arrays"),
    cst.Set: ("set literals are not supported", "use scalar variables or NumPy arrays"),
    cst.Tuple: ("tuples are only supported on both sides of an assignment (a, b = b, a)",
                "use separate variables"),
    cst.SimpleString: ("strings are not supported", "only numbers, booleans and NumPy arrays can be used"),
    cst.ConcatenatedString: ("strings are not supported", "only numbers, booleans and NumPy arrays can be used"),
    cst.FormattedString: ("strings are not supported", "only numbers, booleans and NumPy arrays can be used"),
    cst.Imaginary: ("complex numbers are not supported", ""),
    cst.Ellipsis: ("'...' is not supported as a value", ""),
    cst.StarredElement: ("starred expressions are not supported", ""),
}


def describe(t: Type) -> str:
    if isinstance(t, ArrayType):
        kind = "floats" if t.elem.is_float else "integers" if t.elem.is_int else "booleans"
        return f"an array ({t.rank}-D, {kind})"
    if t.is_float:
        return "a float"
    if t.is_int:
        return "an integer"
    return "a string" if t == STR else "a boolean"


@dataclass
class FunctionContext:
    """What lowering one function needs to know beyond its own body."""

    name: str
    info: ModuleInfo
    locator: Locator
    types: FunctionTypes
    sigs: dict[str, Signature]
    locals: frozenset[str]  # parameters and every name the function assigns
    basename: str  # the input's file name, for messages
    recursive_calls: frozenset[cst.Call] = frozenset()  # calls that close a cycle (already reported)
    derivatives: Derivatives = NO_DERIVATIVES  # the custom adjoints of functions defined elsewhere
    # The signature of the instance each call of a function of the file calls (py_specialize):
    # its parameters as this call's arguments give them, its result.
    call_sigs: dict[cst.Call, Signature] = field(default_factory=dict)
    # Whether this is the function differentiated, whose gradient checks on entry what its
    # lowering assumes of its parameters' extents (``py_lower``, FunctionLowerer.same_extent).
    entry: bool = False
    # What each helper lowered so far (callees first) tells its callers of its arrays' extents.
    helper_shapes: dict[str, HelperShapes] = field(default_factory=dict)


# Python's functions of numbers that an index may call: their value is a number.
_NUMBER_BUILTINS = ("int", "min", "max", "abs", "round", "len")


class ExprLowerer(PyMpi):
    def __init__(self, ctx: FunctionContext):
        self.ctx = ctx
        self.info = ctx.info
        self.locator = ctx.locator
        # The names the comprehensions being lowered bind, innermost last (py_comprehension).
        self.scopes: list[set[str]] = []
        # What the loops being lowered know of their indices: the least value each takes.
        self.lower_bounds: dict[Value, int] = {}
        # and the range each lies in, as (value, offset) pairs: lb <= i <= ub - 1 is ((lb, 0), (ub, -1)).
        self.index_ranges: dict[Value, tuple[tuple[Value, int], tuple[Value, int]]] = {}
        # Lists passed straight to a NumPy function, which takes each as an array of its items.
        self.list_args: set[cst.CSTNode] = set()
        # Numbers the source reduced as a whole (``np.sum(total)``), which the IR takes for their
        # own values: marked when the function is made (ssa.attrs.mark_whole_reduced).
        self.whole_reduced: list[Value] = []
        # Parts subscripted again (``y[lo:hi][::-1]``: ``y[lo:hi]``), each lowered once while the
        # subscript of it is (``subscript``).
        self.held: dict[cst.CSTNode, Value] = {}
        # Lists whose items' shape comes from an array rebound after they are made: each append
        # checks its item (py_lists.item_dims).
        self.checked_lists: set[str] = set()
        # That an array is so long along an axis, as a helper called assumes of its argument
        # (``py_lower``, FunctionLowerer.require_extent): None if shown or left to check, else
        # the length it has instead or "unknown".
        self.require_extent: Callable[[Value, int, int, cst.CSTNode, str], Union[None, int, str]] = \
            lambda arr, axis, count, node, why: "unknown"
        # That two arrays have one extent, as a helper called assumes (FunctionLowerer.require_same).
        self.require_same: Callable[[Value, int, Value, int, cst.CSTNode, str], Optional[bool]] = \
            lambda arr, axis, other, other_axis, node, why: None
        self._params_written: Optional[dict[str, set[str]]] = None

    def params_written(self) -> dict[str, set[str]]:
        """Function of the file -> the parameters it writes into (``py_writers``), found once."""
        if self._params_written is None:
            self._params_written = written_params(self.info)
        return self._params_written

    # -- helpers ---------------------------------------------------------------------
    def at(self, b: Builder, node: cst.CSTNode) -> Builder:
        """Make ``b`` stamp the next ops with ``node``'s location."""
        b.loc = self.locator.loc(node)
        return b

    def fail(self, node: cst.CSTNode, message: str, hint: str = "") -> Fail:
        return self.locator.fail(node, message, hint)

    def const(self, b: Builder, node: cst.CSTNode, value: object, t: ScalarType, hint: str = "") -> Value:
        if isinstance(value, Communicator):  # a parameter's default (comm=MPI.COMM_WORLD), filled in
            return self.at(b, node).op1("global", [], COMM, value.name.lower(), callee=value.name, mpi=True)
        return build.const(self.at(b, node), value, t, hint)  # type: ignore[arg-type]

    def finite(self, v: Value, node: cst.CSTNode) -> Value:
        """``v``, refused where it is an integer constant no float can hold, that Python would turn
        into one here (its OverflowError: ``s = 10 ** 400`` then ``s += x[i]``)."""
        c = build.const_int(v)
        if c is not None and abs(c) > sys.float_info.max:
            raise self.fail(node, "this integer is too large for a float, and it is used as one (Python raises "
                            "OverflowError where it meets a float)",
                            hint="write a float literal (1e308 is the largest), or a smaller integer")
        return v

    def coerce(self, v: Value, t: Type, b: Builder, node: cst.CSTNode, what: str) -> Value:
        """``v`` converted to ``t`` where Python would convert implicitly (int -> float)."""
        if v.type == t:
            return v
        if isinstance(t, ArrayType) or isinstance(v.type, ArrayType):
            raise self.fail(node, f"{what} is {describe(t)}, but this value is {describe(v.type)}",
                            hint="use a different variable for values of a different kind")
        if t.is_float or (t.is_int and v.type == BOOL):
            return build.cast(self.at(b, node), self.finite(v, node), t)
        if t.is_int:
            raise self.fail(node, f"{what} holds integers, but this value is a float",
                            hint="convert with int(...), or use // for integer division")
        raise self.fail(node, f"{what} is a boolean, but this value is {describe(v.type)}",
                        hint="compare explicitly (x != 0) to get a boolean")

    def fill_comprehension(self, node: cst.ListComp, t: ArrayType, extra: Optional[Value], b: Builder,
                           env: Env) -> Value:
        """A list comprehension's items in a new array (``py_comprehension``, for ``py_lists``)."""
        return py_comprehension.fill(self, node, t, extra, b, env)

    def lower_bound(self, v: Value) -> Optional[int]:
        """The least value the integer ``v`` can take, where its making shows one: a constant, an
        extent, a loop index, and sums, products and quotients of those."""
        c = build.const_int(v)
        if c is not None:
            return c
        if v in self.lower_bounds:
            return self.lower_bounds[v]
        op = v.defining_op
        if op is None:
            return None
        if op.name == "dim":
            return 0
        if op.name == "mod":  # Python's: of the divisor's sign (a zero one raises)
            x, d = op.operands
            least = self.lower_bound(d)
            return 0 if least is not None and least >= 0 or py_extents.positive_where_used(self, d, x) else None
        if op.name in ("add", "sub", "mul", "floordiv", "math.max"):
            x, y = (self.lower_bound(o) for o in op.operands)
            if op.name == "sub":
                c = build.const_int(op.operands[1])
                return x - c if x is not None and c is not None else None
            if x is None or y is None:
                return None
            if op.name == "add":
                return x + y
            if op.name == "math.max":
                return max(x, y)
            if x >= 0 and y >= 0:
                return 0 if op.name == "floordiv" and y == 0 else (x * y if op.name == "mul" else 0)
        return None

    def to_number(self, b: Builder, node: cst.CSTNode, v: Value) -> Value:
        """Booleans take part in arithmetic as ints, as in Python."""
        return build.cast(self.at(b, node), v, I64) if v.type == BOOL else v

    def if_value(self, b: Builder, node: cst.CSTNode, cond: Value,
                 then: Callable[[Builder], Value], other: Callable[[Builder], Value]) -> Value:
        """``cond ? then : other`` as an ``if`` op: only the taken side is evaluated."""
        tb, eb = Block(), Block()
        tbb, ebb = Builder(tb, self.locator.loc(node)), Builder(eb, self.locator.loc(node))
        x, y = then(tbb), other(ebb)
        if isinstance(x.type, ArrayType) or isinstance(y.type, ArrayType):
            raise self.fail(node, "choosing between arrays with a condition is not supported",
                            hint="index one array explicitly in each branch")
        t = common_type([x.type, y.type])
        x = self.coerce(x, t, tbb, node, "the result")
        y = self.coerce(y, t, ebb, node, "the result")
        self.at(tbb, node).create("yield", [x], [])
        self.at(ebb, node).create("yield", [y], [])
        return self.at(b, node).create("if", [cond], [t], regions=[tb, eb]).result

    # -- entry points ------------------------------------------------------------------
    def value(self, node: cst.BaseExpression, b: Builder, env: Env) -> Value:
        """The value of ``node``: a scalar, or an array reference."""
        if node in self.list_args:
            return py_lists.as_array(self, node, b, env)
        if node in self.held:
            return self.held[node]
        if isinstance(node, cst.Integer):
            return self.const(b, node, node.evaluated_value, I64)
        if isinstance(node, cst.Float):
            return self.const(b, node, node.evaluated_value, F64)
        if isinstance(node, cst.Name):
            return self.name(node, b, env)
        if isinstance(node, cst.BinaryOperation):
            return self.binary(node, b, env)
        if isinstance(node, cst.UnaryOperation):
            return self.unary(node, b, env)
        if isinstance(node, cst.Comparison):
            return self.compare(node, b, env)
        if isinstance(node, cst.BooleanOperation):
            return self.boolean(node, b, env, as_condition=False)
        if isinstance(node, cst.IfExp):
            return self.if_exp(node, b, env)
        if isinstance(node, (cst.Subscript, cst.Attribute)):
            part = py_linalg.pair_indexed(self, node, b, env)  # np.linalg.slogdet(A)[1]
            if part is not None:
                return part
        if isinstance(node, cst.Subscript):
            return self.subscript(node, b, env)
        if isinstance(node, cst.Attribute):
            return self.attribute(node, b, env)
        if isinstance(node, cst.Call):
            v = self.call(node, b, env, want_value=True)
            assert v is not None
            return v
        msg = _UNSUPPORTED_EXPRESSIONS.get(type(node))
        if msg is not None:
            raise self.fail(node, *msg)
        raise self.fail(node, "this expression is not supported")

    def scalar(self, node: cst.BaseExpression, b: Builder, env: Env) -> Value:
        return self.scalar_value(node, self.value(node, b, env))

    def scalar_value(self, node: cst.BaseExpression, v: Value) -> Value:
        """``v`` (the value of ``node``), which must be a number here."""
        if isinstance(v.type, ArrayType):
            src = dotted_source(node)
            what = f"'{src}' is an array" if src else "this is an array"
            raise self.fail(node, f"{what}, but a number is needed here",
                            hint="index an element (x[i]) or reduce the array (np.sum(x))")
        if v.type == STR:
            src = dotted_source(node)
            raise self.fail(node, f"{f'{src!r} is a string' if src else 'this is a string'}, but a number is "
                            "needed here", hint="s2sad differentiates code that only compares strings (mode == "
                            "\"mean\", mode in (\"a\", \"b\")) and passes them to the file's functions")
        return v

    def integer(self, node: cst.BaseExpression, b: Builder, env: Env, what: str) -> Value:
        v = self.scalar(node, b, env)
        if v.type == BOOL:
            return build.cast(self.at(b, node), v, I64)
        return self.integer_value(node, v, what)

    def integer_value(self, node: cst.BaseExpression, v: Value, what: str) -> Value:
        """``v``, lowered from ``node``, where it is an integer; a located error where a float."""
        if not v.type.is_int:
            raise self.fail(node, f"{what} must be an integer, but this value is a float",
                            hint="use // for integer division, or convert with int(...)")
        return v

    def condition(self, node: cst.BaseExpression, b: Builder, env: Env) -> Value:
        """``node`` as a bool, with Python's truthiness for numbers (x != 0)."""
        if isinstance(node, cst.BooleanOperation):
            return self.boolean(node, b, env, as_condition=True)
        return self.truth(node, self.scalar(node, b, env), b)

    def truth(self, node: cst.CSTNode, v: Value, b: Builder) -> Value:
        if v.type == BOOL:
            return v
        zero = self.const(b, node, 0, v.type)  # type: ignore[arg-type]
        return build.cmp(b, "ne", v, zero)

    # -- names and attributes ---------------------------------------------------------------
    def name(self, node: cst.Name, b: Builder, env: Env, as_list: bool = False) -> Value:
        """The value ``node`` names (``as_list``: of a list, its buffer, ``py_lists``)."""
        n = node.value
        if n in ("True", "False"):
            return self.const(b, node, n == "True", BOOL)
        if any(n in scope for scope in self.scopes):  # a comprehension's own name
            v = env[n]
            assert isinstance(v, Value)
            return v
        if n in self.ctx.types.lists and n in self.ctx.locals and not as_list:
            raise self.fail(node, f"'{n}' is a list, which is not supported here", hint=py_lists.HINT)
        if n in self.ctx.locals:
            v = env.get(n)
            if v is None:
                raise self.fail(node, f"'{n}' is used before it is assigned",
                                hint=f"assign {n} on every path before this use")
            if isinstance(v, Poison):
                if not v.message:
                    raise Fail(None)
                raise self.fail(node, v.message, v.hint)
            return v
        if n in self.info.constants:
            c = self.info.constants[n]
            t = BOOL if isinstance(c, bool) else I64 if isinstance(c, int) else F64
            return self.const(b, node, c, t)
        canonical = self.info.canonical_name(node, self.ctx.locals)
        if canonical in lib.CONSTANTS:  # from math import pi
            return self.const(b, node, lib.CONSTANTS[canonical], F64)
        if n == "None":
            raise self.fail(node, "None is not supported as a value", hint="use a number")
        if n in self.info.functions:
            raise self.fail(node, f"the function '{n}' is used as a value", hint=f"call it: {n}(...)")
        if n in self.info.imports or canonical is not None:
            raise self.fail(node, f"'{n}' names a library module or function, not a number",
                            hint="call it, or use a number")
        if n in self.info.other_globals:
            raise self.fail(node, f"the module-level variable '{n}' is not a numeric constant",
                            hint="only names that top-level statements bind to a number (not an if, a loop, "
                            "a try or a function's global) can be used; pass other values as parameters")
        raise self.fail(node, f"name '{n}' is not defined", hint="define it, or pass it as a parameter")

    def _holds(self, node: cst.BaseExpression, env: Env, t: Type) -> bool:
        """Whether ``node`` is a communicator (``t`` COMM: a local holding one, or MPI.COMM_WORLD)
        or a request (REQUEST: a local holding one)."""
        if t == COMM and (self.info.canonical_name(node, self.ctx.locals) or "") in py_mpi.COMMUNICATORS:
            return True
        v = env.get(node.value) if isinstance(node, cst.Name) and node.value in self.ctx.locals else None
        return isinstance(v, Value) and v.type == t

    def attribute(self, node: cst.Attribute, b: Builder, env: Env) -> Value:
        if self._holds(node.value, env, COMM):
            return self.mpi_attribute(node, b, env)
        canonical = self.info.canonical_name(node, self.ctx.locals)
        if canonical in py_mpi.RANK_CONSTANTS:
            return self.mpi_rank_constant(node, b)
        if canonical in lib.CONSTANTS:
            return self.const(b, node, lib.CONSTANTS[canonical], F64)
        attr = node.attr.value
        base = node.value
        named = isinstance(base, cst.Name) and base.value in self.ctx.locals
        made = attr != "shape" and not isinstance(base, (cst.Name, cst.Attribute))
        if attr in ("shape", "size", "ndim") and (named or made):
            arr = self.value(node.value, b, env)  # (x.size, (x > 0).size: of an array an expression makes)
            if isinstance(arr.type, ArrayType):
                if attr == "ndim":
                    return self.const(b, node, arr.type.rank, I64)
                if attr == "size":
                    total: Optional[Value] = None
                    for k in range(arr.type.rank):
                        d = self.at(b, node).op1("dim", [arr], I64, axis=k)
                        total = d if total is None else build.mul(b, total, d)
                    assert total is not None
                    return total
                raise self.fail(node, f"'{dotted_source(node)}' is a tuple",
                                hint=f"use {dotted_source(node)}[k], or unpack it: n, m = {dotted_source(node)}")
        if attr == "T" and not (isinstance(base, cst.Name) and base.value not in self.ctx.locals):
            arr = self.value(base, b, env)
            if arr.type.is_array:
                return py_arrays.transpose(self, arr, b, node)
        src = dotted_source(node) or attr
        raise self.fail(node, f"the attribute '{src}' is not supported",
                        hint="use scalars, array elements, x.shape[k] and library constants like math.pi")

    # -- arithmetic -------------------------------------------------------------------------
    def binary(self, node: cst.BinaryOperation, b: Builder, env: Env) -> Value:
        op = ARITH_OPS.get(type(node.operator))
        if op is None and isinstance(node.operator, cst.MatrixMultiply):
            op = "matmul"
        if op is None and isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
            masks = py_arrays.logical(self, node, self.value(node.left, b, env), self.value(node.right, b, env), b)
            if masks is not None:  # (y > 0) & np.isfinite(y): boolean arrays combined
                return masks
        if op is None:
            raise self.fail(node, "this operator is not supported", hint="use + - * / // % **")
        x = self.value(node.left, b, env)
        y = self.value(node.right, b, env)
        if isinstance(node.operator, cst.MatrixMultiply):
            return py_arrays.matmul(self, x, y, b, node)
        if x.type.is_array or y.type.is_array:
            return py_arrays.elementwise(self, op, x, y, b, node)
        return self.arith(op, self.scalar_value(node.left, x), self.scalar_value(node.right, y), b, node)

    def arith(self, op: str, x: Value, y: Value, b: Builder, node: cst.CSTNode, hint: str = "") -> Value:
        """``x <op> y`` with Python's numeric promotion made explicit."""
        x, y = self.to_number(b, node, x), self.to_number(b, node, y)
        self.at(b, node)
        if op == "div":
            x, y = build.to_float(b, self.finite(x, node)), build.to_float(b, self.finite(y, node))
        elif op == "pow" and x.type.is_int and y.type.is_int:
            c = build.const_value(y)
            if c is None or c < 0:  # 2 ** -1 is 0.5: only a known non-negative power stays an int
                x, y = build.to_float(b, x), build.to_float(b, y)
        elif x.type != y.type:
            x, y = build.to_float(b, self.finite(x, node)), build.to_float(b, self.finite(y, node))
        return build.binary(b, op, x, y, hint)

    def unary(self, node: cst.UnaryOperation, b: Builder, env: Env) -> Value:
        if isinstance(node.operator, cst.Not):
            c = self.condition(node.expression, b, env)
            return self.at(b, node).op1("not", [c], BOOL)
        if isinstance(node.operator, cst.BitInvert):
            v = self.value(node.expression, b, env)
            if isinstance(v.type, ArrayType) and v.type.elem == BOOL:  # ~mask: the entries it leaves
                return py_arrays.logical_not(self, node, v, b)
            raise self.fail(node, "the operator '~' is supported on boolean arrays only",
                            hint="use 'not' for booleans")
        v = self.value(node.expression, b, env)
        if v.type.is_array:
            return py_arrays.negate(self, v, b, node) if isinstance(node.operator, cst.Minus) else v
        v = self.to_number(b, node, self.scalar_value(node.expression, v))
        if isinstance(node.operator, cst.Minus):
            return build.neg(self.at(b, node), v)
        return v

    def compare(self, node: cst.Comparison, b: Builder, env: Env) -> Value:
        operands = [node.left, *(t.comparator for t in node.comparisons)]
        if any(isinstance(t.operator, (cst.Is, cst.IsNot)) for t in node.comparisons) and any(
                isinstance(e, cst.Name) and e.value == "None" for e in operands):
            raise self.fail(node, "a test of None is supported only where it is decided before typing",
                            hint="a parameter defaulting to None: fill it by the first statement that mentions it, "
                            "'if w is None: w = ...' (its value reading parameters, numbers and NumPy), or test it "
                            "in a helper, each of whose calls gives it or leaves it None")
        if any(is_string(n) or (isinstance(n, (cst.Tuple, cst.List, cst.Set)) and any(is_string(e.value)
                                                                                      for e in n.elements))
               for n in operands):
            return self.string_compare(node, b, env)
        x = self.value(node.left, b, env)
        if len(node.comparisons) == 1 and (op := COMPARE_OPS.get(type(node.comparisons[0].operator))):
            y = self.value(node.comparisons[0].comparator, b, env)
            if STR in (x.type, y.type) and op in ("eq", "ne"):  # two strings: mode == other
                return build.cmp(self.at(b, node), op, self.string_value(node.left, x),
                                 self.string_value(node.comparisons[0].comparator, y))
            if x.type.is_array or y.type.is_array:
                return py_arrays.compare(self, op, x, y, b, node)
            return self.cmp(op, self.scalar_value(node.left, x), self.scalar_value(node.comparisons[0].comparator, y),
                            b, node)
        x = self.scalar_value(node.left, x)
        return self._chain(node, x, list(node.comparisons), b, env)

    def string_compare(self, node: cst.Comparison, b: Builder, env: Env) -> Value:
        """A string compared with literals: ``mode == "mean"``, ``"l2" != mode``, ``mode in ("a",
        "b")`` (each one's ``==``, or'ed; ``not in``: each one's ``!=``, and'ed)."""
        target = node.comparisons[0]
        op = {cst.Equal: "eq", cst.NotEqual: "ne", cst.In: "eq", cst.NotIn: "ne"}.get(type(target.operator))
        if len(node.comparisons) != 1 or op is None:
            raise self.fail(node, "strings are compared only with ==, !=, in and not in, one comparison at a time",
                            hint="compare a string parameter with string literals: mode == \"mean\"")
        if isinstance(target.operator, (cst.In, cst.NotIn)):
            right = target.comparator
            items = string_set(right)
            if items is None:
                other = [e.value for e in getattr(right, "elements", ()) if not is_string(e.value)]
                raise self.fail(other[0] if other else right, "a string is tested for membership only in a tuple, "
                                "list or set of string literals", hint="mode in (\"a\", \"b\")")
            pairs = [(node.left, item) for item in items]
        else:
            pairs = [(node.left, target.comparator)]
        out: Optional[Value] = None
        for x_node, y_node in pairs:
            x, y = self.string(x_node, b, env), self.string(y_node, b, env)
            c = build.cmp(self.at(b, node), op, x, y)
            out = c if out is None else self.at(b, node).op1("or" if op == "eq" else "and", [out, c], BOOL)
        assert out is not None
        return out

    def string(self, node: cst.BaseExpression, b: Builder, env: Env) -> Value:
        """A string operand of a comparison: a literal, or a value that is a string."""
        if is_string(node):
            return self.const(b, node, node.evaluated_value, STR)  # type: ignore[attr-defined]
        return self.string_value(node, self.value(node, b, env))

    def string_value(self, node: cst.BaseExpression, v: Value, why: str = "") -> Value:
        """``v`` (the value of ``node``), which must be a string here (``why``: what makes it one)."""
        if v.type != STR:
            src = dotted_source(node)
            if why:
                raise self.fail(node, f"{why}, but this value is {describe(v.type)}",
                                hint="pass a string, as the function compares it")
            raise self.fail(node, f"{f'{src!r}' if src else 'this value'} is compared with a string, but it is not "
                            "a string", hint="compare string parameters with strings, numbers with numbers")
        return v

    def _chain(self, node: cst.Comparison, x: Value, rest: list[cst.ComparisonTarget], b: Builder, env: Env) -> Value:
        target = rest[0]
        op = COMPARE_OPS.get(type(target.operator))
        if op is None:
            raise self.fail(node, "this comparison is not supported (is, in)", hint="use < <= > >= == !=")
        y = self.scalar(target.comparator, b, env)
        c = self.cmp(op, x, y, b, node)
        if len(rest) == 1:
            return c
        tail = rest[1:]
        if all(is_simple(t.comparator) for t in tail):
            c2 = self._chain(node, y, tail, b, env)
            return self.at(b, node).op1("and", [c, c2], BOOL)
        return self.if_value(b, node, c, lambda bb: self._chain(node, y, tail, bb, env),
                             lambda bb: self.const(bb, node, False, BOOL))

    def cmp(self, op: str, x: Value, y: Value, b: Builder, node: cst.CSTNode) -> Value:
        self.at(b, node)
        if x.type != y.type:
            t = common_type([x.type, y.type])
            x, y = build.cast(b, self.finite(x, node), t), build.cast(b, self.finite(y, node), t)
        return build.cmp(b, op, x, y)

    def boolean(self, node: cst.BooleanOperation, b: Builder, env: Env, as_condition: bool) -> Value:
        is_and = isinstance(node.operator, cst.And)

        def operand(n: cst.BaseExpression, bb: Builder) -> Value:
            if as_condition:
                return self.condition(n, bb, env)
            v = self.value(n, bb, env)
            if v.type != BOOL:
                raise self.fail(n, "'and'/'or' on numbers gives a number in Python; only booleans are supported here",
                                hint="compare explicitly, e.g. (x != 0)")
            return v

        x = operand(node.left, b)
        if is_simple(node.right):
            y = operand(node.right, b)
            return self.at(b, node).op1("and" if is_and else "or", [x, y], BOOL)
        if is_and:
            return self.if_value(b, node, x, lambda bb: operand(node.right, bb),
                                 lambda bb: self.const(bb, node, False, BOOL))
        return self.if_value(b, node, x, lambda bb: self.const(bb, node, True, BOOL),
                             lambda bb: operand(node.right, bb))

    def if_exp(self, node: cst.IfExp, b: Builder, env: Env) -> Value:
        c = self.condition(node.test, b, env)
        if is_simple(node.body) and is_simple(node.orelse):
            x = self.if_exp_branch(node, node.body, b, env)
            y = self.if_exp_branch(node, node.orelse, b, env)
            t = common_type([x.type, y.type])
            x = self.coerce(x, t, b, node.body, "the result")
            y = self.coerce(y, t, b, node.orelse, "the result")
            return build.select(self.at(b, node), c, x, y)
        return self.if_value(b, node, c, lambda bb: self.if_exp_branch(node, node.body, bb, env),
                             lambda bb: self.if_exp_branch(node, node.orelse, bb, env))

    def if_exp_branch(self, node: cst.IfExp, branch: cst.BaseExpression, b: Builder, env: Env) -> Value:
        """A branch of ``a if c else b``: a number (arrays are chosen by an ``if`` statement, whose
        branches each fill the variable: ``py_lower``, where ``y = a if c else b`` is one)."""
        v = self.value(branch, b, env)
        if isinstance(v.type, ArrayType):
            raise self.fail(node, "choosing between arrays with a conditional expression is not supported",
                            hint="assign it to a variable of its own (y = a if c else b), which is the if "
                            "statement that assigns the array in each branch")
        return self.scalar_value(branch, v)

    # -- arrays -------------------------------------------------------------------------------
    def array(self, node: cst.BaseExpression, b: Builder, env: Env) -> Value:
        return self.as_array(self.value(node, b, env), node)

    def as_array(self, v: Value, node: cst.BaseExpression) -> Value:
        """``v``, the value of ``node``, which must be an array here."""
        if not isinstance(v.type, ArrayType):
            src = dotted_source(node)
            what = f"'{src}'" if src else "this value"
            hint = self.annotation_hint(node)
            if hint:  # an unannotated parameter in it was taken for a number: it may be an array
                raise self.fail(node, f"{what} must be an array here, and nothing in the code says it is one",
                                hint=hint)
            raise self.fail(node, f"{what} is not an array",
                            hint="only NumPy array parameters and arrays made with np.zeros/np.empty can be indexed")
        return v

    def annotation_hint(self, node: cst.CSTNode) -> Optional[str]:
        """For a number where an array is needed: the annotation that makes an unannotated
        parameter in ``node`` an array (nothing in its use said which it is, so it was taken
        for a number)."""
        names: list[str] = []
        followed: set[str] = set()
        fn = self.ctx.info.functions.get(self.ctx.name)

        def visit(n: cst.CSTNode) -> None:
            if isinstance(n, cst.Name) and self.ctx.types.assumed.get(n.value) == 0 and n.value not in names:
                names.append(n.value)
            elif isinstance(n, cst.Name) and n.value in self.ctx.locals and n.value not in followed \
                    and fn is not None:  # r = pred - obs; np.median(np.abs(r)): through what r is given
                followed.add(n.value)
                for a in every_node(fn):
                    if isinstance(a, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == n.value
                                                         for t in a.targets):
                        visit(a.value)
            for c in children(n):
                visit(c)

        visit(node)
        if not names:
            return None
        spelled = ", ".join(f'{n}: "f64[n]"' for n in names)
        return f"if {' or '.join(names)} is an array, say so with an annotation ({spelled})"

    def element(self, node: cst.Subscript, b: Builder, env: Env,
                chain: Optional[tuple[cst.BaseExpression, list]] = None) -> tuple[Value, list[Value]]:
        """The array and the index values of ``a[i, j]``/``a[i][j]``: of a load, with the
        subscript's ``chain`` as ``subscript`` read it; of a store, without (``py_lower``
        refuses a store into a copy, ``X[idx][1] = v``, first)."""
        base, indices = chain or subscript_chain(node)
        if py_lists.is_list(self, base) and isinstance(base, cst.Name):
            return py_lists.element(self, node, b, env)
        for idx in indices:
            if isinstance(idx, cst.Slice):
                raise self.fail(idx, "slices are not supported", hint="index one element at a time inside a loop")
        arr = self.array(base, b, env)
        t = arr.type
        assert isinstance(t, ArrayType)
        if len(indices) != t.rank:
            src = dotted_source(base) or "the array"
            raise self.fail(node, f"'{src}' has {t.rank} dimension(s) but is indexed with {len(indices)} index(es)",
                            hint="give one index per dimension to get a single element")
        ivs = [self.index(idx, b, env, arr, axis) for axis, idx in enumerate(indices)]  # type: ignore[arg-type]
        return arr, ivs

    def index(self, node: cst.BaseExpression, b: Builder, env: Env, arr: Value, axis: int) -> Value:
        lit = int_literal(node)
        if lit is not None and lit < 0:  # Python counts a negative index from the end
            d = self.at(b, node).op1("dim", [arr], I64, axis=axis)
            return build.add(b, d, build.const(b, lit, I64))
        k = self.scalar(node, b, env)
        if k.type == BOOL:  # (Python's lists read it as 0 or 1; they are not lowered here)
            raise self.fail(node, "a bool as an array index: NumPy reads it as a mask of one entry (x[True] is all "
                                  "of x along a new axis), not as the index 0 or 1",
                            hint="write int(...) for the index 0 or 1; for a mask, compare arrays (x > 0 of an "
                                 'array x: annotate x: "f64[n]" if its rank is not evident)')
        return self.from_end(b, node, self.integer_value(node, k, "an array index"), arr, axis)

    def from_end(self, b: Builder, node: cst.CSTNode, k: Value, arr: Value, axis: int) -> Value:
        """The index ``k`` into axis ``axis`` of ``arr`` counted from the end where it may be
        negative, as Python counts it (``x[i - 1]`` at ``i = 0``); as it is where it cannot be."""
        low = self.lower_bound(k)
        if low is not None and low >= 0 or py_extents.never_negative(self, k):
            return k
        self.at(b, node)
        return build.from_end(b, build.cast(b, k, I64), b.op1("dim", [arr], I64, axis=axis))

    def subscript(self, node: cst.Subscript, b: Builder, env: Env) -> Value:
        if is_shape_subscript(node):
            return self.shape(node, b, env)
        positions = nonzero_positions(node, self.ctx.info, self.ctx.locals)
        if positions is not None:  # np.where(m)[0]
            return py_arrays.nonzero_positions(self, node, self.array(positions[0], b, env), positions[1], b)
        base, indices = subscript_chain(node, lambda i: self.keeps_axis(i, env))
        if isinstance(base, cst.Subscript) and not is_shape_subscript(base) and base not in self.held:
            self.held[base] = self.array(base, b, env)  # y[lo:hi][::-1], A[1:][0]: of the part, lowered once
            try:
                return self.subscript(node, b, env)
            finally:
                del self.held[base]
        if not isinstance(base, (cst.Name, cst.Subscript)) and base not in self.held:
            # X.T[0], (X * 2.0)[1], X[idx].T[0]: a row (or element) of an array an expression makes,
            # lowered once and read as that value (its rank known, a partial index is a row)
            self.held[base] = self.array(base, b, env)
            try:
                return self.subscript(node, b, env)
            finally:
                del self.held[base]
        if isinstance(base, cst.Name) and py_lists.is_list(self, base):
            return py_lists.item(self, node, b, env)
        if len(indices) == 1 and isinstance(indices[0], cst.Call) and indices[0] not in self.held \
                and isinstance(base, cst.Name):
            # A[np.argsort(y)], A[int(k)]: whether the index is an array (rows picked) or a number (a
            # row) is its value's type; lowered once, and read as that value below
            self.held[indices[0]] = self.value(indices[0], b, env)
            try:
                return self.subscript(node, b, env)
            finally:
                del self.held[indices[0]]
        if any(is_new_axis(i) for i in indices):
            return py_arrays.new_axes(self, node, base, indices, b, env)
        if len(indices) == 1 and isinstance(indices[0], cst.Name) and self.may_be_mask(indices[0], env):
            # X[mask] of a boolean array of X's shape (mask = ~np.eye(n, dtype=bool)): the entries picked
            m = self.value(indices[0], b, env)
            return py_arrays.arr_op(self, b, node, "mask", [self.array(base, b, env), m])
        if self._rows_picked(indices, env):  # X[idx], X[idx, :]: the rows idx names (an integer array)
            gathered = py_arrays.gather(self, node, base, indices, b, env)
            if gathered is not None:
                return gathered
        if not isinstance(indices[0], cst.Call) and indices[0] not in self.held \
                and self.may_be_mask(indices[0], env) and all(is_whole_slice(i) for i in indices[1:]):
            # A[z < 0] (A[z < 0, :]) of a matrix A and a vector z: the rows picked, not a row
            m = self.value(indices[0], b, env)
            if isinstance(m.type, ArrayType) and m.type.elem == BOOL:
                arr = self.array(base, b, env)
                py_arrays.check_mask_fits(self, node, arr, m, len(indices))
                return py_arrays.arr_op(self, b, node, "mask", [arr, m])
            self.held[indices[0]] = m
            try:
                return self.subscript(node, b, env)
            finally:
                del self.held[indices[0]]
        if len(indices) == 2 and is_whole_slice(indices[0]) and isinstance(indices[1], cst.BaseExpression) \
                and isinstance(base, cst.Name):
            columns = self._columns_picked(node, base, indices[1], b, env)
            if columns is not None:
                return columns
        later_mask = next((i for i in indices[1:] if isinstance(i, cst.BaseExpression)
                           and not isinstance(i, cst.Call) and self.may_be_mask(i, env)), None)
        if later_mask is not None:
            raise self.fail(later_mask, "a mask is supported as the first index only (it picks along the leading axes)",
                            hint="pick along the first axis of the transpose: X.T[m].T for X[:, m]")
        if any(isinstance(i, (cst.Slice, cst.Ellipsis)) for i in indices) or self._partial_index(base, indices, env):
            return py_arrays.slice_(self, node, base, indices, b, env)
        if len(indices) == 1 and self.may_be_mask(indices[0], env):  # x[x > 0]: the entries picked
            m = self.value(indices[0], b, env)  # type: ignore[arg-type]
            if isinstance(m.type, ArrayType) and m.type.elem == BOOL:
                return py_arrays.arr_op(self, b, node, "mask", [self.array(base, b, env), m])
            if isinstance(m.type, ArrayType):  # x[np.argsort(y)]: the positions a call gives, lowered once
                if not m.type.elem.is_int:
                    raise self.fail(indices[0], "an index array must hold integers",
                                    hint="index with an integer array (np.argsort(y), np.arange(k))")
                self.held[indices[0]] = m
                try:
                    gathered = py_arrays.gather(self, node, base, indices, b, env)
                finally:
                    del self.held[indices[0]]
                if gathered is not None:
                    return gathered
        if len(indices) == 1 and self.is_array_index(indices[0], env):
            arr = self.array(base, b, env)
            idx = self.value(indices[0], b, env)  # type: ignore[arg-type]
            if not idx.type.elem.is_int:  # type: ignore[attr-defined]
                raise self.fail(indices[0], "an index array must hold integers",
                                hint=integer_array_hint(indices[0]))
            return py_arrays.arr_op(self, b, node, "take", [arr, idx])
        if len(indices) > 1 and any(self._may_be_index_array(i, env) for i in indices):
            gathered = py_arrays.gather(self, node, base, indices, b, env)  # logp[np.arange(n), labels]
            if gathered is not None:
                return gathered
        arr, ivs = self.element(node, b, env, (base, indices))
        return self.at(b, node).op1("load", [arr, *ivs], arr.type.elem)  # type: ignore[attr-defined]

    def sequence(self, node: cst.BaseExpression, b: Builder, env: Env
                 ) -> tuple[Value, Callable[[Builder, Value], Value]]:
        """What a loop over ``node`` reads (``py_iter``): its length, and its item k (an element;
        of a matrix, a row), from the value ``node`` has before the loop."""
        if py_lists.is_list(self, node) or (isinstance(node, cst.Tuple) and node in self.ctx.types.node_types):
            return py_lists.sequence(self, node, b, env)  # (a tuple of items: py_types._iterated_tuple)
        v = self.value(node, b, env)
        if not isinstance(v.type, ArrayType):
            src = dotted_source(node)
            raise self.fail(node, f"cannot loop over {f'{src!r}' if src else 'this value'}: it is a number",
                            hint=self.annotation_hint(node) or "loop over an array, a list or range(...)")
        t = v.type
        length = self.at(b, node).op1("dim", [v], I64, axis=0)
        if t.rank == 1:
            return length, lambda bb, k: self.at(bb, node).op1("load", [v, k], t.elem)

        def row(bb: Builder, k: Value) -> Value:
            bounds: list[Value] = [k]
            for axis in range(1, t.rank):
                bounds += [self.const(bb, node, 0, I64), self.at(bb, node).op1("dim", [v], I64, axis=axis)]
            return py_arrays.arr_op(self, bb, node, "slice", [v, *bounds], {"axes": ["i"] + ["r"] * (t.rank - 1)})
        return length, row

    def _columns_picked(self, node: cst.Subscript, base: cst.Name, index: cst.BaseExpression, b: Builder,
                        env: Env) -> Optional[Value]:
        """``X[:, idx]``, ``X[:, [0, 2]]``, ``X[:, m]`` of a matrix ``X``: the columns an integer
        array or a mask picks, as ``X.T[idx].T`` (a gather, or a mask, of the transpose's rows);
        None where the index is no such array (``X[:, 0]``, ``X[:, k]``: a column)."""
        if isinstance(index, cst.Call) and index not in self.held:
            self.held[index] = self.value(index, b, env)  # (an array or a number: its value says)
            try:
                return self._columns_picked(node, base, index, b, env)
            finally:
                del self.held[index]
        if not (self.is_array_index(index, env) or self.may_be_mask(index, env)):
            return None
        arr = self.array(base, b, env)
        if not isinstance(arr.type, ArrayType) or arr.type.rank != 2:
            return None
        picks = self.held[index] if index in self.held else self.value(index, b, env)
        if not isinstance(picks.type, ArrayType) or picks.type.rank != 1:
            return None
        rows = py_arrays.arr_op(self, b, node, "transpose", [arr])
        if picks.type.elem == BOOL:
            picked = py_arrays.arr_op(self, b, node, "mask", [rows, picks])
        elif picks.type.elem.is_int:
            picked = py_arrays.arr_op(self, b, node, "take", [rows, picks])
        else:
            raise self.fail(index, "an index array must hold integers", hint=integer_array_hint(index))
        return py_arrays.arr_op(self, b, node, "transpose", [picked])

    def is_array_index(self, node: object, env: Env) -> bool:
        """``label`` in ``p[label]`` is an array, named or a part of one named (``tokens[:2]``):
        integer-array (fancy) indexing."""
        return self._index_array_type(node, env) is not None

    def _index_array_type(self, node: object, env: Env) -> Optional[ArrayType]:
        """The type of the array an index is, known before it is lowered: a name of an array, or a
        part of one that slices it (``tokens[:2]``, ``idx[k:k + 3]``, ``pairs[:, 0]``; its rank
        what the slices keep); None for any other index (a number, a call, a comparison)."""
        if node in self.held:  # (a call lowered already: subscript)
            v = self.held[node]  # type: ignore[index]
            return v.type if isinstance(v.type, ArrayType) else None
        if isinstance(node, cst.Subscript) and nonzero_positions(node, self.ctx.info, self.ctx.locals) is not None:
            return ArrayType(I64, 1)  # x[np.nonzero(x)[0]]
        if isinstance(node, cst.Name) and node.value in self.ctx.locals:
            v = env.get(node.value)
            return v.type if isinstance(v, Value) and isinstance(v.type, ArrayType) else None
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _INDEX_ARITHMETIC):
            # idx + 1, bins - 1, 2 * idx: integer arithmetic on an index array is one
            operands = (node.left, node.right)
            sides = [self._index_array_type(side, env) for side in operands]
            arrays = [t for t in sides if t is not None]
            if not arrays or any(t.elem == BOOL or not t.elem.is_int for t in arrays) or not all(
                    t is not None or self._integer_number(side, env) for t, side in zip(sides, operands)):
                return None
            return ArrayType(I64, max(t.rank for t in arrays))
        if not isinstance(node, cst.Subscript) or not isinstance(node.value, cst.Name) or is_shape_subscript(node):
            return None
        whole = self._index_array_type(node.value, env)
        parts = [el.slice for el in node.slice]
        if whole is None or len(parts) > whole.rank or not any(isinstance(p, cst.Slice) for p in parts) \
                or any(not isinstance(p, (cst.Slice, cst.Index)) or (isinstance(p, cst.Index) and (
                    is_new_axis(p.value) or isinstance(p.value, cst.Ellipsis)
                    or self._may_be_index_array(p.value, env))) for p in parts):
            return None  # (an axis added, or a gather of a gather: lowered as before)
        kept = whole.rank - sum(isinstance(p, cst.Index) for p in parts)
        return ArrayType(whole.elem, kept)

    def _integer_number(self, node: object, env: Env) -> bool:
        """An integer written as a literal, held in a local name, a length (``len(x)``,
        ``x.shape[0]``) or integer arithmetic of them."""
        if isinstance(node, cst.Integer) or is_shape_subscript(node):
            return True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len" \
                and node.func.value not in self.ctx.locals:
            return True
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _INDEX_ARITHMETIC):
            return self._integer_number(node.left, env) and self._integer_number(node.right, env)
        v = env.get(node.value) if isinstance(node, cst.Name) and node.value in self.ctx.locals else None
        return isinstance(v, Value) and isinstance(v.type, ScalarType) and v.type.is_int and v.type != BOOL

    def may_be_mask(self, node: object, env: Env) -> bool:
        """An index that may be a boolean array: a comparison, a logical combination of them, a
        call (np.isfinite(x)), or a boolean array, named or a part of one named."""
        t = self._index_array_type(node, env)
        if t is not None:
            return t.elem == BOOL
        if isinstance(node, cst.BinaryOperation):
            return isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor))
        return isinstance(node, (cst.Comparison, cst.Call)) or (
            isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert))

    def keeps_axis(self, node: object, env: Env, stored: bool = False) -> bool:
        """An index that may pick several entries along its axis: an integer array (named, a part
        of one, a call: ``X[np.argsort(y)]``) or a mask, so that ``X[idx][j]`` is not ``X[idx, j]``.
        Python's own functions give numbers (``A[int(k)][j]``); of a store, only an index known to
        be an array or a mask counts (a call there is refused elsewhere, or a number)."""
        if isinstance(node, cst.Call) and (stored or isinstance(node.func, cst.Name)
                                           and node.func.value in _NUMBER_BUILTINS):
            return False
        return self._may_be_index_array(node, env) or self.may_be_mask(node, env)

    def _may_be_index_array(self, node: object, env: Env) -> bool:
        """An index that may be an integer array: an array, named or a part of one named, or a
        call (np.arange(n))."""
        return self.is_array_index(node, env) or isinstance(node, cst.Call)

    def _rows_picked(self, indices: list, env: Env) -> bool:
        """``[idx]`` or ``[idx, :, ...]`` with ``idx`` a name of an integer array."""
        first, *rest = indices
        return self.is_array_index(first, env) and not self.may_be_mask(first, env) and all(
            is_whole_slice(i) for i in rest)

    def _partial_index(self, base: cst.BaseExpression, indices: list, env: Env) -> bool:
        """``A[i]`` of a matrix: a row (fewer indices than dimensions)."""
        if base in self.held:  # A[1:][0]
            return 0 < len(indices) < self.held[base].type.rank  # type: ignore[attr-defined]
        if isinstance(base, cst.Name) and base.value in self.ctx.locals:
            v = env.get(base.value)
            return isinstance(v, Value) and isinstance(v.type, ArrayType) and 0 < len(indices) < v.type.rank
        return False

    def shape(self, node: cst.Subscript, b: Builder, env: Env) -> Value:
        attr = node.value
        assert isinstance(attr, cst.Attribute)
        arr = self.array(attr.value, b, env)
        rank = arr.type.rank  # type: ignore[attr-defined]
        el = node.slice[0].slice if len(node.slice) == 1 else None
        k = int_literal(el.value) if isinstance(el, cst.Index) else None
        from_front = k is not None and k >= 0
        if k is not None and k < 0:
            k += rank
        if k is None or not 0 <= k < rank:
            raise self.fail(node, f"'{dotted_source(attr)}' needs a constant index between 0 and {rank - 1}",
                            hint="write x.shape[0], x.shape[1], ...")
        return self.at(b, node).op1("dim", [arr], I64, axis=k, **({SOURCE_EXTENT: True} if from_front else {}))

    # -- calls -------------------------------------------------------------------------------
    def call(self, node: cst.Call, b: Builder, env: Env, want_value: bool) -> Optional[Value]:
        func = node.func
        for a in node.args:
            if a.star:
                raise self.fail(a, "*args and **kwargs in calls are not supported", hint="pass arguments one by one")
        if isinstance(func, cst.Attribute) and func.attr.value in py_mpi.METHODS and self._holds(func.value, env, COMM):
            return self.mpi_call(node, func.attr.value, b, env, want_value)
        if (isinstance(func, cst.Attribute) and func.attr.value in ("Wait", "wait")
                and self._holds(func.value, env, REQUEST)) or py_mpi.is_wait(node, self.info, self.ctx.locals, set()):
            if want_value:
                raise self.fail(node, "a wait gives no value here", hint="call it as a statement of its own")
            self.mpi_wait(node, b, env)
            return None
        if isinstance(func, cst.Name) and func.value in self.info.functions and func.value not in self.ctx.locals:
            return self.user_call(node, func.value, b, env, want_value)
        if isinstance(func, cst.Name) and func.value in self.ctx.locals:
            raise self.fail(func, f"'{func.value}' is a variable, not a function")
        if isinstance(func, cst.Name) and func.value in self.info.classes:
            raise self.fail(node, f"'{func.value}' is a class; classes are not supported",
                            hint="use scalars, NumPy arrays and plain functions")
        canonical = self.info.canonical_name(func, self.ctx.locals)
        if canonical == "builtins.sum":
            return py_comprehension.sum_(self, node, b, env)
        args = positional_args(node)
        if canonical == "numpy.sum" and len(args) == 1 and isinstance(args[0], cst.GeneratorExp):
            # from numpy import sum: NumPy deprecates summing a generator (it falls back on Python's)
            raise self.fail(args[0], f"'{dotted_source(func)}' here is numpy.sum, which takes no generator "
                            "expression", hint="sum it with Python's builtin (import builtins; builtins.sum(...)), "
                            "or write np.sum of an array")
        if iterable_extremum(node, canonical):
            return py_comprehension.extremum(self, node, canonical.split(".")[1], b, env)  # type: ignore[union-attr]
        if canonical == lib.BINCOUNT:
            return py_arrays.bincount(self, node, b, env)
        if canonical == lib.ADD_AT:
            if want_value:
                raise self.fail(node, "np.add.at(...) adds into its first argument and gives None",
                                hint="call it as a statement, then read the array it added into")
            py_arrays.add_at(self, node, b, env)
            return None
        intr = lib.lookup(canonical)
        if (intr is not None and canonical is not None and canonical.startswith("scipy.")
                and self.ctx.derivatives.of(canonical.split(".")[-1]) is not None):
            intr = None  # the custom adjoint given for it (--derivatives) wins
        if intr is not None:
            if canonical is not None and canonical.startswith("numpy."):  # NumPy takes a list as an array
                self.list_args.update(a for a in positional_args(node) if py_lists.is_list(self, a))
            return self.intrinsic(intr, node, b, env)
        method = method_of(node, self.ctx.locals, self.info)
        if method is not None:
            intr, name = method
            self.no_keywords(node, lib.ARRAY_KEYWORDS.get(intr.op, ()))
            receiver = func.value  # type: ignore[attr-defined]
            intr, args = self.clip_bounds(intr, node, [receiver, *positional_args(node)])
            if intr.op in lib.LINALG_OPS:  # A.trace(), A.diagonal()
                return py_linalg.call(self, intr, node, b, env, args)
            if intr.op == "searchsorted":  # a.searchsorted(v)
                return py_search.searchsorted(self, node, args, b, env)
            v = py_arrays.call(self, intr, node, b, env, args)
            if not isinstance(v, Value):
                raise self.fail(node, f"'.{name}()' is a method of arrays; this value is a number")
            return v
        src = dotted_source(func)
        if canonical == lib.RANGE:
            raise self.fail(node, "range(...) is only supported as the iterable of a for loop")
        if isinstance(func, cst.Lambda):
            raise self.fail(func, *_UNSUPPORTED_EXPRESSIONS[cst.Lambda])
        if src is None:
            raise self.fail(node, "this call is not supported", hint="call a function by its name")
        if canonical is None and isinstance(func, cst.Attribute):
            root = src.split(".")[0]
            if root in self.ctx.locals:
                raise self.fail(node, f"method calls such as '{src}(...)' are not supported",
                                hint="write the computation with a loop over the elements")
        if canonical is not None and canonical.startswith("numpy."):
            raise self.fail(node, f"the NumPy function '{src}' is not supported",
                            hint="write it with the NumPy functions s2sad takes (the README's 'What Python it "
                            "differentiates': ufuncs, reductions, products, linear algebra), or as a loop")
        if canonical == "builtins.print":  # a print statement with an argument that changes something
            raise self.fail(node, "print(...) is left out of the gradient, so its arguments must not change "
                            "anything: here one calls a function of the file, a method, a random generator or "
                            "a function given out=",
                            hint="call it before print, into a variable, and print the variable")
        if canonical is not None and canonical.startswith("builtins."):
            raise self.fail(node, f"the built-in function '{src}' is not supported",
                            hint="supported built-ins: abs, min, max, pow, float, int, len, range")
        primal = (canonical or src).split(".")[-1]
        custom = self.ctx.derivatives.of(primal)
        imported = canonical is not None and not canonical.startswith("builtins.")
        if (custom is not None and (imported or custom.defines_primal)) or (imported and want_value):
            return self.external_call(node, src, canonical, custom, b, env)
        raise self.no_source(node, src, primal)

    def no_source(self, node: cst.Call, src: str, name: str) -> Fail:
        """The refusal of a call of ``src``, defined elsewhere, that needs a derivative."""
        return self.fail(node, f"cannot differentiate through call to '{src}': its source is not in "
                         f"{self.ctx.basename}", hint=f"define {src} in this file, or give it a custom derivative: "
                         f"a function grad_{name} in a file passed with --derivatives (see README, Custom derivatives)")

    def external_call(self, node: cst.Call, src: str, canonical: Optional[str], custom: Optional[CustomAdjoint],
                      b: Builder, env: Env) -> Value:
        """A call of a function defined elsewhere, whose value is used: an ``extern`` op, a
        float. With a custom adjoint (``derivatives``), the reverse sweep calls it; without,
        the reverse sweep refuses it where an argument depends on the --wrt inputs, and only
        numbers may be passed (a function s2sad cannot see may change an array it is given;
        a custom adjoint declares that it only reads them). The output imports the function
        from where the input does (from the derivatives file, which defines it, when the input
        does not import it)."""
        if custom is not None and custom.prototype:
            raise self.fail(node, f"the custom adjoint of '{custom.primal}' is C ({custom.path}), and this input is "
                            "Python", hint=f"write grad_{custom.primal} in Python (see README, Custom derivatives)")
        self.no_keywords(node)
        args = positional_args(node)
        values = [self.value(a, b, env) for a in args]
        kinds = [_kind(v.type) for v in values]
        name = (canonical or src).split(".")[-1]
        if custom is None:
            array = next((a for a, k in zip(args, kinds) if "array" in k), None)
            if array is not None:
                raise self.fail(array, f"'{src}' is defined outside {self.ctx.basename}, and may change the array "
                                "it is passed here, which s2sad could not follow",
                                hint=f"give it a custom derivative, grad_{name} in a file passed with --derivatives "
                                "(it states that the function only reads its arrays; see README, Custom "
                                "derivatives), or pass it numbers")
            if not all(_of_integers(v) for v in values):
                # Only a function of integers and constants is sure to be a number of numbers, and
                # never to need a derivative: any other argument may be an array whose kind the
                # code does not show, or depend on the --wrt inputs.
                raise self.no_source(node, src, name)
        else:
            problem = expected_python(custom, kinds, True)
            if problem is not None:
                raise self.fail(node, problem,
                                hint=f"see {custom.path}:{custom.loc.line}, and README, Custom derivatives")
        if canonical is None or canonical.startswith("builtins."):
            origin = custom.module if custom is not None else ""
        else:
            origin = canonical.rsplit(".", 1)[0]
        attrs = {"callee": name, "import": origin, "args": [_EMPTY.code_for_node(a) for a in args]}
        if custom is not None:
            attrs.update(adjoint=custom.name, adjoint_module=custom.module)
        return self.at(b, node).create("extern", values, [F64], attrs).result  # named by call_names

    def no_keywords(self, node: cst.Call, allowed: tuple[str, ...] = ()) -> None:
        """A located error for a keyword argument other than ``allowed`` (its hint: what the call
        does take, or, where it takes none, to drop it)."""
        called = dotted_source(node.func)
        for a in node.args:
            if a.keyword is not None and a.keyword.value not in allowed:
                what = f"{called}() with {a.keyword.value}=" if called else f"a call with {a.keyword.value}="
                takes = ", ".join(f"{k}=" for k in allowed)
                raise self.fail(a, f"{what} is not supported",
                                hint=f"it takes {takes} here" if allowed else
                                "pass the value by position where the function takes it so, or leave it out")

    def user_call(self, node: cst.Call, name: str, b: Builder, env: Env, want_value: bool) -> Optional[Value]:
        results = self.user_call_results(node, name, b, env)
        if want_value and len(results) > 1:
            raise self.fail(node, f"'{name}' returns {len(results)} values, which are no single value",
                            hint=f"unpack them: {', '.join('abcdefgh'[:len(results)])} = {name}(...)")
        if want_value and not results:
            raise self.fail(node, f"'{name}' does not return a value", hint="use it as a statement, or return a number")
        return results[0] if len(results) == 1 else None

    def tuple_call(self, node: cst.BaseExpression) -> Optional[str]:
        """The name of the function of the file ``node`` calls when that function returns a tuple."""
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value not in self.ctx.locals:
            sig = self.ctx.call_sigs.get(node) or self.ctx.sigs.get(node.func.value)
            if sig is not None and sig.tuple_result is not None:
                return node.func.value
        return None

    def user_call_results(self, node: cst.Call, name: str, b: Builder, env: Env) -> list[Value]:
        """A call of a function of the file: its results (none, one, or one per returned value)."""
        if node in self.ctx.recursive_calls:
            raise Fail(None)  # reported once by the driver, at this call
        sig = self.ctx.call_sigs.get(node) or self.ctx.sigs[name]
        source = self.info.functions.get(name)
        if source is not None:  # as the source spells it (a default of None is no default to s2sad)
            definition = f"'{name}' is def {name}({cst.Module([]).code_for_node(source.params)})"
        else:
            shown = [n if d is None else f"{n}={d!r}" for n, d in zip(sig.param_names, sig.defaults)]
            if sig.positional is not None:
                shown.insert(sig.positional, "*")
            definition = f"'{name}' is def {name}({', '.join(shown)})"
        bound, problem = bind_arguments(node, name, sig.param_names, sig.positional)
        if problem is not None:  # what Python would raise a TypeError for
            raise self.fail(*problem, hint=definition)
        given: dict[int, Value] = {}
        # The arguments are evaluated as written (keywords may come in any order), as Python does.
        for i, arg in sorted(((i, a) for i, a in enumerate(bound) if a is not None),
                             key=lambda ia: node.args.index(ia[1])):
            a = arg.value
            param, t = sig.param_names[i], sig.param_types[i]
            if t == STR:  # a literal, or a string of the caller's
                v = self.string(a, b, env) if is_string(a) else self.string_value(a, self.value(a, b, env), (
                    f"parameter '{param}' of '{name}' is a string (it is compared with strings there)"))
            else:
                v = self.value(a, b, env)
                if v.type.is_array and param in self.params_written().get(name, ()):
                    v = py_arrays.row_view(self, b, a, v) or v  # scale(X[1], 3.0) writes into X's row
            if param in sig.assumed and (isinstance(v.type, ArrayType) or isinstance(t, ArrayType)) and v.type != t:
                # the callee's code did not say what its parameter is: its annotation would
                rank = v.type.rank if isinstance(v.type, ArrayType) else 0
                shape = "float" if rank == 0 else '"f64[' + ", ".join("nmkl"[:rank]) + ']"'
                hint = f"annotate the parameter in '{name}': {param}: {shape}"
                enclosing, local, captures = self.info.lifted.get(name, ("", "", ()))
                if param in captures:  # a variable the local function reads: no parameter to annotate
                    hint = (f"annotate the parameters of '{enclosing}' that {param} comes from (\"f64[n]\" for an "
                            f"array, float for a number), or pass {param} to '{local}' as an argument")
                    raise self.fail(a, f"'{param}', which the local function '{local}' reads, is taken there for "
                                    f"{describe(t)}, but it is {describe(v.type)}", hint=hint)
                raise self.fail(a, f"parameter '{param}' of '{name}' is taken for {describe(t)}, "
                                f"but this value is {describe(v.type)}", hint=hint)
            given[i] = self.coerce(v, t, b, a, f"parameter '{param}' of '{name}'")
        values = []
        for i, t in enumerate(sig.param_types):
            if i not in given:
                default = sig.defaults[i]
                if default is None or not isinstance(t, ScalarType):
                    spelled = next((p.default for p in (source.params.params if source is not None else ())
                                    if p.name.value == sig.param_names[i] and p.default is not None), None)
                    if spelled is not None:  # axis=None: a default s2sad does not take
                        code = cst.Module([]).code_for_node(spelled)
                        raise self.fail(node, f"'{sig.param_names[i]}' of '{name}' is left to its default, {code}, "
                                        "which s2sad takes only where it is a number or a string",
                                        hint=definition)
                    raise self.fail(node, f"missing argument '{sig.param_names[i]}' in the call to '{name}'",
                                    hint=definition)
                given[i] = self.const(b, node, default, t)
            values.append(given[i])
        results = list(sig.tuple_result) if sig.tuple_result is not None else [sig.result]
        results = [t for t in results if t is not None]
        shapes = self.ctx.helper_shapes.get(sig.name, HelperShapes())
        for r in shapes.required:  # x, y = state in the helper: this call's state is 2 long
            if isinstance(r.count, tuple):  # as long as another parameter (a rebinding in the helper's loop)
                self.require_alike(name, sig, bound, values, r, node, b)
                continue
            found = self.require_extent(values[r.param], r.axis, r.count, node, r.why)
            if found == "unknown":  # not evident here: checked before the call, raising as the callee would
                arg = bound[r.param].value if bound[r.param] is not None else node  # type: ignore[union-attr]
                self.check_extent(values[r.param], r.axis, r.count, arg,
                                  f"'{name}' takes its parameter '{sig.param_names[r.param]}' to be {r.count} long "
                                  f"({r.why}), and this array has another length", b)
                continue
            if found is not None:
                arg = bound[r.param].value if bound[r.param] is not None else node  # type: ignore[union-attr]
                raise self.fail(arg, f"'{name}' takes its parameter '{sig.param_names[r.param]}' to be {r.count} "
                                f"long ({r.why}), and this array has {found} items, not {r.count}",
                                hint=f"pass an array of {r.count} items (np.array([...]) of {r.count} numbers, "
                                f"a slice x[:{r.count}]), or index the items in '{name}'")
        extents = {RESULT_EXTENTS: shapes.results} if any(shapes.results) and len(shapes.results) == len(results) \
            else {}
        # An array result is new memory (py_array_results checks that the callee makes it); the
        # callee's gradient takes its adjoint as its d_return.
        return self.at(b, node).create("call", values, results, {"callee": sig.name, **extents}).results

    def require_alike(self, name: str, sig, bound: list, values: list[Value], r, node: cst.CSTNode,
                      b: Builder) -> None:
        """A call of ``name`` whose code takes two parameters' extents to be equal (``r``, a
        ``Required`` of another parameter's extent): shown here, passed on, checked where the call
        runs (raising as the callee would fail), or a located error where they evidently differ."""
        _, k, other_axis = r.count
        params = sig.param_names
        ok = self.require_same(values[r.param], r.axis, values[k], other_axis, node, r.why)
        arg = bound[r.param].value if bound[r.param] is not None else node
        said = f"'{name}' takes '{params[r.param]}' to be as long as '{params[k]}' ({r.why})"
        if ok is False:
            raise self.fail(arg, f"{said}, and these arrays have different lengths",
                            hint=f"pass arrays of one length, or give the value '{name}' rebinds another name")
        if ok is None:
            at = self.at(b, node)
            self.check_extent(values[r.param], r.axis, at.op1("dim", [values[k]], I64, axis=other_axis), arg,
                              f"{said}, and these arrays have different lengths", b)

    def check_extent(self, arr: Value, axis: int, count: Union[int, Value], node: cst.CSTNode, message: str,
                     b: Builder) -> None:
        """Code that takes ``arr`` to be ``count`` long along ``axis`` where nothing shows it: a test
        where ``node`` runs, which raises ``ValueError(message)`` for another length (a ``stop``),
        as the Python it stands for raises for unpacking it."""
        at = self.at(b, node)
        want = build.const(at, count, I64) if isinstance(count, int) else count
        other = build.cmp(at, "ne", at.op1("dim", [arr], I64, axis=axis), want)
        then, rest = Block(), Block()
        tb = self.at(Builder(then, at.loc), node)
        self.raising(tb, node, "ValueError", f"{cst.Module([]).code_for_node(node)}: its length checked", message)
        tb.create("yield", [], [])
        self.at(Builder(rest, at.loc), node).create("yield", [], [])
        at.create("if", [other], [], regions=[then, rest])

    def raising(self, b: Builder, node: cst.CSTNode, exception: str, text: str, message: Optional[str]) -> None:
        """Where the primal raises ``exception``: a ``stop`` op, which Python output raises as that
        exception (with ``message``, else ``text``, the statement's source) and C output exits with
        status 1 at (``emit.builder``, ``emit_c``)."""
        at = self.at(b, node)
        at.create("stop", [build.const(at, 1, I64)], [], {"call": "exit", "text": text, "exception": exception,
                                                          "message": message})

    def clip_bounds(self, intr: lib.Intrinsic, node: cst.Call,
                    args: list[cst.BaseExpression]) -> tuple[lib.Intrinsic, list[cst.BaseExpression]]:
        """``np.clip(x, lo, None)`` is ``np.maximum(x, lo)`` and ``np.clip(x, None, hi)`` is
        ``np.minimum(x, hi)``, as NumPy defines them: the intrinsic and arguments to lower."""
        if intr.op != "clip" or len(args) != 3:
            return intr, args
        given = [k for k in (1, 2) if not (isinstance(args[k], cst.Name) and args[k].value == "None")]
        if len(given) == 2:
            return intr, args
        if not given:
            raise self.fail(node, "np.clip needs a lower or an upper bound; both are None here",
                            hint="give one bound, or leave the call out")
        return lib.NUMPY["numpy.maximum" if given == [1] else "numpy.minimum"], [args[0], args[given[0]]]

    def intrinsic(self, intr: lib.Intrinsic, node: cst.Call, b: Builder, env: Env) -> Value:
        src = dotted_source(node.func) or intr.op
        self.no_keywords(node, ("dtype",) if intr.op in ("zeros", "empty") else lib.ARRAY_KEYWORDS.get(intr.op, ()))
        intr, args = self.clip_bounds(intr, node, positional_args(node))
        op = intr.op
        if len(args) < intr.min_args or (intr.max_args >= 0 and len(args) > intr.max_args):
            if intr.min_args == intr.max_args:
                expected = str(intr.min_args)
            elif intr.max_args < 0:
                expected = f"at least {intr.min_args}"
            else:
                expected = f"{intr.min_args} to {intr.max_args}"
            hint = ""
            if op in ("min", "max") and len(args) == 1:
                hint = "min/max of an array is not supported: loop over it"
            raise self.fail(node, f"{src} takes {expected} argument(s) here, got {len(args)}", hint=hint)
        if op in ("zeros", "empty"):
            return self.alloc(node, op, args[0], b, env)
        if op in lib.MADE_ARRAYS:
            return py_arrays.made_array(self, op, node, args, b, env)
        if op in ("zeros_like", "empty_like"):
            arr = self.array(args[0], b, env)
            t = arr.type
            assert isinstance(t, ArrayType)
            dims = [self.at(b, node).op1("dim", [arr], I64, axis=k) for k in range(t.rank)]
            fill = "zeros" if op == "zeros_like" else "empty"
            return self.at(b, node).op1("alloc", dims, t, fill=fill, elem=t.elem.name)
        if op == "len":
            if py_lists.is_list(self, args[0]):
                return py_lists.items(self, args[0], b, env)[1]
            arr = self.array(args[0], b, env)
            return self.at(b, node).op1("dim", [arr], I64, axis=0, **{SOURCE_EXTENT: True})
        if op in ("array", "asarray"):
            if py_lists.is_list(self, args[0]):  # a new array of the list's items
                return py_lists.as_array(self, args[0], b, env)
            arr = self.array(args[0], b, env)
            return py_arrays.copied(self, b, node, arr) if op == "array" else arr
        if intr.op in lib.LINALG_OPS:
            return py_linalg.call(self, intr, node, b, env, args)
        if op in ("roll", "pad"):
            return py_roll_pad.call(self, op, node, b, env)
        if op == "searchsorted":
            return py_search.searchsorted(self, node, args, b, env)
        if op in lib.NORM_FUNCTIONS:
            return py_arrays.norm_function(self, op, node, b, env)
        whole = py_arrays.call(self, intr, node, b, env, args)
        if isinstance(whole, Value):
            return whole
        values = [self.scalar_value(a, v) for a, v in zip(args, whole)]
        self.at(b, node)
        if op == "float":
            return build.cast(b, self.finite(values[0], node), F64)
        if op == "int":
            return build.cast(b, values[0], I64)
        if op == "bool":
            return self.truth(node, values[0], b)
        if op == "square":
            x = self.to_number(b, node, values[0])
            return build.mul(self.at(b, node), x, x)
        if op in lib.OPERATOR_UFUNCS:  # np.add(x, y) on numbers is x + y
            x, y = values
            if op == "float_power":
                x, y = build.to_float(b, self.to_number(b, node, x)), build.to_float(b, self.to_number(b, node, y))
            return numpy_semantics(self.arith(lib.OPERATOR_UFUNCS[op], x, y, b, node))
        if op == "power":
            return numpy_semantics(self.arith("pow", values[0], values[1], b, node))
        if op in ("neg", "pos"):
            x = self.to_number(b, node, values[0])
            return build.neg(self.at(b, node), x) if op == "neg" else x
        if op == "reciprocal":
            return numpy_semantics(self.arith("div", self.const(b, node, 1.0, F64), values[0], b, node))
        if op == "clip":  # np.minimum(np.maximum(x, lo), hi): ties give the adjoint to x
            low = self.intrinsic_math("max", intr, values[:2], args, src, node, b)
            return self.intrinsic_math("min", intr, [low, values[2]], args, src, node, b)
        return self.intrinsic_math(op, intr, values, args, src, node, b)

    def intrinsic_math(self, op: str, intr: lib.Intrinsic, values: list[Value], args: list, src: str,
                       node: cst.Call, b: Builder) -> Value:
        """A ``math.<op>`` intrinsic on numbers: operands converted as Python and NumPy do."""
        values = [self.to_number(b, node, v) for v in values]
        ints = MATH_TABLE[op].int_operands if op in MATH_TABLE else ()  # math.ldexp(x, n): n is an int
        for k in ints:
            if not values[k].type.is_int:
                raise self.fail(args[k], f"argument {k + 1} of {src} must be an integer, not a float",
                                hint="convert it: int(...)")
        if not (intr.keeps_int and all(v.type.is_int for v in values)):
            values = [v if k in ints else build.to_float(self.at(b, node), v) for k, v in enumerate(values)]
        self.at(b, node)
        if op == "log" and len(values) == 2:  # math.log(x, base)
            return build.div(b, build.math(b, "log", values[0]), build.math(b, "log", values[1]))
        result = build.math(b, op, *values[:2]) if len(values) >= 2 else build.math(b, op, values[0])
        for v in values[2:]:  # max(a, b, c) -> max(max(a, b), c)
            result = build.math(b, op, result, v)
        if intr.numpy:
            numpy_semantics(result)
        made = result.defining_op
        if intr.scipy and made is not None and made.name.startswith("math."):
            made.attrs[SCIPY] = True  # an array function: it maps arrays too (shape_generic)
        if intr.int_result:
            result = build.cast(b, result, I64)
        return result

    def alloc(self, node: cst.Call, fill: str, shape: cst.BaseExpression, b: Builder, env: Env) -> Value:
        dtype_node = keyword_arg(node, "dtype")
        elem = dtype_elem(self.info, dtype_node)
        if elem is None:
            assert dtype_node is not None
            raise self.fail(dtype_node, "unsupported dtype", hint="use float (np.float64) or int (np.int64)")
        if isinstance(shape, (cst.Tuple, cst.List)):
            dim_nodes = [e.value for e in shape.elements]
        else:
            dim_nodes = [shape]
        dims = [self.integer(d, b, env, "an array size") for d in dim_nodes]
        return self.at(b, node).op1("alloc", dims, ArrayType(elem, len(dims)), fill=fill, elem=elem.name)


_EMPTY = cst.Module([])  # prints a node as written

# Integer arithmetic that keeps an index array one (``idx + 1``, ``bins - 1``, ``2 * idx``)
_INDEX_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)


def numpy_semantics(v: Value) -> Value:
    """Marks the float op computing ``v`` as spelled with NumPy (``attrs.NUMPY``): on numbers, the
    Python output computes it, and what its derivative rule makes, as NumPy does, where Python's
    ``math`` and float division would raise (``np.log(0.0)`` is -inf, ``np.divide(1.0, 0.0)`` inf)."""
    op = v.defining_op
    if op is not None and v.type.is_float and (op.name.startswith("math.") or op.name in NUMPY_OPS):
        op.attrs[NUMPY] = True
    return v


def _kind(t: Type) -> str:
    """An argument's kind as a custom adjoint's signature sees it."""
    array = isinstance(t, ArrayType)
    return argument_kind(array, (t.elem if array else t).is_float)  # type: ignore[union-attr]


_OF_NUMBERS = {"add", "sub", "mul", "div", "floordiv", "neg", "cast", "pow", "rem"}


def _of_integers(v: Value) -> bool:
    """Whether ``v`` is computed from integers and constants alone (``n / 2.0`` for an integer
    ``n``): a number, and no function of the --wrt inputs."""
    if v.type.is_int or v.type.is_bool:
        return True
    op = v.defining_op
    if op is None or isinstance(v.type, ArrayType):
        return False
    if op.name == "const":
        return True
    return op.name in _OF_NUMBERS and all(_of_integers(o) for o in op.operands)
