"""Lowering of C function bodies (pycparser trees) to structured SSA IR.

The shape follows the Python front end (``structured``): an environment of
keys, ``if`` ops that merge what differs, loops that carry what their body
assigns, and ``break``/``continue``/``return`` as flags with the rest of a
block guarded after a statement that may have jumped.

C specifics:

* scopes: every declaration gets its own key (a shadowing ``x`` in an inner
  block is ``x#2``), so C's block scoping needs no special case in merging;
* a pointer variable is two keys: ``p`` (its base array, never carried or
  merged) and ``p@`` (its element offset, an ordinary integer that loops carry),
  see ``c_expr.Ptr``;
* ``for (int i = a; i < b; i++)`` with a loop-invariant bound, a constant step
  and a body that neither assigns ``i`` nor jumps out becomes a ``for`` op, so
  loops stay loops; every other loop (``while``, ``do``/``while``, a ``for``
  with ``break`` or a moving bound) becomes a ``while`` op. Its test is
  evaluated in the condition region when it is free of side effects, otherwise
  inside the body with a ``done`` flag (that is how ``do``/``while`` runs its
  body first and how ``continue`` still reaches the ``for`` increment);
* ``switch`` becomes an ``if``/``else if`` chain (``c_switch``; which jumps a
  statement may take, a switch's included, is ``c_flow``);
* local arrays (``double acc[3] = {0}``, ``double w[] = {...}``, ``double w[n]``,
  ``double t[3][3]``, ``double w[n][m]``, initialized row by row),
  the file's ``const`` tables a function reads, and ``malloc``/``calloc`` of work
  arrays (rows of a pointer to rows too, ``double (*u)[M] = malloc(n * sizeof *u)``) are
  ``alloc`` ops; ``free`` is dropped: lifetimes are the emitter's business;
* a local struct whose address sets a pointer the function assigns again (states swapped
  by pointer) is one struct in memory, ``S sa[1]`` (``struct_run``), so the pointer can move
  between it and the others (``c_pointers.Aim``);
* array parameters keep the extents they declare (``c_declarators``): the function's
  ``shapes`` attribute holds them, and a call passes an array of the dimensions the
  callee declares (a row ``A[i]`` for ``double r[m]``, ``A`` for ``double B[n][m]``).
"""

from __future__ import annotations

import copy
import math
from contextlib import contextmanager
from pathlib import Path
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator, Optional, Sequence

from pycparser import c_ast

from ..diagnostics import Diagnostic
from ..ssa import build
from ..ssa.gpu import SHARED_SPACE, SHUFFLE, SHUFFLE_CALLS, SYNC
from ..ssa.ir import Block, Builder, Function, SourceLoc, Value
from ..ssa.mathfns import MATH
from ..ssa.ops import MATH_FNS, view_base
from ..ssa.types import BOOL, F32, F64, I32, I64, Type
from . import c_builtins
from .c_row_allocs import RowAllocation, row_allocations
from .c_set_first import set_before_read
from .c_expr import (INCREMENTS, INT_ABS, CExprLowering, Place, Ptr, arith_type, changed_target, constant_step,
                     library_name, math_intrinsic, node_text, span, split_subscripts, walk)
from .c_declarators import ReadDims
from .c_extern import Prototype, read_prototype
from .custom_adjoints import NONE as NO_DERIVATIVES
from .custom_adjoints import CustomAdjoint, Derivatives, argument_kind, expected_c
from .c_memcalls import MEMORY_CALLS, CMemoryCalls
from .c_mpi import CMpiCalls, is_mpi_call
from .c_pointers import (Aim, CPointerLowering, PointerTable, addressed_names, pointer_table_elem, subscripts,
                         swapped_structs, table_rebinding)
from .c_source_map import SourceMap
from .c_omp import COmpLowering
from .omp import OmpClauses
from .c_records import (CELL, CRecordLowering, aggregate_entry, is_null_pointer, leaf_hint, param_leaves,
                        read_only)
from .c_structs import StructTable, int_constant
from .c_types import Member, StructLayout
from .c_types import BYTES, CType, TypeProblem, ctype_of, value_type
from .py_common import RESULT, RETURNED, Env, Fail, Poison
from .c_flow import Arm, block_exits, statements, stmt_exits
from .c_loop_tests import counter_test
from .c_switch import CSwitchLowering
from .c_stops import LEFT_OUT, STOP_CALLS, Stopping
from .c_unsigned import counted_down, is_unsigned
from .structured import BREAK, CONTINUE, RETURN, Exits, LoopFrame, StructuredLowering

_UNSUPPORTED: dict[type, tuple[str, str]] = {
    c_ast.Goto: ("goto is not supported", "use break, continue or a flag"),
    c_ast.Label: ("labels are not supported", "use break, continue or a flag"),
}
_IO = frozenset({"scanf", "fscanf", "sscanf", "getchar", "fgets", "gets", "fopen", "fclose", "fread", "fwrite"})
# The C library's functions s2sad does not follow, with what to do instead ("define it in this
# file" is no answer for them).
_LIBRARY_HINTS = {
    **dict.fromkeys(("qsort", "bsearch"), "write the sort or the search as a loop in this file (s2sad follows "
                    "the comparisons and the swaps), or sort outside the function and pass the result"),
    **dict.fromkeys(("strcmp", "strncmp", "strlen", "strcpy", "strncpy", "strcat", "strchr", "strstr", "atoi",
                     "atof", "strtod", "strtol"),
                    "s2sad does not read strings: choose with an int or an enum (enum { EULER, RK4 }) and compare "
                    "that, or parse the string outside the function"),
    **dict.fromkeys(("rand", "srand", "random", "drand48", "srand48", "rand_r"),
                    "draw the random numbers outside the function and pass them in as an array"),
    **dict.fromkeys(("time", "clock", "clock_gettime", "gettimeofday"),
                    "time the call outside the function being differentiated"),
}


@dataclass
class Signature:
    """What a caller needs of a user function."""

    params: list[CType]
    result: CType
    declared: dict[int, ReadDims] = field(default_factory=dict)  # array parameters' extents, by position

    @property
    def param_types(self) -> list[Type]:
        """One IR type per parameter; a struct parameter has one per leaf (``c_records``)."""
        out: list[Type] = []
        for p in self.params:
            if p.kind == "record":
                out += [leaf.ir_type for leaf in param_leaves(p)]
            else:
                out.append(p.ir_array if p.kind == "pointer" else value_type(p))
        return out

    @property
    def result_types(self) -> list[Type]:
        """One per value returned: a struct returned by value has one per number leaf."""
        if self.result.kind == "record":
            return [value_type(CType("scalar", leaf.member.scalar, leaf.member.spelling))
                    for leaf in self.result.record.leaves]  # type: ignore[union-attr]
        return [] if self.result.kind == "void" else [value_type(self.result)]

    @property
    def result_names(self) -> list[str]:
        """For a struct returned by value, its members' names as its values are named (``pos_x``
        for ``.pos.x``); empty otherwise."""
        if self.result.kind != "record":
            return []
        return [leaf.path[1:].replace(".", "_") for leaf in self.result.record.leaves]  # type: ignore[union-attr]


@dataclass
class CContext:
    """What lowering one function needs of the file."""

    filename: str
    lines: list[str]
    typedefs: dict[str, list[str]]
    constants: dict[str, c_ast.Node]  # #define'd and global const values, as expressions
    signatures: dict[str, Signature] = field(default_factory=dict)
    globals: dict[str, c_ast.Decl] = field(default_factory=dict)  # other file-scope variables
    recursive_calls: frozenset[int] = frozenset()  # id() of calls that close a recursion cycle
    structs: Optional[StructTable] = None
    macro_names: frozenset[str] = frozenset()  # the file's own #define'd constants
    cuda: Optional[dict[str, str]] = None  # .cu input: function -> "global", "device" or "host"
    shared_lines: frozenset[int] = frozenset()  # lines where __shared__ was written
    pragmas: dict[int, str] = field(default_factory=dict)  # running line -> #pragma text
    sources: Optional[SourceMap] = None  # running lines -> the user's files, lines and columns
    # The file's own typedefs (of numbers, of enums) and tagged enums, as C output writes them.
    typedef_text: dict[str, str] = field(default_factory=dict)
    prototypes: dict[str, c_ast.Decl] = field(default_factory=dict)  # declared here, defined elsewhere
    tables: dict[str, c_ast.Decl] = field(default_factory=dict)  # file-scope const arrays
    derivatives: Derivatives = NO_DERIVATIVES  # the custom adjoints of functions defined elsewhere
    stops: dict[str, Stopping] = field(default_factory=dict)  # functions of the file that always stop (c_stops)


def assigned_names(node: Optional[c_ast.Node]) -> list[str]:
    """Variables a statement may assign (whole variables: ``x = ``, ``x++``, ``p += 2``)."""
    out: list[str] = []
    if node is None:
        return out
    for n in walk(node):
        target = None
        if isinstance(n, c_ast.Assignment):
            target = n.lvalue
        elif isinstance(n, c_ast.UnaryOp) and n.op in INCREMENTS:
            target = n.expr
        name = _dotted(target)
        if name is not None and name not in out:
            out.append(name)
    return out


def _counted_from_below(st: c_ast.For) -> Optional[c_ast.For]:
    """``for (size_t i = n; i-- > c; ) S``, C's count-down over an unsigned index, as the counted
    loop it is, ``for (i = n - 1; i >= c; i--) S``, where ``i`` is the loop's own and ``S`` leaves
    it alone (the body sees the same values; the integers the IR computes in are signed, so the
    last decrement does not wrap: ``c_unsigned.counted_down``)."""
    tested, least = counted_down(st.cond) or (None, 0)
    decls = st.init.decls if isinstance(st.init, c_ast.DeclList) else []
    if tested is None or st.next is not None or len(decls) != 1 or decls[0].name != tested.expr.name \
            or decls[0].init is None or tested.expr.name in assigned_names(st.stmt):
        return None
    coord = st.cond.coord
    decl = copy.copy(decls[0])
    decl.init = c_ast.BinaryOp("-", decl.init, c_ast.Constant("int", "1", coord), coord)
    i = c_ast.ID(decl.name, coord)
    return c_ast.For(c_ast.DeclList([decl], st.init.coord), c_ast.BinaryOp(">=", i, c_ast.Constant(
        "int", str(least), coord), coord), c_ast.UnaryOp("p--", c_ast.ID(decl.name, coord), coord), st.stmt, st.coord)


def addressed_members(node: Optional[c_ast.Node]) -> list[str]:
    """The structs and struct members whose address a statement takes (``&T``, ``&w.gamma``): a
    callee given one may write the numbers, which the caller reads back from their cells after
    the call (``c_records``), so a loop carries them as it does an assignment's."""
    out: list[str] = []
    for n in walk(node) if node is not None else ():
        name = _dotted(n.expr) if isinstance(n, c_ast.UnaryOp) and n.op == "&" else None
        if name is not None and name not in out:
            out.append(name)
    return out


def mentioned_names(node: Optional[c_ast.Node]) -> list[str]:
    """The variable names a statement mentions, in order, once each."""
    out: list[str] = []
    for n in walk(node) if node is not None else ():
        if isinstance(n, c_ast.ID) and n.name not in out:
            out.append(n.name)
    return out


def _passed(name: str, body: c_ast.Node) -> bool:
    """Whether ``body`` passes the variable ``name`` (or its address) to a call."""
    for n in walk(body):
        if isinstance(n, c_ast.FuncCall) and n.args is not None:
            for a in n.args.exprs:
                a = a.expr if isinstance(a, c_ast.UnaryOp) and a.op == "&" else a
                if isinstance(a, c_ast.ID) and a.name == name:
                    return True
    return False


def _dotted(node: Optional[c_ast.Node]) -> Optional[str]:
    """``x`` for a variable, ``C.pos.x`` for a member of a struct variable (``c_records``)."""
    if isinstance(node, c_ast.ID):
        return node.name
    if isinstance(node, c_ast.StructRef) and node.type == ".":
        inner = _dotted(node.name)
        return None if inner is None else f"{inner}.{node.field.name}"
    return None


class CFunctionLowerer(CPointerLowering, CExprLowering, CRecordLowering, StructuredLowering, CSwitchLowering,
                       COmpLowering, CMemoryCalls, CMpiCalls):
    def __init__(self, fn: c_ast.FuncDef, ctx: CContext, plan: Optional[dict[str, list[tuple[str, int]]]] = None,
                 offsets: frozenset[str] = frozenset()):
        StructuredLowering.__init__(self)
        self.fn = fn
        self.ctx = ctx
        self.scopes: list[dict[str, str]] = [{}]
        self.ctypes: dict[str, CType] = {}
        self.declared_count: dict[str, int] = {}  # name -> the k of its latest key, name#k
        self.local_structs: set[str] = set()  # struct types of local arrays (Point pts[4]): output defines them
        self.declared_in_loop: dict[str, int] = {}
        self.loop_depth = 0
        self.declaring: Optional[tuple[str, CType]] = None  # the pointer whose initializer is lowered
        self.macro_uses: list[SourceLoc] = []
        self.expanding: set[str] = set()
        self.record_cells: set[str] = set()  # struct members that are memory (c_records)
        self.read_only_leaves: dict[str, str] = {}
        self.heap_records: set[str] = set()  # Camera *c = malloc(sizeof(Camera)): held as its members
        self.address_of: dict[str, str] = {}  # Params *q = &p of a local struct: q's key -> p's (c_records)
        # Layer *L = &net->layers[l]: L's key -> that place and its spelling (c_expr.pointer_into_member)
        self.member_places: dict[str, tuple[Place, str]] = {}
        nodes = list(walk(fn.body))  # what the three below read, walked once for them
        self.addressed = addressed_names(nodes)  # variables whose address is taken: cells (c_pointers)
        # Structs whose address sets a pointer assigned again: one struct in memory each (c_pointers)
        self.swapped = swapped_structs(nodes)
        self.struct_runs: set[str] = set()  # the keys of such structs
        # double **A whose rows a loop mallocs: one n x m array (c_row_allocs), by declaration,
        # by the loop before which it is allocated, and the row statements that then do nothing
        self.row_allocs = row_allocations(nodes, self.ctx.constants)
        self.refused: set[str] = set()  # keys of variables whose declarations were refused (attempt)
        self.row_loops = {id(r.loop): r for r in self.row_allocs.values()}
        self.row_stmts = {id(st) for r in self.row_allocs.values() for st in r.nothing}
        self.pointer_tables: dict[str, PointerTable] = {}  # double *rows[3] = {a, b, c} (c_pointers)
        self.cells: set[str] = set()
        # Pointer variables that move between arrays (c_pointers.Aim), found by an earlier
        # lowering of the same function (``lower_function`` lowers it again when one is found).
        self.plan = {k: list(v) for k, v in (plan or {}).items()}
        self.offsets = set(offsets)
        self.replan = False
        self.roots: dict[str, Value] = {}
        self.root_keys: dict[int, str] = {}
        self._spans: dict[c_ast.Node, SourceLoc] = {}  # node -> its span (``loc``), held while lowering

    # -- locations -------------------------------------------------------------------------------
    def loc(self, node: c_ast.Node) -> SourceLoc:
        coord = getattr(node, "coord", None)
        if coord is None or coord.file != self.ctx.filename:  # inside a macro's body: point at its use
            return self.macro_uses[-1] if self.macro_uses else SourceLoc(self.ctx.filename, 1, 1)
        out = self._spans.get(node)  # every op a statement makes asks: worked out once per node
        if out is None:
            out = self._spans[node] = span(node, self._sources)
        return out

    @property
    def _sources(self) -> SourceMap:
        """Where the running lines pycparser reports are in the user's files."""
        assert self.ctx.sources is not None, "the front end gives CContext the preprocessor's SourceMap"
        return self.ctx.sources

    @contextmanager
    def scope(self) -> Iterator[None]:
        """A C block scope: declarations inside it end with it."""
        self.scopes.append({})
        try:
            yield
        finally:
            self.scopes.pop()

    @contextmanager
    def loop_body(self) -> Iterator[None]:
        """Lowering a loop's body (a pointer declared outside may not switch arrays in it)."""
        self.loop_depth += 1
        try:
            yield
        finally:
            self.loop_depth -= 1

    # -- scopes and keys ---------------------------------------------------------------------------
    @property
    def cuda(self) -> bool:
        return self.ctx.cuda is not None

    def lookup(self, name: str) -> Optional[str]:
        """The key of a variable; of a struct's leaf for a dotted name (``C.pos.x``)."""
        root, dot, path = name.partition(".")
        for scope in reversed(self.scopes):
            if root in scope:
                key = scope[root]
                if dot and key in self.address_of:  # q->k of Params *q = &p: p's member itself
                    key = self.address_of[key]
                key += dot + path
                return key if key in self.ctypes else None
        return None

    def declare(self, name: str, t: CType, node: c_ast.Node) -> str:
        if name in self.scopes[-1]:
            raise self.fail(node, f"'{name}' is declared twice in the same scope")
        n = self.declared_count.get(name, 1)  # (from the last one: each `for (int i` of many loops
        key = name if n == 1 else f"{name}#{n}"  # tried every earlier i#k again)
        while key in self.ctypes:
            n += 1
            key = f"{name}#{n}"
        self.declared_count[name] = n
        self.scopes[-1][name] = key
        self.register(key, name, t)
        return key

    def register(self, key: str, hint: str, t: CType) -> None:
        """A variable's key: its type, its name for output, where it was declared."""
        self.ctypes[key] = t
        self.hints[key] = hint
        self.hints[key + "@"] = hint
        if t.kind == "pointer":
            self.key_types[key] = t.ir_array
            self.key_types[key + "@"] = I64
            if self.is_moving(key):
                self.declare_moving(key)
        elif t.kind == "array":
            self.key_types[key] = t.ir_array
        elif t.kind not in ("record", "void", "table"):  # a struct is its leaves, each registered on its own
            self.key_types[key] = value_type(t)
        self.declared_in_loop[key] = self.loop_depth

    def declared_type(self, node: c_ast.Node, where: c_ast.Node) -> CType:
        try:
            return ctype_of(node, self.ctx.typedefs, param=False, structs=self.ctx.structs)
        except TypeProblem as p:
            raise self.fail(p.node if getattr(p.node, "coord", None) else where, p.message, p.hint)

    def struct_named(self, node: c_ast.Node) -> Optional[StructLayout]:
        """The struct type a type node (``struct Body``, a typedef) names, if any."""
        if not isinstance(node, c_ast.TypeDecl) or self.ctx.structs is None:
            return None
        try:
            return self.ctx.structs.lookup(node.type)
        except TypeProblem as p:
            raise self.fail(p.node if getattr(p.node, "coord", None) else node, p.message, p.hint)

    def is_pointer_var(self, node: c_ast.Node) -> bool:
        if not isinstance(node, c_ast.ID):
            return False
        key = self.lookup(node.name)
        return key is not None and self.ctypes[key].kind == "pointer"

    def global_read(self, node: c_ast.ID, b: Builder) -> Value:
        """A file-scope number that is not const: read where the source reads it, as the gradient's
        file sees it, through an ``extern`` declaration (the user links the gradient with the
        file that defines it). An ``extern`` op: never moved or merged, its value kept for the
        reverse sweep; no derivative (it is not a parameter); a ``global`` op, a value, where no
        code defined elsewhere is called (``c_globals``). A function that writes it or takes its
        address is refused there (``CExprLowering.store``, ``&``)."""
        decl = self.ctx.globals[node.name]
        keep = "pass it as a parameter, or make it a const or a #define"
        try:
            t = ctype_of(decl.type, self.ctx.typedefs, param=False)
        except TypeProblem:
            t = None
        if isinstance(decl.type, c_ast.ArrayDecl) and "static" in decl.storage:  # (others: c_global_arrays)
            raise self.fail(node, f"'{node.name}' is a static array at file scope: the gradient, in a file of its "
                            "own, cannot reach it", "drop static (the gradient then uses the program's array, "
                            "declared extern), or pass it as a parameter")
        if t is None or t.kind != "scalar" or t.scalar is None:
            raise self.fail(node, f"the global variable '{node.name}' is not a number: s2sad reads global "
                            "numbers, and arrays of numbers of known size", keep)
        if "static" in decl.storage and node.name not in assigned_names(self.fn.body):
            raise self.fail(node, f"'{node.name}' is a static global variable: the gradient, in a file of its own, "
                            "cannot read it", "drop static (the gradient then declares it extern), or " + keep)
        # (one the function writes, static or not, is refused where it writes it: CExprLowering.store)
        if self.ctx.cuda is not None:
            raise self.fail(node, f"'{node.name}' is a global variable of the host: device code cannot read it", keep)
        attrs = {"callee": node.name, "global": True, "args": [],
                 "prototype": f"extern {' '.join(self.ctx.typedefs.get(t.spelling, [t.spelling]))} {node.name}"}
        return self.at(b, node).create("extern", [], [value_type(t)], attrs).result

    def constant_count(self, node: Optional[c_ast.Node]) -> Optional[int]:
        return int_constant(node, self.ctx.constants, set()) if node is not None else None

    def named_constant(self, node: c_ast.ID, b: Builder) -> Optional[Value]:
        expr = self.ctx.constants.get(node.name)
        if expr is None:
            if node.name in self.ctx.globals:
                return self.global_read(node, b)
            return self.named_mpi_constant(node, b)
        if node.name in self.expanding:
            raise self.fail(node, f"'{node.name}' is defined in terms of itself")
        self.expanding.add(node.name)
        self.macro_uses.append(self.loc(node))
        try:
            v = self.scalar(expr, b, {})
        finally:
            self.macro_uses.pop()
            self.expanding.discard(node.name)
        if build.const_value(v) is None:
            raise self.fail(node, f"'{node.name}' must be a constant expression")
        if node.name in self.ctx.macro_names and isinstance(expr, c_ast.Constant) and v.defining_op is not None:
            v.defining_op.attrs["macro"] = node.name  # C output prints the name, and its #define
        return v

    # -- the function --------------------------------------------------------------------------------
    def lower(self, sig: Signature) -> Function:
        fn = self.fn
        self.sig = sig
        self.init_omp()
        params = self.param_decls()
        names = [name for name, _, _ in self.ir_params(params, sig)]
        body = Block(sig.param_types, names)
        loc = self.loc(fn.decl)
        b = Builder(body, loc)
        env: Env = {}
        args = iter(body.args)
        for p, t in zip(params, sig.params):
            if t.kind == "record":
                self.bind_record_param(p.name, t, p, [next(args) for _ in param_leaves(t)], b, env)
                continue
            arg = next(args)
            key = self.declare(p.name, t, p)
            if t.kind == "pointer":
                self.note_root(key, arg)
                self.bind_pointer(key, Ptr(arg, None, t.layout), b, env, p)
            elif self.wants_cell(p.name, t):
                self.new_cell(key, p.name, t, arg, b, env)
            else:
                env[key] = arg
        self.tables(b, env)
        # The keys of the values returned: RESULT, or one per leaf of a struct returned by value
        # (RESULT + ".re"), carried through branches and loops like any variable.
        self.result_keys = [RESULT + leaf.path for leaf in sig.result.record.leaves] \
            if sig.result.kind == "record" else [] if sig.result.kind == "void" else [RESULT]  # type: ignore
        for k, t in zip(self.result_keys, sig.result_types):
            self.key_types[k] = t
            env[k] = b.op1("undef", [], t, "result")
        result_t = sig.result_types[0] if sig.result_types else None
        env[RETURNED] = build.const(b, False, BOOL, "returned")
        self.scopes.append({})
        self.top_depth = len(self.scopes)  # declarations at the function's top level
        items = statements(fn.body)
        self.block(items, b, env, None)
        self.check_omp_pragmas()
        b.loc = loc
        if result_t is None:
            b.create("return", [], [])
            return self.function(sig, body, loc)
        if not block_exits(items).always and not any(isinstance(n, (c_ast.Goto, c_ast.Label)) for n in walk(fn.body)):
            # (a goto, already refused where it stands, makes the paths to the end other ones)
            self.diagnostics.append(Diagnostic(
                f"function '{fn.decl.name}' can reach its end without returning a value", loc,
                hint="return a value on every path"))
        results = [env[k] for k in self.result_keys]
        results = [b.op1("undef", [], t, "result") if isinstance(r, Poison) else r
                   for r, t in zip(results, sig.result_types)]
        b.create("return", results, [])
        return self.function(sig, body, loc)

    @staticmethod
    def ir_params(params: list[c_ast.Decl], sig: Signature) -> list[tuple[str, str, Optional[list[str]]]]:
        """Each IR parameter's name, declared C type, and for a struct's leaf what the
        ``c_aggregates`` attribute records of it (``c_records``)."""
        out: list[tuple[str, str, Optional[list[str]]]] = []
        for p, t in zip(params, sig.params):
            if t.kind == "record":
                out += [(leaf_hint(p.name, pl.leaf.path), pl.ctype.spelling, aggregate_entry(p.name, t, pl))
                        for pl in param_leaves(t)]
            else:
                out.append((p.name, t.spelling, None))
        return out

    @staticmethod
    def fixed_members(params: list[c_ast.Decl], sig: Signature) -> list[tuple[str, list[str], Member]]:
        """The leaves of struct parameters whose size the struct declares: cells (one number) and
        fixed arrays, with their ``c_aggregates`` entries."""
        return [(leaf_hint(p.name, pl.leaf.path), aggregate_entry(p.name, t, pl), pl.leaf.member)
                for p, t in zip(params, sig.params) if t.kind == "record" for pl in param_leaves(t)
                if pl.kind == CELL or pl.leaf.member.shape == "array"]

    def tables(self, b: Builder, env: Env) -> None:
        """The file's read-only tables the body names (``static const double coef[5] = {...}``),
        each a local array filled at the function's start: the same values on every call, and
        one array for the whole body (a table first read inside a loop or a branch included)."""
        if not self.ctx.tables:
            return  # (most files have none: the body is not walked for the names it uses)
        names = {n.name for n in walk(self.fn.body) if isinstance(n, c_ast.ID)}
        for name, d in self.ctx.tables.items():
            if name not in names or self.lookup(name) is not None:  # unused, or a parameter's name
                continue
            t = None
            try:
                t = self.declared_type(d.type, d)
                if t.kind != "array":
                    raise self.fail(d, f"the table '{name}' must be an array of numbers")
                if t.dims[0] is None:
                    t = self.sized_by_initializer(d, t)
                key = self.declare(name, t, d)
                env[key] = self.local_array(d, t, b, env)
                self.note_root(key, env[key])  # type: ignore[arg-type]
            except Fail as f:
                self.report(f)
                if t is not None:  # (declared before its values failed: doorfuzz seed 17100532)
                    env[self.lookup(name) or self.declare(name, t, d)] = Poison()

    def function(self, sig: Signature, body: Block, loc: SourceLoc) -> Function:
        decls = self.param_decls()
        ir_params = self.ir_params(decls, sig)
        attrs: dict = {"c_params": [spelled for _, spelled, _ in ir_params], "c_result": sig.result.spelling}
        if sig.result_names:  # a struct returned by value: its values are its members
            attrs["result_names"] = sig.result_names
        aggregates = {name: entry for name, _, entry in ir_params if entry is not None}
        if aggregates:  # struct parameters: which leaf is which member (the C emitter spells them)
            attrs["c_aggregates"] = aggregates
        if sig.declared:  # double A[n][m]: the declared extents are the array's shape
            attrs["shapes"] = {decls[k].name: list(read.extents) for k, read in sig.declared.items()}
            macros = {name: value for read in sig.declared.values() for name, value in read.macros}
            if macros:  # double A[N][N]: the signature names N, which the output defines again
                attrs["c_macros"] = macros
        members = {name: [1] if entry[3] == CELL else list(t.extents)
                   for name, entry, t in self.fixed_members(decls, sig)}
        if members:  # a struct's number (a cell) and fixed array members: sizes the struct declares
            attrs["shapes"] = {**attrs.get("shapes", {}), **members}
        structs = self.ctx.structs.definitions(
            [p.layout.name if p.layout is not None else p.record.name for p in sig.params  # type: ignore[union-attr]
             if p.layout is not None or p.record is not None] + sorted(self.local_structs)) \
            if self.ctx.structs is not None else []
        if structs:
            attrs["c_structs"] = structs
            mixed = [[entry[0], layout.slot_paths] for entry in structs
                     if (layout := self.ctx.structs.layouts.get(entry[0])) is not None  # type: ignore[union-attr]
                     and layout.mixed]
            if mixed:  # structs with integer members: [name, each slot's member] (emit_c)
                attrs["c_mixed"] = mixed
        unsigned = sorted({(t.spelling, 8 * BYTES[t.scalar.name]) for t, d in zip(sig.params, self.param_decls())
                           if t.kind == "scalar" and is_unsigned(d.type, self.ctx.typedefs)}  # type: ignore
                          | self.unsigned_members(sig))
        if unsigned:  # [spelling, bits]: C output reads these as the signed integers the IR means
            attrs["c_unsigned"] = [list(u) for u in unsigned]
        # The signature's and its structs' (``real pos[3];``): the output file defines them again.
        typedefs = self.typedefs_spelled([p.spelling for p in sig.params] + [sig.result.spelling]
                                         + [d for _, d, _ in structs])
        if typedefs:
            attrs["c_typedefs"] = typedefs
        if self.ctx.cuda is not None:
            attrs["cuda"] = self.ctx.cuda.get(self.fn.decl.name, "host")
        return Function(self.fn.decl.name, body, sig.result_types, loc, attrs,
                        source_names=frozenset(self.hints[key] for key in self.ctypes))

    def unsigned_members(self, sig: Signature) -> set[tuple[str, int]]:
        """The unsigned integer members of struct parameters (``size_t n``), as leaf spellings."""
        out = set()
        for t in sig.params:
            for pl in param_leaves(t) if t.kind == "record" else []:
                m = pl.leaf.member
                words = m.spelling.replace("*", " ").split()
                if m.shape == "scalar" and pl.kind != CELL and m.scalar is not None and m.scalar.is_int and \
                        is_unsigned(c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(words)), self.ctx.typedefs):
                    out.add((m.spelling, 8 * BYTES[m.scalar.name]))
        return out

    def typedefs_spelled(self, spellings: list[str]) -> list[list[str]]:
        """``[name, "typedef double real;"]`` for each of the file's typedefs the signature
        spells (``real *x``), those they are written in terms of first: the gradient keeps the
        user's spelling, so its file must define the names."""
        out: dict[str, str] = {}

        def need(word: str) -> None:
            text = self.ctx.typedef_text.get(word)
            if text is None or word in out:
                return
            for inner in self.ctx.typedefs.get(word, []):
                need(inner)
            out[word] = text

        for spelled in spellings:
            words = spelled.replace("*", " ").split()
            for k, word in enumerate(words):
                need(f"enum {word}" if k and words[k - 1] == "enum" else word)
        return [[name, text] for name, text in out.items()]

    def atomic_store(self, update: c_ast.Node, where: c_ast.Node, b: Builder, env: Env, message: str,
                     hint: str) -> None:
        """``update`` (``y[k] += e``) lowered, its one store marked ``atomic``; ``message`` at
        ``where`` when it takes more than one store, a call or control flow."""
        block = b.block
        before = set(map(id, block.ops))
        self.expr(update, b, env)
        new = [op for op in block.ops if id(op) not in before]
        stores = [op for op in new if op.name == "store"]
        if len(stores) != 1 or any(op.regions or op.name == "call" for op in new):
            raise self.fail(where, message, hint)
        stores[0].attrs["atomic"] = True

    def atomic_add(self, node: c_ast.FuncCall, args: list[c_ast.Node], b: Builder, env: Env,
                   want_value: bool) -> None:
        """CUDA's ``atomicAdd(p, e)`` as a statement: ``*p += e``, its store marked ``atomic`` as
        '#pragma omp atomic' marks one (the adjoint reads ``d_p[0]``; the gradient's forward sweep
        adds atomically again). The old value it returns depends on the order of the threads."""
        if want_value:
            raise self.fail(node, "the value atomicAdd returns (the old one) is not supported",
                            "call atomicAdd(p, e) as a statement of its own")
        if len(args) != 2:
            raise self.fail(node, "atomicAdd takes a pointer and a value")
        update = c_ast.Assignment("+=", c_ast.UnaryOp("*", args[0], coord=node.coord), args[1], coord=node.coord)
        self.atomic_store(update, node, b, env, "atomicAdd of this value is not supported",
                          "add a value free of calls")
        return None

    def param_decls(self) -> list[c_ast.Decl]:
        args = self.fn.decl.type.args
        params = list(args.params) if args is not None else []
        if len(params) == 1 and isinstance(params[0], c_ast.Typename):
            return []  # f(void)
        return params  # type: ignore[return-value]

    # -- statement lists (the walk itself is StructuredLowering.block) --------------------
    def if_exits(self, st: c_ast.Node) -> Optional[tuple[Exits, Exits]]:
        if not isinstance(st, c_ast.If):
            return None
        return block_exits(statements(st.iftrue)), block_exits(statements(st.iffalse))

    @staticmethod
    def stmt_exits(st: c_ast.Node) -> Exits:
        return stmt_exits(st)

    def stmt_loc(self, st: c_ast.Node) -> SourceLoc:
        return self.loc(st)

    def attempt(self, st: c_ast.Node, env: Env, lower: Callable[[], None]) -> bool:
        try:
            lower()
            return True
        except Fail as f:
            if not any(self.lookup(n) in self.refused for n in mentioned_names(st)):
                self.report(f)  # (a statement that uses a variable refused where declared: a follow-on)
            for d in (st.decls if isinstance(st, c_ast.DeclList) else [st] if isinstance(st, c_ast.Decl) else []):
                if d.name and d.name not in self.scopes[-1]:
                    # Refused where it is declared, reported: a statement that fails where it uses
                    # it says nothing more (above: each use of a struct pointer whose allocation was
                    # refused said again that it points to one struct).
                    try:
                        t = self.declared_type(d.type, d)
                    except Fail:  # its type is the problem, already reported
                        t = CType("void", None, "")
                    key = self.declare(d.name, t, d)
                    env[key] = Poison()
                    self.refused.add(key)
            for name in assigned_names(st) + sorted(addressed_names(list(walk(st)))):  # &m: a callee may set m
                key = self.lookup(name)
                if key is not None and self.ctypes[key].kind == "record":  # &w: w's numbers (c_records)
                    for leaf, t in self.record_leaves(key):
                        if t.kind == "scalar" and leaf not in self.record_cells:
                            env[leaf] = Poison()
                elif key is not None:
                    env[key] = Poison()
            return False

    def scoped(self, items: Sequence[c_ast.Node], loop: Optional[LoopFrame]) -> Callable[[Builder, Env], None]:
        def run(b: Builder, env: Env) -> None:
            with self.scope():
                self.block(items, b, env, loop)
        return run

    # -- statements -----------------------------------------------------------------------------------
    def stmt(self, st: c_ast.Node, b: Builder, env: Env, loop: Optional[LoopFrame]) -> None:
        b.loc = self.loc(st)
        if self.omp_statement(st, b, env):
            return
        if id(st) in self.row_loops:
            self.allocate_rows(self.row_loops[id(st)], b, env)
        if id(st) in self.row_stmts:
            return  # A[i] = malloc(m * sizeof(double)): a row of the array allocated before the loop
        if isinstance(st, c_ast.Decl):
            self.decl(st, b, env)
        elif isinstance(st, c_ast.FuncCall):
            self.call(st, b, env, want_value=False)
        elif isinstance(st, (c_ast.Assignment, c_ast.UnaryOp, c_ast.ExprList, c_ast.BinaryOp, c_ast.ID,
                             c_ast.Constant, c_ast.Cast, c_ast.TernaryOp, c_ast.ArrayRef)):
            self.expr(st, b, env)
        elif isinstance(st, c_ast.Return):
            self.return_stmt(st, b, env)
        elif isinstance(st, (c_ast.Break, c_ast.Continue)):
            key = None if loop is None else loop.done if isinstance(st, c_ast.Break) else loop.skip
            if not key:  # a switch outside any loop has no continue flag
                raise self.fail(st, f"'{'break' if isinstance(st, c_ast.Break) else 'continue'}' outside a loop")
            env[key] = build.const(b, True, BOOL, self.hint(key))
        elif isinstance(st, c_ast.If):
            self.if_stmt(st, b, env, loop, [], into_then=False)
        elif isinstance(st, c_ast.Switch):
            self.switch_stmt(st, b, env, loop)
        elif isinstance(st, Arm):
            self.arm(st, b, env, loop)
        elif isinstance(st, c_ast.Compound):
            self.scoped(statements(st), loop)(b, env)
        elif isinstance(st, c_ast.For):
            self.for_stmt(st, b, env)
        elif isinstance(st, c_ast.While):
            self.while_stmt(st, b, env)
        elif isinstance(st, c_ast.DoWhile):
            with self.scope():
                self.general_loop(st, b, env, test=None, body=statements(st.stmt), post=[], post_test=st.cond)
        elif isinstance(st, c_ast.EmptyStatement):
            pass
        elif isinstance(st, c_ast.DeclList):
            for d in st.decls:
                self.decl(d, b, env)
        elif isinstance(st, c_ast.Pragma):
            pass
        else:
            message, hint = _UNSUPPORTED.get(type(st), (f"this statement is not supported ({type(st).__name__})",
                                                        ""))
            raise self.fail(st, message, hint)

    def return_stmt(self, st: c_ast.Return, b: Builder, env: Env) -> None:
        result_t = self.key_types.get(RESULT)
        if st.expr is None:
            if self.result_keys:
                raise self.fail(st, "'return' without a value in a function that returns a value")
        elif self.sig.result.kind == "record":  # return c; (*p, g(...)): each member one of the values
            self.copy_record(RESULT, self.sig.result, st.expr, b, env)
        else:
            if result_t is None:
                raise self.fail(st.expr, "a void function cannot return a value")
            v = self.scalar(st.expr, b, env)
            env[RESULT] = self.convert(self.number(v, b), result_t, self.at(b, st))
        env[RETURNED] = build.const(self.at(b, st), True, BOOL, "returned")

    # -- declarations -----------------------------------------------------------------------------------
    def never_written(self, d: c_ast.Decl) -> bool:
        """Whether the function surely never changes the static ``d`` (or anything of its name):
        no assignment, increment or address of it or of an element of it; an array only ever
        subscripted (a bare ``w`` is a pointer that may be written through)."""
        nodes = list(walk(self.fn.body))
        subscripted = {id(n.name) for n in nodes if isinstance(n, c_ast.ArrayRef)}
        for n in nodes:
            target = changed_target(n)
            while isinstance(target, (c_ast.ArrayRef, c_ast.StructRef)):
                target = target.name
            if isinstance(target, c_ast.ID) and target.name == d.name:
                return False
            if isinstance(d.type, c_ast.ArrayDecl) and isinstance(n, c_ast.ID) and n.name == d.name \
                    and id(n) not in subscripted:
                return False
        return True

    def decl(self, d: c_ast.Decl, b: Builder, env: Env) -> None:
        if isinstance(d.type, c_ast.FuncDecl):
            return  # a prototype (extern double g(double);) declares nothing lowering needs
        if id(d) in self.row_allocs:
            r = self.row_allocs[id(d)]
            self.declare(d.name, self.rows_type(r), d)  # given its array by allocate_rows
            return
        if pointer_table_elem(d.type) is not None:
            self.pointer_table(d, b, env)
            return
        if "extern" in d.storage:
            raise self.fail(d, "'extern' local variables are not supported", "pass the value as a parameter")
        if isinstance(d.type, c_ast.Enum):
            raise self.fail(d, "an enum defined inside a function is not supported", "define it at file scope")
        if "static" in d.storage and not (d.init is not None and ("const" in d.quals or self.never_written(d))) \
                and not (isinstance(d.type, c_ast.TypeDecl) and set_before_read(self.fn.body, d.name)):
            # A static with an initializer that nothing writes (const, or in fact) holds the same
            # values at every call, and one set before it is read never shows the value it kept
            # from the call before: a plain local.
            raise self.fail(d, "'static' local variables that the function writes are not supported"
                            if d.init is not None else "'static' local variables without an initializer are not "
                            "supported", "declare a plain local: a static variable keeps its value from one call "
                            "to the next (a static with an initializer that nothing writes, or a number the "
                            "function sets before it reads it, is accepted)")
        t = self.declared_type(d.type, d)
        if t.kind == "void":
            raise self.fail(d, "a variable cannot be void")
        if t.kind == "array" and t.dims[0] is None:
            t = self.sized_by_initializer(d, t)
        if t.kind == "record" and not t.indirect and d.name in self.swapped:
            self.struct_run(d, t, b, env)
            return
        if t.kind == "record":
            self.local_record(d, t, b, env)
            return
        if t.kind == "pointer" and t.layout is not None and d.init is not None \
                and self.pointer_to_one_struct(d, t, b, env):
            return  # Params *q = &p: q->k is p.k; Sys *t = s of a pointer to one struct (c_records)
        if t.kind == "pointer" and t.layout is not None and d.init is not None \
                and self.pointer_into_member(d, t, b, env):
            return  # Layer *L = &net->layers[l]: L->w is net->layers[l].w (c_expr)
        init = d.init
        if d.coord is not None and d.coord.line in self.ctx.shared_lines:
            self.shared_array(d, t, b, env)
            return
        if t.kind == "array":
            arr = self.local_array(d, t, b, env)
            key = self.declare(d.name, t, d)
            env[key] = arr
            self.note_root(key, arr)
            return
        if t.kind == "pointer":
            self.declaring = (d.name, t)  # double *f = malloc(n * sizeof *f): f is in scope in its initializer
            try:
                value = self.pointer_value(init, t, b, env, d) if init is not None else None
            finally:
                self.declaring = None
            key = self.declare(d.name, t, d)
            if value is not None:
                if self.root_keys.get(id(value.base)) is None and value.base.defining_op is not None \
                        and value.base.defining_op.name == "alloc":
                    self.note_root(key, value.base)  # double *w = malloc(...)
                self.bind_pointer(key, value, b, env, d)
            elif self.is_moving(key):
                env[key + "#"] = Poison()  # never pointed anywhere yet: reading it is reported
            return
        v = None
        if init is not None:
            if isinstance(init, c_ast.InitList):
                raise self.fail(init, "a scalar cannot have a brace initializer")
            v = self.number(self.scalar(init, b, env), self.at(b, d))
        key = self.declare(d.name, t, d)
        if self.wants_cell(d.name, t):
            self.new_cell(key, d.name, t, v, self.at(b, d), env)
            return
        if v is not None:
            v = self.convert(v, value_type(t), self.at(b, d))
            if not v.name_hint and v.defining_op is not None:
                v.name_hint = d.name
            env[key] = v

    def struct_run(self, d: c_ast.Decl, t: CType, b: Builder, env: Env) -> None:
        """``S sa;`` whose address sets a pointer that moves (``swapped_structs``): one struct in
        memory, as ``S sa[1]`` would be (a run of its numbers, ``c_structs``), so ``&sa`` points at it
        and ``sa.a[i]`` reads it there."""
        layout = self.struct_named(d.type)
        if layout is None:
            raise self.fail(d, f"a pointer is pointed at '{d.name}' and at other {t.spelling}s in turn, which s2sad "
                            f"supports for structs of numbers only", f"keep {d.name}'s members in arrays of their "
                            "own, and swap pointers to them")
        if d.init is not None and not isinstance(d.init, c_ast.InitList):
            raise self.fail(d.init, f"'{d.name}' is held in memory (a pointer is pointed at it and then elsewhere): "
                            "it is initialized by a brace list or by its members only",
                            f"assign its members: {d.name}.x = ...")
        run = CType("array", layout.elem, t.spelling, (c_ast.Constant("int", "1", coord=d.coord),), layout=layout)
        whole = c_ast.Decl(d.name, d.quals, [], [], [], d.type, None, None, coord=d.coord)
        arr = self.local_array(whole, run, b, env)
        key = self.declare(d.name, run, d)
        self.struct_runs.add(key)
        env[key] = arr
        self.note_root(key, arr)
        if d.init is None:
            return
        arr.defining_op.attrs["fill"] = "zeros"  # type: ignore[union-attr]  # what the list leaves out is 0
        for target, value in self.member_entries(c_ast.ID(d.name, coord=d.coord), d.init, (), layout):
            v = self.scalar(value, b, env)
            if build.const_value(v) != 0:
                self.store(target, v, b, env, value)

    def member_entries(self, target: c_ast.Node, init: c_ast.Node, dims: tuple[int, ...],
                       layout: Optional[StructLayout]) -> list[tuple[c_ast.Node, c_ast.Node]]:
        """The initializer ``init`` of ``target`` (a struct of numbers, an array member, or a number) as
        (member, value) pairs in C's order: ``{{1.0, 2.0}, 3.0}`` gives ``sa.a[0]``, ``sa.a[1]``, then
        ``sa.w``; each struct and array member its own braces (``{0}`` alone: all zero)."""
        hint = "give each array or struct member its own braces, in order: {{1.0, 2.0}, 3.0}; or assign the members"
        at = init.coord
        if dims or layout is not None:
            if not isinstance(init, c_ast.InitList):
                raise self.fail(init, f"'{node_text(target)}' is initialized without its braces", hint)
            if len(init.exprs) == 1 and isinstance(init.exprs[0], c_ast.Constant) and init.exprs[0].value in (
                    "0", "0.0"):
                return []  # {0}: all zero
            if any(isinstance(e, c_ast.NamedInitializer) for e in init.exprs):
                raise self.fail(init, "designated initializers of a struct held in memory are not supported", hint)
            if dims:
                if len(init.exprs) > dims[0]:
                    raise self.fail(init, f"'{node_text(target)}' has {dims[0]} elements", hint)
                return [entry for k, e in enumerate(init.exprs) for entry in self.member_entries(
                    c_ast.ArrayRef(target, c_ast.Constant("int", str(k), coord=at), coord=at), e, dims[1:], layout)]
            assert layout is not None
            if len(init.exprs) > len(layout.fields):
                raise self.fail(init, f"{layout.name} has {len(layout.fields)} members", hint)
            return [entry for f, e in zip(layout.fields, init.exprs) for entry in self.member_entries(
                c_ast.StructRef(target, ".", c_ast.ID(f.name, coord=at), coord=at), e, f.dims, f.sub)]
        if isinstance(init, c_ast.InitList):
            raise self.fail(init, f"'{node_text(target)}' is a number: too many braces", hint)
        return [(target, init)]

    def pointer_table(self, d: c_ast.Decl, b: Builder, env: Env) -> None:
        """``const double *rows[3] = {a, b, c};`` never assigned again: a ``PointerTable``, so
        ``rows[k][j]`` is element j of the k-th array (``c_pointers.table_row``)."""
        hint = f"list the whole arrays it points at, double *{d.name}[3] = {{a, b, c}}, and index it {d.name}[k][j]"
        where = table_rebinding(self.fn.body, d.name)
        if where is not None:
            raise self.fail(where, f"the array of pointers '{d.name}' is assigned here: s2sad reads an array of "
                            "pointers only as the table of arrays its initializer lists", hint)
        if not isinstance(d.init, c_ast.InitList) or not d.init.exprs:
            raise self.fail(d, f"the array of pointers '{d.name}' needs an initializer listing its arrays", hint)
        entries = d.init.exprs
        dim = d.type.dim
        if dim is not None and build.const_value(self.integer(dim, b, env, "an array size")) != len(entries):
            raise self.fail(dim, f"'{d.name}' has {node_text(dim)} pointers and its initializer lists {len(entries)}",
                            hint)
        elem = F32 if pointer_table_elem(d.type) == ["float"] else F64
        arrays: list[Value] = []
        for e in entries:
            p = self.pointer(e, b, env)
            off = build.const_value(p.off) if p.off is not None else 0
            if off != 0 or p.base.type.rank != 1 or p.layout is not None or p.elem != elem \
                    or (p.base.defining_op is not None and p.base.defining_op.name == "view"):
                raise self.fail(e, f"each pointer of '{d.name}' must point at the start of a 1-D array of "
                                f"{elem.name}s", hint)
            arrays.append(p.base)
        key = self.declare(d.name, CType("table", elem, node_text(d.type)), d)
        self.pointer_tables[key] = PointerTable(tuple(arrays))
        env[key] = Poison(f"the array of pointers '{d.name}' is used here as a whole, which s2sad does not follow",
                          f"index it: {d.name}[k] (a pointer) or {d.name}[k][j] (a number)")

    def rows_type(self, r: RowAllocation) -> CType:
        """``double **A`` of rows ``A[i] = malloc(m * sizeof(double))`` for ``i < n``: ``double A[n][m]``."""
        at = r.decl.coord
        elem = c_ast.TypeDecl(r.decl.name, [], None, c_ast.IdentifierType(r.elem, coord=at), coord=at)
        row = c_ast.ArrayDecl(elem, r.width, [], coord=at)
        return self.declared_type(c_ast.ArrayDecl(row, r.rows, [], coord=at), r.decl)

    def allocate_rows(self, r: RowAllocation, b: Builder, env: Env) -> None:
        """The array of a ``RowAllocation``, allocated where its rows' loop starts (zero-filled
        when the rows are calloc'd)."""
        key = self.lookup(r.decl.name)
        assert key is not None
        whole = c_ast.Decl(r.decl.name, [], [], [], [], r.decl.type, c_ast.InitList([]) if r.zero else None, None,
                           coord=r.decl.coord)
        arr = self.local_array(whole, self.ctypes[key], b, env)
        env[key] = arr
        self.note_root(key, arr)

    def sized_by_initializer(self, d: c_ast.Decl, t: CType) -> CType:
        """``double w[] = {1.0, 2.0}``: as many elements (rows) as the initializer lists."""
        if not isinstance(d.init, c_ast.InitList):
            raise self.fail(d, "a local array needs its size",
                            "give the size (double a[3]) or an initializer (double a[] = {1.0, 2.0})")
        count = max((i + 1 for i, _ in self.positions(d.init)), default=0)  # (to the last designated one)
        return replace(t, dims=(c_ast.Constant("int", str(count), coord=d.coord), *t.dims[1:]))

    def local_array(self, d: c_ast.Decl, t: CType, b: Builder, env: Env) -> Value:
        init = d.init
        dims = [self.integer(n, b, env, "an array size") for n in t.dims]
        for n, v in zip(t.dims, dims):
            size = build.const_value(v)
            if size is not None and size < 0:  # C refuses it; at run time it is undefined
                raise self.fail(n, f"the size of array '{d.name}' is negative ({size})")
        fill = "empty"
        attrs: dict = {}
        values: list[tuple[list[int], c_ast.Node]] = []
        if t.layout is not None:  # Point pts[4]: the run of 4 structs' scalars (c_structs)
            dims = [build.mul(self.at(b, d), dims[0], build.const(b, t.layout.size, I64))]
            attrs["struct"] = t.layout.name
            self.local_structs.add(t.layout.name)
        if init is not None:
            if not isinstance(init, c_ast.InitList):
                raise self.fail(init, "an array needs a brace initializer: {0} or {1.0, 2.0}")
            fill = "zeros"
            values = self.struct_entries(init, t.layout) if t.layout is not None else \
                self.init_entries(init, len(dims), [])
            if "const" in d.quals and t.layout is None:  # a read-only table: C output prints it with its initializer
                attrs["table"] = True
        arr = self.at(b, d).op1("alloc", dims, t.ir_array, d.name, fill=fill, elem=t.scalar.name,  # type: ignore
                                **attrs)
        for index, node in values:
            v = self.number(self.scalar(node, b, env), self.at(b, node))
            if build.const_value(v) == 0:
                continue
            idx = [build.const(b, i, I64) for i in index]
            if t.layout is not None:  # pts[k].x, as output prints it: a field index (numbers only)
                k, j = divmod(index[0], t.layout.size)
                f = t.layout.fields[j]
                idx = [self.at(b, node).op1("field", [build.const(b, k, I64)], I64, "", struct=t.layout.name,
                                            path=f".{f.name}", coefs=[t.layout.size], offset=f.offset)]
            self.at(b, node).create("store", [arr, *idx, self.convert(v, t.scalar, b)], [])  # type: ignore
        return arr

    def shared_array(self, d: c_ast.Decl, t: CType, b: Builder, env: Env) -> None:
        """A ``__shared__`` array: one per block, so its size is a constant and every thread of
        the block meets its declaration (the gradient zeroes its shadow there, with a barrier)."""
        if t.kind != "array":
            raise self.fail(d, "only arrays can be __shared__", "declare a __shared__ array of one element")
        if d.init is not None:
            raise self.fail(d.init, "a __shared__ array cannot have an initializer", "let the threads fill it")
        if len(self.scopes) != self.top_depth:
            raise self.fail(d, "a __shared__ array must be declared at the top level of the kernel",
                            "move the declaration before the kernel's first if or loop")
        dims = [self.integer(n, b, env, "an array size") for n in t.dims]
        if any(build.const_value(v) is None for v in dims):
            raise self.fail(d, "a __shared__ array needs a constant size", "size it with a #define")
        arr = self.at(b, d).op1("alloc", dims, t.ir_array, d.name, fill="empty", elem=t.scalar.name,  # type: ignore
                                space=SHARED_SPACE)
        env[self.declare(d.name, t, d)] = arr

    def struct_entries(self, init: c_ast.InitList, layout: StructLayout) -> list[tuple[list[int], c_ast.Node]]:
        """The initializer of an array of structs, ``{0}`` or one braced list of numbers per struct
        (``{{0.0, 1.0}, {2.0, 3.0}}`` for structs of numbers only): (index in the run of scalars,
        value) pairs. Nested braces and brace elision are refused (C's rules for them place a
        number by the shape of each member)."""
        numbers_only = all(not f.dims and f.sub is None for f in layout.fields)
        first = init.exprs[0] if len(init.exprs) == 1 else None
        if first is not None and not isinstance(first, c_ast.InitList) and \
                (numbers_only or (isinstance(first, c_ast.Constant) and first.value in ("0", "0.0"))):
            return [([0], first)]  # {0} (or {x}: the first member of the first struct)
        out = []
        for k, e in enumerate(init.exprs):
            if not (numbers_only and isinstance(e, c_ast.InitList)
                    and not any(isinstance(x, (c_ast.InitList, c_ast.NamedInitializer)) for x in e.exprs)
                    and len(e.exprs) <= layout.size):
                raise self.fail(e, f"this initializer of an array of {layout.name} is not supported",
                                f"give each {layout.name} its braces and numbers ({{{{1.0, 2.0}}, ...}}), or "
                                "assign the members in a loop" if numbers_only else
                                f"assign the members in a loop ({layout.name} has array or struct members)")
            out += [([k * layout.size + j], x) for j, x in enumerate(e.exprs)]
        return out

    def init_entries(self, init: c_ast.InitList, rank: int, prefix: list[int]) -> list[tuple[list[int], c_ast.Node]]:
        out = []
        for i, e in self.positions(init):
            if isinstance(e, c_ast.InitList):
                if len(prefix) + 1 >= rank:
                    raise self.fail(e, "too many braces in this initializer")
                out += self.init_entries(e, rank, prefix + [i])
            else:
                if len(prefix) + 1 != rank:
                    raise self.fail(e, f"initialize a {rank}-D array row by row: {{{{1, 2}}, {{3, 4}}}}")
                out.append((prefix + [i], e))
        return out

    def positions(self, init: c_ast.InitList) -> list[tuple[int, c_ast.Node]]:
        """The entries of one level of an array's initializer with the index each sets: C counts on
        from a designated one (``{[2] = 0.5, 1.0}`` sets 2 and 3)."""
        out, i = [], 0
        for e in init.exprs:
            if isinstance(e, c_ast.NamedInitializer):
                where = e.expr if e.expr.coord is not None else init
                designator = e.name[0] if len(e.name) == 1 else None
                if not isinstance(designator, c_ast.ArrayDesignator):
                    raise self.fail(where, "this designated initializer of an array is not supported",
                                    "designate one element of the array: {[2] = 0.5}, or {[1] = {[0] = 1.0}} "
                                    "for a row")
                k = self.constant_count(designator.expr)
                if k is None or k < 0:
                    raise self.fail(where, "the index of a designated initializer must be a constant of at least 0")
                i, e = k, e.expr
            out.append((i, e))
            i += 1
        return out

    # -- pointers ------------------------------------------------------------------------------------------
    def pointer_value(self, node: c_ast.Node, t: CType, b: Builder, env: Env, where: c_ast.Node) -> Ptr:
        inner = node.expr if isinstance(node, c_ast.Cast) else node
        if isinstance(inner, c_ast.FuncCall) and isinstance(inner.name, c_ast.ID) and \
                inner.name.name in ("malloc", "calloc", "aligned_alloc", "posix_memalign"):
            return Ptr(self.allocation(inner, t, b, env, where))
        p = self.pointer_choice(inner, b, env, self.lookup(where.name)) if isinstance(inner, c_ast.TernaryOp) else \
            self.pointer(node, b, env, aims=True)
        if p.elem != t.scalar or p.layout != t.layout:
            what = p.layout.name if p.layout is not None else p.elem
            raise self.fail(node, f"a {what} array cannot be used as '{t.spelling}'")
        rank = max(1, len(t.dims))  # double *p: 1; double (*u)[M]: 2
        if subscripts(p) < rank and isinstance(node, c_ast.Cast):  # (const double (*)[NX])x: C converts it
            flat, row = node_text(node.expr), node_text(t.dims[-1]) if t.dims and t.dims[-1] is not None else "M"
            raise self.fail(node, f"a cast that reads the {subscripts(p)}-D '{flat}' as rows of another shape is "
                            "not supported yet", (f"declare the parameter with its rows ({flat}[][{row}]), or index "
                                                  if isinstance(node.expr, c_ast.ID) else "index ")
                            + f"it flat: {flat}[j * {row} + i]")
        if subscripts(p) != rank:
            raise self.fail(node, f"'{node_text(node)}' has {subscripts(p)} dimensions: C does not "
                            f"convert it to '{t.spelling}'", f"point at one of its rows: {node_text(node)}[i]"
                            if subscripts(p) > rank else f"point it at an array of rows of that size, or at rows "
                            f"allocated for it: {where.name} = malloc(n * sizeof *{where.name})")
        if rank > 1:
            self.same_rows(node, p, t)
        return p

    def same_rows(self, node: c_ast.Node, p: Ptr, t: CType) -> None:
        """``u = a`` of a pointer to rows ``t`` (``double (*u)[M]``): the arrays ``p`` points into have
        rows of the same extents, known constants or spelled alike by names the function never
        assigns (``double (*r)[m] = A`` of a parameter ``double A[n][m]``), as C's types require."""
        assigned = set(assigned_names(self.fn.body))

        def extent(d: Optional[c_ast.Node]) -> object:
            n = self.constant_count(d)
            if n is not None or d is None or any(isinstance(x, c_ast.ID) and x.name in assigned for x in walk(d)):
                return n
            return node_text(d)

        want = [extent(d) for d in t.dims[1:]]
        for arr in self.arrays_of(p):
            split = self.split_rows(arr)
            dims = self.ctypes[split[0]].dims if split is not None else ()
            if None in want or len(dims) < len(want) or [extent(d) for d in dims[len(dims) - len(want):]] != want:
                raise self.fail(node, f"'{node_text(node)}' is not an array of rows of '{t.spelling}'",
                                "point it at an array declared with rows of that size")

    def allocation(self, call: c_ast.FuncCall, t: CType, b: Builder, env: Env, where: c_ast.Node) -> Value:
        """``malloc(n * sizeof(T))``, ``calloc(n, sizeof(T))``, ``aligned_alloc(a, n * sizeof(T))``
        and ``posix_memalign(&p, a, n * sizeof(T))``: an ``alloc`` of n elements (alignment is the
        output's business: its own arrays are malloc'd)."""
        args = list(call.args.exprs) if call.args is not None else []
        name = call.name.name  # type: ignore[attr-defined]
        sized = {"malloc": (1, 0), "aligned_alloc": (2, 1), "posix_memalign": (3, 2)}  # arguments, the size's
        if name == "calloc":
            if len(args) != 2 or not self.is_sizeof(args[1]):
                raise self.fail(call, "calloc needs (count, sizeof(element))", "write calloc(n, sizeof(double))")
            count, size = args
        else:
            taken, at_size = sized[name]
            hint = "write " + {"malloc": "malloc(n * sizeof(double))",
                               "aligned_alloc": "aligned_alloc(64, n * sizeof(double))",
                               "posix_memalign": "posix_memalign((void **)&p, 64, n * sizeof(double))"}[name]
            if len(args) != taken:
                raise self.fail(call, f"{name} takes {taken} argument(s)", hint)
            e = args[at_size]
            while isinstance(e, c_ast.Cast):  # malloc((size_t)((nh - nl + 2) * sizeof(double))): the bytes as size_t
                e = e.expr
            if isinstance(e, c_ast.BinaryOp) and e.op == "*" and self.is_sizeof(e.right):
                count, size = e.left, e.right
            elif isinstance(e, c_ast.BinaryOp) and e.op == "*" and self.is_sizeof(e.left):
                count, size = e.right, e.left
            elif self.is_sizeof(e):  # malloc(sizeof(Camera)): one
                count, size = c_ast.Constant("int", "1", coord=e.coord), e
            else:
                raise self.fail(e, f"{name}'s size must be count * sizeof(element)", hint)
        if len(t.dims) > 1 and not t.pointer_rows and None in [self.constant_count(d) for d in t.dims[1:]]:
            return self.variable_rows_allocation(call, name, count, size, t, b, env, where)
        elem_size = self.size_of(size.expr)
        if len(t.dims) > 1 and not t.pointer_rows:
            return self.rows_allocation(call, name, count, size, elem_size, t, b, env, where)
        per = t.layout.size if t.layout is not None else 1  # Point *p = malloc(n * sizeof(Point)): n runs
        want = t.layout.nbytes if t.layout is not None else BYTES[t.scalar.name]  # type: ignore[union-attr]
        if elem_size != want:
            what = f"a {t.layout.name} is" if t.layout is not None else "the pointer's elements are"
            raise self.fail(size, f"sizeof gives {elem_size} bytes but {what} {want}",
                            f"write sizeof({t.layout.name if t.layout is not None else t.spelling.rstrip(' *')})")
        at = self.at(b, call)
        n = self.integer(count, b, env, "an allocation size")
        attrs: dict = {}
        if t.layout is not None:
            n = build.mul(at, n, build.const(at, per, I64))
            attrs["struct"] = t.layout.name
            self.local_structs.add(t.layout.name)
        fill = "zeros" if name == "calloc" else "empty"
        return at.op1("alloc", [n], t.ir_array, where.name, fill=fill,
                      elem=t.scalar.name, **attrs)  # type: ignore[union-attr]

    def rows_allocation(self, call: c_ast.FuncCall, name: str, count: c_ast.Node, size: c_ast.Node, elem_size: int,
                        t: CType, b: Builder, env: Env, where: c_ast.Node) -> Value:
        """``double (*a)[M] = malloc(n * sizeof *a)`` (``sizeof(double[M])``, ``sizeof(double[n][M])``
        alone, ``calloc(n, sizeof *a)``, ``n * M * sizeof(double)``): an array of as many whole rows
        as the bytes hold, each of the pointer's constant extents."""
        extents = [self.constant_count(d) for d in t.dims[1:]]
        hint = f"write {name}({'n, ' if name == 'calloc' else 'n * '}sizeof *{where.name})"  # type: ignore
        if None in extents:
            raise self.fail(where, f"the rows of '{where.name}' need a constant size",  # type: ignore
                            "size them with a #define or an integer constant")
        row = BYTES[t.scalar.name] * math.prod(extents)  # type: ignore[arg-type,union-attr]
        at = self.at(b, call)
        n = self.integer(count, b, env, "an allocation size")
        if elem_size % row == 0:  # n rows, or one block of elem_size / row of them
            rows = build.mul(at, n, build.const(at, elem_size // row, I64)) if elem_size != row else n
        elif row % elem_size == 0 and elem_size % BYTES[t.scalar.name] == 0:  # type: ignore[union-attr]
            # n * M * sizeof(double): as many rows as n elements fill (C keeps no part of a row)
            rows = build.div(at, n, build.const(at, row // elem_size, I64))
        else:
            raise self.fail(size, f"sizeof gives {elem_size} bytes, neither whole rows of '{where.name}' "  # type: ignore
                            f"({row} bytes) nor its numbers", hint)
        fill = "zeros" if name == "calloc" else "empty"
        return at.op1("alloc", [rows, *(build.const(at, e, I64) for e in extents)],  # type: ignore[misc]
                      t.ir_array, where.name, fill=fill, elem=t.scalar.name)  # type: ignore[union-attr]

    def variable_rows_allocation(self, call: c_ast.FuncCall, name: str, count: c_ast.Node, size: c_ast.Node,
                                 t: CType, b: Builder, env: Env, where: c_ast.Node) -> Value:
        """``double (*a)[m] = malloc(n * sizeof *a)`` of rows whose extents are known only when it
        runs (C99's variable-length rows; also ``sizeof(double[n][m])``, ``n * m * sizeof(double)``,
        ``calloc(n, sizeof *a)``): as many whole rows as the numbers the bytes hold, each of the
        extents the declaration gives, as they are where it is allocated."""
        at = self.at(b, call)
        extents = [self.integer(d, b, env, "the extent of a row") for d in t.dims[1:]]
        row: Value = extents[0]
        for e in extents[1:]:
            row = build.mul(at, row, e)
        numbers = self.numbers_in_sizeof(size.expr, where, row, t, b, env)  # type: ignore[attr-defined]
        if numbers is None:
            raise self.fail(size, f"s2sad cannot tell how many of the numbers of '{where.name}' "  # type: ignore
                            "this sizeof's bytes hold",
                            f"write {name}({'n, ' if name == 'calloc' else 'n * '}sizeof *{where.name})")  # type: ignore
        total = build.mul(at, self.integer(count, b, env, "an allocation size"), numbers)
        rows = build.binary(at, "floordiv", total, row)  # (C keeps no part of a row)
        fill = "zeros" if name == "calloc" else "empty"
        return at.op1("alloc", [rows, *extents], t.ir_array, where.name, fill=fill,
                      elem=t.scalar.name)  # type: ignore[union-attr]

    def numbers_in_sizeof(self, node: c_ast.Node, where: c_ast.Node, row: Value, t: CType, b: Builder,
                          env: Env) -> Optional[Value]:
        """How many of ``t``'s numbers ``sizeof node`` covers, as it runs: a row of the pointer
        ``where`` declares (``sizeof *a``, ``sizeof a[0]``; ``row`` of them), one (``sizeof a[0][0]``,
        ``sizeof(double)``), or an array type's (``sizeof(double[n][m])``); None for other bytes."""
        depth, base = 0, node
        while isinstance(base, c_ast.ArrayRef) or isinstance(base, c_ast.UnaryOp) and base.op == "*":
            base, depth = (base.name if isinstance(base, c_ast.ArrayRef) else base.expr), depth + 1
        if isinstance(base, c_ast.ID) and base.name == where.name and depth in (1, 2):  # type: ignore[attr-defined]
            return row if depth == 1 else build.const(b, 1, I64)
        if isinstance(node, c_ast.Typename) and isinstance(node.type, c_ast.ArrayDecl):
            dims, inner = [], node.type
            while isinstance(inner, c_ast.ArrayDecl):
                dims.append(inner.dim)
                inner = inner.type
            elem = self.declared_type(inner, node)
            if elem.kind != "scalar" or elem.scalar != t.scalar or None in dims:
                return None
            numbers: Value = build.const(b, 1, I64)
            for d in dims:
                numbers = build.mul(b, numbers, self.integer(d, b, env, "an array extent"))
            return numbers
        try:
            nbytes = self.size_of(node)
        except Fail:
            return None
        per = BYTES[t.scalar.name]  # type: ignore[union-attr]
        return build.const(b, nbytes // per, I64) if nbytes % per == 0 else None

    @staticmethod
    def is_sizeof(node: c_ast.Node) -> bool:
        return isinstance(node, c_ast.UnaryOp) and node.op == "sizeof"

    def bind_pointer(self, key: str, p: Ptr, b: Builder, env: Env, node: c_ast.Node) -> Ptr:
        """``p = ...``: the base, and an explicit offset (loops carry it, so it must exist)."""
        if self.is_moving(key):
            return self.bind_moving(key, p, b, env, node)
        if isinstance(p, Aim):  # p = q of a moving q, or p = c ? x : y
            self.want_moving(key, self.arrays_of(p))
            p = Ptr(p.choices[0][1], p.off, p.layout)
        off = p.off if p.off is not None else build.const(b, 0, I64)
        env[key], env[key + "@"] = p.base, off
        return Ptr(p.base, off, p.layout)

    def assign_pointer(self, target: c_ast.ID, value: c_ast.Node, b: Builder, env: Env) -> Ptr:
        key = self.lookup(target.name)
        assert key is not None
        t = self.ctypes[key]
        if "const" in t.spelling.split("*")[-1]:
            raise self.fail(target, f"'{target.name}' is a const pointer")
        held = env.get(key)
        if is_null_pointer(value) and key in self.read_only_leaves and isinstance(held, Value):
            # v->data = NULL after free(v->data) in a helper that frees the caller's struct: the
            # member points nowhere the program reads again; s2sad keeps it pointing where it did
            off = env.get(key + "@")
            return Ptr(held, off if isinstance(off, Value) else None, t.layout)
        self.check_writable(target, key)
        p = self.pointer_value(value, t, b, env, target)
        old = env.get(key)
        if isinstance(old, Value) and old is not p.base and self.declared_in_loop[key] < self.loop_depth \
                and not self.is_moving(key):
            self.want_moving(key, [old, *self.arrays_of(p)])  # the array depends on the iteration
        return self.bind_pointer(key, p, b, env, target)

    def move_pointer(self, target: c_ast.ID, step: Value, b: Builder, env: Env) -> Ptr:
        key = self.lookup(target.name)
        assert key is not None
        if self.is_moving(key):
            if key not in self.offsets:
                self.moves_within(key)  # lowered again with an offset to move
                return self.aim_of(key, env, target)
            env[key + "@"] = build.add(self.at(b, target), env[key + "@"], step)  # type: ignore[arg-type]
            return self.aim_of(key, env, target)
        base = env.get(key)
        if not isinstance(base, Value):
            raise self.fail(target, f"'{target.name}' does not point anywhere yet")
        off = env.get(key + "@")
        new = build.add(self.at(b, target), off if isinstance(off, Value) else build.const(b, 0, I64), step)
        new.name_hint = new.name_hint or target.name
        env[key + "@"] = new
        return Ptr(base, new, self.ctypes[key].layout)

    def shuffle(self, node: c_ast.FuncCall, name: str, args: list, b: Builder, env: Env) -> Value:
        """A warp shuffle, ``__shfl_down_sync(mask, v, delta)`` and its kin: the ``gpu.shfl`` op."""
        if len(args) == 4:
            raise self.fail(args[3], f"the width argument of {name} is not supported",
                            "shuffle across the whole warp: drop the width")
        if len(args) != 3:
            lane = "number" if name == "__shfl_sync" else "offset"
            raise self.fail(node, f"{name} takes a mask, a value and a lane {lane}")
        mask = self.integer(args[0], b, env, "the mask")
        value = self.number(self.scalar(args[1], b, env), self.at(b, args[1]))
        lane = self.integer(args[2], b, env, "the lane")
        mode = SHUFFLE_CALLS[name]
        if mode == "idx" and build.const_int(lane) is None:
            raise self.fail(args[2], "__shfl_sync from a lane that is not a constant is not supported: its adjoint "
                            "would add into lanes the reverse sweep cannot tell apart",
                            "broadcast from a constant lane (__shfl_sync(mask, v, 0)), or use __shfl_xor_sync")
        return self.at(b, node).op1(SHUFFLE, [mask, value, lane], value.type, "", mode=mode)

    # -- calls --------------------------------------------------------------------------------------------
    def call(self, node: c_ast.FuncCall, b: Builder, env: Env, want_value: bool) -> Optional[Value]:
        if not isinstance(node.name, c_ast.ID):
            raise self.fail(node, "only calls of functions by name are supported")
        name = node.name.name
        args = list(node.args.exprs) if node.args is not None else []
        if name == "free":
            if want_value or len(args) != 1:
                raise self.fail(node, "free takes one pointer and gives no value")
            while isinstance(args[0], c_ast.Cast):  # free((char *)(v + nl - 1)): free takes any pointer
                args[0] = args[0].expr
            held = self.record_variable(args[0])
            if held is not None and self.lookup(held[0]) in self.heap_records:
                return None  # a struct malloc'd alone is held as its members: nothing to free
            key = self.lookup(args[0].name) if isinstance(args[0], c_ast.ID) else None
            if key is not None and self.is_moving(key):
                return None  # ping-pong buffers swapped in a loop, freed by name: the output frees its own
            self.pointer(args[0], b, env)
            return None
        if name == "__syncthreads" and self.cuda:
            if want_value or args:
                raise self.fail(node, "__syncthreads() takes no arguments and gives no value")
            self.at(b, node).create(SYNC, [], [])
            return None
        if name == "atomicAdd" and self.cuda:
            return self.atomic_add(node, args, b, env, want_value)
        if name in SHUFFLE_CALLS and self.cuda:
            return self.shuffle(node, name, args, b, env)
        if name in STOP_CALLS or name in self.ctx.stops:
            return self.stop_call(node, name, args, b, env, want_value)
        if name in LEFT_OUT and name not in self.ctx.signatures:
            if want_value:
                raise self.fail(node, f"the value of '{name}' is not supported: s2sad differentiates computations, "
                                "not I/O", f"call {name} as a statement of its own")
            self.no_side_effects(node)
            return None  # printf(...), assert(...): no part of the value (c_stops)
        if name in self.ctx.signatures:
            return self.user_call(node, name, args, b, env, want_value)
        if is_mpi_call(name) and name not in self.ctx.prototypes:
            return self.mpi_call(node, name, args, b, env, want_value)
        if library_name(name) in MEMORY_CALLS:
            return self.memory_call(node, library_name(name), args, b, env, want_value)
        meant = c_builtins.rewrite(node, self.cuda)
        if meant is not None:
            return self.scalar(meant, b, env)
        if self.cuda and name in ("min", "max") and len(args) == 2:
            # CUDA's overloads: integer min/max on integers, fmin/fmax once a float is involved.
            x, y = (self.number(self.scalar(a, b, env), self.at(b, a)) for a in args)
            if not (x.type.is_int and y.type.is_int):
                t = arith_type(x.type, y.type)
                x, y = self.convert(x, t, self.at(b, node)), self.convert(y, t, self.at(b, node))
            return build.math(self.at(b, node), name, x, y)
        intrinsic = math_intrinsic(name)
        if intrinsic is not None:
            return self.math_call(node, intrinsic, args, b, env)
        if library_name(name) in ("frexp", "frexpf"):
            return self.frexp(node, name, args, b, env)
        if library_name(name) in INT_ABS:
            if len(args) != 1:
                raise self.fail(node, f"{name} takes one argument")
            x = self.integer(args[0], b, env, f"the argument of {name}")
            b = self.at(b, node)
            return build.select(b, build.cmp(b, "lt", x, build.const(b, 0, I64)), build.neg(b, x), x)
        if name in ("malloc", "calloc", "aligned_alloc"):
            raise self.fail(node, f"{name} is supported as a pointer's initializer or assigned value: "
                            f"double *w = {name}(...)")
        if name == "posix_memalign":
            return self.posix_memalign(node, args, b, env)
        if name == "realloc":
            raise self.fail(node, "realloc is not supported: s2sad needs each work array's size where it is "
                            "allocated", "allocate the array once at the largest size it grows to: "
                            "double *w = malloc(n * sizeof(double))")
        if name in _IO:
            raise self.fail(node, f"'{name}' is not supported: s2sad differentiates computations, not I/O",
                            "remove the call from the function being differentiated")
        if name in self.ctx.prototypes:
            return self.extern_call(node, name, args, b, env, want_value)
        if name in _LIBRARY_HINTS:
            raise self.fail(node, f"'{name}' of the C library is not supported", _LIBRARY_HINTS[name])
        raise self.fail(node, f"cannot differentiate through call to '{name}': its source is not in "
                        f"{self.ctx.filename}", f"define {name} in this file; or, if it is defined in another "
                        f"file and its arguments do not depend on the --wrt inputs, declare its prototype here")

    def array_argument(self, node: c_ast.Node, p: Ptr, t: CType, callee: str, b: Builder) -> Value:
        """The array a call passes for the parameter ``t``: the array itself, or a view from the
        element (or the struct) ``p`` points at. Its dimensions must be the parameter's: a row
        ``A[i]`` for ``double row[m]``, the whole ``A`` for ``double B[n][m]``."""
        have, want = p.base.type.rank, t.ir_array.rank  # type: ignore[attr-defined]
        text = node_text(node)
        if have != want:
            whole = node_text(split_subscripts(node)[0]) if isinstance(node, c_ast.ArrayRef) else None
            hint = f"pass one row, {text}[i]" if have == want + 1 else \
                f"pass the whole array, {whole}" if have < want and whole is not None else \
                f"pass an array of {want} dimensions"
            raise self.fail(node, f"'{callee}' expects an array of {want} dimension(s) here ('{t.spelling}'), "
                            f"and '{text}' has {have}", hint)
        if p.off is None or build.const_value(p.off) == 0:
            return p.base
        if have > 1:
            raise self.fail(node, f"passing the rows of '{text}' from one on is not supported",
                            "pass the whole array, or one row A[i] to a function that takes a row")
        return self.at(b, node).op1("view", [p.base, p.off], p.base.type)

    def stop_call(self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], b: Builder, env: Env,
                  want_value: bool) -> None:
        """``exit(1);``, ``abort();`` or a call of a function of the file that always stops
        (``nrerror("...")``): a ``stop`` op, where the gradient stops as the primal does."""
        if want_value:
            raise self.fail(node, f"'{name}' stops the program and gives no value", f"call {name} as a statement")
        stopping = self.ctx.stops.get(name)
        call = stopping.call if stopping is not None else name
        operands: list[Value] = []
        if call != "abort":
            if stopping is not None:
                operands = [build.const(self.at(b, node), stopping.status if stopping.status is not None else 1, I64)]
            elif len(args) == 1:
                operands = [self.convert(self.integer(args[0], b, env, f"the status of {name}"), I32, b)]
            else:
                raise self.fail(node, f"{name} takes one argument, the program's exit status")
        elif args and stopping is None:
            raise self.fail(node, "abort takes no arguments")
        self.at(b, node).create("stop", operands, [], {"call": call, "text": node_text(node)})
        return None

    def extern_call(self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], b: Builder, env: Env,
                    want_value: bool) -> Value:
        """A call of a function defined in another file (``c_extern``): an ``extern`` op, which the
        adjoint accepts only where no argument depends on the --wrt inputs."""
        try:
            proto = read_prototype(self.ctx.prototypes[name], self.ctx.typedefs, self.ctx.structs)
        except TypeProblem as p:
            raise self.fail(node, f"cannot call '{name}', defined outside {self.ctx.filename}: {p.message}",
                            p.hint or f"define {name} in this file") from None
        outside = f"'{name}' is defined outside {self.ctx.filename}"
        if proto.result.kind == "void" or not want_value:
            raise self.fail(node, f"{outside}, and a call for its effects does what s2sad cannot see"
                            + ("" if proto.result.kind == "void" else " (its result is not used)"),
                            f"define {name} in this file")
        if not proto.params:
            raise self.fail(node, f"{outside} and takes no arguments: a constant, or a function with a state "
                            "of its own (as rand() and clock() have), which s2sad cannot see",
                            "compute the value before the call of the function being differentiated and pass it in")
        if len(args) != len(proto.params):
            raise self.fail(node, f"'{name}' takes {len(proto.params)} argument(s), not {len(args)}")
        values: list[Value] = []
        for k, (a, t, const) in enumerate(zip(args, proto.params, proto.const_pointee)):
            if t.kind != "pointer":
                values.append(self.convert(self.number(self.scalar(a, b, env), self.at(b, a)), value_type(t), b))
                continue
            if not const:
                raise self.fail(a, f"{outside} and may write through argument {k + 1} ('{t.spelling}'), "
                                "memory s2sad could not follow",
                                f"if {name} only reads it, declare the parameter const ('{const_pointee(t.spelling)}')")
            p = self.pointer(a, b, env)
            if p.elem != t.scalar or p.layout is not None:
                raise self.fail(a, f"'{name}' expects '{t.spelling}' here")
            values.append(self.array_argument(a, p, t, name, b))
        attrs = {"callee": name, "prototype": proto.text, "args": [node_text(a) for a in args]}
        custom = self.ctx.derivatives.of(name)
        if custom is not None:
            attrs.update(self.custom_adjoint(node, custom, proto))
        op = self.at(b, node).create("extern", values, [value_type(proto.result)], attrs)  # named by call_names
        return op.result

    def custom_adjoint(self, node: c_ast.FuncCall, custom: CustomAdjoint, proto: Prototype) -> dict:
        """The ``extern`` op's attributes that name its custom adjoint (``derivatives``), which
        must take what the gradient passes it for the prototype's parameters."""
        if not custom.prototype:
            raise self.fail(node, f"the custom adjoint of '{custom.primal}' is Python ({custom.path}), and this "
                            "input is C", hint=f"write grad_{custom.primal} in C (see README, Custom derivatives)")
        decl = self.ctx.prototypes[custom.primal].type.args
        names = [getattr(p, "name", None) or "" for p in (decl.params if decl is not None else [])]
        kinds = [(n, t.spelling, argument_kind(t.kind == "pointer", t.scalar.is_float))  # type: ignore[union-attr]
                 for n, t in zip(names, proto.params)]
        floating = proto.result.scalar is not None and proto.result.scalar.is_float
        problem = expected_c(custom, kinds, proto.result.spelling if floating else "")
        if problem is not None:
            raise self.fail(node, problem, f"see {custom.path}:{custom.loc.line}, and README, Custom derivatives")
        return {"adjoint": custom.name, "adjoint_prototype": custom.prototype, "adjoint_file": Path(custom.path).name}

    def user_call(self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], b: Builder, env: Env,
                  want_value: bool) -> Optional[Value]:
        """The call's value, None for none; a struct returned by value is refused here, where it
        would be used as one value (``record_from_call`` takes its values)."""
        results = self.user_call_values(node, name, args, b, env, want_value)
        sig = self.ctx.signatures[name]
        if sig.result.kind == "record":
            raise self.fail(node, f"'{name}' returns a whole {sig.result.spelling}, used here as a value",
                            f"assign it to a {sig.result.spelling} variable first: {sig.result.spelling} r = "
                            f"{name}(...);")
        return results[0] if results else None

    def user_call_values(self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], b: Builder, env: Env,
                         want_value: bool) -> list[Value]:
        """The values of a call of a function of the file (one per member of a struct it returns)."""
        if id(node) in self.ctx.recursive_calls:
            raise Fail(None)
        sig = self.ctx.signatures[name]
        if len(args) != len(sig.params):
            raise self.fail(node, f"'{name}' takes {len(sig.params)} argument(s), not {len(args)}")
        values: list[Optional[Value]] = []
        moving: list[tuple[int, Aim, c_ast.Node, CType]] = []  # arguments that move between arrays
        after: list[Callable[[Builder], None]] = []  # struct members read back after the call
        copied: list[tuple[c_ast.Node, Value]] = []  # members passed in copies: the structs they are in
        for a, t in zip(args, sig.params):
            if t.kind == "record":
                leaves, back = self.record_argument(a, t, name, b, env)
                values += leaves
                after += back
                continue
            if t.kind == "pointer":
                cell = self.member_address_argument(a, t, name, args, sig.params, b, env, after)
                if cell is None:  # &p of a struct held as members, for const Params *: a copy of its own
                    cell = self.record_address_argument(a, t, name, args, sig.params, b, env, after)
                if cell is None:  # det(s->P) of a struct in memory: its rows in a copy of their own
                    cell = self.member_rows(a, t, name, b, env, after)
                    if cell is not None:
                        copied.append((a, self.place(a, b, env).base))
                if cell is not None:  # &w.gamma: a copy in a cell of its own
                    values.append(cell)
                    continue
                held = self.struct_in_member(a, b, env)
                if held is not None and t.layout is not None and held.sub == t.layout:
                    # layer(&net->layers[l]), layer(L) of Layer *L = &net->layers[l]: the structs from
                    # that one on, a view that says of which type (its offset counts numbers of another)
                    at = self.at(b, a)
                    values.append(at.op1("view", [held.base, self.field_index(held, at)], held.base.type, "",
                                         struct=t.layout.name))
                    continue
                p = self.pointer(a, b, env, aims=True)
                if p.elem != t.scalar or p.layout != t.layout:
                    what = p.layout.name if p.layout is not None else p.elem
                    raise self.fail(a, f"'{name}' expects '{t.spelling}' here, not an array of {what}")
                if isinstance(p, Aim) and len(p.choices) > 1:
                    moving.append((len(values), p, a, t))
                    values.append(None)
                    continue
                p = self.plain(p, a, b)
                if p.off is not None and p.layout is not None:  # counts structs: the view starts at a struct
                    p = Ptr(p.base, self.field_index(self.whole(p, b), self.at(b, a)), p.layout)
                values.append(self.array_argument(a, p, t, name, b))
            else:
                v = self.number(self.scalar(a, b, env), self.at(b, a))
                values.append(self.convert(v, value_type(t), b))
        for a, structs in copied:  # the callee would see the member through the other, not the copy
            for other, v in zip(args, values):
                if other is not a and v is not None and view_base(v) is view_base(structs):
                    raise self.fail(other, f"'{name}' is passed '{node_text(a)}' and, here, more of the same "
                                    "structs: s2sad passes that member in an array of its own, which the callee "
                                    "would not see through this argument", f"pass the struct alone and let {name} "
                                    f"reach the member through it, or copy {node_text(a)} into a local array first")
        result_types = sig.result_types
        if want_value and not result_types:
            raise self.fail(node, f"'{name}' returns no value")

        def make(bb: Builder, given: list[Optional[Value]], todo: list[tuple[int, Aim, c_ast.Node, CType]]) \
                -> list[Value]:
            if todo:  # one call per array the next moving argument may point at
                k, p, a, t = todo[0]

                def with_array(b2: Builder, q: Ptr) -> list[Value]:
                    return make(b2, given[:k] + [self.array_argument(a, q, t, name, b2)] + given[k + 1:], todo[1:])
                return self.through_each(p, a, bb, with_array, result_types)
            hints = [f"{name}_{m}" for m in sig.result_names] or [""] * len(result_types)  # see call_names
            op = self.at(bb, node).create("call", given, result_types, {"callee": name},  # type: ignore[arg-type]
                                          hints=hints)
            return list(op.results)
        results = make(b, values, moving)
        for read_back in after:
            read_back(b)
        return results

    def posix_memalign(self, node: c_ast.FuncCall, args: list[c_ast.Node], b: Builder, env: Env) -> Value:
        """``posix_memalign((void **)&p, align, n * sizeof(T))``: ``p = malloc(n * sizeof(T))``,
        with the result 0 (success) a test of it reads."""
        target = args[0] if args else None
        while isinstance(target, c_ast.Cast):
            target = target.expr
        if not (isinstance(target, c_ast.UnaryOp) and target.op == "&" and isinstance(target.expr, c_ast.ID)
                and self.is_pointer_var(target.expr)):
            raise self.fail(args[0] if args else node, "posix_memalign must be given the address of a pointer "
                            "variable", "write posix_memalign((void **)&p, 64, n * sizeof(double))")
        self.assign_pointer(target.expr, node, b, env)
        return build.const(self.at(b, node), 0, I64)

    def frexp(self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], b: Builder, env: Env) -> Value:
        """``frexp(x, &e)``: the mantissa ``ldexp(x, -e)``, and ``e = (int)logb(x) + 1`` stored in
        the integer ``e``, as C's frexp computes them for a finite x other than 0 (for 0, inf and
        NaN, e is 0 and the mantissa x itself, as frexp gives them). Written with operations s2sad
        differentiates: the exponent is an integer, so the mantissa's derivative is 2^-e."""
        if len(args) != 2:
            raise self.fail(node, f"'{name}' takes 2 arguments")
        out = args[1]
        if not (isinstance(out, c_ast.UnaryOp) and out.op == "&" and isinstance(out.expr, c_ast.ID)):
            raise self.fail(out, f"'{name}' stores the exponent through this pointer, which s2sad follows only "
                            "as the address of an int variable", f"write {name}(x, &e) with 'int e;' declared before")
        ft = F32 if library_name(name) == "frexpf" else F64
        x = self.convert(self.number(self.scalar(args[0], b, env), self.at(b, args[0])), ft, self.at(b, node))
        b = self.at(b, node)
        finite = build.cmp(b, "lt", build.math(b, "abs", x), build.const(b, math.inf, ft))
        normal = b.op1("and", [build.cmp(b, "ne", x, build.const(b, 0.0, ft)), finite], BOOL)
        scaled = build.add(b, build.cast(b, build.math(b, "logb", x), I64), build.const(b, 1, I64))
        e = build.select(b, normal, scaled, build.const(b, 0, I64))
        e = self.store(out.expr, e, b, env, node)
        return build.math(b, "ldexp", x, build.neg(b, build.cast(b, e, I64)))

    def math_call(self, node: c_ast.FuncCall, intrinsic: tuple[str, Optional[Type]], args: list[c_ast.Node],
                  b: Builder, env: Env) -> Value:
        fn, t = intrinsic
        arity = MATH_FNS[fn]
        spelled = node.name.name  # type: ignore[attr-defined]
        if len(args) != arity:
            raise self.fail(node, f"'{spelled}' takes {arity} argument(s)")
        ints = MATH[fn].int_operands  # ldexp(x, n): n is an int
        values = [self.integer(a, b, env, f"argument {k + 1} of {spelled}") if k in ints
                  else self.number(self.scalar(a, b, env), self.at(b, a)) for k, a in enumerate(args)]
        ft = t or F64
        values = [v if k in ints else self.convert(v, ft, self.at(b, node)) for k, v in enumerate(values)]
        return build.math(self.at(b, node), fn, *values)

    # -- if ----------------------------------------------------------------------------------------------
    def if_stmt(self, st: c_ast.If, b: Builder, env: Env, loop: Optional[LoopFrame],
                rest: list[c_ast.Node], into_then: bool) -> None:
        cond = self.condition(st.cond, b, env)
        then_items, else_items = statements(st.iftrue), statements(st.iffalse)
        then_run, else_run = self.scoped(then_items, loop), self.scoped(else_items, loop)
        if rest:
            # The rest runs in the enclosing scope, after the branch's own scope is closed, and
            # only where the branch did not jump (``if (a) return x; else if (b) return y;
            # return z;``: the else branch may return).
            def chain(first: Callable[[Builder, Env], None], items: list[c_ast.Node]) -> Callable[[Builder, Env], None]:
                def run(bb: Builder, e: Env) -> None:
                    first(bb, e)
                    self.after(block_exits(items), rest, bb, e, loop)
                return run
            if into_then:
                then_run = chain(then_run, then_items)
            else:
                else_run = chain(else_run, else_items)
        b.loc = self.loc(st)
        self.branch(b, env, cond, then_run, else_run)

    # -- loops ---------------------------------------------------------------------------------------------
    def carried_keys(self, nodes: Sequence[Optional[c_ast.Node]], env: Env) -> list[str]:
        keys: list[str] = []
        for node in nodes:
            assigned = assigned_names(node)
            # q->k = ..., f(q) of Params *q = &p: p's members, which q names (c_records)
            aliased = [n for n in mentioned_names(node) if self.lookup(n) in self.address_of]
            for name in assigned + [m for m in addressed_members(node) + aliased if m not in assigned]:
                key = self.lookup(name)
                if key is None or (key in self.refused and key not in self.key_types):
                    continue  # (declared with a type refused, ``unsigned double t``: nothing to carry)
                if self.is_moving(key):
                    keys += [k for k in self.moving_keys(key) if k and k not in keys]
                    continue
                leaves = self.record_leaves(key) if self.ctypes[key].kind == "record" else [(key, self.ctypes[key])]
                for leaf, t in leaves:
                    if t.kind == "pointer" and name not in assigned:
                        continue  # a callee given &T never points T.data elsewhere (c_records)
                    k = leaf + "@" if t.kind == "pointer" else leaf
                    if t.kind != "array" and not self.is_cell(leaf) and k not in keys:
                        keys.append(k)
        return keys

    def for_stmt(self, st: c_ast.For, b: Builder, env: Env) -> None:
        omp = self.omp_pragma(st)
        st = _counted_from_below(st) or st
        with self.scope():
            if st.init is not None:
                if isinstance(st.init, c_ast.DeclList):
                    for d in st.init.decls:
                        self.decl(d, b, env)
                else:
                    self.expr(st.init, b, env)
            counted = self.counted_loop(st, env)
            if counted is not None:
                self.for_op(st, counted, b, env, omp)
            elif omp is not None:
                raise self.fail(st, f"{omp.spelled} needs a counted loop",
                                "write it as for (int i = a; i < b; i++) with no break or return")
            else:
                self.general_loop(st, b, env, test=st.cond, body=statements(st.stmt),
                                  post=[st.next] if st.next is not None else [], post_test=None)

    def counted_loop(self, st: c_ast.For, env: Env) -> Optional[tuple[str, c_ast.Node, str, int]]:
        """(key of i, bound, comparison, step) when ``st`` is ``for (i = a; i < b; i += c)``-shaped."""
        init = st.init
        if isinstance(init, c_ast.DeclList) and len(init.decls) == 1:
            name = init.decls[0].name
        elif isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
            name = init.lvalue.name
        else:
            return None
        key = self.lookup(name)
        if key is None or self.ctypes[key].kind != "scalar" or self.is_cell(key) or not self.key_type(key).is_int:
            return None
        test = counter_test(st.cond, name, self.int_term) if st.cond is not None else None
        if test is None:
            return None
        cmp, written_bound = test
        step = constant_step(st.next, name)
        if step is None or (step > 0) != (cmp in ("<", "<=")):
            return None
        body = st.stmt
        assigned = set(assigned_names(body))
        if name in assigned or block_exits(statements(body)).may & {BREAK, RETURN}:
            return None
        bound = self.as_variable(written_bound) if isinstance(written_bound, c_ast.StructRef) else written_bound
        if not (self.is_simple(bound) or self.const_array_member(bound) or self.unwritten_member(bound, body, env)) \
                or any(isinstance(n, c_ast.ID) and n.name in assigned for n in walk(bound)):
            return None
        root = bound.name.split(".")[0] if bound is not written_bound and isinstance(bound, c_ast.ID) else ""
        if root and not read_only(self.ctypes[self.lookup(root)]) and _passed(root, body):
            return None  # i < C.rows where the body passes C to a call, which may change C.rows
        if isinstance(init, c_ast.Assignment) and abs(step) != 1:
            return None
        return key, written_bound, cmp, step

    def int_term(self, node: c_ast.Node) -> bool:
        """Whether ``node`` is an integer: a constant, a variable, or sums, differences and products
        of those (c_loop_tests)."""
        if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*"):
            return self.int_term(node.left) and self.int_term(node.right)
        if isinstance(node, c_ast.UnaryOp) and node.op == "-":
            return self.int_term(node.expr)
        if isinstance(node, c_ast.Constant):
            return node.type in ("int", "long int", "long long int", "unsigned int", "unsigned long int")
        if isinstance(node, c_ast.ID):
            key = self.lookup(node.name)
            return key is not None and self.ctypes[key].kind == "scalar" and self.key_type(key).is_int
        return False

    def loop_bound(self, bound: c_ast.Node, cmp: str, b: Builder, env: Env) -> Value:
        """The integer bound of ``i < bound`` (``<=``, ``>``, ``>=``). A floating-point bound
        (``for (int j = 1; j <= p; j++)`` with ``double p``: C compares ``j`` converted to double)
        is the integer that compares alike: ``j < p`` is ``j < ceil(p)``, ``j <= p`` is ``j <=
        floor(p)``, ``j > p`` is ``j > floor(p)``, ``j >= p`` is ``j >= ceil(p)``."""
        v = self.number(self.scalar(bound, b, env), self.at(b, bound))
        if not v.type.is_float:
            return self.integer_of(v, bound, b, "a loop bound")
        self.at(b, bound)
        return build.cast(b, build.math(b, "ceil" if cmp in ("<", ">=") else "floor", v), I64)

    def for_op(self, st: c_ast.For, counted: tuple[str, c_ast.Node, str, int], b: Builder, env: Env,
               omp: Optional[OmpClauses] = None) -> None:
        key, bound, cmp, step = counted
        loc = self.loc(st)
        lb = env.get(key)
        if not isinstance(lb, Value):
            raise self.fail(st.init, "the loop variable needs a start value")
        if lb.name_hint == self.hint(key) and lb.defining_op is not None and lb.defining_op.name != "const":
            lb.name_hint = ""  # the start value is not the loop variable; one name for both would clash
        ub = self.loop_bound(bound, cmp, b, env)
        b.loc = loc
        if cmp == "<=":
            ub = build.add(b, ub, build.const(b, 1, I64))
        elif cmp == ">=":
            ub = build.sub(b, ub, build.const(b, 1, I64))
        step_v = build.const(b, step, I64)
        body_items = statements(st.stmt)
        exits = block_exits(body_items)
        frame = LoopFrame(self.new_key("done", BOOL), self.new_key("skip", BOOL))
        carried = self.carried_keys([st.stmt], env)
        private = self.omp_private(st, omp, carried) if omp is not None else []
        carried = [k for k in carried if self.hint(k) not in private]
        inits = self.init_values(carried, env, b)
        blk = Block([I64] + [self.key_type(k) for k in carried], [self.hint(key)] + [self.hint(k) for k in carried])
        bb = Builder(blk, loc)
        inner = self.enter_body(env, carried, blk.args[1:], [])
        inner[key] = blk.args[0]
        if CONTINUE in exits.may:
            inner[frame.skip] = build.const(bb, False, BOOL, "skip")
        with self.loop_body(), self.omp_body(st, omp, private, inner) as parallel:
            self.scoped(body_items, frame)(bb, inner)
        bb.loc = loc
        bb.create("yield", self.exit_values(carried, inner, blk.args[1:]), [])
        b.loc = loc
        attrs = self.omp_loop_attrs(st, omp, carried, blk, parallel.critical_sums) if parallel is not None else {}
        op = b.create("for", [lb, ub, step_v, *inits], [a.type for a in blk.args[1:]], attrs, regions=[blk],
                      hints=[self.hint(k) for k in carried])
        self.leave_loop(env, carried, op.results, [])
        if omp is not None:
            self.omp_after_loop(op, private, env)
        if isinstance(st.init, c_ast.Assignment):  # i outlives the loop: its final value
            past = build.cmp(b, "lt" if step > 0 else "gt", lb, ub)
            env[key] = build.select(b, past, ub, lb)

    def while_stmt(self, st: c_ast.While, b: Builder, env: Env) -> None:
        with self.scope():
            self.general_loop(st, b, env, test=st.cond, body=statements(st.stmt), post=[], post_test=None)

    def general_loop(self, st: c_ast.Node, b: Builder, env: Env, test: Optional[c_ast.Node],
                     body: list[c_ast.Node], post: list[c_ast.Node], post_test: Optional[c_ast.Node]) -> None:
        """A ``while`` op. The test goes in the condition region when it has no side effects and
        nothing must run before it; otherwise into the body, which then ends by setting ``done``."""
        exits = block_exits(body)
        frame = LoopFrame(self.new_key("done", BOOL), self.new_key("skip", BOOL))
        returns = RETURN in exits.may
        test_in_cond = test is not None and post_test is None and not assigned_names(test) and \
            not any(isinstance(n, c_ast.FuncCall) for n in walk(test))
        has_done = BREAK in exits.may or not test_in_cond
        carried = self.carried_keys([*body, *post, test, post_test], env)
        if returns:
            carried += [k for k in self.result_keys if k in env] + [RETURNED]
        keys = ([frame.done] if has_done else []) + carried
        loc = self.loc(st)
        b.loc = loc
        inits = ([build.const(b, False, BOOL, "done")] if has_done else []) + self.init_values(carried, env, b)
        types = [self.key_type(k) for k in keys]
        hints = [self.hint(k) for k in keys]

        cond = Block(types, hints)
        cb = Builder(cond, loc)
        cenv = self.enter_body(env, keys, cond.args, [])
        flags = ([cenv[frame.done]] if has_done else []) + ([cenv[RETURNED]] if returns else [])
        go_on = self.none_set(cb, flags) if flags else None  # type: ignore[arg-type]
        if test_in_cond:
            assert test is not None
            if go_on is None:
                c = self.condition(test, cb, cenv)
            elif self.is_simple(test):
                c = cb.op1("and", [go_on, self.condition(test, cb, cenv)], BOOL)
            else:
                c = self.if_value(cb, test, go_on, lambda bb, e: self.condition(test, bb, e),
                                  lambda bb, e: build.const(bb, False, BOOL), cenv, [test])
        else:
            c = go_on if go_on is not None else build.const(cb, True, BOOL)
        cb.loc = loc
        cb.create("condition", [c], [])

        blk = Block(types, hints)
        bb = Builder(blk, loc)
        inner = self.enter_body(env, keys, blk.args, [])
        if CONTINUE in exits.may:
            inner[frame.skip] = build.const(bb, False, BOOL, "skip")

        def after_body(b2: Builder, e: Env) -> None:
            for p in post:
                self.expr(p, b2, e)
            if post_test is not None:
                e[frame.done] = b2.op1("not", [self.condition(post_test, b2, e)], BOOL, "done")

        def run_body(b2: Builder, e: Env) -> None:
            self.scoped(body, frame)(b2, e)
            if post or post_test is not None:
                stop = []
                if BREAK in exits.may:
                    stop.append(e[frame.done])
                if returns:
                    stop.append(e[RETURNED])
                b2.loc = loc
                self.guard(b2, e, stop, after_body)  # type: ignore[arg-type]

        with self.loop_body():
            if test is not None and not test_in_cond:
                t = self.condition(test, bb, inner)
                bb.loc = loc

                def stop_here(b2: Builder, e: Env) -> None:
                    e[frame.done] = build.const(b2, True, BOOL, "done")

                self.branch(bb, inner, t, run_body, stop_here)
            else:
                run_body(bb, inner)
        bb.loc = loc
        bb.create("yield", self.exit_values(keys, inner, blk.args), [])
        b.loc = loc
        op = b.create("while", inits, types, regions=[cond, blk], hints=hints)
        n = len(keys) - len(carried)
        self.leave_loop(env, carried, op.results[n:], [])


def const_pointee(spelling: str) -> str:
    """The pointer type ``spelling`` with what it points at made const: ``double *`` ->
    ``const double *``, ``const double **`` -> ``const double *const *``."""
    pointee = spelling.rstrip()[:-1].rstrip()
    if pointee.endswith("*"):
        return f"{pointee}const *"
    return f"{pointee} *" if pointee.split()[0] == "const" else f"const {pointee} *"


def lower_function(fn: c_ast.FuncDef, ctx: CContext) -> tuple[Function, list[Diagnostic]]:
    """``fn`` as IR. A pointer variable found to point at different arrays depending on the
    branch or the iteration makes the lowering start again with it moving (``c_pointers``),
    until no new one (or no new array for one) is found: each round adds at least one array
    to a pointer's finite list, or one pointer to those that need an offset, so this ends."""
    plan: dict[str, list[tuple[str, int]]] = {}
    offsets: frozenset[str] = frozenset()
    while True:
        lowerer = CFunctionLowerer(fn, ctx, plan, offsets)
        func = lowerer.lower(ctx.signatures[fn.decl.name])
        if not lowerer.replan:
            return func, lowerer.diagnostics
        if lowerer.plan != plan:  # offsets seen before every moving pointer was known may be loop-carried ones
            plan = lowerer.plan
        else:
            offsets = frozenset(lowerer.offsets)

