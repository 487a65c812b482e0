"""Copying ops, regions included, to another place: what inlining and checkpointing share.

``vmap`` maps the originals' values (operands, block arguments, results) to
their copies and grows as ops are copied; an operand it does not hold is asked
of ``outer`` (a value defined outside the copied ops), or must be there when
there is no ``outer``.
"""

from __future__ import annotations

from typing import Callable, Optional

from .ir import Block, Builder, Op, Value


def clone_op(op: Op, b: Builder, vmap: dict[Value, Value], outer: Optional[Callable[[Value], Value]] = None) -> Op:
    """A copy of ``op`` made with ``b``."""
    regions = []
    for r in op.regions:
        nb = Block([a.type for a in r.args], [a.name_hint for a in r.args])
        vmap.update(zip(r.args, nb.args))
        regions.append(nb)
    new = b.create(
        op.name,
        [vmap[v] if v in vmap or outer is None else outer(v) for v in op.operands],
        [r.type for r in op.results],
        dict(op.attrs),
        regions,
        [r.name_hint for r in op.results],
        op.loc,
    )
    vmap.update(zip(op.results, new.results))
    for r, nb in zip(op.regions, regions):
        clone_ops(r.ops, Builder(nb, op.loc), vmap, outer)
    return new


def clone_ops(ops: list[Op], b: Builder, vmap: dict[Value, Value],
              outer: Optional[Callable[[Value], Value]] = None) -> None:
    """Copies of ``ops``, in order, made with ``b``."""
    for op in ops:
        clone_op(op, b, vmap, outer)
