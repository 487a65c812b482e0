"""Where things are in a function's region tree, and which values are live where.

``Layout`` numbers every op (its index in its block, and a pre-order number with
the extent of its nested regions), so that "is this op inside that loop",
"which op of this block contains that one" and "does this definition dominate
that one" are cheap questions.

``Liveness`` answers "is value v live just after this point" directly on the
structured IR, without building a CFG: v is live after op k of block B when an
op of B after k uses it (a use nested in a later op's region counts), or when v
is live at the end of B. A value defined in B dies at B's end (the next
iteration of a loop redefines it). Otherwise B is a region of op O: after an
``if`` branch control goes to what follows O; after a loop body (or a while's
condition) it may also go round again, so a value from outside the loop that is
used anywhere in it stays live to the end of every region of O.

Uses are counted where the emitted code will evaluate them: a value folded into
another's expression is "used" by the statement that prints that expression
(its *anchor*, given by the inline plan). This is what makes coalescing safe
after inlining: an expression moved past a reassignment of one of its
operands' variables makes that operand live across it.

Liveness by query on structured code follows Boissinot et al., "Fast Liveness
Checking for SSA-Form Programs" (CGO 2008), specialised to regions.
"""

from __future__ import annotations

import bisect
from typing import Callable, Optional

from ..ssa.ir import Block, Function, Op, Value

Point = tuple[Block, int]  # just after op ``index`` of ``block`` (-1: at entry, after its args)


class Layout:
    def __init__(self, fn: Function):
        self.fn = fn
        self.index: dict[Op, int] = {}
        self.pre: dict[Op, int] = {}
        self.last: dict[Op, int] = {}
        self._n = 0
        self._starts: dict[Block, list[int]] = {}  # a block's ops' pre-order numbers (ancestor_in)
        self._number(fn.body)

    def _number(self, block: Block) -> None:
        for i, op in enumerate(block.ops):
            self.index[op] = i
            self.pre[op] = self._n
            self._n += 1
            for r in op.regions:
                self._number(r)
            self.last[op] = self._n - 1

    def strictly_inside(self, op: Op, outer: Op) -> bool:
        return self.pre[outer] < self.pre[op] <= self.last[outer]

    def ancestor_in(self, op: Op, block: Block) -> Optional[Op]:
        """The op of ``block`` that is ``op`` or contains it; None when ``op`` is not below ``block``.

        By the numbering: ``block``'s ops and everything inside them are one run of pre-order
        numbers, each op's own a sub-run, so a binary search finds the one whose run holds ``op``'s
        number: a walk up from ``op`` costs its depth, and deeply nested code (an ``else if``
        chain 1,000 long) asks this for every pair of values (fuzz: hangs past 60 s)."""
        at = self.pre.get(op)
        first = self.pre.get(block.ops[0]) if at is not None and block.ops else None
        if first is not None and block.ops[-1] in self.last:
            if not first <= at <= self.last[block.ops[-1]]:
                return None
            starts = self._starts.get(block)
            if starts is None or len(starts) != len(block.ops):
                starts = self._starts[block] = [self.pre.get(o, -1) for o in block.ops]
            k = bisect.bisect_right(starts, at) - 1
            found = block.ops[k] if k >= 0 else None
            if found is not None and self.pre.get(found) == starts[k] and at <= self.last[found]:
                return found
        while op.parent is not block:
            outer = op.parent.parent_op if op.parent is not None else None
            if outer is None:
                return None
            op = outer
        return op

    def def_point(self, v: Value) -> Point:
        if v.is_block_arg:
            return v.owner, -1
        op = v.defining_op
        return op.parent, self.index[op]

    def dominates(self, a: Point, b: Point) -> bool:
        """Whether a definition at ``a`` is visible (already made) at point ``b``."""
        block_a, ia = a
        block_b, ib = b
        if block_a is block_b:
            return ia <= ib
        # The op of block_a that holds b (by the numbering, not a walk up: deep nests ask this
        # for every pair of values); a result of that op is made only after it.
        owner = block_b.parent_op
        holder = self.ancestor_in(owner, block_a) if owner is not None and owner.parent is not None else None
        return holder is not None and ia < self.index[holder]


def defined_in(v: Value, block: Block) -> bool:
    if v.is_block_arg:
        return v.owner is block
    return v.defining_op.parent is block


class Liveness:
    """Liveness queries; ``anchors(v)`` gives the ops where v's uses are evaluated."""

    def __init__(self, layout: Layout, anchors: Callable[[Value], list[Op]], early: frozenset = frozenset()):
        self.layout = layout
        self.anchors = anchors
        # Results whose variables are written before their op reads its operands (C passes
        # the address of a zeroed adjoint to a gradient that adds to it): they interfere with
        # every value that op reads.
        self.early = early
        self._last_local: dict[Value, int] = {}
        self._at_end: dict[tuple[Value, Block], bool] = {}

    def live_after(self, v: Value, block: Block, index: int) -> bool:
        anchors = self.anchors(v)
        for a in anchors:
            x = self.layout.ancestor_in(a, block)
            if x is not None and self.layout.index[x] > index:
                return True
        return self._live_at_end(v, block, anchors)

    def _live_at_end(self, v: Value, block: Block, anchors: list[Op]) -> bool:
        # A question of v and the block alone, asked again for every point of the block and of the
        # blocks inside it: answered once (deep nesting made it a walk to the top each time).
        key = (v, block)
        if key not in self._at_end:
            self._at_end[key] = self._ask_live_at_end(v, block, anchors)
        return self._at_end[key]

    def _ask_live_at_end(self, v: Value, block: Block, anchors: list[Op]) -> bool:
        if defined_in(v, block):
            return False
        op = block.parent_op
        if op is None or op.parent is None:
            return False
        if op.name in ("for", "while") and any(self.layout.strictly_inside(a, op) for a in anchors):
            return True
        return self.live_after(v, op.parent, self.layout.index[op])

    def intersect(self, a: Value, b: Value) -> bool:
        """Whether ``a`` and ``b`` cannot share a variable (their live ranges overlap).

        In SSA, two live ranges overlap iff one value is live where the other is
        defined (Budimlic et al., PLDI 2002). A definition writes its variable even
        when the value is never read, so only liveness of the earlier one matters.
        """
        if a is b:
            return False
        pa, pb = self.layout.def_point(a), self.layout.def_point(b)
        if pa[0] is pb[0] and pa[1] == pb[1]:
            return True  # made together (block arguments, results of one op)
        if pa[0] is pb[0]:  # one block: live_after, with the uses' positions worked out once
            first, second, at = (a, b, pb[1]) if pa[1] < pb[1] else (b, a, pa[1])
            return self._last_use_in_block(first) > at or self._read_by_early_def(first, second)
        if self.layout.dominates(pa, pb):
            return self.live_after(a, *pb) or self._read_by_early_def(a, b)
        if self.layout.dominates(pb, pa):
            return self.live_after(b, *pa) or self._read_by_early_def(b, a)
        return False

    def _last_use_in_block(self, v: Value) -> int:
        """The last position, in the block that defines ``v``, of a statement that evaluates a
        use of it (-2 when none): ``live_after(v, that block, i)`` is exactly ``i`` below it."""
        last = self._last_local.get(v)
        if last is None:
            block = self.layout.def_point(v)[0]
            ancestors = (self.layout.ancestor_in(a, block) for a in self.anchors(v))
            last = self._last_local[v] = max((self.layout.index[x] for x in ancestors if x is not None), default=-2)
        return last

    def span(self, v: Value) -> tuple[int, int]:
        """Pre-order numbers that bound where ``v`` is live: from its definition (a block
        argument: the op that owns the block; a parameter: -1) to the last op a use keeps it
        live to (a use inside a loop that does not hold the definition: the loop's last op).
        Values whose spans do not overlap never ``intersect``: every way ``intersect`` finds
        a value live where the other is made lies inside both spans. A cheap test first, for
        the many pairs of a long function that are far apart."""
        if v.is_block_arg:
            owner = v.owner.parent_op
            start = self.layout.pre[owner] if owner is not None else -1
        else:
            start = self.layout.pre[v.defining_op]
        end = start
        for a in self.anchors(v):
            end = max(end, self.layout.pre[a])
            op = a.parent.parent_op if a.parent is not None else None
            while op is not None and not self.layout.pre[op] <= start <= self.layout.last[op]:
                if op.name in ("for", "while"):
                    end = max(end, self.layout.last[op])
                op = op.parent.parent_op if op.parent is not None else None
        return start, end

    def _read_by_early_def(self, a: Value, b: Value) -> bool:
        """Whether ``b`` is written before its op reads ``a`` (see ``early``)."""
        return b in self.early and b.defining_op is not None and b.defining_op in self.anchors(a)
