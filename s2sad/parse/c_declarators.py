"""Array declarators of C parameters: reading their extents, and spelling them back.

Numerical C passes matrices as arrays, not as flat pointers: ``double A[N][M]``
(``#define`` sizes), ``double A[][M]``, ``double (*A)[M]`` and C99's variable-length
``int n, int m, double A[n][m]``. C itself keeps only the extents after the first
(a parameter ``A[n][m]`` is a pointer to rows of ``m``), but each one the user wrote
is what the function was written for, so s2sad takes them as the array's shape
(``shapes``: exact extents, see ``analysis.extents``) instead of covering the elements
the loops touch. An extent left out (``A[][M]``, ``(*A)[M]``) stays unknown.

A declared extent may name integer parameters, numbers and constants (``#define``s,
enumerators, ``const int`` globals), with ``+ - * / %``. Two forms of it are made:

* its C text for the gradient's signature, which keeps the user's declarator
  (``double d_A[n][m]``): parameters and the file's ``#define`` numbers by name (the
  output defines those again), any other constant as its value, since the output does
  not carry it;
* its annotation for ``sizes``: an affine expression of the integer parameters
  (``"n"``, ``"2 * n + 1"``) or a number, or ``""`` where it is not affine (``n / 2``).

A signature's array parameter is spelled as C's abstract declarator, the name left out
(``const double [n][m]``, ``double (*)[M]``); ``declarator`` puts the name back in.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, replace
from typing import Optional, Union

from pycparser import c_ast

from .c_expr import walk
from .c_structs import int_constant
from .c_types import CType, TypeProblem, array_declarator, spelling

# An annotation: affine text of the parameters, a number, or "" where unknown (as ``sizes`` reads it).
Extent = Union[str, int]

_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "%": 2}


@dataclass(frozen=True)
class ReadDims:
    """A parameter's extents as the gradient's signature spells them, and as ``sizes`` reads them."""

    texts: tuple[str, ...]  # "" where the declarator leaves the extent out
    extents: tuple[Extent, ...]
    macros: tuple[tuple[str, int], ...]  # the #define'd names the texts use, with their values


class DimReader:
    """Reads the extents of array parameters, given what a name in them may be."""

    def __init__(self, constants: dict[str, c_ast.Node], macro_names: frozenset[str]):
        self.constants = constants
        self.macro_names = macro_names

    def read(self, dims: tuple[Optional[c_ast.Node], ...], ints: set[str], where: c_ast.Node) -> ReadDims:
        """``dims`` (outermost first; None: left out) of a parameter declared after the integer
        parameters ``ints``."""
        texts: list[str] = []
        extents: list[Extent] = []
        macros: list[tuple[str, int]] = []
        for d in dims:
            if d is None:
                texts.append("")
                extents.append("")
                continue
            text, affine = self._dim(d, ints, macros, where)
            texts.append(text)
            value = None if any(isinstance(n, c_ast.ID) and n.name in ints for n in walk(d)) else \
                int_constant(d, self.constants, set())
            extents.append(value if value is not None else affine or "")
        return ReadDims(tuple(texts), tuple(extents), tuple(dict.fromkeys(macros)))

    def _dim(self, node: c_ast.Node, ints: set[str], macros: list[tuple[str, int]], where: c_ast.Node,
             parent: str = "", right: bool = False) -> tuple[str, Optional[str]]:
        """(C text, affine annotation text or None) of one extent expression."""
        if isinstance(node, c_ast.Constant) and "int" in node.type:
            value = int_constant(node, {}, set())
            return node.value, str(value)
        if isinstance(node, c_ast.ID):
            if node.name in ints:
                return node.name, node.name
            value = int_constant(node, self.constants, set())
            if value is None:
                raise TypeProblem(node, f"the array size '{node.name}' is neither an integer parameter declared "
                                  "before this one nor a constant",
                                  "size a parameter array by earlier integer parameters, numbers and #defines: "
                                  "int n, int m, double A[n][m]")
            if node.name in self.macro_names and isinstance(self.constants.get(node.name), c_ast.Constant):
                macros.append((node.name, value))  # printed by name: the output defines it again
                return node.name, str(value)
            return str(value), str(value)
        if isinstance(node, c_ast.BinaryOp) and node.op in _PRECEDENCE:
            left, a = self._dim(node.left, ints, macros, where, node.op, False)
            rite, b = self._dim(node.right, ints, macros, where, node.op, True)
            text = f"{left} {node.op} {rite}"
            affine = f"{a} {node.op} {b}" if a is not None and b is not None and node.op in "+-*" else None
            if parent and (_PRECEDENCE[node.op] < _PRECEDENCE[parent]
                           or (right and _PRECEDENCE[node.op] == _PRECEDENCE[parent])):
                text, affine = f"({text})", None if affine is None else f"({affine})"
            return text, affine
        raise TypeProblem(node if getattr(node, "coord", None) else where, "this array size is not supported",
                          "size a parameter array by integer parameters, numbers and #defines, with + - * / %")


def spelled_dims(t: CType, node: c_ast.Node, read: ReadDims) -> CType:
    """``t``, the type of the parameter declared by ``node``, with its extents spelled as the
    output spells them (``const double [n][m]``, ``double (*)[M]``)."""
    declared = array_declarator(node)
    assert declared is not None
    _, elem, shape = declared
    texts = [text for text, d in zip(read.texts, t.dims) if d is not None]
    return replace(t, spelling=f"{spelling(elem)} {shape.format(*texts)}")


def innermost_type_decl(node: c_ast.Node) -> c_ast.TypeDecl:
    """The ``TypeDecl`` innermost in the declarator chain ``node`` (``double *f(...)``,
    ``double A[2][3]``): where C writes the declared name and the element's type."""
    while not isinstance(node, c_ast.TypeDecl):
        node = node.type
    return node


def declarator(spelled: str, name: str) -> str:
    """A declaration of ``name`` of the type ``spelled``: ``double *x``, ``long n``,
    ``const double A[n][m]``, ``double (*A)[4]``."""
    if "(*" in spelled:
        at = spelled.index(")", spelled.index("(*"))
        gap = "" if spelled[at - 1] == "*" else " "
        return f"{spelled[:at]}{gap}{name}{spelled[at:]}"
    if "[" in spelled:
        at = spelled.index("[")
        return f"{spelled[:at]}{name}{spelled[at:]}"
    return f"{spelled}{name}" if spelled.endswith("*") else f"{spelled} {name}"


def is_array_spelling(spelled: str) -> bool:
    """Whether a parameter is declared with array extents, or as rows of pointers
    (``double **A``): C output indexes it ``A[i][j]``."""
    return "[" in spelled or is_pointer_rows(spelled)


def is_pointer_rows(spelled: str) -> bool:
    """Whether a parameter is declared ``double **A`` (``const double *const *A``): rows that
    are pointers of their own, not one block C could copy whole."""
    return "[" not in spelled and spelled.count("*") == 2


def row_pointer(spelled: str) -> str:
    """The pointer type one row of an array parameter decays to (``const double *`` for
    ``const double [n][m]``, and for ``const double *const *``): the type of a local that
    points into it."""
    if is_pointer_rows(spelled):
        row = re.sub(r"(\s*\b(const|restrict|volatile)\b)+\s*$", "", spelled[: spelled.rindex("*")])
        return row.rstrip()
    for mark in ("(*", "["):
        if mark in spelled:
            return spelled[: spelled.index(mark)].rstrip() + " *"
    return spelled


def pointer_to_rows(spelled: str, rows: list[str]) -> str:
    """The type of a pointer to rows of the extents ``rows`` whose elements are those of the
    array parameter ``spelled``: ``const double (*)[m]`` (a flat buffer is cast to it)."""
    return f"{row_pointer(spelled)[:-1]}(*){''.join(f'[{r}]' for r in rows)}"
