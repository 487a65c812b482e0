"""Availability: a primal value as the reverse sweep can use it at a given reverse block.

Values of the function's top-level block are still there. A value inside a region is recomputed
in the mirrored region when it is a pure function of values still available (including loads
from arrays nobody writes or that keep their values to the end); read back from an array element
that still holds it, or from a copy of the array taken before the statement (a load of the value
its element held then, read again in several iterations); carried out of a loop it does not
change in, or out of an ``if``, as an extra result; or else taped (``tape.py``). Which values of
a loop body are cached is a minimum cut of what its reverse code asks for (``mincut.py``), from
the requests of a first run.
"""

from __future__ import annotations

from typing import Optional

from ..analysis.effects import known_root, may_be_written, written_arrays, written_operands, written_params
from ..analysis.final_elements import FinalElements, rereads
from ..ssa.attrs import GENERIC_VALUE, c_input, c_param_spelled
from ..ssa.ir import Block, Builder, Function, Module, Op, Value
from ..ssa.array_ops import makes_fresh_array
from ..ssa.opdefs import is_pure
from ..parse.c_declarators import is_pointer_rows
from ..ssa.slots import slot_of
from ..ssa.structured import add_carried, add_if_result
from .carried_slots import from_previous_iteration
from .counters import Counters
from .forward import ForwardSweep
from .mincut import INF, CachePlan, plan_cache
from .naming import free_variant
from .remade_copies import remade_copy
from .report import CopyEntry, elem_bytes
from .sweep import RevBlock, defining_block, describe, line_of, top_level_index
from .tape import Tapes


class Availability:
    """Brings primal values to reverse blocks: recomputed, kept, escaped or taped."""

    def __init__(self, module: Module, fn: Function, forward: ForwardSweep, tapes: Tapes, ck_bodies: set[Block],
                 may_alias: bool, readonly_roots: set[Value], last_write: dict[Value, int],
                 needed: Optional[dict[Block, dict[Value, None]]], refilled: Optional[dict[Value, Op]] = None):
        self.module = module
        self.fn = fn
        self.forward = forward
        self.tapes = tapes
        self.ck_bodies = ck_bodies
        self.may_alias = may_alias
        self.readonly_roots = readonly_roots  # parameter arrays nobody writes
        self.last_write = last_write  # array root -> the last top-level op that writes it
        # __shared__ tile -> the loop whose reversed iterations fill it again (shared_refill)
        self.refilled = refilled or {}
        # What a first run of the transform asked ``avail`` for, per defining block: with it,
        # each loop body caches a minimum cut of those values (``mincut.py``), not each one.
        self.needed = needed
        self.requests: dict[Block, dict[Value, None]] = {}
        # What this run taped of each block's values because nothing else would serve (the
        # values ``_plan`` would cache: ``taped_as_cut``).
        self.taped: dict[Block, dict[Value, None]] = {}
        self._plans: dict[Block, CachePlan] = {}
        self._asking: list[Block] = []  # the blocks of the values being made available, innermost last
        self.counters = Counters(ck_bodies)
        # Elements of the last statement writing an array that keep a value to the end (LU's
        # A[i][k] and A[k][j]): read back from the array rather than taped.
        self.final = FinalElements(module, fn, last_write, ck_bodies, may_alias)
        # (array parameter, top-level statement) -> its copy taken just before the statement
        self.entry_copies: dict[tuple[Value, int], Value] = {}
        self._latches_asked: set[Value] = set()  # carried values being read from their latch's tape
        self.read_from_latch: set[Value] = set()  # carried values read from their latch's tape

    def _is_readonly_load(self, op: Op) -> bool:
        """A load whose element still holds the loaded value when the reverse sweep runs.

        True for arrays nobody writes, and for loads in a top-level statement
        after the last one that writes the array (a work array filled by one
        loop and read by the next): arrays keep their exit values, so such a
        load can be repeated instead of taped.
        """
        if op.name != "load":
            return False
        root = known_root(op.operands[0])
        if root in self.readonly_roots:
            return True
        if root in self.refilled:  # read after the fill of its iteration, which the reverse sweep redoes
            return self.fn.body.ops[top_level_index(self.fn, op)] is self.refilled[root]
        if root in self.last_write and top_level_index(self.fn, op) > self.last_write[root]:
            return True
        return self.final.holds(op)

    def _recomputable(self, v: Value, block: Block, m: Optional[RevBlock] = None) -> bool:
        """Whether ``v`` can be recomputed in the mirror of ``block`` instead of taped.

        It can when it is a pure op (or a read of an array nobody writes) whose
        operands are recomputable in turn or already available in the mirror
        ``m`` (taped for another use): one tape then serves both values. Each value is
        looked at once per question (``a, b = b, a + b * x`` fifty times in a loop is a
        chain of values each read twice: walked as a tree, 2 ** 50 visits).
        """
        return self._recomputable_from(v, block, m, {})

    def _recomputable_from(self, v: Value, block: Block, m: Optional[RevBlock], seen: dict[Value, bool]) -> bool:
        if v not in seen:
            seen[v] = self._recomputable_op(v, block, m, seen)
        return seen[v]

    def _recomputable_op(self, v: Value, block: Block, m: Optional[RevBlock], seen: dict[Value, bool]) -> bool:
        if defining_block(v) is not block:
            return True  # available from an enclosing mirror
        if m is not None and v in m.avail:
            return True
        if self._keeps_costly(v, block):
            return True  # carried out of its branch when asked (``_avail``)
        if v in self._plan(block).recomputed or self.counters.restorable(v):
            return True  # from the cached values of the block's cut (``_plan``), or a counter
        if v.is_block_arg:
            # A loop's induction variable is mirrored; its carried values are the
            # loop's state, taped once each, and everything pure is recomputed
            # from them ("store the state, recompute the rest").
            return True
        op = v.defining_op
        if op.name == "view":
            # Arrays are never cached: a view is made again from its operands, and its
            # offset, a scalar, is recomputed or cached like any other value (``avail``).
            return True
        if is_pure(op) or self._is_readonly_load(op) or self.is_readonly_array_op(op) or self._reads_entry(v):
            return all(self._recomputable_from(o, block, m, seen) for o in op.operands)
        return False

    def is_readonly_array_op(self, op: Op) -> bool:
        """A whole-array op whose operands keep their contents to the end: recomputed in a
        reverse loop body rather than stored (arrays are never taped)."""
        if not makes_fresh_array(op):
            return False
        for v in op.operands:
            if not v.type.is_array:
                continue
            root = known_root(v)
            if makes_fresh_array(root.defining_op) or root in self.readonly_roots:
                continue
            if not (root in self.last_write and top_level_index(self.fn, op) > self.last_write[root]):
                return False
        return True

    def avail(self, rev: RevBlock, v: Value) -> Value:
        """``v`` (a primal value) as it can be used at ``rev``'s reverse block."""
        block = defining_block(v)
        if block is self.fn.body:
            return self.forward.fwd[v]
        # A request is the cut's to meet (``_plan``) unless it comes from recomputing another
        # value of the same block, which the cut itself decides. Operands of a value recomputed
        # in a nested region (``buf[t + s]`` under ``if t < s:`` in a while body) are needed by
        # the body as surely as the values its own reverse code asks for.
        if not self._asking or self._asking[-1] is not block:
            self.requests.setdefault(block, {})[v] = None
        self._asking.append(block)
        try:
            return self._avail(rev, v, block)
        finally:
            self._asking.pop()

    def _avail(self, rev: RevBlock, v: Value, block: Block) -> Value:
        m = rev.mirror_of(block)
        if v in m.avail:
            return m.avail[v]
        if v.is_block_arg and v.index == 0 and block.parent_op.name == "for":
            val = m.block.args[0]
        elif block in self.ck_bodies:
            val = self.forward.fwd[v]  # re-run in this reversed iteration (checkpoint.py)
        elif self.counters.restorable(v):
            val = self.counters.restore(self.avail, m, v)
        elif v.is_block_arg or v in self._plan(block).cached:
            self.taped.setdefault(block, {})[v] = None
            val = self._from_latch(m, v, block) or self.avail_clone(m, self.forward.fwd[v], block)
        elif (kept := self._kept_in_memory(v)) is not None:
            arr, index = kept
            at = [self.forward.fwd[arr], *(self.avail(m, i) for i in index)]
            val = m.prologue.op1("load", at, v.type, v.name_hint)
        elif self._reads_entry(v):
            op = v.defining_op
            at = [self._entry_copy(op), *(self.avail(m, i) for i in op.operands[1:])]
            val = m.prologue.op1("load", at, v.type, v.name_hint)
        elif self._keeps_costly(v, block):
            val = self.avail_clone(m, self.forward.fwd[v], block)
        elif self._recomputable(v, block, m):
            op = v.defining_op
            new = m.prologue.create(
                op.name,
                [self.avail(m, o) for o in op.operands],
                [v.type],
                dict(op.attrs),
                hints=[v.name_hint],
                loc=op.loc,
            )
            val = new.result
        else:
            self.taped.setdefault(block, {})[v] = None
            val = self.avail_clone(m, self.forward.fwd[v], block)
        m.avail[v] = val
        return val

    def _from_latch(self, m: RevBlock, v: Value, block: Block) -> Optional[Value]:
        """A carried value read from what its previous iteration made (``carried_slots.py``), not
        taped itself."""
        if not v.is_block_arg or v in self._latches_asked:
            return None  # (two values that carry each other: each is taped)
        self._latches_asked.add(v)
        try:
            val = from_previous_iteration(m, v, block, self.avail, lambda u: self._will_tape(m, u, block),
                                          self.tapes.slot_loops, self._reads_kept)
            if val is not None:
                self.read_from_latch.add(v)
            return val
        finally:
            self._latches_asked.discard(v)

    def _reads_kept(self, op: Op) -> bool:
        """A load the reverse sweep may repeat in any iteration: ``_is_readonly_load``, but not of
        a tile its iteration fills again (that holds the iteration's own values only)."""
        return self._is_readonly_load(op) and known_root(op.operands[0]) not in self.refilled

    def _will_tape(self, m: RevBlock, v: Value, block: Block) -> bool:
        """Whether the value ``v`` of the loop body ``block`` is (or will be) taped anyway."""
        if v in m.avail:
            return True  # (made available already: a tape of it is read as it is)
        if self.needed is None or block in self.ck_bodies or self.counters.restorable(v):
            return False
        if v.is_block_arg:
            return v.index > 0 and v in self.needed.get(block, {})
        return v in self._plan(block).cached

    def taped_as_cut(self) -> bool:
        """Whether this run (one without ``needed``) taped of each loop body exactly what the
        minimum cut of its requests caches: a run with the cut then makes the same choice for
        every value asked (the cut's values taped, the rest recomputed or read as here), so the
        same gradient, and need not be made."""
        blocks = dict.fromkeys([*self.requests, *self.taped])
        for block in blocks:
            owner = block.parent_op
            if owner is None or owner.name not in ("for", "while"):
                continue  # (a branch's values: no cut there, in either run)
            if self._cut(block, self.requests.get(block, {})).cached != set(self.taped.get(block, ())):
                return False
            if any(self._latch_taped_too(v, block) for v in self.taped.get(block, ())):
                return False  # (a run with the cut knows the latch is taped: ``_will_tape``)
        return True

    def _latch_taped_too(self, v: Value, block: Block) -> bool:
        """Whether the carried value ``v``, taped itself, has a latch this run taped too."""
        slot = slot_of(v) if v.is_block_arg and v not in self.read_from_latch else None
        return slot is not None and slot.op is block.parent_op and slot.op.name == "for" \
            and slot.yields[0].operands[slot.k] in self.taped.get(block, ())

    def _keeps_costly(self, v: Value, block: Block) -> bool:
        """A costly value (``_recompute_cost``) of a branch of the function's top level: carried out
        of it by the forward sweep, not computed again in the reverse one. (A loop body's values are
        the cut's to decide, ``_plan``; a branch's inside a loop would need a tape per iteration.)"""
        owner = block.parent_op
        return owner is not None and owner.name == "if" and owner.parent is self.fn.body \
            and block not in self.ck_bodies and not v.is_block_arg and _recompute_cost(v) > 0

    def _plan(self, block: Block) -> CachePlan:
        """The minimum cut of what the reverse sweep needs from the loop body ``block``."""
        if self.needed is None or block.parent_op is None or block.parent_op.name not in ("for", "while"):
            return _NO_PLAN
        if block not in self._plans:
            self._plans[block] = self._cut(block, self.needed.get(block, {}))
        return self._plans[block]

    def _cut(self, block: Block, needed: dict[Value, None]) -> CachePlan:
        """The minimum cut of ``needed`` in the loop body ``block`` (``mincut.plan_cache``)."""
        return plan_cache(needed, lambda v: self._cache_kind(v, block), lambda v: list(v.defining_op.operands),
                          _cache_cost, _kept_anyway_cost)

    def _cache_kind(self, v: Value, block: Block) -> str:
        """How ``plan_cache`` sees ``v``: at hand for free, recomputable, or a source."""
        if defining_block(v) is not block:
            return "free"  # from an enclosing mirror
        if self.counters.restorable(v):
            return "free"  # a counter, restored from the loop (``counters.py``)
        if v.is_block_arg:
            return "free" if v.index == 0 and block.parent_op.name == "for" else "source"
        if self._kept_in_memory(v) is not None or self._reads_entry(v) \
                or self._invariant_in(self.forward.fwd[v], block.parent_op):
            return "free"  # read back from its array or a copy, or carried out of the loop once
        op = v.defining_op
        if is_pure(op) or self._is_readonly_load(op) or self.is_readonly_array_op(op):
            return "pure"
        return "source"

    def _kept_in_memory(self, v: Value) -> Optional[tuple[Value, list[Value]]]:
        """An array element that still holds ``v`` when the reverse sweep runs, if there is one.

        ``out[i] = v`` in a loop nest leaves ``v`` in ``out`` when that store is
        the only write to ``out`` in its top-level statement and none comes later,
        and its indices are the induction variables of all the enclosing ``for``
        loops (so each iteration writes its own element), or when no write after it
        touches its element (``analysis.final_elements``). Reading it back is a
        load instead of recomputing ``v`` (a division, a call) or taping it.
        """
        if v.defining_op is None or not is_pure(v.defining_op) or self.may_alias:
            return None
        for user, k in v.uses:
            if user.name != "store" or k != len(user.operands) - 1 or user.parent is not v.defining_op.parent:
                continue
            arr, index = user.operands[0], user.operands[1:-1]
            if defining_block(arr) is not self.fn.body:
                continue  # a view made in the loop may name other elements in each iteration
            if self.final.holds(user):  # no write after it touches the element (LU's A[i][j] /= ...)
                return arr, list(index)
            root = known_root(arr)
            top = top_level_index(self.fn, user)
            if self.last_write.get(root) != top or _writes_in(self.module, self.fn.body.ops[top], root) != 1:
                continue
            loops, b = [], user.parent
            while b is not self.fn.body:
                if b.parent_op.name != "if":  # branches run an iteration at most once
                    loops.append(b.parent_op)
                b = b.parent_op.parent
            ivs = {lp.regions[0].args[0] for lp in loops if lp.name == "for"}
            if len(ivs) == len(loops) == len(index) and set(index) == ivs:
                return arr, list(index)
        return None

    def _reads_entry(self, v: Value) -> bool:
        """Whether ``v`` is a load of a number that an array parameter held when the top-level
        statement around it began (``FinalElements.reads_entry``), read in several iterations
        of a loop (``rereads``): then one copy of the array, taken before the statement, serves
        the reverse sweep, where a tape would hold a number per iteration (TRMM's ``B[k][j]``)."""
        op = v.defining_op
        if op is None or op.name != "load" or not v.type.is_float or self.may_alias or self._is_readonly_load(op):
            return False  # (a load repeated in the reverse sweep as it is needs no copy)
        root = op.operands[0]
        if not root.is_block_arg or root.owner is not self.fn.body:
            return False
        if c_input(self.fn):  # C input: the copy's size must be known (a pointer carries none)
            at = self.fn.params.index(root)
            axes = self.forward.extents.extents(self.fn)[at]
            if axes is None or any(a is None for a in axes):
                return False
            spelled = c_param_spelled(self.fn, at)
            if spelled is not None and is_pointer_rows(spelled):
                return False  # rows that are pointers of their own: C copies no such array whole
        return self.final.reads_entry(op) and rereads(self.fn, op)

    def _entry_copy(self, load: Op) -> Value:
        """The copy of ``load``'s array that the forward sweep takes before its top-level statement."""
        root = load.operands[0]
        top = top_level_index(self.fn, load)
        if (root, top) not in self.entry_copies:
            statement = self.forward.fwd_op[self.fn.body.ops[top]]
            b = Builder(statement.parent, statement.loc).before_op(statement)
            name = free_variant(f"{root.name_hint}_at_loop", self.forward.user_names)
            copy = b.op1("copy", [self.forward.fwd[root]], root.type, name)
            self.entry_copies[(root, top)] = copy
            self.tapes.memory.copies.append(
                CopyEntry(name, root.name_hint, root.type.elem, line_of(self.fn.body.ops[top]), copy.defining_op))
        return self.entry_copies[(root, top)]

    def avail_clone(self, m: RevBlock, cv: Value, block: Block) -> Value:
        """A forward-sweep value living in the clone of ``block``, brought to ``block``'s mirror."""
        if block is self.fn.body or block in self.ck_bodies:
            return cv
        if cv in m.avail:
            return m.avail[cv]
        owner = block.parent_op
        if owner.name == "if":
            val = self.avail_clone(m.parent.mirror_of(owner.parent), self._escape_if(cv, block), owner.parent)
        elif owner.name == "for" and not owner.attrs.get("parallel") and self._invariant_in(cv, owner):
            # (A parallel loop, OpenMP's or prange, carries nothing out but its sums: a value its
            # body assigns is each thread's own. An invariant there is cached per iteration.)
            val = self.avail_clone(m.parent.mirror_of(owner.parent), self._escape_loop(cv, block), owner.parent)
        else:
            val = remade_copy(self, m, cv, block) or self.tapes.tape(m, cv, block)
        m.avail[cv] = val
        return val

    def _invariant_in(self, cv: Value, loop: Op) -> bool:
        """Whether the forward value ``cv`` is the same in every iteration of the primal ``loop``.

        Such a value needs one cache entry, not one per iteration (Enzyme's
        "cache LICM"): the loop carries it out, as LICM would have hoisted it
        had it been safe or worth it to run before the loop.
        """
        primal = self.forward.primal_of.get(cv)
        if primal is None or primal.is_block_arg:
            return False
        op = primal.defining_op
        if any(loop.encloses(o) for o in op.operands):
            return False
        written = {known_root(w) for w in written_arrays(self.module, loop)}
        written = may_be_written(self.fn, written, self.may_alias)
        if op.name == "load":
            return known_root(op.operands[0]) not in written
        if op.name == "call":
            callee = self.module.functions[op.attrs["callee"]]
            if written_params(self.module, callee):
                return False
            return not any(a.type.is_array and known_root(a) in written for a in op.operands)
        return is_pure(op)

    def _escape_loop(self, cv: Value, body: Block) -> Value:
        """Carry ``cv`` (invariant, defined in the cloned loop body) out as a new loop result."""
        loop = self.forward.fwd_op[body.parent_op]
        if not cv.name_hint:
            cv.name_hint = describe(cv)  # it becomes a variable the reverse sweep reads
        init = Builder(loop.parent, loop.loc).before_op(loop).op1("undef", [], cv.type)
        return add_carried(loop, init, lambda _: cv, cv.name_hint)

    def _escape_if(self, cv: Value, region: Block) -> Value:
        """Make ``cv`` (defined in one region of an ``if``) a new result of the cloned ``if``."""
        if_op = self.forward.fwd_op[region.parent_op]

        def yielded(r: Block) -> Value:  # cv where it is made, undefined in the other region
            if r is self.forward.fwd_block[region]:
                return cv
            return Builder(r, if_op.loc).before_op(r.terminator).op1("undef", [], cv.type)

        return add_if_result(if_op, yielded, cv.type, cv.name_hint)


_NO_PLAN = CachePlan()


def _cache_cost(v: Value) -> float:
    """Bytes per iteration to cache ``v``; half a byte more for a value the source does not name
    (its tape would be ``tape``, not ``tape_k``), which decides only between equal sizes."""
    if v.type.is_array or _shape_generic(v):
        return INF  # arrays are never cached per iteration, nor what may be one when the output runs
    return elem_bytes(v.type) + (0.0 if v.name_hint else 0.5)


def _shape_generic(v: Value) -> bool:
    """A value of a shape-generic parameter (``shape_generic``): maybe an array at run time."""
    op = v.defining_op
    return op is not None and bool(op.attrs.get(GENERIC_VALUE))


# The functions that cost many times a load or a multiplication to compute (tens of cycles
# where an element of tape costs a store and a load): computing one again in the reverse sweep
# counts as this many bytes of tape (two numbers' worth), so it is kept rather than computed again
# unless that saves more than two other numbers of tape.
_CHEAP_MATH = frozenset({"abs", "floor", "ceil", "trunc", "rint", "round", "sign", "min", "max", "copysign", "fdim",
                         "ldexp"})
COSTLY_RECOMPUTE = 16.0


def _recompute_cost(v: Value) -> float:
    """What computing ``v`` again in the reverse sweep costs, in bytes of tape (``mincut``)."""
    op = v.defining_op
    if op is None or v.type.is_array or _shape_generic(v):
        return 0.0
    if op.name.startswith("math.") and op.name[5:] not in _CHEAP_MATH or op.name == "pow" and v.type.is_float:
        return COSTLY_RECOMPUTE
    return 0.0


def _kept_anyway_cost(v: Value) -> float:
    """``_recompute_cost`` of a loop body's value that the forward sweep computes in any case: one
    that flows into what the loop stores or passes to a call. (One that only feeds a sum the
    function returns may be computed by the reverse sweep alone, the forward loop gone: taping it
    would add a loop, not save a computation.)"""
    cost = _recompute_cost(v)
    if not cost:
        return 0.0
    seen: set[Value] = set()
    pending = [v]
    while pending:
        w = pending.pop()
        if w in seen:
            continue
        seen.add(w)
        for user, _ in w.uses:
            if user.name in ("store", "accum", "call", "extern") or user.name.startswith("arr."):
                return cost
            if is_pure(user):
                pending += user.results
    return 0.0


def _writes_in(module: Module, top: Op, root: Value) -> int:
    """How many ops in ``top`` (a top-level op and its regions) may write ``root``."""
    return sum(1 for op in top.walk() for a in written_operands(module, op) if known_root(a) is root)


def last_top_level_writes(module: Module, fn: Function) -> dict[Value, int]:
    """For each array root ``fn`` writes, the position of the last top-level op writing it."""
    return {known_root(a): k for k, top in enumerate(fn.body.ops) for a in written_arrays(module, top)}
