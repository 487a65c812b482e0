"""Local functions (``def g(t): ...`` inside a function, ``f = lambda t: ...``), lifted out.

A local function that the enclosing function only calls is the same computation as a
module-level function that takes, besides its own parameters, the enclosing variables it reads
(its *captures*): each call passes them, first, as they are at the call. That is lambda
lifting; the lifted function is then a helper like any other (its own ``grad_<name>``, or
inlined by ``-O2``), so nothing downstream knows local functions exist.

What Python's closure reads is the variable's value at the call; the lifted call passes the
same value, and an array by reference, as the closure shares it. Lifting is done only where
that is plainly so, and each other case is a located error:

* the local function is bound once, at the top level of the enclosing body (not in an ``if``
  or a loop), and only called there (``g(x)``; not passed to ``map``, ``sorted(key=...)``);
* each capture is assigned only before the definition (the brief's "values that do not change
  after it"), and no comprehension of the enclosing function binds its name (a capture passed
  inside that comprehension would read the comprehension's variable instead);
* the local function has no decorator, and its default values are numbers.

Local functions may call each other and themselves: a caller captures what its callees capture.

The syntax trees are rewritten, and the new nodes are given the positions of those they stand
for (``positions``), so that every located error points into the file as written. The lifted
function's name is the local one where no other name of the module is spelled so, else
``<enclosing>_<local>``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional, Union

import libcst as cst

from ..diagnostics import Diagnostic
from .py_common import Locator
from .py_flow import children, read_names, stmt_assigned, suite_statements, walk
from .py_module import ModuleInfo, evaluate_constant
from .py_params import parameters

LocalDef = Union[cst.FunctionDef, cst.Lambda]


@dataclass
class _Local:
    """One local function: its name in the enclosing function, its definition (the ``def`` or
    the lambda), the statement that binds it and that statement's place in the body."""

    name: str
    node: LocalDef
    stmt: cst.CSTNode
    index: int
    captures: list[str] = field(default_factory=list)
    lifted: str = ""


def lift_local_functions(info: ModuleInfo, locator: Locator
                         ) -> tuple[dict[cst.CSTNode, object], dict[str, list[Diagnostic]]]:
    """Lift the local functions of every function of ``info`` (in place: ``info.functions`` gets
    the lifted ones, each just before its enclosing function, and the rewritten enclosing
    functions). Returns the positions of the new nodes and the problems, by enclosing function
    (an enclosing function with problems is left as it is)."""
    positions: dict[cst.CSTNode, object] = {}
    problems: dict[str, list[Diagnostic]] = {}
    found_locals = {name: _locals(fn) for name, fn in info.functions.items()}
    if not any(found_locals.values()):
        return positions, problems
    out: dict[str, cst.FunctionDef] = {}
    taken = set(info.functions) | set(info.imports) | set(info.constants) | set(info.other_globals) | set(info.classes)
    spelled = _names_by_function(info)
    for name, fn in info.functions.items():
        locals_ = found_locals[name]
        if not locals_:
            out[name] = fn
            continue
        found = _check(name, fn, locals_, info, locator)
        if found:
            problems[name] = found
            out[name] = fn
            continue
        elsewhere = set().union(*(names for other, names in spelled.items() if other != name))
        for local in locals_:
            local.lifted = _fresh(local.name, name, taken | elsewhere)
            taken.add(local.lifted)
        rewriter = _Rewriter({lc.name: lc for lc in locals_}, locator.positions, positions)
        annotated = {p.name.value: p.annotation for p in parameters(fn) if p.annotation is not None}
        for local in locals_:
            out[local.lifted] = _lifted(local, rewriter, annotated, locator.positions, positions)
            info.lifted[local.lifted] = (name, local.name, tuple(local.captures))
        out[name] = _enclosing(fn, locals_, rewriter, locator.positions, positions)
    info.functions.clear()
    info.functions.update(out)
    return positions, problems


def _names_by_function(info: ModuleInfo) -> dict[str, set[str]]:
    """Every name spelled in each function (a lifted name must not be one a function reads)."""
    return {name: {n.value for n in _all_nodes(fn) if isinstance(n, cst.Name)} for name, fn in info.functions.items()}


def _all_nodes(node: cst.CSTNode):
    """Every node under ``node``, nested scopes included (``py_flow.walk`` stops at them)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(children(n))


def _locals(fn: cst.FunctionDef) -> list[_Local]:
    """The local functions bound at the top level of ``fn``'s body."""
    out = []
    for k, st in enumerate(suite_statements(fn.body)):
        if isinstance(st, cst.FunctionDef):
            out.append(_Local(st.name.value, st, st, k))
        elif isinstance(st, cst.Assign) and len(st.targets) == 1 and isinstance(st.targets[0].target, cst.Name) \
                and isinstance(st.value, cst.Lambda):
            out.append(_Local(st.targets[0].target.value, st.value, st, k))
    return out


def _check(name: str, fn: cst.FunctionDef, locals_: list[_Local], info: ModuleInfo, locator: Locator
           ) -> list[Diagnostic]:
    """What stops lifting ``fn``'s local functions (nothing: they get their captures)."""
    problems: list[Diagnostic] = []
    stmts = suite_statements(fn.body)
    by_name = {lc.name: lc for lc in locals_}
    params = [p.name.value for p in parameters(fn)]
    binders: dict[str, int] = {}
    for st in stmts:
        for n in stmt_assigned(st):
            binders[n] = binders.get(n, 0) + 1
        if isinstance(st, cst.FunctionDef):
            binders[st.name.value] = binders.get(st.name.value, 0) + 1
    comprehension_names = {n for node in _all_nodes(fn.body) if isinstance(node, cst.CompFor)
                           for n in _target_names(node.target)}
    enclosing = (set(params) | set(binders)) - set(by_name)
    reported: set[str] = set()
    for lc in locals_:
        where = lc.node.name if isinstance(lc.node, cst.FunctionDef) else lc.stmt
        if (binders.get(lc.name, 0) > 1 or lc.name in params) and lc.name not in reported:
            reported.add(lc.name)
            problems.append(locator.diagnostic(
                where, f"the local function '{lc.name}' is bound more than once in '{name}'",
                hint=f"give the function and the other value of '{lc.name}' different names"))
        if isinstance(lc.node, cst.FunctionDef) and lc.node.decorators:
            problems.append(locator.diagnostic(
                lc.node.decorators[0], f"a decorator on the local function '{lc.name}' is not supported",
                hint="remove the decorator, or define the function at the top level of the file"))
        for p in parameters_of(lc.node):
            if p.default is not None and evaluate_constant(p.default, info) is None:
                problems.append(locator.diagnostic(
                    p.default, f"the default value of parameter '{p.name.value}' of the local function '{lc.name}' "
                    "is not a number", hint="give it a numeric default, or pass the value explicitly"))
        own = ({p.name.value for p in parameters_of(lc.node)} | set(_assigned_in(lc.node))
               | _comprehension_bound(lc.node))
        reads = (read_names(lc.node.body) | _default_reads(lc.node)) - own
        lc.captures = sorted(reads & enclosing, key=lambda n: (params + list(binders)).index(n))
        for captured in lc.captures:
            later = next((st for st in stmts[lc.index + 1:] if captured in stmt_assigned(st)), None)
            if later is not None:
                problems.append(locator.diagnostic(
                    _binding_target(later, captured) or later,
                    f"'{captured}' is assigned after the local function '{lc.name}' that reads it is defined",
                    hint=f"assign {captured} before defining {lc.name}, or pass it to {lc.name} as a parameter"))
            elif captured in comprehension_names:
                problems.append(locator.diagnostic(
                    where, f"the local function '{lc.name}' reads '{captured}', which a comprehension of '{name}' "
                    "binds as well", hint="rename the comprehension's variable"))
    # Where each local function is used: only called, in the enclosing body or another local function.
    scopes: list[cst.CSTNode] = [st for st in stmts if not any(st is lc.stmt for lc in locals_)]
    scopes += [lc.node.body for lc in locals_]
    for scope in scopes:
        called = {id(n.func) for n in _all_nodes(scope) if isinstance(n, cst.Call)}
        # passed to a function of the file: a function argument (py_function_args), as a lambda
        called |= {id(a.value) for n in _all_nodes(scope) if isinstance(n, cst.Call) and isinstance(n.func, cst.Name)
                   and n.func.value in info.functions and n.func.value not in by_name for a in n.args if not a.star}
        for n in _all_nodes(scope):
            if isinstance(n, cst.Name) and n.value in by_name and id(n) not in called:
                if any(n is t for st in stmts for t in _targets(st)):
                    continue
                problems.append(locator.diagnostic(
                    n, f"the local function '{n.value}' is used here other than in a call, which is not supported",
                    hint=f"call it ({n.value}(...)), or write the loop that map, sorted or filter would run"))
    # A local function captures what the local functions it calls capture.
    changed = True
    while changed:
        changed = False
        for lc in locals_:
            calls = {n.func.value for n in _all_nodes(lc.node.body)
                     if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value in by_name}
            for callee in calls:
                for c in by_name[callee].captures:
                    if c not in lc.captures:
                        lc.captures.append(c)
                        changed = True
    return problems


def parameters_of(node: LocalDef) -> list[cst.Param]:
    params = node.params
    return [*params.params, *params.kwonly_params]


def _assigned_in(node: LocalDef) -> list[str]:
    if isinstance(node, cst.Lambda):
        return []
    return [n for st in suite_statements(node.body) for n in stmt_assigned(st)]


def _comprehension_bound(node: LocalDef) -> set[str]:
    return {n for c in _all_nodes(node.body) if isinstance(c, cst.CompFor) for n in _target_names(c.target)}


def _default_reads(node: LocalDef) -> set[str]:
    return {n.value for p in parameters_of(node) if p.default is not None
            for n in _all_nodes(p.default) if isinstance(n, cst.Name)}


def _target_names(target: cst.CSTNode) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _target_names(el.value)]
    return []


def _targets(st: cst.CSTNode) -> list[cst.CSTNode]:
    """The name nodes a statement binds a local function to (a def's name, a lambda's target)."""
    if isinstance(st, cst.FunctionDef):
        return [st.name]
    if isinstance(st, cst.Assign):
        return [t.target for t in st.targets]
    return []


def _binding_target(st: cst.CSTNode, name: str) -> Optional[cst.CSTNode]:
    """The node that binds ``name`` in ``st`` (for the error's caret)."""
    for n in walk(st):
        if isinstance(n, cst.Name) and n.value == name:
            return n
    return None


def _fresh(local: str, enclosing: str, taken: set[str]) -> str:
    if local not in taken:
        return local
    base = f"{enclosing}_{local}"
    name, k = base, 2
    while name in taken:
        name, k = f"{base}_{k}", k + 1
    return name


class _Rewriter(cst.CSTTransformer):
    """Calls of local functions become calls of the lifted ones with their captures first;
    every node rebuilt on the way keeps the position of the one it replaces."""

    def __init__(self, locals_: dict[str, _Local], old: Mapping, new: dict):
        super().__init__()
        self.locals = locals_
        self.old = old
        self.new = new

    def position(self, node: cst.CSTNode):
        return self.new.get(node) or self.old.get(node)

    def on_leave(self, original_node, updated_node):
        result = super().on_leave(original_node, updated_node)
        if isinstance(result, cst.CSTNode) and result is not original_node:
            pos = self.position(original_node)
            if pos is not None:
                self.new.setdefault(result, pos)
        return result

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        """A local function passed to a function of the file (``_check``): the lifted one, or a
        lambda passing it its captures (py_function_args lifts that in turn)."""
        value = original_node.value
        if not (isinstance(value, cst.Name) and value.value in self.locals) or original_node.star:
            return updated_node
        local = self.locals[value.value]
        pos = self.position(value)
        made: cst.BaseExpression = cst.Name(local.lifted)
        if local.captures:
            own = [p.name.value for p in parameters_of(local.node)]
            made = cst.Lambda(cst.Parameters([cst.Param(cst.Name(p)) for p in own]),
                              cst.Call(made, [cst.Arg(cst.Name(n)) for n in [*local.captures, *own]]))
        for n in _all_nodes(made):
            self.new[n] = pos
        return updated_node.with_changes(value=made)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        func = original_node.func
        if not (isinstance(func, cst.Name) and func.value in self.locals):
            return updated_node
        local = self.locals[func.value]
        pos = self.position(func)
        name = cst.Name(local.lifted)
        args = []
        for c in local.captures:
            arg = cst.Arg(cst.Name(c))
            self.new[arg] = self.new[arg.value] = pos
            args.append(arg)
        self.new[name] = pos
        return updated_node.with_changes(func=name, args=[*args, *updated_node.args])


def _lifted(local: _Local, rewriter: _Rewriter, annotated: dict[str, cst.Annotation], old: Mapping, new: dict
            ) -> cst.FunctionDef:
    """The module-level function ``local`` becomes: its captures, then its own parameters. A
    capture of an annotated parameter keeps the annotation (``x: "f64[n]"``): what the enclosing
    function says of it holds in the local function too."""
    node = local.node
    where = rewriter.position(node.name if isinstance(node, cst.FunctionDef) else local.stmt)
    captured = []
    for c in local.captures:
        p = cst.Param(cst.Name(c), annotation=annotated.get(c))
        new[p] = new[p.name] = where
        captured.append(p)
    params = node.params.with_changes(params=[*captured, *node.params.params])
    new[params] = where
    name = cst.Name(local.lifted)
    new[name] = where
    if isinstance(node, cst.FunctionDef):
        body = node.body.visit(rewriter)
        fn = node.with_changes(name=name, params=params, body=body)
        new[fn] = old.get(node)
        return fn
    value = node.body.visit(rewriter)
    ret = cst.Return(value)
    line = cst.SimpleStatementLine([ret])
    block = cst.IndentedBlock([line])
    new[ret] = old.get(node.body)
    new[line] = new[block] = old.get(local.stmt)
    fn = cst.FunctionDef(name=name, params=params, body=block)
    new[fn] = old.get(local.stmt)
    return fn


def _enclosing(fn: cst.FunctionDef, locals_: list[_Local], rewriter: _Rewriter, old: Mapping, new: dict
               ) -> cst.FunctionDef:
    """``fn`` without its local functions' definitions, calling the lifted ones."""
    defining = {id(lc.stmt) for lc in locals_}
    kept = []
    for st in fn.body.body:  # type: ignore[union-attr]
        if id(st) in defining:
            continue
        if isinstance(st, cst.SimpleStatementLine) and any(id(small) in defining for small in st.body):
            rest = [small for small in st.body if id(small) not in defining]
            if not rest:
                continue
            line = st.with_changes(body=rest)
            new[line] = old.get(st)
            st = line
        kept.append(st.visit(rewriter))
    body = fn.body.with_changes(body=kept)
    new[body] = old.get(fn.body)
    out = fn.with_changes(body=body)
    new[out] = old.get(fn)
    return out
