"""MPI calls in Python: each ``mpi.`` op (``ssa/mpi``) as the mpi4py call it stands for.

A buffer is the array, or a slice of it where the op names part of one (a view from ``k``, a
count other than the array's length: ``u[k:k + n]``); the datatype is the array's own, as
mpi4py reads it. A communicator is a parameter, or ``MPI.COMM_WORLD``; ``MPI_PROC_NULL`` is
``MPI.PROC_NULL``; a request is the value ``Isend``/``Irecv`` return, completed by ``req.Wait()``.
"""

from __future__ import annotations

from ..diagnostics import error
from ..emit.expr import Attribute, Call, Expr, Lit, Name, Range, Subscript, binop
from ..emit.stmt import Assign, ExprStmt, Stmt
from ..ssa.build import const_int
from ..ssa.ir import Op, Value
from ..ssa.mpi import REDUCTION_OPS, VALUE_CALLS, Communicator, call_of

_REDUCTIONS = {op: name for name, op in REDUCTION_OPS.items()}
# op -> the mpi4py method and its arguments: (keyword or None for positional, role, the count's role)
_CALLS: dict[str, tuple[str, tuple[tuple[str | None, str, str | None], ...]]] = {
    "mpi.barrier": ("Barrier", ()),
    "mpi.allreduce": ("Allreduce", ((None, "send", "count"), (None, "recv", "count"))),
    "mpi.allreduce_in_place": ("Allreduce", ((None, "in_place", None), (None, "buf", "count"))),
    "mpi.reduce": ("Reduce", ((None, "send", "count"), (None, "recv", "count"), ("root", "root", None))),
    "mpi.bcast": ("Bcast", ((None, "buf", "count"), ("root", "root", None))),
    "mpi.send": ("Send", ((None, "buf", "count"), ("dest", "peer", None), ("tag", "tag", None))),
    "mpi.recv": ("Recv", ((None, "buf", "count"), ("source", "peer", None), ("tag", "tag", None))),
    "mpi.isend": ("Isend", ((None, "buf", "count"), ("dest", "peer", None), ("tag", "tag", None))),
    "mpi.irecv": ("Irecv", ((None, "buf", "count"), ("source", "peer", None), ("tag", "tag", None))),
    "mpi.sendrecv": ("Sendrecv", ((None, "send", "send_count"), ("dest", "dest", None), ("sendtag", "send_tag", None),
                                  ("recvbuf", "recv", "recv_count"), ("source", "source", None),
                                  ("recvtag", "recv_tag", None))),
    "mpi.scatter": ("Scatter", ((None, "send", "all:send_count"), (None, "recv", "recv_count"),
                                ("root", "root", None))),
    "mpi.gather": ("Gather", ((None, "send", "send_count"), (None, "recv", "all:recv_count"),
                              ("root", "root", None))),
    "mpi.allgather": ("Allgather", ((None, "send", "send_count"), (None, "recv", "all:recv_count"))),
}
_QUERIES = {"mpi.comm_rank": "Get_rank", "mpi.comm_size": "Get_size"}


def mpi_name(name: str) -> Expr:
    """``MPI_COMM_WORLD`` as mpi4py spells it: ``MPI.COMM_WORLD``."""
    return Attribute(Name("MPI"), name[len("MPI_"):])


def communicator_default(value: Communicator) -> Expr:
    return mpi_name(value.name)


class PyMpi:
    """``mpi.`` ops as statements (a mixin of the Python function emitter)."""

    def _mpi(self, op: Op) -> list[Stmt]:
        if self.numba:  # type: ignore[attr-defined]
            raise error("--target numba: this communicates over MPI (mpi4py), which Numba's compiled code cannot "
                        "call", op.loc, hint="use --target py")
        if "c_params" in self.fn.attrs:  # type: ignore[attr-defined]
            raise error("Python output of a C program's MPI communication is not supported", op.loc,
                        hint="use --target c")
        if op.name == "mpi.wait":
            return [ExprStmt(Call(Attribute(self.expr(r), "Wait"))) for r in op.operands]  # type: ignore[attr-defined]
        call = call_of(op)
        comm = self.expr(call.operand(op, "comm"))  # type: ignore[attr-defined]
        if op.name in _QUERIES:
            return [Assign([Name(self.var[op.result])], Call(Attribute(comm, _QUERIES[op.name])))]  # type: ignore
        if op.name in VALUE_CALLS:  # t = comm.allreduce(s, op=MPI.SUM), t = comm.bcast(s, root=0)
            value = self.expr(op.operands[1])  # type: ignore[attr-defined]
            made = Call(Attribute(comm, "allreduce"), (value,), (("op", mpi_name(_REDUCTIONS[op.attrs["op"]])),)) \
                if op.name == "mpi.allreduce_value" else \
                Call(Attribute(comm, "bcast"), (value,), (("root", self.expr(op.operands[2])),))  # type: ignore
            return self._mpi_value(op, made)
        method, args = _CALLS[op.name]
        positional: list[Expr] = []
        keywords: list[tuple[str, Expr]] = []
        for keyword, role, count in args:
            if role == "in_place":
                value: Expr = mpi_name("MPI_IN_PLACE")
            elif count is not None:
                value = self._mpi_buffer(op, call.operand(op, role), count)
            else:
                value = self.expr(call.operand(op, role))  # type: ignore[attr-defined]
            if keyword is None:
                positional.append(value)
            else:
                keywords.append((keyword, value))
        if call.reduces:
            keywords.append(("op", mpi_name(_REDUCTIONS[op.attrs["op"]])))
        made = Call(Attribute(comm, method), tuple(positional), tuple(keywords))
        return self._mpi_value(op, made) if call.starts else [ExprStmt(made)]

    def _mpi_value(self, op: Op, made: Call) -> list[Stmt]:
        """``var = made`` for the op's result; ``made`` alone where nothing reads the result (the
        call is made all the same: every rank takes part)."""
        if op.result not in self.var:  # type: ignore[attr-defined]
            return [ExprStmt(made)]
        return [Assign([Name(self.var[op.result])], made)]  # type: ignore[attr-defined]

    def _mpi_buffer(self, op: Op, buf: Value, count_role: str) -> Expr:
        """The buffer ``buf`` of the op's ``count_role`` elements (``all:``: that many per rank)."""
        call = call_of(op)
        per_rank = count_role.startswith("all:")
        count = call.operand(op, count_role.removeprefix("all:"))
        e = self.expr  # type: ignore[attr-defined]
        d = buf.defining_op
        row = d is not None and d.name == "view" and buf.type != d.operands[0].type  # u[i] of a 2-D u
        base, start = (d.operands[0], d.operands[1]) if d is not None and d.name == "view" and not row else (buf, None)
        n: Expr = e(count)
        if per_rank:
            if start is None and _ranks_times(count, base):
                return e(base)  # np.zeros(2 * comm.size) for 2 numbers a rank: the whole array
            n = binop("*", n, Call(Attribute(e(call.operand(op, "comm")), "Get_size")))
        elif start is None and _length_of(count, base):
            return e(base)  # the whole array
        end = count.defining_op
        if not per_rank and end is not None and end.name == "sub" and end.operands[1] is start:
            return Subscript(e(base), (Range(e(start), e(end.operands[0])),))  # u[lo:hi] of hi - lo numbers
        if start is None or const_int(start) == 0:
            return Subscript(e(base), (Range(None, n),))
        if const_int(start) is not None and const_int(count) is not None and not per_rank:  # u[1:2]
            return Subscript(e(base), (Range(e(start), Lit(str(const_int(start) + const_int(count)))),))  # type: ignore
        return Subscript(e(base), (Range(e(start), binop("+", e(start), n)),))


def _ranks_times(count: Value, arr: Value) -> bool:
    """Whether ``arr`` was made ``count`` times the number of ranks long (``np.zeros(2 * size)``)."""
    made = arr.defining_op
    if made is None or made.name != "alloc" or len(made.operands) != 1:
        return False
    m = made.operands[0].defining_op
    if m is None or m.name != "mul":
        return False
    sized = [v for v in m.operands if v.defining_op is not None and v.defining_op.name == "mpi.comm_size"]
    other = [v for v in m.operands if v not in sized]
    return len(sized) == 1 and len(other) == 1 and (
        other[0] is count or (const_int(count) is not None and const_int(other[0]) == const_int(count)))


def _length_of(count: Value, arr: Value) -> bool:
    """Whether ``count`` is ``arr``'s length (``len(arr)``, its first extent; a number's cell's 1)."""
    d = count.defining_op
    if d is not None and d.name == "dim" and d.operands[0] is arr and d.attrs.get("axis") == 0:
        return True
    v = arr.defining_op
    if v is not None and v.name == "view" and arr.type != v.operands[0].type:  # a row: the base's row length
        made = v.operands[0].defining_op
        if d is not None and d.name == "dim" and d.operands[0] is v.operands[0] and d.attrs.get("axis") == 1:
            return True
        return made is not None and made.name == "alloc" and len(made.operands) == 2 and made.operands[1] is count
    made = arr.defining_op
    if made is None or made.name != "alloc" or len(made.operands) != 1:
        return False
    n = const_int(count)
    return made.operands[0] is count or (n is not None and const_int(made.operands[0]) == n)
