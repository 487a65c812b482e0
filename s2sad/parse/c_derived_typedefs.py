"""Array and pointer types named by a typedef, read as the declarators they name.

Small fixed-size vectors and matrices are often typedefs of arrays (linmath.h's ``typedef float
vec4[4]; typedef vec4 mat4x4[4];``, a Kalman filter's ``typedef double mat2[2][2];``), used as
parameters (``const mat2 A``, which C reads as ``const double (*A)[2]``), locals with their
initializers (``mat2 P = {{1, 0}, {0, 1}};``), struct members, casts and ``sizeof``; older
numerical C names its vectors by a typedef of a pointer (``typedef double *Vector;``, ``Vector
x``). Each place that names one is given the declarator it stands for (``const double A[2][2]``,
``double *x``), its own name and qualifiers kept, so that every later pass sees the arrays and
pointers C sees: an array's qualifiers are its elements' (``const mat2``: the numbers are const),
a pointer's its own (``const Vector x`` is ``double *const x``). A typedef of a typedef of one
(``mat4x4`` above) is expanded first. Pointers to functions are not expanded
(``c_function_args`` reads them).

Runs on the whole file right after parsing, before any other pass reads a declaration. Only
file-scope typedefs are expanded: a typedef inside a function is rare in numerical C, and stays
an unknown type there (a located error, as before).
"""

from __future__ import annotations

import copy

from pycparser import c_ast

from .c_declarators import innermost_type_decl
from .c_expr import walk


def expand_derived_typedefs(ast: c_ast.FileAST) -> None:
    """Give every declaration, type name and typedef of ``ast`` that names an array or pointer
    typedef the declarator it stands for, in place."""
    derived: dict[str, c_ast.Node] = {}
    for ext in ast.ext:
        if isinstance(ext, c_ast.Typedef):
            _expand(ext, derived)  # typedef vec4 mat4x4[4]: vec4 first
            if isinstance(ext.type, c_ast.ArrayDecl) or _data_pointer(ext.type):
                derived[ext.name] = ext.type
        elif derived:
            _expand(ext, derived)


def _data_pointer(node: c_ast.Node) -> bool:
    """A pointer (to pointers) to a named type: ``double *``, ``real **``, ``Matrix *``."""
    if not isinstance(node, c_ast.PtrDecl):
        return False
    while isinstance(node, c_ast.PtrDecl):
        node = node.type
    return isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType)


def _expand(top: c_ast.Node, derived: dict[str, c_ast.Node]) -> None:
    if not derived:
        return
    for node in walk(top):  # (a node's children are listed after the walk yields it: its new type is walked)
        inner = getattr(node, "type", None)
        name = _named_derived(inner, derived)
        if name is not None:
            node.type = _declarator(inner, derived[name])


def _named_derived(node: object, derived: dict[str, c_ast.Node]) -> str | None:
    """The array or pointer typedef ``node`` (a ``TypeDecl``) names, if it names one."""
    if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType):
        names = node.type.names
        if len(names) == 1 and names[0] in derived:
            return names[0]
    return None


def _declarator(use: c_ast.TypeDecl, typedef: c_ast.Node) -> c_ast.Node:
    """The typedef's declarator for the name ``use`` declares, with ``use``'s qualifiers (``const
    mat2 A``: the numbers are const; ``const Vector x``: the pointer is) and its place in the
    source."""
    made = copy.deepcopy(typedef)
    for node in walk(made):
        node.coord = use.coord
    leaf = innermost_type_decl(made)
    leaf.declname = use.declname
    held = made if isinstance(made, c_ast.PtrDecl) else leaf
    held.quals = list(dict.fromkeys([*use.quals, *held.quals]))
    return made
