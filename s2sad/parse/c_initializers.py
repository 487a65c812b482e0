"""Functions that give a struct's pointer members their memory, read where they are called.

Numerical C sets up and tears down its state through small functions that take the state by
pointer: ``void state_init(State *s, int n) { s->n = n; s->u = malloc(n * sizeof(double)); }``
and ``void state_free(State *s) { free(s->u); }``. s2sad holds a local struct as its members
(``c_records``), and what such a call does to them, pointer members given memory, happens
where it cannot see it. So a call ``state_init(&s, n);`` of a local struct ``s`` is read as the
function's statements placed there, ``s->u`` written ``s.u``: ``s.n = n; s.u = malloc(n *
sizeof(double));``.

An *initializer*: a ``void`` function, not calling itself, whose body is assignments to members
of one pointer parameter (``p->m = e``, ``p->m[k] = e``) and ``free(p->m)``, that parameter
used only so, one of them at least allocating (``p->u = malloc(...)``: a function that only
frees or sets members is a call s2sad follows as it is); read where a statement calls it with
``&s`` of a local variable and arguments free of effects (a name, a number, ``n + 1``...),
each parameter replaced by its argument (a number converted to the parameter's type, as the
call converts it). Any other call of it stays a call.
"""

from __future__ import annotations

import copy
from typing import Optional

from pycparser import c_ast

from .c_accessors import _converted, _plain, _rename
from .c_expr import walk


def inline_initializers(functions: dict[str, c_ast.FuncDef], structs: frozenset[str]) -> None:
    """Replace, in place, each statement call of an initializer of ``functions`` by its body."""
    found = {name: p for name, fn in functions.items() if (p := _initialized(fn)) is not None}
    if not found:
        return
    for fn in functions.values():
        for block in [n for n in walk(fn.body) if isinstance(n, c_ast.Compound)]:
            items = block.block_items or []
            for k in range(len(items) - 1, -1, -1):
                call = items[k]
                if not (isinstance(call, c_ast.FuncCall) and isinstance(call.name, c_ast.ID)
                        and call.name.name in found and call.name.name != fn.decl.name):
                    continue
                body = _placed(call, functions[call.name.name], found[call.name.name], structs)
                if body is not None:
                    items[k:k + 1] = body


def _initialized(fn: c_ast.FuncDef) -> Optional[int]:
    """The position of the parameter an initializer ``fn`` sets the members of; else None."""
    decl = fn.decl.type
    if not (isinstance(decl, c_ast.FuncDecl) and isinstance(decl.type, c_ast.TypeDecl)
            and isinstance(decl.type.type, c_ast.IdentifierType) and decl.type.type.names == ["void"]):
        return None
    params = [p for p in (decl.args.params if decl.args is not None else []) if isinstance(p, c_ast.Decl)]
    items = fn.body.block_items or []
    for k, p in enumerate(params):
        if not isinstance(p.type, c_ast.PtrDecl) or not items:
            continue
        members = [n for n in walk(fn.body) if isinstance(n, c_ast.StructRef) and n.type == "->"
                   and isinstance(n.name, c_ast.ID) and n.name.name == p.name]
        uses = [n for n in walk(fn.body) if isinstance(n, c_ast.ID) and n.name == p.name]
        if len(uses) != len(members) or not all(_sets_or_frees(st, p.name) for st in items) \
                or not any(_allocates(st) for st in items):
            continue
        if any(isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name == fn.decl.name
               for n in walk(fn.body)):
            return None
        return k
    return None


def _sets_or_frees(st: c_ast.Node, p: str) -> bool:
    """``p->m = e``, ``p->m[k] = e`` or ``free(p->m)``."""
    if isinstance(st, c_ast.Assignment) and st.op == "=":
        target = st.lvalue
        while isinstance(target, c_ast.ArrayRef):
            target = target.name
        return _member_of(target, p)
    return (isinstance(st, c_ast.FuncCall) and isinstance(st.name, c_ast.ID) and st.name.name == "free"
            and st.args is not None and len(st.args.exprs) == 1 and _member_of(st.args.exprs[0], p))


def _allocates(st: c_ast.Node) -> bool:
    """``p->m = malloc(...)`` (calloc, aligned_alloc; cast or not): memory the caller cannot see
    given as a call (a function that only frees or sets members stays one)."""
    value = st.rvalue if isinstance(st, c_ast.Assignment) else None
    while isinstance(value, c_ast.Cast):
        value = value.expr
    return isinstance(value, c_ast.FuncCall) and isinstance(value.name, c_ast.ID) \
        and value.name.name in ("malloc", "calloc", "aligned_alloc")


def _member_of(node: c_ast.Node, p: str) -> bool:
    return isinstance(node, c_ast.StructRef) and node.type == "->" and isinstance(node.name, c_ast.ID) \
        and node.name.name == p


def _placed(call: c_ast.FuncCall, fn: c_ast.FuncDef, k: int, structs: frozenset[str]) -> Optional[list[c_ast.Node]]:
    """The statements of ``fn`` as ``call`` runs them, or None where ``call`` is no call of a
    local struct's address with arguments free of effects."""
    params = [p for p in fn.decl.type.args.params if isinstance(p, c_ast.Decl)]
    args = list(call.args.exprs) if call.args is not None else []
    if len(args) != len(params):
        return None
    target = args[k]
    if not (isinstance(target, c_ast.UnaryOp) and target.op == "&" and isinstance(target.expr, c_ast.ID)):
        return None
    if not all(_plain(a) for a in args):
        return None
    by_name = {p.name: _converted(a, p, structs) for j, (p, a) in enumerate(zip(params, args)) if j != k}
    out = []
    for st in fn.body.block_items:
        st = _rename(copy.deepcopy(st), by_name)
        for n in walk(st):
            if _member_of(n, params[k].name):
                n.type = "."
                n.name = c_ast.ID(target.expr.name, coord=call.coord)
        out.append(st)
    return out
