"""Adjoints of MPI communication: communication in the other direction.

Every rank runs the gradient, as every rank ran the primal, and the reverse sweep reaches each
communication op in the reverse of the order the forward sweep made it; so, rank by rank, the
adjoint calls meet as the primal's met. Each op's adjoint moves the adjoints of what it wrote
back to the buffers it read (``d_`` of a buffer: its shadow, ``_shadow_of``):

* a send's adjoint receives the adjoint from the rank it sent to, and adds it (``d_x += t``); a
  receive's sends its buffer's adjoint back to the rank it came from, then clears it (the
  primal overwrote the buffer); ``MPI_Sendrecv``, both at once, with the ranks and tags
  swapped;
* a sum over ranks (``MPI_Allreduce``) hands every rank the sum of the adjoints of its result
  (an allreduce of them); ``MPI_Reduce``'s result lives on the root, whose adjoint is broadcast;
  a broadcast's adjoint is a reduction of the adjoints onto the root;
* a scatter's adjoint is a gather of the adjoints, and the reverse; an allgather's, an
  allreduce of the gathered adjoints, each rank taking its own block;
* non-blocking calls turn around at their wait: the reverse sweep reaches the wait first and
  starts there the adjoint of each call it completed (an ``MPI_Irecv`` of the adjoint for an
  ``MPI_Isend``, an ``MPI_Isend`` of the buffer's adjoint for an ``MPI_Irecv``), then completes
  each where it reaches the call that started it, adding what came back or clearing what was
  sent (``GradientTransform.mpi_started``: each primal request's adjoint request). Between the
  two, the primal neither wrote the buffer nor read a received one (MPI's rule), so no adjoint
  code between them touches those adjoints.

The rules are linear in the adjoints and read no primal numbers, only counts, ranks and tags,
so nothing is taped for them beyond those integers; but for ``MPI_Allreduce`` by ``MPI_MAX`` or
``MPI_MIN``, whose adjoint goes to the rank that held the extreme: from the numbers it sent
(kept by the forward sweep where they change later, ``forward._snapshot_operands``) it finds
the extreme again, and every rank holding it takes an equal share of the summed adjoint (k
ranks tied: 1/k each, as ``np.max``'s adjoint splits among tied elements; README, Rules at the
edges of their domains); ``MPI_Reduce``'s, the root's adjoint broadcast first. mpi4py's
``comm.allreduce`` of a number has the number result as its extreme, kept as any value is.

Whether an op is reversed is the activity analysis's verdict on the whole function (its
*network*, ``activity``), the same on every rank, never the op's own buffers': one rank may
send an array that matters to the result while its partner's received copy does not, and the
two adjoint calls must still meet. A buffer without an adjoint sends zeros and drops what it
receives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

from ..analysis.effects import known_root
from ..diagnostics import error
from ..ssa import build
from ..ssa.ir import Block, Builder, Op, Value
from ..ssa.mpi import call_of, carries_floats
from ..ssa.structured import element_loops
from ..ssa.types import I32, I64, REQUEST, ArrayType

if TYPE_CHECKING:
    from .sweep import RevBlock


class MpiAdjoint:
    """The adjoint of one MPI op ``op``, built at the end of ``rev``'s adjoint code."""

    def __init__(self, t: Any, rev: "RevBlock", op: Op):  # t: the GradientTransform (reverse) at work
        self.t = t
        self.rev = rev
        self.op = op
        self.call = call_of(op)
        self.b: Builder = rev.body

    # -- what the rules are made of ----------------------------------------------------------
    def operand(self, role: str) -> Value:
        """An integer operand (a count, a rank, a tag) as the reverse sweep has it."""
        return self.t.values.avail(self.rev, self.call.operand(self.op, role))

    def buffer(self, role: str) -> Value:
        return self.call.operand(self.op, role)

    def active(self, role: str) -> bool:
        buf = self.buffer(role)
        return buf.type.elem.is_float and self.t.act.array_active(buf)  # type: ignore[attr-defined]

    def adjoint(self, role: str) -> Value:
        """The shadow of the buffer ``role`` (one that has one: ``active``)."""
        return self.t._shadow_of(self.rev, self.buffer(role))

    def outgoing(self, role: str, count: Value) -> Value:
        """What the adjoint call sends for the buffer ``role``: its shadow, or zeros."""
        if self.active(role):
            return self.adjoint(role)
        return self.scratch(role, count, "zeros", "none")

    def scratch(self, role: str, count: Value, fill: str = "empty", what: str = "in", adjoint: bool = True) -> Value:
        """A buffer of ``count`` numbers of ``role``'s type, for an adjoint on its way
        (``d_x_in``: what comes back to ``x``; ``d_x_none``: zeros sent for an ``x`` without one),
        or for primal numbers (``adjoint`` False: ``x_extreme``)."""
        buf = self.buffer(role)
        elem = buf.type.elem  # type: ignore[attr-defined]
        hint = f"{'d_' if adjoint else ''}{buf.name_hint or known_root(buf).name_hint or role}_{what}"
        return self.b.op1("alloc", [count], ArrayType(elem, 1), hint, fill=fill, elem=elem.name)

    def communicate(self, name: str, operands: list[Value], **attrs) -> None:
        """The op ``name`` over the primal's communicator (``mpi.wait`` takes none)."""
        self.b.create(name, [self.comm(), *operands] if name != "mpi.wait" else operands, [], attrs)

    def comm(self) -> Value:
        return self.operand("comm")

    def each(self, count: Value, body: Callable[[Builder, Value], None], b: Optional[Builder] = None) -> None:
        """``body`` for each element below ``count``: a loop, or the one element of a number's cell."""
        at = b or self.b
        if build.const_int(count) == 1:
            body(at, build.const(at, 0, I64))
            return
        element_loops(at, [count], lambda bb, e: body(bb, e[0]))

    def add_into(self, role: str, source: Value, count: Value, offset: Optional[Value] = None,
                 b: Optional[Builder] = None) -> None:
        """``d_<role>[e] += source[offset + e]`` for ``e`` below ``count``, where the buffer has one."""
        if not self.active(role):
            return

        def body(bb: Builder, e: Value) -> None:
            at = e if offset is None else build.add(bb, offset, e)
            d, index = self.element(role, e, bb)
            build.accum(bb, d, [index], bb.op1("load", [source, at], d.type.elem))  # type: ignore[attr-defined]
        self.each(count, body, b)

    def clear(self, role: str, count: Value, b: Optional[Builder] = None) -> None:
        """``d_<role>[e] = 0`` for ``e`` below ``count``: the primal overwrote those numbers."""
        if not self.active(role):
            return

        def body(bb: Builder, e: Value) -> None:
            d, index = self.element(role, e, bb)
            bb.create("store", [d, index, build.const(bb, 0.0, d.type.elem)], [])  # type: ignore[attr-defined]
        self.each(count, body, b)

    def store_into(self, role: str, source: Value, count: Value, b: Optional[Builder] = None) -> None:
        """``d_<role>[e] = source[e]`` for ``e`` below ``count``."""
        def body(bb: Builder, e: Value) -> None:
            d, index = self.element(role, e, bb)
            bb.create("store", [d, index, bb.op1("load", [source, e], d.type.elem)], [])  # type: ignore[attr-defined]
        self.each(count, body, b)

    def element(self, role: str, e: Value, b: Builder) -> tuple[Value, Value]:
        """The adjoint of element ``e`` of the buffer ``role``, as an array and an index: of the
        whole array's shadow where the buffer is a view into one (``d_u[n + e]``, not ``t[e]`` of
        a view ``t = d_u + n``)."""
        buf = self.buffer(role)
        view = buf.defining_op
        if view is not None and view.name == "view" and view.operands[0].type == buf.type:
            shadow = self.t._shadow_of(self.rev, view.operands[0])
            return shadow, build.add(b, self.t.values.avail(self.rev, view.operands[1]), e)
        return self.adjoint(role), e

    def asked(self, query: str, hint: str) -> Value:
        """This rank's number, or the number of ranks, asked of MPI where the adjoint needs it."""
        return build.cast(self.b, self.b.op1(query, [self.comm()], I32, hint), I64)

    def unless_null(self, peer: Value, then: Callable[[Builder], None]) -> None:
        """``if (peer != MPI_PROC_NULL) then``: a receive from no rank leaves its buffer as it was,
        so its adjoint passes through."""
        rank = build.const_int(peer)
        if rank is not None and rank >= 0:  # a rank named by its number
            then(self.b)
            return
        null = self.b.op1("global", [], I64, "mpi_proc_null", callee="MPI_PROC_NULL", mpi=True)
        self.branch(build.cmp(self.b, "ne", peer, null), then)

    def branch(self, cond: Value, then: Callable[[Builder], None],
               otherwise: Optional[Callable[[Builder], None]] = None) -> None:
        blocks = (Block(), Block())
        for blk, fill in zip(blocks, (then, otherwise)):
            bb = Builder(blk, self.b.loc)
            if fill is not None:
                fill(bb)
            bb.create("yield", [], [])
        self.b.create("if", [cond], [], regions=list(blocks))

    def on_root(self, root: Value, then: Callable[[Builder], None],
                otherwise: Optional[Callable[[Builder], None]] = None) -> None:
        """``if (rank == root) then else otherwise``."""
        rank = self.asked("mpi.comm_rank", "rank")
        self.branch(build.cmp(self.b, "eq", rank, root), then, otherwise)

    # -- the rules -----------------------------------------------------------------------------
    def build(self) -> None:
        getattr(self, "_" + self.op.name[len("mpi."):])()

    def _wait(self) -> None:
        started = self.t.mpi_started
        for r in reversed(self.op.operands):
            call = r.defining_op
            assert call is not None
            if not carries_floats(call):
                continue
            turn = MpiAdjoint(self.t, self.rev, call)
            n, peer, tag = turn.operand("count"), turn.operand("peer"), turn.operand("tag")
            comm = turn.comm()
            if call.name == "mpi.isend":
                got = turn.scratch("buf", n, "zeros")  # (from MPI_PROC_NULL: nothing comes)
                started[r] = (self.b.op1("mpi.irecv", [comm, got, n, peer, tag], REQUEST, f"d_{r.name_hint}"), got)
            else:
                started[r] = (self.b.op1("mpi.isend", [comm, turn.outgoing("buf", n), n, peer, tag], REQUEST,
                                         f"d_{r.name_hint}"), None)

    def _completed(self) -> tuple[Value, Optional[Value]]:
        """The adjoint request started for this op's, where its wait was reversed, and its buffer."""
        found = self.t.mpi_started.pop(self.op.result, None)
        if found is None:
            raise error(f"cannot differentiate this {self.call.c_name}: no wait for its request was reversed "
                        "after it", self.op.loc, hint="wait for each request in the block that starts it")
        self.communicate("mpi.wait", [found[0]])
        return found

    def _isend(self) -> None:
        _, got = self._completed()
        assert got is not None
        self.add_into("buf", got, self.operand("count"))

    def _irecv(self) -> None:
        self._completed()
        if self.active("buf"):
            self.unless_null(self.operand("peer"), lambda bb: self.clear("buf", self.operand("count"), bb))

    def summed_adjoint(self) -> Value:
        """The sum over ranks of the adjoints of a number's result (``comm.allreduce`` of them; 0
        for a rank without one: every rank takes part)."""
        s = self.op.operands[1]
        g = self.rev.adj.get(self.op.result) or build.const(self.b, 0.0, s.type)
        return self.b.op1("mpi.allreduce_value", [self.comm(), g], s.type, f"d_{s.name_hint or 'value'}_total",
                          op="sum")

    def _allreduce_value(self) -> None:
        """``t = comm.allreduce(s, op)``: ``d_s += allreduce(d_t)``, for max/min the share of it."""
        s = self.op.operands[1]
        total = self.summed_adjoint()
        if self.op.attrs["op"] != "sum":
            mine = self.t.values.avail(self.rev, s)
            extreme = self.t.values.avail(self.rev, self.op.result)  # (the result: a value, kept)
            held = build.select(self.b, build.cmp(self.b, "eq", mine, extreme), build.const(self.b, 1.0, s.type),
                                build.const(self.b, 0.0, s.type), "held")
            ties = self.b.op1("mpi.allreduce_value", [self.comm(), held], s.type, "ties", op="sum")
            total = build.div(self.b, build.mul(self.b, held, total), ties)
        self.t._accumulate(self.rev, s, total)

    def _bcast_value(self) -> None:
        """``t = comm.bcast(s, root)``: the root's ``d_s`` gets every rank's ``d_t``."""
        s = self.op.operands[1]
        total = self.summed_adjoint()
        rank = self.asked("mpi.comm_rank", "rank")
        mine = build.select(self.b, build.cmp(self.b, "eq", rank, self.operand("root")), total,
                            build.const(self.b, 0.0, s.type))
        self.t._accumulate(self.rev, s, mine)

    def _barrier(self) -> None:
        self.communicate("mpi.barrier", [])

    def _allreduce(self) -> None:
        n = self.operand("count")
        got = self.scratch("send", n)
        self.communicate("mpi.allreduce", [self.outgoing("recv", n), got, n], op="sum")
        self.clear("recv", n)
        if self.op.attrs["op"] != "sum":
            self.share_of_extreme(got, n)
        self.add_into("send", got, n)

    def _allreduce_in_place(self) -> None:
        n = self.operand("count")
        if self.op.attrs["op"] == "sum":
            self.communicate("mpi.allreduce_in_place", [self.outgoing("buf", n), n], op="sum")
            return
        got = self.scratch("buf", n)
        self.communicate("mpi.allreduce", [self.outgoing("buf", n), got, n], op="sum")
        self.share_of_extreme(got, n)
        if self.active("buf"):
            self.store_into("buf", got, n)

    def share_of_extreme(self, total: Value, n: Value) -> None:
        """``total[e]``, the sum over ranks of the result's adjoints, becomes this rank's share: all
        of it, split evenly among the ranks whose number was the extreme, and 0 elsewhere."""
        role = "buf" if self.op.name == "mpi.allreduce_in_place" else "send"
        sent = self.sent(role)
        elem = sent.type.elem  # type: ignore[attr-defined]
        extreme = self.scratch(role, n, what="extreme", adjoint=False)
        self.communicate("mpi.allreduce", [sent, extreme, n], op=self.op.attrs["op"])
        held = self.scratch(role, n, what="held", adjoint=False)  # 1.0 where this rank's number is the extreme
        self.each(n, lambda bb, e: bb.create("store", [held, e, build.select(
            bb, build.cmp(bb, "eq", bb.op1("load", [sent, e], elem), bb.op1("load", [extreme, e], elem)),
            build.const(bb, 1.0, elem), build.const(bb, 0.0, elem))], []))
        ties = self.scratch(role, n, what="ties", adjoint=False)
        self.communicate("mpi.allreduce", [held, ties, n], op="sum")
        self.each(n, lambda bb, e: bb.create("store", [total, e, build.div(bb, build.mul(
            bb, bb.op1("load", [held, e], elem), bb.op1("load", [total, e], elem)), bb.op1("load", [ties, e], elem))],
            []))

    def sent(self, role: str) -> Value:
        """The buffer ``role`` as the call read it: the forward sweep's copy where it changed later."""
        snapshot = self.t.forward.snapshots.get((self.op, self.call.roles.index(role)))
        if snapshot is not None:
            return self.t.values.avail_clone(self.rev.mirror_of(self.op.parent), snapshot, self.op.parent)
        return self.t.values.avail(self.rev, self.buffer(role))

    def _reduce(self) -> None:
        n, root = self.operand("count"), self.operand("root")
        got = self.scratch("send", n)
        recv = self.outgoing("recv", n)
        self.each(n, lambda bb, e: bb.create("store", [got, e, bb.op1("load", [recv, e], got.type.elem)], []))
        self.on_root(root, lambda bb: self.clear("recv", n, bb))  # (only the root's result was written)
        self.communicate("mpi.bcast", [got, n, root])
        if self.op.attrs["op"] != "sum":
            self.share_of_extreme(got, n)
        self.add_into("send", got, n)

    def _bcast(self) -> None:
        n, root = self.operand("count"), self.operand("root")
        got = self.scratch("buf", n)
        self.communicate("mpi.reduce", [self.outgoing("buf", n), got, n, root], op="sum")
        if self.active("buf"):
            self.on_root(root, lambda bb: self.store_into("buf", got, n, bb), lambda bb: self.clear("buf", n, bb))

    def _send(self) -> None:
        n = self.operand("count")
        got = self.scratch("buf", n, "zeros")  # (a send to MPI_PROC_NULL: nothing comes back)
        self.communicate("mpi.recv", [got, n, self.operand("peer"), self.operand("tag")])
        self.add_into("buf", got, n)

    def _recv(self) -> None:
        n, peer = self.operand("count"), self.operand("peer")
        self.communicate("mpi.send", [self.outgoing("buf", n), n, peer, self.operand("tag")])
        if self.active("buf"):
            self.unless_null(peer, lambda bb: self.clear("buf", n, bb))

    def _sendrecv(self) -> None:
        sent, received = self.operand("send_count"), self.operand("recv_count")
        source = self.operand("source")
        got = self.scratch("send", sent, "zeros")  # (sent to MPI_PROC_NULL: nothing comes back)
        self.communicate("mpi.sendrecv", [self.outgoing("recv", received), received, source,
                                          self.operand("recv_tag"), got, sent, self.operand("dest"),
                                          self.operand("send_tag")])
        if self.active("recv"):
            self.unless_null(source, lambda bb: self.clear("recv", received, bb))
        self.add_into("send", got, sent)

    def _ranks(self) -> Value:
        return self.asked("mpi.comm_size", "ranks")

    def _scatter(self) -> None:
        sent, received, root = self.operand("send_count"), self.operand("recv_count"), self.operand("root")
        total = build.mul(self.b, sent, self._ranks())
        got = self.scratch("send", total)
        self.communicate("mpi.gather", [self.outgoing("recv", received), received, got, sent, root])
        self.clear("recv", received)
        if self.active("send"):
            self.on_root(root, lambda bb: self.add_into("send", got, total, b=bb))

    def _gather(self) -> None:
        sent, received, root = self.operand("send_count"), self.operand("recv_count"), self.operand("root")
        total = build.mul(self.b, received, self._ranks())
        got = self.scratch("send", sent)
        self.communicate("mpi.scatter", [self.outgoing("recv", total), received, got, sent, root])
        if self.active("recv"):
            self.on_root(root, lambda bb: self.clear("recv", total, bb))
        self.add_into("send", got, sent)

    def _allgather(self) -> None:
        sent, received = self.operand("send_count"), self.operand("recv_count")
        total = build.mul(self.b, received, self._ranks())
        got = self.scratch("recv", total)
        self.communicate("mpi.allreduce", [self.outgoing("recv", total), got, total], op="sum")
        self.clear("recv", total)
        mine = build.mul(self.b, self.asked("mpi.comm_rank", "rank"), received)
        self.add_into("send", got, sent, offset=mine)


def reverse_mpi(t: Any, rev: "RevBlock", op: Op) -> None:
    """Append the adjoint of the MPI op ``op`` to ``rev`` (see the module docstring)."""
    MpiAdjoint(t, rev, op).build()
