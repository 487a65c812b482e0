"""The C file: what its functions share, which functions it holds, and what goes above them.

``ModuleContext`` is what the emitters of one file's functions share: the functions' C names
(and those of their atomic copies), the input's ``#define``s and external functions, the sizes of
arrays and the memory effects of calls. ``emit_functions`` emits every function the entry reaches
by the IR's call graph, and the atomic copies the parallel loops call, and keeps those the C code
calls; ``c_file`` puts above them the includes, ``#define``s, typedefs, structs, external
prototypes and helpers they use.
"""

from __future__ import annotations

import functools

import re
from dataclasses import dataclass, field
from typing import Callable, Optional, Protocol

from ..diagnostics import error
from ..emit.inline import Effects
from ..opt.lower_arrays import add_size_params, has_array_ops
from ..ssa.attrs import grad_info, is_gradient
from ..ssa.callgraph import reachable
from ..ssa.ir import Function, Module, Op, held_unchanged
from ..ssa.types import Type
from .aggregates import flatten_struct_params
from .helpers import MATH_H
from .names import c_reserved
from .render import comment_text
from ..analysis.extents import Sizes, add_extent_params

# The headers output includes, by the names its code uses: called (followed by a parenthesis)
# or named. The code's words are listed once (a search per header over a 60,000-line file of
# many functions cost a third of a second).
_CALLS_NEEDING = {
    "stdio.h": {"printf", "fprintf"},
    "stdlib.h": {"malloc", "calloc", "realloc", "free", "labs", "abs", "abort", "exit", "_Exit", "quick_exit"},
    "string.h": {"memcpy", "memset"},
}
_NAMES_NEEDING = {
    "math.h": {"isnan", "INFINITY", "NAN"},
    "stdbool.h": {"bool", "true", "false"},
    "stddef.h": {"size_t", "ptrdiff_t"},
    "stdint.h": {f"{u}int{bits}_t" for u in ("", "u") for bits in (8, 16, 32, 64)},
}
_WORD = re.compile(r"\b([A-Za-z_]\w*)(\(?)")  # a name, and the parenthesis of a call after it


class _CEffects(Effects):
    """Effects, except that a call of a gradient is never an expression (it returns through pointers)."""

    def is_pure_call(self, op: Op) -> bool:
        callee = self.module.functions.get(op.attrs.get("callee", ""))
        if callee is not None and is_gradient(callee):
            return False
        return super().is_pure_call(op)


class ModuleContext:
    """What the emitters of one file's functions share (see the module's docstring)."""

    def __init__(self, module: Module, entry: str, workspace: bool = False):
        self.module = module
        self.entry = entry
        self.workspace = workspace  # the entry's tapes in its caller's workspace (workspace.py)
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
                if declared(op):
                    self.externs.setdefault(op.attrs["callee"], declared(op))
                if op.name == "const" and "macro" in op.attrs:
                    value = op.attrs["value"] - op.attrs.get("macro_offset", 0)  # STEPS - 1 holds 5: STEPS is 6
                    self.macros.setdefault(op.attrs["macro"], _c_number(value, op.result.type))

    @functools.cached_property
    def module_names(self) -> frozenset[str]:
        """The names no variable may take: the functions, the #define'd names, the externals."""
        return frozenset([*self.module.functions, *self.macros, *self.externs])

    def c_name(self, name: str) -> str:
        """A function's name in C: a C keyword or library name gets underscores (``long`` -> ``long_``)."""
        if name not in self._c_names:
            c = name
            if c_reserved(c):  # (the names taken only then: a file of many functions asks each)
                taken = set(self.module.functions) | set(self._c_names.values())
                while c_reserved(c) or (c != name and c in taken):
                    c += "_"
            self._c_names[name] = c
        return self._c_names[name]

    def atomic_name(self, name: str) -> str:
        """The C name of ``name``'s atomic copy (see ``calls.CCalls._call``), made on first use."""
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


class FunctionEmitter(Protocol):
    """What ``emit_functions`` asks of the emitter of one function (``emitter.CFunctionEmitter``):
    its text, and then the names of the functions that text calls."""

    calls: set[str]

    def emit(self) -> str: ...


# Makes the emitter of one function: (context, function, whether it is the atomic copy).
MakeEmitter = Callable[[ModuleContext, Function, bool], FunctionEmitter]


@dataclass
class EmittedFunctions:
    """The functions of a C file: the texts of those the entry reaches, and every emitter that
    made one (a dialect reads what they needed from them: CUDA, its helpers' overloads)."""

    ctx: ModuleContext
    texts: list[str]
    structs: dict[str, str]  # the struct definitions they use, by name (typedefs of numbers first)
    emitters: list[FunctionEmitter]
    typedefs: dict[str, str]  # the input's typedefs their signatures spell, by name
    externs: list[str]  # the prototypes of the functions defined elsewhere that they call
    # Those that have custom adjoints, with their adjoints' prototypes, by the file of the adjoints.
    custom: dict[str, list[str]]
    # The file-scope arrays the entry uses, declared extern, and their adjoints (emitter.file_scope).
    file_scope: list[str]
    # The entry's workspace (--workspace): its type and the functions that serve it (workspace.py).
    workspace: list[str] = field(default_factory=list)
    # The names the functions' statements call (the helpers c_file adds are among them).
    calls: set[str] = field(default_factory=set)


def emit_functions(module: Module, entry: str, make: MakeEmitter, workspace: bool = False) -> EmittedFunctions:
    """Every function ``entry`` reaches, emitted by ``make``'s emitters, in module order
    (``workspace``: the entry's tapes in its caller's workspace, ``workspace.py``)."""
    if entry not in module.functions:
        raise error(f"no function '{entry}' to emit")
    for fn in module.functions.values():
        if fn.name != entry:
            flatten_struct_params(module, fn)
    ctx = ModuleContext(module, entry, workspace)
    called = reachable(module, [entry])
    unlowered = [n for n in called if has_array_ops(module.functions[n])]
    if unlowered:  # C has no array values (opt.passes.TARGET_PIPELINES)
        raise ValueError(f"whole-array ops in {', '.join(unlowered)}: run the lower-arrays pass before emit_c")
    if add_extent_params(ctx.sizes, module, module.functions[entry]):
        # Extents the C code needs exactly (a row length, len(x)) and no annotation gives.
        add_size_params(module, module.functions[entry])
    emitters: list[FunctionEmitter] = []
    calls: dict[str, set[str]] = {}  # each C function emitted -> the names its statements call

    def emit(fn: Function, atomic: bool) -> str:
        emitters.append(make(ctx, fn, atomic))
        text = emitters[-1].emit()
        calls[ctx.atomic_variants[fn.name] if atomic else ctx.c_name(fn.name)] = emitters[-1].calls
        return text

    with held_unchanged():  # the emitters print the IR and change none of it
        texts = {fn.name: emit(fn, False) for fn in module.functions.values() if fn.name in called}
        # Each gradient a parallel loop calls gets an atomic copy (which may call more of them).
        atomic: dict[str, str] = {}
        while len(atomic) < len(ctx.atomic_variants):
            for name in [n for n in ctx.atomic_variants if n not in atomic]:
                atomic[name] = emit(module.functions[name], True)
    # The functions the entry's calls reach in the C code, as its statements call them: not the
    # IR's call graph, which holds calls that C does not print (a dead branch after an early
    # return, at -O0), nor says which calls are of atomic copies.
    keep = _reachable(calls, ctx.c_name(entry))
    functions = []
    structs: dict[str, str] = {}
    typedefs: dict[str, str] = {}
    externs: dict[str, None] = {}
    custom: dict[str, dict[str, None]] = {}
    for name in module.functions:
        if ctx.c_name(name) in keep:
            functions.append(texts[name])
            structs.update((n, d) for n, d, _ in module.functions[name].attrs.get("c_structs", []))
            typedefs.update((n, d) for n, d in module.functions[name].attrs.get("c_typedefs", []))
            for op in module.functions[name].walk():
                if declared(op) and "adjoint_file" in op.attrs:
                    custom.setdefault(op.attrs["adjoint_file"], {})[declared(op)] = None
                elif declared(op):
                    externs[declared(op)] = None
        if name in atomic and ctx.atomic_variants[name] in keep:
            functions.append(atomic[name])
    # Like the structs and #define constants, the typedefs are copied even when the input has them
    # from a header of its own: the output includes no header of the user's (the contract allows
    # the standard ones only, and the file must compile wherever it is written).
    file_scope = [line for e in emitters for line in getattr(e, "file_scope", [])]
    workspaces = [e.workspace.declarations() for e in emitters if getattr(e, "workspace", None) is not None]
    called_by_kept = set().union(*(calls[name] for name in keep))
    return EmittedFunctions(ctx, functions, structs, emitters, typedefs, list(externs),
                            {file: list(protos) for file, protos in custom.items()}, file_scope,
                            workspaces[0] if workspaces else [], called_by_kept)


def c_file(header: str, emitted: EmittedFunctions, helpers: dict[str, str],
           helper_calls: Optional[dict[str, tuple[str, ...]]] = None) -> str:
    """The file: ``header`` as a comment, the includes and ``#define``s the code uses, the
    typedefs and structs, the ``helpers`` (name -> definition) the functions call, and the functions.
    ``helper_calls`` says which helpers each helper calls (none, where it does not say)."""
    functions, ctx = emitted.texts, emitted.ctx
    code = "\n\n".join(functions)
    # The helpers the functions call and those these call (``helper_calls``: CUDA's block_calloc
    # calls block_tape), in the order of ``helpers``, where a helper comes after those it calls.
    pending = [name for name in sorted(emitted.calls) if name in helpers]
    reached: set[str] = set()
    while pending:
        name = pending.pop()
        if name not in reached:
            reached.add(name)
            pending += (helper_calls or {}).get(name, ())
    used = [text for name, text in helpers.items() if name in reached]
    body = "\n\n".join(used + functions)
    includes = _includes(strip_comments("\n".join([body, *emitted.workspace])))
    out: list[str] = []
    head = [line[2:] if line.startswith("# ") else line.lstrip("#") for line in header.strip("\n").split("\n")]
    head = [comment_text(h).replace("*/", "* /").rstrip() for h in head if header.strip()]
    if head:
        out += ["/*"] + [f" * {h}".rstrip() for h in head] + [" */", ""]
    if includes:
        out += [f"#include <{h}>" for h in includes] + [""]
    code = strip_comments(body)
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
    if emitted.file_scope:
        out += ["/* The file-scope arrays the function uses, defined with it, and their adjoints. */"]
        out += emitted.file_scope + [""]
    if emitted.workspace:
        out += emitted.workspace + [""]
    for file, protos in emitted.custom.items():
        out += [f"/* Defined outside this file, with custom adjoints in {file} (--derivatives): link it. */"]
        out += [f"{proto};" for proto in protos] + [""]
    return "\n".join(out + [body]) + "\n"


def _c_number(value, t: Type) -> str:
    """A constant's value as a ``#define`` spells it: ``5``, ``0.8``, ``0.5f``."""
    if t.is_float:
        return repr(float(value)) + ("f" if t.name == "f32" else "")
    return str(int(value))


def strip_comments(text: str) -> str:
    """C code without its comments: what the searches for names read."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _includes(code: str) -> list[str]:
    words = set(_WORD.findall(code))
    names = {name for name, _ in words}
    called = {name for name, paren in words if paren}
    out = [header for header, needing in _CALLS_NEEDING.items() if called & needing]
    out += [header for header, needing in _NAMES_NEEDING.items() if names & needing]
    if "math.h" not in out and called & (MATH_H | {f"{m}f" for m in MATH_H}):
        out.append("math.h")
    if any(name.startswith("MPI_") and name[4:5].isupper() for name in names):
        out.append("mpi.h")
    return sorted(out)


def _reachable(calls: dict[str, set[str]], entry: str) -> set[str]:
    """The functions of ``calls`` (name -> the names it calls) that calls reach from ``entry``."""
    seen = {entry}
    pending = [entry]
    while pending:
        for name in sorted(calls[pending.pop()] & calls.keys() - seen):
            seen.add(name)
            pending.append(name)
    return seen


def declared(op: Op) -> str:
    """The declaration C output prints for what ``op`` calls that is defined elsewhere: a
    function's prototype, or its custom adjoint's; "" for any other op."""
    if op.name in ("extern", "global"):
        return op.attrs.get("prototype", "")
    if op.name == "extern.adjoint":
        return op.attrs.get("adjoint_prototype", "")
    return ""
