"""``void *`` parameters that always hold one struct type, read as pointers to it.

Library-style numerical C passes its parameters through ``void *`` (GSL's ODE right-hand sides,
minimizers and integrands): ``int rhs(double t, const double y[], double f[], void *params)``
reads them as ``const Params *p = (const Params *)params;``, and the integrator only passes
``params`` on. s2sad needs the struct's type to follow its numbers, so a ``void *`` parameter is
read as a pointer to the one struct type its uses give it: casts of it (``(const Params *)params``,
``(struct gp *)params``) in the function, or the parameter of a callee it is passed on to
(``f(t, y, dy, params)``, once functions passed by name are bound, ``c_function_args``), callees
first. The parameter is then declared ``const Params *`` (``const`` where every cast is to a
const pointer) and the casts go; callers passing ``&P`` (or ``(void *)&P``) pass the struct as to
any such parameter. Where the uses disagree, or the parameter is used otherwise (read as an
array, compared, stored), it stays ``void *``, refused where it is declared as before.
"""

from __future__ import annotations

from typing import Optional

from pycparser import c_ast

from .c_expr import walk

Pointee = tuple[tuple[str, ...], bool]  # the struct type's names, and whether the pointer is const


def type_void_params(functions: dict[str, c_ast.FuncDef]) -> None:
    """Retype, in place, each ``void *`` parameter of ``functions`` its uses give one struct type."""
    settled: dict[tuple[str, int], Pointee] = {}
    for _ in range(len(functions) + 1):  # a parameter passed on learns its type from its callee's
        changed = False
        for name, fn in functions.items():
            for k, p in enumerate(_params(fn)):
                if (name, k) in settled or not _is_void_pointer(p):
                    continue
                pointee = _pointee(fn, p.name, functions, settled)
                if pointee is not None:
                    settled[(name, k)] = pointee
                    changed = True
        if not changed:
            break
    for (name, k), (names, const) in settled.items():
        fn = functions[name]
        p = _params(fn)[k]
        at = p.coord
        p.type = c_ast.PtrDecl([], c_ast.TypeDecl(p.name, ["const"] if const else [], None,
                                                  _pointee_type(names, at), coord=at), coord=at)
        _drop_casts(fn.body, p.name)
    if not settled:
        return  # no parameter retyped: no call passes a struct's address cast to one
    for fn in functions.values():  # euler(rhs, (void *)&P, ...): the struct's address, as it is
        for n in walk(fn.body):
            if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.args is not None:
                for k, a in enumerate(n.args.exprs):
                    if (n.name.name, k) in settled and isinstance(a, c_ast.Cast) and _is_void_cast(a):
                        n.args.exprs[k] = a.expr


def _is_void_cast(cast: c_ast.Cast) -> bool:
    t = cast.to_type.type
    return isinstance(t, c_ast.PtrDecl) and isinstance(t.type, c_ast.TypeDecl) \
        and isinstance(t.type.type, c_ast.IdentifierType) and t.type.type.names == ["void"]


def _params(fn: c_ast.FuncDef) -> list[c_ast.Node]:
    args = fn.decl.type.args if isinstance(fn.decl.type, c_ast.FuncDecl) else None
    return list(args.params) if args is not None else []


def _is_void_pointer(p: c_ast.Node) -> bool:
    t = p.type if isinstance(p, c_ast.Decl) else None
    return isinstance(t, c_ast.PtrDecl) and isinstance(t.type, c_ast.TypeDecl) \
        and isinstance(t.type.type, c_ast.IdentifierType) and t.type.type.names == ["void"]


def _cast_pointee(node: c_ast.Node) -> Optional[Pointee]:
    """``(const T *)`` of a cast to a pointer to a named type: (T's names, const); a struct named
    by its tag (``(struct gp *)params``, GSL's own spelling) as ("struct", tag)."""
    t = node.to_type.type if isinstance(node, c_ast.Cast) else None
    if not (isinstance(t, c_ast.PtrDecl) and isinstance(t.type, c_ast.TypeDecl)):
        return None
    named = t.type.type
    if isinstance(named, c_ast.IdentifierType) and named.names != ["void"]:
        return tuple(named.names), "const" in t.type.quals
    if isinstance(named, c_ast.Struct) and named.name and named.decls is None:
        return ("struct", named.name), "const" in t.type.quals
    return None


def _pointee_type(names: tuple[str, ...], at: object) -> c_ast.Node:
    """The type a pointee's names spell: a typedef's or a scalar's names, or ``struct tag``."""
    if names[0] == "struct" and len(names) == 2:
        return c_ast.Struct(names[1], None, coord=at)
    return c_ast.IdentifierType(list(names), coord=at)


def _pointee(fn: c_ast.FuncDef, name: str, functions: dict[str, c_ast.FuncDef],
             settled: dict[tuple[str, int], Pointee]) -> Optional[Pointee]:
    """The one struct type the uses of ``fn``'s ``void *`` parameter ``name`` give it; None where
    they give none, disagree, or it is used otherwise."""
    found: set[tuple[str, ...]] = set()
    const = True
    uses = 0
    known = 0
    for n in walk(fn.body):
        if isinstance(n, c_ast.ID) and n.name == name:
            uses += 1
        if isinstance(n, c_ast.Decl) and n.name == name:
            return None  # hidden by a local of that name somewhere: leave it
        if isinstance(n, c_ast.Cast) and isinstance(n.expr, c_ast.ID) and n.expr.name == name:
            pointee = _cast_pointee(n)
            if pointee is None:
                return None
            found.add(pointee[0])
            const = const and pointee[1]
            known += 1
        if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.args is not None:
            for k, a in enumerate(n.args.exprs):
                if isinstance(a, c_ast.ID) and a.name == name:
                    callee = n.name.name
                    if callee not in functions or (callee, k) not in settled:
                        return None  # passed where its type is not known (yet)
                    found.add(settled[(callee, k)][0])
                    const = const and settled[(callee, k)][1]
                    known += 1
    if uses == 0 or known != uses or len(found) != 1:
        return None
    return next(iter(found)), const


def _drop_casts(body: c_ast.Node, name: str) -> None:
    """``(const T *)name`` is ``name`` once ``name`` is declared so (declared ``const`` only where
    every cast was to a const pointer)."""
    for n in walk(body):
        for slot in n.__slots__:
            value = getattr(n, slot, None)
            if isinstance(value, c_ast.Cast) and isinstance(value.expr, c_ast.ID) and value.expr.name == name:
                setattr(n, slot, value.expr)
            elif isinstance(value, list):
                for k, v in enumerate(value):
                    if isinstance(v, c_ast.Cast) and isinstance(v.expr, c_ast.ID) and v.expr.name == name:
                        value[k] = v.expr
