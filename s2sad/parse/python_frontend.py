"""The Python front end: source text -> SSA IR ``Module``.

Public API (used by the pipeline, the CLI and the tests):

* ``list_functions(source, filename)``: the top-level ``def`` names, in source order;
* ``parse_python(source, filename, func)``: a ``Module`` holding ``func`` and every
  user function it calls, transitively, in source order.

The input is parsed with libcst (positions from ``PositionProvider``) and never
imported or executed. Only the chosen function and its callees must be code
s2sad supports; the rest of the file is scanned for imports and numeric
constants only (``py_module``). Callees are processed before their callers
(a caller needs their signatures to type its calls); a function may call
itself, while mutual recursion is rejected at the call that closes the cycle. Per function: type inference
(``py_types``), then lowering (``py_lower``, ``py_expr``). Every problem found
in any of the functions is collected and raised together as one
``DiagnosticError``; otherwise dead ops are swept (``opt.dce``) so that the
primal IR holds only what the source computes.
"""

from __future__ import annotations

import ast
import symtable
import warnings
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..diagnostics import Diagnostic, DiagnosticError, error
from ..opt.dce import dce_function
from ..ssa.ir import Function, Module, SourceLoc
from .callgraph import callees_first
from .py_common import Locator
from .py_expr import FunctionContext
from .py_flow import assigned_names, walk
from .py_lower import lower_function
from .py_module import ModuleInfo, dotted_source, scan_module
from .py_types import FunctionTypes, Signature, infer_types, signature

__all__ = ["list_functions", "parse_python"]


def _parse(source: str, filename: str) -> cst.Module:
    lines = source.splitlines()
    # Python's own parser gives the most precise syntax-error positions and messages
    # (it only parses: nothing is compiled to bytecode or run).
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. invalid escape sequences: not our concern
            ast.parse(source, filename=filename)
            # What the compiler refuses beyond the grammar (a duplicate parameter, a name both a
            # parameter and global): the symbol tables, built without compiling or running.
            symtable.symtable(source, filename, "exec")
    except ValueError as e:  # a NUL byte in the source
        raise DiagnosticError([Diagnostic(f"cannot parse {Path(filename).name}: {e}")], lines) from None
    except SyntaxError as e:
        line = e.lineno or 1
        col = e.offset or 1
        end_line = e.end_lineno or line
        end_col = e.end_offset if e.end_offset and end_line == line and e.end_offset > col else col + 1
        loc = SourceLoc(filename, line, col, end_line, end_col)
        raise DiagnosticError([Diagnostic(f"syntax error: {e.msg}", loc, "s2sad reads only valid Python")], lines)
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as e:
        loc = SourceLoc(filename, e.raw_line, e.raw_column + 1)
        raise DiagnosticError([Diagnostic(f"syntax error: {e.message}", loc)], lines)


def list_functions(source: str, filename: str) -> list[str]:
    """Names of the top-level functions, in source order."""
    return list(scan_module(_parse(source, filename), filename).functions)


def _local_names(fn: cst.FunctionDef) -> frozenset[str]:
    return frozenset(p.name.value for p in fn.params.params) | frozenset(assigned_names([fn.body]))


def _user_calls(fn: cst.FunctionDef, info: ModuleInfo) -> list[tuple[str, cst.Call]]:
    """Calls of ``fn`` to functions of the file (a local variable of the same name shadows one)."""
    local = _local_names(fn)
    return [
        (n.func.value, n)
        for n in walk(fn.body)
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Name)
        and n.func.value in info.functions and n.func.value not in local
    ]


def _callees_first(root: str, info: ModuleInfo, locator: Locator
                   ) -> tuple[list[str], list[Diagnostic], frozenset[cst.Call]]:
    """Functions reachable from ``root``, callees before callers; mutual recursion diagnosed at its call."""
    problems: list[Diagnostic] = []

    def on_cycle(call: cst.Call, cycle: list[str]) -> None:
        problems.append(locator.diagnostic(
            call, f"mutually recursive call to '{cycle[0]}' is not supported ({' -> '.join(cycle)})",
            hint="merge the functions into one that calls itself (direct recursion is supported), or use a loop"))

    order, back = callees_first(root, lambda name: _user_calls(info.functions[name], info), on_cycle)
    return order, problems, frozenset(back)


def _self_callers(order: list[str], info: ModuleInfo) -> set[str]:
    """The functions that call themselves (directly)."""
    return {name for name in order if any(c == name for c, _ in _user_calls(info.functions[name], info))}


def _infer_all(order: list[str], info: ModuleInfo, locator: Locator
               ) -> tuple[dict[str, FunctionTypes], dict[str, Signature]]:
    """Types of every function, callees first. A caller that uses a callee's result as an
    integer makes the callee's returns integer context; the callee is then typed again
    (and its callers after it) until no new such use appears."""
    demands: set[str] = set()
    while True:
        types: dict[str, FunctionTypes] = {}
        sigs: dict[str, Signature] = {}
        for name in order:
            node = info.functions[name]
            types[name] = infer_types(node, info, sigs, locator, int_result=name in demands)
            sigs[name] = signature(node, types[name], info)
            if name in _self_callers(order, info):
                # Its own calls were typed without its signature: type it again with it,
                # until the signature stops changing (each round can only make types more precise).
                for _ in range(3):
                    types[name] = infer_types(node, info, sigs, locator, int_result=name in demands)
                    again = signature(node, types[name], info)
                    if again == sigs[name]:
                        break
                    sigs[name] = again
        new = set().union(*(t.int_demands for t in types.values())) - demands
        if not new:
            return types, sigs
        demands |= new


def parse_python(source: str, filename: str, func: str) -> Module:
    """``func`` and the user functions it calls, as verified-shape SSA IR."""
    lines = source.splitlines()
    wrapper = MetadataWrapper(_parse(source, filename))
    positions = wrapper.resolve(PositionProvider)
    info = scan_module(wrapper.module, filename)
    basename = Path(filename).name
    if func not in info.functions:
        listing = ", ".join(info.functions) or "none"
        raise error(f"no function named '{func}' in {basename}", hint=f"functions in this file: {listing}")
    locator = Locator(filename, positions)  # type: ignore[arg-type]

    order, problems, recursive_calls = _callees_first(func, info, locator)
    problems += _decorator_problems(order, info, locator)
    types, sigs = _infer_all(order, info, locator)
    lowered: dict[str, Function] = {}
    for name in order:
        node = info.functions[name]
        problems += types[name].diagnostics
        ctx = FunctionContext(name, info, locator, types[name], sigs, _local_names(node), basename, recursive_calls)
        fn, fn_problems = lower_function(node, ctx)
        problems += fn_problems
        lowered[name] = fn
    if problems:
        raise DiagnosticError(_sorted_unique(problems), lines)

    module = Module(source_file=filename, source_lines=lines)
    for name in info.functions:  # source order
        if name in lowered:
            module.add(lowered[name])
    for fn in module.functions.values():
        dce_function(fn, module)
    return module


# Decorators that leave what a function computes as it is (compilers and caches of pure code).
HARMLESS_DECORATORS = frozenset({"numba.njit", "numba.jit", "functools.cache", "functools.lru_cache"})


def _decorator_problems(order: list[str], info: ModuleInfo, locator: Locator) -> list[Diagnostic]:
    """A decorator rebinds the function's name to whatever it returns: s2sad reads the
    function's source, so it accepts only decorators known to keep its meaning."""
    problems = []
    for name in order:
        for dec in info.functions[name].decorators:
            target = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
            if info.canonical_name(target) not in HARMLESS_DECORATORS:
                spelled = dotted_source(target) or "this decorator"
                problems.append(locator.diagnostic(
                    dec.decorator, f"decorator '{spelled}' may change what '{name}' computes",
                    hint="s2sad differentiates the function as written; it knows numba.njit, numba.jit, "
                    "functools.cache and functools.lru_cache (remove the decorator, or differentiate an "
                    "undecorated copy)"))
    return problems


def _sorted_unique(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple[str, object]] = set()
    out = []
    for d in diags:
        key = (d.message, d.loc)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return sorted(out, key=lambda d: (d.loc.line, d.loc.col) if d.loc else (0, 0))
