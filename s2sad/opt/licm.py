"""Loop-invariant code motion (LICM) over structured ``for`` and ``while`` loops.

What: moves ops whose value is the same in every iteration out of the loop, to
just before it. This is the pass that makes ``norm``'s gradient O(n): hoisting
``mag(in_, n)`` out of the loop *before* differentiating leaves one
``grad_mag`` call after the reversed loop instead of one per iteration, which
no pass run after differentiation could recover.

An op of a loop L is *invariant* when every operand is defined outside L (or
by an invariant op being hoisted with it) and the op is one of:

* a pure op (arithmetic, comparison, ``select``, ``cast``, ``math.*``, ``dim``,
  ``const``, ``view``; not ``undef``, which costs nothing and reads best beside
  its use). A view reads no memory, so it is invariant whatever the loop writes:
  only the loads and calls that use it wait for their array;
* a ``load`` from an array no op of L may write (``analysis.aliases`` decides,
  so ``ctx.may_alias`` makes a store to any parameter block loads from every
  parameter);
* a ``call`` to a read-only function (``analysis.EffectAnalysis``: it writes
  no memory its caller sees) with at least one result, none of whose array
  arguments any op of L may write.

Loops are visited innermost first and the whole function is swept again until
nothing moves, so a value hoisted out of an inner loop into an outer body is
hoisted further when it is invariant there too.

Which ops are considered: the ops at the top level of a ``for`` body or of a
``while`` condition or body; speculatable ops also from the regions of ``if``s
nested in the body (at any depth, not inside inner loops); and the ops of an
inner loop's *guard* (below) when its condition is invariant. Loops and
branches themselves never move, nor do stores, ``alloc``/``copy`` (a fresh
array per iteration), tape ops and comments.

Safety (after LLVM's LICM: ``isSafeToSpeculativelyExecute`` and
``isGuaranteedToExecute``; Muchnick, *Advanced Compiler Design and
Implementation*, ch. 13.2): hoisting runs an op even when the loop runs zero
times. An op that cannot fail may do that (``speculatable``: add sub mul neg,
comparisons, and/or/not, select, const, undef, dim, view, casts other than float
to int, and ``div``/``floordiv``/``mod``/``rem`` by a constant that cannot fail:
non-zero, and not -1 on integers, which overflows in C; never a float ``rem``,
whose ``math.fmod`` raises on an infinite dividend). Everything else can fail (Python
raises on float division by zero, ``math.log`` of a negative, an index out of
range; C traps) and is hoisted only where it is guaranteed to run:

* out of a ``for`` with a constant step, under a *guard* (``loop_guard.py``): the loop is wrapped
  in ``if lb < ub`` (``lb > ub`` for a negative step) whose then-region holds
  the hoisted ops and the loop and yields its results, and whose else-region
  yields the loop's initial values (a loop that runs zero times yields them).
  One guard per loop holds all its guarded ops, and a later sweep reuses it.
  No guard is needed when the trip count is a known positive constant, or when
  an enclosing ``if`` already tests the same condition (``for j in range(n)``
  inside the guard of ``for i in range(n)``). A guard is *made* only when it
  pays: when it would hold a call or a math intrinsic (``_worth_a_guard``).
  Loads and divisions alone stay in the loop rather than wrap it in an ``if``
  (one cheap op per iteration is not worth a level of nesting in the output,
  and C compilers hoist those themselves); they do join a guard that exists or
  is made anyway, and hoist freely where none is needed;
* out of a ``while``: only from its condition region, which runs at least once
  whenever the loop is reached; never from its body, which may not run;
* through two levels: an op in the guard of an inner loop needs that guard's
  condition as well as the outer loop's. When the conditions differ it goes to
  a *sub-guard* ``if c`` (yielding ``undef`` when false: every use is under the
  same condition) inside the outer loop's guard, made, like a guard, only when
  it would hold a call or an intrinsic. An inner guard that ops leave and that
  is left holding nothing but its loop is dissolved: a loop that runs zero times
  yields its initial values anyway. Deeper nests keep such ops one level up.

Pre: verified IR. Post: verified IR that computes the same results and leaves
memory the same; a program that fails (raises, traps) may fail with another
error or earlier, but one that runs without failing never fails after LICM
(loops are assumed to terminate, as C11 6.8.5p6 lets a compiler assume).
Source locations and name hints stay on the moved ops; guards carry the loop's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..ssa import ops as ops_mod
from ..ssa.opdefs import is_pure, speculatable
from ..ssa.ir import Block, Function, Module, Op, Value
from ..ssa.types import BOOL
from ..analysis.effects import EffectAnalysis, PassContext, RootSet, array_root
from .loop_guard import (Key, cond_key, dissolve_guard, guard_of, guarded_loop, known_true, make_guard,
                         make_sub_guard, static_trips, test_key, trip_test)

# Sweeps of a function before giving up (one suffices in practice: inner loops go first).
_MAX_SWEEPS = 8


# -- placement levels --------------------------------------------------------------------------
@dataclass(frozen=True)
class _Level:
    """Where a hoisted op goes: before the loop (and its guard), in the guard, in a sub-guard."""

    rank: int  # 0: before; 1: in the loop's guard; 2: in the sub-guard testing ``cond``
    cond: Optional[Value] = None

    @property
    def key(self) -> Optional[Key]:
        return cond_key(self.cond) if self.cond is not None else None


_BEFORE = _Level(0)
_GUARDED = _Level(1)


def _join(a: Optional[_Level], b: Optional[_Level]) -> Optional[_Level]:
    """The level that satisfies both; None when none does (two different sub-guards)."""
    if a is None or b is None:
        return None
    if a.rank == 2 and b.rank == 2 and a.key != b.key:
        return None
    return a if a.rank >= b.rank else b


class _LoopHoister:
    """Hoists the invariant ops of one loop."""

    def __init__(self, loop: Op, effects: EffectAnalysis, ctx: PassContext):
        self.loop = loop
        self.effects = effects
        self.ctx = ctx
        self.nested: set[Op] = set(loop.walk())
        self.nested.discard(loop)
        self.written: RootSet = effects.written_roots(loop)
        self.guard = guard_of(loop)
        self.hoisted: dict[Op, _Level] = {}
        self.order: list[Op] = []
        self.inner_guards: list[Op] = []
        self.moved_from: list[Op] = []
        self.test_key: Optional[Key] = None
        # The level of a guarded op of the loop's own body; None: such ops cannot move.
        self.guarded: Optional[_Level] = None
        self.needs_guard = False
        if loop.name == "for":
            trips = static_trips(loop)
            test = trip_test(loop)
            if test is not None:
                self.test_key = test_key(*test)
            if trips is not None:
                self.guarded = _GUARDED if trips > 0 else None
            elif test is not None:
                self.guarded = _GUARDED
                self.needs_guard = self.guard is None and not known_true(loop.parent, self.test_key)

    # -- finding invariant ops -------------------------------------------------------------
    def _operand_level(self, v: Value) -> Optional[_Level]:
        owner = v.owner.parent_op if v.is_block_arg else v.owner
        if owner is self.loop or owner in self.nested:
            return self.hoisted.get(owner) if not v.is_block_arg else None
        if self.guard is not None and not v.is_block_arg and v.owner.parent is self.guard.regions[0]:
            return _GUARDED
        return _BEFORE

    def _may_write(self, arr: Value) -> bool:
        return self.written.may_touch(array_root(arr), self.ctx)

    def _consider(self, op: Op, required: Optional[_Level]) -> None:
        """Hoist ``op`` if invariant; ``required`` is where a non-speculatable op must go."""
        if op.regions or op.name in ops_mod.TERMINATORS or op.name == "undef":
            return  # an undef costs nothing and reads best beside its use
        if is_pure(op):
            spec = speculatable(op)
        elif op.name == "load":
            if self._may_write(op.operands[0]):
                return
            spec = False
        elif op.name == "call":
            callee = self.effects.callee(op)
            if callee is None or not op.results or not self.effects.is_readonly(callee):
                return
            if any(a.type.is_array and self._may_write(a) for a in op.operands):
                return
            spec = False
        else:
            return
        level: Optional[_Level] = _BEFORE if spec else required
        for v in op.operands:
            level = _join(level, self._operand_level(v))
        if level is not None:
            self.hoisted[op] = level
            self.order.append(op)

    def _visit(self, block: Block, required: Optional[_Level], skip_last: int = 1) -> None:
        """Consider the ops of ``block``; ``required``: the level its non-speculatable ops need."""
        body = block.ops[: len(block.ops) - skip_last] if skip_last else list(block.ops)
        for op in body:
            if op.name == "if":
                inner = guarded_loop(op)
                if inner is not None:
                    self._visit_guard(op, required)
                else:
                    for region in op.regions:
                        self._visit(region, None)
            elif not op.regions:
                self._consider(op, required)

    def _visit_guard(self, g: Op, required: Optional[_Level]) -> None:
        """The ops an inner loop's guard holds before that loop: they need its condition too."""
        self.inner_guards.append(g)
        cond = g.operands[0]
        key = cond_key(cond)
        level = _join(required, self._operand_level(cond))
        if level is not None and key != self.test_key and not known_true(self.loop.parent, key):
            level = _join(level, _Level(2, cond))
        # The guard's last two ops are the loop and the yield.
        self._visit(g.regions[0], level, skip_last=2)

    def find(self) -> None:
        loop = self.loop
        if loop.name == "for":
            self._visit(loop.regions[0], self.guarded)
        else:
            cond, body = loop.regions
            self._visit(cond, _BEFORE)  # the condition runs at least once
            self._visit(body, None)

    # -- moving them -------------------------------------------------------------------------
    def run(self) -> bool:
        self.find()
        self._drop_bookkeeping()
        self._drop_unpaid_guards()
        if not self.order:
            return False
        anchor = self.guard or self.loop
        by_rank: dict[int, list[Op]] = {0: [], 1: [], 2: []}
        for op in self.order:
            by_rank[self.hoisted[op].rank].append(op)
        for op in by_rank[0]:
            _move_before(op, anchor)
        if by_rank[1] or by_rank[2]:
            if self.guard is None and self.needs_guard:
                self.guard = make_guard(self.loop)
            for op in by_rank[1]:
                _move_before(op, self.loop)
            for group in _sub_groups(self.order, self.hoisted).values():
                make_sub_guard(self.hoisted[group[0]].cond, group, self.loop)
        for g in self.moved_from:
            if len(g.regions[0].ops) == 2:
                dissolve_guard(g)
        return True

    def _drop_bookkeeping(self) -> None:
        """Leave cheap index arithmetic in place unless a hoisted op needs it.

        ``range(A.shape[0] - 1, -1, -1)`` reads better than a temporary computed
        before the outer loop, and saves nothing worth a variable: integer
        adds, compares, ``dim`` and casts cost less than the line they add.
        """
        keep: set[Op] = set()
        pending = [op for op in self.order if not _bookkeeping(op)]
        while pending:
            op = pending.pop()
            if op in keep:
                continue
            keep.add(op)
            needed = list(op.operands)
            cond = self.hoisted[op].cond  # a sub-guard's test is needed where the op goes
            if cond is not None:
                needed.append(cond)
            pending += [v.owner for v in needed if not v.is_block_arg and v.owner in self.hoisted]
        self.order = [op for op in self.order if op in keep]
        self.hoisted = {op: level for op, level in self.hoisted.items() if op in keep}

    def _drop_unpaid_guards(self) -> None:
        """Keep a new guard (or sub-guard) only when it holds an op worth one (``_worth_a_guard``)."""
        drop: set[Op] = set()
        guarded = [op for op in self.order if self.hoisted[op].rank >= 1]
        if guarded and self.guard is None and self.needs_guard and not any(map(_worth_a_guard, guarded)):
            drop.update(guarded)
        for group in _sub_groups(self.order, self.hoisted).values():
            if not any(map(_worth_a_guard, group)):
                drop.update(group)
        self.order = [op for op in self.order if op not in drop]
        # Inner guards that ops leave: dissolved once they hold nothing but their loop.
        self.moved_from = [g for g in self.inner_guards if any(op.parent is g.regions[0] for op in self.order)]


def _bookkeeping(op: Op) -> bool:
    """Integer and boolean arithmetic, shapes, views, casts and constants: not worth a hoist alone.

    A view is address arithmetic (``x + k`` in C), as cheap as the index arithmetic
    it replaces; it moves with a hoisted call or load that needs it.
    """
    if op.name in ("dim", "const", "cast", "view"):
        return True
    return is_pure(op) and all(r.type.is_int or r.type == BOOL for r in op.results)


def _worth_a_guard(op: Op) -> bool:
    """Ops whose cost pays for a new ``if`` around a loop: calls and math intrinsics.

    A guard costs a test and, in the output, a level of indentation; hoisting a
    load or a division saves one cheap op per iteration (and C compilers do it
    themselves), so those join a guard that exists anyway but make none. A
    call may run a loop: hoisting it is what changes the gradient's complexity.
    """
    return op.name == "call" or op.name == "pow" or op.name.startswith("math.")


def _sub_groups(order: list[Op], hoisted: dict[Op, _Level]) -> dict[Key, list[Op]]:
    groups: dict[Key, list[Op]] = {}
    for op in order:
        if hoisted[op].rank == 2:
            groups.setdefault(hoisted[op].key, []).append(op)
    return groups


def _move_before(op: Op, anchor: Op) -> None:
    if op.name == "call" and len(op.results) == 1 and not op.result.name_hint:
        # Out of its expression, a hoisted call becomes a statement of its own: name it.
        op.result.name_hint = f"{op.attrs['callee']}_value"
    op.parent.ops.remove(op)
    anchor.parent.insert(anchor.parent.ops.index(anchor), op)


def _loops_innermost_first(block: Block, out: list[Op]) -> list[Op]:
    for op in block.ops:
        for region in op.regions:
            _loops_innermost_first(region, out)
        if op.name in ("for", "while"):
            out.append(op)
    return out


def licm_function(fn: Function, effects: EffectAnalysis, ctx: PassContext) -> None:
    for _ in range(_MAX_SWEEPS):
        changed = False
        for loop in _loops_innermost_first(fn.body, []):
            changed |= _LoopHoister(loop, effects, ctx).run()
        if not changed:
            return


def run(module: Module, ctx: PassContext) -> None:
    """Hoist loop-invariant ops out of the loops of every function of ``module``."""
    effects = EffectAnalysis(module)
    for fn in module.functions.values():
        licm_function(fn, effects, ctx)
