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
variable (of a unit-step loop with such bounds, or with bounds that are counters of loops further
out: ``k < j < i < n``, a triangle, runs at most ``n - 2`` times) plus or minus a constant; and
for a ``while`` that divides a positive counter from a constant start
(``for (s = 32; s > 0; s /= 2)``, the tree reductions of GPU kernels): it runs
``floor(log_k(start)) + 1`` times at most, a constant.
"""

from __future__ import annotations

from typing import Callable, Optional

from ..ssa import build
from ..ssa.ir import Block, Builder, Op, Value
from ..ssa.structured import trip_count
from ..ssa.types import I64


def trip_bound(at: Builder, loop: Op, outer: list[Op], top: Block, fwd: Callable[[Value], Value]) -> Optional[Value]:
    """An upper bound of ``loop``'s trip count over the iterations of the ``outer`` loops around
    it, computed at ``at`` (before the outermost loop); None when none is found."""
    if loop.name == "while":
        trips = _dividing_trips(loop)
        return None if trips is None else build.const(at, trips, I64)
    step = build.const_value(loop.operands[2]) if loop.name == "for" else None
    if not isinstance(step, int) or step == 0:
        return None
    lb, ub = loop.operands[:2]
    hi, lo = (ub, lb) if step > 0 else (lb, ub)
    top_value = _extreme(at, hi, True, outer, top, fwd)
    bottom = _extreme(at, lo, False, outer, top, fwd)
    if top_value is None or bottom is None:
        return None
    # range(lb, ub, -s) runs while iv > ub: from ub up to lb, lb - ub values
    return trip_count(at, bottom, top_value, abs(step))


def _extreme(at: Builder, v: Value, upper: bool, outer: list[Op], top: Block,
             fwd: Callable[[Value], Value]) -> Optional[Value]:
    """The largest (``upper``) or smallest value ``v`` takes over the ``outer`` loops' iterations."""
    if _defined_in(v, top):
        return fwd(v)
    c = build.const_value(v)
    if isinstance(c, int) and not isinstance(c, bool):
        return build.const(at, c, I64)
    for loop in outer:
        if loop.name == "for" and v is loop.regions[0].args[0]:  # ifs and whiles have no counter
            step = build.const_value(loop.operands[2])
            if step not in (1, -1):
                return None
            # range(lb, ub, 1) spans [lb, ub - 1]; range(lb, ub, -1) spans [ub + 1, lb]; bounds that
            # are counters of loops further out (k < j < i: a triangle) by their own extremes
            lb, ub = loop.operands[:2]
            if step == 1:
                end = _extreme(at, ub, True, outer, top, fwd) if upper else _extreme(at, lb, False, outer, top, fwd)
                return None if end is None else build.sub(at, end, build.const(at, 1, I64)) if upper else end
            end = _extreme(at, lb, True, outer, top, fwd) if upper else _extreme(at, ub, False, outer, top, fwd)
            return None if end is None else end if upper else build.add(at, end, build.const(at, 1, I64))
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


_ABOVE = {"gt": 0, "ge": 1, "ne": 0}  # ``s > c``, ``s >= c``, ``s != 0``: how far above c the loop runs


def _dividing_trips(loop: Op) -> Optional[int]:
    """The trip count of ``while (s > c) { ...; s = s / k; }`` (``k >= 2``, ``s`` an integer that
    starts at a constant and changes nowhere else), found by running the counter; else None."""
    cond, body = loop.regions
    test = cond.terminator.operands[0].defining_op
    if test is None or test.name not in _ABOVE or test.operands[0] not in cond.args:
        return None
    k = cond.args.index(test.operands[0])
    limit, start = build.const_value(test.operands[1]), build.const_value(loop.operands[k])
    step = body.terminator.operands[k].defining_op
    if step is None or step.name not in ("div", "floordiv") or step.operands[0] is not body.args[k]:
        return None
    by = build.const_value(step.operands[1])
    if not all(isinstance(c, int) and not isinstance(c, bool) for c in (limit, start, by)) or by < 2:
        return None
    if limit < _ABOVE[test.name] or (test.name == "ne" and limit != 0) or start < 0:
        return None  # the loop must stop on a positive counter (s != 3 may step over 3)
    trips, s = 0, start
    while s > limit if test.name == "gt" else s >= limit if test.name == "ge" else s != 0:
        trips, s = trips + 1, s // by
    return trips


def _defined_in(v: Value, top: Block) -> bool:
    owner = v.owner if v.is_block_arg else v.defining_op.parent
    return owner is top
