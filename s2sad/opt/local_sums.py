"""An adjoint element a loop adds into at the same index in every iteration, summed in a local.

GEMM's adjoint adds into ``d_A[i][k]`` in the loop over ``j``:

    for (long j = nj - 1; j >= 0; j--) {
        d_B[k][j] += d_C[i][j] * (alpha * A[i][k]);
        d_A[i][k] += d_C[i][j] * B[k][j] * alpha;
    }

Each iteration loads the element and stores it back, and a compiler, which cannot tell that
``d_A`` is not another name of ``d_B``, keeps it in memory. Summed in a local the loop carries,
the element is added to once, after the loop:

    double d_A_i_k = 0.0;
    for (long j = nj - 1; j >= 0; j--) {
        d_B[k][j] += d_C[i][j] * (alpha * A[i][k]);
        d_A_i_k += d_C[i][j] * B[k][j] * alpha;
    }
    d_A[i][k] += d_A_i_k;

as reverse mode does for a value read in every iteration (its adjoint is a local carried by the
reversed loop). The additions are made in another order, so the gradient changes in its last
bits, as with ``merge_accums``, and only in shadows (``shadow_writes``): the primal's own memory
keeps the rounding its source gives it.

A ``for`` loop of a gradient (``iterations.gradient_loops``: none under ``--may-alias``, none
of CUDA's) that is not parallel and does not return from the function qualifies when its body
itself (not a branch or loop inside it) adds into the element, at indices made before the loop,
and nothing else in the loop touches that shadow's memory under any name (a load, a store, a
view, a call it is passed to) except by adding into it. Additions into other elements of the
same shadow stay where they are, even where one may be the summed element (SYRK's ``d_A[j][k]``
beside ``d_A[i][k]``, the same element when ``j == i``): sums commute, so the element ends with
the same total whichever of them adds first.
A load or store of the same shadow may stay in the loop when it can be the summed element in one
iteration only: its indices are the summed element's except where it has the loop's counter and
the element a value made before the loop. Floyd-Warshall's reversed ``j`` loop adds into
``d_path[i][k]`` and clears ``d_path[i][j]``, the same element when ``j == k``; the sum so far
goes to the element before that iteration, which then sees it as it would have:

    double d_path_i_k = 0.0;
    for (long j = t2; j >= 0; j--) {
        if (j == k) {
            d_path[i][k] += d_path_i_k;
            d_path_i_k = 0.0;
        }
        ...
        d_path_i_k += t3;
        ...
    }
    d_path[i][k] += d_path_i_k;

Innermost loops first, so that a sum leaves a nest one loop at a time while its indices allow.
"""

from __future__ import annotations

from typing import Optional

from ..ssa.element_names import element_hint
from ..analysis.effects import PassContext, array_root
from ..analysis.iterations import gradient_loops
from ..ssa import build
from ..ssa.ir import Block, Builder, Module, Op, Value, erase_ops
from ..ssa.structured import add_carried, made_inside
from .shadow_writes import access_index, constant, same_element, shadow_blocks


def run(module: Module, ctx: PassContext) -> None:
    shadows = {block: s for block, s in shadow_blocks(module)}
    for loop in reversed(gradient_loops(module, ctx)):  # (walk order: outer loops first)
        body = loop.regions[0]
        if loop.attrs.get("parallel") or body not in shadows or any(op.name == "return" for op in loop.walk()):
            continue  # (a return inside would skip the addition after the loop)
        while _sum_one(loop, shadows[body]):
            pass


def _sum_one(loop: Op, shadows: set[Value]) -> bool:
    """Sum the additions of ``loop``'s body into one element in a local; False when none qualify."""
    body = loop.regions[0]
    for op in body.ops:
        if op.name != "accum" or op.attrs.get("atomic"):
            continue
        arr, index = op.operands[0], op.operands[1:-1]
        root = array_root(arr)
        if root is None or root not in shadows or any(made_inside(v, loop) for v in [arr, *index]):
            continue
        group = [a for a in body.ops if a.name == "accum" and not a.attrs.get("atomic") and same_element(a, op)]
        meets = _meeting_iteration(loop, root, group)
        if meets is False:
            continue
        _carry(loop, group, meets)
        return True
    return False


def _meeting_iteration(loop: Op, root: Value, group: list[Op]) -> Optional[Value] | bool:
    """How the ops in ``loop`` reach ``root``'s memory besides adding into it (the additions
    ``group``, and other additions, which commute with them): None when they do not; the value
    ``v`` made before the loop when only loads and stores do that may be the summed element in
    the iteration whose counter is ``v`` (and in no other), all of them before the additions in
    the body; False otherwise (another access, or one to a root not known)."""
    allowed = set(group)
    meets: Optional[Value] = None
    first_addition = min(_position(loop, a) for a in group)
    for op in loop.walk():
        if op is loop or op in allowed or (op.name == "accum" and array_root(op.operands[0]) is root):
            continue
        for v in op.operands:
            if not (v.type.is_array and array_root(v) in (root, None)):
                continue
            if op.name not in ("load", "store") or v is not op.operands[0]:
                return False
            at = _same_element_when(loop, op, group[0])
            if at is False or (at is not None and meets is not None and at is not meets):
                return False
            if at is not None and _position(loop, op) > first_addition:
                return False  # (the iteration would read or clear the element before the additions reach it)
            meets = meets if at is None else at
    return meets


def _position(loop: Op, op: Op) -> int:
    """The place in ``loop``'s body of the op that is or holds ``op``."""
    while op.parent.parent_op is not loop:
        op = op.parent.parent_op
    return op.parent.ops.index(op)


def _same_element_when(loop: Op, access: Op, summed: Op) -> Optional[Value] | bool:
    """When the load or store ``access`` in ``loop`` reads or writes the element ``summed`` adds
    into: None if never (a constant index that differs); the value ``v`` if only in the iteration
    whose counter is ``v`` (``access`` indexes with the counter where ``summed`` has ``v``, and
    with the same values elsewhere); False when that is not known."""
    index, target = access_index(access), access_index(summed)
    if access.operands[0] is not summed.operands[0] or len(index) != len(target):
        return False
    counter = loop.regions[0].args[0]
    at: Optional[Value] = None
    for i, j in zip(index, target):
        if i is j:
            continue
        ci, cj = constant(i), constant(j)
        if ci is not None and cj is not None:
            if ci != cj:
                return None
            continue
        if i is not counter or (at is not None and j is not at):
            return False
        at = j
    return False if at is None else at  # (the same indices: the element itself, in every iteration)


def _carry(loop: Op, group: list[Op], meets: Optional[Value]) -> None:
    """``loop`` carries the sum of the additions ``group``, added into their element after it,
    and before the iteration whose counter is ``meets`` (when not None), which reads or writes
    the element under another index."""
    first = group[0]
    arr, index = first.operands[0], first.operands[1:-1]
    hint = element_hint(arr, list(index))
    zero = build.const(Builder(loop.parent, loop.loc).before_op(loop), 0.0, first.operands[-1].type)

    def summed(arg: Value) -> Value:
        total = arg if meets is None else _flushed(loop, arg, meets, arr, list(index), zero, hint)
        for a in group:
            total = Builder(a.parent, a.loc).before_op(a).op1("add", [total, a.operands[-1]], arg.type, hint)
        return total

    result = add_carried(loop, zero, summed, hint)
    erase_ops(group)
    block = loop.parent
    build.accum(Builder(block, loop.loc).at(block, block.ops.index(loop) + 1), arr, list(index), result)


def _flushed(loop: Op, total: Value, meets: Value, arr: Value, index: list[Value], zero: Value, hint: str) -> Value:
    """At the top of ``loop``'s body: in the iteration whose counter is ``meets``, the sum so far
    ``total`` goes into its element and the sum starts again from ``zero``; the sum from there on."""
    body = loop.regions[0]
    b = Builder(body, loop.loc).at(body, 0)
    then, other = Block(), Block()
    tb = Builder(then, loop.loc)
    build.accum(tb, arr, index, total)
    tb.create("yield", [zero], [])
    Builder(other, loop.loc).create("yield", [total], [])
    return b.create("if", [build.cmp(b, "eq", body.args[0], meets)], [total.type], regions=[then, other],
                    hints=[hint]).result
