"""Which struct members a file ever writes: a number member nothing writes is a value.

A struct passed by a pointer to non-const (``Sys *p``, as most C code passes them) may have its
number members written by the function or its callees, so the front end holds each in a cell,
memory of one element the caller sees (``c_records``). A cell is no integer parameter: a loop
``for (i = 0; i < p->n; i++)`` over a member array ``p->x[i]`` gave ``p->x`` no extent in C output
("cannot tell the size of array 'p_x'", with a hint to declare ``double p_x[n]``, which no one can
write of a member; probe round 10). Where nothing in the file writes a member of that name, it
is a value, as it is behind ``const Sys *p``.

The scan is by member name, over every function of the file (so through any pointer that
aliases the struct), and conservative: a member counts as written where it is assigned,
stepped (``++``), or its address taken; every member counts as written (``None``) where a whole
struct is written through a name declared as a struct or a pointer to one (``*p = q``,
``ps[i] = q``, ``memcpy(p, ...)``), passed to a function the file does not define, or where a
function makes a second pointer to a struct (``Sys *t = s``, ``t = s``: members behind an alias
stay cells, as ``c_records`` reads them).
"""

from __future__ import annotations

from typing import Iterable, Optional

from pycparser import c_ast

from .c_expr import walk

_STEPS = frozenset({"++", "--", "p++", "p--"})
_WHOLE_WRITERS = frozenset({"memcpy", "memmove", "memset"})
# Library functions that take a pointer and write nothing through it
_READERS = frozenset({"free", "printf", "fprintf", "assert", "sizeof"})


def written_members(functions: Iterable[c_ast.FuncDef], struct_types: frozenset[str]) -> Optional[frozenset[str]]:
    """The member names some function of the file may write; None where any member may be
    written (see the module docstring). ``struct_types``: the type names of the file's structs
    (typedef names and ``struct Tag``)."""
    defs = list(functions)
    defined = {f.decl.name for f in defs}
    structs = _struct_variables(defs, struct_types)
    written: set[str] = set()
    for fn in defs:
        for node in walk(fn.body):
            if isinstance(node, c_ast.Decl) and node.init is not None and isinstance(node.type, c_ast.PtrDecl) \
                    and node.name in structs:
                return None  # Sys *t = s: a second pointer to a struct (c_records holds its members as cells)
            if isinstance(node, c_ast.Assignment):
                target = node.lvalue
            elif isinstance(node, c_ast.UnaryOp) and (node.op in _STEPS or node.op == "&"):
                target = node.expr
            elif isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
                if _writes_a_whole_struct(node, defined, structs):
                    return None
                continue
            else:
                continue
            names = _members_of(target)
            if names:
                written |= names
            elif isinstance(node, c_ast.Assignment) and _base_name(target) in structs:
                return None  # *p = q, ps[i] = q: every member
    return frozenset(written)


def _members_of(target: c_ast.Node) -> set[str]:
    """The member names an lvalue goes through (``p->pos.x``: pos and x; ``p->v[i]``: v)."""
    out: set[str] = set()
    node: Optional[c_ast.Node] = target
    while node is not None:
        if isinstance(node, c_ast.StructRef):
            out.add(node.field.name)
            node = node.name
        elif isinstance(node, c_ast.ArrayRef):
            node = node.name
        elif isinstance(node, c_ast.UnaryOp) and node.op == "*":
            node = node.expr
        elif isinstance(node, c_ast.Cast):
            node = node.expr
        else:
            node = None
    return out


def _base_name(node: c_ast.Node) -> Optional[str]:
    """The variable an lvalue or argument without members is made from: ``p`` of ``*p``, ``ps[i]``, ``&s``."""
    while isinstance(node, (c_ast.ArrayRef, c_ast.UnaryOp, c_ast.Cast, c_ast.BinaryOp)):
        node = node.name if isinstance(node, c_ast.ArrayRef) else node.left if isinstance(
            node, c_ast.BinaryOp) else node.expr
    return node.name if isinstance(node, c_ast.ID) else None


def _writes_a_whole_struct(call: c_ast.FuncCall, defined: set[str], structs: set[str]) -> bool:
    """``memcpy(p, ...)`` into a struct, or a struct handed to a function the file does not define."""
    name = call.name.name
    args = call.args.exprs if call.args is not None else []
    if name in _WHOLE_WRITERS:
        return bool(args) and not _members_of(args[0]) and _base_name(args[0]) in structs
    if name in defined or name in _READERS:
        return False
    return any(not _members_of(a) and _base_name(a) in structs for a in args)


def _struct_variables(defs: list[c_ast.FuncDef], struct_types: frozenset[str]) -> set[str]:
    """The names declared anywhere in ``defs`` as a struct, or a pointer to or an array of them."""
    out: set[str] = set()
    for fn in defs:
        for node in walk(fn):
            if isinstance(node, c_ast.Decl) and node.name and _is_struct_type(node.type, struct_types):
                out.add(node.name)
    return out


def _is_struct_type(t: c_ast.Node, struct_types: frozenset[str]) -> bool:
    while isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        t = t.type
    if not isinstance(t, c_ast.TypeDecl):
        return False
    inner = t.type
    if isinstance(inner, c_ast.Struct):
        return True
    return isinstance(inner, c_ast.IdentifierType) and " ".join(inner.names) in struct_types
