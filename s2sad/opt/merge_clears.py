"""Merge an adjoint cleared and then added to into one store: ``d_y[i] = v``.

Reverse mode reads the adjoint of an element that the statement overwrote, clears it, and then
adds what flows back into that same element when the statement also read it:
``y[c] *= a`` reverses to ``d_y_c = d_y[c]; d_y[c] = 0.0; d_y[c] += d_y_c * a``. The clear and
the addition are one store, ``d_y[c] = d_y_c * a``, which is what a person writes and what a
reviewer expects to read.

Only in shadows (``shadow_writes``: there ``0.0 + v`` is ``v`` but for the sign of a zero, and
an adjoint's zero is only added to and multiplied, never divided by or compared). The two ops
merge when they are in one block, write the same element (``shadow_writes.same_element``), and
the addition is the next op that touches that memory (``shadow_writes.next_touch``: no read or
write of it, barrier or return between). An atomic addition is left alone: other threads add
into that element too.
"""

from __future__ import annotations

from ..analysis.effects import EffectAnalysis, PassContext, array_root
from ..ssa.ir import Block, Module, Op, Value, erase_ops
from .shadow_writes import constant, next_touch, same_element, shadow_blocks


def run(module: Module, ctx: PassContext) -> None:
    effects = EffectAnalysis(module)
    for block, shadows in shadow_blocks(module):
        _merge_in(block, shadows, effects, ctx)


def _merge_in(block: Block, shadows: set[Value], effects: EffectAnalysis, ctx: PassContext) -> None:
    ops = block.ops
    merged: list[Op] = []  # the clears and the additions replaced, erased together (ir.erase_ops)
    for at, clear in enumerate(ops):
        if not _is_clear(clear) or array_root(clear.operands[0]) not in shadows:
            continue
        k = next_touch(ops, at, effects, ctx)
        accum = ops[k] if k is not None else None
        if accum is None or accum.name != "accum" or accum.attrs.get("atomic") or not same_element(accum, clear):
            continue
        ops[k] = Op("store", list(accum.operands), [], dict(accum.attrs), loc=accum.loc)  # in its place
        ops[k].parent = block
        merged += [clear, accum]
    erase_ops(merged)


def _is_clear(op: Op) -> bool:
    """A plain store of the constant zero."""
    return op.name == "store" and not op.attrs.get("atomic") and constant(op.operands[-1]) == 0
