"""C99 compound literals, read as the local variables they are.

``rho(&(Opts){.scale = 0.5, .kind = 1}, r)``, ``g((P){.a = x[0], .b = 2.0}, t)`` and ``const
double *w = (const double[]){0.25, 0.5, 0.25};`` make an unnamed object of automatic storage in
the enclosing block, initialized each time the expression is evaluated (C99 6.5.2.5). Each is
given a name: a declaration with the literal's type and initializer goes right before the
statement that holds it, and the literal becomes that name (``Opts_literal``), so that every
later pass reads a local variable with an initializer, which s2sad supports.

Where the statement runs, the declaration runs, once per run, before the statement evaluates
the literal: the same object and values, unless the literal is evaluated only on some paths
through the statement (an operand of ``&&``, ``||`` or ``?:``, a loop's test or step). Those stay
as they are, refused where they are read. A loop's or an ``if``'s single statement (no braces)
becomes a block of its own first, so that the declaration is made where that statement runs.
"""

from __future__ import annotations

import copy
from typing import Callable, Optional

from pycparser import c_ast

from .c_declarators import innermost_type_decl
from .c_expr import walk

_STATEMENTS_WITH_BODIES = (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.If, c_ast.Switch, c_ast.Case,
                           c_ast.Default, c_ast.Label)


def name_compound_literals(functions: dict[str, c_ast.FuncDef]) -> None:
    """Name every compound literal of ``functions`` that runs whenever its statement does, in place."""
    for fn in functions.values():
        if not any(isinstance(n, c_ast.CompoundLiteral) for n in walk(fn.body)):
            continue
        taken = {n.name for n in walk(fn) if isinstance(n, (c_ast.ID, c_ast.Decl)) and n.name}
        _Namer(taken).block(fn.body)


class _Namer:
    def __init__(self, taken: set[str]):
        self.taken = taken

    def block(self, compound: c_ast.Compound) -> None:
        items: list[c_ast.Node] = []
        for item in compound.block_items or []:
            self.bodies(item)
            for literal, place, owner in _unconditional_literals(item):
                decl = self._declaration(literal, owner)
                items.append(decl)
                place(c_ast.ID(decl.name, literal.coord))
            items.append(item)
        compound.block_items = items

    def bodies(self, stmt: c_ast.Node) -> None:
        """Name the literals of the statements nested in ``stmt`` (braced or made a block)."""
        for attr in ("stmt", "iftrue", "iffalse"):
            body = getattr(stmt, attr, None) if isinstance(stmt, _STATEMENTS_WITH_BODIES) else None
            if body is None:
                continue
            if not isinstance(body, c_ast.Compound) and any(isinstance(n, c_ast.CompoundLiteral) for n in walk(body)):
                body = c_ast.Compound([body], body.coord)
                setattr(stmt, attr, body)
            if isinstance(body, c_ast.Compound):
                self.block(body)
            else:
                self.bodies(body)
        if isinstance(stmt, (c_ast.Case, c_ast.Default)):
            for inner in stmt.stmts or []:
                if isinstance(inner, c_ast.Compound):
                    self.block(inner)
        if isinstance(stmt, c_ast.Compound):
            self.block(stmt)

    def _declaration(self, literal: c_ast.CompoundLiteral, owner: Optional[str]) -> c_ast.Decl:
        """``T name = {...};`` for ``(T){...}`` (an array type keeps its declarator: ``double name[]``),
        named after the variable it initializes (``w_literal`` of ``const double *w = (const
        double[]){...}``), else after its type (``Opts_literal``)."""
        base = owner or _type_name(literal.type.type) or "literal"
        name = f"{base}_literal"
        k = 2
        while name in self.taken:
            name, k = f"{base}_literal{k}", k + 1
        self.taken.add(name)
        declarator = _renamed(literal.type.type, name)
        quals = list(literal.type.quals or [])
        return c_ast.Decl(name, quals, [], [], [], declarator, literal.init, None, literal.coord)


Place = Callable[[c_ast.Node], None]  # puts a node where the literal was


def _unconditional_literals(stmt: c_ast.Node) -> list[tuple[c_ast.CompoundLiteral, Place, Optional[str]]]:
    """The compound literals ``stmt`` itself evaluates whenever it runs (not those of nested
    statements, nor those under ``&&``, ``||``, ``?:`` or in a loop's test or step), each with a
    function that puts a node in its place and the variable it initializes (if it is a
    declaration's whole initializer), innermost first."""
    found: list[tuple[c_ast.CompoundLiteral, Place, Optional[str]]] = []

    def visit(node: c_ast.Node) -> None:
        for name, child in node.children():
            if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||") and name == "right" \
                    or isinstance(node, c_ast.TernaryOp) and name in ("iftrue", "iffalse"):
                continue
            visit(child)
            if isinstance(child, c_ast.CompoundLiteral):
                owner = node.name if isinstance(node, c_ast.Decl) and name == "init" else None
                found.append((child, _place(node, name), owner))

    if isinstance(stmt, _STATEMENTS_WITH_BODIES):
        for name in {c_ast.If: ("cond",), c_ast.Switch: ("cond",), c_ast.For: ("init",)}.get(type(stmt), ()):
            head = getattr(stmt, name)
            if head is not None:
                visit(head)
                if isinstance(head, c_ast.CompoundLiteral):
                    found.append((head, _place(stmt, name), None))
        return found
    if not isinstance(stmt, c_ast.Compound):
        visit(stmt)
    return found


def _place(node: c_ast.Node, child_name: str) -> Place:
    """A setter of ``node``'s child that ``children()`` names ``child_name`` (``init``, ``exprs[1]``)."""
    if "[" in child_name:
        attr, k = child_name[:-1].split("[")
        items = getattr(node, attr)
        return lambda new: items.__setitem__(int(k), new)
    return lambda new: setattr(node, child_name, new)


def _type_name(node: c_ast.Node) -> Optional[str]:
    t = innermost_type_decl(node).type
    if isinstance(t, c_ast.IdentifierType):
        return "_".join(w for w in t.names if w not in ("const", "unsigned", "signed"))
    return getattr(t, "name", None)


def _renamed(node: c_ast.Node, name: str) -> c_ast.Node:
    """A copy of the declarator chain ``node`` whose innermost ``TypeDecl`` declares ``name``."""
    made = copy.deepcopy(node)
    innermost_type_decl(made).declname = name
    return made
