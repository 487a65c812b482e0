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
pointing at source lines). What is C's own (this package), each concern in a module of its own whose class
``CFunctionEmitter`` mixes in:

* types and expressions: ``f64`` -> ``double``, ``f32`` -> ``float`` (literals ``0.5f``,
  ``sinf``), ``i64`` -> ``long``, ``i32`` -> ``int``, ``bool`` -> ``bool`` (``cexpr``); the
  expression of each op (here);
* integers (``integers``): unsigned parameters read as ``long`` where the sign matters; integer
  ``//`` and ``%`` print as C's ``/`` and ``%`` where ``ranges`` proves both operands
  non-negative, else as calls of floored helpers (``helpers``); the IR's ``rem`` is C's own
  ``%`` (``fmod`` on floats);
* arrays (``indexing``): an array parameter is a pointer to a flat, row-major buffer
  (``A[i * m + j]``), its extents found by ``sizes``; one that C input declared with its extents
  keeps them (``A[i][j]``, a row ``A[i]``); struct members; a ``view`` is pointer arithmetic,
  ``x + k``, its extent ``x``'s less ``k``;
* signatures by the contract (here): a float scalar whose adjoint a gradient returns
  gets a shadow pointer right after it (``double a, double *d_a``), and the
  adjoint is added to it (``*d_a += d_a_local;``): the adjoint accumulates in
  a local first, so the loop does not write through a pointer that may alias
  others;
* calls (``calls``): calls to ``grad_<callee>`` pass the address of the variable or array
  element the adjoint is added to (``grad_g(x[i], &d_x[i], a, &d_a_local, d_s)``);
* memory (``memory``): ``calloc``/``malloc`` (small constant sizes: arrays on the stack),
  freed at the end of the block that made them; copies by ``memcpy``; tapes;
* loops (``loops``): ``for (long i = n - 1; i >= 0; i--)``, OpenMP's parallel ones too
  (``parallel``);
* declarations at first assignment, in the innermost scope (``cstmt``), and the file around
  the functions (``cfile``).

IR that C cannot express raises a diagnostic (``s2sad.diagnostics.error``).
"""

from __future__ import annotations

import math
import re
from typing import Optional

from ..analysis.accumulation import accumulation, update
from ..analysis.ranges import IntRanges
from ..analysis.unread_yields import unread_undef_yields
from ..diagnostics import error
from ..emit.builder import StatementBuilder
from ..emit.convention import Convention, entry_text, helper_text, instance_text
from ..emit.expr import (
    BinOp,
    Call,
    Expr,
    Lit,
    Name,
    Unary,
    affine,
    square,
    binop,
    compare,
    literal_value,
    names_in,
    negate,
    number,
)
from ..emit.outofssa import allocate
from ..emit.stmt import Assign, AugAssign, Comment, ExprStmt, If, Return, Stmt, map_blocks, tidy
from ..parse.c_declarators import declarator
from ..ssa.attrs import grad_info
from ..ssa.build import const_int
from ..ssa.ir import Block, Function, Module, Op, Value
from ..ssa.mathfns import MATH
from ..ssa.opdefs import is_pure, reads_global
from ..ssa.ops import int_member
from ..ssa.types import Type, float32_text
from .aggregates import StructParam, each_of, struct_params

from .calls import CCalls
from .cexpr import C_TYPES, Cast, CPrinter, F32Lit, address_of, c_if_exp, ctype, deref
from .cfile import ModuleContext, c_file, emit_functions, strip_comments
from .cstmt import called_names, declare, drop_dead
from .helpers import HELPERS, PURE_CALLS
from .indexing import CArrayAccess, slot_helpers
from .integers import CIntegers, int_min_max
from .loops import CLoops
from .memory import CMemory
from .mpi import CMpi
from ..ssa.mpi import is_mpi
from .names import CNamer
from .parallel import Pragma
from .parallel import finish as finish_pragmas
from .render import CRenderer, wrap_signature
from .signature import declared_params, global_array_params, results_through_pointers
from .workspace import Workspace
from ..analysis.extents import sizes_buffers_only

_ARITH = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
_BITS = {"bitand": "&", "bitor": "|", "bitxor": "^", "shl": "<<", "shr": ">>"}


def emit_c(module: Module, header: str, entry: str, workspace: bool = False) -> str:
    """The module as one C99 file: ``entry`` has external linkage, every other function is static;
    with ``workspace``, its tapes live in memory its caller keeps across calls (workspace.py)."""
    return c_file(header, emit_functions(module, entry, CFunctionEmitter, workspace), HELPERS | slot_helpers(module))


class CFunctionEmitter(CMemory, CCalls, CMpi, CLoops, CArrayAccess, CIntegers, StatementBuilder):
    """The shared statement builder, with C's expressions, memory, calls, loops and declarations."""

    language = "C"
    slot_helpers = True  # slot_get_<struct>/slot_set_<struct> reach integer members number by number
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
        # C input keeps the user's declared types (``const double *``, ``int``, ``size_t``).
        self.declared = declared_params(fn)
        # The entry's file-scope arrays (``global_array_params``): their declarations at file scope.
        self.file_scope: list[str] = []
        self.file_scope_names: set[str] = set()
        self.printer = CPrinter()
        self.namer = CNamer(ctx.module_names)
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
        # A function of several results (Python's ``return r, theta``; C's struct returned by value,
        # one per member) writes them through pointers the caller passes, after its parameters:
        # ``double *result_0, double *result_1`` (``double *result_re, double *result_im``).
        self.result_outs: list[str] = []
        if self.returned is None and results_through_pointers(fn):
            if fn.name == ctx.entry:
                raise error(f"function '{fn.name}' returns {len(fn.result_types)} values, which the entry point of "
                            "C output cannot", fn.loc, hint="return one value, or write the results into an array "
                            "argument")
            named = fn.attrs.get("result_names") or [str(k) for k in range(len(fn.result_types))]
            self.result_outs = [self.namer.claim_fixed(f"result_{n}") for n in named]
        self.alloc = allocate(fn, ctx.effects, self.namer, self._zeroed_before_call(), self._buffers_freed_at())
        self.var = self.alloc.var
        # --workspace: the entry's tapes live in memory the caller keeps across calls (workspace.py).
        self.workspace = Workspace.of(ctx.module, fn, ctx.c_name(fn.name), self.namer.fresh("ws")) \
            if ctx.workspace and fn.name == ctx.entry and not atomic else None
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
        # home block -> alloc/copy/tape.new freed at its end -> the variable to free (``hold``)
        self.heap: dict[Block, dict[Op, str]] = {}
        self.home: dict[Op, Block] = {}  # ... -> the block at whose end it is freed (buffer_home)
        self.null_first: dict[Op, list[str]] = {}  # structured op -> buffer variables to set to NULL before it
        self.stack: set[str] = set()
        self.stack_rows: set[str] = set()  # stack arrays declared with their extents: double tmp[3][3]
        self.heap_rows: set[str] = set()  # heap arrays declared as pointers to rows: double (*w)[m]
        self.row_tables: dict[str, str] = {}  # flat buffers passed as double ** -> their tables of rows
        self.fixed_extents: dict[tuple[Op, int], str] = {}  # (alloc, axis) -> variable keeping it (memory.py)
        self.skip: set[Op] = set()  # ops folded into a call (accumulation through a pointer)
        self.fused: dict[Value, Expr] = {}  # call result -> where the callee accumulates it
        self.positions: dict[Block, dict[Op, int]] = {}  # (CCalls._at)
        self.aliases: dict[Value, Expr] = {}  # values whose C expression is a variable or literal
        self.loop_names: list[str] = []  # of the loops being built, outermost first
        self.counters: set[str] = set()  # names made for loop counters the source left unnamed
        self.parallel: list[Op] = []  # the OpenMP loops being built, outermost first
        # The atomic copy of a gradient that a parallel loop calls: the arrays it is passed may
        # be the ones other iterations add to at once (a shared d_c + k * d), so every
        # accumulation into them is atomic, and so are the gradients it calls.
        self.atomic = atomic
        self.extents = ctx.sizes.extents(fn)
        self.ranges = IntRanges(fn, self._size_params())
        self.unsigned = self._unsigned_params()
        self.rows_wanted = self._rows_wanted()

    # -- the function ------------------------------------------------------------------
    def emit(self) -> str:
        fn = self.fn
        self._check_sizes()
        params = []
        spelled = self.declared
        declared: set[str] = set()  # the struct parameters declared so far
        self.printed_params: dict[Value, str] = {}  # each IR parameter -> the C parameter that holds it
        hidden = global_array_params(fn) if fn.name == self.ctx.entry and not self.atomic else {}
        zeroed: list[str] = []
        args: list[str] = []  # the name each of params declares, in their order (the workspace's wrapper)
        for i, p in enumerate(fn.params):
            leaf = self.struct_leaves.get(p)
            if i in hidden:  # a file-scope array, or its adjoint: the body names it, no parameter holds it
                name = self.printed_params[p] = self.var.get(p) or self.namer.fresh(p.name_hint)
                self._file_scope_array(name, *hidden[i], zeroed)
            elif leaf is not None:
                self.printed_params[p] = leaf.group
                if leaf.group not in declared:
                    params.append(declarator(leaf.spelled, leaf.group))
                    args.append(leaf.group)
                    declared.add(leaf.group)
            else:
                name = self.printed_params[p] = self.var.get(p) or self.namer.fresh(p.name_hint or "arg")
                t = self._param_spelling(spelled[i]) if spelled is not None else ctype(p.type)
                params.append(declarator(t, name))
                args.append(name)
            out = self.struct_outs.get(i)
            if out is not None and out.group not in declared:
                params.append(declarator(out.spelled, out.group))
                args.append(out.group)
                declared.add(out.group)
            elif out is None and i in self.out_names:  # the adjoint's out-cell is written: not const
                cell = " ".join(w for w in t.split() if w not in ("const", "restrict"))
                params.append(declarator(cell + " *", self.out_names[i]))
                args.append(self.out_names[i])
        if fn.attrs.get("with_value"):  # --with-value: the primal's value, as the primal returns it
            ret = fn.attrs.get("c_result") or ctype(fn.result_types[0])
        elif self.returned is not None or len(fn.result_types) != 1 or self.result_outs:
            ret = "void"
        else:
            ret = fn.attrs.get("c_result") or ctype(fn.result_types[0])
        for name, t in zip(self.result_outs, fn.result_types):
            if t.is_array:
                raise error(f"C output: '{fn.name}' returns several values, an array among them", fn.loc,
                            hint="write the array into an output array parameter")
            params.append(declarator(ctype(t) + " *", name))
            args.append(name)
        body = tidy(self.gen_block(fn.body))
        body = _ternaries(body)
        types = {k: v for k, v in self.types.items() if k not in self.stack and k not in self.param_names}
        touched: dict = {}  # what each statement names (cstmt.touched), found once for both
        # (tidy: comments left without their code)
        body = tidy(drop_dead(body, types, PURE_CALLS, frozenset(self.stack), touched))
        declare(body, types, touched)
        finish_pragmas(body)
        self.calls = called_names(body)  # what the file must keep for this function (cfile._reachable)
        renderer = CRenderer(self.printer, self.types)
        lines: list[str] = []
        for k, st in enumerate(body):
            if isinstance(st, Comment) and k > 0 and not isinstance(body[k - 1], Comment):
                lines.append("")
            lines += renderer.stmt(st, "    ")
        code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', strip_comments("\n".join(lines)))  # (words of messages name nothing)
        names = [self.struct_leaves[p].group if p in self.struct_leaves else self.var.get(p) for p in fn.params]
        names += [self.struct_outs[i].group if i in self.struct_outs else self.out_names[i]
                  for i in sorted(self.out_names)]
        names = [n for n in dict.fromkeys(names) if n not in self.file_scope_names]
        lines = [f"    memset({d}, 0, sizeof {d});" for d in zeroed] + ([""] if zeroed and lines else []) + lines
        unused = [
            f"    (void){n};  // not needed by the gradient" if self.returned is not None else f"    (void){n};"
            for n in names
            if n and not re.search(rf"(?<!\.)(?<!->)\b{n}\b", code)  # (threadIdx.x, p->x: members, not x)
        ]
        if unused and lines and lines[0] != "":
            unused.append("")
        c_name = self.ctx.atomic_variants[fn.name] if self.atomic else self.ctx.c_name(fn.name)
        head = wrap_signature(f"{self._linkage()}{ret} {c_name}", params, " {")
        sizes = self._sizes_comment() if fn.name == self.ctx.entry else []
        about = [f"// {line}".rstrip() for line in self._convention()] + (["//"] if sizes else [])
        instance = instance_text(fn.attrs, grad_info(fn) is not None)  # one of several copies of a helper
        about = ([f"// {instance}"] if instance else []) + about
        guard = self._size_guard() if fn.name == self.ctx.entry and not self.atomic else []
        if self.workspace is None:
            return "\n".join(about + sizes + head + guard + unused + lines + ["}"])
        ws = self.workspace
        kept = wrap_signature(f"{ret} {c_name}_ws", [f"{ws.type_name} *{ws.param}", *params], " {")
        note = ["//", f"// {c_name}_ws does the same on the workspace *{ws.param}, whose tapes it keeps for the next "
                "call (--workspace)."]
        if not ws.slots:  # every tape lives in a loop's body, freed there: nothing to keep
            unused = [f"    (void){ws.param};  // no tape of this gradient outlives the block that makes it", *unused]
        return "\n".join(about + sizes + note + kept + guard + unused + lines + ["}", ""]
                         + ws.wrapper(ret, head, args))

    def _file_scope_array(self, name: str, array: str, declaration: str, shadow: bool, zeroed: list[str]) -> None:
        """The file-scope array ``array`` (``declaration``: ``double work[MAXN]``) as the gradient
        names it (``name``): the program's own, declared extern; or its adjoint (``shadow``), a
        file-scope array of the gradient's file (the program's array is one too) that each call
        zeroes."""
        own = declaration.startswith("static ")  # static: the gradient's own array (c_global_arrays)
        declaration = declaration.removeprefix("static ")
        if not shadow and name == array:
            self.file_scope.append(f"static {declaration};" if own else f"extern {declaration};")
        elif shadow:
            self.file_scope.append("static " + re.sub(rf"\b{re.escape(array)}\b", name, declaration, count=1) + ";")
            zeroed.append(name)
        else:
            raise error(f"C output: the file-scope array '{array}' would be named '{name}' in the gradient",
                        self.fn.loc, hint=f"rename '{array}'")
        self.file_scope_names.add(name)

    def _convention(self) -> list[str]:
        """A gradient's comment lines: the contract's convention for its parameters (a helper
        s2sad adds says what it computes: its ``about`` lines)."""
        if "about" in self.fn.attrs:
            return list(self.fn.attrs["about"])
        fn = self.fn
        info = grad_info(fn)
        if info is None:
            return []
        if fn.name != self.ctx.entry:
            return helper_text(info.primal, grad_info(self.module.functions[self.ctx.entry]).primal)
        names = [self.printed_params[p] for p in fn.params]
        hidden = global_array_params(fn)  # the program's arrays: not the caller's to seed
        shadows = list(dict.fromkeys((names[j], names[i]) for i, j in sorted(info.shadows.items())
                                     if i not in hidden))
        returned = self.returned or []
        return entry_text(Convention(
            primal=info.primal,
            shadows=shadows,
            # (a struct member's adjoint is added into the shadow struct's member: dJ/dw->gamma to d_w->gamma)
            scalars=[self.struct_leaves[fn.params[i]].member if fn.params[i] in self.struct_leaves
                     else fn.params[i].name_hint for i in returned],
            scalar_cells=[self.struct_outs[i].member if i in self.struct_outs else f"*{self.out_names[i]}"
                          for i in returned],
            seed=names[info.d_return] if info.d_return is not None else None,
            with_value=bool(fn.attrs.get("with_value")),
            calling=tuple(self._no_defaults(names)),
        ))

    def _no_defaults(self, names: list[str]) -> list[str]:
        """Python input whose parameters have default values: C has none, so the caller passes
        every argument; the comment says what the primal's defaults are."""
        defaults = self.fn.attrs.get("defaults") or {}
        given = [(names[k], defaults[p.name_hint]) for k, p in enumerate(self.fn.params)
                 if p.name_hint in defaults and k != grad_info(self.fn).d_return]
        if not given:
            return []
        values = ", ".join(f"{name} = {value!r}" for name, value in given)
        return [f"C has no default arguments: pass every one ({grad_info(self.fn).primal}'s defaults are {values})."]

    def _size_guard(self) -> list[str]:
        """Python input: the integer parameters its annotations make lengths (``x: "f64[n]"``)
        are checked not negative at entry, a message on stderr and ``abort()`` otherwise (an
        array cannot have a negative length: a caller that passes one has mixed up its arguments,
        which the gradient says rather than compute from them)."""
        if "c_params" in self.fn.attrs:
            return []  # C input: its declared signature, its own sizes
        names: list[str] = []
        for i in self.ctx.sizes.length_params(self.fn):
            name = self.var.get(self.fn.params[i])
            if name and name not in names:
                names.append(name)
        if not names:
            return []
        said = " and ".join([", ".join(names[:-1]), names[-1]]) + " are array lengths" if len(names) > 1 \
            else f"{names[0]} is an array length"
        test = " || ".join(f"{n} < 0" for n in names)
        message = f"{self.ctx.c_name(self.fn.name)}: {said} and cannot be negative\\n"
        lead = "        fprintf(stderr, "
        pieces: list[str] = []  # the message as adjacent string literals, each line under 100 columns
        for word in message.split(" "):
            if pieces and len(lead) + len(pieces[-1]) + len(word) + 6 < 100:  # quotes, a space, ");"
                pieces[-1] += " " + word
            else:
                pieces.append(word if not pieces else " " + word)
        literal = [f'{lead if k == 0 else " " * len(lead)}"{p}"' for k, p in enumerate(pieces)]
        literal[-1] += ");"
        return [f"    if ({test}) {{", *literal, "        abort();", "    }"]

    @staticmethod
    def _param_spelling(declared: str) -> str:
        """A parameter's type as the output declares it: as the input did (``restrict``
        included: the gradient's arrays do not overlap, see the contract)."""
        return declared

    def _linkage(self) -> str:
        """What precedes the result type: only the entry point links outside the file."""
        return "" if self.fn.name == self.ctx.entry and not self.atomic else "static "

    # -- expressions -------------------------------------------------------------------
    def expr(self, v: Value) -> Expr:
        if v in self.aliases:
            return self.aliases[v]
        return super().expr(v)

    def _lit(self, value, t: Type) -> Expr:
        if t.is_float:
            v = float(value)
            if t.name == "f32" and math.isfinite(v):
                magnitude = F32Lit(float32_text(abs(v)))
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
        if n == "undef":  # an array no branch taken made: no array at all
            return Name("NULL") if op.result.type.is_array else self._lit(0, op.result.type)
        if n == "extern" and "prototype" not in op.attrs:
            raise error(f"C output: '{op.attrs['callee']}' is a Python function (from {op.attrs['import']}), "
                        "which C cannot call", op.loc, hint="use --target py or numba")
        if reads_global(op):  # a global number, declared extern at the top
            return Name(op.attrs["callee"])
        if n == "extern":  # declared at the top of the file (c_file)
            return Call(Name(op.attrs["callee"]), tuple(e(o) for o in op.operands))
        if n == "add" and t.is_float and op.operands[0] is op.operands[1]:
            return binop("*", self._lit(2.0, t), self._float_operands(op)[0])  # t + t is 2.0 * t, exactly
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
            squared = square(a, b)
            if squared is not None:
                return squared
            if t.is_float:
                return Call(Name("powf" if t.name == "f32" else "pow"), (a, b))
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
        if n == "field":  # a member's index as a number (a copy's length, analysis/extents.py): the structs' run
            return affine([(c, self._int_operand(o)) for c, o in zip(op.attrs["coefs"], op.operands)],
                          op.attrs["offset"])
        if n == "view":
            arr, offset = op.operands
            if op.result.type.rank < arr.type.rank:  # type: ignore[attr-defined]
                return self._row(arr, offset, op)
            each = each_of(arr, self.struct_leaves)
            if each is not None:  # &Ms[i].x: a number of one struct of an array of them
                return address_of(each.of(e(offset)))
            if const_int(offset) == 0:
                return e(arr)
            struct = self._struct_of(arr)
            if struct is not None:  # `bodies + i` counts structs
                f = offset.defining_op
                if f is not None and f.name == "field" and f.attrs["path"] == "" and f.attrs["offset"] == 0:
                    return binop("+", e(arr), e(f.operands[0]))
                if f is not None and f.name == "field" and f.attrs["struct"] == struct and f.attrs["path"]:
                    return address_of(self._member(e(arr), f))  # &cam->r[0]: numbers inside a struct
                self._refuse_mixed(struct, op)
                elem = C_TYPES[arr.type.elem.name]  # type: ignore[attr-defined]
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
        if op.name == "select" and op.result.type.is_int:
            # c ? n - 1 : k of a size_t n would be unsigned, k converted to it (-Wsign-compare)
            cond, a, b = op.operands
            return self._choose(self.expr(cond), self._signed_operand(a), self._signed_operand(b))
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
        if src.is_int:  # the signed value the IR means: (double)(n - 5) of a size_t n would be huge
            x = self._signed_operand(op.operands[0])
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
            return int_min_max(fn, *args)
        raise error(f"C output: no C spelling for math.{fn} on integers", op.loc)

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
            c = val.defining_op
            if int_member(idx[0]) is not None and c is not None and c.name == "cast" and c.operands[0].type.is_int:
                val = c.operands[0]  # ps[i].flags = i % 3: an integer into an integer member, as written
            slot = self._slot_store(arr, idx, self.expr(val), op)
            if slot is not None:
                return [slot]
            return [Assign([self._element(arr, idx, op)], self.expr(val))]
        if n == "accum":
            arr, *idx, g = op.operands
            if self._threads_share(op):
                return [Pragma("omp atomic"), AugAssign(self._element(arr, idx, op), "+", self.expr(g))]
            # As the load, add and store it stands for: d[i] = d[i] + g, which rendering makes d[i] += g.
            old = self._element(arr, idx, op)
            slot = self._slot_store(arr, idx, binop(_ARITH["add"], old, self.expr(g)), op)
            if slot is not None:
                return [slot]
            if g.type.is_float:
                a, b = self._float_exprs([old, self.expr(g)], [None, self._int_to_float(g)])
            else:
                a, b = old, self._int_operand(g)
            return [Assign([self._element(arr, idx, op)], binop(_ARITH["add"], a, b))]
        if n == "alloc":
            return self._alloc(op)
        if n == "copy":
            return self._copy(op)
        if len(op.results) == 1 and op.result in self.var and is_pure(op) and not op.regions and not is_mpi(n):
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

    def _stop(self, op: Op) -> list[Stmt]:
        """``exit(status);`` or ``abort();`` where the primal stops the program (the statement
        that stopped it, a call of a function that always exits, in a comment)."""
        call_name = op.attrs["call"]
        stop = ExprStmt(Call(Name(call_name), tuple(self.expr(v) for v in op.operands)))
        text = op.attrs.get("text")
        said = op.attrs.get("stderr")
        if said:  # where the gradient, not the primal, cannot go on (opt.negative_indices): it says why
            why = [Comment(op.attrs["why"])] if op.attrs.get("why") else []
            return why + [ExprStmt(Call(Name("fprintf"), (Name("stderr"), Lit(f'"{said}\\n"')))), stop]
        return ([Comment(f"{text}: the program stops here, as the primal does")] if text else []) + [stop]

    def _return(self, op: Op) -> list[Stmt]:
        frees = self._frees(self.fn.body)
        values = op.operands[:self.fn.attrs.get("with_value", 0)]  # --with-value: returned, before the adjoints
        if self.returned is not None:
            out: list[Stmt] = []
            for i, v in zip(self.returned, op.operands[len(values):]):
                value = self.expr(v)
                lit = literal_value(value)
                if lit is not None and not isinstance(lit, bool) and lit == 0:
                    continue  # nothing to add
                out.append(self._add_returned(self.out_names[i], value, v.type))
            return out + (self._return_value(values[0], frees) if values else frees)
        if not op.operands:
            return frees
        if self.result_outs:  # *result_0 = r; *result_1 = theta;
            return [Assign([deref(name)], self.expr(v))
                    for name, v in zip(self.result_outs, op.operands)] + frees
        return self._return_value(op.operands[0], frees)

    def _return_value(self, v: Value, frees: list[Stmt]) -> list[Stmt]:
        """``return v;`` after the ``frees``, through a variable when ``v`` reads what they free."""
        value = self.expr(v)
        freed = {f.value.args[0].id for f in frees}  # type: ignore[attr-defined]
        if freed & set(names_in(value)):
            t = self.namer.fresh("result")
            self.types[t] = ctype(v.type)
            return [Assign([Name(t)], value)] + frees + [Return([Name(t)])]
        return frees + [Return([value])]

    def _add_returned(self, pointer: str, value: Expr, t: Type) -> Stmt:
        """A gradient adds an adjoint it returns where its pointer parameter points: ``*d_a += v``
        (a struct member's into the shadow struct's: ``d_w->gamma += v``)."""
        for i, out in self.struct_outs.items():
            if self.out_names[i] == pointer:
                return AugAssign(Name(out.member), "+", value)
        return AugAssign(deref(pointer), "+", value)

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


__all__ = ["emit_c", "CFunctionEmitter"]


