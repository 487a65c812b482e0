"""A local pointer to rows made by casting a flat array, read as that array indexed row-major.

C codes that keep a grid in one flat block often give it its shape once, at the top of a
function: ``const double (*u)[NX] = (const double (*)[NX])in;``, then ``u[j][i]``. That pointer
is the flat array itself, its rows NX numbers apart; so, where the function declares it once,
never changes it and only indexes it (``u[j][i]``, or a row ``u[j]``), each use is written as
the flat array's own: ``in[j * NX + i]`` (``(in + j * NX)`` for a row), and the declaration
goes. A pointer to planes (``double (*g)[NY][NX]``) likewise: ``g[k][j][i]`` is
``in[(k * NY + j) * NX + i]``. The cast's operand is repeated at each use, so it must be
free of effects (a name, ``x + off``...), and not a row of an array of more dimensions
(``A[0]``: its flat index would run past the row, which Python's arrays refuse). Any other
use leaves the declaration as written, refused where it is (``c_lower``). The new nodes keep
the coordinates of those they replace.
"""

from __future__ import annotations

import copy
from typing import Optional

from pycparser import c_ast

from .c_accessors import _plain
from .c_expr import replace_child, walk


def flatten_row_casts(functions: dict[str, c_ast.FuncDef]) -> None:
    """Rewrite, in place, each function's row pointers made by a cast of a flat array."""
    for fn in functions.values():
        for block in [n for n in walk(fn.body) if isinstance(n, c_ast.Compound)]:
            items = block.block_items or []
            for k in range(len(items) - 1, -1, -1):
                d = items[k]
                extents = _row_pointer(d)
                if extents is None or not _only_indexed(fn, d.name, len(extents)):
                    continue
                del items[k]
                _flatten_uses(fn.body, d.name, d.init.expr, extents)


def _row_pointer(d: c_ast.Node) -> Optional[list[c_ast.Node]]:
    """The row extents of ``double (*u)[NX] = (double (*)[NX])x;`` (``[NX]``), else None."""
    if not (isinstance(d, c_ast.Decl) and d.name and isinstance(d.type, c_ast.PtrDecl)
            and isinstance(d.init, c_ast.Cast) and isinstance(d.init.to_type.type, c_ast.PtrDecl)):
        return None
    extents = []
    inner = d.type.type
    while isinstance(inner, c_ast.ArrayDecl):
        if inner.dim is None:
            return None
        extents.append(inner.dim)
        inner = inner.type
    cast_inner = d.init.to_type.type.type
    cast_extents = []
    while isinstance(cast_inner, c_ast.ArrayDecl):
        cast_extents.append(cast_inner.dim)
        cast_inner = cast_inner.type
    if not extents or len(cast_extents) != len(extents) or not _plain(d.init.expr):
        return None
    if any(isinstance(n, c_ast.ArrayRef) for n in walk(d.init.expr)):
        return None  # (const double (*)[m])A[0]: a row of a 2-D array, whose flat index crosses rows
    return extents


def _only_indexed(fn: c_ast.FuncDef, name: str, rank: int) -> bool:
    """``name`` is declared once in ``fn`` and used only as ``name[j]...`` with up to ``rank`` + 1
    subscripts, never assigned or taken the address of."""
    if sum(1 for n in walk(fn) if isinstance(n, c_ast.Decl) and n.name == name) != 1:
        return False
    indexed: set[int] = set()
    for n in walk(fn.body):
        if isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ID) and n.name.name == name:
            indexed.add(id(n.name))
    uses = [n for n in walk(fn.body) if isinstance(n, c_ast.ID) and n.name == name]
    return all(id(u) in indexed for u in uses)


def _flatten_uses(node: c_ast.Node, name: str, flat: c_ast.Node, extents: list[c_ast.Node]) -> None:
    for child_name, child in node.children():
        chain = _subscripts(child, name)
        if chain is not None and (len(chain) == len(extents) + 1 or not _is_subscript_base(node, child)):
            replace_child(node, child_name, _flat_access(flat, chain, extents, child.coord))
        else:
            _flatten_uses(child, name, flat, extents)


def _subscripts(node: c_ast.Node, name: str) -> Optional[list[c_ast.Node]]:
    """``[j, i]`` of ``name[j][i]``, outermost first; None for anything else."""
    subs: list[c_ast.Node] = []
    while isinstance(node, c_ast.ArrayRef):
        subs.append(node.subscript)
        node = node.name
    if isinstance(node, c_ast.ID) and node.name == name and subs:
        return subs[::-1]
    return None


def _is_subscript_base(parent: c_ast.Node, child: c_ast.Node) -> bool:
    return isinstance(parent, c_ast.ArrayRef) and parent.name is child


def _flat_access(flat: c_ast.Node, subs: list[c_ast.Node], extents: list[c_ast.Node], at) -> c_ast.Node:
    """``flat[(j * NY + k) * NX + i]`` for all the subscripts, or ``(flat + j * NX)`` for a row."""
    index: c_ast.Node = subs[0]
    for sub, extent in zip(subs[1:], extents):
        index = c_ast.BinaryOp("+", c_ast.BinaryOp("*", index, copy.deepcopy(extent), at), sub, at)
    whole = len(subs) == len(extents) + 1
    if not whole:  # a row (or plane): its first number's address, the rest of the extents after it
        for extent in extents[len(subs) - 1:]:
            index = c_ast.BinaryOp("*", index, copy.deepcopy(extent), at)
        return c_ast.BinaryOp("+", copy.deepcopy(flat), index, at)
    return c_ast.ArrayRef(copy.deepcopy(flat), index, at)
