"""Add a statement's contributions to one adjoint element together before adding them to it.

Reverse mode adds into a shadow once per read of the element: ``y[2] += (y[3] - y[3]) * s``
reverses to ``d_y[3] -= t; d_y[3] += t``. In exact arithmetic that is ``d_y[3] += t - t``; in
floating point it is not when ``t`` is large: ``d_y[3]`` holds the caller's seed (-0.87), and
``-0.87 - 1.7e15 + 1.7e15`` is 0.0, the seed lost (fuzz seed 11200059), where ``t - t`` is
exactly 0. So the additions into one element that follow each other (nothing between them
touches that memory: ``shadow_writes.next_touch``) become one, ``d_y[3] += -t + t``, as reverse
mode does for a value read twice: it sums the adjoints of the reads, then adds the sum. This is
part of writing the adjoint, not an optimization: it runs at every level, -O0 included.

Only in shadows (``shadow_writes``: the primal's own ``y[i] += a; y[i] += b`` keeps the
rounding the source gives it). Atomic additions are left alone.
"""

from __future__ import annotations

from ..analysis.effects import EffectAnalysis, PassContext, array_root
from ..ssa import build
from ..ssa.ir import Block, Builder, Module, Op, Value, erase_ops
from .shadow_writes import next_touch, same_element, shadow_blocks


def run(module: Module, ctx: PassContext) -> None:
    effects = EffectAnalysis(module)
    for block, shadows in shadow_blocks(module):
        _merge_in(block, shadows, effects, ctx)


def _merge_in(block: Block, shadows: set[Value], effects: EffectAnalysis, ctx: PassContext) -> None:
    ops = block.ops
    merged: list[Op] = []  # erased together at the end (ir.erase_ops): no op is looked for in the list
    for at, first in enumerate(ops):  # an add inserted ahead is walked too: it is no accum
        if first.name != "accum" or first.attrs.get("atomic") or array_root(first.operands[0]) not in shadows:
            continue
        k = next_touch(ops, at, effects, ctx)
        second = ops[k] if k is not None else None
        if second is None or second.name != "accum" or second.attrs.get("atomic") or not same_element(first, second):
            continue
        b = Builder(block, second.loc).before_op(second)  # the sum, right before the second addition
        second.set_operand(len(second.operands) - 1, build.add(b, first.operands[-1], second.operands[-1]))
        merged.append(first)
    erase_ops(merged)
