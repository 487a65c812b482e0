"""The values a ``for``, ``while`` or ``if`` carries (``slots``): where each comes from and goes.

A ``for`` carries values from its operands after ``lb, ub, step`` through its body's block
arguments (after the induction variable) and yields to its results; a ``while`` from its
operands through the block arguments of both regions; an ``if`` only yields them, one per
region, to its results. This module only reads that layout (it imports nothing that builds
IR, so the analyses of values may use it); ``structured`` edits it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .ir import Op, Value

FIRST_INIT = {"for": 3, "while": 0}  # where the carried operands start
FIRST_ARG = {"for": 1, "while": 0}  # where the carried block arguments start


@dataclass(frozen=True)
class Slot:
    """The ``k``-th value ``op`` carries. Structured SSA's only merges: its ``targets`` (block
    arguments and result) take the value of its ``sources`` (init and yielded values)."""

    op: Op
    k: int

    @property
    def inits(self) -> list[Value]:
        first = FIRST_INIT.get(self.op.name)
        return [] if first is None else [self.op.operands[first + self.k]]

    @property
    def yields(self) -> list[Op]:
        """The terminators that yield into the slot: a loop's body, or both branches."""
        regions = self.op.regions if self.op.name == "if" else self.op.regions[-1:]
        return [r.terminator for r in regions]

    @property
    def sources(self) -> list[Value]:
        return self.inits + [y.operands[self.k] for y in self.yields]

    @property
    def targets(self) -> list[Value]:
        first = FIRST_ARG.get(self.op.name)
        args = [] if first is None else [r.args[first + self.k] for r in self.op.regions]
        return args + [self.op.results[self.k]]


def slots(op: Op) -> list[Slot]:
    """The values ``op`` carries (none unless it is a for, while or if)."""
    if op.name not in ("for", "while", "if"):
        return []
    return [Slot(op, k) for k in range(len(op.results))]


def slot_of(v: Value) -> Optional[Slot]:
    """The slot ``v`` is a target of, if any (not a function parameter, not a loop's index)."""
    if v.is_block_arg:
        op = v.owner.parent_op
        first = FIRST_ARG.get(op.name) if op is not None else None
        return None if first is None or v.index < first else Slot(op, v.index - first)
    op = v.defining_op
    return Slot(op, v.index) if op is not None and op.name in ("for", "while", "if") else None
