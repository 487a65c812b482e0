"""The Python / Numba emitter: a Module of structured SSA -> readable Python source.

``emit_python(module, target, header)`` is the entry point (``target`` is
``"py"`` or ``"numba"``; numba output is the same code with ``@numba.njit`` on
every function, except that a gradient that checks assumed ranks is split in two there, the
checks and the gradient they call, see ``rank_checks``). Per function the work is split by concern:

1. ``s2sad.emit.inline``: which values print inside other expressions, which get variables;
2. ``s2sad.emit.outofssa``: one variable per congruence class, copies only where needed;
3. this module: statements (``s2sad.emit.stmt``) from ops (loops stay loops, branches stay branches),
   then rendering with the readability rules: ``x += e`` for ``x = x + e``
   (also array elements), ``if not c:`` for an empty then-branch, ``elif``
   chains, ``r = a if c else b`` when both branches only copy an expression,
   ``while c:`` when the condition is a pure expression, and lines under 100
   characters (a long expression loses its largest subexpressions to
   temporaries assigned just before it);
4. ``formatting``: the text laid out as ``ruff format`` lays it out (88 columns).

The output must pass ``ruff check`` with its (broad) default rules, so the
spellings linters reject are rewritten into equivalent ones that they accept
and people prefer: ``if x > m: m = x`` is ``m = max(m, x)``, ``if a:`` holding
only ``if b:`` is ``if a and b:``, a copy both branches make is made once
before the ``if``, ``a < b and b < c`` is ``a < b < c`` (see ``s2sad.emit.expr``
and ``printer`` for the expression-level ones). Each rewrite gives the same values;
``printer.if_exp`` says where a ``>=``-based choice may differ in the sign of a zero.

Tapes (stacks of scalars, from the adjoint transform) must work under Numba,
so they are preallocated NumPy arrays with an integer top, doubled with
``np.concatenate`` when they may grow. Imports are emitted only when used.
"""

from __future__ import annotations

import ast
import re
from typing import Callable, Optional

from ..analysis.unread_yields import unread_undef_yields
from ..diagnostics import error
from ..emit.builder import StatementBuilder, tape_new_op
from ..emit.convention import Convention, calling_text, entry_text, helper_text, instance_text
from ..emit.expr import (
    Call,
    IfExp,
    Attribute,
    BinOp,
    Compare,
    Expr,
    Lit,
    Name,
    Range,
    square,
    Slice,
    Subscript,
    Tuple,
    Unary,
    affine,
    binop,
    call,
    literal_value,
    logical_not,
    module_attr,
    names_in,
    number,
    replace,
)
from ..emit.inline import Effects
from ..emit.outofssa import allocate, carried_targets
from ..emit.stmt import (
    comment_lines,
    drop_unread,
    LINE_LIMIT,
    Assign,
    AugAssign,
    Comment,
    ExprStmt,
    For,
    If,
    Keyword,
    Return,
    Stmt,
    While,
    augmented,
    map_blocks,
    stmt_names,
    tidy,
)
from ..ssa import special
from ..ssa.array_ops import PREFIX, is_array_op
from ..ssa.attrs import (GENERIC_MATH, GENERIC_VALUE, SERIAL, grad_info, is_gradient, numpy_spelled, primal_positions,
                         pointee_struct, whole_reduced)
from ..ssa.ir import Block, Function, Module, Op, Value
from ..ssa.mathfns import MATH
from ..ssa.mpi import Communicator
from ..ssa.opdefs import reads_global
from ..ssa.types import BOOL, STR, ArrayType, Type
from .arrays import ArrayBinOp, accum_slice_target, array_expr, numba_unsupported, scipy_ufunc
from .mpi import PyMpi, communicator_default, mpi_name
from .names import PyNamer, python_function_names
from .formatting import formatted
from .copies import array_copies
from .literals import array_literals
from .printer import P_COND, Printer, first_hoistable, if_exp
from .rank_checks import (check_lines, extent_check_lines, generic_array_shadows, generic_check_lines, generic_text,
                          sequence_lines, unchecked_names, unit_check_lines)

_BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//", "mod": "%", "pow": "**"}
_BITS = {"bitand": "&", "bitor": "|", "bitxor": "^", "shl": "<<", "shr": ">>"}  # on Python's (or Numba's) ints
ACCUM = PREFIX + "accum"

# Builtins the output calls (math's abs, min and max among them: ``mathfns``).
_BUILTIN_CALLS = ("abs", "min", "max", "float", "int", "bool")

_DTYPES = {"f64": None, "f32": "float32", "i64": "int64", "i32": "int32", "bool": "bool_"}


# -- module ---------------------------------------------------------------------------


class Helpers:
    """The functions of ``ssa.special`` the output calls (``digamma``...): each under a name no
    function of the module has, printed before the module's functions when used."""

    def __init__(self, module: Module, numba: bool):
        self.taken = set(module.functions) | {n for names in imported_names(module, numba).values() for n in names}
        self.names: dict[str, str] = {helper: self._free(helper) for helper in special.FUNCTIONS}
        self.used: dict[str, None] = {}
        # math function -> the name of its Numba ufunc (``ufunc``) and its value on a number ``v``
        self.ufuncs: dict[str, tuple[str, Expr]] = {}

    def _free(self, name: str) -> str:
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name

    def call(self, helper: str, args: list[Expr]) -> Expr:
        self.used[helper] = None
        for required in special.REQUIRES.get(helper, ()):
            self.used[required] = None
        return call(self.names[helper], *args)

    def ufunc(self, fn: str, scalar: Callable[[str, list[Expr]], Expr], arg: Expr) -> Expr:
        """Numba output: math function ``fn``, which NumPy has no ufunc of (``lgamma``), applied to
        ``arg``, a number or an array of any shape (Numba compiles no SciPy), through a ufunc the
        output defines with ``@numba.vectorize`` from ``scalar``'s spelling of it on numbers."""
        if fn not in self.ufuncs:
            self.ufuncs[fn] = (self._free(f"{fn}_ufunc"), scalar(fn, [Name("v")]))
        return call(self.ufuncs[fn][0], arg)

    def sources(self, numba: bool, printer: "Printer") -> list[str]:
        """The used helpers' definitions, in ``special``'s order, then the ufuncs, in the order used."""
        out = []
        for helper in special.FUNCTIONS:
            if helper in self.used:
                text = re.sub(rf"^def {helper}\(", f"def {self.names[helper]}(", special.source_of(helper, numba))
                for required in special.REQUIRES.get(helper, ()):  # called under its name in the output
                    text = re.sub(rf"\b{required}\(", f"{self.names[required]}(", text)
                out.append((NJIT + "\n" if numba else "") + text)
        for name, value in self.ufuncs.values():
            body = printer(value)
            out.append(f'@numba.vectorize(["float64(float64)"], cache={CACHE})\ndef {name}(v):\n'
                       f'    """{body} of each element of a number or an array of any shape: the function on\n'
                       f'    numbers made a ufunc (Numba compiles no SciPy)."""\n    return {body}')
        return out


def emit_python(module: Module, target: str, header: str, entry: str = "") -> str:
    """The module as Python source (``target`` "py" or "numba"), after the ``header`` comment lines;
    ``entry``: the gradient its caller calls (its docstring states the contract's convention)."""
    if target not in ("py", "numba"):
        raise ValueError(f"emit_python: unknown target {target!r}")
    entry = python_function_names(module, entry)
    effects = Effects(module)
    printer = Printer()
    numba = target == "numba"
    unchecked = unchecked_names(module) if numba else {}
    helpers = Helpers(module, numba)
    imported = imported_names(module, numba)
    # No variable may take a function's name, an imported one, a helper's or the cache flag's: one
    # set for every function's namer.
    taken = frozenset([*module.functions, *unchecked.values(), *helpers.names.values(),
                       *(name for names in imported.values() for name in names), CACHE])
    functions = [_emit_function(module, fn, effects, printer, numba, unchecked, helpers, entry, taken)
                 for fn in module.functions.values()]
    helper_sources = helpers.sources(numba, printer)
    for text in helper_sources:
        printer.modules.update(m for m in ("math", "np") if re.search(rf"\b{m}\.", text))
    functions = helper_sources + functions
    stdlib = ["import importlib.util"] if numba and "matmul" in helpers.used else []
    stdlib += ["import math"] if "math" in printer.modules else []
    third = []
    if target == "numba":
        third.append("import numba")
    if "np" in printer.modules:
        third.append("import numpy as np")
    if "MPI" in printer.modules:
        third.append("from mpi4py import MPI")
    # functions defined elsewhere, and their custom adjoints (after the `import`s, as isort puts them)
    third += [f"from {m} import {', '.join(sorted(imported[m]))}" for m in sorted(imported)]
    imports = stdlib + ([""] if stdlib and third else []) + third
    if numba:
        imports += ["", *CACHE_LINES]
        if "matmul" in helpers.used:
            imports += ["", *BLAS_LINES]
    head = [line for line in header.rstrip("\n").split("\n")] if header.strip() else []
    if head and imports:
        head.append("")
    head += imports
    text = "\n".join(head) + "\n\n\n" if head else ""
    return formatted(text + "\n\n\n".join(functions) + "\n")


# Numba output keeps what Numba compiles on disk (cache=True), beside the module, when the module
# is loaded from a file; Numba refuses cache=True for code run from a string (exec), which then
# compiles afresh as it would without it.
CACHE = "NUMBA_CACHE"
# Numba multiplies matrices with BLAS, which it reaches through SciPy: where SciPy is missing, the
# output's matmul runs loops instead (``special.matmul_numba``; Numba prunes the branch not taken).
BLAS_LINES = [
    "# Numba multiplies matrices with BLAS through SciPy where SciPy is installed, else with loops.",
    'NUMBA_BLAS = importlib.util.find_spec("scipy") is not None',
]
CACHE_LINES = [
    "# Numba keeps compiled code on disk beside this module when it is loaded from a file",
    "# (run from a string, by exec, it compiles afresh).",
    f'{CACHE} = "__file__" in globals()',
]
NJIT = f"@numba.njit(cache={CACHE})"
# A function with numba.prange loops runs them in parallel and its whole-array NumPy expressions
# serially: Numba's conversion of those into parallel loops fails to compile where an array made
# in one branch gives its shape to an expression in another ("'NoneType' object is not iterable"
# in its parfor pass): for calls and operators (its "numpy" option, fuzz seed 13101596), for
# in-place operators on arrays ("inplace_binop", seed 13500008) and for slice stores ("setitem"),
# all three off. A literal per function: Numba takes the options out of the dict it is given.
NJIT_PARALLEL = (f'@numba.njit(parallel={{"numpy": False, "inplace_binop": False, "setitem": False}}, '
                 f'cache={CACHE})')
PARALLEL_LINES = [
    "# numba.prange loops in parallel, whole-array NumPy expressions serially (Numba's parallel",
    "# form of these fails to compile on some arrays made in a branch)",
]


def imported_names(module: Module, numba: bool = False) -> dict[str, dict[str, None]]:
    """Module -> the names the output imports from it (``scipy.special``: ``gammaln``): the
    functions defined elsewhere that the code calls (from where the input imports them), their
    custom adjoints (from the file that defines them, ``--derivatives``), and SciPy's ufuncs
    applied to arrays (not under Numba, which applies the function on numbers instead)."""
    names: dict[str, dict[str, None]] = {}
    for fn in module.functions.values():
        for op in fn.walk():
            if op.name == "extern" and "import" in op.attrs:
                names.setdefault(op.attrs["import"], {})[op.attrs["callee"]] = None
            elif not numba and (scipy := scipy_ufunc(op)) is not None:  # gammaln(x) of an array
                names.setdefault("scipy.special", {})[scipy] = None
            elif op.name == "extern.adjoint" and "adjoint_module" in op.attrs:
                names.setdefault(op.attrs["adjoint_module"], {})[op.attrs["callee"]] = None
    return names


def _emit_function(module: Module, fn: Function, effects: Effects, printer: Printer, numba: bool,
                   unchecked: dict[str, str], helpers: Helpers, entry: str, taken: frozenset[str]) -> str:
    """One function's source. Whether a Numba function is ``parallel=True`` is known once its
    loops are emitted (a prange loop stays one only where Numba's semantics allow); such a
    function is emitted again with the array spellings Numba's parallel array analysis accepts
    (arrays.py). Emitting reads the IR only, so the second pass makes the same decisions.
    ``unchecked``: the Numba functions split into their rank checks and the gradient without
    them (``rank_checks.unchecked_names``). ``taken``: the names no variable may take."""
    first = _FunctionEmitter(module, fn, effects, printer, numba, unchecked, helpers, entry, taken)
    text = first.emit()
    if not first.prange_used:
        return text
    return _FunctionEmitter(module, fn, effects, printer, numba, unchecked, helpers, entry, taken, parallel=True).emit()


class _FunctionEmitter(PyMpi, StatementBuilder):
    """The shared statement builder with Python's expressions, loops (``numba.prange``), tapes and calls."""

    language = "Python"
    pure_calls = _BUILTIN_CALLS

    def __init__(self, module: Module, fn: Function, effects: Effects, printer: Printer, numba: bool,
                 unchecked: dict[str, str], helpers: Helpers, entry: str, taken: frozenset[str],
                 parallel: bool = False):
        self.module = module
        self.fn = fn
        self.entry = entry
        self.printer = printer
        self.numba = numba
        self.unchecked = unchecked  # a function with rank checks -> its Numba gradient without them
        self.helpers = helpers
        self.parallel = parallel  # a parallel=True Numba function: array spellings for it
        self.namer = PyNamer(taken)
        # The seeds of a primal that returns several values: one tuple parameter (d_return),
        # unpacked into the gradient's seed parameters first thing (adjoint/reverse.py).
        self.packed: dict[str, list[str]] = fn.attrs.get("packed") or {}
        for name in self.packed:
            self.namer.claim_fixed(name)
        # The dicts the function differentiated takes and reads by keys (parse/py_dicts): one
        # parameter each, unpacked into the gradient's parameter per key first thing.
        self.dicts: dict[str, list[list]] = fn.attrs.get("dict_params") or {}
        for name in self.dicts:
            self.namer.claim_fixed(name)
        # The parameters the function differentiated unpacks (parse/py_entry_tuples): one
        # parameter each, and one for their items' shadows, unpacked first thing.
        self.tuples: dict[str, list[str]] = fn.attrs.get("tuple_params") or {} if is_gradient(fn) else {}
        for name in self.tuples:
            self.namer.claim_fixed(name)
        # Shape-generic parameters (adjoint.shape_generic) -> their shadows, which the gradient adds
        # their adjoints into instead of returning them (a number's or an array's, by the caller's).
        self.generic_shadows: dict[str, str] = fn.attrs.get("generic_shadows") or {}
        for name in self.generic_shadows.values():
            self.namer.claim_fixed(name)
        self.tuple_packs = self._tuple_packs()  # (the items of self.tuples and their shadows: their packs)
        self.alloc = allocate(fn, effects, self.namer)
        self.var = self.alloc.var
        self.plan = self.alloc.plan
        self.tape_tops: dict[str, str] = {}
        self.prange_used = False
        self._array_sources: Optional[set[Value]] = None  # (_may_be_array: made when first asked)
        self._may: dict[Value, bool] = {}
        self.unread = unread_undef_yields(fn)  # `else: x = 0.0` where nothing reads x then
        if numba:
            self.unread = {u for u in self.unread if not self._shared_var(*u)}

    def _shadowed(self, shadow: Value) -> Optional[Value]:
        """The parameter whose shadow ``shadow`` is, where it is a shadow parameter."""
        primal = (self.fn.attrs.get("shadows") or {}).get(shadow.name_hint)
        if primal is None or shadow not in self.fn.params:
            return None
        return next((p for p in self.fn.params if p.name_hint == primal), None)

    def _shared_var(self, term: Op, k: int) -> bool:
        """Whether the variable that an unread ``undef`` yield leaves unassigned is another value's too
        (out-of-SSA shares it: the reverse transform's ``n_iter`` counters of different loops).

        Numba keeps that copy (``else: n_iter2 = 0``). It types one variable over all paths and merges
        it at joins, reads or not; it also prunes a test it can decide (a forward sweep's ``s = 0.5``
        / ``while k < n and s < -0.25:``). Where the other value is assigned only in such pruned code,
        a join before the ``if`` has no value on any path and no type ("Type of variable 'n_iter2.1'
        cannot be determined, operation: phi(incoming_values=[Undefined, Undefined] ...)"). A variable
        that is this value's alone is unassigned on every path before the branch, which Numba accepts.
        """
        target = carried_targets(term)[k]
        return self.var.get(target) in self.alloc.shared

    # -- the function ------------------------------------------------------------------
    def emit(self) -> str:
        fn = self.fn
        defaults = fn.attrs.get("defaults") or {}
        fills = fn.attrs.get("none_fills") or {}
        packs = {seed: name for name, seeds in self.packed.items() for seed in seeds}
        packs.update({item[1]: name for name, items in self.dicts.items() for item in items})
        packs.update(self.tuple_packs)
        params = []
        self.printed_params: dict[Value, str] = {}  # each IR parameter -> the Python parameter that holds it
        keyword_only = fn.attrs.get("keyword_only_from")
        for k, p in enumerate(fn.params):
            if p.name_hint in packs:
                name = key = self.printed_params[p] = packs[p.name_hint]
                if any(q.split("=")[0] == name for q in params):
                    continue  # one parameter for the whole tuple
            else:
                name = self.printed_params[p] = self.var.get(p) or self.namer.fresh(p.name_hint or "arg")
                key = p.name_hint
            if k == keyword_only and not self.numba and "*" not in params:  # Numba has no keyword-only parameters
                params.append("*")
            if key in fills:  # (filled where the gradient starts, as where the function does)
                params.append(f"{name}=None")
            elif key in defaults and not (self.numba and keyword_only is not None and self.fn.name != self.entry):
                # (a helper's gradient, which only the gradient calls, with every argument: under
                # Numba, with no keyword-only parameters, its defaults would come before d_return)
                params.append(f"{name}={self.printer(_default(defaults[key]), P_COND)}")
            else:
                if self.numba and keyword_only is not None and any("=" in q for q in params):
                    raise error(f"--target numba: the gradient's parameter '{name}' has no default and follows "
                                "parameters that have one, which only a keyword-only parameter may, and Numba "
                                "has none", fn.loc, hint="use --target py")
                params.append(name)
            if p.name_hint in self.generic_shadows and self.generic_shadows[p.name_hint] in packs:
                if packs[self.generic_shadows[p.name_hint]] not in params:  # (an item's: in the packed shadow)
                    params.append(packs[self.generic_shadows[p.name_hint]])
            elif p.name_hint in self.generic_shadows and p.name_hint not in packs:
                shadow = self.generic_shadows[p.name_hint]  # a shape-generic parameter's shadow
                if key in fills and "*" not in params:  # (no default: it follows w=None keyword-only)
                    if self.numba:
                        raise error(f"--target numba: the shadow '{shadow}' has no default and follows '{name}=None', "
                                    "which only a keyword-only parameter may, and Numba has none", fn.loc,
                                    hint="use --target py")
                    params.append("*")
                params.append(shadow)
        # Checks of the parameter ranks the source does not prove: each raises naming the parameter
        # and the annotation that would settle it, so that a rank s2sad had to assume is never
        # silently wrong. Numba's are a function of their own that calls this one (rank_checks).
        checks = (self._none_fill_lines(fills) + (sequence_lines(fn, self.var) if not self.numba else [])
                  + check_lines(fn, self.var, self.numba) + generic_check_lines(fn, self.var, self.numba)
                  + extent_check_lines(fn, self.var, self.numba) + unit_check_lines(fn, self.var, self.numba))
        if fn.name in self.unchecked:
            about = [f"{fn.name} without its checks of assumed ranks, which run first (Numba compiles this",
                     "function for the ranks they let through)."]
            unchecked = self._function(self.unchecked[fn.name], params, [], [], about)
            return self._checked_entry(params, checks) + "\n\n\n" + unchecked
        if checks:
            self.printer.modules.add("np")
        head = self._instance_comment() + self._struct_comments(params)
        return self._function(fn.name, params, head, checks, self._convention())

    def _none_fill_lines(self, fills: dict[str, str]) -> list[str]:
        """``if w is None: w = np.ones(x.shape[0])``: a parameter defaulting to None filled as the
        function differentiated fills it (parse/py_none_defaults), its parameters as printed here."""
        printed = {p.name_hint: name for p, name in self.printed_params.items()}
        lines = []
        for p in self.fn.params:
            if p.name_hint not in fills:
                continue
            value = ast.parse(fills[p.name_hint], mode="eval")
            for n in ast.walk(value):
                if isinstance(n, ast.Name):
                    if n.id in ("np", "math"):
                        self.printer.modules.add(n.id)
                    n.id = printed.get(n.id, n.id)
            name = self.printed_params[p]
            lines += [f"    if {name} is None:", f"        {name} = {ast.unparse(value)}"]
        return lines

    def _convention(self) -> list[str]:
        """A gradient's docstring lines: the contract's convention for its parameters (a helper
        s2sad adds says what it computes: its ``about`` lines)."""
        if "about" in self.fn.attrs:
            return list(self.fn.attrs["about"])
        info = grad_info(self.fn)
        if info is None or not self.entry:  # no entry named: no convention to state
            return []
        if self.fn.name != self.entry:
            entry = self.module.functions.get(self.entry)
            return helper_text(info.primal, grad_info(entry).primal if entry is not None else self.entry)
        by_index = [self.printed_params[p] for p in self.fn.params]
        seed, kind = None, "float"
        if self.packed:
            seed, kind = next(iter(self.packed)), "tuple"
        elif info.d_return is not None:
            seed = by_index[info.d_return]
            kind = "array" if self.fn.params[info.d_return].type.is_array else "float"
        packs = self.tuple_packs  # (an unpacked parameter's items: the packed parameter, once)
        generic = [(by_index[i], packs.get(self.generic_shadows[p.name_hint], self.generic_shadows[p.name_hint]))
                   for i, p in enumerate(self.fn.params) if p.name_hint in self.generic_shadows]
        # A shape-generic parameter that is an array in the IR has its shadow among the others.
        generic_arrays = [(by_index[j], by_index[i]) for j, i in generic_array_shadows(self.fn)]
        in_order = sorted((pair for pair in generic_arrays + generic if pair[1] not in packs.values()),
                          key=lambda pair: by_index.index(pair[0]))
        return entry_text(Convention(
            primal=info.primal,
            shadows=list(dict.fromkeys([(by_index[j], by_index[i]) for i, j in sorted(info.shadows.items())]
                                       + generic)),
            scalars=[by_index[i] for i in info.returned or []
                     if self.fn.params[i].name_hint not in self.generic_shadows],
            scalar_cells=None,
            seed=seed,
            seed_kind=kind,
            with_value=bool(self.fn.attrs.get("with_value")),
            calling=tuple(self._calling(by_index)) + tuple(generic_text(info.primal, in_order))
            + tuple(self._tuple_text(info.primal, packs)),
        ))

    def _tuple_text(self, primal: str, packs: dict[str, str]) -> list[str]:
        """How the gradient takes a parameter the function unpacks: ``params`` unpacked into ``W,
        b`` as the function does, ``d_params`` into their shadows (of each item's shape)."""
        out = []
        for name, items in self.tuples.items():
            shadows = [s for s, pack in packs.items() if pack == "d_" + name]
            out.append(f"{name} is unpacked into {', '.join(items)}, as in {primal}"
                       + (f"; d_{name} into {', '.join(shadows)}, their shadows, each an array of its item's shape "
                          "(a 0-d array for a number)." if shadows else "."))
        return out

    def _calling(self, by_index: list[str]) -> list[str]:
        """The docstring's sentences on defaults and keyword-only parameters (``calling_text``)."""
        info = grad_info(self.fn)
        defaults = {**(self.fn.attrs.get("defaults") or {}), **(self.fn.attrs.get("none_fills") or {})}
        seeds = set(self.packed) | ({by_index[info.d_return]} if info.d_return is not None else set())
        kept = [by_index[k] for k, p in enumerate(self.fn.params)
                if p.name_hint in defaults and by_index[k] not in seeds]
        start = self.fn.attrs.get("keyword_only_from")
        keyword_only = list(dict.fromkeys(by_index[start:])) if start is not None else []
        seed_only = bool(keyword_only) and keyword_only[0] in seeds
        if self.numba:
            keyword_only = [n for n in keyword_only if n not in seeds]
        return calling_text(info.primal, kept, keyword_only, not self.numba, seed_only)

    def _function(self, name: str, params: list[str], head: list[str], checks: list[str],
                  about: list[str]) -> str:
        """The function's source under ``name``: the ``head`` comments, the signature, the
        docstring (``about``), the ``checks``, the body."""
        lines = list(head)
        if self.numba:
            self.printer.modules.add("numba")
            lines.append(NJIT)
        lines += _def_lines(name, params)
        lines += _docstring(about)
        body = self._unpack_seeds() + tidy(array_copies(array_literals(drop_unread(self.gen_block(self.fn.body)))))
        if self.prange_used:
            at = lines.index(NJIT)
            lines[at:at + 1] = [*PARALLEL_LINES, NJIT_PARALLEL]
        renderer = _Renderer(self.namer, self.printer)
        rest = list(checks)
        if checks and body and isinstance(body[0], Comment):
            rest.append("")
        for k, st in enumerate(body or [Keyword("pass")]):
            if isinstance(st, Comment) and k > 0 and not isinstance(body[k - 1], Comment):
                rest.append("")  # a top-level comment heads a paragraph (a sweep, a source line)
            rest += renderer.stmt(st, "    ")
        for st in self._unpack_dicts() + self._unpack_tuples(rest):  # before the checks, which may check them
            lines += renderer.stmt(st, "    ")
        return "\n".join(lines + rest)

    def value_expr(self, v: Value) -> Expr:
        """A value the source reduced as a whole (``np.sum(total)``, which the IR takes for the
        number ``total``) is reduced where it may be an array (a shape-generic parameter's value)."""
        if whole_reduced(self.fn, v) and self._may_be_array(v):
            return call("np.sum", self.expr(v))
        return self.expr(v)

    def _return(self, op: Op) -> list[Stmt]:
        """As every emitter returns, but the adjoint of a shape-generic parameter is added into its
        shadow (``d_b += ...``, in place: a 0-d array for a number) rather than returned."""
        if not self.generic_shadows:
            return super()._return(op)
        returned = self.fn.attrs.get("returned") or []
        k = self.fn.attrs.get("with_value") or 0
        added: list[Stmt] = []
        kept = list(op.operands[:k])
        for name, v in zip(returned, op.operands[k:]):
            if name in self.generic_shadows:
                added.append(AugAssign(Name(self.generic_shadows[name]), "+", self.expr(v)))
            else:
                kept.append(v)
        exprs = [self.value_expr(v) if i < k else self.expr(v) for i, v in enumerate(kept)]
        if not k:
            return added + ([Return(exprs)] if exprs else [])
        value = exprs[0] if k == 1 else Tuple(tuple(exprs[:k]))
        rest = exprs[k:]
        adjoints = rest[0] if len(rest) == 1 else Tuple(tuple(rest)) if rest else Name("None")
        return added + [Return([value, adjoints])]

    def _unpack_seeds(self) -> list[Stmt]:
        """``d_return_0, d_return_1 = d_return``: the tuple seed into one variable per value
        (``_`` for a seed nothing reads, such as an integer result's)."""
        out: list[Stmt] = []
        for name, seeds in self.packed.items():
            params = {p.name_hint: p for p in self.fn.params}
            targets = tuple(Name(self.var[params[s]] if params[s].uses and params[s] in self.var else "_")
                            for s in seeds)
            out.append(Assign([Tuple(targets)], Name(name)))
        return out

    def _tuple_packs(self) -> dict[str, str]:
        """Each item of a packed parameter -> the parameter (``W``, ``b`` -> ``params``), and each
        item's shadow -> the packed shadow (``d_W``, ``d_b`` -> ``d_params``)."""
        out: dict[str, str] = {}
        info = grad_info(self.fn)
        shadow_of = {v: k for k, v in info.shadows.items()} if info is not None else {}
        names = [p.name_hint for p in self.fn.params]
        returned = {names[i] for i in (info.returned or [])} if info is not None else set()
        for name, items in self.tuples.items():
            out.update({item: name for item in items})
            numbers = [item for item in items if item in returned and item not in self.generic_shadows]
            if numbers:
                raise error(f"--wrt {name}: its item '{numbers[0]}' is a number, whose adjoint the gradient would "
                            f"return beside the shadows of the others in d_{name}", self.fn.loc,
                            hint=f"pass {numbers[0]} as a parameter of its own, or leave {name} out of --wrt")
            for item in items:
                k = names.index(item) if item in names else None
                shadow = names[shadow_of[k]] if k in shadow_of else self.generic_shadows.get(item)
                if shadow is not None:
                    out[shadow] = "d_" + name
        return out

    def _unpack_tuples(self, read: list[str]) -> list[Stmt]:
        """``W, b = params`` and ``d_W, d_b = d_params``: a packed parameter and its shadows into the
        gradient's parameter per item (``_`` for one the lines ``read`` do not mention)."""
        out: list[Stmt] = []
        packs = self.tuple_packs
        by_pack: dict[str, list[str]] = {}
        for item, pack in packs.items():
            by_pack.setdefault(pack, []).append(item)
        params = {p.name_hint: p for p in self.fn.params}
        text = "\n".join(read)
        for pack, items in by_pack.items():
            names = [self.var[params[i]] if i in params and params[i] in self.var else i for i in items]
            targets = tuple(Name(n if re.search(rf"\b{re.escape(n)}\b", text) else "_") for n in names)
            out.append(Assign([Tuple(targets)], Name(pack)))
        return out

    def _unpack_dicts(self) -> list[Stmt]:
        """``config_lam = config["lam"]``, ``config_scale = config.get("scale", 1.0)``: each key of
        a dict parameter the gradient reads, as the function read it."""
        out: list[Stmt] = []
        params = {p.name_hint: p for p in self.fn.params}
        for name, items in self.dicts.items():
            for key, member, *default in items:
                p = params[member]
                if not p.uses or p not in self.var:
                    continue
                read = (Call(Name(f"{name}.get"), (number(key), number(default[0]))) if default
                        else Subscript(Name(name), (number(key),)))
                out.append(Assign([Name(self.var[p])], read))
        return out

    def call_expr(self, op: Op) -> Expr:
        """As every emitter calls, but what the callee takes keyword-only (its parameters after
        ``*``: ``d_return`` after a default, ``def grad_shift(x, d_x, c=0.0, *, d_return)``) is
        passed by keyword (probe p07: passed by position, the call raised TypeError)."""
        out = super().call_expr(op)
        callee = self.module.functions.get(op.attrs["callee"])
        start = callee.attrs.get("keyword_only_from") if callee is not None else None
        if self.numba or start is None or not isinstance(out, Call):
            return out
        # The callee's parameters as Python has them: a tuple of seeds is one (``call_args``).
        packs = {seed: name for name, seeds in (callee.attrs.get("packed") or {}).items() for seed in seeds}
        names: list[str] = []
        first = None
        for k, p in enumerate(callee.params):  # type: ignore[union-attr]
            name = packs.get(p.name_hint, p.name_hint)
            if k == start:
                first = len(names) if name not in names else names.index(name)
            if name not in names:
                names.append(name)
        if first is None or len(out.args) != len(names):
            return out
        return Call(out.func, out.args[:first], tuple(zip(names[first:], out.args[first:])))

    def call_args(self, op: Op) -> tuple[Expr, ...]:
        """A gradient that takes its seeds as one tuple gets them as one: ``(d_s, d_c)``."""
        args = super().call_args(op)
        callee = self.module.functions.get(op.attrs["callee"])
        packed = (callee.attrs.get("packed") or {}) if callee is not None else {}
        if not packed:
            return args
        names = [p.name_hint for p in callee.params]  # type: ignore[union-attr]
        out: list[Expr] = []
        for k, a in enumerate(args):
            group = next((seeds for seeds in packed.values() if names[k] in seeds), None)
            if group is None:
                out.append(a)
            elif names[k] == group[0]:
                out.append(Tuple(tuple(args[k:k + len(group)])))
        return tuple(out)

    def _checked_entry(self, params: list[str], checks: list[str]) -> str:
        """The Numba function with the rank checks, under the gradient's name, that calls the
        gradient without them (rank_checks): what a caller calls."""
        unchecked = self.unchecked[self.fn.name]
        lines = self._struct_comments(params) + [NJIT] + _def_lines(self.fn.name, params)
        lines += _docstring(self._convention())
        renderer = _Renderer(self.namer, self.printer)
        for st in self._unpack_tuples(checks):  # (what the checks read: the function it calls unpacks them again)
            lines += renderer.stmt(st, "    ")
        lines += [
            "    # Numba decides these checks from the argument types as it compiles, so that",
            f"    # {unchecked} is compiled only for the ranks it was written for.",
            *checks,
        ]
        lines.append(f"    return {unchecked}({', '.join(p.split('=')[0] for p in params if p != '*')})")
        return "\n".join(lines)

    def _instance_comment(self) -> list[str]:
        """For one of several copies of a helper (typed from its calls): which, and for what."""
        text = instance_text(self.fn.attrs, is_gradient(self.fn))
        return [f"# {text}"] if text else []

    def _struct_comments(self, names: list[str]) -> list[str]:
        """For C input with structs: how each array of structs lies in its flat NumPy array."""
        structs = self.fn.attrs.get("c_structs", [])
        spelled = self.fn.attrs.get("c_params") or []
        if is_gradient(self.fn):  # it carries its primal's: a shadow points to what its parameter does
            seed = self.fn.attrs.get("c_result", "")
            spelled = [spelled[j] if j is not None else seed for j in primal_positions(self.fn, len(spelled))]
        groups: dict[str, list[str]] = {}
        entries: dict[str, list] = {}
        for name, declared in zip(names, spelled):
            entry = pointee_struct(declared, structs)
            if entry is not None:
                groups.setdefault(entry[0], []).append(name)
                entries[entry[0]] = entry
        out = []
        for struct, arrays in groups.items():
            _, definition, size = entries[struct]
            members = ", ".join(re.findall(r"^ +.*?(\w+(?:\[\d+\])*);$", definition, re.M))  # not "} Body;"
            out.append(f"# {', '.join(arrays)}: {struct} records, {size} numbers each ({members}), one after another")
        return out

    # -- expressions -------------------------------------------------------------------
    def spell_expr(self, op: Op) -> Expr:
        n = op.name
        e = self.expr
        if n == "const":
            return _literal(op.attrs["value"], op.result.type)
        if n == "undef":
            return _undefined(op.result.type)
        if n == "add" and op.operands[0] is op.operands[1] and op.result.type.is_float:
            return binop("*", _literal(2.0, op.result.type), e(op.operands[0]))  # t + t is 2.0 * t, exactly
        if n in _BINARY:
            a, b = e(op.operands[0]), e(op.operands[1])
            squared = square(a, b) if n == "pow" else None
            if squared is not None:
                return squared
            if n == "div" and op.result.type.is_int:
                return call("int", BinOp("/", a, b))  # the IR's integer `div` truncates a true quotient
            if n in ("div", "pow") and numpy_spelled(op):  # inf or NaN where Python's raise
                return call("np.divide" if n == "div" else "np.power", a, b)
            return binop(_BINARY[n], a, b)
        if n in _BITS:
            return BinOp(_BITS[n], e(op.operands[0]), e(op.operands[1]))
        if n == "bitnot":
            return Unary("~", e(op.operands[0]))
        if n == "rem":
            return _rem(e(op.operands[0]), e(op.operands[1]), op.result.type)
        if n == "cast":
            return _cast(e(op.operands[0]), op.operands[0].type, op.result.type)
        if n.startswith("math."):
            return self._math(op)
        if n == "extern" and "prototype" not in op.attrs:  # a Python function, imported (imported_names)
            # Its value is taken to be a number: float() checks it (an array there raises).
            return call("float", Call(Name(op.attrs["callee"]), tuple(e(o) for o in op.operands)))
        if n == "global" and op.attrs.get("mpi"):  # MPI_COMM_WORLD, MPI_PROC_NULL
            return mpi_name(op.attrs["callee"])
        if n == "extern" or reads_global(op):
            callee, is_global = op.attrs["callee"], reads_global(op)
            what = "global variable of the C program, which Python output cannot read" if is_global \
                else "C function defined outside the input, which Python output cannot call"
            raise error(f"--target {'numba' if self.numba else 'py'}: '{callee}' is a {what}", op.loc,
                        hint="use --target c" + ("" if is_global else ", or define it in the input file"))
        if n == "load":
            return Subscript(e(op.operands[0]), tuple(e(i) for i in op.operands[1:]))
        if n == "dim":
            return Subscript(Attribute(e(op.operands[0]), "shape"), (Lit(str(op.attrs["axis"])),))
        if n == "field":  # a C struct member: Python sees the structs as one flat array
            return affine([(c, e(o)) for c, o in zip(op.attrs["coefs"], op.operands)], op.attrs["offset"])
        if n == "view":
            arr, offset = op.operands
            if op.result.type.rank < arr.type.rank:  # type: ignore[attr-defined]
                return Subscript(e(arr), (e(offset),))  # the row A[i]
            return e(arr) if _is_const(offset, 0) else Subscript(e(arr), (Slice(e(offset)),))
        if n == "alloc":
            return self._alloc(op)
        if n == "copy":  # copy(x, n): its first n rows
            arr = e(op.operands[0])
            src = arr if len(op.operands) == 1 else Subscript(arr, (Range(None, e(op.operands[1])),))
            return call(Attribute(src, "copy"))
        if is_array_op(n):
            why = numba_unsupported(op) if self.numba else None
            if why is not None:
                raise error(f"{why}; not supported for --target numba yet", op.loc,
                            hint="use --target py, or write the reduction as a loop")
            return array_expr(op, e, self.numba, self.parallel, self.helpers.call, self._ufunc,
                              generic=self.numba and self._may_be_array(op.operands[0]))
        raise NotImplementedError(f"Python emitter: no expression for op {n}")

    def op_expr(self, op: Op) -> Expr:
        if op.name == "select" and op.attrs.get(GENERIC_MATH):  # of values that may be arrays
            return call("np.where", *(self.expr(o) for o in op.operands))
        e = super().op_expr(op)
        if type(e) is BinOp and op.results and self._may_be_array(op.result) and not self._numba_sum(op):
            # a number's arithmetic that may be an array's: `t = t + d` stays, since `t += d`
            # would write in place an array another name (a copy out of SSA, a seed) still holds
            return ArrayBinOp(e.op, e.left, e.right)
        return e

    def _numba_sum(self, op: Op) -> bool:
        """In Numba output, the addition into a sum a loop carries that ``_generic_sums`` starts as
        an array of its own (``np.zeros_like(b)``): written ``d_b2 += t`` in place, so that the
        variable keeps its one type (``d_b2 = d_b2 + t`` of a 0-d array is a number to Numba)."""
        if not self.numba or op.name != "add":
            return False
        return any(_generic_sum_start(arg, other) is not None
                   for arg, other in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])))

    def function_name(self, name: str) -> str:
        return self.unchecked.get(name, name)  # calls inside the module need no checks

    def _math(self, op: Op) -> Expr:
        fn = op.name[5:]
        row = MATH[fn]
        if self.numba and not row.numba:
            raise error(f"--target numba: Numba has no {row.py}", op.loc, hint="use --target py or --target c")
        args = [self.expr(o) for o in op.operands]
        scipy = scipy_ufunc(op)
        if scipy is not None:  # gammaln(k + 1) of a shape-generic k
            return self._ufunc(fn, args[0]) if self.numba else call(scipy, *args)
        if op.attrs.get(GENERIC_MATH) and row.ufunc:
            return call(f"np.{_NUMPY_UFUNC.get(fn, fn)}", *args)
        if numpy_spelled(op) and row.ufunc and row.py not in special.FUNCTIONS:
            # NumPy's function on numbers: -inf or NaN where math's raises (np.log(0.0))
            return call(f"np.{_NUMPY_UFUNC.get(fn, fn)}", *args)
        return self._scalar_math(fn, args)

    def _ufunc(self, fn: str, x: Expr) -> Expr:
        return self.helpers.ufunc(fn, self._scalar_math, x)

    def _scalar_math(self, fn: str, args: list[Expr]) -> Expr:
        """Intrinsic ``fn`` on numbers: the library's function, or a helper of the output's."""
        if MATH[fn].py in special.FUNCTIONS:
            return self.helpers.call(MATH[fn].py, args)
        return _math(fn, args)

    def _isnan(self, x: Expr) -> Expr:
        return call("math.isnan", x)

    def _alloc(self, op: Op) -> Expr:
        t = op.result.type
        assert isinstance(t, ArrayType)
        dims = [self.expr(d) for d in op.operands]
        shape = dims[0] if len(dims) == 1 else Tuple(tuple(dims))
        fn = "np.zeros" if op.attrs.get("fill", "zeros") == "zeros" else "np.empty"
        dtype = _DTYPES.get(t.elem.name)
        return call(fn, shape, dtype=module_attr("np", dtype)) if dtype else call(fn, shape)

    # -- statements --------------------------------------------------------------------
    def gen_op(self, op: Op) -> list[Stmt]:
        n = op.name
        if n in (ACCUM, ACCUM + "_slice"):
            dst, v = op.operands[0], op.operands[1]  # (accum_slice: its bounds follow)
            target = self.expr(dst) if n == ACCUM else accum_slice_target(op, self.expr, self._shadowed(dst))
            if self.numba and dst.type.is_array and self._may_be_array(v):
                # Numba's in-place addition does not check shapes (NumPy's refuses a bigger v)
                return [ExprStmt(self.helpers.call("add_into", [target, self.expr(v)]))]
            return [AugAssign(target, "+", self.expr(v))]
        if n == ACCUM + "_mask":  # each entry picked once: no repeats to add up
            dst, m, v = (self.expr(o) for o in op.operands)
            return [AugAssign(Subscript(dst, (m,)), "+", v)]
        if n == ACCUM + "_take":
            dst, *idx, v = (self.expr(o) for o in op.operands)
            if not self.numba:
                return [ExprStmt(call("np.add.at", dst, idx[0] if len(idx) == 1 else Tuple(tuple(idx)), v))]
            # Numba has no ufunc.at: the scatter-add as the loop it stands for, over values
            # computed once before it (every element of index arrays of any rank).
            pre: list[Stmt] = []
            if not isinstance(v, Name):
                t = Name(self.namer.temp())
                pre, v = [Assign([t], v)], t
            k = Name(self.namer.fresh("k"))
            one_axis = op.operands[1].type.rank == 1  # type: ignore[attr-defined]
            at = tuple(Subscript(i, (k,)) for i in idx)
            body = [AugAssign(Subscript(dst, at), "+", Subscript(v, (k,)))]
            if one_axis:
                return pre + [For(k.id, [call("len", idx[0])], body)]
            return pre + [For(k.id, [call("np.ndindex", Attribute(idx[0], "shape"))], body)]
        return super().gen_op(op)

    def _several_results(self, op: Op, value: Expr) -> list[Stmt]:
        """``a, _ = f(x)``: Python unpacks a tuple, ``_`` where nothing reads a result."""
        targets = [Name(self.var[r]) if r in self.var else Name("_") for r in op.results]
        return [Assign([Tuple(tuple(targets))], value)]

    def _break_cycle(self, pending: list[tuple[str, Expr]], out: list[Stmt]) -> bool:
        """Python assigns the whole cycle at once with a tuple assignment."""
        out.append(Assign([Tuple(tuple(Name(d) for d, _ in pending))], Tuple(tuple(s for _, s in pending)), copy=True))
        return True

    def _may_be_array(self, v: Value) -> bool:
        """Whether ``v``, a number or an array in the IR, may be an array of another shape when
        the output runs: computed from a shape-generic parameter (``adjoint.shape_generic``), or
        from the seed of a function whose result has such a parameter's shape (a value a loop
        carries counts as one)."""
        generic = self.fn.attrs.get("shape_generic") or {}
        if not generic:
            return False
        if self._array_sources is None:
            seed = self.fn.attrs.get("d_return")
            self._array_sources = {p for p in self.fn.params if p.name_hint in generic
                                   or (p.name_hint == seed and -1 in generic.values())}
        stack = [v]
        while stack:  # the values v is computed from, each decided once, operands first
            w = stack[-1]
            if w in self._may:  # (pushed twice)
                stack.pop()
                continue
            op = w.defining_op
            pending = [o for o in op.operands if o not in self._may] if op is not None else []
            if pending:
                stack += pending
                continue
            stack.pop()
            if op is None:  # a parameter, or a value a loop or branch carries (not followed)
                self._may[w] = w in self._array_sources or w not in self.fn.params
            else:
                self._may[w] = bool(op.attrs.get(GENERIC_VALUE)) or op.name == PREFIX + "sum_to_shape" \
                    or any(self._may[o] for o in op.operands)
        return self._may[v]

    def _generic_sums(self, body: Block, inits: list[Value], pre: list[Stmt]) -> list[Stmt]:
        """Numba output of a function with shape-generic parameters: a sum the loop carries from
        0.0 and adds a shape-generic parameter's adjoint to (``d_b2 += sum_to_shape(t, np.shape(b))``)
        has that parameter's shape from the start (``np.zeros_like(b)``), since Numba gives a
        variable one type in a loop (Python rebinds the number to the array)."""
        if not (self.numba and self.fn.attrs.get("shape_generic")):
            return pre
        starts: dict[str, Expr] = {}
        for arg, update in zip(body.args[1:], body.terminator.operands):
            add = update.defining_op
            if add is None or add.name != "add" or arg not in add.operands or arg not in self.var:
                continue
            like = _generic_sum_start(arg, add.operands[1] if add.operands[0] is arg else add.operands[0])
            if like is not None:
                starts[self.var[arg]] = call("np.zeros_like", self.expr(like))
        return [Assign(st.targets, starts[st.targets[0].id], st.copy)
                if isinstance(st, Assign) and len(st.targets) == 1 and isinstance(st.targets[0], Name)
                and st.targets[0].id in starts else st for st in pre]

    def _for(self, op: Op) -> list[Stmt]:
        body = op.regions[0]
        lb, ub, step, *inits = op.operands
        pre = self._generic_sums(body, inits, self.copies(list(zip(body.args[1:], inits))))
        if _is_const(step, 1):
            args = [self.expr(ub)] if _is_const(lb, 0) else [self.expr(lb), self.expr(ub)]
        else:
            args = [self.expr(lb), self.expr(ub), self.expr(step)]
        counter = self.var[body.args[0]]
        early = self._bounds_first(counter, body.args[0].type, args, pre)
        loop = For(counter, args, self._region(body) or [Keyword("pass")])
        if self.numba and op.attrs.get("parallel") == "prange":
            why = op.attrs.get(SERIAL)  # (opt/accum_modes)
            ascending = self._ascending(op) if why is None else None
            if why is None and ascending is None:
                why = "numba.prange counts up by one"
            sums = [self.var[a] for a in body.args[1:] if a in self.var]
            body_stmts = _one_update_per_iteration(loop.body, sums, self.namer.fresh) if why is None else None
            if why is None and body_stmts is None:
                why = "a sum the loop carries is read inside it"
            if why is None:
                loop.body = body_stmts  # type: ignore[assignment]
                loop.args = ascending  # type: ignore[assignment]
                loop.parallel = self.prange_used = True
            else:
                return early + pre + [Comment(f"serial: {why}"), loop]
        return early + pre + [loop]

    def _ascending(self, op: Op) -> Optional[list[Expr]]:
        """prange's arguments for the iterations of ``op`` counted up by one: the reversed
        loop of a prange runs its independent iterations in any order, so in prange's."""
        lb, ub, step = op.operands[:3]
        if _is_const(step, 1):
            return [self.expr(ub)] if _is_const(lb, 0) else [self.expr(lb), self.expr(ub)]
        if not _is_const(step, -1):
            return None
        start, stop = self._plus_one(ub), self._plus_one(lb)  # range(b - 1, a - 1, -1) is range(a, b) reversed
        return [stop] if literal_value(start) == 0 and not isinstance(literal_value(start), bool) else [start, stop]

    def _plus_one(self, v: Value) -> Expr:
        op = v.defining_op
        if op is not None and op.name == "const":
            return number(op.attrs["value"] + 1)
        if op is not None and op.name == "sub" and _is_const(op.operands[1], 1):
            return self.expr(op.operands[0])
        return binop("+", self.expr(v), number(1))

    def _bound_temp(self, k: int, counter: str, t: Type) -> str:
        return self.namer.temp()

    def _choose(self, c: Expr, a: Expr, b: Expr) -> Expr:
        return if_exp(c, a, b)  # `if x > m: m = x` is `m = max(m, x)` (see printer.if_exp)

    # A tape is a NumPy array and an integer top (the module docstring says why).
    def _tape_new(self, op: Op, tape: Name, top: Name) -> list[Stmt]:
        dtype = _DTYPES.get(op.attrs.get("elem", "f64"))
        cap = self.expr(op.operands[0])
        empty = call("np.empty", cap, dtype=module_attr("np", dtype)) if dtype else call("np.empty", cap)
        return [Assign([tape], empty), Assign([top], Lit("0"))]

    def _tape_push(self, op: Op, tape: Name, top: Name) -> list[Stmt]:
        out: list[Stmt] = []
        if tape_new_op(op).attrs.get("grow"):
            full = Compare("==", top, Subscript(Attribute(tape, "shape"), (Lit("0"),)))
            doubled = call("np.concatenate", Tuple((tape, call("np.empty_like", tape))))
            out.append(If(full, [Assign([tape], doubled)]))
        return out + [Assign([Subscript(tape, (top,))], self.expr(op.operands[1])), AugAssign(top, "+", Lit("1"))]

    def _tape_pop(self, op: Op, tape: Name, top: Name) -> list[Stmt]:
        out: list[Stmt] = [AugAssign(top, "-", Lit("1"))]
        if op.result in self.var:
            out.append(Assign([Name(self.var[op.result])], Subscript(tape, (top,))))
        return out


def _default(value) -> Expr:
    """A parameter's default: a number, a tuple of them (a tuple d_return's), a communicator."""
    if isinstance(value, Communicator):
        return communicator_default(value)
    return Tuple(tuple(number(v) for v in value)) if isinstance(value, (list, tuple)) else number(value)


def _docstring(lines: list[str]) -> list[str]:
    """A function's docstring, indented, from its lines of text (none for none)."""
    if not lines:
        return []
    if len(lines) == 1:
        return [f'    """{lines[0]}"""']
    return [f'    """{lines[0]}'] + [f"    {line}".rstrip() for line in lines[1:]] + ['    """']


def _def_lines(name: str, params: list[str]) -> list[str]:
    """``def name(params):`` (``formatting`` breaks it where it is too long)."""
    return [f"def {name}({', '.join(params)}):"]


def _join(args, p) -> str:
    return ", ".join(p(a, P_COND) for a in args)


def _one_update_per_iteration(body: list[Stmt], sums: list[str], fresh: Callable[[str], str]) -> Optional[list[Stmt]]:
    """``body`` with each sum it carries added to once, at its end: Numba's prange takes a sum
    (a reduction) only as one ``s += x`` per iteration. A sum updated several times, or by
    ``-=``, gathers into an iteration's own ``s_it`` first. None when the body reads a sum
    other than to add to it (no reduction then)."""
    updates: dict[str, list[AugAssign]] = {s: [] for s in sums}
    clean = True

    def scan(ss: list[Stmt]) -> None:
        nonlocal clean
        for st in ss:
            up = _update(st, updates)
            if up is not None:
                updates[up.target.id].append(up)  # type: ignore[attr-defined]
                clean = clean and not (set(names_in(up.value)) & set(sums))
                continue
            nested = [b for b in (getattr(st, "body", None), getattr(st, "orelse", None)) if isinstance(b, list)]
            head = stmt_names([st] if not nested else [_header_of(st)])[0]
            clean = clean and not (head & set(sums))
            for b in nested:
                scan(b)

    scan(body)
    if not clean:
        return None
    gather = {s: fresh(f"{s}_it") for s, ups in updates.items() if len(ups) > 1 or any(u.op != "+" for u in ups)}
    if not gather:
        return body

    def rename(ss: list[Stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        for st in ss:
            up = _update(st, gather)
            if up is not None and up.target.id in gather:  # type: ignore[attr-defined]
                st = AugAssign(Name(gather[up.target.id]), up.op, up.value)  # type: ignore[attr-defined]
            out.append(map_blocks(st, rename))
        return out

    return ([Assign([Name(t)], number(0.0)) for t in gather.values()] + rename(body)
            + [AugAssign(Name(s), "+", Name(t)) for s, t in gather.items()])


def _update(st: Stmt, names: dict) -> Optional[AugAssign]:
    """``st`` as ``s += x`` / ``s -= x`` for a name ``s`` of ``names`` (also when it is still
    spelled ``s = s + x``, ``s = x + s``, ``s = s - x``); else None."""
    if isinstance(st, AugAssign) and isinstance(st.target, Name) and st.target.id in names and st.op in "+-":
        return st
    if not (isinstance(st, Assign) and len(st.targets) == 1 and isinstance(st.targets[0], Name)
            and st.targets[0].id in names and isinstance(st.value, BinOp) and st.value.op in ("+", "-")):
        return None
    target, v = st.targets[0], st.value
    if v.left == target:
        return AugAssign(target, v.op, v.right)
    if v.op == "+" and v.right == target:
        return AugAssign(target, "+", v.left)
    return None


def _header_of(st: Stmt) -> Stmt:
    """What a compound statement reads outside its blocks: an ``if``'s or ``while``'s test, a
    ``for``'s bounds (as an expression statement, for ``stmt_names``)."""
    if isinstance(st, For):
        return ExprStmt(Tuple(tuple(st.args)))
    cond = getattr(st, "cond", None)
    return ExprStmt(cond) if cond is not None else Keyword("pass")


def _generic_sum_start(arg: Value, other: Value) -> Optional[Value]:
    """For ``arg + other`` with ``arg`` a value a ``for`` loop carries from 0.0 and ``other`` a
    share summed to a shape-generic parameter's shape (``sum_to_shape(t, np.shape(b))``): ``b``,
    whose shape the Numba output starts the sum at (``_generic_sums``); None otherwise."""
    loop = arg.owner.parent_op if arg.is_block_arg else None
    if loop is None or loop.name != "for" or arg.index == 0 or not _is_const(loop.operands[2 + arg.index], 0.0):
        return None
    summed = other.defining_op
    if summed is None or summed.name != PREFIX + "sum_to_shape":
        return None
    return summed.operands[1]


def _is_const(v: Value, value) -> bool:
    op = v.defining_op
    return (
        op is not None and op.name == "const" and op.attrs["value"] == value and not isinstance(op.attrs["value"], bool)
    )


def _undefined(t: Type) -> Expr:
    """The value of a variable on a path where nothing reads it (a snapshot taken only in one
    branch, ``undef`` in the other): zero, or for an array an empty array of its type, so that
    Numba, which gives a variable one type on every path, unifies the two."""
    if isinstance(t, ArrayType):
        shape = number(0) if t.rank == 1 else Tuple(tuple(number(0) for _ in range(t.rank)))
        dtype = _DTYPES.get(t.elem.name)
        return call("np.empty", shape, dtype=module_attr("np", dtype)) if dtype else call("np.empty", shape)
    return _literal(0, t)


def _literal(value, t: Type) -> Expr:
    if t.is_float:
        return number(float(value))
    if t.is_int:
        return number(int(value))
    return number(str(value) if t == STR else bool(value))


def _cast(x: Expr, src: Type, t: Type) -> Expr:
    if src.is_int and t.is_int:
        return x  # Python ints have no width
    name = getattr(t, "name", "")
    if name == "f64" and src == BOOL:  # (Numba's float() takes no boolean)
        return IfExp(x, number(1.0), number(0.0))
    if name == "f64":
        return call("float", x)
    if name == "i64":
        return call("int", x)
    if name == "bool":
        return call("bool", x)
    return call(f"np.{_DTYPES[name]}", x)


def _rem(a: Expr, b: Expr, t: Type) -> Expr:
    """C's ``%`` (the IR's ``rem``), whose sign is the dividend's where Python's ``%`` takes the divisor's.

    Floats: ``np.fmod``, which truncates as C's ``fmod`` does. Integers: C's own
    definition, ``a - b * (a / b)`` with the truncated quotient the integer ``div``
    prints (``int(a / b)``, exact below 2**53); Numba's integer ``np.fmod`` gets
    negative operands wrong, and ``math.fmod`` does not compile under Numba.
    """
    if t.is_float:
        return _math("fmod", [a, b])
    return binop("-", a, binop("*", b, call("int", BinOp("/", a, b))))


# NumPy's names of the intrinsics it spells otherwise (the rest have the intrinsic's name).
_NUMPY_UFUNC = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh",
                "atanh": "arctanh", "atan2": "arctan2", "max": "maximum", "min": "minimum", "pow": "power"}


def _math(fn: str, args: list[Expr]) -> Expr:
    """A library intrinsic as Python spells it (``mathfns``: ``py``); helpers are the emitter's."""
    spelling = MATH[fn].py
    if fn == "exp2":
        return BinOp("**", Lit("2.0"), args[0])
    if spelling is None or spelling in special.FUNCTIONS:
        raise NotImplementedError(f"Python emitter: no library spelling for math.{fn}")
    return call(spelling, *args)


# -- rendering ------------------------------------------------------------------------


class _Renderer:
    def __init__(self, namer: PyNamer, printer: Printer):
        self.namer = namer
        self.p = printer

    def render(self, stmts: list[Stmt], indent: str) -> list[str]:
        out: list[str] = []
        for s in stmts:
            out += self.stmt(s, indent)
        return out

    def block(self, stmts: list[Stmt], indent: str) -> list[str]:
        """The body of an ``if``, ``else`` or loop: ``pass`` after it where nothing but comments
        is left in it (a source line's comment whose code the gradient does not need)."""
        lines = self.render(stmts, indent)
        if all(isinstance(s, Comment) for s in stmts):
            lines.append(indent + "pass")
        return lines

    def fit(self, indent: str, roots: list[Expr], build) -> list[str]:
        """``build(roots)`` as one line, hoisting subexpressions into temporaries until it fits."""
        pre: list[str] = []
        while True:
            line = indent + build(roots)
            if len(line) <= LINE_LIMIT:
                break
            cands = sorted((cn for r in roots for cn in first_hoistable(r)), key=lambda cn: -cn[1])
            if not cands:
                break
            fitting = [c for c, size in cands if len(indent) + size + 5 <= LINE_LIMIT]
            chosen = fitting[0] if fitting else cands[0][0]
            t = Name(self.namer.temp())
            pre += self.stmt(Assign([t], chosen), indent)
            roots = [replace(r, chosen, t) for r in roots]
        return pre + [line]  # still too long (a call on many names): ``formatting`` breaks it

    def stmt(self, s: Stmt, indent: str) -> list[str]:
        p = self.p
        if isinstance(s, Comment):
            return comment_lines(indent, "#", s.text, LINE_LIMIT)
        if isinstance(s, Keyword):
            return [indent + s.text]
        if isinstance(s, Assign):
            if len(s.targets) == 1:
                # NumPy's `x = x + y` on arrays stays: `x += y` would write x's memory in place.
                aug = None if isinstance(s.value, ArrayBinOp) else augmented(s.targets[0], s.value)
                if aug is not None:
                    return self.stmt(aug, indent)
            return self._assign(s, indent)
        if isinstance(s, AugAssign):
            idx, rebuild = _target_parts(s.target)
            return self.fit(indent, idx + [s.value], lambda r: f"{p(rebuild(r[:-1]))} {s.op}= {p(r[-1])}")
        if isinstance(s, ExprStmt):
            return self.fit(indent, [s.value], lambda r: p(r[0]))
        if isinstance(s, Return):
            return self.fit(indent, s.values, lambda r: "return " + p(r[0] if len(r) == 1 else Tuple(tuple(r))))
        if isinstance(s, For):
            loop = "numba.prange" if s.parallel else "range"
            head = self.fit(indent, s.args, lambda r: f"for {s.target} in {loop}({_join(r, p)}):")
            return head + self.block(s.body, indent + "    ")
        if isinstance(s, While):
            if s.cond is None:
                return [indent + "while True:"] + self.block(s.body, indent + "    ")
            line = f"{indent}while {p(s.cond)}:"
            if len(line) > LINE_LIMIT:  # the condition is evaluated every iteration: test it inside
                return self.stmt(While(None, [If(logical_not(s.cond), [Keyword("break")])] + s.body), indent)
            return [line] + self.block(s.body, indent + "    ")
        if isinstance(s, If):
            return self._if(s, indent)
        raise TypeError(s)

    def _assign(self, s: Assign, indent: str) -> list[str]:
        p = self.p
        parts = [_target_parts(t) for t in s.targets]
        roots: list[Expr] = [i for idx, _ in parts for i in idx] + [s.value]

        def build(r: list[Expr]) -> str:
            k = 0
            targets = []
            for idx, rebuild in parts:
                targets.append(p(rebuild(r[k : k + len(idx)])))
                k += len(idx)
            return " = ".join(targets) + " = " + p(r[-1])

        return self.fit(indent, roots, build)

    def _if(self, s: If, indent: str) -> list[str]:
        p = self.p
        if s.ternary and len(s.body) == 1 and len(s.orelse) == 1:  # (an assignment dropped since: not one)
            a, b = s.body[0], s.orelse[0]
            line = f"{indent}{p(a.targets[0])} = {p(if_exp(s.cond, a.value, b.value))}"
            if len(line) <= LINE_LIMIT:
                return [line]
        out = self.fit(indent, [s.cond], lambda r: f"if {p(r[0])}:")
        out += self.block(s.body, indent + "    ")
        orelse = s.orelse
        # `else:` holding only an `if` (after comments) is an `elif`; the comments go above it.
        while (
            orelse
            and isinstance(orelse[-1], If)
            and not orelse[-1].ternary
            and all(isinstance(x, Comment) for x in orelse[:-1])
        ):
            inner = orelse[-1]
            line = f"{indent}elif {p(inner.cond)}:"
            if len(line) > LINE_LIMIT:
                break
            out += self.render(orelse[:-1], indent)
            out.append(line)
            out += self.block(inner.body, indent + "    ")
            orelse = inner.orelse
        if orelse:
            out.append(indent + "else:")
            out += self.block(orelse, indent + "    ")
        return out


def _target_parts(target: Expr):
    """An assignment target's index expressions (hoistable) and how to rebuild it from them."""
    if isinstance(target, Subscript):
        return list(target.index), lambda idx: Subscript(target.value, tuple(idx))
    if isinstance(target, Tuple):
        return [], lambda idx: target
    return [], lambda idx: target
