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
Innermost loops first, so that a sum leaves a nest one loop at a time while its indices allow.
"""

from __future__ import annotations

from ..ssa.element_names import element_hint
from ..analysis.effects import PassContext, array_root
from ..analysis.iterations import gradient_loops
from ..ssa import build
from ..ssa.ir import Builder, Module, Op, Value, erase_ops
from ..ssa.structured import add_carried, made_inside
from .shadow_writes import same_element, shadow_blocks


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
        if not _touched_only_by(loop, root, group):
            continue
        _carry(loop, group)
        return True
    return False



def _touched_only_by(loop: Op, root: Value, group: list[Op]) -> bool:
    """Whether the ops in ``loop`` reach ``root``'s memory only by adding into it: no op but the
    additions ``group`` and other additions has an array operand of that root, or of a root not
    known."""
    allowed = set(group)
    for op in loop.walk():
        if op is loop or op in allowed or (op.name == "accum" and array_root(op.operands[0]) is root):
            continue
        for v in op.operands:
            if v.type.is_array and array_root(v) in (root, None):
                return False
    return True


def _carry(loop: Op, group: list[Op]) -> None:
    """``loop`` carries the sum of the additions ``group``, added into their element after it."""
    first = group[0]
    arr, index = first.operands[0], first.operands[1:-1]
    hint = element_hint(arr, list(index))
    zero = build.const(Builder(loop.parent, loop.loc).before_op(loop), 0.0, first.operands[-1].type)

    def summed(arg: Value) -> Value:
        total = arg
        for a in group:
            total = Builder(a.parent, a.loc).before_op(a).op1("add", [total, a.operands[-1]], arg.type, hint)
        return total

    result = add_carried(loop, zero, summed, hint)
    erase_ops(group)
    block = loop.parent
    build.accum(Builder(block, loop.loc).at(block, block.ops.index(loop) + 1), arr, list(index), result)
