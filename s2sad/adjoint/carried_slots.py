"""A value a loop carries, read from what its previous iteration made: not taped a second time.

A carried value ``v`` of a ``for`` loop enters each iteration as what the previous one yielded
(its *latch*), or as its init in the first. Taping ``v`` in every iteration would store what the
previous iteration already had (issue 19: "tape each value once"):

* where the latch is taped in a cache indexed by the iteration (``tape.py``), ``v`` is read from
  that cache's slot of the previous iteration: Levinson-Durbin's ``alpha``, taped where an
  iteration makes it and again where the next one starts; an IIR filter's shift register
  (``ym2 = ym1; ym1 = y``)::

      double alpha2 = k == 1 ? alpha0 : tape_alpha[k - 2];

* where the latch is a cheap function of the counter, of values the loop does not change and of
  arrays that still hold what was read (``xm1 = x[j]``), the reverse sweep computes it for the
  previous counter (``xm1 = j == 0 ? 0.0 : x[j - 1]``).

In the first iteration ``v`` is its init. Each condition answers no when unsure (a stack tape, a
parallel or checkpointed loop, a latch made by a call or an ``exp``), and ``v`` is then taped as
before.
"""

from __future__ import annotations

from typing import Callable, Optional

from ..ssa import build
from ..ssa.attrs import GENERIC_VALUE
from ..ssa.ir import Block, Builder, Op, Value
from ..ssa.opdefs import is_pure
from ..ssa.slots import slot_of
from ..ssa.types import I64
from .sweep import RevBlock, defining_block

_CHEAP = frozenset({"add", "sub", "mul", "neg", "cast", "const", "min", "max", "math.abs", "math.min", "math.max"})
_MOST_OPS = 8  # a longer latch is taped rather than computed again


def from_previous_iteration(m: RevBlock, v: Value, block: Block, avail: Callable[[RevBlock, Value], Value],
                            will_tape: Callable[[Value], bool], slot_loops: dict[Value, list[Op]],
                            reads_kept: Callable[[Op], bool]) -> Optional[Value]:
    """``v`` (a value the loop whose body is ``block`` carries) at the reverse block ``m``, from
    its latch in the previous iteration; None where it must be taped itself. ``avail`` makes a
    primal value available; ``will_tape`` says whether a value of ``block`` is taped anyway (made
    available first only then, so that nothing is taped for ``v``'s sake alone); ``slot_loops``
    maps the reverse sweep's load of an indexed cache to the loops it holds a slot per iteration
    of; ``reads_kept`` says whether a load's element still holds its value in the reverse sweep."""
    slot = slot_of(v)
    loop = block.parent_op
    if slot is None or loop.name != "for" or loop.attrs.get("parallel") or slot.op is not loop:
        return None
    if not (v.type.is_float or v.type.is_int):
        return None  # (an array is taped as a copy of its elements: a reference to it would not do)
    latch = slot.yields[0].operands[slot.k]
    if latch is v:
        return None
    step = build.const_value(loop.operands[2])
    if not isinstance(step, int) or isinstance(step, bool) or step == 0:
        return None
    again = _Again(block, step, lambda u: avail(m, u))
    if defining_block(latch) is block and will_tape(latch):
        kept = avail(m, latch)
        loops = slot_loops.get(kept)
        if loops is not None and loops and loops[-1] is loop:  # a slot per iteration: the one before
            cache, index = kept.defining_op.operands
            return again.entering(m.prologue, v, m.block.args[0], lambda ob, _: ob.op1(
                "load", [cache, build.sub(ob, index, build.const(ob, 1, I64))], kept.type, v.name_hint))
        if loops is not None:  # (the same in every iteration: its one slot)
            return again.entering(m.prologue, v, m.block.args[0], lambda ob, _: kept)
    if not _recomputable(latch, block, reads_kept, [0], {v}):
        return None
    return again.entering(m.prologue, v, m.block.args[0])


def _recomputable(u: Value, block: Block, reads_kept: Callable[[Op], bool], count: list[int],
                  entering: set[Value]) -> bool:
    """Whether ``u`` can be computed for another iteration of ``block``'s loop: from its counter,
    values made outside the body, cheap ops, loads of elements kept, and values the loop carries
    that are such a function of the iteration before (a shift register: ``xp2 = xp1; xp1 =
    x[j]``; not one in ``entering``, whose value that would take). ``count``: the ops so far, at
    most ``_MOST_OPS``."""
    if defining_block(u) is not block:
        return True  # (the same in every iteration)
    if u.is_block_arg:
        if u.index == 0:
            return True  # the counter
        slot = slot_of(u)
        if u in entering or slot is None:
            return False
        return _recomputable(slot.yields[0].operands[slot.k], block, reads_kept, count, entering | {u})
    op = u.defining_op
    count[0] += 1
    if count[0] > _MOST_OPS or op.regions or op.attrs.get(GENERIC_VALUE) or u.type.is_array \
            or not (op.name == "load" and reads_kept(op) or op.name in _CHEAP and is_pure(op)):
        return False  # (a shape-generic value may be an array when the output runs)
    return all(_recomputable(o, block, reads_kept, count, entering) for o in op.operands)


class _Again:
    """Values of ``block`` (a ``for`` body stepping by ``step``) computed for a given counter
    (``_recomputable`` said how); values made outside the body from ``outside``."""

    def __init__(self, block: Block, step: int, outside: Callable[[Value], Value]):
        self.block, self.step, self.outside = block, step, outside

    def at(self, b: Builder, u: Value, counter: Value) -> Value:
        """``u`` in the iteration whose counter is ``counter``, computed at ``b``."""
        if defining_block(u) is not self.block:
            return self.outside(u)
        if u.is_block_arg:
            return counter if u.index == 0 else self.entering(b, u, counter)
        op = u.defining_op
        operands = [self.at(b, o, counter) for o in op.operands]
        return b.create(op.name, operands, [u.type], dict(op.attrs), hints=[u.name_hint], loc=op.loc).result

    def entering(self, b: Builder, v: Value, counter: Value,
                 latch_before: Optional[Callable[[Builder, Value], Value]] = None) -> Value:
        """The carried ``v`` as it enters the iteration whose counter is ``counter``: its init in
        the first, else its latch in the iteration before (``latch_before(builder, counter
        before)``; by default computed for that counter)."""
        loop = self.block.parent_op
        slot = slot_of(v)
        assert slot is not None
        then, other = Block(), Block()
        Builder(then, loop.loc).create("yield", [self.outside(slot.inits[0])], [])
        ob = Builder(other, loop.loc)
        step = build.const(ob, abs(self.step), I64)
        before = build.sub(ob, counter, step) if self.step > 0 else build.add(ob, counter, step)
        latch = slot.yields[0].operands[slot.k]
        ob.create("yield", [latch_before(ob, before) if latch_before else self.at(ob, latch, before)], [])
        first = build.cmp(b, "eq", counter, self.outside(loop.operands[0]))
        return b.create("if", [first], [v.type], regions=[then, other], hints=[v.name_hint], loc=loop.loc).result
