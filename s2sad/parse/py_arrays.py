"""Lowering of whole-array NumPy expressions to ``arr.`` ops (see ``ssa.array_ops``).

``ExprLowerer`` sends here every expression with an array operand that is not an
element access: arithmetic and comparisons (NumPy broadcasting; a scalar operand
is cast to float when the other side is a float array), unary minus, ``@``,
``.T``, ufuncs (``np.exp``, ``np.tanh``, ``np.maximum``, ...), reductions with
``axis=``/``keepdims=``, ``np.dot``/``np.matmul``/``np.outer``/``np.transpose``,
``np.where``, ``np.ones``/``np.ones_like``. Each becomes one op with the
expression's location, so the adjoint and the emitters keep the user's
vectorized form. Unsupported forms fail with a diagnostic at the node, never a
traceback: ranks NumPy would reject (``A @ B`` of rank 3), an ``axis`` that is
not an integer literal, a ufunc without an array form.
"""

from __future__ import annotations

import math
from typing import Callable, Optional, Protocol, Union

import libcst as cst

from ..ssa import array_ops, build
from ..ssa.array_ops import SCATTER_ADD
from ..ssa.attrs import SCIPY
from ..ssa.ir import Block, Builder, Op, Value
from ..ssa.mathfns import MATH
from ..ssa.ops import view_base
from ..ssa.structured import add_carried
from ..ssa.types import BOOL, F64, I64, ArrayType, ScalarType, Type
from .py_common import Env, Fail, integer_array_hint
from .py_module import dotted_source
from . import py_intrinsics as lib
from .py_intrinsics import OPERATOR_UFUNCS
from .py_flow import is_new_axis, is_whole_slice
from .py_types import astype_elem, bincount_args, int_literal, keyword_arg, positional_args

P = array_ops.PREFIX


class ExprLowerer(Protocol):
    """What this module asks of the expression lowering (``py_expr.ExprLowerer``) it serves."""

    def at(self, b: Builder, node: cst.CSTNode) -> Builder: ...

    def fail(self, node: cst.CSTNode, message: str, hint: str = "") -> Fail: ...

    def const(self, b: Builder, node: cst.CSTNode, value: object, t: ScalarType, hint: str = "") -> Value: ...

    def to_number(self, b: Builder, node: cst.CSTNode, v: Value) -> Value: ...

    def value(self, node: cst.BaseExpression, b: Builder, env: Env) -> Value: ...

    def integer(self, node: cst.BaseExpression, b: Builder, env: Env, what: str) -> Value: ...

    def array(self, node: cst.BaseExpression, b: Builder, env: Env) -> Value: ...

    def annotation_hint(self, node: cst.CSTNode) -> Optional[str]: ...

    def index(self, node: cst.BaseExpression, b: Builder, env: Env, arr: Value, axis: int) -> Value: ...

    def coerce(self, v: Value, t: Type, b: Builder, node: cst.CSTNode, what: str) -> Value: ...

    def arith(self, op: str, x: Value, y: Value, b: Builder, node: cst.CSTNode, hint: str = "") -> Value: ...

    def may_be_mask(self, node: object, env: Env) -> bool: ...

    # Subexpressions lowered once, read as these values where they are met again.
    held: dict[cst.CSTNode, Value]

    def if_value(self, b: Builder, node: cst.CSTNode, cond: Value,
                 then: Callable[[Builder], Value], other: Callable[[Builder], Value]) -> Value: ...

    def raising(self, b: Builder, node: cst.CSTNode, exception: str, text: str, message: Optional[str]) -> None: ...


def arr_op(lw: "ExprLowerer", b: Builder, node: cst.CSTNode, name: str, operands: list[Value],
           attrs: Optional[dict] = None) -> Value:
    """Create ``arr.<name>``; a type NumPy would reject is a diagnostic at ``node``."""
    attrs = attrs or {}
    t = array_ops.result_type(P + name, [v.type for v in operands], attrs)
    if isinstance(t, str):
        raise lw.fail(node, f"unsupported array operation: {t.replace(P, 'np.')}",
                      hint="check the ranks of the operands")
    return lw.at(b, node).op1(P + name, operands, t, **attrs)


def _float_scalar(lw: "ExprLowerer", b: Builder, node: cst.CSTNode, v: Value) -> Value:
    if v.type.is_array:
        return v
    v = lw.finite(lw.to_number(b, node, v), node)  # (x ** 10**400: NumPy cannot take the integer)
    return build.to_float(lw.at(b, node), v)


def _where_of_numbers(lw: "ExprLowerer", node: cst.Call, args: list[cst.BaseExpression], values: list[Value],
                      b: Builder) -> Value:
    """``np.where(c, x, y)`` of numbers: ``x`` where the comparison ``c`` holds, else ``y``, both
    of the type NumPy promotes them to."""
    cond, x, y = values
    if cond.type != BOOL:
        raise lw.fail(args[0], "the condition of np.where must be a comparison",
                      hint="compare: np.where(x > 0, ...)")
    x, y = lw.to_number(b, node, x), lw.to_number(b, node, y)
    if x.type != y.type:
        x, y = build.to_float(lw.at(b, node), x), build.to_float(lw.at(b, node), y)
    return build.select(lw.at(b, node), cond, x, y)


def elementwise(lw: "ExprLowerer", op: str, x: Value, y: Value, b: Builder, node: cst.CSTNode) -> Value:
    """``x <op> y`` with at least one array operand."""
    if op in ("add", "sub", "mul", "floordiv", "mod") and _integer(x.type) and _integer(y.type):
        # idx + 1, 2 * idx: integers stay integers, as in NumPy (an index array stays one)
        return arr_op(lw, b, node, op, [x, y])
    x, y = _float_scalar(lw, b, node, x), _float_scalar(lw, b, node, y)
    return arr_op(lw, b, node, op, [x, y])


def _integer(t: Type) -> bool:
    """Integers (not booleans), or an array of them."""
    elem = t.elem if isinstance(t, ArrayType) else t
    return elem.is_int and elem != BOOL


def _guessed_numbers(lw: "ExprLowerer", v: Value) -> list[str]:
    """The parameters ``v`` is computed from that inference took for numbers without evidence
    (``FunctionTypes.assumed`` at rank 0), in the order they are met."""
    guessed = {name for name, rank in lw.ctx.types.assumed.items() if rank == 0}
    found: list[str] = []
    seen: set[Value] = set()
    todo = [v]
    while todo:
        u = todo.pop()
        if u in seen:
            continue
        seen.add(u)
        op = u.defining_op
        if op is None:
            if u.name_hint in guessed and u.name_hint not in found:
                found.append(u.name_hint)
            continue
        todo += reversed(op.operands)
    return found


def compare(lw: "ExprLowerer", op: str, x: Value, y: Value, b: Builder, node: cst.CSTNode) -> Value:
    x, y = _float_scalar(lw, b, node, x), _float_scalar(lw, b, node, y)
    return arr_op(lw, b, node, op, [x, y])


def negate(lw: "ExprLowerer", x: Value, b: Builder, node: cst.CSTNode) -> Value:
    return arr_op(lw, b, node, "neg", [x])


def transpose(lw: "ExprLowerer", x: Value, b: Builder, node: cst.CSTNode) -> Value:
    if x.type.rank == 1:  # type: ignore[attr-defined]
        return x  # NumPy's .T of a vector is the vector itself
    return arr_op(lw, b, node, "transpose", [x])


def matmul(lw: "ExprLowerer", x: Value, y: Value, b: Builder, node: cst.CSTNode) -> Value:
    for v, side in ((x, "left"), (y, "right")):
        if not v.type.is_array:
            guessed = _guessed_numbers(lw, v)
            if guessed:  # (r = model(theta, t) - y; r @ r: either of t and y may be the array)
                said = ", ".join(f"'{name}'" for name in guessed)
                taken = "a number as nothing shows its" if len(guessed) == 1 else "numbers as nothing shows their"
                raise lw.fail(node, f"the {side} operand of a matrix product is not evidently an array: it is "
                              f"computed from {said}, taken for {taken} rank",
                              hint="annotate the array among them: " + " or ".join(f'{name}: "f64[n]"'
                                                                                   for name in guessed))
            raise lw.fail(node, f"the {side} operand of a matrix product is not an array",
                          hint="use * to scale by a number")
    subs = batched_subscripts(x.type.rank, y.type.rank)  # type: ignore[attr-defined]
    if subs is not None:  # stacks of matrices: np.einsum's spelling of NumPy's matmul
        # Batch axes both have are taken to be as long: NumPy's matmul would stretch one of
        # extent 1, which the adjoints (added into shadows of each operand's shape) do not undo.
        shared = min(x.type.rank, y.type.rank) - 2  # type: ignore[attr-defined]
        for k in range(1, shared + 1):
            lw.check_extent(x, x.type.rank - 2 - k, lw.at(b, node).op1("dim", [y], I64, axis=y.type.rank - 2 - k),
                            node, "stacks of matrices multiplied must be as many, axis by axis (not stretched)", b)
        return arr_op(lw, b, node, "einsum", [x, y], {"subs": subs})
    return arr_op(lw, b, node, "matmul", [x, y])


_BATCH_LETTERS = "abcdef"


def batched_subscripts(left: int, right: int) -> Optional[str]:
    """The ``np.einsum`` subscripts of ``a @ b`` for operands of ``left`` and ``right`` axes where
    one of them is a stack of matrices (3 axes or more): the matrix product of the last two axes,
    the leading (batch) axes matched from the right, a vector operand taken as NumPy's matmul
    takes it (``"bmn,n->bm"``); None for the ranks ``arr.matmul`` takes (1 or 2)."""
    if max(left, right) < 3 or max(left, right) - 2 > len(_BATCH_LETTERS):
        return None
    batch = _BATCH_LETTERS[:max(left, right) - 2]
    if right == 1:
        return f"{batch[len(batch) - (left - 2):]}mn,n->{batch}m"
    if left == 1:
        return f"n,{batch[len(batch) - (right - 2):]}nk->{batch}k"
    return f"{batch[len(batch) - (left - 2):]}mn,{batch[len(batch) - (right - 2):]}nk->{batch}mk"


def _axis(lw: "ExprLowerer", node: cst.Call, rank: int) -> Optional[int]:
    axis_node = keyword_arg(node, "axis")
    if axis_node is None:
        return None
    return _axis_value(lw, axis_node, rank)


def _axis_value(lw: "ExprLowerer", axis_node: cst.BaseExpression, rank: int) -> int:
    k = int_literal(axis_node)
    if k is None:
        raise lw.fail(axis_node, "axis= must be an integer literal", hint="write axis=0 or axis=1")
    if k < 0:
        k += rank
    if not 0 <= k < rank:
        raise lw.fail(axis_node, f"axis {int_literal(axis_node)} is out of range for a {rank}-D array")
    return k


def _keepdims(lw: "ExprLowerer", node: cst.Call) -> bool:
    kd = keyword_arg(node, "keepdims")
    if kd is None:
        return False
    if isinstance(kd, cst.Name) and kd.value in ("True", "False"):
        return kd.value == "True"
    raise lw.fail(kd, "keepdims= must be True or False")


_REDUCTIONS = {"sum": "sum", "mean": "mean", "max_reduce": "max", "min_reduce": "min"}


def call(lw: "ExprLowerer", intr: "lib.Intrinsic", node: cst.Call, b: Builder, env: Env,
         args: Optional[list[cst.BaseExpression]] = None) -> Union[Value, list[Value]]:
    """A library call with an array argument or an array-only function lowered to its op; for a
    call on numbers only, the argument values (evaluated once) for the scalar lowering. ``args``:
    the positional arguments when they are not the call's own (a method's receiver first)."""
    op = intr.op
    args = positional_args(node) if args is None else args
    if op == "reshape":
        return reshape(lw, node, args, b, env)
    if op == "squeeze":
        return squeeze(lw, node, args, b, env)
    if op == "flip":
        return flipped(lw, node, lw.array(args[0], b, env), b, env)
    if op in ("ravel", "flatten"):  # x.ravel(): x.reshape(-1); x.flatten(): a copy of it
        flat = flattened(lw, node, args[0], b, env)
        return copied(lw, b, node, flat) if op == "flatten" else flat
    if op == "array":  # x.copy(): a new array with x's elements, which the code may write
        return copied(lw, b, node, lw.array(args[0], b, env))
    if op == "astype":  # x.astype(float): a copy of x's elements converted, as NumPy converts them
        elem = astype_elem(lw.ctx.info, args[1])
        if elem is None:
            raise lw.fail(args[1], "x.astype takes float, int or bool (or NumPy's float64, int64, bool_) here",
                          hint="write x.astype(float)")
        arr = lw.array(args[0], b, env)
        return copied(lw, b, node, arr, elem)
    if op in ("ones", "ones_like", "full", "full_like"):
        if op in ("ones_like", "full_like"):
            like = lw.array(args[0], b, env)
            if op == "full_like" and not like.type.elem.is_float:  # type: ignore[attr-defined]
                raise lw.fail(args[0], "np.full_like of an integer array makes an integer array, which s2sad "
                              "does not differentiate", hint="fill an array of floats: np.full(x.shape, v)")
            dims = [lw.at(b, node).op1("dim", [like], I64, axis=k) for k in range(like.type.rank)]  # type: ignore
        else:
            shape = args[0]
            nodes = [e.value for e in shape.elements] if isinstance(shape, (cst.Tuple, cst.List)) else [shape]
            dims = [lw.integer(d, b, env, "an array size") for d in nodes]
        if op in ("ones", "ones_like"):
            return arr_op(lw, b, node, "full", [*dims, lw.const(b, node, 1.0, F64)])
        value = lw.to_number(b, args[1], lw.value(args[1], b, env))
        if op == "full" and not value.type.is_float:  # NumPy's array takes the value's type
            raise lw.fail(args[1], "np.full with an integer value makes an integer array",
                          hint="write the value as a float: np.full(n, 1.0), or float(k)")
        return arr_op(lw, b, node, "full", [*dims, build.to_float(lw.at(b, node), value)])
    if op in _REDUCTIONS or op == "prod":
        arr = lw.value(args[0], b, env)
        if not arr.type.is_array and not any(a.keyword is not None for a in node.args):
            # np.sum(total) of a total that only ever adds numbers: the number, as NumPy gives it
            lw.whole_reduced.append(arr)  # (which it is not, should the number be an array)
            return arr if op != "mean" or arr.type.is_float else build.cast(lw.at(b, node), arr, F64)
        arr = lw.as_array(arr, args[0])  # (np.sum(s, axis=1) of a number s: NumPy has no axis 1)
        return reduction(lw, node, _REDUCTIONS.get(op, op), arr, b)
    if op == "count_nonzero":  # the sum of a mask of the entries that are not 0 (True counts 1)
        arr = lw.array(args[0], b, env)
        if arr.type.elem != BOOL:  # type: ignore[attr-defined]
            arr = compare(lw, "ne", arr, lw.const(b, node, 0, arr.type.elem), b, node)  # type: ignore[attr-defined]
        return reduction(lw, node, "sum", arr, b)
    if op in ("var", "std"):
        return variance(lw, node, lw.array(args[0], b, env), b, op == "std")
    if op == "cumsum":
        return cumsum(lw, node, lw.array(args[0], b, env), b)
    if op == "cumprod":
        return cumprod(lw, node, lw.array(args[0], b, env), b)
    if op in ("running_max", "running_min"):
        return running_extreme(lw, node, lw.array(args[0], b, env), b, op[len("running_"):])
    if op == "polyval":
        return polyval(lw, node, lw.array(args[0], b, env), lw.value(args[1], b, env), b)
    if op == "sort":  # the entries in the order argsort gives: a gather, whose adjoint scatters back
        x = lw.array(args[0], b, env)
        # (kind= chooses the algorithm, not the values: any is the same sort)
        if x.type.rank != 1 or any(a.keyword is not None and a.keyword.value != "kind"  # type: ignore[attr-defined]
                                   for a in node.args):
            raise lw.fail(node, "np.sort is supported of a vector, without axis=",
                          hint="sort each row in a loop over the rows")
        return arr_op(lw, b, node, "take", [x, arr_op(lw, b, node, "argsort", [x])])
    if op == "cross":
        return cross(lw, node, lw.array(args[0], b, env), lw.array(args[1], b, env), b)
    if op == "flatnonzero":
        return nonzero_positions(lw, node, flattened(lw, node, args[0], b, env), 0, b)
    if op in ("argmax", "argmin"):
        return arg_extreme(lw, node, args, b, env, op == "argmax")
    if op in ("median", "percentile", "quantile"):  # of the entries in order: x.reshape(-1)
        flat = flattened(lw, node, args[0], b, env)
        if op == "median":
            return median(lw, node, flat, b)
        return quantile(lw, node, flat, lw.value(args[1], b, env), b, 100.0 if op == "percentile" else 1.0)
    if op == "argsort":
        return argsort(lw, node, lw.array(args[0], b, env), b)
    if op in ("matmul", "outer"):
        x, y = lw.array(args[0], b, env), lw.array(args[1], b, env)
        return matmul(lw, x, y, b, node) if op == "matmul" else arr_op(lw, b, node, "outer", [x, y])
    if op == "transpose":
        return transpose(lw, lw.array(args[0], b, env), b, node)
    values = [lw.value(a, b, env) for a in args]
    if op in SPECIAL_FUNCTIONS:
        return special_function(lw, op, values, b, node)
    if not any(v.type.is_array for v in values):
        if op == "where":  # of numbers: one of them, as ``a if c else b`` (np.where of values that
            return _where_of_numbers(lw, node, args, values, b)  # may be arrays at run time, there)
        return values
    if op == "where":
        cond, x, y = values
        if cond.type.is_array and cond.type.elem != BOOL:  # type: ignore[attr-defined]
            # a mask of numbers (np.where(mask, z, -np.inf)): NumPy takes what is not 0 for True
            elem = cond.type.elem  # type: ignore[attr-defined]
            cond = compare(lw, "ne", cond, lw.const(b, args[0], 0.0 if elem.is_float else 0, elem), b, args[0])
        if not (cond.type.is_array and cond.type.elem == BOOL):  # type: ignore[attr-defined]
            raise lw.fail(args[0], "the condition of np.where must be a comparison of arrays")
        return arr_op(lw, b, node, "where", [cond, _float_scalar(lw, b, node, x), _float_scalar(lw, b, node, y)])
    if op in OPERATOR_UFUNCS:  # np.add(x, y) is x + y
        if op == "float_power" and not any(_is_float(v) for v in values):
            raise lw.fail(node, "np.float_power of integer arrays is not supported",
                          hint="convert an operand to float: x.astype(float), or use **")
        return elementwise(lw, OPERATOR_UFUNCS[op], values[0], values[1], b, node)
    if op == "neg":
        return negate(lw, values[0], b, node)
    if op == "pos":
        return values[0]
    if op == "reciprocal":
        return elementwise(lw, "div", lw.const(b, node, 1.0, F64), values[0], b, node)
    if op == "clip":  # NumPy's definition, with the bounds second: ties give x's adjoint to x
        low = elementwise(lw, "maximum", values[0], values[1], b, node)
        return elementwise(lw, "minimum", low, values[2], b, node)
    if op in ("max", "min") and len(values) == 2:  # np.maximum / np.minimum
        return elementwise(lw, "maximum" if op == "max" else "minimum", values[0], values[1], b, node)
    if op == "power" and len(values) == 2:
        return elementwise(lw, "pow", values[0], values[1], b, node)
    if op == "square":
        return elementwise(lw, "mul", values[0], values[0], b, node)
    if len(values) == 1 and op in array_ops.UNARY_MATH and (MATH[op].ufunc or intr.scipy):
        return arr_op(lw, b, node, "math." + op, [values[0]])
    if len(values) == 2 and "math." + op in array_ops.BINARY_MATH and intr.numpy:  # np.arctan2(y, x)
        return elementwise(lw, "math." + op, values[0], values[1], b, node)
    src = dotted_source(node.func) or op
    raise lw.fail(node, f"{src} is not supported on whole arrays",
                  hint="supported: exp log sin cos tanh sqrt abs arctan2 hypot maximum minimum where sum mean "
                  "max min dot matmul outer transpose; or loop over the elements")


SPECIAL_FUNCTIONS = ("logit", *lib.ELEMENTWISE_SPECIAL)


def norm_function(lw: "ExprLowerer", op: str, node: cst.Call, b: Builder, env: Env) -> Value:
    """scipy.stats.norm's ``pdf``, ``logpdf`` and ``cdf`` of ``x, loc=0, scale=1``."""
    x, loc, scale = lib.norm_args(node)
    assert x is not None
    values = [lw.value(x, b, env),
              lw.value(loc, b, env) if loc is not None else lw.const(b, node, 0.0, F64),
              lw.value(scale, b, env) if scale is not None else lw.const(b, node, 1.0, F64)]
    return special_function(lw, op, values, b, node)


def special_function(lw: "ExprLowerer", op: str, values: list[Value], b: Builder, node: cst.Call) -> Value:
    """scipy.special's ``logit(p) = log(p / (1 - p))``, ``betaln(a, b) = lgamma(a) + lgamma(b) -
    lgamma(a + b)`` and ``xlogy(x, y) = x log(y)``, 0 where x is 0 (even where log(y) is -inf), on
    numbers or elementwise, written with the functions they are made of (their derivatives follow)."""
    values = [v if v.type.is_array else build.to_float(lw.at(b, node), lw.to_number(b, node, v)) for v in values]

    def ew(name: str, x: Value, y: Value) -> Value:
        if x.type.is_array or y.type.is_array:
            compared = name in array_ops.COMPARE
            return (compare if compared else elementwise)(lw, name, x, y, b, node)
        if name in array_ops.COMPARE:
            return build.cmp(lw.at(b, node), name, x, y)
        return build.binary(lw.at(b, node), name, x, y)

    def fn(name: str, x: Value) -> Value:
        if x.type.is_array:
            return arr_op(lw, b, node, "math." + name, [x])
        made = build.math(lw.at(b, node), name, x)
        made.defining_op.attrs[SCIPY] = True  # type: ignore[union-attr]  # SciPy's: it maps arrays too
        return made

    one = lw.const(b, node, 1.0, F64)
    if op in lib.NORM_FUNCTIONS:
        x, loc, scale = values
        z = ew("div", ew("sub", x, loc), scale)
        half_square = ew("mul", lw.const(b, node, 0.5, F64), ew("mul", z, z))
        if op == "norm_cdf":  # Phi(z) = erfc(-z / sqrt(2)) / 2, accurate in the lower tail
            minus = ew("mul", lw.const(b, node, -1.0 / math.sqrt(2.0), F64), z)
            return ew("mul", lw.const(b, node, 0.5, F64), fn("erfc", minus))
        log_norm = lw.const(b, node, 0.5 * math.log(2.0 * math.pi), F64)
        logpdf = ew("sub", ew("sub", lw.const(b, node, 0.0, F64), half_square), ew("add", fn("log", scale), log_norm))
        return logpdf if op == "norm_logpdf" else fn("exp", logpdf)
    if op == "logaddexp":
        # log(exp(a) + exp(b)) = max(a, b) + log1p(exp(-|a - b|)), without overflow; where a = b
        # the rules' ties (max's to a, |0|'s slope 1) give each the half its derivative is.
        a, c = values
        top = ew("maximum", a, c) if a.type.is_array or c.type.is_array else build.math(lw.at(b, node), "max", a, c)
        gap = fn("abs", ew("sub", a, c))
        return ew("add", top, fn("log1p", fn("exp", ew("sub", lw.const(b, node, 0.0, F64), gap))))
    if op == "logit":
        return fn("log", ew("div", values[0], ew("sub", one, values[0])))
    if op == "betaln":
        a, c = values
        return ew("sub", ew("add", fn("lgamma", a), fn("lgamma", c)), fn("lgamma", ew("add", a, c)))
    # x log(y'), y' = y where y > 0 (both derivatives as x log(y)'s), else 1 where x is 0 (the
    # value 0 where log(y) is -inf or NaN; derivatives 0 there), else y (-inf or NaN, as SciPy).
    x, y = values
    zero = lw.const(b, node, 0.0, F64)
    if x.type.is_array != y.type.is_array:  # the number stretched over the array, as NumPy broadcasts it
        x, y = (x, arr_op(lw, b, node, "broadcast", [y, x])) if x.type.is_array else \
            (arr_op(lw, b, node, "broadcast", [x, y]), y)
    positive, x_zero = ew("gt", y, zero), ew("eq", x, zero)
    if y.type.is_array:
        inner = arr_op(lw, b, node, "where", [x_zero, one, y])
        y = arr_op(lw, b, node, "where", [positive, y, inner])
    else:
        lw.at(b, node)
        y = build.select(b, positive, y, build.select(b, x_zero, one, y))
    return ew("mul", x, fn("log", y))


def _is_float(v: Value) -> bool:
    t = v.type
    return (t.elem if isinstance(t, ArrayType) else t).is_float  # type: ignore[union-attr]


def reduction(lw: "ExprLowerer", node: cst.Call, name: str, arr: Value, b: Builder) -> Value:
    """``np.sum(x, axis=, keepdims=)`` and the other reductions ``name`` names: over all the
    entries, one axis, or a tuple of them (``axis=(0, 1)``), reduced one after the other from the
    last, so the others keep their numbers (a sum of sums, a mean of means of equal counts, a
    largest of largest)."""
    axis_node = keyword_arg(node, "axis")
    if not isinstance(axis_node, cst.Tuple):
        return arr_op(lw, b, node, name, [arr], _reduction_attrs(lw, node, arr))
    rank = arr.type.rank  # type: ignore[attr-defined]
    axes = [_axis_value(lw, e.value, rank) for e in axis_node.elements]
    if len(set(axes)) < len(axes):
        raise lw.fail(axis_node, "an axis is named twice", hint="name each axis once")
    keep = {"keepdims": True} if _keepdims(lw, node) else {}
    if len(axes) == rank:
        return arr_op(lw, b, node, name, [arr], keep)
    out = arr
    for k in sorted(axes, reverse=True):
        out = arr_op(lw, b, node, name, [out], {"axis": k, **keep})
    return out


def _reduction_attrs(lw: "ExprLowerer", node: cst.Call, arr: Value) -> dict:
    attrs: dict = {}
    axis = _axis(lw, node, arr.type.rank)  # type: ignore[attr-defined]
    if axis is not None:
        attrs["axis"] = axis
    if _keepdims(lw, node):
        attrs["keepdims"] = True
    return attrs


def median(lw: "ExprLowerer", node: cst.Call, arr: Value, b: Builder) -> Value:
    """``np.median(x)`` of all the entries, as NumPy computes it: the middle of the sorted
    entries, the mean of the two middle ones for an even count (a gather, whose adjoint puts
    the median's adjoint on the middle entries, half on each of two)."""
    if any(a.keyword is not None for a in node.args):  # type: ignore[attr-defined]
        raise lw.fail(node, "np.median is supported of all the entries, without axis= or other keywords",
                      hint="take the median of each row in a loop over the rows")
    order = arr_op(lw, b, node, "argsort", [arr])
    order.defining_op.attrs["for"] = "median"  # what C output, which cannot sort yet, says it refuses
    ordered = arr_op(lw, b, node, "take", [arr, order])
    at = lw.at(b, node)
    n = at.op1("dim", [ordered], I64, axis=0)
    lo = build.binary(at, "floordiv", build.sub(at, n, build.const(at, 1, I64)), build.const(at, 2, I64))
    hi = build.binary(at, "floordiv", n, build.const(at, 2, I64))
    elem = ordered.type.elem  # type: ignore[attr-defined]
    pair = build.add(at, *(build.to_float(at, at.op1("load", [ordered, k], elem)) for k in (lo, hi)))
    return build.mul(at, build.const(at, 0.5, F64), pair)


def quantile(lw: "ExprLowerer", node: cst.Call, arr: Value, q: Value, b: Builder, whole: float) -> Value:
    """``np.quantile(x, q)`` (``whole`` 1) and ``np.percentile(x, q)`` (``whole`` 100) of all the
    entries, by NumPy's default (linear) method: at the position ``q / whole * (n - 1)`` of the
    sorted entries, between the two around it in proportion (a gather; the adjoint goes to those
    two entries, and to ``q`` as the slope between them)."""
    called = "np.percentile" if whole == 100.0 else "np.quantile"
    for a in node.args[2:]:
        if a.keyword is not None and a.keyword.value in ("method", "interpolation"):
            if not (isinstance(a.value, cst.SimpleString) and a.value.evaluated_value == "linear"):
                raise lw.fail(a, f"{called} is supported by its default (linear) method only",
                              hint=f"drop {a.keyword.value}=")
        else:
            raise lw.fail(a, f"{called} is supported of all the entries (without axis= or other arguments)",
                          hint="take it of each row in a loop over the rows")
    if q.type.is_array:
        raise lw.fail(node.args[1], f"{called} of several {'percentiles' if whole == 100.0 else 'quantiles'} at "
                      "once is not supported", hint="take each with a call of its own")
    order = arr_op(lw, b, node, "argsort", [arr])
    order.defining_op.attrs["for"] = called[len("np."):]  # what C output, which cannot sort yet, says it refuses
    ordered = arr_op(lw, b, node, "take", [arr, order])
    at = lw.at(b, node)
    last = build.sub(at, at.op1("dim", [ordered], I64, axis=0), build.const(at, 1, I64))
    pos = build.mul(at, build.binary(at, "div", build.to_float(at, q), build.const(at, whole, F64)),
                    build.to_float(at, last))
    lo = build.cast(at, pos, I64)  # (pos >= 0: the floor)
    hi = build.select(at, build.cmp(at, "lt", lo, last), build.add(at, lo, build.const(at, 1, I64)), last)
    elem = ordered.type.elem  # type: ignore[attr-defined]
    below, above = (build.to_float(at, at.op1("load", [ordered, k], elem)) for k in (lo, hi))
    frac = build.sub(at, pos, build.to_float(at, lo))
    return build.add(at, below, build.mul(at, frac, build.sub(at, above, below)))


def variance(lw: "ExprLowerer", node: cst.Call, arr: Value, b: Builder, std: bool) -> Value:
    """``np.var(x, axis=, keepdims=, ddof=)`` as NumPy computes it, the mean of the squared
    deviations from the mean (divided by ``N - ddof`` instead of ``N`` for a ``ddof``), and
    ``np.std`` its square root; their adjoints follow from the parts' (``2 (x - mean) / (N - ddof)``
    for the variance: the deviations sum to zero, so the mean's own adjoint adds nothing)."""
    attrs = _reduction_attrs(lw, node, arr)
    ddof_node = keyword_arg(node, "ddof")
    ddof = 0
    if ddof_node is not None:
        lit = int_literal(ddof_node)
        if lit is None or lit < 0:
            raise lw.fail(ddof_node, "ddof= must be a non-negative integer literal", hint="write ddof=0 or ddof=1")
        ddof = lit
    around = {"axis": attrs["axis"], "keepdims": True} if "axis" in attrs else {}  # broadcasts against arr
    mean = arr_op(lw, b, node, "mean", [arr], around)
    dev = elementwise(lw, "sub", arr, mean, b, node)
    square = elementwise(lw, "mul", dev, dev, b, node)
    if ddof == 0:
        var = arr_op(lw, b, node, "mean", [square], attrs)
    else:
        total = arr_op(lw, b, node, "sum", [square], attrs)
        lw.at(b, node)
        axes = [attrs["axis"]] if "axis" in attrs else range(arr.type.rank)  # type: ignore[attr-defined]
        count: Optional[Value] = None
        for k in axes:
            d = b.op1("dim", [arr], I64, axis=k)
            count = d if count is None else build.mul(b, count, d)
        assert count is not None
        dof = build.to_float(b, build.sub(b, count, build.const(b, ddof, I64)))
        var = elementwise(lw, "div", total, dof, b, node) if total.type.is_array else build.div(b, total, dof)
    if not std:
        return var
    if var.type.is_array:
        return arr_op(lw, b, node, "math.sqrt", [var])
    return build.math(lw.at(b, node), "sqrt", var)


def cumprod(lw: "ExprLowerer", node: cst.Call, arr: Value, b: Builder) -> Value:
    """``np.cumprod(x)`` of a vector: a new array a loop fills with the running product (each
    entry the previous times ``x[k]``), so its adjoint is the loop's, right where an entry is 0
    (a rule dividing by ``x[k]`` would not be)."""
    if arr.type.rank != 1 or any(a.keyword is not None for a in node.args):  # type: ignore[attr-defined]
        raise lw.fail(node, "np.cumprod is supported of a vector, without axis=",
                      hint="write the running product as a loop over the axis")
    lw.at(b, node)
    count = b.op1("dim", [arr], I64, axis=0)
    out = b.op1("alloc", [count], ArrayType(F64, 1), fill="empty", elem=F64.name)
    one = build.const(b, 1.0, F64)  # the product of no entries (made before the loop that carries it)
    loop = fill_loop(b, count, lambda bb, k: None)
    body = loop.regions[0]

    def times(running: Value) -> Value:
        bb = Builder(body, b.loc).before_op(body.terminator)
        k = body.args[0]
        x = bb.op1("load", [arr, k], arr.type.elem)  # type: ignore[attr-defined]
        v = build.mul(bb, running, build.to_float(bb, x))
        bb.create("store", [out, k, v], [])
        return v

    add_carried(loop, one, times, "running")
    return out


def running_extreme(lw: "ExprLowerer", node: cst.Call, arr: Value, b: Builder, fn: str) -> Value:
    """``np.maximum.accumulate(x)`` (``fn`` "max") and ``np.minimum.accumulate(x)`` ("min") of a
    vector: a new array a loop fills with the running extreme, each entry ``np.maximum`` of the
    previous one and ``x[k]`` (the first ``x[0]``: the loop starts from the identity, -inf for a
    maximum), so its adjoint is the loop's: each entry's goes to the ``x[k]`` it came from."""
    if arr.type.rank != 1 or any(a.keyword is not None for a in node.args):  # type: ignore[attr-defined]
        raise lw.fail(node, f"np.{fn}imum.accumulate is supported of a vector, without axis=",
                      hint="write the running extreme as a loop over the axis")
    lw.at(b, node)
    elem = arr.type.elem  # type: ignore[attr-defined]
    count = b.op1("dim", [arr], I64, axis=0)
    out = b.op1("alloc", [count], ArrayType(elem, 1), fill="empty", elem=elem.name)
    if elem.is_int:  # (an integer array's running extreme is one: NumPy keeps the dtype)
        identity = build.const(b, -2 ** 63 if fn == "max" else 2 ** 63 - 1, elem)
    else:
        identity = build.const(b, -math.inf if fn == "max" else math.inf, elem)
    loop = fill_loop(b, count, lambda bb, k: None)
    body = loop.regions[0]

    def extreme(running: Value) -> Value:
        bb = Builder(body, b.loc).before_op(body.terminator)
        k = body.args[0]
        v = build.math(bb, fn, running, bb.op1("load", [arr, k], elem))
        bb.create("store", [out, k, v], [])
        return v

    add_carried(loop, identity, extreme, "running")
    return out


def arg_extreme(lw: "ExprLowerer", node: cst.Call, args: list, b: Builder, env: Env, largest: bool) -> Value:
    """``np.argmax(x)`` (``largest``) and ``np.argmin(x)``, also ``x.argmax()``: the position of
    the first largest (smallest) entry of all of them, in C order (of a matrix, the index into
    ``x.ravel()``, as NumPy gives it): a loop carrying the best position so far, which a later
    entry takes only where it is strictly better. An integer, with no derivative."""
    called = f"np.{'argmax' if largest else 'argmin'}"
    if len(args) > 1 or any(a.keyword is not None and a.keyword.value != "axis" for a in node.args):
        raise lw.fail(node, f"{called} is supported of all the entries, or along one axis (axis=k)",
                      hint="take it of each row in a loop over the rows")
    if keyword_arg(node, "axis") is not None:
        x = lw.array(args[0], b, env)
        return _arg_extreme_along(lw, node, x, _axis(lw, node, x.type.rank), b, largest)  # type: ignore[arg-type]
    flat = flattened(lw, node, args[0], b, env)
    lw.at(b, node)
    elem = flat.type.elem  # type: ignore[attr-defined]
    first = build.const(b, 0, I64)  # (made before the loop that carries it)
    loop = fill_loop(b, b.op1("dim", [flat], I64, axis=0), lambda bb, k: None)
    body = loop.regions[0]

    def better(best: Value) -> Value:
        bb = Builder(body, b.loc).before_op(body.terminator)
        k = body.args[0]
        v, held = bb.op1("load", [flat, k], elem), bb.op1("load", [flat, best], elem)
        return build.select(bb, build.cmp(bb, "gt" if largest else "lt", v, held), k, best)

    return add_carried(loop, first, better, "best")


def _arg_extreme_along(lw: "ExprLowerer", node: cst.Call, x: Value, axis: int, b: Builder, largest: bool) -> Value:
    """``np.argmax(x, axis=k)`` (``np.argmin``): for each position of the other axes, the index
    along ``k`` of the first largest (smallest) entry, as ``arg_extreme`` finds it in a vector:
    an integer array of ``x``'s shape without axis ``k``."""
    rank = x.type.rank  # type: ignore[attr-defined]
    elem = x.type.elem  # type: ignore[attr-defined]
    lw.at(b, node)
    dims = [b.op1("dim", [x], I64, axis=k) for k in range(rank)]
    out = b.op1("alloc", [d for k, d in enumerate(dims) if k != axis], ArrayType(I64, rank - 1), fill="empty",
                elem=I64.name)

    def along(bb: Builder, index: list[Value]) -> None:
        first = build.const(bb, 0, I64)
        loop = fill_loop(bb, dims[axis], lambda b2, k: None)
        body = loop.regions[0]

        def better(best: Value) -> Value:
            b3 = Builder(body, bb.loc).before_op(body.terminator)
            k = body.args[0]
            v = b3.op1("load", [x, *index[:axis], k, *index[axis:]], elem)
            held = b3.op1("load", [x, *index[:axis], best, *index[axis:]], elem)
            return build.select(b3, build.cmp(b3, "gt" if largest else "lt", v, held), k, best)

        bb.create("store", [out, *index, add_carried(loop, first, better, "best")], [])

    each_element(b, out, along)
    return out


def nonzero_positions(lw: "ExprLowerer", node: cst.CSTNode, arr: Value, axis: int, b: Builder) -> Value:
    """``np.nonzero(a)[axis]`` (``np.where(a)[axis]``; ``np.flatnonzero(a)`` of a vector): the
    position along ``axis`` of each entry of ``a`` that is not 0 (True), in C order. The mask
    of those entries picks them from an array of positions (``np.arange(n)[a != 0]`` of a
    vector): integers, with no derivative."""
    rank = arr.type.rank  # type: ignore[attr-defined]
    if axis >= rank:
        raise lw.fail(node, f"np.nonzero of a {rank}-D array gives {rank} array{'s' if rank > 1 else ''} of "
                      f"positions, not {axis + 1}", hint=f"take one of its first {rank}")
    mask = arr
    if arr.type.elem != BOOL:  # type: ignore[attr-defined]
        mask = compare(lw, "ne", arr, lw.const(b, node, 0, arr.type.elem), b, node)  # type: ignore[attr-defined]
    lw.at(b, node)
    dims = [b.op1("dim", [arr], I64, axis=k) for k in range(rank)]
    places = b.op1("alloc", dims, ArrayType(I64, rank), fill="empty", elem=I64.name)
    each_element(b, places, lambda bb, index: bb.create("store", [places, *index, index[axis]], []))
    return arr_op(lw, b, node, "mask", [places, mask])


def cross(lw: "ExprLowerer", node: cst.Call, a: Value, c: Value, b: Builder) -> Value:
    """``np.cross(a, c)`` of two 3-vectors, or row by row of two arrays of 3-vectors (``(n, 3)``):
    a new array each of whose vectors a loop fills with the components' products, as the
    definition writes them (so the adjoint is the loop's)."""
    ranks = (a.type.rank, c.type.rank)  # type: ignore[attr-defined]
    if ranks not in ((1, 1), (2, 2)) or any(a.keyword is not None for a in node.args):
        raise lw.fail(node, "np.cross is supported of two 3-vectors, or of two arrays of them row by row (n, 3), "
                      "without axis arguments", hint="write the components of the cross product out")
    lw.at(b, node)
    rows = b.op1("dim", [a], I64, axis=0) if ranks[0] == 2 else None
    three = build.const(b, 3, I64)
    out = b.op1("alloc", [rows, three] if rows is not None else [three], ArrayType(F64, ranks[0]),
                fill="empty", elem=F64.name)

    def vector(bb: Builder, row: list[Value]) -> None:
        def at(arr: Value, k: int) -> Value:
            x = bb.op1("load", [arr, *row, build.const(bb, k, I64)], arr.type.elem)  # type: ignore[attr-defined]
            return build.to_float(bb, x)
        for k in range(3):
            i, j = (k + 1) % 3, (k + 2) % 3
            v = build.sub(bb, build.mul(bb, at(a, i), at(c, j)), build.mul(bb, at(a, j), at(c, i)))
            bb.create("store", [out, *row, build.const(bb, k, I64), v], [])

    if rows is None:
        vector(b, [])
    else:
        fill_loop(b, rows, lambda bb, r: vector(bb, [r]))
    return out


def polyval(lw: "ExprLowerer", node: cst.Call, coef: Value, x: Value, b: Builder) -> Value:
    """``np.polyval(c, x)``: the polynomial with coefficients ``c`` (highest power first) at ``x``
    (a number or an array), by Horner's rule, a loop over the coefficients: ``y = y * x + c[k]``
    (a number carried by the loop, or an array of ``x``'s shape filled again each time)."""
    if coef.type.rank != 1 or any(a.keyword is not None for a in node.args):  # type: ignore[attr-defined]
        raise lw.fail(node, "np.polyval is supported of a vector of coefficients and a number or an array",
                      hint="write the polynomial as a loop over the coefficients")
    lw.at(b, node)
    count = b.op1("dim", [coef], I64, axis=0)
    if not x.type.is_array:
        x = build.to_float(b, lw.to_number(b, node, x))
        zero = build.const(b, 0.0, F64)  # (made before the loop that carries it)
        loop = fill_loop(b, count, lambda bb, k: None)
        body = loop.regions[0]

        def horner(y: Value) -> Value:
            bb = Builder(body, b.loc).before_op(body.terminator)
            c = build.to_float(bb, bb.op1("load", [coef, body.args[0]], coef.type.elem))  # type: ignore[attr-defined]
            return build.add(bb, build.mul(bb, y, x), c)

        return add_carried(loop, zero, horner, "value")
    rank = x.type.rank  # type: ignore[attr-defined]
    dims = [b.op1("dim", [x], I64, axis=a) for a in range(rank)]
    y = b.op1("alloc", dims, ArrayType(F64, rank), fill="zeros", elem=F64.name)

    def step(bb: Builder, k: Value) -> None:
        c = build.to_float(bb, bb.op1("load", [coef, k], coef.type.elem))  # type: ignore[attr-defined]
        copy_into(bb, y, bb.op1(array_ops.PREFIX + "add", [bb.op1(array_ops.PREFIX + "mul", [y, x], x.type), c],
                                x.type))

    fill_loop(b, count, step)
    return y


def cumsum(lw: "ExprLowerer", node: cst.Call, arr: Value, b: Builder) -> Value:
    """``np.cumsum(x)`` of a vector, ``np.cumsum(A, axis=k)`` of a matrix: running sums along the axis."""
    rank = arr.type.rank  # type: ignore[attr-defined]
    axis = _axis(lw, node, rank)
    if axis is None and rank != 1:
        raise lw.fail(node, "np.cumsum of a matrix without axis= (the running sum of its flattened entries) is "
                      "not supported", hint="give the axis: np.cumsum(A, axis=0), or reshape it first")
    return arr_op(lw, b, node, "cumsum", [arr], {"axis": axis or 0})


def each_element(b: Builder, arr: Value, body: Callable[[Builder, list[Value]], None],
                 index: Optional[list[Value]] = None) -> None:
    """Loops over every element of ``arr`` (row-major), running ``body`` with its index."""
    index = index or []
    rank = arr.type.rank  # type: ignore[attr-defined]
    if len(index) == rank:
        body(b, index)
        return
    block = Block([I64], ["k"])
    inner = Builder(block, b.loc)
    each_element(inner, arr, body, index + [block.args[0]])
    inner.create("yield", [], [])
    n = b.op1("dim", [arr], I64, axis=len(index))
    b.create("for", [build.const(b, 0, I64), n, build.const(b, 1, I64)], [], regions=[block])


def same_extent(x: Value, y: Value, axis: int) -> bool:
    """Whether two arrays evidently have the same extent along ``axis``: the same array, or
    allocated with the same extent (a constant, a value, or the extent of an array, followed to
    where that array is allocated)."""
    if x is y:
        return True

    def extent(v: Value) -> object:
        op = v.defining_op
        e = op.operands[axis] if op is not None and op.name == "alloc" else None
        while e is not None and e.defining_op is not None and e.defining_op.name == "dim":
            d = e.defining_op
            src = d.operands[0].defining_op
            if src is None or src.name != "alloc":
                return (d.operands[0], d.attrs["axis"])
            e = src.operands[d.attrs["axis"]]
        c = build.const_value(e) if e is not None else None
        return ("const", c) if c is not None else e
    ex = extent(x)
    return ex is not None and ex == extent(y)


def copied(lw: "ExprLowerer", b: Builder, node: cst.CSTNode, arr: Value, elem: Optional[ScalarType] = None) -> Value:
    """``np.array(x)`` of an array: a new array of the same shape and elements, allocated and
    filled element by element, so that it may be written and is differentiated as any local;
    of ``elem`` where given (``x.astype(float)``: each element converted as NumPy converts it)."""
    t = arr.type
    assert isinstance(t, ArrayType)
    elem = elem or t.elem
    lw.at(b, node)
    dims = [b.op1("dim", [arr], I64, axis=k) for k in range(t.rank)]
    out = b.op1("alloc", dims, ArrayType(elem, t.rank), fill="empty", elem=elem.name)

    def put(bb: Builder, index: list[Value]) -> None:
        x = bb.op1("load", [arr, *index], t.elem)
        bb.create("store", [out, *index, x if elem == t.elem else build.cast(bb, x, elem)], [])
    each_element(b, arr, put)
    return out


def is_array(t: Type) -> bool:
    return isinstance(t, ArrayType)


def _triangle_index(lw: "ExprLowerer", index: object) -> bool:
    """``np.triu_indices(...)`` or ``np.tril_indices(...)`` used whole as an index (NumPy's tuple)."""
    return isinstance(index, cst.Call) and lw.ctx.info.canonical_name(index.func, lw.ctx.locals) in lib.TRIANGLE_INDICES


def assign_at_indices(lw: "ExprLowerer", node: cst.Subscript, arr: Value, indices: list, value: Value,
                      op: Optional[str], b: Builder, env: Env, vnode: cst.CSTNode) -> bool:
    """``a[idx0, idx1] = v`` with integer arrays among the indices, one index per axis
    (``m[np.arange(n), y] = 0``, ``probs[np.arange(n), y] -= 1.0``, ``L[np.tril_indices(d)] = p``):
    NumPy's assignment at those elements, as a loop storing element ``e`` of the value at the
    ``e``-th indices, in order, so that where indices repeat the last store stays, as in NumPy; with
    ``op``, the value is first computed whole from the elements read (``a[idx] - v``), as NumPy
    buffers it. False where no index is an integer array (other code assigns the part)."""
    if len(indices) == 1 and _triangle_index(lw, indices[0]):  # L[np.tril_indices(d)]: its two rows
        pair = lw.value(indices[0], b, env)
        lw.at(b, node)
        zero = build.const(b, 0, I64)
        width = b.op1("dim", [pair], I64, axis=1)
        picked = [arr_op(lw, b, node, "slice", [pair, build.const(b, k, I64), zero, width], {"axes": ["i", "r"]})
                  for k in range(2)]
    else:
        if any(isinstance(i, (cst.Slice, cst.Ellipsis)) for i in indices) or not any(
                isinstance(i, cst.Call) or lw.is_array_index(i, env)
                or (isinstance(i, cst.Name) and isinstance(env.get(i.value), Value) and env[i.value].type.is_array)
                for i in indices):
            return False
        picked = [lw.value(i, b, env) if isinstance(i, (cst.Name, cst.Call)) or lw.is_array_index(i, env)
                  else lw.index(i, b, env, arr, k) for k, i in enumerate(indices)]
    rank = arr.type.rank  # type: ignore[attr-defined]
    arrays = [v for v in picked if isinstance(v.type, ArrayType)]
    if len(picked) != rank or not arrays:
        return False
    if any(v.type.rank != 1 or not v.type.elem.is_int for v in arrays):  # type: ignore[attr-defined]
        raise lw.fail(node, "assigning at index arrays is supported with integer vectors, one index per axis",
                      hint="index every axis with a vector of integers (or an integer)")
    elem = arr.type.elem  # type: ignore[attr-defined]
    if op is not None:  # a[idx] -= v: NumPy computes a[idx] - v whole, then stores it
        n = lw.at(b, node).op1("dim", [arrays[0]], I64, axis=0)
        current = arr_op(lw, b, node, "take", [arr, *[v if v.type.is_array else arr_op(lw, b, node, "full", [n, v])
                                                      for v in picked]])
        value = elementwise(lw, op, current, value, b, vnode)
    if value.type.is_array and value.type.rank > 1:  # type: ignore[attr-defined]
        raise lw.fail(vnode, "this value has more dimensions than the elements it is assigned to",
                      hint="assign a number or a vector of one value per index")
    if not value.type.is_array:
        value = lw.coerce(value, elem, b, vnode, "an element of the array")
    lw.at(b, node)
    count = b.op1("dim", [arrays[0]], I64, axis=0)

    def store(bb: Builder, e: Value) -> None:
        at = [lw.from_end(bb, node, bb.op1("load", [v, e], v.type.elem), arr, axis)  # type: ignore[attr-defined]
              if v.type.is_array else v for axis, v in enumerate(picked)]
        v = value
        if value.type.is_array:
            one = build.const(bb, 1, I64)  # a value of one element stretches
            k = build.select(bb, build.cmp(bb, "eq", bb.op1("dim", [value], I64, axis=0), one),
                             build.const(bb, 0, I64), e)
            v = lw.coerce(bb.op1("load", [value, k], value.type.elem), elem, bb, vnode,  # type: ignore[attr-defined]
                          "an element of the array")
        bb.create("store", [arr, *at, v], [])

    fill_loop(b, count, store)
    return True


def check_mask_fits(lw: "ExprLowerer", node: cst.Subscript, arr: Value, mask: Value, width: int) -> None:
    """A mask indexes ``arr``'s leading axes, one per axis of the mask, and ``width - 1`` whole
    slices after it (``X[m, :]``) name axes that are there, as NumPy requires."""
    rank, mrank = arr.type.rank, mask.type.rank  # type: ignore[attr-defined]
    if mrank + width - 1 > rank:
        what = f"this mask has {mrank} dimensions" if width == 1 else \
            f"this mask and the slices after it index {mrank + width - 1} dimensions"
        raise lw.fail(node, f"{what}, more than the array's {rank}",
                      hint="index with a mask of the array's shape, or of its leading extents")


def assign_at_mask(lw: "ExprLowerer", node: cst.Subscript, arr: Value, mask: Value, value: Value,
                   op: Optional[str], b: Builder, vnode: cst.CSTNode, width: int = 1) -> None:
    """``a[mask] = v`` (or ``a[mask] op= v``) of a boolean array of ``a``'s leading extents
    (``y[x > 0.5] = 0.0``, ``y[m] = np.log(z[m])``, rows ``B[z > 0] = 0.0``): the entries (or
    rows) the mask picks, in row-major order, take ``v`` as NumPy assigns it: ``v`` broadcast
    against (picked count, the rest of ``a``'s extents), so a number or a row goes to each, and a
    vector of one per picked entry goes one after another (an axis of extent 1 stretches). Loops
    over the mask carry how many it has picked so far; an ``if`` stores where it holds, so each
    entry is stored at most once (the adjoint is any store's)."""
    rank, mrank = arr.type.rank, mask.type.rank  # type: ignore[attr-defined]
    check_mask_fits(lw, node, arr, mask, width)
    vrank = value.type.rank if value.type.is_array else 0  # type: ignore[attr-defined]
    rest = rank - mrank
    if vrank > rest + 1:
        raise lw.fail(vnode, f"this value has {vrank} dimensions, more than the {rest + 1} of the entries a mask "
                      "picks (one axis for the picked ones, then the rest of the array's)",
                      hint="assign a number, or the picked entries of an array of the same shape (z[mask])")
    elem = arr.type.elem  # type: ignore[attr-defined]
    if vrank and _reads_lazily(value, arr):
        value = copied(lw, b, vnode, value)  # (read whole before the first store, as NumPy does)
    if not vrank:
        value = lw.coerce(value, elem, b, vnode, "an element of the array")
    lw.at(b, node)
    one = build.const(b, 1, I64)
    # The value's axes stand against the last of (count, rest...); one of extent 1 is read at 0.
    stretch = [build.cmp(b, "eq", b.op1("dim", [value], I64, axis=j), one) for j in range(vrank)]
    extents = [b.op1("dim", [arr], I64, axis=k) for k in range(rank)]

    def store(bb: Builder, index: list[Value], count: Value) -> None:
        """The entry (or row) the mask picks at ``index``, the ``count``-th picked."""
        def element(eb: Builder, ks: list[Value]) -> None:
            x = value
            if vrank:
                axes = ([count] + ks)[rest + 1 - vrank:]
                x = eb.op1("load", [value, *[build.select(eb, u, build.const(eb, 0, I64), k)
                                             for u, k in zip(stretch, axes)]], value.type.elem)  # type: ignore[attr-defined]
            if op is not None:
                x = lw.arith(op, eb.op1("load", [arr, *index, *ks], elem), x, eb, vnode)
            if x.type != elem:
                x = lw.coerce(x, elem, eb, vnode, "an element of the array")
            eb.create("store", [arr, *index, *ks, x], [])
        _loops(bb, extents[mrank:], element, [])

    def level(bb: Builder, axis: int, index: list[Value], count: Value) -> Value:
        if axis == mrank:
            then, other = Block(), Block()
            tb, ob = Builder(then, bb.loc), Builder(other, bb.loc)
            store(tb, index, count)
            tb.create("yield", [build.add(tb, count, build.const(tb, 1, I64))], [])
            ob.create("yield", [count], [])
            held = bb.op1("load", [mask, *index], BOOL)
            return bb.create("if", [held], [I64], regions=[then, other], hints=["picked"]).result
        body = Block([I64, I64], ["k", "picked"])
        inner = Builder(body, bb.loc)
        inner.create("yield", [level(inner, axis + 1, index + [body.args[0]], body.args[1])], [])
        return bb.create("for", [build.const(bb, 0, I64), extents[axis], build.const(bb, 1, I64), count], [I64],
                         regions=[body], hints=["picked"]).result

    level(b, 0, [], build.const(b, 0, I64))


def _indexed(lw: "ExprLowerer", node: cst.Subscript, base: cst.BaseExpression, indices: list, b: Builder,
             env: Env) -> tuple[Value, int, list]:
    """The array ``base`` a subscript reads or writes, its rank, and ``indices`` with ``...``
    expanded to the axes it stands for; more indices than axes is a located error."""
    arr = lw.array(base, b, env)
    rank = arr.type.rank  # type: ignore[attr-defined]
    indices = expand_ellipsis(lw, node, indices, rank)
    if len(indices) > rank:
        raise lw.fail(node, f"'{dotted_source(base) or 'the array'}' has {rank} dimension(s) but is indexed "
                      f"with {len(indices)}")
    return arr, rank, indices


def logical(lw: "ExprLowerer", node: cst.BinaryOperation, x: Value, y: Value, b: Builder) -> Optional[Value]:
    """``x & y``, ``x | y``, ``x ^ y`` of boolean arrays (or a boolean array and a bool): an
    ``arr.where`` (``x & y`` is where x holds, y, else False), which the output spells with the
    operator again. None where neither is a boolean array."""
    def is_mask(v: Value) -> bool:
        return v.type == BOOL or (isinstance(v.type, ArrayType) and v.type.elem == BOOL)

    if not (x.type.is_array or y.type.is_array) or not (is_mask(x) and is_mask(y)):
        if x.type.is_array or y.type.is_array:
            raise lw.fail(node, "'&', '|' and '^' are supported on boolean arrays only (masks)",
                          hint="combine comparisons: (x > 0) & (x < 1)")
        return None
    false, true = build.const(lw.at(b, node), False, BOOL), build.const(b, True, BOOL)
    if isinstance(node.operator, cst.BitAnd):
        return arr_op(lw, b, node, "where", [x, y, false])
    if isinstance(node.operator, cst.BitOr):
        return arr_op(lw, b, node, "where", [x, true, y])
    return arr_op(lw, b, node, "where", [x, logical_not(lw, node, y, b), y])


def logical_not(lw: "ExprLowerer", node: cst.CSTNode, x: Value, b: Builder) -> Value:
    """``~mask``: where the mask holds, False, else True."""
    false, true = build.const(lw.at(b, node), False, BOOL), build.const(b, True, BOOL)
    return arr_op(lw, b, node, "where", [x, false, true])


# NumPy's sort kinds: a stable one orders equal entries as they come, one order, however it is
# computed; the others (its default, "quicksort", an introsort) order them as NumPy's code does.
STABLE_SORTS = ("stable", "mergesort")
UNSTABLE_SORTS = ("quicksort", "heapsort")


def argsort(lw: "ExprLowerer", node: cst.Call, x: Value, b: Builder) -> Value:
    """``np.argsort(x)``, ``x.argsort(kind="stable")``: the positions that sort the vector ``x``
    (``arr.argsort``), an integer array with no derivative, whose uses (``w[order]``) are
    differentiated as they read. The kind goes with the op: where entries are equal, their order
    is the primal's only if the gradient sorts as the primal does (``arr.argsort``'s ``kind``)."""
    if x.type.rank != 1:  # type: ignore[attr-defined]
        raise lw.fail(node, "np.argsort is supported of a vector, without axis=",
                      hint="sort each row in a loop over the rows")
    kind_node = keyword_arg(node, "kind")
    kind = "quicksort"  # NumPy's default
    if kind_node is not None:
        kind = kind_node.evaluated_value if isinstance(kind_node, cst.SimpleString) else None  # type: ignore
        if kind not in STABLE_SORTS + UNSTABLE_SORTS:
            raise lw.fail(kind_node, "np.argsort's kind is one of NumPy's, written as a string",
                          hint='kind="stable" (equal entries in the order they come), or leave it out')
    attrs = {} if kind in STABLE_SORTS else {"kind": kind}
    return arr_op(lw, b, node, "argsort", [x], attrs)


def gather(lw: "ExprLowerer", node: cst.Subscript, base: cst.BaseExpression, indices: list, b: Builder,
           env: Env) -> Optional[Value]:
    """``a[i, j]`` with an integer array among the indices (``logp[np.arange(n), labels]``): one
    ``arr.take``, NumPy's integer-array indexing with an index per axis, a number among them
    standing for an array of it; with indices for the leading axes only (``X[idx]``,
    ``X[idx, :]``: rows), the other axes whole. None where no index is an array (an element,
    after all)."""
    arr = lw.array(base, b, env)
    rank = arr.type.rank  # type: ignore[attr-defined]
    indices = list(indices)
    while indices and is_whole_slice(indices[-1]):  # X[idx, :]: as X[idx]
        indices.pop()
    if not 0 < len(indices) <= rank or any(isinstance(i, (cst.Slice, cst.Ellipsis)) for i in indices):
        return None
    values: list[Value] = []
    for k, i in enumerate(indices):
        v = lw.value(i, b, env) if isinstance(i, (cst.Name, cst.Call)) or lw.is_array_index(i, env) \
            else lw.index(i, b, env, arr, k)
        if isinstance(v.type, ArrayType) and not v.type.elem.is_int:
            raise lw.fail(i, "an index array must hold integers",
                          hint=integer_array_hint(i))
        values.append(v)
    arrays = [v for v in values if isinstance(v.type, ArrayType)]
    if not arrays:
        return None
    if len({v.type.rank for v in arrays}) > 1:  # type: ignore[attr-defined]
        raise lw.fail(node, "integer index arrays of different ranks are not supported here",
                      hint="index with arrays of one shape (np.arange(n) beside labels of n items)")
    first = arrays[0]
    dims = [lw.at(b, node).op1("dim", [first], I64, axis=a) for a in range(first.type.rank)]  # type: ignore
    for k, v in enumerate(values):
        if not isinstance(v.type, ArrayType):  # A[labels, 0]: the 0 for every index
            if v.type != I64:
                v = build.cast(lw.at(b, node), v, I64)
            values[k] = arr_op(lw, b, node, "full", [*dims, v])
    return arr_op(lw, b, node, "take", [arr, *values])


def add_at(lw: "ExprLowerer", node: cst.Call, b: Builder, env: Env) -> None:
    """``np.add.at(a, idx, v)`` (``idx`` an integer array, or a tuple of them for the leading
    axes): ``a[idx[e]] += v[e]`` for every ``e``, repeated indices adding up, unlike
    ``a[idx] += v``. One ``arr.accum_take`` into ``a``; ``v`` a number (added at every index)
    or an array of the shape the indices pick."""
    args = positional_args(node)
    if len(args) != 3 or len(node.args) != 3:
        raise lw.fail(node, "np.add.at takes three arguments: np.add.at(a, indices, values)")
    dst = lw.array(args[0], b, env)
    if not isinstance(dst.type, ArrayType) or not dst.type.elem.is_float:
        raise lw.fail(args[0], "np.add.at adds into an array of floats here",
                      hint="pass the array to add into, np.zeros(n) or a parameter")
    nodes = [e.value for e in args[1].elements] if isinstance(args[1], cst.Tuple) else [args[1]]
    indices = [lw.value(i, b, env) for i in nodes]
    for i, v in zip(nodes, indices):
        if not isinstance(v.type, ArrayType) or not v.type.elem.is_int:
            raise lw.fail(i, "np.add.at's indices here are arrays of integers", hint=integer_array_hint(i))
    ranks = {v.type.rank for v in indices}  # type: ignore[attr-defined]
    if len(ranks) > 1 or len(indices) > dst.type.rank:
        raise lw.fail(args[1], "np.add.at's indices are index arrays of one shape, one per leading axis of "
                      f"'{dotted_source(args[0]) or 'a'}' at most")
    first = indices[0]
    at = lw.at(b, node)
    picked = [at.op1("dim", [first], I64, axis=a) for a in range(first.type.rank)]  # type: ignore[attr-defined]
    picked += [at.op1("dim", [dst], I64, axis=a) for a in range(len(indices), dst.type.rank)]
    v = lw.value(args[2], b, env)
    if not isinstance(v.type, ArrayType):
        v = arr_op(lw, b, args[2], "full", [*picked, build.to_float(lw.at(b, args[2]), v)])
    elif v.type.rank != len(picked):
        raise lw.fail(args[2], f"np.add.at's values here are an array of rank {len(picked)}, one value per index "
                      "(or a number)", hint="pass the values of the shape the indices pick")
    elif v.type.elem != dst.type.elem:
        raise lw.fail(args[2], f"np.add.at's values here are {v.type.elem} numbers, added into {dst.type.elem} ones",
                      hint=f"convert them first: .astype(np.{'float64' if dst.type.elem == F64 else 'float32'})")
    at.create(SCATTER_ADD, [dst, *indices, v], [])


def bincount(lw: "ExprLowerer", node: cst.Call, b: Builder, env: Env) -> Value:
    """``np.bincount(idx, weights=w, minlength=m)``: an array of ``max(m, max(idx) + 1)`` zeros
    (``m`` where ``idx`` is empty) into which each weight is added at its index, as ``np.add.at``
    adds (``add_at``); without weights, the counts (integers: no derivative flows through them).
    A negative index, which NumPy refuses, is not checked."""
    args = positional_args(node)
    unknown = [a for a in node.args if a.keyword is not None and a.keyword.value not in ("weights", "minlength")]
    if not 1 <= len(args) <= 3 or unknown:
        raise lw.fail(node, "np.bincount takes the indices, the weights and minlength",
                      hint="np.bincount(idx, weights=w, minlength=m)")
    idx = lw.value(args[0], b, env)
    if not isinstance(idx.type, ArrayType) or idx.type.rank != 1 or not idx.type.elem.is_int:
        raise lw.fail(args[0], "np.bincount counts a vector of integers", hint=integer_array_hint(args[0]))
    at = lw.at(b, node)
    count = at.op1("dim", [idx], I64, axis=0)
    weights_node, least = bincount_args(node)
    m = build.const(at, 0, I64) if least is None else lw.coerce(lw.value(least, b, env), I64, at, least, "minlength")
    zero = build.const(at, 0, I64)
    top = lw.if_value(b, node, at.op1("gt", [count, zero], BOOL),
                      lambda tb: build.add(tb, arr_op(lw, tb, node, "max", [idx]), build.const(tb, 1, I64)),
                      lambda eb: build.const(eb, 0, I64))
    length = build.select(at, at.op1("gt", [top, m], BOOL), top, m)
    elem = F64 if weights_node is not None else I64
    out = at.op1("alloc", [length], ArrayType(elem, 1), "", fill="zeros", elem=elem.name)
    if weights_node is None:
        v = arr_op(lw, b, node, "full", [count, build.const(at, 1, I64)])
    else:
        v = lw.value(weights_node, b, env)
        if not isinstance(v.type, ArrayType) or v.type.rank != 1:
            raise lw.fail(weights_node, "np.bincount's weights here are a vector, one weight per index")
        if v.type.elem != F64:
            v = arr_op(lw, b, weights_node, "mul", [v, build.const(at, 1.0, F64)])
    at.create(SCATTER_ADD, [out, idx, v], [])
    return out


def slice_(lw: "ExprLowerer", node: cst.Subscript, base: cst.BaseExpression, indices: list,
           b: Builder, env: Env) -> Value:
    """``a[lo:hi]``, ``a[:, j]``, ``a[1:-1, 1:-1]``, ``A[i]`` (a row): one ``arr.slice``."""
    arr, rank, indices = _indexed(lw, node, base, indices, b, env)
    return _sliced(lw, node, arr, rank, indices, b, env)


def _sliced(lw: "ExprLowerer", node: cst.CSTNode, arr: Value, rank: int, indices: list, b: Builder,
            env: Env, at: Optional[cst.CSTNode] = None) -> Value:
    """``arr`` (of ``rank`` axes) at ``indices``, integers and slices, one per leading axis (``at``:
    where slices s2sad wrote stand)."""
    if rank == 2 and any(isinstance(i, cst.Slice) and i.step is not None for i in indices):
        return _stepped_matrix(lw, node, arr, indices, b, env, at)
    axes: list[str] = []
    bounds: list[Value] = []
    for k in range(rank):
        idx = indices[k] if k < len(indices) else None
        if idx is not None and not isinstance(idx, cst.Slice):
            axes.append("i")
            bounds.append(lw.index(idx, b, env, arr, k))
            continue
        if idx is not None and idx.step is not None:
            if rank != 1:
                raise lw.fail(idx, "slices with a step are supported on vectors and matrices only",
                              hint="use a loop over the elements")
            picked = arr_op(lw, b, node, "take", [arr, stepped_indices(lw, idx, arr, b, env)])
            picked.defining_op.attrs[STEPPED_VIEW] = True  # (is_view)
            return picked
        axes.append("r")
        lower = idx.lower if idx is not None else None
        upper = idx.upper if idx is not None else None
        bounds.append(_bound(lw, lower, arr, k, b, env, node) if lower is not None
                      else lw.const(b, node, 0, I64))
        bounds.append(_bound(lw, upper, arr, k, b, env, node) if upper is not None
                      else lw.at(b, node).op1("dim", [arr], I64, axis=k))
    return arr_op(lw, b, node, "slice", [arr, *bounds], {"axes": axes})


def flipped(lw: "ExprLowerer", node: cst.Call, x: Value, b: Builder, env: Env) -> Value:
    """``np.flip(x)``: every axis of the vector or matrix ``x`` reversed, ``x[::-1]`` or
    ``x[::-1, ::-1]``."""
    rank = x.type.rank  # type: ignore[attr-defined]
    if rank not in (1, 2):
        raise lw.fail(node, f"np.flip of an array of {rank} axes needs axis=", hint="flip one axis at a time: "
                      "np.flip(x, axis=0)")
    reverse = cst.Slice(lower=None, upper=None, step=cst.UnaryOperation(cst.Minus(), cst.Integer("1")))
    if rank == 1:
        picked = arr_op(lw, b, node, "take", [x, stepped_indices(lw, reverse, x, b, env, at=node)])
        picked.defining_op.attrs[STEPPED_VIEW] = True  # (is_view)
        return picked
    return _stepped_matrix(lw, node, x, [reverse, reverse], b, env, at=node)


def _stepped_matrix(lw: "ExprLowerer", node: cst.CSTNode, arr: Value, indices: list, b: Builder,
                    env: Env, at: Optional[cst.CSTNode] = None) -> Value:
    """``A[::-1]``, ``A[:, ::2]``, ``A[1:, ::-1]`` of a matrix: the rows a step picks (a gather,
    ``arr.take``, as for a vector), and the columns as the rows of the transpose; the other
    axis's index then read from that."""
    first, second = (list(indices) + [None, None])[:2]
    whole = cst.Slice(lower=None, upper=None)
    if isinstance(first, cst.Slice) and first.step is not None:
        rows = arr_op(lw, b, node, "take", [arr, stepped_indices(lw, first, arr, b, env, at=at)])
        picked, rest = rows, [whole, second]
    else:
        turned = arr_op(lw, b, node, "transpose", [arr])
        columns = arr_op(lw, b, node, "take", [turned, stepped_indices(lw, second, turned, b, env, at=at)])
        picked, rest = arr_op(lw, b, node, "transpose", [columns]), [first, whole]
    picked.defining_op.attrs[STEPPED_VIEW] = True  # (is_view)
    if all(i is None or is_whole_slice(i) for i in rest):
        return picked
    return _sliced(lw, node, picked, 2, rest, b, env, at)


def new_axes(lw: "ExprLowerer", node: cst.Subscript, base: cst.BaseExpression, indices: list, b: Builder,
             env: Env) -> Value:
    """``x[:, None]``, ``x[None]``, ``X[:, None, :]``, ``A[i, :, None]``: the part the other indices
    pick, reshaped with an axis of extent 1 where each ``None`` stands (a view, as NumPy's). Its
    unit axes are known (``array_ops.shape_unit_axes``), so the adjoint of what broadcasts it
    (``x[:, None] - x[None, :]``) sums over them."""
    arr = lw.array(base, b, env)
    rank = arr.type.rank  # type: ignore[attr-defined]
    named = sum(1 for i in indices if not is_new_axis(i) and not isinstance(i, cst.Ellipsis))
    if sum(1 for i in indices if isinstance(i, cst.Ellipsis)) > 1:
        raise lw.fail(node, "an index can only have a single ellipsis ('...')")
    full: list = []
    for i in indices:  # '...' as the whole of each axis the other indices leave
        full += [cst.Slice(lower=None, upper=None)] * max(0, rank - named) if isinstance(i, cst.Ellipsis) else [i]
    real = [i for i in full if not is_new_axis(i)]
    if len(real) > rank:
        raise lw.fail(node, f"'{dotted_source(base) or 'the array'}' has {rank} dimension(s) but is indexed "
                      f"with {len(real)}")
    if len(real) == rank and not any(isinstance(i, cst.Slice) for i in real):
        raise lw.fail(node, "a new axis (None, np.newaxis) after indexing a single element is not supported",
                      hint="index a slice (x[i:i + 1, None]) or make the array with np.full((1, 1), x[i, j])")
    whole = all(is_whole_slice(i) for i in real)
    part = arr if whole else slice_(lw, node, base, real, b, env)  # (x[:, None]: x itself, reshaped)
    lw.at(b, node)
    dims: list[Value] = []
    axis = 0
    for i in full:
        if is_new_axis(i):
            dims.append(build.const(b, 1, I64))
        elif isinstance(i, cst.Slice):
            dims.append(b.op1("dim", [part], I64, axis=axis))
            axis += 1
    while axis < part.type.rank:  # type: ignore[attr-defined]
        dims.append(b.op1("dim", [part], I64, axis=axis))
        axis += 1
    return arr_op(lw, b, node, "reshape", [part, *dims])


def made_array(lw: "ExprLowerer", op: str, node: cst.Call, args: list, b: Builder, env: Env) -> Value:
    """``np.arange(...)``, ``np.linspace(a, b, num)``, ``np.eye(n)``: a new array filled by a loop
    as NumPy computes it, so linspace's values are arithmetic of ``a`` and ``b`` (their adjoints
    follow) and arange's of its start and step: ``start + k * step`` for ``k`` below
    ``ceil((stop - start) / step)``; linspace's step ``(b - a) / (num - 1)`` (``/ num`` with
    ``endpoint=False``) and its last value ``b`` itself."""
    lw.at(b, node)
    zero, one = build.const(b, 0, I64), build.const(b, 1, I64)
    if op in ("triu_indices", "tril_indices"):
        return triangle_indices(lw, op == "triu_indices", node, args, b, env)
    if op == "eye":
        n = lw.integer(args[0], b, env, "the size of np.eye")
        dtype = keyword_arg(node, "dtype")
        name = lw.ctx.info.canonical_name(dtype, lw.ctx.locals) if dtype is not None else None
        elem = BOOL if name in lib.BOOL_NAMES else I64 if name in lib.INT_NAMES else F64  # dtype=bool: a mask
        one = True if elem == BOOL else 1 if elem.is_int else 1.0
        k = diagonal_offset(lw, node)
        m_node = keyword_arg(node, "M") or (args[1] if len(args) > 1 else None)
        if m_node is not None and not (isinstance(m_node, cst.Name) and m_node.value == "None"):
            m = lw.integer(m_node, b, env, "the number of columns of np.eye")
        else:
            m = n
        lw.at(b, node)
        out = b.op1("alloc", [n, m], ArrayType(elem, 2), fill="zeros", elem=elem.name)
        if not k and m is n:
            fill_loop(b, n, lambda bb, k: bb.create("store", [out, k, k, build.const(bb, one, elem)], []))
            return out
        # np.eye(n, m, k): ones at (i, i + k), on the rows and columns there are
        row, col = max(0, -k), max(0, k)
        count = build.math(b, "max", build.math(b, "min", build.sub(b, n, build.const(b, row, I64)),
                                                 build.sub(b, m, build.const(b, col, I64))), zero)
        fill_loop(b, count, lambda bb, i: bb.create("store", [
            out, build.add(bb, i, build.const(bb, row, I64)), build.add(bb, i, build.const(bb, col, I64)),
            build.const(bb, one, elem)], []))
        return out
    if op == "arange":
        values = [lw.scalar(a, b, env) for a in args]
        lw.at(b, node)
        start, stop, step = ([zero, values[0], one] if len(values) == 1 else [*values, one] if len(values) == 2
                             else values)
        elem = I64 if all(v.type.is_int for v in (start, stop, step)) else F64
        if elem is I64 and build.const_int(step) == 1:
            count = build.sub(b, stop, start)
        else:
            span = build.binary(b, "div", build.to_float(b, build.sub(b, stop, start)), build.to_float(b, step))
            count = build.cast(b, build.math(b, "ceil", span), I64)
        count = build.select(b, build.cmp(b, "lt", count, zero), zero, count)
        out = b.op1("alloc", [count], ArrayType(elem, 1), fill="empty", elem=elem.name)

        def ramp(bb: Builder, k: Value) -> None:
            kk = k if elem is I64 else build.cast(bb, k, F64)
            v = build.add(bb, _as(bb, start, elem), build.mul(bb, kk, _as(bb, step, elem)))
            bb.create("store", [out, k, v], [])
        fill_loop(b, count, ramp)
        return out
    a, c = (build.to_float(b, lw.scalar(x, b, env)) for x in args[:2])
    num_node = args[2] if len(args) > 2 else keyword_arg(node, "num")
    num = lw.integer(num_node, b, env, "np.linspace's num") if num_node is not None else build.const(b, 50, I64)
    endpoint_node = keyword_arg(node, "endpoint")
    endpoint = True
    if endpoint_node is not None:
        if not (isinstance(endpoint_node, cst.Name) and endpoint_node.value in ("True", "False")):
            raise lw.fail(endpoint_node, "endpoint= must be True or False")
        endpoint = endpoint_node.value == "True"
    lw.at(b, node)
    num = build.select(b, build.cmp(b, "lt", num, zero), zero, num)
    div = build.sub(b, num, one) if endpoint else num
    step = build.binary(b, "div", build.sub(b, c, a), build.cast(b, build.select(
        b, build.cmp(b, "lt", div, one), one, div), F64))
    out = b.op1("alloc", [num], ArrayType(F64, 1), fill="empty", elem=F64.name)

    def spaced(bb: Builder, k: Value) -> None:
        v = build.add(bb, a, build.mul(bb, build.cast(bb, k, F64), step))
        if endpoint:  # the last value is b itself (not a + (num - 1) * step), as NumPy sets it
            last = bb.op1("and", [build.cmp(bb, "eq", k, build.sub(bb, num, one)),
                                  build.cmp(bb, "gt", num, one)], BOOL)
            v = build.select(bb, last, c, v)
        bb.create("store", [out, k, v], [])
    fill_loop(b, num, spaced)
    return out


def triangle_indices(lw: "ExprLowerer", upper: bool, node: cst.Call, args: list, b: Builder, env: Env) -> Value:
    """``np.triu_indices(n, k=0, m=n)`` (``np.tril_indices``): the row and the column of each
    element of an ``n`` by ``m`` array on or above (below) its ``k``-th diagonal, row by row, as
    NumPy orders them: a 2-row integer array, which ``i, j = ...`` unpacks as NumPy's tuple.
    Row ``r`` holds the columns ``max(r + k, 0) .. m - 1`` (``0 .. min(r + k, m - 1)``)."""
    def argument(position: int, name: str) -> Optional[Value]:
        given = args[position] if len(args) > position else keyword_arg(node, name)
        return lw.integer(given, b, env, f"{'np.triu_indices' if upper else 'np.tril_indices'}'s {name}") \
            if given is not None else None
    n = argument(0, "n")
    k = argument(1, "k")
    m = argument(2, "m")
    lw.at(b, node)
    assert n is not None
    zero, one = build.const(b, 0, I64), build.const(b, 1, I64)
    k = k if k is not None else zero
    m = m if m is not None else n

    def clamp(bb: Builder, v: Value, lo: Value, hi: Value) -> Value:
        v = build.select(bb, build.cmp(bb, "lt", v, lo), lo, v)
        return build.select(bb, build.cmp(bb, "lt", hi, v), hi, v)

    def columns(bb: Builder, r: Value) -> tuple[Value, Value]:
        """Row ``r``'s first column and the end of its columns, within 0 .. m."""
        edge = build.add(bb, r, k)
        if upper:
            return clamp(bb, edge, zero, m), m
        return zero, clamp(bb, build.add(bb, edge, one), zero, m)

    rows = build.select(b, build.cmp(b, "lt", n, zero), zero, n)
    m = build.select(b, build.cmp(b, "lt", m, zero), zero, m)

    def clamped_sum(shift: Value) -> Value:
        """The sum over the rows r of clamp(r + shift, 0, m), in closed form (an array's size the
        C output can state once): 0 up to row lo, r + shift up to row hi, m after."""
        lo = clamp(b, build.sub(b, one, shift), zero, rows)
        hi = clamp(b, build.sub(b, m, shift), zero, rows)
        hi = build.select(b, build.cmp(b, "lt", hi, lo), lo, hi)
        ends = build.add(b, build.add(b, lo, build.sub(b, hi, one)), build.add(b, shift, shift))
        ramp = build.binary(b, "floordiv", build.mul(b, build.sub(b, hi, lo), ends), build.const(b, 2, I64))
        return build.add(b, ramp, build.mul(b, build.sub(b, rows, hi), m))

    if upper:  # each row's columns from clamp(r + k, 0, m) to m
        count = build.sub(b, build.mul(b, rows, m), clamped_sum(k))
    else:  # from 0 to clamp(r + k + 1, 0, m)
        count = clamped_sum(build.add(b, k, one))
    out = b.op1("alloc", [build.const(b, 2, I64), count], ArrayType(I64, 2), fill="empty", elem=I64.name)
    filling = fill_loop(b, rows, lambda bb, r: None)
    outer = filling.regions[0]

    def filled(position: Value) -> Value:
        bb = Builder(outer, b.loc).before_op(outer.terminator)
        r = outer.args[0]
        lo, hi = columns(bb, r)
        inner = bb.create("for", [lo, hi, build.const(bb, 1, I64)], [], regions=[Block([I64], ["c"])])
        block = inner.regions[0]
        ib = Builder(block, b.loc)
        c = block.args[0]
        at = build.add(ib, position, build.sub(ib, c, lo))
        ib.create("store", [out, build.const(ib, 0, I64), at, r], [])
        ib.create("store", [out, build.const(ib, 1, I64), at, c], [])
        ib.create("yield", [], [])
        return build.add(bb, position, build.select(bb, build.cmp(bb, "lt", lo, hi), build.sub(bb, hi, lo), zero))

    add_carried(filling, zero, filled, "position")
    return out


def _as(b: Builder, v: Value, t: ScalarType) -> Value:
    return v if v.type == t else build.cast(b, v, t)


def diagonal_offset(lw: "ExprLowerer", node: cst.Call) -> int:
    """The ``k`` of ``np.eye(n, k=1)``, ``np.diag(v, -1)``: which diagonal, an integer literal."""
    k_node = keyword_arg(node, "k")
    at = 1 if lw.ctx.info.canonical_name(node.func, lw.ctx.locals) == "numpy.diag" else 2  # np.eye(N, M, k)
    if k_node is None and len(positional_args(node)) > at:
        k_node = positional_args(node)[at]
    if k_node is None:
        return 0
    k = int_literal(k_node)
    if k is None:
        raise lw.fail(k_node, "the diagonal's offset k must be an integer literal", hint="write k=1 or k=-1")
    return k


def fill_loop(b: Builder, count: Value, body: Callable[[Builder, Value], object]) -> Op:
    """``for k in range(count): body(k)``."""
    block = Block([I64], ["k"])
    inner = Builder(block, b.loc)
    body(inner, block.args[0])
    inner.create("yield", [], [])
    return b.create("for", [build.const(b, 0, I64), count, build.const(b, 1, I64)], [], regions=[block])


def stepped_indices(lw: "ExprLowerer", idx: cst.Slice, arr: Value, b: Builder, env: Env, axis: int = 0,
                    at: Optional[cst.CSTNode] = None) -> Value:
    """The indices ``x[lo:hi:step]`` of a vector picks, in order, as Python's
    ``range(*slice(lo, hi, step).indices(len(x)))``: a new integer array, so the slice is a
    gather (``arr.take``) and its adjoint a scatter-add. The step is an integer literal. ``at``:
    where a slice s2sad wrote (``np.flip(x)``'s) stands."""
    step = int_literal(idx.step) if idx.step is not None else None
    if step is None or step == 0:
        raise lw.fail(idx.step or idx, "a slice's step must be a nonzero integer literal here",
                      hint="write x[::2] or x[::-1]")
    lw.at(b, at or idx)
    n = b.op1("dim", [arr], I64, axis=axis)
    zero, one = build.const(b, 0, I64), build.const(b, 1, I64)
    low, high = (zero, n) if step > 0 else (build.const(b, -1, I64), build.sub(b, n, one))

    def bound(node: Optional[cst.BaseExpression], default: Value) -> Value:
        if node is None:
            return default
        v = lw.integer(node, b, env, "a slice bound")
        lw.at(b, node)
        v = build.select(b, build.cmp(b, "lt", v, zero), build.add(b, v, n), v)  # from the end
        v = build.select(b, build.cmp(b, "lt", v, low), low, v)
        return build.select(b, build.cmp(b, "lt", high, v), high, v)
    start = bound(idx.lower, zero if step > 0 else high)
    stop = bound(idx.upper, n if step > 0 else low)
    lw.at(b, at or idx)
    size = abs(step)
    span = build.sub(b, stop, start) if step > 0 else build.sub(b, start, stop)
    count = build.binary(b, "floordiv", build.add(b, span, build.const(b, size - 1, I64)), build.const(b, size, I64))
    count = build.select(b, build.cmp(b, "lt", count, zero), zero, count)
    out = b.op1("alloc", [count], ArrayType(I64, 1), fill="empty", elem=I64.name)
    block = Block([I64], ["k"])
    inner = Builder(block, b.loc)
    k = block.args[0]
    inner.create("store", [out, k, build.add(inner, start, build.mul(inner, k, build.const(inner, step, I64)))], [])
    inner.create("yield", [], [])
    b.create("for", [zero, count, one], [], regions=[block])
    return out


def expand_ellipsis(lw: "ExprLowerer", node: cst.CSTNode, indices: list, rank: int) -> list:
    """``x[..., j]``, ``x[...]``: the ``...`` as the whole of each axis the other indices leave."""
    dots = [k for k, i in enumerate(indices) if isinstance(i, cst.Ellipsis)]
    if not dots:
        return indices
    if len(dots) > 1:
        raise lw.fail(node, "an index can only have a single ellipsis ('...')")
    k = dots[0]
    fill = [cst.Slice(lower=None, upper=None)] * max(0, rank - len(indices) + 1)
    return indices[:k] + fill + indices[k + 1:]


def _bound(lw: "ExprLowerer", n: cst.BaseExpression, arr: Value, axis: int, b: Builder, env: Env,
           node: cst.CSTNode) -> Value:
    lit = int_literal(n)
    if lit is not None and lit < 0:  # counts from the end, as in Python
        d = lw.at(b, n).op1("dim", [arr], I64, axis=axis)
        return build.add(b, d, build.const(b, lit, I64))
    return lw.integer(n, b, env, "a slice bound")


def squeeze(lw: "ExprLowerer", node: cst.Call, args: list, b: Builder, env: Env) -> Value:
    """``np.squeeze(x)``, ``x.squeeze()``: ``x`` without its axes of extent 1 (a reshape, a view
    as NumPy's); ``axis=`` names the axes it drops. Without it the axes dropped must be evident
    when the gradient is written (``x.reshape(1, -1)``, ``x[:, None]``, a ``keepdims`` result): the
    rank of what it gives is. Every axis dropped: the one element, a number."""
    arr = lw.array(args[0], b, env)
    rank = arr.type.rank  # type: ignore[attr-defined]
    axis_node = keyword_arg(node, "axis") or (args[1] if len(args) > 1 else None)
    dropped: set[int] = set()
    if axis_node is not None:
        for a in axis_node.elements if isinstance(axis_node, cst.Tuple) else [axis_node]:
            a = a.value if isinstance(a, cst.Element) else a
            k = int_literal(a)
            if k is None or not -rank <= k < rank:
                raise lw.fail(a, "axis= must be an integer literal naming an axis of the array" if k is None else
                              f"axis {k} is out of range for a {rank}-D array", hint="write axis=0 or axis=(0, 2)")
            dropped.add(k % rank)
    else:
        keys = [extent_key(arr, k) for k in range(rank)]
        dropped = {k for k, key in enumerate(keys) if key == ("const", 1)} | set(array_ops.shape_unit_axes(arr))
        unknown = [k for k, key in enumerate(keys) if k not in dropped
                   and not (isinstance(key, tuple) and len(key) == 2 and key[0] == "const")]
        if unknown:
            evident = sorted(dropped) or [rank - 1]
            raise lw.fail(node, f"np.squeeze drops the axes of extent 1, and whether axis {unknown[0]} of this "
                          "array has extent 1 shows only when the code runs (the rank of what it gives depends on it)",
                          hint="name the axes it drops: np.squeeze(x, axis="
                          f"{evident[0] if len(evident) == 1 else tuple(evident)})")
    lw.at(b, node)
    if len(dropped) == rank:
        zero = build.const(b, 0, I64)
        return b.op1("load", [arr, *[zero] * rank], arr.type.elem)  # type: ignore[attr-defined]
    dims = [b.op1("dim", [arr], I64, axis=k) for k in range(rank) if k not in dropped]
    return arr_op(lw, b, node, "reshape", [arr, *dims])


def flattened(lw: "ExprLowerer", node: cst.Call, arg: cst.BaseExpression, b: Builder, env: Env) -> Value:
    """The entries of the array ``arg`` in C order, as one vector: the vector itself, else
    ``arg.reshape(-1)``."""
    arr = lw.array(arg, b, env)
    if arr.type.rank == 1:  # type: ignore[attr-defined]
        return arr
    lw.at(b, node)
    total: Value = build.const(b, 1, I64)
    for k in range(arr.type.rank):  # type: ignore[attr-defined]
        total = build.mul(b, total, b.op1("dim", [arr], I64, axis=k))
    return arr_op(lw, b, node, "reshape", [arr, total])


def reshape(lw: "ExprLowerer", node: cst.Call, args: list, b: Builder, env: Env) -> Value:
    """``np.reshape(a, (m, n))``, ``a.reshape(m, n)``, ``a.reshape((m, -1))``: one -1 is inferred."""
    arr = lw.array(args[0], b, env)
    shape = args[1:]
    if len(shape) == 1 and isinstance(shape[0], (cst.Tuple, cst.List)):
        shape = [e.value for e in shape[0].elements]
    if not shape:
        raise lw.fail(node, "reshape needs the new shape")
    dims: list[Optional[Value]] = []
    for d in shape:
        dims.append(None if int_literal(d) == -1 else lw.integer(d, b, env, "an array size"))
    if dims.count(None) > 1:
        raise lw.fail(node, "only one extent of a reshape can be -1")
    if None in dims:
        lw.at(b, node)
        total: Value = build.const(b, 1, I64)
        for k in range(arr.type.rank):  # type: ignore[attr-defined]
            total = build.mul(b, total, b.op1("dim", [arr], I64, axis=k))
        known: Value = build.const(b, 1, I64)
        for d in dims:
            if d is not None:
                known = build.mul(b, known, d)
        dims[dims.index(None)] = build.binary(b, "floordiv", total, known)
    return arr_op(lw, b, node, "reshape", [arr, *dims])  # type: ignore[list-item]


# -- writing whole arrays and slices --------------------------------------------------------------
# NumPy's slice assignment (``y[1:] = x[:-1] * 2``, ``A[i] = v``, ``u[1:-1, 1:-1] += ...``) and the
# copy a name rebound in a loop makes into its array (``py_lower``) are loops of element stores, so
# the adjoint, the tapes of overwritten elements and the C lowering treat them as any store.

# On the gather a slice with a step is made as (``x[::2]``: ``arr.take`` of the indices it picks,
# a copy in the IR and in the output): NumPy's ``x[::2]`` is a view all the same, which a write into
# either array changes, so the front end's checks of writes through views count it as one.
STEPPED_VIEW = "stepped_view"


def is_view(v: Value) -> bool:
    """``v`` is a NumPy view of another array (a slice, a slice with a step, a reshape, a
    transpose): NumPy shares the memory, so a write into one is seen through the other."""
    op = v.defining_op
    return op is not None and (op.name in array_ops.VIEWS or bool(op.attrs.get(STEPPED_VIEW)))


def row_view(lw: "ExprLowerer", b: Builder, node: cst.CSTNode, v: Value) -> Optional[Value]:
    """``v`` as a view into its array's memory (IR ``view`` ops, one per leading index: what C's
    ``A[i]`` is, and one from where a tail starts: C's ``y + k``) where ``v`` is a slice that picks
    leading indices of an array the IR writes into and keeps the rest of its axes whole (``Z[i]``,
    ``T[i, j]``, a row a loop over ``Z`` takes), or the tail of a vector or of such a row from an
    index never negative on (``y[1:]``, ``Z[i, k:]``); None otherwise. Writes through such a view
    are writes into the array, and reads through it see the array's writes, as NumPy's views do."""
    op = v.defining_op
    if op is None or op.name != P + "slice":
        return None
    axes, base = op.attrs["axes"], op.operands[0]
    leading = axes.count("i")
    if is_view(base) or is_written_value(base) or axes != ["i"] * leading + ["r"] * (len(axes) - leading):
        return None
    picks, bounds, k, start = [], op.operands[1:], 0, None
    for axis, a in enumerate(axes):
        if a == "i":
            picks.append(bounds[k])
            k += 1
            continue
        lo, hi = bounds[k], bounds[k + 1]
        k += 2
        whole_hi = hi.defining_op is not None and hi.defining_op.name == "dim" \
            and hi.defining_op.operands[0] is base and hi.defining_op.attrs["axis"] == axis
        if not whole_hi:
            return None
        if build.const_value(lo) != 0:  # a tail: of a vector or a row only (the IR's view of a matrix
            low = lw.lower_bound(lo)      # from k on is its rows), from where it is never negative
            if len(axes) - leading != 1 or low is None or low < 0:
                return None
            start = lo
    if leading == 0 and start is None:
        return None
    lw.at(b, node)
    row, rank = base, base.type.rank  # type: ignore[attr-defined]
    for axis, i in enumerate(picks):
        low = lw.lower_bound(i)
        if low is None or low < 0:
            dim = b.op1("dim", [base], I64, axis=axis)  # Z[-1]: counted from the end, as NumPy does
            i = build.select(b, build.cmp(b, "lt", i, build.const(b, 0, I64)), build.add(b, i, dim), i)
        rank -= 1
        row = b.op1("view", [row, i], ArrayType(v.type.elem, rank))  # type: ignore[attr-defined]
    if start is not None:
        row = b.op1("view", [row, start], row.type)
    return row


def viewed(v: Value) -> Optional[Value]:
    """The array ``v`` is a view of, followed through views of views; None when ``v`` is none."""
    if not is_view(v):
        return None
    while is_view(v):
        v = v.defining_op.operands[0]
    return v


def is_written_value(v: Value) -> bool:
    """A whole-array value NumPy makes anew (``np.exp(x)``, ``x * 2``, ``W @ x``), which the IR
    never writes into: code that writes into it writes into a copy of it (``copied``)."""
    return array_ops.makes_fresh_array(v.defining_op) and not is_view(v)


def extent_key(v: Value, axis: int) -> object:
    """What ``v``'s extent along ``axis`` evidently is, as a comparable key: a constant, an
    integer value, or ``(array, axis)`` for an extent known only as some array's; None when
    nothing shows it. Followed through allocations, ``dim``, copies, whole-axis slices, matrix
    products, transposes and elementwise whole-array ops whose array operands all evidently
    share the extent (NumPy broadcasting would otherwise give the result another one)."""
    keys = extent_keys(v, axis)
    return next(iter(keys)) if keys is not None and len(keys) == 1 else None


def extent_keys(v: Value, axis: int) -> Optional[frozenset]:
    """The keys (see ``extent_key``) of the extents ``v``'s extent along ``axis`` is made from:
    one where it is evident; several where elementwise operands of different extents meet (NumPy
    gives them one extent, the same unless some are 1, so where they are known equal, that one);
    None where some is not evident."""
    op = v.defining_op
    if op is None:
        return frozenset([(v, axis)]) if v.type.is_array else None
    if op.name == "dim":
        return extent_keys(op.operands[0], op.attrs["axis"])
    if op.name == "alloc" or op.name == P + "full":
        return _scalar_keys(op.operands[axis])
    if op.name == "copy":
        return extent_keys(op.operands[0], axis)
    if op.name == "call":
        return _call_extent_keys(op, v.index, axis)
    if op.name == P + "reshape":  # x[:, None], x.reshape(-1, 1): the extents it is given
        return _scalar_keys(op.operands[1 + axis])
    if op.name == P + "einsum":
        return _einsum_keys(op, axis)
    reduced = _reduced_axis(op, axis)
    if reduced is not None:
        return reduced if isinstance(reduced, frozenset) else extent_keys(*reduced)
    source = _source_axis(op, axis)
    if source is not None:
        return extent_keys(*source)
    unpadded = _unpadded_axis(v, axis)
    if unpadded is not None:
        return extent_keys(*unpadded)
    span = _span(op, axis)
    if span is not None:
        return frozenset([span])
    name = op.name[len(P):] if op.name.startswith(P) else ""
    if array_ops.per_element(name):
        rank = v.type.rank  # type: ignore[attr-defined]
        keys: set = set()
        for o in op.operands:
            if o.type.is_array and axis - (rank - o.type.rank) >= 0:  # type: ignore[attr-defined]
                found = extent_keys(o, axis - (rank - o.type.rank))  # type: ignore[attr-defined]
                if found is None:
                    return None
                keys |= found
        if len(keys) > 1:  # an operand one long there stretches to the others' extent
            keys.discard(("const", 1))
        return frozenset(keys) if keys else None
    return None


# The attribute of a call of a helper of the file: how the helper's results' extents follow from
# its arguments (``py_helper_shapes``).
RESULT_EXTENTS = "result_extents"


def _call_extent_keys(op: Op, result: int, axis: int) -> Optional[frozenset]:
    """A helper's result's extent, in the caller's terms: a constant, an integer argument, or an
    extent of an array argument (``py_helper_shapes``)."""
    specs = op.attrs.get(RESULT_EXTENTS)
    return _spec_keys(op, specs[result][axis] if specs and result < len(specs) and specs[result] else None)


def _spec_keys(op: Op, spec: Optional[tuple]) -> Optional[frozenset]:
    if spec is None:
        return None
    if spec[0] == "meet":  # the extents elementwise operands meet at: known as theirs
        keys: set = set()
        for part in spec[1:]:
            found = _spec_keys(op, part)
            if found is None:
                return None
            keys |= found
        return frozenset(keys)
    if spec[0] == "const":
        return frozenset([spec])
    if spec[0] == "int":
        return _scalar_keys(op.operands[spec[1]])
    return extent_keys(op.operands[spec[1]], spec[2])


def _source_axis(op: Op, axis: int) -> Optional[tuple[Value, int]]:
    """The operand axis whose extent is ``op``'s result's along ``axis``, for the ops that take
    an axis's extent whole: a matrix product, a transpose, an outer product, a slice's whole axis
    (``xs[t]``, ``A[:, j]``), a vector's diagonal matrix, a square matrix's inverse or factor, a
    solve's right-hand side."""
    name = op.name[len(P):] if op.name.startswith(P) else ""
    if name == "transpose":
        return op.operands[0], 1 - axis
    if name in ("roll", "inv", "cholesky", "tril"):  # (the last three: of a square matrix, its shape)
        return op.operands[0], axis
    if name == "solve":  # np.linalg.solve(A, B): B's shape
        return op.operands[1], axis
    if name == "diag" and op.operands[0].type.rank == 1:  # type: ignore[attr-defined]
        return op.operands[0], 0
    if name == "outer":
        return op.operands[axis], 0
    if name == "matmul":
        a, b = op.operands
        ra, rb = a.type.rank, b.type.rank  # type: ignore[attr-defined]
        if ra == 2 and (rb == 1 or axis == 0):
            return a, 0
        return (b, 1) if rb == 2 else None
    if name == "slice":
        bounds = _kept_axis_bounds(op, axis)
        if bounds is not None:
            k, lo, hi = bounds
            whole = build.const_value(lo) == 0 and hi.defining_op is not None and hi.defining_op.name == "dim" \
                and hi.defining_op.operands[0] is op.operands[0] and hi.defining_op.attrs["axis"] == k
            return (op.operands[0], k) if whole else None
    return None


def _reduced_axis(op: Op, axis: int):
    """For a reduction along one axis (``np.sum(A, axis=1)``, ``keepdims=True``), where its result's
    ``axis`` comes from: the operand's axis it keeps, or, for the axis kept one long, that extent
    (``("const", 1)``, which an elementwise operand stretches to: ``A / np.sum(A, axis=1,
    keepdims=True)`` has ``A``'s shape); None for any other op."""
    name = op.name[len(P):] if op.name.startswith(P) else ""
    reduced = op.attrs.get("axis")
    if name not in array_ops.REDUCTIONS or not isinstance(reduced, int) or reduced < 0 \
            or not op.operands[0].type.is_array:
        return None
    if op.attrs.get("keepdims"):
        return frozenset([("const", 1)]) if axis == reduced else (op.operands[0], axis)
    return op.operands[0], axis if axis < reduced else axis + 1


def _kept_axis_bounds(op: Op, axis: int) -> Optional[tuple[int, Value, Value]]:
    """For an ``arr.slice`` op, the axis of its operand that its result's ``axis`` comes from
    (indexed axes drop out), and that axis's bounds."""
    operands = iter(op.operands[1:])
    kept = -1
    for k, kind in enumerate(op.attrs["axes"]):
        if kind == "i":
            next(operands)
            continue
        lo, hi = next(operands), next(operands)
        kept += 1
        if kept == axis:
            return k, lo, hi
    return None


def _unpadded_axis(v: Value, axis: int) -> Optional[tuple[Value, int]]:
    """The array axis ``v``'s extent along ``axis`` equals, where ``v`` takes from an ``np.pad``ded
    array as many entries as the padding added, by constant widths and bounds (``up[:-2, 1:-1]``,
    ``up[2:, 1:-1]`` of ``up = np.pad(u, 1)``: ``u``'s extents), or is such a padding by 0."""
    op = v.defining_op
    offset = 0
    bounds = _kept_axis_bounds(op, axis) if op is not None and op.name == P + "slice" else None
    if bounds is not None:
        k, lo, hi = bounds
        start, (end, back) = build.const_int(lo), array_ops.offset_of(hi)
        d = end.defining_op if end is not None else None
        if start is None or d is None or d.name != "dim" or d.operands[0] is not op.operands[0] \
                or d.attrs["axis"] != k:
            return None
        offset, v, axis = back - start, op.operands[0], k
        op = v.defining_op
    if op is None or op.name != P + "pad":
        return None
    lo, hi = (build.const_int(w) for w in op.operands[1 + 2 * axis:3 + 2 * axis])
    if lo is None or hi is None or offset + lo + hi != 0:
        return None
    return op.operands[0], axis


def _span(op: Op, axis: int) -> Optional[tuple]:
    """``("span", lo, hi, array, k)`` for the result's ``axis`` of a slice that takes the range
    ``lo:hi`` of the array's axis ``k`` (not the whole of it: ``_source_axis``): ``hi - lo`` long
    where neither bound counts from the end nor passes it (``py_affine``)."""
    bounds = _kept_axis_bounds(op, axis) if op.name == P + "slice" else None
    if bounds is None:
        return None
    k, lo, hi = bounds
    return ("span", lo, hi, op.operands[0], k)


def _einsum_keys(op: Op, axis: int) -> Optional[frozenset]:
    """An einsum's result's extent along ``axis``: that of every operand axis of its letter, which
    NumPy requires equal (``"ij,ij->i"``: the first axes of both operands)."""
    inputs, _, out = op.attrs["subs"].partition("->")
    letter = out[axis] if axis < len(out) else None
    keys: set = set()
    for operand, letters in zip(op.operands, inputs.split(",")):
        for k, c in enumerate(letters):
            if c == letter:
                found = extent_keys(operand, k)
                if found is None:
                    return None
                keys |= found
    return frozenset(keys) if keys else None


def _scalar_key(e: Value) -> object:
    """The key of the extent the integer ``e`` is (see ``extent_key``), or None."""
    keys = _scalar_keys(e)
    return next(iter(keys)) if keys is not None and len(keys) == 1 else None


def _scalar_keys(e: Value) -> Optional[frozenset]:
    """The keys of the extent the integer ``e`` is: an array's extent (``np.zeros(A.shape[1])``,
    of an ``A`` whose extents are several known equal: ``extent_keys``), a constant, or ``e``."""
    d = e.defining_op
    if d is not None and d.name == "dim":
        return extent_keys(d.operands[0], d.attrs["axis"])
    c = build.const_value(e)
    return frozenset([("const", c) if c is not None else e])


def copy_into(b: Builder, dst: Value, v: Value) -> None:
    """``dst[...] = v`` of two arrays of the same shape: a loop of element stores."""
    elem = dst.type.elem  # type: ignore[attr-defined]

    def put(bb: Builder, index: list[Value]) -> None:
        x = bb.op1("load", [v, *index], v.type.elem)  # type: ignore[attr-defined]
        if x.type != elem:
            x = build.cast(bb, x, elem)
        bb.create("store", [dst, *index, x], [])
    each_element(b, dst, put)


def assign_slice(lw: "ExprLowerer", node: cst.Subscript, base: cst.BaseExpression, indices: list,
                 value: Value, op: Optional[str], b: Builder, env: Env, vnode: cst.CSTNode) -> None:
    """``a[lo:hi, j] = value`` (``op`` None) or ``a[lo:hi, j] op= value``: for each element of the
    part, ``a[...] = value[...]`` (or ``a[...] = a[...] op value[...]``), ``value`` a number or an
    array that broadcasts to the part as NumPy's would (an axis of extent 1 stretches: its index
    stays 0). The value is computed whole before the first store, as NumPy does."""
    arr, rank, indices = _indexed(lw, node, base, indices, b, env)
    if indices and indices[0] not in lw.held and lw.may_be_mask(indices[0], env) \
            and all(is_whole_slice(i) for i in indices[1:]):  # y[m] = v, X[m, :] = v
        m = lw.value(indices[0], b, env)
        if isinstance(m.type, ArrayType) and m.type.elem == BOOL:
            assign_at_mask(lw, node, arr, m, value, op, b, vnode, len(indices))
            return
        lw.held[indices[0]] = m  # x[np.argsort(y)] = v: the positions a call gives, lowered once
        try:
            assign_slice(lw, node, base, indices, value, op, b, env, vnode)
        finally:
            del lw.held[indices[0]]
        return
    if assign_at_indices(lw, node, arr, indices, value, op, b, env, vnode):
        return
    starts: list[Optional[Value]] = []  # per axis of arr: the first index of a range, None for an index
    stepped: set[int] = set()  # the axes whose starts are the indices a slice with a step picks
    fixed: list[Optional[Value]] = []
    extents: list[Value] = []
    for k in range(rank):
        idx = indices[k] if k < len(indices) else None
        if idx is not None and not isinstance(idx, cst.Slice):
            starts.append(None)
            fixed.append(lw.index(idx, b, env, arr, k))
            continue
        if idx is not None and idx.step is not None:  # y[::2] = ...: through the indices it picks
            picks = stepped_indices(lw, idx, arr, b, env, axis=k)
            starts.append(picks)
            fixed.append(None)
            stepped.add(k)
            extents.append(lw.at(b, node).op1("dim", [picks], I64, axis=0))
            continue
        lw.at(b, node)
        dim = b.op1("dim", [arr], I64, axis=k)
        lo = _python_bound(lw, idx.lower, dim, b, env, upper=False) if idx is not None and idx.lower is not None \
            else lw.const(b, node, 0, I64)
        hi = _python_bound(lw, idx.upper, dim, b, env, upper=True) if idx is not None and idx.upper is not None \
            else dim
        lw.at(b, node)
        starts.append(lo)
        fixed.append(None)
        if hi is dim and build.const_value(lo) == 0:  # the whole axis
            extents.append(dim)
            continue
        n = build.sub(b, hi, lo)
        zero = build.const(b, 0, I64)
        extents.append(build.select(b, build.cmp(b, "gt", n, zero), n, zero))  # hi < lo: no elements
    elem = arr.type.elem  # type: ignore[attr-defined]
    vrank = value.type.rank if value.type.is_array else 0  # type: ignore[attr-defined]
    if vrank and _reads_lazily(value, arr):
        # y[1:] = y[:-1], y[1:] += y[:-1]: NumPy reads the whole value before the first store; a
        # slice of the array stored into is printed as a view of it (NumPy's y[:-1], C's pointer),
        # which the element stores below would overwrite before reading (a shift register's
        # gradient was wrong: probe round 2). A copy, made before, is the value.
        value = copied(lw, b, vnode, value)
    if vrank > len(extents):
        raise lw.fail(vnode, f"this value has {vrank} dimension(s), more than the {len(extents)} of the part "
                      "of the array it is assigned to", hint="assign a value of the part's shape")
    if not value.type.is_array:
        value = lw.coerce(value, elem, b, vnode, f"an element of '{dotted_source(base) or 'the array'}'")
    # The value's axes stand against the part's last axes; one of extent 1 is read at index 0.
    lw.at(b, node)
    unit: list[Optional[Value]] = []
    for j in range(vrank):
        part = extents[len(extents) - vrank + j]
        if extent_key(value, j) is not None and extent_key(value, j) == _scalar_key(part):
            unit.append(None)  # evidently the part's extent: no axis to stretch
        else:
            unit.append(build.cmp(b, "eq", b.op1("dim", [value], I64, axis=j), build.const(b, 1, I64)))

    def body(bb: Builder, ks: list[Value]) -> None:
        index, r = [], 0
        for k in range(rank):
            if fixed[k] is not None:
                index.append(fixed[k])
            elif k in stepped:
                index.append(bb.op1("load", [starts[k], ks[r]], I64))  # type: ignore[list-item]
                r += 1
            else:
                index.append(build.add(bb, starts[k], ks[r]))  # type: ignore[arg-type]
                r += 1
        if vrank:
            vks = ks[len(ks) - vrank:]
            vindex = [kk if u is None else build.select(bb, u, build.const(bb, 0, I64), kk) for u, kk in zip(unit, vks)]
            x = bb.op1("load", [value, *vindex], value.type.elem)  # type: ignore[attr-defined]
        else:
            x = value
        if op is not None:
            cur = bb.op1("load", [arr, *index], elem)
            x = lw.arith(op, cur, x, bb, vnode)
        if x.type != elem:
            x = lw.coerce(x, elem, bb, vnode, f"an element of '{dotted_source(base) or 'the array'}'")
        bb.create("store", [arr, *index, x], [])
    _loops(b, extents, body, [])


# Whole-array ops the outputs print as views of their operand's memory (NumPy's slices,
# transposes and reshapes; C's pointers into the array).
_LAZY = ("view", P + "slice", P + "transpose", P + "reshape")


def _reads_lazily(value: Value, arr: Value) -> bool:
    """Whether the array ``value`` is ``arr``'s memory read through views (a slice of it)."""
    while value.defining_op is not None and value.defining_op.name in _LAZY:
        value = value.defining_op.operands[0]
    return view_base(value) is view_base(arr)


def _python_bound(lw: "ExprLowerer", n: cst.BaseExpression, dim: Value, b: Builder, env: Env,
                  upper: bool) -> Value:
    """A slice bound as Python reads it, between 0 and the extent ``dim``: a negative one counts
    from the end. What is evident from a literal needs no test (an upper bound past the end
    stops at it; a lower one past the end, or past the upper one, leaves no elements)."""
    lit = int_literal(n)
    v = lw.integer(n, b, env, "a slice bound") if lit is None else None
    lw.at(b, n)
    zero = build.const(b, 0, I64)
    if lit is not None and lit >= 0:
        c = build.const(b, lit, I64)
        return build.select(b, build.cmp(b, "lt", dim, c), dim, c) if upper and lit > 0 else c
    if lit is not None:
        v = build.add(b, dim, build.const(b, lit, I64))
        return build.select(b, build.cmp(b, "lt", v, zero), zero, v)
    assert v is not None
    v = build.select(b, build.cmp(b, "lt", v, zero), build.add(b, v, dim), v)
    v = build.select(b, build.cmp(b, "lt", v, zero), zero, v)
    return build.select(b, build.cmp(b, "lt", dim, v), dim, v)


def _loops(b: Builder, extents: list[Value], body: Callable[[Builder, list[Value]], None],
           ks: list[Value]) -> None:
    if len(ks) == len(extents):
        body(b, ks)
        return
    block = Block([I64], ["k"])
    inner = Builder(block, b.loc)
    _loops(inner, extents, body, ks + [block.args[0]])
    inner.create("yield", [], [])
    b.create("for", [build.const(b, 0, I64), extents[len(ks)], build.const(b, 1, I64)], [], regions=[block])
