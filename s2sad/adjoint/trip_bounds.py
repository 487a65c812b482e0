"""Upper bounds of loop trip counts, for tapes allocated once.

A tape inside loops whose trip counts are all known before the outermost loop
is an array indexed by the iteration (``reverse._tape``). When an inner loop's
bounds move with an outer induction variable (``for (j = i + 1; j < n; j++)``),
the exact count of pushes is a sum, not a product; its largest value over the
outer loop's range still is one: the ``j`` loop runs at most ``n - (0 + 1)``
times when ``i`` starts at 0. A stack of that capacity never grows, so the
forward sweep allocates it once and pushes without a check.

Bounds are found for an inner ``for`` with a constant step whose bounds are
values computed before the outermost loop, or an outer loop's induction
variable (of a unit-step loop with such bounds) plus or minus a constant.
"""

from __future__ import annotations

from typing import Callable, Optional

from ..ssa import build
from ..ssa.ir import Block, Builder, Op, Value
from ..ssa.types import I64


def trip_bound(at: Builder, loop: Op, outer: list[Op], top: Block, fwd: Callable[[Value], Value]) -> Optional[Value]:
    """An upper bound of ``loop``'s trip count over the iterations of the ``outer`` loops around
    it, computed at ``at`` (before the outermost loop); None when none is found."""
    step = build.const_value(loop.operands[2]) if loop.name == "for" else None
    if not isinstance(step, int) or step == 0:
        return None
    lb, ub = loop.operands[:2]
    hi, lo = (ub, lb) if step > 0 else (lb, ub)
    top_value = _extreme(at, hi, True, outer, top, fwd)
    bottom = _extreme(at, lo, False, outer, top, fwd)
    if top_value is None or bottom is None:
        return None
    span = build.sub(at, top_value, bottom)  # range(lb, ub, -s) runs while iv > ub: lb - ub values
    size = abs(step)
    if size != 1:
        span = build.binary(at, "floordiv", build.add(at, span, build.const(at, size - 1, I64)),
                            build.const(at, size, I64))
    return build.math(at, "max", span, build.const(at, 0, I64))


def _extreme(at: Builder, v: Value, upper: bool, outer: list[Op], top: Block,
             fwd: Callable[[Value], Value]) -> Optional[Value]:
    """The largest (``upper``) or smallest value ``v`` takes over the ``outer`` loops' iterations."""
    if _defined_in(v, top):
        return fwd(v)
    c = build.const_value(v)
    if isinstance(c, int) and not isinstance(c, bool):
        return build.const(at, c, I64)
    for loop in outer:
        if v is loop.regions[0].args[0] and loop.name == "for":
            step = build.const_value(loop.operands[2])
            lb, ub = loop.operands[:2]
            if step not in (1, -1) or not (_defined_in(lb, top) and _defined_in(ub, top)):
                return None
            # range(lb, ub, 1) spans [lb, ub - 1]; range(lb, ub, -1) spans [ub + 1, lb]
            if step == 1:
                return build.sub(at, fwd(ub), build.const(at, 1, I64)) if upper else fwd(lb)
            return fwd(lb) if upper else build.add(at, fwd(ub), build.const(at, 1, I64))
    op = v.defining_op
    if op is None or op.name not in ("add", "sub"):
        return None
    x, y = op.operands
    c = build.const_value(y)
    if isinstance(c, int) and not isinstance(c, bool):
        base = _extreme(at, x, upper, outer, top, fwd)
        return None if base is None else build.add(at, base, build.const(at, c if op.name == "add" else -c, I64))
    c = build.const_value(x)
    if op.name == "add" and isinstance(c, int) and not isinstance(c, bool):
        base = _extreme(at, y, upper, outer, top, fwd)
        return None if base is None else build.add(at, base, build.const(at, c, I64))
    return None


def _defined_in(v: Value, top: Block) -> bool:
    owner = v.owner if v.is_block_arg else v.defining_op.parent
    return owner is top
