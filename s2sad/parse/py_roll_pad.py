"""Lowering of ``np.roll`` and ``np.pad`` to ``arr.roll`` and ``arr.pad`` (see ``ssa.array_ops``).

``py_expr`` sends here the calls of these two functions:

* ``np.roll(x, shift)`` of a vector, ``np.roll(x, shift, axis=k)`` of any array: the shift an
  integer expression, the axis an integer literal. ``np.roll(A, shift)`` of a matrix (no axis)
  rolls the flattened entries, as NumPy does: a reshape to a vector, the roll, and a reshape
  back. Tuples of shifts and axes (``np.roll(A, (1, -1), axis=(0, 1))``) are one roll after
  another, NumPy broadcasting a single shift or axis against the other's tuple.
* ``np.pad(x, pad_width, mode="constant")`` with ``pad_width`` an integer expression (every
  axis, both sides), a pair ``(before, after)`` for every axis, or one pair per axis
  (``((1, 1), (0, 2))``), written in the call; ``mode`` one of ``array_ops.PAD_MODES`` as a
  string literal; ``constant_values=c`` a number (mode "constant" only).

Everything else (a shift that is a float, an axis that is not a literal, another mode, a
``pad_width`` or ``constant_values`` held in a variable, one constant per side, a negative width
literal) is a diagnostic at the argument. A width that is not a literal is checked where the call
runs: a negative one raises ``ValueError``, as NumPy does.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from ..ssa import array_ops, build
from ..ssa.ir import Block, Builder, Value
from ..ssa.types import I64, ArrayType
from .py_arrays import ExprLowerer, arr_op
from .py_common import Env
from .py_module import dotted_source
from .py_types import int_literal, keyword_arg, positional_args


def call(lw: ExprLowerer, op: str, node: cst.Call, b: Builder, env: Env) -> Value:
    return roll(lw, node, b, env) if op == "roll" else pad(lw, node, b, env)


def _argument(node: cst.Call, position: int, name: str) -> Optional[cst.BaseExpression]:
    args = positional_args(node)
    return args[position] if len(args) > position else keyword_arg(node, name)


def _items(node: cst.BaseExpression) -> Optional[list[cst.BaseExpression]]:
    """The items of a tuple or list written in the call, else None."""
    if isinstance(node, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement)
                                                           for e in node.elements):
        return [e.value for e in node.elements]
    return None


# ---------------------------------------------------------------------------------------- np.roll
def roll(lw: ExprLowerer, node: cst.Call, b: Builder, env: Env) -> Value:
    x = lw.array(positional_args(node)[0], b, env)
    rank = x.type.rank  # type: ignore[attr-defined]
    shift_node = _argument(node, 1, "shift")
    if shift_node is None:
        raise lw.fail(node, "np.roll needs a shift", hint="write np.roll(x, 1)")
    shift_nodes = _items(shift_node) or [shift_node]
    axis_node = _argument(node, 2, "axis")
    if axis_node is None or (isinstance(axis_node, cst.Name) and axis_node.value == "None"):
        if rank == 1:
            axes = [0] * len(shift_nodes)
        else:  # the flattened entries rolled, as NumPy rolls an array without axis
            return _flat_roll(lw, node, x, shift_nodes, b, env)
    else:
        axes = [_axis(lw, a, rank) for a in (_items(axis_node) or [axis_node])]
    if len(shift_nodes) != len(axes) and 1 not in (len(shift_nodes), len(axes)):
        raise lw.fail(node, f"np.roll has {len(shift_nodes)} shifts for {len(axes)} axes",
                      hint="give one shift per axis, or one shift for all")
    shifts = [_shift(lw, s, b, env) for s in shift_nodes]
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1:
        axes = axes * len(shifts)
    for shift, axis in zip(shifts, axes):
        x = arr_op(lw, b, node, "roll", [x, shift], {"axis": axis})
    return x


def _shift(lw: ExprLowerer, node: cst.BaseExpression, b: Builder, env: Env) -> Value:
    return lw.integer(node, b, env, "the shift of np.roll")


def _axis(lw: ExprLowerer, node: cst.BaseExpression, rank: int) -> int:
    k = int_literal(node)
    if k is None:
        raise lw.fail(node, "the axis of np.roll must be an integer literal", hint="write axis=0 or axis=1")
    if not -rank <= k < rank:
        raise lw.fail(node, f"axis {k} is out of range for a {rank}-D array")
    return k % rank


def _flat_roll(lw: ExprLowerer, node: cst.Call, x: Value, shift_nodes: list[cst.BaseExpression], b: Builder,
               env: Env) -> Value:
    at = lw.at(b, node)
    dims = [at.op1("dim", [x], I64, axis=k) for k in range(x.type.rank)]  # type: ignore[attr-defined]
    size = dims[0]
    for d in dims[1:]:
        size = build.mul(at, size, d)
    flat = arr_op(lw, b, node, "reshape", [x, size])
    for s in shift_nodes:
        flat = arr_op(lw, b, node, "roll", [flat, _shift(lw, s, b, env)], {"axis": 0})
    return arr_op(lw, b, node, "reshape", [flat, *dims])


# ----------------------------------------------------------------------------------------- np.pad
# The keywords of np.pad's other modes, refused by name.
_OTHER_KEYWORDS = {"reflect_type": "leave it out: mode 'reflect' or 'symmetric' with reflect_type 'even', the default",
                   "stat_length": "the statistic modes are not supported: pad in mode 'edge' or 'constant'",
                   "end_values": "mode 'linear_ramp' is not supported: pad in mode 'edge' or 'constant'"}

def pad(lw: ExprLowerer, node: cst.Call, b: Builder, env: Env) -> Value:
    x = lw.array(positional_args(node)[0], b, env)
    t = x.type
    assert isinstance(t, ArrayType)
    width_node = _argument(node, 1, "pad_width")
    if width_node is None:
        raise lw.fail(node, "np.pad needs the widths to pad with", hint="write np.pad(x, 1)")
    mode_node = _argument(node, 2, "mode")
    mode = "constant"
    if mode_node is not None:
        mode = mode_node.evaluated_value if isinstance(mode_node, cst.SimpleString) else None  # type: ignore
        if mode not in array_ops.PAD_MODES:
            raise lw.fail(mode_node, "mode= of np.pad must be the literal " + ", ".join(
                f"'{m}'" for m in array_ops.PAD_MODES[:-1]) + f" or '{array_ops.PAD_MODES[-1]}'",
                hint="pad in another mode with np.concatenate of the array's slices")
    for other in _OTHER_KEYWORDS:
        given = keyword_arg(node, other)
        if given is not None:
            raise lw.fail(given, f"{other}= of np.pad is not supported", hint=_OTHER_KEYWORDS[other])
    widths = _widths(lw, node, width_node, t.rank, b, env)
    value_node = keyword_arg(node, "constant_values")
    operands = [x, *widths]
    if mode == "constant":
        if value_node is None:
            value = lw.const(b, node, 0.0 if t.elem.is_float else 0, t.elem)
        else:
            value = None if _items(value_node) is not None else lw.value(value_node, b, env)
            if value is None or value.type.is_array:
                raise lw.fail(value_node, "constant_values= of np.pad must be one number",
                              hint="pad with one value, then set the sides that differ by slices")
            value = build.cast(lw.at(b, value_node), lw.to_number(b, value_node, value), t.elem)
        operands.append(value)
    elif value_node is not None:
        raise lw.fail(value_node, f"constant_values= goes with mode 'constant', not '{mode}'")
    return arr_op(lw, b, node, "pad", operands, {"mode": mode})


def _widths(lw: ExprLowerer, node: cst.Call, width_node: cst.BaseExpression, rank: int, b: Builder,
            env: Env) -> list[Value]:
    """``lo0, hi0, lo1, hi1, ...``: np.pad's ``pad_width`` spread over the axes as NumPy
    broadcasts it to ``(rank, 2)``."""
    rows = _items(width_node) or [width_node]
    if all(_items(r) is None for r in rows):  # w, (w,) or (before, after): every axis alike
        if len(rows) > 2:
            raise lw.fail(width_node, f"np.pad takes one width or a pair (before, after) here, not {len(rows)}",
                          hint="give a pair per axis: ((1, 1), (0, 2))")
        pair = [_width(lw, r, b, env) for r in rows]
        return (pair * (2 // len(pair))) * rank
    if len(rows) not in (1, rank):
        raise lw.fail(width_node, f"np.pad of a {rank}-D array takes one pair of widths or {rank}, "
                      f"not {len(rows)}", hint="give a pair (before, after) per axis")
    out: list[Value] = []
    for r in rows:
        items = _items(r)
        if items is None or len(items) not in (1, 2):
            raise lw.fail(r, "each axis's widths in np.pad are a pair (before, after)")
        pair = [_width(lw, w, b, env) for w in items]
        out += pair * (2 // len(pair))
    return out * (rank if len(rows) == 1 else 1)


def _width(lw: ExprLowerer, node: cst.BaseExpression, b: Builder, env: Env) -> Value:
    lit = int_literal(node)
    if lit is not None and lit < 0:
        raise lw.fail(node, "np.pad's widths must not be negative")
    w = lw.integer(node, b, env, "a width of np.pad")
    if lit is None:  # NumPy raises for a negative one; so does the gradient, before padding
        at = lw.at(b, node)
        negative = build.cmp(at, "lt", w, build.const(at, 0, I64))
        then, rest = Block(), Block()
        tb = lw.at(Builder(then, at.loc), node)
        lw.raising(tb, node, "ValueError", f"np.pad's width {dotted_source(node) or 'here'} is negative",
                   "index can't contain negative values")
        tb.create("yield", [], [])
        lw.at(Builder(rest, at.loc), node).create("yield", [], [])
        at.create("if", [negative], [], regions=[then, rest])
    return w
