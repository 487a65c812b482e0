"""Structs as they are: scalar replacement of aggregates in the C front end.

A struct value (a parameter ``Wishart w``, a local ``Matrix C``) and a pointer to one
struct whose members are not a run of one floating type (``const Matrix *M`` with
``int rows, cols; double *data;``) are lowered as the bundle of their leaves
(``c_types.Record.leaves``): each number, fixed array and pointer member, however deep in
nested structs, is a variable of its own, keyed ``<struct's key>.<path>`` (``w.gamma``,
``C.pos.x``). So an integer member is an inactive integer, a pointer member is a pointer
variable (``M->data[i * M->cols + j]`` indexes its array), and the rest of the front end,
the IR and reverse mode see nothing new.

What a leaf of a parameter is in the IR (``param_leaves``):

* a number of a struct passed by value, or read through a pointer to a const struct: an IR
  scalar parameter (``value``);
* a number read through a pointer to a struct that may be written (``Particle *p``): an
  array of one element (``cell``), so that ``p->x = ...`` is a store the caller sees and
  ``&p->x`` a pointer to pass on;
* a fixed array or a pointer member: an array parameter (``memory``).

Each function records, in its ``c_aggregates`` attribute, for each such IR parameter (by
name) the C parameter it is part of, that parameter's declared type, the access path and
the leaf's kind: ``{"M_data": ["M", "const Matrix *", "->data", "memory"]}``. The C emitter
declares the parameter once and spells each leaf as its access path (``M->data``), and
reverse mode gives the gradient one shadow struct per struct parameter (``Matrix *d_M``).

A struct passed to another function of the file (``g(w)``, ``g(&C)``, ``g(M)``) is passed as
the leaves of the callee's parameter (``record_argument``); C output then declares that
helper's leaves as parameters of their own (``double w_gamma, int w_m``), its gradient their
shadows, while the function differentiated keeps the user's struct parameters.

The address of a struct held as its members (``&p`` of a local ``Params p``) names those
members: ``Params *q = &p;`` is an alias whose ``q->k`` is ``p.k`` (``address_of``, followed by
the host's ``lookup``); ``f(&p)`` for a helper that takes a pointer to structs of one type (read
as a run of numbers, ``c_structs``) passes a struct of its own filled from the members and, for
a pointer that is not const, read back into them after the call (``record_address_argument``);
``memset(&p, 0, sizeof p)`` and ``memcpy(&p, src, sizeof p)`` set the members one by one
(``struct_memory_call``).

A helper that returns a struct of numbers by value has one value per leaf (``Signature.
result_types``); ``return c;`` and ``Vec3 u = vsub(a, b);`` copy leaf by leaf (``copy_record``,
``record_from_call``). A pointer to one struct malloc'd alone (``Camera *c =
malloc(sizeof(Camera))``) is held as its leaves, as a local struct is.

An array of such structs (a pointer parameter the function indexes, ``CType.each``:
``layers[l].W[i]``) is lowered member by member across the array: each leaf is a pointer
parameter of the IR (``each_leaf_type``: ``int *`` for a number, rows for a fixed array or
pointer member), recorded with the access ``[].W`` (kind ``each``), which C output spells
``layers[l].W``; ``layers[l].W[i]`` reads element ``[l][i]`` of ``layers.W`` (``each_member``).
One struct of it passed on (``&layers[l]``) is its leaves' elements (``each_argument``); the
whole array passed to a function that indexes it is its leaves (``each_array_argument``), and C
output passes the array once (``emit_c.calls``).

Structs with array or pointer members returned, part of an array of structs with pointer
members passed on, and local arrays of them are refused where they are written.
"""

from __future__ import annotations

import functools
import itertools
import math
import re

from dataclasses import dataclass, replace
from typing import Callable, Optional

from pycparser import c_ast

from ..ssa import build
from ..ssa.ir import Builder, Value
from ..ssa.types import I64, Type
from .c_expr import Ptr, node_text
from .c_expr import walk as walk_nodes
from .c_types import CType, Leaf, Member, Record, StructLayout, c_bytes, value_type
from .py_common import RESULT, Env, Fail

VALUE, CELL, MEMORY, EACH = "value", "cell", "memory", "each"


@dataclass(frozen=True)
class ParamLeaf:
    """One IR parameter a struct parameter is lowered to."""

    leaf: Leaf
    kind: str  # VALUE, CELL or MEMORY (see the module's docstring)
    ctype: CType  # the leaf as a variable of the function

    @property
    def ir_type(self) -> Type:
        return value_type(self.ctype) if self.ctype.kind == "scalar" else self.ctype.ir_array


def read_only(t: CType) -> bool:
    """Whether a record's members cannot be assigned: ``const Wishart w``, ``const Matrix *M``."""
    return "const" in t.spelling.split("*")[0].split()


def _may_write(t: CType) -> bool:
    """Whether a callee may write the caller's memory through its parameter of type ``t``: a
    pointer not to ``const`` (a value, a struct passed by value, is the callee's own)."""
    return t.kind == "pointer" and not read_only(t)


def param_leaves(t: CType) -> list[ParamLeaf]:
    """The IR parameters of the struct parameter ``t`` (a record), in member order."""
    assert t.record is not None
    if t.each:
        return [ParamLeaf(leaf, EACH, each_leaf_type(leaf.member, read_only(t))) for leaf in t.record.leaves]
    out = []
    for leaf in t.record.leaves:
        m = leaf.member
        if m.shape == "scalar" and (not t.indirect or read_only(t) or t.record.never_written(leaf.path)):
            out.append(ParamLeaf(leaf, VALUE, CType("scalar", m.scalar, m.spelling)))
        elif m.shape == "scalar":
            out.append(ParamLeaf(leaf, CELL, CType("array", m.scalar, f"{m.spelling} *", (_ONE,))))
        elif m.shape == "array":
            const = "const " if read_only(t) or not t.indirect else ""  # by value: a copy s2sad never writes
            out.append(ParamLeaf(leaf, MEMORY, CType("array", m.scalar, f"{const}{m.spelling} {_rows(m)}",
                                                     (_ONE, *m.dims[1:]))))
        else:
            out.append(ParamLeaf(leaf, MEMORY, CType("pointer", m.scalar, m.spelling)))
    return out


def each_leaf_type(m: Member, const: bool) -> CType:
    """A member across an array of structs (``Ms[i].rows``, ``Ms[i].v[c]``, ``Ms[i].data[j]``), as a
    pointer parameter the front end already reads: a number member an array of numbers (``int *``),
    a fixed array member one of rows of its extent (``double (*)[3]``), a pointer member rows that
    lie anywhere (``double **``). C output spells each element as the member it is (``emit_c``)."""
    q = "const " if const else ""
    if m.shape == "scalar":
        return CType("pointer", m.scalar, f"{q}{m.spelling} *")
    if m.shape == "array":
        return CType("pointer", m.scalar, f"{q}{m.spelling} (*){''.join(f'[{n}]' for n in m.extents)}",
                     (None, *m.dims))
    return CType("pointer", m.scalar, f"{m.spelling}*", (None, None), pointer_rows=True)


def aggregate_entry(name: str, t: CType, pl: ParamLeaf) -> list[str]:
    """What ``c_aggregates`` records of one leaf parameter (see the module's docstring); a member
    across an array of structs has the access ``[].data``: ``Ms[i].data``."""
    access = ("[]." if t.each else "->" if t.indirect else ".") + pl.leaf.path[1:]
    return [name, t.spelling, access, pl.kind]


def _element(n: c_ast.Node, index: tuple[int, ...], where: c_ast.Node) -> c_ast.Node:
    """``n[i][j]...`` at the constant ``index`` (``n`` itself for none), placed at ``where``."""
    for i in index:
        n = c_ast.ArrayRef(n, c_ast.Constant("int", str(i)), coord=where.coord)
    return n


def leaf_hint(name: str, path: str) -> str:
    """The IR name of a leaf: ``w_gamma`` for ``w.gamma``."""
    return name + path.replace(".", "_")


_ONE = c_ast.Constant("int", "1")


def _rows(m: Member) -> str:
    """How a parameter pointing at a fixed array member is declared, its name left out: ``*`` for
    ``double x[3]``, ``(*)[3]`` for the rows of ``double P[3][3]``."""
    return "*" if len(m.extents) == 1 else f"(*){''.join(f'[{n}]' for n in m.extents[1:])}"


class CRecordLowering:
    """Struct values and pointers to one struct, as bundles of leaf variables (a mixin of the
    C function lowerer, which provides the environment, declarations and expressions)."""

    ctypes: dict[str, CType]

    # -- the leaves of a struct variable ------------------------------------------------------
    def record_leaves(self, key: str) -> list[tuple[str, CType]]:
        """The keys and types of the leaf variables of the struct variable ``key`` (of the struct
        it points to, for ``Params *q = &p``: ``p``'s)."""
        key = self.address_of.get(key, key)
        prefix = key + "."
        return [(k, t) for k, t in self.ctypes.items() if k.startswith(prefix)]

    def declare_record(self, name: str, t: CType, node: c_ast.Node, leaves: list[tuple[str, CType]]) -> str:
        """Declare the struct ``name`` and its leaf variables (path, type)."""
        key = self.declare(name, t, node)
        for path, ct in leaves:
            self.register(key + path, leaf_hint(name, path), ct)
        return key

    def bind_record_param(self, name: str, t: CType, node: c_ast.Decl, args: list[Value], b: Builder,
                          env: Env) -> None:
        leaves = param_leaves(t)
        key = self.declare_record(name, t, node, [(pl.leaf.path, pl.ctype) for pl in leaves])
        if t.each:
            self.read_only_leaves[key] = f"points to the caller's array of {t.record.name}, which s2sad " \
                "indexes (moving it is not supported)"
        for pl, arg in zip(leaves, args):
            k = key + pl.leaf.path
            if pl.ctype.kind == "pointer":
                self.bind_pointer(k, Ptr(arg), b, env, node)
            else:
                env[k] = arg
                if pl.ctype.kind == "array" and not t.each:
                    self.note_root(k, arg)  # double (*Q)[3] = s->P; points into it
            if pl.kind == CELL:
                self.record_cells.add(k)
            if t.each:
                self.read_only_leaves[k] = f"is a member of the caller's array of {t.record.name}, which s2sad " \
                    "does not change"
            elif read_only(t):
                self.read_only_leaves[k] = "is a member of a const struct"
            elif not t.indirect and pl.ctype.kind == "array":
                self.read_only_leaves[k] = "is an array member of a struct passed by value (a copy s2sad does not make)"
            elif t.indirect and pl.ctype.kind == "pointer":
                self.read_only_leaves[k] = f"is a pointer member of the caller's {t.record.name}, which s2sad " \
                    "does not point elsewhere"

    # -- naming a member -----------------------------------------------------------------------
    def record_member(self, node: c_ast.Node) -> Optional[str]:
        """The dotted variable name (``w.gamma``, ``M.data``, ``C.pos.x``) of a member of a struct
        variable or of the struct a pointer variable points to; None when ``node`` is no such
        access (a pointer to structs of one floating type, CUDA's ``threadIdx.x``...). A member
        that is itself a struct, or that the struct does not have, is a located error."""
        if not isinstance(node, c_ast.StructRef):
            return None
        each = self.each_member(node)
        if each is not None:
            return each[0]
        names: list[str] = []
        n: c_ast.Node = node
        while isinstance(n, c_ast.StructRef) and n.type == ".":
            names.append(n.field.name)
            n = n.name
        arrow = isinstance(n, c_ast.StructRef)
        if arrow:
            names.append(n.field.name)  # type: ignore[attr-defined]
            n = n.name  # type: ignore[attr-defined]
        elif isinstance(n, c_ast.UnaryOp) and n.op == "*":  # (*p).x
            arrow, n = True, n.expr
        elif isinstance(n, c_ast.ArrayRef):  # p[0].x
            root = self.record_variable(n.name)
            if root is None:
                return None
            if not (isinstance(n.subscript, c_ast.Constant) and n.subscript.value == "0"):
                raise self.fail(n, f"'{node_text(n.name)}' points to one {root[1].record.name} here: "  # type: ignore
                                f"s2sad reads a pointer to a struct of mixed members as one struct",
                                f"write {node_text(n.name)}->{names[-1]}, or keep each member in an array "
                                "of its own")
            arrow, n = True, n.name
        root = self.record_variable(n)
        if root is None:
            return None
        var, t = root
        assert t.record is not None
        if arrow != t.indirect:
            right = "->" if t.indirect else "."
            what = f"a pointer to a {t.record.name}" if t.indirect else f"a {t.record.name} value"
            raise self.fail(node, f"'{var}' is {what}: its members are read with '{right}'",
                            f"write {var}{right}{names[-1]}")
        names.reverse()
        self.check_member_path(node, var, t, names)
        return ".".join([var, *names])

    def check_member_path(self, node: c_ast.Node, var: str, t: CType, names: list[str]) -> None:
        """``names`` lead from the struct to one of its leaves (a number, array or pointer member);
        a located error where a member is missing or the path ends at a whole struct."""
        record: Optional[Record] = t.record
        for k, name in enumerate(names):
            member: Optional[Member] = record.member(name) if record is not None else None
            if record is None or member is None:
                where = f"{var}{'->' if t.indirect else '.'}{'.'.join(names[:k])}"
                owner = record.name if record is not None else where
                hint = f"its members: {', '.join(m.name for m in record.members)}" if record is not None else ""
                raise self.fail(node, f"{owner} has no member '{name}'", hint)
            record = member.sub
        if record is not None:
            raise self.fail(node, f"'{node_text(node)}' is a whole {record.name}, used as a value",
                            "s2sad reads and writes struct members one number at a time")

    def each_member(self, node: c_ast.Node) -> Optional[tuple[str, c_ast.Node]]:
        """``Ms[i].data``, ``(Ms + i)->rows``, ``Ms->rows`` of an array of structs of mixed members
        (``CType.each``): the dotted name of the member across the array (``Ms.data``, a pointer
        parameter of its own) and the index of the struct; None for any other node."""
        names: list[str] = []
        n: c_ast.Node = node
        while isinstance(n, c_ast.StructRef) and n.type == ".":
            names.append(n.field.name)
            n = n.name
        zero = c_ast.Constant("int", "0", coord=node.coord)
        if isinstance(n, c_ast.StructRef):  # Ms->x, (Ms + i)->x
            names.append(n.field.name)
            base, index = n.name, zero
        elif isinstance(n, c_ast.ArrayRef):  # Ms[i].x
            base, index = n.name, n.subscript
        elif isinstance(n, c_ast.UnaryOp) and n.op == "*":  # (*Ms).x, (*(Ms + i)).x
            base, index = n.expr, zero
        else:
            return None
        if isinstance(base, c_ast.BinaryOp) and base.op == "+" and index is zero:
            base, index = base.left, base.right
        root = self.record_variable(base)
        if root is None or not root[1].each or not names:
            return None
        names.reverse()
        self.check_member_path(node, root[0], root[1], names)
        return ".".join([root[0], *names]), index

    def struct_call(self, node: c_ast.Node) -> Optional[Record]:
        """The struct a call of a function of the file returns by value (``vsub(a, b)``), or None
        for any other node."""
        if not (isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID)
                and node.name.name in self.ctx.signatures):
            return None
        result = self.ctx.signatures[node.name.name].result
        return result.record if result.kind == "record" else None

    def call_member(self, node: c_ast.StructRef, b: Builder, env: Env) -> Optional[Value]:
        """``vsub(a, b).x``, ``frame(t).pos.x``: the call made where the expression is, and the one
        number of its struct the member path names; None when ``node`` reads no call's struct."""
        names: list[str] = []
        n: c_ast.Node = node
        while isinstance(n, c_ast.StructRef) and n.type == ".":
            names.append(n.field.name)
            n = n.name
        record = self.struct_call(n)
        if record is None:
            return None
        assert isinstance(n, c_ast.FuncCall)
        path = "".join(f".{name}" for name in reversed(names))
        leaves = [leaf.path for leaf in record.leaves]
        if path not in leaves:
            within = [leaf[len(path) + 1:] for leaf in leaves if leaf.startswith(path + ".")]
            if within:
                raise self.fail(node, f"'{node_text(node)}' is a whole struct, used as a value",
                                f"read one of its numbers: {', '.join(within)}")
            raise self.fail(node.field, f"{record.name} has no member '{path[1:]}'",
                            f"its members: {', '.join(m.name for m in record.members)}")
        args = list(n.args.exprs) if n.args is not None else []
        values = self.user_call_values(n, n.name.name, args, b, env, True)  # type: ignore[attr-defined]
        return values[leaves.index(path)]

    def member_bytes(self, node: c_ast.Node, depth: int) -> Optional[int]:
        """``sizeof`` of what ``depth`` subscripts of the member ``node`` reach (``sizeof s.P``,
        ``sizeof s->P[0]``, ``sizeof bs[i].P``), from the extents its struct declares (a parameter
        pointing at a member does not know them); None for no member of numbers or a fixed array
        of them (a struct, a pointer: refused as before)."""
        names: list[str] = []
        n: c_ast.Node = node
        while isinstance(n, c_ast.StructRef):
            names.append(n.field.name)
            n = n.name
        if isinstance(n, c_ast.ArrayRef):  # bs[i].P: an element of an array of structs
            n = n.name
        elif isinstance(n, c_ast.UnaryOp) and n.op == "*":  # (*p).P
            n = n.expr
        key = self.lookup(n.name) if isinstance(n, c_ast.ID) and names else None
        t = self.ctypes[key] if key is not None else None
        if t is None or (t.record is None and t.layout is None):
            return None
        aggregate: object = t.record if t.record is not None else t.layout
        extents: tuple[int, ...] = ()
        words = ""
        for k, name in enumerate(reversed(names)):
            if isinstance(aggregate, Record):
                m = aggregate.member(name)
                if m is None or m.shape == "pointer":
                    return None
                aggregate, extents, words = m.sub, m.extents, m.spelling
            elif isinstance(aggregate, StructLayout):
                f = aggregate.field(name)
                if f is None or (f.dims and f.sub is not None and k < len(names) - 1):
                    return None  # a member of one of an array of structs: not read here
                aggregate, extents, words = f.sub, f.dims, f.spelling
            else:
                return None
        if aggregate is not None or depth > len(extents):
            return None  # a whole struct (its size is the layout's, read elsewhere), or too many subscripts
        return c_bytes(words.split(), self.ctx.typedefs) * math.prod(extents[depth:])

    def record_variable(self, node: c_ast.Node) -> Optional[tuple[str, CType]]:
        """(name, type) when ``node`` names a struct variable or a pointer variable to one struct."""
        if not isinstance(node, c_ast.ID):
            return None
        key = self.lookup(node.name)
        if key is None or self.ctypes[key].kind != "record":
            return None
        return node.name, self.ctypes[key]

    def as_variable(self, node: c_ast.Node) -> c_ast.Node:
        """A member of a struct variable, as the variable it is lowered to (an ``ID`` named
        ``w.gamma``); a number reached through a pointer to a struct that may be written is
        memory (``p->x``: a cell), and stays as written; any other node too."""
        each = self.each_member(node) if isinstance(node, c_ast.StructRef) else None
        if each is not None:  # Ms[i].data: element i of the member across the array, Ms.data[i]
            return c_ast.ArrayRef(c_ast.ID(each[0], coord=node.coord), each[1], coord=node.coord)
        dotted = self.record_member(node)
        if dotted is None or self.lookup(dotted) in self.record_cells:
            return node
        return c_ast.ID(dotted, coord=node.coord)

    def cell_access(self, node: c_ast.Node, b: Builder, env: Env) -> Optional[tuple[Value, list[Value]]]:
        """``p->x`` of a pointer to a struct that may be written: element 0 of its cell."""
        dotted = self.record_member(node)
        key = self.lookup(dotted) if dotted is not None else None
        if dotted is None or key not in self.record_cells:
            return None
        cell = self.name(c_ast.ID(dotted, coord=node.coord), b, env)
        assert isinstance(cell, Ptr)
        return cell.base, [build.const(self.at(b, node), 0, I64)]

    def member_address(self, node: c_ast.Node, b: Builder, env: Env) -> Optional[Ptr]:
        """``&p->x``: a pointer to the number, which a cell is; None if ``node`` is no member.
        ``&Ms[i].s`` of an array of structs: element ``i`` of the member across the array."""
        if isinstance(node, c_ast.StructRef) and self.each_member(node) is not None:
            return self.pointer(c_ast.UnaryOp("&", self.as_variable(node), coord=node.coord), b, env)
        dotted = self.record_member(node)
        if dotted is None:
            return None
        key = self.lookup(dotted)
        assert key is not None
        if key in self.record_cells:
            cell = self.name(c_ast.ID(dotted, coord=node.coord), b, env)
            assert isinstance(cell, Ptr)
            return cell
        if self.ctypes[key].kind == "scalar":
            raise self.fail(node, f"taking the address of '{node_text(node)}' is not supported here: s2sad "
                            "holds it as a number", f"pass &{node_text(node)} straight to a function of this file "
                            f"(f(&{node_text(node)})), or use the value {node_text(node)}")
        return None

    def check_writable(self, target: c_ast.Node, key: str) -> None:
        why = self.read_only_leaves.get(key)
        if why is not None:
            owner = re.match(r"is a pointer member of the caller's (.+), which", why)  # state_init(&s, n)
            raise self.fail(target, f"'{self.spelled(target)}' cannot be assigned: it {why}",
                            "set it where the struct is declared, or return the struct from a function that "
                            f"makes it ({owner.group(1)} s = make(...))" if owner else
                            "copy it into a local variable or array first")

    def spelled(self, node: c_ast.Node) -> str:
        """``node`` as the user wrote it: a member's variable ``M.data`` is ``M->data``."""
        text = node_text(node)
        root, dot, rest = text.partition(".")
        key = self.lookup(root) if dot and isinstance(node, c_ast.ID) else None
        if key is not None and self.ctypes[key].indirect:
            return f"{root}->{rest}"
        return text

    # -- whole structs ---------------------------------------------------------------------------
    def local_record(self, d: c_ast.Decl, t: CType, b: Builder, env: Env) -> None:
        """``Matrix C;``, ``Wishart w = {1.0, 3};``, ``Vec3 v = *p;``: the leaves as locals (a fixed
        array member a local array)."""
        assert t.record is not None
        element = self.each_element(d.init, t) if t.indirect and d.init is not None else None
        if element is not None:
            self.each_pointer(d, t, element[0], element[1], b, env)
            return
        if t.indirect and (self.address_alias(d, t) or self.alias_record(d, t, b, env)):
            return
        heap = self.one_struct_allocation(d, t) if t.indirect and d.init is not None else None
        if heap is not None:  # Camera *c = malloc(sizeof(Camera)): the struct's members, as locals
            key = self.declare_record(d.name, t, d, self.local_leaf_types(t.record))
            self.heap_records.add(key)
            self.read_only_leaves[key] = f"holds the one {t.record.name} it was allocated with"
            self.local_leaves(d, key, t.record, heap == "calloc", heap == "calloc", b, env)
            return
        if t.indirect:
            raise self.fail(d, f"local pointers to {t.record.name} are not supported",
                            f"use the struct itself (a local {t.record.name}, or the parameter) and its "
                            "members")
        key = self.declare_record(d.name, t, d, self.local_leaf_types(t.record))
        self.local_leaves(d, key, t.record, d.init is not None, False, b, env)
        if isinstance(d.init, c_ast.InitList):
            self.init_record(d.name, t.record, "", d.init, b, env)
        elif d.init is not None:
            self.copy_record(d.name, t, d.init, b, env)

    def each_pointer(self, d: c_ast.Decl, t: CType, var: str, index: c_ast.Node, b: Builder, env: Env) -> None:
        """``const Layer *L = &layers[l];`` (or ``layers + l``): a pointer to one struct of an array
        of them, read ``L->W[i]``; each of its members is the member across the array from struct
        ``l`` on (``L.W`` points at row ``l`` of ``layers.W``), so it names the caller's memory."""
        assert t.record is not None
        mine = replace(t, each=True)
        leaves = [(leaf.path, each_leaf_type(leaf.member, read_only(t))) for leaf in t.record.leaves]
        key = self.declare_record(d.name, mine, d, leaves)
        self.read_only_leaves[key] = f"points to one {t.record.name} of '{var}' from its declaration on"
        i = self.integer(index, b, env, "an index")
        for path, _ in leaves:
            p = self.pointer(c_ast.ID(var + path, coord=d.coord), b, env)
            off = i if p.off is None else build.add(self.at(b, d), p.off, i)
            self.bind_pointer(key + path, Ptr(p.base, off, p.layout), b, env, d)
            self.read_only_leaves[key + path] = f"is a member of the array of {t.record.name} '{var}', which " \
                "s2sad does not change"

    def address_alias(self, d: c_ast.Decl, t: CType) -> bool:
        """``Params *q = &p;`` (``const Matrix *N = &C;``, or ``= q`` of such a pointer) of a struct
        s2sad holds as its members (a local, or a parameter passed by value): ``q->k`` names
        ``p.k`` itself (``lookup`` follows ``address_of``), so a store through either is seen
        through both. ``t`` is the declared pointer, to structs of mixed members (a record) or
        to structs of one type (a pointer with a layout). False where ``d`` is no such pointer."""
        source = d.init.expr if isinstance(d.init, c_ast.Cast) else d.init
        inner = source.expr if isinstance(source, c_ast.UnaryOp) and source.op == "&" else None
        root = self.record_variable(inner if inner is not None else source) if source is not None else None
        if root is None:
            return False
        key = self.lookup(root[0])
        assert key is not None
        held = not root[1].indirect and not root[1].each if inner is not None else key in self.address_of
        name = t.record.name if t.record is not None else t.layout.name if t.layout is not None else None
        if not held or root[1].record is None or root[1].record.name != name:
            return False
        target = self.address_of.get(key, key)
        mine = self.declare(d.name, CType("record", None, t.spelling, record=root[1].record, indirect=True), d)
        self.address_of[mine] = target
        self.read_only_leaves[mine] = f"points to the {name} '{self.hints.get(target, root[0])}' from its " \
            "declaration on"
        return True

    def pointer_to_one_struct(self, d: c_ast.Decl, t: CType, b: Builder, env: Env) -> bool:
        """A local pointer to structs of one type (``t``: ``Params *q``, ``Sys *t``, read as a run of
        numbers where it walks an array of them) set to one struct s2sad holds as members:
        ``address_alias`` of a local, ``alias_record`` of a pointer parameter to one struct.
        False where ``d`` is neither."""
        if self.address_alias(d, t):
            return True
        record = self.ctx.structs.records.get(t.layout.name) if self.ctx.structs is not None else None  # type: ignore
        if record is None:
            return False
        return self.alias_record(d, CType("record", None, t.spelling, record=record, indirect=True), b, env)

    def const_alias(self, var: str) -> bool:
        """Whether ``var`` is a pointer to a const struct s2sad holds as members: ``const Params *q = &p``."""
        key = self.lookup(var)
        return key is not None and key in self.address_of and read_only(self.ctypes[key])

    def alias_record(self, d: c_ast.Decl, t: CType, b: Builder, env: Env) -> bool:
        """``const Matrix *N = M;`` of a pointer parameter to one struct: ``N`` names the same
        leaves (the same numbers, cells and arrays: nothing of a parameter's struct is a local
        s2sad updates, so the two cannot drift apart). False where ``d`` is no such pointer."""
        source = d.init.expr if isinstance(d.init, c_ast.Cast) else d.init
        root = self.record_variable(source) if source is not None else None
        if root is None or not root[1].indirect or root[1].each or root[1].record is None \
                or root[1].record.name != t.record.name:  # type: ignore[union-attr]
            return False
        key = self.lookup(root[0])
        assert key is not None
        leaves = self.record_leaves(key)
        if key in self.heap_records or any(ct.kind == "scalar" and k not in self.record_cells and k not in
                                           self.read_only_leaves for k, ct in leaves):
            raise self.fail(d, f"a second pointer to the {t.record.name} '{root[0]}' is not supported: s2sad "
                            "holds its numbers as values of its own", f"use {root[0]} itself")
        mine = self.declare_record(d.name, t, d, [(k[len(key):], ct) for k, ct in leaves])
        self.read_only_leaves[mine] = f"points to the {t.record.name} '{root[0]}' from its declaration on"
        for k, ct in leaves:
            alias = mine + k[len(key):]
            if ct.kind == "pointer":
                self.bind_pointer(alias, Ptr(env[k], env.get(k + "@")), b, env, d)  # type: ignore
            else:
                env[alias] = env[k]
            if k in self.record_cells:
                self.record_cells.add(alias)
            if k in self.read_only_leaves:
                self.read_only_leaves[alias] = self.read_only_leaves[k]
        return True

    @staticmethod
    def local_leaf_types(record: Record) -> list[tuple[str, CType]]:
        """The leaves of a struct held as locals (path, type): numbers, fixed arrays and pointers."""
        types = []
        for leaf in record.leaves:
            m = leaf.member
            types.append((leaf.path, CType(m.shape, m.scalar, m.spelling, m.dims)))
        return types

    def local_leaves(self, d: c_ast.Decl, key: str, record: Record, zero_arrays: bool, zero_numbers: bool,
                     b: Builder, env: Env) -> None:
        """Each fixed array member of a struct held as locals: a local array (zero-filled where
        ``zero_arrays``). A number member has no value until one is stored, unless ``zero_numbers``
        (calloc's)."""
        for leaf, (path, ct) in zip(record.leaves, self.local_leaf_types(record)):
            if ct.kind == "array":
                extents = [build.const(b, n, I64) for n in leaf.member.extents]
                env[key + path] = self.at(b, d).op1(
                    "alloc", extents, ct.ir_array, leaf_hint(d.name, path),
                    fill="zeros" if zero_arrays else "empty", elem=ct.scalar.name)  # type: ignore[union-attr]
                self.note_root(key + path, env[key + path])  # double (*Q)[3] = s.P; points into it
            elif ct.kind == "scalar" and zero_numbers:
                self.store(c_ast.ID(key + path, coord=d.coord), build.const(self.at(b, d), 0, value_type(ct)), b,
                           env, d)

    def one_struct_allocation(self, d: c_ast.Decl, t: CType) -> Optional[str]:
        """``malloc(sizeof(Camera))``, ``calloc(1, sizeof(Camera))`` (cast or not) initializing a
        pointer to one struct of mixed members: the allocating function's name; None otherwise."""
        assert t.record is not None
        call = d.init.expr if isinstance(d.init, c_ast.Cast) else d.init
        if not (isinstance(call, c_ast.FuncCall) and isinstance(call.name, c_ast.ID)
                and call.name.name in ("malloc", "calloc") and call.args is not None):
            return None
        args = list(call.args.exprs)
        if call.name.name == "calloc" and len(args) == 2 and isinstance(args[0], c_ast.Constant) \
                and args[0].value == "1":
            size = args[1]
        elif call.name.name == "malloc" and len(args) == 1:
            size = args[0]
        else:
            raise self.fail(call, f"a {t.record.name} of mixed members is allocated one at a time here",
                            f"write {call.name.name}({'1, ' if call.name.name == 'calloc' else ''}sizeof("
                            f"{t.record.name})), or keep each member in an array of its own")
        if isinstance(size, c_ast.BinaryOp) and size.op == "*":
            raise self.fail(size, f"arrays of {t.record.name} on the heap are not supported yet: its members are "
                            "not all numbers of one type", f"allocate one {t.record.name} at a time, "
                            f"malloc(sizeof({t.record.name})), or keep each member in an array of its own")
        if not (isinstance(size, c_ast.UnaryOp) and size.op == "sizeof"):
            raise self.fail(size, f"the size of one {t.record.name} is sizeof({t.record.name})",
                            f"write sizeof({t.record.name})")
        named = size.expr
        inner = named.type.type if isinstance(named, c_ast.Typename) and isinstance(named.type, c_ast.TypeDecl) \
            else None
        star = named.expr if isinstance(named, c_ast.UnaryOp) and named.op == "*" else None
        same = (inner is not None and self.ctx.structs is not None and
                getattr(self.ctx.structs.record(inner), "name", None) == t.record.name) or \
            (isinstance(star, c_ast.ID) and star.name == d.name)  # malloc(sizeof(*c))
        if not same:
            raise self.fail(size, f"this is not the size of a {t.record.name}", f"write sizeof({t.record.name})")
        return call.name.name

    def init_record(self, var: str, record: Record, path: str, init: c_ast.InitList, b: Builder, env: Env) -> None:
        """``= {1.0, 3, {0}}``, ``= {.gamma = 1.0}``: each member given, in order or by name; the
        ones not given are zero, as in C."""
        given: dict[str, c_ast.Node] = {}
        position = 0
        for e in init.exprs:
            if isinstance(e, c_ast.NamedInitializer):
                if len(e.name) != 1 or not isinstance(e.name[0], c_ast.ID) or record.member(e.name[0].name) is None:
                    raise self.fail(e, f"'{node_text(e)}' does not name a member of {record.name}")
                name = e.name[0].name
                position = [m.name for m in record.members].index(name)
                given[name], position = e.expr, position + 1
                continue
            if position >= len(record.members):
                raise self.fail(e, f"too many initializers for {record.name}")
            given[record.members[position].name] = e
            position += 1
        for m in record.members:
            dotted = f"{var}{path}.{m.name}"
            e = given.get(m.name)
            if m.sub is not None:
                if e is not None and not isinstance(e, c_ast.InitList):
                    raise self.fail(e, f"initialize the member '{m.name}' with braces: {{...}}")
                self.init_record(var, m.sub, f"{path}.{m.name}", e or c_ast.InitList([]), b, env)
            elif m.shape == "array":
                if e is None:
                    continue
                if not isinstance(e, c_ast.InitList):
                    raise self.fail(e, f"initialize the array member '{m.name}' with braces: {{...}}")
                arr = env[self.lookup(dotted)]  # type: ignore[index]
                for index, x in self.init_entries(e, len(m.extents), []):  # type: ignore[attr-defined]
                    if any(i >= n for i, n in zip(index, m.extents)):
                        raise self.fail(x, f"more initializers than the array member '{m.name}' of {record.name} "
                                        f"holds ({'x'.join(map(str, m.extents))})", "initialize it with at most "
                                        f"{' x '.join(map(str, m.extents))} numbers" + (", row by row in braces of "
                                                                                       "their own" if len(m.extents) > 1
                                                                                       else ""))
                    v = self.number(self.scalar(x, b, env), self.at(b, x))
                    self.at(b, x).create("store", [arr, *(build.const(b, i, I64) for i in index),
                                                   self.convert(v, m.scalar, b)], [])
            elif m.shape == "pointer":
                if e is not None and not is_null_pointer(e):
                    self.assign_pointer(c_ast.ID(dotted, coord=e.coord), e, b, env)
            else:
                value = e if e is not None else c_ast.Constant("int", "0", coord=init.coord)
                self.store(c_ast.ID(dotted, coord=value.coord), self.scalar(value, b, env), b, env, value)

    def copy_record(self, var: str, t: CType, source: c_ast.Node, b: Builder, env: Env,
                    into: Optional[c_ast.Node] = None) -> None:
        """``C = D``, ``Vec3 v = *p``: every leaf copied, a fixed array member element by element
        (``double P[3][3]``: nine stores), as C copies it (``into``: see ``leaf_target``)."""
        assert t.record is not None
        if isinstance(source, c_ast.FuncCall) and isinstance(source.name, c_ast.ID) \
                and source.name.name in self.ctx.signatures:
            self.record_from_call(var, t, source, b, env, into)
            return
        source = self.struct_in_memory(source)
        inner = source.expr if isinstance(source, c_ast.UnaryOp) and source.op == "*" else source
        root = self.record_variable(inner)
        element = self.run_element(source, t)
        if element is not None:  # vec3 a = v[i]: struct i of a run of them, member by member
            member = functools.partial(_member_of, element, ".")
        elif root is None or root[1].record is not t.record or root[1].indirect != (inner is not source):
            raise self.fail(source, f"a {t.record.name} can be initialized or assigned from another "
                            f"{t.record.name} variable (or *p, or an element v[i] of an array of them) or with "
                            "braces only")
        else:
            member = functools.partial(_member_node, root[0], "->" if root[1].indirect else ".")
        for leaf in t.record.leaves:
            node = member(leaf.path, source)
            if var == RESULT:  # return c; each number is one of the function's values
                v = self.number(self.scalar(node, b, env), self.at(b, source))
                env[RESULT + leaf.path] = self.convert(v, leaf.member.scalar, b)
                continue
            target = self.leaf_target(var, t, leaf.path, source, into)
            if leaf.member.shape == "array":  # C copies the elements: so does s2sad, one by one
                for index in itertools.product(*(range(n) for n in leaf.member.extents)):
                    self.store(_element(target, index, source), self.scalar(_element(node, index, source), b, env),
                               b, env, source)
                continue
            if leaf.member.shape == "pointer":
                self.assign_pointer(target, node, b, env)
            else:
                self.store(target, self.scalar(node, b, env), b, env, source)

    def record_from_call(self, var: str, t: CType, call: c_ast.FuncCall, b: Builder, env: Env,
                         into: Optional[c_ast.Node] = None) -> None:
        """``Complex w = cmul(a, b);``, ``acc = cmul(acc, w);``, ``return cmul(a, b);``: a function of
        the file that returns a struct by value gives one value per number leaf, stored into the
        leaves of ``var`` (RESULT's, for a return)."""
        assert t.record is not None
        name = call.name.name  # type: ignore[attr-defined]
        result = self.ctx.signatures[name].result
        if result.kind != "record" or result.record is None or result.record.name != t.record.name:
            raise self.fail(call, f"'{name}' does not return a {t.record.name}",
                            f"assign a {t.record.name} from a function that returns one")
        args = list(call.args.exprs) if call.args is not None else []
        for leaf, v in zip(t.record.leaves, self.user_call_values(call, name, args, b, env, True)):
            if var == RESULT:
                env[var + leaf.path] = v
            else:
                self.store(self.leaf_target(var, t, leaf.path, call, into), v, b, env, call)

    def leaf_target(self, var: str, t: CType, path: str, where: c_ast.Node,
                    into: Optional[c_ast.Node] = None) -> c_ast.Node:
        """What a store into the leaf ``path`` of the struct ``var`` writes: the variable it is
        lowered to (``w.gamma``); through a pointer to one struct (``*out = ...``), the member
        where it is held (``out->x``); ``into`` an element of a run of structs (``out[0]``), its
        member (``out[0].x``)."""
        if into is not None:
            return _member_of(into, ".", path, where)
        if not t.indirect:
            return c_ast.ID(var + path, coord=where.coord)
        return self.as_variable(_member_node(var, "->", path, where))

    def record_value_type(self, node: c_ast.Node) -> Optional[CType]:
        """The struct type of the value ``node`` is: a struct variable's, ``*p``'s of a pointer to
        one struct, or a call's of a function of the file that returns a struct; else None."""
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
                and node.name.name in self.ctx.signatures:
            result = self.ctx.signatures[node.name.name].result
            return result if result.kind == "record" and result.record is not None else None
        inner = node.expr if isinstance(node, c_ast.UnaryOp) and node.op == "*" else node
        found = self.record_variable(inner)
        if found is None or found[1].indirect != (inner is not node):
            return None
        return found[1]

    def copy_into_element(self, element: c_ast.Node, t: CType, source: c_ast.Node, b: Builder, env: Env) -> None:
        """``*out = v`` or ``out[i] = scale(a, 2.0)`` of a pointer to a run of structs: the value,
        a struct variable of that type or a call returning one, stored member by member."""
        self.copy_record("", t, source, b, env, into=element)

    def record_value_error(self, node: c_ast.Node, t: CType) -> Fail:
        assert t.record is not None
        if t.each:
            name = node_text(node)
            first = t.record.members[0].name
            return self.fail(node, f"'{name}' points to an array of {t.record.name}, used here as a value "
                             f"(moving it, {name}++, is not supported either)",
                             f"read one struct's members, {name}[i].{first}, or point a local at one struct: "
                             f"const {t.record.name} *p = &{name}[i];")
        what = f"a pointer to {t.record.name}" if t.indirect else f"a whole {t.record.name}"
        return self.fail(node, f"'{node_text(node)}' is {what}, used as a value",
                         "s2sad reads and writes struct members one at a time (w.gamma, M->data[i]); "
                         "a struct can be assigned to another variable of its type")

    def check_target(self, target: c_ast.Node) -> None:
        """A store into ``target`` (a member, or an element of an array member) is allowed."""
        base = target
        while isinstance(base, c_ast.ArrayRef):
            base = base.name
        var = self.as_variable(base) if isinstance(base, c_ast.StructRef) else base
        key = self.lookup(var.name) if isinstance(var, c_ast.ID) else None
        if key is not None and self.const_alias(var.name.split(".", 1)[0]):
            raise self.fail(target, f"'{self.spelled(target)}' cannot be assigned: '{var.name.split('.', 1)[0]}' "
                            "points to a const struct", "assign the member through the struct itself, or "
                            "declare the pointer without const")
        if key is not None and base is not target and self.ctypes[key].kind == "pointer":
            return  # M->data[i] = ...: memory the member points at, writable even in a const Matrix
        if key is not None:
            self.check_writable(target, key)

    # -- a struct passed to a function of the file -------------------------------------------
    def record_argument(self, a: c_ast.Node, t: CType, callee: str, b: Builder, env: Env) \
            -> tuple[list[Value], list[Callable[[Builder], None]]]:
        """The IR arguments a struct argument is (one per leaf of the callee's parameter ``t``, as
        ``param_leaves`` lowers it: ``g(w)``, ``g(&C)``, ``g(M)``, ``g(*p)``), and what to do after
        the call: a number member the callee may write (a cell) of a struct the caller holds as
        numbers is passed in a cell of its own and read back from it (copy in, copy out)."""
        assert t.record is not None
        if t.each:
            return self.each_array_argument(a, t, callee, b, env), []
        given, a = a, self.struct_in_memory(a)
        inner, op = (a.expr, a.op) if isinstance(a, c_ast.UnaryOp) and a.op in ("&", "*") else (a, "")
        root = self.record_variable(inner)
        # a pointer parameter takes &v or a pointer p; a struct parameter takes v or *p
        forms = {(True, "&", False), (True, "", True), (False, "", False), (False, "*", True)}
        returned = self.struct_call(a)
        if returned is not None and not t.indirect:  # cross(vsub(b, a), v): the call's numbers, passed on
            if returned.name != t.record.name:
                raise self.fail(a, f"'{callee}' expects a {t.record.name} here, and '{node_text(a.name)}' "
                                f"returns a {returned.name}", f"pass a {t.record.name}")
            args = list(a.args.exprs) if a.args is not None else []
            values = self.user_call_values(a, a.name.name, args, b, env, True)
            # (a struct returned by value holds numbers only, so each leaf is one: VALUE)
            return [self.convert(v, value_type(pl.ctype), b) for v, pl in zip(values, param_leaves(t))], []
        element = self.each_element(a, t)
        if element is not None:  # &Ms[i], Ms + i, Ms[i] of an array of such structs
            return self.each_argument(element[0], element[1], t, callee, a, b, env), []
        run = None if t.indirect else self.run_element(a, t)
        if run is not None and all(pl.kind == VALUE or pl.ctype.kind == "array" for pl in param_leaves(t)):
            values = []  # vdot(v[i], *p): its numbers, and its array members where they lie (tr(*p))
            for pl in param_leaves(t):
                member = _member_of(run, ".", pl.leaf.path, a)
                if pl.kind == VALUE:
                    v = self.number(self.scalar(member, b, env), self.at(b, a))
                    values.append(self.convert(v, value_type(pl.ctype), b))
                elif len(pl.leaf.member.extents) > 1:  # read only (a copy C makes): no copy back
                    values.append(self.member_rows(member, pl.ctype, callee, b, env, []))  # type: ignore
                else:
                    values.append(self.array_argument(member, self.pointer(member, b, env), pl.ctype,  # type: ignore
                                                      callee, b))
            return values, []
        if root is None or root[1].record is None or root[1].record.name != t.record.name \
                or (t.indirect, op, root[1].indirect) not in forms:
            want = ("a pointer to a " if t.indirect else "a ") + t.record.name
            if given is not a:
                raise self.fail(given, f"'{callee}' expects {want} here, and '{node_text(given)}' is held in memory "
                                "(a pointer moves to it and from it): s2sad passes it by its address only",
                                f"pass &{node_text(given)} to a parameter {t.record.name} *, or its members")
            raise self.fail(a, f"'{callee}' expects {want} here",
                            f"pass a {t.record.name} variable" + (" by its address (&v), or a pointer to one"
                                                                 if t.indirect else ", or *p of a pointer to one"))
        var, have = root
        arrow = "->" if have.indirect else "."
        values: list[Value] = []
        after: list[Callable[[Builder], None]] = []
        for pl in param_leaves(t):
            member = _member_node(var, arrow, pl.leaf.path, a)
            if pl.kind == VALUE:
                v = self.number(self.scalar(member, b, env), self.at(b, a))
                values.append(self.convert(v, value_type(pl.ctype), b))
            elif pl.kind == CELL:
                values.append(self.cell_argument(member, pl, b, env, after))
            else:
                p = self.pointer(member, b, env)
                values.append(self.array_argument(member, p, pl.ctype, callee, b))
        return values, after

    def struct_in_memory(self, node: c_ast.Node) -> c_ast.Node:
        """``sa`` of a struct held in memory (``c_lower.struct_run``) read whole: the one struct of its
        run, ``sa[0]`` (read as any element of a run is); any other node as it is."""
        if isinstance(node, c_ast.ID) and self.lookup(node.name) in self.struct_runs:  # type: ignore[attr-defined]
            return c_ast.ArrayRef(node, c_ast.Constant("int", "0", coord=node.coord), coord=node.coord)
        return node

    def run_element(self, a: c_ast.Node, t: CType) -> Optional[c_ast.Node]:
        """``v[i]``, ``*p`` or ``*(v + i)`` of a pointer to (or an array of) structs of ``t``'s type
        whose members are all one type (a run of scalars, ``StructLayout``): the element ``v[i]``,
        whose members ``v[i].x`` are read as any; None where ``a`` is no such struct."""
        if isinstance(a, c_ast.ArrayRef):
            base, element = a.name, a
        elif isinstance(a, c_ast.UnaryOp) and a.op == "*":
            base, index = a.expr, c_ast.Constant("int", "0", coord=a.coord)
            if isinstance(base, c_ast.BinaryOp) and base.op == "+":
                base, index = base.left, base.right
            element = c_ast.ArrayRef(base, index, coord=a.coord)
        else:
            return None
        key = self.lookup(base.name) if isinstance(base, c_ast.ID) else None
        layout = self.ctypes[key].layout if key is not None else None
        if layout is None or t.record is None or layout.name != t.record.name:
            return None
        return element

    def each_element(self, a: c_ast.Node, t: CType) -> Optional[tuple[str, c_ast.Node]]:
        """The array of structs and the index of the one struct the argument ``a`` passes for the
        struct parameter ``t``: ``&Ms[i]``, ``Ms + i`` and ``Ms`` for a pointer, ``Ms[i]`` and
        ``*(Ms + i)`` for a value; None where ``a`` is no such struct."""
        zero = c_ast.Constant("int", "0", coord=a.coord)
        if t.indirect and isinstance(a, c_ast.UnaryOp) and a.op == "&" and isinstance(a.expr, c_ast.ArrayRef):
            base, index = a.expr.name, a.expr.subscript
        elif t.indirect and isinstance(a, c_ast.BinaryOp) and a.op == "+":
            base, index = a.left, a.right
        elif t.indirect:
            base, index = a, zero
        elif isinstance(a, c_ast.ArrayRef):
            base, index = a.name, a.subscript
        elif isinstance(a, c_ast.UnaryOp) and a.op == "*":
            base, index = a.expr, zero
            if isinstance(base, c_ast.BinaryOp) and base.op == "+":
                base, index = base.left, base.right
        else:
            return None
        root = self.record_variable(base)
        if root is None or not root[1].each:
            return None
        if root[1].record is not t.record and root[1].record.name != t.record.name:  # type: ignore[union-attr]
            raise self.fail(a, f"'{node_text(a)}' is a {root[1].record.name}, and a "  # type: ignore[union-attr]
                            f"{t.record.name} is expected here", f"pass a {t.record.name}")  # type: ignore[union-attr]
        return root[0], index

    def each_array_argument(self, a: c_ast.Node, t: CType, callee: str, b: Builder, env: Env) -> list[Value]:
        """``forward(layers, nl, x)``: an array of structs of mixed members passed whole to a
        function that indexes it: the caller's member across the array for each of the callee's
        (C output passes the array, ``layers``, once). Only the array as the caller has it."""
        assert t.record is not None
        root = self.record_variable(a)
        whole = root is not None and root[1].each and root[1].record is not None \
            and root[1].record.name == t.record.name
        values: list[Value] = []
        for pl in param_leaves(t) if whole else []:
            p = self.pointer(c_ast.ID(root[0] + pl.leaf.path, coord=a.coord), b, env)  # type: ignore[index]
            if p.off is not None and build.const_value(p.off) != 0:
                whole = False
                break
            values.append(p.base)
        if not whole:
            raise self.fail(a, f"'{callee}' takes an array of {t.record.name}: s2sad passes one on only as the "
                            f"array parameter itself", f"pass the {t.record.name} array the function was given, "
                            "or pass one struct at a time (&Ms[i]) to a function that takes a pointer to one")
        return values

    def const_array_member(self, node: c_ast.Node) -> bool:
        """Whether ``node`` (as ``as_variable`` gives it) is a number member of one struct of a
        const array of them at a simple index (``layers[l].n_out`` of a ``const Layer *layers``):
        the same number wherever a loop bound reads it, as a const struct's member is."""
        if not (isinstance(node, c_ast.ArrayRef) and isinstance(node.name, c_ast.ID)
                and self.is_simple(node.subscript)):
            return False
        key, root = self.lookup(node.name.name), self.lookup(node.name.name.split(".")[0])
        if key is None or root is None or not self.ctypes[root].each or not read_only(self.ctypes[root]):
            return False
        leaf = self.ctypes[key]
        return leaf.kind == "pointer" and not leaf.dims and leaf.scalar is not None and leaf.scalar.is_int

    def unwritten_member(self, node: c_ast.Node, body: c_ast.Node, env: Env) -> bool:
        """Whether ``node`` is an integer member of a struct that may be written, held in a cell
        (``s->n`` of a ``Sys *s``), which nothing in the loop ``body`` can write: no assignment
        or increment of the member through any pointer to that struct, no call given anything
        that mentions such a pointer, and no address of a member of that name taken anywhere
        in the function (a pointer that could write it inside the loop). Then a loop bounded
        by it is counted, as one bounded by a const struct's member is."""
        if not isinstance(node, c_ast.StructRef):
            return False
        try:
            dotted = self.record_member(node)
        except Fail:
            return False
        key = self.lookup(dotted) if dotted is not None else None
        if key is None or key not in self.record_cells or not self.ctypes[key].scalar.is_int:  # type: ignore
            return False
        cell = env.get(key)
        if not isinstance(cell, Value):
            return False
        field = node.field.name
        for n in walk_nodes(self.fn.body):
            if isinstance(n, c_ast.UnaryOp) and n.op == "&" and isinstance(n.expr, c_ast.StructRef) \
                    and n.expr.field.name == field:
                return False

        # Pointers the body declares are not declared yet: any of them may point to the struct.
        inside = {d.name for d in walk_nodes(body) if isinstance(d, c_ast.Decl) and isinstance(d.type, c_ast.PtrDecl)}

        def holds_cell(n: c_ast.Node) -> bool:
            """Whether ``n`` mentions a struct variable whose leaves include the cell."""
            for m in walk_nodes(n):
                if isinstance(m, c_ast.ID) and m.name in inside:
                    return True
                root = self.record_variable(m) if isinstance(m, c_ast.ID) else None
                if root is not None and any(env.get(k) is cell for k, _ in self.record_leaves(self.lookup(m.name))):  # type: ignore
                    return True
            return False
        for n in walk_nodes(body):
            target = n.lvalue if isinstance(n, c_ast.Assignment) else \
                n.expr if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--") else None
            while isinstance(target, c_ast.ArrayRef):
                target = target.name
            if isinstance(target, c_ast.StructRef):  # s->x = ...: writes n only if it names it
                try:
                    written = self.record_member(target)
                except Fail:
                    return False
                if written is None or env.get(self.lookup(written) or "") is cell:
                    return False
            elif target is not None and holds_cell(target):
                return False
            if isinstance(n, c_ast.FuncCall) and n.args is not None and any(holds_cell(a) for a in n.args.exprs):
                return False
        return True

    def each_argument(self, var: str, index: c_ast.Node, t: CType, callee: str, a: c_ast.Node, b: Builder,
                      env: Env) -> list[Value]:
        """The callee's leaves of the struct ``var[index]`` of an array of them: a number read, an
        array member or a pointer member the row of its array across the structs (``Ms[i].data``),
        and a number the callee may write the element of its array (``&Ms[i].x``)."""
        values: list[Value] = []
        for pl in param_leaves(t):
            names = pl.leaf.path[1:].split(".")
            member: c_ast.Node = c_ast.ArrayRef(c_ast.ID(var, coord=a.coord), index, coord=a.coord)
            for name in names:
                member = c_ast.StructRef(member, ".", c_ast.ID(name), coord=a.coord)
            if pl.kind == VALUE:
                v = self.number(self.scalar(member, b, env), self.at(b, a))
                values.append(self.convert(v, value_type(pl.ctype), b))
                continue
            if pl.kind == CELL:
                member = c_ast.UnaryOp("&", self.as_variable(member), coord=a.coord)
            p = self.pointer(member, b, env)
            values.append(self.array_argument(member, p, pl.ctype, callee, b))
        return values

    def cell_argument(self, member: c_ast.Node, pl: ParamLeaf, b: Builder, env: Env,
                      after: list[Callable[[Builder], None]]) -> Value:
        """A number member the callee may write: the caller's cell (``p->x`` of its own writable
        struct pointer), or a new one holding the member's value, read back after the call."""
        return self.number_cell(member, pl.leaf.member.scalar, pl.leaf.member.spelling, b, env, after)  # type: ignore

    def member_address_argument(self, a: c_ast.Node, t: CType, callee: str, args: list[c_ast.Node],
                                params: list[CType], b: Builder, env: Env,
                                after: list[Callable[[Builder], None]]) -> Optional[Value]:
        """``put(&w.gamma, x)``, ``scale(&M->s)``: the address of a number member that s2sad holds
        as a number (of a local struct, a struct passed by value, a const struct) passed to a
        function of the file: a cell holding the member's value, read back into the member after
        the call where the callee may write it (copy in, copy out); None for any other argument.
        That is C's meaning as long as the callee reaches the number through this pointer only,
        so another argument that reaches the same struct's memory is a located error, unless the callee
        only reads both (``sharing_argument``)."""
        if not (isinstance(a, c_ast.UnaryOp) and a.op == "&"):
            return None
        dotted = self.record_member(a.expr)
        key = self.lookup(dotted) if dotted is not None else None
        if key is None or key in self.record_cells or self.ctypes[key].kind != "scalar":
            return None
        member = self.ctypes[key]
        if member.scalar != t.scalar or t.layout is not None:
            raise self.fail(a, f"'{callee}' expects '{t.spelling}' here, and '{node_text(a)}' points to "
                            f"a {member.spelling}")
        var = dotted.split(".", 1)[0]  # type: ignore[union-attr]
        struct = self.lookup(var)
        assert struct is not None
        other = self.sharing_argument(a, t, args, params, self.address_of.get(struct, struct))
        if other is not None:
            raise self.fail(other, f"'{callee}' is passed '{node_text(a)}' and, here, more of '{var}'s "
                            "memory: s2sad passes the member in a copy of its own, which the callee would "
                            "not see through this argument", f"pass {node_text(a)} alone, or the whole "
                            f"struct and let {callee} reach the member through it")
        writes = "const" not in t.spelling.split("*")[0].split()
        if writes:
            self.check_writable(a.expr, key)
        return self.number_cell(a.expr, member.scalar, member.spelling, b, env, after if writes else [])  # type: ignore

    def record_address_argument(self, a: c_ast.Node, t: CType, callee: str, args: list[c_ast.Node],
                                params: list[CType], b: Builder, env: Env,
                                after: list[Callable[[Builder], None]]) -> Optional[Value]:
        """``deriv(&p, y, dy)``, ``deriv(q, y, dy)`` of ``Params *q = &p``, ``touch(t)`` of ``Sys *t =
        s``: a struct s2sad holds as its members (a local, a parameter passed by value) or one
        struct a pointer points to, passed to a function of the file that takes a pointer to
        structs of one type (``const Params *``, read as a run of numbers, ``c_structs``): a
        struct of its own, filled from the members (copy in) and, where the callee may write it
        (no const), read back into them after the call (copy out). That is C's meaning as long
        as the callee reaches the struct through this pointer only, so another argument that
        reaches the same struct is a located error, unless the callee only reads both
        (``dot3(&d, &d)`` of ``const vec3 *`` parameters: ``sharing_argument``). None for any other
        argument."""
        if t.layout is None:
            return None
        inner = a.expr if isinstance(a, c_ast.UnaryOp) and a.op == "&" else None
        root = self.record_variable(inner if inner is not None else a)
        if root is None:
            return None
        var, have = root
        key = self.lookup(var)
        assert key is not None and have.record is not None
        if have.each or (inner is not None) == have.indirect:  # &p of a struct, or a pointer to one
            return None
        layout = t.layout
        if have.record.name != layout.name:
            raise self.fail(a, f"'{callee}' expects '{t.spelling}' here, and '{node_text(a)}' points to a "
                            f"{have.record.name}", f"pass a {layout.name}")
        target = self.address_of.get(key, key)
        other = self.sharing_argument(a, t, args, params, target, env)
        if other is not None:
            raise self.fail(other, f"'{callee}' is passed '{node_text(a)}' and, here, more of that "
                            f"{layout.name}: s2sad passes the struct in a copy of its own, which the callee "
                            "would not see through this argument", f"pass {node_text(a)} alone and let "
                            f"{callee} reach the members through it")
        writes = not read_only(t)
        at = self.at(b, a)
        hint = self.hints.get(target, var).split("#")[0] + "_struct"
        arr = at.op1("alloc", [build.const(at, layout.size, I64)], t.ir_array, hint, fill="empty",
                     elem=layout.elem.name, struct=layout.name)
        self.local_structs.add(layout.name)
        slots = _layout_slots(layout, have.record)
        arrow = "->" if have.indirect else "."
        for path, offset, field_path, int_type, extents in slots:
            leaf_key = target + path
            why = self.read_only_leaves.get(leaf_key) if writes else None
            if why is not None:
                raise self.fail(a, f"'{callee}' may write the {layout.name} '{var}' through '{node_text(a)}', and "
                                f"its member '{path[1:]}' {why}", f"declare {callee}'s parameter 'const "
                                f"{layout.name} *' where it only reads the struct, or pass a local {layout.name} "
                                "whose members are set one by one")
            strides = [math.prod(extents[k + 1:]) for k in range(len(extents))]  # row-major, as C lays it
            for element in itertools.product(*(range(n) for n in extents)):
                operands = [build.const(at, 0, I64)] + [build.const(at, i, I64) for i in element]
                attrs = {"int_member": int_type.name} if int_type is not None else {}
                index = at.op1("field", operands, I64, "", struct=layout.name, path=field_path,
                               coefs=[layout.size] + strides, offset=offset, **attrs)
                member = _element(self.as_variable(_member_node(var, arrow, path, a)), element, a)
                self.copy_slot(a, member, leaf_key, arr, index, int_type, layout, b, env, after if writes else None)
        return arr

    def copy_slot(self, a: c_ast.Node, member: c_ast.Node, leaf_key: str, arr: Value, index: Value, int_type,
                  layout, b: Builder, env: Env, after: Optional[list[Callable[[Builder], None]]]) -> None:
        """One number of a struct passed in a copy (``record_address_argument``): the member
        (``member``, as the caller names it: ``p.k``, ``s->n``, ``b.v[1]``) stored into its slot of
        ``arr`` now, and, where ``after`` is given, the slot stored back into the member after the
        call."""
        at = self.at(b, a)
        if isinstance(member, c_ast.ID) and not isinstance(env.get(leaf_key), Value):
            # a number not given a value yet (a struct the callee fills in): zero
            current = build.const(at, 0, value_type(self.ctypes[leaf_key]))
        else:
            current = self.number(self.scalar(member, b, env), at)
        if int_type is not None:
            current = self.convert(current, int_type, at)
        at.create("store", [arr, index, self.convert(current, layout.elem, at)], [])
        if after is None:
            return

        def read_back(bb: Builder) -> None:
            there = self.at(bb, a)
            v = there.op1("load", [arr, index], layout.elem)
            self.store(member, v if int_type is None else self.convert(v, int_type, there), bb, env, a)
        after.append(read_back)

    def sharing_argument(self, a: c_ast.Node, t: CType, args: list[c_ast.Node], params: list[CType], key: str,
                         env: Optional[Env] = None) -> Optional[c_ast.Node]:
        """Another argument of the call (``args``, of the callee's ``params``) that reaches the memory
        of the struct variable ``key`` that ``a`` (for ``t``) hands over in a copy, where the copy
        changes what the callee sees: None when the callee can write through neither (a ``const``
        pointer or a value each), since copies then hold the same numbers as the struct."""
        for other, pt in zip(args, params):
            if other is a or not self.reaches(other, key, env):
                continue
            if not _may_write(t) and not _may_write(pt):
                continue
            return other
        return None

    def reaches(self, node: c_ast.Node, key: str, env: Optional[Env] = None) -> bool:
        """Whether the argument ``node`` may hand a callee memory of the struct variable ``key``,
        by its name or by a pointer to it (``Params *q = &p``; with ``env``, also ``Sys *t = s``
        of a pointer parameter, which shares its cells and arrays: see ``_reaches``)."""
        same = {key, *[a for a, t in self.address_of.items() if t == key]}
        memory = {id(env[k]) for k, ct in self.record_leaves(key) if env is not None and k in env
                  and (k in self.record_cells or ct.kind == "array")}

        def shares(k: Optional[str]) -> bool:
            return k is not None and env is not None and self.ctypes[k].kind == "record" and any(
                id(env.get(leaf)) in memory for leaf, _ in self.record_leaves(k))
        names = [n for scope in self.scopes for n in scope if self.lookup(n) in same or shares(self.lookup(n))]
        return any(_reaches(node, n, self.ctypes[self.lookup(n)].indirect, self.record_member)  # type: ignore[index]
                   for n in names)

    def struct_memory_call(self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], b: Builder,
                           env: Env) -> bool:
        """``memset(&p, 0, sizeof p)``, ``memcpy(&p, src, sizeof p)`` (also ``memmove``, and ``q`` of
        ``Params *q = &p`` for ``&p``) of a struct s2sad holds as its members: each number set to
        zero, or copied from the same member of ``src`` (``&w`` of another such struct, or a
        pointer to one: a parameter ``const Params *src``), as ``p = *src`` would; False where
        the destination is no such struct (``memory_call`` copies arrays)."""
        dst = args[0].expr if isinstance(args[0], c_ast.UnaryOp) and args[0].op == "&" else None
        root = self.record_variable(dst if dst is not None else args[0]) if len(args) == 3 else None
        if root is None or root[1].each or (dst is not None) == root[1].indirect:
            return False
        var, have = root
        record = have.record
        assert record is not None
        if not self.whole_struct_size(args[2], record.name):
            raise self.fail(args[2], f"{name} of the {record.name} '{var}' is supported for the whole struct only",
                            f"give its size as sizeof {'' if dst is not None else '*'}{var} or "
                            f"sizeof({record.name})")
        arrow = "->" if have.indirect else "."
        if name == "memset":
            byte = build.const_value(self.number(self.scalar(args[1], b, env), self.at(b, node)))
            if byte != 0:
                raise self.fail(args[1], "memset with a byte other than 0 writes no number s2sad can follow",
                                f"set the members of {var} one by one")
            sources: list[Optional[c_ast.Node]] = [None] * len(record.leaves)
        else:
            src = args[1].expr if isinstance(args[1], c_ast.UnaryOp) and args[1].op == "&" else None
            named = src if src is not None else args[1]
            while isinstance(named, c_ast.Cast):
                named = named.expr
            key = self.lookup(named.name) if isinstance(named, c_ast.ID) else None
            t = self.ctypes[key] if key is not None else None
            struct = t.record.name if t is not None and t.record is not None and not t.each else \
                t.layout.name if t is not None and t.layout is not None and src is None else None
            if struct != record.name or (src is not None) == (t.kind == "pointer" or t.indirect):  # type: ignore
                raise self.fail(args[1], f"{name} into the {record.name} '{var}' copies from another {record.name} "
                                f"only (&w, or a pointer to one)", f"copy the members one by one, or write "
                                f"{var} = *src;" if dst is not None else "copy the members one by one")
            src_arrow = "." if src is not None else "->"
            sources = [_member_node(named.name, src_arrow, leaf.path, node) for leaf in record.leaves]  # type: ignore
        for leaf, source in zip(record.leaves, sources):
            target = self.as_variable(_member_node(var, arrow, leaf.path, node))
            m = leaf.member
            if m.shape == "pointer":
                if source is None:
                    raise self.fail(node, f"memset of the {record.name} '{var}' would set its pointer member "
                                    f"'{leaf.path[1:]}' to null", f"set the members of {var} one by one")
                self.assign_pointer(target, source, b, env)  # type: ignore[arg-type]
                continue
            for index in itertools.product(*(range(n) for n in m.extents)):
                def at(n: c_ast.Node) -> c_ast.Node:
                    return _element(n, index, node)
                value = build.const(self.at(b, node), 0, I64) if source is None else \
                    self.number(self.scalar(at(source), b, env), self.at(b, node))
                self.store(at(target), value, b, env, node)
        return True

    def whole_struct_size(self, size: c_ast.Node, struct: str) -> bool:
        """Whether ``size`` is ``sizeof`` one ``struct``: ``sizeof p``, ``sizeof *q``, ``sizeof(P)``."""
        if not (isinstance(size, c_ast.UnaryOp) and size.op == "sizeof"):
            return False
        named = size.expr
        if isinstance(named, c_ast.Typename):
            inner = named.type.type if isinstance(named.type, c_ast.TypeDecl) else None
            found = self.ctx.structs.record(inner) if inner is not None and self.ctx.structs is not None else None
            return found is not None and found.name == struct
        pointer = isinstance(named, c_ast.UnaryOp) and named.op == "*" or isinstance(named, c_ast.ArrayRef)
        if pointer:
            named = named.expr if isinstance(named, c_ast.UnaryOp) else named.name  # type: ignore[attr-defined]
        root = self.record_variable(named)
        return root is not None and root[1].record is not None and root[1].record.name == struct \
            and root[1].indirect == pointer and not root[1].each

    def number_cell(self, member: c_ast.Node, scalar, spelled: str, b: Builder, env: Env,
                    after: list[Callable[[Builder], None]]) -> Value:
        """The cell a callee is passed for the number member ``member``: the caller's own (``p->x``
        of its writable struct pointer), or a new one holding the member's value, whose content
        goes back into the member after the call (``after``; nothing where it is left empty)."""
        dotted = self.record_member(member)
        assert dotted is not None
        key = self.lookup(dotted)
        if key in self.record_cells:
            cell = self.name(c_ast.ID(dotted, coord=member.coord), b, env)
            assert isinstance(cell, Ptr)
            return cell.base
        t = value_type(CType("scalar", scalar, spelled))
        kind = CType("array", scalar, f"{spelled} *", (_ONE,)).ir_array
        at = self.at(b, member)
        # (an unsigned member's cell keeps its C type: a size_t * callee parameter takes no long *)
        spelling = {"c_elem": spelled} if scalar.is_int and not spelled.startswith("const") else {}
        cell = at.op1("alloc", [build.const(at, 1, I64)], kind, dotted.replace(".", "_") + "_cell",
                      fill="empty", elem=kind.elem.name, **spelling)
        current = env.get(key) if key is not None else None
        if not isinstance(current, Value):  # not given a value yet (a struct the callee fills in): zero
            current = build.const(at, 0, t)
        at.create("store", [cell, build.const(at, 0, I64), self.convert(current, kind.elem, at)], [])

        def read_back(bb: Builder) -> None:
            v = self.at(bb, member).op1("load", [cell, build.const(bb, 0, I64)], kind.elem)
            self.store(c_ast.ID(dotted, coord=member.coord), self.convert(v, t, bb), bb, env, member)
        after.append(read_back)
        return cell

    # -- provided by the host (the C function lowerer) -------------------------------------------
    record_cells: set[str]  # the keys of leaves that are cells: p->x of a struct that may be written
    heap_records: set[str]  # the keys of pointers to one struct malloc'd alone, held as its members
    address_of: dict[str, str]  # Params *q = &p of a struct held as members: q's key -> p's
    local_structs: set[str]  # struct types output must define for the arrays of them the function makes
    read_only_leaves: dict[str, str]  # leaves that cannot be assigned -> why



def _reaches(node: c_ast.Node, var: str, pointer: bool, member_of: Callable[[c_ast.Node], Optional[str]]) -> bool:
    """Whether the argument ``node`` may hand the callee memory of the struct variable ``var``:
    the address of it or of one of its members, or ``var`` itself where it is a pointer (``&w``,
    ``&w.gamma``, ``p``). A member read by value (``w.gamma``) and a struct passed by value are
    copies, which do not."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, c_ast.UnaryOp) and n.op == "&":
            inner = n.expr
            if isinstance(inner, c_ast.ID) and inner.name == var:
                return True
            try:
                dotted = member_of(inner)
            except Fail:
                dotted = None
            if dotted is not None and dotted.split(".", 1)[0] == var:
                return True
        if isinstance(n, c_ast.ID) and n.name == var and pointer:
            return True
        if isinstance(n, c_ast.StructRef):
            continue  # a member read by value
        stack.extend(child for _, child in n.children())
    return False


def _layout_slots(layout, record: Record) -> list[tuple[str, int, str, Optional[object], tuple[int, ...]]]:
    """For each leaf of ``record`` (in ``Record.leaves`` order), where it lies in a struct of
    ``layout`` (the same struct read as a run of numbers): its path, its first slot, the path a
    ``field`` op spells (``.pos.x``, ``.v[]``, ``.P[][]``), its integer type if any, and its
    extents (none for a number)."""
    out = []

    def walk(lay, prefix: str, offset: int) -> None:
        for f in lay.fields:
            if f.sub is not None:
                walk(f.sub, f"{prefix}.{f.name}", offset + f.offset)
            else:
                out.append((f"{prefix}.{f.name}", offset + f.offset, f"{prefix}.{f.name}" + "[]" * len(f.dims),
                            f.int_type, tuple(f.dims)))
    walk(layout, "", 0)
    assert [o[0] for o in out] == [leaf.path for leaf in record.leaves], (out, record.leaves)
    return out


def tests_null(cond: c_ast.Node, target: str) -> bool:
    """``cond`` asks whether the pointer ``target`` (its text: ``v``, ``A[1]``) points nowhere:
    ``!v``, ``v == NULL``, ``NULL == v``, ``v == 0``."""
    if isinstance(cond, c_ast.UnaryOp):
        return cond.op == "!" and node_text(cond.expr) == target
    return isinstance(cond, c_ast.BinaryOp) and cond.op == "==" and (
        (node_text(cond.left) == target and is_null_pointer(cond.right))
        or (is_null_pointer(cond.left) and node_text(cond.right) == target))


def is_null_pointer(node: Optional[c_ast.Node]) -> bool:
    """``0``, ``NULL`` (``(void *)0``): a pointer member that points nowhere yet."""
    while isinstance(node, c_ast.Cast):
        node = node.expr
    return (isinstance(node, c_ast.Constant) and node.value == "0") or (isinstance(node, c_ast.ID)
                                                                       and node.name == "NULL")


def _member_node(var: str, arrow: str, path: str, where: c_ast.Node) -> c_ast.Node:
    """``var->a.b`` as pycparser reads it, for the leaf ``path`` ``.a.b``."""
    return _member_of(c_ast.ID(var, coord=where.coord), arrow, path, where)


def _member_of(base: c_ast.Node, arrow: str, path: str, where: c_ast.Node) -> c_ast.Node:
    """``base->a.b`` (``base.a.b``) for the leaf ``path`` ``.a.b``."""
    names = path[1:].split(".")
    node: c_ast.Node = c_ast.StructRef(base, arrow, c_ast.ID(names[0]), coord=where.coord)
    for name in names[1:]:
        node = c_ast.StructRef(node, ".", c_ast.ID(name), coord=where.coord)
    return node


