"""MPI calls of C (``#include <mpi.h>``): the ``mpi.`` ops they stand for (``ssa/mpi``).

A distributed program's function is one function run by every rank; the calls it makes to
exchange numbers become ops whose buffers are arrays (``&local``, the address of a number,
is a one-element cell, ``c_pointers``; ``u + 1`` a view). What s2sad must know to reverse a
call is read from its arguments, and what it cannot follow is a located error, never a guess:

* the communicator is ``MPI_COMM_WORLD``, ``MPI_COMM_SELF`` or an ``MPI_Comm`` the function
  is passed (the gradient takes it too, and communicates over it: its ranks are the primal's),
  and the datatype the buffers' own (``MPI_DOUBLE`` for ``double``, ``MPI_FLOAT``,
  ``MPI_INT``, ``MPI_LONG``);
* reductions are ``MPI_SUM``, ``MPI_MAX`` and ``MPI_MIN`` (a user-defined operator has no
  adjoint s2sad knows);
* a receive names its source (``MPI_ANY_SOURCE`` and ``MPI_ANY_TAG`` leave the sender to the
  run, and the adjoint must send back to it), and its status is ignored
  (``MPI_STATUS_IGNORE``, or the address of an ``MPI_Status`` nothing reads);
* ``MPI_PROC_NULL`` is a rank like any other (a halo exchange's missing neighbour): a value
  the output spells by name (``named_mpi_constant``).

``MPI_Comm_rank`` and ``MPI_Comm_size`` write their integer, an inactive number.

Non-blocking calls (``MPI_Isend``, ``MPI_Irecv``) give a request, and ``MPI_Wait`` and
``MPI_Waitall`` complete requests: the front end follows requests by the variable that holds
them (``MPI_Request r``, or an element of ``MPI_Request reqs[4]`` at a constant index), so each
wait's op takes as operands the requests of the calls it completes, posted in its own block (a
halo exchange's calls and their wait, in one step of a loop). A request posted in one block
and waited for in another, or at an index computed at run time, is a located error.
"""

from __future__ import annotations

from typing import Optional

from pycparser import c_ast

from ..ssa import build
from ..ssa.ir import Builder, Value
from ..ssa.mpi import C_CALLS, CALLS, QUERIES, REDUCTION_OPS
from ..ssa.types import COMM, F32, F64, I32, I64, REQUEST, Type
from .c_expr import node_text
from .py_common import Env

# The datatypes s2sad follows, by the element type of the buffers they describe.
DATATYPES: dict[str, Type] = {"MPI_DOUBLE": F64, "MPI_FLOAT": F32, "MPI_INT": I32, "MPI_LONG": I64}
COMMUNICATORS = frozenset({"MPI_COMM_WORLD", "MPI_COMM_SELF"})
# Named numbers of mpi.h that are ranks or tags: values the output spells by name.
RANK_CONSTANTS = frozenset({"MPI_PROC_NULL"})
_UNFOLLOWED = {
    "MPI_ANY_SOURCE": "a receive from MPI_ANY_SOURCE leaves the sender to the run, and the adjoint must send "
                      "back to it",
    "MPI_ANY_TAG": "a receive of MPI_ANY_TAG matches what the run sends first, which the adjoint cannot "
                   "match in reverse",
}
MPI_CALLS = frozenset(C_CALLS) | {"MPI_Waitall"}
# Calls a function being differentiated cannot make: what they do is the program's, not its.
_PROGRAM_CALLS = {
    "MPI_Init": "MPI is started once, by the program",
    "MPI_Init_thread": "MPI is started once, by the program",
    "MPI_Finalize": "MPI is stopped once, by the program",
    "MPI_Abort": "it ends every rank",
}
_NOT_YET = ("MPI_Test", "MPI_Testall", "MPI_Waitany", "MPI_Waitsome", "MPI_Put", "MPI_Get", "MPI_Accumulate",
            "MPI_Comm_split", "MPI_Comm_dup", "MPI_Op_create", "MPI_Type_contiguous", "MPI_Type_vector",
            "MPI_Type_create_struct", "MPI_Alltoall", "MPI_Reduce_scatter", "MPI_Scan")


def is_mpi_call(name: str) -> bool:
    return name.startswith("MPI_")


class CMpiCalls:
    """The MPI calls of C (a mixin of the C function lowerer, which provides the expressions)."""

    mpi_requests: dict[tuple[str, int], Value]  # (the variable, the index) -> the request it holds

    def mpi_call(self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], b: Builder, env: Env,
                 want_value: bool) -> Optional[Value]:
        if not hasattr(self, "mpi_requests"):
            self.mpi_requests = {}
        if name in ("MPI_Wait", "MPI_Waitall"):
            return self.mpi_wait(node, name, args, b, env, want_value)
        if name in _PROGRAM_CALLS:
            raise self.fail(node, f"{name} inside the function being differentiated: {_PROGRAM_CALLS[name]}",
                            f"call {name} in main, around the calls of the function and of its gradient")
        if name not in C_CALLS:
            soon = " yet" if name in _NOT_YET else ""
            raise self.fail(node, f"s2sad does not differentiate through '{name}'{soon}: it follows "
                            f"{', '.join(sorted(MPI_CALLS))}", "see README, Distributed programs (MPI), for "
                            "what the gradient of a distributed program may call")
        call = C_CALLS[name]
        op_name, roles = call.name, call.c_args
        if len(args) != len(roles):
            raise self.fail(node, f"{name} takes {len(roles)} arguments, not {len(args)}")
        if op_name in QUERIES:
            return self.mpi_query(node, name, op_name, args, b, env, want_value)
        at = self.at(b, node)
        operands: dict[str, Value] = {}
        attrs: dict = {}
        elem: Optional[Type] = None
        typed: list[tuple[c_ast.Node, Type]] = []  # (the datatype argument, the buffer it describes)
        last_buffer: Optional[Value] = None
        in_place = False
        request: Optional[c_ast.Node] = None
        for a, role in zip(args, roles):
            if role == "request":
                request = a
            elif role == "comm":
                operands[role] = self.mpi_communicator(a, name, b, env)
            elif role == "status":
                self.mpi_status(a, name)
            elif role == "op":
                attrs["op"] = self.mpi_reduction(a, name)
            elif role == "type":
                if last_buffer is None:
                    raise self.fail(a, f"{name}: the datatype must follow a buffer")  # (no table row does so)
                typed.append((a, last_buffer.type.elem))  # type: ignore[attr-defined]
            elif role in ("count", "send_count", "recv_count", "root", "peer", "tag", "dest", "source",
                          "send_tag", "recv_tag"):
                what = f"the {role.replace('_', ' ')} of {name}"
                operands[role] = self.convert(self.integer(a, b, env, what), I64, at)
            elif role == "send" and op_name == "mpi.allreduce" and _named(a) == "MPI_IN_PLACE":
                in_place = True
            else:  # a buffer
                buf = self.mpi_buffer(a, name, b, env)
                operands[role] = buf
                last_buffer = buf
        for a, t in typed:
            self.mpi_datatype(a, t, name)
            elem = elem or t
            if t != elem:
                raise self.fail(a, f"{name} between buffers of different types is not supported",
                                "send and receive numbers of one type")
        if in_place:
            op_name, call = "mpi.allreduce_in_place", CALLS["mpi.allreduce_in_place"]
            operands["buf"] = operands.pop("recv")
        at = self.at(b, node)
        made = at.create(op_name, [operands[r] for r in call.roles], [REQUEST] if call.starts else [], attrs,
                         hints=["req"] if call.starts else None)
        if request is not None:
            key = self.mpi_request_slot(request, name)
            made.result.name_hint = key[0] if key[1] == 0 and not _indexed(request) else f"{key[0]}_{key[1]}"
            self.mpi_requests[key] = made.result
        if want_value:  # every MPI call returns MPI_SUCCESS (errors abort, MPI's default handler)
            return build.const(at, 0, I32)
        return None

    def mpi_query(self, node: c_ast.FuncCall, name: str, op_name: str, args: list[c_ast.Node], b: Builder,
                  env: Env, want_value: bool) -> Optional[Value]:
        """``MPI_Comm_rank(comm, &rank)``: ``rank`` assigned this rank (a value of the communicator);
        through a pointer, stored where it points."""
        comm = self.mpi_communicator(args[0], name, b, env)
        at = self.at(b, node)
        value = at.op1(op_name, [comm], I32, "rank" if op_name == "mpi.comm_rank" else "size")
        out = args[1]
        if isinstance(out, c_ast.UnaryOp) and out.op == "&" and isinstance(out.expr, c_ast.ID):
            self.store(out.expr, value, b, env, node)
        else:
            p = self.pointer(out, b, env)
            if p.layout is not None or p.elem != I32:
                raise self.fail(out, f"{name} writes an int: '{node_text(out)}' must point to an int")
            self.put(self.at(b, node), p, build.const(at, 0, I64), value)
        return build.const(at, 0, I32) if want_value else None

    def mpi_wait(self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], b: Builder, env: Env,
                 want_value: bool) -> Optional[Value]:
        """``MPI_Wait(&r, status)``, ``MPI_Waitall(n, reqs, statuses)``: one ``mpi.wait`` of the
        requests those variables hold, each posted in this block."""
        if len(args) != (2 if name == "MPI_Wait" else 3):
            raise self.fail(node, f"{name} takes {2 if name == 'MPI_Wait' else 3} arguments, not {len(args)}")
        if name == "MPI_Wait":
            keys = [self.mpi_request_slot(args[0], name)]
        else:
            count = self.constant_count(args[0])
            if count is None or count < 1:
                raise self.fail(args[0], f"{name}: s2sad follows a constant number of requests, not "
                                f"'{node_text(args[0])}'", "wait for the requests of one exchange: "
                                "MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE)")
            var, start = self.mpi_request_slot(args[1], name, array=True)
            keys = [(var, start + k) for k in range(count)]
        self.mpi_status(args[-1], name)
        at = self.at(b, node)
        requests = []
        for key in keys:
            r = self.mpi_requests.pop(key, None)
            spelled = key[0].split("#")[0] + (f"[{key[1]}]" if name == "MPI_Waitall" or key[1] else "")
            if r is None:
                raise self.fail(node, f"{name}: '{spelled}' holds no request that MPI_Isend or MPI_Irecv started "
                                "before, in this function", "start each request with MPI_Isend or MPI_Irecv "
                                "before waiting for it")
            if r.defining_op.parent is not at.block:  # type: ignore[union-attr]
                raise self.fail(node, f"{name}: the request in '{spelled}' was started in another block (a loop "
                                "or a branch this wait is not in), which s2sad cannot pair in reverse",
                                "start the requests and wait for them in one block, as a halo exchange does")
            requests.append(r)
        at.create("mpi.wait", requests, [])
        return build.const(at, 0, I32) if want_value else None

    def mpi_request_slot(self, a: c_ast.Node, name: str, array: bool = False) -> tuple[str, int]:
        """The variable and index that a request argument names: ``&r``, ``&reqs[2]``, ``reqs + 2``
        (and, for ``MPI_Waitall``, ``reqs``)."""
        var, index = None, None
        if isinstance(a, c_ast.UnaryOp) and a.op == "&" and isinstance(a.expr, c_ast.ID) and not array:
            var, index = a.expr.name, 0
        elif isinstance(a, c_ast.UnaryOp) and a.op == "&" and isinstance(a.expr, c_ast.ArrayRef) \
                and isinstance(a.expr.name, c_ast.ID):
            var, index = a.expr.name.name, self.constant_count(a.expr.subscript)
        elif isinstance(a, c_ast.BinaryOp) and a.op == "+" and isinstance(a.left, c_ast.ID):
            var, index = a.left.name, self.constant_count(a.right)
        elif isinstance(a, c_ast.ID) and array:
            var, index = a.name, 0
        if var is None or index is None:
            raise self.fail(a, f"{name}: s2sad follows requests held in a variable or at a constant index of an "
                            f"array of them, not '{node_text(a)}'", "write &req, or &reqs[2] with a constant index")
        return self.lookup(var) or var, index

    def mpi_buffer(self, a: c_ast.Node, name: str, b: Builder, env: Env) -> Value:
        """The array a buffer argument points into: the array, or a view from its element."""
        if _named(a) in ("MPI_IN_PLACE", "NULL", "MPI_BOTTOM"):
            raise self.fail(a, f"{name}: {_named(a)} as this buffer is not supported",
                            "pass an array on every rank (its contents are ignored where MPI ignores them)")
        p = self.pointer(a, b, env)
        if p.layout is not None:
            raise self.fail(a, f"{name}: a buffer of structs is not supported (s2sad follows buffers of numbers)",
                            "send the numbers of one member, copied into an array of them")
        if p.base.type.rank != 1:  # type: ignore[attr-defined]
            raise self.fail(a, f"{name}: a buffer of {p.base.type.rank} dimensions is not supported yet",  # type: ignore
                            "pass a one-dimensional array (or a row, A[i])")
        elem = p.base.type.elem  # type: ignore[attr-defined]
        if not (elem.is_float or elem.is_int):
            raise self.fail(a, f"{name}: a buffer of {elem} is not supported")
        if p.off is None:
            return p.base
        return self.at(b, a).op1("view", [p.base, p.off], p.base.type)

    def mpi_communicator(self, a: c_ast.Node, name: str, b: Builder, env: Env) -> Value:
        """The communicator: ``MPI_COMM_WORLD`` or ``MPI_COMM_SELF``, spelled by name, or an
        ``MPI_Comm`` the function is passed (the gradient is passed it too)."""
        if _named(a) in COMMUNICATORS:
            return self.at(b, a).op1("global", [], COMM, _named(a).lower(), callee=_named(a), mpi=True)  # type: ignore
        v = self.scalar(a, b, env) if not isinstance(a, c_ast.Constant) else None
        if v is None or v.type != COMM:
            raise self.fail(a, f"{name}: '{node_text(a)}' is not a communicator s2sad can follow",
                            "pass MPI_COMM_WORLD, or an MPI_Comm parameter of the function")
        return v

    def mpi_status(self, a: c_ast.Node, name: str) -> None:
        if _named(a) in ("MPI_STATUS_IGNORE", "MPI_STATUSES_IGNORE"):
            return
        if isinstance(a, c_ast.UnaryOp) and a.op == "&" and isinstance(a.expr, c_ast.ID) or isinstance(a, c_ast.ID):
            return  # an MPI_Status (an array of them) nothing reads (a read of one is refused where it is)
        raise self.fail(a, f"{name}: s2sad ignores the status of a receive, and '{node_text(a)}' is not one it "
                        "can ignore", "pass MPI_STATUS_IGNORE")

    def mpi_reduction(self, a: c_ast.Node, name: str) -> str:
        op = _named(a)
        if op not in REDUCTION_OPS:
            raise self.fail(a, f"{name}: s2sad follows the reductions {', '.join(REDUCTION_OPS)}, not "
                            f"'{node_text(a)}'", "reduce with MPI_SUM, MPI_MAX or MPI_MIN")
        return REDUCTION_OPS[op]

    def mpi_datatype(self, a: c_ast.Node, elem: Type, name: str) -> None:
        said = _named(a)
        if said not in DATATYPES:
            raise self.fail(a, f"{name}: s2sad follows the datatypes {', '.join(DATATYPES)}, not '{node_text(a)}'",
                            "send numbers of a basic type")
        if DATATYPES[said] != elem:
            want = next(k for k, t in DATATYPES.items() if t == elem) if elem in DATATYPES.values() else None
            raise self.fail(a, f"{name}: the datatype {said} does not describe this buffer, of {elem}",
                            f"pass {want}" if want else "pass a buffer of double, float, int or long")

    def named_mpi_constant(self, node: c_ast.ID, b: Builder) -> Optional[Value]:
        """``MPI_PROC_NULL`` where a number is read: a ``global`` value spelled by its name;
        None for a name that is not one of mpi.h's."""
        if node.name in _UNFOLLOWED:
            raise self.fail(node, f"{node.name} is not supported: {_UNFOLLOWED[node.name]}",
                            "name the rank and the tag of each message")
        if node.name not in RANK_CONSTANTS:
            return None
        return self.at(b, node).op1("global", [], I64, node.name.lower(), callee=node.name, mpi=True)


def _indexed(a: c_ast.Node) -> bool:
    """Whether a request argument names an element of an array (``&reqs[0]``, ``reqs + 1``)."""
    return not (isinstance(a, c_ast.UnaryOp) and isinstance(a.expr, c_ast.ID))


def _named(a: c_ast.Node) -> Optional[str]:
    """The name an argument is, where it is a bare name (``MPI_COMM_WORLD``)."""
    while isinstance(a, c_ast.Cast):
        a = a.expr
    return a.name if isinstance(a, c_ast.ID) else None
