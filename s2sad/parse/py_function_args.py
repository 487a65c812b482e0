"""Function arguments: a helper that calls a parameter, one instance per function passed to it.

Numerical code passes functions around: a quadrature rule takes its integrand
(``trapezoid(f, a, b)``), an ODE stepper its right-hand side and that side's extra arguments
(``rk4_step(f, y, dt, *args)``), often a lambda reading the caller's variables
(``trapezoid(lambda x: g(x, k), 0.0, b)``). The IR has no function values; but a helper called with
a function that is known where the call is written computes the same as a copy of the helper that
calls that function by name. So, from the function differentiated down, a call of a helper of the
file that gives each of its *function parameters* (parameters it only calls, or passes on to
helpers) a function, and its ``*args`` (only spread into calls, counted with ``len`` or read at a
constant index) values, calls an instance of the helper in which:

* a function of the file, or of a library (``np.sin``), is called by name (``f(y)`` becomes
  ``lotka_volterra(y)``);
* a lambda is lifted to a function of the file taking the caller's variables it reads (its
  captures) first, then its own parameters (``<caller>_lambda``); the instance takes those
  captures where the function parameter was (``<param>_<capture>``) and passes them on each call,
  and the call passes the caller's variables. Python's closure reads them when it is called, and
  while the helper runs the caller cannot change them: the same values;
* ``*args`` given n values is n parameters ``args_0``...: spread where it was spread (``f(y,
  *args)``: ``f(y, args_0, args_1)``), ``len(args)`` is n, ``args[1]`` is ``args_1``.

One instance per helper, functions passed (their captures counted) and count of ``*args`` values,
named ``<helper>_<function>`` (``rk4_step_lotka_volterra``), free of every name of the file, and
placed after the helper. A call passing anything else there (a variable holding a function,
``*seq``) is left as it is, and refused where it is lowered. The instances' nodes are copies of the
helper's, placed where those are, so a located error points into the file as written.
"""

from __future__ import annotations

from collections import ChainMap
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from .py_flow import all_names, children, fresh_name, stmt_assigned
from .py_module import ModuleInfo
from .py_params import parameters
from .py_spellings import PlacedRewriter

# Instances made for one file at most: a helper passing itself a new lambda each time it recurses
# would make them without end (the calls past this are left as written, and refused).
_MOST_INSTANCES = 200


@dataclass(frozen=True)
class _Helper:
    """What a helper takes: its parameters in order (``positional`` of them by position), those it
    only calls or passes on (``functions``), and its ``*args`` where it is only spread, counted or
    read at a constant index (``star``)."""

    names: tuple[str, ...]
    positional: int
    functions: frozenset[str]
    star: Optional[str]


@dataclass
class _Function:
    """A function passed: the expression that calls it and the expressions passed first to it on
    each call (a lifted lambda's captures), with the names they are best known by."""

    callee: cst.BaseExpression
    spelled: str
    captures: list[cst.BaseExpression] = field(default_factory=list)
    capture_names: list[str] = field(default_factory=list)


@dataclass
class _Instance:
    name: str
    helper: str
    functions: dict[str, _Function]  # function parameter -> the function passed
    count: Optional[int]  # values given to *args (None: it has none)
    capture_params: dict[str, list[str]]  # function parameter -> the parameters its captures take


def specialize_function_arguments(info: ModuleInfo, positions, entry: str) -> dict[cst.CSTNode, object]:
    """Replace, in ``entry`` and every function it reaches, each call that passes functions to a
    helper by a call of the helper's instance for them (``info.functions`` gets the instances and
    the lifted lambdas); the positions of the new nodes."""
    helpers = _helpers(info, entry)
    if not helpers:
        return {}
    pass_ = _Specializer(info, positions, helpers)
    pass_.run(entry)
    return pass_.new_positions


def _helpers(info: ModuleInfo, entry: str) -> dict[str, _Helper]:
    """The functions of the file (not ``entry``, whose callers are outside it) that take functions
    or ``*args`` values. A function parameter is one only called, or passed on where a helper
    takes a function parameter: from those that are only called or passed, the ones passed
    elsewhere are dropped until none is."""
    uses: dict[str, dict[str, list[tuple]]] = {}
    shapes: dict[str, tuple[list[str], int, Optional[str]]] = {}
    for name, fn in info.functions.items():
        if name == entry:
            continue
        names = [p.name.value for p in parameters(fn)]
        star = fn.params.star_arg.name.value if isinstance(fn.params.star_arg, cst.Param) else None
        shapes[name] = (names, len(fn.params.params), star)
        found: dict[str, list[tuple]] = {n: [] for n in [*names, *([star] if star else [])]}
        parents: dict[cst.CSTNode, cst.CSTNode] = {}
        for parent in _all_nodes(fn.body):
            for child in children(parent):
                parents[child] = parent
                if isinstance(child, cst.Name) and child.value in found:
                    found[child.value].append(_use(child, parent, parents.get(parent), info))
        for n in set(stmt_assigned(fn.body)) & set(found):
            found[n].append(("other",))
        uses[name] = found
    candidates = {name: {p for p in shapes[name][0] if uses[name][p]
                         and all(u[0] in ("called", "passed") for u in uses[name][p])} for name in uses}

    def lands(use: tuple) -> bool:
        if use[0] != "passed" or use[1] not in shapes:
            return use[0] == "called"
        names, positional, _ = shapes[use[1]]
        at = use[2]
        param = at if isinstance(at, str) else (names[at] if at < positional else None)
        return param in candidates[use[1]]

    changed = True
    while changed:
        changed = False
        for name, params in candidates.items():
            for p in [p for p in params if not all(lands(u) for u in uses[name][p])]:
                params.discard(p)
                changed = True
    out = {}
    for name, (names, positional, star) in shapes.items():
        spread = star is not None and bool(uses[name][star]) \
            and all(u[0] in ("spread", "counted", "indexed") for u in uses[name][star])
        if candidates[name] or spread:
            out[name] = _Helper(tuple(names), positional, frozenset(candidates[name]), star if spread else None)
    return out


def _use(name: cst.Name, parent: cst.CSTNode, call: Optional[cst.CSTNode], info: ModuleInfo) -> tuple:
    """How ``parent`` (in ``call``) uses ``name``: called; passed (an argument of a call of a
    function of the file: that function, and the argument's position or keyword); spread
    (``*name`` in a call); counted (``len(name)``); indexed (at an integer); or other."""
    if isinstance(parent, cst.Call) and parent.func is name:
        return ("called",)
    if isinstance(parent, cst.Arg) and parent.value is name and isinstance(call, cst.Call):
        if parent.star == "*":
            return ("spread",)
        if parent.star == "" and _is_name(call.func, "len") and len(call.args) == 1:
            return ("counted",)
        if parent.star == "" and isinstance(call.func, cst.Name) and call.func.value in info.functions:
            if parent.keyword is not None:
                return ("passed", call.func.value, parent.keyword.value)
            before = call.args[:next(k for k, a in enumerate(call.args) if a is parent)]
            if all(a.keyword is None and not a.star for a in before):
                return ("passed", call.func.value, len(before))
    if isinstance(parent, cst.Subscript) and parent.value is name and _constant_index(parent) is not None:
        return ("indexed",)
    return ("other",)


def _all_nodes(node: cst.CSTNode):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(children(n))


def _constant_index(sub: cst.Subscript) -> Optional[int]:
    if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
        return None
    value = sub.slice[0].slice.value
    if isinstance(value, cst.Integer):
        return int(value.evaluated_value)
    return None


class _Specializer:
    """The worklist: functions to rewrite (from the entry down), instances made, lambdas lifted."""

    def __init__(self, info: ModuleInfo, positions, helpers: dict[str, _Helper]):
        self.info = info
        self.positions = positions
        self.new_positions: dict[cst.CSTNode, object] = {}
        self.helpers = helpers
        self.taken = {n.value for fn in info.functions.values() for n in all_names(fn)} | set(info.functions) \
            | set(info.imports) | set(info.constants) | set(info.other_globals) | set(info.classes)
        self.instances: dict[tuple, _Instance] = {}
        self.pending: dict[str, _Instance] = {}
        self.after: dict[str, list[str]] = {}  # a function -> the functions made to follow it
        self.before: dict[str, list[str]] = {}  # a function -> the lifted lambdas placed before it
        self.made: dict[str, cst.FunctionDef] = {}
        self.work: list[str] = []

    def run(self, entry: str) -> None:
        done: set[str] = set()
        self.work.append(entry)
        while self.work:
            name = self.work.pop()
            if name in done:
                continue
            done.add(name)
            star: Optional[str] = None
            if name in self.pending:
                inst = self.pending.pop(name)
                fn, bound = self._instance(name, inst)
                count, star = inst.count, self.helpers[inst.helper].star
            else:
                fn, bound, count = self.made.get(name) or self.info.functions[name], {}, None
            rewriter = _CallRewriter(self, name, fn, bound, star, count)
            out = fn.visit(rewriter)
            if name in self.made or rewriter.changed:
                self.made[name] = out
            self.work += [n.func.value for n in _all_nodes(out) if isinstance(n, cst.Call)
                          and isinstance(n.func, cst.Name) and (n.func.value in self.info.functions
                                                                or n.func.value in self.pending)]
        self._place_made()

    def _place_made(self) -> None:
        out: dict[str, cst.FunctionDef] = {}
        for name, fn in self.info.functions.items():
            for lifted in self.before.get(name, []):
                out[lifted] = self.made[lifted]
            out[name] = self.made.get(name, fn)  # type: ignore[assignment]
            for instance in self.after.get(name, []):
                out[instance] = self.made[instance]
        for name, fn in self.made.items():  # made for a function made itself
            out.setdefault(name, fn)
        self.info.functions.clear()
        self.info.functions.update(out)

    def instance_of(self, helper: str, functions: dict[str, _Function], count: Optional[int]
                    ) -> Optional[_Instance]:
        """``helper``'s instance for these functions and ``*args`` count, and its name (made the
        first time: rewritten when the worklist reaches it); None past the most instances."""
        key = (helper, tuple((p, cst.Module([]).code_for_node(f.callee), len(f.captures))
                             for p, f in sorted(functions.items())), count)
        if key in self.instances:
            return self.instances[key]
        if len(self.instances) >= _MOST_INSTANCES:
            return None
        order = self.helpers[helper].names
        parts = [f.spelled for _, f in sorted(functions.items(), key=lambda kv: order.index(kv[0]))]
        if count is not None and not parts:
            parts = [f"{count}args"]
        name = fresh_name("_".join([helper, *parts]), self.taken)
        spelled = {n.value for n in all_names(self.info.functions[helper])} | self.taken
        captures = {p: [fresh_name(f"{p}_{c}", spelled) for c in f.capture_names] for p, f in functions.items()}
        inst = self.instances[key] = _Instance(name, helper, functions, count, captures)
        self.pending[name] = inst
        self.after.setdefault(self._placed_after(helper), []).append(name)
        return inst

    def _placed_after(self, name: str) -> str:
        for source, made in self.after.items():
            if name in made:
                return source
        return name

    def lift(self, caller: str, node: cst.Lambda, local: set[str]) -> Optional[_Function]:
        """``node`` as a function of the file: its captures (the caller's variables it reads)
        first, then its own parameters; None where it has parameters other than plain ones."""
        params = node.params
        if params.star_arg not in (cst.MaybeSentinel.DEFAULT, None) or params.kwonly_params \
                or params.star_kwarg is not None or params.posonly_params:
            return None
        own = [p.name.value for p in params.params]
        body = node.body
        if isinstance(body, cst.Call) and isinstance(body.func, cst.Name) and body.func.value in self.info.functions \
                and all(not a.star and a.keyword is None and isinstance(a.value, cst.Name) for a in body.args):
            passed = [a.value.value for a in body.args]  # type: ignore[attr-defined]
            first = passed[:len(passed) - len(own)]
            if passed[len(first):] == own and not set(first) & set(own) and set(first) <= local:
                # lambda x: g(c, x): g itself, passed c first (a local function lifted so)
                return _Function(body.func, body.func.value, [cst.Name(c) for c in first], first)
        captures = sorted({n.value for n in all_names(node.body)} & (local - set(own)))
        name = fresh_name(f"{caller}_lambda", self.taken)
        at = self.new_positions.get(node) or self.positions.get(node)
        made_params = []
        for c in captures:
            p = cst.Param(cst.Name(c))
            made_params.append(self._at(p, at, whole=True))
        ret = cst.Return(node.body)
        block = cst.IndentedBlock([cst.SimpleStatementLine([ret])])
        fn = cst.FunctionDef(name=cst.Name(name), params=params.with_changes(params=[*made_params, *params.params]),
                             body=block)
        for n in (ret, block, block.body[0], fn, fn.name, fn.params):
            self._at(n, at)
        self.made[name] = fn
        self.before.setdefault(self._placed_before(caller), []).append(name)
        self.work.append(name)
        return _Function(self._at(cst.Name(name), at), name, [self._at(cst.Name(c), at) for c in captures], captures)

    def _placed_before(self, caller: str) -> str:
        for source, made in self.after.items():
            if caller in made:
                return source
        for source, made in self.before.items():
            if caller in made:
                return source
        return caller

    def _at(self, node: cst.CSTNode, at, whole: bool = False) -> cst.CSTNode:
        if at is not None:
            for n in _all_nodes(node) if whole else [node]:
                self.new_positions[n] = at
        return node

    def _instance(self, name: str, inst: _Instance) -> tuple[cst.FunctionDef, dict[str, _Function]]:
        """The instance's function (its parameters: each function parameter replaced by the
        captures of the function passed, ``*args`` by its values), and what its body's calls of
        the function parameters call."""
        source = self.info.functions[inst.helper]
        fn = self._copy(source)
        helper = self.helpers[inst.helper]
        bound: dict[str, _Function] = {}
        made: list[cst.Param] = []
        for p in fn.params.params:
            pname = p.name.value
            if pname not in inst.functions:
                made.append(p)
                continue
            passed = inst.functions[pname]
            names = inst.capture_params[pname]
            at = self.new_positions.get(p) or self.positions.get(p)
            made += [self._at(cst.Param(cst.Name(n)), at, whole=True) for n in names]  # type: ignore[misc]
            bound[pname] = _Function(passed.callee, passed.spelled, [cst.Name(n) for n in names], names)
        star_arg = fn.params.star_arg
        if inst.count is not None:
            assert helper.star is not None
            at = self.new_positions.get(star_arg) or self.positions.get(star_arg)
            made += [self._at(cst.Param(cst.Name(f"{helper.star}_{k}")), at, whole=True)  # type: ignore[misc]
                     for k in range(inst.count)]
            star_arg = cst.ParamStar() if fn.params.kwonly_params else cst.MaybeSentinel.DEFAULT
        params = fn.params.with_changes(params=made, star_arg=star_arg)
        self._at(params, self.new_positions.get(fn.params))
        name_node = self._at(cst.Name(name), self.new_positions.get(fn.name))
        out = fn.with_changes(name=name_node, params=params)
        self._at(out, self.new_positions.get(fn))
        return out, bound

    def _copy(self, node: cst.FunctionDef) -> cst.FunctionDef:
        """A copy of ``node`` whose every node is placed where its original is."""
        copy = node.deep_clone()
        stack = [(node, copy)]
        while stack:
            a, b = stack.pop()
            at = self.new_positions.get(a) or self.positions.get(a)
            if at is not None:
                self.new_positions[b] = at
            stack.extend(zip(children(a), children(b)))
        return copy


class _CallRewriter(PlacedRewriter):
    """In one function: calls of helpers given functions become calls of their instances; in an
    instance, calls of its function parameters call the functions passed, ``*args`` is its values."""

    def __init__(self, pass_: _Specializer, name: str, fn: cst.FunctionDef, bound: dict[str, _Function],
                 star: Optional[str], count: Optional[int]):
        # The nodes of instances and lifted lambdas are placed in new_positions only
        super().__init__(ChainMap(pass_.new_positions, pass_.positions), pass_.new_positions)
        self.pass_ = pass_
        self.name = name
        self.bound = bound  # an instance's function parameters -> the functions passed
        self.star = star  # an instance's *args, given count values
        self.count = count
        self.local = {p.name.value for p in parameters(fn)} | set(stmt_assigned(fn.body))

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        k = _constant_index(updated)
        if self.star is None or not _is_name(updated.value, self.star) or k is None:
            return updated
        if not 0 <= k < (self.count or 0):
            return updated  # Python's IndexError: left as written, and refused
        self.changed = True
        return self.place(cst.Name(f"{self.star}_{k}"), original)  # type: ignore[return-value]

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if self.star is not None:
            if _is_name(updated.func, "len") and len(updated.args) == 1 and _is_name(updated.args[0].value, self.star) \
                    and updated.args[0].star == "":
                self.changed = True
                return self.place(cst.Integer(str(self.count)), original)  # type: ignore[return-value]
            if any(a.star == "*" and _is_name(a.value, self.star) for a in updated.args):
                updated = updated.with_changes(args=self._spread(updated.args))
                self.changed = True
        func = updated.func
        if isinstance(func, cst.Name) and func.value in self.bound:
            passed = self.bound[func.value]
            self.changed = True
            args = [self.place(cst.Arg(c), original, whole=True) for c in passed.captures]
            callee = self.place(passed.callee.deep_clone(), original, whole=True)
            return updated.with_changes(func=callee, args=[*args, *updated.args])
        if isinstance(func, cst.Name) and func.value in self.pass_.helpers and func.value not in self.local:
            return self._specialized(original, updated, func.value)
        return updated

    def _spread(self, args) -> list[cst.Arg]:
        out = []
        for a in args:
            if a.star == "*" and _is_name(a.value, self.star):
                out += [self.place(cst.Arg(cst.Name(f"{self.star}_{k}")), a, whole=True)
                        for k in range(self.count or 0)]
            else:
                out.append(a)
        return out

    def _specialized(self, original: cst.Call, updated: cst.Call, helper_name: str) -> cst.BaseExpression:
        """The call of ``helper_name``'s instance for the functions this call passes (as written
        where it passes something else)."""
        helper = self.pass_.helpers[helper_name]
        positional: list[cst.Arg] = []
        keywords: dict[str, cst.Arg] = {}
        for a in updated.args:
            if a.star:
                return updated
            if a.keyword is None:
                if keywords:
                    return updated
                positional.append(a)
            else:
                keywords[a.keyword.value] = a
        extra = positional[helper.positional:]
        if extra and helper.star is None:
            return updated
        given: dict[str, cst.Arg] = dict(zip(helper.names, positional[:helper.positional]))
        for k, a in keywords.items():
            if k not in helper.names or k in given:
                return updated
            given[k] = a
        functions: dict[str, _Function] = {}
        for p in helper.functions:
            if p not in given:
                return updated
            passed = self._function(given[p].value)
            if passed is None:
                return updated
            functions[p] = passed
        first_default = next((i for i, p in enumerate(self.pass_.info.functions[helper_name].params.params)
                              if p.default is not None), None)
        if first_default is not None and any(helper.names.index(p) > first_default and functions[p].captures
                                             for p in functions):
            return updated  # the captures would follow a parameter with a default: not a signature
        inst = self.pass_.instance_of(helper_name, functions, len(extra) if helper.star else None)
        if inst is None:
            return updated
        args: list[cst.Arg] = []
        for k, a in enumerate(updated.args):  # the positional ones first (keywords after are refused above)
            p = a.keyword.value if a.keyword is not None else (helper.names[k] if k < helper.positional else None)
            if p not in functions:
                args.append(a)
                continue
            passed = functions[p]
            if a.keyword is None:
                args += [self.place(cst.Arg(c), a, whole=True) for c in passed.captures]
            else:
                args += [self.place(cst.Arg(c, keyword=cst.Name(n)), a, whole=True)
                         for c, n in zip(passed.captures, inst.capture_params[p])]
        self.changed = True
        func = self.place(cst.Name(inst.name), original.func)
        return updated.with_changes(func=func, args=args)

    def _function(self, value: cst.BaseExpression) -> Optional[_Function]:
        """The function ``value`` passes: one of the file's or a library's, a function parameter
        of this instance, or a lambda (lifted); None for anything else."""
        if isinstance(value, cst.Name) and value.value in self.bound:
            passed = self.bound[value.value]
            return _Function(passed.callee, passed.spelled, [cst.Name(n) for n in passed.capture_names],
                             list(passed.capture_names))
        if isinstance(value, cst.Name) and value.value in self.local:
            return None
        if isinstance(value, cst.Name) and value.value in self.pass_.info.functions:
            return _Function(value, value.value)
        if isinstance(value, cst.Lambda):
            return self.pass_.lift(self.name, value, self.local)
        canonical = self.pass_.info.canonical_name(value, frozenset(self.local))
        if canonical is not None and isinstance(value, (cst.Name, cst.Attribute)):
            return _Function(value, canonical.rsplit(".", 1)[-1])
        return None


def _is_name(node: cst.CSTNode, name: Optional[str]) -> bool:
    return isinstance(node, cst.Name) and node.value == name
