"""Functions held in struct members, read as functions passed by name.

Numerical C bundles a problem's function with its data: ``OdeSystem sys = {lotka, NEQ, p};``
with ``typedef struct { rhs_fn f; int n; const double *p; } OdeSystem;``, then ``rk4_step(&sys,
t, h, y)`` calls ``sys->f(t, y, k1, sys->p)``. Where a local struct is initialized with a
function named for such a member and the member is never assigned again, the function is known
wherever the struct goes: each call through the member names it (``lotka(t, y, k1, sys.p)``), and
each function the struct is passed to gets the member's value as one more argument, a pointer
to a function (``rk4_step(&sys, t, h, y, lotka)``, its calls ``sys->f(...)`` made through that
parameter), which ``c_function_args`` then binds as it binds any function passed by name. The
member, read nowhere else then, leaves the struct's declaration and its initializers: no layout
has to hold a function.

Only where that is certain: a struct type that no parameter of a function outside the file's
helpers takes (the function differentiated, or any function not ``static``, keeps the layout its
callers use), whose function members are read only as calls through a struct so initialized and
passed on by address or value to the file's functions. Anything else is left as written, and
the member's type is refused where the struct is declared, as before.
"""

from __future__ import annotations

import copy
from typing import Callable, Optional

from pycparser import c_ast

from .c_declarators import innermost_type_decl
from .c_expr import walk
from .c_function_args import params_of


def read_member_functions(functions: dict[str, c_ast.FuncDef], structs: list[tuple[c_ast.Struct, Optional[str]]],
                          is_function_pointer: Callable[[c_ast.Node], bool],
                          callable_name: Callable[[str], bool]) -> None:
    """Rewrite the file (``functions``, the struct definitions ``structs`` with their typedef
    names) so that no struct holds a function, where the functions held are known (in place)."""
    for node, typedef in structs:
        members = [k for k, d in enumerate(node.decls or []) if is_function_pointer(d)]
        name = typedef or node.name
        if not members or name is None or _in_outer_signatures(functions, name):
            continue
        for k in reversed(members):
            _Member(functions, node, name, k, callable_name).run()


class _Member:
    """One function member ``k`` of struct type ``type_name`` (its declaration ``struct``)."""

    def __init__(self, functions: dict[str, c_ast.FuncDef], struct: c_ast.Struct, type_name: str, k: int,
                 callable_name: Callable[[str], bool]):
        self.functions, self.struct, self.type_name, self.k = functions, struct, type_name, k
        self.field = struct.decls[k].name
        self.callable_name = callable_name
        self.edits: list[Callable[[], None]] = []  # made only once every use is known to be read so

    def run(self) -> None:
        locals_ = self._initialized_locals()
        if locals_ is None:
            return
        # (function, name of the struct there: a local or a parameter) -> what its member holds:
        # a function's name, or the name of the parameter added for it
        held: dict[tuple[str, str], str] = dict(locals_)
        pending = list(held)
        added: dict[tuple[str, int], str] = {}  # (callee, parameter index) -> the parameter added
        appended: set[int] = set()  # the calls given the function as an argument
        while pending:
            fname, var = pending.pop()
            fn = self.functions[fname]
            for call in [n for n in walk(fn.body) if isinstance(n, c_ast.FuncCall)]:
                args = list(call.args.exprs) if call.args is not None else []
                at = [j for j, a in enumerate(args) if _names(a, var)]
                if not at:
                    continue
                callee = call.name.name if isinstance(call.name, c_ast.ID) else None
                if callee not in self.functions or len(at) != 1:
                    return  # passed where it cannot follow: left as written
                param = _param_names(self.functions[callee])[at[0]]
                if param is None:
                    return
                if (callee, at[0]) not in added:
                    if any(c == callee for c, _ in added):
                        return  # two such structs passed to one function: left as written
                    added[(callee, at[0])] = f"{param}_{self.field}"
                    held[(callee, param)] = added[(callee, at[0])]
                    pending.append((callee, param))
                self.edits.append(_appender(call, held[(fname, var)]))
                appended.add(id(call))
        # Every call of a function that takes the member now passes it (not one passing a struct
        # whose function is unknown: the function would miss an argument).
        takers = {callee for callee, _ in added}
        for fn in self.functions.values():
            for n in walk(fn.body):
                if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name in takers \
                        and id(n) not in appended:
                    return
        # Every use of the member: a call through a struct whose member is known.
        for fname, fn in self.functions.items():
            for n in walk(fn.body):
                if isinstance(n, c_ast.StructRef) and n.field.name == self.field:
                    if not isinstance(n.name, c_ast.ID) or (fname, n.name.name) not in held \
                            or not self._called(fn, n):
                        if self._of_this_type(fn, n):
                            return
                        continue
                    self.edits.append(_renamer(fn, n, held[(fname, n.name.name)]))
        for (callee, _), pname in added.items():
            self.edits.append(_param_adder(self.functions[callee], copy.deepcopy(self.struct.decls[self.k]), pname))
        for edit in self.edits:
            edit()
        self._drop_member()

    def _initialized_locals(self) -> Optional[dict[tuple[str, str], str]]:
        """(function, local) -> the function named for the member in the local's initializer, for
        every local of this type; None when one is not so (no initializer, or another value)."""
        out: dict[tuple[str, str], str] = {}
        for fname, fn in self.functions.items():
            own = {n.name for n in walk(fn.body) if isinstance(n, c_ast.Decl) and n.name}
            for d in walk(fn.body):
                if not (isinstance(d, c_ast.Decl) and _type_named(d.type, self.type_name)):
                    continue
                held = self._initial_function(d.init, own)
                if held is None:
                    return None
                out[(fname, d.name)] = held
        return out

    def _initial_function(self, init: Optional[c_ast.Node], own: set[str]) -> Optional[str]:
        if not isinstance(init, c_ast.InitList):
            return None
        value = None
        for j, e in enumerate(init.exprs):
            if isinstance(e, c_ast.NamedInitializer):
                if len(e.name) == 1 and isinstance(e.name[0], c_ast.ID) and e.name[0].name == self.field:
                    value = e.expr
            elif j == self.k:
                value = e
        if isinstance(value, c_ast.UnaryOp) and value.op == "&":
            value = value.expr
        if isinstance(value, c_ast.ID) and value.name not in own and self.callable_name(value.name):
            return value.name
        return None

    def _called(self, fn: c_ast.FuncDef, ref: c_ast.StructRef) -> bool:
        return any(isinstance(n, c_ast.FuncCall) and n.name is ref for n in walk(fn.body))

    def _of_this_type(self, fn: c_ast.FuncDef, ref: c_ast.StructRef) -> bool:
        """Whether ``ref``'s struct may be of this type (a variable of the function declared so,
        or one s2sad cannot tell): a use of the member it does not read as a known function."""
        if not isinstance(ref.name, c_ast.ID):
            return True
        decls = [d for d in walk(fn) if isinstance(d, c_ast.Decl) and d.name == ref.name.name]
        return not decls or any(_type_named(_pointee(d.type), self.type_name) for d in decls)

    def _drop_member(self) -> None:
        """The member leaves the declaration and every initializer of the type."""
        del self.struct.decls[self.k]
        for fn in self.functions.values():
            for d in walk(fn.body):
                if isinstance(d, c_ast.Decl) and _type_named(d.type, self.type_name) and \
                        isinstance(d.init, c_ast.InitList):
                    d.init.exprs = [e for j, e in enumerate(d.init.exprs)
                                    if not (j == self.k and not isinstance(e, c_ast.NamedInitializer))
                                    and not (isinstance(e, c_ast.NamedInitializer) and e.name[0].name == self.field)]


def _in_outer_signatures(functions: dict[str, c_ast.FuncDef], type_name: str) -> bool:
    """Whether a function callers outside the file can call (not ``static``) takes the type."""
    for fn in functions.values():
        if "static" in fn.decl.storage:
            continue
        if any(isinstance(p, c_ast.Decl) and _type_named(_pointee(p.type), type_name) for p in params_of(fn)):
            return True
    return False


def _pointee(t: c_ast.Node) -> c_ast.Node:
    while isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        t = t.type
    return t


def _type_named(t: c_ast.Node, name: str) -> bool:
    if not isinstance(t, c_ast.TypeDecl):
        return False
    inner = t.type
    if isinstance(inner, c_ast.IdentifierType):
        return inner.names == [name]
    return isinstance(inner, c_ast.Struct) and inner.name == name


def _param_names(fn: c_ast.FuncDef) -> list[Optional[str]]:
    return [p.name if isinstance(p, c_ast.Decl) else None for p in params_of(fn)]


def _names(arg: c_ast.Node, var: str) -> bool:
    """``arg`` is the struct ``var`` or its address (``sys``, ``&sys``)."""
    if isinstance(arg, c_ast.UnaryOp) and arg.op == "&":
        arg = arg.expr
    return isinstance(arg, c_ast.ID) and arg.name == var


def _appender(call: c_ast.FuncCall, value: str) -> Callable[[], None]:
    def edit() -> None:
        call.args.exprs.append(c_ast.ID(value, coord=call.coord))  # type: ignore[union-attr]
    return edit


def _renamer(fn: c_ast.FuncDef, ref: c_ast.StructRef, value: str) -> Callable[[], None]:
    def edit() -> None:
        for n in walk(fn.body):
            if isinstance(n, c_ast.FuncCall) and n.name is ref:
                n.name = c_ast.ID(value, coord=ref.coord)
    return edit


def _param_adder(fn: c_ast.FuncDef, member: c_ast.Decl, name: str) -> Callable[[], None]:
    def edit() -> None:
        member.name = name
        innermost_type_decl(member.type).declname = name
        fn.decl.type.args.params.append(member)
    return edit
