"""Module-level facts of a Python input file: functions, imports, numeric constants.

The contract asks that only the chosen function and its callees be supported
code, while imports are understood under any alias and module-level numeric
constants are usable inside functions. So the module is scanned once, shallowly,
without running it:

* what every top-level name may be bound to once the module has run, on every
  path through its top-level statements: straight-line statements bind in order
  (a later ``def``, import or assignment replaces an earlier one of any kind); an
  ``if`` may run either branch, a ``try`` may stop at any statement of its body and
  run a handler, a loop may run its body any number of times, a function's
  ``global`` may bind at any time. ``if __name__ == "__main__":`` is a branch like
  any other (it runs when the file is a script, not when it is imported);
* a name with one meaning on every path (one library name, however imported:
  ``math.erf`` and ``scipy.special.erf`` are one function; one number; one
  ``def``) is read as that meaning; a name whose meaning depends on the path is
  kept in ``alternatives``, and a use of it is refused where it is used (a
  decorator is judged per path by ``py_decorators``);
* top-level ``def``s;
* ``import``/``from ... import`` aliases, mapped to canonical dotted names
  (``np`` -> ``numpy``, ``e`` -> ``math.exp``), through which calls and
  annotations are resolved (``canonical_name``); ``sin = math.sin`` is an alias;
* names bound at top level to a numeric constant expression
  (``EPS = 1e-8``, ``TWO_PI = 2 * math.pi``), evaluated here without running
  the input: only literals, arithmetic and the library constants are followed;
* every other module-level name, so that a use of one inside a function gets
  an accurate error instead of "not defined".
"""

from __future__ import annotations

import builtins
import math
from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Union

import libcst as cst

from ..ssa.interp import too_wide
from ..ssa.ops import MATH_FNS
from .py_flow import children, every_node
from .py_intrinsics import CONSTANTS, INTRINSICS

Number = Union[int, float, bool]


@dataclass(frozen=True, eq=False)
class Binding:
    """One thing a top-level statement may bind a name to.

    ``kind``: ``unbound`` (``del``, or a branch that binds nothing), ``import`` (``canonical``),
    ``const`` (``value``), ``def`` (``node`` is the FunctionDef; ``scope`` the module's names when
    it ran, which its decorators see), ``lambda`` (``node``), ``class``, ``value`` (anything else;
    ``node`` is the statement, ``expr`` the assigned expression where there is one, ``how``
    says which binding form: ``loop``, ``global``, ``with``, ``except``...). ``main``: bound under
    ``if __name__ == "__main__":``.
    """

    kind: str
    node: Optional[cst.CSTNode] = None
    canonical: str = ""
    value: Optional[Number] = None
    expr: Optional[cst.BaseExpression] = None
    how: str = ""
    main: bool = False
    scope: Optional["State"] = None

    @property
    def key(self) -> tuple:
        """Bindings with equal keys mean the same for differentiation."""
        if self.kind == "unbound":
            return ("unbound",)
        if self.kind == "import":
            return _import_key(self.canonical)
        if self.kind == "const":
            return ("const", type(self.value).__name__, repr(self.value))
        return ("binding", id(self))


UNBOUND = Binding("unbound")

# Per name: its possible meanings, each key with the bindings of that meaning (a name absent is unbound).
State = dict[str, dict[tuple, tuple[Binding, ...]]]

# Library functions of other modules that are one of the functions s2sad knows, with the same
# arguments and results (elementwise ufuncs of one argument).
SAME_FUNCTION = {f"scipy.special.{f}": f"numpy.{f}" for f in ("erf", "erfc", "expm1", "log1p", "exp2", "cbrt")}


# numba.prange runs as range wherever Numba does not parallelize it, and means the same loop: read as
# range (serial) where another path binds the name to range (`except ImportError: prange = range`).
SERIAL_RANGE = ("builtins.range", "numba.prange")


def _import_key(canonical: str) -> tuple:
    """``math.erf``, ``numpy.erf`` and ``scipy.special.erf`` are one function: the same op with the
    same arity and result type (``math.floor`` gives an int and ``numpy.floor`` a float: not one;
    ``math.log(x, b)`` has a base where ``numpy.log`` has an output array: not one)."""
    if canonical in SERIAL_RANGE:
        return ("range",)
    name = SAME_FUNCTION.get(canonical, canonical)
    intr = INTRINSICS.get(name)
    if (intr is not None and name.split(".")[0] in ("math", "numpy") and intr.op in MATH_FNS
            and intr.min_args == intr.max_args == MATH_FNS[intr.op]):
        return ("function", replace(intr, numpy=False, scipy=False))  # whichever library spells it
    return ("import", canonical)


def representative(bindings: tuple[Binding, ...]) -> str:
    """The canonical name to read an import meaning as: range where one path binds range; the math
    module's where one path imports it (scalars only, which every path accepts), else numpy's, else
    the first."""
    names = [b.canonical for b in bindings]
    if SERIAL_RANGE[0] in names:
        return SERIAL_RANGE[0]
    for prefix in ("math.", "numpy."):
        for n in names:
            if n.startswith(prefix) and n in INTRINSICS:
                return n
    return names[0]


@dataclass
class ModuleInfo:
    filename: str
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)  # in source order
    imports: dict[str, str] = field(default_factory=dict)  # local name -> canonical dotted name
    star_imports: list[str] = field(default_factory=list)  # modules of `from M import *`
    constants: dict[str, Number] = field(default_factory=dict)
    other_globals: set[str] = field(default_factory=set)  # module-level names that are not constants
    classes: set[str] = field(default_factory=set)
    # Names whose meaning depends on the path the module took: every binding, unbound included.
    alternatives: dict[str, tuple[Binding, ...]] = field(default_factory=dict)
    # The binding of each function (its decorators are judged in its scope).
    function_bindings: dict[str, Binding] = field(default_factory=dict)
    # Module-level names bound once to ``logging.getLogger(...)``: their calls only log.
    loggers: set[str] = field(default_factory=set)
    # Other globals bound once, by a top-level assignment: name -> (the value, the statement).
    values: dict[str, tuple[cst.BaseExpression, cst.CSTNode]] = field(default_factory=dict)
    # Local functions lifted to module level (py_local_functions): lifted name -> (the enclosing
    # function, the local name, the enclosing variables it takes first).
    lifted: dict[str, tuple[str, str, tuple[str, ...]]] = field(default_factory=dict)
    # The dict parameters of the function differentiated that it only reads by literal keys
    # (py_dicts): the parameter's name -> (key, the parameter made for it, the default of a
    # ``.get(key, default)`` read or None), in order. Its gradient takes the dict as it is.
    entry_dicts: dict[str, list[tuple[str, str, object]]] = field(default_factory=dict)
    # The parameters of the function differentiated that default to None and are filled where it
    # starts (py_none_defaults): the parameter's name -> the value filled in, NumPy spelled np.
    # Its gradient keeps the default and starts with the same fill.
    entry_none_fills: dict[str, "cst.BaseExpression"] = field(default_factory=dict)
    # The parameters of the function differentiated that it only unpacks (py_entry_tuples): the
    # parameter's name -> the names it unpacks into, which are its parameters instead. Its
    # gradient takes the packed parameter (and its shadows packed) and unpacks them.
    entry_tuples: dict[str, list[str]] = field(default_factory=dict)

    def canonical_name(self, node: cst.BaseExpression, local_names: frozenset[str] = frozenset()) -> Optional[str]:
        """The canonical dotted name ``node`` refers to, or None when it is not a library name.

        A name bound in the function (``local_names``), a user function or a
        module-level variable is not a library name.
        """
        if isinstance(node, cst.Name):
            n = node.value
            if n in local_names or n in self.functions or n in self.constants or n in self.other_globals:
                return None
            if n in self.imports:
                return _SAME_AS.get(self.imports[n], self.imports[n])
            return _free_name(n, self.star_imports)
        if isinstance(node, cst.Attribute):
            base = self.canonical_name(node.value, local_names)
            name = f"{base}.{node.attr.value}" if base else None
            return _SAME_AS.get(name, name) if name else None
        return None


# Library functions read as another one that computes the same value: ``math.fsum`` adds exactly
# rounded, ``sum`` in order; the two differ in the last bits only, and their derivatives are one.
_SAME_AS = {"math.fsum": "builtins.sum"}


def _free_name(n: str, star_imports: list[str]) -> Optional[str]:
    """What a name no top-level statement binds refers to: a star import's, or a builtin."""
    for mod in star_imports:
        if f"{mod}.{n}" in INTRINSICS or f"{mod}.{n}" in CONSTANTS:
            return f"{mod}.{n}"
    if hasattr(builtins, n):
        return f"builtins.{n}"
    return None


def dotted_source(node: cst.BaseExpression) -> Optional[str]:
    """``np.linalg.norm`` as written, for messages; None when not a dotted name."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted_source(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _attribute_dotted(node: Union[cst.Attribute, cst.Name]) -> str:
    return dotted_source(node) or ""


def flatten(meanings: dict[tuple, tuple[Binding, ...]]) -> tuple[Binding, ...]:
    return tuple(b for bs in meanings.values() for b in bs)


def scan_module(module: cst.Module, filename: str) -> ModuleInfo:
    """The module's names with what they may be bound to once the module has run (functions run
    after that). A name with one meaning on every path is a function, an import, a constant or an
    "other" global; one whose meaning depends on the path goes to ``alternatives``."""
    scanner = _Scanner()
    state = scanner.block(module.body, {}, [], False)
    for node in every_node(module):  # a function's (or class body's) `global` may bind at any time
        if isinstance(node, cst.Global):
            for n in node.names:
                _add(state, n.name.value, Binding("value", node, how="global"))
    info = ModuleInfo(filename, star_imports=scanner.star_imports)
    order = sorted(state, key=lambda name: min(scanner.order.get(id(b), 0) for b in flatten(state[name])))
    made_by: dict[str, cst.Call] = {}  # the globals bound once to what a call returns
    for name in order:
        meanings = state[name]
        if list(meanings) == [UNBOUND.key]:
            continue
        bindings = flatten(meanings)
        if len(meanings) > 1:
            info.alternatives[name] = bindings
            info.other_globals.add(name)
            continue
        b = bindings[0]
        if b.kind == "import":
            info.imports[name] = representative(bindings)
        elif b.kind == "const":
            assert b.value is not None
            info.constants[name] = b.value
        elif (b.kind == "def" and isinstance(b.node, cst.FunctionDef) and b.node.asynchronous is None
              and b.node.name.value == name):
            info.functions[name] = b.node
            info.function_bindings[name] = b
        else:
            info.other_globals.add(name)
            if b.kind == "class":
                info.classes.add(name)
            elif isinstance(b.expr, cst.Call):
                made_by[name] = b.expr
            if b.kind == "value" and b.how == "assignment" and b.expr is not None and b.node is not None \
                    and not b.main:
                info.values[name] = (b.expr, b.node)
    info.loggers = {name for name, call in made_by.items() if info.canonical_name(call.func) == "logging.getLogger"}
    position = {name: scanner.order[id(b)] for name, b in info.function_bindings.items()}
    info.functions = dict(sorted(info.functions.items(), key=lambda kv: position[kv[0]]))
    return info


def _add(state: State, name: str, b: Binding) -> None:
    """One more meaning ``name`` may have (in place: ``state`` is not shared)."""
    meanings = dict(state.get(name) or {UNBOUND.key: (UNBOUND,)})
    have = meanings.get(b.key, ())
    meanings[b.key] = have if b in have else have + (b,)
    state[name] = meanings


def _bind(state: State, name: str, bindings: list[Binding]) -> State:
    """``state`` after a statement binds ``name`` (to one of ``bindings``): a new state."""
    meanings: dict[tuple, tuple[Binding, ...]] = {}
    for b in bindings:
        meanings[b.key] = meanings.get(b.key, ()) + (b,)
    return {**state, name: meanings}


def _join(states: list[State]) -> State:
    """Per name, every meaning it has in any of the states (unbound where a state lacks it)."""
    out: State = {}
    for name in {n: None for s in states for n in s}:
        meanings: dict[tuple, tuple[Binding, ...]] = {}
        for s in states:
            for key, bs in (s.get(name) or {UNBOUND.key: (UNBOUND,)}).items():
                have = meanings.get(key, ())
                meanings[key] = have + tuple(b for b in bs if b not in have)
        out[name] = meanings
    return out


def _same(a: State, b: State) -> bool:
    return a.keys() == b.keys() and all(a[n].keys() == b[n].keys() and a[n] == b[n] for n in a)


def _is_main_test(test: cst.BaseExpression) -> bool:
    """``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Equal)):
        return False
    sides = [test.left, test.comparisons[0].comparator]
    names = [s for s in sides if isinstance(s, cst.Name) and s.value == "__name__"]
    strings = [s for s in sides if isinstance(s, cst.SimpleString) and s.evaluated_value == "__main__"]
    return len(names) == 1 and len(strings) == 1


class _Scanner:
    """Runs the module's top-level statements over ``State``s: what each name may be bound to.

    ``trace`` collects the states at which an exception may leave a block (before each statement
    and after each binding), which an enclosing ``try`` hands to its handlers."""

    def __init__(self) -> None:
        self.order: dict[int, int] = {}  # id(binding) -> source order
        self.star_imports: list[str] = []

    def new(self, b: Binding) -> Binding:
        self.order[id(b)] = len(self.order) + 1
        return b

    def block(self, stmts, state: State, trace: list[State], main: bool) -> State:
        for stmt in stmts:
            trace.append(state)
            state = self.stmt(stmt, state, trace, main)
        return state

    def body(self, node, state: State, trace: list[State], main: bool) -> State:
        if node is None:
            return state
        return self.block(node.body if isinstance(node.body, (list, tuple)) else node.body.body, state, trace, main)

    def value(self, state: State, names: list[str], node: cst.CSTNode, how: str, main: bool) -> State:
        for n in names:
            state = _bind(state, n, [self.new(Binding("value", node, how=how, main=main))])
        return state

    def stmt(self, stmt: cst.CSTNode, state: State, trace: list[State], main: bool) -> State:
        if isinstance(stmt, cst.BaseSmallStatement):  # of a one-line suite: `try: import numba`
            return self.small(stmt, state, trace, main)
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                state = self.small(small, state, trace, main)
            return state
        if isinstance(stmt, cst.FunctionDef):
            b = Binding("def", stmt, main=main, scope=state) if stmt.asynchronous is None else \
                Binding("value", stmt, how="async def", main=main)
            return _bind(state, stmt.name.value, [self.new(b)])
        if isinstance(stmt, cst.ClassDef):
            return _bind(state, stmt.name.value, [self.new(Binding("class", stmt, main=main))])
        if isinstance(stmt, (cst.If, cst.While)):
            state = self.value(state, _walrus(stmt.test), stmt, "assignment expression", main)
        if isinstance(stmt, cst.If):
            then = self.block(stmt.body.body, state, trace, main or _is_main_test(stmt.test))
            if stmt.orelse is None:
                other = state
            elif isinstance(stmt.orelse, cst.If):
                other = self.stmt(stmt.orelse, state, trace, main)
            else:
                other = self.block(stmt.orelse.body.body, state, trace, main)
            return _join([then, other])
        if isinstance(stmt, (cst.Try, cst.TryStar)):
            inner: list[State] = []
            done = self.block(stmt.body.body, state, inner, main)
            inner.append(done)
            ends = [self.block(stmt.orelse.body.body, done, trace, main) if stmt.orelse else done]
            caught = _join(inner)
            for handler in stmt.handlers:
                start = caught
                names = _bound_names(handler.name.name) if handler.name is not None else []
                start = self.value(start, names, handler, "except", main)
                end = self.block(handler.body.body, start, trace, main)
                for n in names:  # Python deletes the `as` name when the handler ends
                    end = _bind(end, n, [UNBOUND])
                ends.append(end)
            trace.extend(inner)
            state = _join(ends)
            return self.block(stmt.finalbody.body.body, state, trace, main) if stmt.finalbody else state
        if isinstance(stmt, (cst.For, cst.While)):
            # The body runs any number of times and may stop anywhere (break, continue).
            current = state
            targets = [(n, self.new(Binding("value", stmt, how="loop", main=main)))
                       for n in (_bound_names(stmt.target) if isinstance(stmt, cst.For) else [])]
            for _ in range(100):  # the meanings only grow, and are finitely many
                entry = current
                for n, b in targets:
                    entry = _bind(entry, n, [b])
                inner = []
                end = self.block(stmt.body.body, entry, inner, main)
                new = _join([current, end, entry] + inner)
                trace.extend(inner)
                if _same(new, current):
                    break
                current = new
            if stmt.orelse is not None:
                current = _join([current, self.block(stmt.orelse.body.body, current, trace, main)])
            return current
        if isinstance(stmt, cst.With):
            for item in stmt.items:
                if item.asname is not None:
                    state = self.value(state, _bound_names(item.asname.name), stmt, "with", main)
            inner = []
            end = self.block(stmt.body.body, state, inner, main)
            trace.extend(inner)
            return _join([end] + inner)  # a context manager may swallow an exception
        if isinstance(stmt, cst.Match):
            ends = [state]
            for case in stmt.cases:
                start = self.value(state, _pattern_names(case.pattern), case, "match", main)
                ends.append(self.block(case.body.body, start, trace, main))
            return _join(ends)
        return self.value(state, _stores(stmt), stmt, "statement", main)  # what else may bind

    def small(self, small: cst.BaseSmallStatement, state: State, trace: list[State], main: bool) -> State:
        trace.append(state)
        state = self.value(state, _walrus(small), small, "assignment expression", main)
        if isinstance(small, cst.Import):
            for alias in small.names:
                dotted = _attribute_dotted(alias.name)
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    local, canonical = alias.asname.name.value, dotted
                else:
                    local = canonical = dotted.split(".")[0]
                state = _bind(state, local, [self.new(Binding("import", small, canonical=canonical, main=main))])
                trace.append(state)
        elif isinstance(small, cst.ImportFrom):
            if isinstance(small.names, cst.ImportStar):
                if not small.relative and small.module is not None:
                    self.star_imports.append(_attribute_dotted(small.module))
                return state
            mod = _attribute_dotted(small.module) if small.module is not None and not small.relative else None
            for alias in small.names:
                name = _attribute_dotted(alias.name)
                local = name
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    local = alias.asname.name.value
                b = Binding("import", small, canonical=f"{mod}.{name}", main=main) if mod else \
                    Binding("value", small, how="relative import", main=main)
                state = _bind(state, local, [self.new(b)])
                trace.append(state)
        elif isinstance(small, (cst.Assign, cst.AnnAssign)):
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            if small.value is None:
                return state  # `K: float` binds nothing
            # The value is computed before any target is bound (`K = K * 2` reads the old K).
            meanings = self.assigned(small.value, state, small, main)
            for target in targets:
                if isinstance(target, cst.Name):
                    state = _bind(state, target.value, meanings)
                else:
                    state = self.value(state, _bound_names(target), small, "assignment", main)
        elif isinstance(small, cst.AugAssign):
            state = self.value(state, _bound_names(small.target), small, "assignment", main)
        elif isinstance(small, cst.Del):
            for n in _bound_names(small.target):
                state = _bind(state, n, [UNBOUND])
        return state

    def assigned(self, value: cst.BaseExpression, state: State, stmt: cst.CSTNode, main: bool) -> list[Binding]:
        """What ``name = value`` binds: a number, an alias of a library name (``sin = math.sin``,
        ``jit = numba.njit``: one import per path on which the base is one), a lambda, else a value."""
        const = _evaluate(value, _StateNames(state, self.star_imports))
        if const is not None:
            return [self.new(Binding("const", stmt, value=const, main=main))]
        if isinstance(value, cst.Lambda):
            return [self.new(Binding("lambda", value, main=main))]
        dotted = dotted_source(value)
        if dotted is not None:
            root, *rest = dotted.split(".")
            if root in state:
                # Unbound (NameError) or None (AttributeError): the assignment raises, a path that ends here.
                bases = [b for b in flatten(state[root]) if not (b.kind == "unbound" or rest and _is_none(b))]
                if bases and all(b.kind == "import" for b in bases):
                    return [self.new(Binding("import", stmt, canonical=".".join([b.canonical] + rest), main=main))
                            for b in bases]
                if not rest and bases and all(b.kind in ("def", "lambda") for b in bases):
                    return bases  # another name for the same function(s)
            else:
                canonical = _free_name(root, self.star_imports)
                if canonical is not None and canonical != "builtins.None":
                    return [self.new(Binding("import", stmt, canonical=".".join([canonical] + rest), main=main))]
        return [self.new(Binding("value", stmt, expr=value, how="assignment", main=main))]


def _is_none(b: Binding) -> bool:
    return b.kind == "value" and isinstance(b.expr, cst.Name) and b.expr.value == "None"


class _StateNames:
    """Constants and library names as a ``State`` has them, for evaluating a constant expression."""

    def __init__(self, state: State, star_imports: list[str]):
        self.state = state
        self.star_imports = star_imports

    def constant(self, name: str) -> Optional[Number]:
        meanings = self.state.get(name)
        if meanings is not None and len(meanings) == 1:
            b = flatten(meanings)[0]
            return b.value if b.kind == "const" else None
        return None

    def canonical(self, node: cst.BaseExpression) -> Optional[str]:
        if isinstance(node, cst.Name):
            meanings = self.state.get(node.value)
            if meanings is None:
                return _free_name(node.value, self.star_imports)
            bindings = flatten(meanings)
            return representative(bindings) if len(meanings) == 1 and bindings[0].kind == "import" else None
        if isinstance(node, cst.Attribute):
            base = self.canonical(node.value)
            return f"{base}.{node.attr.value}" if base else None
        return None


class _InfoNames:
    def __init__(self, info: ModuleInfo):
        self.info = info

    def constant(self, name: str) -> Optional[Number]:
        return self.info.constants.get(name)

    def canonical(self, node: cst.BaseExpression) -> Optional[str]:
        return self.info.canonical_name(node)


def _walrus(node: cst.CSTNode) -> list[str]:
    """Names an assignment expression in ``node`` binds in the module (a lambda's are its own; a
    comprehension's bind in the module too)."""
    out: list[str] = []

    def visit(n: cst.CSTNode) -> None:
        if isinstance(n, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            return
        if isinstance(n, cst.NamedExpr):
            out.extend(_bound_names(n.target))
        for child in children(n):
            visit(child)

    visit(node)
    return out


def _pattern_names(pattern: cst.CSTNode) -> list[str]:
    out: list[str] = []
    for n in every_node(pattern):
        if isinstance(n, (cst.MatchAs, cst.MatchStar)) and n.name is not None:
            out.append(n.name.value)
        elif isinstance(n, cst.MatchMapping) and n.rest is not None:
            out.append(n.rest.value)
    return out


def _stores(stmt: cst.CSTNode) -> list[str]:
    """Names a statement the scanner does not follow may bind in the module's namespace (not inside
    the functions or classes it defines, which are their own scopes)."""
    out: list[str] = []

    def visit(node: cst.CSTNode) -> None:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            out.append(node.name.value)
            return
        if isinstance(node, cst.Lambda):
            return
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = ([t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target])
            for t in targets:
                out.extend(_bound_names(t))
        elif isinstance(node, (cst.For, cst.CompFor)):
            out.extend(_bound_names(node.target))
        elif isinstance(node, cst.AsName) and isinstance(node.name, (cst.Name, cst.Tuple, cst.List)):
            out.extend(_bound_names(node.name))
        elif isinstance(node, cst.NamedExpr):
            out.extend(_bound_names(node.target))
        elif isinstance(node, cst.Import):
            out.extend(a.asname.name.value if a.asname is not None and isinstance(a.asname.name, cst.Name)
                       else _attribute_dotted(a.name).split(".")[0] for a in node.names)
        elif isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
            out.extend(a.asname.name.value if a.asname is not None and isinstance(a.asname.name, cst.Name)
                       else _attribute_dotted(a.name) for a in node.names)
        elif isinstance(node, cst.Del):
            out.extend(_bound_names(node.target))
        for child in children(node):
            visit(child)

    visit(stmt)
    return out


def _bound_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _bound_names(el.value)]
    if isinstance(target, cst.StarredElement):
        return _bound_names(target.value)
    return []


# Integers folded at translation time stay below this many bits (``interp.too_wide``):
# ``BIG = 9 ** 9 ** 9``, a name no function reads, would otherwise take hours.
FOLD_BITS = 4096


def _bounded(name: str, fn: Callable[[Number, Number], Number]) -> Callable[[Number, Number], Number]:
    def run(a: Number, b: Number) -> Number:
        if too_wide(name, a, b, FOLD_BITS):
            raise OverflowError("too large to fold")
        return fn(a, b)
    return run


_BINARY = {
    cst.Add: lambda a, b: a + b, cst.Subtract: lambda a, b: a - b, cst.Multiply: _bounded("mul", lambda a, b: a * b),
    cst.Divide: lambda a, b: a / b, cst.FloorDivide: lambda a, b: a // b,
    cst.Modulo: lambda a, b: a % b, cst.Power: _bounded("pow", lambda a, b: a**b),
}

# Library functions a constant may call (evaluated with Python's math module).
_CONST_CALLS = {
    "math.sqrt": math.sqrt, "math.exp": math.exp, "math.log": math.log, "math.sin": math.sin,
    "math.cos": math.cos, "math.tan": math.tan, "math.atan": math.atan, "math.log10": math.log10,
    "math.log2": math.log2, "numpy.sqrt": math.sqrt, "numpy.exp": math.exp, "numpy.log": math.log,
    "builtins.float": float, "builtins.int": int, "builtins.abs": abs,
}


def evaluate_constant(node: Optional[cst.BaseExpression], info: ModuleInfo) -> Optional[Number]:
    """The value of a numeric constant expression, or None when it is not one."""
    return _evaluate(node, _InfoNames(info))


def _evaluate(node: Optional[cst.BaseExpression], names) -> Optional[Number]:
    try:
        value = _eval(node, names)
    except (ArithmeticError, ValueError, TypeError):
        return None
    if isinstance(value, complex):
        return None
    return value


def _eval(node: Optional[cst.BaseExpression], names) -> Optional[Number]:
    if isinstance(node, (cst.Integer, cst.Float)):
        return node.evaluated_value
    if isinstance(node, cst.Name):
        if node.value in ("True", "False"):
            return node.value == "True"
        return names.constant(node.value)
    if isinstance(node, cst.Attribute):
        canonical = names.canonical(node)
        return CONSTANTS.get(canonical) if canonical else None
    if isinstance(node, cst.UnaryOperation):
        x = _eval(node.expression, names)
        if x is None:
            return None
        if isinstance(node.operator, cst.Minus):
            return -x
        if isinstance(node.operator, cst.Plus):
            return +x
        return None
    if isinstance(node, cst.BinaryOperation):
        fn = _BINARY.get(type(node.operator))
        a, b = _eval(node.left, names), _eval(node.right, names)
        if fn is None or a is None or b is None:
            return None
        return fn(a, b)
    if isinstance(node, cst.Call):
        fn = _CONST_CALLS.get(names.canonical(node.func) or "")
        if fn is None or any(a.keyword is not None or a.star for a in node.args):
            return None
        args = [_eval(a.value, names) for a in node.args]
        if any(a is None for a in args) or not args:
            return None
        return fn(*args)
    return None
