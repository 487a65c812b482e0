"""Merge an adjoint cleared and then added to into one store: ``d_y[i] = v``.

Reverse mode reads the adjoint of an element that the statement overwrote, clears it, and then
adds what flows back into that same element when the statement also read it:
``y[c] *= a`` reverses to ``d_y_c = d_y[c]; d_y[c] = 0.0; d_y[c] += d_y_c * a``. The clear and
the addition are one store, ``d_y[c] = d_y_c * a``, which is what a person writes and what a
reviewer expects to read.

Only in shadows (``shadow_writes``: there ``0.0 + v`` is ``v`` but for the sign of a zero, and
an adjoint's zero is only added to and multiplied, never divided by or compared). The two ops
merge when they are in one block, write the same element (``shadow_writes.same_element``), and
nothing but additions touches that memory between them (``shadow_writes.next_touch``: no read or
write of it, barrier or return between). An addition in between that may reach the cleared
element under another index (Floyd-Warshall's ``d_path[k][j]`` beside ``d_path[i][j]``, one
element when ``i == k``) moves after the store, unless a source line's comment stands between
them. An atomic addition is left alone: other threads add into that element too.
"""

from __future__ import annotations

from ..analysis.effects import EffectAnalysis, PassContext, array_root
from ..ssa.ir import Block, Module, Op, Value, erase_ops
from .shadow_writes import constant, distinct_elements, next_touch, same_element, shadow_blocks


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
        others: list[Op] = []  # additions in between that may reach the element under another index
        first = k
        while k is not None and _is_addition(ops[k]) and not same_element(ops[k], clear):
            if not distinct_elements(ops[k], clear):
                if not others:
                    first = k
                others.append(ops[k])
            k = next_touch(ops, k, effects, ctx)
        accum = ops[k] if k is not None else None
        if accum is None or not _is_addition(accum) or not same_element(accum, clear):
            continue
        if others and any(op.name == "comment" for op in ops[first:k]):
            continue  # (they would move away from the source line they stand under)
        store = Op("store", list(accum.operands), [], dict(accum.attrs), loc=accum.loc)
        store.parent = block
        # The store in the addition's place, and the additions in between after it, as one of
        # them may reach the element under another index: sums commute, and nothing in between
        # reads that memory.
        ops[at + 1 : k + 1] = [op for op in ops[at + 1 : k] if op not in others] + [store, *others]
        merged += [clear, accum]
    erase_ops(merged)


def _is_addition(op: Op) -> bool:
    return op.name == "accum" and not op.attrs.get("atomic")


def _is_clear(op: Op) -> bool:
    """A plain store of the constant zero."""
    return op.name == "store" and not op.attrs.get("atomic") and constant(op.operands[-1]) == 0
