"""A local array of structs indexed only by integer constants, read as one struct per element.

Small C models describe their parts as a local array of structs written out in place and used
element by element (``Layer net[2] = {{W1, b1, 3, 4}, {W2, b2, 4, 2}}; apply(&net[0], ...);
apply(&net[1], ...)``). s2sad reads a struct with pointer or integer members as the bundle of its
members (``c_records``), which an array of them does not give; named one by one they are that:
``Layer net_0 = {W1, b1, 3, 4}, net_1 = {W2, b2, 4, 2};`` and ``net_0`` for each ``net[0]``. Only
where every use of the array is an element at an integer constant within its size; any other
array stays as written, refused where it is declared. The names are the array's and the index's,
made free of the function's names; the new nodes keep the coordinates of those they replace.
"""

from __future__ import annotations

from typing import Callable, Optional

from pycparser import c_ast

from .c_expr import walk
from .c_structs import int_constant

Constant = Callable[[Optional[c_ast.Node]], Optional[int]]  # an integer constant expression's value

MOST_ELEMENTS = 16  # past this, the array stays one (refused): named one by one it would not read


def split_struct_arrays(functions: dict[str, c_ast.FuncDef], records: frozenset[str],
                        constants: dict[str, c_ast.Node]) -> None:
    """Split, in place, the local arrays of the struct types ``records`` that each function of
    ``functions`` indexes by constants only (integer constant expressions, ``#define``s of
    ``constants`` included)."""

    def constant(node: Optional[c_ast.Node]) -> Optional[int]:
        return int_constant(node, constants, set()) if node is not None else None

    if not records:
        return  # no struct type to split an array of (a file of numbers: the usual case)
    for fn in functions.values():
        taken: Optional[set[str]] = None  # the names the function uses, found when one is split
        for block in [n for n in walk(fn.body) if isinstance(n, c_ast.Compound)]:
            items = block.block_items or []
            for k in range(len(items) - 1, -1, -1):
                d = items[k]
                size = _struct_array(d, records, constant)
                if size is None or not _indexed_by_constants(fn, d.name, size, constant):
                    continue
                if taken is None:
                    taken = {n.name for n in walk(fn) if isinstance(n, (c_ast.ID, c_ast.Decl)) and n.name}
                names = [_fresh(f"{d.name}_{j}", taken) for j in range(size)]
                items[k:k + 1] = [_element_decl(d, name, j) for j, name in enumerate(names)]
                _rename_elements(fn.body, d.name, names, constant)


def _struct_array(d: c_ast.Node, records: frozenset[str], constant: Constant) -> Optional[int]:
    """The size of ``Layer net[2]``, a local array of one of ``records`` of a constant size."""
    if not (isinstance(d, c_ast.Decl) and isinstance(d.type, c_ast.ArrayDecl) and d.name):
        return None
    inner = d.type.type
    if not (isinstance(inner, c_ast.TypeDecl) and isinstance(inner.type, (c_ast.IdentifierType, c_ast.Struct))):
        return None
    spelled = (" ".join(inner.type.names) if isinstance(inner.type, c_ast.IdentifierType)
               else f"struct {inner.type.name}")
    size = constant(d.type.dim)
    if spelled not in records or size is None or not 0 < size <= MOST_ELEMENTS:
        return None
    if d.init is not None and not (isinstance(d.init, c_ast.InitList) and len(d.init.exprs) <= size
                                   and all(isinstance(e, c_ast.InitList) for e in d.init.exprs)):
        return None  # (designated or flat initializers stay as written)
    return size


def _indexed_by_constants(fn: c_ast.FuncDef, name: str, size: int, constant: Constant) -> bool:
    """Every use of ``name`` in ``fn`` is ``name[k]``, ``k`` an integer constant below ``size``."""
    elements = {id(n.name) for n in walk(fn.body) if isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ID)
                and n.name.name == name and (k := constant(n.subscript)) is not None and 0 <= k < size}
    uses = [n for n in walk(fn.body) if isinstance(n, c_ast.ID) and n.name == name]
    shadowed = [n for n in walk(fn.body) if isinstance(n, c_ast.Decl) and n.name == name]
    return len(shadowed) == 1 and all(id(u) in elements for u in uses)


def _fresh(name: str, taken: set[str]) -> str:
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def _element_decl(d: c_ast.Decl, name: str, k: int) -> c_ast.Decl:
    """``Layer net_k = {...}``: the element's own declaration (C zeroes one the list leaves out)."""
    array = d.type
    inner = array.type
    typedecl = c_ast.TypeDecl(name, list(inner.quals), getattr(inner, "align", None), inner.type, coord=inner.coord)
    init = None
    if d.init is not None:
        exprs = d.init.exprs
        init = exprs[k] if k < len(exprs) else c_ast.InitList([c_ast.Constant("int", "0")], coord=d.coord)
    return c_ast.Decl(name, list(d.quals), list(getattr(d, "align", []) or []), list(d.storage),
                      list(d.funcspec), typedecl, init, None, coord=d.coord)


def _rename_elements(node: c_ast.Node, name: str, names: list[str], constant: Constant) -> None:
    """Each ``name[k]`` under ``node`` is ``names[k]`` (in place, located where it was)."""
    for attr, child in list(node.children()):
        if isinstance(child, c_ast.ArrayRef) and isinstance(child.name, c_ast.ID) and child.name.name == name:
            k = constant(child.subscript)
            assert k is not None
            replacement = c_ast.ID(names[k], coord=child.coord)
            if "[" in attr:
                field, index = attr[:-1].split("[")
                getattr(node, field)[int(index)] = replacement
            else:
                setattr(node, attr, replacement)
            continue
        _rename_elements(child, name, names, constant)
