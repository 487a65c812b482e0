"""File-scope arrays as parameters: ``double work[256];`` at file scope, used by the functions.

Numerical C keeps work arrays at file scope (``static double work[MAXN];``, ``double grid[N][N];``)
and its functions read and write them by name. s2sad reads every array as a value that a
function is passed, so each function that uses such an array, itself or through the functions
it calls, is given it as a parameter of the same declaration (``double work[256]``) after its
own, and each call of such a function passes it on (its name, which in the caller is the
caller's parameter). The function differentiated gets them the same way; those parameters are
not the user's (``GLOBAL_ARRAYS``): the C output's gradient keeps the user's signature and
passes the program's array itself, declared ``extern`` as for global numbers, with a zeroed
adjoint of its own (``emit_c.cfile``). So the gradient reads what the array holds when it is
called and leaves in it what the function leaves: the function's effects, as for an array it
is passed.

A ``static`` array is out of the gradient's file's reach: the gradient has one of its own
(``static double work[MAXN];``), which is the same only where the function writes every element
it reads before reading it, a work array's use, so that what an earlier call left there never
matters: ``pipeline`` asks ``analysis.overwritten`` of the optimized function, and refuses the
array with a located error where it cannot tell.

Refused, with a located error (``c_lower.global_read``, which meets the name still): an array of
unknown extent; an array of structs; CUDA, whose device code cannot reach host arrays. By name: a
function that declares a local or parameter of the array's name uses its own.
"""

from __future__ import annotations

import copy
from typing import Iterable

from pycparser import c_ast

from ..ssa.ir import Function
from .c_expr import walk
from .c_function_args import declared_names, params_of

# The attribute of the function differentiated: the names of its trailing parameters that are
# file-scope arrays (not the user's parameters: the C output passes the arrays themselves), each
# with its declaration; and those of them that are ``static``.
GLOBAL_ARRAYS = "global_arrays"
STATIC_ARRAYS = "static_arrays"

_NUMBERS = {"double", "float", "int", "long", "short", "char", "unsigned", "signed", "size_t"}


def threadable(decl: c_ast.Decl, typedefs: dict[str, list[str]]) -> bool:
    """Whether file-scope ``decl`` is an array of numbers of known extents: one s2sad passes to
    the functions that use it."""
    if not isinstance(decl.type, c_ast.ArrayDecl):
        return False
    t = decl.type
    while isinstance(t, c_ast.ArrayDecl):
        if t.dim is None:
            return False
        t = t.type
    if not (isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType)):
        return False
    names = [w for n in t.type.names for w in typedefs.get(n, [n])]
    return all(w in _NUMBERS for w in names)


def thread_global_arrays(functions: dict[str, c_ast.FuncDef], order: Iterable[str],
                         arrays: dict[str, c_ast.Decl]) -> dict[str, list[str]]:
    """Give each function of ``order`` (callees first) the file-scope ``arrays`` it uses, itself or
    through its calls, as parameters, and pass them at its calls; returns function -> the
    arrays added to it, in the file's order."""
    if not arrays:
        return {}
    order = list(order)
    rank = {name: k for k, name in enumerate(arrays)}
    uses: dict[str, list[str]] = {}
    for fname in order:  # callees first: a callee's list is known at its callers
        fn = functions[fname]
        own = declared_names(fn)
        nodes = list(walk(fn.body))
        members = {id(n.field) for n in nodes if isinstance(n, c_ast.StructRef)}  # p.work names no array
        used = {n.name for n in nodes if isinstance(n, c_ast.ID) and n.name in arrays and n.name not in own
                and id(n) not in members}
        for call in _calls(fn, functions):
            used.update(a for a in uses.get(call.name.name, ()) if a not in own)  # type: ignore[attr-defined]
        uses[fname] = sorted(used, key=rank.__getitem__)
    for fname in order:
        fn = functions[fname]
        for call in _calls(fn, functions):
            extra = uses.get(call.name.name, [])  # type: ignore[attr-defined]
            if extra:
                if call.args is None:
                    call.args = c_ast.ExprList([], call.coord)
                call.args.exprs += [c_ast.ID(name, call.coord) for name in extra]
        if uses[fname]:
            if not params_of(fn):  # f() or f(void): a list of its own
                fn.decl.type.args = c_ast.ParamList([], fn.decl.coord)
            fn.decl.type.args.params += [_as_param(arrays[name]) for name in uses[fname]]
    return {f: names for f, names in uses.items() if names}


def _as_param(decl: c_ast.Decl) -> c_ast.Decl:
    param = copy.deepcopy(decl)
    param.storage, param.init, param.funcspec = [], None, []
    return param


def _calls(fn: c_ast.FuncDef, functions: dict[str, c_ast.FuncDef]) -> list[c_ast.FuncCall]:
    return [n for n in walk(fn.body)
            if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name in functions]


def user_param_count(fn: Function) -> int:
    """How many of the IR parameters of ``fn`` (the function differentiated) are the user's: those
    before the file-scope arrays added to it (``GLOBAL_ARRAYS``)."""
    return len(fn.params) - len(fn.attrs.get(GLOBAL_ARRAYS) or ())
