"""A branch of ``np.where`` that is undefined where it is not chosen, masked before it is
computed: ``np.where(x > 0, np.sqrt(x), 0.0)`` as ``np.where(x > 0, np.sqrt(np.where(x > 0, x,
1.0)), 0.0)``.

NumPy computes both branches of ``np.where`` everywhere. Where the test rules a branch out, its
value is thrown away, but its derivative is not: the adjoint ``where(c, g, 0)`` reaches the
branch as 0, and 0 times the derivative of ``sqrt`` at a negative number (NaN) or at 0 (inf)
is NaN, added into the adjoint of ``x`` (probe round 9: the gradient of the guarded ``sqrt`` was
NaN at every negative x, where it is 0). Masking what the branch reads by the same test, with
1.0 where it is ruled out, changes no value the ``where`` keeps, and the mask's own adjoint
``where(c, g, 0)`` stops whatever the branch's derivative is at the elements it throws away.

Only branches that need it are masked: a chain of elementwise operations, each used once (by
the next or by the ``where``), in the block of the ``where`` after its test, with an operation
whose derivative may be infinite or undefined at a finite argument (``ssa.opdefs.SINGULAR``). Numbers
chosen by ``select`` (``np.where`` of numbers) are masked the same way.
"""

from __future__ import annotations

from typing import Optional

from ..analysis.effects import PassContext
from ..ssa import build
from ..ssa import array_ops
from ..ssa.array_ops import PREFIX
from ..ssa.ir import Builder, Module, Op, Value
from ..ssa.opdefs import computed_per_element, singular
from ..ssa.types import ArrayType


def _chain(branch: Value, where: Op) -> Optional[list[Op]]:
    """The elementwise ops that make ``branch`` for ``where`` alone, in the ``where``'s block after
    its test; None when ``branch`` is made otherwise."""
    block, test = where.parent, where.operands[0].defining_op
    first = block.ops.index(test) if test is not None and test.parent is block else -1
    chain: list[Op] = []
    todo = [branch]
    while todo:
        v = todo.pop()
        op = v.defining_op
        if op is None or op.parent is not block or computed_per_element(op) is None or len(v.uses) != 1 \
                or block.ops.index(op) < first:
            if v is branch:
                return None
            continue  # (a value the chain reads: masked)
        chain.append(op)
        todo += [o for o in op.operands if o.type.is_float or isinstance(o.type, ArrayType)]
    return chain


def _masked(where: Op, k: int) -> bool:
    """Mask what the branch ``k`` (1: chosen where the test holds, 2: where it fails) reads."""
    chain = _chain(where.operands[k], where)
    if not chain or not any(singular(op) for op in chain):
        return False
    made = {op.result for op in chain}
    test = where.operands[0]
    first = min(chain, key=lambda op: where.parent.ops.index(op))
    b = Builder(where.parent, where.loc).before_op(first)
    masks: dict[Value, Value] = {}
    for op in chain:
        for i, o in enumerate(op.operands):
            if o in made or build.const_value(o) is not None or not (o.type.is_float or (
                    isinstance(o.type, ArrayType) and o.type.elem.is_float)):
                continue
            if o not in masks:
                one = build.const(b, 1.0, o.type.elem if isinstance(o.type, ArrayType) else o.type)
                pair = [o, one] if k == 1 else [one, o]
                t = array_ops.result_type(where.name, [test.type, *(v.type for v in pair)], {}) \
                    if where.name != "select" else o.type
                assert not isinstance(t, str), t
                hint = f"{o.name_hint}_masked" if o.name_hint else "masked"
                masks[o] = b.create(where.name, [test, *pair], [t], dict(where.attrs), hints=[hint]).result
            op.set_operand(i, masks[o])
    return bool(masks)


def run(module: Module, ctx: PassContext) -> None:
    for fn in module.functions.values():
        for op in [op for op in fn.walk() if op.name in (PREFIX + "where", "select")]:
            if op.name == "select" and not op.result.type.is_float:
                continue
            for k in (1, 2):
                _masked(op, k)
