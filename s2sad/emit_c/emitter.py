"""The C99 emitter: a Module of structured SSA -> one self-contained, readable C file.

``emit_c(module, header, entry)`` is the entry point: ``entry`` (``grad_<func>``)
is the one function with external linkage; every other function is ``static``
and appears only if the entry reaches it. The file includes only standard
headers (``math.h``, ``stdlib.h``, ``string.h``, ``stdbool.h``, each only when
used) and the small helpers it needs (Python's floored ``//`` and ``%``).

What C shares with the Python emitter, from ``s2sad.emit``: the inlining plan
(which values print inside other expressions), out-of-SSA coalescing and naming
(one variable per congruence class, source names), the expression and statement
trees with their exact tidying rewrites, and the statement builder
(``StatementBuilder``: loops stay loops, ``if``/``elif``, ``while``, comments
pointing at source lines). What is C's own (this package):

* the mapping: ``f64`` -> ``double``, ``f32`` -> ``float`` (literals ``0.5f``,
  ``sinf``), ``i64`` -> ``long``, ``i32`` -> ``int``, ``bool`` -> ``bool``; an
  array parameter is a pointer to a flat, row-major buffer (``A[i * m + j]``),
  its extents found by ``sizes``; one that C input declared with its extents
  (``double A[n][m]``, ``double (*A)[M]``), and a local array C input declared so
  (``double t[3][3]`` on the stack, ``double (*w)[m]`` on the heap), keeps them:
  ``A[i][j]``, a row ``A[i]``; a flat buffer (a copy) passed where a callee declares
  rows is cast to them, ``(double (*)[m])t0``;
* signatures by the contract: a float scalar whose adjoint a gradient returns
  gets a shadow pointer right after it (``double a, double *d_a``), and the
  adjoint is added to it (``*d_a += d_a_local;``): the adjoint accumulates in
  a local first, so the loop does not write through a pointer that may alias
  others. Calls to ``grad_<callee>`` pass the address of the variable or array
  element the adjoint is added to (``grad_g(x[i], &d_x[i], a, &d_a_local, d_s)``);
* declarations at first assignment, in the innermost scope (``cstmt``);
* ``for (long i = n - 1; i >= 0; i--)`` loops, with bounds C would re-evaluate
  every iteration saved first when the body changes what they read;
* memory: ``calloc``/``malloc`` (small constant sizes: arrays on the stack),
  freed at the end of the block that made them; copies by ``memcpy``; tapes are
  a buffer, a top and (when they may grow) a capacity doubled with ``realloc``,
  the counts in ``size_t``;
* integer ``//`` and ``%`` print as C's ``/`` and ``%`` where ``ranges`` proves
  both operands non-negative, else as calls of floored helpers; the IR's ``rem``
  is C's own ``%`` (``fmod`` on floats);
* a ``view`` is pointer arithmetic, ``x + k``; its extent is ``x``'s less ``k``.

IR that C cannot express raises a diagnostic (``s2sad.diagnostics.error``).
"""

from __future__ import annotations


import math
import re
from dataclasses import dataclass
from typing import Callable, Optional

from ..ssa.build import const_int, const_value, known_sign
from ..ssa.mathfns import MATH, c_output_names
from ..diagnostics import Diagnostic, DiagnosticError, error
from ..languages import is_c
from ..emit.expr import (
    BinOp,
    Call,
    Compare,
    Expr,
    IfExp,
    Lit,
    Name,
    Subscript,
    Unary,
    binop,
    compare,
    literal_value,
    names_in,
    negate,
    number,
    walk,
)
from ..emit.stmt import (
    LINE_LIMIT,
    Assign,
    AugAssign,
    Comment,
    ExprStmt,
    For,
    If,
    Return,
    Stmt,
    map_blocks,
    reads_memory,
    stmt_names,
    tidy,
)
from ..emit.builder import StatementBuilder, tape_new_op
from ..emit.inline import Effects
from ..emit.outofssa import allocate
from ..parse.c_declarators import declarator, is_array_spelling, pointer_to_rows, row_pointer
from ..parse.c_structs import pointee_struct
from ..ssa.attrs import grad_info, is_gradient, shadows_of
from ..ssa.callgraph import reachable
from ..ssa.ir import Block, Function, Module, Op, Value
from ..ssa.opdefs import is_pure
from ..ssa.ops import view_base
from ..ssa.types import ArrayType, ScalarType, Type
from ..analysis.unread_yields import unread_undef_yields
from .aggregates import StructParam, cell_of, struct_params
from .cexpr import Cast, CPrinter, F32Lit, IncDec, Member, address_of, c_if_exp, deref
from ..analysis.accumulation import accumulation, update
from .cstmt import ArrayDecl, declare, drop_dead
from .parallel import Pragma, is_parallel, only_summed, private_accumulations
from .parallel import finish as finish_pragmas
from ..opt.lower_arrays import add_size_params, has_array_ops
from ..emit.names import sanitize
from .names import CNamer, c_reserved
from ..analysis.ranges import IntRanges
from .render import CRenderer, comment_text, wrap_signature
from .sizes import Affine, Sizes, add_extent_params, sizes_buffers_only, storage_of

STACK_LIMIT = 256  # arrays of at most this many elements, of constant size, live on the stack
# The type of a tape's top and capacity: a count, unsigned. Where gcc proves that nothing was
# pushed (the pushes lie in a loop it finds never runs) while the pops' loop runs a number of
# times read from another tape, a signed top would count down into a range gcc can prove
# negative (-Warray-bounds at -O2); an unsigned one wraps, and proves nothing.
TAPE_COUNT = "size_t"

_CTYPES = {"f64": "double", "f32": "float", "i64": "long", "i32": "int", "bool": "bool"}
_ARITH = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
_BITS = {"bitand": "&", "bitor": "|", "bitxor": "^", "shl": "<<", "shr": ">>"}

HELPERS = {
    "floordiv_l": """\
/* Python's floored a // b on integers (C's / rounds toward zero). */
static long floordiv_l(long a, long b) {
    long q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}""",
    "mod_l": """\
/* Python's a % b on integers: the result has the sign of b (C's % has the sign of a). */
static long mod_l(long a, long b) {
    long r = a % b;
    return (r != 0 && (r < 0) != (b < 0)) ? r + b : r;
}""",
    "mod_d": """\
/* Python's a % b on floats: the result has the sign of b (fmod's has the sign of a). */
static double mod_d(double a, double b) {
    double r = fmod(a, b);
    return (r != 0.0 && (r < 0.0) != (b < 0.0)) ? r + b : r;
}""",
    "pow_l": """\
/* Python's a ** b on integers (b >= 0). */
static long pow_l(long a, long b) {
    long r = 1;
    for (; b > 0; b--) {
        r *= a;
    }
    return r;
}""",
    "min_l": """\
/* Python's min(a, b) on integers. */
static long min_l(long a, long b) {
    return b < a ? b : a;
}""",
    "max_l": """\
/* Python's max(a, b) on integers. */
static long max_l(long a, long b) {
    return b > a ? b : a;
}""",
    "digamma": """\
/* psi(x) = d lgamma(x) / dx, which math.h lacks: the recurrence psi(x) = psi(x + 1) - 1 / x
 * up to x >= 6, then the asymptotic series (to x^-14: below 2e-13 there); below 0, the
 * reflection psi(x) = psi(1 - x) - pi / tan(pi x). NaN at the poles 0, -1, -2, ... */
static double digamma(double x) {
    double acc = 0.0;
    if (x <= 0.0) {
        double n = rint(x);
        if (x == n) {
            return NAN;
        }
        /* x - n is exact, in [-1/2, 1/2]: pi / tan(pi x) has period 1, and a small argument
         * keeps tan accurate near the poles. */
        acc = -3.141592653589793 / tan(3.141592653589793 * (x - n));
        x = 1.0 - x;
    }
    while (x < 6.0) {
        acc -= 1.0 / x;
        x += 1.0;
    }
    double f = 1.0 / (x * x);
    double series = f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (
        1.0 / 132 - f * (691.0 / 32760 - f * (1.0 / 12)))))));
    return acc + log(x) - 0.5 / x - series;
}""",
}

_INCLUDES = [
    ("math.h", re.compile(r"\b(?:[a-z][a-z0-9]*f?|INFINITY|NAN)\b")),  # filtered below
    ("stdbool.h", re.compile(r"\b(?:bool|true|false)\b")),
    ("stddef.h", re.compile(r"\b(?:size_t|ptrdiff_t)\b")),
    ("stdint.h", re.compile(r"\bu?int(?:8|16|32|64)_t\b")),
    ("stdio.h", re.compile(r"\bprintf\(")),
    ("stdlib.h", re.compile(r"\b(?:malloc|calloc|realloc|free|labs|abs)\(")),
    ("string.h", re.compile(r"\bmem(?:cpy|set)\(")),
]
_MATH_H = set(c_output_names())
# Calls that only compute a value (math.h and the helpers above): one whose result nothing
# reads can go (cstmt.drop_dead).
_PURE_CALLS = frozenset(
    _MATH_H | {f"{m}f" for m in _MATH_H} | set(HELPERS) | {"isnan", "abs", "labs", "malloc", "calloc"}
)
_MATH_H_CALL = re.compile(r"\b([a-z][a-z0-9]*)\(")
_MATH_H_NAME = re.compile(r"\b(?:isnan|INFINITY|NAN)\b")


def ctype(t: Type) -> str:
    if isinstance(t, ArrayType):
        return f"{_CTYPES[t.elem.name]} *"
    if isinstance(t, ScalarType) and t.name in _CTYPES:
        return _CTYPES[t.name]
    raise error(f"type {t} has no C equivalent yet")


class _CEffects(Effects):
    """Effects, except that a call of a gradient is never an expression (it returns through pointers)."""

    def is_pure_call(self, op: Op) -> bool:
        callee = self.module.functions.get(op.attrs.get("callee", ""))
        if callee is not None and is_gradient(callee):
            return False
        return super().is_pure_call(op)


class ModuleContext:
    def __init__(self, module: Module, entry: str):
        self.module = module
        self.entry = entry
        self.effects = _CEffects(module)
        self.sizes = Sizes(module)
        self._returned: dict[str, list[int]] = {}
        self._c_names: dict[str, str] = {}
        # Gradients called where iterations of a parallel loop run at once: function -> the C
        # name of its copy whose accumulations into arrays it is passed are atomic.
        self.atomic_variants: dict[str, str] = {}
        # The input's #define'd names the output prints (name -> value as C spells it): no
        # variable may take one, and each one the code uses is defined at the top of the file.
        self.macros: dict[str, str] = {}
        # Functions defined outside the input that the code calls: name -> prototype. No
        # variable may take one's name; the file declares those its functions call.
        self.externs: dict[str, str] = {}
        for fn in module.functions.values():
            for name, value in (fn.attrs.get("c_macros") or {}).items():  # double A[N][N]
                self.macros.setdefault(name, str(value))
            for op in fn.walk():
                if op.name == "extern":
                    self.externs.setdefault(op.attrs["callee"], op.attrs["prototype"])
                if op.name == "const" and "macro" in op.attrs:
                    value = op.attrs["value"] - op.attrs.get("macro_offset", 0)  # STEPS - 1 holds 5: STEPS is 6
                    self.macros.setdefault(op.attrs["macro"], _c_number(value, op.result.type))

    def c_name(self, name: str) -> str:
        """A function's name in C: a C keyword or library name gets underscores (``long`` -> ``long_``)."""
        if name not in self._c_names:
            taken = set(self.module.functions) | set(self._c_names.values())
            c = name
            while c_reserved(c) or (c != name and c in taken):
                c += "_"
            self._c_names[name] = c
        return self._c_names[name]

    def atomic_name(self, name: str) -> str:
        """The C name of ``name``'s atomic copy (see ``CFunctionEmitter._call``), made on first use."""
        if name not in self.atomic_variants:
            taken = set(self.module.functions) | set(self._c_names.values()) | set(self.atomic_variants.values()) \
                | set(self.macros)
            c = f"{self.c_name(name)}_atomic"
            while c_reserved(c) or c in taken:
                c += "_"
            self.atomic_variants[name] = c
        return self.atomic_variants[name]

    def returned(self, fn: Function) -> Optional[list[int]]:
        """For a gradient: the indices of the parameters its results are the adjoints of."""
        if not is_gradient(fn):
            return None
        if fn.name not in self._returned:
            self._returned[fn.name] = self._find_returned(fn)
        return self._returned[fn.name]

    def _find_returned(self, fn: Function) -> list[int]:
        returned = grad_info(fn).returned
        if returned is not None:
            return returned
        raise error(
            f"cannot tell which parameters the results of '{fn.name}' are the adjoints of",
            fn.loc,
            hint="the gradient function needs its 'returned' attribute",
        )


def emit_c(module: Module, header: str, entry: str) -> str:
    """The module as one C99 file: ``entry`` has external linkage, every other function is static."""
    return c_file(header, emit_functions(module, entry, CFunctionEmitter), HELPERS)


# Makes the emitter of one function: (context, function, whether it is the atomic copy).
MakeEmitter = Callable[[ModuleContext, Function, bool], "CFunctionEmitter"]


@dataclass
class EmittedFunctions:
    """The functions of a C file: the texts of those the entry reaches, and every emitter that
    made one (a dialect reads what they needed from them: CUDA, its helpers' overloads)."""

    ctx: ModuleContext
    texts: list[str]
    structs: dict[str, str]  # the struct definitions they use, by name (typedefs of numbers first)
    emitters: list["CFunctionEmitter"]
    typedefs: dict[str, str]  # the input's typedefs their signatures spell, by name
    externs: list[str]  # the prototypes of the functions defined elsewhere that they call


def emit_functions(module: Module, entry: str, make: MakeEmitter) -> EmittedFunctions:
    """Every function ``entry`` reaches, emitted by ``make``'s emitters, in module order."""
    if entry not in module.functions:
        raise error(f"no function '{entry}' to emit")
    ctx = ModuleContext(module, entry)
    called = reachable(module, [entry])
    unlowered = [n for n in called if has_array_ops(module.functions[n])]
    if unlowered:  # C has no array values (opt.passes.TARGET_PIPELINES)
        raise ValueError(f"whole-array ops in {', '.join(unlowered)}: run the lower-arrays pass before emit_c")
    if add_extent_params(ctx.sizes, module, module.functions[entry]):
        # Extents the C code needs exactly (a row length, len(x)) and no annotation gives.
        add_size_params(module, module.functions[entry])
    emitters: list[CFunctionEmitter] = []

    def emit(fn: Function, atomic: bool) -> str:
        emitters.append(make(ctx, fn, atomic))
        return emitters[-1].emit()

    texts = {fn.name: emit(fn, False) for fn in module.functions.values() if fn.name in called}
    # Each gradient a parallel loop calls gets an atomic copy (which may call more of them).
    atomic: dict[str, str] = {}
    while len(atomic) < len(ctx.atomic_variants):
        for name in [n for n in ctx.atomic_variants if n not in atomic]:
            atomic[name] = emit(module.functions[name], True)
    by_c_name = {ctx.c_name(n): t for n, t in texts.items()}
    by_c_name.update({ctx.atomic_variants[n]: t for n, t in atomic.items()})
    keep = _reachable(by_c_name, ctx.c_name(entry))
    functions = []
    structs: dict[str, str] = {}
    typedefs: dict[str, str] = {}
    externs: dict[str, None] = {}
    for name in module.functions:
        if ctx.c_name(name) in keep:
            functions.append(texts[name])
            structs.update((n, d) for n, d, _ in module.functions[name].attrs.get("c_structs", []))
            typedefs.update((n, d) for n, d in module.functions[name].attrs.get("c_typedefs", []))
            externs.update((op.attrs["prototype"], None) for op in module.functions[name].walk() if op.name == "extern")
        if name in atomic and ctx.atomic_variants[name] in keep:
            functions.append(atomic[name])
    # Like the structs and #define constants, the typedefs are copied even when the input has them
    # from a header of its own: the output includes no header of the user's (the contract allows
    # the standard ones only, and the file must compile wherever it is written).
    return EmittedFunctions(ctx, functions, structs, emitters, typedefs, list(externs))


def c_file(header: str, emitted: EmittedFunctions, helpers: dict[str, str]) -> str:
    """The file: ``header`` as a comment, the includes and ``#define``s the code uses, the
    typedefs and structs, the ``helpers`` (name -> definition) the functions call, and the functions."""
    functions, ctx = emitted.texts, emitted.ctx
    code = "\n\n".join(functions)
    # The helpers the functions call and those these call (CUDA's block_calloc calls block_tape),
    # in the order of ``helpers``, where a helper comes after those it calls.
    reached = _reachable({**helpers, " functions": code}, " functions")
    used = [text for name, text in helpers.items() if name in reached]
    body = "\n\n".join(used + functions)
    includes = _includes(_strip_comments(body))
    out: list[str] = []
    head = [line[2:] if line.startswith("# ") else line.lstrip("#") for line in header.strip("\n").split("\n")]
    head = [comment_text(h).replace("*/", "* /").rstrip() for h in head if header.strip()]
    if head:
        out += ["/*"] + [f" * {h}".rstrip() for h in head] + [" */", ""]
    if includes:
        out += [f"#include <{h}>" for h in includes] + [""]
    code = _strip_comments(body)
    defines = [f"#define {name} {text}" for name, text in ctx.macros.items()
               if re.search(rf"\b{re.escape(name)}\b", code)]
    if defines:
        out += defines + [""]
    if emitted.typedefs:
        out += list(emitted.typedefs.values()) + [""]
    if emitted.structs:
        out += ["\n\n".join(emitted.structs.values()), ""]
    if emitted.externs:
        out += ["/* Defined outside this file, as for the primal; s2sad needs no derivative of them. */"]
        out += [f"{proto};" for proto in emitted.externs] + [""]
    return "\n".join(out + [body]) + "\n"


def _c_number(value, t: Type) -> str:
    """A constant's value as a ``#define`` spells it: ``5``, ``0.8``, ``0.5f``."""
    if t.is_float:
        return repr(float(value)) + ("f" if t.name == "f32" else "")
    return str(int(value))


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _includes(code: str) -> list[str]:
    out = []
    calls = set(_MATH_H_CALL.findall(code))
    if calls & (_MATH_H | {f"{m}f" for m in _MATH_H}) or _MATH_H_NAME.search(code):
        out.append("math.h")
    for header, pattern in _INCLUDES[1:]:
        if pattern.search(code):
            out.append(header)
    return sorted(out)


def _reachable(texts: dict[str, str], entry: str) -> set[str]:
    seen = {entry}
    pending = [entry]
    while pending:
        body = _strip_comments(texts[pending.pop()])
        for name in texts:
            if name not in seen and re.search(rf"\b{re.escape(name)}\(", body):
                seen.add(name)
                pending.append(name)
    return seen


class CFunctionEmitter(StatementBuilder):
    """The shared statement builder, with C's expressions, memory, calls, loops and declarations."""

    language = "C"
    # Whether arrays of more than one dimension keep them where C input declared them
    # (``double A[n][m]``, ``double tmp[3][3]``); else they are flat, ``A[i * m + j]``.
    rows_declared = True
    # The calls an ``if``'s common copies may read and still move before it (they read no
    # memory): the Python builtins, as when this builder was the Python one's subclass (C
    # prints ``abs`` of them). math.h's read none either; saying so may move output.
    pure_calls = ("abs", "min", "max", "float", "int", "bool")

    def __init__(self, ctx: ModuleContext, fn: Function, atomic: bool = False):
        self.ctx = ctx
        self.module = ctx.module
        self.fn = fn
        self.printer = CPrinter()
        self.namer = CNamer([*ctx.module.functions, *ctx.macros, *ctx.externs])
        self.returned = ctx.returned(fn)
        self.out_names: dict[int, str] = {}
        # Struct parameters (parse/c_records): each leaf is a member of the struct the
        # signature declares; no other variable may take the struct's name.
        members = struct_params(fn)
        for group in dict.fromkeys(m.group for m in members.values()):
            self.namer.claim_fixed(group)
        self.struct_leaves: dict[Value, StructParam] = {p: members[p.name_hint] for p in fn.params
                                                        if p.name_hint in members}
        self.struct_outs: dict[int, StructParam] = {}  # returned struct member -> its shadow's member
        if self.returned is not None:
            # The pointers' names were chosen with the signature (adjoint/naming.py).
            pointers = dict(zip(self.returned, fn.attrs.get("pointers") or []))
            for i in self.returned:
                if pointers.get(i) in members:
                    self.struct_outs[i] = members[pointers[i]]
                hint = fn.params[i].name_hint
                self.out_names[i] = self.namer.claim_fixed(pointers.get(i) or f"d_{hint}")
                self.namer.aliases[f"d_{hint}"] = f"d_{hint}_local"
        self.alloc = allocate(fn, ctx.effects, self.namer, self._zeroed_before_call(), self._buffers_freed_at())
        self.var = self.alloc.var
        for p, leaf in self.struct_leaves.items():  # the leaf's variable, and any value sharing it
            old = self.var.get(p)
            for v, name in list(self.var.items()):
                if v is p or (old is not None and name == old):
                    self.var[v] = leaf.as_variable
        self.plan = self.alloc.plan
        self.unread = unread_undef_yields(fn)
        self.tape_tops: dict[str, str] = {}
        self.tape_caps: dict[str, str] = {}
        self.types: dict[str, str] = {}
        params = set(fn.params)
        for v, name in self.var.items():
            if v not in params and name != "_":
                self.types.setdefault(name, self._local_ctype(v))
        self.param_names = {self.var.get(p, p.name_hint) for p in fn.params}
        self._var_count: dict[str, int] = {}
        for name in self.var.values():
            self._var_count[name] = self._var_count.get(name, 0) + 1
        self.heap: dict[Op, str] = {}  # alloc/copy/tape.new -> the variable to free
        self.home: dict[Op, Block] = {}  # ... -> the block at whose end it is freed (buffer_home)
        self.null_first: dict[Op, list[str]] = {}  # structured op -> buffer variables to set to NULL before it
        self.stack: set[str] = set()
        self.stack_rows: set[str] = set()  # stack arrays declared with their extents: double tmp[3][3]
        self.heap_rows: set[str] = set()  # heap arrays declared as pointers to rows: double (*w)[m]
        self.skip: set[Op] = set()  # ops folded into a call (accumulation through a pointer)
        self.fused: dict[Value, Expr] = {}  # call result -> where the callee accumulates it
        self.aliases: dict[Value, Expr] = {}  # values whose C expression is a variable or literal
        self.loop_names: list[str] = []  # of the loops being built, outermost first
        self.counters: set[str] = set()  # names made for loop counters the source left unnamed
        self.parallel: list[Op] = []  # the OpenMP loops being built, outermost first
        self.parallel_private: list[set[Op]] = []  # for each, its accumulations no other iteration meets
        # The atomic copy of a gradient that a parallel loop calls: the arrays it is passed may
        # be the ones other iterations add to at once (a shared d_c + k * d), so every
        # accumulation into them is atomic, and so are the gradients it calls.
        self.atomic = atomic
        self.extents = ctx.sizes.extents(fn)
        self.ranges = IntRanges(fn, self._size_params())
        self.unsigned = self._unsigned_params()

    def _unsigned_params(self) -> dict[Value, int]:
        """The integer parameters the input declared unsigned (``size_t n``, ``unsigned m``),
        with their widths in bits."""
        spelled = self.fn.attrs.get("c_params")
        unsigned = {t: bits for t, bits in self.fn.attrs.get("c_unsigned") or ()}
        if not unsigned or not spelled or len(spelled) != len(self.fn.params):
            return {}
        return {p: unsigned[t] for p, t in zip(self.fn.params, spelled) if t in unsigned and p.type.is_int}

    # -- unsigned parameters ---------------------------------------------------------------
    # The IR computes integers as signed; C computes with an unsigned parameter as unsigned.
    # The two agree where the unsigned value is only added or multiplied and the result is
    # stored into a ``long`` (two's complement), so a 64-bit ``size_t n`` prints as itself
    # there (``long i = n - 1;``). They disagree where the sign matters, so there the value is
    # read as a ``long`` first: compared or divided (a ``size_t`` expression beside a negative
    # ``long`` would become huge, and gcc warns, -Wsign-compare), and anywhere an ``unsigned``
    # (32-bit) parameter meets an ``int`` (``m - 1`` with m = 0 wraps to 4294967295, which a
    # ``long`` holds as it is).
    def _int_operand(self, v: Value) -> Expr:
        e = self.expr(v)
        source = self._unsigned_source(v)
        if source is not None and self.unsigned[source] < 64:
            return Cast("long", e)
        return e

    def _unsigned_source(self, v: Value) -> Optional[Value]:
        """The unsigned parameter ``v`` prints as (itself, or an integer conversion of it, which
        C leaves implicit), or None."""
        while v not in self.unsigned:
            op = v.defining_op
            if v in self.var or v in self.aliases or op is None or op.name != "cast" or not self.plan.is_expr(v) \
                    or not (op.operands[0].type.is_int and v.type.is_int):
                return None
            v = op.operands[0]
        return v

    def _signed_operand(self, v: Value) -> Expr:
        """An operand of a comparison or a division, read as the signed value the IR means."""
        e = self._int_operand(v)
        if not isinstance(e, Cast) and self._unsigned_expr(v):
            return Cast("long", e)
        return e

    def _unsigned_expr(self, v: Value) -> bool:
        """Whether C types ``v``'s printed expression unsigned: a 64-bit unsigned parameter,
        or an inline sum, difference or product of one."""
        source = self._unsigned_source(v)
        if source is not None:
            return self.unsigned[source] >= 64  # a narrower one is read as a long already
        op = v.defining_op
        if v in self.var or v in self.aliases or op is None or op.name not in ("add", "sub", "mul", "neg"):
            return False
        return self.plan.is_expr(v) and any(self._unsigned_expr(o) for o in op.operands)

    def _zeroed_before_call(self) -> frozenset:
        """The results of calls to gradients that return adjoints through pointers: each one's
        variable is set to zero before the call reads its arguments (``_call``), so it cannot
        share a variable with any of them (``h(2.0, h(y, 3.0))``: the outer call's ``d_return`` is
        the inner one's own result's adjoint, of the same name)."""
        out = set()
        for op in self.fn.walk():
            if op.name == "call" and op.attrs["callee"] in self.module.functions:
                if self.ctx.returned(self.module.functions[op.attrs["callee"]]) is not None:
                    out.update(op.results)
        return frozenset(out)

    def _buffers_freed_at(self) -> dict[Value, object]:
        """Where each buffer this function makes is freed, for out-of-SSA naming: two buffers
        share a variable only when freed at the end of the same block (the second allocation
        frees the first, ``_register_buffer``). One freed in an inner block (a tape of a loop's
        recomputed iteration) must not reuse the variable of one freed in an outer block: the
        outer ``free`` would free the inner buffer again. A buffer that leaves the block that
        made it (NULL first, ``buffer_home``) shares with none."""
        out: dict[Value, object] = {}
        for op in self.fn.walk():
            if op.name in ("alloc", "copy", "tape.new"):
                home, crossed, _ = buffer_home(op, {})
                out[op.results[0]] = op if crossed else home
        return out

    def _local_ctype(self, v: Value) -> str:
        """The C type of a local variable; a view of a parameter keeps its declared pointer
        type, so a view of a ``const double *`` is one too (assigning it to ``double *`` warns)."""
        base = view_base(v)
        spelled = self.fn.attrs.get("c_params")
        if base is not v and base.owner is self.fn.body and spelled and len(spelled) == len(self.fn.params):
            declared = _unrestricted(spelled[self.fn.params.index(base)])  # a second pointer to x
            if is_array_spelling(declared) and v.type.rank == 1:  # type: ignore[attr-defined]
                return row_pointer(declared)  # a row of const double A[n][m]: const double *
            if declared.rstrip().endswith("*"):
                return declared
        struct = self._struct_of(v) if v.defining_op is not None and v.defining_op.name == "copy" else None
        if struct is not None:
            return f"{struct} *"  # a copy of an array of structs: the same structs
        return ctype(v.type)

    def _error(self, message: str, loc=None, hint: str = "") -> DiagnosticError:
        return DiagnosticError([Diagnostic(message, loc, hint)], self.module.source_lines)

    def _check_sizes(self) -> None:
        """Report every array parameter whose extent the C code needs but cannot tell, at once."""
        missing: dict[Value, Op] = {}
        for op in self.fn.walk():
            # (array, axes it needs, whether an upper bound of the elements touched will do)
            needed: list[tuple[Value, list[int], bool]] = []
            if op.name == "dim":
                needed.append((storage_of(op.operands[0]), [op.attrs["axis"]], sizes_buffers_only(op.result)))
            elif op.name in ("load", "store", "accum") and storage_of(op.operands[0]).type.rank > 1 \
                    and not self._declared_rows(op.operands[0]):  # type: ignore[attr-defined]
                arr = storage_of(op.operands[0])  # its row length: A[i * m + j]
                needed.append((arr, list(range(1, arr.type.rank)), False))  # type: ignore[attr-defined]
            elif op.name == "copy":
                src = storage_of(op.operands[0])
                needed.append((src, [0], True))
                needed.append((src, list(range(1, src.type.rank)), False))  # type: ignore[attr-defined]
            shadows = shadows_of(self.fn)
            exact = self.ctx.sizes.exact_axes(self.fn)
            for arr, axes, cover in needed:
                if arr.owner is not self.fn.body:
                    continue
                index = self.fn.params.index(arr)
                owner = self.fn.params[shadows.get(index, index)]  # d_x is reported as x
                ext = self.extents[index]
                unknown = ext is None or any(ext[a] is None or (not cover and (index, a) not in exact) for a in axes)
                if owner not in missing and unknown:
                    missing[owner] = op
        if missing:
            problems = [self._size_error(arr, op) for arr, op in missing.items()]
            raise DiagnosticError([d for p in problems for d in p.diagnostics], self.module.source_lines)

    # -- the function ------------------------------------------------------------------
    def emit(self) -> str:
        fn = self.fn
        self._check_sizes()
        params = []
        # C input keeps the user's declared types (``const double *``, ``int``, ``size_t``).
        spelled = fn.attrs.get("c_params")
        if spelled is not None and len(spelled) != len(fn.params):
            spelled = None
        declared: set[str] = set()  # the struct parameters declared so far
        for i, p in enumerate(fn.params):
            leaf = self.struct_leaves.get(p)
            if leaf is not None:
                if leaf.group not in declared:
                    params.append(declarator(leaf.spelled, leaf.group))
                    declared.add(leaf.group)
            else:
                name = self.var.get(p) or self.namer.fresh(p.name_hint or "arg")
                t = self._param_spelling(spelled[i]) if spelled is not None else ctype(p.type)
                params.append(declarator(t, name))
            out = self.struct_outs.get(i)
            if out is not None and out.group not in declared:
                params.append(declarator(out.spelled, out.group))
                declared.add(out.group)
            elif out is None and i in self.out_names:  # the adjoint's out-cell is written: not const
                cell = " ".join(w for w in t.split() if w not in ("const", "restrict"))
                params.append(declarator(cell + " *", self.out_names[i]))
        if self.returned is not None:
            ret = "void"
        elif not fn.result_types:
            ret = "void"
        elif len(fn.result_types) == 1:
            ret = fn.attrs.get("c_result") or ctype(fn.result_types[0])
        else:
            raise error(
                f"function '{fn.name}' returns {len(fn.result_types)} values, which C cannot",
                fn.loc,
                hint="return one value, or write the results into an array argument",
            )
        body = tidy(self.gen_block(fn.body))
        body = _ternaries(body)
        types = {k: v for k, v in self.types.items() if k not in self.stack and k not in self.param_names}
        body = drop_dead(body, types, _PURE_CALLS, frozenset(self.stack))
        declare(body, types)
        finish_pragmas(body)
        renderer = CRenderer(self.printer, self.types)
        lines: list[str] = []
        for k, st in enumerate(body):
            if isinstance(st, Comment) and k > 0 and not isinstance(body[k - 1], Comment):
                lines.append("")
            lines += renderer.stmt(st, "    ")
        code = _strip_comments("\n".join(lines))
        names = [self.struct_leaves[p].group if p in self.struct_leaves else self.var.get(p) for p in fn.params]
        names += [self.struct_outs[i].group if i in self.struct_outs else self.out_names[i]
                  for i in sorted(self.out_names)]
        names = list(dict.fromkeys(names))
        unused = [
            f"    (void){n};  // not needed by the gradient" if self.returned is not None else f"    (void){n};"
            for n in names
            if n and not re.search(rf"\b{n}\b", code)
        ]
        if unused and lines and lines[0] != "":
            unused.append("")
        c_name = self.ctx.atomic_variants[fn.name] if self.atomic else self.ctx.c_name(fn.name)
        head = wrap_signature(f"{self._linkage()}{ret} {c_name}", params, " {")
        sizes = self._sizes_comment() if fn.name == self.ctx.entry else []
        return "\n".join(sizes + head + unused + lines + ["}"])

    @staticmethod
    def _param_spelling(declared: str) -> str:
        """A parameter's type as the output declares it: as the input did (``restrict``
        included: the gradient's arrays do not overlap, see the contract)."""
        return declared

    def _linkage(self) -> str:
        """What precedes the result type: only the entry point links outside the file."""
        return "" if self.fn.name == self.ctx.entry and not self.atomic else "static "

    def _may_fuse_into(self, store: Op) -> bool:
        """Whether a callee may add an adjoint straight into the element ``store`` writes: not
        where other threads may add to it at once (the callee adds with a plain ``+=``)."""
        return not self._threads_share(store)

    def _threads_share(self, store: Op) -> bool:
        """Whether other threads may update the element ``store`` writes at once: an update
        under the user's ``#pragma omp atomic``, an accumulation in a parallel loop that other
        iterations may meet, or, in an atomic copy, one into an array the function is passed."""
        if store.attrs.get("atomic"):
            return True
        if accumulation(store) is None:  # an accum op, or the user's x[i] += y in a parallel loop
            return False
        if self.atomic and view_base(store.operands[0]) in self.fn.params:
            return True
        # Nested parallel loops: an element of the inner iteration's own (d_v[j]) is still
        # met by the other outer iterations, running at once.
        return any(store not in private for private in self.parallel_private)

    def _sizes_comment(self) -> list[str]:
        """What the caller must pass: the extents of the array parameters (C pointers carry none)."""
        groups: dict[str, list[str]] = {}
        spelled = self.fn.attrs.get("c_params") or []
        for i, p in enumerate(self.fn.params):
            ext = self.extents[i]
            if ext is None or any(e is None for e in ext):
                continue
            if i < len(spelled) and is_array_spelling(spelled[i]) and "[]" not in spelled[i] \
                    and "(*" not in spelled[i]:
                continue  # double A[n][m]: the signature says it
            struct = self._struct_of(p)
            if struct is not None:  # counted in structs: the ones the members read lie in
                size = self._struct_size(struct)
                if all(c % size == 0 for _, c in ext[0].terms):  # type: ignore[union-attr]
                    whole = -(-ext[0].const // size)  # type: ignore[union-attr]
                    ext = [Affine(tuple((k, c // size) for k, c in ext[0].terms), whole)]  # type: ignore
                    groups.setdefault(f"[{self.printer(self._affine_expr(ext[0]))}] ({struct})", []).append(
                        self.var.get(p, p.name_hint))
                    continue
            text = "".join(f"[{self._cover_text(i, axis, e)}]" for axis, e in enumerate(ext))  # type: ignore
            if len(ext) > 1:
                text += " (row-major)"
            groups.setdefault(text, []).append(self.var.get(p, p.name_hint))
        if not groups:
            return []
        parts = [f"{', '.join(names)}: {text}" for text, names in groups.items()]
        words = ("// Array sizes: " + "; ".join(parts) + ".").split(" ")
        out, cur = [], ""
        for w in words:
            if cur and len(cur) + 1 + len(w) > LINE_LIMIT:
                out.append(cur)
                cur = "//" + " " * 4 + w
            else:
                cur = f"{cur} {w}" if cur else w
        return out + [cur]

    # -- integer facts -----------------------------------------------------------------
    def _size_params(self) -> set[Value]:
        """Integer parameters used as sizes: loop bounds, allocation sizes, array extents."""
        fn = self.fn
        ints = {p for p in fn.params if p.type.is_int}
        out: set[Value] = set()
        for op in fn.walk():
            if op.name == "for":
                out.update(v for v in op.operands[:2] if v in ints)
            elif op.name in ("alloc", "tape.new"):
                out.update(v for v in op.operands if v in ints)
        for ext in self.extents:
            for e in ext or []:
                if e is not None:
                    out.update(fn.params[k] for k, _ in e.terms)
        return out

    def _nonneg(self, v: Value, op: Op) -> bool:
        return self.ranges.nonneg(v, op)

    # -- expressions -------------------------------------------------------------------
    def expr(self, v: Value) -> Expr:
        if v in self.aliases:
            return self.aliases[v]
        return super().expr(v)

    def _lit(self, value, t: Type) -> Expr:
        if t.is_float:
            v = float(value)
            if t.name == "f32" and math.isfinite(v):
                magnitude = F32Lit(repr(abs(v)))
                return negate(magnitude) if math.copysign(1.0, v) < 0 else magnitude
            return number(v)
        if t.is_int:
            return number(int(value))
        return number(bool(value))

    def _float_operands(self, op: Op) -> list[Expr]:
        """Operands of float arithmetic; ``(double)i`` prints as ``i`` where C converts it anyway.

        A cast goes when another operand stays a float (the usual arithmetic
        conversions then convert ``i`` exactly as the cast would); of two casts,
        the first stays: ``(double)i / n``.
        """
        return self._float_exprs([self.expr(o) for o in op.operands], [self._int_to_float(o) for o in op.operands])

    @staticmethod
    def _float_exprs(exprs: list[Expr], ints: list[Optional[Expr]]) -> list[Expr]:
        """``_float_operands`` of the operands printed ``exprs`` (``ints``: ``_int_to_float``'s)."""
        floats = [True] * len(exprs)
        for k in reversed(range(len(exprs))):
            simple = isinstance(ints[k], Name)
            if simple and any(floats[j] for j in range(len(exprs)) if j != k):
                exprs[k] = ints[k]  # type: ignore[assignment]
                floats[k] = False
        return exprs

    def _int_to_float(self, v: Value) -> Optional[Expr]:
        """For ``cast(int) -> float`` (not folded into a variable): the integer expression."""
        op = v.defining_op
        if op is None or op.name != "cast" or v in self.var:
            return None
        if not (v.type.is_float and op.operands[0].type.is_int):
            return None
        return self.expr(op.operands[0])

    def spell_expr(self, op: Op) -> Expr:
        n = op.name
        e = self.expr
        t = op.result.type if len(op.results) == 1 else None
        if n == "const":
            if "macro" in op.attrs:  # a #define of the input: its name, defined at the top of the file
                offset = op.attrs.get("macro_offset", 0)  # folded from STEPS - 1
                name = Name(op.attrs["macro"])
                return binop("+" if offset > 0 else "-", name, number(abs(offset))) if offset else name
            return self._lit(op.attrs["value"], op.result.type)
        if n == "undef":
            return self._lit(0, op.result.type)
        if n == "extern":  # declared at the top of the file (c_file)
            return Call(Name(op.attrs["callee"]), tuple(e(o) for o in op.operands))
        if n in _ARITH:
            if t.is_float:
                a, b = self._float_operands(op)
            elif n == "div":
                a, b = (self._signed_operand(o) for o in op.operands)
            else:
                a, b = (self._int_operand(o) for o in op.operands)
            return binop(_ARITH[n], a, b)
        if n in _BITS:
            return BinOp(_BITS[n], self._int_operand(op.operands[0]), self._int_operand(op.operands[1]))
        if n == "bitnot":
            return Unary("~", self._int_operand(op.operands[0]))
        if n in ("floordiv", "mod"):
            return self._floored(op)
        if n == "rem":
            return self._rem(op)
        if n == "pow":
            a, b = e(op.operands[0]), e(op.operands[1])
            if t.is_float:
                return Call(Name("powf" if t.name == "f32" else "pow"), (a, b))
            if isinstance(a, Name) and literal_value(b) == 2 and not isinstance(literal_value(b), bool):
                return BinOp("*", a, a)  # i ** 2
            return Call(Name("pow_l"), (a, b))
        if n == "cast":
            return self._cast(op)
        if n.startswith("math."):
            return self._math(op)
        if n == "load":
            arr, *idx = op.operands
            return self._element(arr, idx, op)
        if n == "dim":
            return self._extent(op.operands[0], op.attrs["axis"], op, cover=sizes_buffers_only(op.result))
        if n == "view":
            arr, offset = op.operands
            if op.result.type.rank < arr.type.rank:  # type: ignore[attr-defined]
                return self._row(arr, offset, op)
            if const_int(offset) == 0:
                return e(arr)
            struct = self._struct_of(arr)
            if struct is not None:  # `bodies + i` counts structs
                f = offset.defining_op
                if f is not None and f.name == "field" and f.attrs["path"] == "" and f.attrs["offset"] == 0:
                    return binop("+", e(arr), e(f.operands[0]))
                elem = _CTYPES[arr.type.elem.name]  # type: ignore[attr-defined]
                return Cast(f"{struct} *", binop("+", Cast(f"{elem} *", e(arr)), e(offset)))
            return binop("+", e(arr), e(offset))
        raise error(f"C output: no expression for the operation '{n}'", op.loc)

    def _compare_operands(self, op: Op) -> list[Expr]:
        if op.operands[0].type.is_float:
            return self._float_operands(op)
        if op.operands[0].type.is_int:
            return [self._signed_operand(o) for o in op.operands]
        return super()._compare_operands(op)

    def op_expr(self, op: Op) -> Expr:
        if op.name == "neg" and op.result.type.is_int and self._unsigned_source(op.operands[0]) is not None:
            return negate(self._int_operand(op.operands[0]))
        return super().op_expr(op)

    def function_name(self, name: str) -> str:
        return self.ctx.c_name(name)

    def _isnan(self, x: Expr) -> Expr:
        return Call(Name("isnan"), (x,))

    def _floored(self, op: Op) -> Expr:
        """Python's ``//`` and ``%``: C's ``/`` and ``%`` when the operands cannot be negative, or
        when the op says a truncated quotient is as good (``rounding = "any"``)."""
        n = op.name
        a_v, b_v = op.operands
        if op.result.type.is_float:
            a, b = self._float_operands(op)
            if n == "floordiv":
                return Call(Name("floorf" if op.result.type.name == "f32" else "floor"), (binop("/", a, b),))
            return Call(Name("mod_d"), (a, b))
        a, b = self._signed_operand(a_v), self._signed_operand(b_v)
        if op.attrs.get("rounding") == "any" or (self._nonneg(a_v, op) and self._nonneg(b_v, op)):
            return BinOp("/" if n == "floordiv" else "%", a, b)
        return Call(Name("floordiv_l" if n == "floordiv" else "mod_l"), (a, b))

    def _rem(self, op: Op) -> Expr:
        """The IR's ``rem`` is C's own ``%`` on integers, and ``fmod`` on floats."""
        if op.result.type.is_float:
            return Call(Name("fmodf" if op.result.type.name == "f32" else "fmod"), tuple(self._float_operands(op)))
        return BinOp("%", self._signed_operand(op.operands[0]), self._signed_operand(op.operands[1]))

    def _cast(self, op: Op) -> Expr:
        src, dst = op.operands[0].type, op.result.type
        x = self.expr(op.operands[0])
        if src == dst or (src.is_int and dst.is_int):
            return x  # C converts between integer types implicitly (assignment, arithmetic, indexing)
        if getattr(dst, "is_bool", False):
            return compare("!=", x, self._lit(0, src))
        return Cast(ctype(dst), x)

    def _math(self, op: Op) -> Expr:
        fn = op.name[5:]
        t = op.result.type
        args = [self.expr(o) if t.is_float else self._signed_operand(o) for o in op.operands]
        if t.is_float:
            row = MATH[fn]
            if row.c_helper:  # one double helper (HELPERS) for both precisions
                helper = Call(Name(row.c), tuple(args))
                return Cast("float", helper) if t.name == "f32" else helper
            return Call(Name(row.c + ("f" if t.name == "f32" else "")), tuple(args))
        if fn == "abs":
            return Call(Name("labs" if t.name == "i64" else "abs"), tuple(args))
        if fn in ("min", "max"):
            same = self._bound_needless(op)
            if same is not None:
                return args[op.operands.index(same)]
            return _int_min_max(fn, *args)
        raise error(f"C output: no C spelling for math.{fn} on integers", op.loc)

    def _bound_needless(self, op: Op) -> Optional[Value]:
        """For an integer ``min``/``max`` with a constant: the other operand, where the ranges
        show the bound changes nothing (``max(n, 0)`` of a size ``n`` is ``n``), so C prints it alone."""
        fn = op.name[5:]
        a_v, b_v = op.operands
        for x_v, c_v in ((a_v, b_v), (b_v, a_v)):
            c = const_int(c_v)
            if c is not None and fn == "max" and self.ranges.at(x_v, op)[0] >= c:
                return x_v
            if c is not None and fn == "min" and self.ranges.at(x_v, op)[1] <= c:
                return x_v
        return None

    def _checked_count(self, count: Expr, value: Optional[Value] = None) -> Expr:
        """An element count that gcc checks against the largest object as it is, not wrapped:
        calloc's (of any element) and malloc's of one-byte elements (``bool``: the count is the
        byte count). Where gcc follows a path on which it takes the count for negative (a size,
        taken non-negative by ``ranges``, that gcc knows nothing of), the count as a size_t would
        exceed any object, and gcc says so (-Walloc-size-larger-than). (malloc's byte count of a
        wider element wraps instead.) So the count is clamped at zero unless gcc can see that it
        is not negative."""
        lit = literal_value(count)
        if (lit is not None and lit >= 0) or (value is not None and self._visibly_nonneg(value)):
            return count
        return _int_min_max("max", count, number(0))

    def _visibly_nonneg(self, v: Value) -> bool:
        """Whether the C printed for ``v`` shows that it is not negative: a constant, a ``max``
        with a non-negative one that C prints (``_bound_needless``), sums and products of such."""
        c = const_int(v)
        if c is not None:
            return c >= 0
        op = v.defining_op
        if op is None:
            return False
        if op.name == "math.max":
            same = self._bound_needless(op)
            if same is not None:
                return self._visibly_nonneg(same)
            return any(self._visibly_nonneg(o) for o in op.operands)
        if op.name in ("add", "mul"):
            return all(self._visibly_nonneg(o) for o in op.operands)
        return False

    # -- extents -----------------------------------------------------------------------
    def _cover_text(self, index: int, axis: int, a: Affine) -> str:
        """An extent as the sizes comment says it: ``n`` or, raised by a constant index, ``max(n - 1, 4)``."""
        floor = self.ctx.sizes.cover_floor(self.fn, index, axis)
        text = self.printer(self._affine_expr(a))
        return f"max({text}, {floor})" if floor else text

    def _affine_expr(self, a: Affine) -> Expr:
        e: Optional[Expr] = None
        for k, c in a.terms:
            name = Name(self.var.get(self.fn.params[k], self.fn.params[k].name_hint))
            term: Expr = name if abs(c) == 1 else BinOp("*", number(abs(c)), name)
            if e is None:
                e = term if c > 0 else negate(term)
            else:
                e = binop("+" if c > 0 else "-", e, term)
        if e is None:
            return number(a.const)
        return binop("+", e, number(a.const)) if a.const else e

    def _extent(self, arr: Value, axis: int, op: Op, cover: bool = False) -> Expr:
        """The extent of ``arr`` along ``axis`` as an expression valid at ``op``, or a diagnostic.

        ``cover``: an upper bound on the elements the code touches will do (the size of
        a copy); else the array's own extent, which only an annotation (or a size
        parameter made for it) gives, never the loops that index it.
        """
        d = arr.defining_op
        if arr.owner is self.fn.body:  # a parameter
            index = self.fn.params.index(arr)
            ext = self.extents[index]
            a = ext[axis] if ext is not None else None
            if not cover and (index, axis) not in self.ctx.sizes.exact_axes(self.fn):
                a = None
            if a is not None and all(self._stable(self.fn.params[k]) for k, _ in a.terms):
                floor = self.ctx.sizes.cover_floor(self.fn, index, axis)
                if floor:  # a constant index past what the loops reach (z[3] beside z[i], i < n - 1)
                    return Call(Name("max_l"), (self._affine_expr(a), number(floor)))
                return self._affine_expr(a)
            raise self._size_error(arr, op)
        if d is not None and d.name == "alloc":
            dim = d.operands[axis]
            if self._stable(dim):
                return self.expr(dim)
            raise error(
                "C output: the size of this local array changes after it is made",
                d.loc,
                hint="compute the size once, in a variable of its own",
            )
        if d is not None and d.name == "copy":
            return self._extent(d.operands[0], axis, op, cover)
        if d is not None and d.name == "view" and d.result.type.rank < d.operands[0].type.rank:  # type: ignore
            return self._extent(d.operands[0], axis + 1, op, cover)  # a row: the extents after the first
        if d is not None and d.name == "view":
            offset = d.operands[1]
            if not self._stable(offset):
                raise error(
                    "C output: the offset of this sub-array changes after it is made",
                    d.loc,
                    hint="compute the offset once, in a variable of its own",
                )
            return binop("-", self._extent(d.operands[0], axis, op, cover), self.expr(offset))
        raise self._size_error(arr, op)

    def _size_error(self, arr: Value, op: Op) -> DiagnosticError:
        fn = self.fn
        name = arr.name_hint
        shadows = shadows_of(fn)
        if arr.owner is fn.body and fn.params.index(arr) in shadows:
            name = fn.params[shadows[fn.params.index(arr)]].name_hint
        ints = [p.name_hint for p in fn.params if p.type.is_int and p.name_hint]
        ints += [n for n in ("n", "m", "k", "l") if n not in ints]
        rank = arr.type.rank if isinstance(arr.type, ArrayType) else 1
        elem = arr.type.elem.name if isinstance(arr.type, ArrayType) else "f64"
        if is_c(self.ctx.module.source_file):
            # C input has no annotations: the extent can only come from the loops that index it.
            hint = (f"C pointers carry no size, so s2sad bounds '{name}' by the loops that index it, and "
                    f"found no one bound for all its accesses (indices of different forms, such as "
                    f"{name}[i] beside {name}[n - 1 - i], or an index no loop bounds)")
        else:
            hint = (f"C pointers carry no shape: annotate the parameter, {name}: \"{elem}[{', '.join(ints[:rank])}]\" "
                    f"(with integer parameters for its extents), or index it in a loop over range({ints[0]})")
        return self._error(f"cannot tell the size of array '{name}' in C output", op.loc or fn.loc, hint=hint)

    def _stable(self, v: Value) -> bool:
        """Whether ``v`` can be printed again later with the same value (its variable is never reused)."""
        if const_int(v) is not None:
            return True
        if v in self.var:
            return self._var_count.get(self.var[v], 0) == 1
        op = v.defining_op
        if op is None or not is_pure(op) or not self.plan.is_expr(v):
            return False
        return all(self._stable(o) for o in op.operands)

    def _element(self, arr: Value, idx: list[Value], op: Op) -> Expr:
        """``arr[i]``, ``arr[i * n + j]``, ``A[i][j]`` (a parameter C declares with its extents),
        or a struct member: ``bodies[i].pos[c]``, ``p->k``."""
        cell = cell_of(arr, self.struct_leaves)
        if cell is not None and const_int(idx[0]) == 0:  # p->x of a struct the function may write
            return Name(cell.member)
        struct = self._struct_of(arr)
        if struct is None and self._declared_rows(arr):
            out = self.expr(arr)
            for i in idx:
                out = Subscript(out, (self.expr(i),))
            return out
        if struct is None:
            return Subscript(self.expr(arr), (self._flat(arr, idx, op),))
        f = idx[0].defining_op
        if f is not None and f.name == "field" and f.attrs["struct"] == struct:
            return self._member(self.expr(arr), f)
        # An index that lost its path (no pass makes one today): the structs as the scalars they are.
        elem = _CTYPES[arr.type.elem.name]  # type: ignore[attr-defined]
        return Subscript(Cast(f"{elem} *", self.expr(arr)), (self.expr(idx[0]),))

    def _member(self, base: Expr, f: Op) -> Expr:
        """The access a ``field`` op spells: ``base[i].pos[c]``; ``base->k`` for struct 0."""
        struct_index, *subs = f.operands
        steps = re.findall(r"\.(\w+)|(\[\])", f.attrs["path"])
        out: Expr
        if const_int(struct_index) == 0 and steps and steps[0][0]:
            out = Member(base, steps[0][0], arrow=True)
            steps = steps[1:]
        else:
            out = Subscript(base, (self.expr(struct_index),))
        subscripts = iter(subs)
        for name, _ in steps:
            out = Member(out, name) if name else Subscript(out, (self.expr(next(subscripts)),))
        return out

    def _declared_spelling(self, arr: Value) -> Optional[str]:
        """How the signature declares the parameter ``arr`` is, or is a view into (C input)."""
        base = view_base(arr)
        spelled = self.fn.attrs.get("c_params")
        if base.owner is not self.fn.body or not spelled or len(spelled) != len(self.fn.params):
            return None
        return spelled[self.fn.params.index(base)]

    def _declared_rows(self, arr: Value) -> bool:
        """Whether ``arr`` is (a row of) an array C knows the rows of: a parameter declared with
        its extents (``double A[n][m]``, ``double (*A)[M]``), or a local array made so
        (``double tmp[3][3]``, ``double (*w)[m]``). C indexes it ``A[i][j]``; ``A[i]`` is a row."""
        base = view_base(arr)
        if not self.rows_declared or base.type.rank < 2:  # type: ignore[attr-defined]
            return False
        if self.var.get(base) in self.stack_rows | self.heap_rows:
            return True
        declared = self._declared_spelling(arr)
        return declared is not None and is_array_spelling(declared)

    def _row(self, arr: Value, i: Value, op: Op) -> Expr:
        """The sub-array ``arr[i]`` of an array of rank 2 or more: ``A[i]`` where C knows the
        rows, else the address of the row's first element, ``A + i * m``."""
        if self._declared_rows(arr):
            return Subscript(self.expr(arr), (self.expr(i),))
        step: Expr = self.expr(i)
        for axis in range(1, arr.type.rank):  # type: ignore[attr-defined]
            step = _times(step, self._extent(arr, axis, op))
        return binop("+", self.expr(arr), step)

    def _struct_of(self, arr: Value) -> Optional[str]:
        """The struct type ``arr`` points to (C input: a parameter declared ``struct Body *``, or
        a view or copy of one), or None for an array of numbers."""
        structs = self.fn.attrs.get("c_structs")
        if not structs:
            return None
        base = storage_of(arr)
        spelled = self.fn.attrs.get("c_params")
        if base.owner is not self.fn.body or not spelled or len(spelled) != len(self.fn.params):
            return None
        entry = pointee_struct(spelled[self.fn.params.index(base)], structs)
        return entry[0] if entry is not None else None

    def _struct_size(self, struct: str) -> int:
        return next(size for name, _, size in self.fn.attrs["c_structs"] if name == struct)

    def _flat(self, arr: Value, idx: list[Value], op: Op) -> Expr:
        """The row-major index of ``arr[i0, ..., ik]``: ``(i0 * n1 + i1) * n2 + i2``."""
        flat = self.expr(idx[0])
        for axis in range(1, len(idx)):
            flat = _plus(_times(flat, self._extent(arr, axis, op)), self.expr(idx[axis]))
        return flat

    def _count(self, arr: Value, op: Op) -> Expr:
        rank = arr.type.rank  # type: ignore[attr-defined]
        total = self._extent(arr, 0, op, cover=True)  # a copy needs the elements touched
        for axis in range(1, rank):
            total = binop("*", total, self._extent(arr, axis, op))
        return total

    # -- statements --------------------------------------------------------------------
    def gen_op(self, op: Op) -> list[Stmt]:
        if op in self.skip:
            return []
        if op.regions:
            stmts = self._gen_op(op)
            names = self.null_first.pop(op, [])  # set while its regions were printed
            return [Assign([Name(var)], Lit("NULL")) for var in names] + stmts
        return self._gen_op(op)

    def _gen_op(self, op: Op) -> list[Stmt]:
        n = op.name
        if n == "return":
            return self._return(op)
        if n == "store":
            arr, *idx, val = op.operands
            if self._threads_share(op):
                # Another iteration, on another thread, may add to this element at once.
                g = accumulation(op)
                if g is not None:
                    return [Pragma("omp atomic"), AugAssign(self._element(arr, idx, op), "+", self.expr(g))]
                upd = update(op)
                if upd is None:
                    raise error("C output: this '#pragma omp atomic' update lost its form 'y[k] += e'", op.loc,
                                hint="write the update as 'y[k] += e;' on its own line")
                sign, e = upd
                return [Pragma("omp atomic"), AugAssign(self._element(arr, idx, op), "+" if sign > 0 else "-",
                                                        self.expr(e))]
            return [Assign([self._element(arr, idx, op)], self.expr(val))]
        if n == "accum":
            arr, *idx, g = op.operands
            if self._threads_share(op):
                return [Pragma("omp atomic"), AugAssign(self._element(arr, idx, op), "+", self.expr(g))]
            # As the load, add and store it stands for: d[i] = d[i] + g, which rendering makes d[i] += g.
            old = self._element(arr, idx, op)
            if g.type.is_float:
                a, b = self._float_exprs([old, self.expr(g)], [None, self._int_to_float(g)])
            else:
                a, b = old, self._int_operand(g)
            return [Assign([self._element(arr, idx, op)], binop(_ARITH["add"], a, b))]
        if n == "alloc":
            return self._alloc(op)
        if n == "copy":
            return self._copy(op)
        if len(op.results) == 1 and op.result in self.var and is_pure(op) and not op.regions:
            value = self.op_expr(op)
            if self._is_alias(op.result, value):
                self.aliases[op.result] = value  # `long t0 = n;` says nothing: print `n` where it is used
                return []
            return [Assign([Name(self.var[op.result])], value)]
        return super().gen_op(op)

    def _is_alias(self, v: Value, value: Expr) -> bool:
        if self._var_count.get(self.var[v], 0) != 1:
            return False
        if isinstance(value, Lit) or (isinstance(value, Unary) and isinstance(value.operand, Lit)):
            return True
        return isinstance(value, Name) and self._var_count.get(value.id, 0) == 1

    def _choose(self, c: Expr, a: Expr, b: Expr) -> Expr:
        return c_if_exp(c, a, b)

    def _return(self, op: Op) -> list[Stmt]:
        frees = self._frees(self.fn.body)
        if self.returned is not None:
            out: list[Stmt] = []
            for i, v in zip(self.returned, op.operands):
                value = self.expr(v)
                lit = literal_value(value)
                if lit is not None and not isinstance(lit, bool) and lit == 0:
                    continue  # nothing to add
                out.append(self._add_returned(self.out_names[i], value, v.type))
            return out + frees
        if not op.operands:
            return frees
        value = self.expr(op.operands[0])
        freed = {f.value.args[0].id for f in frees}  # type: ignore[attr-defined]
        if freed & set(names_in(value)):
            t = self.namer.fresh("result")
            self.types[t] = ctype(op.operands[0].type)
            return [Assign([Name(t)], value)] + frees + [Return([Name(t)])]
        return frees + [Return([value])]

    def _add_returned(self, pointer: str, value: Expr, t: Type) -> Stmt:
        """A gradient adds an adjoint it returns where its pointer parameter points: ``*d_a += v``
        (a struct member's into the shadow struct's: ``d_w->gamma += v``)."""
        for i, out in self.struct_outs.items():
            if self.out_names[i] == pointer:
                return AugAssign(Name(out.member), "+", value)
        return AugAssign(deref(pointer), "+", value)

    def _frees(self, block: Block) -> list[Stmt]:
        names = [name for op, name in self.heap.items() if self.home.get(op, op.parent) is block]
        return [self._free(n) for n in reversed(names)]

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
                out.append(self._free(name))
        for other, held in list(self.heap.items()):
            if held == name and self.home.get(other, other.parent) is home:
                # out-of-SSA shares one variable between buffers whose lives do not overlap
                del self.heap[other]
                out.append(self._free(name))
        self.heap[op] = name
        return out

    def _yield_copies(self, region: Block) -> list[Stmt]:
        return super()._yield_copies(region) + self._frees(region)

    def _elem(self, t: Type) -> str:
        assert isinstance(t, ArrayType)
        return _CTYPES[t.elem.name]

    def _alloc(self, op: Op) -> list[Stmt]:
        v = op.result
        if v not in self.var:
            return []
        name = self.var[v]
        elem = self._elem(v.type)
        consts = [const_int(d) for d in op.operands]
        # A cache (the forward sweep fills it per iteration, the reverse sweep reads it back)
        # starts zeroed although nothing reads a slot before it is written: gcc cannot always tie
        # the reverse loop's slots to the forward loop's and reports a read of uninitialized
        # memory (-Wmaybe-uninitialized); and, were a slot ever read unwritten, a zero would make
        # the bug reproducible.
        cache = bool(op.attrs.get("cache"))
        zero = op.attrs.get("fill", "zeros") == "zeros" or cache
        if all(c is not None and c >= 0 for c in consts) and self._var_count[name] == 1:
            size = 1
            for c in consts:
                size *= c  # type: ignore[operator]
            if 0 < size <= STACK_LIMIT:
                self.stack.add(name)
                values = self._table_values(op, consts) if op.attrs.get("table") else ()  # type: ignore[arg-type]
                if len(consts) > 1 and self.rows_declared and "c_params" in self.fn.attrs:
                    self.stack_rows.add(name)  # C input's double tmp[3][3]: so in the output too
                    return [ArrayDecl(elem, name, size, zero, values, tuple(consts))]  # type: ignore[arg-type]
                return [ArrayDecl(elem, name, size, zero, values)]
        self._heap_rows(op, name, elem)
        counts = [self.expr(d) for d in op.operands]
        if zero or elem == "bool":
            # calloc's count, like malloc's of bytes, is one gcc checks unwrapped: a cache's (a trip
            # count, max(span, 0), whose clamp C drops where ``ranges`` knows the span is not
            # negative) and the program's own extents too (an adjoint's calloc(m, ...) in a branch
            # of a loop, where gcc took m for negative: fuzz seeds 5000004, 5000216).
            counts = [self._checked_count(c, d) for c, d in zip(counts, op.operands)]
        count = counts[0]
        for c in counts[1:]:
            count = _times(count, c)
        if zero:
            value = self._calloc(name, count, elem)
        else:
            value = self._malloc(name, binop("*", count, Lit(f"sizeof({elem})")))
        return self._register_buffer(op, name) + [Assign([Name(name)], value)]

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
        elem = self._elem(v.type)
        count = self._count(src, op)
        nbytes = binop("*", self._checked_count(count) if elem == "bool" else count, Lit(f"sizeof({elem})"))
        return self._register_buffer(op, name) + [
            Assign([Name(name)], self._malloc(name, nbytes)),
            ExprStmt(Call(Name("memcpy"), (Name(name), self.expr(src), nbytes))),
        ]

    # Heap memory as the C library spells it; device code spells it its own way (emit_cuda).
    # ``var`` is the variable that holds the memory.
    def _malloc(self, var: str, nbytes: Expr) -> Expr:
        return Call(Name("malloc"), (nbytes,))

    def _calloc(self, var: str, count: Expr, elem: str) -> Expr:
        return Call(Name("calloc"), (count, Lit(f"sizeof({elem})")))

    def _grown(self, var: str, used: Expr, count: Expr, elem: str) -> Expr:
        """The memory of ``var`` with room for ``count`` elements, the first ``used`` kept."""
        return Call(Name("realloc"), (Name(var), binop("*", count, Lit(f"sizeof({elem})"))))

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
        cap_value = self._checked_count(self.expr(op.operands[0]), op.operands[0])
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

    # -- calls -------------------------------------------------------------------------
    def _call(self, op: Op) -> list[Stmt]:
        callee = self.module.functions.get(op.attrs["callee"])
        returned = self.ctx.returned(callee) if callee is not None else None
        if returned is None:
            return super()._call(op)
        # A gradient returns the adjoints of ``returned`` through pointers the caller passes.
        self._fuse(op, returned)
        pre: list[Stmt] = []
        args: list[Expr] = []
        for j, a in enumerate(op.operands):
            args.append(self.call_arg(op, j))
            if j not in returned:
                continue
            r = op.results[returned.index(j)]
            if r in self.fused:
                args.append(address_of(self.fused[r]))
                continue
            name = self.var.get(r)
            if name is None:
                name = self.namer.fresh(f"{r.name_hint or 'adjoint'}_unused")
                self.types[name] = ctype(r.type)
            pre.append(Assign([Name(name)], self._lit(0, r.type)))
            args.append(address_of(Name(name)))
        name = self.ctx.c_name(op.attrs["callee"])
        if (self.parallel or self.atomic) and any(a.type.is_array for a in op.operands):
            # Other iterations may pass the same shadow (d_c + k * d): the callee's copy that
            # accumulates into the arrays it is passed atomically.
            name = self.ctx.atomic_name(op.attrs["callee"])
        return pre + [ExprStmt(Call(Name(name), tuple(args)))]

    def call_arg(self, op: Op, k: int) -> Expr:
        """An argument; a flat buffer (a copy, an array on the heap) where the callee declares
        rows (``double B[n][m]``) is cast to them, ``(double (*)[m])t0``, as C wants."""
        a = op.operands[k]
        e = self.expr(a)
        callee = self.module.functions.get(op.attrs["callee"])
        spelled = callee.attrs.get("c_params") if callee is not None else None
        if not (a.type.is_array and a.type.rank > 1 and spelled and len(spelled) == len(op.operands)  # type: ignore
                and self.rows_declared and is_array_spelling(spelled[k]) and not self._declared_rows(a)):
            return e
        rows = [self.printer(self._extent(a, axis, op)) for axis in range(1, a.type.rank)]  # type: ignore
        return Cast(pointer_to_rows(spelled[k], rows), e)

    def _several_results(self, op: Op, value: Expr) -> list[Stmt]:
        raise error(
            f"C output: '{op.attrs['callee']}' returns several values, which C cannot",
            op.loc,
            hint="return one value, or write the results into an array argument",
        )

    def _fuse(self, op: Op, returned: list[int]) -> None:
        """Let the callee add an adjoint where the caller would add it next (``&d_a_local``, ``&d_x[i]``).

        A gradient adds each returned adjoint to ``*d_p`` once. When the caller's only
        use of it is to add it to a variable (``d_a = d_a + r``) or to an array element
        (``d_x[i] += r``) right after the call, passing that variable's or element's
        address gives the same sum without the temporary.
        """
        block = op.parent
        k = block.ops.index(op)
        callee_roots = {self.ctx.effects.root(a) for a in op.operands if a.type.is_array}
        taken: set[str] = set()
        progress = True
        while progress:  # one fusion can clear the way for another (the add it removes sat between)
            progress = False
            for r in op.results:
                if r not in self.fused and self._fuse_one(op, r, block, k, callee_roots, taken):
                    progress = True

    def _fuse_one(self, op: Op, r: Value, block: Block, k: int, callee_roots: set, taken: set[str]) -> bool:
        if len(r.uses) != 1:
            return False
        (user, at) = r.uses[0]
        if user.parent is not block:
            return False
        if user.name == "accum" and at == len(user.operands) - 1:  # d_x[i] += r: the callee adds into &d_x[i]
            arr, *idx, _ = user.operands
            if (self.ctx.effects.root(arr) in callee_roots
                    or not self._only_folded_between(block, k, block.ops.index(user)) or not self._may_fuse_into(user)):
                return False
            element = self._element(arr, idx, user)
            if any(isinstance(x, (Subscript, Call)) for x in walk(element) if x is not element):
                return False
            return self._fused(r, element, user, taken)
        if user.name != "add" or user.result.type != r.type:
            return False
        other = user.operands[1] if user.operands[0] is r else user.operands[0]
        # d_a = d_a + r: the callee adds into &d_a
        if (other is not r and user.result in self.var and other in self.var
                and self.var[user.result] == self.var[other]
                and self._only_folded_between(block, k, block.ops.index(user))):
            return self._fused(r, Name(self.var[other]), user, taken)
        return False

    def _fused(self, r: Value, target: Expr, skip: Op, taken: set[str]) -> bool:
        key = self.printer(target)
        if key in taken:
            return False
        taken.add(key)
        self.fused[r] = target
        self.skip.add(skip)
        return True

    def _only_folded_between(self, block: Block, lo: int, hi: int) -> bool:
        for x in block.ops[lo + 1 : hi]:
            if x.name == "comment" or x in self.skip:
                continue
            if len(x.results) == 1 and self.plan.folded_op(x):
                continue
            return False
        return True

    # -- loops ---------------------------------------------------------------------------
    def _for(self, op: Op) -> list[Stmt]:
        body = op.regions[0]
        lb, ub, step, *inits = op.operands
        iv = body.args[0]
        name = self.var.get(iv, "_")
        if name == "_":
            name = self._counter_name(iv.name_hint)
            self.var[iv] = name
        elif any(self.var.get(v) == name for v in _defined_inside(body) if v is not iv):
            # Another variable of that name is assigned in the body: in C that would move the loop.
            name = self.namer.fresh(name)
            self.var[iv] = name
        self.types[name] = ctype(iv.type)
        pre = self.copies(list(zip(body.args[1:], inits)))
        self.loop_names.append(name)
        if is_parallel(op):
            self.parallel.append(op)
            self.parallel_private.append(private_accumulations(op))
        stmts = self._region(body)
        if is_parallel(op):
            self.parallel.pop()
            self.parallel_private.pop()
        self.loop_names.pop()
        written_body = stmt_names(stmts)[1]
        bounds = [self.expr(lb), self._signed_operand(ub), self.expr(step)]  # ub: compared with the counter

        def unstable(k: int, names: list[str]) -> bool:
            # A bound that reads a variable of the counter's name (a value out-of-SSA gave the same
            # name, dead once the loop starts) would read C's new counter instead: computed first.
            # C evaluates the end and a step that is not a literal every iteration: one that the
            # body changes (a variable it assigns, memory) is computed first too.
            every_iteration = k > 0 and not (k == 2 and literal_value(bounds[k]) is not None)
            return name in names or (every_iteration and (any(n in written_body for n in names)
                                                          or reads_memory(bounds[k], _MATH_H)))

        early = self._bounds_first(name, iv.type, bounds, pre, unstable)
        loop = For(name, bounds, stmts or [], sign=known_sign(step))
        if is_parallel(op):
            carried = [(a, y) for a, y in zip(body.args[1:], body.terminator.operands) if y is not a]
            # A value no iteration reads is the last iteration's (lastprivate); the others are sums.
            last = [self.var[a] for a, _ in carried if a in self.var and not a.uses]
            reduction = [self.var[a] for a, _ in carried if a in self.var and a.uses]
            for a, _ in carried:  # each thread sums into its own copy, from zero: the copy is only added to
                if not only_summed(a):
                    raise error(f"C output: the parallel loop carries '{self.var.get(a, '?')}', which is not a sum",
                                op.loc, hint="remove '#pragma omp parallel for' from this loop")
            if op.attrs.get("collapsed"):
                return early + pre + [loop]  # one of the loops under its outer loop's collapse(n)
            pragma = Pragma("", loop, reduction, op.attrs.get("schedule"), last, op.attrs.get("collapse", 1))
            return early + pre + [pragma, loop]
        return early + pre + [loop]

    def _bound_temp(self, k: int, counter: str, t: Type) -> str:
        temp = self.namer.fresh(f"{counter}_{('start', 'end', 'step')[k]}")
        self.types[temp] = ctype(t)
        return temp

    def _counter_name(self, hint: str = "") -> str:
        """A name for a counter the body does not read (C's ``for`` needs one all the same): the
        source's (``step``) when free, else ``it``; ``it2`` inside a loop that already uses ``it``."""
        hint = sanitize(hint)
        names = ([hint] if hint and hint not in ("_", "it") else []) + ["it"] + [f"it{k}" for k in range(2, 100)]
        for cand in names:
            if cand not in self.loop_names and (cand in self.counters or self.namer.is_free(cand)):
                if cand not in self.counters:
                    self.namer.claim_fixed(cand)
                    self.counters.add(cand)
                return cand
        raise AssertionError("no free loop counter name")  # 100 nested counters: not C a person wrote

    def _break_cycle(self, pending: list[tuple[str, Expr]], out: list[Stmt]) -> bool:
        """C has no tuple assignment: compute one new value into ``<x>_next`` first."""
        k = next((k for k, (_, s) in enumerate(pending) if not isinstance(s, Name)), 0)
        d, s = pending[k]
        t = self.namer.fresh(f"{d}_next")
        self.types[t] = self.types[d] if d in self.types else self._param_type(d)
        out.append(Assign([Name(t)], s))
        pending[k] = (d, Name(t))
        return False

    def _param_type(self, name: str) -> str:
        for p in self.fn.params:
            if self.var.get(p) == name:
                return ctype(p.type)
        return "double"


def tape_elem(new: Op) -> str:
    """The C type of the elements of the tape ``new`` makes."""
    return _CTYPES[new.attrs.get("elem", "f64")]


def _int_min_max(fn: str, a: Expr, b: Expr) -> Expr:
    """Integer ``min``/``max``: a conditional of two names or literals, else the helper."""
    if all(isinstance(x, (Name, Lit)) for x in (a, b)):
        return IfExp(Compare(">" if fn == "max" else "<", a, b), a, b)
    return Call(Name(f"{fn}_l"), (a, b))


def _times(a: Expr, b: Expr) -> Expr:
    """``a * b``, except by an extent of 1 (a ``keepdims`` axis), which C needs no more than NumPy."""
    return a if literal_value(b) == 1 else binop("*", a, b)


def _plus(a: Expr, b: Expr) -> Expr:
    return a if literal_value(b) == 0 else binop("+", a, b)


def _unrestricted(declared: str) -> str:
    """``double *restrict`` as ``double *``: a second pointer into the same array must not
    promise to be the only one."""
    return re.sub(r"\s*\brestrict\b", "", declared)


def _defined_inside(block: Block) -> list[Value]:
    out = list(block.args)
    for op in block.walk():
        out += op.results
        for r in op.regions:
            out += r.args
    return out


def _ternaries(stmts: list[Stmt]) -> list[Stmt]:
    """``if (c) { y = a; } else { y = b; }`` marked as a ternary by the builder: ``y = c ? a : b;``."""
    out: list[Stmt] = []
    for s in stmts:
        if isinstance(s, If) and s.ternary:
            a, b = s.body[0], s.orelse[0]
            out.append(Assign(a.targets, c_if_exp(s.cond, a.value, b.value), copy=True))  # type: ignore[union-attr]
            continue
        out.append(map_blocks(s, _ternaries))
    return out


__all__ = ["emit_c", "ctype", "HELPERS"]


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

