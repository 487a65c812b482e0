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


def fixed_trips(at: Builder, loop: Op, top: Block, fwd: Callable[[Value], Value]) -> Optional[Value]:
    """``loop``'s trip count computed at ``at`` (before its nest), where its bounds are sums and
    differences of values made before the nest and constants, the same in every iteration of the
    loops around it; else None. Constants fold: ``for (i = 1; i < n - 1; i++)`` runs
    ``max(n - 2, 0)`` times."""
    step = build.const_value(loop.operands[2]) if loop.name == "for" else None
    if not isinstance(step, int) or isinstance(step, bool) or step == 0:
        return None
    lb, ub = (_linear(v, [], top, fwd) for v in loop.operands[:2])
    if lb is None or ub is None:
        return None
    span = (ub.plus(lb, -1) if step > 0 else lb.plus(ub, -1)).value(at)  # type: ignore[union-attr]
    return trip_count(at, build.const(at, 0, I64), span, abs(step))


def fixed_value(at: Builder, v: Value, top: Block, fwd: Callable[[Value], Value]) -> Optional[Value]:
    """``v`` computed at ``at``, where it is a sum or difference of values made in ``top`` (before
    the nest) and constants: the same in every iteration of the loops around it; else None."""
    form = _linear(v, [], top, fwd)
    return None if form is None else form.value(at)


def nest_bound(at: Builder, loops: list[Op], top: Block, fwd: Callable[[Value], Value]) -> Optional[Value]:
    """An upper bound of how many times the body of the innermost of ``loops`` runs over the whole
    nest (``if``s run it at most once), computed at ``at`` before the outermost loop; None when a
    loop has no bound. The product of each loop's bound, but where an inner loop's trip count moves
    by one with the counter of a loop further out that runs over values made before the nest (a
    triangle: ``for (i = 0; i < k; i++)`` in ``for (k = 1; k < n; k++)``), that pair counts
    the sum of its inner trip counts, ``n (n - 1) / 2`` there, not ``(n - 1)^2``: a tape of a
    triangular nest is as long as what it holds (issue 19). Each other loop's bound holds in every
    iteration of the pair's outer loop, so the product of the rest and the pair's sum bounds the
    count too."""
    counted = [loop for loop in loops if loop.name != "if"]
    paired: dict[int, int] = {}  # outer loop -> its inner loop, by position in ``counted``
    sums: dict[int, Value] = {}
    for k, loop in enumerate(counted):
        pair = _triangle(at, loop, counted[:k], top, fwd)
        if pair is not None and pair[0] not in paired and pair[0] not in paired.values():
            paired[pair[0]] = k
            sums[k] = pair[1]
    total: Optional[Value] = None
    for k, loop in enumerate(counted):
        if k in paired:
            continue  # (counted in its inner loop's sum)
        count = sums.get(k) or trip_bound(at, loop, counted[:k], top, fwd)
        if count is None:
            return None
        total = count if total is None else build.mul(at, total, count)
    return total if total is not None else build.const(at, 1, I64)


class _Affine:
    """``c t + sum(k v) + n``: a loop counter ``t`` (by its position in the nest, None for none)
    times ``c``, values made before the nest (``fwd`` values) times integers, and a constant. Kept
    apart until printed, so that what cancels (``(n - 1) - (n - 1)``) is 0 and no temporary."""

    def __init__(self, loop: Optional[int] = None, c: int = 0, terms: Optional[dict[Value, int]] = None,
                 n: int = 0):
        self.loop, self.c, self.terms, self.n = loop if c else None, c, terms or {}, n

    def plus(self, other: "_Affine", sign: int = 1) -> Optional["_Affine"]:
        """``self + sign * other``; None where the two count with different loops."""
        if self.loop is not None and other.loop is not None and self.loop != other.loop:
            return None
        terms = dict(self.terms)
        for v, k in other.terms.items():
            terms[v] = terms.get(v, 0) + sign * k
            if not terms[v]:
                del terms[v]
        c = self.c + sign * other.c
        return _Affine(self.loop if self.loop is not None else other.loop, c, terms, self.n + sign * other.n)

    def at_counter(self, t: "_Affine") -> Optional["_Affine"]:
        """This form with its counter replaced by the counter-free form ``t``."""
        rest = _Affine(None, 0, self.terms, self.n)
        for _ in range(abs(self.c)):
            rest = rest.plus(t, 1 if self.c > 0 else -1)  # type: ignore[assignment]
        return rest

    def value(self, at: Builder) -> Value:
        """The counter-free form computed at ``at`` (positive terms first: ``n - 1``, not ``-1 + n``)."""
        out: Optional[Value] = None
        for v, k in sorted(self.terms.items(), key=lambda item: item[1] < 0):
            for _ in range(abs(k)):
                out = v if out is None and k > 0 else build.add(at, out, v) if k > 0 else \
                    build.sub(at, out if out is not None else build.const(at, 0, I64), v)
        if out is None:
            return build.const(at, self.n, I64)
        if self.n < 0:  # (as trip_count subtracts, so that CSE finds the two the same)
            return build.sub(at, out, build.const(at, -self.n, I64))
        return build.add(at, out, build.const(at, self.n, I64)) if self.n else out


def _triangle(at: Builder, loop: Op, outer: list[Op], top: Block, fwd: Callable[[Value], Value]
              ) -> Optional[tuple[int, Value]]:
    """(the position in ``outer`` of the loop whose counter ``t`` ``loop``'s trip count moves
    with, the sum of ``loop``'s trip counts over ``t``'s values) when ``loop`` (a unit step)
    runs ``max(a t + r, 0)`` times, ``a`` one or minus one, and ``t``'s loop (a unit step) has
    bounds made before the nest; else None."""
    step = build.const_value(loop.operands[2]) if loop.name == "for" else None
    if step not in (1, -1):
        return None
    lb, ub = (_linear(v, outer, top, fwd) for v in loop.operands[:2])
    if lb is None or ub is None:
        return None
    trips = ub.plus(lb, -1) if step == 1 else lb.plus(ub, -1)  # at least 0 of it
    if trips is None or trips.loop is None or trips.c not in (1, -1):
        return None
    t_loop = outer[trips.loop]
    t_step = build.const_value(t_loop.operands[2])
    first, last = (_linear(v, [], top, fwd) for v in t_loop.operands[:2])
    if t_step not in (1, -1) or first is None or last is None:
        return None
    one = _Affine(n=1)
    # t spans [first, last - 1] counting up, [last + 1, first] counting down; the trip count
    # spans the consecutive integers from its value at one end to its value at the other
    ends = (first, last.plus(one, -1)) if t_step == 1 else (last.plus(one), first)
    low, high = (trips.at_counter(t) for t in (ends if trips.c == 1 else ends[::-1]))
    # the sum of max(v, 0) over [low, high]: (q (q + 1) - p (p - 1)) / 2 with p = max(low, 0),
    # q = max(high, p - 1): 0 where all are negative, or where t's loop runs no iteration
    unit = build.const(at, 1, I64)
    p = build.math(at, "max", low.value(at), build.const(at, 0, I64))  # type: ignore[union-attr]
    q = build.math(at, "max", high.value(at), build.sub(at, p, unit))  # type: ignore[union-attr]
    twice = build.sub(at, build.mul(at, q, build.add(at, q, unit)), build.mul(at, p, build.sub(at, p, unit)))
    return trips.loop, build.binary(at, "floordiv", twice, build.const(at, 2, I64), rounding="any")


def _linear(v: Value, outer: list[Op], top: Block, fwd: Callable[[Value], Value]) -> Optional[_Affine]:
    """``v`` as an affine form (``_Affine``) in at most one counter of the ``outer`` loops: a
    value made before the nest, a constant, a counter, or sums and differences of those; else None."""
    c = build.const_value(v)
    if isinstance(c, int) and not isinstance(c, bool):
        return _Affine(n=c)  # (before the test below: a constant made before the nest folds)
    if _defined_in(v, top):
        return _Affine(terms={fwd(v): 1})
    for k, loop in enumerate(outer):
        if loop.name == "for" and v is loop.regions[0].args[0]:
            return _Affine(k, 1)
    op = v.defining_op
    if op is None or op.name not in ("add", "sub") or not v.type.is_int:
        return None
    x, y = (_linear(o, outer, top, fwd) for o in op.operands)
    if x is None or y is None:
        return None
    return x.plus(y, 1 if op.name == "add" else -1)


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
    if op is None or op.name not in ("add", "sub") or not v.type.is_int:
        return None
    # x + y is largest where both are; x - y where x is and y is smallest (``w - kw + 1`` made
    # inside the loop whose tape this sizes, from values made before it, is its own extreme)
    x, y = op.operands
    a = _extreme(at, x, upper, outer, top, fwd)
    b = _extreme(at, y, upper if op.name == "add" else not upper, outer, top, fwd) if a is not None else None
    if b is None:
        return None
    return _plus(at, a, b, 1 if op.name == "add" else -1)


def _plus(at: Builder, a: Value, b: Value, sign: int) -> Value:
    """``a + b`` or ``a - b`` (``sign``); a constant ``b`` is added with its sign, so that the
    builder folds it into a constant ``a`` holds (``(m - 1) - 1`` is ``m - 2``)."""
    c = build.const_int(b)
    if c is not None:
        return build.add(at, a, build.const(at, sign * c, I64))
    return build.add(at, a, b) if sign == 1 else build.sub(at, a, b)


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
