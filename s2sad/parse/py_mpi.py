"""mpi4py's communication in Python: the ``mpi.`` ops (``ssa/mpi``) that its calls stand for.

A distributed NumPy program calls the methods of a communicator: ``MPI.COMM_WORLD`` (from
``from mpi4py import MPI``), a module-level name bound to it (``comm = MPI.COMM_WORLD``), or a
parameter whose default it is or on which the function calls them (``def f(x, comm=
MPI.COMM_WORLD)``, a ``COMM`` value the gradient takes too). What s2sad follows:

* the buffer methods on NumPy arrays, as the C calls of ``c_mpi`` are: ``Allreduce`` (also with
  ``MPI.IN_PLACE``), ``Reduce``, ``Bcast``, ``Send``, ``Recv``, ``Sendrecv``, ``Isend`` and
  ``Irecv`` (their requests completed by ``req.Wait()`` or ``MPI.Request.Waitall([...])`` in the
  block that started them), ``Scatter``, ``Gather``, ``Allgather``, ``Barrier``; a buffer is a
  one-dimensional array or a slice of one (``u[0:1]``, a view: a receive writes into ``u``);
* ``comm.allreduce(s)`` and ``comm.bcast(s, root=0)`` of a number: the number goes through a
  one-element array, as the buffer methods do;
* ``comm.Get_rank()``, ``comm.Get_size()``, ``comm.rank``, ``comm.size``: integers.

Reductions are ``MPI.SUM``, ``MPI.MAX`` and ``MPI.MIN``; a receive names its source (mpi4py's
default, ``MPI.ANY_SOURCE``, leaves the sender to the run); ``MPI.PROC_NULL`` is a rank. What
is not followed is a located error (``PyMpi.fail``), never a guess.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import libcst as cst

from ..ssa import build
from ..ssa.array_ops import offset_of
from ..ssa.ir import Builder, Value
from ..ssa.mpi import CALLS, Communicator
from ..ssa.types import COMM, I64, REQUEST, ArrayType, Type
from .py_flow import every_node
from .py_module import ModuleInfo, dotted_source

from .py_common import Poison

if TYPE_CHECKING:
    from .py_common import Env

MPI_MODULE = "mpi4py.MPI"
COMMUNICATORS = {f"{MPI_MODULE}.COMM_WORLD": "MPI_COMM_WORLD", f"{MPI_MODULE}.COMM_SELF": "MPI_COMM_SELF"}
_REDUCTIONS = {f"{MPI_MODULE}.SUM": "sum", f"{MPI_MODULE}.MAX": "max", f"{MPI_MODULE}.MIN": "min"}
RANK_CONSTANTS = {f"{MPI_MODULE}.PROC_NULL": "MPI_PROC_NULL"}
_ANY = object()  # a default that is MPI.ANY_SOURCE or MPI.ANY_TAG: the call must name it
_NONE = object()
# method -> (its op, its parameters in order as (name, default); no default: required)
METHODS: dict[str, tuple[str, tuple[tuple[str, object], ...]]] = {
    "Allreduce": ("mpi.allreduce", (("sendbuf", None), ("recvbuf", None), ("op", "sum"))),
    "Reduce": ("mpi.reduce", (("sendbuf", None), ("recvbuf", None), ("op", "sum"), ("root", 0))),
    "Bcast": ("mpi.bcast", (("buf", None), ("root", 0))),
    "Send": ("mpi.send", (("buf", None), ("dest", None), ("tag", 0))),
    "Recv": ("mpi.recv", (("buf", None), ("source", _ANY), ("tag", _ANY), ("status", _NONE))),
    "Sendrecv": ("mpi.sendrecv", (("sendbuf", None), ("dest", None), ("sendtag", 0), ("recvbuf", None),
                                  ("source", _ANY), ("recvtag", _ANY), ("status", _NONE))),
    "Isend": ("mpi.isend", (("buf", None), ("dest", None), ("tag", 0))),
    "Irecv": ("mpi.irecv", (("buf", None), ("source", _ANY), ("tag", _ANY))),
    "Scatter": ("mpi.scatter", (("sendbuf", None), ("recvbuf", None), ("root", 0))),
    "Gather": ("mpi.gather", (("sendbuf", None), ("recvbuf", None), ("root", 0))),
    "Allgather": ("mpi.allgather", (("sendbuf", None), ("recvbuf", None))),
    "Barrier": ("mpi.barrier", ()),
    "Get_rank": ("mpi.comm_rank", ()),
    "Get_size": ("mpi.comm_size", ()),
    "allreduce": ("mpi.allreduce_in_place", (("sendobj", None), ("op", "sum"))),
    "bcast": ("mpi.bcast", (("obj", None), ("root", 0))),
}
_QUERIES = {"rank": "Get_rank", "size": "Get_size"}  # comm.rank, comm.size
# the roles of each op's buffers, by the method's parameter that gives them
_BUFFERS = {"sendbuf": "send", "recvbuf": "recv", "buf": "buf"}


def communicator_default(node: Optional[cst.BaseExpression], info: ModuleInfo) -> Optional[Communicator]:
    """The communicator a parameter's default names (``MPI.COMM_WORLD``), else None."""
    name = COMMUNICATORS.get(info.canonical_name(node) or "") if node is not None else None
    return Communicator(name) if name is not None else None


def is_communicator(node: cst.BaseExpression, info: ModuleInfo, locals_: frozenset, comms: set[str]) -> bool:
    """Whether ``node`` is a communicator: ``MPI.COMM_WORLD`` (or a module-level name for it), or
    a local or parameter that holds one (``comms``)."""
    if isinstance(node, cst.Name) and node.value in comms:
        return True
    return (info.canonical_name(node, locals_) or "") in COMMUNICATORS


def communicator_params(fn: cst.FunctionDef, info: ModuleInfo, params: list[cst.Param]) -> set[str]:
    """The parameters that are communicators: a communicator as default, or the receiver of a
    communicator's method (``comm.Allreduce(...)``) with no default that says otherwise."""
    names = {p.name.value for p in params if communicator_default(p.default, info) is not None}
    plain = {p.name.value for p in params if p.default is None}
    for node in every_node(fn.body):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and isinstance(node.func.value, cst.Name) and node.func.value.value in plain \
                and node.func.attr.value in METHODS and node.func.attr.value[:1].isupper():
            names.add(node.func.value.value)
    return names


# The keyword arguments that are integers (ranks, tags)
INTEGER_ARGS = frozenset({"root", "dest", "source", "tag", "sendtag", "recvtag"})


def mpi_method(node: cst.Call, info: ModuleInfo, locals_: frozenset, comms: set[str]) -> Optional[str]:
    """The communicator method ``node`` calls (``Allreduce``), or None."""
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value in METHODS \
            and is_communicator(func.value, info, locals_, comms):
        return func.attr.value
    return None


def is_wait(node: cst.Call, info: ModuleInfo, locals_: frozenset, requests: set[str]) -> bool:
    """``req.Wait()`` of a request, or ``MPI.Request.Waitall([...])``."""
    func = node.func
    if (info.canonical_name(func, locals_) or "") in (f"{MPI_MODULE}.Request.Waitall", f"{MPI_MODULE}.Request.waitall"):
        return True
    return isinstance(func, cst.Attribute) and func.attr.value in ("Wait", "wait") \
        and isinstance(func.value, cst.Name) and func.value.value in requests


def call_type(method: str, arg_type: Optional[Type]) -> Optional[Type]:
    """The type of a communicator method's value."""
    if method in ("Get_rank", "Get_size"):
        return I64
    if method in ("Isend", "Irecv"):
        return REQUEST
    if method in ("allreduce", "bcast"):
        return arg_type
    return None


def buffer_args(method: str) -> list[str]:
    """The parameters of ``method`` that are NumPy buffers."""
    return [name for name, _ in METHODS[method][1] if name in _BUFFERS]


class PyMpi:
    """The communicator methods of mpi4py (a mixin of the Python expression lowerer)."""

    mpi_requests: set[Value]

    def mpi_call(self, node: cst.Call, method: str, b: Builder, env: "Env", want_value: bool) -> Optional[Value]:
        op_name, params = METHODS[method]
        comm = self.mpi_communicator(node.func.value, b, env)  # type: ignore[attr-defined]
        bound = self.mpi_bind(node, method, params)
        at = self.at(b, node)
        if method in ("Get_rank", "Get_size"):
            return self.mpi_query(op_name, comm, at)
        if method in ("allreduce", "bcast"):
            return self.mpi_number(node, method, comm, bound, b, env)
        operands: dict[str, Value] = {"comm": comm}
        counts: dict[str, Value] = {}  # each buffer's length, by role
        attrs: dict = {}
        in_place = False
        for name, arg in bound.items():
            if name == "op":
                attrs["op"] = self.mpi_reduction(arg)
            elif name == "status":
                if not (isinstance(arg, cst.Name) and arg.value == "None"):
                    raise self.fail(arg, f"'{method}': s2sad ignores the status of a receive", hint="pass no status")
            elif name in _BUFFERS:
                role = _BUFFERS[name]
                if role == "send" and self.mpi_in_place(arg):
                    if op_name != "mpi.allreduce":
                        raise self.fail(arg, f"'{method}' with MPI.IN_PLACE is not supported",
                                        hint="pass a buffer on every rank")
                    in_place = True
                    continue
                written = role in CALLS[op_name].writes
                operands[role], counts[role] = self.mpi_buffer(arg, method, written, b, env)
            else:
                role = name if name in CALLS[op_name].roles else _RENAMED.get(name, name)
                operands[role] = self.mpi_integer(arg, name, method, b, env)
        for name, default in params:  # root=0, tag=0 where the call leaves them out
            if name not in bound and type(default) is int:
                role = name if name in CALLS[op_name].roles else _RENAMED.get(name, name)
                operands[role] = build.const(at, default, I64)
        if in_place:
            op_name = "mpi.allreduce_in_place"
            operands["buf"] = operands.pop("recv")
            counts["buf"] = counts.pop("recv")
        if CALLS[op_name].reduces:
            attrs.setdefault("op", "sum")
        if op_name in ("mpi.scatter", "mpi.gather", "mpi.allgather"):  # per rank: the smaller buffer's length
            operands["send_count"] = operands["recv_count"] = counts["recv" if op_name == "mpi.scatter" else "send"]
        elif op_name == "mpi.sendrecv":
            operands["send_count"], operands["recv_count"] = counts["send"], counts["recv"]
        elif counts:
            operands["count"] = counts.get("send") or counts.get("buf") or counts["recv"]
        call = CALLS[op_name]
        made = self.at(b, node).create(op_name, [operands[r] for r in call.roles], [REQUEST] if call.starts else [],
                                       attrs, hints=["req"] if call.starts else None)
        if call.starts:
            self.mpi_started().add(made.result)
            return made.result
        if want_value:
            raise self.fail(node, f"'{method}' gives no value", hint=f"call {method} as a statement of its own")
        return None

    def mpi_started(self) -> set[Value]:
        if not hasattr(self, "mpi_requests"):
            self.mpi_requests = set()
        return self.mpi_requests

    def mpi_bind(self, node: cst.Call, method: str, params) -> dict[str, cst.BaseExpression]:
        """The arguments by parameter name, as mpi4py binds them; a required one missing, or one
        whose default lets the run choose (``source``: MPI.ANY_SOURCE), is a located error."""
        names = [n for n, _ in params]
        bound: dict[str, cst.BaseExpression] = {}
        positional = [a for a in node.args if a.keyword is None]
        if any(a.star for a in node.args) or len(positional) > len(names):
            raise self.fail(node, f"'{method}' takes {len(names)} arguments here: {', '.join(names) or 'none'}")
        for name, a in zip(names, positional):
            bound[name] = a.value
        for a in node.args:
            if a.keyword is not None:
                if a.keyword.value not in names or a.keyword.value in bound:
                    raise self.fail(a, f"'{method}' takes no argument '{a.keyword.value}' here",
                                    hint=f"its parameters: {', '.join(names)}")
                bound[a.keyword.value] = a.value
        for name, default in params:
            if name in bound:
                continue
            if default is None:
                raise self.fail(node, f"'{method}' needs its argument '{name}'")
            if default is _ANY:
                raise self.fail(node, f"'{method}' without '{name}' takes any {name}, which the adjoint cannot "
                                "match in reverse", hint=f"name the {name}: {name}=...")
        return bound

    def mpi_communicator(self, node: cst.BaseExpression, b: Builder, env: "Env") -> Value:
        canonical = self.info.canonical_name(node, self.ctx.locals)  # type: ignore[attr-defined]
        if canonical in COMMUNICATORS:
            name = COMMUNICATORS[canonical]
            return self.at(b, node).op1("global", [], COMM, name.lower(), callee=name, mpi=True)
        v = self.value(node, b, env)  # type: ignore[attr-defined]
        if v.type != COMM:
            raise self.fail(node, f"'{dotted_source(node)}' is not a communicator s2sad can follow",
                            hint="call the methods of MPI.COMM_WORLD, or of a communicator parameter")
        return v

    def mpi_query(self, op_name: str, comm: Value, at: Builder) -> Value:
        """``comm.Get_rank()``: Python's int (C output, which needs C's int, refuses Python's MPI)."""
        return at.op1(op_name, [comm], I64, "rank" if op_name == "mpi.comm_rank" else "size")

    def mpi_attribute(self, node: cst.Attribute, b: Builder, env: "Env") -> Value:
        """``comm.rank``, ``comm.size``."""
        if node.attr.value not in _QUERIES:
            raise self.fail(node, f"the attribute '{node.attr.value}' of a communicator is not supported",
                            hint="use comm.rank, comm.size, or the methods s2sad follows")
        comm = self.mpi_communicator(node.value, b, env)
        return self.mpi_query(METHODS[_QUERIES[node.attr.value]][0], comm, self.at(b, node))

    def mpi_number(self, node: cst.Call, method: str, comm: Value, bound, b: Builder, env: "Env") -> Value:
        """``comm.allreduce(s, op=...)``, ``comm.bcast(s, root=...)`` of a number: an op of values."""
        arg = bound["sendobj" if method == "allreduce" else "obj"]
        v = self.value(arg, b, env)  # type: ignore[attr-defined]
        if v.type.is_array or not (v.type.is_float or v.type.is_int):
            raise self.fail(arg, f"'{method}' of {'an array' if v.type.is_array else 'this value'} is not supported",
                            hint=f"pass a number, or use {method.capitalize()} with NumPy buffers")
        at = self.at(b, node)
        if method == "allreduce":
            op = self.mpi_reduction(bound["op"]) if "op" in bound else "sum"
            return at.op1("mpi.allreduce_value", [comm, v], v.type, op=op)
        root = self.mpi_integer(bound["root"], "root", method, b, env) if "root" in bound else build.const(at, 0, I64)
        return at.op1("mpi.bcast_value", [comm, v, root], v.type)

    def mpi_in_place(self, arg: cst.BaseExpression) -> bool:
        return self.info.canonical_name(arg, self.ctx.locals) == f"{MPI_MODULE}.IN_PLACE"  # type: ignore

    def mpi_reduction(self, arg: cst.BaseExpression) -> str:
        op = _REDUCTIONS.get(self.info.canonical_name(arg, self.ctx.locals) or "")  # type: ignore[attr-defined]
        if op is None:
            raise self.fail(arg, f"s2sad follows the reductions MPI.SUM, MPI.MAX and MPI.MIN, not "
                            f"'{dotted_source(arg) or 'this'}'", hint="reduce with MPI.SUM, MPI.MAX or MPI.MIN")
        return op

    def mpi_integer(self, arg: cst.BaseExpression, name: str, method: str, b: Builder, env: "Env") -> Value:
        """A rank or a tag: an integer, or ``MPI.PROC_NULL``."""
        canonical = self.info.canonical_name(arg, self.ctx.locals)  # type: ignore[attr-defined]
        if canonical in RANK_CONSTANTS:
            return self.mpi_rank_constant(arg, b)
        if canonical in (f"{MPI_MODULE}.ANY_SOURCE", f"{MPI_MODULE}.ANY_TAG"):
            raise self.fail(arg, f"{dotted_source(arg)} leaves the sender to the run, and the adjoint must send back "
                            "to it", hint=f"name the {name}")
        v = self.value(arg, b, env)  # type: ignore[attr-defined]
        if not v.type.is_int:
            raise self.fail(arg, f"the {name} of '{method}' must be an integer")
        return build.cast(self.at(b, arg), v, I64) if v.type != I64 else v

    def mpi_buffer(self, arg: cst.BaseExpression, method: str, written: bool, b: Builder,
                   env: "Env") -> tuple[Value, Value]:
        """A NumPy buffer: the array (a view of it from where a slice starts) and its length; in
        mpi4py's list form, ``[buf, MPI.DOUBLE]`` or ``[buf, count, MPI.DOUBLE]``, the datatype
        checked against the array's and the count taken as given."""
        at = self.at(b, arg)
        if isinstance(arg, (cst.List, cst.Tuple)):
            parts = [e.value for e in arg.elements]
            if len(parts) not in (2, 3) or any(isinstance(e, cst.StarredElement) for e in arg.elements):
                raise self.fail(arg, f"'{method}': s2sad follows a buffer given as [buf, MPI.DOUBLE] or [buf, count, "
                                "MPI.DOUBLE]", hint="pass the array itself")
            buf, count = self.mpi_buffer(parts[0], method, written, b, env)
            self.mpi_datatype(parts[-1], buf, method)
            if len(parts) == 3:
                count = self.mpi_integer(parts[1], "count", method, b, env)
            return buf, count
        if isinstance(arg, cst.Subscript) and isinstance(arg.value, cst.Name) and len(arg.slice) == 1 \
                and isinstance(arg.slice[0].slice, cst.Slice) and arg.slice[0].slice.step is None:
            arr = self.value(arg.value, b, env)  # type: ignore[attr-defined]
            self.mpi_vector(arg, arr, method)
            s = arg.slice[0].slice
            lo = self.mpi_bound(s.lower, arr, b, env) if s.lower is not None else build.const(at, 0, I64)
            hi = self.mpi_bound(s.upper, arr, b, env) if s.upper is not None else _length(arr, at)
            view = arr if build.const_int(lo) == 0 else at.op1("view", [arr, lo], arr.type)
            return view, _span(lo, hi, at)
        if isinstance(arg, cst.Subscript) and isinstance(arg.value, cst.Name) and len(arg.slice) == 1 \
                and isinstance(arg.slice[0].slice, cst.Index):  # u[i] of a 2-D u: its row i
            arr = self.value(arg.value, b, env)  # type: ignore[attr-defined]
            if isinstance(arr.type, ArrayType) and arr.type.rank == 2:
                i = self.mpi_bound(arg.slice[0].slice.value, arr, b, env)
                row = at.op1("view", [arr, i], ArrayType(arr.type.elem, 1))
                return row, _length(arr, at, axis=1)
        if written and not isinstance(arg, cst.Name):
            raise self.fail(arg, f"'{method}' writes this buffer, which must be an array variable, a slice of one "
                            "(u[0:1]) or a row of a 2-D one (u[0])", hint="receive into an array variable")
        arr = self.value(arg, b, env)  # type: ignore[attr-defined]
        self.mpi_vector(arg, arr, method)
        return arr, _length(arr, at)

    def mpi_datatype(self, node: cst.BaseExpression, buf: Value, method: str) -> None:
        """A datatype of mpi4py's buffer lists, which must describe the array's elements."""
        said = self.info.canonical_name(node, self.ctx.locals) or ""  # type: ignore[attr-defined]
        elem = buf.type.elem.name  # type: ignore[attr-defined]
        want = _DATATYPES.get(said.removeprefix(f"{MPI_MODULE}."))
        if want is None:
            raise self.fail(node, f"'{method}': s2sad follows the datatypes {', '.join(_DATATYPES)} of mpi4py, not "
                            f"'{dotted_source(node) or 'this'}'", hint="pass MPI.DOUBLE for an array of float64")
        if want != elem:
            raise self.fail(node, f"'{method}': {dotted_source(node)} does not describe this array, of {elem}",
                            hint="pass the datatype of the array's elements (MPI.DOUBLE for float64)")

    def mpi_rank_constant(self, node: cst.BaseExpression, b: Builder) -> Value:
        """``MPI.PROC_NULL``: a rank the output spells by name."""
        name = RANK_CONSTANTS[self.info.canonical_name(node, self.ctx.locals)]  # type: ignore[attr-defined,index]
        return self.at(b, node).op1("global", [], I64, "mpi_proc_null", callee=name, mpi=True)

    def mpi_bound(self, node: cst.BaseExpression, arr: Value, b: Builder, env: "Env") -> Value:
        v = self.value(node, b, env)  # type: ignore[attr-defined]
        if not v.type.is_int:
            raise self.fail(node, "an index or a slice bound must be an integer")
        v = build.cast(self.at(b, node), v, I64) if v.type != I64 else v
        c = build.const_int(v)
        if c is not None and c < 0:  # u[-1:]: from the end
            return build.add(self.at(b, node), _length(arr, self.at(b, node)), v)
        return v

    def mpi_vector(self, arg: cst.BaseExpression, arr: Value, method: str) -> None:
        t = arr.type
        if not isinstance(t, ArrayType) or t.rank != 1:
            what = "a number" if not isinstance(t, ArrayType) else f"an array of {t.rank} dimensions"
            raise self.fail(arg, f"'{method}': this buffer is {what}; s2sad follows one-dimensional NumPy buffers",
                            hint="pass a one-dimensional array, or a slice of one (u[0:1])")

    def mpi_request_list(self, st: cst.Assign, b: Builder, env: "Env") -> bool:
        """``reqs = [comm.Irecv(...), comm.Isend(...)]``: each call made, and the name bound to their
        requests for ``MPI.Request.Waitall(reqs)`` (no other use of it is followed); False for any
        other assignment."""
        value = st.value
        if not (len(st.targets) == 1 and isinstance(st.targets[0].target, cst.Name)
                and isinstance(value, (cst.List, cst.Tuple)) and value.elements
                and all(isinstance(e.value, cst.Call) and isinstance(e.value.func, cst.Attribute)
                        and e.value.func.attr.value in ("Isend", "Irecv") for e in value.elements)):
            return False
        requests = [self.value(e.value, b, env) for e in value.elements]  # type: ignore[attr-defined]
        if any(r.type != REQUEST for r in requests):
            return False
        name = st.targets[0].target.value  # type: ignore[union-attr]
        self.mpi_lists()[name] = requests
        env[name] = Poison(f"'{name}' holds requests, which s2sad follows only as MPI.Request.Waitall's argument",
                           "pass it to MPI.Request.Waitall, in the block that started them")
        return True

    def mpi_lists(self) -> dict[str, list[Value]]:
        if not hasattr(self, "mpi_request_lists"):
            self.mpi_request_lists: dict[str, list[Value]] = {}
        return self.mpi_request_lists

    def mpi_wait(self, node: cst.Call, b: Builder, env: "Env") -> None:
        """``req.Wait()``, ``MPI.Request.Waitall([r1, r2])``: an ``mpi.wait`` of requests started in
        this block."""
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("Wait", "wait"):
            items = [func.value]
        else:
            args = [a.value for a in node.args]
            listed = self.mpi_lists().get(args[0].value) if len(args) == 1 and isinstance(args[0], cst.Name) else None
            if listed is None and (len(args) != 1 or not isinstance(args[0], (cst.List, cst.Tuple))):
                raise self.fail(node, "MPI.Request.Waitall: s2sad follows a list of requests written out, "
                                "[r1, r2], or a name bound to one", hint="list the requests: "
                                "MPI.Request.Waitall([r1, r2])")
            items = listed if listed is not None else [e.value for e in args[0].elements]  # type: ignore
        at = self.at(b, node)
        requests = []
        for item in items:
            r = item if isinstance(item, Value) else self.value(item, b, env)  # type: ignore[attr-defined]
            if r.type != REQUEST or r not in self.mpi_started():
                raise self.fail(item, "this is not a request that Isend or Irecv started in this function")
            if r.defining_op.parent is not at.block:  # type: ignore[union-attr]
                raise self.fail(item, "this request was started in another block (a loop or a branch this wait is "
                                "not in), which s2sad cannot pair in reverse",
                                hint="start the requests and wait for them in one block, as a halo exchange does")
            requests.append(r)
        at.create("mpi.wait", requests, [])


def _span(lo: Value, hi: Value, at: Builder) -> Value:
    """``hi - lo``, a constant where both are one value plus constants (``u[n:n + 1]``: 1)."""
    (a, c), (b, d) = offset_of(lo), offset_of(hi)
    if a is b:
        return build.const(at, d - c, I64)
    return build.sub(at, hi, lo)


def _length(arr: Value, at: Builder, axis: int = 0) -> Value:
    """The extent of ``arr`` along ``axis``: what made it says (``np.zeros(n)``: ``n``), else
    ``arr.shape[axis]``."""
    made = arr.defining_op
    if made is not None and made.name == "alloc" and len(made.operands) == arr.type.rank:  # type: ignore
        return made.operands[axis]
    return at.op1("dim", [arr], I64, axis=axis)


_DATATYPES = {"DOUBLE": "f64", "FLOAT": "f32", "INT": "i32", "LONG": "i64", "INT64_T": "i64"}
_RENAMED = {"dest": "peer", "source": "peer", "sendtag": "send_tag", "recvtag": "recv_tag"}
