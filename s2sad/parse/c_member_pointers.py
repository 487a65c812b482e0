"""Local pointers to one struct member, read as the member itself.

C code names a member it uses often through a pointer: ``double *g = &w.gamma;`` then ``*g`` in
a loop, ``g[0]``, or ``scale(g, n)``. s2sad holds a struct's number members as numbers, not
memory with addresses (a member passed straight to a call, ``scale(&w.gamma, n)``, is the one
address the records machinery makes: ``c_records``). Such a pointer names the same memory at
each use as long as it is never changed and nothing it is made of is either, so each use is
read as the member: ``*g`` and ``g[0]`` as ``w.gamma``, ``g->x`` as ``w.gamma.x`` (a struct
member), ``g`` passed to a call as ``&w.gamma``, and the declaration goes.

A pointer is read so only when it is declared once with such an initializer, never assigned,
incremented or has its address taken, and every use is one of those forms; and when no variable
the member's expression names (``w``, an index ``k`` in ``&w.v[k]``) is assigned, incremented,
has its address taken or is declared again anywhere in the function (a use would then name
other memory). Any other such pointer is left as written: its declaration stays a located error.
"""

from __future__ import annotations

import copy
from typing import Optional

from pycparser import c_ast

from .c_expr import changed_names, replace_child, walk


def read_member_pointers(functions: dict[str, c_ast.FuncDef]) -> None:
    """Read each local pointer to a member of ``functions`` as the member (in place)."""
    for fn in functions.values():
        nodes = list(walk(fn))
        decls = [n for n in nodes if isinstance(n, c_ast.Decl) and isinstance(n.type, c_ast.PtrDecl)
                 and isinstance(n.init, c_ast.UnaryOp) and n.init.op == "&" and _member(n.init.expr)]
        if decls:  # (most functions declare none: only then is every node's parent worth finding)
            _Function(fn, nodes).run(decls)


class _Function:
    def __init__(self, fn: c_ast.FuncDef, nodes: list[c_ast.Node]):
        """``nodes``: ``fn``'s, ``walk``."""
        self.fn = fn
        self.nodes = nodes
        self.parents: dict[int, tuple[c_ast.Node, str]] = {}
        for n in nodes:
            for attr, child in n.children():
                self.parents[id(child)] = (n, attr)
        self.fields = {id(n.field) for n in self.nodes if isinstance(n, c_ast.StructRef)}  # w.gamma: gamma
        # Variables assigned, incremented or whose address is taken, themselves (not ``w.gamma = 1``,
        # ``*g += x``: the memory a pointer names stays where it is)
        self.changed = changed_names(self.nodes)
        self.declared: dict[str, int] = {}
        for n in self.nodes:
            if isinstance(n, c_ast.Decl) and n.name:
                self.declared[n.name] = self.declared.get(n.name, 0) + 1

    def run(self, decls: list[c_ast.Decl]) -> None:
        """Read each of ``decls``, the function's pointers set to a member's address, as the member."""
        for decl in decls:
            self._read_as_member(decl, decl.init.expr)

    def _read_as_member(self, decl: c_ast.Decl, member: c_ast.Node) -> None:
        name = decl.name
        names = {n.name for n in walk(member) if isinstance(n, c_ast.ID) and id(n) not in self.fields}
        if self.declared.get(name) != 1 or name in self.changed or names & self.changed \
                or any(self.declared.get(n, 0) > 1 for n in names):
            return
        uses = [n for n in self.nodes if isinstance(n, c_ast.ID) and n.name == name and id(n) not in self.fields]
        edits = [self._edit(use, member) for use in uses]
        holder = self.parents.get(id(decl))
        if any(e is None for e in edits) or holder is None or not isinstance(holder[0], c_ast.Compound):
            return
        for where, attr, new in edits:  # type: ignore[misc]
            replace_child(where, attr, new)
        holder[0].block_items.remove(decl)

    def _edit(self, use: c_ast.ID, member: c_ast.Node) -> Optional[tuple[c_ast.Node, str, c_ast.Node]]:
        """Where to put what in place of ``use`` (or of the expression around it); None when the
        use is none of the forms that read the member."""
        parent, attr = self.parents[id(use)]
        if isinstance(parent, c_ast.UnaryOp) and parent.op == "*" or \
                isinstance(parent, c_ast.ArrayRef) and attr == "name" and _zero(parent.subscript):
            outer, at = self.parents[id(parent)]
            return outer, at, copy.deepcopy(member)  # *g, g[0]
        if isinstance(parent, c_ast.StructRef) and attr == "name" and parent.type == "->":
            outer, at = self.parents[id(parent)]
            return outer, at, c_ast.StructRef(copy.deepcopy(member), ".", parent.field, coord=parent.coord)
        if isinstance(parent, c_ast.ExprList) and isinstance(self.parents.get(id(parent), (None,))[0], c_ast.FuncCall):
            return parent, attr, c_ast.UnaryOp("&", copy.deepcopy(member), coord=use.coord)  # f(g)
        return None


def _member(node: c_ast.Node) -> bool:
    """A struct member (``w.gamma``, ``p->s.v[2]``), down to a variable."""
    if not isinstance(node, c_ast.StructRef):
        return False
    while isinstance(node, (c_ast.StructRef, c_ast.ArrayRef)):
        node = node.name
    return isinstance(node, c_ast.ID)


def _zero(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.Constant) and node.value in ("0", "0L", "0u", "0U")
