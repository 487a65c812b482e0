"""The forward sweep: the primal's code cloned into the gradient, with what reverse mode adds
to it (an iteration counter on each ``while`` it reverses, copies of the arrays that a call with
a gradient or a whole-array op reads and that change later), and the maps from each primal
value, op and block to its clone that the rest of the transform reads."""

from __future__ import annotations

from typing import Callable, Optional

from ..analysis.effects import LaterWrites, array_root, function_effects, known_root, overlapping_args, snapshot_args
from ..analysis.extents import Sizes
from ..analysis.overwritten import overwritten_first
from ..ssa import build
from ..ssa.array_ops import is_array_op
from ..ssa.mpi import reads_primal, sent_operand
from ..ssa.ir import Block, Builder, Function, Module, Op, Value
from ..ssa.structured import add_carried, in_loop
from ..ssa.types import I64
from .naming import free_variant
from .sweep import defining_block, extent_at, least


class ForwardSweep:
    """Clones primal ops into the gradient and remembers what became of each."""

    def __init__(self, module: Module, fn: Function, may_alias: bool, user_names: set[str],
                 snapshot_callees: set[str], needs_reverse: Callable[[Op], bool],
                 stale_reads: Optional[Callable[[Op], list[int]]] = None):
        self.module = module
        self.fn = fn
        self.may_alias = may_alias
        self.user_names = user_names  # what no generated name may take
        self.snapshot_callees = snapshot_callees  # callees that get gradients (re-run from copies)
        self.needs_reverse = needs_reverse  # whether the reverse sweep visits an op
        # The array operands of a whole-array op that change after it (copied before it).
        self.stale_reads = stale_reads
        self.fwd: dict[Value, Value] = {}
        self.fwd_op: dict[Op, Op] = {}
        self.fwd_block: dict[Block, Block] = {}
        self.primal_of: dict[Value, Value] = {}  # forward-sweep value -> the primal value it copies
        self.scratch: set[tuple[Op, int]] = set()  # (call, argument) the callee only writes
        self.snapshots: dict[tuple[Op, int], Value] = {}  # (call or array op, operand) -> copy made before it
        # (call, argument) -> the copy of the array it shares with another argument, and the
        # offsets of the primal's views of it that the argument is (``_shared_snapshots``)
        self.shared_snapshots: dict[tuple[Op, int], tuple[Value, list[Value]]] = {}
        # A call's copy bounded by what the callee may touch (``copy(x, n)``, ``reach``) -> the
        # (call, argument) it is for, whose reach the reverse sweep may compute again.
        self.snapshot_calls: dict[Value, tuple[Op, int]] = {}
        self.extents = Sizes(module)
        self.while_counts: dict[Op, Value] = {}  # cloned while op -> its trip-count result
        # What the primal's calls and blocks write (effects.LaterWrites), asked at every call:
        # the sweep clones the primal and changes none of it.
        self.later_writes = LaterWrites(module)

    def clone_op(self, op: Op, b: Builder) -> Op:
        regions = []
        for r in op.regions:
            nb = Block([a.type for a in r.args], [a.name_hint for a in r.args])
            for a, na in zip(r.args, nb.args):
                self.fwd[a] = na
            self.fwd_block[r] = nb
            regions.append(nb)
        if op.name == "call" and op.attrs["callee"] in self.snapshot_callees:
            self._snapshot_args(op, b)
        elif self.stale_reads is not None and (is_array_op(op.name) or op.name == "extern" or reads_primal(op)) \
                and self.needs_reverse(op):
            self._snapshot_operands(op, b)
        new = b.create(
            op.name,
            [self.fwd[v] for v in op.operands],
            [r.type for r in op.results],
            dict(op.attrs),
            regions,
            [r.name_hint for r in op.results],
            op.loc,
        )
        self.fwd_op[op] = new
        for r, nr in zip(op.results, new.results):
            self.fwd[r] = nr
            self.primal_of[nr] = r
        for r, nb in zip(op.regions, regions):
            inner = Builder(nb, op.loc)
            for o in r.ops:
                self.clone_op(o, inner)
        if op.name == "while" and self.needs_reverse(op):
            self._count_while(new)
        return new

    def _snapshot_args(self, op: Op, b: Builder) -> None:
        """Copy the arrays a call uses that change later: its gradient re-runs from them.

        An array the callee only writes, or writes before it reads (``analysis.overwritten``),
        needs no copy, only memory to write to: the reverse sweep passes a new buffer of its size
        (``scratch``), so the array's exit values stay, and in a loop no array tape is kept for it
        (``subtract(x, mu, tmp)`` writing a work array)."""
        callee = self.module.functions[op.attrs["callee"]]
        reads = function_effects(self.module, callee).reads
        copied = snapshot_args(self.module, self.fn, op, self.may_alias, self.later_writes)
        shared = self._shared_snapshots(op, b, copied)
        for i in copied:
            if i in shared:
                continue
            fresh = i not in reads or overwritten_first(self.module, callee, i, self.extents)
            if fresh and not self.may_alias:
                self.scratch.add((op, i))
                continue
            a = op.operands[i]
            hint = free_variant(f"{known_root(a).name_hint}_before_{op.attrs['callee']}", self.user_names)
            # In a loop the copy is a stack of each iteration's (``tape``): of the rows the callee
            # may touch. Outside one, the whole array, once (``x.copy()``).
            reach = self.reach(op, i, b, lambda v: self.fwd[v]) if in_loop(op) else None
            if reach is None:
                self.snapshots[(op, i)] = b.op1("copy", [self.fwd[a]], a.type, hint)
                continue
            # The rows the callee may touch, never past the array's end: copy(x, n) is x[:n].
            rows = least(b, reach, extent_at(b, self.fwd[a], 0, ""))
            self.snapshots[(op, i)] = b.op1("copy", [self.fwd[a], rows], a.type, hint)
            self.snapshot_calls[self.snapshots[(op, i)]] = (op, i)

    def _shared_snapshots(self, op: Op, b: Builder, copied: list[int]) -> set[int]:
        """Arguments of the call ``op`` that are one array, or views of it (``shift(u, u, n)``,
        ``scale(u, u + 1, n - 1)``): one copy of the array, each argument the same view of the
        copy, so that the callee's gradient re-runs it on memory that overlaps as the call's did
        (a copy each re-ran it out of place: a silently wrong gradient). The reverse sweep makes
        the views where it calls the gradient, of the copy as it brings it there (in a loop, each
        iteration's from a tape): a tape of each view would copy each apart. Returns their
        positions."""
        roots = [array_root(op.operands[i]) for i in copied]
        if len(set(roots)) == len(roots):
            return set()  # (no two copies of one array: what the callee writes need not be asked)
        overlapping = {i for pair in overlapping_args(self.module, op) for i in pair} & set(copied)
        groups: dict[Value, list[tuple[int, list[Value]]]] = {}
        for i in sorted(overlapping):
            root, offsets = _offsets_into(op.operands[i])
            groups.setdefault(root, []).append((i, offsets))
        shared: set[int] = set()
        for root, members in groups.items():
            if len(members) < 2:
                continue
            hint = free_variant(f"{root.name_hint}_before_{op.attrs['callee']}", self.user_names)
            copy = b.op1("copy", [self.fwd[root]], root.type, hint)
            for i, offsets in members:
                self.shared_snapshots[(op, i)] = (copy, offsets)
                shared.add(i)
        return shared

    def top_level(self, v: Value) -> Optional[Value]:
        """The forward copy of a primal value made before every loop (seen everywhere after, the
        reverse sweep included); None for a value made inside one."""
        return self.fwd[v] if defining_block(v) is self.fn.body else None

    def reach(self, op: Op, i: int, b: Builder, value_of: Callable[[Value], Optional[Value]]) -> Optional[Value]:
        """How many elements of argument ``i`` along its first axis the callee may touch, from
        the start of what is passed, in the call's own integer arguments (``axpy3(a, x, y)`` with
        ``y[k]``, ``k < 3``: 3; ``subtract(d, x, mu, tmp)``: ``d``), built at ``b`` from
        ``value_of`` (a primal value as ``b`` sees it, or None); None where the callee's extents
        do not tell (an index no loop bounds, a recursive callee) or ``b`` lacks a value."""
        callee = self.module.functions[op.attrs["callee"]]
        axes = self.extents.extents(callee)[i]
        cover = axes[0] if axes else None
        if cover is None:
            return None
        args = {k: _constant(b, op.operands[k]) or value_of(op.operands[k]) for k in cover.params}
        if any(v is None or v.type != I64 for v in args.values()):
            return None
        total = build.const(b, cover.const, I64)
        for monomial, c in cover.terms:
            term = build.const(b, c, I64) if c != 1 else None
            for k in monomial:
                term = args[k] if term is None else build.mul(b, term, args[k])  # type: ignore[arg-type]
            assert term is not None
            total = build.add(b, total, term)
        floor = self.extents.cover_floor(callee, i, 0)
        if floor:  # a constant index past what the loops reach (z[3] beside z[i], i < n - 1)
            reached = build.const(b, floor, I64)
            total = build.select(b, build.cmp(b, "lt", total, reached), reached, total)
        return total

    def _snapshot_operands(self, op: Op, b: Builder) -> None:
        """Copy the arrays a whole-array op, a call of a function defined elsewhere or an MPI
        reduction by max or min reads that change after it (or, in place, by it): its adjoint
        reads them as they were (``np.sum(np.tanh(x))`` before ``x[i] = ...`` in the same loop)."""
        for i in self.stale_reads(op):
            if reads_primal(op) and i != sent_operand(op):
                continue  # (an MPI reduction's adjoint reads what it sent, not what it received)
            a = op.operands[i]
            what = op.attrs["callee"] if op.name == "extern" else op.name.split(".")[-1]
            hint = free_variant(f"{known_root(a).name_hint}_before_{what}", self.user_names)
            self.snapshots[(op, i)] = b.op1("copy", [self.fwd[a]], a.type, hint)

    def _count_while(self, w: Op) -> None:
        """Carry an iteration counter through a cloned ``while`` (its reverse runs that often)."""
        cond, body = w.regions
        b = Builder(w.parent, w.loc).before_op(w)
        zero = build.const(b, 0, I64)
        n_iter = free_variant("n_iter", self.user_names)
        yb = Builder(body, w.loc).before_op(body.terminator)
        self.while_counts[w] = add_carried(w, zero, lambda k: build.add(yb, k, build.const(yb, 1, I64), hint=n_iter),
                                           n_iter)


def _offsets_into(arr: Value) -> tuple[Value, list[Value]]:
    """``arr`` as views of one array, outermost first (``u + 1``: u, [1]); a row, a member, a view
    that says what it points at (the structs inside a member) or anything but a view of the same
    rank ends the walk (there, ``arr`` is its own root)."""
    offsets: list[Value] = []
    op = arr.defining_op
    while op is not None and op.name == "view" and op.result.type == op.operands[0].type and not op.attrs:
        offsets.insert(0, op.operands[1])
        arr = op.operands[0]
        op = arr.defining_op
    return arr, offsets


def _constant(b: Builder, v: Value) -> Optional[Value]:
    """An integer constant made again at ``b`` (so that it is seen wherever ``b`` is), else None."""
    c = build.const_int(v)
    return build.const(b, c, v.type) if c is not None else None
