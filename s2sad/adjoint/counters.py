"""Integer counters carried by ``for`` loops, restored by the reverse sweep instead of taped.

Packed storage walks its elements with a counter: ``out[j] += ltri[at] * v[i]; at++;`` in a
double loop (a triangular matrix stored column by column), ``k++`` over the nonzeros of a sparse
row. The reverse sweep needs the counter in every iteration; taped, it costs a store and a load per
iteration, and in a helper called in a loop, a tape made and freed on every call. Its values follow
from the loop instead, exactly (integers):

* **closed form**, where every iteration adds the same amount (``at++``, ``k += m``; ``m`` made
  before the loop): in iteration ``it`` (counting from 0) the counter is ``init + it * step``, and
  the loop leaves ``init + trips * step``;
* **counted back**, where the amount changes from one iteration to the next but the reverse sweep
  can compute it (the outer loop above adds the inner loop's trip count, ``d - i - 1``): the reversed
  loop carries the counter down from the value the loop left, ``before = after - step`` in each
  reversed iteration.

A step is a sum of integers the reverse sweep has at hand (made before the loop, or from its
index and such values by pure arithmetic), plus, for a counter that an inner loop advances, that
loop's trip count times its own constant step. Anything else (an ``if`` that advances it, a load,
a ``while`` loop, a parallel one) leaves the counter to the tape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Union

from ..ssa import build
from ..ssa.build import const_int
from ..ssa.ir import Block, Op, Value
from ..ssa.opdefs import is_pure
from ..ssa.structured import trip_count
from ..ssa.types import I64
from .sweep import RevBlock

Avail = Callable[[RevBlock, Value], Value]  # a primal value as a reverse block can use it (``Availability.avail``)


@dataclass(frozen=True)
class Trips:
    """An inner loop's trip count times what each of its iterations adds (``terms``)."""

    loop: Op
    terms: tuple["Term", ...]


Term = tuple[int, Union[Value, Trips]]  # (+1 or -1, an integer value or an inner loop's advance)


@dataclass(frozen=True)
class Step:
    """What one iteration of ``loop`` adds to its carried integer at block argument ``arg``."""

    loop: Op
    arg: int
    terms: tuple[Term, ...]
    invariant: bool  # every term is the same in every iteration: the closed form applies


class Counters:
    """Finds the counters of a function's loops and restores them in the reverse sweep."""

    def __init__(self, ck_bodies: set[Block]):
        self.ck_bodies = ck_bodies
        self._steps: dict[Value, Optional[Step]] = {}

    # ------------------------------------------------------------------ analysis
    def step_of(self, p: Value) -> Optional[Step]:
        """The step of ``p``, a value a ``for`` loop carries, when it is a counter."""
        if p not in self._steps:
            self._steps[p] = self._find_step(p)
        return self._steps[p]

    def restorable(self, v: Value) -> bool:
        """Whether ``restore`` brings ``v`` to the reverse sweep without a tape."""
        if v.is_block_arg:
            return self.step_of(v) is not None
        step = self._result_step(v)
        return step is not None and step.invariant

    def _find_step(self, p: Value) -> Optional[Step]:
        if not p.is_block_arg or p.index == 0 or p.type != I64:
            return None
        loop = p.owner.parent_op
        if loop is None or loop.name != "for" or loop.attrs.get("parallel") or p.owner in self.ck_bodies:
            return None
        if const_int(loop.operands[2]) in (None, 0):
            return None
        terms = self._advance(p.owner.terminator.operands[p.index - 1], p, loop)
        if terms is None:
            return None
        return Step(loop, p.index, tuple(terms), all(self._invariant(t, loop) for t in terms))

    def _result_step(self, v: Value) -> Optional[Step]:
        """The step of the counter whose final value the loop result ``v`` is."""
        op = v.defining_op
        if op is None or op.name != "for":
            return None
        return self.step_of(op.regions[0].args[1 + op.results.index(v)])

    def _advance(self, y: Value, p: Value, loop: Op) -> Optional[list[Term]]:
        """``y - p`` as terms, where ``y`` is ``p`` plus integers made without ``p`` (in
        ``loop``'s body, or by inner loops advancing it); None otherwise."""
        if y is p:
            return []
        op = y.defining_op
        if op is None or op.parent is not loop.regions[0] or y.type != I64:
            return None
        if op.name in ("add", "sub"):
            a, b = op.operands
            sign = 1 if op.name == "add" else -1
            left = self._advance(a, p, loop)
            if left is not None and self._usable(b, loop):
                return left + [(sign, b)]
            right = self._advance(b, p, loop) if op.name == "add" else None
            if right is not None and self._usable(a, loop):
                return right + [(1, a)]
            return None
        if op.name == "for":
            k = op.results.index(y)
            before = self._advance(op.operands[3 + k], p, loop)
            inner = self.step_of(op.regions[0].args[1 + k])
            if before is None or inner is None or not inner.invariant:
                return None
            if not all(self._usable(b, loop) for b in op.operands[:2]):
                return None
            return before + [(1, Trips(op, inner.terms))]
        return None

    def _usable(self, v: Value, loop: Op) -> bool:
        """An integer the reversed iteration of ``loop`` can compute again: made before the
        loop, or from its index and such values by pure arithmetic."""
        if not loop.encloses(v):
            return True
        if v.is_block_arg:
            return v.owner is loop.regions[0] and v.index == 0
        op = v.defining_op
        return op.parent is loop.regions[0] and is_pure(op) and all(self._usable(o, loop) for o in op.operands)

    def _invariant(self, term: Term, loop: Op) -> bool:
        _, what = term
        if isinstance(what, Trips):
            return (all(not loop.encloses(b) for b in what.loop.operands[:2])
                    and all(self._invariant(t, loop) for t in what.terms))
        return not loop.encloses(what) or const_int(what) is not None  # (-O0 leaves constants in place)

    # ------------------------------------------------------------------ restoring
    def restore(self, avail: Avail, m: RevBlock, v: Value) -> Optional[Value]:
        """``v`` at the reverse block ``m`` (the mirror of the block that defines it), or None
        where it is not a counter (the caller tapes it then)."""
        if v.is_block_arg:
            step = self.step_of(v)
            if step is None:
                return None
            if step.invariant:
                return self._closed_form(avail, m, v, step)
            return self._counted_back(avail, m, v, step)
        step = self._result_step(v)
        if step is None or not step.invariant:
            return None
        loop = step.loop
        init = avail(m, loop.operands[3 + step.arg - 1])
        trips = _trips(avail, m, loop)
        total = build.mul(m.prologue, trips, self._amount(avail, m, step.terms))
        return _named(build.add(m.prologue, init, total, hint=v.name_hint), v)

    def _closed_form(self, avail: Avail, m: RevBlock, p: Value, step: Step) -> Value:
        """``init + it * step`` in the reversed iteration (``it`` counted from 0)."""
        loop = step.loop
        outer = m.mirror_of(loop.parent)
        init = avail(outer, loop.operands[3 + step.arg - 1])
        amount = self._amount(avail, outer, step.terms)
        b = m.prologue
        it = build.sub(b, m.block.args[0], avail(outer, loop.operands[0]))
        stride = const_int(loop.operands[2])
        if stride != 1:
            it = build.binary(b, "floordiv", it, build.const(b, stride, I64))
        return _named(build.add(b, init, build.mul(b, it, amount), hint=p.name_hint), p)

    def _counted_back(self, avail: Avail, m: RevBlock, p: Value, step: Step) -> Value:
        """The reversed loop carries the counter from the value the loop left: each reversed
        iteration takes away what its forward iteration added."""
        loop = step.loop
        outer = m.mirror_of(loop.parent)
        after = avail(outer, loop.results[step.arg - 1])
        assert m.block.parent_op is None, "a counter counted back once its reversed loop is made"
        carried = m.block.add_arg(I64, p.name_hint)
        before = build.sub(m.prologue, carried, self._amount(avail, m, step.terms), hint=p.name_hint)
        m.carries.append((after, before))
        return before

    def _amount(self, avail: Avail, m: RevBlock, terms: tuple[Term, ...]) -> Value:
        b = m.prologue
        total: Optional[Value] = None
        for sign, what in terms:
            if isinstance(what, Trips):
                x = build.mul(b, _trips(avail, m, what.loop), self._amount(avail, m, what.terms))
            elif (c := const_int(what)) is not None:
                x = build.const(b, c, I64)  # made where it is needed (-O0 leaves it in the loop)
            else:
                x = avail(m, what)
            if total is None:
                total = x if sign > 0 else build.neg(b, x)
            else:
                total = build.add(b, total, x) if sign > 0 else build.sub(b, total, x)
        return total if total is not None else build.const(b, 0, I64)


def _trips(avail: Avail, m: RevBlock, loop: Op) -> Value:
    """How many iterations ``loop`` (a ``for`` with a constant step) runs, at ``m``."""
    lb, ub = (avail(m, o) for o in loop.operands[:2])
    stride = const_int(loop.operands[2])
    assert stride is not None
    if stride > 0:
        return trip_count(m.prologue, lb, ub, stride)
    return trip_count(m.prologue, ub, lb, -stride)


def _named(v: Value, source: Value) -> Value:
    """``v`` named after the counter it restores, where folding left it a temporary's value
    (``k = it * m`` once ``0 + it * m`` folds)."""
    if not v.name_hint and v.defining_op is not None and v.defining_op.name != "const":
        v.name_hint = source.name_hint
    return v
