"""Lowering of ``np.searchsorted(a, v, side="left")`` (and ``a.searchsorted(v)``) to a binary
search: a ``while`` loop over integers, whose result has no derivative and whose uses
(``xp[i - 1]``, ``fp[i]``) are differentiated as they read.

Each key is searched as NumPy searches it: ``lo, hi = 0, len(a)``; while ``lo < hi``, the middle
entry goes left of the key (``side="left"``: it is less than the key; ``"right"``: the key is not
less than it) or not, in NumPy's order, where NaN is greater than every number. ``a`` must be
sorted, as NumPy asks (``sorter=`` is refused); a vector of keys gives a vector of positions, a
loop over the keys.
"""

from __future__ import annotations

import libcst as cst

from ..ssa import build
from ..ssa.ir import Block, Builder, Value
from ..ssa.types import BOOL, I64, ArrayType, common_type
from .py_arrays import ExprLowerer, fill_loop
from .py_common import Env
from .py_types import keyword_arg

SIDES = ("left", "right")


def searchsorted(lw: ExprLowerer, node: cst.Call, args: list[cst.BaseExpression], b: Builder, env: Env) -> Value:
    """``args``: the array and the keys (and the side) as the call gives them, the receiver first
    for the method."""
    if any(a.keyword is not None and a.keyword.value not in ("side",) for a in node.args):
        raise lw.fail(node, "np.searchsorted is supported with side= alone (no sorter=)",
                      hint="sort the array first: np.searchsorted(np.sort(a), v)")
    side_node = args[2] if len(args) > 2 else keyword_arg(node, "side")
    side = "left"
    if side_node is not None:
        side = side_node.evaluated_value if isinstance(side_node, cst.SimpleString) else None  # type: ignore
        if side not in SIDES:
            raise lw.fail(side_node, "np.searchsorted's side is \"left\" or \"right\", written as a string",
                          hint='side="right" (after equal entries), or leave it out')
    a = lw.array(args[0], b, env)
    keys = lw.value(args[1], b, env)
    if a.type.rank != 1 or (isinstance(keys.type, ArrayType) and keys.type.rank != 1):  # type: ignore[attr-defined]
        raise lw.fail(node, "np.searchsorted is supported in a vector, of a number or a vector of keys",
                      hint="search each row in a loop over the rows")
    elem = common_type([a.type.elem, keys.type.elem if isinstance(keys.type, ArrayType) else keys.type])  # type: ignore
    lw.at(b, node)
    n = b.op1("dim", [a], I64, axis=0)
    if not isinstance(keys.type, ArrayType):
        return _position(b, a, n, build.cast(b, keys, elem), side == "right")
    count = b.op1("dim", [keys], I64, axis=0)
    out = b.op1("alloc", [count], ArrayType(I64, 1), fill="empty", elem=I64.name)

    def search(bb: Builder, k: Value) -> None:
        key = build.cast(bb, bb.op1("load", [keys, k], keys.type.elem), elem)  # type: ignore[attr-defined]
        bb.create("store", [out, k, _position(bb, a, n, key, side == "right")], [])

    fill_loop(b, count, search)
    return out


def _position(b: Builder, a: Value, n: Value, key: Value, right: bool) -> Value:
    """Where ``key`` goes in the sorted vector ``a`` of length ``n``: a ``while`` narrowing
    ``lo, hi`` to one position."""
    cond = Block([I64, I64], ["lo", "hi"])
    cb = Builder(cond, b.loc)
    cb.create("condition", [build.cmp(cb, "lt", cond.args[0], cond.args[1])], [])
    body = Block([I64, I64], ["lo", "hi"])
    bb = Builder(body, b.loc)
    lo, hi = body.args
    one = build.const(bb, 1, I64)
    mid = build.div(bb, build.add(bb, lo, hi), build.const(bb, 2, I64), "mid")
    entry = build.cast(bb, bb.op1("load", [a, mid], a.type.elem), key.type)  # type: ignore[attr-defined]
    # The key goes after the middle entry: it is less than the key (left), or the key is not less
    # than it (right).
    after = _less(bb, entry, key) if not right else bb.op1("not", [_less(bb, key, entry)], BOOL)
    bb.create("yield", [build.select(bb, after, build.add(bb, mid, one), lo),
                        build.select(bb, after, hi, mid)], [])
    op = b.create("while", [build.const(b, 0, I64), n], [I64, I64], regions=[cond, body], hints=["lo", "hi"])
    return op.results[0]


def _less(b: Builder, x: Value, y: Value) -> Value:
    """``x < y`` in NumPy's sort order, where NaN is greater than every number."""
    lt = build.cmp(b, "lt", x, y)
    if x.type.is_int:
        return lt
    nan_after = b.op1("and", [build.cmp(b, "ne", y, y), build.cmp(b, "eq", x, x)], BOOL)
    return b.op1("or", [lt, nan_after], BOOL)
