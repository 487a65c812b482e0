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
being allocated where the block is). Numerical Recipes' ``dmatrix(nrl, nrh, ncl, nch)`` makes the
same block indexed from ``nrl`` and ``ncl`` by moving the pointers (``A += NR_END; A -= nrl;``,
``A[nrl] = malloc((nrow * ncol + NR_END) * sizeof(double)); A[nrl] += NR_END; A[nrl] -= ncl;``,
the links from ``nrl + 1``) and tests each allocation (``if (!A) nrerror(...)``): where the first
row and column indices are non-negative constants, that is an array of ``nrl + nrow`` rows of
``ncl + ncol`` numbers indexed as the program indexes it (the rows and columns before the first
unused), so helpers passed ``A`` index it as the program does; the moves and tests become
nothing. (Walking one row's pointer past the row's end into the next, legal in the block, would
read the padding: a matrix with unused columns is accepted only where the function reads it by
element, ``A[i][j]``, or passes it whole.) The pointer array may be declared first and
allocated by the first statement naming it (``double **A; A = malloc(...)``).

Only where that reading is exact: the rows are allocated by the first statement of a counted
loop ``for (i = 0; i < N; i++)`` over exactly the ``N`` rows of the pointer array's own
allocation, each of the same ``m`` elements (``m`` does not change in the loop or depend on
``i``), nothing touches ``A`` between its declaration and that loop, and nothing else ever
assigns ``A`` or one of its rows (``A = ...``, ``A[k] = p``); a block's links start at the row
after the one holding the block and add one constant width. Anything else keeps today's located
error for pointers to pointers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

from pycparser import c_ast

from .c_expr import changed_target, is_name, node_text, walk
from .c_pointers import changes_pointer
from .c_records import tests_null
from .c_structs import int_constant


@dataclass(frozen=True)
class RowAllocation:
    """One matrix of separately allocated rows: its declaration, the loop allocating its rows
    (``rows`` of them, each ``width`` elements, zero-filled when ``zero``), that statement."""

    decl: c_ast.Decl  # (None while the contiguous form is read, before its declaration is known)
    loop: c_ast.Node  # where the array is allocated: the rows' loop (the block's statement, contiguous)
    row_stmt: c_ast.Assignment
    rows: c_ast.Node
    width: c_ast.Node
    zero: bool
    elem: list[str]  # the element's type names (``["double"]``)
    links: Optional[c_ast.For] = None  # contiguous: the loop pointing each row past the one before
    dropped: tuple[c_ast.Node, ...] = ()  # statements that become nothing besides those above
    padded: bool = False  # rows longer than the block's by the unused columns before the first

    @property
    def nothing(self) -> tuple[c_ast.Node, ...]:
        """Every statement of the allocation that the array, allocated at ``loop``, stands for."""
        return (self.row_stmt, *((self.links,) if self.links is not None else ()), *self.dropped)


def row_allocations(nodes: list[c_ast.Node], constants: Optional[dict[str, c_ast.Node]] = None
                    ) -> dict[int, RowAllocation]:
    """The matrices of separately allocated rows in ``nodes`` (a function body's, ``walk``), by
    ``id`` of their declaration (``constants``: the file's #defines and constants, for a block's
    first indices)."""
    out: dict[int, RowAllocation] = {}
    for block in nodes:
        if not isinstance(block, c_ast.Compound) or not block.block_items:
            continue
        items = block.block_items
        for k, d in enumerate(items):
            found = _row_allocation(d, items[k + 1:], nodes, constants or {}) if isinstance(d, c_ast.Decl) \
                else None
            if found is not None:
                out[id(d)] = found
    return out


def _row_allocation(d: c_ast.Decl, after: list[c_ast.Node], nodes: list[c_ast.Node],
                    constants: dict[str, c_ast.Node]) -> Optional[RowAllocation]:
    elem = _pointer_to_pointer(d.type)
    if elem is None or d.name is None:
        return None
    name = d.name
    sizes = (f"{' '.join(elem)} *", f"*{name}")
    allocated: tuple[c_ast.Node, ...] = ()
    if d.init is None:  # double **A; ... A = malloc(n * sizeof(double *));
        first = next((k for k, st in enumerate(after) if _mentions(st, name)), None)
        st = after[first] if first is not None else None
        if not (isinstance(st, c_ast.Assignment) and st.op == "=" and is_name(st.lvalue, name)):
            return None
        count, after, allocated = _allocated_count(st.rvalue, sizes), after[first + 1:], (st,)  # type: ignore
    else:
        count = _allocated_count(d.init, sizes)
    if count is None:
        return None
    for k, st in enumerate(after):
        block = _contiguous(after[k:], name, elem, constants)
        if block is not None:
            if not _only_rows_assigned(nodes, name, (*allocated, *block.nothing), d):
                return None
            if block.padded and not _read_by_element(nodes, name, (*allocated, *block.nothing)):
                return None
            return replace(block, decl=d, dropped=(*allocated, *block.dropped))
        loop = st if isinstance(st, c_ast.For) else None
        row = _row_statement(loop, name, elem, count) if loop is not None else None
        if row is None:
            if _mentions(st, name) or set(assigned_names(st)) & set(_names(count)):
                return None  # A used before its rows exist, or the row count changed
            continue
        row_stmt, width, zero = row
        if not _only_rows_assigned(nodes, name, (*allocated, row_stmt), d):
            return None
        return RowAllocation(d, loop, row_stmt, loop.cond.right, width, zero, elem,  # type: ignore[union-attr]
                             dropped=allocated)
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
    args = [_strip_cast(a) for a in call.args.exprs]  # malloc((size_t)(n * sizeof(double))) too
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


def _contiguous(items: list[c_ast.Node], name: str, elem: list[str],
                constants: dict[str, c_ast.Node]) -> Optional[RowAllocation]:
    """``items`` start the contiguous form: tests of ``name`` and moves by integers, ``name[r] =
    malloc((rows * m + pad) * sizeof(T));``, tests of ``name[r]`` and moves, then ``for (i = r + 1;
    ...; i++) name[i] = name[i - 1] + m;``. The allocation it reads (``decl`` left to the caller):
    ``r + rows`` rows of ``c + m`` numbers, where ``c = pad - `` the moves of ``name[r]``, with
    ``r`` and ``c`` non-negative constants; else None."""
    k, dropped = _moves_and_tests(items, 0, name, constants)
    st = items[k] if k < len(items) else None
    if not (isinstance(st, c_ast.Assignment) and st.op == "=" and isinstance(st.lvalue, c_ast.ArrayRef)
            and is_name(st.lvalue.name, name)):
        return None
    row = st.lvalue.subscript
    first_row = _constant(row, constants)
    total = _allocated_count(st.rvalue, (" ".join(elem), f"*{node_text(st.lvalue)}", f"**{name}"))
    pad: Optional[int] = 0
    if isinstance(total, c_ast.BinaryOp) and total.op == "+" and _product(total.left):
        total, pad = total.left, _constant(total.right, constants)  # (nrow * ncol + NR_END)
    k, moved = _moves_and_tests(items, k + 1, node_text(st.lvalue), constants)
    then = items[k] if k < len(items) else None
    if first_row is None or first_row < 0 or pad is None or moved is None or not _product(total) \
            or not isinstance(then, c_ast.For) or dropped is None:
        return None
    first_col = pad - sum(v for _, v in moved)
    links = _links(then, name, row, constants)
    if links is None or first_col < 0:
        return None
    i, width = links
    rows = total.right if node_text(total.left) == node_text(width) else \
        total.left if node_text(total.right) == node_text(width) else None  # type: ignore[union-attr]
    if rows is None or set(_names(width)) & set(assigned_names(then)):
        return None
    zero = _strip_cast(st.rvalue).name.name == "calloc"  # type: ignore[attr-defined]
    return RowAllocation(None, st, st, _padded(rows, first_row), _padded(width, first_col), zero,  # type: ignore
                         elem, then, (*(s for s, _ in dropped), *(s for s, _ in moved)), first_col > 0)


def _read_by_element(nodes: list[c_ast.Node], name: str, allocation: tuple[c_ast.Node, ...]) -> bool:
    """Outside ``allocation``, ``name`` is only indexed twice (``A[i][j]``) or passed whole to a
    function: no row's pointer is taken, which could walk past its row's end into the next (in the
    block; in a padded array, into the unused columns)."""
    inside = {id(n) for a in allocation for n in walk(a)}
    allowed: set[int] = set()
    for n in nodes:
        if isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ArrayRef) and is_name(n.name.name, name):
            allowed.add(id(n.name.name))
        elif isinstance(n, c_ast.FuncCall) and n.args is not None:
            allowed.update(id(a) for a in n.args.exprs if is_name(a, name))
    return all(id(n) in inside or id(n) in allowed for n in nodes if is_name(n, name))


def _moves_and_tests(items: list[c_ast.Node], k: int, target: str, constants: dict[str, c_ast.Node]
                     ) -> tuple[int, Optional[list[tuple[c_ast.Node, int]]]]:
    """From ``items[k]``, the statements that test the allocation ``target`` (``if (!A)
    nrerror(...);``) or move it by a constant (``A += NR_END;``, ``A[1] -= ncl;``): where they
    end, and each with the amount it moves ``target`` (None where a move is not a constant)."""
    out: list[tuple[c_ast.Node, int]] = []
    while k < len(items):
        st = items[k]
        if _allocation_test(st, target):
            out.append((st, 0))
        elif isinstance(st, c_ast.Assignment) and st.op in ("+=", "-=") and node_text(st.lvalue) == target:
            by = _constant(st.rvalue, constants)
            if by is None:
                return k, None
            out.append((st, by if st.op == "+=" else -by))
        else:
            break
        k += 1
    return k, out


def _allocation_test(st: c_ast.Node, target: str) -> bool:
    """``if (!A) ...;`` (``A == NULL``, ``A[1] == 0``) of ``target``, whose branch does not name it: a
    test for a failed allocation, which s2sad reads as succeeding."""
    if not isinstance(st, c_ast.If) or st.iffalse is not None:
        return False
    return tests_null(st.cond, target) and not _mentions(st.iftrue, target.split("[")[0])


def _links(loop: c_ast.For, name: str, first: c_ast.Node, constants: dict[str, c_ast.Node]
           ) -> Optional[tuple[str, c_ast.Node]]:
    """``for (i = first + 1; ...; i++) name[i] = name[i - 1] + m;``: ``i`` and ``m``, else None.
    (Its bound does not matter: the rows it links and those of the block, the only ones a valid
    program reads, are the array's.)"""
    init, step = loop.init, loop.next
    i = init.decls[0].name if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 else \
        init.lvalue.name if isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID) else None
    start = init.decls[0].init if isinstance(init, c_ast.DeclList) else getattr(init, "rvalue", None)
    row = _constant(first, constants)
    body = loop.stmt.block_items if isinstance(loop.stmt, c_ast.Compound) else [loop.stmt]
    if i is None or start is None or row is None or _constant(start, constants) != row + 1 \
            or node_text(step) not in (f"{i}++", f"++{i}") or len(body or []) != 1:
        return None
    link = body[0]
    sides = (link.rvalue.left, link.rvalue.right) if isinstance(getattr(link, "rvalue", None), c_ast.BinaryOp) \
        and link.rvalue.op == "+" else ()
    for p, q in (sides, sides[::-1]) if sides else ():
        if isinstance(link, c_ast.Assignment) and link.op == "=" and node_text(link.lvalue) == f"{name}[{i}]" \
                and node_text(p) == f"{name}[{i} - 1]" and not _mentions(q, i) and not _mentions(q, name):
            return i, q
    return None


def _product(e: Optional[c_ast.Node]) -> bool:
    return isinstance(e, c_ast.BinaryOp) and e.op == "*"


def _constant(e: c_ast.Node, constants: dict[str, c_ast.Node]) -> Optional[int]:
    """The value of an integer constant expression, through casts (``(long) 1``, ``NR_END``)."""
    e = _strip_cast(e)
    if isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-"):
        a, b = _constant(e.left, constants), _constant(e.right, constants)
        return None if a is None or b is None else a + b if e.op == "+" else a - b
    if isinstance(e, c_ast.UnaryOp) and e.op == "-":
        v = _constant(e.expr, constants)
        return None if v is None else -v
    return int_constant(e, constants, set())


def _padded(extent: c_ast.Node, before: int) -> c_ast.Node:
    """``before + extent`` (``extent`` itself for 0): an axis with ``before`` unused indices first."""
    if before == 0:
        return extent
    return c_ast.BinaryOp("+", c_ast.Constant("int", str(before), coord=extent.coord), extent, coord=extent.coord)


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
