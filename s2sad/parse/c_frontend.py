"""The C front end: source text -> SSA IR ``Module``.

Public API (used by the pipeline, the CLI and the tests):

* ``list_c_functions(source, filename)``: the names of the functions defined
  (with a body) in the file, not in its headers, in source order;
* ``parse_c(source, filename, func)``: a ``Module`` holding ``func`` and every
  function of the file it calls, transitively, in source order.

The file is preprocessed here (``c_preprocess``: no system headers are read),
parsed with pycparser, and only the chosen function and its callees must be
code s2sad supports. A ``.cu`` file is CUDA: its function qualifiers are read
by the preprocessor (``cuda_source``), each function records its kind
(``cuda`` attribute: ``global``, ``device`` or ``host``), and the thread
built-ins lower to ``gpu.*`` ops. Each function records its declared C parameter and result
types (``c_params``, ``c_result`` attributes) so that C output keeps the
user's signature. Every problem found in any function is raised together as
one ``DiagnosticError``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Optional

from pycparser import c_ast, c_parser
from pycparser.c_generator import CGenerator
from pycparser.c_parser import ParseError

from ..diagnostics import Diagnostic, DiagnosticError, error
from .annotations import annotate_loops
from .c_derived_typedefs import expand_derived_typedefs
from .c_compound_literals import name_compound_literals
from .c_stops import stopping_functions
from .c_function_args import FunctionPointers as _FunctionPointers, bind_function_arguments, function_typedefs
from .c_member_functions import read_member_functions
from .c_member_pointers import read_member_pointers
from .c_struct_arrays import split_struct_arrays
from .c_struct_values import hold_struct_values
from .c_row_casts import flatten_row_casts
from .c_initializers import inline_initializers
from .c_void_params import type_void_params
from .c_global_arrays import GLOBAL_ARRAYS, STATIC_ARRAYS, thread_global_arrays, threadable
from .c_static_locals import LOCAL_STATICS, hoist_static_locals
from .c_globals import settle_globals
from .call_names import name_call_results
from .translation import kept_per_translation, translating
from ..ssa.ir import Module, SourceLoc, lines_of
from .c_expr import math_intrinsic, span, walk
from ..ssa.callgraph import callees_first
from .c_lower import CContext, Signature, lower_function
from .c_accessors import inline_accessors
from .c_factories import inline_factories
from .c_pointers import PointerUses, array_params
from .c_preprocess import BUILTIN_MACROS, PRELUDE_TYPEDEFS, CFlags, Preprocessed, header_typedef, preprocess
from ..languages import is_cuda
from .cuda_source import SHARED
from .c_member_writes import written_members
from .c_structs import StructTable
from .c_declarators import DimReader, ReadDims, spelled_dims
from .c_types import TypeProblem, ctype_of
from .custom_adjoints import NONE as NO_DERIVATIVES
from .custom_adjoints import Derivatives, replaced
from .c_unsigned import unsigned_problems
from . import nesting
from .nesting import first_too_deep_both

__all__ = ["list_c_functions", "list_cuda_kernels", "parse_c"]

_LINE_MARKER = re.compile(r'#line (\d+)')
_COMPLEX = re.compile(r"\b(complex|_Complex|_Imaginary|imaginary)\b")  # C99 complex types, as written
_PARSE_ERROR = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?P<msg>.*)$")


class CFile:
    """A parsed C file: its functions, typedefs, constants (``#define``s, ``const`` scalars),
    read-only tables (``const`` arrays with an initializer) and other globals."""

    def __init__(self, source: str, filename: str, path: Optional[str] = None, flags: CFlags = CFlags()):
        self.filename = filename
        self.pre: Preprocessed = preprocess(source, filename, path, flags)
        self.sources = self.pre.sources
        self.lines = self.sources.source_lines()  # the file's lines, and its headers' by name
        self.ast = self._parse(self.pre.text)
        self._no_library_macro_declared()
        expand_derived_typedefs(self.ast)  # typedef double mat2[2][2]: its uses declare the arrays (c_derived_typedefs)
        self.functions: dict[str, c_ast.FuncDef] = {}
        self.redefined: list[tuple[c_ast.FuncDef, c_ast.FuncDef]] = []  # (a second definition, the first)
        self.prototypes: dict[str, c_ast.Decl] = {}  # functions declared here, defined elsewhere
        self.typedefs: dict[str, list[str]] = {}
        # The file's own typedefs (of numbers, of enums) and tagged enums, as C output writes them
        # again where a signature it prints names one (``typedef double real;``).
        self.typedef_text: dict[str, str] = {}
        self.constants: dict[str, c_ast.Node] = {}
        self.globals: dict[str, c_ast.Decl] = {}  # other file-scope variables (read as extern: c_lower)
        self.tables: dict[str, c_ast.Decl] = {}
        self.structs = StructTable(self.typedefs, self.constants)
        struct_defs: list[tuple[c_ast.Struct, Optional[str]]] = []  # laid out once the macros are known
        for ext in self.ast.ext:
            if isinstance(ext, (c_ast.Decl, c_ast.Typedef)):
                self._enums(ext)
            if isinstance(ext, c_ast.FuncDef) and not isinstance(ext.decl.type, c_ast.FuncDecl):
                # ``None { ... }``: a body after a declarator that declares no function (doorfuzz
                # seed 17000883: every pass takes a definition's declarator for a function's)
                raise DiagnosticError([Diagnostic(
                    f"'{ext.decl.name}' is followed by a function body but is not declared as a function",
                    self.loc(ext.decl), "a definition names its result type, the function and its parameters: "
                    "double f(const double *x, int n) { ... }")], self.lines)
            if isinstance(ext, c_ast.FuncDef):
                _declared_parameters(ext)
                self._local_enums(ext)
                if ext.decl.name in self.functions:  # C refuses the file: which one is meant?
                    self.redefined.append((ext, self.functions[ext.decl.name]))
                self.functions[ext.decl.name] = ext
            elif isinstance(ext, c_ast.Typedef) and isinstance(ext.type, c_ast.TypeDecl) and \
                    isinstance(ext.type.type, c_ast.Enum):
                self.typedefs[ext.name] = ["int"]  # typedef enum {...} Mode: computed as an int
                self.typedef_text[ext.name] = f"typedef {_enum_text(ext.type.type)} {ext.name};"
            elif isinstance(ext, c_ast.Typedef):
                if isinstance(ext.type, c_ast.TypeDecl) and isinstance(ext.type.type, c_ast.IdentifierType):
                    self.typedefs[ext.name] = list(ext.type.type.names)
                    if ext.name not in PRELUDE_TYPEDEFS and not header_typedef(ext.name):  # the file's own:
                        # C output repeats it
                        quals = [q for q in ext.type.quals if q == "const"]
                        self.typedef_text[ext.name] = f"typedef {' '.join(quals + ext.type.type.names)} {ext.name};"
                elif isinstance(ext.type, c_ast.TypeDecl) and isinstance(ext.type.type, c_ast.Struct):
                    struct_defs.append((ext.type.type, ext.name))
            elif isinstance(ext, c_ast.Decl) and isinstance(ext.type, c_ast.FuncDecl) and ext.name:
                self.prototypes.setdefault(ext.name, ext)
            elif isinstance(ext, c_ast.Decl) and isinstance(ext.type, c_ast.Struct) and not ext.name:
                struct_defs.append((ext.type, None))
            elif isinstance(ext, c_ast.Decl) and not isinstance(ext.type, c_ast.FuncDecl) and ext.name:
                if "const" in ext.quals and ext.init is not None and isinstance(ext.type, c_ast.TypeDecl):
                    self.constants[ext.name] = ext.init
                elif "const" in ext.quals and isinstance(ext.init, c_ast.InitList) and \
                        isinstance(ext.type, c_ast.ArrayDecl):
                    self.tables[ext.name] = ext  # a read-only table: static const double w[] = {...}
                else:
                    self.globals.setdefault(ext.name, ext)
        for name in self.functions:
            self.prototypes.pop(name, None)  # declared, then defined in this file: a user function
        # Static local arrays (scratch buffers kept between calls): file-scope static arrays (c_static_locals).
        self.local_statics = hoist_static_locals(
            self.functions, self.ast.ext,
            [*self.globals, *self.tables, *self.constants, *self.prototypes, *self.typedefs, *self.pre.macros],
            self.typedefs)
        self.globals.update({name: d for name, (_, d, _) in self.local_statics.items()})
        name_compound_literals(self.functions)  # &(Opts){.scale = 0.5}: a local Opts_literal (c_compound_literals)
        self.cuda = self._cuda_kinds() if is_cuda(filename) else None
        self._macros()
        # Functions held in struct members, where known, passed as functions instead (c_member_functions).
        typedefs = function_typedefs(self.ast.ext)
        read_member_functions(self.functions, struct_defs, _FunctionPointers(typedefs).test, self._callable)
        for node, typedef in struct_defs:
            self._struct(node, typedef)
        self.dim_reader = DimReader(self.constants, frozenset(self.pre.macros))
        # Functions passed by name (``rk4(decay, t, y, h)``): each such call calls a copy of its
        # callee made for them (c_function_args); the copies' names, each to the one it copies.
        self.copies = bind_function_arguments(self.functions, self._callable, typedefs)
        # void *params that always hold one struct type: pointers to it (c_void_params).
        type_void_params(self.functions)
        # Local arrays of structs indexed by constants only: one struct per element (c_struct_arrays).
        split_struct_arrays(self.functions, frozenset(self.structs.records) - frozenset(self.structs.layouts),
                            self.constants)
        # Struct values read only as runs of numbers (a member that is an array of structs): one
        # element of such a run, ``System s[1]`` (c_struct_values).
        hold_struct_values(self.functions, self._layout_only)
        # Row pointers made by casting a flat array, (double (*)[NX])x: that array, row-major (c_row_casts).
        flatten_row_casts(self.functions)
        # Local pointers to one member (``double *g = &w.gamma;``) read as the member (c_member_pointers).
        read_member_pointers(self.functions)
        # Accessors (``return A + i * m;``) read as their expression where they are called.
        self.accessors, self.accessor_problems = inline_accessors(
            self.functions, frozenset(self.structs.records) | frozenset(self.structs.layouts))
        # Factories (``double *v = malloc(...); ...; return v;``) read as their statements where
        # a call initializes a pointer (c_factories).
        # Structs with pointer members made by a function that returns one (``Matrix m = mat_alloc(r,
        # c)``) are read the same way; those of numbers stay calls (their members are the results).
        with_pointers = frozenset(name for node, typedef in struct_defs for name in (typedef, node.name)
                                  if name and any(isinstance(d.type, c_ast.PtrDecl) for d in node.decls or ()))
        self.factories, self.factory_problems = inline_factories(
            self.functions, frozenset(self.structs.records) | frozenset(self.structs.layouts), with_pointers)
        # Initializers (``state_init(&s, n)`` giving s's members their memory) and the functions
        # that free them, read as their statements where a statement calls them (c_initializers).
        inline_initializers(self.functions, frozenset(self.structs.records) | frozenset(self.structs.layouts))
        # Pointer parameters used as arrays: a pointer to structs of mixed members is an array of
        # them only then (c_types._struct_type), else one struct.
        # Number members nothing in the file writes: values behind Sys *p too (c_member_writes).
        self.structs.note_written(written_members(
            self.functions.values(), frozenset(self.structs.records) | frozenset(self.structs.layouts)))
        uses = PointerUses(self.functions)
        self.array_params = array_params(uses)
        self.record_arrays = array_params(uses, records=True)

    def _enums(self, ext: c_ast.Node) -> None:
        """The enumerators an enum defined at file scope declares, as constants (``LINEAR`` is
        0, the next one more, ``B = 4`` its value); a tagged enum's definition is kept for
        output (``enum Mode``) like a typedef's."""
        for node in walk(ext.type):
            if not isinstance(node, c_ast.Enum) or node.values is None:
                continue
            previous: Optional[str] = None
            for e in node.values.enumerators:
                floating = _floating_constant(e.value) if e.value is not None else None
                if floating is not None:  # C takes an integer constant expression there only
                    raise DiagnosticError([Diagnostic(
                        f"the value of enumerator '{e.name}' is not an integer constant", self.loc(floating),
                        hint="give it an integer value, or convert it: (int)" + floating.value)], self.lines)
                if e.value is not None:
                    self.constants[e.name] = e.value
                elif previous is None:
                    self.constants[e.name] = c_ast.Constant("int", "0", coord=e.coord)
                else:
                    self.constants[e.name] = c_ast.BinaryOp("+", c_ast.ID(previous, coord=e.coord),
                                                            c_ast.Constant("int", "1", coord=e.coord), coord=e.coord)
                previous = e.name
            if node.name and not isinstance(ext, c_ast.Typedef):
                self.typedef_text[f"enum {node.name}"] = _enum_text(node) + ";"

    def _local_enums(self, fn: c_ast.FuncDef) -> None:
        """An enum defined inside a function (``enum { NI = 4, NH = 5 };``) whose enumerators the
        file names nothing else: its constants are the file's (``_enums``), and the definition goes
        from the body. Where a name is also another's (a variable, a parameter, another constant,
        which the enumerator would shadow or be shadowed by), it stays, and lowering refuses it."""
        found = [(block, item) for block in walk(fn.body) if isinstance(block, c_ast.Compound)
                 for item in block.block_items or () if isinstance(item, c_ast.Decl) and item.name is None
                 and isinstance(item.type, c_ast.Enum) and item.type.values is not None]
        if not found:
            return
        declared = {n.name for n in walk(self.ast) if isinstance(n, (c_ast.Decl, c_ast.Typedef)) and n.name}
        enumerated = Counter(n.name for n in walk(self.ast) if isinstance(n, c_ast.Enumerator))
        for block, item in found:
            names = [e.name for e in item.type.values.enumerators]
            if any(enumerated[name] > 1 or name in declared or name in self.constants for name in names):
                continue
            self._enums(item)
            block.block_items.remove(item)

    def _cuda_kinds(self) -> dict[str, str]:
        """Each function's CUDA kind: the qualifiers written before its name, since the
        previous function's (``__global__``, ``__device__``; none or ``__host__``: host)."""
        kinds: dict[str, str] = {}
        pending = list(self.pre.qualifiers)
        for ext in self.ast.ext:
            decl = ext.decl if isinstance(ext, c_ast.FuncDef) else ext
            if not isinstance(decl, c_ast.Decl) or not isinstance(decl.type, c_ast.FuncDecl):
                continue
            line = decl.coord.line if decl.coord else 0
            mine = {q.word for q in pending if q.line <= line}
            pending = [q for q in pending if q.line > line]
            kind = "global" if "__global__" in mine else "device" if "__device__" in mine else "host"
            if isinstance(ext, c_ast.FuncDef) or decl.name not in kinds:
                kinds[decl.name] = kind
        return kinds

    def _no_library_macro_declared(self) -> None:
        """A name the file declares that a header of the C library defines as a macro (``struct
        NAN``, a variable ``M_PI``): valid where the file includes no such header, but the
        gradient's C includes them (``<math.h>``), and would not compile (doorfuzz seed 3000171)."""
        for node in walk(self.ast):
            name = node.name if isinstance(node, (c_ast.Decl, c_ast.Typedef, c_ast.Enumerator, c_ast.Struct,
                                                  c_ast.Union, c_ast.Enum)) else None
            if isinstance(name, str) and name in BUILTIN_MACROS:
                header = "float.h" if name.startswith("DBL_") else "stdbool.h" if name in ("true", "false") \
                    else "stddef.h" if name == "NULL" else "math.h"
                raise DiagnosticError([Diagnostic(
                    f"'{name}' is the name of a macro of <{header}>, which the gradient's C may include",
                    self.loc(node), "give it another name")], self.lines)

    def _struct(self, node: c_ast.Struct, typedef: Optional[str]) -> None:
        seen: set[str] = set()
        for d in node.decls or ():
            if d.name in seen:  # C refuses the file (gcc: duplicate member), used or not
                raise DiagnosticError([Diagnostic(f"duplicate member '{d.name}'", self.loc(d),
                                                  "each member of a struct needs a name of its own")], self.lines)
            if d.name:
                seen.add(d.name)
        try:
            self.structs.define(node, typedef)
        except TypeProblem as p:  # reported only if a function s2sad reads uses the type
            self.structs.refuse(node, typedef, p)

    def _parse(self, text: str) -> c_ast.FileAST:
        try:
            return c_parser.CParser().parse(text, self.filename)
        except ParseError as e:
            m = _PARSE_ERROR.match(str(e))
            if m is None:  # pycparser gives no position at the end of the input
                raise DiagnosticError([self._ends_early(text)], self.lines) from None
            line, col = int(m.group("line")), int(m.group("col"))
            message = m.group("msg")
            if message.startswith("before: "):
                message = f"syntax error before '{message[len('before: '):]}'"
            loc = self.sources.loc(line, col, 1)
            written = lines_of(self.lines, loc.file) if loc else []
            found = _COMPLEX.search(written[loc.line - 1]) if loc and 1 <= loc.line <= len(written) else None
            if loc and found:
                at = replace(loc, col=found.start() + 1, end_line=loc.line, end_col=found.end() + 1)
                raise DiagnosticError([Diagnostic(  # (C99's, which pycparser does not read)
                    "complex numbers (double complex, _Complex) are not supported", at,
                    "write the real and imaginary parts as two doubles: s2sad differentiates real arithmetic")],
                    self.lines) from None
            raise DiagnosticError([Diagnostic(message, loc, "s2sad reads C99")], self.lines) from None

    def _ends_early(self, text: str) -> Diagnostic:
        """The error for a file that ends inside a declaration or a block: at the ``{`` that is
        never closed when there is one, else at the end of the last line."""
        depth: list[tuple[int, int]] = []  # where each open '{' is
        last = (1, 1)  # the last character of the program
        line = 0
        for text_line in text.split("\n"):  # comments are gone; strings and characters are skipped
            marker = _LINE_MARKER.match(text_line)
            if marker:  # the next line is this line of the user's file (running numbers, as pycparser's)
                line = int(marker.group(1)) - 1
                continue
            line += 1
            quote = ""
            for col, c in enumerate(text_line, 1):
                if not c.isspace():
                    last = (line, col)
                if quote:
                    quote = "" if c == quote and text_line[col - 2] != "\\" else quote
                elif c in "\"'":
                    quote = c
                elif c == "{":
                    depth.append((line, col))
                elif c == "}" and depth:
                    depth.pop()
        if depth:
            return Diagnostic("the file ends inside this block", self.sources.loc(*depth[-1], 1),
                              "this '{' is never closed: a '}' is missing")
        return Diagnostic("the file ends in the middle of a declaration or statement", self.sources.loc(*last, 1),
                          "a ';' may be missing")

    def _macros(self) -> None:
        """Object-like macros become constant expressions, parsed once."""
        bodies = dict(BUILTIN_MACROS)
        bodies.update({name: m.body for name, m in self.pre.macros.items()})
        parser = c_parser.CParser()
        for name, body in bodies.items():
            if not body or name in self.constants:
                continue
            try:
                tree = parser.parse(f"void __s2sad_macro(void) {{ __s2sad_value = ({body}); }}", "<macro>")
            except ParseError:
                continue  # not an expression: reported if the function uses it
            stmt = tree.ext[0].body.block_items[0]
            self.constants[name] = stmt.rvalue

    def signature(self, fn: c_ast.FuncDef) -> Signature:
        ftype = fn.decl.type
        params = []
        args = ftype.args.params if ftype.args is not None else []
        if len(args) == 1 and isinstance(args[0], c_ast.Typename):
            args = []
        seen: set[str] = set()
        ints: set[str] = set()  # the integer parameters so far: what a later one's extents may name
        declared: dict[int, ReadDims] = {}
        indexed = self.array_params[fn.decl.name]
        for p in args:
            if isinstance(p, c_ast.EllipsisParam):
                raise TypeProblem(p, "variadic functions are not supported")
            if not isinstance(p, c_ast.Decl) or not p.name:
                raise TypeProblem(p, "every parameter needs a name")
            if p.name in seen:  # C refuses it too (gcc: "redefinition of parameter")
                raise TypeProblem(p, f"redefinition of parameter '{p.name}'",
                                  "give each parameter its own name: s2sad reads only valid C")
            seen.add(p.name)
            t = ctype_of(p.type, self.typedefs, param=True, structs=self.structs, indexed=p.name in indexed)
            if t.kind == "record" and t.each and p.name not in self.record_arrays[fn.decl.name]:
                # a callee passed &Ms[i] and indexing nothing: one struct (an array of structs of
                # one floating type is one run of numbers either way; these are leaf by leaf)
                t = replace(t, each=False)
            if t.kind == "pointer" and t.dims:
                read = self.dim_reader.read(t.dims, ints, p)
                declared[len(params)] = read
                if not t.pointer_rows:  # double **A keeps its spelling: no extents to write
                    t = spelled_dims(t, p.type, read)
            elif t.kind == "scalar" and t.scalar is not None and t.scalar.is_int:
                ints.add(p.name)
            params.append(t)
        result = ctype_of(ftype.type, self.typedefs, param=False, structs=self.structs)
        if result.kind == "record" and (result.indirect or result.record is None
                                        or any(leaf.member.shape != "scalar" for leaf in result.record.leaves)):
            raise TypeProblem(fn.decl, f"functions returning a struct ({result.spelling}) with array or pointer "
                              "members are not supported" if not result.indirect else
                              "functions returning a pointer to a struct are not supported",
                              "write the members into a struct the caller passes by pointer")
        if result.kind == "pointer":
            raise TypeProblem(fn.decl, "functions returning pointers are supported only as one 'return' "
                              "of a pointer expression (return A + i * m;), or ending in their only 'return', "
                              "of a local pointer (double *v = malloc(...); ...; return v;)",
                              "compute the pointer where it is used, or write the result into an array parameter")
        return Signature(params, result, declared)

    def loc(self, node: c_ast.Node) -> SourceLoc:
        return span(node, self.sources)

    def own_functions(self) -> list[str]:
        """The functions defined in the file itself, not in a header it includes (nor the copies
        made for the functions a call passes: ``c_function_args``)."""
        return [name for name, fn in self.functions.items() if name not in self.copies and
                (fn.decl.coord is None or self.sources.where(fn.decl.coord.line)[0] == self.filename)]

    def _layout_only(self, node: c_ast.Node) -> bool:
        """Whether the struct type ``node`` names is read as a run of numbers only (no bundle of
        members holds it: ``c_structs``' unrecorded types)."""
        name = f"struct {node.name}" if isinstance(node, c_ast.Struct) else (
            node.names[0] if isinstance(node, c_ast.IdentifierType) and len(node.names) == 1 else None)
        return name is not None and name in self.structs.unrecorded and name in self.structs.layouts

    def _callable(self, name: str) -> bool:
        """Whether ``name`` is a function a call may name: the file's, one it declares, a library one."""
        return name in self.functions or name in self.prototypes or math_intrinsic(name) is not None


_parses: dict[tuple[str, CFlags, str], CFile] = {}  # the files this translation parsed (``translation``)
kept_per_translation(_parses.clear)


def _parsed(source: str, filename: str, flags: CFlags, to_change: bool = False) -> CFile:
    """The file parsed; with ``to_change`` (``parse_c``, which removes functions from it) one no
    later question in the translation is answered from."""
    key = (filename, flags, source)
    cfile = _parses.pop(key, None) if to_change else _parses.get(key)
    if cfile is None:
        cfile = CFile(source, Path(filename).name, filename, flags)
        if translating() and not to_change:
            _parses[key] = cfile
    return cfile


def list_c_external_functions(source: str, filename: str, flags: CFlags = CFlags()) -> list[str]:
    """The file's own functions that other files can call (not ``static``), in source order."""
    cfile = _parsed(source, filename, flags)
    return [name for name in cfile.own_functions() if "static" not in cfile.functions[name].decl.storage]


def list_c_functions(source: str, filename: str, flags: CFlags = CFlags()) -> list[str]:
    """The functions the file itself defines, in source order (not its headers': a header's
    helpers are not what the file is about, so they do not make the choice ambiguous)."""
    return _parsed(source, filename, flags).own_functions()


def _enum_text(node: c_ast.Enum) -> str:
    """``enum Mode { LINEAR, CUBE = 4 }`` as output repeats it, on one line."""
    gen = CGenerator()
    items = [e.name if e.value is None else f"{e.name} = {gen.visit(e.value)}" for e in node.values.enumerators]
    return f"enum {node.name + ' ' if node.name else ''}{{ {', '.join(items)} }}"


def list_cuda_kernels(source: str, filename: str, flags: CFlags = CFlags()) -> list[str]:
    """The ``__global__`` functions defined in a .cu file, in source order."""
    cfile = _parsed(source, filename, flags)
    return [name for name in cfile.own_functions() if (cfile.cuda or {}).get(name) == "global"]


def _user_calls(fn: c_ast.FuncDef, functions: dict[str, c_ast.FuncDef]) -> list[tuple[str, c_ast.FuncCall]]:
    return [(n.name.name, n) for n in walk(fn.body)
            if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name in functions]


def _reachable(root: str, cfile: CFile) -> tuple[list[str], list[Diagnostic], frozenset[int]]:
    """Functions reachable from ``root``, callees first; mutual recursion is diagnosed where it closes."""
    problems: list[Diagnostic] = []

    def on_cycle(call: c_ast.FuncCall, cycle: list[str]) -> None:
        problems.append(Diagnostic(f"mutually recursive call to '{cycle[0]}' is not supported ({' -> '.join(cycle)})",
                                   cfile.loc(call), "merge the functions into one that calls itself "
                                   "(direct recursion is supported), or use a loop"))

    order, back = callees_first(root, lambda name: _user_calls(cfile.functions[name], cfile.functions), on_cycle)
    return order, problems, frozenset(id(call) for call in back)


_NESTS = (c_ast.If, c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch, c_ast.TernaryOp)  # a region each in the IR


def parse_c(source: str, filename: str, func: str, flags: CFlags = CFlags(),
            derivatives: Derivatives = NO_DERIVATIVES) -> Module:
    """``func`` and the functions of the file it calls, as SSA IR (``filename``: where the file
    is, for its headers; diagnostics name it by its base name)."""
    name = Path(filename).name
    cfile = _parsed(source, filename, flags, to_change=True)
    for other in replaced(list(cfile.functions), func, derivatives):  # called as if defined in another file
        decl = cfile.functions.pop(other).decl
        if "static" in decl.storage:
            raise DiagnosticError([Diagnostic(
                f"'{other}' has a custom adjoint ({derivatives.of(other).path}), and is static: the gradient, in a "
                "file of its own, calls it, and a static function cannot be called from another file", cfile.loc(decl),
                hint=f"drop static from {other}, and link this file with the gradient")], cfile.lines)
        cfile.prototypes[other] = decl
    # Functions that always stop the program (nrerror): their calls are stops, never lowered (c_stops).
    stops = {n: how for n, how in stopping_functions(cfile.functions).items() if n != func}
    for n in stops:
        del cfile.functions[n]
    if func not in cfile.functions or func in cfile.copies:
        listing = ", ".join(name for name in cfile.functions if name not in cfile.copies) or "none"
        raise error(f"no function named '{func}' in {name}", hint=f"functions in this file: {listing}")
    order, problems, recursive = _reachable(func, cfile)
    for fname in order:  # refused before any work on it (see parse.nesting)
        body = cfile.functions[fname].body
        bare = {id(b) for n in walk(body) if isinstance(n, c_ast.Compound) for b in n.block_items or ()
                if isinstance(b, c_ast.Compound)}  # { { ... } }: a scope in a scope
        # (A node iterates over its children, as children() lists them.)
        nested, deep = first_too_deep_both(body, iter, lambda n: isinstance(n, _NESTS) or id(n) in bare)
        if nested is not None:
            raise DiagnosticError([Diagnostic(nesting.message(isinstance(nested, c_ast.TernaryOp)),
                                              cfile.loc(nested), nesting.HINT)], cfile.lines)
        if deep is not None:
            raise DiagnosticError([Diagnostic(nesting.DEEP_EXPRESSION, cfile.loc(deep), nesting.DEEP_EXPRESSION_HINT)],
                                  cfile.lines)
    # (of the functions the gradient reads: a call elsewhere in the file that cannot be read as
    # its statements does not stop the others)
    read = {id(n) for fname in order for n in walk(cfile.functions[fname])}
    problems += [Diagnostic(p.message, cfile.loc(p.node), p.hint)
                 for p in [*cfile.accessor_problems, *cfile.factory_problems] if id(p.node) in read]
    # File-scope arrays the functions use: parameters of each function that uses them (c_global_arrays).
    global_arrays = {} if cfile.cuda is not None else thread_global_arrays(
        cfile.functions, order, {n: d for n, d in cfile.globals.items() if threadable(d, cfile.typedefs)})
    for again, first in cfile.redefined:
        problems.append(Diagnostic(f"redefinition of '{again.decl.name}'", cfile.loc(again.decl),
                                   f"it is first defined at line {cfile.loc(first.decl).line}; "
                                   "C allows one definition of each function"))
    ctx = CContext(name, cfile.sources.raw, cfile.typedefs, cfile.constants, {}, dict(cfile.globals), recursive,
                   cfile.structs, frozenset(cfile.pre.macros), cfile.cuda,
                   frozenset(q.line for q in cfile.pre.qualifiers if q.word == SHARED), cfile.pre.pragmas,
                   cfile.sources, cfile.typedef_text, cfile.prototypes, cfile.tables, derivatives, stops)
    for fname in order:
        if fname in cfile.accessors or fname in cfile.factories:
            continue  # called where it could not be read as its expression or statements: said above
        try:
            ctx.signatures[fname] = cfile.signature(cfile.functions[fname])
        except TypeProblem as p:
            problems.append(Diagnostic(p.message, cfile.loc(p.node), p.hint))
        problems += unsigned_problems(cfile.functions[fname], cfile.typedefs, cfile.loc)
    lowered = {}
    if not problems:
        for fname in order:
            fn, fn_problems = lower_function(cfile.functions[fname], ctx)
            problems += fn_problems
            lowered[fname] = fn
    if problems:
        unique = {(d.message, d.loc): d for d in problems}
        raise DiagnosticError(sorted(unique.values(), key=lambda d: (d.loc.file != name, d.loc.file, d.loc.line,
                                                                     d.loc.col) if d.loc else (False, "", 0, 0)),
                              cfile.lines)
    if func in global_arrays:  # the C output's gradient passes them itself: name -> declaration
        params = cfile.functions[func].decl.type.args.params[-len(global_arrays[func]):]
        lowered[func].attrs[GLOBAL_ARRAYS] = {p.name: CGenerator().visit(p) for p in params}
        static = [p.name for p in params if "static" in cfile.globals[p.name].storage]
        if static:
            lowered[func].attrs[STATIC_ARRAYS] = static
        local = {p.name: cfile.local_statics[p.name][2] for p in params if p.name in cfile.local_statics}
        if local:
            lowered[func].attrs[LOCAL_STATICS] = local
    module = Module(source_file=name, source_lines=cfile.lines)
    for fname in cfile.functions:
        if fname in lowered:
            module.add(lowered[fname])
    annotate_loops(module)
    name_call_results(module, ("call", "extern"))
    settle_globals(module)
    return module


def _declared_parameters(fn: c_ast.FuncDef) -> None:
    """An old-style (K&R) definition, ``double f(x, n) double *x; int n; { ... }``, as the
    prototype it means, ``double f(double *x, int n)``: each name takes the declaration after the
    parentheses, and a name none declares is an ``int`` (C89)."""
    args = fn.decl.type.args
    if not fn.param_decls or args is None or not all(isinstance(p, c_ast.ID) for p in args.params):
        return
    declared = {d.name: d for d in fn.param_decls if isinstance(d, c_ast.Decl)}
    args.params = [declared.get(p.name) or c_ast.Decl(
        p.name, [], [], [], [], c_ast.TypeDecl(p.name, [], None, c_ast.IdentifierType(["int"]), coord=p.coord),
        None, None, coord=p.coord) for p in args.params]
    fn.param_decls = None


def _floating_constant(node: c_ast.Node) -> Optional[c_ast.Constant]:
    """A floating constant of ``node`` that no cast to a type around it makes an integer (C's
    integer constant expressions take ``(int)1.5``, not ``1.5``), or None."""
    if isinstance(node, c_ast.Cast):
        return None
    if isinstance(node, c_ast.Constant) and node.type in ("float", "double", "long double"):
        return node
    for _, child in node.children():
        found = _floating_constant(child)
        if found is not None:
            return found
    return None

