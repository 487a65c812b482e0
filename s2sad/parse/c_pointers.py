"""C pointers beyond a fixed array and an offset (a mixin of the C function lowerer).

``c_expr.Ptr`` is a pointer into one array known where the pointer is made. This module
adds what C code does with pointers besides walking one array:

* **the address of a variable** (``stats(x, n, &m, &v)``, a helper's out-parameters): a
  scalar whose address the function takes anywhere is a *cell*, a one-element local array
  (``double m[1]``) from its declaration on. Reading ``m`` loads ``m[0]``, assigning it
  stores there, and ``&m`` is the array itself, which a callee declaring ``double *mean``
  writes as it writes any array. Promoting every such variable, wherever the address is
  taken, keeps one meaning for the name on every path; reverse mode then treats the cell
  as memory (a shadow ``d_m[1]``), which is exactly what a write through ``&m`` is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Optional

from pycparser import c_ast

from ..ssa import build
from ..ssa.attrs import POINTER_CASES
from ..ssa.ir import Block, Builder, Value
from ..ssa.types import BOOL, I64
from .c_expr import Ptr, changed_target, library_name, node_text, walk
from .c_types import CType
from .py_common import Env, Fail, Poison


_ASSIGNING_MPI = ("MPI_Comm_rank", "MPI_Comm_size")  # (c_mpi: their integer, assigned)


def addressed_names(nodes: list[c_ast.Node]) -> frozenset[str]:
    """The variables whose address ``nodes`` (a statement's or body's, ``walk``) take (``&m``,
    ``&(m)``); by name, so a name shadowed in an inner block is a cell in both scopes (only slower,
    never wrong). Not the exponent of ``frexp(x, &e)``, nor the rank of ``MPI_Comm_rank(comm, &rank)``
    (or the size of ``MPI_Comm_size``), which the front end reads as assignments."""
    exponents = {id(n.args.exprs[1]) for n in nodes
                 if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)
                 and (library_name(n.name.name) in ("frexp", "frexpf") or n.name.name in _ASSIGNING_MPI)
                 and n.args is not None and len(n.args.exprs) == 2}
    return frozenset(n.expr.name for n in nodes
                     if isinstance(n, c_ast.UnaryOp) and n.op == "&" and isinstance(n.expr, c_ast.ID)
                     and id(n) not in exponents)


def swapped_structs(nodes: list[c_ast.Node]) -> frozenset[str]:
    """The variables whose address sets a pointer that the function assigns again (``S sa, sb;
    S *cur = &sa, *nxt = &sb;`` with ``cur = nxt;`` later: states swapped by pointer), by name,
    of ``nodes`` (the function body's, ``walk``). Such a struct lives in memory, as one struct
    of a run (``S sa[1]``), so that the pointer may move between it and the others (``Aim``); a
    struct only aliased (``Params *q = &p``) stays held as its members (``c_records``)."""
    assigned = {n.lvalue.name for n in nodes
                if isinstance(n, c_ast.Assignment) and n.op == "=" and isinstance(n.lvalue, c_ast.ID)}
    out: set[str] = set()
    for n in nodes:
        if isinstance(n, c_ast.Decl) and n.init is not None:
            target, value = n.name, n.init
        elif isinstance(n, c_ast.Assignment) and n.op == "=" and isinstance(n.lvalue, c_ast.ID):
            target, value = n.lvalue.name, n.rvalue
        else:
            continue
        values = [value]
        while values:
            v = values.pop()
            if isinstance(v, c_ast.Cast):
                values.append(v.expr)
            elif isinstance(v, c_ast.TernaryOp):
                values += [v.iftrue, v.iffalse]
            elif isinstance(v, c_ast.UnaryOp) and v.op == "&" and isinstance(v.expr, c_ast.ID) and target in assigned:
                out.add(v.expr.name)
    return frozenset(out)


def indexed_names(nodes: Iterable[c_ast.Node]) -> frozenset[str]:
    """The variables ``nodes`` (a body's, ``walk``) use as arrays of more than one element: ``p[i]``
    (any subscript but a literal 0), ``p + k``, ``p - k``, ``p++``, ``p += k``. A pointer to a struct
    of mixed members so used is an array of them (``c_structs``); otherwise it points to one struct
    (a record)."""
    names: set[str] = set()
    for n in nodes:
        if isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ID) \
                and not (isinstance(n.subscript, c_ast.Constant) and n.subscript.value == "0"):
            names.add(n.name.name)
        elif isinstance(n, c_ast.BinaryOp) and n.op in ("+", "-"):
            names.update(x.name for x in (n.left, n.right) if isinstance(x, c_ast.ID))
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--") and isinstance(n.expr, c_ast.ID):
            names.add(n.expr.name)
        elif isinstance(n, c_ast.Assignment) and n.op in ("+=", "-=") and isinstance(n.lvalue, c_ast.ID):
            names.add(n.lvalue.name)
    return frozenset(names)


class PointerUses:
    """What ``array_params`` reads of each function of a file: its parameters' names, the names it
    declares, the variables it indexes (``indexed_names``) and its calls of the file's functions.
    Found by one walk of each function, for both readings of ``array_params``: the functions are
    not changed between them (``c_frontend.CFile``)."""

    def __init__(self, functions: dict[str, c_ast.FuncDef]):
        self.functions = functions
        self.names: dict[str, list[str]] = {}
        self.local: dict[str, frozenset[str]] = {}
        self.indexed: dict[str, frozenset[str]] = {}
        self.calls: list[tuple[str, c_ast.FuncCall]] = []  # (caller, call), the file's order
        for f, fn in functions.items():
            args = fn.decl.type.args.params if fn.decl.type.args is not None else []
            self.names[f] = [p.name for p in args if isinstance(p, c_ast.Decl) and p.name]
            nodes = list(walk(fn.body))
            self.local[f] = frozenset(n.name for n in nodes if isinstance(n, c_ast.Decl) and n.name)
            self.indexed[f] = indexed_names(nodes)
            self.calls += [(f, n) for n in nodes if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)
                           and n.name.name in functions]


def array_params(uses: PointerUses, records: bool = False) -> dict[str, frozenset[str]]:
    """For each function, the parameters used as arrays (``indexed_names``) in it or across
    calls: one a caller passes a pointer into an array (``&ps[i]``, ``ps + i``, an array it
    indexes or declares itself), and one passed straight to a parameter so used. By name, to a
    fixed point over the file's calls. ``records``: as pointers to structs of mixed members are
    read (``c_records``), where a pointer into an array (``&Ms[i]``) or to a local is one struct,
    and only an array passed on whole (``forward(layers, x)``) is an array in the callee too."""
    names, local, calls = uses.names, uses.local, uses.calls
    arrays = {f: set(indexed) for f, indexed in uses.indexed.items()}
    changed = True
    while changed:
        changed = False
        for caller, call in calls:
            callee = call.name.name  # type: ignore[attr-defined]
            for k, a in enumerate(call.args.exprs if call.args is not None else []):
                if k >= len(names[callee]):
                    break
                into = a.expr.name if isinstance(a, c_ast.UnaryOp) and a.op == "&" and \
                    isinstance(a.expr, c_ast.ArrayRef) and isinstance(a.expr.name, c_ast.ID) else None
                plain = a.name if isinstance(a, c_ast.ID) else None
                if isinstance(a, c_ast.BinaryOp) and a.op in ("+", "-") and isinstance(a.left, c_ast.ID):
                    into = a.left.name
                seen = plain if records else into or plain
                if seen is not None and (into is not None and not records or seen in arrays[caller]
                                         or seen in local[caller] and not records) \
                        and names[callee][k] not in arrays[callee]:
                    arrays[callee].add(names[callee][k])
                    changed = True
                if plain is not None and plain in names[caller] and names[callee][k] in arrays[callee] \
                        and plain not in arrays[caller]:
                    arrays[caller].add(plain)
                    changed = True
    return {f: frozenset(arrays[f] & set(names[f])) for f in uses.functions}


# -- pointers that move between arrays ------------------------------------------------------------

@dataclass(frozen=True)
class Aim(Ptr):
    """A pointer whose array is chosen at run time: element ``i`` is
    ``array[rows...][off + i]`` of the ``array`` of ``choices`` numbered ``which``.

    ``choices`` pairs each array the pointer may point into (a parameter, a local array, an
    allocation: never a view) with its number in the pointer variable's list; ``which`` is
    None when there is one. ``rows`` are the leading indices into an array of more dimensions
    (``xp = H[l]`` points into row ``l`` of ``H``; an array of fewer takes the first of them
    it needs). ``rank``: the subscripts the pointer itself takes, 1 but for a pointer to rows
    (``double (*u)[M]``: 2, ``u[i][j]``), whose arrays have at least as many dimensions.
    ``base`` is the first choice, for the element type only: every consumer that needs one
    array asks ``plain`` (c_expr's ``pointer`` does), and the accesses dispatch.
    """

    choices: tuple[tuple[int, Value], ...] = ()
    which: Optional[Value] = None
    rows: tuple[Value, ...] = ()
    rank: int = 1


def subscripts(p: Ptr) -> int:
    """How many subscripts ``p`` takes to reach a number: 1 for a pointer to numbers, 2 for a
    pointer to rows (``double (*u)[M]``, a whole 2-D array), and so on."""
    return p.rank if isinstance(p, Aim) else p.base.type.rank  # type: ignore[attr-defined]


@dataclass(frozen=True)
class PointerTable:
    """A local array of pointers to whole arrays, ``const double *rows[3] = {a, b, c};``, never
    assigned after its initializer: ``rows[k]`` is the ``Aim`` at ``arrays[k]`` (``which`` = k)."""

    arrays: tuple[Value, ...]


def pointer_table_elem(t: c_ast.Node) -> Optional[list[str]]:
    """``double *rows[N]`` (``const``, ``N`` left out too): the pointed-to number's type names."""
    if not (isinstance(t, c_ast.ArrayDecl) and isinstance(t.type, c_ast.PtrDecl)):
        return None
    inner = t.type.type
    if isinstance(inner, c_ast.TypeDecl) and isinstance(inner.type, c_ast.IdentifierType) \
            and inner.type.names in (["double"], ["float"]):
        return list(inner.type.names)
    return None


def table_rebinding(body: Optional[c_ast.Node], name: str) -> Optional[c_ast.Node]:
    """The first place ``body`` changes the table ``name`` or one of its pointers, if any."""
    return next((n for n in walk(body) if changes_pointer(n, name)), None) if body is not None else None


def changes_pointer(n: c_ast.Node, name: str) -> bool:
    """Whether ``n`` changes the pointer variable ``name`` or a pointer it holds: ``name = ...``,
    ``name[k] = p``, ``name++``, ``name[k]++``, or takes the address of either (``&name``)."""
    target = changed_target(n)
    if isinstance(target, c_ast.ArrayRef):
        target = target.name
    return isinstance(target, c_ast.ID) and target.name == name


class CPointerLowering:
    """Cells (variables whose address is taken). The host provides the environment, the keys
    and ``convert`` (``c_expr``); this class comes first among its bases, so its methods are
    the ones ``c_expr``'s stubs stand for."""

    # Provided by the host (CFunctionLowerer).
    ctypes: dict[str, CType]
    key_types: dict
    addressed: frozenset[str]
    cells: set[str]  # keys of the variables kept in a one-element array

    def is_cell(self, key: Optional[str]) -> bool:
        return key is not None and key in self.cells

    def table_of(self, node: c_ast.Node) -> Optional[PointerTable]:
        """The ``PointerTable`` that the name ``node`` is, if it is one."""
        if not isinstance(node, c_ast.ID):
            return None
        return self.pointer_tables.get(self.lookup(node.name) or "")  # type: ignore[attr-defined]

    def table_row(self, table: PointerTable, index: c_ast.Node, b: Builder, env: Env) -> Ptr:
        """``rows[k]``: the pointer at ``table.arrays[k]``, chosen at run time."""
        k = self.integer(index, b, env, "an index")  # type: ignore[attr-defined]
        distinct: list[Value] = []
        for arr in table.arrays:
            if all(a is not arr for a in distinct):
                distinct.append(arr)
        if len(distinct) == 1:
            return Ptr(distinct[0])
        number = [next(n for n, a in enumerate(distinct) if a is arr) for arr in table.arrays]
        which = k
        if number != list(range(len(number))):  # an array listed twice: k -> its number
            b = self.at(b, index)  # type: ignore[attr-defined]
            which = build.const(b, number[-1], I64)
            for pos in range(len(number) - 2, -1, -1):
                which = build.select(b, build.cmp(b, "eq", k, build.const(b, pos, I64)),
                                     build.const(b, number[pos], I64), which)
        return Aim(distinct[0], None, None, tuple(enumerate(distinct)), which)

    def wants_cell(self, name: str, t: CType) -> bool:
        """Whether a scalar declared as ``name`` lives in memory: the function takes its address."""
        return t.kind == "scalar" and name in self.addressed

    def new_cell(self, key: str, name: str, t: CType, init: Optional[Value], b: Builder, env: Env) -> None:
        """``double m`` (``= init``) as ``double m[1]``: its element keeps the declared type,
        so ``&m`` matches a callee's ``double *`` (``int *`` for an ``int``). A cell declared
        without a value starts at zero: its value before a callee sets it is C's indeterminate
        one, which the gradient must not copy (a snapshot of the cell for the callee's reverse
        sweep would read it; gcc rightly warns)."""
        assert t.scalar is not None
        arr_t = CType("array", t.scalar, t.spelling, (c_ast.Constant("int", "1"),))
        one = build.const(b, 1, I64)
        cell = b.op1("alloc", [one], arr_t.ir_array, name, fill="empty" if init is not None else "zeros",
                    elem=t.scalar.name)
        self.cells.add(key)
        self.key_types[key] = arr_t.ir_array
        env[key] = cell
        if init is not None:
            self.write_cell(cell, init, b)

    @staticmethod
    def read_cell(cell: Value, b: Builder) -> Value:
        return b.op1("load", [cell, build.const(b, 0, I64)], cell.type.elem)  # type: ignore[attr-defined]

    def write_cell(self, cell: Value, v: Value, b: Builder) -> Value:
        elem = cell.type.elem  # type: ignore[attr-defined]
        v = self.convert(v, elem, b)  # type: ignore[attr-defined]
        b.create("store", [cell, build.const(b, 0, I64), v], [])
        return v

    @staticmethod
    def cell_address(cell: Value) -> Ptr:
        return Ptr(cell)

    # -- pointers that move between arrays ---------------------------------------------------
    # Provided by the host as well: plan, replan, roots, root_keys (see CFunctionLowerer).
    plan: dict[str, list[tuple[str, int]]]  # moving pointer key -> its arrays (root key, rank)
    replan: bool  # this lowering found a pointer that must move: lower the function again
    offsets: set[str]  # moving pointers that are ever not at the start of an array (row)
    roots: dict[str, Value]  # variable key -> the array its declaration made
    root_keys: dict[int, str]  # id() of such an array -> that key

    def note_root(self, key: str, arr: Value) -> None:
        """``arr`` is the array the declaration of ``key`` made (a parameter, a local array, an
        allocation): a pointer may be pointed at it anywhere it is in scope."""
        self.roots[key] = arr
        self.root_keys[id(arr)] = key

    def is_moving(self, key: Optional[str]) -> bool:
        return key is not None and key in self.plan

    def pointer_rank(self, key: str) -> int:
        """The subscripts the pointer variable ``key`` takes: 1, or a pointer to rows' dimensions."""
        t = self.ctypes[key]
        return len(t.dims) if t.kind == "pointer" and len(t.dims) > 1 and not t.pointer_rows else 1

    def moving_keys(self, key: str) -> list[str]:
        """What a moving pointer variable is made of in the environment: which array, its
        offset and the rows it points into (integers, which loops carry and branches merge)."""
        rows = max(rank for _, rank in self.plan[key]) - self.pointer_rank(key)
        return [key + "#", key + "@" if key in self.offsets else ""] + [f"{key}@{k}" for k in range(rows)]

    def declare_moving(self, key: str) -> None:
        """The integers a moving pointer ``p`` is made of print as ``p_array`` (which of its
        arrays), ``p_off`` (the offset) and ``p_row`` (the rows)."""
        name = self.hints[key]  # type: ignore[attr-defined]
        for k, part in zip(self.moving_keys(key), ["array", "off"] + ["row"] * len(self.moving_keys(key))):
            if not k:
                continue
            self.key_types[k] = I64
            self.hints[k] = f"{name}_{part}"  # type: ignore[attr-defined]

    def split_rows(self, arr: Value) -> Optional[tuple[str, tuple[Value, ...]]]:
        """``arr`` as (the key of the array it is part of, the row indices leading to it):
        ``H[l]`` is (``H``, (l,)). None when it is no declared array or a row of one."""
        rows: list[Value] = []
        while id(arr) not in self.root_keys:
            op = arr.defining_op
            if op is None or op.name != "view" or op.operands[0].type.rank != arr.type.rank + 1:  # type: ignore
                return None
            rows.insert(0, op.operands[1])
            arr = op.operands[0]
        return self.root_keys[id(arr)], tuple(rows)

    def want_moving(self, key: str, arrays: list[Value]) -> None:
        """``key`` points at different arrays (or rows) depending on the branch or the
        iteration: lower the function again with ``key`` a moving pointer over ``arrays``."""
        have = self.plan.setdefault(key, [])
        for arr in arrays:
            split = self.split_rows(arr)
            if split is None:
                continue  # not pointable from everywhere: reported where it is bound
            root, _ = split
            if all(r != root for r, _ in have):
                have.append((root, self.roots[root].type.rank))  # type: ignore[attr-defined]
                self.replan = True

    @staticmethod
    def is_aim(p: Ptr) -> bool:
        """Whether ``p`` needs more than one array and an offset: several arrays, or rows."""
        return isinstance(p, Aim) and (len(p.choices) > 1 or bool(p.rows))

    def moves_within(self, key: str) -> None:
        """The moving pointer ``key`` is pointed past the start of an array (``p = x + k``,
        ``p++``): it needs an offset of its own, carried like its array's number."""
        if key not in self.offsets:
            self.offsets.add(key)
            self.replan = True

    def arrays_of(self, p: Ptr) -> list[Value]:
        return [arr for _, arr in p.choices] if isinstance(p, Aim) else [p.base]

    def aim_of(self, key: str, env: Env, node: Optional[c_ast.Node] = None) -> Aim:
        """The value of the moving pointer variable ``key``: its arrays declared so far (a
        later one cannot be the one it points at yet)."""
        keys = self.moving_keys(key)
        which, rows = env.get(keys[0]), [env.get(k) for k in keys[2:]]
        off = env.get(keys[1]) if keys[1] else None
        choices = tuple((n, self.roots[root]) for n, (root, _) in enumerate(self.plan[key]) if root in self.roots
                        and self.lookup(self.hints[root]) == root)  # type: ignore[attr-defined]
        values = (which, *rows) + ((off,) if keys[1] else ())
        if any(isinstance(v, Poison) for v in values):
            raise Fail(None)  # what set it failed, and said so
        if not choices or not all(isinstance(v, Value) for v in values):
            raise self.fail(node, f"'{self.hints[key]}' is used before it is given a value",  # type: ignore
                            "point it at an array where it is declared")
        return Aim(choices[0][1], off, self.ctypes[key].layout, choices, which, tuple(rows),  # type: ignore
                   self.pointer_rank(key))

    def bind_moving(self, key: str, p: Ptr, b: Builder, env: Env, node: c_ast.Node) -> Ptr:
        """``key = p`` for a moving pointer: its number in the list of ``key``'s arrays (mapped
        from ``p``'s own list when ``p`` moves too: ``in = out``), rows and offset."""
        order = [root for root, _ in self.plan[key]]
        keys = self.moving_keys(key)
        numbered: list[tuple[int, int]] = []  # (p's number of an array, key's number of it)
        rows: tuple[Value, ...] = p.rows if isinstance(p, Aim) else ()
        for n, arr in (p.choices if isinstance(p, Aim) else ((0, p.base),)):
            split = self.split_rows(arr)
            if split is None:
                raise self.fail(node, f"'{self.hints[key]}' is pointed at an array that is not a variable or a "  # type: ignore
                                "row of one", "point it at a declared array, a part of one (x + k) or a row, H[l]")
            root, more = split
            if root not in order:
                self.want_moving(key, [arr])
                order = [r for r, _ in self.plan[key]]
            if more:
                rows = more
            numbered.append((n, order.index(root)))
        if len(numbered) == 1:
            which = build.const(b, numbered[0][1], I64)
        elif all(n == mine for n, mine in numbered):
            which = p.which  # type: ignore[assignment]  # numbered as key numbers them
        else:
            which = build.const(b, numbered[-1][1], I64)
            for n, mine in reversed(numbered[:-1]):
                same = build.cmp(b, "eq", p.which, build.const(b, n, I64))  # type: ignore[arg-type]
                which = build.select(b, same, build.const(b, mine, I64), which)
        env[keys[0]] = which
        if keys[1]:
            env[keys[1]] = p.off if p.off is not None else build.const(b, 0, I64)
        elif p.off is not None and build.const_value(p.off) != 0:
            self.moves_within(key)
        zero = build.const(b, 0, I64) if len(rows) < len(keys) - 2 else None
        for k, row_key in enumerate(keys[2:]):
            env[row_key] = rows[k] if k < len(rows) else zero  # type: ignore[assignment]
        return self.aim_of(key, env)

    def plain(self, p: Ptr, node: c_ast.Node, b: Builder) -> Ptr:
        """``p`` as a pointer into one array (rows become views), for the uses that need one:
        a moving pointer that may point into several is a located error there."""
        if not isinstance(p, Aim):
            return p
        if len(p.choices) > 1:
            raise self.fail(node, f"'{node_text(node)}' points at a different array depending on the branch "  # type: ignore
                            "taken or the iteration, and this use of it is not supported",
                            "read and write its elements (p[i], *p), or pass it to a function of this file")
        arr = p.choices[0][1]
        for r in p.rows[:arr.type.rank - p.rank]:  # type: ignore[attr-defined]
            t = arr.type
            arr = b.op1("view", [arr, r], type(t)(t.elem, t.rank - 1))  # type: ignore[attr-defined]
        return Ptr(arr, p.off, p.layout)

    def dispatch(self, p: Aim, b: Builder, make: Callable[[Builder, Value, list[Value]], list[Value]],
                 types: list) -> list[Value]:
        """``make(b, array, rows)`` for the array ``p`` points at: an if/else chain on ``which``
        with one branch per array (the last one without a test), yielding ``make``'s values."""
        def branch(bb: Builder, k: int) -> list[Value]:
            n, arr = p.choices[k]
            rows = list(p.rows[:arr.type.rank - p.rank])  # type: ignore[attr-defined]
            if k == len(p.choices) - 1:
                return make(bb, arr, rows)
            loc = bb.loc
            tb, eb = Block(), Block()
            tbb, ebb = Builder(tb, loc), Builder(eb, loc)
            here = build.cmp(bb, "eq", p.which, build.const(bb, n, I64))  # type: ignore[arg-type]
            tbb.create("yield", make(tbb, arr, rows), [])
            ebb.create("yield", branch(ebb, k + 1), [])
            # (marked: a branch per array a pointer may hold, some of them never taken together
            # with the others' branches: analysis.effects.overlapping_calls)
            return bb.create("if", [here], types, {POINTER_CASES: True}, regions=[tb, eb]).results
        return branch(b, 0)

    def through_each(self, p: Aim, node: c_ast.Node, b: Builder, body: Callable[[Builder, Ptr], list[Value]],
                     types: list) -> list[Value]:
        """``body(b, q)`` with ``q`` a pointer into the one array ``p`` points at (a call that
        passes ``p``: one call per array, the values of the one made)."""
        def make(bb: Builder, arr: Value, rows: list[Value]) -> list[Value]:
            return body(bb, self.plain(Aim(arr, p.off, p.layout, ((0, arr),), None, tuple(rows), p.rank), node, bb))
        return self.dispatch(p, b, make, types)

    def same_place(self, x: Ptr, y: Ptr, b: Builder) -> Value:
        """``x == y`` where either moves between arrays: the same array, the same rows and the
        same offset (pointers into different arrays are unequal, as in C)."""
        def parts(p: Ptr) -> list[tuple[Optional[Value], str, tuple[Value, ...]]]:
            """(the test that p points into it, the array's key, its rows) for each array of p."""
            out = []
            for n, arr in (p.choices if isinstance(p, Aim) else ((0, p.base),)):
                split = self.split_rows(arr)
                root, rows = split if split is not None else (str(id(arr)), ())
                rows = rows + (p.rows[:arr.type.rank - p.rank] if isinstance(p, Aim) else ())  # type: ignore
                test = build.cmp(b, "eq", p.which, build.const(b, n, I64)) if len(p.choices if isinstance(
                    p, Aim) else ()) > 1 else None
                out.append((test, root, rows))
            return out

        zero = build.const(b, 0, I64)
        equal: Optional[Value] = None
        for tx, rx, rowsx in parts(x):
            for ty, ry, rowsy in parts(y):
                if rx != ry or len(rowsx) != len(rowsy):
                    continue
                terms = [t for t in (tx, ty) if t is not None]
                terms += [build.cmp(b, "eq", u, v) for u, v in zip(rowsx, rowsy)]
                terms.append(build.cmp(b, "eq", x.off or zero, y.off or zero))
                both = terms[0]
                for t in terms[1:]:
                    both = b.op1("and", [both, t], BOOL)
                equal = both if equal is None else b.op1("or", [equal, both], BOOL)
        return equal if equal is not None else build.const(b, False, BOOL)

    def load_through(self, p: Aim, idx: list[Value], b: Builder) -> Value:
        """``p[j]`` (``p[i][j]`` of a pointer to rows; the first index counts from the array's row
        start, the offset included)."""
        return self.dispatch(p, b, lambda bb, arr, rows: [bb.op1("load", [arr, *rows, *idx], p.elem)], [p.elem])[0]

    def store_through(self, p: Aim, idx: list[Value], v: Value, b: Builder) -> None:
        def store(bb: Builder, arr: Value, rows: list[Value]) -> list[Value]:
            bb.create("store", [arr, *rows, *idx, v], [])
            return []
        self.dispatch(p, b, store, [])

    def pointer_choice(self, node: c_ast.TernaryOp, b: Builder, env: Env, target: Optional[str] = None) -> Ptr:
        """``c ? p : q`` of pointers: both are pointers the program already made (evaluating
        both cannot fault), the choice a ``which`` (an ``Aim``) when their arrays differ,
        numbered as the moving pointer ``target`` numbers them where it is one."""
        self.no_side_effects(node)  # type: ignore[attr-defined]
        c = self.condition(node.cond, b, env)  # type: ignore[attr-defined]
        x, y = (self.pointer(arm, b, env, aims=True) for arm in (node.iftrue, node.iffalse))  # type: ignore
        if subscripts(x) != subscripts(y):
            raise self.fail(node, "the two pointers of this choice have different dimensions",  # type: ignore
                            "choose between pointers of one type")
        b = self.at(b, node)  # type: ignore[attr-defined]
        zero = build.const(b, 0, I64)
        off = None if x.off is None and y.off is None else build.select(b, c, x.off or zero, y.off or zero)
        if not isinstance(x, Aim) and not isinstance(y, Aim) and x.base is y.base:
            return Ptr(x.base, off, x.layout)
        arrays: list[Value] = []
        for arr in self.arrays_of(x) + self.arrays_of(y):
            if all(a is not arr for a in arrays):
                arrays.append(arr)
        if target is not None and self.is_moving(target):
            order = [root for root, _ in self.plan[target]]
            split = [self.split_rows(a) for a in arrays]
            if all(s is not None and s[0] in order for s in split) and len({s[0] for s in split}) == len(split):  # type: ignore
                arrays.sort(key=lambda a: order.index(self.split_rows(a)[0]))  # type: ignore[index]
                numbers = {id(a): order.index(self.split_rows(a)[0]) for a in arrays}  # type: ignore[index]
                return self._choice(b, c, x, y, off, arrays, [numbers[id(a)] for a in arrays])
        return self._choice(b, c, x, y, off, arrays, list(range(len(arrays))))

    def _choice(self, b: Builder, c: Value, x: Ptr, y: Ptr, off: Optional[Value], arrays: list[Value],
                numbers: list[int]) -> Aim:
        """The ``Aim`` of ``c ? x : y`` over ``arrays``, numbered ``numbers``."""
        zero = build.const(b, 0, I64)

        def numbered(arr: Value) -> int:
            return next(numbers[k] for k, a in enumerate(arrays) if a is arr)

        def number(p: Ptr) -> Value:  # p's array, numbered in ``arrays``
            if not isinstance(p, Aim):
                return build.const(b, numbered(p.base), I64)
            out = zero
            for n, arr in p.choices:
                mine = build.const(b, numbered(arr), I64)
                out = build.select(b, build.cmp(b, "eq", p.which, build.const(b, n, I64)), mine, out)  # type: ignore
            return out

        xr, yr = (p.rows if isinstance(p, Aim) else () for p in (x, y))
        rows = tuple(build.select(b, c, xr[k] if k < len(xr) else zero, yr[k] if k < len(yr) else zero)
                     for k in range(max(len(xr), len(yr))))
        return Aim(arrays[0], off, x.layout, tuple(zip(numbers, arrays)), build.select(b, c, number(x), number(y)),
                   rows, subscripts(x))
