"""Functions that allocate an array and return it, read where they are called as their statements.

Numerical C allocates through small constructors: ``double *new_vector(int n) { double *v =
malloc(n * sizeof(double)); for (...) v[i] = 0.0; return v; }``, ``double **dmatrix(int n, int
m)``, which return the array they made. s2sad's IR has no pointer values to return, so such a
function (a *factory*) is read at each call ``double *w = new_vector(n);`` as its body placed
there, the array it returns named ``w``: the call becomes ``double *w = malloc(n *
sizeof(double)); for (...) w[i] = 0.0;``. What follows sees an array allocated in the caller,
which the rest of the front end knows (``c_row_allocs`` for a factory of rows).

A factory: a function returning a pointer whose body ends with its only ``return``, of a local
pointer variable declared at the top of its body, and which does not call itself; or one
returning by value a struct with pointer members that it declares at the top of its body
(``Matrix m; m.rows = r; ...; m.data = calloc(...); return m;``), read where it initializes a
variable of its own, ``Matrix C = mat_alloc(r, c);`` (a struct of numbers returned stays a call:
its members are the call's results). A call is
read so where it initializes a pointer in a declaration of its own, ``T *w = f(args);``
(casts allowed), or is assigned to one, ``w = f(args);`` (the array then named ``w_f``, ``w``
pointed at it). The parameters become the arguments where the body never assigns them and the
argument has no effect (a number converted to its parameter's type, as the call converts it),
else variables of their own initialized with them; the factory's locals keep their names
unless the caller uses the name, then they take the factory's name as a suffix. Any other call
of a factory is a located error saying so (``FactoryProblem``).
"""

from __future__ import annotations

import copy
from typing import Optional

from pycparser import c_ast

from .c_accessors import _converted, _plain, _rename
from .c_declarators import innermost_type_decl
from .c_expr import changed_names, is_name, walk
from .c_records import is_null_pointer, tests_null


class FactoryProblem(Exception):
    """A call of a factory that cannot be read as its statements; ``node`` is where to point."""

    def __init__(self, node: c_ast.Node, message: str, hint: str):
        super().__init__(message)
        self.node, self.message, self.hint = node, message, hint


def factories(functions: dict[str, c_ast.FuncDef], structs: frozenset[str] = frozenset()
              ) -> dict[str, tuple[c_ast.FuncDef, str]]:
    """The factories of the file, each with the name of the local it returns (``structs``: the
    file's struct types, which a factory may return by value)."""
    out = {}
    for name, fn in functions.items():
        returned = _returned_local(fn, structs)
        if returned is not None and not any(isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)
                                            and n.name.name == name for n in walk(fn.body)):
            out[name] = (fn, returned)
    return out


def _pointer_of(expr: c_ast.Node) -> Optional[str]:
    """The local pointer ``expr`` returns: ``v``, or ``v`` moved by integers (``v - nl + NR_END``,
    Numerical Recipes' vectors indexed from ``nl``) where nothing else in it names ``v``."""
    if isinstance(expr, c_ast.ID):
        return expr.name
    if isinstance(expr, c_ast.BinaryOp) and expr.op in ("+", "-"):
        name = _pointer_of(expr.left)
        if name is not None and not any(isinstance(n, c_ast.ID) and n.name == name for n in walk(expr.right)):
            return name
    return None


def _returned_local(fn: c_ast.FuncDef, structs: frozenset[str]) -> Optional[str]:
    result = fn.decl.type.type
    by_value = _struct_named(result, structs)  # Matrix mat_alloc(int r, int c): a struct made and returned
    if not isinstance(result, c_ast.PtrDecl) and not by_value:
        return None
    items = fn.body.block_items or []
    if len(items) < 2 or not isinstance(items[-1], c_ast.Return) or items[-1].expr is None:
        return None
    name = _pointer_of(items[-1].expr) if not by_value else \
        items[-1].expr.name if isinstance(items[-1].expr, c_ast.ID) else None
    if name is None:
        return None
    if by_value:
        top = [d for d in items if isinstance(d, c_ast.Decl) and d.name == name]
        one_return = sum(isinstance(n, c_ast.Return) for n in walk(fn.body)) == 1
        return name if one_return and len(top) == 1 and _struct_named(top[0].type, structs) else None
    guards = [st for st in items if _null_guard(st, name)]
    if sum(isinstance(n, c_ast.Return) for n in walk(fn.body)) != 1 + len(guards):
        return None
    top = [d for d in items if isinstance(d, c_ast.Decl) and d.name == name]
    if len(top) != 1 or not isinstance(top[0].type, c_ast.PtrDecl):
        return None
    return name


def _type_text(fn: c_ast.FuncDef) -> str:
    """The struct type ``fn`` returns, as the source names it."""
    inner = fn.decl.type.type.type
    return " ".join(inner.names) if isinstance(inner, c_ast.IdentifierType) else f"struct {inner.name}"


def _struct_named(t: c_ast.Node, structs: frozenset[str]) -> bool:
    """``t`` is a struct type of the file's, by value (``Matrix``, ``struct Matrix``)."""
    if not isinstance(t, c_ast.TypeDecl):
        return False
    inner = t.type
    if isinstance(inner, c_ast.IdentifierType):
        return len(inner.names) == 1 and inner.names[0] in structs
    return isinstance(inner, c_ast.Struct) and inner.name in structs


def inline_factories(functions: dict[str, c_ast.FuncDef], structs: frozenset[str] = frozenset(),
                     by_value: frozenset[str] = frozenset()) -> tuple[frozenset[str], list[FactoryProblem]]:
    """Replace every call of a factory in the other functions by its statements (in place): the
    factories' names, and the calls that cannot be replaced, as problems."""
    found = factories(functions, by_value)
    problems: list[FactoryProblem] = []
    if not found:
        return frozenset(), problems
    for name, fn in functions.items():
        if name in found:
            continue
        refused: set[int] = set()
        for _ in range(len(found) + 1):  # a factory's body may call another: again
            if not _inline_in(fn, found, structs, problems, refused):
                break
        for n in walk(fn.body):
            if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name in found \
                    and id(n) not in refused:
                pointer = isinstance(found[n.name.name][0].decl.type.type, c_ast.PtrDecl)
                problems.append(FactoryProblem(
                    n, f"'{n.name.name}' returns a {'pointer' if pointer else 'struct'} held in a local variable, "
                    f"and s2sad reads its calls only where the result initializes a "
                    f"{'pointer' if pointer else 'variable'} of its own",
                    f"declare a pointer with it first: double *w = {n.name.name}(...);" if pointer else
                    f"declare a variable with it first: {_type_text(found[n.name.name][0])} m = {n.name.name}(...);"))
    return frozenset(found), problems


def _inline_in(fn: c_ast.FuncDef, found: dict, structs: frozenset[str], problems: list[FactoryProblem],
               refused: set[int]) -> bool:
    """Replace the factory calls of the declarations in ``fn``'s blocks; whether any was. A call
    that cannot be replaced is a problem (``refused`` remembers it)."""
    changed = False
    taken = _names_of(fn)  # grows with each expansion's names, so two calls never clash
    for n in list(walk(fn.body)):
        if not isinstance(n, c_ast.Compound) or not n.block_items:
            continue
        items: list[c_ast.Node] = []
        for st in n.block_items:
            call = _factory_call(st, found)
            if call is None or id(call) in refused:
                items.append(st)
                continue
            try:
                items += _expansion(st, call, *found[call.name.name], structs, taken)  # type: ignore[union-attr]
                changed = True
            except FactoryProblem as p:
                problems.append(p)
                refused.add(id(call))
                items.append(st)
        n.block_items = items
    return changed


def _factory_call(st: c_ast.Node, found: dict) -> Optional[c_ast.FuncCall]:
    """The factory call of ``st``, a declaration ``T *w = f(...);`` or an assignment ``w = f(...);``."""
    if isinstance(st, c_ast.Assignment) and st.op == "=" and isinstance(st.lvalue, c_ast.ID):
        init = st.rvalue
    elif isinstance(st, c_ast.Decl) and isinstance(st.type, (c_ast.PtrDecl, c_ast.TypeDecl)) and st.init is not None:
        init = st.init
    else:
        return None
    while isinstance(init, c_ast.Cast):
        init = init.expr
    if not (isinstance(init, c_ast.FuncCall) and isinstance(init.name, c_ast.ID) and init.name.name in found):
        return None
    pointer = isinstance(found[init.name.name][0].decl.type.type, c_ast.PtrDecl)
    if pointer != (isinstance(st, c_ast.Assignment) or isinstance(st.type, c_ast.PtrDecl)):
        return None  # a struct made by value initializes a declaration of its own: Matrix C = mat_alloc(...);
    return init


def _names_of(fn: c_ast.FuncDef) -> set[str]:
    """Every name a function uses or declares, its parameters too."""
    params = fn.decl.type.args.params if fn.decl.type.args is not None else []
    return {n.name for n in walk(fn.body) if isinstance(n, (c_ast.ID, c_ast.Decl)) and n.name} | \
        {p.name for p in params if isinstance(p, c_ast.Decl) and p.name}


def _expansion(st: c_ast.Node, call: c_ast.FuncCall, fn: c_ast.FuncDef, returned: str, structs: frozenset[str],
               taken: set[str]) -> list[c_ast.Node]:
    """The statements ``T *w = f(args);`` stands for (``returned`` renamed ``w``); for ``w =
    f(args);``, and for a factory that returns a pointer into its array, those with ``returned``
    renamed afresh, then ``w`` pointed as the factory's ``return`` points."""
    result = fn.body.block_items[-1].expr
    if isinstance(st, c_ast.Assignment) and _rows_returned(fn, result) \
            and not any(is_name(n, st.lvalue.name) for n in walk(call)):  # type: ignore[attr-defined]
        # ``A = dmatrix(...)`` of rows: the factory's statements build ``A`` itself (no second
        # pointer to pointers to alias), which c_row_allocs reads as one array.
        target = st.lvalue.name  # type: ignore[attr-defined]
        out, _ = _placed(target, call, fn, returned, structs, taken)
        kept: list[c_ast.Node] = []
        for d in out:  # the factory's declaration of it goes: its initializer, if any, assigns A
            if not (isinstance(d, c_ast.Decl) and d.name == target):
                kept.append(d)
            elif d.init is not None:
                kept.append(c_ast.Assignment("=", c_ast.ID(target, coord=d.coord), d.init, coord=d.coord))
        return kept
    if isinstance(st, c_ast.Assignment):
        fresh = _fresh(st.lvalue.name, fn.decl.name, taken)  # type: ignore[attr-defined]
        out, renames = _placed(fresh, call, fn, returned, structs, taken)
        return out + [c_ast.Assignment("=", st.lvalue, _rename(copy.deepcopy(result), renames), coord=st.coord)]
    if isinstance(result, c_ast.ID):
        return _placed(st.name, call, fn, returned, structs, taken)[0]
    # A pointer into the array (``return v - nl + NR_END;``): the array under a name of its own,
    # then ``T *w = v_vector - 1 + 1;`` with the factory's names as its statements have them.
    fresh = _fresh(returned, fn.decl.name, taken)
    out, renames = _placed(fresh, call, fn, returned, structs, taken)
    st.init = _rename(copy.deepcopy(result), renames)
    return out + [st]


def _placed(array: str, call: c_ast.FuncCall, fn: c_ast.FuncDef, returned: str, structs: frozenset[str],
            taken: set[str]) -> tuple[list[c_ast.Node], dict[str, c_ast.Node]]:
    """The statements of factory ``fn`` as ``call`` runs them, the local it returns named
    ``array``; and the names they give the factory's names."""
    coord = call.coord
    name = fn.decl.name
    params = [p for p in (fn.decl.type.args.params if fn.decl.type.args is not None else [])
              if isinstance(p, c_ast.Decl) and p.name]
    args = list(call.args.exprs) if call.args is not None else []
    if len(args) != len(params):
        raise FactoryProblem(call, f"'{name}' takes {len(params)} argument(s), not {len(args)}", f"pass {len(params)}")
    body = copy.deepcopy([st for st in fn.body.block_items[:-1] if not _null_guard(st, returned)])
    assigned = changed_names(n for stmt in body for n in walk(stmt))
    renames: dict[str, c_ast.Node] = {returned: c_ast.ID(array, coord=coord)}
    out: list[c_ast.Node] = []
    for p, a in zip(params, args):
        if p.name not in assigned and _plain(a):
            renames[p.name] = _converted(a, p, structs)
            continue
        fresh = _fresh(p.name, name, taken)
        local = copy.deepcopy(p)
        _name_decl(local, fresh)
        local.init = a
        out.append(local)
        renames[p.name] = c_ast.ID(fresh, coord=p.coord)
    # A local of the factory's top level lands in the caller's scope: renamed where the caller
    # uses its name. One of an inner scope (a loop's counter) only where it would capture a name
    # of an argument put in its place.
    in_args = {n.name for r in renames.values() for n in walk(r) if isinstance(n, c_ast.ID)}
    top = {id(d) for d in body if isinstance(d, c_ast.Decl)}
    for stmt in body:
        for n in walk(stmt):
            if isinstance(n, c_ast.Decl) and n.name and n.name != returned and n.name not in renames \
                    and n.name in (taken if id(n) in top else in_args):
                renames[n.name] = c_ast.ID(_fresh(n.name, name, taken), coord=n.coord)
    for stmt in body:
        for n in walk(stmt):
            if isinstance(n, c_ast.Decl) and n.name in renames:
                _name_decl(n, renames[n.name].name)  # type: ignore[attr-defined]
        out.append(_rename(stmt, renames))
    taken.update(n.name for stmt in out for n in walk(stmt) if isinstance(n, c_ast.Decl) and n.name)
    return out, renames


def _rows_returned(fn: c_ast.FuncDef, result: c_ast.Node) -> bool:
    """``fn`` returns its local pointer to pointers as it is (``double **dmatrix(...)``, ``return m;``)."""
    t = fn.decl.type.type
    return isinstance(result, c_ast.ID) and isinstance(t, c_ast.PtrDecl) and isinstance(t.type, c_ast.PtrDecl)


def _null_guard(st: c_ast.Node, name: str) -> bool:
    """``if (!v) return NULL;`` (``v == NULL``, ``v == 0``; a block ending in that return, with no
    other): a test of the allocation ``name`` for failure, which s2sad reads as succeeding
    (``c_expr.never_null``), so the statement is dropped where the factory is placed."""
    if not isinstance(st, c_ast.If) or st.iffalse is not None:
        return False
    tests = tests_null(st.cond, name)
    body = st.iftrue.block_items or [] if isinstance(st.iftrue, c_ast.Compound) else [st.iftrue]
    returns = [n for n in walk(st.iftrue) if isinstance(n, c_ast.Return)]
    return bool(tests and body and returns == [body[-1]] and is_null_pointer(body[-1].expr))


def _fresh(name: str, factory: str, taken: set[str]) -> str:
    fresh, k = f"{name}_{factory}", 2
    while fresh in taken:
        fresh, k = f"{name}_{factory}{k}", k + 1
    taken.add(fresh)
    return fresh


def _name_decl(d: c_ast.Decl, name: str) -> None:
    """Give a declaration (and the innermost declarator of its type) the name ``name``."""
    d.name = name
    innermost_type_decl(d.type).declname = name
