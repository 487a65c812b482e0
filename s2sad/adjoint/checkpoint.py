"""Checkpointing schedules for loops of the reverse sweep: which loop gets which, and its code.

By default (``store-all``) the forward sweep tapes what every iteration of a
loop leaves for the reverse sweep (``reverse._tape``). A checkpointed ``for``
loop tapes nothing in the forward sweep; it stores *snapshots* of the state at
the start of chosen iterations instead, and its reversed loop rebuilds the
state each iteration needs, then runs that one iteration again with taping and
reverses it at once ("re-run the forward loop body from a saved state"):

* ``recompute``: one snapshot (the loop's entry state); iteration ``k`` is
  reached by re-running iterations ``0 .. k - 1``;
* ``periodic(K)``: a snapshot every ``K`` iterations; re-runs within a segment;
* ``binomial(s)``: ``s`` snapshots placed by Griewank-Walther revolve
  (``revolve.split``), the least recomputation for that memory.

The state of an iteration is the loop's carried scalars plus the arrays the
loop writes (roots defined before the loop). The reverse sweep works on copies
(``<array>_ck``, the *work* arrays) so the arrays keep their exit values, as
the contract requires. The forward sweep leaves the last iteration's state in
the work arrays, so the first reversed iteration re-runs nothing. Arrays the
loop only reads but a later statement writes are copied at loop entry. Snapshot
buffers are allocated once before the loop (``snap_<name>``: one row per slot).

Choice of schedule: a comment ``# s2sad: checkpoint binomial(snapshots=10)``
(Python) or ``#pragma s2sad checkpoint binomial(10)`` (C) on the line right
above the loop, which the front ends make the loop's ``checkpoint`` attribute
(``parse/annotations.py``), else the ``--checkpoint`` option for the function's
outermost ``for`` loops. The checkpointed unit is one iteration of that loop, inner loops
included; so it must be an outermost ``for`` with a constant step (its trip
count is known when it starts), or an outermost ``while`` under ``recompute``:
the forward sweep keeps its entry state and counts its iterations, and the
reversed loop counts them down, re-running iterations ``0 .. k - 1`` from that
state before iteration ``k`` (``periodic`` and ``binomial`` place snapshots by
a trip count a while loop has only at its end). Anything else is reported,
never guessed.

References: Griewank & Walther, "Evaluating Derivatives" (2008), ch. 12;
Griewank & Walther, "Algorithm 799: revolve", ACM TOMS 26(1), 2000.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from ..diagnostics import DiagnosticError, error
from ..ssa import build
from ..ssa.attrs import STORE_ALL, Schedule, loop_schedule, struct_attrs
from ..ssa.ir import Block, Builder, Function, Module, Op, SourceLoc, Value
from ..ssa.clone import clone_ops
from ..analysis.shared_refill import is_shared
from ..ssa.structured import outer_refs
from ..ssa.types import BOOL, I64, ArrayType, Type
from ..analysis.effects import known_root, written_arrays
from .forward import ForwardSweep
from .report import elem_bytes

if TYPE_CHECKING:  # pragma: no cover
    from .sweep import RevBlock
    from .tape import Tapes

def plan(module: Module, fn: Function, default: Optional[Schedule]) -> dict[Op, Schedule]:
    """The checkpointed loops of ``fn`` and their schedules (store-all loops are left out).

    An annotated loop that cannot be checkpointed is an error; the ``--checkpoint``
    default applies to outermost ``for`` loops only, and raises the same errors for them.
    """
    chosen: dict[Op, Schedule] = {}
    for op in fn.walk():
        if op.name not in ("for", "while"):
            continue
        found = loop_schedule(op)
        if found is None:
            if default is None or default == STORE_ALL or op.parent is not fn.body or op.name != "for":
                continue
            schedule, where = default, op.loc
        else:
            schedule, where = found
        if schedule == STORE_ALL:
            continue
        try:
            _check_applies(module, fn, op, schedule, where)
        except DiagnosticError as e:
            if found is None:  # chosen by --checkpoint: say how to leave this one loop out
                for d in e.diagnostics:
                    d.hint += "; or exempt this loop: `# s2sad: checkpoint store-all` (C: `#pragma s2sad "
                    d.hint += "checkpoint store-all`) on the line above it"
            raise
        chosen[op] = schedule
    return chosen


def _check_applies(module: Module, fn: Function, op: Op, schedule: Schedule, where: Optional[SourceLoc]) -> None:
    if op.name == "while" and schedule.kind != "recompute":
        raise error(
            f"cannot checkpoint this while loop with {schedule}: its trip count is known only when it "
            f"ends, and {schedule.kind} places its snapshots by the trip count",
            where,
            hint="use `checkpoint recompute` (one snapshot, at the loop's entry), write it as a for loop "
            "over a range, or leave it store-all (remove the annotation)",
        )
    if op.parent is not fn.body:
        raise error(
            f"cannot checkpoint this loop with {schedule}: it is nested in another loop or a branch; "
            "a checkpointed loop must be outermost in its function",
            where,
            hint="annotate the outermost loop (its iterations, inner loops included, are what is checkpointed)",
        )
    if op.name == "for" and build.const_int(op.operands[2]) is None:
        raise error(
            f"cannot checkpoint this loop with {schedule}: its step is not a constant, so its trip "
            "count is not known when it starts",
            where,
            hint="give the range a constant step",
        )
    shared = sorted({root.name_hint or "a __shared__ array" for root in map(known_root, written_arrays(module, op))
                     if is_shared(root)})
    if shared:
        # Snapshots and re-runs are per thread, where __shared__ memory is the block's: a thread
        # re-running an iteration would refill only its own elements and read stale ones.
        raise error(
            f"cannot checkpoint this loop with {schedule}: it writes __shared__ memory "
            f"({', '.join(shared)}), and re-running its iterations per thread cannot rebuild what the "
            "other threads of the block stored there",
            where,
            hint="leave this loop store-all, whose tapes keep what each thread reads there",
        )


@dataclass
class _Array:
    """A state array: the primal root, its snapshot buffer, work copy and element count."""

    root: Value
    snap: Value
    work: Value
    dims: list[Value]
    size: Value


class CheckpointedLoop:
    """The code of one checkpointed ``for`` loop: forward sweep with snapshots, reversed prologue."""

    def __init__(self, forward: ForwardSweep, tapes: "Tapes", last_write: dict[Value, int], loop: Op,
                 schedule: Schedule):
        self.fw = forward
        self.tapes = tapes
        self.last_write = last_write
        self.loop = loop
        self.schedule = schedule
        # A while loop (recompute only) has no induction variable: its iterations are counted
        # in the forward sweep, and iteration k is reached by re-running k bodies from its entry.
        self.is_while = loop.name == "while"
        self.body: Block = loop.regions[1] if self.is_while else loop.regions[0]
        self.step = 1 if self.is_while else build.const_int(loop.operands[2])
        self.carried = list(self.body.args) if self.is_while else list(self.body.args[1:])

        roots: dict[Value, None] = {}
        fw = forward
        for a in written_arrays(fw.module, loop):
            r = known_root(a)
            if _top_level(fw.fn, r):
                roots.setdefault(r, None)
        self.state_roots = list(roots)
        # Arrays it reads that a later statement overwrites: the reverse sweep needs them as they
        # were while the loop ran.
        index = fw.fn.body.ops.index(loop)
        self.entry_roots: list[Value] = []
        for v in _outer_arrays(loop):
            r = known_root(v)
            if r not in roots and r not in self.entry_roots and self.last_write.get(r, -1) > index:
                self.entry_roots.append(r)
        self.arrays: list[_Array] = []
        self.entry_copies: dict[Value, Value] = {}
        self.scalar_snaps: list[Value] = []
        self.depth_out: Optional[Value] = None
        self.saved_fwd: dict[Value, Value] = {}

    # ----------------------------------------------------------- bookkeeping
    def snapshot_bytes_per_slot(self) -> str:
        """A readable size of one snapshot: the scalars' bytes plus each array's element count."""
        scalars = sum(elem_bytes(I64 if c.type == BOOL else c.type) for c in self.carried)  # flags as ints
        parts = [f"{scalars} B"] if self.carried else []
        for a in self.state_roots:
            count = f"len({a.name_hint})" if a.type.rank == 1 else f"{a.name_hint}.size"
            parts.append(f"{elem_bytes(a.type.elem)} B x {count}")
        return " + ".join(parts) or "0 B"

    @property
    def slots_text(self) -> str:
        s = self.schedule
        if s.kind == "recompute":
            return "1 slot"
        if s.kind == "periodic":
            return f"ceil(trips / {s.n}) slots"
        return f"{s.n} slots"

    # ---------------------------------------------------------- forward sweep
    def forward(self, b: Builder) -> None:
        """The primal loop, storing snapshots, at the top level of the forward sweep."""
        fw, loop = self.fw, self.loop
        fwd = fw.fwd
        where = f" at line {loop.loc.line}" if loop.loc else ""
        b.create("comment", [], [], {"text": f"{self.schedule} checkpointing of the loop{where}"})
        if self.is_while:
            self._forward_while(b)
            return
        self.trips = self.tapes.trip_counts(b, [loop])[0]
        self.last = build.sub(b, self.trips, build.const(b, 1, I64), "ck_last")
        if self.schedule.kind == "recompute":
            self.nslots = build.const(b, 1, I64)
        elif self.schedule.kind == "periodic":
            k = self.schedule.n
            span = build.add(b, self.trips, build.const(b, k - 1, I64))
            self.nslots = build.math(b, "max", build.binary(b, "floordiv", span, build.const(b, k, I64)),
                                     build.const(b, 1, I64), hint="ck_slots")
        else:
            self.nslots = build.const(b, self.schedule.n, I64)
        self._allocate(b)

        zero = build.const(b, 0, I64)
        inits = [fwd[v] for v in loop.operands]
        body = Block([a.type for a in self.body.args] + [I64, I64],
                     [a.name_hint for a in self.body.args] + ["ck_next", "ck_depth"])
        new = b.create("for", inits + [zero, zero], [r.type for r in loop.results] + [I64, I64],
                       regions=[body], hints=[r.name_hint for r in loop.results] + ["ck_next", "ck_depth"],
                       loc=loop.loc)
        bb = Builder(body, loop.loc)
        vmap = dict(zip(self.body.args, body.args))
        state = list(body.args[1 : 1 + len(self.carried)])
        iv, nxt, depth = body.args[0], body.args[-2], body.args[-1]
        k = self._iteration(bb, iv)
        # Store a snapshot when this iteration is the next one the schedule keeps.
        then, other = Block(), Block()
        tb = Builder(then, loop.loc)
        self._save(tb, state, [fwd[r] for r in self.state_roots], depth, k)
        depth1 = build.add(tb, depth, build.const(tb, 1, I64))
        cand = self._next_snapshot(tb, k, depth1)
        nxt1 = build.select(tb, build.cmp(tb, "lt", cand, self.last), cand, self.trips)
        tb.create("yield", [nxt1, depth1], [])
        Builder(other, loop.loc).create("yield", [nxt, depth], [])
        kept = bb.create("if", [build.cmp(bb, "eq", k, nxt)], [I64, I64], regions=[then, other],
                         hints=["ck_next", "ck_depth"])
        # The last iteration's state goes to the work arrays: the first reversed iteration starts there.
        then, other = Block(), Block()
        tb = Builder(then, loop.loc)
        for c, snap in zip(state, self.scalar_snaps):
            tb.create("store", [snap, self.nslots, _to_stored(tb, c)], [])
        for a in self.arrays:
            _copy_array(tb, fwd[a.root], a.work, a.dims)
        tb.create("yield", [], [])
        Builder(other, loop.loc).create("yield", [], [])
        bb.create("if", [build.cmp(bb, "eq", k, self.last)], [], regions=[then, other])
        clone_ops(self.body.ops[:-1], bb, vmap, lambda v: fwd[v])
        ys = [vmap[v] if v in vmap else fwd[v] for v in self.body.terminator.operands]
        bb.create("yield", ys + list(kept.results), [])
        fw.fwd_op[loop] = new
        for r, nr in zip(loop.results, new.results):
            fwd[r] = nr
            fw.primal_of[nr] = r
        self.depth_out = new.results[-1]

    def _allocate(self, b: Builder) -> None:
        """The iteration numbers of the slots, the scalars' and arrays' snapshot buffers, the work
        arrays and the entry copies (``nslots`` set)."""
        fwd = self.fw.fwd
        self.pos = b.op1("alloc", [self.nslots], ArrayType(I64, 1), "ck_iter", fill="zeros", elem="i64")
        for c in self.carried:
            t = I64 if c.type == BOOL else c.type
            one_more = build.add(b, self.nslots, build.const(b, 1, I64))
            name = f"snap_{c.name_hint or 'state'}"
            self.scalar_snaps.append(b.op1("alloc", [one_more], ArrayType(t, 1), name, fill="zeros", elem=str(t)))
        for r in self.state_roots:
            # cover: the snapshot needs only the elements the loop touches (``analysis.extents``)
            dims = [b.op1("dim", [fwd[r]], I64, axis=ax, cover=True) for ax in range(r.type.rank)]
            size = dims[0]
            for d in dims[1:]:
                size = build.mul(b, size, d)
            total = build.mul(b, self.nslots, size)
            snap = b.op1("alloc", [total], ArrayType(r.type.elem, 1), f"snap_{r.name_hint}", fill="empty",
                         elem=str(r.type.elem))
            # An array of structs is rebuilt into one (C output: the same struct type, which the
            # loop's callees take), its snapshots the structs' numbers slot by slot.
            work = b.op1("alloc", dims, r.type, f"{r.name_hint}_ck", fill="empty", elem=str(r.type.elem),
                         **struct_attrs(self.fw.fn, r))
            self.arrays.append(_Array(r, snap, work, dims, size))
        for r in self.entry_roots:
            self.entry_copies[r] = b.op1("copy", [fwd[r]], r.type, f"{r.name_hint}_at_loop")

    def _forward_while(self, b: Builder) -> None:
        """A while loop under ``recompute``: its entry state in slot 0, then the loop itself,
        counting its iterations (``GradientTransform._clone_op``) and taping nothing."""
        fw, loop = self.fw, self.loop
        self.nslots = build.const(b, 1, I64)
        self._allocate(b)
        zero = build.const(b, 0, I64)
        self._save(b, [fw.fwd[v] for v in loop.operands], [fw.fwd[r] for r in self.state_roots], zero, zero)
        new = fw.clone_op(loop, b)
        self.trips = fw.while_counts[new]
        self.depth_out = build.const(b, 1, I64)

    def _iteration(self, b: Builder, iv: Value) -> Value:
        if self.is_while:
            return iv  # the reversed loop counts iterations down (``_reverse_while``)
        lb = self.fw.fwd[self.loop.operands[0]]
        if self.step > 0:
            return build.binary(b, "floordiv", build.sub(b, iv, lb), build.const(b, self.step, I64), "ck_k",
                                rounding="any")  # never negative in an iteration that runs
        return build.binary(b, "floordiv", build.sub(b, lb, iv), build.const(b, -self.step, I64), "ck_k",
                            rounding="any")

    def _iv_at(self, b: Builder, k: Value) -> Value:
        if self.is_while:
            return k
        lb = self.fw.fwd[self.loop.operands[0]]
        return build.add(b, lb, build.mul(b, k, build.const(b, self.step, I64)))

    def _next_snapshot(self, b: Builder, k: Value, depth: Value) -> Value:
        """The iteration after ``k`` whose start the forward sweep keeps next (``depth`` slots used)."""
        if self.schedule.kind == "recompute":
            return self.trips
        if self.schedule.kind == "periodic":
            return build.add(b, k, build.const(b, self.schedule.n, I64))
        free = build.sub(b, self.nslots, depth, "ck_free")
        return build.add(b, k, self._split(b, build.sub(b, self.trips, k, "ck_steps"), free))

    def _save(self, b: Builder, scalars: list[Value], arrays: list[Value], slot: Value, k: Value) -> None:
        b.create("store", [self.pos, slot, k], [])
        for c, snap in zip(scalars, self.scalar_snaps):
            b.create("store", [snap, slot, _to_stored(b, c)], [])
        for a, src in zip(self.arrays, arrays):
            _copy_array(b, src, a.snap, a.dims, build.mul(b, slot, a.size), to_flat=True)

    # ---------------------------------------------------------- reverse sweep
    def enter_reverse(self, rev: "RevBlock") -> None:
        """Before the reversed loop: the reverse sweep reads the work arrays, not the primal's."""
        fw = self.fw
        remap = {a.root: a.work for a in self.arrays} | dict(self.entry_copies)
        for v in _outer_arrays(self.loop):
            if known_root(v) in remap:
                self.saved_fwd.setdefault(v, fw.fwd[v])
                fw.fwd[v] = _rebased(rev.body, v, remap, fw.fwd)

    def leave_reverse(self) -> None:
        self.fw.fwd.update(self.saved_fwd)
        self.saved_fwd = {}

    def reverse_prologue(self, inner: "RevBlock", depth: Value) -> Value:
        """Rebuild the state of the reversed iteration and re-run it with taping; the new depth.

        Runs at the start of each reversed iteration, ahead of its adjoint code: pop the
        snapshot past this iteration, restore the last one, advance to this iteration, then
        clone the body as the forward sweep would (``GradientTransform._clone_op``), so that
        its values are what the adjoint code reads.
        """
        fw, loop = self.fw, self.loop
        b = inner.prologue
        b.loc = loop.loc
        iv = inner.block.args[0]
        k = self._iteration(b, iv)
        b.create("comment", [], [], {"text": f"rebuild the state of this iteration ({self.schedule})"})
        if self.is_while:
            return self._rerun_while(b, k, depth)
        top = b.op1("load", [self.pos, build.sub(b, depth, build.const(b, 1, I64))], I64, "ck_top")
        depth = build.select(b, build.cmp(b, "gt", top, k), build.sub(b, depth, build.const(b, 1, I64)), depth,
                             "ck_depth")
        slot = build.sub(b, depth, build.const(b, 1, I64), "ck_slot")
        not_last = build.cmp(b, "lt", k, self.last)
        then, other = Block(), Block()
        tb = Builder(then, loop.loc)
        for a in self.arrays:
            _copy_array(tb, a.snap, a.work, a.dims, build.mul(tb, slot, a.size), to_flat=False)
        tb.create("yield", [], [])
        Builder(other, loop.loc).create("yield", [], [])
        b.create("if", [not_last], [], regions=[then, other])
        row = build.select(b, not_last, slot, self.nslots)
        state = [_from_stored(b, b.op1("load", [snap, row], snap.type.elem, c.name_hint), c.type)
                 for c, snap in zip(self.carried, self.scalar_snaps)]
        start = build.select(b, not_last, b.op1("load", [self.pos, slot], I64), k, "ck_from")
        if self.schedule.kind == "binomial":
            state, depth = self._advance_binomial(b, start, k, depth, state)
        else:
            state = self._advance(b, start, k, state)
        b.create("comment", [], [], {"text": "this iteration again, keeping what its adjoint reads"})
        fw.fwd[self.body.args[0]] = iv
        for c, v in zip(self.carried, state):
            fw.fwd[c] = v
        for op in self.body.ops[:-1]:
            fw.clone_op(op, b)
        return depth

    def _rerun_while(self, b: Builder, k: Value, depth: Value) -> Value:
        """The entry state from slot 0, iterations ``0 .. k - 1`` re-run, then iteration ``k``
        cloned as the forward sweep would (its values are what the adjoint code reads)."""
        fw, loop = self.fw, self.loop
        zero = build.const(b, 0, I64)
        for a in self.arrays:
            _copy_array(b, a.snap, a.work, a.dims, zero, to_flat=False)
        state = [_from_stored(b, b.op1("load", [snap, zero], snap.type.elem, c.name_hint), c.type)
                 for c, snap in zip(self.carried, self.scalar_snaps)]
        state = self._advance(b, zero, k, state)
        b.create("comment", [], [], {"text": "this iteration again, keeping what its adjoint reads"})
        for c, v in zip(self.carried, state):
            fw.fwd[c] = v
        b.loc = loop.loc
        for op in self.body.ops[:-1]:
            fw.clone_op(op, b)
        return depth

    def _advance(self, b: Builder, start: Value, stop: Value, state: list[Value]) -> list[Value]:
        """Re-run iterations ``start .. stop - 1`` (plain primal code); the carried values after."""
        lb, ub = self._iv_at(b, start), self._iv_at(b, stop)
        iv = [] if not self.is_while else [I64]  # a while body has no induction variable of its own
        body = Block(iv + [a.type for a in self.body.args], ["ck_it"] * len(iv) + [a.name_hint for a in self.body.args])
        loop = b.create("for", [lb, ub, build.const(b, self.step, I64), *state], [c.type for c in self.carried],
                        regions=[body], hints=[c.name_hint for c in self.carried], loc=self.loop.loc)
        vmap = dict(zip(self.body.args, body.args[len(iv):]))
        clone_ops(self.body.ops, Builder(body, self.loop.loc), vmap, lambda v: self.fw.fwd[v])
        return list(loop.results)

    def _split(self, b: Builder, steps: Value, free: Value) -> Value:
        """``revolve.split(steps, free)``, by a call of the module's helper (``split_helper``)."""
        return b.op1("call", [steps, free], I64, "ck_split", callee=split_helper(self.fw.module))

    def _advance_binomial(
        self, b: Builder, start: Value, k: Value, depth: Value, state: list[Value]
    ) -> tuple[list[Value], Value]:
        """Advance from ``start`` to ``k``, storing snapshots at the revolve split points."""
        types = [I64, I64] + [c.type for c in self.carried]
        hints = ["ck_at", "ck_depth"] + [c.name_hint for c in self.carried]
        cond, body = Block(types, hints), Block(types, hints)
        cb = Builder(cond, self.loop.loc)
        cb.create("condition", [build.cmp(cb, "lt", cond.args[0], k)], [])
        bb = Builder(body, self.loop.loc)
        at, d, vals = body.args[0], body.args[1], list(body.args[2:])
        steps = build.sub(bb, build.add(bb, k, build.const(bb, 1, I64)), at, "ck_steps")
        free = build.sub(bb, self.nslots, d, "ck_free")
        m = build.add(bb, at, self._split(bb, steps, free), "ck_mid")
        vals = self._advance(bb, at, m, vals)
        then, other = Block(), Block()
        tb = Builder(then, self.loop.loc)
        self._save(tb, vals, [a.work for a in self.arrays], d, m)
        tb.create("yield", [build.add(tb, d, build.const(tb, 1, I64))], [])
        Builder(other, self.loop.loc).create("yield", [d], [])
        kept = bb.create("if", [build.cmp(bb, "lt", m, k)], [I64], regions=[then, other], hints=["ck_depth"])
        bb.create("yield", [m, kept.result, *vals], [])
        w = b.create("while", [start, depth, *state], types, regions=[cond, body], hints=hints, loc=self.loop.loc)
        return list(w.results[2:]), w.results[1]


# The split of a binomial schedule, in words, heading the helper that computes it in the output.
SPLIT_ABOUT = [
    "Binomial (revolve) checkpointing: how many iterations to run on from a snapshot before",
    "storing the next one, when steps iterations are left to reverse and free_slots snapshot",
    "slots are free. reps is the least number of times an iteration is run again for which",
    "free_slots + 1 snapshots reverse steps iterations; span = C(free_slots + 1 + reps, reps)",
    "is the most they reverse. The split is the least that leaves the iterations after it",
    "within reach of the slots left (Griewank and Walther, \"Algorithm 799: revolve\", ACM",
    "TOMS 26(1), 2000). With no slot free: run on to the last iteration.",
]


def split_helper(module: Module) -> str:
    """The name of the module's function computing ``revolve.split(steps, free_slots)``, made once.

    One function, called wherever a schedule needs the split, instead of its twenty lines of
    integer arithmetic at every call site: the reader meets the bookkeeping once, explained."""
    name = "revolve_split"
    while name in module.functions and module.functions[name].attrs.get("about") != SPLIT_ABOUT:
        name += "_"  # the input has a function of that name
    if name not in module.functions:
        body = Block([I64, I64], ["steps", "free_slots"])
        b = Builder(body)
        b.create("return", [_split_ops(b, *body.args)], [])
        module.add(Function(name, body, [I64], attrs={"about": SPLIT_ABOUT}))
    return name


def _split_ops(b: Builder, steps: Value, free: Value) -> Value:
    """IR for ``revolve.split(steps, free)``: how many iterations to advance before a snapshot."""
    one = build.const(b, 1, I64)
    s = build.add(b, free, one, "snaps")
    cond, body = Block([I64, I64], ["reps", "span"]), Block([I64, I64], ["reps", "span"])
    cb = Builder(cond, b.loc)
    going = build.binary(cb, "and", build.cmp(cb, "lt", cond.args[1], steps),
                         build.cmp(cb, "gt", free, build.const(cb, 0, I64)))
    cb.create("condition", [going], [])
    bb = Builder(body, b.loc)
    r1 = build.add(bb, body.args[0], one, "reps")
    rng = build.binary(bb, "floordiv", build.mul(bb, body.args[1], build.add(bb, s, r1)), r1, "span")
    bb.create("yield", [r1, rng], [])
    w = b.create("while", [build.const(b, 0, I64), one], [I64, I64], regions=[cond, body],
                 hints=["reps", "span"])
    r, beta = w.results
    denom = build.math(b, "max", build.add(b, s, r), one, hint="denom")
    right = build.binary(b, "floordiv", build.mul(b, beta, s), denom, "right")
    hi = build.binary(b, "floordiv", build.mul(b, beta, r), denom, "left_hi")
    less = build.math(b, "max", build.sub(b, r, one), build.const(b, 0, I64), hint="reps_less")
    lo = build.binary(b, "floordiv", build.mul(b, hi, less), build.math(b, "max", build.add(b, free, r), one),
                      "left_lo")
    best = build.math(b, "max", build.math(b, "max", lo, build.sub(b, steps, right)), one, hint="best")
    # No free slot: go straight to the last iteration.
    last = build.math(b, "max", build.sub(b, steps, one), one, hint="to_last")
    return build.select(b, build.cmp(b, "gt", free, build.const(b, 0, I64)), best, last, "split")


def _to_stored(b: Builder, v: Value) -> Value:
    return build.cast(b, v, I64) if v.type == BOOL else v


def _from_stored(b: Builder, v: Value, t: Type) -> Value:
    return build.cmp(b, "ne", v, build.const(b, 0, I64)) if t == BOOL else v


def _copy_array(b: Builder, src: Value, dst: Value, dims: list[Value], offset: Optional[Value] = None,
                to_flat: bool = True) -> None:
    """``dst[...] = src[...]`` over ``dims``; the side that is a snapshot row is flat from ``offset``."""
    ivs: list[Value] = []
    builder = b
    for d in dims:
        body = Block([I64], ["ck_e"])  # not a name users pick: C declares loop indices per scope
        builder.create("for", [build.const(builder, 0, I64), d, build.const(builder, 1, I64)], [], regions=[body])
        ivs.append(body.args[0])
        builder = Builder(body, b.loc)
    flat = ivs[0]
    for iv, d in zip(ivs[1:], dims[1:]):
        flat = build.add(builder, build.mul(builder, flat, d), iv)
    if offset is not None:
        flat = build.add(builder, offset, flat)
    if offset is None:
        src_idx, dst_idx = ivs, ivs
    elif to_flat:
        src_idx, dst_idx = ivs, [flat]
    else:
        src_idx, dst_idx = [flat], ivs
    val = builder.op1("load", [src, *src_idx], src.type.elem)
    builder.create("store", [dst, *dst_idx, val], [])
    builder.create("yield", [], [])
    for ivb in ivs[:-1][::-1]:
        Builder(ivb.owner, b.loc).create("yield", [], [])


def _top_level(fn: Function, v: Value) -> bool:
    owner = v.owner if v.is_block_arg else v.defining_op.parent
    return owner is fn.body


def _outer_arrays(loop: Op) -> list[Value]:

    return [v for v in outer_refs(loop) if v.type.is_array]


def _rebased(b: Builder, v: Value, remap: dict[Value, Value], fwd: dict[Value, Value]) -> Value:
    """``v`` (an array defined before the loop) made from ``remap``'s arrays instead of its root's."""
    if v in remap:
        return remap[v]
    op = v.defining_op
    assert op is not None and op.name == "view", "a state array is a root or a view of one"
    base = _rebased(b, op.operands[0], remap, fwd)
    return b.op1("view", [base, fwd[op.operands[1]]], v.type, v.name_hint, **op.attrs)
