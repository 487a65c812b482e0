"""Local arrays of rows allocated one row at a time, read as one array of two dimensions.

Numerical C often builds a matrix as an array of row pointers:

    double **A = malloc(n * sizeof(double *));
    for (int i = 0; i < n; i++) {
        A[i] = malloc(m * sizeof(double));
        ...
    }

Indexed ``A[i][j]`` afterwards, that is an n-by-m array whose rows happen to lie apart. The front
end reads it so (``row_allocations`` finds the pattern, ``c_lower`` allocates the array just
before the loop that allocates the rows, and the row allocations become nothing), so the
gradient holds an ``n x m`` array and its shadow of the same shape.

So is the contiguous form, one block cut into rows by pointer arithmetic:

    double **A = malloc(n * sizeof(double *));
    A[0] = malloc(n * m * sizeof(double));
    for (int i = 1; i < n; i++) A[i] = A[i - 1] + m;

(the statement allocating the block and the loop linking the rows become nothing, the array
being allocated where the block is). Only where that reading is exact: the rows are allocated by
the first statement of a counted loop ``for (i = 0; i < N; i++)`` over exactly the ``N`` rows of the pointer array's own
allocation, each of the same ``m`` elements (``m`` does not change in the loop or depend on
``i``), nothing touches ``A`` between its declaration and that loop, and nothing else ever
assigns ``A`` or one of its rows (``A = ...``, ``A[k] = p``). Anything else keeps today's located
error for pointers to pointers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pycparser import c_ast

from .c_expr import changed_target, node_text, walk
from .c_pointers import changes_pointer


@dataclass(frozen=True)
class RowAllocation:
    """One matrix of separately allocated rows: its declaration, the loop allocating its rows
    (``rows`` of them, each ``width`` elements, zero-filled when ``zero``), that statement."""

    decl: c_ast.Decl
    loop: c_ast.Node  # where the array is allocated: the rows' loop (the block's statement, contiguous)
    row_stmt: c_ast.Assignment
    rows: c_ast.Node
    width: c_ast.Node
    zero: bool
    elem: list[str]  # the element's type names (``["double"]``)
    links: Optional[c_ast.For] = None  # contiguous: the loop pointing each row past the one before


def row_allocations(body: Optional[c_ast.Node]) -> dict[int, RowAllocation]:
    """The matrices of separately allocated rows in ``body``, by ``id`` of their declaration."""
    out: dict[int, RowAllocation] = {}
    if body is None:
        return out
    nodes = list(walk(body))
    for block in nodes:
        if not isinstance(block, c_ast.Compound) or not block.block_items:
            continue
        items = block.block_items
        for k, d in enumerate(items):
            found = _row_allocation(d, items[k + 1:], nodes) if isinstance(d, c_ast.Decl) else None
            if found is not None:
                out[id(d)] = found
    return out


def _row_allocation(d: c_ast.Decl, after: list[c_ast.Node], nodes: list[c_ast.Node]) -> Optional[RowAllocation]:
    elem = _pointer_to_pointer(d.type)
    if elem is None or d.name is None or d.init is None:
        return None
    count = _allocated_count(d.init, (f"{' '.join(elem)} *", f"*{d.name}"))
    if count is None:
        return None
    name = d.name
    for k, st in enumerate(after):
        block = _contiguous(st, after[k + 1] if k + 1 < len(after) else None, name, elem, count)
        if block is not None:
            width, zero, links = block
            if not _only_rows_assigned(nodes, name, (st, links), d):
                return None
            return RowAllocation(d, st, st, count, width, zero, elem, links)  # type: ignore[arg-type]
        loop = st if isinstance(st, c_ast.For) else None
        row = _row_statement(loop, name, elem, count) if loop is not None else None
        if row is None:
            if _mentions(st, name) or set(assigned_names(st)) & set(_names(count)):
                return None  # A used before its rows exist, or the row count changed
            continue
        row_stmt, width, zero = row
        if not _only_rows_assigned(nodes, name, (row_stmt,), d):
            return None
        return RowAllocation(d, loop, row_stmt, loop.cond.right, width, zero, elem)  # type: ignore[union-attr]
    return None


def _pointer_to_pointer(t: c_ast.Node) -> Optional[list[str]]:
    """``double **A`` (``const double **`` too): the element's type names, else None."""
    if isinstance(t, c_ast.PtrDecl) and isinstance(t.type, c_ast.PtrDecl) and isinstance(t.type.type, c_ast.TypeDecl) \
            and isinstance(t.type.type.type, c_ast.IdentifierType):
        names = t.type.type.type.names
        return list(names) if names in (["double"], ["float"]) else None
    return None


def _strip_cast(e: c_ast.Node) -> c_ast.Node:
    while isinstance(e, c_ast.Cast):
        e = e.expr
    return e


def _allocated_count(init: c_ast.Node, sizes: tuple[str, ...]) -> Optional[c_ast.Node]:
    """``malloc(n * sizeof(T))`` / ``calloc(n, sizeof(T))`` with sizeof's operand one of ``sizes``
    (as printed): the count ``n``, else None."""
    call = _strip_cast(init)
    if not (isinstance(call, c_ast.FuncCall) and isinstance(call.name, c_ast.ID) and call.args is not None):
        return None
    args = call.args.exprs
    if call.name.name == "calloc" and len(args) == 2 and _sizeof_of(args[1], sizes):
        return args[0]
    if call.name.name == "malloc" and len(args) == 1 and isinstance(args[0], c_ast.BinaryOp) and args[0].op == "*":
        e = args[0]
        if _sizeof_of(e.right, sizes):
            return e.left
        if _sizeof_of(e.left, sizes):
            return e.right
    return None


def _sizeof_of(e: c_ast.Node, sizes: tuple[str, ...]) -> bool:
    return isinstance(e, c_ast.UnaryOp) and e.op == "sizeof" and node_text(e.expr).strip("()") in sizes


def _row_statement(loop: c_ast.For, name: str, elem: list[str],
                   count: c_ast.Node) -> Optional[tuple[c_ast.Assignment, c_ast.Node, bool]]:
    """For ``for (i = 0; i < count; i++) { name[i] = malloc(m * sizeof(T)); ... }``: that
    statement, ``m`` and whether the rows are zero-filled (calloc); else None."""
    i = _counter(loop)
    cond = loop.cond
    if i is None or not (isinstance(cond, c_ast.BinaryOp) and cond.op == "<" and isinstance(cond.left, c_ast.ID)
                         and cond.left.name == i and node_text(cond.right) == node_text(count)):
        return None
    body = loop.stmt.block_items if isinstance(loop.stmt, c_ast.Compound) else [loop.stmt]
    first = body[0] if body else None
    if not (isinstance(first, c_ast.Assignment) and first.op == "=" and isinstance(first.lvalue, c_ast.ArrayRef)
            and isinstance(first.lvalue.name, c_ast.ID) and first.lvalue.name.name == name
            and isinstance(first.lvalue.subscript, c_ast.ID) and first.lvalue.subscript.name == i):
        return None
    width = _allocated_count(first.rvalue, (" ".join(elem), f"*{name}[{i}]", f"**{name}"))
    if width is None:
        return None
    inside = set(assigned_names(loop.stmt)) | _declared(loop.stmt) | {i}
    if (set(_names(width)) | set(_names(cond.right))) & inside or i in assigned_names(loop.stmt):
        return None  # rows of different lengths, a bound or a counter the body moves
    zero = _strip_cast(first.rvalue).name.name == "calloc"  # type: ignore[attr-defined]
    return first, width, zero


def _counter(loop: c_ast.For) -> Optional[str]:
    """The counter of ``for (i = 0; ...; i++)`` (declared there or not), else None."""
    init, step = loop.init, loop.next
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1:
        d = init.decls[0]
        name, start = d.name, d.init
    elif isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        name, start = init.lvalue.name, init.rvalue
    else:
        return None
    if not (isinstance(start, c_ast.Constant) and start.value == "0"):
        return None
    if isinstance(step, c_ast.UnaryOp) and step.op in ("p++", "++") and isinstance(step.expr, c_ast.ID) \
            and step.expr.name == name:
        return name
    if isinstance(step, c_ast.Assignment) and step.op == "+=" and isinstance(step.lvalue, c_ast.ID) \
            and step.lvalue.name == name and isinstance(step.rvalue, c_ast.Constant) and step.rvalue.value == "1":
        return name
    return None


def _only_rows_assigned(nodes: list[c_ast.Node], name: str, allowed: tuple, decl: c_ast.Decl) -> bool:
    """Nothing but the statements ``allowed`` (and what they hold) assigns ``name`` or one of its
    rows, or takes its address."""
    inside = {id(n) for a in allowed for n in walk(a)}
    for n in nodes:
        if isinstance(n, c_ast.Decl) and n is not decl and n.name == name:
            return False  # another variable of that name: leave the scopes alone
        if id(n) not in inside and changes_pointer(n, name):
            return False
    return True


def _contiguous(st: c_ast.Node, then: Optional[c_ast.Node], name: str, elem: list[str],
                count: c_ast.Node) -> Optional[tuple[c_ast.Node, bool, c_ast.For]]:
    """``name[0] = malloc(count * m * sizeof(T));`` followed by ``for (i = 1; i < count; i++)
    name[i] = name[i - 1] + m;``: ``m``, whether the block is zero-filled (calloc), the loop."""
    if not (isinstance(st, c_ast.Assignment) and st.op == "=" and isinstance(st.lvalue, c_ast.ArrayRef)
            and node_text(st.lvalue) == f"{name}[0]" and isinstance(then, c_ast.For)):
        return None
    total = _allocated_count(st.rvalue, (" ".join(elem), f"*{name}[0]", f"**{name}"))
    if not (isinstance(total, c_ast.BinaryOp) and total.op == "*"):
        return None
    width = total.right if node_text(total.left) == node_text(count) else \
        total.left if node_text(total.right) == node_text(count) else None
    init, cond, step = then.init, then.cond, then.next
    i = init.decls[0].name if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 else \
        init.lvalue.name if isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID) else None
    start = init.decls[0].init if isinstance(init, c_ast.DeclList) else getattr(init, "rvalue", None)
    body = then.stmt.block_items if isinstance(then.stmt, c_ast.Compound) else [then.stmt]
    if width is None or i is None or not isinstance(start, c_ast.Constant) or start.value != "1" \
            or not (isinstance(cond, c_ast.BinaryOp) and cond.op == "<" and node_text(cond.left) == i
                    and node_text(cond.right) == node_text(count)) \
            or node_text(step) not in (f"{i}++", f"++{i}") or len(body or []) != 1:
        return None
    link = body[0]
    sides = (link.rvalue.left, link.rvalue.right) if isinstance(getattr(link, "rvalue", None), c_ast.BinaryOp) \
        and link.rvalue.op == "+" else ()
    if not (isinstance(link, c_ast.Assignment) and link.op == "=" and node_text(link.lvalue) == f"{name}[{i}]"
            and any(node_text(p) == f"{name}[{i} - 1]" and node_text(q) == node_text(width)
                    for p, q in (sides, sides[::-1]) if sides)):
        return None
    if set(_names(width)) & set(assigned_names(then)):
        return None
    return width, _strip_cast(st.rvalue).name.name == "calloc", then  # type: ignore[attr-defined]



def assigned_names(node: Optional[c_ast.Node]) -> list[str]:
    """Variables ``node`` may change: assigned, incremented, or their address taken."""
    out: list[str] = []
    for n in walk(node) if node is not None else ():
        target = changed_target(n)
        if isinstance(target, c_ast.ID) and target.name not in out:
            out.append(target.name)
    return out


def _declared(node: c_ast.Node) -> set[str]:
    return {n.name for n in walk(node) if isinstance(n, c_ast.Decl) and n.name}


def _names(node: c_ast.Node) -> list[str]:
    return [n.name for n in walk(node) if isinstance(n, c_ast.ID)]


def _mentions(node: c_ast.Node, name: str) -> bool:
    return name in _names(node)
