"""Functions passed as arguments, read as one copy of the callee per function passed.

Numerical C passes functions to its integrators, solvers and quadratures: ``rk4(decay, t, y, h)``
where ``rk4`` takes ``double (*f)(double, double)`` (or a typedef of one: ``rhs_fn f``) and calls
``f(t, y)``. s2sad's IR has no function values, and a gradient must know which function runs to
differentiate it; here each call that passes functions by name to a function of the file calls a
copy of that function made for them, the pointer parameters gone and every use of one naming the
function it holds: ``rk4(decay, t, y, h)`` calls ``rk4_decay(t, y, h)``, whose body calls
``decay(t, y)``. A copy that passes its function on (``integrate(f, ...)`` in ``rk4``) is read the
same way, so a chain of helpers each gets its copy; one calling itself calls its own copy.

A function passed may be one of the file's, one declared and defined elsewhere (a call of it, as
any call of such a function), or a library function (``integrate(sin, 0, 1)`` calls ``sin``). A
local pointer set once to a function in its declaration (``rhs_fn rhs = decay;``) and never
assigned again is read as that function first, wherever it is used; one assigned several named
functions (``if (mode == 1) act = tanh; else act = sigmoid;``) and only ever called is an integer
saying which, each call a choice among them. Calls that pass anything
else (a pointer assigned again or held in a struct, a parameter of a function that is not itself
copied) are left as written: the pointer is then refused where it is read, as before.
"""

from __future__ import annotations

import copy
from typing import Callable, Optional

from pycparser import c_ast

from .c_declarators import innermost_type_decl
from .c_expr import changed_names, walk


def function_typedefs(ext: list[c_ast.Node]) -> tuple[frozenset[str], frozenset[str]]:
    """The file's typedefs of pointers to functions (``typedef double (*rhs_fn)(double);``) and of
    function types (``typedef double rhs_t(double);``, used as ``rhs_t *f``)."""
    pointers, functions = set(), set()
    for node in ext:
        if isinstance(node, c_ast.Typedef):
            if isinstance(node.type, c_ast.PtrDecl) and isinstance(node.type.type, c_ast.FuncDecl):
                pointers.add(node.name)
            elif isinstance(node.type, c_ast.FuncDecl):
                functions.add(node.name)
    return frozenset(pointers), frozenset(functions)


class _Binder:
    def __init__(self, functions: dict[str, c_ast.FuncDef], callable_name: Callable[[str], bool],
                 typedefs: tuple[frozenset[str], frozenset[str]]):
        self.functions = functions
        self.callable_name = callable_name
        self.pointer_types, self.function_types = typedefs
        self.made: dict[tuple[str, tuple[str, ...]], str] = {}
        self.origin: dict[str, str] = {}

    def run(self) -> dict[str, str]:
        for fn in self.functions.values():
            # Both read local pointers to functions only: most functions declare none, and one
            # walk says so (each of them walks the function again, the first one changing it).
            if any(isinstance(n, c_ast.Decl) and self._function_pointer(n) for n in walk(fn.body)):
                self._read_held_functions(fn)
                self._read_chosen_functions(fn)
        if not any(self._function_pointer(p) for fn in self.functions.values() for p in params_of(fn)):
            return self.origin  # no function takes a function: no call to bind (``_bind``), no copy made
        pending = list(self.functions)
        while pending:
            caller = self.functions[pending.pop()]
            own = declared_names(caller)
            for call in [n for n in walk(caller.body) if isinstance(n, c_ast.FuncCall)
                         and isinstance(n.name, c_ast.ID) and n.name.name in self.functions]:
                made = self._bind(call, own)
                if made is not None:
                    pending.append(made)
        return self.origin

    def _bind(self, call: c_ast.FuncCall, own: frozenset[str]) -> Optional[str]:
        """Point ``call`` at the callee's copy for the functions it passes; the copy's name when it
        is new (its calls are bound in turn)."""
        callee = call.name.name  # type: ignore[attr-defined]
        params = params_of(self.functions[callee])
        slots = [k for k, p in enumerate(params) if self._function_pointer(p)]
        args = list(call.args.exprs) if call.args is not None else []
        if not slots or len(args) != len(params):
            return None
        bound = tuple(_function_named(args[k], own, self.callable_name) for k in slots)
        if any(name is None for name in bound):
            return None
        key = (callee, bound)  # type: ignore[arg-type]
        new = key not in self.made
        if new:
            copied = _copy(self.functions[callee], self._fresh(callee, bound), slots, bound)  # type: ignore[arg-type]
            if copied is None:
                return None
            self.made[key] = copied.decl.name
            self.functions[copied.decl.name] = copied
            self.origin[copied.decl.name] = self.origin.get(callee, callee)
        call.name = c_ast.ID(self.made[key], coord=call.name.coord)
        call.args.exprs = [a for k, a in enumerate(args) if k not in slots]  # type: ignore[union-attr]
        return self.made[key] if new else None

    def _read_held_functions(self, fn: c_ast.FuncDef) -> None:
        """A local pointer set once to a function (``rhs_fn f = decay;``, never assigned again) is
        that function wherever it is used: ``f(t, y)`` calls ``decay``, ``rk4(f, ...)`` passes it."""
        nodes = list(walk(fn.body))
        declared = [n.name for n in nodes if isinstance(n, c_ast.Decl) and n.name]
        changed = changed_names(nodes)
        params = {p.name for p in params_of(fn) if isinstance(p, c_ast.Decl)}
        blocks = {id(d): h for h in nodes if isinstance(h, c_ast.Compound) for d in h.block_items or []}
        for decl in [n for n in nodes if isinstance(n, c_ast.Decl) and n.init is not None and id(n) in blocks
                     and self._function_pointer(n)]:
            held = _function_named(decl.init, frozenset(params | set(declared)), self.callable_name)
            if held is None or declared.count(decl.name) != 1 or decl.name in changed or decl.name in params:
                continue
            _name_functions(fn.body, {decl.name: held})
            blocks[id(decl)].block_items.remove(decl)  # nothing reads it now

    def _read_chosen_functions(self, fn: c_ast.FuncDef) -> None:
        """A local pointer assigned only functions named (``act = tanh;`` in one branch, ``act =
        sigmoid;`` in another) and used only to call one (``act(z)``, ``(*act)(z)``) is an integer
        saying which: its number in the list of those functions, each assignment setting it and
        each call a choice among them, ``act == 0 ? tanh(z) : sigmoid(z)``."""
        nodes = list(walk(fn.body))
        params = {p.name for p in params_of(fn) if isinstance(p, c_ast.Decl)}
        declared = [n.name for n in nodes if isinstance(n, c_ast.Decl) and n.name]
        own = frozenset(params | set(declared))
        for decl in [n for n in nodes if isinstance(n, c_ast.Decl) and n.name and self._function_pointer(n)]:
            name = decl.name
            if declared.count(name) != 1 or name in params:
                continue
            choices: list[str] = []
            init = self._numbered(decl.init, own, choices) if decl.init is not None else None
            if decl.init is not None and init is None:
                continue
            sets, calls, others = [], [], 0
            for n in nodes:
                if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID) and n.lvalue.name == name:
                    number = self._numbered(n.rvalue, own, choices) if n.op == "=" else None
                    if number is None:
                        break
                    sets.append((n, number))
                elif isinstance(n, c_ast.FuncCall) and _callee_pointer(n) == name:
                    calls.append(n)
                elif isinstance(n, c_ast.ID) and n.name == name:
                    others += 1
            else:
                if not choices or others != len(sets) + len(calls):
                    continue  # used otherwise too (compared, passed on): not read so
                at = decl.coord
                decl.type = c_ast.TypeDecl(name, [], None, c_ast.IdentifierType(["int"], coord=at), coord=at)
                decl.init = init
                for n, number in sets:
                    n.rvalue = number
                for c in calls:
                    _replace(fn.body, c, _choice(name, choices, c))

    def _numbered(self, value: c_ast.Node, own: frozenset[str], choices: list[str]) -> Optional[c_ast.Node]:
        """A value of function pointers, ``tanh``, ``&softsign``, ``c ? sigmoid : tanh``, as the
        numbers of its functions in ``choices`` (appended to as new ones come); else None."""
        if isinstance(value, c_ast.TernaryOp):
            a, b = self._numbered(value.iftrue, own, choices), self._numbered(value.iffalse, own, choices)
            return c_ast.TernaryOp(value.cond, a, b, coord=value.coord) if a is not None and b is not None else None
        held = _function_named(value, own, self.callable_name)
        if held is None:
            return None
        choices += [held] if held not in choices else []
        return c_ast.Constant("int", str(choices.index(held)), coord=value.coord)

    def _function_pointer(self, param: c_ast.Node) -> bool:
        return FunctionPointers((self.pointer_types, self.function_types)).test(param)

    def _fresh(self, callee: str, bound: tuple[str, ...]) -> str:
        name = f"{callee}_{'_'.join(bound)}"
        while name in self.functions or self.callable_name(name):
            name += "_"
        return name


class FunctionPointers:
    """Which declarations are of pointers to functions, given the file's typedefs of them and of
    function types (``function_typedefs``)."""

    def __init__(self, typedefs: tuple[frozenset[str], frozenset[str]]):
        self.pointer_types, self.function_types = typedefs

    def test(self, decl: c_ast.Node) -> bool:
        t = decl.type if isinstance(decl, c_ast.Decl) else None
        if isinstance(t, c_ast.FuncDecl):
            return True  # double f(double): a parameter of function type is a pointer to one
        if isinstance(t, c_ast.PtrDecl):
            inner = t.type
            return isinstance(inner, c_ast.FuncDecl) or _type_name(inner) in self.function_types
        return _type_name(t) in self.pointer_types


def bind_function_arguments(functions: dict[str, c_ast.FuncDef], callable_name: Callable[[str], bool],
                            typedefs: tuple[frozenset[str], frozenset[str]]) -> dict[str, str]:
    """Point each call of ``functions`` that passes functions by name at a copy of its callee made
    for them, added to ``functions``; the copies' names, each to the function it copies.
    ``callable_name``: whether a name outside the file is a function a copy may call (declared
    in the file, or a library function)."""
    return _Binder(functions, callable_name, typedefs).run()


def params_of(fn: c_ast.FuncDef) -> list[c_ast.Node]:
    args = fn.decl.type.args
    params = list(args.params) if args is not None else []
    if len(params) == 1 and isinstance(params[0], c_ast.Typename) and _type_name(params[0].type) == "void":
        return []  # f(void)
    return params


def _type_name(t: Optional[c_ast.Node]) -> Optional[str]:
    if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) and len(t.type.names) == 1:
        return t.type.names[0]
    return None


def declared_names(fn: c_ast.FuncDef) -> frozenset[str]:
    """The names ``fn``'s parameters and locals take: a function passed by a name they shadow is
    no function."""
    params = {p.name for p in params_of(fn) if isinstance(p, c_ast.Decl) and p.name}
    return frozenset(params | {n.name for n in walk(fn.body) if isinstance(n, c_ast.Decl) and n.name})


def _function_named(arg: c_ast.Node, own: frozenset[str], callable_name: Callable[[str], bool]) -> Optional[str]:
    """The function ``arg`` names (``decay``, ``&decay``), or None."""
    if isinstance(arg, c_ast.UnaryOp) and arg.op == "&":
        arg = arg.expr
    if isinstance(arg, c_ast.ID) and arg.name not in own and callable_name(arg.name):
        return arg.name
    return None


def _copy(fn: c_ast.FuncDef, name: str, slots: list[int], bound: tuple[str, ...]) -> Optional[c_ast.FuncDef]:
    """``fn`` named ``name``, without its parameters at ``slots``, whose uses name ``bound``;
    None where a local of the same name as one of them hides it somewhere, or the body assigns one."""
    params = params_of(fn)
    held = {params[k].name: f for k, f in zip(slots, bound)}
    nodes = list(walk(fn.body))
    if any(isinstance(n, c_ast.Decl) and n.name in held for n in nodes) or changed_names(nodes) & held.keys():
        return None  # hidden by a local, or pointed elsewhere (f = g;): not the function passed throughout
    out = copy.deepcopy(fn)
    out.decl.name = name
    innermost_type_decl(out.decl.type.type).declname = name  # double *f(...): the name is innermost
    kept = [p for k, p in enumerate(params_of(out)) if k not in slots]
    if out.decl.type.args is not None:
        out.decl.type.args.params = kept or [c_ast.Typename(None, [], None, c_ast.TypeDecl(
            None, [], None, c_ast.IdentifierType(["void"])))]
    _name_functions(out.body, held)
    return out


def _callee_pointer(call: c_ast.FuncCall) -> Optional[str]:
    """The pointer variable ``call`` calls through (``f(x)``, ``(*f)(x)``), by name."""
    callee = call.name.expr if isinstance(call.name, c_ast.UnaryOp) and call.name.op == "*" else call.name
    return callee.name if isinstance(callee, c_ast.ID) else None


def _choice(which: str, functions: list[str], call: c_ast.FuncCall) -> c_ast.Node:
    """``which == 0 ? f0(args) : which == 1 ? f1(args) : f2(args)`` for ``call`` through ``which``."""
    at = call.coord

    def called(f: str) -> c_ast.FuncCall:
        return c_ast.FuncCall(c_ast.ID(f, coord=at), copy.deepcopy(call.args), coord=at)
    out: c_ast.Node = called(functions[-1])
    for k in range(len(functions) - 2, -1, -1):
        test = c_ast.BinaryOp("==", c_ast.ID(which, coord=at), c_ast.Constant("int", str(k), coord=at), coord=at)
        out = c_ast.TernaryOp(test, called(functions[k]), out, coord=at)
    return out


def _replace(root: c_ast.Node, old: c_ast.Node, new: c_ast.Node) -> None:
    """Put ``new`` where ``old`` is under ``root`` (the one place a node of a tree is)."""
    for n in walk(root):
        for slot in n.__slots__:
            value = getattr(n, slot, None)
            if value is old:
                setattr(n, slot, new)
                return
            if isinstance(value, list) and any(v is old for v in value):
                value[[id(v) for v in value].index(id(old))] = new
                return


def _name_functions(body: c_ast.Node, held: dict[str, str]) -> None:
    """Every use in ``body`` of a pointer in ``held`` names the function it holds: ``f(t, y)``,
    ``(*f)(t, y)`` and ``rk4(f, ...)`` become ``decay(t, y)``, ``decay(t, y)``, ``rk4(decay, ...)``."""
    nodes = list(walk(body))
    members = {id(n.field) for n in nodes if isinstance(n, c_ast.StructRef)}  # p->f is no use of f
    for n in nodes:
        if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.UnaryOp) and n.name.op == "*" \
                and isinstance(n.name.expr, c_ast.ID) and n.name.expr.name in held:
            n.name = n.name.expr  # (*f)(t, y) calls what f holds
        if isinstance(n, c_ast.ID) and id(n) not in members and n.name in held:
            n.name = held[n.name]
