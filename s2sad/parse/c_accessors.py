"""Functions that return a pointer, read as the expression they return.

Numerical C reaches into its arrays through small accessors: ``static double *row(double *A,
int m, int i) { return A + i * m; }``, ``static const double *col(const Matrix *M, int j) {
return &M->data[j * M->rows]; }``. s2sad's IR has no pointer values to return, so such a
function is read where it is called as the expression it returns, its parameters replaced by
the arguments: ``double *r = row(W, n, k);`` reads as ``double *r = W + (int)(k) * n;``. A
number argument is converted to its parameter's type, as the call would; an argument that a
call would evaluate once (it has side effects, or calls a function) must then be used once.

Only a function whose body is one ``return`` statement is read this way; any other function
returning a pointer stays a located error (``c_frontend``), as does a call this module cannot
substitute (its reason in the message).
"""

from __future__ import annotations

import copy
from pycparser import c_ast

from .c_expr import replace_child, walk


class AccessorProblem(Exception):
    """A call of an accessor that cannot be read as its expression; ``node`` is where to point."""

    def __init__(self, node: c_ast.Node, message: str, hint: str):
        super().__init__(message)
        self.node, self.message, self.hint = node, message, hint


def accessors(functions: dict[str, c_ast.FuncDef]) -> dict[str, c_ast.FuncDef]:
    """The functions of the file that return a pointer and whose body is ``return e;``."""
    out = {}
    for name, fn in functions.items():
        returns = fn.decl.type.type  # FuncDecl -> its result's declarator
        items = fn.body.block_items or []
        if isinstance(returns, c_ast.PtrDecl) and len(items) == 1 and isinstance(items[0], c_ast.Return) \
                and items[0].expr is not None and not _calls(items[0].expr, name):
            out[name] = fn
    return out


def inline_accessors(functions: dict[str, c_ast.FuncDef], structs: frozenset[str] = frozenset()) \
        -> tuple[frozenset[str], list[AccessorProblem]]:
    """Replace every call of an accessor in the other functions by its expression (in place):
    the accessors' names, and the calls that cannot be replaced, as problems. ``structs``: the
    struct types' names (a struct argument is passed as it is, never cast)."""
    found = accessors(functions)
    problems: list[AccessorProblem] = []
    if not found:
        return frozenset(), problems
    for name, fn in functions.items():
        if name in found:
            continue
        for _ in range(len(found) + 1):  # an accessor's expression may call another: again
            if not _substitute(fn.body, found, problems, structs):
                break
    return frozenset(found), problems


def _substitute(node: c_ast.Node, found: dict[str, c_ast.FuncDef], problems: list[AccessorProblem],
                structs: frozenset[str]) -> bool:
    """Replace the accessor calls below ``node``; whether any was."""
    changed = False
    for attr, child in node.children():
        if isinstance(child, c_ast.FuncCall) and isinstance(child.name, c_ast.ID) and child.name.name in found:
            try:
                replace_child(node, attr, _expansion(child, found[child.name.name], structs))
                changed = True
                continue
            except AccessorProblem as p:
                problems.append(p)
        changed = _substitute(child, found, problems, structs) or changed
    return changed


def _expansion(call: c_ast.FuncCall, fn: c_ast.FuncDef, structs: frozenset[str]) -> c_ast.Node:
    """The accessor's returned expression with its parameters replaced by the call's arguments."""
    name = fn.decl.name
    params = [p for p in (fn.decl.type.args.params if fn.decl.type.args is not None else [])
              if isinstance(p, c_ast.Decl)]
    args = list(call.args.exprs) if call.args is not None else []
    if len(args) != len(params):
        raise AccessorProblem(call, f"'{name}' takes {len(params)} argument(s), not {len(args)}",
                              f"pass {len(params)}")
    body = copy.deepcopy(fn.body.block_items[0].expr)
    uses: dict[str, int] = {}
    for n in walk(body):
        if isinstance(n, c_ast.ID):
            uses[n.name] = uses.get(n.name, 0) + 1
    by_name = {}
    for p, a in zip(params, args):
        if uses.get(p.name, 0) != 1 and not _plain(a):
            raise AccessorProblem(a, f"'{name}' returns a pointer, and s2sad reads it as the expression it "
                                  f"returns, where '{p.name}' is used {uses.get(p.name, 0)} times: this argument "
                                  "would be evaluated as often", "pass a variable: assign the argument to one first")
        by_name[p.name] = _converted(a, p, structs)
    return _rename(body, by_name)


def _rename(node: c_ast.Node, by_name: dict[str, c_ast.Node]) -> c_ast.Node:
    """``node`` with each variable of ``by_name`` replaced (a member's name, ``m.rows`` beside a
    parameter ``rows``, is no variable)."""
    if isinstance(node, c_ast.ID) and node.name in by_name:
        return copy.deepcopy(by_name[node.name])
    for attr, child in node.children():
        if isinstance(node, c_ast.StructRef) and attr == "field":
            continue
        replace_child(node, attr, _rename(child, by_name))
    return node


def _converted(arg: c_ast.Node, param: c_ast.Decl, structs: frozenset[str]) -> c_ast.Node:
    """A number argument converted to its parameter's type, as the call converts it; a pointer
    or a struct as it is (parenthesized by the tree)."""
    t = param.type
    if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) \
            and not any(name in structs for name in t.type.names):
        to = c_ast.Typename(None, [], None, c_ast.TypeDecl(None, [], None, copy.deepcopy(t.type)))
        return c_ast.Cast(to, arg, coord=arg.coord)
    return arg


def _plain(node: c_ast.Node) -> bool:
    """Evaluated any number of times with the same result and no effect: names, constants,
    members, elements and arithmetic of them."""
    for n in walk(node):
        if isinstance(n, (c_ast.FuncCall, c_ast.Assignment)) or \
                (isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--")):
            return False
    return True


def _calls(node: c_ast.Node, name: str) -> bool:
    return any(isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name == name
               for n in walk(node))
