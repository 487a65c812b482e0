"""Functions a C file declares but does not define: what s2sad may assume of a call to one.

s2sad cannot differentiate code it does not see, but it needs no derivative of a call
whose arguments do not depend on the ``--wrt`` inputs: such a call is run as the primal
runs it (an ``extern`` op), and the adjoint refuses, at the call, one whose arguments do
(``adjoint/reverse.py``). What the prototype must say, so that the call is a value s2sad
can reason about:

* a result: a call for its effects (``void``, or a result left unused) does something
  s2sad cannot see, and a function of no arguments is a constant or has a state of its
  own (``rand()``, ``clock()``);
* parameters that are numbers, or pointers to ``const`` numbers: the function only reads
  those arrays. A pointer to non-const memory may be written through, behind s2sad's back;
* no ``...``, no structs, no pointer results: what s2sad does not model.

The prototype is printed in the C output, whose caller links the definition as the
primal's did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pycparser import c_ast
from pycparser.c_generator import CGenerator

from .c_structs import StructTable
from .c_types import CType, TypeProblem, ctype_of


@dataclass(frozen=True)
class Prototype:
    """A declared function's signature: its parameters (``const_pointee`` per parameter),
    its result, and the declaration as C output prints it (``double weight(int k)``)."""

    name: str
    params: list[CType]
    const_pointee: list[bool]
    result: CType
    text: str


def _const_pointee(node: c_ast.Node) -> bool:
    """``const double *p``, ``const double p[]``, ``const double A[n][m]``: the memory is not
    written through ``p``."""
    if not isinstance(node, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        return False
    inner = node.type
    while isinstance(inner, c_ast.ArrayDecl):
        inner = inner.type
    return isinstance(inner, c_ast.TypeDecl) and "const" in inner.quals


def read_prototype(decl: c_ast.Decl, typedefs: dict[str, list[str]], structs: Optional[StructTable]) -> Prototype:
    """The prototype ``decl`` declares (TypeProblem where a call could not be modelled)."""
    ftype = decl.type
    assert isinstance(ftype, c_ast.FuncDecl)
    args = ftype.args.params if ftype.args is not None else []
    if len(args) == 1 and isinstance(args[0], c_ast.Typename) and ctype_of(args[0].type, typedefs, True).kind == "void":
        args = []  # f(void)
    params, const = [], []
    for p in args:
        if isinstance(p, c_ast.EllipsisParam):
            raise TypeProblem(p, f"'{decl.name}' takes a variable number of arguments, which s2sad cannot model")
        if isinstance(p, c_ast.ID):  # int bucket(t): an old-style list of names, no types
            raise TypeProblem(p, f"'{decl.name}' is declared with '{p.name}', a parameter of no type (old-style C), "
                              "so its arguments' types are not known",
                              "give each of its parameters a type in the declaration")
        t = ctype_of(p.type, typedefs, param=True, structs=structs)
        if t.layout is not None or t.record is not None:
            raise TypeProblem(p, f"'{decl.name}' takes a struct, which s2sad does not pass to functions it cannot see")
        params.append(t)
        const.append(_const_pointee(p.type))
    result = ctype_of(ftype.type, typedefs, param=False, structs=structs)
    if result.kind == "pointer":
        raise TypeProblem(decl, f"'{decl.name}' returns a pointer, which s2sad does not model")
    text = CGenerator().visit(c_ast.Decl(decl.name, [], [], [], [], ftype, None, None))
    return Prototype(decl.name, params, const, result, text)
