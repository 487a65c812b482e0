"""Whether a C function gives a variable a value before it reads it, at every call.

f2c declares every local ``static`` (``static int i; static double s, t;``): a static keeps its
value from one call to the next, which s2sad cannot follow, unless no call ever reads that kept
value. That holds when, on every path through the function, a plain assignment ``v = e`` (``e``
not naming ``v``) comes before any other mention of ``v``. ``first_use`` walks the statements in
the order they run, conservatively: a branch or a loop body that assigns first leaves ``v``
possibly unset after it (the other branch, a loop run no times), so what follows must assign
first again; any other mention while ``v`` may be unset reads the kept value.
"""

from __future__ import annotations

from typing import Optional

from pycparser import c_ast

from .c_expr import walk

SET = "set"  # given a value before any read, on every path
READ = "read"  # may be read (or changed through) before it is given one
UNSEEN = "unseen"  # not read before it is set; not set on every path either


def set_before_read(body: c_ast.Compound, name: str) -> bool:
    """Whether every call of the function whose ``body`` this is sets ``name`` before reading it
    (or never reads it): see the module docstring. Its address taken anywhere is a read, and a
    function with a ``goto`` is not followed."""
    if any(isinstance(n, (c_ast.Goto, c_ast.Label)) or isinstance(n, c_ast.UnaryOp) and n.op == "&"
           and isinstance(n.expr, c_ast.ID) and n.expr.name == name for n in walk(body)):
        return False  # (a goto runs statements out of the order walked)
    return first_use(body, name) != READ


def _names(node: Optional[c_ast.Node], name: str) -> bool:
    return node is not None and any(isinstance(n, c_ast.ID) and n.name == name for n in walk(node))


def _sequence(nodes: list, name: str) -> str:
    for node in nodes:
        use = first_use(node, name)
        if use != UNSEEN:
            return use
    return UNSEEN


def first_use(node: Optional[c_ast.Node], name: str) -> str:
    """What running ``node`` first does with ``name``: SET, READ or UNSEEN (module docstring)."""
    if node is None or not _names(node, name):
        return UNSEEN
    if isinstance(node, c_ast.Assignment):
        if isinstance(node.lvalue, c_ast.ID) and node.lvalue.name == name:
            return SET if node.op == "=" and not _names(node.rvalue, name) else READ
        return READ
    if isinstance(node, c_ast.Compound):
        return _sequence(node.block_items or [], name)
    if isinstance(node, c_ast.ExprList):
        return _sequence(node.exprs, name)
    if isinstance(node, c_ast.DeclList):
        return _sequence(node.decls, name)
    if isinstance(node, c_ast.Decl):
        return READ if _names(node.init, name) else UNSEEN  # (a local of its own name shadows it: refused)
    if isinstance(node, c_ast.If):
        if _names(node.cond, name):
            return READ
        branches = [first_use(node.iftrue, name), first_use(node.iffalse, name)]
        return READ if READ in branches else SET if branches == [SET, SET] else UNSEEN
    if isinstance(node, c_ast.For):
        before = first_use(node.init, name)
        if before != UNSEEN:
            return before
        if _names(node.cond, name):
            return READ
        body = _sequence([node.stmt, node.next], name)
        return READ if body == READ else UNSEEN  # (a loop may run no times)
    if isinstance(node, c_ast.While):
        if _names(node.cond, name):
            return READ
        return READ if first_use(node.stmt, name) == READ else UNSEEN
    if isinstance(node, c_ast.DoWhile):
        body = first_use(node.stmt, name)
        return body if body != UNSEEN else READ if _names(node.cond, name) else UNSEEN
    return READ  # any other mention (a call, a return, a switch, a label): taken as a read
