"""Which loops of straight-line code have iterations that touch only their own elements.

A counted loop whose body has no branch, loop or call, and whose every array write is at the
counter, ``x[i] = ...``, ``d_x[i] += ...``, with every other access of those arrays at the
counter too, has iterations that share no element they write: run in any order they do the
same, to the last bit (no element is added to by two of them). The reverse sweep's copies and
elementwise adjoints are such loops (``opt/forward_order`` runs them forward, which compilers
vectorize more readily; ``opt/gather`` makes one of a stencil's adjoint).

By root (``effects.array_root``): an array known only by a view of unknown root is not one of
them, nor is one whose memory the body also reaches under another name.
"""

from __future__ import annotations

from typing import Iterable, Optional

from ..analysis.effects import PassContext, array_root
from ..ssa.attrs import is_gradient
from ..ssa.ir import Module, Op, Value
from ..ssa.opdefs import is_pure

ACCESSES = ("load", "store", "accum")


def gradient_loops(module: Module, ctx: PassContext) -> list[Op]:
    """The ``for`` loops of the gradients of ``module`` that the gradient passes may rewrite: none
    under ``--may-alias`` (an array written might be another name of one read), none of CUDA's
    (a kernel's loops are its threads')."""
    if ctx.may_alias:
        return []
    return [op for fn in module.functions.values() if is_gradient(fn) and not fn.attrs.get("cuda")
            for op in fn.walk() if op.name == "for"]


def straight_body(loop: Op) -> Optional[list[Op]]:
    """The ops of ``loop``'s body (comments and the yield left out) when it is straight-line code
    of arithmetic and loads, stores and additions into arrays (none atomic); else None."""
    ops = [op for op in loop.regions[0].ops if op.name not in ("comment", "yield")]
    if any(op.regions or not (is_pure(op) or op.name in ACCESSES) or op.attrs.get("atomic") for op in ops):
        return None
    return ops


def own_elements(loop: Op, ops: list[Op], ignore: Iterable[Op] = ()) -> Optional[set[Value]]:
    """The arrays ``ops`` (``loop``'s straight body) write, other than by the ops ``ignore``, when
    each iteration touches only its own element of each (at the counter, by one name); else None."""
    iv = loop.regions[0].args[0]
    ignored = set(ignore)
    accessed = [op for op in ops if op.name in ACCESSES]
    roots = {op.operands[0]: array_root(op.operands[0]) for op in accessed}
    if any(r is None for r in roots.values()):
        return None
    written = {op.operands[0] for op in accessed if op.name != "load" and op not in ignored}
    for arr in written:
        for op in accessed:
            if roots[op.operands[0]] is not roots[arr]:
                continue
            if op.operands[0] is not arr or len(op.operands) != 2 + (op.name != "load") or op.operands[1] is not iv:
                return None
    return written
