"""What the passes that tidy a gradient's writes to its shadows share (``merge_clears``,
``merge_accums``): which blocks write a shadow, whether two writes hit one element, and the
next op after a write that touches that element's memory.

Only shadows: the shadow parameters of a gradient (``ssa.attrs.shadows_of``) and the adjoints
of its local arrays (allocations marked ``shadow``). Their values are
adjoints, only ever added to and multiplied, so ``0.0 + v`` for ``v`` and ``d + (u + v)`` for
``(d + u) + v`` change nothing a caller may rely on. The primal's memory keeps the rounding and
the signs of zeros that the source's own arithmetic gives it (``test_signed_zeros``).
"""

from __future__ import annotations

from typing import Iterator, Optional

from ..analysis.effects import EffectAnalysis, PassContext, array_root, constant_difference
from ..ssa.attrs import is_gradient, shadows_of
from ..ssa.ir import Block, Module, Op, Value
from ..ssa.opdefs import op_def


def shadow_blocks(module: Module) -> Iterator[tuple[Block, set[Value]]]:
    """Every block of every gradient, with the gradient's shadows: its shadow parameters, and the
    adjoint memory of its local arrays (an ``alloc`` reverse mode marks ``shadow``), which a
    helper's gradient inlined into it adds to as it added to its own shadow parameter."""
    for fn in module.functions.values():
        shadows = {fn.params[s] for s in shadows_of(fn)}
        if not shadows and not is_gradient(fn):
            continue
        ops = list(fn.walk())
        shadows |= {op.result for op in ops if op.name == "alloc" and op.attrs.get("shadow")}
        if not shadows:
            continue
        yield fn.body, shadows
        for op in ops:
            for block in op.regions:
                yield block, shadows


def same_element(a: Op, b: Op) -> bool:
    """Whether two writes (``store``, ``accum``) hit the same element: the same array value, and
    each index the same value or an equal constant (a constant may be defined twice)."""
    if a.operands[0] is not b.operands[0] or len(a.operands) != len(b.operands):
        return False
    return all(i is j or (constant(i) is not None and constant(i) == constant(j))
               for i, j in zip(a.operands[1:-1], b.operands[1:-1]))


def distinct_elements(a: Op, b: Op) -> bool:
    """Whether two accesses of one array value (``load``, ``store``, ``accum``) are evidently of
    different elements: at some index, one is the other plus a constant other than 0 (``i`` and
    ``i + 1``, ``0`` and ``2``)."""
    ia, ib = access_index(a), access_index(b)
    if a.operands[0] is not b.operands[0] or len(ia) != len(ib):
        return False
    return any(constant_difference(i, j) not in (None, 0) for i, j in zip(ia, ib))


def access_index(access: Op) -> list[Value]:
    """The indices of a ``load``, ``store`` or ``accum``."""
    return list(access.operands[1:] if access.name == "load" else access.operands[1:-1])


def constant(v: Value) -> Optional[object]:
    op = v.defining_op
    return op.attrs.get("value") if op is not None and op.name == "const" else None


def next_touch(ops: list[Op], at: int, effects: EffectAnalysis, ctx: PassContext) -> Optional[int]:
    """The position of the first op after ``ops[at]`` (a write) that may read or write the
    memory it writes (``EffectAnalysis``: arrays passed to a function do not overlap, unless
    ``--may-alias``); None when a barrier, a return or the block's end comes first. By position,
    so that a pass walking a long block asks no list for an op's index."""
    root = array_root(ops[at].operands[0])
    for k in range(at + 1, len(ops)):
        op = ops[k]
        if op_def(op.name).terminator or any(inner.name == "return" or effects.waits(inner) for inner in op.walk()):
            return None
        if effects.read_roots(op).may_touch(root, ctx) or effects.written_roots(op).may_touch(root, ctx):
            return k
    return None
