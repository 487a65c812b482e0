"""C's memory: local arrays, copies, tapes, and where each buffer is freed.

A local array of small constant size lives on the stack (``double t[9]``); others are
``calloc``/``malloc``'d and freed at the end of the block that made them (``buffer_home``: or of
the block their value reaches through ``yield``); copies are ``memcpy``. A tape is a buffer, a
top and, when it may grow, a capacity doubled with ``realloc``, the counts in ``size_t``. The
allocation calls themselves (``_malloc``, ``_calloc``, ``_grown``, ``_free``) are what device code
spells its own way (``emit_cuda``).
"""

from __future__ import annotations

import math
from typing import Optional

from ..analysis.ranges import IntRanges
from ..diagnostics import error
from ..emit.builder import tape_new_op
from ..emit.expr import BinOp, Call, Compare, Expr, Lit, Name, Subscript, binop, literal_value
from ..emit.stmt import Assign, ExprStmt, For, If, Stmt
from ..parse.c_declarators import is_pointer_rows
from ..ssa.build import const_int, const_value
from ..ssa.ir import Block, Function, Module, Op, Value
from ..ssa.opdefs import is_pure
from ..ssa.types import ArrayType, Type
from .cexpr import CPrinter, C_TYPES, IncDec
from .cstmt import ArrayDecl
from .indexing import times
from .names import CNamer
from .signature import declared_params
from .workspace import Workspace

STACK_LIMIT = 256  # arrays of at most this many elements, of constant size, live on the stack
# The type of a tape's top and capacity: a count, unsigned. Where gcc proves that nothing was
# pushed (the pushes lie in a loop it finds never runs) while the pops' loop runs a number of
# times read from another tape, a signed top would count down into a range gcc can prove
# negative (-Warray-bounds at -O2); an unsigned one wraps, and proves nothing.
TAPE_COUNT = "size_t"


class CMemory:
    """Allocations, copies, frees and tapes for ``CFunctionEmitter``.

    Needs from the host: the attributes below; ``expr`` and ``_lit`` (expressions), ``_count``,
    ``_stable``, ``_struct_of``, ``_struct_size``, ``_mixed`` and ``_structs_holding``
    (``indexing.CArrayAccess``), ``_checked_count``, ``_at_least_zero`` and ``_visibly_nonneg``
    (``integers.CIntegers``), and
    ``StatementBuilder``'s ``_tape_top`` and ``_yield_copies``, after this class in the method
    resolution order (they are extended here)."""

    fn: Function
    namer: CNamer
    var: dict[Value, str]
    types: dict[str, str]  # variable -> its C type
    printer: CPrinter
    rows_declared: bool
    parallel: list[Op]
    skip: set[Op]
    tape_tops: dict[str, str]
    tape_caps: dict[str, str]
    heap: dict[Block, dict[Op, str]]  # home block -> alloc/copy/tape.new freed at its end -> its variable
    home: dict[Op, Block]  # ... -> the block at whose end it is freed (buffer_home)
    null_first: dict[Op, list[str]]  # structured op -> buffer variables to set to NULL before it
    stack: set[str]
    stack_rows: set[str]
    heap_rows: set[str]
    row_tables: dict[str, str]  # a flat buffer's variable -> that of its table of rows (_row_table)
    fixed_extents: dict[tuple[Op, int], str]  # (alloc, axis) -> the variable keeping that extent
    rows_wanted: set[str]  # the flat buffers' variables that need one (_rows_wanted)
    module: Module
    ranges: IntRanges
    _var_count: dict[str, int]
    workspace: Optional[Workspace]  # the entry's, with --workspace (workspace.py)

    def _buffers_freed_at(self) -> dict[Value, object]:
        """Where each buffer this function makes is freed, for out-of-SSA naming: two buffers
        share a variable only when freed at the end of the same block (the second allocation
        frees the first, ``_register_buffer``). One freed in an inner block (a tape of a loop's
        recomputed iteration) must not reuse the variable of one freed in an outer block: the
        outer ``free`` would free the inner buffer again. A buffer that leaves the block that
        made it (NULL first, ``buffer_home``) shares with none; nor does one small enough for the
        stack (``_alloc``: only a variable made by one allocation is declared there), which a
        second allocation into its variable would send to the heap (an MPI adjoint's one-number
        receive buffers, one per call reversed: a calloc and a free per time step)."""
        out: dict[Value, object] = {}
        for op in self.fn.walk():
            if op.name in ("alloc", "copy", "tape.new"):
                home, crossed, _ = buffer_home(op, {})
                out[op.results[0]] = op if crossed or _stack_size(op) is not None else home
        return out

    def _frees(self, block: Block) -> list[Stmt]:
        """The frees at the end of ``block`` (asked once, when its code is done) of the buffers
        whose home it is, which leave ``heap``: it holds the buffers of the blocks still open,
        not every one made so far (each block's end scanned them all: quadratic in a long
        function's loops)."""
        names = list(self.heap.pop(block, {}).values())
        return [st for n in reversed(names) for st in self._release(n)]

    def hold(self, op: Op, name: str) -> None:
        """Record that ``name`` holds the buffer ``op`` makes until the end of its home block."""
        self.heap.setdefault(self.home.get(op, op.parent), {})[op] = name

    def _in_workspace(self, var: str) -> bool:
        """Whether the buffer ``var`` holds is a slot of the entry's workspace (--workspace)."""
        return self.workspace is not None and var in self.workspace.slots

    def _release(self, var: str) -> list[Stmt]:
        """The frees of the buffer ``var`` holds: its table of rows first, where it has one (none
        for a tape of the workspace, which keeps it for the next call)."""
        if self._in_workspace(var):
            return []
        return ([self._free(self.row_tables[var])] if var in self.row_tables else []) + [self._free(var)]

    def _register_buffer(self, op: Op, name: str) -> list[Stmt]:
        """Record that ``name`` holds the buffer ``op`` makes, to be freed at the end of its home
        block (``buffer_home``); the statements to print before the allocation.

        A buffer that leaves the block that made it through ``yield`` (a call's argument copy made
        in a branch, read again by the reverse sweep after the branch) lives until the end of the
        block its value reaches: its variable starts as NULL before the outermost structured op it
        leaves, so that the ``free`` there is right on every path, whether or not it was made.
        One that leaves a loop is made again each iteration: the previous one is freed first.
        """
        home, crossed, var = buffer_home(op, self.var)
        self.home[op] = home
        out: list[Stmt] = []
        if crossed:
            # ``var`` holds it where it arrives (``name`` when out-of-SSA merged the two, else
            # the variable the yields copy it to): that one is freed, and set to NULL first.
            name = var or name
            # Every such buffer of the op: two copies made in one branch (a call's two array
            # arguments) leave it together (fuzz seed 9700082: the second kept last
            # iteration's freed pointer, freed again).
            names = self.null_first.setdefault(crossed[-1], [])
            if name not in names:
                names.append(name)
            if any(x.name in ("for", "while") for x in crossed):
                out.extend(self._release(name))
        held_here = self.heap.get(home, {})
        for other in [o for o, held in held_here.items() if held == name]:
            # out-of-SSA shares one variable between buffers whose lives do not overlap
            del held_here[other]
            out.extend(self._release(name))
        self.hold(op, name)
        return out

    def _yield_copies(self, region: Block) -> list[Stmt]:
        return super()._yield_copies(region) + self._frees(region)

    def _elem(self, t: Type) -> str:
        assert isinstance(t, ArrayType)
        return C_TYPES[t.elem.name]

    def _alloc(self, op: Op) -> list[Stmt]:
        v = op.result
        if v not in self.var:
            return []
        name = self.var[v]
        elem = op.attrs.get("c_elem") or self._elem(v.type)  # size_t n_cell[1]: as the member is declared
        # A cache (the forward sweep fills it per iteration, the reverse sweep reads it back)
        # starts zeroed although nothing reads a slot before it is written: gcc cannot always tie
        # the reverse loop's slots to the forward loop's and reports a read of uninitialized
        # memory (-Wmaybe-uninitialized); and, were a slot ever read unwritten, a zero would make
        # the bug reproducible.
        cache = bool(op.attrs.get("cache"))
        # So does an array a call fills before anything here writes it (cg(A, b, x, n) of a malloc'd
        # x, then ddot(c, x, n)): gcc, not seeing the callee's writes, may report the read of x.
        zero = op.attrs.get("fill", "zeros") == "zeros" or cache or (_filled_by_a_call(v) and not op.attrs.get(
            "scratch"))  # (a buffer the adjoint gives a callee that only writes it, as the analysis proved)
        size = _stack_size(op)
        if size is not None and self._var_count[name] == 1:
            consts = [const_int(d) for d in op.operands]
            self.stack.add(name)
            # So is a local array a copy may take before the code writes it (a call's snapshot of
            # a work array the callee writes first, then reads): gcc warns of copying unset numbers.
            zero = zero or any(user.name == "copy" for user, _ in v.uses)
            struct = op.attrs.get("struct")
            if struct is not None:  # Point pts[4] = {0}; its initializer's numbers are stores after it
                self.types[name] = f"{struct} *"
                return [ArrayDecl(struct, name, size // self._struct_size(struct), zero, ())]
            values = self._table_values(op, consts) if op.attrs.get("table") else ()  # type: ignore[arg-type]
            if len(consts) > 1 and self.rows_declared and "c_params" in self.fn.attrs:
                self.stack_rows.add(name)  # C input's double tmp[3][3]: so in the output too
                return [ArrayDecl(elem, name, size, zero, values, tuple(consts))]  # type: ignore[arg-type]
            return [ArrayDecl(elem, name, size, zero, values)]
        self._heap_rows(op, name, elem)
        fixed = self._fixed_extents(op, name)
        counts = [self.expr(d) for d in op.operands]
        if cache and any(self._never_positive(d) for d in op.operands):
            # The loop it caches never runs (its trip count is never positive: range(min(n, 1) - 1,
            # 0, -3)), which gcc may prove of the buffer's size but not of the reversed loop that
            # reads it, a read it reports as out of the bounds of an empty object (-Warray-bounds;
            # fuzz seed 10910002). One element, never read, ends that.
            counts = [Lit("1")]
        elif elem == "bool":
            # The byte count of one-byte elements is the count, which gcc checks unwrapped: a
            # cache's (a trip count, max(span, 0), whose clamp C drops where ``ranges`` knows the
            # span is not negative) and the program's own extents too (fuzz seeds 5000004,
            # 5000216, where gcc took a count for negative). Wider elements' bytes wrap (_calloc).
            counts = [self._checked_count(c, d, least=1) for c, d in zip(counts, op.operands)]
        else:
            # A count worked out from the sizes (``x[1:]``'s n - 1) is negative for some sizes
            # a caller may pass (n = 0): clamped, it asks for no memory rather than 2^64 - 8
            # bytes (which gcc reports where it sees n = 0: fuzz seeds 10910020, 10910078).
            counts = [self._at_least_zero(c, self._visibly_nonneg(d, sizes=True) or self.ranges.nonneg(d, op))
                      for c, d in zip(counts, op.operands)]
        count = counts[0]
        for c in counts[1:]:
            count = times(count, c)
        struct = op.attrs.get("struct")
        per = self._struct_size(struct) if struct is not None else 0
        f = op.operands[0].defining_op
        if per and f is not None and f.name == "mul" and const_int(f.operands[1]) == per and len(counts) == 1 \
                and counts[0] is not None and self._visibly_nonneg(f.operands[0], sizes=True):
            # malloc(n * sizeof(Point)), as the input asks: counted in structs
            count, elem = self.expr(f.operands[0]), struct
        elif self._mixed(struct):  # sized in numbers: the structs they lie in
            count, elem = self._structs_holding(struct, count), struct  # type: ignore[arg-type]
        if cache and self.workspace is not None and not buffer_home(op, self.var)[1] and not struct:
            self.workspace.keep(name)  # an indexed tape (a cache) in the workspace, as a stack tape is
        if zero:
            value = self._calloc(name, count, elem)
        else:
            value = self._malloc(name, binop("*", count, Lit(f"sizeof({elem})")))
        return fixed + self._register_buffer(op, name) + [Assign([Name(name)], value)] + self._row_table(op, name)

    def _fixed_extents(self, op: Op, name: str) -> list[Stmt]:
        """Assignments that keep each extent of the array ``op`` makes that its variable would not
        keep (one reused for other values: a length popped from a tape in each reversed iteration,
        beside other lengths of its name), so that the array's indexing reads the extent it was
        made with (``_extent``)."""
        out: list[Stmt] = []
        for axis, dim in enumerate(op.operands):
            if self._stable(dim) or self._stable_expr(dim):
                continue
            kept = self.namer.fresh(f"{name}_len{axis}" if len(op.operands) > 1 else f"{name}_len")
            self.types[kept] = self._local_ctype(dim)
            self.fixed_extents[(op, axis)] = kept
            out.append(Assign([Name(kept)], self.expr(dim)))
        return out

    def _never_positive(self, count: Value) -> bool:
        """Whether ``ranges`` proves the count of a cache or tape never positive: its loop never runs."""
        known = self.ranges.get(count)
        return known is not None and known[1] <= 0

    def _heap_rows(self, op: Op, name: str, elem: str) -> None:
        """C input's ``double w[n][m]`` on the heap: a pointer to its rows, ``double (*w)[m]``, so
        that it is indexed ``w[i][j]`` as the input does. Only where the extents after the first
        are numbers or parameters, which the declaration can name wherever it goes."""
        rows = op.operands[1:]
        if not (rows and self.rows_declared and "c_params" in self.fn.attrs and self._var_count[name] == 1
                and all(const_int(d) is not None or (d.owner is self.fn.body and self._stable(d)) for d in rows)):
            return
        self.heap_rows.add(name)
        self.types[name] = f"{elem} (*){''.join(f'[{self.printer(self.expr(d))}]' for d in rows)}"

    def _table_values(self, op: Op, dims: list[int]) -> tuple:
        """A read-only table's initializer (``alloc {table}``): the constants the stores right
        after the alloc put in it, row-major, zeros elsewhere; those stores are then not printed.
        Empty when something else comes between (the stores print as they are)."""
        arr = op.result
        block = op.parent
        assert block is not None
        values: list = [0] * math.prod(dims)
        stores = []
        for nxt in block.ops[block.ops.index(op) + 1:]:
            if nxt.name == "store" and nxt.operands[0] is arr:
                idx = [const_int(i) for i in nxt.operands[1:-1]]
                value = const_value(nxt.operands[-1])
                if value is None or any(i is None or not 0 <= i < d for i, d in zip(idx, dims)):
                    break
                flat = 0
                for i, d in zip(idx, dims):
                    flat = flat * d + i  # type: ignore[operator]
                values[flat] = value
                stores.append(nxt)
            elif not (nxt.name == "comment" or (is_pure(nxt) and not nxt.regions)):
                break
        if not stores:
            return ()
        self.skip.update(stores)
        elem = arr.type.elem  # type: ignore[attr-defined]
        return tuple(self._lit(v, elem) for v in values)

    def _copy(self, op: Op) -> list[Stmt]:
        v = op.result
        if v not in self.var:
            return []
        name = self.var[v]
        src = op.operands[0]
        elem = self._declared_elem(v) or self._elem(v.type)  # (a copy of a size_t cell holds size_t)
        if len(op.operands) == 1:
            count = self._count(src, op)
        else:  # copy(x, n): n rows, printed where the copy is made (n's variable holds it there)
            count = self.expr(op.operands[1])
            for axis in range(1, src.type.rank):  # type: ignore[attr-defined]
                count = binop("*", count, self._extent(src, axis, op))
        nbytes = binop("*", self._checked_count(count) if elem == "bool" else count, Lit(f"sizeof({elem})"))
        held, unit = (self._checked_count(count, least=1), elem) if elem == "bool" else (count, elem)
        struct = self._struct_of(src)
        if self._mixed(struct):  # integer members: the structs' bytes, not the numbers'
            held, unit = self._structs_holding(struct, count), struct  # type: ignore[assignment]
            nbytes = binop("*", held, Lit(f"sizeof({struct})"))
        if self._declared_rows(src) and is_pointer_rows(self._declared_spelling(src) or ""):
            raise error("C output: a copy of a whole array of rows (double **) is needed here, which C output "
                        "does not make", op.loc, hint="copy the rows you need into an array of your own")
        # Zeroed, although the copy then fills it: gcc knows only the first count elements filled,
        # and a callee's gradient reading x[2] of a copy of n warns (-Wmaybe-uninitialized) where
        # it cannot tell that n > 2 (fuzz seed 13010354).
        return self._register_buffer(op, name) + [
            Assign([Name(name)], self._calloc(name, held, unit)),
            ExprStmt(Call(Name("memcpy"), (Name(name), self.expr(src), nbytes))),
        ] + self._row_table(op, name)

    def _row_table(self, op: Op, name: str) -> list[Stmt]:
        """For a flat buffer of rank 2 that is passed where a function takes rows of pointers
        (``double **U``: a snapshot the reverse sweep restores for the call's gradient), a table
        of its rows, made with it and freed with it: ``double **U_before_rows``, whose row r
        points at ``U_before + r * m``."""
        if name not in self.rows_wanted:
            return []
        v = op.result
        table = self.row_tables.get(name) or self.namer.fresh(f"{name}_rows")
        self.row_tables[name] = table
        elem = self._elem(v.type)
        self.types[table] = f"{elem} **"
        rows, width = self._extent(v, 0, op, cover=True), self._extent(v, 1, op)
        r = self.namer.fresh("r")
        fill = Assign([Subscript(Name(table), (Name(r),))], binop("+", Name(name), times(Name(r), width)))
        return [Assign([Name(table)], self._malloc(table, binop("*", rows, Lit(f"sizeof({elem} *)")))),
                For(r, [Lit("0"), rows, Lit("1")], [fill])]

    def _rows_wanted(self) -> set[str]:
        """The variables of flat buffers that calls pass where the callee takes ``double **``."""
        wanted: set[str] = set()
        for op in self.fn.walk():
            if op.name != "call" or op.attrs["callee"] not in self.module.functions:
                continue
            spelled = declared_params(self.module.functions[op.attrs["callee"]])
            if not spelled or len(spelled) != len(op.operands):
                continue
            for a, t in zip(op.operands, spelled):
                if is_pointer_rows(t) and a in self.var and not self._declared_rows(a):
                    wanted.add(self.var[a])
        return wanted

    # Heap memory as the C library spells it; device code spells it its own way (emit_cuda).
    # ``var`` is the variable that holds the memory.
    def _malloc(self, var: str, nbytes: Expr) -> Expr:
        return Call(Name("malloc"), (nbytes,))

    def _calloc(self, var: str, count: Expr, elem: str) -> Expr:
        # Zeroed memory of count elements, asked for in bytes as malloc is: gcc 12 checks the count
        # of calloc(count, size) on its own, and after jump threading it finds counts of 2^63 and
        # more on paths that cannot run, even for calloc(m > 0 ? m : 0, ...) with m checked not
        # negative at entry (-Walloc-size-larger-than; fuzz seed 10801154, py_calloc_count in
        # test_c_warnings). A product of bytes wraps in size_t, and gcc draws no range from it.
        size = Lit(f"sizeof({elem})")
        nbytes = size if literal_value(count) == 1 else binop("*", count, size)
        if self._in_workspace(var):
            return self.workspace.room(var, nbytes)  # (not zero-filled: workspace.py says why)
        return Call(Name("calloc"), (Lit("1"), nbytes))

    def _grown(self, var: str, used: Expr, count: Expr, elem: str) -> Expr:
        """The memory of ``var`` with room for ``count`` elements, the first ``used`` kept."""
        nbytes = binop("*", count, Lit(f"sizeof({elem})"))
        if self._in_workspace(var):
            return self.workspace.room(var, nbytes)
        return Call(Name("realloc"), (Name(var), nbytes))

    def _free(self, var: str) -> Stmt:
        return ExprStmt(Call(Name("free"), (Name(var),)))

    # Tapes are a buffer, a top and, when they may grow, a capacity, the counts in TAPE_COUNT.
    # Out-of-SSA may give tapes of one name whose lives do not overlap one variable, a growing
    # one among them or not: the top is the variable's, and so is the capacity, made for the
    # first tape of the variable that grows.
    def _tape_top(self, tape_var: str, op: Op) -> str:
        if tape_var not in self.tape_tops:
            self.types[super()._tape_top(tape_var, op)] = TAPE_COUNT
        if tape_new_op(op).attrs.get("grow") and tape_var not in self.tape_caps:
            self.tape_caps[tape_var] = self.namer.fresh(f"{tape_var}_cap")
            self.types[self.tape_caps[tape_var]] = TAPE_COUNT
        return self.tape_tops[tape_var]

    def _tape_new(self, op: Op, tape: Name, top: Name) -> list[Stmt]:
        size = const_int(op.operands[0])
        if not op.attrs.get("grow") and size is not None and 0 < size <= STACK_LIMIT \
                and self._var_count[tape.id] == 1:
            # A tape of a few numbers (a helper's loop over the 3 coordinates of a point, called
            # once per observation) lives on the stack, as a small local array does: a calloc and
            # a free on every call cost more than the numbers. Zero-filled, as below.
            self.stack.add(tape.id)
            return [ArrayDecl(tape_elem(op), tape.id, size, True, ()), Assign([top], Lit("0"))]
        if self.workspace is not None and not buffer_home(op, self.var)[1]:
            self.workspace.keep(tape.id)  # (one that leaves its block is freed by another name)
        pre = self._register_buffer(op, tape.id)
        if op.attrs.get("grow"):
            # A tape that grows starts empty, with no memory: its first push makes some. gcc
            # cannot always tie the pops of a reversed loop to the pushes of its forward loop
            # (a loop in a branch, bounds computed there); from a buffer of known size it
            # then reports a pop of an empty tape as an index of -1 (-Warray-bounds), from
            # NULL it reports nothing. (What realloc adds is not zero-filled: pushes fill it
            # before any pop reads it, and gcc takes realloc's new room for written.)
            cap = Name(self.tape_caps[tape.id])
            return pre + [Assign([cap], Lit("0")), Assign([tape], Lit("NULL")), Assign([top], Lit("0"))]
        # Zero-filled as a cache is (_alloc says why): gcc cannot always tie the pops of the
        # reverse sweep to the pushes of the forward sweep either.
        count = op.operands[0]  # one element where its loop never runs, as for _alloc's caches
        least = 1 if tape_elem(op) == "bool" else 0  # a bool's count is its bytes (_checked_count)
        cap_value = Lit("1") if self._never_positive(count) else self._checked_count(self.expr(count), count, least)
        return pre + [Assign([tape], self._calloc(tape.id, cap_value, tape_elem(op))), Assign([top], Lit("0"))]

    def _tape_push(self, op: Op, tape: Name, top: Name) -> list[Stmt]:
        self._serial_tape(op)
        new = tape_new_op(op)
        out: list[Stmt] = []
        if new.attrs.get("grow"):
            cap = Name(self.tape_caps[tape.id])
            grown = binop("+", BinOp("*", Lit("2"), cap), Lit("1"))  # + 1: grows from zero too
            resized = self._grown(tape.id, top, cap, tape_elem(new))
            out.append(If(Compare("==", top, cap), [Assign([cap], grown), Assign([tape], resized)]))
        out.append(Assign([self._tape_slot(op, tape, IncDec("++", top, False))], self.expr(op.operands[1])))
        return out

    def _tape_pop(self, op: Op, tape: Name, top: Name) -> list[Stmt]:
        self._serial_tape(op)
        if op.result in self.var:
            return [Assign([Name(self.var[op.result])], self._tape_slot(op, tape, IncDec("--", top, True)))]
        return [ExprStmt(IncDec("--", top, False))]

    def _tape_slot(self, op: Op, tape: Name, index: Expr) -> Expr:
        """The element of ``tape`` a push or pop (``op``) writes or reads: ``tape[top++]``."""
        return Subscript(tape, (index,))

    def _serial_tape(self, op: Op) -> None:
        if self.parallel:
            raise error("C output: the iterations of this parallel loop need a tape (a stack, in serial order)",
                        self.parallel[-1].loc, hint="remove '#pragma omp parallel for', or make the loop body "
                        "recompute what it needs")


def _stack_size(op: Op) -> Optional[int]:
    """The element count of an ``alloc`` of constant size small enough for the stack, else None."""
    if op.name != "alloc":
        return None
    size = 1
    for d in op.operands:
        c = const_int(d)
        if c is None or c < 0:
            return None
        size *= c
    return size if 0 < size <= STACK_LIMIT else None


def tape_elem(new: Op) -> str:
    """The C type of the elements of the tape ``new`` makes."""
    return C_TYPES[new.attrs.get("elem", "f64")]


def buffer_home(op: Op, var: dict[Value, str]) -> tuple[Block, list[Op], str]:
    """Where the buffer that ``op`` makes stops being used: the block its value reaches by
    following ``yield``s out of branches and loops, the structured ops it leaves on the way
    (innermost first), and the variable of the value that arrives there."""
    v = op.results[0]
    block = op.parent
    crossed: list[Op] = []
    while True:
        outer = block.parent_op
        ys = [u for u, _ in v.uses if u.name == "yield" and u.parent is block]
        if outer is None or outer.parent is None or not ys or outer.name not in ("if", "for", "while"):
            break
        k = next(i for i, x in enumerate(ys[0].operands) if x is v)
        if outer.name == "while" and block is outer.regions[0]:
            break  # a while's condition passes it to the body: the same loop
        if outer.name == "if" and not outer.results[k].uses:
            break  # nothing reads it after the branch
        v = outer.results[k]
        crossed.append(outer)
        block = outer.parent
    return block, crossed, var.get(v, "")


def _filled_by_a_call(v: Value) -> bool:
    """Whether the first op to use the new array ``v`` in its block passes it to a call."""
    block = v.defining_op.parent if v.defining_op is not None else None
    if block is None:
        return False
    users = {id(op) for op, _ in v.uses}
    start = block.ops.index(v.defining_op)  # (from the allocation on: its first use is near it)
    for op in block.ops[start + 1:]:
        if id(op) in users or any(id(inner) in users for inner in op.walk()):
            return op.name == "call"
    return False
