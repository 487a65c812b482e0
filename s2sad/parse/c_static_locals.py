"""Static local arrays as the file-scope static arrays they are: ``static double work[N];`` in a
function.

C keeps a ``static`` local for the whole run, like an array at file scope that only its function
names: numerical C declares scratch buffers that way (one allocation, reused at every call).
s2sad differentiates a file-scope static array already (``c_global_arrays``: the gradient has
one of its own, which is the same only where the function writes every element before reading
it, checked by ``pipeline``); a static local array of numbers with known extents is moved there,
under its own name where no other file-scope name or hoisted local takes it, else under
``<function>_<name>``, and the function's uses renamed with it. What the hoisted array is
called in its function is kept (``LOCAL_STATICS``) for the messages, which speak of a static
local, not of a file-scope array.

Left where they are (``c_lower`` decides): a static with an initializer that nothing writes
(a table), a number, an array of structs or of unknown extent, and a name declared twice in the
function (two scopes: which uses are whose is not followed here).
"""

from __future__ import annotations

from typing import Iterable

from pycparser import c_ast

from .c_expr import walk
from .c_global_arrays import threadable

# The IR attribute of the function differentiated: a hoisted array's file-scope name -> its name
# in the function that declares it (``{"f_work": "work"}``, or ``{"work": "work"}``).
LOCAL_STATICS = "local_statics"


def hoist_static_locals(functions: dict[str, c_ast.FuncDef], ext: list[c_ast.Node], taken: Iterable[str],
                        typedefs: dict[str, list[str]]) -> dict[str, tuple[str, c_ast.Decl, str]]:
    """Move each function's static local arrays of numbers to file scope (into ``ext``, before the
    function); returns file-scope name -> (function, its declaration there, its name in the function)."""
    used = set(taken) | set(functions)
    hoisted: dict[str, tuple[str, c_ast.Decl, str]] = {}
    for fname, fn in functions.items():
        decls = [n for n in walk(fn.body) if isinstance(n, c_ast.Decl) and n.name]
        counts: dict[str, int] = {}
        for d in decls:
            counts[d.name] = counts.get(d.name, 0) + 1
        for d in decls:
            if "static" not in d.storage or counts[d.name] > 1 or not threadable(d, typedefs) \
                    or (d.init is not None and not _written(fn.body, d.name)):
                continue  # (a table the function only reads is one local: c_lower)
            local = d.name
            name = local if local not in used else f"{fname}_{local}"
            if name in used:
                continue
            used.add(name)
            _remove(fn.body, d)
            if name != local:
                for n in walk(fn.body):
                    if isinstance(n, c_ast.ID) and n.name == local:
                        n.name = name
                _rename_declarator(d, name)
            ext.insert(ext.index(fn), d)
            hoisted[name] = (fname, d, local)
    return hoisted


def _written(body: c_ast.Node, name: str) -> bool:
    """Whether ``name`` may be written in ``body``: assigned through, stepped, or passed on."""
    def base(n: c_ast.Node) -> c_ast.Node:
        while isinstance(n, (c_ast.ArrayRef, c_ast.UnaryOp, c_ast.Cast)):
            n = n.name if isinstance(n, c_ast.ArrayRef) else n.expr
        return n

    for n in walk(body):
        if isinstance(n, c_ast.Assignment):
            target = base(n.lvalue)
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--"):
            target = base(n.expr)
        elif isinstance(n, c_ast.FuncCall) and n.args is not None:
            if any(isinstance(base(a), c_ast.ID) and base(a).name == name for a in n.args.exprs):
                return True
            continue
        else:
            continue
        if isinstance(target, c_ast.ID) and target.name == name:
            return True
    return False


def _remove(body: c_ast.Node, decl: c_ast.Decl) -> None:
    """Take ``decl`` out of the compound statement that holds it."""
    for n in walk(body):
        if isinstance(n, c_ast.Compound) and n.block_items and any(item is decl for item in n.block_items):
            n.block_items = [item for item in n.block_items if item is not decl]
            return


def _rename_declarator(decl: c_ast.Decl, name: str) -> None:
    decl.name = name
    t = decl.type
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    t.declname = name
