"""A struct value that s2sad reads only as a run of numbers, held as a one-element array of it.

s2sad reads a local struct value (``System s;``) as the bundle of its members (``c_records``),
one IR value or array per member. A struct with a member that is an array of structs
(``typedef struct { int n; Body b[8]; } System;``) has no such bundle, but it is a run of
numbers (``c_structs``' layout: the integer ``n`` and 8 x 3 doubles), as an array of structs
or a pointer to one is. So the value is declared as what it is in memory, one element of that
run: ``System s[1];``, every ``s`` of the function read as ``s[0]`` (``s.b[i].x`` is
``s[0].b[i].x``, ``&s`` is ``&s[0]``), and C output prints it so. Only where the declaration
has no initializer and the function declares no other ``s``; any other value stays as written,
refused where it is declared. The new nodes keep the coordinates of those they replace.
"""

from __future__ import annotations

from typing import Callable

from pycparser import c_ast

from .c_expr import replace_child, walk


def hold_struct_values(functions: dict[str, c_ast.FuncDef], layout_only: Callable[[c_ast.Node], bool]) -> None:
    """Rewrite, in place, each function's local struct values whose type ``layout_only`` says
    has a layout and no bundle of members."""
    for fn in functions.values():
        for d in [n for n in walk(fn.body) if isinstance(n, c_ast.Decl)]:
            if not (isinstance(d.type, c_ast.TypeDecl) and d.name and d.init is None
                    and isinstance(d.type.type, (c_ast.IdentifierType, c_ast.Struct)) and layout_only(d.type.type)):
                continue
            if sum(1 for n in walk(fn) if isinstance(n, c_ast.Decl) and n.name == d.name) != 1:
                continue  # (declared twice: which uses are whose is the C scopes' to say)
            d.type = c_ast.ArrayDecl(d.type, c_ast.Constant("int", "1", d.coord), [], d.coord)
            _element_uses(fn.body, d.name)


def _element_uses(node: c_ast.Node, name: str) -> None:
    """Every ``name`` under ``node`` becomes ``name[0]``."""
    for child_name, child in node.children():
        if isinstance(child, c_ast.ID) and child.name == name and not _is_member_name(node, child):
            element = c_ast.ArrayRef(child, c_ast.Constant("int", "0", child.coord), child.coord)
            replace_child(node, child_name, element)
        else:
            _element_uses(child, name)


def _is_member_name(parent: c_ast.Node, child: c_ast.Node) -> bool:
    """``p.s`` or ``p->s``: ``s`` names a member there, not the variable."""
    return isinstance(parent, c_ast.StructRef) and parent.field is child
