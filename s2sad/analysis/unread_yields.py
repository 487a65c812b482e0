"""Which ``undef`` operands of an ``if``'s ``yield`` are never read: copies the emitters drop.

An ``if`` whose result has a value in one branch only yields ``undef`` in the
other (the guard LICM puts around work hoisted out of a loop that may run zero
times, ``if n > 0:``; a value the reverse sweep needs escaped out of a branch).
Printed naively, that branch assigns a dead default (``else: mag_value = 0.0``).
The default is never read when every use of the result sits in a region that runs
only when the same condition value chose the *other* branch: an ``if`` on the
same SSA condition (so, the same truth value), in the region opposite to the one
that yields ``undef``. That is the shape of a forward sweep's guarded loop and
its reverse sweep's mirrored ``if``. Such a yield operand is *unread*: emitting
no copy for it leaves the variable unassigned on a path where nothing reads it
(Numba output keeps the copy where the variable is shared with another value, see
``emit_py.emitter``).

Precondition: structured SSA as the verifier accepts it. The analysis only reads
the IR.
"""

from __future__ import annotations

from ..ssa.ir import Block, Function, Op, Value


def unread_undef_yields(fn: Function) -> set[tuple[Op, int]]:
    """``(yield, k)`` for each ``undef`` operand ``k`` of an ``if`` branch's ``yield`` whose
    result is never read when that branch runs."""
    out: set[tuple[Op, int]] = set()
    for op in fn.walk():
        if op.name != "if" or len(op.regions) != 2:
            continue
        for side, region in enumerate(op.regions):
            term = region.terminator
            for k, v in enumerate(term.operands):
                d = v.defining_op
                if d is None or d.name != "undef":
                    continue
                if all(_under_other_branch(user, op.operands[0], side) for user, _ in op.results[k].uses):
                    out.add((term, k))
    return out


def _under_other_branch(user: Op, cond: Value, side: int) -> bool:
    """Whether ``user`` runs only inside region ``1 - side`` of an ``if`` on ``cond``."""
    block: Block = user.parent
    while block is not None and block.parent_op is not None:
        owner = block.parent_op
        if owner.name == "if" and owner.operands[0] is cond and len(owner.regions) == 2:
            if owner.regions[1 - side] is block:
                return True
        block = owner.parent
    return False


__all__ = ["unread_undef_yields"]
