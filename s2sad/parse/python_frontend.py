"""The Python front end: source text -> SSA IR ``Module``.

Public API (used by the pipeline, the CLI and the tests):

* ``list_functions(source, filename)``: the top-level ``def`` names, in source order;
* ``parse_python(source, filename, func)``: a ``Module`` holding ``func`` and every
  user function it calls, transitively, in source order;
* ``parameter_locations(source, filename, func)``: where ``func``'s parameters are declared.

The input is parsed with libcst (positions from ``PositionProvider``) and never
imported or executed. Only the chosen function and its callees must be code
s2sad supports; the rest of the file is scanned for imports and numeric
constants only (``py_module``). Callees are processed before their callers
(a caller needs their signatures to type its calls); a function may call
itself, while mutual recursion is rejected at the call that closes the cycle. Per function: type inference
(``py_types``); then each helper is typed again from its calls, one copy per signature they give it
(``py_specialize``); then each copy is lowered (``py_lower``, ``py_expr``), and the arrays helpers
return are checked to be their own (``py_array_results``). Every problem found
in any of the functions is collected and raised together as one
``DiagnosticError``; otherwise dead ops are swept (``opt.dce``) so that the
primal IR holds only what the source computes.
"""

from __future__ import annotations

import io
from collections import ChainMap
import sys
import tokenize
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..diagnostics import Diagnostic, DiagnosticError, error
from ..ssa.callgraph import callees_first
from .py_helper_shapes import HelperShapes, shapes_of
from .py_helper_shapes import forget as forget_helper_shapes
from ..ssa.ir import Function, Module, SourceLoc
from ..ssa.types import ArrayType
from ..source_files import source_lines
from .annotations import annotate_loops
from .call_names import name_call_results
from .custom_adjoints import NONE as NO_DERIVATIVES
from .custom_adjoints import Derivatives, replaced
from .py_common import Locator
from .py_decorators import HARMLESS, judge
from .py_expr import FunctionContext, describe
from . import nesting
from .nesting import first_too_deep
from .py_flow import assigned_names, children, forgetting_nodes, walk
from .py_lower import lower_function
from .py_local_functions import lift_local_functions
from .py_default_axes import fix_default_axes
from .py_dicts import rewrite_dicts, unexpanded_dict_problems
from .py_function_args import specialize_function_arguments
from .py_list_args import pass_list_items
from .py_entry_tuples import unpack_entry_tuples
from .py_none_defaults import fill_none_defaults
from .py_list_front import build_lists_at_the_back
from .py_list_results import return_list_arrays
from .py_list_starts import start_lists_empty
from .py_inplace_calls import rewrite_inplace_calls
from .py_module_arrays import inline_module_arrays
from .py_rebound_lists import rename_rebound_lists
from .py_fresh_updates import rebind_fresh_updates
from .py_tuples import rewrite_tuples
from .py_unroll import unroll_literal_loops
from .py_spellings import rewrite_spellings
from .py_starred import rewrite_starred
from .py_params import parameters
from .py_module import Binding, ModuleInfo, dotted_source, scan_module
from .py_array_results import array_returning_helpers, shared_array_results
from .py_specialize import specialize
from .py_strings import strings_loops_change
from .py_types import FunctionTypes, Signature, default_value, infer_types, signature
from .py_view_arguments import parts_written_through_others
from .translation import kept_per_translation

__all__ = ["list_functions", "parameter_locations", "parse_python"]


@lru_cache(maxsize=8)
def _parse(source: str, filename: str) -> cst.Module:
    """The file's syntax tree, checked by Python's compiler first; made once per text in a
    translation, as choosing the function, scanning the module and lowering each ask for it
    (libcst trees are immutable, and MetadataWrapper works on a copy); forgotten when it ends
    (``translation``)."""
    return _parse_checked(source, filename)


def _parse_checked(source: str, filename: str) -> cst.Module:
    lines = source_lines(source)
    # Python's own compiler gives the most precise syntax-error positions and messages, and
    # refuses what its grammar allows but the language does not ('return' or 'yield' outside a
    # function, a late 'from __future__', a duplicate parameter). Compiling runs nothing: the
    # code object is dropped.
    # Python's own recursion limit while it parses: the command line raises it for s2sad's deep
    # walks, but a file nested too deeply for Python at its default is refused as Python does.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(min(limit, PYTHON_RECURSION_LIMIT))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. invalid escape sequences: not our concern
            compile(source, filename, "exec", dont_inherit=True)
    except (RecursionError, MemoryError):  # "maximum recursion depth exceeded during compilation"
        raise DiagnosticError([Diagnostic(
            "this statement nests too deeply for Python to compile it", _most_tokens(source, filename),
            "split it into several statements (s = a + b, then s += c, ...)")], lines) from None
    except ValueError as e:  # a NUL byte in the source
        raise DiagnosticError([Diagnostic(f"cannot parse {Path(filename).name}: {e}")], lines) from None
    except SyntaxError as e:
        line = e.lineno or 1
        col = e.offset or 1
        end_line = e.end_lineno or line
        end_col = e.end_offset if e.end_offset and end_line == line and e.end_offset > col else col + 1
        loc = SourceLoc(filename, line, col, end_line, end_col)
        raise DiagnosticError([Diagnostic(f"syntax error: {e.msg}", loc, "s2sad reads only valid Python")], lines)
    finally:
        sys.setrecursionlimit(limit)
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as e:
        loc = SourceLoc(filename, e.raw_line, e.raw_column + 1)
        raise DiagnosticError([Diagnostic(f"syntax error: {e.message}", loc)], lines)


PYTHON_RECURSION_LIMIT = 1000  # CPython's default


def _most_tokens(source: str, filename: str) -> Optional[SourceLoc]:
    """Where a statement too deep for Python's parser is: Python does not say, so the logical
    line with the most tokens (the deepest expression is the longest one), read by tokenize,
    which does not recurse."""
    counts: dict[int, int] = {}
    start = None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if start is None and tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
                start = tok.start[0]
            if start is not None:
                counts[start] = counts.get(start, 0) + 1
            if tok.type == tokenize.NEWLINE:
                start = None
    except (tokenize.TokenError, SyntaxError):
        pass
    if not counts:
        return None
    line = max(counts, key=lambda k: (counts[k], -k))
    text = source_lines(source)[line - 1]
    return SourceLoc(filename, line, len(text) - len(text.lstrip()) + 1)


@forgetting_nodes
def list_functions(source: str, filename: str) -> list[str]:
    """Names of the top-level functions, in source order."""
    return list(_function_names(source, filename))


@lru_cache(maxsize=8)
def _function_names(source: str, filename: str) -> tuple[str, ...]:
    return tuple(scan_module(_parse(source, filename), filename).functions)


kept_per_translation(_parse.cache_clear)
kept_per_translation(_function_names.cache_clear)


def _local_names(fn: cst.FunctionDef) -> frozenset[str]:
    return frozenset(p.name.value for p in parameters(fn)) | frozenset(assigned_names([fn.body]))


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
               ) -> tuple[dict[str, FunctionTypes], dict[str, Signature], set[str]]:
    """Types of every function from its own body, callees first, and the functions whose result a
    caller uses as an integer. Such a use makes the callee's returns integer context; the callee
    is then typed again (and its callers after it) until no new such use appears."""
    demands: set[str] = set()
    self_callers = _self_callers(order, info)
    while True:
        types: dict[str, FunctionTypes] = {}
        sigs: dict[str, Signature] = {}
        for name in order:
            node = info.functions[name]
            types[name] = infer_types(node, info, sigs, locator, int_result=name in demands)
            sigs[name] = signature(node, types[name], info)
            if name in self_callers:
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
            return types, sigs, demands
        demands |= new


_NESTS = frozenset({cst.If, cst.For, cst.While, cst.With, cst.Try, cst.TryStar, cst.IfExp})  # a region each in the IR


@forgetting_nodes
def parse_python(source: str, filename: str, func: str, derivatives: Derivatives = NO_DERIVATIVES) -> Module:
    """``func`` and the user functions it calls, as verified-shape SSA IR (``derivatives``: the
    custom adjoints of functions defined elsewhere, which it may call)."""
    lines = source_lines(source)
    # No copy of the tree: a parsed module has each node once, which is what the copy ensures, and
    # copying took a tenth of a long file's reading.
    wrapper = MetadataWrapper(_parse(source, filename), unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    info = scan_module(wrapper.module, filename)
    for name in replaced(list(info.functions), func, derivatives):  # called as if imported from this module
        del info.functions[name]
        info.function_bindings.pop(name, None)
        info.imports[name] = f"{Path(filename).stem}.{name}"
    basename = Path(filename).name
    locator = Locator(filename, positions)  # type: ignore[arg-type]
    if func not in info.functions and func in info.alternatives:
        raise DiagnosticError([_path_dependent(func, info.alternatives[func], locator)], lines)
    if func not in info.functions:
        listing = ", ".join(info.functions) or "none"
        raise error(f"no function named '{func}' in {basename}", hint=f"functions in this file: {listing}")

    lifted_positions, lift_problems = lift_local_functions(info, locator)
    if lifted_positions:  # the nodes lifting made stand where the nodes they replace stood
        locator.positions = ChainMap(lifted_positions, positions)  # type: ignore[assignment]
    # Rewrites of the syntax trees before typing, in order, each locating the nodes it makes
    rewrites: list[Callable[[ModuleInfo, Any], dict]] = [
        # trapezoid(lambda x: g(x, k), a, b): trapezoid_lambda(k, a, b), calling g where it called f
        lambda i, at: specialize_function_arguments(i, at, func),
        lambda i, at: fill_none_defaults(i, at, func),  # if w is None: w = np.ones(n), dense(x, W) of b=None
        lambda i, at: unpack_entry_tuples(i, at, func),  # def loss(params, X): W, b = params: loss(W, b, X)
        inline_module_arrays,  # TAUS = np.array([0.1, 0.9]) at the top: made again where a function starts
        rewrite_inplace_calls,  # y.sort(), np.add(a, b, out=y): y[...] = np.sort(y), y[...] = np.add(a, b)
        rewrite_spellings,  # np.diff(x): x[..., 1:] - x[..., :-1]
        rewrite_starred,  # first, *_ = x: first = x[0]
        start_lists_empty,  # traj = [state]: traj = []; traj.append(state)
        build_lists_at_the_back,  # v.insert(0, x): v.append(x), v read reversed
        lambda i, at: return_list_arrays(i, at, func),  # return ys, ts of lists: np.array(ys), np.array(ts)
        rename_rebound_lists,  # v = []; ...; v = np.array(v): v_array from there on
        rebind_fresh_updates,  # ll = np.log(y); ll += a: ll = ll + a
        lambda i, at: pass_list_items(i, at, func),  # forward(params, X) of params = [(W1, b1)]: its items
        unroll_literal_loops,  # for W, b in [(W1, b1), (W2, b2)]: the body once per item
        lambda i, at: rewrite_dicts(i, at, func),  # params = {"a": a}: params_a = a
        rewrite_tuples,  # t = (a, b); t[0]: t_0, t_1 = a, b; t_0
        lambda i, at: fix_default_axes(i, func, at),  # softmax(z, axis=-1), called softmax(s)
    ]
    for rewrite in rewrites:
        placed = rewrite(info, locator.positions)
        if placed:
            locator.positions = ChainMap(placed, locator.positions)  # type: ignore[assignment]
    order, problems, recursive_calls = _callees_first(func, info, locator)
    dicts = unexpanded_dict_problems(info, order, func, locator)
    if dicts:  # read by keys and otherwise: lowering them would only add "strings are not supported"
        raise DiagnosticError(_sorted_unique(problems + dicts), lines)
    for name in order:  # refused before any work on it (see parse.nesting; elif chains reach it)
        deep = first_too_deep(info.functions[name], children, lambda n: type(n) in _NESTS)
        if deep is not None:
            raise DiagnosticError([Diagnostic(nesting.message(type(deep) is cst.IfExp), locator.loc(deep),
                                              nesting.HINT)], lines)
    lifting = [d for name in order for d in lift_problems.get(name, [])]
    if lifting:  # a function whose local functions stay in it: lowering it would only add follow-on errors
        raise DiagnosticError(_sorted_unique(problems + lifting), lines)
    problems += _decorator_problems(order, info, locator)
    path_dependent = _path_dependent_uses(order, info, locator)
    if path_dependent:  # what the function computes is not one thing: nothing further is meaningful
        raise DiagnosticError(_sorted_unique(problems + path_dependent), lines)
    _, own_sigs, int_results = _infer_all(order, info, locator)
    # Each helper typed from its calls, an instance per signature its callers give it.
    program = specialize(func, info, locator, own_sigs, int_results, recursive_calls)
    problems += program.problems
    problems += _default_problems(info.functions[func], program.types[func], info, locator)
    lowered: dict[str, Function] = {}
    shapes: dict[str, HelperShapes] = {}  # what each helper lowered tells its callers (callees first)
    for name in _instances_callees_first(func, program):
        source = program.source_of[name]
        node = info.functions[source]
        problems += program.types[name].diagnostics
        ctx = FunctionContext(source, info, locator, program.types[name], own_sigs, _local_names(node), basename,
                              recursive_calls, derivatives, program.call_sigs[name], entry=name == func,
                              helper_shapes=shapes)
        fn, fn_problems = lower_function(node, ctx)
        problems += fn_problems + strings_loops_change(fn)
        shapes[name] = shapes_of(fn)
        if name == func and info.entry_none_fills:  # its gradient fills them as it does (py_none_defaults)
            fn.attrs["none_fills"] = {p: cst.Module([]).code_for_node(e) for p, e in info.entry_none_fills.items()}
        if name == func and info.entry_tuples:  # its gradient takes these packed (py_entry_tuples)
            fn.attrs["tuple_params"] = dict(info.entry_tuples)
        if name == func and info.entry_dicts:  # its gradient takes these dicts whole (py_dicts)
            fn.attrs["dict_params"] = {d: [[key, name] + ([] if default is None else [default])
                                           for key, name, default in items] for d, items in info.entry_dicts.items()}
        if name != source:  # one of several instances (py_specialize): named for what its calls give
            fn.name = name
            fn.attrs["specialized_from"] = source
            fn.attrs["given"] = {p: describe(t) for p, t in program.given.get(name, [])}
        lowered[name] = fn
    if problems:
        raise DiagnosticError(_sorted_unique(problems), lines)

    module = Module(source_file=filename, source_lines=lines)
    for source in info.functions:  # source order
        for name in program.instances_of(source):
            module.add(lowered[name])
    problems = shared_array_results(module) + parts_written_through_others(module)
    if problems:
        raise DiagnosticError(_sorted_unique(problems), lines)
    returning = array_returning_helpers(module, func)
    if returning:  # a fact of the source, which C output refuses at every -O level, inlined or not
        module.functions[func].attrs["array_helpers"] = returning
    forget_helper_shapes(module)
    annotate_loops(module)
    name_call_results(module, ("extern",))  # a user function's value stays unnamed: a temporary
    return module


def _instances_callees_first(func: str, program) -> list[str]:
    """The instances to lower, each helper before its callers (``py_helper_shapes``); a call that
    closes a cycle (reported already) is cut where it closes."""
    def calls_of(name: str):
        calls = program.call_sigs.get(name, {}).items()
        return [(sig.name, call) for call, sig in calls if sig.name in program.source_of]

    order, _ = callees_first(func, calls_of, lambda call, cycle: None)
    return order + [name for name in program.source_of if name not in order]


@forgetting_nodes
def parameter_locations(source: str, filename: str, func: str) -> dict[str, SourceLoc]:
    """Where each parameter of the top-level function ``func`` is declared (for diagnostics
    about a parameter that the pipeline finds after the IR was built)."""
    wrapper = MetadataWrapper(_parse(source, filename), unsafe_skip_copy=True)
    locator = Locator(filename, wrapper.resolve(PositionProvider))  # type: ignore[arg-type]
    fn = scan_module(wrapper.module, filename).functions.get(func)
    return {p.name.value: locator.loc(p.name) for p in parameters(fn)} if fn is not None else {}


HARMLESS_DECORATORS = HARMLESS


def _default_problems(fn: cst.FunctionDef, types: FunctionTypes, info: ModuleInfo, locator: Locator
                      ) -> list[Diagnostic]:
    """The gradient of the function differentiated keeps its parameters' defaults (it is called
    as the function is): a default it could not write into the output is refused. A callee's
    defaults need no such care: its call sites fill them in."""
    problems = []
    for p, t in zip(parameters(fn), types.params):
        if p.default is None or p.name.value in info.entry_none_fills:
            continue
        name = p.name.value
        if default_value(p.default, info) is None:
            problems.append(locator.diagnostic(
                p.default, f"the default value of parameter '{name}' is not a number, which the gradient could not "
                "keep as its own default", hint=f"give {name} a numeric default (1.0, -2, a module-level constant, "
                f"math.pi), or none"))
        elif isinstance(t, ArrayType):
            problems.append(locator.diagnostic(
                p.default, f"parameter '{name}' is an array, and its default value is a number",
                hint=f"drop the default of {name}"))
    return problems


def _decorator_problems(order: list[str], info: ModuleInfo, locator: Locator) -> list[Diagnostic]:
    """A decorator rebinds the function's name to whatever it returns: s2sad reads the
    function's source, so it accepts only decorators it can show return the function unchanged,
    on every path through the module (``py_decorators``)."""
    problems = []
    for name in order:
        binding = info.function_bindings.get(name)
        if binding is None:  # a lifted local function (py_local_functions refuses its decorators)
            continue
        for dec in info.functions[name].decorators:
            target = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
            spelled = dotted_source(target) or "this decorator"
            bad = judge(dec.decorator, binding.scope or {}, info.star_imports)
            if not bad:
                continue
            message = f"decorator '{spelled}' may change what '{name}' computes"
            root = spelled.split(".")[0]
            if bad != [None]:
                shown = sorted((b for b in bad if b is not None), key=lambda b: _position(b, locator))
                ways = _either([_describe(b, locator) for b in shown])
                message += f": where '{root}' is {ways}, s2sad cannot show that it returns '{name}' unchanged"
            problems.append(locator.diagnostic(
                dec.decorator, message,
                hint="s2sad differentiates the function as written; it knows numba.njit, numba.jit, "
                "functools.cache and functools.lru_cache, and a fallback that returns the function as it is "
                "(def njit(f): return f) (remove the decorator, or differentiate an undecorated copy)"))
    return problems


def _describe(b: Binding, locator: Locator) -> str:
    """A binding in words, for messages: what it binds and where."""
    where = f" (line {locator.positions[b.node].start.line})" if b.node is not None else ""
    if b.kind == "unbound":
        return "unbound"
    if b.kind == "import":
        return f"{b.canonical}{where}"
    if b.kind == "const":
        return f"the number {b.value!r}{where}"
    if b.kind == "def":
        return f"the function defined{where.replace(' (', ' at ').rstrip(')')}"
    if b.kind == "lambda":
        return f"a lambda{where}"
    if b.kind == "class":
        return f"a class{where}"
    if b.how == "global":
        return f"what a function's global statement assigns{where}"
    if b.how == "loop":
        return f"a loop variable{where}"
    return f"a value that is not a number{where}" if b.how == "assignment" else f"what a '{b.how}' binds{where}"


def _position(b: Binding, locator: Locator) -> tuple[int, int]:
    start = locator.positions[b.node].start if b.node is not None else None
    return (start.line, start.column) if start is not None else (0, 0)


def _either(ways: list[str]) -> str:
    ways = list(dict.fromkeys(ways))
    return ", ".join(ways[:-1]) + " or " + ways[-1] if len(ways) > 1 else ways[0]


def _path_dependent(name: str, bindings: tuple[Binding, ...], locator: Locator,
                    node: Optional[cst.CSTNode] = None) -> Diagnostic:
    """The located error for a use of a name whose meaning depends on the path the module took."""
    bound = sorted((b for b in bindings if b.kind != "unbound"), key=lambda b: _position(b, locator))
    if bound and all(b.main for b in bound):
        message = (f"'{name}' is bound only under 'if __name__ == \"__main__\":', which does not run when the "
                   "file is imported")
        hint = f"bind {name} at top level, outside that block"
    else:
        ways = _either([_describe(b, locator) for b in bound])
        if len(bound) < len(bindings):
            message = f"'{name}' may be unbound or {ways}, depending on which path through the module ran"
        else:
            message = f"'{name}' is bound differently on different paths through the module: {ways}"
        if any(b.main for b in bound):
            message += " (as a script, the file also runs 'if __name__ == \"__main__\":')"
        hint = (f"bind {name} unconditionally (at top level, not under an if, try, loop or a function's "
                "global), or to the same number or library function on every path")
    if node is None:  # the name's own definitions: point at the first
        node = bound[0].node
        node = node.name if isinstance(node, (cst.FunctionDef, cst.ClassDef)) else node
    assert node is not None
    return locator.diagnostic(node, message, hint=hint)


def _path_dependent_uses(order: list[str], info: ModuleInfo, locator: Locator) -> list[Diagnostic]:
    """Uses, in the functions s2sad reads, of module-level names whose meaning depends on the path
    (decorators aside: ``_decorator_problems`` judges them per path)."""
    problems = []
    for name in order:
        fn = info.functions[name]
        local = _local_names(fn)
        for node in _loads(fn):
            if node.value in info.alternatives and node.value not in local:
                problems.append(_path_dependent(node.value, info.alternatives[node.value], locator, node))
    return problems


def _loads(node: cst.CSTNode) -> Iterator[cst.Name]:
    """The names read under ``node`` (not attribute names, keywords, parameter names, decorators),
    in source order (a stack: nested generators cost the depth for each name of a long sum)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name):
            yield n
        elif isinstance(n, (cst.Global, cst.Nonlocal)):
            continue  # a declaration (refused where lowered), not a use
        elif isinstance(n, (cst.Attribute, cst.Arg)):
            stack.append(n.value)
        elif isinstance(n, cst.Param):
            stack.extend(part for part in (n.default, n.annotation) if part is not None)
        elif isinstance(n, cst.FunctionDef):
            stack.extend(part for part in (n.body, n.returns, n.params) if part is not None)
        else:
            stack.extend(reversed(children(n)))


def _sorted_unique(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple[str, object]] = set()
    out = []
    for d in diags:
        key = (d.message, d.loc)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return sorted(out, key=lambda d: (d.loc.line, d.loc.col) if d.loc else (0, 0))
