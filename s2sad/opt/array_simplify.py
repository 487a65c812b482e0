"""Algebraic simplification of whole-array ops (``arr.``): no transposes or broadcasts materialized
where NumPy does not need them.

What (each rewrite keeps every value's contents and shape):

* ``transpose(transpose(x))`` -> ``x`` (``(A.T).T``; the adjoint of ``z = X @ W.T``
  makes ``d_z @ W.T.T``);
* ``transpose(matmul(a, b))`` -> ``matmul(transpose(b), transpose(a))`` when ``a`` or
  ``b`` is itself a transpose, so that one cancels: the adjoint's
  ``(X.T @ d_z).T`` becomes ``d_z.T @ X``, a product with a transposed operand
  (a strided view in NumPy) instead of a product whose result is transposed;
* shape witnesses: an operand that only lends its shape (``like`` of
  ``arr.broadcast``/``arr.sum_to``, the array of a ``dim``) is replaced by the
  cheapest value known to have the same shape, found through ops that keep
  their operand's shape exactly (negation, ufuncs, arithmetic with scalars), so
  the array computed only for its shape dies (``np.full_like(t ** 2.0, g)``
  no longer recomputes ``t ** 2.0``);
* ``broadcast(s, like) <op> y`` -> ``s <op> y`` for a scalar ``s`` when ``y`` has
  exactly ``like``'s shape (``np.full_like(Y * logp, g) * Y`` -> ``g * Y``): NumPy
  broadcasts the scalar itself; with a scalar
  ``c``, ``broadcast(s, like) <op> c`` -> ``broadcast(s <op> c, like)`` first;
* ``transpose(outer(a, b))`` -> ``outer(b, a)``.

Dead ops left behind are DCE's (dead-array elimination). Pre/post: verified IR.
Follows the peephole style of MLIR's canonicalization patterns.
"""

from __future__ import annotations

from typing import Optional

from ..analysis.effects import PassContext
from ..ssa import array_ops, build
from ..ssa.attrs import GENERIC_OPERANDS
from ..ssa.ir import Builder, Function, Module, Op, Value

P = array_ops.PREFIX
_SHAPE_ONLY = {P + "broadcast": 1, P + "sum_to": 1, "dim": 0}  # op -> operand used for its shape only
_SCALAR_FRIENDLY = tuple(P + n for n in ("add", "sub", "mul", "div"))


def shape_source(v: Value) -> Value:
    """The earliest value known to have exactly ``v``'s shape (``v`` itself when none is)."""
    while True:
        op = v.defining_op
        if op is None or not v.type.is_array:
            return v
        name = op.name
        if name == P + "neg" or (name.startswith(P + "math.") and len(op.operands) == 1) or name == P + "broadcast":
            v = op.operands[0] if name != P + "broadcast" else op.operands[1]
            continue
        if op.attrs.get(GENERIC_OPERANDS):
            return v  # a shape-generic operand may stretch the result beyond its array operands
        if name[len(P):] in array_ops.ELEMENTWISE or name[len(P):] in array_ops.COMPARE:
            arrays = {o: None for o in op.operands if o.type.is_array}
            if len(arrays) == 1 and next(iter(arrays)).type.rank == v.type.rank:
                v = next(iter(arrays))  # a scalar or the same array on the other side: nothing stretches
                continue
        return v


def _same_shape(x: Value, like: Value) -> bool:
    """Whether ``x`` has exactly ``like``'s shape: the same shape source, or ``like`` is an
    elementwise result of full-rank operands (none with a unit axis), ``x``'s among them. Such
    operands are taken to have equal shapes, as the adjoint rules take them (no ``sum_to``)."""
    sx, sl = shape_source(x), shape_source(like)
    if sx is sl:
        return True
    op = sl.defining_op
    if op is None or op.name[len(P):] not in array_ops.ELEMENTWISE + array_ops.COMPARE \
            or op.attrs.get(GENERIC_OPERANDS):
        return False
    arrays = [o for o in op.operands if o.type.is_array]
    if any(o.type.rank != sl.type.rank or array_ops.shape_unit_axes(o) for o in arrays):
        return False
    return any(shape_source(o) is sx for o in arrays)


def _transpose_of(v: Value) -> Optional[Value]:
    op = v.defining_op
    return op.operands[0] if op is not None and op.name == P + "transpose" else None


def _rewrite(op: Op) -> bool:
    """Apply the first rewrite that fits ``op``; True if the IR changed."""
    if op.results and not any(r.uses for r in op.results):
        return False  # dead (maybe rewritten already): DCE's
    name = op.name
    if name == P + "transpose":
        inner = _transpose_of(op.operands[0])
        if inner is not None:
            op.result.replace_all_uses_with(inner)
            return True
        prod = op.operands[0].defining_op
        if prod is not None and prod.name == P + "outer":
            bb = Builder(op.parent, op.loc).before_op(op)
            new = bb.op1(P + "outer", [prod.operands[1], prod.operands[0]], op.result.type, op.result.name_hint)
            op.result.replace_all_uses_with(new)
            return True
        if prod is not None and prod.name == P + "matmul" and prod.result.type.is_array:
            a, b = prod.operands
            if prod.result.type.rank == 2 and a.type.rank == 2 and b.type.rank == 2 and (
                _transpose_of(a) is not None or _transpose_of(b) is not None
            ):
                bb = Builder(op.parent, op.loc).before_op(op)
                ta = _transpose_of(a) or bb.op1(P + "transpose", [a], a.type)
                tb = _transpose_of(b) or bb.op1(P + "transpose", [b], b.type)
                new = bb.op1(P + "matmul", [tb, ta], op.result.type, op.result.name_hint)
                op.result.replace_all_uses_with(new)
                return True
    k = _SHAPE_ONLY.get(name)
    if k is not None and op.operands[k].type.is_array:
        src = shape_source(op.operands[k])
        if src is not op.operands[k] and _visible(src, op):
            op.set_operand(k, src)
            return True
    if name in _SCALAR_FRIENDLY:
        moved = _scalar_into_broadcast(op)
        if moved:
            return True
        for i in (0, 1):
            b = op.operands[i].defining_op
            other = op.operands[1 - i]
            if (
                b is not None
                and b.name == P + "broadcast"
                and not b.operands[0].type.is_array
                and other.type == op.result.type
                and _same_shape(other, b.operands[1])
            ):
                op.set_operand(i, b.operands[0])
                return True
    return False


def _scalar_into_broadcast(op: Op) -> bool:
    """``broadcast(s, like) <op> c`` with a scalar ``c`` -> ``broadcast(s <op> c, like)``."""
    for i in (0, 1):
        b = op.operands[i].defining_op
        c = op.operands[1 - i]
        if b is None or b.name != P + "broadcast" or b.operands[0].type.is_array or c.type.is_array:
            continue
        if c.type != b.operands[0].type or "axis" in b.attrs:
            continue
        bb = Builder(op.parent, op.loc).before_op(op)
        s = b.operands[0]
        scalar = build.binary(bb, op.name[len(P):], s, c) if i == 0 else build.binary(bb, op.name[len(P):], c, s)
        new = bb.op1(P + "broadcast", [scalar, b.operands[1]], op.result.type, op.result.name_hint)
        op.result.replace_all_uses_with(new)
        return True
    return False


def _visible(v: Value, at: Op) -> bool:
    """Whether ``v`` may be used at ``at`` (defined in an enclosing block, earlier)."""
    block = v.owner if v.is_block_arg else v.defining_op.parent
    o: Optional[Op] = at
    while o is not None:
        if o.parent is block:
            return v.is_block_arg or block.ops.index(v.defining_op) < block.ops.index(o)
        o = o.parent.parent_op if o.parent is not None else None
    return False


def simplify_function(fn: Function) -> None:
    changed = True
    while changed:
        changed = False
        for op in list(fn.walk()):
            if op.parent is not None and _rewrite(op):
                changed = True


def run(module: Module, ctx: PassContext) -> None:
    for fn in module.functions.values():
        simplify_function(fn)
