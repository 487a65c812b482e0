"""MPI communication in the IR: the ``mpi.`` ops, one per MPI call s2sad follows.

A distributed program is one function run by every rank; what ranks exchange goes through
MPI calls, each an op here whose operands are the communicator (a ``COMM`` value: a parameter
``MPI_Comm comm``, or ``MPI_COMM_WORLD``, a ``global`` op), the call's buffers (arrays, a view
for a buffer that starts inside one) and its integers (counts, ranks, tags). The datatype is
the buffers' element type, so it is no operand. Text forms, as in ``ops`` (every op but
``mpi.wait`` takes the communicator first, left out here):

  mpi.comm_rank    () -> i32                                MPI_Comm_rank: this rank
  mpi.comm_size    () -> i32                                MPI_Comm_size: the number of ranks
  mpi.barrier      ()                                       MPI_Barrier
  mpi.allreduce    (send, recv, count) {op}                 MPI_Allreduce: recv = op over ranks
                                                            of send (count elements)
  mpi.allreduce_in_place (buf, count) {op}                  MPI_Allreduce(MPI_IN_PLACE, buf, ...)
  mpi.reduce       (send, recv, count, root) {op}           MPI_Reduce: recv on root only
  mpi.bcast        (buf, count, root)                       MPI_Bcast: buf = root's buf
  mpi.send         (buf, count, peer, tag)                  MPI_Send to peer
  mpi.recv         (buf, count, peer, tag)                  MPI_Recv from peer (status ignored)
  mpi.sendrecv     (send, send_count, dest, send_tag,
                    recv, recv_count, source, recv_tag)     MPI_Sendrecv
  mpi.scatter      (send, send_count, recv, recv_count, root)
                                                            MPI_Scatter: rank r's recv = block r
                                                            of root's send (count per rank)
  mpi.gather       (send, send_count, recv, recv_count, root)
                                                            MPI_Gather: block r of root's recv
                                                            = rank r's send
  mpi.allgather    (send, send_count, recv, recv_count)     MPI_Allgather: gather, on every rank
  mpi.isend        (buf, count, peer, tag) -> request       MPI_Isend: a send started
  mpi.irecv        (buf, count, peer, tag) -> request       MPI_Irecv: a receive started (buf is
                                                            written by the time its wait returns)
  mpi.wait         (request...)                             MPI_Wait/MPI_Waitall: each request's
                                                            send or receive completed
  mpi.allreduce_value (value) {op} -> T                     mpi4py's comm.allreduce of a number
  mpi.bcast_value  (value, root) -> T                       mpi4py's comm.bcast of a number

A request is a value (``REQUEST``) that ties each wait to the calls it completes, in one block:
the front end reads which call made which request, and the reverse sweep starts the adjoint of
each where the wait was reversed and completes it where the call is (``adjoint/mpi_rules``).
A wait may make any memory change, as far as the passes know (``opdefs``: a receive lands).

``op`` is ``"sum"``, ``"max"`` or ``"min"`` (``MPI_SUM``, ``MPI_MAX``, ``MPI_MIN``).

Every op but the two queries (``QUERIES``: pure, a rank is a value of its communicator)
communicates: it is ordered as a barrier is (never dead, never moved, never merged, never run
again by a pass), and it reads and writes the buffers its table row names, so the memory
analyses see what it touches on this rank (``opdefs``). What it reads on *other* ranks is the activity analysis's
business (``adjoint/activity``), and its adjoint, communication in the other direction, is
``adjoint/mpi_rules``'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .ir import Op, Value

PREFIX = "mpi."
# Calls that ask this rank's MPI a question (no other rank takes part): values of the communicator.
QUERIES = ("mpi.comm_rank", "mpi.comm_size")
REDUCTION_OPS = {"MPI_SUM": "sum", "MPI_MAX": "max", "MPI_MIN": "min"}


@dataclass(frozen=True)
class Communicator:
    """A communicator as a parameter's default (``comm=MPI.COMM_WORLD``): its MPI name, which each
    output spells its own way; the gradient keeps it as its parameter's default."""

    name: str  # "MPI_COMM_WORLD"


@dataclass(frozen=True)
class MpiCall:
    """One MPI call: its C name, the roles of its operands in order, C's arguments in order
    (a role, or what else the argument is: ``type``, the datatype of the buffer before it;
    ``op``, the reduction; ``comm``; ``status``; ``in_place``, ``MPI_IN_PLACE``), and which
    roles are buffers it reads and writes."""

    name: str
    c_name: str
    roles: tuple[str, ...]
    c_args: tuple[str, ...]
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    reduces: bool = False  # takes an ``op`` attribute
    starts: bool = False  # a non-blocking call: its result is a request

    def operand(self, op: Op, role: str) -> Value:
        return op.operands[self.roles.index(role)]


_CALLS = [
    MpiCall("mpi.comm_rank", "MPI_Comm_rank", ("comm",), ("comm", "result")),
    MpiCall("mpi.comm_size", "MPI_Comm_size", ("comm",), ("comm", "result")),
    MpiCall("mpi.barrier", "MPI_Barrier", ("comm",), ("comm",)),
    MpiCall("mpi.allreduce", "MPI_Allreduce", ("comm", "send", "recv", "count"),
            ("send", "recv", "count", "type", "op", "comm"), ("send",), ("recv",), True),
    MpiCall("mpi.allreduce_in_place", "MPI_Allreduce", ("comm", "buf", "count"),
            ("in_place", "buf", "count", "type", "op", "comm"), ("buf",), ("buf",), True),
    MpiCall("mpi.reduce", "MPI_Reduce", ("comm", "send", "recv", "count", "root"),
            ("send", "recv", "count", "type", "op", "root", "comm"), ("send",), ("recv",), True),
    MpiCall("mpi.bcast", "MPI_Bcast", ("comm", "buf", "count", "root"),
            ("buf", "count", "type", "root", "comm"), ("buf",), ("buf",)),
    MpiCall("mpi.send", "MPI_Send", ("comm", "buf", "count", "peer", "tag"),
            ("buf", "count", "type", "peer", "tag", "comm"), ("buf",)),
    MpiCall("mpi.recv", "MPI_Recv", ("comm", "buf", "count", "peer", "tag"),
            ("buf", "count", "type", "peer", "tag", "comm", "status"), writes=("buf",)),
    MpiCall("mpi.sendrecv", "MPI_Sendrecv",
            ("comm", "send", "send_count", "dest", "send_tag", "recv", "recv_count", "source", "recv_tag"),
            ("send", "send_count", "type", "dest", "send_tag", "recv", "recv_count", "type", "source", "recv_tag",
             "comm", "status"), ("send",), ("recv",)),
    MpiCall("mpi.scatter", "MPI_Scatter", ("comm", "send", "send_count", "recv", "recv_count", "root"),
            ("send", "send_count", "type", "recv", "recv_count", "type", "root", "comm"), ("send",), ("recv",)),
    MpiCall("mpi.gather", "MPI_Gather", ("comm", "send", "send_count", "recv", "recv_count", "root"),
            ("send", "send_count", "type", "recv", "recv_count", "type", "root", "comm"), ("send",), ("recv",)),
    MpiCall("mpi.allgather", "MPI_Allgather", ("comm", "send", "send_count", "recv", "recv_count"),
            ("send", "send_count", "type", "recv", "recv_count", "type", "comm"), ("send",), ("recv",)),
    MpiCall("mpi.isend", "MPI_Isend", ("comm", "buf", "count", "peer", "tag"),
            ("buf", "count", "type", "peer", "tag", "comm", "request"), ("buf",), starts=True),
    MpiCall("mpi.irecv", "MPI_Irecv", ("comm", "buf", "count", "peer", "tag"),
            ("buf", "count", "type", "peer", "tag", "comm", "request"), writes=("buf",), starts=True),
    MpiCall("mpi.wait", "MPI_Wait", (), ("request", "status")),
    # (mpi4py's methods of numbers: their values are the op's result; C has no such calls)
    MpiCall("mpi.allreduce_value", "", ("comm", "value"), (), reduces=True),
    MpiCall("mpi.bcast_value", "", ("comm", "value", "root"), ()),
]
VALUE_CALLS = ("mpi.allreduce_value", "mpi.bcast_value")
CALLS: dict[str, MpiCall] = {c.name: c for c in _CALLS}
# C's name -> the op (MPI_Allreduce: the plain one; MPI_IN_PLACE makes it the other)
C_CALLS: dict[str, MpiCall] = {c.c_name: c for c in reversed(_CALLS) if c.c_name}
NAMES = frozenset(CALLS)


def is_mpi(name: str) -> bool:
    return name in CALLS


def communicates(name: str) -> bool:
    """Whether the op ``name`` is MPI communication, which other ranks take part in."""
    return name in CALLS and name not in QUERIES


def call_of(op: Op) -> MpiCall:
    return CALLS[op.name]


def mpi_reads(op: Op) -> list[Value]:
    c = CALLS[op.name]
    return [c.operand(op, r) for r in c.reads]


def mpi_writes(op: Op) -> list[Value]:
    c = CALLS[op.name]
    return [c.operand(op, r) for r in c.writes]


def buffers(op: Op) -> list[Value]:
    """The op's buffers, read or written (each once)."""
    c = CALLS[op.name]
    return [c.operand(op, r) for r in dict.fromkeys(c.reads + c.writes)]


def reads_primal(op: Op) -> bool:
    """Whether the adjoint of ``op`` reads the numbers it sent (a reduction by max or min: which
    rank held the extreme), so the forward sweep keeps them where they change later
    (``sent_operand``)."""
    return op.name in ("mpi.allreduce", "mpi.allreduce_in_place", "mpi.reduce") and op.attrs.get("op", "sum") != "sum"


def buffer_counts(op: Op) -> list[tuple[Value, Optional[Value]]]:
    """Each buffer of ``op`` with the number of elements it touches on this rank: the count
    operand that goes with it, None where the number of ranks multiplies it (a scatter's sent,
    a gather's or an allgather's received buffer)."""
    c = CALLS[op.name]
    out: list[tuple[Value, Optional[Value]]] = []
    for role in dict.fromkeys(c.reads + c.writes):
        if (op.name, role) in (("mpi.scatter", "send"), ("mpi.gather", "recv"), ("mpi.allgather", "recv")):
            out.append((c.operand(op, role), None))
        else:
            own = f"{role}_count"
            out.append((c.operand(op, role), c.operand(op, own if own in c.roles else "count")))
    return out


def sent_operand(op: Op) -> int:
    """The position of the buffer ``op`` sends from among its operands."""
    roles = CALLS[op.name].roles
    return roles.index("send") if "send" in roles else roles.index("buf")


def carries_floats(op: Op) -> bool:
    """Whether ``op`` moves floating-point numbers between ranks (rank and size cells do not; a
    wait does where a call it completes does)."""
    if op.name == "mpi.wait":
        return any(carries_floats(r.defining_op) for r in op.operands)
    if op.name in VALUE_CALLS:
        return op.result.type.is_float
    return op.name not in QUERIES and any(
        v.type.elem.is_float for v in buffers(op))  # type: ignore[attr-defined]


__all__ = ["CALLS", "C_CALLS", "Communicator", "MpiCall", "NAMES", "PREFIX", "QUERIES", "REDUCTION_OPS", "VALUE_CALLS",
           "buffer_counts", "buffers", "call_of", "carries_floats", "communicates", "is_mpi", "mpi_reads",
           "mpi_writes", "reads_primal", "sent_operand"]
