"""The reverse sweep's blocks under construction, and the small facts about primal code that
every part of reverse mode asks (where a value is defined, which source line an op is on)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ..ssa import build
from ..ssa.ir import Block, Builder, Function, Op, Value
from ..ssa.structured import add_if_result
from ..ssa.types import BOOL, I64


@dataclass
class RevBlock:
    """A reverse block under construction, mirroring one primal block."""

    primal: Block
    block: Block
    parent: Optional["RevBlock"]
    prologue: Builder  # inserts before the block's adjoint code (pops, recomputation)
    body: Builder  # appends adjoint code
    avail: dict[Value, Value] = field(default_factory=dict)
    adj: dict[Value, Value] = field(default_factory=dict)
    shadow_views: dict[Value, Value] = field(default_factory=dict)  # primal view -> its shadow here
    last_comment_line: int = 0
    # (init, yield) of the values the reversed loop carries besides adjoints: counters counted
    # back (``counters.py``), each a block argument added after the others.
    carries: list[tuple[Value, Value]] = field(default_factory=list)

    def mirror_of(self, primal: Block) -> "RevBlock":
        r: Optional[RevBlock] = self
        while r is not None and r.primal is not primal:
            r = r.parent
        assert r is not None, "value used outside its scope"
        return r


def defining_block(v: Value) -> Block:
    return v.owner if v.is_block_arg else v.owner.parent


def describe(v: Value) -> str:
    """A name for an unnamed value in tapes: its source name, or the function it comes from."""
    if v.name_hint:
        return v.name_hint
    op = v.defining_op
    if op is None:
        return ""
    if op.name == "call":
        return f"{op.attrs['callee']}_value"
    if v.type == BOOL:
        return "cond"
    if op.name == "load" and op.operands[0].name_hint:
        return f"{op.operands[0].name_hint}_elem"
    return ""


def line_of(op: Op) -> int:
    return op.loc.line if op.loc else 0


def top_level_index(fn: Function, op: Op) -> int:
    """The position in ``fn``'s body of the top-level op that is or contains ``op``."""
    while op.parent is not fn.body:
        op = op.parent.parent_op
    return fn.body.ops.index(op)


def floordiv(b: Builder, x: Value, y: Value, **attrs: Any) -> Value:
    return build.binary(b, "floordiv", x, y, **attrs)


def extent_at(b: Builder, arr: Value, axis: int, hint: str) -> Value:
    """The extent of ``arr`` along ``axis`` at ``b``: a row's is its matrix's along the next axis,
    an offset view's is its base's less its offset, an operand of its own (C prints a view's
    extent from its offset, which must then be at hand). A cover will do in C (``analysis.extents``): the
    elements a copy holds are all a stack needs."""
    op = arr.defining_op
    if op is not None and op.name == "view":
        base = op.operands[0]
        dropped = base.type.rank - arr.type.rank
        if dropped:  # a row of a matrix (``A[i]``): the base's trailing extents
            return extent_at(b, base, axis + dropped, hint)
        return b.op1("sub", [extent_at(b, base, axis, ""), op.operands[1]], I64, hint)
    if op is not None and op.name == "if":
        # An array a branch made (a copy taken before a call in it): its extent is carried out of
        # the if beside it, each branch's own (none where the branch made none), as C cannot read
        # the extent of an array from the variable that names it after the if.
        def carried(region: Block) -> Value:
            yielded = region.terminator.operands[arr.index]
            inner = Builder(region, op.loc).before_op(region.terminator)
            made = yielded.defining_op
            if made is not None and made.name == "undef":
                return build.const(inner, 0, I64)
            return extent_at(inner, yielded, axis, "")

        return add_if_result(op, carried, I64, hint)
    return b.op1("dim", [arr], I64, hint, axis=axis, cover=True)


def least(b: Builder, x: Value, y: Value, hint: str = "") -> Value:
    """``min(x, y)`` of two integers."""
    return build.select(b, build.cmp(b, "lt", x, y), x, y, hint)
