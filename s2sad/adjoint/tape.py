"""Tapes: a forward-sweep value that the reverse sweep needs and cannot recompute is stored in
every iteration of its loops and read back in the mirrored iteration.

Inside ``for`` loops whose trip counts are known before the outermost one, the cache is an
array indexed by the iteration number across the nest; elsewhere (``while`` loops, bounds that
change between iterations) a stack that grows when full. Each tape is reported (``report.py``).
"""

from __future__ import annotations

from typing import Container, Optional

from ..analysis.effects import array_root, written_arrays
from ..ssa import build
from ..ssa.opdefs import is_pure
from ..ssa.array_ops import shape_unit_axes
from ..ssa.attrs import struct_attrs
from ..ssa.ir import Block, Builder, Function, Op, Value
from ..ssa.ops import points_into_member, storage_of
from ..ssa.structured import add_if_result, element_loops, slot_of, trip_count
from ..ssa.types import I64, ArrayType, Type
from .forward import ForwardSweep
from .report import MemoryReport, TapeEntry
from .sweep import RevBlock, defining_block, describe, extent_at, floordiv, least, line_of
from .trip_bounds import fixed_trips, fixed_value, nest_bound


class Tapes:
    """Makes the tapes of one gradient; ``ck_bodies`` are loop bodies re-run in the reverse sweep
    (checkpointed), where a tape lasts one iteration."""

    def __init__(self, fn: Function, forward: ForwardSweep, checkpointed: Container[Op],
                 ck_bodies: set[Block], memory: MemoryReport):
        self.fn = fn
        self.forward = forward
        self.checkpointed = checkpointed
        self.ck_bodies = ck_bodies
        self.memory = memory
        self.count = 0  # values taped so far (a gradient with none needs no cut: ``gradient.py``)
        self.unnamed = 0  # arrays taped that have no name of their own
        # the reverse sweep's load of an indexed cache -> the loops it has a slot per iteration of
        # (a carried value reads its latch's previous slot: ``carried_slots.py``)
        self.slot_loops: dict[Value, list[Op]] = {}

    def tape(self, m: RevBlock, cv: Value, block: Block) -> Value:
        """Store ``cv`` every iteration of the forward loop body; read it back in the reverse body.

        Inside ``for`` loops whose trip counts are known before the outermost
        one, the cache is an array indexed by the iteration (``tape_s[i] = s``,
        then ``s = tape_s[i]``). Elsewhere (``while`` loops, bounds that change
        from one iteration to the next) it is a stack that grows when full.
        """
        self.count += 1
        loops = []
        b: Block = block
        while b is not self.fn.body and b not in self.ck_bodies:
            loops.append(b.parent_op)
            b = b.parent_op.parent
        loops.reverse()  # outermost first
        if cv.type.is_array:
            return self._tape_array(m, cv, block, loops)
        outer = self.forward.fwd_op[loops[0]]
        at = Builder(outer.parent, outer.loc).before_op(outer)
        elem = cv.type
        what = describe(self.forward.primal_of.get(cv, cv))  # the source's names, not a work copy's
        hint = f"tape_{what}" if what else "tape"
        if what and not cv.name_hint:
            cv.name_hint = what  # the forward sweep names what it stores
        clone_block = self.forward.fwd_block[block]
        pb = Builder(clone_block, outer.loc)
        pb.index = 0 if cv.is_block_arg else clone_block.ops.index(cv.defining_op) + 1
        trips = self.trip_counts(at, loops) if all(op.name == "for" for op in loops) else None
        within = loops[0]
        primal = self.forward.primal_of.get(cv)  # (None for a block argument: a carried value)
        firsts = [self._first(at, op) for op in loops] if trips is not None else []
        if trips is not None and primal is not None:  # one slot for all iterations of a loop it is the same in
            kept = [k for k, op in enumerate(loops) if not self._invariant_in(primal, op, {})]
            loops, trips, firsts = [loops[k] for k in kept], [trips[k] for k in kept], [firsts[k] for k in kept]
        entry = self._entry(hint, what, elem, loops, outer, within=within)
        if trips is not None:  # (no loop left: the same value in every iteration of the nest, one slot)
            capacity = trips[0] if trips else build.const(at, 1, I64)
            for t in trips[1:]:
                capacity = build.mul(at, capacity, t)
            cache = at.op1("alloc", [capacity], ArrayType(elem, 1), hint, fill="empty", elem=str(elem), cache=True)
            entry.op = cache.defining_op
            fwd_ivs = [self.forward.fwd_block[op.regions[0]].args[0] for op in loops]
            rev_ivs = [m.mirror_of(op.regions[0]).block.args[0] for op in loops]
            for iv in fwd_ivs + rev_ivs:
                if iv.name_hint in ("", "_"):
                    iv.name_hint = "it"  # `for _ in ...` now indexes the cache
            pb.create("store", [cache, self._iteration_index(pb, loops, fwd_ivs, trips, firsts), cv], [])
            index = self._iteration_index(m.prologue, loops, rev_ivs, trips, firsts)
            loaded = m.prologue.op1("load", [cache, index], elem, what)
            self.slot_loops[loaded] = loops
            return loaded
        capacity = self._nest_bound(at, loops)
        grow = capacity is None
        if capacity is None:
            bounds = self.trip_counts(at, [op for op in loops if op.name != "if"], partial=True)
            capacity = bounds[0] if bounds else build.const(at, 16, I64)
            for t in bounds[1:]:
                capacity = build.mul(at, capacity, t)
        tape = at.op1("tape.new", [capacity], ArrayType(elem, 1), hint, elem=str(elem), grow=grow)
        entry.op = tape.defining_op
        pb.create("tape.push", [tape, cv], [])
        return m.prologue.op1("tape.pop", [tape], elem, what)

    def _invariant_in(self, v: Value, loop: Op, seen: dict[Value, bool]) -> bool:
        """Whether the primal value ``v`` (of a block in ``loop``) is the same in every iteration of
        ``loop``, at the same iterations of the loops inside it: ``A[r][q][s]`` read in ``for p``
        (``for s`` inside it) where nothing in ``p``'s loop writes ``A``. Its tape then has one slot
        for all of ``loop``'s iterations (each stores the same value there): a tape the size of
        what the value depends on, not of the nest around it (issue 19: ``doitgen``)."""
        if not loop.encloses(v):
            return True
        if v in seen:
            return seen[v]
        seen[v] = False  # (a cycle through a carried value: not invariant)
        if v.is_block_arg:
            owner = v.owner.parent_op
            result = owner is not loop and owner.name == "for" and v.index == 0  # a counter inside
        else:
            op = v.defining_op
            if op.name == "load":
                result = not self._written_in(op.operands[0], loop) and all(
                    self._invariant_in(o, loop, seen) for o in op.operands)
            else:
                result = not op.regions and is_pure(op) and all(self._invariant_in(o, loop, seen) for o in op.operands)
        seen[v] = result
        return result

    def _written_in(self, arr: Value, loop: Op) -> bool:
        """Whether anything in ``loop`` may write the array ``arr`` reads."""
        written = {array_root(w) for w in written_arrays(self.forward.module, loop)}
        root = array_root(arr)
        return bool(written) and (self.forward.may_alias or root is None or None in written or root in written)

    def _entry(self, hint: str, what: str, elem: Type, loops: list[Op], outer: Op, array: bool = False,
               within: Optional[Op] = None) -> TapeEntry:
        """The report's line for a new tape (``report.py``): per iteration of ``loops``, within the
        loop ``within`` (the first of them where not given)."""
        top = within or loops[0]
        while top.parent is not self.fn.body:
            top = top.parent.parent_op
        entry = TapeEntry(
            hint, what, elem, [line_of(op) for op in loops if op.name != "if"], line_of(top), outer,
            line_of(top) if top in self.checkpointed else None, array,
        )
        self.memory.tapes.append(entry)
        return entry

    def _tape_array(self, m: RevBlock, cv: Value, block: Block, loops: list[Op]) -> Value:
        """An array the reverse sweep needs as it was in one iteration (the copy of an argument
        taken before a call that overwrites it, a whole array a loop changes): the forward
        iteration pushes its elements on a stack, and the mirrored one pops them into a new array.

        Its shape is taped like any scalar (or read again, for an array made before every loop),
        so arrays of any shape and size, in ``for`` and ``while`` loops alike, take this one path;
        the stack grows as it fills."""
        clone_block = self.forward.fwd_block[block]
        loc = cv.defining_op.loc if cv.defining_op is not None else None
        pb = Builder(clone_block, loc)
        pb.index = 0 if cv.is_block_arg else clone_block.ops.index(cv.defining_op) + 1
        what = describe(self.forward.primal_of.get(cv, cv)) or cv.name_hint
        elem = cv.type.elem
        rank = cv.type.rank
        # A copy taken just before a call is pushed from what it copies (the stack is the copy;
        # the copy itself then goes unused), and sized by it. One copy back, no further: the
        # array it copies may itself be a copy taken earlier (a checkpointed loop's entry copy,
        # ``x_at_loop``) of an array written since (``x[0] += ...`` after that loop).
        source = cv
        if cv.defining_op is not None and cv.defining_op.name == "copy":
            source = cv.defining_op.operands[0]
        # An unnamed value (a whole-array temporary): each its own name, as C reads an array's
        # extent back from the variable its allocation was sized by, which must name one value.
        self.unnamed += 0 if what else 1
        named = what or ("elems" if self.unnamed == 1 else f"elems{self.unnamed}")
        hint = f"tape_{named}"
        lens = [f"{named}_len" if rank == 1 else f"{named}_len{ax}" for ax in range(rank)]
        # The forward sweep's extents go unnamed (printed where used): the reverse sweep's own
        # variables take the names, so that each is assigned once (C reads an array's extent
        # back from the variable its allocation was sized by).
        dims = [extent_at(pb, source, ax, "") for ax in range(rank)]
        call = self.forward.snapshot_calls.get(cv)
        rows = _rows(cv)  # copy(x, n): the rows the callee touches; or what each branch copied
        if rows is not None:
            dims[0] = rows
        # Axes known to be one long stay known so in the array popped: an adjoint that broadcast
        # it sums over them (``array_ops.shape_unit_axes``). Their lengths are taped all the same
        # when the value merges others (a branch's result, the untaken branch's an empty array):
        # what is pushed and popped is then what the array holds, and the stack stays in step.
        units = shape_unit_axes(source)
        fixed = frozenset() if slot_of(source) is not None else units
        dims = _one_long(pb, dims, fixed)
        outer = self.forward.fwd_op[loops[0]]
        at = Builder(outer.parent, outer.loc).before_op(outer)
        owners = [_extent_owner(source, ax) for ax in range(rank)]
        capacity = self._array_tape_capacity(at, loops, owners, call, rows)
        stack = at.op1("tape.new", [capacity or build.const(at, 16, I64)], ArrayType(elem, 1), hint,
                       elem=str(elem), grow=capacity is None)
        self._entry(hint, what, elem, loops, outer, array=True).op = stack.defining_op

        def push(b: Builder, index: list[Value]) -> None:
            # ``cover``: the loop reads what the array's cover holds, no further (``analysis.extents``).
            b.create("tape.push", [stack, b.op1("load", [source, *index], elem, cover=True)], [])

        element_loops(pb, dims, push)
        # ``home``: where the array the stack is popped into is made
        # With a reach, the same shape in every iteration when the call's sizes are made before
        # every loop too (``subtract(d, ...)``): then the reversed loops compute it once as well.
        home = m.mirror_of(loops[0].parent)
        again = None if call is None else self.forward.reach(*call, home.prologue, self.forward.top_level)
        if all(self._same_extent(owner, ax) for owner, ax in owners) and (call is None or again is not None):
            # The same shape in every iteration: one array, made before the reversed loops,
            # takes each iteration's elements in turn (every element is popped into it anew).
            rev_dims = [self._extent_before(home.prologue, owner, ax, "" if k == 0 and again is not None else lens[k])
                        for k, (owner, ax) in enumerate(owners)]
            if again is not None:
                rev_dims[0] = least(home.prologue, again, rev_dims[0], lens[0])
            rev_dims = _one_long(home.prologue, rev_dims, fixed)
        else:
            home = m
            rev_dims = []
            for ax, (d, name) in enumerate(zip(dims, lens)):  # each iteration's own, popped first
                if ax in fixed:
                    rev_dims.append(build.const(m.prologue, 1, I64))
                    continue
                d.name_hint = name  # names its tape (``tape_<name>``), then leaves the forward sweep
                rev_dims.append(self.tape(m, d, block))
                d.name_hint = ""
                rev_dims[-1].name_hint = name
        # An array of structs is restored into one (C output: the same struct type, its members)
        struct = {} if points_into_member(source) else struct_attrs(self.fn, self._primal_array(storage_of(source)))
        made = _one_long(home.prologue, rev_dims, units)
        restored = home.prologue.op1("alloc", made, cv.type, what, fill="empty", elem=str(elem), **struct)

        def pop(b: Builder, index: list[Value]) -> None:
            b.create("store", [restored, *index, b.op1("tape.pop", [stack], elem)], [])

        element_loops(m.prologue, rev_dims, pop, backward=True)
        return restored

    def _array_tape_capacity(self, at: Builder, loops: list[Op], owners: list[tuple[Value, int]],
                             call: Optional[tuple[Op, int]], rows: Optional[Value]) -> Optional[Value]:
        """The elements an array tape ever holds, computed at ``at`` before the loops: the bounds
        of their trip counts times the array's size, where both are known there (the array's
        extents made before every loop; the rows a call reaches, in the call's sizes made there
        too). None otherwise: the stack then grows as it fills."""
        if not all(self._same_extent(owner, ax) for owner, ax in owners):
            return None
        total = self._nest_bound(at, loops)
        if total is None:
            return None
        dims = [self._extent_before(at, owner, ax, "") for owner, ax in owners]
        if rows is not None:
            reach = None if call is None else self.forward.reach(*call, at, self.forward.top_level)
            if reach is None:
                return None
            dims[0] = least(at, reach, dims[0])
        for v in dims:
            total = build.mul(at, total, v)
        return total

    def _primal_array(self, v: Value) -> Value:
        """The primal array a forward-sweep array is (a parameter, or the value an op made)."""
        if v.is_block_arg:
            return next((p for p in self.fn.params if self.forward.fwd.get(p) is v), v)
        return self.forward.primal_of.get(v, v)

    def _same_extent(self, owner: Value, ax: int) -> bool:
        """Whether ``owner``'s extent along ``ax`` is one value before every loop: ``owner`` is
        made there, or allocated in a loop with an extent that is a constant or made there (C's
        ``double Xo[3]`` in a loop body: three numbers in every iteration)."""
        if self._outside_loops(owner):
            return True
        made = owner.defining_op
        if made is None or made.name != "alloc":
            return False
        d = made.operands[ax]
        return build.const_int(d) is not None or self._outside_loops(d)

    def _extent_before(self, b: Builder, owner: Value, ax: int, hint: str) -> Value:
        """The extent ``_same_extent`` finds the same in every iteration, at ``b`` before the loops."""
        if self._outside_loops(owner):
            return extent_at(b, owner, ax, hint)
        d = owner.defining_op.operands[ax]  # type: ignore[union-attr]
        c = build.const_int(d)
        return build.const(b, c, I64) if c is not None else d

    def _outside_loops(self, v: Value) -> bool:
        """Whether the forward value ``v`` is made before every loop (a parameter, a top-level
        value), so that the reverse sweep may read it anywhere."""
        if v.is_block_arg:
            return v.owner.parent_op is None
        primal = self.forward.primal_of.get(v)
        return primal is not None and defining_block(primal) is self.fn.body

    def _nest_bound(self, at: Builder, loops: list[Op]) -> Optional[Value]:
        """An upper bound of the iterations of ``loops``' innermost body over the nest, computed
        before the outermost loop; None when a loop has none (``trip_bounds.nest_bound``)."""
        return nest_bound(at, loops, self.fn.body, lambda v: self.forward.fwd[v])

    def _first(self, at: Builder, loop: Op) -> Value:
        """The first value of ``loop``'s counter, at ``at`` before its nest (where ``trip_counts``
        found the nest's counts there), so that the reverse sweep may read it too."""
        lb = loop.operands[0]
        if defining_block(lb) is self.fn.body or defining_block(lb) in self.ck_bodies:
            return self.forward.fwd[lb]
        if build.const_int(lb) is not None:  # made again before the nest, spelled as the source does
            const = lb.defining_op
            return at.create("const", [], [lb.type], dict(const.attrs), hints=[lb.name_hint], loc=const.loc).result
        first = fixed_value(at, lb, self.fn.body, lambda v: self.forward.fwd[v])
        assert first is not None, "a loop whose trip count is known before its nest starts anywhere"
        return first

    def _iteration_index(self, b: Builder, loops: list[Op], ivs: list[Value], trips: list[Value],
                         firsts: list[Value]) -> Value:
        """The iteration number of the innermost loop, counted across all of ``loops`` (0 for none)."""
        index: Optional[Value] = None
        for loop, iv, trip, lb in zip(loops, ivs, trips, firsts):
            step = build.const_value(loop.operands[2])
            # The distance from the first iteration is never negative in an iteration that runs, so
            # a truncated quotient is the floored one (C prints ``/``, whose range gcc can follow).
            if step > 0:
                k = floordiv(b, build.sub(b, iv, lb), build.const(b, step, I64), rounding="any")
            else:
                k = floordiv(b, build.sub(b, lb, iv), build.const(b, -step, I64), rounding="any")
            index = k if index is None else build.add(b, build.mul(b, index, trip), k)
        return index if index is not None else build.const(b, 0, I64)

    def trip_counts(self, at: Builder, loops: list[Op], partial: bool = False) -> Optional[list[Value]]:
        """Trip counts of ``for`` loops computed before the outermost one, or None when unknown.

        With ``partial``, the counts of the leading loops that are known (a capacity guess).
        """
        trips: list[Value] = []
        for loop in loops:
            step = build.const_value(loop.operands[2]) if loop.name == "for" else None
            known = step is not None and all(
                defining_block(v) is self.fn.body or defining_block(v) in self.ck_bodies
                or build.const_int(v) is not None for v in loop.operands[:2]
            )
            if known:
                # (a constant bound made inside an outer loop: made again here, before the outermost)
                lb, ub = (build.const(at, build.const_int(v), I64) if build.const_int(v) is not None
                          and defining_block(v) is not self.fn.body else self.forward.fwd[v]
                          for v in loop.operands[:2])
                trips.append(trip_count(at, lb, ub, step) if step > 0 else trip_count(at, ub, lb, -step))
                continue
            # bounds made in an outer loop from values made before the nest (``h - 1`` of
            # ``for (j = h - 1; j >= 0; j--)``): the same in every iteration, made again here
            same = fixed_trips(at, loop, self.fn.body, lambda v: self.forward.fwd[v])
            if same is None:
                return trips if partial else None
            trips.append(same)
        return trips


def _rows(v: Value) -> Optional[Value]:
    """The rows a copy holds where the copy says (``copy(x, n)``), or, for an array an ``if``
    chose between copies (a call made once per array a pointer may point at), the rows of the
    branch's: a new result of the ``if`` (0 where it yields no array); None otherwise."""
    op = v.defining_op
    if op is not None and op.name == "copy":
        return op.operands[1] if len(op.operands) == 2 else None
    if op is None or op.name != "if":
        return None
    k = op.results.index(v)
    if not all(_copied(region.terminator.operands[k]) for region in op.regions):
        return None

    def yielded(region: Block) -> Value:
        y = region.terminator.operands[k]
        b = Builder(region, op.loc).before_op(region.terminator)
        if y.defining_op is not None and y.defining_op.name == "undef":
            return build.const(b, 0, I64)
        return _rows(y) or extent_at(b, y.defining_op.operands[0], 0, "")  # type: ignore[union-attr]
    return add_if_result(op, yielded, I64)


def _copied(y: Value) -> bool:
    """A branch's array for ``_rows``: a copy, or none (``undef``)."""
    return y.defining_op is not None and y.defining_op.name in ("copy", "undef")


def _extent_owner(arr: Value, axis: int) -> tuple[Value, int]:
    """The array and axis whose extent ``arr``'s is: through rows (``A[i]`` has ``A``'s next
    extent); an offset view's extent is its own (it depends on the offset)."""
    op = arr.defining_op
    while op is not None and op.name == "view" and op.operands[0].type.rank > arr.type.rank:
        axis += op.operands[0].type.rank - arr.type.rank
        arr = op.operands[0]
        op = arr.defining_op
    return arr, axis


def _one_long(b: Builder, dims: list[Value], axes: Container[int]) -> list[Value]:
    """``dims`` with the extents of ``axes`` the constant 1 (made at ``b``), so they stay known."""
    return [build.const(b, 1, I64) if ax in axes else d for ax, d in enumerate(dims)]
